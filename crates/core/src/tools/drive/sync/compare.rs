//! Which side of a file changed since the last sync, from modified times and the sync mark Gatehouse
//! leaves on the Drive file.

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};

use crate::google::drive::File;

/// The Drive `appProperties` key holding the modified time (ms since the epoch) both sides had when
/// Gatehouse last synced the file.
pub(super) const SYNC_MARK: &str = "gatehouseSyncMtime";

/// Times closer than this are the same time: some file systems keep modified times to the second (FAT to
/// two seconds), Drive to the millisecond.
pub(super) const SAME_TIME_MS: i64 = 2000;

pub(super) fn same_time(a: i64, b: i64) -> bool {
    (a - b).abs() < SAME_TIME_MS
}

/// A Drive file's `modifiedTime` in ms since the epoch.
pub(super) fn drive_ms(file: &File) -> Option<i64> {
    let time = file.modified_time.as_deref()?;
    DateTime::parse_from_rfc3339(time).ok().map(|t| t.timestamp_millis())
}

/// The sync mark on a Drive file, if Gatehouse synced it before.
pub(super) fn mark(file: &File) -> Option<i64> {
    file.app_properties.as_ref()?.get(SYNC_MARK)?.parse().ok()
}

/// ms since the epoch as RFC 3339 with milliseconds, as Drive writes times.
pub(super) fn rfc3339(ms: i64) -> String {
    Utc.timestamp_millis_opt(ms).single().unwrap_or_default().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Which sides changed since the last sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    Neither,
    Local,
    Drive,
    Both,
}

/// With a sync mark, each side changed if its time moved from the mark; without one (never synced by
/// Gatehouse), the newer side is the one that changed.
pub(super) fn changes(local_ms: i64, drive_ms: i64, mark: Option<i64>) -> Change {
    let (local, drive) = match mark {
        Some(mark) => (!same_time(local_ms, mark), !same_time(drive_ms, mark)),
        None if same_time(local_ms, drive_ms) => (false, false),
        None => (local_ms > drive_ms, drive_ms > local_ms),
    };
    match (local, drive) {
        (false, false) => Change::Neither,
        (true, false) => Change::Local,
        (false, true) => Change::Drive,
        (true, true) => Change::Both,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mark_tells_which_side_moved() {
        let base = 1_700_000_000_000;
        assert_eq!(changes(base, base + 500, Some(base)), Change::Neither);
        assert_eq!(changes(base + 60_000, base, Some(base)), Change::Local);
        assert_eq!(changes(base, base + 60_000, Some(base)), Change::Drive);
        assert_eq!(changes(base + 60_000, base + 90_000, Some(base)), Change::Both);
        assert_eq!(changes(base + 60_000, base, None), Change::Local);
        assert_eq!(changes(base, base + 60_000, None), Change::Drive);
    }

    #[test]
    fn times_round_trip_through_rfc3339() {
        let file = File { modified_time: Some(rfc3339(1_700_000_000_123)), ..File::default() };
        assert_eq!(drive_ms(&file), Some(1_700_000_000_123));
        assert_eq!(rfc3339(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
    }
}
