//! Fixed messages and warnings: help, plan not found, unreadable file.

use super::View;
use super::layout::{Draft, block, fit, line, to_queue};
use crate::telegram::markdown::{escape_code, truncate};

/// Callback-query alert (plain text, not MarkdownV2) for a tap on a plan that is gone.
pub const PLAN_GONE_ALERT: &str = "Plan not found: it was submitted, withdrawn or deleted.";

/// `/help`: what the bot does and its commands; button `📋 Open queue`.
#[must_use]
pub fn help() -> View {
    let text = "🤖 *Arbiter Zebu*\n\n\
        Agents send me decision plans; you answer them with buttons, and I write your answers back \
        into their files\\. No LLM is involved\\.\n\n\
        /start, /queue — pending plans\n\
        /stats — figures of the last 30 days and a chart\n\
        /help — this message\n\
        /cancel — leave custom answer or note mode\n\
        /web — a login link for the web dashboard\n\
        /rules — standing rules: what is answered without asking\n\n\
        Open a plan, pick an option for each decision \\(or ✏️ Custom, ⏭️ Skip\\), then 📤 Submit: \
        the agent is notified\\. 💬 Note adds a note to a decision, 👉 Delegate hands it to someone else, \
        and a plan that needs several approvers has ✅ Sign off instead of Submit\\.";
    View::new(text.to_owned(), vec![vec![to_queue("📋 Open queue")]])
}

/// The plan behind a tap or a deep link is gone; button `📋 Back to Queue`.
#[must_use]
pub fn not_found() -> View {
    let text = "⚠️ *Plan not found*\n\nIt was submitted, withdrawn or deleted\\.";
    View::new(text.to_owned(), vec![vec![to_queue("📋 Back to Queue")]])
}

/// A file in the queue that cannot be read: `⚠️ Can't read *file*` and the reason as a code block.
/// No buttons.
#[must_use]
pub fn problem(file_name: &str, reason: &str) -> View {
    let text = fit(|caps| {
        let reason = truncate(&block(reason), caps.context.max(200));
        let reason = if reason.is_empty() {
            "(no reason given)".to_owned()
        } else {
            reason
        };
        Draft::from(format!(
            "⚠️ Can't read *{}*\n```\n{}\n```\n_It is skipped until it is fixed\\._",
            line(file_name, caps.label),
            escape_code(&reason)
        ))
    })
    .text;
    View::new(text, Vec::new())
}
