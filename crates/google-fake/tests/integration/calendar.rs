//! Calendar v3 against the emulator on the wire: the calendar list, calendars, ACL, events (windows, text,
//! instances, ordering, pages), free/busy, Calendar's errors and its OAuth scopes, and the sandbox's seed.

use crate::common;

use common::{ADA, BOB, Env, sandbox};
use google_fake::Identity;
use reqwest::Method;
use serde_json::{Value, json};

const CALENDAR: &str = "https://www.googleapis.com/auth/calendar";
const CALENDAR_READONLY: &str = "https://www.googleapis.com/auth/calendar.readonly";

impl Env {
    async fn cal(&self, method: Method, path: &str, query: &[(&str, &str)], body: Option<Value>) -> (u16, Value) {
        let mut request = self.http.request(method, self.url(&format!("calendar/v3/{path}"))).query(query);
        if let Some(body) = body {
            request = request.json(&body);
        }
        self.send(request).await
    }

    async fn cal_ok(&self, method: Method, path: &str, query: &[(&str, &str)], body: Option<Value>) -> Value {
        let (status, value) = self.cal(method, path, query, body).await;
        assert!((200..300).contains(&status), "{path}: {status} {value}");
        value
    }

    async fn insert_event(&self, summary: &str, start: &str, end: &str) -> String {
        let body = json!({ "summary": summary, "start": { "dateTime": start }, "end": { "dateTime": end } });
        let event = self.cal_ok(Method::POST, "calendars/primary/events", &[], Some(body)).await;
        event["id"].as_str().unwrap().to_owned()
    }
}

fn summaries(list: &Value) -> Vec<&str> {
    list["items"].as_array().unwrap().iter().map(|e| e["summary"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn every_account_has_a_primary_calendar_on_its_list() {
    let env = Env::new().await;
    let list = env.cal_ok(Method::GET, "users/me/calendarList", &[], None).await;
    assert_eq!(list["kind"], "calendar#calendarList");
    assert_eq!(list["items"][0]["id"], ADA);
    assert_eq!(list["items"][0]["primary"], true);
    assert_eq!(list["items"][0]["accessRole"], "owner");
    let calendar = env.cal_ok(Method::GET, "calendars/primary", &[], None).await;
    assert_eq!(calendar["id"], ADA);
    assert_eq!(calendar["kind"], "calendar#calendar");
}

#[tokio::test]
async fn calendars_are_created_changed_and_deleted_and_lists_follow() {
    let env = Env::new().await;
    let created = env
        .cal_ok(Method::POST, "calendars", &[], Some(json!({ "summary": "Team", "timeZone": "Europe/Paris" })))
        .await;
    let id = created["id"].as_str().unwrap().to_owned();
    let path = format!("calendars/{id}");
    let patched = env.cal_ok(Method::PATCH, &path, &[], Some(json!({ "description": "Our team" }))).await;
    assert_eq!((patched["summary"].as_str(), patched["description"].as_str()), (Some("Team"), Some("Our team")));
    let (status, error) = env.cal(Method::PUT, &path, &[], Some(json!({ "description": "x" }))).await;
    assert_eq!((status, error["error"]["errors"][0]["reason"].as_str()), (400, Some("required")));
    let (status, error) = env.cal(Method::PATCH, &path, &[], Some(json!({ "timeZone": "Nowhere/City" }))).await;
    assert_eq!(status, 400, "{error}");

    let entry_path = format!("users/me/calendarList/{id}");
    let entry = env.cal_ok(Method::PATCH, &entry_path, &[], Some(json!({ "colorId": "5" }))).await;
    assert_eq!(entry["colorId"], "5");
    env.cal_ok(Method::DELETE, &entry_path, &[], None).await;
    let (status, _) = env.cal(Method::GET, &entry_path, &[], None).await;
    assert_eq!(status, 404);
    env.cal_ok(Method::POST, "users/me/calendarList", &[], Some(json!({ "id": id }))).await;
    env.cal_ok(Method::DELETE, &path, &[], None).await;
    assert_eq!(env.cal(Method::GET, &path, &[], None).await.0, 404);
    let list = env.cal_ok(Method::GET, "users/me/calendarList", &[], None).await;
    assert_eq!(list["items"].as_array().unwrap().len(), 1, "only the primary is left");
    let (status, error) = env.cal(Method::DELETE, "calendars/primary", &[], None).await;
    assert_eq!((status, error["error"]["errors"][0]["reason"].as_str()), (400, Some("cannotDeletePrimaryCalendar")));
}

#[tokio::test]
async fn the_acl_decides_who_sees_and_who_changes_a_calendar() {
    let env = Env::new().await;
    let bob = env.google.issue_token(Identity::user(BOB));
    let bob_path = format!("calendars/{}", BOB.replace('@', "%40"));
    let as_bob = |method: Method, path: &str, body: Option<Value>| {
        let mut request = env.http.request(method, env.url(&format!("calendar/v3/{path}")));
        if let Some(body) = body {
            request = request.json(&body);
        }
        request
    };
    // Bob's calendar is invisible to Ada until he shares it.
    env.send_as(&bob, as_bob(Method::GET, "users/me/calendarList", None)).await;
    assert_eq!(env.cal(Method::GET, &bob_path, &[], None).await.0, 404);
    let rule = json!({ "role": "reader", "scope": { "type": "user", "value": ADA } });
    let (status, added) = env.send_as(&bob, as_bob(Method::POST, &format!("{bob_path}/acl"), Some(rule))).await;
    assert_eq!((status, added["id"].as_str()), (200, Some("user:ada@example.com")));
    assert_eq!(env.cal(Method::GET, &bob_path, &[], None).await.0, 200);
    let event = json!({ "summary": "x", "start": { "date": "2026-12-01" }, "end": { "date": "2026-12-02" } });
    let (status, error) = env.cal(Method::POST, &format!("{bob_path}/events"), &[], Some(event)).await;
    assert_eq!((status, error["error"]["errors"][0]["reason"].as_str()), (403, Some("forbidden")));
    // Readers don't see the ACL; the owner's own rule can't go.
    assert_eq!(env.cal(Method::GET, &format!("{bob_path}/acl"), &[], None).await.0, 403);
    let own = format!("{bob_path}/acl/user%3A{}", BOB.replace('@', "%40"));
    let (status, _) = env.send_as(&bob, as_bob(Method::DELETE, &own, None)).await;
    assert_eq!(status, 403);
    let ada_rule = format!("{bob_path}/acl/user%3Aada%40example.com");
    let (status, _) = env.send_as(&bob, as_bob(Method::DELETE, &ada_rule, None)).await;
    assert_eq!(status, 204);
    assert_eq!(env.cal(Method::GET, &bob_path, &[], None).await.0, 404);
}

#[tokio::test]
async fn events_are_listed_by_window_text_order_and_page() {
    let env = Env::new().await;
    env.insert_event("Late", "2026-12-03T10:00:00Z", "2026-12-03T11:00:00Z").await;
    env.insert_event("Early", "2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z").await;
    env.insert_event("Budget", "2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z").await;
    let window = [("timeMin", "2026-12-01T10:30:00Z"), ("timeMax", "2026-12-03T10:00:00Z"), ("singleEvents", "true")];
    let mut query = window.to_vec();
    query.push(("orderBy", "startTime"));
    let list = env.cal_ok(Method::GET, "calendars/primary/events", &query, None).await;
    assert_eq!(
        summaries(&list),
        ["Early", "Budget"],
        "an event ending after timeMin counts, one starting at timeMax not"
    );
    assert_eq!(list["kind"], "calendar#events");
    let mut text = query.clone();
    text.push(("q", "budg"));
    assert_eq!(summaries(&env.cal_ok(Method::GET, "calendars/primary/events", &text, None).await), ["Budget"]);
    let paged = [("maxResults", "2"), ("singleEvents", "true"), ("orderBy", "startTime")];
    let first = env.cal_ok(Method::GET, "calendars/primary/events", &paged, None).await;
    assert_eq!(summaries(&first), ["Early", "Budget"]);
    let token = first["nextPageToken"].as_str().unwrap().to_owned();
    let mut next = paged.to_vec();
    next.push(("pageToken", &token));
    assert_eq!(summaries(&env.cal_ok(Method::GET, "calendars/primary/events", &next, None).await), ["Late"]);
    let (status, error) = env.cal(Method::GET, "calendars/primary/events", &[("orderBy", "startTime")], None).await;
    assert_eq!(status, 400, "startTime ordering needs singleEvents: {error}");
    let (status, _) = env.cal(Method::GET, "calendars/primary/events", &[("timeMin", "2026-12-01")], None).await;
    assert_eq!(status, 400, "timeMin needs a full RFC 3339 time");
}

#[tokio::test]
async fn events_are_read_patched_replaced_and_cancelled() {
    let env = Env::new().await;
    let id = env.insert_event("Draft", "2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z").await;
    let path = format!("calendars/primary/events/{id}");
    let event = env.cal_ok(Method::GET, &path, &[], None).await;
    assert_eq!((event["status"].as_str(), event["sequence"].as_i64()), (Some("confirmed"), Some(0)));
    assert_eq!(event["organizer"]["email"], ADA);
    let patched =
        env.cal_ok(Method::PATCH, &path, &[("sendUpdates", "all")], Some(json!({ "location": "Room 1" }))).await;
    assert_eq!((patched["summary"].as_str(), patched["location"].as_str()), (Some("Draft"), Some("Room 1")));
    let (status, error) =
        env.cal(Method::PATCH, &path, &[], Some(json!({ "end": { "dateTime": "2026-12-01T09:00:00Z" } }))).await;
    assert_eq!((status, error["error"]["errors"][0]["reason"].as_str()), (400, Some("timeRangeEmpty")));
    let whole = json!({ "summary": "Final", "start": { "date": "2026-12-05" }, "end": { "date": "2026-12-06" } });
    let replaced = env.cal_ok(Method::PUT, &path, &[], Some(whole)).await;
    assert!(replaced.get("location").is_none(), "PUT replaces the whole event");
    assert_eq!(replaced["start"], json!({ "date": "2026-12-05" }));
    env.cal_ok(Method::DELETE, &path, &[], None).await;
    assert_eq!(env.cal_ok(Method::GET, &path, &[], None).await["status"], "cancelled");
    assert_eq!(env.cal(Method::DELETE, &path, &[], None).await.0, 410);
    let all = env.cal_ok(Method::GET, "calendars/primary/events", &[], None).await;
    assert!(all["items"].as_array().unwrap().is_empty());
    let deleted = env.cal_ok(Method::GET, "calendars/primary/events", &[("showDeleted", "true")], None).await;
    assert_eq!(deleted["items"][0]["status"], "cancelled");
}

#[tokio::test]
async fn recurring_events_expand_into_instances_that_can_be_read_by_id() {
    let env = Env::new().await;
    let body = json!({
        "summary": "Standup",
        "start": { "dateTime": "2026-03-27T09:00:00+01:00", "timeZone": "Europe/Paris" },
        "end": { "dateTime": "2026-03-27T09:15:00+01:00", "timeZone": "Europe/Paris" },
        "recurrence": ["RRULE:FREQ=DAILY;COUNT=3"],
    });
    let series = env.cal_ok(Method::POST, "calendars/primary/events", &[], Some(body)).await;
    let query = [("singleEvents", "true"), ("orderBy", "startTime")];
    let list = env.cal_ok(Method::GET, "calendars/primary/events", &query, None).await;
    let starts: Vec<&str> =
        list["items"].as_array().unwrap().iter().map(|e| e["start"]["dateTime"].as_str().unwrap()).collect();
    assert_eq!(starts, ["2026-03-27T09:00:00+01:00", "2026-03-28T09:00:00+01:00", "2026-03-29T09:00:00+02:00"]);
    let instance = list["items"][2]["id"].as_str().unwrap();
    assert_eq!(instance, format!("{}_20260329T070000Z", series["id"].as_str().unwrap()));
    let read = env.cal_ok(Method::GET, &format!("calendars/primary/events/{instance}"), &[], None).await;
    assert_eq!(read["recurringEventId"], series["id"]);
    let folded = env.cal_ok(Method::GET, "calendars/primary/events", &[], None).await;
    assert_eq!(folded["items"].as_array().unwrap().len(), 1, "without singleEvents the series is listed once");

    let zoneless = json!({
        "summary": "x",
        "start": { "dateTime": "2026-03-27T09:00:00Z" },
        "end": { "dateTime": "2026-03-27T10:00:00Z" },
        "recurrence": ["RRULE:FREQ=DAILY"],
    });
    let (status, error) = env.cal(Method::POST, "calendars/primary/events", &[], Some(zoneless)).await;
    assert_eq!(status, 400, "a timed series needs a time zone: {error}");
}

#[tokio::test]
async fn free_busy_merges_busy_time_and_reports_unknown_calendars() {
    let env = Env::new().await;
    env.insert_event("A", "2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z").await;
    env.insert_event("B", "2026-12-01T09:30:00Z", "2026-12-01T11:00:00Z").await;
    env.insert_event("Outside", "2026-12-02T09:00:00Z", "2026-12-02T10:00:00Z").await;
    let body = json!({
        "timeMin": "2026-12-01T08:00:00Z",
        "timeMax": "2026-12-01T18:00:00Z",
        "timeZone": "Europe/Paris",
        "items": [{ "id": ADA }, { "id": "nobody@group.calendar.google.com" }],
    });
    let answer = env.cal_ok(Method::POST, "freeBusy", &[], Some(body)).await;
    assert_eq!(answer["kind"], "calendar#freeBusy");
    assert_eq!(
        answer["calendars"][ADA]["busy"],
        json!([{ "start": "2026-12-01T10:00:00+01:00", "end": "2026-12-01T12:00:00+01:00" }])
    );
    assert_eq!(answer["calendars"]["nobody@group.calendar.google.com"]["errors"][0]["reason"], "notFound");
}

#[tokio::test]
async fn scopes_are_enforced_as_the_discovery_document_lists_them() {
    let env = Env::new().await;
    let read_only = env.google.issue_token_with_scopes(Identity::user(ADA), &[CALENDAR_READONLY]);
    let list = env.http.get(env.url("calendar/v3/users/me/calendarList"));
    assert_eq!(env.send_as(&read_only, list).await.0, 200);
    let insert = env.http.post(env.url("calendar/v3/calendars")).json(&json!({ "summary": "x" }));
    let (status, error) = env.send_as(&read_only, insert).await;
    assert_eq!((status, error["error"]["status"].as_str()), (403, Some("PERMISSION_DENIED")));
    let acl = env.http.get(env.url("calendar/v3/calendars/primary/acl"));
    assert_eq!(env.send_as(&read_only, acl).await.0, 403, "acl.list takes no calendar.readonly");
    let full = env.google.issue_token_with_scopes(Identity::user(ADA), &[CALENDAR]);
    let acl = env.http.get(env.url("calendar/v3/calendars/primary/acl"));
    assert_eq!(env.send_as(&full, acl).await.0, 200);
    let drive_only =
        env.google.issue_token_with_scopes(Identity::user(ADA), &["https://www.googleapis.com/auth/drive"]);
    let list = env.http.get(env.url("calendar/v3/users/me/calendarList"));
    assert_eq!(env.send_as(&drive_only, list).await.0, 403);
}

#[tokio::test]
async fn the_sandbox_user_has_a_week_of_events() {
    let (google, token) = sandbox().await;
    let http = reqwest::Client::new();
    let url = format!("{}/calendar/v3/calendars/primary/events", google.url());
    let list: Value = http
        .get(url)
        .query(&[("singleEvents", "true"), ("orderBy", "startTime")])
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let items = list["items"].as_array().unwrap();
    assert!(items.len() >= 4, "{list}");
    assert!(items.iter().any(|e| e["attendees"].as_array().is_some_and(|a| !a.is_empty())));
}
