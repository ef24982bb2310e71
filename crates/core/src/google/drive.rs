//! Drive v3 calls, shaped as `drive.v3.json` defines them. Every file call sends
//! `supportsAllDrives=true` so files in shared drives work like any other; listings that search (rather
//! than walk one folder) also ask for items from every drive.

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::{Call, GoogleClient, segment};
use super::endpoint::Api;
use super::error::GoogleError;

/// Google-native MIME types Gatehouse names.
pub mod mime {
    pub const FOLDER: &str = "application/vnd.google-apps.folder";
    pub const SPREADSHEET: &str = "application/vnd.google-apps.spreadsheet";
    pub const DOCUMENT: &str = "application/vnd.google-apps.document";
    pub const PRESENTATION: &str = "application/vnd.google-apps.presentation";
    pub const DRAWING: &str = "application/vnd.google-apps.drawing";
    pub const SHORTCUT: &str = "application/vnd.google-apps.shortcut";
    /// Every Google-native type starts with this; they have no bytes of their own and must be exported.
    pub const GOOGLE_PREFIX: &str = "application/vnd.google-apps.";
}

/// `File`, with the fields Gatehouse reads. Which are present depends on the `fields` mask; int64 members
/// (`size`) arrive as strings, as Google sends them.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct File {
    pub id: String,
    pub name: String,
    pub mime_type: String,
    pub parents: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified_time: Option<String>,
    /// A number that goes up with every change to the file (int64, as a string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_with_me_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_view_link: Option<String>,
    pub owners: Vec<User>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sharing_user: Option<User>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modifying_user: Option<User>,
    pub trashed: bool,
    pub starred: bool,
    pub shared: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drive_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub md5_checksum: Option<String>,
    /// Export MIME type → link; only the keys matter to Gatehouse (the formats a file exports to).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_links: Option<serde_json::Map<String, Value>>,
    /// Properties private to Gatehouse's OAuth client (e.g. the progress marker of `import_csv_to_sheet`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_properties: Option<std::collections::BTreeMap<String, String>>,
    /// Shortcuts only: the file they point to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shortcut_details: Option<ShortcutDetails>,
}

/// `File.shortcutDetails`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ShortcutDetails {
    pub target_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_mime_type: Option<String>,
}

impl File {
    /// The byte size of a blob; `None` for Google-native files and folders, which have none.
    pub fn size_bytes(&self) -> Option<u64> {
        self.size.as_deref().and_then(|s| s.parse().ok())
    }

    pub fn is_folder(&self) -> bool {
        self.mime_type == mime::FOLDER
    }

    /// A Google Docs/Sheets/Slides/… file: no bytes of its own, only exports.
    pub fn is_google_type(&self) -> bool {
        self.mime_type.starts_with(mime::GOOGLE_PREFIX)
    }

    /// The first owner's email (My Drive files; shared-drive files have no owner).
    pub fn owner_email(&self) -> Option<&str> {
        self.owners.first().and_then(|o| o.email_address.as_deref())
    }
}

/// `User`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct User {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email_address: Option<String>,
}

/// `FileList`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FileList {
    pub files: Vec<File>,
    pub next_page_token: Option<String>,
    /// Drive searched only some of the corpora (large `allDrives` searches).
    pub incomplete_search: bool,
}

/// `Permission`, with the fields Gatehouse reads and writes.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Permission {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `user`, `group`, `domain` or `anyone`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email_address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_owner: Option<bool>,
    /// Shared-drive items only: where the grant comes from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub permission_details: Vec<PermissionDetail>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PermissionDetail {
    pub inherited: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inherited_from: Option<String>,
}

/// `PermissionList`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PermissionList {
    pub permissions: Vec<Permission>,
    pub next_page_token: Option<String>,
}

/// `About`, with the user and the storage quota (int64s as strings; `limit` absent means unlimited).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct About {
    pub user: Option<User>,
    pub storage_quota: StorageQuota,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct StorageQuota {
    pub limit: Option<String>,
    pub usage: Option<String>,
    pub usage_in_drive: Option<String>,
    pub usage_in_drive_trash: Option<String>,
}

/// `Drive` (a shared drive), with the fields Gatehouse reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SharedDrive {
    pub id: String,
    pub name: String,
    pub created_time: Option<String>,
    pub hidden: bool,
}

/// `DriveList`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct DriveList {
    pub drives: Vec<SharedDrive>,
    pub next_page_token: Option<String>,
}

/// `Revision`, with the fields Gatehouse reads (int64 `size` as a string).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Revision {
    pub id: String,
    pub mime_type: String,
    pub modified_time: Option<String>,
    pub last_modifying_user: Option<User>,
    pub size: Option<String>,
    pub original_filename: Option<String>,
    pub keep_forever: Option<bool>,
    /// Docs Editors files only: export MIME type → docs.google.com link.
    pub export_links: Option<serde_json::Map<String, Value>>,
}

/// `RevisionList`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RevisionList {
    pub revisions: Vec<Revision>,
    pub next_page_token: Option<String>,
}

/// Drive's largest `pageSize` for `drives.list`.
pub const MAX_DRIVES_PAGE_SIZE: u32 = 100;

/// Drive's largest `pageSize` for `revisions.list`.
const MAX_REVISIONS_PAGE_SIZE: u32 = 1000;

/// Which files a `files.list` walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corpora {
    /// The caller's My Drive and what is shared with them (Drive's default).
    User,
    /// Every drive the caller can see, shared drives included.
    AllDrives,
}

/// One `files.list` request.
#[derive(Debug, Clone)]
pub struct ListRequest<'a> {
    /// The `q` string, built with [`crate::drive_query::Query`].
    pub q: &'a str,
    pub fields: &'a str,
    pub page_size: u32,
    pub page_token: Option<&'a str>,
    pub order_by: Option<&'a str>,
    pub corpora: Corpora,
}

/// Google's limit for a single multipart upload; larger content goes through a resumable session.
pub const MULTIPART_MAX_BYTES: usize = 5 * 1024 * 1024;

/// Drive's largest `pageSize` for `files.list`.
pub const MAX_PAGE_SIZE: u32 = 1000;

/// The Drive API, borrowed from a client.
pub struct Drive<'a>(&'a GoogleClient);

impl GoogleClient {
    pub fn drive(&self) -> Drive<'_> {
        Drive(self)
    }
}

fn file_path(file_id: &str) -> String {
    format!("files/{}", segment(file_id))
}

fn permissions_path(file_id: &str) -> String {
    format!("{}/permissions", file_path(file_id))
}

fn permission_path(file_id: &str, permission_id: &str) -> String {
    format!("{}/{}", permissions_path(file_id), segment(permission_id))
}

/// An export link as Drive gives it, refused unless it is https on docs.google.com.
fn docs_link(link: &str) -> Result<url::Url, GoogleError> {
    let invalid = || GoogleError::Decode {
        api: Api::DocsEditors.name(),
        detail: format!("the export link {link:?} is not a docs.google.com link"),
    };
    let url = url::Url::parse(link).map_err(|_| invalid())?;
    if url.scheme() != "https" || url.host_str() != Some("docs.google.com") {
        return Err(invalid());
    }
    Ok(url)
}

/// The parameters Drive file calls share.
trait FileCall {
    /// `supportsAllDrives=true`, which every file call sends so files in shared drives work like any other.
    fn all_drives(self) -> Self;
    /// The `fields` mask of what to answer, on a file call (so with [`FileCall::all_drives`] too).
    fn file_fields(self, fields: &str) -> Self;
}

impl FileCall for Call {
    fn all_drives(self) -> Self {
        self.query("supportsAllDrives", true)
    }

    fn file_fields(self, fields: &str) -> Self {
        self.query("fields", fields).all_drives()
    }
}

impl Drive<'_> {
    /// `files.list`, one page.
    pub async fn list(&self, request: &ListRequest<'_>) -> Result<FileList, GoogleError> {
        let mut call = Call::get(Api::Drive, "files")
            .file_fields(request.fields)
            .query("pageSize", request.page_size.clamp(1, MAX_PAGE_SIZE))
            .query_opt("pageToken", request.page_token)
            .query_opt("orderBy", request.order_by);
        if !request.q.is_empty() {
            call = call.query("q", request.q);
        }
        if request.corpora == Corpora::AllDrives {
            call = call.query("corpora", "allDrives").query("includeItemsFromAllDrives", true);
        }
        self.0.json(call).await
    }

    /// `files.get` with a field mask.
    pub async fn get(&self, file_id: &str, fields: &str) -> Result<File, GoogleError> {
        self.0.json(Call::get(Api::Drive, file_path(file_id)).file_fields(fields)).await
    }

    /// `files.create` without content (folders, empty Google files).
    pub async fn create(&self, metadata: &Value, fields: &str) -> Result<File, GoogleError> {
        self.0.json(Call::post(Api::Drive, "files").file_fields(fields).json(metadata)).await
    }

    /// `files.create` with content, as one `multipart/related` upload. With a Google-native `mimeType`
    /// in `metadata`, Drive converts the content (e.g. Markdown or HTML into a Google Doc).
    pub async fn upload(
        &self,
        metadata: &Value,
        content_type: &str,
        content: &[u8],
        fields: &str,
    ) -> Result<File, GoogleError> {
        let call = Call::post(Api::DriveUpload, "files").file_fields(fields).multipart(metadata, content_type, content);
        self.0.json(call).await
    }

    /// `files.create` with content, choosing the upload protocol Google recommends for the size: one
    /// multipart request up to 5 MB, a resumable session above.
    pub async fn upload_any(
        &self,
        metadata: &Value,
        content_type: &str,
        content: &[u8],
        fields: &str,
    ) -> Result<File, GoogleError> {
        if content.len() <= MULTIPART_MAX_BYTES {
            self.upload(metadata, content_type, content, fields).await
        } else {
            self.upload_resumable(metadata, content_type, content, fields).await
        }
    }

    /// `files.create` as a resumable upload: a session is opened with the metadata, then the content is
    /// sent in one PUT to the session URI Google answers in `Location`.
    pub async fn upload_resumable(
        &self,
        metadata: &Value,
        content_type: &str,
        content: &[u8],
        fields: &str,
    ) -> Result<File, GoogleError> {
        let start =
            Call::post(Api::DriveUpload, "files").query("uploadType", "resumable").file_fields(fields).json(metadata);
        self.resumable_session(start, "files".to_owned(), content_type, content).await
    }

    /// `files.update` with new content (Drive keeps the content it replaces as a revision) and metadata:
    /// one multipart request up to 5 MB, a resumable session above, like [`Drive::upload_any`].
    pub async fn update_content(
        &self,
        file_id: &str,
        metadata: &Value,
        content_type: &str,
        content: &[u8],
        fields: &str,
    ) -> Result<File, GoogleError> {
        let path = file_path(file_id);
        if content.len() <= MULTIPART_MAX_BYTES {
            let call =
                Call::patch(Api::DriveUpload, path).file_fields(fields).multipart(metadata, content_type, content);
            return self.0.json(call).await;
        }
        let start = Call::patch(Api::DriveUpload, path.clone())
            .query("uploadType", "resumable")
            .file_fields(fields)
            .json(metadata);
        self.resumable_session(start, path, content_type, content).await
    }

    /// Opens a resumable session with `start`, then sends the content in one PUT to `path` with the
    /// session's query.
    async fn resumable_session(
        &self,
        start: Call,
        path: String,
        content_type: &str,
        content: &[u8],
    ) -> Result<File, GoogleError> {
        let reply = self.0.bytes(start).await?;
        let missing =
            || GoogleError::Decode { api: Api::DriveUpload.name(), detail: "no upload session URI in Location".into() };
        let location =
            reply.headers.get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok()).ok_or_else(missing)?;
        let session = url::Url::parse(location).map_err(|_| missing())?;
        // The session URI is the upload path with the session's own query (upload_id and the original
        // parameters): replay that query on the same path under our endpoint.
        let mut call = Call::put(Api::DriveUpload, path);
        for (name, value) in session.query_pairs() {
            call = call.query(&name, value);
        }
        self.0.json(call.raw(content_type.to_owned(), Bytes::copy_from_slice(content))).await
    }

    /// `files.update` of metadata (name, trashed …).
    pub async fn update(&self, file_id: &str, metadata: &Value, fields: &str) -> Result<File, GoogleError> {
        self.0.json(Call::patch(Api::Drive, file_path(file_id)).file_fields(fields).json(metadata)).await
    }

    /// `files.copy`; `metadata` may set the copy's `name` and `parents`.
    pub async fn copy(&self, file_id: &str, metadata: &Value, fields: &str) -> Result<File, GoogleError> {
        let call = Call::post(Api::Drive, format!("{}/copy", file_path(file_id))).file_fields(fields).json(metadata);
        self.0.json(call).await
    }

    /// `files.delete`: gone for good, skipping the trash.
    pub async fn delete(&self, file_id: &str) -> Result<(), GoogleError> {
        self.send(Call::delete(Api::Drive, file_path(file_id)).all_drives()).await
    }

    /// `files.export`: a Google-native file converted to `mime_type`.
    pub async fn export(&self, file_id: &str, mime_type: &str) -> Result<Bytes, GoogleError> {
        // files.export takes no supportsAllDrives: it finds shared-drive files on its own.
        let call = Call::get(Api::Drive, format!("{}/export", file_path(file_id))).query("mimeType", mime_type);
        Ok(self.0.bytes(call).await?.body)
    }

    /// `files.get?alt=media`: a blob's bytes.
    pub async fn download(&self, file_id: &str) -> Result<Bytes, GoogleError> {
        let call = Call::get(Api::Drive, file_path(file_id)).query("alt", "media").all_drives();
        Ok(self.0.bytes(call).await?.body)
    }

    /// Moves a file into `folder_id`, out of every folder it was in (`files.update` with
    /// `addParents`/`removeParents`; Drive has no "move" call).
    pub async fn move_to_folder(&self, file_id: &str, folder_id: &str) -> Result<(), GoogleError> {
        self.move_file(file_id, folder_id, "id").await.map(|_| ())
    }

    /// [`Drive::move_to_folder`], answering the moved file with `fields`.
    pub async fn move_file(&self, file_id: &str, folder_id: &str, fields: &str) -> Result<File, GoogleError> {
        let current = self.get(file_id, "id,parents").await?;
        let remove: Vec<&str> = current.parents.iter().map(String::as_str).filter(|p| *p != folder_id).collect();
        let mut call = Call::patch(Api::Drive, file_path(file_id))
            .query("addParents", folder_id)
            .file_fields(fields)
            .json(&serde_json::json!({}));
        if !remove.is_empty() {
            call = call.query("removeParents", remove.join(","));
        }
        self.0.json(call).await
    }

    /// `files.list`, every page (the largest pages Drive gives), in all drives: `file_fields` of each file
    /// `q` matches, in `order_by`'s order when given.
    pub async fn list_all(&self, q: &str, file_fields: &str, order_by: Option<&str>) -> Result<Vec<File>, GoogleError> {
        let fields = format!("nextPageToken,files({file_fields})");
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let request = ListRequest {
                q,
                fields: &fields,
                page_size: MAX_PAGE_SIZE,
                page_token: token.as_deref(),
                order_by,
                corpora: Corpora::AllDrives,
            };
            let page = self.list(&request).await?;
            out.extend(page.files);
            match page.next_page_token {
                Some(next) if !next.is_empty() => token = Some(next),
                _ => return Ok(out),
            }
        }
    }

    /// `permissions.list`, every page.
    pub async fn permissions(&self, file_id: &str, fields: &str) -> Result<Vec<Permission>, GoogleError> {
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let call = Call::get(Api::Drive, permissions_path(file_id))
                .file_fields(&format!("nextPageToken,permissions({fields})"))
                .query("pageSize", 100)
                .query_opt("pageToken", token.as_deref());
            let page: PermissionList = self.0.json(call).await?;
            out.extend(page.permissions);
            match page.next_page_token {
                Some(next) if !next.is_empty() => token = Some(next),
                _ => return Ok(out),
            }
        }
    }

    /// `permissions.create`. `transfer_ownership` is required by Drive for `role: owner`;
    /// `send_notification` may only be given for users and groups.
    pub async fn create_permission(
        &self,
        file_id: &str,
        permission: &Permission,
        send_notification: Option<bool>,
        transfer_ownership: bool,
        fields: &str,
    ) -> Result<Permission, GoogleError> {
        let mut call = Call::post(Api::Drive, permissions_path(file_id))
            .file_fields(fields)
            .query_opt("sendNotificationEmail", send_notification)
            .json(permission);
        if transfer_ownership {
            call = call.query("transferOwnership", true);
        }
        self.0.json(call).await
    }

    /// `permissions.update` of the role.
    pub async fn update_permission(
        &self,
        file_id: &str,
        permission_id: &str,
        role: &str,
        fields: &str,
    ) -> Result<Permission, GoogleError> {
        let call = Call::patch(Api::Drive, permission_path(file_id, permission_id))
            .file_fields(fields)
            .json(&serde_json::json!({ "role": role }));
        self.0.json(call).await
    }

    /// `permissions.delete`.
    pub async fn delete_permission(&self, file_id: &str, permission_id: &str) -> Result<(), GoogleError> {
        self.send(Call::delete(Api::Drive, permission_path(file_id, permission_id)).all_drives()).await
    }

    /// `about.get` (Drive requires `fields` here).
    pub async fn about(&self, fields: &str) -> Result<About, GoogleError> {
        self.0.json(Call::get(Api::Drive, "about").query("fields", fields)).await
    }

    /// `drives.list`, one page; `q` searches shared drives (`name contains 'x'`).
    pub async fn list_drives(
        &self,
        q: Option<&str>,
        page_size: u32,
        page_token: Option<&str>,
        fields: &str,
    ) -> Result<DriveList, GoogleError> {
        let call = Call::get(Api::Drive, "drives")
            .query("fields", fields)
            .query("pageSize", page_size.clamp(1, MAX_DRIVES_PAGE_SIZE))
            .query_opt("pageToken", page_token)
            .query_opt("q", q.filter(|q| !q.is_empty()));
        self.0.json(call).await
    }

    /// `files.emptyTrash`: the caller's trash, or a shared drive's (`drive_id`). Deletes for good.
    pub async fn empty_trash(&self, drive_id: Option<&str>) -> Result<(), GoogleError> {
        self.send(Call::delete(Api::Drive, "files/trash").query_opt("driveId", drive_id)).await
    }

    /// `revisions.list`, every page, oldest first. (Revisions take no `supportsAllDrives`.)
    pub async fn revisions(&self, file_id: &str, fields: &str) -> Result<Vec<Revision>, GoogleError> {
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let call = Call::get(Api::Drive, format!("{}/revisions", file_path(file_id)))
                .query("fields", format!("nextPageToken,revisions({fields})"))
                .query("pageSize", MAX_REVISIONS_PAGE_SIZE)
                .query_opt("pageToken", token.as_deref());
            let page: RevisionList = self.0.json(call).await?;
            out.extend(page.revisions);
            match page.next_page_token {
                Some(next) if !next.is_empty() => token = Some(next),
                _ => return Ok(out),
            }
        }
    }

    /// `revisions.get` with a field mask.
    pub async fn revision(&self, file_id: &str, revision_id: &str, fields: &str) -> Result<Revision, GoogleError> {
        let path = format!("{}/revisions/{}", file_path(file_id), segment(revision_id));
        self.0.json(Call::get(Api::Drive, path).query("fields", fields)).await
    }

    /// `revisions.get?alt=media`: the bytes of one revision of a blob.
    pub async fn revision_media(&self, file_id: &str, revision_id: &str) -> Result<Bytes, GoogleError> {
        let path = format!("{}/revisions/{}", file_path(file_id), segment(revision_id));
        Ok(self.0.bytes(Call::get(Api::Drive, path).query("alt", "media")).await?.body)
    }

    /// Fetches an export link of a Docs Editors revision (`exportLinks`), with `extra` query parameters
    /// added (`gid` for one sheet). Only docs.google.com links are followed; the signed-in token goes
    /// nowhere else.
    pub async fn export_link(&self, link: &str, extra: &[(&str, String)]) -> Result<Bytes, GoogleError> {
        let url = docs_link(link)?;
        let mut call = Call::get(Api::DocsEditors, url.path().trim_start_matches('/'));
        for (name, value) in url.query_pairs() {
            call = call.query(&name, value);
        }
        for (name, value) in extra {
            call = call.query(name, value);
        }
        Ok(self.0.bytes(call).await?.body)
    }

    /// Sends a call whose answer carries nothing to read (deletes answer an empty body).
    async fn send(&self, call: Call) -> Result<(), GoogleError> {
        let _: Value = self.0.json(call).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::docs_link;

    #[test]
    fn only_docs_google_com_export_links_are_followed() {
        let link = "https://docs.google.com/spreadsheets/export?id=1x&revision=2&exportFormat=csv";
        assert_eq!(docs_link(link).unwrap().path(), "/spreadsheets/export");
        for bad in [
            "http://docs.google.com/spreadsheets/export?id=1x",
            "https://docs.google.com.evil.example/export",
            "https://evil.example/?u=https://docs.google.com/",
            "not a url",
        ] {
            assert!(docs_link(bad).is_err(), "{bad}");
        }
    }
}
