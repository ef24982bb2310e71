//! Sheets v4 calls, shaped as `sheets.v4.json` defines them.

use serde::{Deserialize, Serialize};

use super::client::{Call, GoogleClient, segment};
use super::endpoint::Api;
use super::error::GoogleError;

/// `Spreadsheet`, with the fields Gatehouse reads.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spreadsheet {
    pub spreadsheet_id: String,
    #[serde(default)]
    pub properties: SpreadsheetProperties,
    #[serde(default)]
    pub sheets: Vec<Sheet>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spreadsheet_url: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpreadsheetProperties {
    #[serde(default)]
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
}

/// `Sheet`; `data` is kept raw (only present with `includeGridData`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sheet {
    #[serde(default)]
    pub properties: SheetProperties,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

/// `SheetProperties`. Proto3 JSON omits zero values, so every number defaults to 0.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SheetProperties {
    #[serde(default)]
    pub sheet_id: i64,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub index: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sheet_type: Option<String>,
    #[serde(default)]
    pub grid_properties: GridProperties,
    #[serde(default)]
    pub hidden: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GridProperties {
    #[serde(default)]
    pub row_count: i64,
    #[serde(default)]
    pub column_count: i64,
    #[serde(default)]
    pub frozen_row_count: i64,
    #[serde(default)]
    pub frozen_column_count: i64,
}

/// The Sheets API, borrowed from a client.
pub struct Sheets<'a>(&'a GoogleClient);

impl GoogleClient {
    pub fn sheets(&self) -> Sheets<'_> {
        Sheets(self)
    }
}

impl Sheets<'_> {
    /// `spreadsheets.get` with a field mask (`fields`), without grid data.
    pub async fn get(&self, spreadsheet_id: &str, fields: &str) -> Result<Spreadsheet, GoogleError> {
        let call = Call::get(Api::Sheets, format!("v4/spreadsheets/{}", segment(spreadsheet_id))).query("fields", fields);
        self.0.json(call).await
    }
}
