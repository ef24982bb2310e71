//! `insert_inline_image` and `insert_local_images` against the emulator, which fetches each image from its
//! URI as Google does: the inline objects and their sizes in the document, and the Drive files' sharing
//! after the call, which never leaves an uploaded or given file readable by anyone with the link unless
//! asked (also when the insertion fails).

use crate::docs_common;
use crate::support;

use std::io::Cursor;

use docs_common::raw_doc;
use google_fake::Fault;
use image::{DynamicImage, ImageFormat, RgbImage, RgbaImage};
use serde_json::{Value, json};
use support::Harness;

fn encoded(image: DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut bytes = Vec::new();
    image.write_to(&mut Cursor::new(&mut bytes), format).unwrap();
    bytes
}

fn png(width: u32, height: u32) -> Vec<u8> {
    encoded(DynamicImage::ImageRgb8(RgbImage::new(width, height)), ImageFormat::Png)
}

fn jpeg(width: u32, height: u32) -> Vec<u8> {
    encoded(DynamicImage::ImageRgb8(RgbImage::new(width, height)), ImageFormat::Jpeg)
}

fn gif(width: u32, height: u32) -> Vec<u8> {
    encoded(DynamicImage::ImageRgba8(RgbaImage::new(width, height)), ImageFormat::Gif)
}

/// Serves `files` (path, bytes, type) on a loopback web server of their own: "the public web".
async fn serve(files: Vec<(&'static str, Vec<u8>, &'static str)>) -> String {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut app = axum::Router::new();
    for (path, bytes, mime) in files {
        app = app.route(
            path,
            axum::routing::get(move || {
                let bytes = bytes.clone();
                async move { ([(axum::http::header::CONTENT_TYPE, mime)], bytes) }
            }),
        );
    }
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// Writes `name` into the export folder, where relative local paths point.
fn write_export(h: &Harness, name: &str, bytes: &[u8]) {
    let exports = h.home.path().join("exports");
    std::fs::create_dir_all(&exports).unwrap();
    std::fs::write(exports.join(name), bytes).unwrap();
}

/// The inline images of the body, as (startIndex, inlineObjectId), in document order.
fn images_in(doc: &Value) -> Vec<(u64, String)> {
    docs_common::paragraphs(doc)
        .iter()
        .flat_map(|p| p["paragraph"]["elements"].as_array().unwrap().clone())
        .filter_map(|e| {
            let id = e["inlineObjectElement"]["inlineObjectId"].as_str()?.to_owned();
            Some((e["startIndex"].as_u64().unwrap(), id))
        })
        .collect()
}

/// An inline object's (width, height) in points, and its source URI.
fn object(doc: &Value, id: &str) -> ((f64, f64), String) {
    let embedded = &doc["inlineObjects"][id]["inlineObjectProperties"]["embeddedObject"];
    let size = &embedded["size"];
    assert_eq!(size["width"]["unit"], "PT");
    let size = (size["width"]["magnitude"].as_f64().unwrap(), size["height"]["magnitude"].as_f64().unwrap());
    (size, embedded["imageProperties"]["sourceUri"].as_str().unwrap().to_owned())
}

/// Whether anyone with the link may read the Drive file `id`.
fn link_readable(h: &Harness, id: &str) -> bool {
    h.google.world().drive.get(id).unwrap().permissions.iter().any(|p| p.grantee.as_str() == "anyone")
}

/// The files in Drive folder `folder`, as (id, name, type).
fn files_in(h: &Harness, folder: &str) -> Vec<(String, String, String)> {
    let world = h.google.world();
    world
        .drive
        .ids()
        .into_iter()
        .filter_map(|id| {
            let file = world.drive.get(&id)?;
            (file.parent.as_deref() == Some(folder)).then(|| (id.clone(), file.name.clone(), file.mime_type.clone()))
        })
        .collect()
}

/// POSTs `body` to the emulator as the harness user; returns (status, JSON answer).
async fn raw_post(h: &Harness, path: &str, body: Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}{path}", h.google.url()))
        .bearer_auth(h.google.issue_token(h.owner()))
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn an_image_from_a_url_is_placed_at_its_index_with_its_size() {
    let h = Harness::new().await;
    let site =
        serve(vec![("/chart.png", png(400, 200), "image/png"), ("/photo.jpg", jpeg(80, 60), "image/jpeg")]).await;
    let id = h.google.world().create_document("Report", "Hello world", &h.owner());

    let sized = h
        .ok("insert_inline_image", json!({"doc_id": id, "index": 6, "uri": format!("{site}/chart.png"), "width": 100}))
        .await;
    let natural =
        h.ok("insert_inline_image", json!({"doc_id": id, "index": 1, "uri": format!("{site}/photo.jpg")})).await;

    let doc = raw_doc(&h, &id).await;
    let natural_id = natural["object_id"].as_str().unwrap();
    let sized_id = sized["object_id"].as_str().unwrap();
    // The photo went in first in the text, so the chart (inserted at 6 before it) is now at 7.
    assert_eq!(images_in(&doc), [(1, natural_id.to_owned()), (7, sized_id.to_owned())]);
    assert_eq!(object(&doc, sized_id), ((100.0, 50.0), format!("{site}/chart.png")));
    // Without a size: 0.75 pt a pixel.
    assert_eq!(object(&doc, natural_id).0, (60.0, 45.0));
    assert_eq!(doc["inlineObjects"].as_object().unwrap().len(), 2);
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Hello world\n");
    assert_eq!(sized["index"], 6);
    assert!(sized.get("auto_downscale").is_none());
}

#[tokio::test]
async fn an_image_google_cannot_fetch_is_refused_and_nothing_changes() {
    let h = Harness::new().await;
    let site = serve(vec![("/notes.txt", b"not an image".to_vec(), "text/plain")]).await;
    let id = h.google.world().create_document("Report", "Hello", &h.owner());
    for uri in [format!("{site}/missing.png"), format!("{site}/notes.txt")] {
        let message = h.err("insert_inline_image", json!({"doc_id": id, "index": 1, "uri": uri})).await;
        assert!(message.contains("There was a problem retrieving the image"), "{message}");
    }
    assert!(raw_doc(&h, &id).await.get("inlineObjects").is_none());

    for (args, needle) in [
        (json!({"doc_id": id, "index": 1}), "Give the image: uri"),
        (json!({"doc_id": id, "index": 1, "uri": format!("{site}/a.png"), "drive_file_id": "F"}), "not both"),
        (json!({"doc_id": id, "index": 1, "uri": "file:///etc/passwd"}), "not an http or https URL"),
        (json!({"doc_id": id, "index": 0, "uri": format!("{site}/a.png")}), "index is 0"),
        (json!({"doc_id": id, "index": 1, "uri": format!("{site}/a.png"), "width": 0}), "width is 0"),
    ] {
        let message = h.err("insert_inline_image", args).await;
        assert!(message.contains(needle), "{needle} not in: {message}");
    }
}

#[tokio::test]
async fn the_emulator_fetches_a_drive_image_only_while_it_is_link_readable() {
    let h = Harness::new().await;
    let (doc, image) = {
        let mut world = h.google.world();
        let doc = world.create_document("Report", "Hello", &h.owner());
        (doc, world.drive.create_blob("logo.png", "image/png", png(40, 20), None, &h.owner()))
    };
    let link = format!("{}/uc?id={image}&export=download", h.google.url());
    let insert = json!({"requests": [{"insertInlineImage": {"location": {"index": 1}, "uri": link}}]});
    let (status, answer) = raw_post(&h, &format!("/v1/documents/{doc}:batchUpdate"), insert.clone()).await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("problem retrieving the image"), "{answer}");
    let anyone = json!({"type": "anyone", "role": "reader"});
    let (status, _) = raw_post(&h, &format!("/drive/v3/files/{image}/permissions"), anyone).await;
    assert_eq!(status, 200);
    let (status, answer) = raw_post(&h, &format!("/v1/documents/{doc}:batchUpdate"), insert).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(images_in(&raw_doc(&h, &doc).await).len(), 1);
}

#[tokio::test]
async fn a_drive_image_is_shared_by_link_only_for_the_insertion() {
    let h = Harness::new().await;
    let (doc, image, notes) = {
        let mut world = h.google.world();
        let doc = world.create_document("Report", "Hello world", &h.owner());
        let image = world.drive.create_blob("logo.png", "image/png", png(40, 20), None, &h.owner());
        let notes = world.drive.create_blob("notes.txt", "text/plain", b"hi".to_vec(), None, &h.owner());
        (doc, image, notes)
    };
    let result =
        h.ok("insert_inline_image", json!({"doc_id": doc, "index": 6, "drive_file_id": image, "height": 10})).await;
    let object_id = result["object_id"].as_str().unwrap();
    let raw = raw_doc(&h, &doc).await;
    assert_eq!(images_in(&raw), [(6, object_id.to_owned())]);
    let ((width, height), source) = object(&raw, object_id);
    assert_eq!((width, height), (20.0, 10.0));
    assert!(source.ends_with(&format!("/uc?id={image}&export=download")), "{source}");
    assert!(!link_readable(&h, &image), "the file must not stay shared");
    assert!(result["link_sharing"].as_str().unwrap().contains("removed"), "{result}");
    // The sharing was made and removed again through Drive's API.
    let requests = h.google.world().requests.clone();
    let permission_calls: Vec<&str> = requests
        .iter()
        .filter(|r| r.path.starts_with(&format!("/drive/v3/files/{image}/permissions")) && r.method != "GET")
        .map(|r| r.method.as_str())
        .collect();
    assert_eq!(permission_calls, ["POST", "DELETE"]);

    // Insertion failing: the sharing is removed all the same.
    h.google.inject(Fault::status(&format!("/v1/documents/{doc}:batchUpdate"), 400, 1).for_method("POST"));
    let message = h.err("insert_inline_image", json!({"doc_id": doc, "index": 1, "drive_file_id": image})).await;
    assert!(message.contains("Injected failure"), "{message}");
    assert!(!link_readable(&h, &image));
    assert_eq!(images_in(&raw_doc(&h, &doc).await).len(), 1);

    let message = h.err("insert_inline_image", json!({"doc_id": doc, "index": 1, "drive_file_id": notes})).await;
    assert!(message.contains("not a PNG, JPEG or GIF image"), "{message}");
    assert!(!link_readable(&h, &notes));
}

#[tokio::test]
async fn a_drive_image_already_shared_by_link_keeps_its_sharing() {
    let h = Harness::new().await;
    let (doc, image) = {
        let mut world = h.google.world();
        let doc = world.create_document("Report", "Hello", &h.owner());
        (doc, world.drive.create_blob("logo.png", "image/png", png(40, 20), None, &h.owner()))
    };
    let (status, _) =
        raw_post(&h, &format!("/drive/v3/files/{image}/permissions"), json!({"type": "anyone", "role": "reader"}))
            .await;
    assert_eq!(status, 200);
    let result = h.ok("insert_inline_image", json!({"doc_id": doc, "index": 1, "drive_file_id": image})).await;
    assert!(link_readable(&h, &image), "the person's own sharing is theirs to keep");
    assert!(result["link_sharing"].as_str().unwrap().contains("already readable"), "{result}");
    assert_eq!(images_in(&raw_doc(&h, &doc).await).len(), 1);
}

#[tokio::test]
async fn local_images_are_uploaded_inserted_in_one_update_and_unshared() {
    let h = Harness::new().await;
    let (doc, folder) = {
        let mut world = h.google.world();
        let doc = world.create_document("Report", "Hello world", &h.owner());
        (doc, world.drive.create_folder("Figures", None, &h.owner()))
    };
    write_export(&h, "chart.png", &png(400, 200));
    write_export(&h, "photo.jpg", &jpeg(80, 60));
    write_export(&h, "icon.gif", &gif(10, 10));
    let result = h
        .ok(
            "insert_local_images",
            json!({"doc_id": doc, "folder_id": folder, "images": [
                {"local_path": "chart.png", "index": 1, "width": 100},
                {"local_path": "photo.jpg", "index": 6},
                {"local_path": "icon.gif", "index": 6, "height": 20},
            ]}),
        )
        .await;
    let ids: Vec<String> =
        result["images"].as_array().unwrap().iter().map(|i| i["object_id"].as_str().unwrap().to_owned()).collect();
    let raw = raw_doc(&h, &doc).await;
    // Indexes are those of the document before the call; two images at one index keep their order.
    assert_eq!(images_in(&raw), [(1, ids[0].clone()), (7, ids[1].clone()), (8, ids[2].clone())]);
    assert_eq!(object(&raw, &ids[0]).0, (100.0, 50.0));
    assert_eq!(object(&raw, &ids[1]).0, (60.0, 45.0));
    assert_eq!(object(&raw, &ids[2]).0, (20.0, 20.0));
    assert_eq!(h.google.world().docs.plain_text(&doc).unwrap(), "Hello world\n");
    let batch_updates =
        h.google.world().requests.iter().filter(|r| r.path == format!("/v1/documents/{doc}:batchUpdate")).count();
    assert_eq!(batch_updates, 1);

    let uploaded = files_in(&h, &folder);
    let names: Vec<(&str, &str)> = uploaded.iter().map(|(_, n, m)| (n.as_str(), m.as_str())).collect();
    assert_eq!(names, [("chart.png", "image/png"), ("photo.jpg", "image/jpeg"), ("icon.gif", "image/gif")]);
    for (i, (file_id, _, _)) in uploaded.iter().enumerate() {
        assert_eq!(result["images"][i]["drive_file_id"], json!(file_id));
        assert!(!link_readable(&h, file_id), "{file_id} must not stay shared");
        assert!(object(&raw, &ids[i]).1.contains(&format!("/uc?id={file_id}")));
    }
    assert!(result["link_sharing"].as_str().unwrap().contains("private again"), "{result}");
}

#[tokio::test]
async fn with_revoke_sharing_false_the_files_stay_readable_by_link_and_the_result_says_so() {
    let h = Harness::new().await;
    let (doc, folder) = {
        let mut world = h.google.world();
        (world.create_document("Report", "Hello", &h.owner()), world.drive.create_folder("Figures", None, &h.owner()))
    };
    write_export(&h, "chart.png", &png(40, 20));
    let result = h
        .ok(
            "insert_local_images",
            json!({"doc_id": doc, "folder_id": folder, "revoke_sharing": false,
                   "images": [{"local_path": "chart.png", "index": 1}]}),
        )
        .await;
    let (file_id, _, _) = files_in(&h, &folder).remove(0);
    assert!(link_readable(&h, &file_id));
    let sharing = result["link_sharing"].as_str().unwrap();
    assert!(sharing.contains("stay readable by anyone with their link") && sharing.contains(&file_id), "{sharing}");
    assert_eq!(images_in(&raw_doc(&h, &doc).await).len(), 1);
}

#[tokio::test]
async fn a_failed_insertion_removes_the_sharing_of_every_uploaded_image() {
    let h = Harness::new().await;
    let (doc, folder) = {
        let mut world = h.google.world();
        (world.create_document("Report", "Hello", &h.owner()), world.drive.create_folder("Figures", None, &h.owner()))
    };
    write_export(&h, "a.png", &png(40, 20));
    write_export(&h, "b.jpg", &jpeg(40, 20));
    h.google.inject(Fault::status(&format!("/v1/documents/{doc}:batchUpdate"), 400, 2).for_method("POST"));
    // After a failure the sharing goes whatever revoke_sharing says: it served only the insertion.
    for revoke_sharing in [true, false] {
        let message = h
            .err(
                "insert_local_images",
                json!({"doc_id": doc, "folder_id": folder, "revoke_sharing": revoke_sharing,
                       "images": [{"local_path": "a.png", "index": 1}, {"local_path": "b.jpg", "index": 2}]}),
            )
            .await;
        assert!(message.contains("Injected failure") && message.contains("Nothing was inserted"), "{message}");
        assert!(message.contains("link sharing is removed"), "{message}");
    }
    let uploaded = files_in(&h, &folder);
    assert_eq!(uploaded.len(), 4);
    for (file_id, _, _) in &uploaded {
        assert!(!link_readable(&h, file_id), "{file_id} must not stay shared");
    }
    assert!(raw_doc(&h, &doc).await.get("inlineObjects").is_none());
}

#[tokio::test]
async fn an_image_over_googles_limits_is_refused_unless_auto_downscale() {
    let h = Harness::new().await;
    let doc = h.google.world().create_document("Report", "Hello", &h.owner());
    // 5100 × 5000 = 25.5 megapixels: over Google's 25.
    write_export(
        &h,
        "huge.png",
        &encoded(DynamicImage::ImageLuma8(image::GrayImage::new(5100, 5000)), ImageFormat::Png),
    );
    write_export(&h, "notes.png", b"not really a png");
    let args =
        |auto: bool| json!({"doc_id": doc, "auto_downscale": auto, "images": [{"local_path": "huge.png", "index": 1}]});
    let message = h.err("insert_local_images", args(false)).await;
    assert!(message.contains("5100×5000") && message.contains("Pass auto_downscale=true"), "{message}");
    let message =
        h.err("insert_local_images", json!({"doc_id": doc, "images": [{"local_path": "notes.png", "index": 1}]})).await;
    assert!(message.contains("not a PNG, JPEG or GIF image"), "{message}");
    let message = h
        .err("insert_local_images", json!({"doc_id": doc, "images": [{"local_path": "/etc/hostname", "index": 1}]}))
        .await;
    assert!(message.contains("/etc/hostname"), "{message}");
    assert!(h.google.world().drive.ids().iter().all(|id| id == &doc), "nothing was uploaded");

    let result = h.ok("insert_local_images", args(true)).await;
    let entry = &result["images"][0];
    assert_eq!(entry["downscaled_from"], "5100×5000");
    let (width, height) = entry["pixels"].as_str().unwrap().split_once('×').unwrap();
    let (width, height): (u64, u64) = (width.parse().unwrap(), height.parse().unwrap());
    assert!(width * height <= 25_000_000 && width > 5000, "{width}×{height}");
    let file_id = entry["drive_file_id"].as_str().unwrap();
    let stored = h.google.world().drive.get(file_id).unwrap().content.clone().unwrap();
    let pixels = image::ImageReader::new(Cursor::new(stored)).with_guessed_format().unwrap().into_dimensions().unwrap();
    assert_eq!((u64::from(pixels.0), u64::from(pixels.1)), (width, height));
    assert!(!link_readable(&h, file_id));
    let raw = raw_doc(&h, &doc).await;
    assert_eq!(images_in(&raw).len(), 1);
    // Too wide for the page: narrowed to its text width.
    assert_eq!(object(&raw, entry["object_id"].as_str().unwrap()).0.0, 468.0);
}
