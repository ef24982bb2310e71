//! The Slides v1 emulator over HTTP, as a client sees it: every exchange checked against Google's discovery
//! document (`Env`'s drop), the presentation one file of Drive's.

use crate::common;

use common::{BOB, Env};
use google_fake::Identity;
use serde_json::{Value, json};

impl Env {
    async fn create_presentation(&self, title: &str) -> Value {
        let (status, body) =
            self.send(self.http.post(self.url("v1/presentations")).json(&json!({ "title": title }))).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    async fn batch_slides(&self, id: &str, body: Value) -> (u16, Value) {
        self.send(self.http.post(self.url(&format!("v1/presentations/{id}:batchUpdate"))).json(&body)).await
    }

    async fn get_presentation(&self, id: &str) -> Value {
        let (status, body) = self.send(self.http.get(self.url(&format!("v1/presentations/{id}")))).await;
        assert_eq!(status, 200, "{body}");
        body
    }
}

/// Every shape's text (its runs joined) of every slide, slide by slide, as `presentations.get` shows it.
fn texts(presentation: &Value) -> Vec<Vec<String>> {
    presentation["slides"]
        .as_array()
        .expect("slides")
        .iter()
        .map(|slide| {
            slide["pageElements"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|element| {
                    element["shape"]["text"]["textElements"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|text| text["textRun"]["content"].as_str())
                        .collect()
                })
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn a_new_presentation_has_a_title_slide_and_is_a_drive_file() {
    let env = Env::new().await;
    let created = env.create_presentation("Quarterly review").await;
    let id = created["presentationId"].as_str().expect("an id");
    assert_eq!(created["title"], "Quarterly review");
    let slide = &created["slides"][0];
    assert_eq!(slide["pageType"], "SLIDE");
    let placeholders: Vec<&str> = slide["pageElements"]
        .as_array()
        .expect("elements")
        .iter()
        .filter_map(|element| element["shape"]["placeholder"]["type"].as_str())
        .collect();
    assert_eq!(placeholders, ["CENTERED_TITLE", "SUBTITLE"]);
    assert!(created["revisionId"].as_str().is_some_and(|r| !r.is_empty()));

    let file = env.get_as(&env.ada, &format!("/drive/v3/files/{id}"), &[("fields", "name,mimeType")]).await.json();
    assert_eq!(file["mimeType"], "application/vnd.google-apps.presentation");
    assert_eq!(file["name"], "Quarterly review");
}

#[tokio::test]
async fn a_batch_makes_slides_and_shapes_writes_and_replaces_text_and_drive_exports_it() {
    let env = Env::new().await;
    let created = env.create_presentation("Deck").await;
    let id = created["presentationId"].as_str().expect("an id").to_owned();
    let requests = json!([
        { "createSlide": {
            "objectId": "agenda_slide",
            "slideLayoutReference": { "predefinedLayout": "TITLE_AND_BODY" },
            "placeholderIdMappings": [
                { "layoutPlaceholder": { "type": "TITLE" }, "objectId": "agenda_title" },
                { "layoutPlaceholder": { "type": "BODY" }, "objectId": "agenda_body" }
            ]
        } },
        { "insertText": { "objectId": "agenda_title", "text": "Agenda" } },
        { "insertText": { "objectId": "agenda_body", "text": "Budget\nHiring" } },
        { "createShape": {
            "objectId": "note_box",
            "shapeType": "TEXT_BOX",
            "elementProperties": {
                "pageObjectId": "agenda_slide",
                "size": { "width": { "magnitude": 3000000, "unit": "EMU" }, "height": { "magnitude": 500000, "unit": "EMU" } },
                "transform": { "scaleX": 1, "scaleY": 1, "translateX": 100000, "translateY": 200000, "unit": "EMU" }
            }
        } },
        { "insertText": { "objectId": "note_box", "text": "Draft budget" } },
        { "replaceAllText": { "containsText": { "text": "budget", "matchCase": false }, "replaceText": "plan" } }
    ]);
    let (status, answer) = env.batch_slides(&id, json!({ "requests": requests })).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["replies"][0]["createSlide"]["objectId"], "agenda_slide");
    assert_eq!(answer["replies"][3]["createShape"]["objectId"], "note_box");
    assert_eq!(answer["replies"][5]["replaceAllText"]["occurrencesChanged"], 2);

    let presentation = env.get_presentation(&id).await;
    assert_eq!(texts(&presentation)[1], ["Agenda\n", "plan\nHiring\n", "Draft plan\n"]);
    let body = &presentation["slides"][1]["pageElements"][1]["shape"]["text"]["textElements"];
    assert_eq!(body[2]["startIndex"], 5, "the second paragraph starts after \"plan\\n\" (UTF-16 units)");

    let exported = env.get_as(&env.ada, &format!("/drive/v3/files/{id}/export"), &[("mimeType", "text/plain")]).await;
    assert_eq!(String::from_utf8_lossy(&exported.bytes), "Agenda\nplan\nHiring\nDraft plan\n");

    // Only the revision a client read may be written against.
    let stale = json!({ "requests": [{ "deleteObject": { "objectId": "note_box" } }], "writeControl": { "requiredRevisionId": created["revisionId"] } });
    let (status, refused) = env.batch_slides(&id, stale).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"]["status"], "FAILED_PRECONDITION");
}

#[tokio::test]
async fn a_failing_request_leaves_the_whole_batch_unapplied_and_says_which() {
    let env = Env::new().await;
    let created = env.create_presentation("Deck").await;
    let id = created["presentationId"].as_str().expect("an id").to_owned();
    let title = created["slides"][0]["pageElements"][0]["objectId"].as_str().expect("a title").to_owned();
    let requests = json!([
        { "insertText": { "objectId": title, "text": "Kept?" } },
        { "deleteObject": { "objectId": "no_such_object" } }
    ]);
    let (status, refused) = env.batch_slides(&id, json!({ "requests": requests })).await;
    assert_eq!(status, 400, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("requests[1].deleteObject") && message.contains("no_such_object"), "{message}");
    assert_eq!(texts(&env.get_presentation(&id).await), [["", ""]], "nothing applied");

    let (status, _) =
        env.batch_slides(&id, json!({ "requests": [{ "createSlide": { "objectId": "taken_id" } }] })).await;
    assert_eq!(status, 200);
    for (request, words) in [
        (json!({ "createSlide": { "objectId": "bad id!" } }), "5 to 50 characters"),
        (json!({ "createSlide": { "objectId": "taken_id" } }), "unique"),
        (json!({ "insertText": { "objectId": title, "text": "x", "insertionIndex": 9 } }), "insertion index"),
    ] {
        let (status, refused) = env.batch_slides(&id, json!({ "requests": [request] })).await;
        assert_eq!(status, 400, "{refused}");
        assert!(refused["error"]["message"].as_str().is_some_and(|m| m.contains(words)), "{refused}");
    }
    let (status, unknown) = env
        .batch_slides(&id, json!({ "requests": [{ "createTable": { "rows": 2, "columns": 2, "elementProperties": { "pageObjectId": "p" } } }] }))
        .await;
    assert_eq!(status, 501, "an unemulated kind says so: {unknown}");
}

#[tokio::test]
async fn slides_move_and_a_page_is_read_alone_with_a_field_mask() {
    let env = Env::new().await;
    let created = env.create_presentation("Deck").await;
    let id = created["presentationId"].as_str().expect("an id").to_owned();
    let requests = json!([
        { "createSlide": { "objectId": "slide_two", "slideLayoutReference": { "predefinedLayout": "BLANK" } } },
        { "createSlide": { "objectId": "slide_three", "slideLayoutReference": { "predefinedLayout": "TITLE_ONLY" } } },
        { "updateSlidesPosition": { "slideObjectIds": ["slide_three"], "insertionIndex": 0 } }
    ]);
    let (status, answer) = env.batch_slides(&id, json!({ "requests": requests })).await;
    assert_eq!(status, 200, "{answer}");
    let order: Vec<String> = env.get_presentation(&id).await["slides"]
        .as_array()
        .expect("slides")
        .iter()
        .map(|slide| slide["objectId"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(order, ["slide_three", "p", "slide_two"]);

    let page = env
        .get_as(&env.ada, &format!("/v1/presentations/{id}/pages/slide_three"), &[("fields", "objectId,pageType")])
        .await
        .json();
    assert_eq!(page, json!({ "objectId": "slide_three", "pageType": "SLIDE" }));
    let missing = env.get_as(&env.ada, &format!("/v1/presentations/{id}/pages/nope"), &[]).await;
    assert_eq!(missing.status, 404);
}

#[tokio::test]
async fn access_follows_the_drive_role_and_drive_copies_carry_the_slides() {
    let env = Env::new().await;
    let created = env.create_presentation("Private deck").await;
    let id = created["presentationId"].as_str().expect("an id").to_owned();
    let bob = env.google.issue_token(Identity::user(BOB));
    let read = env.get_as(&bob, &format!("/v1/presentations/{id}"), &[]).await;
    assert_eq!(read.status, 403, "Bob has no role on Ada's file");

    let copy = env
        .fetch(&env.ada, env.http.post(env.url(&format!("/drive/v3/files/{id}/copy"))).json(&json!({ "name": "Copy" })))
        .await
        .json();
    let copy_id = copy["id"].as_str().expect("a copy").to_owned();
    let copied = env.get_presentation(&copy_id).await;
    assert_eq!(copied["title"], "Copy");
    assert_eq!(copied["slides"].as_array().map(Vec::len), Some(1));
}
