//! The static part of a tool's declaration ([`ToolMeta`]): what it is called, what it does, whether it
//! changes anything, what its result may grow to and whom it cannot work for.

use rmcp::model::ToolAnnotations;

use super::product::{Scope, Service};

/// A kind of identity a tool cannot work for, whatever its arguments. `server://auth-status` lists each tool
/// under every limitation its declaration names, so no tool can be forgotten there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Limitation {
    /// The tool creates, copies or uploads a file the caller then owns. Outside shared drives that takes Drive
    /// storage, which service accounts don't have (Google answers `storageQuotaExceeded`).
    NoDriveStorageQuota,
    /// The tool needs a person with a My Drive: file ownership moves only between people.
    NoPersonalDriveIdentity,
    /// The tool works on the signed-in person's mailbox, which a service account does not have (Gmail
    /// answers `failedPrecondition`); Gatehouse does not impersonate people through domain-wide delegation.
    NoMailbox,
}

impl Limitation {
    pub const ALL: [Limitation; 3] =
        [Limitation::NoDriveStorageQuota, Limitation::NoPersonalDriveIdentity, Limitation::NoMailbox];

    /// The `category` of its `server://auth-status` entry.
    pub const fn category(self) -> &'static str {
        match self {
            Limitation::NoDriveStorageQuota => "no_drive_storage_quota",
            Limitation::NoPersonalDriveIdentity => "no_personal_drive_identity",
            Limitation::NoMailbox => "no_mailbox",
        }
    }
}

/// The gating class: whether a call changes anything (and so, later, needs the person's approval).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads only; `readOnlyHint`.
    Read,
    /// Changes Google data or the local disk, with this effect (`destructiveHint`, `idempotentHint`).
    Write(Effect),
}

/// What a write does, as MCP's `destructiveHint` and `idempotentHint` say it: named at every declaration
/// (`Effect { destructive: true, idempotent: true }`), so none reads as a bare `true, true`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effect {
    /// It overwrites or removes something; `false` for a purely additive write.
    pub destructive: bool,
    /// The same call again changes nothing more.
    pub idempotent: bool,
}

/// What to suggest when a result is over the response-size cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// The result's size does not depend on the data (a confirmation, a count): not capped.
    Fixed,
    /// Capped; ask for a narrower range or fewer items.
    Narrower,
    /// Capped; a paginated listing: ask for fewer results per page and page on.
    Paging,
    /// Capped; fetch the file with `download_file` instead.
    Download,
}

/// The static part of a tool's declaration.
#[derive(Debug, Clone, Copy)]
pub struct ToolMeta {
    pub name: &'static str,
    /// A short label in plain words, for cards and settings ("Update cells").
    pub title: &'static str,
    /// What the tool does, for the assistant. Short and exact.
    pub description: &'static str,
    pub service: Service,
    pub access: Access,
    pub cap: Cap,
    /// Whether the tool takes `local_path` to write its full result to a file in the export folder.
    pub local_path: bool,
    /// The identities the tool cannot work for (see [`ToolMeta::failing_for`]); empty for most tools.
    pub fails_for: &'static [Limitation],
    /// The OAuth scope its Google calls need (the product's, unless [`ToolMeta::with_scope`] says otherwise);
    /// `None` for a tool that makes no Google call.
    pub scope: Option<Scope>,
    /// For a read whose results the response cache may keep ([`ToolMeta::cached`]): the argument naming the
    /// Drive file the result is read from, whose version decides whether a kept result is still good.
    pub cached_from: Option<&'static str>,
}

/// A declaration is its own: functions over a catalogue take `&[impl AsRef<ToolMeta>]`, so both the
/// declarations ([`crate::tools::sets::catalogue`]) and the tools built from them can be passed.
impl AsRef<ToolMeta> for ToolMeta {
    fn as_ref(&self) -> &ToolMeta {
        self
    }
}

impl ToolMeta {
    /// A read tool, without `local_path` (see [`ToolMeta::with_local_path`]).
    pub const fn read(
        service: Service,
        name: &'static str,
        title: &'static str,
        description: &'static str,
        cap: Cap,
    ) -> Self {
        Self {
            name,
            title,
            description,
            service,
            access: Access::Read,
            cap,
            local_path: false,
            fails_for: &[],
            scope: service.scope(),
            cached_from: None,
        }
    }

    /// A write tool. Its result is a confirmation whose size doesn't depend on the data, so it is never
    /// capped (refusing a result after the write happened would only hide what was done).
    pub const fn write(
        service: Service,
        name: &'static str,
        title: &'static str,
        description: &'static str,
        effect: Effect,
    ) -> Self {
        Self {
            name,
            title,
            description,
            service,
            access: Access::Write(effect),
            cap: Cap::Fixed,
            local_path: false,
            fails_for: &[],
            scope: service.scope(),
            cached_from: None,
        }
    }

    /// The same tool, also taking `local_path` to write its full result to the export folder.
    pub const fn with_local_path(self) -> Self {
        Self { local_path: true, ..self }
    }

    /// The same tool, declared to fail for the identities `limitations` describe.
    pub const fn failing_for(self, limitations: &'static [Limitation]) -> Self {
        Self { fails_for: limitations, ..self }
    }

    /// The same tool, needing `scope` instead of its product's.
    pub const fn with_scope(self, scope: Scope) -> Self {
        Self { scope: Some(scope), ..self }
    }

    /// The same read, its results kept by the response cache (`crate::cache`) and served again while the
    /// Drive file named by the argument `file_argument` is unchanged. Only for reads whose result depends
    /// on that one file's content alone, so its Drive version tells when a kept result is stale.
    pub const fn cached(self, file_argument: &'static str) -> Self {
        Self { cached_from: Some(file_argument), ..self }
    }

    /// Whether the declaration names `limitation`.
    pub fn fails(&self, limitation: Limitation) -> bool {
        self.fails_for.contains(&limitation)
    }

    /// Whether granting `granted` lets the tool work (any of its [`Scope::accepted`] scopes).
    pub fn scope_granted(&self, granted: &[String]) -> bool {
        let Some(scope) = self.scope else { return true };
        scope.accepted(self.is_read_only()).iter().any(|accepted| granted.iter().any(|g| g == accepted))
    }

    pub const fn is_read_only(&self) -> bool {
        matches!(self.access, Access::Read)
    }

    /// Whether the tool's result carries content other people can write: every read of Google data (a shared
    /// file's cells and text, mail, invitations, comments, names). Such a result is followed by
    /// [`crate::screening`]'s note, and the tool's description says so.
    pub const fn carries_others_content(&self) -> bool {
        self.is_read_only() && self.scope.is_some()
    }

    /// The description an assistant reads: the declared one, with what [`crate::screening`]'s note is where it
    /// applies.
    pub fn described(&self) -> std::borrow::Cow<'static, str> {
        match self.carries_others_content() {
            true => format!("{} {}", self.description, crate::screening::DESCRIBED).into(),
            false => self.description.into(),
        }
    }

    /// MCP's annotations, derived from the declaration so they can't disagree with it. Every tool talks
    /// to Google, an open world.
    pub fn annotations(&self) -> ToolAnnotations {
        let (read_only, destructive, idempotent) = match self.access {
            Access::Read => (true, false, true),
            Access::Write(Effect { destructive, idempotent }) => (false, destructive, idempotent),
        };
        ToolAnnotations::from_raw(
            Some(self.title.to_owned()),
            Some(read_only),
            Some(destructive),
            Some(idempotent),
            Some(true),
        )
    }
}
