//! Quiet hours: a daily span of local time (`22:00-07:00` in an IANA time zone) during which announcements and
//! reminders are sent silently (Telegram's `disable_notification`), except for urgent plans.

use chrono::{DateTime, Timelike, Utc};
use chrono_tz::Tz;

/// A daily span of local time in a time zone. A span whose end is before its start runs over midnight.
#[derive(Debug, Clone)]
pub struct QuietHours {
    /// Minutes after local midnight.
    start: u16,
    end: u16,
    tz: Tz,
}

impl QuietHours {
    /// Reads `"HH:MM-HH:MM"` in the time zone named `timezone` (IANA, e.g. `Europe/Berlin`; `UTC` when `None`).
    /// The error says what is wrong, for a config message.
    pub fn parse(span: &str, timezone: Option<&str>) -> Result<QuietHours, QuietError> {
        let tz = crate::digest::time_zone(timezone).map_err(QuietError::Zone)?;
        let bad = || {
            QuietError::Span(format!(
                "`{span}` is not a span of local time like 22:00-07:00"
            ))
        };
        let (start, end) = span.split_once('-').ok_or_else(bad)?;
        let minutes = |s: &str| -> Option<u16> {
            let (h, m) = s.trim().split_once(':')?;
            let (h, m): (u16, u16) = (h.parse().ok()?, m.parse().ok()?);
            (h < 24 && m < 60 && m.to_string().len() <= 2).then_some(h * 60 + m)
        };
        let (start, end) = (
            minutes(start).ok_or_else(bad)?,
            minutes(end).ok_or_else(bad)?,
        );
        if start == end {
            return Err(QuietError::Span(format!(
                "`{span}` starts and ends at the same time"
            )));
        }
        Ok(QuietHours { start, end, tz })
    }

    /// True when `now` falls in the quiet span (start included, end excluded).
    #[must_use]
    pub fn contains(&self, now: DateTime<Utc>) -> bool {
        let local = now.with_timezone(&self.tz);
        let minute = u16::try_from(local.hour()).unwrap_or(0) * 60
            + u16::try_from(local.minute()).unwrap_or(0);
        if self.start < self.end {
            (self.start..self.end).contains(&minute)
        } else {
            minute >= self.start || minute < self.end
        }
    }

    /// True now.
    #[must_use]
    pub fn now(&self) -> bool {
        self.contains(Utc::now())
    }
}

/// What is wrong with a quiet-hours setting: the span, or the time zone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuietError {
    #[error("{0}")]
    Span(String),
    #[error("{0}")]
    Zone(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn a_span_over_midnight_in_a_time_zone() {
        let q = QuietHours::parse("22:00-07:00", Some("Europe/Berlin")).unwrap();
        // Berlin is UTC+1 in February: 21:00Z is 22:00 there.
        assert!(!q.contains(at("2026-02-01T20:59:00Z")));
        assert!(q.contains(at("2026-02-01T21:00:00Z")));
        assert!(q.contains(at("2026-02-02T05:59:00Z")));
        assert!(!q.contains(at("2026-02-02T06:00:00Z")));
        // Summer time: UTC+2.
        assert!(q.contains(at("2026-07-01T20:00:00Z")));
        assert!(!q.contains(at("2026-07-01T19:59:00Z")));
    }

    #[test]
    fn a_span_within_a_day_in_utc() {
        let q = QuietHours::parse("12:30-13:00", None).unwrap();
        assert!(q.contains(at("2026-02-01T12:30:00Z")));
        assert!(!q.contains(at("2026-02-01T13:00:00Z")));
        assert!(!q.contains(at("2026-02-01T12:29:59Z")));
    }

    #[test]
    fn bad_settings_say_what_is_wrong() {
        let e = |span, tz| QuietHours::parse(span, tz).unwrap_err().to_string();
        assert_eq!(
            e("22-7", None),
            "`22-7` is not a span of local time like 22:00-07:00"
        );
        assert_eq!(
            e("25:00-07:00", None),
            "`25:00-07:00` is not a span of local time like 22:00-07:00"
        );
        assert_eq!(
            e("07:00-07:00", None),
            "`07:00-07:00` starts and ends at the same time"
        );
        assert_eq!(
            e("22:00-07:00", Some("Mars/Olympus")),
            "unknown time zone `Mars/Olympus`: use an IANA name such as Europe/Berlin or UTC"
        );
    }
}
