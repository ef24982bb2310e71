//! Event times as Calendar reads them: `EventDateTime` is either a `date` (all-day) or a `dateTime` (RFC
//! 3339, with an offset or with a `timeZone` naming an IANA zone), and answers are written in a zone.

use chrono::{DateTime, LocalResult, NaiveDate, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::Tz;
use serde_json::{Map, Value, json};

use super::model::{invalid, required};
use crate::errors::ApiError;

/// When an event starts or ends.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum When {
    /// An all-day boundary: the day, in the calendar's time zone.
    Date(NaiveDate),
    /// A moment, with the zone the event is written in (`timeZone`), if it names one.
    At(DateTime<Utc>, Option<String>),
}

/// An IANA zone name, as Calendar accepts them.
pub(crate) fn zone(name: &str) -> Option<Tz> {
    name.parse::<Tz>().ok()
}

/// The moment `local` is in `tz` (the earlier one when a clock change repeats it; just after a gap when
/// it skips it, as Calendar does).
pub(crate) fn local_to_utc(local: NaiveDateTime, tz: Tz) -> DateTime<Utc> {
    match tz.from_local_datetime(&local) {
        LocalResult::Single(at) | LocalResult::Ambiguous(at, _) => at.with_timezone(&Utc),
        LocalResult::None => {
            let later = local + chrono::Duration::hours(1);
            tz.from_local_datetime(&later).earliest().map_or_else(|| later.and_utc(), |at| at.with_timezone(&Utc))
        }
    }
}

/// `at` as RFC 3339 in the zone `tz` (UTC, written `Z`, without one).
pub(crate) fn render(at: DateTime<Utc>, tz: Option<&str>) -> String {
    match tz.and_then(zone) {
        Some(tz) if tz.offset_from_utc_datetime(&at.naive_utc()).fix().local_minus_utc() != 0 => {
            at.with_timezone(&tz).to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
        }
        _ => at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    }
}

impl When {
    /// Reads `start` or `end` of an event body: a time without an offset needs a `timeZone`.
    pub(crate) fn parse(body: &Map<String, Value>, field: &'static str) -> Result<When, ApiError> {
        let Some(value) = body.get(field).filter(|v| !v.is_null()) else { return Err(required(field)) };
        let object = value.as_object().ok_or_else(|| invalid(format!("Invalid {field} time.")).at(field))?;
        let text = |key: &str| object.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
        let time_zone = match text("timeZone") {
            Some(name) if zone(name).is_none() => {
                return Err(invalid(format!("Invalid time zone definition for {field} time.")).at(field));
            }
            other => other.map(str::to_owned),
        };
        match (text("date"), text("dateTime")) {
            (Some(date), None) => NaiveDate::parse_from_str(date, "%Y-%m-%d")
                .map(When::Date)
                .map_err(|_| invalid(format!("Invalid {field} time.")).at(field)),
            (None, Some(date_time)) => {
                if let Ok(at) = DateTime::parse_from_rfc3339(date_time) {
                    return Ok(When::At(at.with_timezone(&Utc), time_zone));
                }
                let local = NaiveDateTime::parse_from_str(date_time, "%Y-%m-%dT%H:%M:%S%.f")
                    .map_err(|_| invalid(format!("Invalid {field} time.")).at(field))?;
                let tz = time_zone
                    .as_deref()
                    .and_then(zone)
                    .ok_or_else(|| invalid(format!("Missing time zone definition for {field} time.")).at(field))?;
                Ok(When::At(local_to_utc(local, tz), time_zone))
            }
            (Some(_), Some(_)) | (None, None) => Err(invalid(format!("Invalid {field} time.")).at(field)),
        }
    }

    /// The moment it stands for: an all-day boundary is midnight in `calendar_zone`.
    pub(crate) fn instant(&self, calendar_zone: &str) -> DateTime<Utc> {
        match self {
            When::At(at, _) => *at,
            When::Date(date) => {
                let midnight = date.and_hms_opt(0, 0, 0).unwrap_or_default();
                zone(calendar_zone).map_or_else(|| midnight.and_utc(), |tz| local_to_utc(midnight, tz))
            }
        }
    }

    /// The `EventDateTime` Calendar answers: a moment in the event's zone, else in `answer_zone`.
    pub(crate) fn json(&self, answer_zone: &str) -> Value {
        match self {
            When::Date(date) => json!({ "date": date.format("%Y-%m-%d").to_string() }),
            When::At(at, Some(tz)) => json!({ "dateTime": render(*at, Some(tz)), "timeZone": tz }),
            When::At(at, None) => json!({ "dateTime": render(*at, Some(answer_zone)) }),
        }
    }

    /// Whether it is an all-day boundary.
    pub(crate) fn is_date(&self) -> bool {
        matches!(self, When::Date(_))
    }
}

/// `at` in the basic UTC form instance ids end with (`20261201T090000Z`).
pub(crate) fn utc_basic(at: DateTime<Utc>) -> String {
    at.format("%Y%m%dT%H%M%SZ").to_string()
}

/// A time query parameter (`timeMin`, `timeMax`): RFC 3339 with an offset, as Calendar requires.
pub(crate) fn query_time(params: &crate::drive::Params, name: &'static str) -> Result<Option<DateTime<Utc>>, ApiError> {
    match params.text(name) {
        None => Ok(None),
        Some(text) => DateTime::parse_from_rfc3339(text)
            .map(|at| Some(at.with_timezone(&Utc)))
            .map_err(|_| ApiError::legacy(400, "badRequest", "Bad Request").at(name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zone_keeps_local_time_across_daylight_saving() {
        let tz = zone("Europe/Paris").unwrap();
        let winter = local_to_utc(NaiveDate::from_ymd_opt(2026, 1, 5).unwrap().and_hms_opt(9, 0, 0).unwrap(), tz);
        let summer = local_to_utc(NaiveDate::from_ymd_opt(2026, 7, 5).unwrap().and_hms_opt(9, 0, 0).unwrap(), tz);
        assert_eq!(render(winter, Some("Europe/Paris")), "2026-01-05T09:00:00+01:00");
        assert_eq!(render(summer, Some("Europe/Paris")), "2026-07-05T09:00:00+02:00");
        assert_eq!(render(summer, None), "2026-07-05T07:00:00Z");
    }

    #[test]
    fn a_time_without_offset_needs_a_zone() {
        let body = json!({ "start": { "dateTime": "2026-01-05T09:00:00" } });
        assert!(When::parse(body.as_object().unwrap(), "start").is_err());
        let body = json!({ "start": { "dateTime": "2026-01-05T09:00:00", "timeZone": "America/New_York" } });
        let when = When::parse(body.as_object().unwrap(), "start").unwrap();
        assert_eq!(when.instant("UTC").to_rfc3339(), "2026-01-05T14:00:00+00:00");
    }
}
