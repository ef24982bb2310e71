//! The previews of Drive deletes and sharing on an approval card (see [`crate::approval::preview`]): what
//! a delete removes (its name, size, how many items a folder holds, whether it goes to the trash or for
//! good) and who has access to a file before it is shared further. Attached to the declarations with
//! `.previewed`.

use super::{files, said, sharing};
use crate::approval::preview::{MAX_CELLS, Preview, cut};
use crate::drive_query::Query;
use crate::google::GoogleClient;
use crate::google::drive::{Corpora, ListRequest, mime};
use crate::tools::registry::PreviewRead;

/// How many of a folder's items a delete's preview counts before it says "more than".
const COUNTED: u32 = 100;

/// A size as a person reads it: "820 bytes", "1.2 MB".
fn size_words(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} bytes");
    }
    let mut size = bytes as f64 / 1000.0;
    let mut unit = 0;
    while size >= 1000.0 && unit + 1 < UNITS.len() {
        size /= 1000.0;
        unit += 1;
    }
    format!("{size:.1} {}", UNITS[unit])
}

/// What a file is, from its MIME type.
fn what(mime_type: &str) -> String {
    match mime_type {
        mime::FOLDER => "folder".to_owned(),
        mime::SPREADSHEET => "Google Sheets spreadsheet".to_owned(),
        mime::DOCUMENT => "Google Docs document".to_owned(),
        "application/pdf" => "PDF file".to_owned(),
        other if other.starts_with("application/vnd.google-apps.") => "Google file".to_owned(),
        _ => "file".to_owned(),
    }
}

fn unread(error: crate::google::GoogleError) -> String {
    format!("Drive did not describe it ({error})")
}

pub(super) fn delete_file(google: GoogleClient, a: files::DeleteFileArgs) -> PreviewRead {
    Box::pin(async move {
        let file = google.drive().get(&a.file_id, "id,name,mimeType,size").await.map_err(unread)?;
        let (items, items_more) = if file.is_folder() {
            let q = Query::new().and_not_trashed().and_in_parents(&a.file_id).render();
            let request = ListRequest {
                q: &q,
                fields: "files(id)",
                page_size: COUNTED,
                page_token: None,
                order_by: None,
                corpora: Corpora::AllDrives,
            };
            let listed = google.drive().list(&request).await.map_err(unread)?;
            (Some(listed.files.len()), listed.next_page_token.is_some())
        } else {
            (None, false)
        };
        Ok(Preview::Removal {
            name: cut(&file.name),
            what: what(&file.mime_type),
            size: file.size_bytes().map(size_words),
            items,
            items_more,
            permanent: a.permanent,
        })
    })
}

/// Who has access to `file_id` now, in words ("anna@example.com (editor)").
async fn access(google: GoogleClient, file_id: String) -> Result<Preview, String> {
    let permissions = google
        .drive()
        .permissions(&file_id, "id,type,role,emailAddress,domain")
        .await
        .map_err(|error| format!("Drive did not list who has access now ({error})"))?;
    let mut now: Vec<String> = permissions
        .iter()
        .map(|permission| {
            let who = match (permission.kind.as_deref(), &permission.email_address, &permission.domain) {
                (Some("anyone"), _, _) => "anyone with the link".to_owned(),
                (_, Some(email), _) => email.clone(),
                (_, None, Some(domain)) => format!("everyone at {domain}"),
                _ => "someone".to_owned(),
            };
            let role = said::role_words(permission.role.as_deref().unwrap_or("reader"));
            cut(&format!(
                "{who} ({})",
                role.trim_start_matches("a ").trim_start_matches("an ").trim_start_matches("the ")
            ))
        })
        .collect();
    let more = now.len().saturating_sub(MAX_CELLS);
    now.truncate(MAX_CELLS);
    Ok(Preview::Sharing { now, more })
}

/// Arguments the run would refuse are not previewed: nothing is read from Google for a call that can't run.
pub(super) fn share_file(google: GoogleClient, a: sharing::ShareFileArgs) -> PreviewRead {
    match sharing::checked_grants(&a.permissions, "permissions", sharing::SHARE_FILE_ROLE) {
        Ok(_) => Box::pin(access(google, a.file_id)),
        Err(error) => Box::pin(std::future::ready(Err(error.to_string()))),
    }
}

pub(super) fn share_spreadsheet(google: GoogleClient, a: sharing::ShareSpreadsheetArgs) -> PreviewRead {
    match sharing::checked_grants(&a.recipients, "recipients", sharing::SHARE_SPREADSHEET_ROLE) {
        Ok(_) => Box::pin(access(google, a.spreadsheet_id)),
        Err(error) => Box::pin(std::future::ready(Err(error.to_string()))),
    }
}

/// A rename: the name now, and the one the call gives.
pub(super) fn rename_file(google: GoogleClient, a: files::RenameFileArgs) -> PreviewRead {
    Box::pin(async move {
        let file = google.drive().get(&a.file_id, "id,name,mimeType").await.map_err(unread)?;
        Ok(Preview::Text { before: cut(&file.name), after: cut(&a.new_name) })
    })
}

/// A move: the folders the file is in now, and the one the call moves it into, by name.
pub(super) fn move_file(google: GoogleClient, a: files::MoveFileArgs) -> PreviewRead {
    Box::pin(async move {
        let drive = google.drive();
        let (file, destination) =
            tokio::join!(drive.get(&a.file_id, "id,name,parents"), drive.get(&a.destination_folder_id, "id,name"));
        let file = file.map_err(unread)?;
        let destination = destination.map_err(|error| format!("Drive did not name the folder it goes to ({error})"))?;
        let mut now = Vec::with_capacity(file.parents.len());
        for parent in file.parents.iter().take(MAX_CELLS) {
            // A parent the account can't see is still a place the file leaves: named by its id.
            let name = drive.get(parent, "id,name").await.map(|folder| folder.name).unwrap_or_else(|_| parent.clone());
            now.push(format!("“{}”", cut(&name)));
        }
        let before = match now.is_empty() {
            true => format!("“{}”, in no folder (My Drive's top)", cut(&file.name)),
            false => format!("“{}”, in {}", cut(&file.name), now.join(", ")),
        };
        Ok(Preview::Text { before, after: format!("“{}”, in “{}”", cut(&file.name), cut(&destination.name)) })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(size_words(820), "820 bytes");
        assert_eq!(size_words(1_234_567), "1.2 MB");
        assert_eq!(what(mime::FOLDER), "folder");
    }
}
