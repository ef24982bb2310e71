//! The plan of a sync: every file on either side, what will be done with it and why, and the plan's id
//! (a fingerprint of the changes and of both sides' state they were planned from).

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::tools::ToolError;

use super::compare::{Change, changes, drive_ms, mark, same_time};
use super::local::{LocalFile, LocalSide, md5_hex};
use super::remote::{DriveEntry, DriveTree};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    Bidirectional,
    Upload,
    Download,
}

impl Direction {
    const NAMES: &[(&str, Direction)] = &[
        ("bidirectional", Direction::Bidirectional),
        ("upload", Direction::Upload),
        ("download", Direction::Download),
    ];

    pub fn parse(value: &str) -> Result<Self, ToolError> {
        let value = value.trim();
        Self::NAMES.iter().find(|(name, _)| name.eq_ignore_ascii_case(value)).map(|(_, d)| *d).ok_or_else(|| {
            ToolError::invalid(format!(
                "direction {value:?} is not one sync_folder knows. Use bidirectional (both ways), upload (local → Drive) or download (Drive → local)."
            ))
        })
    }

    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, d)| *d == self).map_or("bidirectional", |(name, _)| name)
    }

    fn uploads(self) -> bool {
        self != Direction::Download
    }

    fn downloads(self) -> bool {
        self != Direction::Upload
    }
}

/// What the person decided for a conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resolution {
    KeepLocal,
    KeepDrive,
    Skip,
}

/// The `resolve` argument: conflict decisions by path, and the approved plan's id.
#[derive(Debug, Clone, Default)]
pub(super) struct Resolve {
    pub conflicts: BTreeMap<String, Resolution>,
    pub apply_plan: Option<String>,
}

const RESOLVE_SHAPE: &str = r#"resolve takes {"conflicts": {"<path>": "keep_local" | "keep_drive" | "skip"}, "apply_plan": "<plan_id of a dry run>"}"#;

/// A path as the plan names it: `/` separators, no leading `./` or `/`.
fn normal_path(path: &str) -> String {
    let path = path.trim().replace('\\', "/");
    let path = path.trim_start_matches("./").trim_start_matches('/');
    path.to_owned()
}

impl Resolve {
    pub fn parse(value: Option<&Map<String, Value>>) -> Result<Self, ToolError> {
        let mut out = Self::default();
        let Some(map) = value else { return Ok(out) };
        for (key, value) in map {
            match (key.as_str(), value) {
                ("apply_plan", Value::String(id)) if !id.trim().is_empty() => {
                    out.apply_plan = Some(id.trim().to_owned())
                }
                ("apply_plan", Value::Null) => {}
                ("apply_plan", _) => {
                    return Err(ToolError::invalid(format!(
                        "resolve.apply_plan must be the plan_id a dry run answered, as a string. {RESOLVE_SHAPE}."
                    )));
                }
                ("conflicts", Value::Object(decisions)) => {
                    for (path, decision) in decisions {
                        let resolution = match decision.as_str().map(str::trim) {
                            Some("keep_local") => Resolution::KeepLocal,
                            Some("keep_drive") => Resolution::KeepDrive,
                            Some("skip") => Resolution::Skip,
                            _ => {
                                return Err(ToolError::invalid(format!(
                                    "resolve.conflicts[{path:?}] is {decision}: use keep_local, keep_drive or skip."
                                )));
                            }
                        };
                        out.conflicts.insert(normal_path(path), resolution);
                    }
                }
                ("conflicts", Value::Null) => {}
                ("conflicts", _) => {
                    return Err(ToolError::invalid(format!(
                        "resolve.conflicts must be an object of paths to decisions. {RESOLVE_SHAPE}."
                    )));
                }
                (other, _) => {
                    return Err(ToolError::invalid(format!("resolve has an unknown key {other:?}. {RESOLVE_SHAPE}.")));
                }
            }
        }
        Ok(out)
    }
}

/// What happens to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
    /// New on Drive from the local file.
    Upload,
    /// The Drive file's content replaced by the local file's (Drive keeps a revision).
    UpdateDrive,
    /// New local file from Drive (Google files exported).
    Download,
    /// The local file replaced by Drive's.
    UpdateLocal,
    /// Deleted locally since the last sync: the Drive file goes to the trash (approved plans only).
    TrashOnDrive,
    /// Trashed on Drive since the last sync: the local file is deleted (approved plans only).
    DeleteLocal,
    /// Reported and left alone until resolved.
    Conflict,
    /// A conflict the person chose to skip.
    Skip,
    /// Only on the side the direction does not copy from, or not copyable: left as it is.
    Leave,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Upload => "upload",
            Action::UpdateDrive => "update_drive",
            Action::Download => "download",
            Action::UpdateLocal => "update_local",
            Action::TrashOnDrive => "trash_on_drive",
            Action::DeleteLocal => "delete_local",
            Action::Conflict => "conflict",
            Action::Skip => "skip",
            Action::Leave => "leave",
        }
    }

    pub fn is_deletion(self) -> bool {
        matches!(self, Action::TrashOnDrive | Action::DeleteLocal)
    }

    pub fn changes_something(self) -> bool {
        !matches!(self, Action::Conflict | Action::Skip | Action::Leave)
    }
}

/// One path of the plan.
#[derive(Debug, Clone)]
pub(super) struct Item {
    pub path: String,
    pub action: Action,
    pub reason: String,
    pub local: Option<LocalFile>,
    /// The Drive file (for `DeleteLocal`, the trashed one).
    pub drive: Option<DriveEntry>,
}

#[derive(Debug, Clone)]
pub(super) struct Plan {
    pub id: String,
    /// Every path not already in sync, by path.
    pub items: Vec<Item>,
    pub in_sync: usize,
    /// Paths named in `resolve.conflicts` that are not conflicts of this plan.
    pub unused_resolutions: Vec<String>,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Settings {
    pub direction: Direction,
    pub use_checksum: bool,
}

/// A decision for one path; `None` is "in sync".
type Decision = Option<(Action, String)>;

fn decide(action: Action, reason: impl Into<String>) -> Decision {
    Some((action, reason.into()))
}

/// Plans the sync of `locals` with `tree`.
pub(super) async fn build(
    locals: &LocalSide,
    tree: &DriveTree,
    settings: Settings,
    resolve: &Resolve,
) -> Result<Plan, ToolError> {
    let mut paths: BTreeMap<&str, (Option<&LocalFile>, Vec<&DriveEntry>)> = BTreeMap::new();
    for local in &locals.files {
        paths.entry(local.rel.as_str()).or_default().0 = Some(local);
    }
    for entry in &tree.files {
        paths.entry(entry.rel.as_str()).or_default().1.push(entry);
    }
    let mut trashed: BTreeMap<&str, Vec<&DriveEntry>> = BTreeMap::new();
    for entry in &tree.trashed {
        trashed.entry(entry.rel.as_str()).or_default().push(entry);
    }
    let mut plan = Plan { id: String::new(), items: Vec::new(), in_sync: 0, unused_resolutions: Vec::new() };
    let mut used = Vec::new();
    for (path, (local, drive)) in paths {
        if drive.len() > 1 {
            let ids: Vec<&str> = drive.iter().map(|d| d.file.id.as_str()).collect();
            let mut reason = format!(
                "Drive has {} files that sync to this path (ids {}); sync_folder does not choose between them: rename or remove the extras in Drive",
                drive.len(),
                ids.join(", ")
            );
            if resolve.conflicts.contains_key(path) {
                used.push(path.to_owned());
                reason.push_str(" (resolve cannot choose here)");
            }
            plan.items.push(Item {
                path: path.to_owned(),
                action: Action::Conflict,
                reason,
                local: local.cloned(),
                drive: None,
            });
            continue;
        }
        let drive = drive.first().copied();
        let mut deleted_on_drive = None;
        let decision = match (local, drive) {
            (Some(local), Some(drive)) => pair(local, drive, settings).await?,
            (None, Some(drive)) => drive_only(drive, settings.direction),
            (Some(local), None) => {
                let candidates = trashed.get(path).map(Vec::as_slice).unwrap_or_default();
                deleted_on_drive = trashed_twin(local, candidates, settings.direction).await?;
                match deleted_on_drive {
                    Some(_) => decide(Action::DeleteLocal, "trashed on Drive since the last sync"),
                    None if settings.direction.uploads() => decide(Action::Upload, "new locally"),
                    None => decide(Action::Leave, "only local; direction download leaves it"),
                }
            }
            (None, None) => None,
        };
        let Some((mut action, mut reason)) = decision else {
            plan.in_sync += 1;
            continue;
        };
        if action == Action::Conflict
            && let Some(resolution) = resolve.conflicts.get(path)
        {
            used.push(path.to_owned());
            let resolved = match (resolution, local.is_some(), drive.is_some()) {
                (Resolution::Skip, _, _) => Some(Action::Skip),
                (Resolution::KeepLocal, true, true) => Some(Action::UpdateDrive),
                (Resolution::KeepLocal, true, false) => Some(Action::Upload),
                (Resolution::KeepLocal, false, true) => Some(Action::TrashOnDrive),
                (Resolution::KeepDrive, true, true) => Some(Action::UpdateLocal),
                (Resolution::KeepDrive, false, true) => Some(Action::Download),
                _ => None,
            };
            if let Some(resolved) = resolved {
                reason = format!("{reason}; resolved: {}", resolution_name(*resolution));
                action = resolved;
            }
        }
        let drive = deleted_on_drive.or(drive).cloned();
        plan.items.push(Item { path: path.to_owned(), action, reason, local: local.cloned(), drive });
    }
    plan.unused_resolutions = resolve.conflicts.keys().filter(|p| !used.contains(p)).cloned().collect();
    plan.id = fingerprint(&plan.items);
    Ok(plan)
}

fn resolution_name(resolution: Resolution) -> &'static str {
    match resolution {
        Resolution::KeepLocal => "keep_local",
        Resolution::KeepDrive => "keep_drive",
        Resolution::Skip => "skip",
    }
}

/// A file on both sides.
async fn pair(local: &LocalFile, drive: &DriveEntry, settings: Settings) -> Result<Decision, ToolError> {
    let direction = settings.direction;
    let drive_time = drive_ms(&drive.file).unwrap_or_default();
    if let Some(export) = drive.export.as_ref().filter(|e| e.export_only()) {
        // A Google file: exported when Drive's is newer, never overwritten from its export.
        return Ok(if same_time(local.mtime_ms, drive_time) {
            None
        } else if drive_time > local.mtime_ms && direction.downloads() {
            decide(Action::UpdateLocal, format!("changed on Drive (a Google file, exported as {})", export.ext))
        } else if drive_time > local.mtime_ms {
            decide(Action::Leave, "a Google file changed on Drive; direction upload does not export it")
        } else {
            decide(Action::Leave, "a local export of a Google file; it is never uploaded over the Google file")
        });
    }
    let drive_md5 = drive.file.md5_checksum.as_deref();
    let mut local_md5 = None;
    let mut differs = drive.file.size_bytes().is_some_and(|size| size != local.size);
    if settings.use_checksum
        && let Some(drive_md5) = drive_md5
    {
        let md5 = md5_hex(&local.path).await?;
        if md5 == drive_md5 {
            return Ok(None);
        }
        differs = true;
        local_md5 = Some(md5);
    }
    let decision = match changes(local.mtime_ms, drive_time, mark(&drive.file)) {
        Change::Neither if !differs => None,
        Change::Neither => match direction {
            Direction::Bidirectional => {
                decide(Action::Conflict, "the same modified time on both sides, but different content")
            }
            Direction::Upload => decide(Action::UpdateDrive, "different content with the same modified time"),
            Direction::Download => decide(Action::UpdateLocal, "different content with the same modified time"),
        },
        Change::Local if direction.uploads() => decide(Action::UpdateDrive, "changed locally"),
        Change::Local => decide(Action::Conflict, "changed locally; direction download would overwrite it"),
        Change::Drive if direction.downloads() => decide(Action::UpdateLocal, "changed on Drive"),
        Change::Drive => decide(Action::Conflict, "changed on Drive; direction upload would overwrite it"),
        Change::Both => decide(Action::Conflict, "changed on both sides since the last sync"),
    };
    // A conflict over identical contents is no conflict.
    if let (Some((Action::Conflict, _)), Some(drive_md5)) = (&decision, drive_md5) {
        let md5 = match local_md5 {
            Some(md5) => md5,
            None => md5_hex(&local.path).await?,
        };
        if md5 == drive_md5 {
            return Ok(None);
        }
    }
    Ok(decision)
}

/// A file only on Drive.
fn drive_only(drive: &DriveEntry, direction: Direction) -> Decision {
    if let Some(export) = drive.export.as_ref().filter(|e| e.export_only()) {
        return if direction.downloads() {
            decide(Action::Download, format!("new on Drive (a Google file, exported as {})", export.ext))
        } else {
            decide(Action::Leave, "only on Drive; direction upload leaves it")
        };
    }
    let Some(mark) = mark(&drive.file) else {
        return if direction.downloads() {
            decide(Action::Download, "new on Drive")
        } else {
            decide(Action::Leave, "only on Drive; direction upload leaves it")
        };
    };
    let unchanged = drive_ms(&drive.file).is_some_and(|t| same_time(t, mark));
    match (unchanged, direction) {
        (true, Direction::Download) => decide(Action::Download, "missing locally"),
        (true, _) => decide(Action::TrashOnDrive, "deleted locally since the last sync"),
        (false, Direction::Upload) => {
            decide(Action::Conflict, "deleted locally, but changed on Drive since the last sync")
        }
        (false, _) => decide(Action::Download, "deleted locally, but changed on Drive since the last sync"),
    }
}

/// The trashed Drive file a local file was last synced with, when the local file is unchanged since
/// (same time as the mark, and the same content where Drive has a checksum): it was deleted on Drive.
async fn trashed_twin<'a>(
    local: &LocalFile,
    candidates: &[&'a DriveEntry],
    direction: Direction,
) -> Result<Option<&'a DriveEntry>, ToolError> {
    if !direction.downloads() {
        return Ok(None);
    }
    for candidate in candidates {
        if !mark(&candidate.file).is_some_and(|m| same_time(m, local.mtime_ms)) {
            continue;
        }
        match candidate.file.md5_checksum.as_deref() {
            Some(drive_md5) if md5_hex(&local.path).await? != drive_md5 => continue,
            _ => return Ok(Some(candidate)),
        }
    }
    Ok(None)
}

/// The plan's id: a fingerprint of every change and conflict with the state of both sides it was planned
/// from, so an approved plan is applied only while both sides are as they were shown.
fn fingerprint(items: &[Item]) -> String {
    let mut hash = Sha256::new();
    for item in items.iter().filter(|i| i.action != Action::Leave) {
        let drive = item.drive.as_ref().map(|d| &d.file);
        let line = format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            item.action.name(),
            item.path,
            drive.map_or("", |f| f.id.as_str()),
            drive.and_then(|f| f.modified_time.as_deref()).unwrap_or_default(),
            item.local.as_ref().map_or(-1, |l| l.mtime_ms),
            item.local.as_ref().map_or(0, |l| l.size),
        );
        hash.update(line.as_bytes());
    }
    hash.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn directions_are_named_and_checked() {
        assert_eq!(Direction::parse("Upload").unwrap(), Direction::Upload);
        let error = Direction::parse("sideways").unwrap_err().to_string();
        assert!(error.contains("bidirectional") && error.contains("upload") && error.contains("download"), "{error}");
    }

    #[test]
    fn resolve_takes_conflicts_and_a_plan_id() {
        let value = json!({ "conflicts": { "./notes\\a.txt": "keep_local" }, "apply_plan": "abc" });
        let resolve = Resolve::parse(value.as_object()).unwrap();
        assert_eq!(resolve.conflicts.get("notes/a.txt"), Some(&Resolution::KeepLocal));
        assert_eq!(resolve.apply_plan.as_deref(), Some("abc"));
        for bad in
            [json!({ "a.txt": "keep_local" }), json!({ "conflicts": { "a": "both" } }), json!({ "apply_plan": 3 })]
        {
            let error = Resolve::parse(bad.as_object()).unwrap_err().to_string();
            assert!(error.contains("keep_local"), "{error}");
        }
    }
}
