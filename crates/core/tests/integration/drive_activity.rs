//! `list_file_activity` against the emulator: the activities the other Drive tools leave, and paging.

use crate::support;

use serde_json::{Value, json};
use support::Harness;

fn actions(result: &Value) -> Vec<String> {
    result["activities"].as_array().unwrap().iter().map(|a| a["action"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn renames_moves_and_trash_show_up_newest_first() {
    let h = Harness::new().await;
    let folder = h.google.world().drive.create_folder("Archive", None, &h.owner());
    let made = h.ok("upload_file", json!({ "name": "draft.txt", "content": "v1" })).await;
    let id = made["id"].as_str().unwrap();
    h.ok("rename_file", json!({ "file_id": id, "new_name": "final.txt" })).await;
    h.ok("move_file", json!({ "file_id": id, "destination_folder_id": folder })).await;
    h.ok("delete_file", json!({ "file_id": id })).await;

    let activity = h.ok("list_file_activity", json!({ "file_id": id })).await;
    assert_eq!(actions(&activity), ["delete", "move", "rename", "create"], "{activity}");
    let rename = &activity["activities"][2];
    assert_eq!(rename["detail"]["oldTitle"], json!("draft.txt"));
    assert_eq!(rename["detail"]["newTitle"], json!("final.txt"));
    assert_eq!(rename["actors"], json!(["you"]));
    assert_eq!(rename["targets"][0]["id"], json!(id));
    assert_eq!(rename["targets"][0]["title"], json!("final.txt"));
    assert!(rename["time"].as_str().unwrap().ends_with('Z'));
    assert_eq!(activity["activities"][0]["detail"]["type"], json!("TRASH"));
    assert!(activity.get("next_page_token").is_none());
}

#[tokio::test]
async fn activity_pages_with_page_token() {
    let h = Harness::new().await;
    let id = h.google.world().drive.create_blob("a.txt", "text/plain", Vec::new(), None, &h.owner());
    for name in ["b.txt", "c.txt", "d.txt"] {
        h.ok("rename_file", json!({ "file_id": id, "new_name": name })).await;
    }
    let first = h.ok("list_file_activity", json!({ "file_id": id, "page_size": 2 })).await;
    assert_eq!(first["activities"].as_array().unwrap().len(), 2);
    assert_eq!(first["activities"][0]["detail"]["newTitle"], json!("d.txt"));
    let token = first["next_page_token"].as_str().expect("a next page").to_owned();
    let second = h.ok("list_file_activity", json!({ "file_id": id, "page_size": 2, "page_token": token })).await;
    assert_eq!(second["activities"][0]["detail"]["newTitle"], json!("b.txt"));
    assert!(second.get("next_page_token").is_none(), "{second}");
    let message = h.err("list_file_activity", json!({ "file_id": id, "page_size": 0 })).await;
    assert!(message.contains("page_size"), "{message}");
}
