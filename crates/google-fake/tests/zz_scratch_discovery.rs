use serde_json::{json, Value};
use std::time::Instant;
#[tokio::test]
async fn scratch() {
    let google = google_fake::FakeGoogle::start().await.unwrap();
    let token = google.issue_token(google_fake::Identity::user("ada@example.com"));
    let http = reqwest::Client::new();
    let base = google.url();
    let r = http.post(format!("{base}/v4/spreadsheets")).bearer_auth(&token).json(&json!({"sheets":[{"properties":{"gridProperties":{"rowCount":2000,"columnCount":26}}}]})).send().await.unwrap();
    let book: Value = r.json().await.unwrap();
    let id = book["spreadsheetId"].as_str().unwrap().to_owned();
    let rows: Vec<Vec<Value>> = (0..2000).map(|r| (0..20).map(|c| json!(format!("r{r}c{c}"))).collect()).collect();
    let r = http.put(format!("{base}/v4/spreadsheets/{id}/values/Sheet1!A1:T2000")).bearer_auth(&token).query(&[("valueInputOption","RAW")]).json(&json!({"values": rows})).send().await.unwrap();
    println!("{}", r.status());
    for path in [format!("/v4/spreadsheets/{id}/values/Sheet1!A1:T2000"), format!("/v4/spreadsheets/{id}")] {
        let q: &[(&str,&str)] = if path.contains("values") { &[] } else { &[("includeGridData","true")] };
        let t = Instant::now();
        let mut text = String::new();
        for _ in 0..5 { text = http.get(format!("{base}{path}")).bearer_auth(&token).query(q).send().await.unwrap().text().await.unwrap(); }
        let total = t.elapsed() / 5;
        let t = Instant::now();
        let _: serde::de::IgnoredAny = serde_json::from_str(&text).unwrap();
        println!("ignored-any parse {:?}", t.elapsed());
        let t = Instant::now();
        let value: Value = serde_json::from_str(&text).unwrap();
        let parsed = t.elapsed();
        let query: Vec<(String,String)> = q.iter().map(|(a,b)| (a.to_string(), b.to_string())).collect();
        let ex = google_fake::discovery::Exchange { method: "GET", path: &path, query: &query, request: google_fake::discovery::Body::Absent, status: 200, response: google_fake::discovery::Body::Json(&value) };
        let v = google_fake::discovery::model().unwrap().validate(&ex);
        println!("{} bytes: request {:?}, parse {:?} parse+validate {:?}, violations {}", text.len(), total, parsed, t.elapsed(), v.len());
    }
    println!("{:#?}", google.discovery_violations().len());
}
