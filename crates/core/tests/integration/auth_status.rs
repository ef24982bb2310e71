//! `server://auth-status`: for each way of being signed in (oauth user, service account, ADC→user,
//! ADC→service account, signed out) the categories, their tools (derived from the declarations only), the
//! flat `limited_tools`, and alternatives that never suggest the method already in use.
//!
//! And the proof that the declarations are right: every write tool runs against the emulator as a service
//! account working in My Drive, and the tools that fail with Google's storage-quota error must be exactly
//! the ones listed under `no_drive_storage_quota`. A write tool added without its declaration (or without
//! arguments here) fails this test.

use crate::support;

use std::collections::{BTreeMap, BTreeSet};

use gatehouse_core::auth::identity::{AuthMethod, IdentityClass};
use gatehouse_core::auth::status::auth_status;
use gatehouse_core::google::auth::SCOPES;
use gatehouse_core::tools::registry::Limitation;
use gatehouse_core::tools::{ToolDef, all_tools};
use google_fake::Identity;
use serde_json::{Value, json};
use support::{Harness, USER};

const ROBOT: &str = "robot@gatehouse-test.iam.gserviceaccount.com";

fn full_scopes() -> Vec<String> {
    let mut scopes: Vec<String> = SCOPES.iter().map(|s| (*s).to_owned()).collect();
    scopes.push("https://www.googleapis.com/auth/userinfo.email".into());
    // Gmail is asked for at sign-in (derived from the tools), not by service-account keys or gcloud.
    scopes.push("https://www.googleapis.com/auth/gmail.modify".into());
    scopes
}

/// Phrases that suggest switching to a method: the alternatives of someone already on it never contain them.
fn switch_phrases(method: AuthMethod) -> &'static [&'static str] {
    match method {
        AuthMethod::OAuth => &["sign in with a google account", "sign in with google", "auth_method=oauth"],
        AuthMethod::ServiceAccount => &["service_account_path", "service-account key:", "auth_method=service_account"],
        AuthMethod::Adc => &["use application default credentials", "switch to adc", "auth_method=adc"],
        AuthMethod::None => &[],
    }
}

fn names(value: &Value) -> Vec<String> {
    value.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect()
}

/// The tools of a category, derived from the declarations alone.
fn derived(category: &str, tools: &[ToolDef], granted: Option<&[String]>) -> Vec<String> {
    let pick = |keep: &dyn Fn(&ToolDef) -> bool| -> Vec<String> {
        tools.iter().filter(|t| keep(t)).map(|t| t.meta.name.to_owned()).collect()
    };
    match category {
        "not_signed_in" => pick(&|_| true),
        "missing_scopes" => pick(&|t| !t.meta.scope_granted(granted.expect("missing_scopes needs granted scopes"))),
        other => {
            let limitation = Limitation::ALL
                .into_iter()
                .find(|l| l.category() == other)
                .unwrap_or_else(|| panic!("unknown {other}"));
            pick(&|t| t.meta.fails(limitation))
        }
    }
}

/// Builds the status and checks what holds for every method; returns it with its categories.
fn checked_status(
    method: AuthMethod,
    class: Option<IdentityClass>,
    account: Option<&str>,
    granted: Option<&[String]>,
    tools: &[ToolDef],
) -> (Value, Vec<String>) {
    let status = auth_status(method, class, account, granted, tools);
    assert_eq!(status["auth_method"], method.as_str());
    assert_eq!(status["account"], json!(account));
    let keys: BTreeSet<&str> = status.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        BTreeSet::from(["auth_method", "is_service_account_identity", "account", "limitations", "limited_tools"])
    );
    let mut union = BTreeSet::new();
    let mut categories = Vec::new();
    for entry in status["limitations"].as_array().unwrap() {
        let category = entry["category"].as_str().unwrap().to_owned();
        let listed = names(&entry["tools"]);
        assert!(!listed.is_empty(), "{category} has no tools: {status:#}");
        assert_eq!(listed, derived(&category, tools, granted), "{category} is not what the declarations say");
        let reason = entry["reason"].as_str().unwrap();
        assert!(reason.ends_with('.') && !reason.trim_end_matches('.').contains(". "), "one sentence: {reason}");
        let alternatives = names(&entry["alternatives"]);
        assert!(!alternatives.is_empty(), "{category} offers nothing to do");
        for text in &alternatives {
            let lower = text.to_lowercase();
            for phrase in switch_phrases(method) {
                assert!(!lower.contains(phrase), "{category} suggests the current method ({method}): {text}");
            }
        }
        union.extend(listed);
        categories.push(category);
    }
    let limited = names(&status["limited_tools"]);
    let expected: Vec<String> = tools.iter().map(|t| t.meta.name.to_owned()).filter(|n| union.contains(n)).collect();
    assert_eq!(limited, expected, "limited_tools is the union, in catalogue order");
    (status, categories)
}

fn alternatives_of(status: &Value, category: &str) -> String {
    let entry = status["limitations"].as_array().unwrap().iter().find(|e| e["category"] == category).unwrap();
    names(&entry["alternatives"]).join("\n")
}

#[test]
fn an_oauth_user_is_limited_only_by_scopes_not_granted() {
    let tools = all_tools();
    let scopes = full_scopes();
    let (status, categories) = checked_status(AuthMethod::OAuth, None, Some(USER), Some(&scopes), &tools);
    assert_eq!(status["is_service_account_identity"], false);
    assert!(categories.is_empty(), "{status:#}");

    // Granted Sheets and read-only Docs: Docs edits, Drive (doc comments included) and Drive activity are
    // listed; signing in again is re-consent, not a switch of method.
    let narrow: Vec<String> =
        ["https://www.googleapis.com/auth/spreadsheets", "https://www.googleapis.com/auth/documents.readonly"]
            .map(String::from)
            .to_vec();
    let (status, categories) =
        checked_status(AuthMethod::OAuth, Some(IdentityClass::User), Some(USER), Some(&narrow), &tools);
    assert_eq!(categories, ["missing_scopes"]);
    let listed = names(&status["limited_tools"]);
    for tool in ["insert_doc_text", "add_doc_comment", "list_files", "list_spreadsheets", "list_file_activity"] {
        assert!(listed.contains(&tool.to_owned()), "{tool} missing from {listed:?}");
    }
    for tool in ["get_doc_content", "update_cells", "create_spreadsheet"] {
        assert!(!listed.contains(&tool.to_owned()), "{tool} listed in {listed:?}");
    }
    let reason = status["limitations"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("Google Docs, Google Drive, Drive activity") && reason.contains("auth/documents"),
        "{reason}"
    );
    assert!(alternatives_of(&status, "missing_scopes").contains("sign in again from the Gatehouse app"));

    // Read-only grants keep the reads.
    let readonly = vec!["https://www.googleapis.com/auth/spreadsheets.readonly".to_owned()];
    let (status, _) = checked_status(AuthMethod::OAuth, None, Some(USER), Some(&readonly), &tools);
    let listed = names(&status["limited_tools"]);
    assert!(!listed.contains(&"get_sheet_data".to_owned()) && listed.contains(&"update_cells".to_owned()));
}

#[test]
fn a_service_account_cannot_store_files_or_own_them_and_is_told_what_else_to_do() {
    let tools = all_tools();
    let scopes = full_scopes();
    let (status, categories) = checked_status(
        AuthMethod::ServiceAccount,
        Some(IdentityClass::ServiceAccount),
        Some(ROBOT),
        Some(&scopes),
        &tools,
    );
    assert_eq!(status["is_service_account_identity"], true);
    assert_eq!(categories, ["no_drive_storage_quota", "no_personal_drive_identity", "no_mailbox"]);
    let quota = names(&status["limitations"][0]["tools"]);
    for tool in
        ["create_spreadsheet", "create_doc", "copy_file", "upload_file", "upload_local_file", "upload_local_folder"]
    {
        assert!(quota.contains(&tool.to_owned()), "{tool} missing from {quota:?}");
    }
    assert_eq!(names(&status["limitations"][1]["tools"]), ["transfer_ownership"]);
    let alternatives = alternatives_of(&status, "no_drive_storage_quota");
    assert!(alternatives.contains("Sign in with a Google account"), "{alternatives}");
    assert!(alternatives.contains("shared drive") && alternatives.contains(ROBOT), "{alternatives}");
    assert!(alternatives_of(&status, "no_personal_drive_identity").contains("share_file"));

    // The class follows from the method when not given; only the enabled tools are listed.
    let sheets_only: Vec<ToolDef> = tools.iter().filter(|t| t.meta.service.label() == "Sheets").cloned().collect();
    let (status, categories) = checked_status(AuthMethod::ServiceAccount, None, None, None, &sheets_only);
    assert_eq!(categories, ["no_drive_storage_quota"]);
    assert_eq!(names(&status["limited_tools"]), ["create_spreadsheet", "import_csv_to_sheet"]);
}

#[test]
fn adc_holding_a_person_is_a_user() {
    let tools = all_tools();
    let scopes = full_scopes();
    let (status, categories) =
        checked_status(AuthMethod::Adc, Some(IdentityClass::User), Some(USER), Some(&scopes), &tools);
    assert_eq!(status["is_service_account_identity"], false);
    assert!(categories.is_empty(), "{status:#}");

    let narrow = vec!["https://www.googleapis.com/auth/cloud-platform".to_owned()];
    let (status, categories) = checked_status(AuthMethod::Adc, Some(IdentityClass::User), None, Some(&narrow), &tools);
    assert_eq!(categories, ["missing_scopes"]);
    let google_tools = tools.iter().filter(|t| t.meta.scope.is_some()).count();
    assert_eq!(names(&status["limited_tools"]).len(), google_tools, "cloud-platform opens none of these APIs");
    assert!(alternatives_of(&status, "missing_scopes").contains("gcloud auth application-default login --scopes="));
}

#[test]
fn adc_holding_a_service_account_is_told_to_point_adc_at_a_person() {
    let tools = all_tools();
    let (status, categories) =
        checked_status(AuthMethod::Adc, Some(IdentityClass::ServiceAccount), Some(ROBOT), None, &tools);
    assert_eq!(status["is_service_account_identity"], true);
    assert_eq!(categories, ["no_drive_storage_quota", "no_personal_drive_identity", "no_mailbox"]);
    for category in &categories {
        let alternatives = alternatives_of(&status, category);
        assert!(
            alternatives.contains("Point Application Default Credentials at your own Google account"),
            "{alternatives}"
        );
        assert!(alternatives.contains("gcloud auth application-default login"), "{alternatives}");
        assert!(alternatives.contains("Sign in with a Google account"), "{alternatives}");
    }

    // A VM whose service account lacks the Drive scopes also hears about the scopes.
    let vm = vec!["https://www.googleapis.com/auth/cloud-platform".to_owned()];
    let (status, categories) =
        checked_status(AuthMethod::Adc, Some(IdentityClass::ServiceAccount), Some(ROBOT), Some(&vm), &tools);
    assert_eq!(categories, ["no_drive_storage_quota", "no_personal_drive_identity", "no_mailbox", "missing_scopes"]);
    assert!(alternatives_of(&status, "missing_scopes").contains("access scopes"));
}

#[test]
fn signed_out_every_tool_is_listed_with_every_way_in() {
    let tools = all_tools();
    // Whatever class is passed, signed out has none.
    let (status, categories) =
        checked_status(AuthMethod::None, Some(IdentityClass::ServiceAccount), None, None, &tools);
    assert_eq!(status["is_service_account_identity"], false);
    assert_eq!(status["account"], Value::Null);
    assert_eq!(categories, ["not_signed_in"]);
    assert_eq!(names(&status["limited_tools"]).len(), tools.len());
    let alternatives = alternatives_of(&status, "not_signed_in");
    for way in ["gatehouse login", "SERVICE_ACCOUNT_PATH", "gcloud auth application-default login", "--sandbox"] {
        assert!(alternatives.contains(way), "{way} missing: {alternatives}");
    }
}

/// Whether a tool's error is Google's storage-quota refusal (Drive's `storageQuotaExceeded`, or the
/// Sheets/Docs "storage quota has been exceeded" it quotes).
fn is_storage_quota(message: &str) -> bool {
    let lower = message.to_lowercase();
    lower.contains("storage quota") || lower.contains("no drive storage")
}

struct Fixture {
    book: String,
    other_book: String,
    doc: String,
    blob: String,
    /// A PNG in the shared folder (insert_inline_image).
    image: String,
    shared_folder: String,
    robot_folder: String,
    robot_target: String,
    robot_trashed: String,
}

/// Minimal valid arguments for every write tool, on files the service account may change. A new write tool
/// must be added here, or the test fails.
fn arguments(tool: &str, f: &Fixture, h: &PermissionIds) -> Value {
    match tool {
        "clear_values" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "range": "A1" }),
        "update_cells" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "range": "A1", "data": [[1]] }),
        "batch_update_cells" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "ranges": { "B1:B1": [[2]] } }),
        "batch_update" => {
            json!({ "spreadsheet_id": f.book, "requests": [{ "addSheet": { "properties": { "title": "Raw" } } }] })
        }
        "copy_sheet" => {
            json!({ "src_spreadsheet": f.book, "src_sheet": "Sheet1", "dst_spreadsheet": f.other_book, "dst_sheet": "Copied" })
        }
        "duplicate_sheet" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1" }),
        "rename_sheet" => json!({ "spreadsheet": f.book, "sheet": "Rename me", "new_name": "Renamed" }),
        "create_sheet" => json!({ "spreadsheet_id": f.book, "title": "New tab" }),
        "add_rows" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "count": 1 }),
        "add_columns" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "count": 1 }),
        "delete_sheet" => json!({ "spreadsheet_id": f.book, "sheet": "Delete me" }),
        "delete_rows" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "start_row": 3 }),
        "delete_columns" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "start_column": 3 }),
        "hide_rows" | "unhide_rows" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "start_row": 5 }),
        "hide_columns" | "unhide_columns" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "start_column": 5 }),
        "resize_rows" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "start_row": 5, "pixel_size": 30 }),
        "resize_columns" => {
            json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "start_column": 5, "auto_resize": true })
        }
        "format_cells" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "range": "A1", "bold": true }),
        "update_borders" => {
            json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "range": "A1:B2", "top": { "style": "SOLID" } })
        }
        "merge_cells" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "range": "E5:F6" }),
        "unmerge_cells" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "range": "E5:F6" }),
        "freeze" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "rows": 1 }),
        "update_sheet_properties" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "show_gridlines": false }),
        "sort_range" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "range": "G1:H3" }),
        "add_data_validation" => {
            json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "range": "A1", "condition_type": "BOOLEAN" })
        }
        "clear_data_validation" => json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "range": "A1" }),
        "add_chart" => {
            json!({ "spreadsheet_id": f.book, "sheet": "Sheet1", "chart_type": "LINE", "data_range": "A1:B2" })
        }
        "create_spreadsheet" => json!({ "title": "Robot's sheet" }),
        "import_csv_to_sheet" => json!({ "local_path": "import.csv", "title": "Robot's import" }),
        "create_folder" => json!({ "name": "Robot's folder" }),
        "create_shortcut" => json!({ "target_file_id": f.blob, "folder_id": f.shared_folder }),
        "star_file" | "unstar_file" => json!({ "file_id": f.blob }),
        "empty_trash" => json!({}),
        "share_spreadsheet" => {
            json!({ "spreadsheet_id": f.book, "recipients": [{ "email_address": "dan@example.com", "role": "reader" }], "send_notification": false })
        }
        "export_revision" => json!({ "file_id": f.blob, "revision_id": h.revision, "local_path": "old-notes.txt" }),
        "copy_file" => json!({ "file_id": f.blob }),
        "move_file" => json!({ "file_id": f.robot_folder, "destination_folder_id": f.robot_target }),
        "rename_file" => json!({ "file_id": f.blob, "new_name": "renamed.txt" }),
        "delete_file" => json!({ "file_id": f.robot_target }),
        "restore_file" => json!({ "file_id": f.robot_trashed }),
        "download_file" => json!({ "file_id": f.blob, "local_path": "downloaded.txt" }),
        "upload_file" => json!({ "name": "note.txt", "content": "hi" }),
        "upload_local_file" => json!({ "local_path": "upload.txt", "parent_folder_id": f.shared_folder }),
        "upload_local_folder" => json!({ "local_path": "upload-folder", "parent_folder_id": f.shared_folder }),
        "download_folder" => json!({ "folder_id": f.shared_folder, "local_path": "downloaded-folder" }),
        // The export folder holds upload.txt: uploading it into the owner's folder meets the quota.
        "sync_folder" => json!({ "folder_id": f.shared_folder, "local_path": ".", "direction": "upload" }),
        "share_file" => {
            json!({ "file_id": f.blob, "permissions": [{ "role": "reader", "email_address": "dan@example.com" }], "send_notification": false })
        }
        "update_permission" => json!({ "file_id": f.blob, "permission_id": h.bob, "role": "commenter" }),
        "remove_permission" => json!({ "file_id": f.blob, "permission_id": h.carol }),
        "transfer_ownership" => json!({ "file_id": f.robot_folder, "new_owner_email": USER }),
        "create_doc" => json!({ "title": "Robot's doc" }),
        "create_doc_from_file" => json!({ "local_path": "notes.md" }),
        "write_doc_content" => json!({ "doc_id": f.doc, "content": "Hello", "content_format": "text" }),
        "update_doc_from_file" => json!({ "doc_id": f.doc, "local_path": "notes.md" }),
        "insert_doc_text" => json!({ "doc_id": f.doc, "insertions": [{ "index": 1, "text": "Hi " }] }),
        "delete_doc_range" => json!({ "doc_id": f.doc, "deletions": [{ "start_index": 1, "end_index": 2 }] }),
        "insert_page_break" => json!({ "doc_id": f.doc, "index": 1 }),
        "insert_softbreak_paragraph" => json!({ "doc_id": f.doc, "index": 1, "lines": [{ "text": "Hi" }] }),
        // The table tools run in declaration order: the table inserted at 1 starts at 2.
        "insert_doc_table" => json!({ "doc_id": f.doc, "index": 1, "rows": 2, "columns": 2 }),
        "insert_table_row" | "delete_table_row" => json!({ "doc_id": f.doc, "table_start_index": 2, "row_index": 0 }),
        "insert_table_column" | "delete_table_column" => {
            json!({ "doc_id": f.doc, "table_start_index": 2, "column_index": 0 })
        }
        "merge_table_cells" => {
            json!({ "doc_id": f.doc, "table_start_index": 2, "row_index": 0, "column_index": 0, "column_span": 2 })
        }
        "apply_theme" => json!({ "doc_id": f.doc, "theme": { "NORMAL_TEXT": { "font_family": "Lora" } } }),
        "create_header" => json!({ "doc_id": f.doc, "content": "Shared" }),
        "create_footer" => json!({ "doc_id": f.doc }),
        "create_named_range" => json!({ "doc_id": f.doc, "name": "start", "start_index": 1, "end_index": 2 }),
        "create_bookmark" => json!({ "doc_id": f.doc, "name": "here", "index": 1 }),
        "insert_inline_image" => json!({ "doc_id": f.doc, "index": 1, "drive_file_id": f.image }),
        "insert_local_images" => {
            json!({ "doc_id": f.doc, "images": [{ "local_path": "dot.png", "index": 1 }], "folder_id": f.shared_folder })
        }
        "style_doc_range" => json!({ "doc_id": f.doc, "ranges": [{ "start_index": 1, "end_index": 2, "bold": true }] }),
        "create_paragraph_bullets" | "delete_paragraph_bullets" => {
            json!({ "doc_id": f.doc, "ranges": [{ "start_index": 1, "end_index": 2 }] })
        }
        "style_doc_table_cells" => {
            json!({ "doc_id": f.doc, "table_start_index": 2, "cells": [{ "row_index": 0, "column_index": 0, "content_alignment": "MIDDLE" }] })
        }
        "add_doc_comment" => json!({ "doc_id": f.doc, "content": "Looks good" }),
        "resolve_doc_comment" => json!({ "doc_id": f.doc, "comment_id": h.comment }),
        "send_message" | "create_draft" => json!({ "to": USER, "subject": "Hi", "body": "Hello" }),
        "send_draft" => json!({ "draft_id": "r123" }),
        "reply_to_message" => json!({ "message_id": "18c0ffee00000001", "body": "Thanks" }),
        "modify_labels" => json!({ "message_id": "18c0ffee00000001", "add_label_ids": ["STARRED"] }),
        "trash_message" => json!({ "message_id": "18c0ffee00000001" }),
        "create_calendar" => json!({ "summary": "Robot's calendar" }),
        "update_calendar" => json!({ "calendar_id": "primary", "description": "The robot's" }),
        "delete_calendar" => json!({ "calendar_id": "robotold@group.calendar.google.com" }),
        "add_calendar_to_list" | "remove_calendar_from_list" => {
            json!({ "calendar_id": "teamcal@group.calendar.google.com" })
        }
        "add_calendar_acl" => {
            json!({ "calendar_id": "primary", "role": "reader", "scope_value": "dan@example.com", "send_notifications": false })
        }
        "remove_calendar_acl" => json!({ "calendar_id": "primary", "rule_id": "user:dan@example.com" }),
        "create_event" => {
            json!({ "calendar_id": "primary", "summary": "Sync", "start": "2026-12-01T10:00:00Z", "end": "2026-12-01T11:00:00Z" })
        }
        "update_event" => json!({ "calendar_id": "primary", "event_id": "robotevent1", "summary": "Sync (moved)" }),
        "delete_event" => json!({ "calendar_id": "primary", "event_id": "robotevent1" }),
        other => panic!(
            "{other} is a write tool this test has no arguments for: add minimal valid arguments to `arguments`, \
             and declare `.failing_for(&[Limitation::NoDriveStorageQuota])` if it creates, copies or uploads files"
        ),
    }
}

/// A 2×2 PNG.
fn dot_png() -> Vec<u8> {
    let mut bytes = Vec::new();
    image::RgbImage::new(2, 2).write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png).unwrap();
    bytes
}

/// Ids only the tools can tell: two permissions on the blob, its first revision, and a comment on the doc.
struct PermissionIds {
    bob: String,
    carol: String,
    revision: String,
    comment: String,
}

#[tokio::test]
async fn every_tool_that_hits_the_storage_quota_is_declared_so() {
    let robot = Identity::service_account(ROBOT);
    let owner = Identity::user(USER);
    let mut fixture = None;
    let h = Harness::acting_as(robot.clone(), |google, config| {
        let mut world = google.world();
        let cells = |v: &str| vec![vec![json!(v)]];
        let book = world.create_spreadsheet(
            "Shared book",
            &[("Sheet1", cells("a")), ("Rename me", cells("b")), ("Delete me", cells("c"))],
            &owner,
        );
        let other_book = world.create_spreadsheet("Other book", &[("Sheet1", cells("x"))], &owner);
        let doc = world.create_document("Shared doc", "Hello world", &owner);
        let shared_folder = world.drive.create_folder("Shared with the robot", None, &owner);
        let blob = world.drive.create_blob("notes.txt", "text/plain", b"notes".to_vec(), Some(&shared_folder), &owner);
        let image = world.drive.create_blob("dot.png", "image/png", dot_png(), Some(&shared_folder), &owner);
        for id in [&book, &other_book, &doc, &shared_folder, &blob] {
            world.drive.share_with(id, ROBOT, "writer");
        }
        world.drive.share_with(&blob, "bob@example.com", "reader");
        world.drive.share_with(&blob, "carol@example.com", "reader");
        // Folders take no storage: the robot owns some in its own My Drive.
        let robot_folder = world.drive.create_folder("Robot's", None, &robot);
        let robot_target = world.drive.create_folder("Robot's target", None, &robot);
        let robot_trashed = world.drive.create_folder("Robot's trashed", None, &robot);
        world.drive.get_mut(&robot_trashed).unwrap().explicitly_trashed = true;
        // Calendars take no Drive storage: the robot has its own, and one shared with it.
        world.calendar.insert_calendar("robotold@group.calendar.google.com", "Old", &robot, "UTC");
        world.calendar.insert_calendar("teamcal@group.calendar.google.com", "Team", &owner, "UTC");
        world.calendar.share("teamcal@group.calendar.google.com", "user", Some(ROBOT), "reader");
        let event = json!({ "id": "robotevent1", "summary": "Sync", "start": { "date": "2026-12-01" }, "end": { "date": "2026-12-02" } });
        world.calendar.add_event("primary", &robot, event).unwrap();
        drop(world);
        std::fs::create_dir_all(&config.export_dir).unwrap();
        std::fs::write(config.export_dir.join("upload.txt"), "from disk").unwrap();
        std::fs::write(config.export_dir.join("dot.png"), dot_png()).unwrap();
        std::fs::create_dir_all(config.export_dir.join("upload-folder")).unwrap();
        std::fs::write(config.export_dir.join("upload-folder/in-folder.txt"), "from disk").unwrap();
        std::fs::write(config.export_dir.join("notes.md"), "# Notes\n\nfrom disk").unwrap();
        std::fs::write(config.export_dir.join("import.csv"), "a,b\n1,2\n").unwrap();
        fixture =
            Some(Fixture { book, other_book, doc, blob, image, shared_folder, robot_folder, robot_target, robot_trashed });
    })
    .await;
    let fixture = fixture.unwrap();
    let listed = h.ok("list_permissions", json!({ "file_id": fixture.blob })).await;
    let id_of = |email: &str| {
        let found = listed["permissions"].as_array().unwrap().iter().find(|p| p["email_address"] == json!(email));
        found.unwrap_or_else(|| panic!("{email} not in {listed}"))["id"].as_str().unwrap().to_owned()
    };
    let revisions = h.ok("list_revisions", json!({ "file_id": fixture.blob })).await;
    let revision = revisions["revisions"][0]["id"].as_str().unwrap_or_else(|| panic!("no revision in {revisions}"));
    let commented = h.ok("add_doc_comment", json!({ "doc_id": fixture.doc, "content": "To resolve" })).await;
    let permissions = PermissionIds {
        bob: id_of("bob@example.com"),
        carol: id_of("carol@example.com"),
        revision: revision.to_owned(),
        comment: commented["comment"]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no comment id in {commented}"))
            .to_owned(),
    };

    let tools = all_tools();
    let mut outcomes: BTreeMap<&str, Result<Value, String>> = BTreeMap::new();
    // A tool that makes no Google call (the cache's) cannot meet Drive's quota.
    for tool in tools.iter().filter(|t| !t.meta.is_read_only() && t.meta.scope.is_some()) {
        let name = tool.meta.name;
        let (value, is_error) = h.call(name, arguments(name, &fixture, &permissions)).await;
        let outcome =
            if is_error { Err(value.as_str().map_or_else(|| value.to_string(), str::to_owned)) } else { Ok(value) };
        outcomes.insert(name, outcome);
    }
    let quota: BTreeSet<&str> =
        outcomes.iter().filter(|(_, o)| o.as_ref().is_err_and(|m| is_storage_quota(m))).map(|(n, _)| *n).collect();
    let other_failures: BTreeMap<&str, &String> = outcomes
        .iter()
        .filter_map(|(n, o)| o.as_ref().err().filter(|m| !is_storage_quota(m)).map(|m| (*n, m)))
        .collect();

    // Every other failure is a declared identity limit; anything else means the fixture is wrong, which
    // would hide a quota failure.
    let no_identity: BTreeSet<&str> = tools
        .iter()
        .filter(|t| !t.meta.is_read_only())
        .filter(|t| t.meta.fails(Limitation::NoPersonalDriveIdentity) || t.meta.fails(Limitation::NoMailbox))
        .map(|t| t.meta.name)
        .collect();
    assert_eq!(
        other_failures.keys().copied().collect::<BTreeSet<_>>(),
        no_identity,
        "unexpected failures: {other_failures:#?}"
    );

    // The derivation: the storage-quota failures are exactly what auth-status lists for a service account.
    let status =
        auth_status(AuthMethod::ServiceAccount, Some(IdentityClass::ServiceAccount), Some(ROBOT), None, &tools);
    let entry = status["limitations"].as_array().unwrap().iter().find(|e| e["category"] == "no_drive_storage_quota");
    let declared: BTreeSet<String> = names(&entry.expect("listed")["tools"]).into_iter().collect();
    let failed: BTreeSet<String> = quota.iter().map(|n| (*n).to_owned()).collect();
    assert_eq!(failed, declared, "tools failing with the storage-quota error vs. declared no_drive_storage_quota");
    assert!(failed.len() >= 5, "{failed:?}");
    // Nothing that takes storage was created in the robot's My Drive by the refused calls (folders and
    // shortcuts take none: create_folder and create_shortcut work for it).
    let world = h.google.world();
    let owned: Vec<String> = world
        .drive
        .ids()
        .into_iter()
        .filter(|id| {
            world.drive.get(id).is_some_and(|f| {
                f.owner() == Some(ROBOT) && !f.is_folder() && f.mime_type != "application/vnd.google-apps.shortcut"
            })
        })
        .collect();
    assert!(owned.is_empty(), "the robot owns files: {owned:?}");
}
