//! Recurring events: the `RRULE` subset the emulator expands (`FREQ` DAILY, WEEKLY, MONTHLY or YEARLY;
//! `INTERVAL`, `COUNT`, `UNTIL`; `BYDAY` with plain weekdays for WEEKLY), in the event's time zone so a
//! 09:00 meeting stays at 09:00 across daylight-saving changes.
//!
//! Known strictness: Google accepts every RFC 5545 rule (and `EXDATE`/`RDATE` lines); the emulator answers
//! 400 for what it cannot expand, so a test never passes on an expansion the emulator got wrong.

use chrono::{DateTime, Datelike, Days, Months, NaiveDate, NaiveDateTime, Utc, Weekday};

use super::time::{When, local_to_utc, zone};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Freq {
    Daily,
    Weekly,
    Monthly,
    Yearly,
}

/// A parsed `RRULE`.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    freq: Freq,
    interval: u32,
    count: Option<usize>,
    until: Option<Until>,
    by_day: Vec<Weekday>,
}

#[derive(Debug, Clone, Copy)]
enum Until {
    Day(NaiveDate),
    At(DateTime<Utc>),
}

/// No expansion goes past this many occurrences (Google caps a series' instances likewise).
const MAX_OCCURRENCES: usize = 5000;

impl Rule {
    /// Reads the `recurrence` lines; the reason in words when the emulator can't expand them.
    pub(crate) fn parse(lines: &[String]) -> Result<Rule, String> {
        let [line] = lines else {
            return Err("the emulator expands exactly one RRULE line (no EXDATE or RDATE)".to_owned());
        };
        let body = line.strip_prefix("RRULE:").ok_or_else(|| format!("{line:?} is not an RRULE line"))?;
        let mut rule = Rule { freq: Freq::Daily, interval: 1, count: None, until: None, by_day: Vec::new() };
        let mut freq = None;
        for part in body.split(';').filter(|p| !p.is_empty()) {
            let (key, value) = part.split_once('=').ok_or_else(|| format!("{part:?} is not KEY=VALUE"))?;
            match key {
                "FREQ" => {
                    freq = Some(match value {
                        "DAILY" => Freq::Daily,
                        "WEEKLY" => Freq::Weekly,
                        "MONTHLY" => Freq::Monthly,
                        "YEARLY" => Freq::Yearly,
                        other => return Err(format!("FREQ={other} is not expanded by the emulator")),
                    })
                }
                "INTERVAL" => rule.interval = value.parse().ok().filter(|n| *n > 0).ok_or("bad INTERVAL")?,
                "COUNT" => rule.count = Some(value.parse().ok().filter(|n| *n > 0).ok_or("bad COUNT")?),
                "UNTIL" => rule.until = Some(parse_until(value).ok_or("bad UNTIL")?),
                "BYDAY" => {
                    rule.by_day = value.split(',').map(weekday).collect::<Option<Vec<_>>>().ok_or("bad BYDAY")?;
                }
                "WKST" => {}
                other => return Err(format!("{other} is not expanded by the emulator")),
            }
        }
        rule.freq = freq.ok_or("FREQ is required")?;
        if !rule.by_day.is_empty() && rule.freq != Freq::Weekly {
            return Err("BYDAY is expanded only with FREQ=WEEKLY".to_owned());
        }
        if rule.count.is_some() && rule.until.is_some() {
            return Err("COUNT and UNTIL may not both be given".to_owned());
        }
        Ok(rule)
    }

    /// The occurrences' starts (as boundaries like `start`) that begin before `to`, in order; `zone_name` is
    /// the zone a timed event repeats in.
    pub(crate) fn starts(&self, start: &When, zone_name: &str, to: DateTime<Utc>) -> Vec<When> {
        let tz = zone(zone_name);
        let (local, date_only) = match start {
            When::Date(date) => (date.and_hms_opt(0, 0, 0).unwrap_or_default(), true),
            When::At(at, _) => (tz.map_or(at.naive_utc(), |tz| at.with_timezone(&tz).naive_local()), false),
        };
        let at_of = |local: NaiveDateTime| tz.map_or_else(|| local.and_utc(), |tz| local_to_utc(local, tz));
        let mut out = Vec::new();
        for candidate in self.candidates(local) {
            if out.len() >= self.count.unwrap_or(MAX_OCCURRENCES).min(MAX_OCCURRENCES) {
                break;
            }
            let when = if date_only {
                When::Date(candidate.date())
            } else {
                let zone = match start {
                    When::At(_, zone) => zone.clone(),
                    When::Date(_) => None,
                };
                When::At(at_of(candidate), zone)
            };
            let past_until = match (self.until, &when) {
                (Some(Until::Day(day)), When::Date(date)) => *date > day,
                (Some(Until::Day(day)), When::At(at, _)) => at.date_naive() > day,
                (Some(Until::At(until)), When::Date(date)) => *date > until.date_naive(),
                (Some(Until::At(until)), When::At(at, _)) => *at > until,
                (None, _) => false,
            };
            if past_until || when.instant(zone_name) >= to {
                break;
            }
            out.push(when);
        }
        out
    }

    /// Local starts in order, from `first` on.
    fn candidates(&self, first: NaiveDateTime) -> impl Iterator<Item = NaiveDateTime> + '_ {
        let interval = self.interval;
        let mut by_day = self.by_day.clone();
        by_day.sort_by_key(Weekday::num_days_from_monday);
        let week_start = first - Days::new(u64::from(first.weekday().num_days_from_monday()));
        (0u32..).take(MAX_OCCURRENCES * 2).flat_map(move |k| {
            let step = k * interval;
            let found: Vec<NaiveDateTime> = match self.freq {
                Freq::Daily => first.checked_add_days(Days::new(u64::from(step))).into_iter().collect(),
                Freq::Weekly if by_day.is_empty() => {
                    first.checked_add_days(Days::new(7 * u64::from(step))).into_iter().collect()
                }
                Freq::Weekly => by_day
                    .iter()
                    .filter_map(|day| {
                        week_start
                            .checked_add_days(Days::new(7 * u64::from(step) + u64::from(day.num_days_from_monday())))
                    })
                    .filter(|candidate| *candidate >= first)
                    .collect(),
                Freq::Monthly => same_day(first, step).into_iter().collect(),
                Freq::Yearly => same_day(first, step * 12).into_iter().collect(),
            };
            found
        })
    }
}

/// `first` moved `months` months on, when that month has the same day (no 31 June, no 29 February in
/// other years: those occurrences are skipped, as RFC 5545 says).
fn same_day(first: NaiveDateTime, months: u32) -> Option<NaiveDateTime> {
    let moved = first.checked_add_months(Months::new(months))?;
    (moved.day() == first.day()).then_some(moved)
}

fn weekday(code: &str) -> Option<Weekday> {
    Some(match code {
        "MO" => Weekday::Mon,
        "TU" => Weekday::Tue,
        "WE" => Weekday::Wed,
        "TH" => Weekday::Thu,
        "FR" => Weekday::Fri,
        "SA" => Weekday::Sat,
        "SU" => Weekday::Sun,
        _ => return None,
    })
}

fn parse_until(value: &str) -> Option<Until> {
    if let Ok(at) = NaiveDateTime::parse_from_str(value, "%Y%m%dT%H%M%SZ") {
        return Some(Until::At(at.and_utc()));
    }
    NaiveDate::parse_from_str(value, "%Y%m%d").ok().map(Until::Day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn weekly_by_day_with_count() {
        let rule = Rule::parse(&["RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=3".to_owned()]).unwrap();
        let start = When::At(at("2026-12-02T09:00:00Z"), None); // a Wednesday
        let starts = rule.starts(&start, "UTC", at("2027-12-01T00:00:00Z"));
        let got: Vec<_> = starts.iter().map(|w| w.instant("UTC").to_rfc3339()).collect();
        assert_eq!(got, ["2026-12-02T09:00:00+00:00", "2026-12-07T09:00:00+00:00", "2026-12-09T09:00:00+00:00"]);
    }

    #[test]
    fn daily_stays_at_local_time_across_a_clock_change() {
        let rule = Rule::parse(&["RRULE:FREQ=DAILY;UNTIL=20260330T235959Z".to_owned()]).unwrap();
        let start = When::At(at("2026-03-28T08:00:00Z"), Some("Europe/Paris".to_owned())); // 09:00 CET
        let starts = rule.starts(&start, "Europe/Paris", at("2026-04-30T00:00:00Z"));
        let got: Vec<_> = starts.iter().map(|w| w.instant("UTC").to_rfc3339()).collect();
        assert_eq!(got, ["2026-03-28T08:00:00+00:00", "2026-03-29T07:00:00+00:00", "2026-03-30T07:00:00+00:00"]);
    }

    #[test]
    fn what_is_not_expanded_is_refused() {
        assert!(Rule::parse(&["RRULE:FREQ=MONTHLY;BYDAY=1MO".to_owned()]).is_err());
        assert!(Rule::parse(&["RRULE:FREQ=DAILY".to_owned(), "EXDATE:20260101".to_owned()]).is_err());
        assert!(Rule::parse(&["RRULE:FREQ=HOURLY".to_owned()]).is_err());
    }
}
