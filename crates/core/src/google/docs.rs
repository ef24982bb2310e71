//! Docs v1 calls (`documents.create`, `documents.get`, `documents.batchUpdate`), shaped as `docs.v1.json`
//! defines them.
//!
//! `documents.get` answers the document as raw JSON: [`crate::docs_format`] reads it (Markdown, plain
//! text, structure, search), and keeping it raw loses nothing Google adds later. Indexes are UTF-16
//! code units, as Docs counts them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::{Call, GoogleClient, segment};
use super::endpoint::Api;
use super::error::GoogleError;

/// `Document`, as `documents.create` answers it (only the fields Gatehouse reads).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Document {
    pub document_id: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision_id: Option<String>,
}

/// `BatchUpdateDocumentResponse`; replies are kept raw (one per request, mostly empty).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BatchUpdateResponse {
    pub document_id: String,
    pub replies: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_control: Option<Value>,
}

#[derive(Serialize)]
struct NewDocument<'a> {
    title: &'a str,
}

#[derive(Serialize)]
struct BatchUpdateRequest<'a> {
    requests: &'a [Value],
}

/// The Docs API, borrowed from a client.
pub struct Docs<'a>(&'a GoogleClient);

impl GoogleClient {
    pub fn docs(&self) -> Docs<'_> {
        Docs(self)
    }
}

impl Docs<'_> {
    /// `documents.create`: an empty document titled `title`, in the account's My Drive root.
    pub async fn create(&self, title: &str) -> Result<Document, GoogleError> {
        let call = Call::post(Api::Docs, "v1/documents").json(&NewDocument { title });
        self.0.json(call).await
    }

    /// `documents.get`: the document's first tab, in the default view, whose indexes are the ones
    /// `batchUpdate` takes.
    pub async fn get(&self, document_id: &str) -> Result<Value, GoogleError> {
        let call = Call::get(Api::Docs, format!("v1/documents/{}", segment(document_id)));
        self.0.json(call).await
    }

    /// `documents.batchUpdate`: applies `requests` atomically, in order (all or none).
    pub async fn batch_update(
        &self,
        document_id: &str,
        requests: &[Value],
    ) -> Result<BatchUpdateResponse, GoogleError> {
        let call = Call::post(Api::Docs, format!("v1/documents/{}:batchUpdate", segment(document_id)))
            .json(&BatchUpdateRequest { requests });
        self.0.json(call).await
    }
}
