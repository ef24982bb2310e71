//! Sheets v4 calls, shaped as `sheets.v4.json` defines them.

use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::client::{Call, GoogleClient, segment};
use super::endpoint::Api;
use super::error::GoogleError;

/// `Spreadsheet`, with the fields Gatehouse reads.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Spreadsheet {
    /// Absent when a `fields` mask leaves it out.
    pub spreadsheet_id: String,
    pub properties: SpreadsheetProperties,
    pub sheets: Vec<Sheet>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spreadsheet_url: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SpreadsheetProperties {
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
}

/// `Sheet`; `data` is kept raw (only present with `includeGridData`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Sheet {
    pub properties: SheetProperties,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

/// `SheetProperties`. Proto3 JSON omits zero values, so every number defaults to 0.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SheetProperties {
    pub sheet_id: i64,
    pub title: String,
    pub index: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sheet_type: Option<String>,
    pub grid_properties: GridProperties,
    pub hidden: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GridProperties {
    pub row_count: i64,
    pub column_count: i64,
    pub frozen_row_count: i64,
    pub frozen_column_count: i64,
}

/// `ValueRenderOption`: how read values are rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueRender {
    /// As shown in the UI (`FORMATTED_VALUE`): every value is a string.
    Formatted,
    /// Raw values (`UNFORMATTED_VALUE`).
    Unformatted,
    /// Formulas as written, other cells unformatted (`FORMULA`).
    Formula,
}

impl ValueRender {
    pub const fn as_str(self) -> &'static str {
        match self {
            ValueRender::Formatted => "FORMATTED_VALUE",
            ValueRender::Unformatted => "UNFORMATTED_VALUE",
            ValueRender::Formula => "FORMULA",
        }
    }
}

/// A read `ValueRange`. `C` is the cell type, chosen by the caller so values land straight in their final
/// form (one copy, no intermediate tree). Proto3 omits `values` for an empty range.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValueRange<C> {
    #[serde(default)]
    pub range: String,
    #[serde(default = "Vec::new")]
    pub values: Vec<Vec<C>>,
}

/// `BatchGetValuesResponse`: one `ValueRange` per requested range, in request order.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchGetValuesResponse<C> {
    #[serde(default = "Vec::new")]
    pub value_ranges: Vec<ValueRange<C>>,
}

/// A `ValueRange` to write, borrowing its values.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValueRangeIn<'a> {
    pub range: &'a str,
    pub major_dimension: &'static str,
    pub values: &'a [Vec<Value>],
}

impl<'a> ValueRangeIn<'a> {
    /// Row-major values for `range`.
    pub fn rows(range: &'a str, values: &'a [Vec<Value>]) -> Self {
        Self { range, major_dimension: "ROWS", values }
    }
}

/// `UpdateValuesResponse`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UpdateValuesResponse {
    pub updated_range: String,
    pub updated_rows: i64,
    pub updated_columns: i64,
    pub updated_cells: i64,
}

/// `BatchUpdateValuesResponse`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BatchUpdateValuesResponse {
    pub total_updated_rows: i64,
    pub total_updated_columns: i64,
    pub total_updated_cells: i64,
    pub total_updated_sheets: i64,
    pub responses: Vec<UpdateValuesResponse>,
}

/// `ClearValuesResponse`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ClearValuesResponse {
    pub cleared_range: String,
}

/// `BatchUpdateSpreadsheetResponse`; `R` is the reply type (raw `Value` or a typed [`Reply`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchUpdateResponse<R> {
    #[serde(default = "Vec::new")]
    pub replies: Vec<R>,
}

/// The `Response` kinds the structure tools read; every other kind is ignored.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Reply {
    pub add_sheet: Option<SheetReply>,
    pub duplicate_sheet: Option<SheetReply>,
}

/// `AddSheetResponse` / `DuplicateSheetResponse`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SheetReply {
    pub properties: SheetProperties,
}

/// The Sheets API, borrowed from a client.
pub struct Sheets<'a>(&'a GoogleClient);

impl GoogleClient {
    pub fn sheets(&self) -> Sheets<'_> {
        Sheets(self)
    }
}

fn spreadsheet_path(spreadsheet_id: &str) -> String {
    format!("v4/spreadsheets/{}", segment(spreadsheet_id))
}

/// The path of one A1 range's values (`…/values/{range}`).
fn values_path(spreadsheet_id: &str, range: &str) -> String {
    format!("{}/values/{}", spreadsheet_path(spreadsheet_id), segment(range))
}

impl Sheets<'_> {
    /// `spreadsheets.get` with a field mask (`fields`), without grid data.
    pub async fn get(&self, spreadsheet_id: &str, fields: &str) -> Result<Spreadsheet, GoogleError> {
        let call = Call::get(Api::Sheets, spreadsheet_path(spreadsheet_id)).query("fields", fields);
        self.0.json(call).await
    }

    /// `spreadsheets.get` of `ranges` with `includeGridData`, limited by `fields`.
    pub async fn get_grid(
        &self,
        spreadsheet_id: &str,
        ranges: &[String],
        fields: &str,
    ) -> Result<Spreadsheet, GoogleError> {
        let mut call = Call::get(Api::Sheets, spreadsheet_path(spreadsheet_id)).query("includeGridData", true);
        for range in ranges {
            call = call.query("ranges", range);
        }
        self.0.json(call.query("fields", fields)).await
    }

    /// The URL path of `values.batchGet`, for callers that budget URL lengths.
    pub fn batch_get_path(spreadsheet_id: &str) -> String {
        format!("{}/values:batchGet", spreadsheet_path(spreadsheet_id))
    }

    /// `spreadsheets.values.get` of one A1 range.
    pub async fn values_get<C: DeserializeOwned>(
        &self,
        spreadsheet_id: &str,
        range: &str,
        render: ValueRender,
    ) -> Result<ValueRange<C>, GoogleError> {
        let path = values_path(spreadsheet_id, range);
        let call = Call::get(Api::Sheets, path).query("valueRenderOption", render.as_str());
        self.0.json(call).await
    }

    /// `spreadsheets.values.get` of one A1 range, answered as Google's raw JSON body (compact: `prettyPrint`
    /// off), for callers that transcode a large range without building a tree of it.
    pub async fn values_get_raw(
        &self,
        spreadsheet_id: &str,
        range: &str,
        render: ValueRender,
    ) -> Result<Bytes, GoogleError> {
        let path = values_path(spreadsheet_id, range);
        let call = Call::get(Api::Sheets, path).query("valueRenderOption", render.as_str()).query("prettyPrint", false);
        Ok(self.0.bytes(call).await?.body)
    }

    /// `spreadsheets.values.batchGet`: several ranges of one spreadsheet in one request (repeated `ranges`).
    pub async fn values_batch_get<C: DeserializeOwned>(
        &self,
        spreadsheet_id: &str,
        ranges: &[&str],
        render: ValueRender,
    ) -> Result<BatchGetValuesResponse<C>, GoogleError> {
        let mut call = Call::get(Api::Sheets, Self::batch_get_path(spreadsheet_id));
        for range in ranges {
            call = call.query("ranges", range);
        }
        self.0.json(call.query("valueRenderOption", render.as_str())).await
    }

    /// `spreadsheets.values.update` with `USER_ENTERED` input (typed as in the UI: formulas, numbers, dates).
    pub async fn values_update(
        &self,
        spreadsheet_id: &str,
        range: &str,
        values: &[Vec<Value>],
    ) -> Result<UpdateValuesResponse, GoogleError> {
        let path = values_path(spreadsheet_id, range);
        let call = Call::put(Api::Sheets, path)
            .query("valueInputOption", "USER_ENTERED")
            .json(&ValueRangeIn::rows(range, values));
        self.0.json(call).await
    }

    /// `spreadsheets.values.batchUpdate` with `USER_ENTERED` input.
    pub async fn values_batch_update(
        &self,
        spreadsheet_id: &str,
        data: &[ValueRangeIn<'_>],
    ) -> Result<BatchUpdateValuesResponse, GoogleError> {
        let path = format!("{}/values:batchUpdate", spreadsheet_path(spreadsheet_id));
        let call = Call::post(Api::Sheets, path).json(&json!({ "valueInputOption": "USER_ENTERED", "data": data }));
        self.0.json(call).await
    }

    /// `spreadsheets.values.clear`: values only, formatting stays.
    pub async fn values_clear(&self, spreadsheet_id: &str, range: &str) -> Result<ClearValuesResponse, GoogleError> {
        let path = format!("{}:clear", values_path(spreadsheet_id, range));
        self.0.json(Call::post(Api::Sheets, path).json(&json!({}))).await
    }

    /// `spreadsheets.batchUpdate` with `requests` as given.
    pub async fn batch_update<R: DeserializeOwned>(
        &self,
        spreadsheet_id: &str,
        requests: &[Value],
    ) -> Result<BatchUpdateResponse<R>, GoogleError> {
        let path = format!("{}:batchUpdate", spreadsheet_path(spreadsheet_id));
        self.0.json(Call::post(Api::Sheets, path).json(&json!({ "requests": requests }))).await
    }

    /// `spreadsheets.sheets.copyTo`: copies a sheet into another spreadsheet; answers the copy's properties.
    pub async fn copy_to(
        &self,
        spreadsheet_id: &str,
        sheet_id: i64,
        destination_spreadsheet_id: &str,
    ) -> Result<SheetProperties, GoogleError> {
        let path = format!("{}/sheets/{sheet_id}:copyTo", spreadsheet_path(spreadsheet_id));
        let body = json!({ "destinationSpreadsheetId": destination_spreadsheet_id });
        self.0.json(Call::post(Api::Sheets, path).json(&body)).await
    }

    /// `spreadsheets.create` with a title.
    pub async fn create(&self, title: &str) -> Result<Spreadsheet, GoogleError> {
        let call = Call::post(Api::Sheets, "v4/spreadsheets").json(&json!({ "properties": { "title": title } }));
        self.0.json(call).await
    }
}
