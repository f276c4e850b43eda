//! The daily digest's bookkeeping: when the clock finds it due ([`crate::digest::DigestAt::due`]), the date is
//! recorded in `<queue>/.digest-sent` (one line, `2026-02-02`, written atomically) before the digest is queued
//! for the announcer. So a restart the same day does not send it again, and a digest whose sending was cut
//! short by a crash is not repeated (a lost digest is better than a repeated one: tomorrow's follows).

use std::io;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use tokio::sync::mpsc;

use crate::bot::Ctx;
use crate::bot::notice::Notice;
use crate::queue::atomic;

/// The file in the queue folder that holds the date of the last digest sent.
pub const STATE_FILE: &str = ".digest-sent";

fn state_file(queue_root: &Path) -> PathBuf {
    queue_root.join(STATE_FILE)
}

/// The date of the last digest sent; `None` when none was (or the file can't be read: then one is sent).
#[must_use]
pub fn last_sent(queue_root: &Path) -> Option<NaiveDate> {
    let text = std::fs::read_to_string(state_file(queue_root)).ok()?;
    text.trim().parse().ok()
}

fn record(queue_root: &Path, date: NaiveDate) -> io::Result<()> {
    atomic::write_atomic(&state_file(queue_root), format!("{date}\n").as_bytes())
}

/// Queues today's digest when it is due; `last` is the date of the last one sent, kept by the caller.
pub fn check(ctx: &Ctx, last: &mut Option<NaiveDate>, notices: &mpsc::UnboundedSender<Notice>) {
    let Some(at) = &ctx.digest else { return };
    let Some(today) = at.due(chrono::Utc::now(), *last) else {
        return;
    };
    *last = Some(today);
    if let Err(e) = record(ctx.queue().root(), today) {
        // Still sent: a restart today may send it once more, which beats not sending it.
        tracing::warn!(error = %e, "can't record the digest's date");
    }
    tracing::info!(%today, "daily digest due");
    let _ = notices.send(Notice::Digest(today));
}
