//! Who may do what: roles along a file's ancestry, the `root` alias, trash inherited from folders, and
//! Drive's answers when access falls short.

use chrono::Utc;

use super::{FOLDER, File, Grantee, Node, Store, new_root_id, now};
use crate::errors::ApiError;
use crate::state::Identity;

/// Drive's roles, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Reader,
    Commenter,
    Writer,
    FileOrganizer,
    Organizer,
    Owner,
}

impl Role {
    pub fn parse(value: &str) -> Option<Self> {
        Some(match value {
            "reader" => Self::Reader,
            "commenter" => Self::Commenter,
            "writer" => Self::Writer,
            "fileOrganizer" => Self::FileOrganizer,
            "organizer" => Self::Organizer,
            "owner" => Self::Owner,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reader => "reader",
            Self::Commenter => "commenter",
            Self::Writer => "writer",
            Self::FileOrganizer => "fileOrganizer",
            Self::Organizer => "organizer",
            Self::Owner => "owner",
        }
    }
}

/// Drive's 403 for a caller who can see a file but not do this to it.
pub(crate) fn insufficient(file_id: &str) -> ApiError {
    ApiError::legacy(
        403,
        "insufficientFilePermissions",
        format!("The user does not have sufficient permissions for file {file_id}."),
    )
}

fn domain_of(email: &str) -> &str {
    email.rsplit_once('@').map_or("", |(_, domain)| domain)
}

impl Store {
    /// The id of `email`'s My Drive folder, created on first use.
    pub(crate) fn root_id(&mut self, email: &str) -> String {
        let email = email.trim().to_ascii_lowercase();
        if let Some(id) = self.roots.get(&email) {
            return id.clone();
        }
        let id = new_root_id();
        let seq = self.next_seq();
        let mut root = File::new(id.clone(), "My Drive", FOLDER, seq);
        root.node = Node::MyDriveRoot;
        root.permissions.push(super::Permission::user(&email, Role::Owner, None));
        self.files.insert(id.clone(), root);
        self.roots.insert(email, id.clone());
        id
    }

    /// Resolves the `root` alias for `who`.
    pub(crate) fn resolve(&mut self, id: &str, who: &Identity) -> String {
        if id == "root" { self.root_id(&who.email) } else { id.to_owned() }
    }

    /// The file and its ancestors, nearest first (cycles cannot be built, but the walk is bounded anyway).
    pub(crate) fn lineage<'a>(&'a self, file: &'a File) -> Vec<&'a File> {
        let mut chain = vec![file];
        let mut current = file;
        while let Some(parent) = current.parent.as_deref().and_then(|p| self.files.get(p)) {
            if chain.len() > 256 || chain.iter().any(|f| f.id == parent.id) {
                break;
            }
            chain.push(parent);
            current = parent;
        }
        chain
    }

    /// Whether `ancestor` is `id` or one of its ancestors.
    pub(crate) fn is_within(&self, id: &str, ancestor: &str) -> bool {
        self.files.get(id).is_some_and(|file| self.lineage(file).iter().any(|f| f.id == ancestor))
    }

    /// `who`'s role on `file`: the best grant on the file or an ancestor. `anyone` grants count only when
    /// `with_link` (opening by id); an inherited `owner` is `writer`.
    pub(crate) fn role_on(&self, file: &File, who: &Identity, with_link: bool) -> Option<Role> {
        self.role_for_email(file, &who.email, true, with_link)
    }

    /// The role `email` holds on `file`, counting domain-wide grants when `domain_grants` and link grants
    /// (`anyone`) when `link_grants`.
    pub(crate) fn role_for_email(
        &self,
        file: &File,
        email: &str,
        domain_grants: bool,
        link_grants: bool,
    ) -> Option<Role> {
        let email = email.trim().to_ascii_lowercase();
        let domain = domain_of(&email);
        let moment = Utc::now();
        let mut best: Option<Role> = None;
        for (depth, node) in self.lineage(file).into_iter().enumerate() {
            for permission in &node.permissions {
                if permission.expiration_time.is_some_and(|t| t < moment) {
                    continue;
                }
                let applies = match permission.grantee {
                    Grantee::User | Grantee::Group => permission.email.as_deref() == Some(email.as_str()),
                    Grantee::Domain => {
                        domain_grants && permission.domain.as_deref().is_some_and(|d| d.eq_ignore_ascii_case(domain))
                    }
                    Grantee::Anyone => link_grants,
                };
                if applies {
                    let role = if depth > 0 && permission.role == Role::Owner { Role::Writer } else { permission.role };
                    best = best.max(Some(role));
                }
            }
        }
        best
    }

    /// `who`'s role on the file `id` when opening it by id, or `None` when they cannot see it.
    pub fn role_of(&self, id: &str, who: &Identity) -> Option<Role> {
        self.files.get(id).and_then(|file| self.role_on(file, who, true))
    }

    /// Whether a file is trashed, explicitly or through a trashed folder above it.
    pub(crate) fn is_trashed(&self, file: &File) -> bool {
        self.lineage(file).iter().any(|f| f.explicitly_trashed)
    }

    /// `id` and every file below it.
    pub(crate) fn subtree(&self, id: &str) -> Vec<String> {
        let mut out = vec![id.to_owned()];
        let mut index = 0;
        while index < out.len() {
            let parent = out[index].clone();
            let mut children: Vec<&File> =
                self.files.values().filter(|f| f.parent.as_deref() == Some(parent.as_str())).collect();
            children.sort_by_key(|f| f.seq);
            for child in children {
                if !out.contains(&child.id) {
                    out.push(child.id.clone());
                }
            }
            index += 1;
        }
        out
    }

    /// The file `who` opens by id, with their role; "File not found" when it does not exist, when they
    /// cannot see it, or when it lives in a shared drive and the request did not say
    /// `supportsAllDrives=true`.
    pub(crate) fn open(&self, id: &str, who: &Identity, all_drives: bool) -> Result<(&File, Role), ApiError> {
        let file = self.files.get(id).ok_or_else(|| ApiError::drive_file_not_found(id))?;
        if file.drive_id.is_some() && !all_drives {
            return Err(ApiError::drive_file_not_found(id));
        }
        let role = self.role_on(file, who, true).ok_or_else(|| ApiError::drive_file_not_found(id))?;
        Ok((file, role))
    }

    /// Like [`Store::open`], and refuses with `insufficientFilePermissions` below `needed`.
    pub(crate) fn open_for(&self, id: &str, who: &Identity, all_drives: bool, needed: Role) -> Result<&File, ApiError> {
        let (file, role) = self.open(id, who, all_drives)?;
        if role < needed {
            return Err(insufficient(id));
        }
        Ok(file)
    }

    /// Whether `who` may trash or untrash the file: its owner in My Drive, a file organizer in a shared drive.
    pub(crate) fn can_trash(&self, file: &File, role: Role) -> bool {
        match file.drive_id {
            Some(_) => role >= Role::FileOrganizer,
            None => role == Role::Owner,
        }
    }

    /// Whether `who` may delete the file for good: its owner in My Drive, an organizer in a shared drive.
    pub(crate) fn can_delete(&self, file: &File, role: Role) -> bool {
        file.node == Node::Item
            && match file.drive_id {
                Some(_) => role >= Role::Organizer,
                None => role == Role::Owner,
            }
    }

    /// Whether `who` may change the file's permissions.
    pub(crate) fn can_share(&self, file: &File, role: Role) -> bool {
        match file.drive_id {
            Some(_) => role >= Role::Writer,
            None => role == Role::Owner || (role >= Role::Writer && file.writers_can_share),
        }
    }

    /// The time `who` was given direct access to a My Drive file they don't own (their "Shared with me").
    pub(crate) fn shared_with_me(
        &self,
        file: &File,
        who: &Identity,
    ) -> Option<(chrono::DateTime<Utc>, Option<String>)> {
        if file.drive_id.is_some() || file.node != Node::Item {
            return None;
        }
        let email = who.email.trim().to_ascii_lowercase();
        if file.owner() == Some(email.as_str()) {
            return None;
        }
        file.permissions
            .iter()
            .find(|p| matches!(p.grantee, Grantee::User | Grantee::Group) && p.email.as_deref() == Some(email.as_str()))
            .map(|p| (p.granted_at, p.granted_by.clone()))
    }

    /// Whether anyone but the owner has access (inherited grants included); shared-drive items are not "shared".
    pub(crate) fn is_shared(&self, file: &File) -> bool {
        self.lineage(file).iter().any(|node| node.permissions.iter().any(|p| p.role != Role::Owner))
    }

    /// Whether `who` may put new items into `folder`.
    pub(crate) fn check_new_parent(
        &self,
        parent_id: &str,
        who: &Identity,
        all_drives: bool,
    ) -> Result<&File, ApiError> {
        let (parent, role) = self.open(parent_id, who, all_drives)?;
        if !parent.is_folder() {
            return Err(ApiError::legacy(400, "badRequest", "The specified parent is not a folder.").at("parents"));
        }
        if role < Role::Writer {
            return Err(insufficient(parent_id));
        }
        Ok(parent)
    }

    /// Stamps the time `who` viewed a file (used by seeding and tests).
    pub fn mark_viewed(&mut self, id: &str, who: &Identity) {
        if let Some(file) = self.files.get_mut(id) {
            file.viewed_by.insert(who.email.trim().to_ascii_lowercase(), now());
        }
    }
}
