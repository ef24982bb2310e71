//! The evaluators declared on the tools (docs/approvals.md, "Evaluator"): every write tool is thought about, each
//! evaluator reads the arguments exactly as its tool does, and the fingerprints follow the definitions.

use crate::support;

use std::collections::BTreeMap;
use std::sync::Arc;

use gatehouse_core::approval::evaluator::{
    self, ArgEvaluator, EvalError, Evaluator, constraint_words, offered_constraint, satisfied, standing_approval,
};
use gatehouse_core::approval::fingerprint::fingerprint;
use gatehouse_core::approval::model::Constraint;
use gatehouse_core::tools::registry::Service;
use gatehouse_core::tools::{Access, Effect, ToolContext, ToolDef, ToolError, ToolMeta, all_tools};
use serde_json::{Value, json};

/// Write tools that deliberately have no evaluator, each with the reason: a grant for them may cover any
/// arguments. A new write tool must be given an evaluator or be listed here with its reason.
const NO_EVALUATOR: &[(&str, &str)] = &[
    (
        "create_draft",
        "a draft stays in the person's own mailbox; nothing leaves it until send_draft, which always asks",
    ),
    ("modify_labels", "labels are the person's own filing in their own mailbox, and every change can be undone"),
    ("trash_message", "a trashed message stays restorable from Gmail's Trash for 30 days, like Drive's trash"),
    (
        "create_calendar",
        "a new, empty calendar of the person's own, shared with no one: there is no target to limit to",
    ),
    ("set_cache_ttl", "it changes only how long Gatehouse reuses its own copies of answers; nothing in Google changes"),
    (
        "refresh_cache",
        "it only drops Gatehouse's own copies of answers, so later reads fetch fresh data; nothing in Google changes",
    ),
];

/// What each write tool is claimed by, as reviewed: a change here is a change of what grants may cover.
const DECLARED: &[(&str, &[&str])] = &[
    ("clear_values", &["spreadsheet"]),
    ("update_cells", &["spreadsheet"]),
    ("batch_update_cells", &["spreadsheet"]),
    ("batch_update", &["spreadsheet"]),
    ("copy_sheet", &["spreadsheet", "spreadsheet"]),
    ("duplicate_sheet", &["spreadsheet"]),
    ("rename_sheet", &["spreadsheet"]),
    ("create_sheet", &["spreadsheet"]),
    ("add_rows", &["spreadsheet"]),
    ("add_columns", &["spreadsheet"]),
    ("delete_sheet", &["spreadsheet"]),
    ("delete_rows", &["spreadsheet"]),
    ("delete_columns", &["spreadsheet"]),
    ("hide_rows", &["spreadsheet"]),
    ("unhide_rows", &["spreadsheet"]),
    ("hide_columns", &["spreadsheet"]),
    ("unhide_columns", &["spreadsheet"]),
    ("resize_rows", &["spreadsheet"]),
    ("resize_columns", &["spreadsheet"]),
    ("format_cells", &["spreadsheet"]),
    ("update_borders", &["spreadsheet"]),
    ("merge_cells", &["spreadsheet"]),
    ("unmerge_cells", &["spreadsheet"]),
    ("freeze", &["spreadsheet"]),
    ("update_sheet_properties", &["spreadsheet"]),
    ("sort_range", &["spreadsheet"]),
    ("add_data_validation", &["spreadsheet"]),
    ("clear_data_validation", &["spreadsheet"]),
    ("add_chart", &["spreadsheet"]),
    ("create_spreadsheet", &["folder"]),
    ("import_csv_to_sheet", &["folder"]),
    ("create_folder", &["folder"]),
    ("create_shortcut", &["folder"]),
    ("star_file", &["file"]),
    ("unstar_file", &["file"]),
    ("empty_trash", &["empty_trash"]),
    ("share_spreadsheet", &["email_domain"]),
    ("export_revision", &["file"]),
    ("copy_file", &["file", "folder"]),
    ("move_file", &["file", "folder"]),
    ("rename_file", &["file"]),
    ("delete_file", &["file", "permanent_delete"]),
    ("restore_file", &["file"]),
    ("download_file", &["file"]),
    ("upload_file", &["folder"]),
    ("upload_local_file", &["folder"]),
    ("upload_local_folder", &["folder"]),
    ("download_folder", &["folder"]),
    ("sync_folder", &["folder"]),
    ("share_file", &["email_domain"]),
    ("update_permission", &["file"]),
    ("remove_permission", &["file"]),
    ("transfer_ownership", &["transfer_ownership"]),
    ("create_doc", &["folder"]),
    ("create_doc_from_file", &["folder"]),
    ("write_doc_content", &["document"]),
    ("update_doc_from_file", &["document"]),
    ("insert_doc_text", &["document"]),
    ("delete_doc_range", &["document"]),
    ("insert_page_break", &["document"]),
    ("insert_softbreak_paragraph", &["document"]),
    ("insert_inline_image", &["document"]),
    ("insert_local_images", &["document", "folder"]),
    ("insert_doc_table", &["document"]),
    ("insert_table_row", &["document"]),
    ("delete_table_row", &["document"]),
    ("insert_table_column", &["document"]),
    ("delete_table_column", &["document"]),
    ("merge_table_cells", &["document"]),
    ("style_doc_table_cells", &["document"]),
    ("style_doc_range", &["document"]),
    ("create_paragraph_bullets", &["document"]),
    ("delete_paragraph_bullets", &["document"]),
    ("create_header", &["document"]),
    ("create_footer", &["document"]),
    ("create_named_range", &["document"]),
    ("create_bookmark", &["document"]),
    ("apply_theme", &["document"]),
    ("add_doc_comment", &["document"]),
    ("resolve_doc_comment", &["document"]),
    ("send_message", &["email_domain"]),
    ("send_draft", &["send_draft"]),
    ("reply_to_message", &["reply_to_message"]),
    ("create_draft", &[]),
    ("modify_labels", &[]),
    ("trash_message", &[]),
    ("create_calendar", &[]),
    ("set_cache_ttl", &[]),
    ("refresh_cache", &[]),
    ("update_calendar", &["calendar"]),
    ("delete_calendar", &["calendar"]),
    ("add_calendar_to_list", &["calendar"]),
    ("remove_calendar_from_list", &["calendar"]),
    ("add_calendar_acl", &["email_domain"]),
    ("remove_calendar_acl", &["calendar"]),
    ("create_event", &["calendar", "invitees"]),
    ("update_event", &["calendar", "invitees", "event_attendees"]),
    ("delete_event", &["calendar", "event_attendees"]),
];

const CONSTRAINT_KINDS: &[&str] = &["spreadsheet", "document", "file", "folder", "calendar", "email_domain"];
const VETO_KINDS: &[&str] = &[
    "transfer_ownership",
    "permanent_delete",
    "empty_trash",
    "send_draft",
    "reply_to_message",
    "invitees",
    "event_attendees",
];

fn tool(name: &str) -> ToolDef {
    all_tools().into_iter().find(|tool| tool.meta.name == name).unwrap_or_else(|| panic!("no tool {name}"))
}

fn evaluators(name: &str) -> Vec<Arc<dyn ArgEvaluator>> {
    tool(name).evaluators().to_vec()
}

fn constraint(kind: &str, value: &str) -> Constraint {
    Constraint { kind: kind.to_owned(), value: value.to_owned() }
}

fn kinds(tool: &ToolDef) -> Vec<&'static str> {
    let mut kinds: Vec<&'static str> = tool.evaluators().iter().map(|e| e.kind()).collect();
    kinds.sort_unstable();
    kinds
}

// --- Every write tool is thought about -------------------------------------------------------------------

#[test]
fn every_write_tool_has_an_evaluator_or_a_reason_not_to() {
    let tools = all_tools();
    for tool in &tools {
        let name = tool.meta.name;
        match tool.meta.access {
            Access::Read => assert!(tool.evaluators().is_empty(), "{name} is a read: reads are not gated"),
            Access::Write(_) => {
                let excused = NO_EVALUATOR.iter().find(|(excused, _)| *excused == name);
                match excused {
                    Some((_, why)) => {
                        assert!(tool.evaluators().is_empty(), "{name} is excused but has evaluators");
                        assert!(why.len() > 20, "{name}: say why it needs no evaluator");
                    }
                    None => assert!(
                        !tool.evaluators().is_empty(),
                        "the write tool {name} has no evaluator: declare the ones that fit its arguments with \
                         ToolDef::evaluated, or list it in NO_EVALUATOR with the reason"
                    ),
                }
            }
        }
    }
    for (name, _) in NO_EVALUATOR {
        assert!(tools.iter().any(|t| t.meta.name == *name), "NO_EVALUATOR names {name}, which is no tool");
    }
}

#[test]
fn the_declarations_are_the_reviewed_ones() {
    let declared: BTreeMap<&str, Vec<&str>> =
        all_tools().iter().filter(|tool| !tool.meta.is_read_only()).map(|tool| (tool.meta.name, kinds(tool))).collect();
    let reviewed: BTreeMap<&str, Vec<&str>> = DECLARED
        .iter()
        .map(|(name, kinds)| {
            let mut kinds = kinds.to_vec();
            kinds.sort_unstable();
            (*name, kinds)
        })
        .collect();
    assert_eq!(declared, reviewed);
    for tool in all_tools() {
        for e in tool.evaluators() {
            let known = if e.constrains() { CONSTRAINT_KINDS } else { VETO_KINDS };
            assert!(known.contains(&e.kind()), "{}: unknown evaluator kind {}", tool.meta.name, e.kind());
        }
    }
}

// --- Reading the arguments exactly as the tool does -----------------------------------------------------

/// Arguments each tool's parsing refuses: a missing required argument, an unknown one, a wrong type.
fn malformed() -> Vec<(&'static str, Value)> {
    vec![
        ("update_cells", json!({ "sheet": "S", "range": "A1", "data": [[1]] })),
        ("update_cells", json!({ "spreadsheet_id": "S1", "sheet": "S", "range": "A1" })),
        ("update_cells", json!({ "spreadsheet_id": "S1", "sheet": "S", "range": "A1", "data": "x" })),
        ("update_cells", json!({ "spreadsheet_id": 7, "sheet": "S", "range": "A1", "data": [[1]] })),
        ("clear_values", json!({ "spreadsheet_id": "S1", "sheet": "S", "colour": "red" })),
        ("rename_sheet", json!({ "spreadsheet_id": "S1", "sheet": "S", "new_name": "T" })),
        ("add_rows", json!({ "spreadsheet_id": "S1", "sheet": "S", "count": -1 })),
        ("copy_sheet", json!({ "src_spreadsheet": "A", "src_sheet": "S", "dst_sheet": "T" })),
        ("create_spreadsheet", json!({ "folder_id": "F" })),
        ("create_folder", json!({ "name": "N", "parent_folder_id": 3 })),
        ("move_file", json!({ "file_id": "F" })),
        ("delete_file", json!({ "file_id": "F", "permanent": "true" })),
        ("restore_file", json!({})),
        ("download_file", json!({ "file_id": "F" })),
        ("upload_local_file", json!({ "local_path": "a.txt" })),
        // A grant without a role is valid (reader, as in the reference server); a role of the wrong type is not.
        ("share_file", json!({ "file_id": "F", "permissions": [{ "email_address": "a@b.c", "role": 7 }] })),
        ("update_permission", json!({ "file_id": "F", "role": "reader" })),
        ("transfer_ownership", json!({ "file_id": "F" })),
        ("create_doc", json!({ "title": "T", "folder": "F" })),
        ("insert_doc_text", json!({ "document_id": "D", "insertions": [] })),
        ("add_doc_comment", json!({ "doc_id": "D" })),
    ]
}

#[tokio::test]
async fn arguments_the_tool_refuses_are_a_veto_with_the_tools_own_words() {
    let harness = support::Harness::new().await;
    for (name, args) in malformed() {
        let tool_says = harness.err(name, args.clone()).await;
        assert!(tool_says.starts_with(&format!("Invalid arguments for {name}")), "{name}: {tool_says}");
        for e in evaluators(name) {
            assert_eq!(e.propose(&args), Err(EvalError::Arguments(tool_says.clone())), "{name} {args}");
            let any = constraint(e.kind(), "x");
            assert_eq!(e.satisfies(&any, &args), Err(EvalError::Arguments(tool_says.clone())), "{name}");
            let veto = e.standing_approval(&args, None).unwrap_err();
            assert!(veto.reason.contains(&tool_says), "{name}: {veto}");
        }
        assert!(
            standing_approval(&evaluators(name), &args, None).is_err(),
            "{name}: a missing or bad argument is a veto"
        );
        assert!(offered_constraint(&evaluators(name), &args).is_err(), "{name}: …not \"no constraint\"");
    }
}

#[test]
fn spreadsheet_tools_offer_their_spreadsheet() {
    for (name, args) in [
        ("update_cells", json!({ "spreadsheet_id": "1AbCdEfGh", "sheet": "S", "range": "A1", "data": [[1]] })),
        ("rename_sheet", json!({ "spreadsheet": "1AbCdEfGh", "sheet": "S", "new_name": "T" })),
        ("delete_rows", json!({ "spreadsheet_id": "1AbCdEfGh", "sheet": "S", "start_row": 0 })),
        ("batch_update", json!({ "spreadsheet_id": "1AbCdEfGh", "requests": [] })),
        (
            "add_data_validation",
            json!({ "spreadsheet_id": "1AbCdEfGh", "sheet": "S", "range": "A1", "condition_type": "BOOLEAN" }),
        ),
        ("clear_data_validation", json!({ "spreadsheet_id": "1AbCdEfGh", "sheet": "S", "range": "A1" })),
        (
            "add_chart",
            json!({ "spreadsheet_id": "1AbCdEfGh", "sheet": "S", "chart_type": "LINE", "data_range": "A1:B3" }),
        ),
    ] {
        let evaluators = evaluators(name);
        assert_eq!(standing_approval(&evaluators, &args, None), Ok(()), "{name}");
        let offered = offered_constraint(&evaluators, &args).unwrap();
        assert_eq!(offered, Some(constraint("spreadsheet", "1AbCdEfGh")), "{name}");
        assert!(satisfied(&evaluators, &constraint("spreadsheet", "1AbCdEfGh"), &args).unwrap(), "{name}");
        assert!(!satisfied(&evaluators, &constraint("spreadsheet", "other"), &args).unwrap(), "{name}");
        assert!(!satisfied(&evaluators, &constraint("file", "1AbCdEfGh"), &args).unwrap(), "{name}: another kind");
        assert_eq!(constraint_words(&constraint("spreadsheet", "1AbCdEfGh")), "only this spreadsheet (1AbCdE…)");
    }
}

#[test]
fn an_empty_id_is_a_veto_not_an_open_grant() {
    let args = json!({ "spreadsheet_id": "", "sheet": "S", "range": "A1", "data": [[1]] });
    let veto = standing_approval(&evaluators("update_cells"), &args, None).unwrap_err();
    assert_eq!(veto.evaluator, "spreadsheet");
    assert!(offered_constraint(&evaluators("update_cells"), &args).is_err());
    assert!(satisfied(&evaluators("update_cells"), &constraint("spreadsheet", ""), &args).is_err());
}

#[test]
fn document_and_file_tools_offer_their_target() {
    for (name, args, kind) in [
        ("insert_doc_text", json!({ "doc_id": "D1", "insertions": [{ "index": 1, "text": "x" }] }), "document"),
        ("add_doc_comment", json!({ "doc_id": "D1", "content": "Nice" }), "document"),
        ("rename_file", json!({ "file_id": "D1", "new_name": "N" }), "file"),
        ("restore_file", json!({ "file_id": "D1" }), "file"),
        ("remove_permission", json!({ "file_id": "D1", "permission_id": "P" }), "file"),
        ("download_file", json!({ "file_id": "D1", "local_path": "out.pdf" }), "file"),
    ] {
        let evaluators = evaluators(name);
        assert_eq!(offered_constraint(&evaluators, &args).unwrap(), Some(constraint(kind, "D1")), "{name}");
        assert!(satisfied(&evaluators, &constraint(kind, "D1"), &args).unwrap(), "{name}");
        assert!(!satisfied(&evaluators, &constraint(kind, "D2"), &args).unwrap(), "{name}");
    }
}

#[test]
fn an_optional_folder_left_to_the_default_offers_no_folder() {
    for name in ["create_spreadsheet", "create_doc"] {
        let evaluators = evaluators(name);
        let default = json!({ "title": "T" });
        assert_eq!(standing_approval(&evaluators, &default, None), Ok(()), "{name}");
        assert_eq!(offered_constraint(&evaluators, &default).unwrap(), None, "{name}");
        // The default may be a configured folder: "root" is not what the call names.
        assert!(!satisfied(&evaluators, &constraint("folder", "root"), &default).unwrap(), "{name}");
        let into = json!({ "title": "T", "folder_id": "F1" });
        assert_eq!(offered_constraint(&evaluators, &into).unwrap(), Some(constraint("folder", "F1")), "{name}");
        assert!(satisfied(&evaluators, &constraint("folder", "F1"), &into).unwrap(), "{name}");
        assert_eq!(constraint_words(&constraint("folder", "F1")), "only into this folder (F1)");
    }
    let blank = json!({ "name": "N", "parent_folder_id": "" });
    assert_eq!(offered_constraint(&evaluators("create_folder"), &blank).unwrap(), None);
    let upload = json!({ "local_path": "a.txt", "parent_folder_id": "F1" });
    assert_eq!(
        offered_constraint(&evaluators("upload_local_file"), &upload).unwrap(),
        Some(constraint("folder", "F1"))
    );
    // import_csv_to_sheet creates its spreadsheet like create_spreadsheet.
    let import = evaluators("import_csv_to_sheet");
    let into = json!({ "local_path": "a.csv", "title": "T", "folder_id": "F1" });
    assert_eq!(offered_constraint(&import, &into).unwrap(), Some(constraint("folder", "F1")));
    assert_eq!(offered_constraint(&import, &json!({ "local_path": "a.csv", "title": "T" })).unwrap(), None);
}

// --- Sharing ----------------------------------------------------------------------------------------------

fn share(permissions: Value) -> Value {
    json!({ "file_id": "F", "permissions": permissions })
}

#[test]
fn sharing_within_one_domain_offers_that_domain() {
    let evaluators = evaluators("share_file");
    let args = share(json!([
        { "role": "writer", "email_address": "ann@Example.com" },
        { "type": "group", "role": "reader", "emailAddress": "team@example.com" },
    ]));
    assert_eq!(standing_approval(&evaluators, &args, None), Ok(()));
    assert_eq!(offered_constraint(&evaluators, &args).unwrap(), Some(constraint("email_domain", "example.com")));
    assert!(satisfied(&evaluators, &constraint("email_domain", "example.com"), &args).unwrap());
    assert!(!satisfied(&evaluators, &constraint("email_domain", "other.com"), &args).unwrap());
    assert_eq!(constraint_words(&constraint("email_domain", "example.com")), "only people at example.com");
}

#[test]
fn sharing_across_domains_offers_nothing_and_satisfies_neither() {
    let evaluators = evaluators("share_file");
    let args = share(json!([
        { "role": "writer", "email_address": "ann@example.com" },
        { "role": "reader", "email_address": "eve@elsewhere.org" },
    ]));
    assert_eq!(standing_approval(&evaluators, &args, None), Ok(()));
    assert_eq!(offered_constraint(&evaluators, &args).unwrap(), None);
    assert!(!satisfied(&evaluators, &constraint("email_domain", "example.com"), &args).unwrap());
    assert!(!satisfied(&evaluators, &constraint("email_domain", "elsewhere.org"), &args).unwrap());
}

#[test]
fn sharing_with_a_domain_or_anyone_is_never_within_an_email_domain() {
    let evaluators = evaluators("share_file");
    for who in [
        json!({ "type": "anyone", "role": "reader" }),
        json!({ "type": "domain", "role": "reader", "domain": "example.com" }),
        // The tool makes this a domain share: only `domain` is given.
        json!({ "role": "reader", "domain": "example.com" }),
    ] {
        let args = share(json!([{ "role": "reader", "email_address": "ann@example.com" }, who]));
        assert_eq!(offered_constraint(&evaluators, &args).unwrap(), None, "{args}");
        assert!(!satisfied(&evaluators, &constraint("email_domain", "example.com"), &args).unwrap(), "{args}");
    }
}

#[test]
fn shares_the_tool_would_refuse_are_a_veto() {
    let evaluators = evaluators("share_file");
    for permissions in [
        json!([]),
        json!([{ "role": "owner", "email_address": "ann@example.com" }]),
        json!([{ "role": "editor", "email_address": "ann@example.com" }]),
        json!([{ "type": "user", "role": "reader" }]),
        json!([{ "type": "robot", "role": "reader", "email_address": "ann@example.com" }]),
        json!([{ "role": "reader", "email_address": "not-an-address" }]),
    ] {
        let args = share(permissions);
        let veto = standing_approval(&evaluators, &args, None).unwrap_err();
        assert_eq!(veto.evaluator, "email_domain", "{args}");
        assert!(offered_constraint(&evaluators, &args).is_err(), "{args}");
        assert!(satisfied(&evaluators, &constraint("email_domain", "example.com"), &args).is_err(), "{args}");
    }
}

// --- Vetoes ------------------------------------------------------------------------------------------------

#[test]
fn transferring_ownership_always_asks() {
    let evaluators = evaluators("transfer_ownership");
    let args = json!({ "file_id": "F", "new_owner_email": "ann@example.com" });
    let veto = standing_approval(&evaluators, &args, None).unwrap_err();
    assert_eq!(veto.evaluator, "transfer_ownership");
    assert_eq!(veto.reason, "Transferring ownership always asks: it cannot be undone by you.");
    assert_eq!(offered_constraint(&evaluators, &args).unwrap(), None);
    assert!(!satisfied(&evaluators, &constraint("file", "F"), &args).unwrap());
}

#[test]
fn deleting_for_good_always_asks_but_the_trash_may_be_granted() {
    let evaluators = evaluators("delete_file");
    let trash = json!({ "file_id": "F" });
    assert_eq!(standing_approval(&evaluators, &trash, None), Ok(()));
    assert_eq!(standing_approval(&evaluators, &json!({ "file_id": "F", "permanent": false }), None), Ok(()));
    assert_eq!(offered_constraint(&evaluators, &trash).unwrap(), Some(constraint("file", "F")));
    assert!(satisfied(&evaluators, &constraint("file", "F"), &trash).unwrap());

    let forever = json!({ "file_id": "F", "permanent": true });
    let veto = standing_approval(&evaluators, &forever, None).unwrap_err();
    assert_eq!(veto.evaluator, "permanent_delete");
    assert!(veto.reason.contains("cannot be undone"), "{veto}");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

async fn empty(_ctx: ToolContext, _args: NoArgs) -> Result<Value, ToolError> {
    Ok(json!({ "emptied": true }))
}

#[test]
fn empty_trash_is_ready_to_always_ask() {
    // No empty_trash tool is declared yet: this is how it will be, and what its evaluator does.
    let meta = ToolMeta::write(
        Service::Drive,
        "empty_trash",
        "Empty trash",
        "Delete every file in the trash.",
        Effect { destructive: true, idempotent: true },
    );
    let declared = ToolDef::evaluated(meta, empty, [Evaluator::empty_trash()]);
    let veto = standing_approval(declared.evaluators(), &json!({}), None).unwrap_err();
    assert_eq!(veto.evaluator, "empty_trash");
    assert_eq!(veto.reason, evaluator::veto::EMPTY_TRASH);
    assert_eq!(offered_constraint(declared.evaluators(), &json!({})).unwrap(), None);
    assert!(standing_approval(declared.evaluators(), &json!({ "all": true }), None).is_err());
    // Once the real tool exists, it must carry the same veto.
    if let Some(tool) = all_tools().into_iter().find(|t| t.meta.name == "empty_trash") {
        assert_eq!(kinds(&tool), ["empty_trash"]);
    }
}

// --- Tools claimed by two evaluators ---------------------------------------------------------------------

#[test]
fn a_tool_claimed_by_two_evaluators_offers_no_constraint_and_each_must_allow() {
    let evaluators = evaluators("move_file");
    let args = json!({ "file_id": "F", "destination_folder_id": "D" });
    assert_eq!(standing_approval(&evaluators, &args, None), Ok(()));
    assert_eq!(offered_constraint(&evaluators, &args).unwrap(), None);
    // A policy's constraint of either kind is judged by the evaluator of that kind.
    assert!(satisfied(&evaluators, &constraint("folder", "D"), &args).unwrap());
    assert!(satisfied(&evaluators, &constraint("file", "F"), &args).unwrap());
    assert!(!satisfied(&evaluators, &constraint("folder", "F"), &args).unwrap());
    // One of them failing is a veto for the whole tool.
    let blank = json!({ "file_id": "F", "destination_folder_id": " " });
    assert_eq!(standing_approval(&evaluators, &blank, None).unwrap_err().evaluator, "folder");

    // copy_file: even with only the file proposing (no folder given), nothing is offered.
    let copy_file = tool("copy_file");
    let copy = json!({ "file_id": "F" });
    assert_eq!(standing_approval(copy_file.evaluators(), &copy, None), Ok(()));
    assert_eq!(offered_constraint(copy_file.evaluators(), &copy).unwrap(), None);
}

#[test]
fn a_copy_between_spreadsheets_stays_within_one_only_when_both_are_it() {
    let evaluators = evaluators("copy_sheet");
    let within = json!({ "src_spreadsheet": "A", "src_sheet": "S", "dst_spreadsheet": "A", "dst_sheet": "T" });
    let across = json!({ "src_spreadsheet": "A", "src_sheet": "S", "dst_spreadsheet": "B", "dst_sheet": "T" });
    assert_eq!(offered_constraint(&evaluators, &within).unwrap(), None);
    assert!(satisfied(&evaluators, &constraint("spreadsheet", "A"), &within).unwrap());
    assert!(!satisfied(&evaluators, &constraint("spreadsheet", "A"), &across).unwrap());
    assert!(!satisfied(&evaluators, &constraint("spreadsheet", "B"), &across).unwrap());
}

// --- Fingerprints ----------------------------------------------------------------------------------------

#[test]
fn fingerprints_are_stable_and_tell_tools_apart() {
    let first: Vec<String> = all_tools().iter().map(|tool| fingerprint(tool)).collect();
    let again: Vec<String> = all_tools().iter().map(|tool| fingerprint(tool)).collect();
    assert_eq!(first, again);
    let mut distinct = first.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), first.len(), "every tool has its own fingerprint");
    assert!(first.iter().all(|f| f.len() == 64 && f.bytes().all(|b| b.is_ascii_hexdigit())));
}

#[test]
fn a_changed_definition_changes_the_fingerprint() {
    let base = fingerprint(&tool("update_cells"));
    let mut described = tool("update_cells");
    described.meta.description = "Write values, and also email them somewhere.";
    let mut retitled = tool("update_cells");
    retitled.meta.title = "Update cells quietly";
    let mut reannotated = tool("update_cells");
    reannotated.meta.access = Access::Write(Effect { destructive: false, idempotent: true });
    for changed in [described, retitled, reannotated] {
        assert_ne!(fingerprint(&changed), base, "{:?}", changed.meta);
    }
    // The same arguments schema under another name is another tool.
    let mut renamed = tool("update_cells");
    renamed.meta.name = "update_cells_v2";
    assert_ne!(fingerprint(&renamed), base);
}
