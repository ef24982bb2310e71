//! Times as the Calendar tools take them: RFC 3339 with an offset (`2026-12-01T10:00:00+01:00`, `…Z`), a
//! local time with a `timezone` (`2026-12-01T10:00` in `Europe/Paris`), or a date for an all-day event.
//! Every other spelling is refused with an example of what works: a time Google would guess at is worse
//! than an error.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, Utc};
use chrono_tz::Tz;

use crate::google::calendar::EventDateTime;
use crate::tools::ToolError;

/// A time zone argument: an IANA name (`Europe/Paris`, `America/New_York`, `UTC`).
pub(super) fn zone(name: &str, argument: &str) -> Result<Tz, ToolError> {
    name.trim().parse::<Tz>().map_err(|_| {
        ToolError::invalid(format!(
            "{argument} is {name:?}, which is not a time zone name. Use an IANA name such as Europe/Paris, America/New_York or UTC."
        ))
    })
}

/// A boundary of an event, read from a tool argument.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Moment {
    /// An all-day boundary.
    Day(NaiveDate),
    /// A moment with its offset as given.
    At(DateTime<FixedOffset>),
    /// A wall-clock time in the `timezone` argument's zone.
    Local(NaiveDateTime, Tz),
}

const LOCAL_FORMATS: [&str; 3] = ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M"];

impl Moment {
    /// Reads `text` (the argument `argument`), with the call's `timezone` for a time without an offset.
    pub(super) fn parse(text: &str, timezone: Option<Tz>, argument: &str) -> Result<Moment, ToolError> {
        let text = text.trim();
        if let Ok(at) = DateTime::parse_from_rfc3339(text) {
            return Ok(Moment::At(at));
        }
        if let Ok(day) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
            return Ok(Moment::Day(day));
        }
        let local = LOCAL_FORMATS.iter().find_map(|format| NaiveDateTime::parse_from_str(text, format).ok());
        match (local, timezone) {
            (Some(local), Some(tz)) => Ok(Moment::Local(local, tz)),
            (Some(_), None) => Err(ToolError::invalid(format!(
                "{argument} is {text:?}, a time without a time zone. Add an offset ({text}:00+01:00, or Z for UTC) or give timezone (e.g. Europe/Paris)."
            ))),
            (None, _) => Err(ToolError::invalid(format!(
                "{argument} is {text:?}, which is not a time Gatehouse can read. Use RFC 3339 such as 2026-12-01T10:00:00+01:00 (or …Z for UTC), or a date such as 2026-12-01 for an all-day event."
            ))),
        }
    }

    pub(super) fn is_day(&self) -> bool {
        matches!(self, Moment::Day(_))
    }

    /// The moment it stands for (an all-day boundary: midnight UTC; only used to compare with another day).
    fn instant(&self) -> DateTime<Utc> {
        match self {
            Moment::Day(day) => day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc(),
            Moment::At(at) => at.with_timezone(&Utc),
            Moment::Local(local, tz) => local_instant(*local, *tz),
        }
    }

    /// The `EventDateTime` Google takes; `timezone` is the zone the event is written in, if any.
    pub(super) fn to_google(&self, timezone: Option<Tz>) -> EventDateTime {
        match self {
            Moment::Day(day) => EventDateTime { date: Some(day.format("%Y-%m-%d").to_string()), ..Default::default() },
            Moment::At(at) => EventDateTime {
                date_time: Some(at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
                time_zone: timezone.map(|tz| tz.name().to_owned()),
                ..Default::default()
            },
            // Written with its offset in the zone: the discovery document's `date-time` is RFC 3339 in full.
            Moment::Local(local, tz) => EventDateTime {
                date_time: Some(
                    local_instant(*local, *tz).with_timezone(tz).to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                ),
                time_zone: Some(tz.name().to_owned()),
                ..Default::default()
            },
        }
    }
}

/// Checks that `start` and `end` make an event and returns `end` as Google takes it: both all-day or both
/// timed, and the end after the start. An all-day end equal to the start is a one-day event (Google's end
/// date is the day after).
pub(super) fn event_span(start: &Moment, end: &Moment) -> Result<Moment, ToolError> {
    match (start, end) {
        (Moment::Day(first), Moment::Day(last)) if last == first => Ok(Moment::Day(first.succ_opt().unwrap_or(*first))),
        (Moment::Day(first), Moment::Day(last)) if last < first => Err(ToolError::invalid(format!(
            "end ({last}) is before start ({first}). For an all-day event give the day after the last day as end, or the same day for a one-day event."
        ))),
        (Moment::Day(_), Moment::Day(_)) => Ok(end.clone()),
        (Moment::Day(_), _) | (_, Moment::Day(_)) => Err(ToolError::invalid(
            "start and end must both be dates (an all-day event, e.g. 2026-12-01) or both be times (e.g. 2026-12-01T10:00:00+01:00).",
        )),
        _ if end.instant() <= start.instant() => {
            Err(ToolError::invalid("end is not after start. Give an end time later than the start time."))
        }
        _ => Ok(end.clone()),
    }
}

/// A window boundary for listing (`time_min`, `time_max`) in RFC 3339, as `events.list` and
/// `freebusy.query` take it: a date is midnight in `zone` (UTC without one).
pub(super) fn window_bound(text: &str, zone: Option<Tz>, argument: &str) -> Result<DateTime<Utc>, ToolError> {
    match Moment::parse(text, zone, argument)? {
        Moment::Day(day) => {
            let midnight = day.and_hms_opt(0, 0, 0).unwrap_or_default();
            Ok(zone.map_or_else(|| midnight.and_utc(), |tz| local_instant(midnight, tz)))
        }
        other => Ok(other.instant()),
    }
}

/// The moment a wall-clock time is in `tz`: the earlier one when a clock change repeats it, the time just
/// after the gap when it skips it.
pub(super) fn local_instant(local: NaiveDateTime, tz: Tz) -> DateTime<Utc> {
    use chrono::{LocalResult, TimeZone};
    match tz.from_local_datetime(&local) {
        LocalResult::Single(at) | LocalResult::Ambiguous(at, _) => at.with_timezone(&Utc),
        LocalResult::None => {
            let later = local + chrono::Duration::hours(1);
            tz.from_local_datetime(&later).earliest().map_or_else(|| later.and_utc(), |at| at.with_timezone(&Utc))
        }
    }
}

/// `at` as RFC 3339 in `tz`, with its offset there (`Z` in UTC).
pub(super) fn in_zone(at: DateTime<Utc>, tz: Tz) -> String {
    at.with_timezone(&tz).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A moment as RFC 3339 for Google: UTC, `Z`.
pub(super) fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Checks an event's recurrence lines: each one an iCalendar `RRULE`, `EXRULE`, `RDATE` or `EXDATE` line.
pub(super) fn recurrence(lines: &[String]) -> Result<(), ToolError> {
    for line in lines {
        let known = ["RRULE:", "EXRULE:", "RDATE", "EXDATE"].iter().any(|prefix| line.starts_with(prefix));
        if !known {
            return Err(ToolError::invalid(format!(
                "recurrence line {line:?} is not an iCalendar rule. Use lines such as RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10 (RFC 5545)."
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_with_offsets_dates_and_local_times_with_a_zone_are_read() {
        assert!(matches!(Moment::parse("2026-12-01T10:00:00+01:00", None, "start").unwrap(), Moment::At(_)));
        assert!(Moment::parse("2026-12-01", None, "start").unwrap().is_day());
        let paris = zone("Europe/Paris", "timezone").unwrap();
        assert!(matches!(Moment::parse("2026-12-01T10:00", Some(paris), "start").unwrap(), Moment::Local(..)));
    }

    #[test]
    fn unreadable_or_zoneless_times_say_what_to_write() {
        let error = Moment::parse("2026-12-01T10:00", None, "start").unwrap_err().to_string();
        assert!(error.contains("without a time zone"), "{error}");
        let error = Moment::parse("tomorrow at ten", None, "end").unwrap_err().to_string();
        assert!(error.contains("end is \"tomorrow at ten\"") && error.contains("RFC 3339"), "{error}");
        assert!(zone("Europe/Pariss", "timezone").unwrap_err().to_string().contains("IANA"));
    }

    #[test]
    fn an_all_day_end_on_the_start_day_is_a_one_day_event() {
        let day = Moment::parse("2026-12-01", None, "start").unwrap();
        let end = event_span(&day, &day).unwrap();
        assert_eq!(end.to_google(None).date.as_deref(), Some("2026-12-02"));
        let before = Moment::parse("2026-11-30", None, "end").unwrap();
        assert!(event_span(&day, &before).is_err());
        let timed = Moment::parse("2026-12-01T10:00:00Z", None, "end").unwrap();
        assert!(event_span(&day, &timed).is_err());
        assert!(event_span(&timed, &timed).is_err());
    }
}
