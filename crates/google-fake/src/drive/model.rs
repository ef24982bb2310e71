//! Drive's data: files and folders, their permissions, shared drives and comments, and the ids and
//! times Drive gives them.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, SubsecRound, Utc};

use super::{FOLDER, Role, native};
use crate::state::World;

/// Whom a permission grants access to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grantee {
    User,
    Group,
    Domain,
    Anyone,
}

impl Grantee {
    pub fn parse(value: &str) -> Option<Self> {
        Some(match value {
            "user" => Self::User,
            "group" => Self::Group,
            "domain" => Self::Domain,
            "anyone" => Self::Anyone,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Group => "group",
            Self::Domain => "domain",
            Self::Anyone => "anyone",
        }
    }
}

/// One entry of a file's access control list.
#[derive(Debug, Clone)]
pub struct Permission {
    pub id: String,
    pub grantee: Grantee,
    pub role: Role,
    /// For `user` and `group` grantees, lower-cased.
    pub email: Option<String>,
    /// For `domain` grantees.
    pub domain: Option<String>,
    pub allow_file_discovery: bool,
    pub expiration_time: Option<DateTime<Utc>>,
    /// When the grant was made (a file's `sharedWithMeTime` for the grantee).
    pub granted_at: DateTime<Utc>,
    /// Who made the grant (a file's `sharingUser` for the grantee).
    pub granted_by: Option<String>,
}

impl Permission {
    /// A grant to one user (or group) by email.
    pub fn user(email: &str, role: Role, granted_by: Option<&str>) -> Self {
        let email = email.trim().to_ascii_lowercase();
        Self {
            id: permission_id(&email),
            grantee: Grantee::User,
            role,
            email: Some(email),
            domain: None,
            allow_file_discovery: false,
            expiration_time: None,
            granted_at: now(),
            granted_by: granted_by.map(str::to_ascii_lowercase),
        }
    }
}

/// Which kind of node a [`File`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node {
    Item,
    /// A user's "My Drive" folder (the `root` alias).
    MyDriveRoot,
    /// The top folder of a shared drive; its id is the shared drive's id.
    SharedDriveRoot,
}

/// A Drive file or folder. Per-user state (starred, viewed, modified by me) is kept per email.
#[derive(Debug, Clone)]
pub struct File {
    pub id: String,
    pub name: String,
    pub mime_type: String,
    /// Drive v3 allows exactly one parent.
    pub parent: Option<String>,
    /// The shared drive the file lives in.
    pub drive_id: Option<String>,
    pub node: Node,
    pub created_time: DateTime<Utc>,
    pub modified_time: DateTime<Utc>,
    pub explicitly_trashed: bool,
    pub trashed_time: Option<DateTime<Utc>>,
    pub trashing_user: Option<String>,
    pub starred_by: BTreeSet<String>,
    pub viewed_by: BTreeMap<String, DateTime<Utc>>,
    pub modified_by: BTreeMap<String, DateTime<Utc>>,
    /// Bytes of a blob; `None` for folders, shortcuts and Google-native files.
    pub content: Option<Vec<u8>>,
    pub description: Option<String>,
    pub last_modifying_user: Option<String>,
    /// The access control list; in My Drive it holds exactly one `owner`.
    pub permissions: Vec<Permission>,
    pub properties: BTreeMap<String, String>,
    pub app_properties: BTreeMap<String, String>,
    pub shortcut_target: Option<String>,
    pub original_filename: Option<String>,
    pub writers_can_share: bool,
    pub copy_requires_writer_permission: bool,
    pub folder_color_rgb: Option<String>,
    /// The versions of its content, oldest first (see `revisions`).
    pub revisions: Vec<super::revisions::Revision>,
    pub version: u64,
    /// Creation order, the last tie-breaker of every listing.
    pub seq: u64,
}

impl File {
    pub(crate) fn new(id: String, name: &str, mime_type: &str, seq: u64) -> Self {
        let time = now();
        Self {
            id,
            name: name.to_owned(),
            mime_type: mime_type.to_owned(),
            parent: None,
            drive_id: None,
            node: Node::Item,
            created_time: time,
            modified_time: time,
            explicitly_trashed: false,
            trashed_time: None,
            trashing_user: None,
            starred_by: BTreeSet::new(),
            viewed_by: BTreeMap::new(),
            modified_by: BTreeMap::new(),
            content: None,
            description: None,
            last_modifying_user: None,
            permissions: Vec::new(),
            properties: BTreeMap::new(),
            app_properties: BTreeMap::new(),
            shortcut_target: None,
            original_filename: None,
            writers_can_share: true,
            copy_requires_writer_permission: false,
            folder_color_rgb: None,
            revisions: Vec::new(),
            version: 1,
            seq,
        }
    }

    pub fn is_folder(&self) -> bool {
        self.mime_type == FOLDER
    }

    /// Any `application/vnd.google-apps.*` type: no binary content, cannot be downloaded.
    pub fn is_google_type(&self) -> bool {
        self.mime_type.starts_with("application/vnd.google-apps.")
    }

    /// A Docs Editors file (the only kind `files.export` accepts).
    pub fn is_editor_file(&self) -> bool {
        native::export_formats(&self.mime_type).is_some()
    }

    /// The owner's email (My Drive items only).
    pub fn owner(&self) -> Option<&str> {
        self.permissions.iter().find(|p| p.role == Role::Owner).and_then(|p| p.email.as_deref())
    }

    pub fn size(&self) -> Option<usize> {
        self.content.as_ref().map(Vec::len)
    }

    pub(crate) fn touch(&mut self, by: &str) {
        let time = now();
        self.modified_time = time;
        self.modified_by.insert(by.to_ascii_lowercase(), time);
        self.last_modifying_user = Some(by.to_ascii_lowercase());
        self.version += 1;
    }
}

/// A shared drive; its members are the permissions on its root folder (same id) in the file table.
#[derive(Debug, Clone)]
pub struct SharedDrive {
    pub id: String,
    pub name: String,
    pub created_time: DateTime<Utc>,
    pub hidden: bool,
    pub color_rgb: String,
    pub seq: u64,
}

/// A comment on a file (Drive's comments resource).
#[derive(Debug, Clone)]
pub struct Comment {
    pub id: String,
    pub author: String,
    pub content: String,
    pub created_time: DateTime<Utc>,
    pub modified_time: DateTime<Utc>,
    pub resolved: bool,
    pub deleted: bool,
    pub anchor: Option<String>,
    pub quoted: Option<(String, String)>,
    pub replies: Vec<Reply>,
}

/// A reply to a comment; `action` is `resolve` or `reopen` when the reply changed the comment's state.
#[derive(Debug, Clone)]
pub struct Reply {
    pub id: String,
    pub author: String,
    pub content: String,
    pub created_time: DateTime<Utc>,
    pub modified_time: DateTime<Utc>,
    pub action: Option<String>,
    pub deleted: bool,
}

/// A sharing notification Google would have emailed (`sendNotificationEmail`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    pub file_id: String,
    pub from: String,
    pub to: String,
    pub role: Role,
    pub message: Option<String>,
}

/// Now, at the millisecond precision Drive reports, so a time read back compares equal to the stored one.
pub(crate) fn now() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(3)
}

/// RFC 3339 with milliseconds and `Z`, as Drive writes times.
pub(crate) fn rfc3339(time: &DateTime<Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A stable 64-bit FNV-1a hash (ids derived from emails must not change between runs).
pub(crate) fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

/// The permission id Drive publishes for a user (also their `permissionId`): 20 digits, stable per email.
pub fn permission_id(email: &str) -> String {
    format!("{:020}", fnv(&email.trim().to_ascii_lowercase()))
}

/// The People API resource name of a user, as Drive Activity reports actors.
pub fn person_name(email: &str) -> String {
    format!("people/1{}", permission_id(email))
}

pub(crate) fn new_file_id() -> String {
    format!("1{}", World::new_id(32))
}

pub(crate) fn new_native_id() -> String {
    format!("1{}", World::new_id(43))
}

pub(crate) fn new_root_id() -> String {
    format!("0A{}Uk9PVA", World::new_id(12))
}
