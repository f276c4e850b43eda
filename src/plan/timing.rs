//! Deadlines, reminders and escalation: the optional time keys of a plan's frontmatter, read into absolute times.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_yaml::Mapping;

use super::{Diagnostic, duration};

/// What happens at the deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnDeadline {
    /// Nothing is answered; the plan stays pending and is shown overdue.
    #[default]
    Wait,
    /// Pending decisions get their `default` (or are skipped) and the plan is submitted.
    Submit,
}

impl OnDeadline {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            OnDeadline::Wait => "wait",
            OnDeadline::Submit => "submit",
        }
    }
}

/// A plan's time keys. A plan without them has `Timing::default()` and behaves as it always did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Timing {
    /// When the answers are due (a duration in the file is counted from `created_at`).
    pub deadline: Option<DateTime<Utc>>,
    pub on_deadline: OnDeadline,
    /// While pending, remind the approvers this often.
    pub remind_every: Option<Duration>,
    /// When to escalate to `escalate_to` if still pending.
    pub escalate_after: Option<DateTime<Utc>>,
    /// Who gets the plan at `escalate_after`, as written: names from the config's `people`, or user ids.
    pub escalate_to: Vec<String>,
    /// 1-based line of `escalate_to` (0 when absent), for diagnoses that need the config to tell.
    pub escalate_to_line: usize,
    /// Owned by the daemon: the last reminder sent.
    pub reminded_at: Option<DateTime<Utc>>,
    /// Owned by the daemon: when the plan was escalated.
    pub escalated_at: Option<DateTime<Utc>>,
}

/// What the daemon's clock must do for a pending plan at some moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Due {
    /// Apply the deadline (`on_deadline: submit`, deadline passed). When set, nothing else is.
    pub deadline: bool,
    /// Escalate (`escalate_after` passed, not escalated yet).
    pub escalate: bool,
    /// Remind (`remind_every` passed since the last reminder, or since `created_at`).
    pub remind: bool,
}

impl Timing {
    /// True when the deadline has passed at `now`.
    #[must_use]
    pub fn overdue(&self, now: DateTime<Utc>) -> bool {
        self.deadline.is_some_and(|d| now >= d)
    }

    /// What is due at `now` for a pending plan created at `created` (one reminder however many intervals
    /// passed: a daemon that was down sends one, not one per missed interval).
    #[must_use]
    pub fn due(&self, created: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Due {
        if self.on_deadline == OnDeadline::Submit && self.overdue(now) {
            return Due {
                deadline: true,
                ..Due::default()
            };
        }
        let escalate = self.escalated_at.is_none() && self.escalate_after.is_some_and(|t| now >= t);
        let remind = self.remind_every.is_some_and(|every| {
            let since = self.reminded_at.or(created);
            let every = chrono::Duration::from_std(every).unwrap_or(chrono::Duration::MAX);
            since
                .and_then(|s| s.checked_add_signed(every))
                .is_some_and(|next| now >= next)
        });
        Due {
            deadline: false,
            escalate,
            remind,
        }
    }

    /// The next moment something becomes due after `now`, if anything will (to sleep until then).
    #[must_use]
    pub fn next_due(&self, created: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
        let deadline = self
            .deadline
            .filter(|_| self.on_deadline == OnDeadline::Submit);
        let escalate = self.escalate_after.filter(|_| self.escalated_at.is_none());
        let remind = self.remind_every.and_then(|every| {
            let every = chrono::Duration::from_std(every).ok()?;
            self.reminded_at.or(created)?.checked_add_signed(every)
        });
        [deadline, escalate, remind].into_iter().flatten().min()
    }
}

/// Reads an RFC 3339 time (any offset, kept as UTC).
#[must_use]
pub fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Reads the time keys of a frontmatter mapping. `text(key)` reads a scalar key as text, `line_of(key)` is a
/// key's 1-based line for diagnoses.
pub fn read(
    map: &Mapping,
    text: impl Fn(&str) -> Result<Option<String>, Diagnostic>,
    line_of: impl Fn(&str) -> usize,
) -> Result<Timing, Diagnostic> {
    let bad = |key: &str, reason: String| Diagnostic::new(line_of(key), reason);
    let created_at = text("created_at")?;
    let created = created_at.as_deref().and_then(parse_time);
    let when = |key: &str| -> Result<Option<DateTime<Utc>>, Diagnostic> {
        let Some(v) = text(key)? else {
            return Ok(None);
        };
        if let Some(t) = parse_time(&v) {
            return Ok(Some(t));
        }
        let span = duration::parse(&v).map_err(|_| {
            bad(
                key,
                format!(
                    "`{key}: {v}` is neither an RFC 3339 time (2026-02-01T18:00:00Z) nor a duration (45s, 90m, 4h, 2d, 1h30m)"
                ),
            )
        })?;
        let Some(created) = created else {
            return Err(bad(
                key,
                format!(
                    "`{key}: {v}` counts from `created_at`, which this plan lacks or does not give as an RFC 3339 time: \
                     add it, or give `{key}` as a time"
                ),
            ));
        };
        let span = chrono::Duration::from_std(span)
            .map_err(|_| bad(key, format!("`{key}: {v}` is too far away")))?;
        created
            .checked_add_signed(span)
            .map(Some)
            .ok_or_else(|| bad(key, format!("`{key}: {v}` is too far away")))
    };
    let stamp = |key: &str| -> Result<Option<DateTime<Utc>>, Diagnostic> {
        match text(key)? {
            None => Ok(None),
            Some(v) => parse_time(&v).map(Some).ok_or_else(|| {
                bad(
                    key,
                    format!("`{key}: {v}` is not an RFC 3339 time (2026-02-01T18:00:00Z)"),
                )
            }),
        }
    };
    let on_deadline = match text("on_deadline")?.as_deref() {
        None | Some("wait") => OnDeadline::Wait,
        Some("submit") => OnDeadline::Submit,
        Some(other) => {
            return Err(bad(
                "on_deadline",
                format!("unknown `on_deadline: {other}`: use wait or submit"),
            ));
        }
    };
    let remind_every = match text("remind_every")? {
        None => None,
        Some(v) if created.is_none() => {
            return Err(bad(
                "remind_every",
                format!(
                    "`remind_every: {v}` counts from `created_at`, which this plan lacks or does not give as an \
                     RFC 3339 time: add it"
                ),
            ));
        }
        Some(v) => match duration::parse(&v) {
            Ok(d) if d >= Duration::from_secs(1) => Some(d),
            _ => {
                return Err(bad(
                    "remind_every",
                    format!(
                        "`remind_every: {v}` is not a duration of at least a second (45s, 90m, 4h, 2d, 1h30m)"
                    ),
                ));
            }
        },
    };
    let escalate_to = super::people::people("escalate_to", map.get("escalate_to"))
        .map_err(|reason| bad("escalate_to", reason))?;
    let escalate_after = when("escalate_after")?;
    if escalate_after.is_some() && escalate_to.is_empty() {
        return Err(bad(
            "escalate_after",
            "`escalate_after` needs `escalate_to`: the people (names or user ids) who get the plan then".to_owned(),
        ));
    }
    Ok(Timing {
        deadline: when("deadline")?,
        on_deadline,
        remind_every,
        escalate_after,
        escalate_to_line: if map.contains_key("escalate_to") {
            line_of("escalate_to")
        } else {
            0
        },
        escalate_to,
        reminded_at: stamp("reminded_at")?,
        escalated_at: stamp("escalated_at")?,
    })
}
