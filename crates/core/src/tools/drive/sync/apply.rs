//! Carrying out a plan, one item at a time: copies first, then (only for an approved plan) deletions.
//! The first failure stops the run; the report says what was done, what failed and what was not tried.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::google::drive::mime;
use crate::tools::{ToolContext, ToolError};

use super::super::upload::by_extension;
use super::compare::{SYNC_MARK, drive_ms, mark, rfc3339, same_time};
use super::local::set_mtime;
use super::markdown;
use super::plan::{Action, Item, Plan};
use super::remote::{DriveTree, join};

/// What became of one plan item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Status {
    /// Dry run: would be done.
    Planned,
    Done,
    Failed(String),
    NotAttempted,
    /// A deletion of a plan that was not approved.
    HeldBack,
    /// A conflict, skip or leave: nothing to do.
    Reported,
}

#[derive(Debug, Clone)]
pub(super) struct Failure {
    pub path: String,
    pub action: Action,
    pub error: String,
}

#[derive(Debug, Default)]
pub(super) struct Outcome {
    statuses: Vec<Status>,
    pub failure: Option<Failure>,
    pub notes: Vec<String>,
}

fn is_work(action: Action) -> bool {
    action.changes_something()
}

impl Outcome {
    /// A dry run's outcome: everything planned, nothing done.
    pub fn planned(plan: &Plan) -> Self {
        let statuses =
            plan.items.iter().map(|i| if is_work(i.action) { Status::Planned } else { Status::Reported }).collect();
        let mut outcome = Self { statuses, ..Self::default() };
        outcome.note_unused(plan);
        outcome
    }

    fn note_unused(&mut self, plan: &Plan) {
        if !plan.unused_resolutions.is_empty() {
            self.notes.push(format!(
                "resolve.conflicts names paths that are not conflicts now, so they were not used: {}",
                plan.unused_resolutions.join(", ")
            ));
        }
    }

    fn count(&self, wanted: impl Fn(&Status) -> bool) -> usize {
        self.statuses.iter().filter(|s| wanted(s)).count()
    }

    pub fn summary(&self, plan: &Plan) -> Value {
        let mut actions = BTreeMap::new();
        for item in &plan.items {
            *actions.entry(item.action.name()).or_insert(0usize) += 1;
        }
        json!({
            "in_sync": plan.in_sync,
            "planned": actions,
            "done": self.count(|s| *s == Status::Done),
            "failed": self.count(|s| matches!(s, Status::Failed(_))),
            "not_attempted": self.count(|s| *s == Status::NotAttempted),
            "deletions_held_back": self.count(|s| *s == Status::HeldBack),
        })
    }

    pub fn items_json(&self, plan: &Plan) -> Value {
        let items: Vec<Value> = plan
            .items
            .iter()
            .zip(&self.statuses)
            .map(|(item, status)| {
                let mut out = json!({ "path": item.path, "action": item.action.name(), "reason": item.reason });
                out["status"] = json!(match status {
                    Status::Planned => "planned",
                    Status::Done => "done",
                    Status::Failed(_) => "failed",
                    Status::NotAttempted => "not_attempted",
                    Status::HeldBack => "held_back",
                    Status::Reported => "left_alone",
                });
                if let Status::Failed(error) = status {
                    out["error"] = json!(error);
                }
                if let Some(drive) = &item.drive {
                    out["drive_id"] = json!(drive.file.id);
                }
                out
            })
            .collect();
        json!(items)
    }

    /// The answer's words after a run that did not fail.
    pub fn message(&self, plan: &Plan, deleted: bool, deletions: usize) -> String {
        let done = self.count(|s| *s == Status::Done);
        let conflicts = plan.items.iter().filter(|i| i.action == Action::Conflict).count();
        let mut words = if done == 0 && conflicts == 0 && deletions == 0 {
            "Already in sync: nothing to do.".to_owned()
        } else {
            format!("Synced: {done} change(s) done.")
        };
        if conflicts > 0 {
            words.push_str(&format!(
                " {conflicts} conflict(s) left alone (see items with action conflict): call again with resolve.conflicts = {{\"<path>\": \"keep_local\" | \"keep_drive\" | \"skip\"}}."
            ));
        }
        if deletions > 0 && !deleted {
            words.push_str(&format!(
                " {deletions} deletion(s) were not done: sync_folder deletes only as part of an approved plan. Review them with dry_run=true, then call again with resolve.apply_plan = the plan_id it answers."
            ));
        }
        words
    }

    /// The error's words after a run stopped by a failure.
    pub fn failure_message(&self, plan: &Plan, failure: &Failure, report: Option<&Path>) -> String {
        let names = |wanted: &dyn Fn(&Status) -> bool| {
            let names: Vec<String> = plan
                .items
                .iter()
                .zip(&self.statuses)
                .filter(|(_, s)| wanted(s))
                .map(|(i, _)| format!("{} ({})", i.path, i.action.name()))
                .collect();
            let count = names.len();
            let mut shown = names.into_iter().take(20).collect::<Vec<_>>().join(", ");
            if count > 20 {
                shown.push_str(&format!(" and {} more", count - 20));
            }
            if count == 0 { "none".to_owned() } else { shown }
        };
        let mut words = format!(
            "sync_folder stopped: {} of {} failed: {} Done before it: {}. Not attempted: {}.",
            failure.action.name(),
            failure.path,
            failure.error,
            names(&|s| *s == Status::Done),
            names(&|s| *s == Status::NotAttempted),
        );
        words.push_str(
            " Calling sync_folder again with the same arguments does only what is left; nothing done is done twice.",
        );
        if let Some(path) = report {
            words.push_str(&format!(" The full report is in {}.", path.display()));
        }
        words
    }
}

/// Runs the plan's items; deletions only when `delete` (an approved plan).
pub(super) async fn run(
    ctx: &ToolContext,
    root: &Path,
    tree: &DriveTree,
    plan: &Plan,
    delete: bool,
    convert_markdown: bool,
) -> Outcome {
    let mut outcome = Outcome::planned(plan);
    let mut folders = tree.folders.clone();
    let total = plan.items.iter().filter(|i| is_work(i.action) && (delete || !i.action.is_deletion())).count();
    let mut step = 0usize;
    // Copies first, deletions last: a failure never leaves a deletion done before the copies.
    for deletions in [false, true] {
        for (index, item) in plan.items.iter().enumerate() {
            if !is_work(item.action) || item.action.is_deletion() != deletions {
                continue;
            }
            if deletions && !delete {
                outcome.statuses[index] = Status::HeldBack;
                continue;
            }
            if outcome.failure.is_some() {
                outcome.statuses[index] = Status::NotAttempted;
                continue;
            }
            step += 1;
            ctx.progress.report(step as f64, Some(total as f64), format!("{} {}", item.action.name(), item.path)).await;
            let step = Step { ctx, root, convert_markdown };
            match step.execute(&mut folders, item, &mut outcome.notes).await {
                Ok(()) => outcome.statuses[index] = Status::Done,
                Err(error) => {
                    let error = error.to_string();
                    outcome.statuses[index] = Status::Failed(error.clone());
                    outcome.failure = Some(Failure { path: item.path.clone(), action: item.action, error });
                }
            }
        }
    }
    outcome
}

/// The local path of a plan path, checked against the allowed folders.
fn local_path(ctx: &ToolContext, root: &Path, rel: &str) -> Result<PathBuf, ToolError> {
    let mut path = root.to_path_buf();
    path.extend(rel.split('/'));
    Ok(ctx.local.allowed(&path.to_string_lossy())?)
}

fn split(rel: &str) -> (&str, &str) {
    rel.rsplit_once('/').unwrap_or(("", rel))
}

/// The Drive folder for a relative folder path, created (with its parents) when missing.
async fn folder_id(ctx: &ToolContext, folders: &mut BTreeMap<String, String>, rel: &str) -> Result<String, ToolError> {
    if let Some(id) = folders.get(rel) {
        return Ok(id.clone());
    }
    let (parent, name) = split(rel);
    let parent_id = Box::pin(folder_id(ctx, folders, parent)).await?;
    let body = json!({ "name": name, "mimeType": mime::FOLDER, "parents": [parent_id] });
    let created = ctx.google.drive().create(&body, "id").await?;
    folders.insert(join(parent, name), created.id.clone());
    Ok(created.id)
}

/// What every item of a run shares.
struct Step<'a> {
    ctx: &'a ToolContext,
    root: &'a Path,
    convert_markdown: bool,
}

impl Step<'_> {
    async fn execute(
        &self,
        folders: &mut BTreeMap<String, String>,
        item: &Item,
        notes: &mut Vec<String>,
    ) -> Result<(), ToolError> {
        let (ctx, root) = (self.ctx, self.root);
        let drive = ctx.google.drive();
        let missing = || ToolError::invalid(format!("{}: the plan has no file for this step", item.path));
        match item.action {
            Action::Upload | Action::UpdateDrive => {
                let local = item.local.as_ref().ok_or_else(missing)?;
                let io = |e: std::io::Error| {
                    ToolError::invalid(format!("Gatehouse could not read {}: {e}.", local.path.display()))
                };
                let content = tokio::fs::read(&local.path).await.map_err(io)?;
                let (content_type, _) = by_extension(&local.path);
                let mut body = json!({
                    "modifiedTime": rfc3339(local.mtime_ms),
                    "appProperties": { SYNC_MARK: local.mtime_ms.to_string() },
                });
                if item.action == Action::Upload {
                    let (parent, name) = split(&item.path);
                    if self.convert_markdown && is_markdown(name) {
                        let folder = folder_id(ctx, folders, parent).await?;
                        let title = &name[..name.len() - 3];
                        return markdown::create_doc(ctx, &item.path, title, &folder, &content, local.mtime_ms).await;
                    }
                    body["name"] = json!(name);
                    body["mimeType"] = json!(content_type);
                    body["parents"] = json!([folder_id(ctx, folders, parent).await?]);
                    drive.upload_any(&body, content_type, &content, "id").await?;
                } else {
                    let target = item.drive.as_ref().ok_or_else(missing)?;
                    if target.export.as_ref().is_some_and(|e| e.markdown) {
                        return markdown::replace_doc(ctx, &item.path, &target.file.id, &content, local.mtime_ms).await;
                    }
                    drive.update_content(&target.file.id, &body, content_type, &content, "id").await?;
                }
            }
            Action::Download | Action::UpdateLocal => {
                let source = item.drive.as_ref().ok_or_else(missing)?;
                let path = local_path(ctx, root, &item.path)?;
                let bytes = match &source.export {
                    Some(export) if export.markdown => markdown::doc_as_markdown(ctx, &source.file.id).await?.into(),
                    Some(export) => drive.export(&source.file.id, &export.mime).await?,
                    None => drive.download(&source.file.id).await?,
                };
                ctx.local.write(&path, &bytes).await?;
                let Some(time) = drive_ms(&source.file) else { return Ok(()) };
                set_mtime(&path, time)?;
                // Blobs and Markdown Docs carry the sync mark; setting modifiedTime keeps it where it was.
                if source.export.as_ref().is_none_or(|e| e.markdown)
                    && !mark(&source.file).is_some_and(|m| same_time(m, time))
                {
                    let body = json!({
                        "modifiedTime": rfc3339(time),
                        "appProperties": { SYNC_MARK: time.to_string() },
                    });
                    if let Err(error) = drive.update(&source.file.id, &body, "id").await {
                        tracing::warn!(path = %item.path, %error, "sync_folder: could not record the sync mark");
                        notes.push(format!(
                        "{}: downloaded, but the sync mark could not be recorded on Drive ({error}); the next sync compares modified times only for it",
                        item.path
                    ));
                    }
                }
            }
            Action::TrashOnDrive => {
                let target = item.drive.as_ref().ok_or_else(missing)?;
                drive.update(&target.file.id, &json!({ "trashed": true }), "id").await?;
            }
            Action::DeleteLocal => {
                let path = local_path(ctx, root, &item.path)?;
                let io = |e: std::io::Error| {
                    ToolError::invalid(format!("Gatehouse could not delete {}: {e}.", path.display()))
                };
                tokio::fs::remove_file(&path).await.map_err(io)?;
            }
            Action::Conflict | Action::Skip | Action::Leave => {}
        }
        Ok(())
    }
}

fn is_markdown(name: &str) -> bool {
    name.len() > 3 && name.to_ascii_lowercase().ends_with(".md")
}
