//! Drive Activity v2 (`activity:query`), shaped as `driveactivity.v2.json` defines it. Action details are
//! kept as raw JSON: there are a dozen kinds, each with its own shape, and the tools pass them on.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::{Call, GoogleClient};
use super::endpoint::Api;
use super::error::GoogleError;

/// `QueryDriveActivityRequest`, with the members Gatehouse sends.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryRequest {
    /// `items/{fileId}`: the activity of one file (or folder, without its descendants).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_size: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_token: Option<String>,
}

/// `QueryDriveActivityResponse`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct QueryResponse {
    pub activities: Vec<DriveActivity>,
    pub next_page_token: Option<String>,
}

/// `DriveActivity`: one moment (`timestamp`) or span (`timeRange`) of actions by some actors.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct DriveActivity {
    pub primary_action_detail: serde_json::Map<String, Value>,
    pub actors: Vec<Actor>,
    pub targets: Vec<Target>,
    pub timestamp: Option<String>,
    pub time_range: Option<TimeRange>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TimeRange {
    pub start_time: Option<String>,
    pub end_time: Option<String>,
}

/// `Actor`: a user, or something else (`administrator`, `system`, `anonymous`, `impersonation`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Actor {
    #[serde(default)]
    pub user: Option<ActorUser>,
    #[serde(flatten)]
    pub other: serde_json::Map<String, Value>,
}

/// `User`: known, deleted or unknown.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ActorUser {
    pub known_user: Option<KnownUser>,
    pub deleted_user: Option<Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct KnownUser {
    /// `people/ACCOUNT_ID`: Activity names people, not emails.
    pub person_name: Option<String>,
    pub is_current_user: bool,
}

/// `Target`: what the activity happened to.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Target {
    pub drive_item: Option<DriveItem>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct DriveItem {
    /// `items/{fileId}`.
    pub name: Option<String>,
    pub title: Option<String>,
    pub mime_type: Option<String>,
}

/// The Drive Activity API, borrowed from a client.
pub struct Activity<'a>(&'a GoogleClient);

impl GoogleClient {
    pub fn activity(&self) -> Activity<'_> {
        Activity(self)
    }
}

impl Activity<'_> {
    /// `activity:query`: a POST that only reads, so it is retried like a read.
    pub async fn query(&self, request: &QueryRequest) -> Result<QueryResponse, GoogleError> {
        self.0.json(Call::post_read(Api::DriveActivity, "v2/activity:query").json(request)).await
    }
}
