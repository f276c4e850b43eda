//! Time as the files record it: RFC 3339 UTC with whole seconds.

/// The current time as plan files carry timestamps (`2026-02-01T10:00:00Z`).
#[must_use]
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
