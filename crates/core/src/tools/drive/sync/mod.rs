//! `sync_folder`: a Drive folder and a local folder brought in line, in one direction or both.
//!
//! - **Directions**: `bidirectional`, `upload` (local → Drive), `download` (Drive → local).
//! - **Plan first** ([`plan`]): both sides are listed (the top level, or every subfolder with `recursive`)
//!   and compared file by file ([`compare`]). A file new on one side is copied; a file changed on one side
//!   is copied over the other; a file changed on both sides, or changed where the direction would
//!   overwrite it, is a **conflict**: reported and left alone unless `resolve.conflicts` says `keep_local`,
//!   `keep_drive` or `skip` for its path.
//! - **What "changed" means**: every copy leaves both sides with the same modified time (an upload sets
//!   Drive's `modifiedTime` to the local file's, a download sets the local file's to Drive's) and records
//!   that time on the Drive file (`appProperties.gatehouseSyncMtime`, private to Gatehouse) as the last
//!   sync. A side whose time differs from it changed since; a file never synced by Gatehouse compares the
//!   two times (the newer side changed). Times within [`compare::SAME_TIME_MS`] count as equal (some file
//!   systems keep only seconds). With `use_checksum`, Drive's `md5Checksum` is compared with the local
//!   file's MD5 too, which catches a change that kept the modified time, and identical contents are in sync
//!   whatever the times say.
//! - **Google Docs, Sheets and Slides** have no bytes: they are exported (`export_format`, else docx, xlsx,
//!   pptx) to `<name>.<ext>`, and never overwritten from their local exports. With `convert_markdown`,
//!   Google Docs are instead synced both ways as `<name>.md` ([`markdown`]): a new `.md` file becomes a
//!   Doc, a changed one replaces the Doc's body, a changed Doc is saved as Markdown; they carry the sync
//!   mark like files (they have no checksum, so `use_checksum` does not apply to them).
//! - **Deletions**: a file deleted on one side since the last sync (a local file gone whose Drive file
//!   carries the sync mark unchanged; a Drive file in the trash whose mark equals the unchanged local
//!   file) is deleted on the other side only as an item of an approved plan: a `dry_run` answers the plan
//!   and its `plan_id`, and only a call with `resolve.apply_plan` equal to the `plan_id` of the plan as it
//!   still is deletes (Drive files go to the trash, never for good). Otherwise deletions are only reported.
//!   Folders are never deleted, and empty folders are not synced.
//! - **Resumable**: items are done one at a time and the first failure stops the run with a report of what
//!   was done, what failed and what was not attempted. A second call plans again from both sides as they
//!   are: what was done is in sync, so only the rest is done, and nothing is uploaded twice.
//! - `result_local_path` writes the full report as JSON there; the answer is then a summary.

mod apply;
mod compare;
mod local;
mod markdown;
mod plan;
mod remote;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::approval::evaluator::Evaluator;
use crate::catalog::Effect;

use super::super::registry::{Limitation, Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};
use plan::{Action, Direction, Resolve};

pub(super) fn tools() -> Vec<ToolDef> {
    vec![ToolDef::evaluated(
        ToolMeta::write(
            Service::Drive,
            "sync_folder",
            "Sync folder",
            "Sync a Drive folder with a local folder (bidirectional, upload or download); conflicts are reported, and deletions happen only with resolve.apply_plan from a dry run.",
            Effect { destructive: true, idempotent: false },
        )
        .failing_for(&[Limitation::NoDriveStorageQuota]),
        sync_folder,
        [Evaluator::folder(|a: &SyncFolderArgs| &a.folder_id)],
    )
    .worded(super::said::sync_folder)]
}

fn bidirectional() -> String {
    "bidirectional".to_owned()
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SyncFolderArgs {
    /// The Drive folder's id.
    pub folder_id: String,
    /// The local folder (inside the export folder or an allowed folder; relative paths are inside the export folder).
    pub local_path: String,
    /// bidirectional, upload (local → Drive) or download (Drive → local).
    #[serde(default = "bidirectional")]
    pub direction: String,
    /// The format local copies of Google Docs, Sheets and Slides take (default: docx, xlsx, pptx).
    #[serde(default)]
    pub export_format: Option<String>,
    /// Sync .md files with Google Docs (converted through Markdown both ways).
    #[serde(default)]
    pub convert_markdown: bool,
    /// Also compare contents by MD5 (catches a change that kept the modified time).
    #[serde(default)]
    pub use_checksum: bool,
    /// Leave out system files (.DS_Store, Thumbs.db, desktop.ini, ._*, ~$*, .git …).
    #[serde(default = "crate::tools::schema::default_true")]
    pub skip_system_files: bool,
    /// Only answer the plan and its plan_id; change nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Include subfolders.
    #[serde(default)]
    pub recursive: bool,
    /// Also write the full report as JSON to this local file; the answer is then a summary.
    #[serde(default)]
    pub result_local_path: Option<String>,
    /// {"conflicts": {"<path>": "keep_local" | "keep_drive" | "skip"}, "apply_plan": "<plan_id of a dry run>"}; deletions happen only with apply_plan.
    #[serde(default)]
    pub resolve: Option<Map<String, Value>>,
}

async fn sync_folder(ctx: ToolContext, args: SyncFolderArgs) -> Result<Value, ToolError> {
    let direction = Direction::parse(&args.direction)?;
    let resolve = Resolve::parse(args.resolve.as_ref())?;
    if args.folder_id.trim().is_empty() {
        return Err(ToolError::invalid("folder_id is empty: give the Drive folder's id (list_folders finds it)."));
    }
    // Both local paths are checked before any Google call.
    let root = ctx.local.allowed(&args.local_path)?;
    let report_path = args.result_local_path.as_deref().map(|p| ctx.local.allowed(p)).transpose()?;
    let is_dir = tokio::fs::metadata(&root).await.map(|m| m.is_dir());
    match is_dir {
        Ok(true) => {}
        Ok(false) => {
            return Err(ToolError::invalid(format!(
                "{} is a file, not a folder. Give the local folder to sync.",
                root.display()
            )));
        }
        Err(_) if direction == Direction::Download => {}
        Err(_) => {
            return Err(ToolError::invalid(format!(
                "The local folder {} does not exist. Create it first, or use direction=download to fill a new folder from Drive.",
                root.display()
            )));
        }
    }
    let options = local::Options { recursive: args.recursive, skip_system_files: args.skip_system_files };
    let mut locals = local::scan(&root, options).await?;
    // A report written inside the synced folder is not content to sync.
    locals.files.retain(|f| report_path.as_ref() != Some(&f.path));
    let tree =
        remote::scan(&ctx, args.folder_id.trim(), args.recursive, args.export_format.as_deref(), args.convert_markdown)
            .await?;
    let settings = plan::Settings { direction, use_checksum: args.use_checksum };
    let plan = plan::build(&locals, &tree, settings, &resolve).await?;

    let mut report = json!({
        "folder_id": args.folder_id.trim(),
        "local_path": root.display().to_string(),
        "direction": direction.name(),
        "recursive": args.recursive,
        "use_checksum": args.use_checksum,
        "convert_markdown": args.convert_markdown,
        "dry_run": args.dry_run,
        "plan_id": plan.id,
    });
    let deletions = plan.items.iter().filter(|i| i.action.is_deletion()).count();
    let mut outcome = if args.dry_run {
        report["message"] = json!(dry_run_message(&plan, deletions));
        apply::Outcome::planned(&plan)
    } else {
        let delete = match &resolve.apply_plan {
            Some(id) if *id == plan.id => true,
            Some(id) => {
                return Err(ToolError::invalid(format!(
                    "The plan changed since plan {id} was shown (it is now {}): nothing was done. Call sync_folder with dry_run=true to see the current plan, then pass its plan_id in resolve.apply_plan.",
                    plan.id
                )));
            }
            None => false,
        };
        let outcome = apply::run(&ctx, &root, &tree, &plan, delete, args.convert_markdown).await;
        report["message"] = json!(outcome.message(&plan, delete, deletions));
        outcome
    };
    outcome.notes.extend(tree.notes.iter().cloned());
    outcome.notes.extend(locals.unreadable.iter().map(|u| format!("{u} (could not be read, left out)")));
    report["summary"] = outcome.summary(&plan);
    report["items"] = outcome.items_json(&plan);
    if let Some(warnings) = (!outcome.notes.is_empty()).then(|| json!(outcome.notes)) {
        report["notes"] = warnings;
    }
    let failed = outcome.failure.clone();
    let answer = match &report_path {
        Some(path) => {
            let text = serde_json::to_string_pretty(&report).unwrap_or_default();
            ctx.local.write(path, text.as_bytes()).await?;
            let mut short = report.clone();
            if let Some(map) = short.as_object_mut() {
                map.remove("items");
            }
            short["report_local_path"] = json!(path.display().to_string());
            short
        }
        None => report,
    };
    match failed {
        Some(failure) => Err(ToolError::invalid(outcome.failure_message(&plan, &failure, report_path.as_deref()))),
        None => Ok(answer),
    }
}

fn dry_run_message(plan: &plan::Plan, deletions: usize) -> String {
    let changes = plan.items.iter().filter(|i| i.action.changes_something()).count();
    let conflicts = plan.items.iter().filter(|i| i.action == Action::Conflict).count();
    let mut words = format!("Dry run: nothing was changed. The plan has {changes} change(s)");
    if conflicts > 0 {
        words.push_str(&format!(
            " and {conflicts} conflict(s), left alone unless resolve.conflicts says keep_local, keep_drive or skip for their paths"
        ));
    }
    words.push('.');
    if deletions > 0 {
        words.push_str(&format!(
            " {deletions} of the changes are deletions: they happen only when sync_folder is called again with resolve.apply_plan = {:?} (Drive files go to the trash).",
            plan.id
        ));
    }
    words
}
