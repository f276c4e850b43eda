//! What the clock sends: reminders, escalations, and the summary of a plan the deadline submitted; and how a
//! deadline reads (`⏰ due in 2h 15m`, `⏰ overdue by 5m`).

use chrono::{DateTime, Utc};

use crate::plan::duration::{self, Style};
use crate::plan::{DecisionStatus, Outline, Plan};
use crate::telegram::callback::Callback;
use crate::telegram::markdown::escape;

use super::layout::{fit, line, pref, to_queue};
use super::{Button, View};

/// `2h 15m`: how long from one instant to a later one, as people say it (`0s` when it is not later).
fn spoken(d: chrono::Duration) -> String {
    duration::say(d.to_std().unwrap_or_default(), Style::Spoken)
}

/// `due in 2h 15m` or `overdue by 5m` (plain text, to be escaped).
#[must_use]
pub fn due_text(deadline: DateTime<Utc>, now: DateTime<Utc>) -> String {
    if now >= deadline {
        format!("overdue by {}", spoken(now - deadline))
    } else {
        format!("due in {}", spoken(deadline - now))
    }
}

/// `⏰ due in 2h 15m` as MarkdownV2, or nothing for a plan without a deadline.
#[must_use]
pub fn due_line<P: Outline + ?Sized>(plan: &P, now: DateTime<Utc>) -> Option<String> {
    let deadline = plan.timing().deadline?;
    Some(format!("⏰ {}", escape(&due_text(deadline, now))))
}

/// Why the clock wrote to the approvers about a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nudge {
    /// `remind_every` passed.
    Reminder,
    /// `escalate_after` passed: the recipients may answer it from now on.
    Escalated,
}

/// `⏰ *Reminder*` / `🔺 *Escalated to you*`, the plan's priority, tag and title, what is left, how long it has
/// waited and when it is due; button `📂 Open`.
#[must_use]
pub fn nudge<P: Outline + ?Sized>(plan: &P, nudge: Nudge, now: DateTime<Utc>) -> View {
    let head = match nudge {
        Nudge::Reminder => "⏰ *Reminder*",
        Nudge::Escalated => "🔺 *Escalated to you*",
    };
    let text = fit(|caps| {
        let mut text = format!(
            "{head}\n\n{}\n{}",
            super::announce::plan_heading(plan, caps),
            escape(&left(plan))
        );
        let created = plan.created_at().and_then(crate::plan::timing::parse_time);
        if let Some(created) = created {
            text.push_str(&format!(" · waiting {}", escape(&spoken(now - created))));
        }
        if let Some(due) = due_line(plan, now) {
            text.push_str(&format!("\n{due}"));
        }
        text.into()
    })
    .text;
    let open = Button::new("📂 Open", Callback::Open { plan: pref(plan) });
    View::new(text, vec![vec![open]])
}

/// `2 of 3 decisions left`.
fn left<P: Outline + ?Sized>(plan: &P) -> String {
    let total = plan.decision_count();
    let word = if total == 1 { "decision" } else { "decisions" };
    format!("{} of {total} {word} left", plan.pending_decisions())
}

/// The deadline submitted a plan: `⏰ Deadline passed: *Title* submitted with 2 defaults, 1 skipped`.
#[must_use]
pub fn deadline_submitted(plan: &Plan) -> View {
    let text = fit(|caps| {
        format!(
            "⏰ Deadline passed: *{}* submitted with {}",
            line(&plan.title, caps.title),
            escape(&deadline_counts(plan))
        )
        .into()
    })
    .text;
    View::new(text, vec![vec![to_queue("📋 Open queue")]])
}

/// `2 defaults, 1 skipped`: what the deadline itself filled in.
fn deadline_counts(plan: &Plan) -> String {
    let by_deadline = |status| {
        plan.decisions
            .iter()
            .filter(|d| d.status == status && d.answered_by.as_deref() == Some("deadline"))
            .count()
    };
    let defaults = by_deadline(DecisionStatus::Answered);
    let skipped = by_deadline(DecisionStatus::Skipped);
    let defaults = match defaults {
        1 => "1 default".to_owned(),
        n => format!("{n} defaults"),
    };
    format!("{defaults}, {skipped} skipped")
}

/// Several clock messages in one (most urgent first): `⏰ *3 reminders*` with numbered lines and `1`…`N` Open
/// buttons, then `📋 Open queue`.
#[must_use]
pub fn nudge_burst<P: Outline>(plans: &[&P], now: DateTime<Utc>) -> View {
    let head = format!("⏰ *{} reminders*", plans.len());
    super::announce::numbered_plans(&head, plans, |plan, _| {
        let mut tail = escape(&left(plan));
        if let Some(deadline) = plan.timing().deadline {
            tail.push_str(&format!(" · {}", escape(&due_text(deadline, now))));
        }
        tail
    })
}
