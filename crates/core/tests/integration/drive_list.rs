//! Drive listings and searches against the emulator: folders, trash, DRIVE_FOLDER_ID, paging past
//! max_results, `q` escaping, shared drives and files shared with the user.

use crate::drive_common;
use crate::support;

use drive_common::{BOB, names, with_default_folder};
use google_fake::Identity;
use serde_json::json;
use support::{Harness, USER};

const SHEET: &str = "application/vnd.google-apps.spreadsheet";

#[tokio::test]
async fn list_spreadsheets_sees_spreadsheets_only_and_not_the_trash() {
    let h = Harness::new().await;
    let owner = h.owner();
    let (folder, in_folder, trashed) = {
        let mut world = h.google.world();
        let folder = world.drive.create_folder("Finance", None, &owner);
        world.create_spreadsheet("Top", &[], &owner);
        let in_folder = world.create_spreadsheet("Budget 2025", &[], &owner);
        world.drive.set_parent(&in_folder, &folder);
        let trashed = world.create_spreadsheet("Old budget", &[], &owner);
        world.drive.get_mut(&trashed).unwrap().explicitly_trashed = true;
        world.drive.create_blob("notes.txt", "text/plain", b"hi".to_vec(), None, &owner);
        (folder, in_folder, trashed)
    };
    let all = h.ok("list_spreadsheets", json!({})).await;
    let mut listed = names(&all, "spreadsheets");
    listed.sort();
    assert_eq!(listed, ["Budget 2025", "Top"]);
    assert!(all.get("more_results").is_none(), "{all}");

    let only = h.ok("list_spreadsheets", json!({ "folder_id": folder })).await;
    assert_eq!(names(&only, "spreadsheets"), ["Budget 2025"]);
    assert_eq!(only["spreadsheets"][0]["id"], json!(in_folder));
    assert!(only["spreadsheets"][0]["url"].as_str().unwrap().contains(&in_folder));
    assert_eq!(only["spreadsheets"][0]["owner"], json!(USER));
    assert!(!all.to_string().contains(&trashed));
}

#[tokio::test]
async fn list_spreadsheets_defaults_to_drive_folder_id() {
    let (h, folder) = with_default_folder().await;
    {
        let mut world = h.google.world();
        world.create_spreadsheet("Elsewhere", &[], &h.owner());
        let inside = world.create_spreadsheet("Inside", &[], &h.owner());
        world.drive.set_parent(&inside, &folder);
    }
    let result = h.ok("list_spreadsheets", json!({})).await;
    assert_eq!(names(&result, "spreadsheets"), ["Inside"]);
}

#[tokio::test]
async fn a_cut_listing_says_more_exists_and_asks_only_for_what_it_needs() {
    let h = Harness::new().await;
    for name in ["a", "b", "c"] {
        h.google.world().create_spreadsheet(name, &[], &h.owner());
    }
    let result = h.ok("list_spreadsheets", json!({ "max_results": 2 })).await;
    assert_eq!(result["count"], json!(2));
    assert_eq!(result["more_results"], json!(true));
    assert!(result["note"].as_str().unwrap().contains("max_results"), "{result}");
    let message = h.err("list_spreadsheets", json!({ "max_results": 0 })).await;
    assert!(message.contains("max_results"), "{message}");
}

#[tokio::test]
async fn more_than_one_drive_page_is_gathered_up_to_max_results() {
    let h = Harness::new().await;
    let folder = {
        let mut world = h.google.world();
        let folder = world.drive.create_folder("Many", None, &h.owner());
        for i in 0..1005 {
            world.drive.create_blob(&format!("f{i:04}.txt"), "text/plain", Vec::new(), Some(&folder), &h.owner());
        }
        world.requests.clear();
        folder
    };
    let result = h.ok("list_files", json!({ "folder_id": folder, "max_results": 1003 })).await;
    assert_eq!(result["count"], json!(1003));
    assert_eq!(result["files"][1002]["name"], json!("f1002.txt"));
    assert_eq!(result["more_results"], json!(true));
    assert_eq!(h.google.world().count_requests("/drive/v3/files"), 2, "one page of 1000, one of 3");

    let rest = h.ok("list_files", json!({ "folder_id": folder, "max_results": 2000 })).await;
    assert_eq!(rest["count"], json!(1005));
    assert!(rest.get("more_results").is_none());
}

#[tokio::test]
async fn a_name_that_looks_like_a_query_is_searched_as_a_name() {
    let h = Harness::new().await;
    let evil = "x' or name contains '";
    let (sheet, blob) = {
        let mut world = h.google.world();
        world.create_spreadsheet("Budget", &[], &h.owner());
        let sheet = world.create_spreadsheet(evil, &[], &h.owner());
        world.drive.create_blob("Budget.txt", "text/plain", b"numbers".to_vec(), None, &h.owner());
        let blob = world.drive.create_blob(evil, "text/plain", b"other".to_vec(), None, &h.owner());
        (sheet, blob)
    };
    let found = h.ok("search_spreadsheets", json!({ "query": evil })).await;
    assert_eq!(found["count"], json!(1), "{found}");
    assert_eq!(found["spreadsheets"][0]["id"], json!(sheet));

    let found = h.ok("search_files", json!({ "query": evil, "mime_type": "text/plain" })).await;
    assert_eq!(found["count"], json!(1), "{found}");
    assert_eq!(found["files"][0]["id"], json!(blob));

    let backslash = h.ok("search_files", json!({ "query": "a\\' or trashed = true or name contains \\'" })).await;
    assert_eq!(backslash["count"], json!(0), "{backslash}");
}

#[tokio::test]
async fn search_spreadsheets_matches_names_and_skips_other_types() {
    let h = Harness::new().await;
    {
        let mut world = h.google.world();
        world.create_spreadsheet("Sales report", &[], &h.owner());
        world.create_spreadsheet("Inventory", &[], &h.owner());
        world.drive.create_blob("Sales notes.txt", "text/plain", Vec::new(), None, &h.owner());
    }
    let found = h.ok("search_spreadsheets", json!({ "query": "sales" })).await;
    assert_eq!(names(&found, "spreadsheets"), ["Sales report"]);
}

#[tokio::test]
async fn list_folders_lists_one_level_sorted_by_name() {
    let h = Harness::new().await;
    let (projects, zeta) = {
        let mut world = h.google.world();
        let zeta = world.drive.create_folder("Zeta", None, &h.owner());
        let projects = world.drive.create_folder("Projects", None, &h.owner());
        world.drive.create_folder("Nested", Some(&projects), &h.owner());
        world.drive.create_blob("file.txt", "text/plain", Vec::new(), None, &h.owner());
        (projects, zeta)
    };
    let top = h.ok("list_folders", json!({})).await;
    assert_eq!(names(&top, "folders"), ["Projects", "Zeta"]);
    assert_eq!(top["folders"][1]["id"], json!(zeta));
    let inside = h.ok("list_folders", json!({ "parent_folder_id": projects })).await;
    assert_eq!(names(&inside, "folders"), ["Nested"]);
}

/// As in the reference server: without parent_folder_id it is the top of My Drive, even with
/// DRIVE_FOLDER_ID set (only the tools that create something use the default folder).
#[tokio::test]
async fn list_folders_without_a_parent_lists_my_drive_even_with_a_default_folder() {
    let (h, default) = with_default_folder().await;
    h.google.world().drive.create_folder("Inside", Some(&default), &h.owner());
    let top = h.ok("list_folders", json!({})).await;
    assert_eq!(names(&top, "folders"), ["Default"]);
    assert_eq!(top["parent_folder_id"], json!("root"));
}

#[tokio::test]
async fn list_files_lists_a_folder_folders_first_with_a_type_filter() {
    let h = Harness::new().await;
    let folder = {
        let mut world = h.google.world();
        let folder = world.drive.create_folder("Work", None, &h.owner());
        world.drive.create_blob("b.txt", "text/plain", b"12345".to_vec(), Some(&folder), &h.owner());
        world.drive.create_folder("Sub", Some(&folder), &h.owner());
        let sheet = world.create_spreadsheet("a sheet", &[], &h.owner());
        world.drive.set_parent(&sheet, &folder);
        let gone = world.drive.create_blob("gone.txt", "text/plain", Vec::new(), Some(&folder), &h.owner());
        world.drive.get_mut(&gone).unwrap().explicitly_trashed = true;
        world.drive.create_blob("outside.txt", "text/plain", Vec::new(), None, &h.owner());
        folder
    };
    let all = h.ok("list_files", json!({ "folder_id": folder })).await;
    assert_eq!(names(&all, "files"), ["Sub", "a sheet", "b.txt"]);
    let blob = &all["files"][2];
    assert_eq!(blob["size"], json!(5));
    assert_eq!(blob["folder_id"], json!(folder));
    assert_eq!(blob["mime_type"], json!("text/plain"));
    let sheets = h.ok("list_files", json!({ "folder_id": folder, "mime_type": "spreadsheet" })).await;
    assert_eq!(names(&sheets, "files"), ["a sheet"]);
    assert_eq!(sheets["files"][0]["mime_type"], json!(SHEET));
    let message = h.err("list_files", json!({ "folder_id": folder, "mime_type": "sheets of paper" })).await;
    assert!(message.contains("mime_type"), "{message}");
}

/// As in the reference server: without folder_id the search covers everything, even with DRIVE_FOLDER_ID set.
#[tokio::test]
async fn search_files_without_a_folder_searches_everywhere_even_with_a_default_folder() {
    let (h, default) = with_default_folder().await;
    {
        let mut world = h.google.world();
        world.drive.create_blob("in.txt", "text/plain", b"quarterly".to_vec(), Some(&default), &h.owner());
        world.drive.create_blob("out.txt", "text/plain", b"quarterly".to_vec(), None, &h.owner());
    }
    let found = h.ok("search_files", json!({ "query": "quarterly" })).await;
    let mut listed = names(&found, "files");
    listed.sort();
    assert_eq!(listed, ["in.txt", "out.txt"]);
}

#[tokio::test]
async fn search_files_finds_content_and_respects_folder_and_type() {
    let h = Harness::new().await;
    let (folder, inside) = {
        let mut world = h.google.world();
        let folder = world.drive.create_folder("Reports", None, &h.owner());
        let inside = world.drive.create_blob(
            "q3.txt",
            "text/plain",
            b"the quarterly numbers".to_vec(),
            Some(&folder),
            &h.owner(),
        );
        world.drive.create_blob("q2.txt", "text/plain", b"quarterly too".to_vec(), None, &h.owner());
        world.drive.create_blob("cat.txt", "text/plain", b"meow".to_vec(), None, &h.owner());
        (folder, inside)
    };
    let found = h.ok("search_files", json!({ "query": "quarterly" })).await;
    let mut listed = names(&found, "files");
    listed.sort();
    assert_eq!(listed, ["q2.txt", "q3.txt"]);
    let scoped = h.ok("search_files", json!({ "query": "quarterly", "folder_id": folder })).await;
    assert_eq!(scoped["files"][0]["id"], json!(inside));
    assert_eq!(scoped["count"], json!(1));
    let none = h.ok("search_files", json!({ "query": "quarterly", "mime_type": "pdf" })).await;
    assert_eq!(none["count"], json!(0));
}

#[tokio::test]
async fn list_recent_files_is_newest_first_within_the_days() {
    let h = Harness::new().await;
    {
        let mut world = h.google.world();
        let old = world.drive.create_blob("old.txt", "text/plain", Vec::new(), None, &h.owner());
        world.drive.get_mut(&old).unwrap().modified_time = chrono::Utc::now() - chrono::Duration::days(30);
        let older = world.drive.create_blob("middle.txt", "text/plain", Vec::new(), None, &h.owner());
        world.drive.get_mut(&older).unwrap().modified_time = chrono::Utc::now() - chrono::Duration::days(2);
        world.drive.create_blob("new.txt", "text/plain", Vec::new(), None, &h.owner());
        world.drive.create_folder("A folder", None, &h.owner());
    }
    let recent = h.ok("list_recent_files", json!({ "days": 7 })).await;
    assert_eq!(names(&recent, "files"), ["new.txt", "middle.txt"]);
    let all = h.ok("list_recent_files", json!({})).await;
    assert_eq!(names(&all, "files"), ["new.txt", "middle.txt", "old.txt"]);
    let one = h.ok("list_recent_files", json!({ "max_results": 1 })).await;
    assert_eq!(names(&one, "files"), ["new.txt"]);
    assert_eq!(one["more_results"], json!(true));
}

#[tokio::test]
async fn list_shared_with_me_shows_others_files_shared_with_the_user() {
    let h = Harness::new().await;
    let bob = Identity::user(BOB);
    {
        let mut world = h.google.world();
        let shared = world.drive.create_blob("From Bob.txt", "text/plain", Vec::new(), None, &bob);
        world.drive.share_with(&shared, USER, "reader");
        let sheet = world.create_spreadsheet("Bob's sheet", &[], &bob);
        world.drive.share_with(&sheet, USER, "writer");
        world.drive.create_blob("Bob private.txt", "text/plain", Vec::new(), None, &bob);
        world.drive.create_blob("Mine.txt", "text/plain", Vec::new(), None, &h.owner());
    }
    let shared = h.ok("list_shared_with_me", json!({})).await;
    let mut listed = names(&shared, "files");
    listed.sort();
    assert_eq!(listed, ["Bob's sheet", "From Bob.txt"]);
    assert_eq!(shared["files"][0]["shared_by"], json!(BOB));
    assert_eq!(shared["files"][0]["owner"], json!(BOB));
    let sheets = h.ok("list_shared_with_me", json!({ "mime_type": SHEET })).await;
    assert_eq!(names(&sheets, "files"), ["Bob's sheet"]);
}

#[tokio::test]
async fn shared_drive_files_are_found_and_renamed() {
    let h = Harness::new().await;
    let file = {
        let mut world = h.google.world();
        let drive = world.drive.create_shared_drive("Team", &h.owner());
        world.drive.create_blob("Plan.txt", "text/plain", b"team plan".to_vec(), Some(&drive), &h.owner())
    };
    let found = h.ok("search_files", json!({ "query": "plan" })).await;
    assert_eq!(found["files"][0]["id"], json!(file), "{found}");
    let recent = h.ok("list_recent_files", json!({})).await;
    assert!(recent.to_string().contains(&file), "{recent}");
    h.ok("rename_file", json!({ "file_id": file, "new_name": "Plan v2.txt" })).await;
    assert_eq!(h.google.world().drive.get(&file).unwrap().name, "Plan v2.txt");
}

#[tokio::test]
async fn a_service_account_lists_its_shared_drive() {
    let sa = Identity::service_account(drive_common::SERVICE_ACCOUNT);
    let mut drive = String::new();
    let h = Harness::acting_as(sa.clone(), |google, _| {
        let mut world = google.world();
        drive = world.drive.create_shared_drive("Robots", &sa);
        world.drive.create_folder("Out", Some(&drive), &sa);
    })
    .await;
    let folders = h.ok("list_folders", json!({ "parent_folder_id": drive })).await;
    assert_eq!(names(&folders, "folders"), ["Out"]);
}
