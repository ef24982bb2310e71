//! `find_free_slots`: the times in a window when none of the calendars is busy, from `freebusy.query`
//! (which sees only busy periods, so it works on calendars shared as free/busy only).

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::calendar_id;
use super::times::{in_zone, rfc3339, window_bound, zone};
use crate::google::calendar::TimePeriod;
use crate::tools::{ToolContext, ToolError};

fn utc() -> String {
    "UTC".to_owned()
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindFreeSlotsArgs {
    /// The calendars that must all be free (ids from list_calendars, or people's email addresses).
    pub calendar_ids: Vec<String>,
    /// The window's start: RFC 3339 (2026-12-01T09:00:00+01:00), or a date meaning midnight in timezone.
    pub time_min: String,
    /// The window's end, written like time_min.
    pub time_max: String,
    /// The IANA time zone the slots are written in (and dates are read in), e.g. Europe/Paris.
    #[serde(default = "utc")]
    pub timezone: String,
}

type Span = (DateTime<Utc>, DateTime<Utc>);

/// The busy periods as one sorted list, overlapping and touching ones merged.
pub(super) fn merge(mut busy: Vec<Span>) -> Vec<Span> {
    busy.sort();
    let mut merged: Vec<Span> = Vec::new();
    for (start, end) in busy {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// The gaps of `[from, to)` that no merged busy period covers.
pub(super) fn free(from: DateTime<Utc>, to: DateTime<Utc>, merged: &[Span]) -> Vec<Span> {
    let mut slots = Vec::new();
    let mut cursor = from;
    for (start, end) in merged {
        if *end <= cursor {
            continue;
        }
        if *start >= to {
            break;
        }
        if *start > cursor {
            slots.push((cursor, *start));
        }
        cursor = cursor.max(*end);
    }
    if cursor < to {
        slots.push((cursor, to));
    }
    slots
}

fn period(busy: &TimePeriod) -> Result<Span, ToolError> {
    let read = |text: &str| {
        DateTime::parse_from_rfc3339(text).map(|at| at.with_timezone(&Utc)).map_err(|_| {
            ToolError::invalid(format!(
                "Google Calendar answered a busy time Gatehouse can't read ({text:?}). Please report this."
            ))
        })
    };
    Ok((read(&busy.start)?, read(&busy.end)?))
}

pub(super) async fn find_free_slots(ctx: ToolContext, args: FindFreeSlotsArgs) -> Result<Value, ToolError> {
    let tz = zone(&args.timezone, "timezone")?;
    if args.calendar_ids.is_empty() {
        return Err(ToolError::invalid("calendar_ids is empty: give at least one calendar id (primary for your own)."));
    }
    let ids: Vec<String> =
        args.calendar_ids.iter().map(|id| calendar_id(id).map(str::to_owned)).collect::<Result<_, _>>()?;
    let from = window_bound(&args.time_min, Some(tz), "time_min")?;
    let to = window_bound(&args.time_max, Some(tz), "time_max")?;
    if to <= from {
        return Err(ToolError::invalid("time_max is not after time_min. Give a window whose end is after its start."));
    }
    let answer = ctx.google.calendar().free_busy(&ids, &rfc3339(from), &rfc3339(to), tz.name()).await?;
    let mut busy = Vec::new();
    for id in &ids {
        let Some(calendar) = answer.get(id) else {
            return Err(ToolError::invalid(format!(
                "Google Calendar said nothing about the calendar {id}. Check the id with list_calendars."
            )));
        };
        if !calendar.errors.is_empty() {
            let reasons: Vec<&str> = calendar.errors.iter().map(|e| e.reason.as_str()).collect();
            // Slots computed without this calendar could be times it is busy: better none than wrong ones.
            return Err(ToolError::invalid(format!(
                "The calendar {id} could not be read ({}). Check the id with list_calendars, or ask its owner to share at least its free/busy information with this account.",
                reasons.join(", ")
            )));
        }
        for period_of in &calendar.busy {
            busy.push(period(period_of)?);
        }
    }
    let merged = merge(busy);
    let slots = free(from, to, &merged);
    let show = |(start, end): &Span| json!({ "start": in_zone(*start, tz), "end": in_zone(*end, tz) });
    Ok(json!({
        "timezone": tz.name(),
        "time_min": in_zone(from, tz),
        "time_max": in_zone(to, tz),
        "calendar_ids": ids,
        "busy": merged.iter().map(show).collect::<Vec<_>>(),
        "count": slots.len(),
        "free_slots": slots
            .iter()
            .map(|slot| {
                let mut out = show(slot);
                out["minutes"] = json!((slot.1 - slot.0).num_minutes());
                out
            })
            .collect::<Vec<_>>(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn gaps_are_what_no_busy_period_covers() {
        let merged = merge(vec![
            (at("2026-12-01T11:00:00Z"), at("2026-12-01T12:00:00Z")),
            (at("2026-12-01T08:00:00Z"), at("2026-12-01T10:00:00Z")),
            (at("2026-12-01T11:30:00Z"), at("2026-12-01T13:00:00Z")),
            (at("2026-12-01T13:00:00Z"), at("2026-12-01T13:30:00Z")),
        ]);
        assert_eq!(merged.len(), 2, "overlapping and touching periods merge");
        let slots = free(at("2026-12-01T09:00:00Z"), at("2026-12-01T17:00:00Z"), &merged);
        assert_eq!(
            slots,
            [
                (at("2026-12-01T10:00:00Z"), at("2026-12-01T11:00:00Z")),
                (at("2026-12-01T13:30:00Z"), at("2026-12-01T17:00:00Z")),
            ]
        );
    }

    #[test]
    fn a_window_without_busy_time_is_one_slot_and_a_full_one_none() {
        let (from, to) = (at("2026-12-01T09:00:00Z"), at("2026-12-01T10:00:00Z"));
        assert_eq!(free(from, to, &[]), [(from, to)]);
        assert!(free(from, to, &[(at("2026-12-01T08:00:00Z"), at("2026-12-01T11:00:00Z"))]).is_empty());
    }
}
