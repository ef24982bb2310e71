//! `write_doc_content`, `create_doc_from_file` and `update_doc_from_file` against the emulator: the body
//! is replaced (text, paragraph and text styles, read back from the emulator), a backup copy holding the
//! old content is kept unless `allow_no_backup`, the write is refused when no backup can be made, and
//! local files are read inside the allowed folders only.

use crate::docs_common;
use crate::support;

use docs_common::{paragraphs, raw_doc, text_of};
use google_fake::Identity;
use serde_json::{Value, json};
use support::{Harness, USER};

/// Each body paragraph: (text without its newline, namedStyleType, has a bullet).
fn shape(doc: &Value) -> Vec<(String, String, bool)> {
    paragraphs(doc)
        .iter()
        .map(|p| {
            let style = p["paragraph"]["paragraphStyle"]["namedStyleType"].as_str().unwrap_or("NORMAL_TEXT").to_owned();
            (text_of(p).trim_end_matches('\n').to_owned(), style, p["paragraph"].get("bullet").is_some())
        })
        .collect()
}

/// Every text run of the body: (content, textStyle).
fn runs(doc: &Value) -> Vec<(String, Value)> {
    paragraphs(doc)
        .iter()
        .flat_map(|p| p["paragraph"]["elements"].as_array().unwrap().clone())
        .filter_map(|e| Some((e["textRun"]["content"].as_str()?.to_owned(), e["textRun"]["textStyle"].clone())))
        .collect()
}

fn run_style(doc: &Value, text: &str) -> Value {
    runs(doc).into_iter().find(|(t, _)| t == text).map(|(_, s)| s).unwrap_or_else(|| panic!("no run {text:?} in {doc}"))
}

/// The ids of the Google Docs in the emulator.
fn documents(h: &Harness) -> Vec<String> {
    let world = h.google.world();
    world.drive.ids().into_iter().filter(|id| world.docs.contains(id)).collect()
}

fn write_export(h: &Harness, name: &str, contents: &str) {
    let exports = h.home.path().join("exports");
    std::fs::create_dir_all(&exports).unwrap();
    std::fs::write(exports.join(name), contents).unwrap();
}

const OLD: &str = "# Old plan\n\n- old item\n- last old item";

async fn old_doc(h: &Harness) -> String {
    let created = h.ok("create_doc", json!({"title": "Plan", "content": OLD, "content_format": "markdown"})).await;
    created["document_id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_body_is_replaced_and_a_backup_copy_keeps_the_old_content() {
    let h = Harness::new().await;
    let folder = h.google.world().drive.create_folder("Plans", None, &h.owner());
    let created = h
        .ok("create_doc", json!({"title": "Plan", "content": OLD, "content_format": "markdown", "folder_id": folder}))
        .await;
    let id = created["document_id"].as_str().unwrap();
    let old_text = h.google.world().docs.plain_text(id).unwrap();
    assert_eq!(old_text, "Old plan\nold item\nlast old item\n");

    let new = "## Fresh start\n\nNew *words* and **strong** ones, see https://example.org/x.";
    let written = h.ok("write_doc_content", json!({"doc_id": id, "content": new, "content_format": "markdown"})).await;
    assert_eq!(written["document_id"], id);
    assert_eq!(written["url"], format!("https://docs.google.com/document/d/{id}/edit"));

    assert_eq!(
        h.google.world().docs.plain_text(id).unwrap(),
        "Fresh start\nNew words and strong ones, see https://example.org/x.\n"
    );
    let doc = raw_doc(&h, id).await;
    assert_eq!(
        shape(&doc),
        vec![
            ("Fresh start".to_owned(), "HEADING_2".to_owned(), false),
            ("New words and strong ones, see https://example.org/x.".to_owned(), "NORMAL_TEXT".to_owned(), false),
        ]
    );
    assert_eq!(run_style(&doc, "words")["italic"], true);
    assert_eq!(run_style(&doc, "strong")["bold"], true);
    assert_eq!(run_style(&doc, "https://example.org/x")["link"]["url"], "https://example.org/x");

    // The backup: a copy next to the document, holding the old content and structure.
    let backup = &written["backup"];
    let backup_id = backup["document_id"].as_str().unwrap_or_else(|| panic!("no backup in {written}"));
    assert_ne!(backup_id, id);
    assert!(backup["name"].as_str().unwrap().starts_with("Plan (backup "), "{backup}");
    assert_eq!(backup["url"], format!("https://docs.google.com/document/d/{backup_id}/edit"));
    assert_eq!(h.google.world().docs.plain_text(backup_id).unwrap(), old_text);
    assert_eq!(h.google.world().drive.get(backup_id).unwrap().parent.as_deref(), Some(folder.as_str()));
    let old = shape(&raw_doc(&h, backup_id).await);
    assert_eq!(old[0], ("Old plan".to_owned(), "HEADING_1".to_owned(), false));
    assert!(old[1].2 && old[2].2, "the backup keeps the bullets: {old:?}");
}

#[tokio::test]
async fn plain_text_takes_none_of_the_old_styles() {
    let h = Harness::new().await;
    let id = old_doc(&h).await;
    h.ok("write_doc_content", json!({"doc_id": id, "content": "first *line*\nsecond line", "content_format": "text"}))
        .await;
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "first *line*\nsecond line\n");
    let doc = raw_doc(&h, &id).await;
    assert_eq!(
        shape(&doc),
        vec![
            ("first *line*".to_owned(), "NORMAL_TEXT".to_owned(), false),
            ("second line".to_owned(), "NORMAL_TEXT".to_owned(), false),
        ]
    );
    for (text, style) in runs(&doc) {
        assert!(style.get("bold").is_none() && style.get("link").is_none(), "{text:?} kept {style}");
    }

    // Empty content empties the document to one empty paragraph.
    h.ok("write_doc_content", json!({"doc_id": id, "content": "", "content_format": "text", "allow_no_backup": true}))
        .await;
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "\n");
}

#[tokio::test]
async fn allow_no_backup_writes_without_a_copy() {
    let h = Harness::new().await;
    let id = old_doc(&h).await;
    let before = documents(&h);
    let written = h
        .ok(
            "write_doc_content",
            json!({"doc_id": id, "content": "Only this", "content_format": "markdown", "allow_no_backup": true}),
        )
        .await;
    assert_eq!(written["backup"], Value::Null);
    assert_eq!(documents(&h), before, "no copy was made");
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Only this\n");
}

#[tokio::test]
async fn without_a_backup_nothing_is_written_unless_allowed() {
    // A service account has no Drive storage, so it cannot copy the document it may edit.
    const ROBOT: &str = "robot@project.iam.gserviceaccount.com";
    let mut doc = None;
    let h = Harness::acting_as(Identity::service_account(ROBOT), |google, _| {
        let mut world = google.world();
        let id = world.create_document("Shared", "Keep me", &Identity::user(USER));
        world.drive.share_with(&id, ROBOT, "writer");
        doc = Some(id);
    })
    .await;
    let id = doc.unwrap();
    let before = documents(&h);

    let refused = h.err("write_doc_content", json!({"doc_id": id, "content": "New", "content_format": "text"})).await;
    assert!(refused.contains("Nothing was written"), "{refused}");
    assert!(refused.contains("backup copy") && refused.contains("storage quota"), "{refused}");
    assert!(refused.contains("allow_no_backup=true"), "{refused}");
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Keep me\n");
    assert_eq!(documents(&h), before);

    h.ok(
        "write_doc_content",
        json!({"doc_id": id, "content": "New", "content_format": "text", "allow_no_backup": true}),
    )
    .await;
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "New\n");
}

#[tokio::test]
async fn a_bad_format_changes_nothing() {
    let h = Harness::new().await;
    let id = old_doc(&h).await;
    let before = documents(&h);
    let message = h.err("write_doc_content", json!({"doc_id": id, "content": "x", "content_format": "rtf"})).await;
    assert!(message.contains("content_format \"rtf\""), "{message}");
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Old plan\nold item\nlast old item\n");
    assert_eq!(documents(&h), before, "no backup for a write that never happens");
}

#[tokio::test]
async fn files_become_documents_by_their_extension() {
    let h = Harness::new().await;
    write_export(&h, "Road map.md", "# Road map\n\n1. plan\n2. build\n");
    write_export(&h, "notes.txt", "keep *stars*\nas typed");

    let created = h.ok("create_doc_from_file", json!({"local_path": "Road map.md"})).await;
    let id = created["document_id"].as_str().unwrap();
    assert_eq!(created["title"], "Road map");
    assert_eq!(h.google.world().docs.title(id).as_deref(), Some("Road map"));
    let doc = raw_doc(&h, id).await;
    assert_eq!(
        shape(&doc),
        vec![
            ("Road map".to_owned(), "HEADING_1".to_owned(), false),
            ("plan".to_owned(), "NORMAL_TEXT".to_owned(), true),
            ("build".to_owned(), "NORMAL_TEXT".to_owned(), true),
        ]
    );

    let folder = h.google.world().drive.create_folder("Notes", None, &h.owner());
    let created = h
        .ok("create_doc_from_file", json!({"local_path": "notes.txt", "title": "My notes", "folder_id": folder}))
        .await;
    let id = created["document_id"].as_str().unwrap();
    assert_eq!(h.google.world().docs.title(id).as_deref(), Some("My notes"));
    assert_eq!(h.google.world().docs.plain_text(id).unwrap(), "keep *stars*\nas typed\n");
    assert_eq!(h.google.world().drive.get(id).unwrap().parent.as_deref(), Some(folder.as_str()));
}

#[tokio::test]
async fn a_file_replaces_a_documents_content_with_a_backup() {
    let h = Harness::new().await;
    let id = old_doc(&h).await;
    write_export(&h, "update.markdown", "# Updated\n\nDone **now**.");
    let written = h.ok("update_doc_from_file", json!({"doc_id": id, "local_path": "update.markdown"})).await;
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Updated\nDone now.\n");
    let doc = raw_doc(&h, &id).await;
    assert_eq!(shape(&doc)[0], ("Updated".to_owned(), "HEADING_1".to_owned(), false));
    assert_eq!(run_style(&doc, "now")["bold"], true);
    let backup = written["backup"]["document_id"].as_str().unwrap_or_else(|| panic!("no backup in {written}"));
    assert_eq!(h.google.world().docs.plain_text(backup).unwrap(), "Old plan\nold item\nlast old item\n");

    // content_format overrides the extension, and reads a file of any name.
    write_export(&h, "data.csv", "a,b\n**1**,2");
    h.ok(
        "update_doc_from_file",
        json!({"doc_id": id, "local_path": "data.csv", "content_format": "text", "allow_no_backup": true}),
    )
    .await;
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "a,b\n**1**,2\n");
}

#[tokio::test]
async fn bad_files_are_refused_with_what_to_do() {
    let h = Harness::new().await;
    let id = old_doc(&h).await;
    let before = documents(&h);

    let missing = h.err("create_doc_from_file", json!({"local_path": "nowhere.md"})).await;
    assert!(missing.contains("There is no file at") && missing.contains("nowhere.md"), "{missing}");
    let missing = h.err("update_doc_from_file", json!({"doc_id": id, "local_path": "nowhere.txt"})).await;
    assert!(missing.contains("There is no file at"), "{missing}");

    write_export(&h, "table.csv", "a,b");
    let unknown = h.err("create_doc_from_file", json!({"local_path": "table.csv"})).await;
    assert!(unknown.contains("can't tell the format") && unknown.contains(".md"), "{unknown}");
    let unknown = h.err("update_doc_from_file", json!({"doc_id": id, "local_path": "table.csv"})).await;
    assert!(unknown.contains("content_format"), "{unknown}");

    let outside = tempfile::tempdir().unwrap();
    let path = outside.path().join("secret.md");
    std::fs::write(&path, "# secret").unwrap();
    let refused = h.err("create_doc_from_file", json!({"local_path": path.to_str().unwrap()})).await;
    assert!(refused.contains("outside the folders Gatehouse may use"), "{refused}");
    let refused = h.err("update_doc_from_file", json!({"doc_id": id, "local_path": path.to_str().unwrap()})).await;
    assert!(refused.contains("outside the folders Gatehouse may use"), "{refused}");
    let climbing = h.err("update_doc_from_file", json!({"doc_id": id, "local_path": "../../secret.md"})).await;
    assert!(climbing.contains("outside the folders Gatehouse may use"), "{climbing}");

    assert_eq!(documents(&h), before, "nothing was created");
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Old plan\nold item\nlast old item\n");
}

#[tokio::test]
async fn html_is_the_default_format_for_content_and_html_files() {
    let h = Harness::new().await;
    let id = old_doc(&h).await;
    h.ok("write_doc_content", json!({"doc_id": id, "content": "<h2>Agenda</h2><p>Bring <b>notes</b></p>"})).await;
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Agenda\nBring notes\n");
    let doc = raw_doc(&h, &id).await;
    assert_eq!(shape(&doc)[0], ("Agenda".to_owned(), "HEADING_2".to_owned(), false));
    assert_eq!(run_style(&doc, "notes")["bold"], true);

    write_export(&h, "minutes.htm", "<h1>Minutes</h1><ul><li>one</li><li>two</li></ul>");
    h.ok("update_doc_from_file", json!({"doc_id": id, "local_path": "minutes.htm", "allow_no_backup": true})).await;
    let doc = raw_doc(&h, &id).await;
    assert_eq!(
        shape(&doc),
        vec![
            ("Minutes".to_owned(), "HEADING_1".to_owned(), false),
            ("one".to_owned(), "NORMAL_TEXT".to_owned(), true),
            ("two".to_owned(), "NORMAL_TEXT".to_owned(), true),
        ]
    );
    let created = h.ok("create_doc_from_file", json!({"local_path": "minutes.htm"})).await;
    let new_id = created["document_id"].as_str().unwrap();
    assert_eq!(created["title"], "minutes");
    assert_eq!(h.google.world().docs.plain_text(new_id).unwrap(), "Minutes\none\ntwo\n");
}
