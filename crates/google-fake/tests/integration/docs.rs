//! The Docs v1 emulator over HTTP, as a client sees it.

use crate::common;

use common::{ADA, BOB, Env, json_of, sandbox};
use google_fake::Identity;
use serde_json::{Value, json};

impl Env {
    async fn create_doc(&self, title: &str) -> (String, Value) {
        let (status, body) = self.send(self.http.post(self.url("v1/documents")).json(&json!({ "title": title }))).await;
        assert_eq!(status, 200, "{body}");
        (body["documentId"].as_str().expect("id").to_owned(), body)
    }

    async fn get_doc(&self, id: &str) -> Value {
        let (status, body) = self.send(self.http.get(self.url(&format!("v1/documents/{id}")))).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    async fn batch_doc(&self, id: &str, body: Value) -> (u16, Value) {
        self.send(self.http.post(self.url(&format!("v1/documents/{id}:batchUpdate"))).json(&body)).await
    }

    async fn apply(&self, id: &str, requests: Value) -> Value {
        let (status, body) = self.batch_doc(id, json!({ "requests": requests })).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    async fn text(&self, id: &str) -> String {
        self.google.world().docs.plain_text(id).expect("document exists")
    }
}

/// The body's paragraphs as (startIndex, endIndex, text).
fn paragraphs(doc: &Value) -> Vec<(u64, u64, String)> {
    doc["body"]["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter(|e| e.get("paragraph").is_some())
        .map(|e| {
            let text = e["paragraph"]["elements"]
                .as_array()
                .expect("elements")
                .iter()
                .map(|el| el["textRun"]["content"].as_str().unwrap_or(""))
                .collect();
            (e["startIndex"].as_u64().unwrap_or(0), e["endIndex"].as_u64().unwrap_or(0), text)
        })
        .collect()
}

#[tokio::test]
async fn create_returns_an_empty_document_registered_in_drive() {
    let env = Env::new().await;
    let (id, doc) = env.create_doc("Minutes").await;
    assert_eq!(doc["title"], "Minutes");
    assert!(doc["revisionId"].as_str().is_some_and(|r| !r.is_empty()));
    let content = doc["body"]["content"].as_array().expect("content");
    assert_eq!(content.len(), 2);
    // The section break starts at 0, so proto3 omits its startIndex.
    assert!(content[0].get("startIndex").is_none());
    assert_eq!(content[0]["endIndex"], 1);
    assert!(content[0]["sectionBreak"].is_object());
    assert_eq!(content[1]["startIndex"], 1);
    assert_eq!(content[1]["endIndex"], 2);
    assert_eq!(
        content[1]["paragraph"]["elements"],
        json!([{ "startIndex": 1, "endIndex": 2, "textRun": { "content": "\n", "textStyle": {} } }])
    );
    assert_eq!(content[1]["paragraph"]["paragraphStyle"]["namedStyleType"], "NORMAL_TEXT");
    assert!(doc.get("lists").is_none());

    let (status, file) = env.send(env.http.get(env.url(&format!("drive/v3/files/{id}?fields=name,mimeType")))).await;
    assert_eq!(status, 200, "{file}");
    assert_eq!(file["mimeType"], "application/vnd.google-apps.document");
    assert_eq!(file["name"], "Minutes");
}

#[tokio::test]
async fn errors_have_google_shapes() {
    let env = Env::new().await;
    let (id, _) = env.create_doc("Errors").await;
    let response = env.http.get(env.url(&format!("v1/documents/{id}"))).send().await.expect("sent");
    assert_eq!(response.status().as_u16(), 401);

    let (status, body) = env.send(env.http.get(env.url("v1/documents/missing"))).await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["message"], "Requested entity was not found.");

    let (status, body) = env
        .batch_doc(&id, json!({ "requests": [{ "insertText": { "location": { "index": 5 }, "text": "x" } }] }))
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        "Invalid requests[0].insertText: Index 5 must be less than the end index of the referenced segment, 2."
    );

    let (status, body) = env.batch_doc(&id, json!({ "requests": [{ "insertTable": {} }, { "teleport": {} }] })).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        "Invalid JSON payload received. Unknown name \"teleport\" at 'requests[1]': Cannot find field."
    );
}

#[tokio::test]
async fn insert_and_delete_count_utf16_code_units() {
    let env = Env::new().await;
    let (id, _) = env.create_doc("Emoji").await;
    env.apply(&id, json!([{ "insertText": { "location": { "index": 1 }, "text": "a😀b" } }])).await;
    let doc = env.get_doc(&id).await;
    assert_eq!(paragraphs(&doc), vec![(1, 6, "a😀b\n".to_owned())]);

    // Index 3 falls between the emoji's two code units.
    let (status, body) = env
        .batch_doc(&id, json!({ "requests": [{ "insertText": { "location": { "index": 3 }, "text": "x" } }] }))
        .await;
    assert_eq!(status, 400, "{body}");

    env.apply(
        &id,
        json!([
            { "insertText": { "location": { "index": 4 }, "text": "\nsecond " } },
            { "insertText": { "endOfSegmentLocation": {}, "text": " end" } }
        ]),
    )
    .await;
    assert_eq!(env.text(&id).await, "a😀\nsecond b end\n");
    let doc = env.get_doc(&id).await;
    assert_eq!(paragraphs(&doc), vec![(1, 5, "a😀\n".to_owned()), (5, 18, "second b end\n".to_owned())]);

    // Deleting the emoji (two indexes) and the paragraph break merges the paragraphs.
    env.apply(&id, json!([{ "deleteContentRange": { "range": { "startIndex": 2, "endIndex": 5 } } }])).await;
    assert_eq!(env.text(&id).await, "asecond b end\n");

    let (status, body) = env
        .batch_doc(
            &id,
            json!({ "requests": [{ "deleteContentRange": { "range": { "startIndex": 1, "endIndex": 15 } } }] }),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        "Invalid requests[0].deleteContentRange: The range cannot include the newline character at the end of the segment."
    );
}

#[tokio::test]
async fn replace_all_text_reports_occurrences() {
    let env = Env::new().await;
    let (id, _) = env.create_doc("Replace").await;
    env.apply(&id, json!([{ "insertText": { "location": { "index": 1 }, "text": "Hello {name}, {NAME}!" } }])).await;
    let body = env
        .apply(
            &id,
            json!([
                { "replaceAllText": { "containsText": { "text": "{name}", "matchCase": true }, "replaceText": "Ada" } },
                { "replaceAllText": { "containsText": { "text": "{name}" }, "replaceText": "Lovelace" } },
                { "replaceAllText": { "containsText": { "text": "absent" }, "replaceText": "x" } },
                { "insertText": { "location": { "index": 1 }, "text": ">" } }
            ]),
        )
        .await;
    assert_eq!(
        body["replies"],
        json!([{ "replaceAllText": { "occurrencesChanged": 1 } }, { "replaceAllText": { "occurrencesChanged": 1 } }, { "replaceAllText": {} }, {}])
    );
    assert_eq!(env.text(&id).await, ">Hello Ada, Lovelace!\n");
    assert_eq!(body["documentId"], id);
}

#[tokio::test]
async fn text_and_paragraph_styles() {
    let env = Env::new().await;
    let (id, _) = env.create_doc("Styles").await;
    env.apply(&id, json!([{ "insertText": { "location": { "index": 1 }, "text": "Title\nBody text" } }])).await;
    env.apply(
        &id,
        json!([
            { "updateParagraphStyle": { "range": { "startIndex": 1, "endIndex": 2 }, "paragraphStyle": { "namedStyleType": "HEADING_1" }, "fields": "namedStyleType" } },
            { "updateTextStyle": { "range": { "startIndex": 7, "endIndex": 11 }, "textStyle": { "bold": true, "link": { "url": "https://example.com" }, "fontSize": { "magnitude": 14, "unit": "PT" } }, "fields": "bold,link,fontSize" } },
            { "updateTextStyle": { "range": { "startIndex": 8, "endIndex": 9 }, "textStyle": {}, "fields": "bold" } }
        ]),
    )
    .await;
    let doc = env.get_doc(&id).await;
    let content = &doc["body"]["content"];
    let heading = &content[1]["paragraph"]["paragraphStyle"];
    assert_eq!(heading["namedStyleType"], "HEADING_1");
    assert!(heading["headingId"].as_str().is_some_and(|h| h.starts_with("h.")));
    let runs = content[2]["paragraph"]["elements"].as_array().expect("runs");
    let contents: Vec<&str> = runs.iter().map(|r| r["textRun"]["content"].as_str().unwrap_or("")).collect();
    assert_eq!(contents, vec!["B", "o", "dy", " text\n"]);
    assert_eq!(runs[0]["startIndex"], 7);
    assert_eq!(
        runs[0]["textRun"]["textStyle"],
        json!({ "bold": true, "link": { "url": "https://example.com" }, "fontSize": { "magnitude": 14, "unit": "PT" } })
    );
    // Clearing bold leaves no `bold: false` behind (proto3).
    assert_eq!(
        runs[1]["textRun"]["textStyle"],
        json!({ "link": { "url": "https://example.com" }, "fontSize": { "magnitude": 14, "unit": "PT" } })
    );
    assert_eq!(runs[3]["textRun"]["textStyle"], json!({}));

    let (status, body) = env
        .batch_doc(&id, json!({ "requests": [{ "updateTextStyle": { "range": { "startIndex": 1, "endIndex": 2 }, "textStyle": { "bold": true } } }] }))
        .await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test]
async fn bullets_take_nesting_from_leading_tabs() {
    let env = Env::new().await;
    let (id, _) = env.create_doc("Lists").await;
    env.apply(&id, json!([{ "insertText": { "location": { "index": 1 }, "text": "One\n\tTwo\n\t\tThree\nAfter" } }]))
        .await;
    env.apply(
        &id,
        json!([{ "createParagraphBullets": { "range": { "startIndex": 1, "endIndex": 18 }, "bulletPreset": "NUMBERED_DECIMAL_ALPHA_ROMAN" } }]),
    )
    .await;
    assert_eq!(env.text(&id).await, "One\nTwo\nThree\nAfter\n");
    let doc = env.get_doc(&id).await;
    let content = doc["body"]["content"].as_array().expect("content");
    let list_id = content[1]["paragraph"]["bullet"]["listId"].as_str().expect("list id").to_owned();
    assert!(content[1]["paragraph"]["bullet"].get("nestingLevel").is_none());
    assert_eq!(content[2]["paragraph"]["bullet"]["nestingLevel"], 1);
    assert_eq!(content[3]["paragraph"]["bullet"]["nestingLevel"], 2);
    assert_eq!(content[3]["paragraph"]["bullet"]["listId"], list_id.as_str());
    assert!(content[4]["paragraph"].get("bullet").is_none());
    assert_eq!(paragraphs(&doc)[2], (9, 15, "Three\n".to_owned()));
    let levels = &doc["lists"][list_id.as_str()]["listProperties"]["nestingLevels"];
    assert_eq!(levels[0]["glyphType"], "DECIMAL");
    assert_eq!(levels[1]["glyphType"], "ALPHA");

    let exported = env.google.world().docs.export(&id, "text/plain").expect("text");
    assert_eq!(String::from_utf8_lossy(&exported), "\u{feff}1. One\r\n    1. Two\r\n        1. Three\r\nAfter");

    env.apply(&id, json!([{ "deleteParagraphBullets": { "range": { "startIndex": 1, "endIndex": 4 } } }])).await;
    let doc = env.get_doc(&id).await;
    assert!(doc["body"]["content"][1]["paragraph"].get("bullet").is_none());
}

#[tokio::test]
async fn write_control_and_revisions() {
    let env = Env::new().await;
    let (id, created) = env.create_doc("Revisions").await;
    let first = created["revisionId"].as_str().expect("revision").to_owned();
    let body = env
        .batch_doc(&id, json!({ "requests": [{ "insertText": { "location": { "index": 1 }, "text": "x" } }], "writeControl": { "requiredRevisionId": first } }))
        .await;
    assert_eq!(body.0, 200, "{}", body.1);
    let second = body.1["writeControl"]["requiredRevisionId"].as_str().expect("revision").to_owned();
    assert_ne!(first, second);
    assert_eq!(env.get_doc(&id).await["revisionId"], second.as_str());

    let (status, body) = env
        .batch_doc(&id, json!({ "requests": [{ "insertText": { "location": { "index": 1 }, "text": "y" } }], "writeControl": { "requiredRevisionId": first } }))
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(env.text(&id).await, "x\n");
}

#[tokio::test]
async fn page_breaks_tabs_and_exports() {
    let env = Env::new().await;
    let owner = Identity::user(ADA);
    let id = env.google.world().create_document("Seeded", "Intro\nMore", &owner);
    env.apply(
        &id,
        json!([
            { "insertPageBreak": { "location": { "index": 6 } } },
            { "updateParagraphStyle": { "range": { "startIndex": 1, "endIndex": 2 }, "paragraphStyle": { "namedStyleType": "TITLE" }, "fields": "namedStyleType" } },
            { "updateTextStyle": { "range": { "startIndex": 9, "endIndex": 13 }, "textStyle": { "italic": true }, "fields": "italic" } }
        ]),
    )
    .await;
    let (status, doc) = env.send(env.http.get(env.url(&format!("v1/documents/{id}?includeTabsContent=true")))).await;
    assert_eq!(status, 200, "{doc}");
    assert!(doc.get("body").is_none());
    let tab = &doc["tabs"][0];
    assert_eq!(tab["tabProperties"]["tabId"], "t.0");
    let content = &tab["documentTab"]["body"]["content"];
    assert_eq!(content[1]["paragraph"]["elements"][1]["pageBreak"], json!({ "textStyle": {} }));
    assert_eq!(content[1]["endIndex"], 8);

    let world = env.google.world();
    let markdown = String::from_utf8(world.docs.export(&id, "text/markdown").expect("md")).expect("utf-8");
    assert_eq!(markdown, "# Intro\n\n\n\n*More*\n");
    let html = String::from_utf8(world.docs.export(&id, "text/html").expect("html")).expect("utf-8");
    assert!(html.contains("<p class=\"title\"><span>Intro</span></p>"), "{html}");
    assert!(html.contains("<span style=\"font-style:italic\">More</span>"), "{html}");
    assert!(world.docs.export(&id, "application/pdf").is_none());
    assert_eq!(world.docs.title(&id).as_deref(), Some("Seeded"));
}

#[tokio::test]
async fn access_follows_the_callers_drive_role() {
    let env = Env::new().await;
    let (id, _) = env.create_doc("Ada's draft").await;
    let bob = env.google.issue_token(Identity::user(BOB));
    let get = || env.http.get(env.url(&format!("v1/documents/{id}")));
    let edit = || {
        env.http
            .post(env.url(&format!("v1/documents/{id}:batchUpdate")))
            .json(&json!({ "requests": [{ "insertText": { "location": { "index": 1 }, "text": "Bob " } }] }))
    };
    let denied = json!({ "error": { "code": 403, "message": "The caller does not have permission", "status": "PERMISSION_DENIED" } });

    let (status, body) = env.send_as(&bob, get()).await;
    assert_eq!((status, &body), (403, &denied));
    let (status, body) = env.send_as(&bob, edit()).await;
    assert_eq!((status, &body), (403, &denied));
    let (status, body) = env.send_as(&bob, env.http.get(env.url("v1/documents/no-such-document"))).await;
    assert_eq!(status, 404, "{body}");

    for role in ["reader", "commenter"] {
        env.google.world().drive.share_with(&id, BOB, role);
        let (status, body) = env.send_as(&bob, get()).await;
        assert_eq!(status, 200, "{role}: {body}");
        assert_eq!(body["title"], "Ada's draft");
        let (status, body) = env.send_as(&bob, edit()).await;
        assert_eq!((status, &body), (403, &denied), "{role}");
    }
    assert_eq!(env.text(&id).await, "\n", "refused edits change nothing");

    env.google.world().drive.share_with(&id, BOB, "writer");
    let (status, body) = env.send_as(&bob, edit()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(env.text(&id).await, "Bob \n");
    let world = env.google.world();
    let file = world.drive.get(&id).expect("drive file");
    assert_eq!(file.last_modifying_user.as_deref(), Some(BOB));
}

#[tokio::test]
async fn titles_follow_renames_both_ways() {
    let env = Env::new().await;
    let (id, _) = env.create_doc("Before").await;
    let (status, body) = env
        .send(env.http.patch(env.url(&format!("drive/v3/files/{id}"))).json(&json!({ "name": "Renamed in Drive" })))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(env.get_doc(&id).await["title"], "Renamed in Drive");
}

#[tokio::test]
async fn sandbox_documents_have_structure() {
    let (google, token) = sandbox().await;
    let ids: Vec<(String, String)> = {
        let world = google.world();
        world
            .drive
            .ids()
            .into_iter()
            .filter_map(|id| {
                let file = world.drive.get(&id)?;
                (file.mime_type == "application/vnd.google-apps.document").then(|| (file.name.clone(), id.clone()))
            })
            .collect()
    };
    let mut names: Vec<&str> = ids.iter().map(|(name, _)| name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["Meeting notes", "Project plan"]);
    for (name, id) in &ids {
        let doc = json_of(&token, reqwest::Client::new().get(format!("{}/v1/documents/{id}", google.url()))).await;
        let content = doc["body"]["content"].as_array().expect("content");
        let paragraphs: Vec<&Value> = content.iter().filter_map(|e| e.get("paragraph")).collect();
        let styled = |named: &str| paragraphs.iter().filter(|p| p["paragraphStyle"]["namedStyleType"] == named).count();
        assert_eq!(styled("HEADING_1"), 1, "{name}");
        assert!(styled("HEADING_2") >= 2, "{name}");
        let headings = paragraphs.iter().filter(|p| p["paragraphStyle"]["headingId"].is_string()).count();
        assert_eq!(headings, styled("HEADING_1") + styled("HEADING_2"), "{name}");
        // A bulleted and a numbered list, both rendered from the document's lists.
        let list_ids: std::collections::BTreeSet<&str> =
            paragraphs.iter().filter_map(|p| p["bullet"]["listId"].as_str()).collect();
        let glyphs: std::collections::BTreeSet<&str> = list_ids
            .iter()
            .map(|list| {
                let level = &doc["lists"][*list]["listProperties"]["nestingLevels"][0];
                if level["glyphType"] == "DECIMAL" {
                    "numbered"
                } else {
                    assert_eq!(level["glyphSymbol"], "●", "{name}");
                    "bulleted"
                }
            })
            .collect();
        assert_eq!(glyphs, ["bulleted", "numbered"].into(), "{name}");
        let runs: Vec<&Value> = paragraphs
            .iter()
            .flat_map(|p| p["elements"].as_array().into_iter().flatten())
            .map(|e| &e["textRun"])
            .collect();
        assert!(runs.iter().any(|r| r["textStyle"]["bold"] == true), "{name} has bold text");
        let link = runs.iter().find(|r| r["textStyle"]["link"]["url"].is_string()).expect("a link");
        assert_eq!(link["content"], "Budget 2026", "{name}");
        assert_eq!(link["textStyle"]["underline"], true);
    }
}
