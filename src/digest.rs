//! The daily digest's schedule: a local time of day (`digest.at`, `"09:00"` or `"09:00:30"`) in
//! `notifications.timezone`, and when a digest is due. Pure: the daemon passes the time and the date of the last
//! digest sent (kept in a file, so a restart neither repeats nor forgets one).
//!
//! A digest is due once per local day, at the first look at or after `at`: a daemon that was down at that time
//! sends it when it starts, once, whatever number of days it missed (and a daemon started before `at` waits for
//! it). On a day when the clock jumps over `at` (summer time), the digest goes out at the first moment after the
//! jump; on a day when `at` happens twice, once.

use chrono::{DateTime, NaiveDate, TimeZone as _, Timelike, Utc};
use chrono_tz::Tz;

/// A time zone by IANA name (`Europe/Berlin`); `UTC` when `None`. The error says what is wrong, for a config
/// message.
pub fn time_zone(name: Option<&str>) -> Result<Tz, String> {
    match name {
        None => Ok(Tz::UTC),
        Some(name) => Tz::from_str_insensitive(name.trim()).map_err(|_| {
            format!("unknown time zone `{name}`: use an IANA name such as Europe/Berlin or UTC")
        }),
    }
}

/// When the digest goes out each day: seconds after local midnight, in a time zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestAt {
    seconds: u32,
    tz: Tz,
}

impl DigestAt {
    /// Reads `"HH:MM"` or `"HH:MM:SS"` (24-hour local time) in `tz`. The error says what is wrong.
    pub fn parse(at: &str, tz: Tz) -> Result<DigestAt, String> {
        let bad = || format!("`{at}` is not a time of day like 09:00 (or 09:00:30)");
        let parts: Vec<&str> = at.trim().split(':').collect();
        if !(2..=3).contains(&parts.len()) {
            return Err(bad());
        }
        let mut values = Vec::with_capacity(3);
        for (part, limit) in parts.iter().zip([24, 60, 60]) {
            let ok = part.len() == 2 && part.bytes().all(|b| b.is_ascii_digit());
            match part.parse::<u32>() {
                Ok(v) if ok && v < limit => values.push(v),
                _ => return Err(bad()),
            }
        }
        values.resize(3, 0);
        Ok(DigestAt {
            seconds: values[0] * 3600 + values[1] * 60 + values[2],
            tz,
        })
    }

    /// The time zone the digest's days are counted in.
    #[must_use]
    pub fn tz(&self) -> &Tz {
        &self.tz
    }

    /// The local date a digest is due for at `now`, given the date of the last one sent; `None`: not due.
    #[must_use]
    pub fn due(&self, now: DateTime<Utc>, last_sent: Option<NaiveDate>) -> Option<NaiveDate> {
        let local = now.with_timezone(&self.tz);
        let today = local.date_naive();
        let seconds = local.num_seconds_from_midnight();
        (seconds >= self.seconds && last_sent.is_none_or(|d| d < today)).then_some(today)
    }
}

/// The start and end (UTC) of the local day before `today` in `tz`: `[start, end)`.
#[must_use]
pub fn day_before(today: NaiveDate, tz: &Tz) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let yesterday = today.pred_opt()?;
    Some((start_of(yesterday, tz)?, start_of(today, tz)?))
}

/// The first instant of local day `d` in `tz`: its midnight, the earlier one when midnight happens twice, or the
/// first minute after a jump that skips it.
fn start_of(d: NaiveDate, tz: &Tz) -> Option<DateTime<Utc>> {
    (0..=24 * 60).find_map(|minute| {
        let local = d.and_hms_opt(minute / 60, minute % 60, 0)?;
        tz.from_local_datetime(&local)
            .earliest()
            .map(|t| t.with_timezone(&Utc))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn date(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn due_once_a_day_at_or_after_the_local_time() {
        let berlin = time_zone(Some("Europe/Berlin")).unwrap();
        let d = DigestAt::parse("09:00", berlin).unwrap();
        // 08:00Z is 09:00 in Berlin in February (UTC+1).
        assert_eq!(d.due(at("2026-02-02T07:59:59Z"), None), None);
        assert_eq!(
            d.due(at("2026-02-02T08:00:00Z"), None),
            Some(date("2026-02-02"))
        );
        // Sent today: not again, however late; due again the next day.
        let sent = Some(date("2026-02-02"));
        assert_eq!(d.due(at("2026-02-02T22:00:00Z"), sent), None);
        assert_eq!(d.due(at("2026-02-03T07:59:00Z"), sent), None);
        assert_eq!(
            d.due(at("2026-02-03T08:00:00Z"), sent),
            Some(date("2026-02-03"))
        );
        // Down for days: one digest, for today.
        assert_eq!(
            d.due(at("2026-02-09T12:00:00Z"), sent),
            Some(date("2026-02-09"))
        );
    }

    #[test]
    fn seconds_and_summer_time() {
        let d = DigestAt::parse("12:30:15", Tz::UTC).unwrap();
        assert_eq!(d.due(at("2026-02-02T12:30:14Z"), None), None);
        assert!(d.due(at("2026-02-02T12:30:15Z"), None).is_some());
        // 02:30 does not exist in Berlin on 2026-03-29 (02:00 → 03:00): due at 03:00 local (01:00Z).
        let d = DigestAt::parse("02:30", time_zone(Some("Europe/Berlin")).unwrap()).unwrap();
        assert_eq!(d.due(at("2026-03-29T00:59:59Z"), None), None);
        assert_eq!(
            d.due(at("2026-03-29T01:00:00Z"), None),
            Some(date("2026-03-29"))
        );
    }

    #[test]
    fn the_day_before_in_local_time() {
        let berlin = time_zone(Some("Europe/Berlin")).unwrap();
        let (start, end) = day_before(date("2026-02-03"), &berlin).unwrap();
        assert_eq!(start.to_rfc3339(), "2026-02-01T23:00:00+00:00");
        assert_eq!(end.to_rfc3339(), "2026-02-02T23:00:00+00:00");
    }

    #[test]
    fn bad_times_say_what_is_wrong() {
        for bad in [
            "9:00",
            "24:00",
            "09:60",
            "09:00:60",
            "09",
            "09:00:00:00",
            "",
            "ab:cd",
            "+9:00",
        ] {
            assert_eq!(
                DigestAt::parse(bad, Tz::UTC).unwrap_err(),
                format!("`{bad}` is not a time of day like 09:00 (or 09:00:30)")
            );
        }
        assert_eq!(
            time_zone(Some("Mars/Olympus")).unwrap_err(),
            "unknown time zone `Mars/Olympus`: use an IANA name such as Europe/Berlin or UTC"
        );
    }
}
