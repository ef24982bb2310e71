//! Drive v3 (`https://www.googleapis.com/drive/v3/`, uploads under `/upload/drive/v3/`): files, folders,
//! shared drives, permissions, comments and `about`, with Drive's legacy error bodies and its partial
//! responses (`fields`).
//!
//! The [`Store`] is the single source of truth for file metadata; the Sheets and Docs emulators keep the
//! content of Google-native files and register them here with [`Store::insert_native_file`].
//!
//! Access follows Drive: a file's role for a caller is the best of the permissions on the file and its
//! ancestors (an inherited `owner` counts as `writer`); shared-drive members are permissions on the shared
//! drive's root folder, whose id is the shared drive's id. A file the caller cannot see is "File not
//! found", as is a shared-drive item when the request lacks `supportsAllDrives=true`.

mod about;
mod access;
mod comments;
mod fields;
mod files;
mod link;
mod list;
mod model;
mod native;
mod params;
mod permissions;
mod query;
mod render;
mod revisions;
mod upload;
mod write;

use std::collections::{BTreeMap, HashMap};

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

use crate::Shared;
use crate::errors::ApiError;
use crate::state::{Identity, World};

pub use access::Role;
pub use model::{Comment, File, Grantee, Node, Notification, Permission, Reply, SharedDrive};
pub(crate) use model::{fnv, new_file_id, new_native_id, new_root_id, now, permission_id, person_name, rfc3339};
pub(crate) use native::Access;
/// Drive's query and body readers, shared with Calendar (the same legacy error dialect).
pub(crate) use params::{Params, bool_field, json_body, new_page_token, str_field};
pub(crate) use revisions::EXPORT_ROUTES;

/// Drive's download link (`webContentLink`) on drive.google.com, outside the Drive API.
pub(crate) const LINK_ROUTE: (&str, &str) = (link::PATH, "drive.google.com download link (webContentLink), no sign-in");

/// A Drive request: its query read as Drive reads it, its caller answered in Drive's legacy error shape.
type Call = crate::call::Call<params::Params>;

/// A Drive folder.
pub const FOLDER: &str = "application/vnd.google-apps.folder";
/// A Google Sheets spreadsheet.
pub const SPREADSHEET: &str = "application/vnd.google-apps.spreadsheet";
/// A Google Docs document.
pub const DOCUMENT: &str = "application/vnd.google-apps.document";
/// A Drive shortcut.
pub const SHORTCUT: &str = "application/vnd.google-apps.shortcut";

/// Uploads are bounded only by memory (Google accepts up to 5 TB).
const MAX_UPLOAD_BYTES: usize = 256 * 1024 * 1024;

/// Everything Drive knows.
#[derive(Debug, Default)]
pub struct Store {
    pub(crate) files: HashMap<String, File>,
    pub(crate) drives: BTreeMap<String, SharedDrive>,
    /// email → id of that user's My Drive root folder.
    roots: HashMap<String, String>,
    pub(crate) comments: HashMap<String, Vec<Comment>>,
    pub(crate) uploads: HashMap<String, upload::Session>,
    display_names: HashMap<String, String>,
    /// Sharing emails "sent", in order, for tests to inspect.
    pub notifications: Vec<Notification>,
    seq: u64,
}

impl Store {
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Registers a Google-native file (spreadsheet, document …) created by the Sheets or Docs emulator, in
    /// the owner's My Drive. Registering an existing id renames it and keeps everything else.
    pub fn insert_native_file(&mut self, id: &str, name: &str, mime_type: &str, owner: &Identity) {
        if let Some(file) = self.files.get_mut(id) {
            file.name = name.to_owned();
            file.mime_type = mime_type.to_owned();
            return;
        }
        let root = self.root_id(&owner.email);
        self.insert_item(id.to_owned(), name, mime_type, Some(&root), &owner.email);
    }

    /// Renames a Google-native file (the Sheets/Docs title changed); unknown ids are ignored.
    pub fn rename_native_file(&mut self, id: &str, name: &str) {
        if let Some(file) = self.files.get_mut(id) {
            file.name = name.to_owned();
            file.modified_time = now();
            file.version += 1;
        }
    }

    /// Marks a Google-native file modified by `by` (a Sheets/Docs edit): `modifiedTime`,
    /// `lastModifyingUser`, `modifiedByMeTime` and `version` move on.
    pub fn touch_native_file(&mut self, id: &str, by: &Identity) {
        if let Some(file) = self.files.get_mut(id) {
            file.touch(&by.email);
        }
    }

    /// Creates a folder under `parent` (the owner's My Drive when `None`); returns its id.
    pub fn create_folder(&mut self, name: &str, parent: Option<&str>, owner: &Identity) -> String {
        let parent = parent.map_or_else(|| self.root_id(&owner.email), str::to_owned);
        self.insert_item(new_file_id(), name, FOLDER, Some(&parent), &owner.email)
    }

    /// Creates a blob (binary file) with `bytes` under `parent` (the owner's My Drive when `None`).
    pub fn create_blob(
        &mut self,
        name: &str,
        mime_type: &str,
        bytes: Vec<u8>,
        parent: Option<&str>,
        owner: &Identity,
    ) -> String {
        let parent = parent.map_or_else(|| self.root_id(&owner.email), str::to_owned);
        let id = self.insert_item(new_file_id(), name, mime_type, Some(&parent), &owner.email);
        if let Some(file) = self.files.get_mut(&id) {
            file.content = Some(bytes);
            file.original_filename = Some(name.to_owned());
        }
        self.record_blob_revision(&id);
        id
    }

    /// A file by id (no access check; `root` is not resolved here).
    pub fn get(&self, id: &str) -> Option<&File> {
        self.files.get(id)
    }

    /// A file by id, for tests and seeding to adjust anything (times, stars, content).
    pub fn get_mut(&mut self, id: &str) -> Option<&mut File> {
        self.files.get_mut(id)
    }

    /// A file by id, or Drive's "File not found" (no access check).
    pub(crate) fn file(&self, id: &str) -> Result<&File, ApiError> {
        self.files.get(id).ok_or_else(|| ApiError::drive_file_not_found(id))
    }

    /// A file by id to change, or Drive's "File not found" (no access check).
    pub(crate) fn file_mut(&mut self, id: &str) -> Result<&mut File, ApiError> {
        self.files.get_mut(id).ok_or_else(|| ApiError::drive_file_not_found(id))
    }

    /// Whether a file with this id exists (in any state).
    pub fn contains(&self, id: &str) -> bool {
        self.files.contains_key(id)
    }

    /// Moves a file under `parent` (same drive rules as `files.update?addParents=…&removeParents=…`,
    /// without access checks).
    pub fn set_parent(&mut self, id: &str, parent: &str) {
        let drive_id = self.files.get(parent).and_then(|p| p.drive_id.clone());
        if let Some(file) = self.files.get_mut(id) {
            file.parent = Some(parent.to_owned());
        }
        self.set_drive_of_subtree(id, drive_id);
    }

    /// Creates a shared drive with `member` as its organizer; returns its id.
    pub fn create_shared_drive(&mut self, name: &str, member: &Identity) -> String {
        let id = new_root_id();
        let seq = self.next_seq();
        let drive = SharedDrive {
            id: id.clone(),
            name: name.to_owned(),
            created_time: now(),
            hidden: false,
            color_rgb: "#4986e7".to_owned(),
            seq,
        };
        self.drives.insert(id.clone(), drive);
        let mut root = File::new(id.clone(), name, FOLDER, seq);
        root.node = Node::SharedDriveRoot;
        root.drive_id = Some(id.clone());
        root.permissions.push(Permission::user(&member.email, Role::Organizer, None));
        self.files.insert(id.clone(), root);
        id
    }

    /// Shares a file, folder or shared drive with `email` as `role` (`reader`, `commenter`, `writer`,
    /// `fileOrganizer`, `organizer`; an unknown role reads as `reader`). The grant is made by the owner.
    pub fn share_with(&mut self, id: &str, email: &str, role: &str) {
        let role = Role::parse(role).filter(|r| *r != Role::Owner).unwrap_or(Role::Reader);
        let Some(file) = self.files.get_mut(id) else {
            return;
        };
        let granted_by = file.owner().map(str::to_owned);
        let email = email.trim().to_ascii_lowercase();
        if let Some(existing) =
            file.permissions.iter_mut().find(|p| p.grantee == Grantee::User && p.email.as_deref() == Some(&*email))
        {
            existing.role = role;
            return;
        }
        file.permissions.push(Permission::user(&email, role, granted_by.as_deref()));
    }

    /// Sets the display name Drive shows for `email` (otherwise derived from the address).
    pub fn set_display_name(&mut self, email: &str, name: &str) {
        self.display_names.insert(email.trim().to_ascii_lowercase(), name.to_owned());
    }

    /// The display name of `email`: set with [`Store::set_display_name`], or "Ada Lovelace" from
    /// `ada.lovelace@…`.
    pub fn display_name(&self, email: &str) -> String {
        let email = email.trim().to_ascii_lowercase();
        if let Some(name) = self.display_names.get(&email) {
            return name.clone();
        }
        let local = email.split('@').next().unwrap_or_default();
        local
            .split(['.', '_', '-', '+'])
            .filter(|word| !word.is_empty())
            .map(|word| {
                let mut chars = word.chars();
                chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default()
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Every file id, for tests.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<&File> = self.files.values().filter(|f| f.node == Node::Item).collect();
        ids.sort_by_key(|f| f.seq);
        ids.into_iter().map(|f| f.id.clone()).collect()
    }

    /// Inserts a My Drive or shared-drive item under `parent`, owned by `owner` unless in a shared drive.
    fn insert_item(&mut self, id: String, name: &str, mime_type: &str, parent: Option<&str>, owner: &str) -> String {
        let seq = self.next_seq();
        let mut file = File::new(id.clone(), name, mime_type, seq);
        file.parent = parent.map(str::to_owned);
        file.drive_id = parent.and_then(|p| self.files.get(p)).and_then(|p| p.drive_id.clone());
        let owner = owner.to_ascii_lowercase();
        if file.drive_id.is_none() {
            file.permissions.push(Permission::user(&owner, Role::Owner, None));
        }
        file.modified_by.insert(owner.clone(), file.modified_time);
        file.last_modifying_user = Some(owner);
        self.files.insert(id.clone(), file);
        id
    }

    /// Sets `drive_id` on a file and all its descendants (after a move between drives).
    fn set_drive_of_subtree(&mut self, id: &str, drive_id: Option<String>) {
        for member in self.subtree(id) {
            if let Some(file) = self.files.get_mut(&member) {
                file.drive_id.clone_from(&drive_id);
                if drive_id.is_some() {
                    file.permissions.retain(|p| p.role != Role::Owner);
                }
            }
        }
    }
}

/// Records a Drive Activity entry for `id` as it is now.
fn record(world: &mut World, who: &Identity, id: &str, action: crate::activity::Action) {
    if let Some(file) = world.drive.files.get(id) {
        let (title, mime) = (file.name.clone(), file.mime_type.clone());
        world.activity.record(who, id, &title, &mime, action);
    }
}

pub fn routes() -> Router<Shared> {
    let api = Router::new()
        .route("/drive/v3/about", get(about::get_about))
        .route("/drive/v3/drives", get(about::list_drives).post(about::create_drive))
        .route("/drive/v3/drives/{driveId}", get(about::get_drive).delete(about::delete_drive))
        .route("/drive/v3/files", get(list::list).post(files::create))
        .route("/drive/v3/files/trash", axum::routing::delete(files::empty_trash))
        .route("/drive/v3/files/{fileId}", get(files::get).patch(files::update).delete(files::delete))
        .route("/drive/v3/files/{fileId}/copy", post(files::copy))
        .route("/drive/v3/files/{fileId}/export", get(files::export))
        .route("/drive/v3/files/{fileId}/revisions", get(revisions::list))
        .route("/drive/v3/files/{fileId}/revisions/{revisionId}", get(revisions::get))
        .route("/spreadsheets/export", get(revisions::export_sheet))
        .route("/feeds/download/documents/export/Export", get(revisions::export_document))
        .route(link::PATH, get(link::download))
        .route("/drive/v3/files/{fileId}/permissions", get(permissions::list).post(permissions::create))
        .route(
            "/drive/v3/files/{fileId}/permissions/{permissionId}",
            get(permissions::get).patch(permissions::update).delete(permissions::delete),
        )
        .route("/drive/v3/files/{fileId}/comments", get(comments::list).post(comments::create))
        .route(
            "/drive/v3/files/{fileId}/comments/{commentId}",
            get(comments::get).patch(comments::update).delete(comments::delete),
        )
        .route(
            "/drive/v3/files/{fileId}/comments/{commentId}/replies",
            get(comments::list_replies).post(comments::create_reply),
        )
        .route("/upload/drive/v3/files", post(upload::create).put(upload::resume))
        .route("/upload/drive/v3/files/{fileId}", axum::routing::patch(upload::update).put(upload::resume_update));
    api.layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES))
}
