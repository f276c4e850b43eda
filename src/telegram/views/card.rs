//! The card a plan gets in a team's group chat (or forum topic): priority, title, who asks, progress, who
//! answered what, and `📂 Open` — a link to the plan in the bot's private chat, where anything that needs typing
//! happens. A plan with one decision shows its options on the card for a quick answer in the group. The card is
//! redrawn as the plan changes, and says when it was submitted or is gone.

use chrono::{DateTime, Utc};

use crate::actions::seen;
use crate::plan::{AnswerValue, Decision, DecisionStatus, Kind, Outline as _, Plan};
use crate::telegram::callback::{Callback, plan_ref};
use crate::telegram::markdown::escape;

use super::layout::{button_text, fit, index16, letter, line, pref, rows_of, tag_prefix};
use super::{Button, View, Viewer};

/// Most answer lines a card lists; the rest are counted.
const CARD_ANSWERS: usize = 10;
/// Most options a quick answer offers: a longer list is answered in the private chat.
const QUICK_OPTIONS: usize = 10;

/// Where the plan of a card is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardState {
    /// In the queue: the card offers its quick answer and `📂 Open`.
    Pending,
    /// Submitted (by a person or its deadline): the card keeps the answers, without buttons.
    Submitted,
    /// Sent back to its agent with a request for changes (its revision gets a card of its own).
    SentBack,
    /// An MCP form declined as a whole.
    Declined,
    /// No longer in the queue and not submitted (the file was deleted or withdrawn).
    Gone,
}

/// How a card is drawn.
#[derive(Debug, Clone)]
pub struct Card<'a> {
    pub state: CardState,
    /// The deep link to the plan in the private chat (`None` until the bot's username is known).
    pub open: Option<&'a url::Url>,
    /// Names for `answered_by` (config `people`).
    pub names: &'a Viewer,
    /// For `⏰ past its deadline`.
    pub now: DateTime<Utc>,
}

/// The card of `plan`:
///
/// ```text
/// 🟡 normal · [infra]
/// *Title*
/// 🤖 builder asks · 1 decision
/// 📊 0/1 answered
/// ⏰ due 2026-02-01 14:00 UTC
/// ```
/// then one line per settled decision (`✅ *Database* → PostgreSQL · alice`), and `📤 *Submitted*` or
/// `🗑 *No longer in the queue*` once it left the queue. Buttons (pending only): the options of a plan with one
/// decision (`A. PostgreSQL`, the chosen one `✓`), then `📂 Open`.
#[must_use]
pub fn card(plan: &Plan, card: &Card) -> View {
    let text = fit(|caps| {
        let mut text = format!("{} {}", plan.priority.icon(), plan.priority.as_str());
        let tag = tag_prefix(plan, caps);
        if !tag.is_empty() {
            text.push_str(&format!(" · {}", tag.trim_end()));
        }
        text.push_str(&format!("\n*{}*", line(&plan.title, caps.title)));
        let count = super::layout::decisions_word(plan.decisions.len());
        match plan.asker().as_deref().map(str::trim) {
            Some(agent) if !agent.is_empty() => {
                text.push_str(&format!("\n🤖 {} asks · {count}", line(agent, caps.label)));
            }
            _ => text.push_str(&format!("\n{count}")),
        }
        text.push_str(&format!("\n📊 {}", escape(&progress(plan))));
        if card.state == CardState::Pending
            && let Some(deadline) = plan.timing.deadline
        {
            let at = deadline.format("%Y-%m-%d %H:%M UTC").to_string();
            if card.now >= deadline {
                text.push_str(&format!("\n⏰ *Past its deadline* \\({}\\)", escape(&at)));
            } else {
                text.push_str(&format!("\n⏰ due {}", escape(&at)));
            }
        }
        let settled: Vec<&Decision> = plan
            .decisions
            .iter()
            .filter(|d| d.status != DecisionStatus::Pending)
            .collect();
        if !settled.is_empty() {
            text.push('\n');
        }
        for d in settled.iter().take(CARD_ANSWERS.min(caps.items)) {
            text.push_str(&format!("\n{}", answer_line(d, card.names, caps.label)));
        }
        let hidden = settled.len().saturating_sub(CARD_ANSWERS.min(caps.items));
        if hidden > 0 {
            text.push_str(&format!("\n_…and {hidden} more_"));
        }
        match card.state {
            CardState::Pending => {}
            CardState::Submitted => text.push_str("\n\n📤 *Submitted*"),
            CardState::SentBack => text.push_str("\n\n🔁 *Sent back for changes*"),
            CardState::Declined => text.push_str("\n\n❌ *Declined*"),
            CardState::Gone => text.push_str("\n\n🗑 *No longer in the queue*"),
        }
        text.into()
    })
    .text;
    if card.state != CardState::Pending {
        return View::new(text, Vec::new());
    }
    let mut keyboard = rows_of(quick_answers(plan), 1);
    if let Some(open) = card.open {
        keyboard.push(vec![Button::link("📂 Open", open.clone())]);
    }
    View::new(text, keyboard)
}

/// `2/5 answered · 1 skipped · 1/2 signed off` (skips and sign-offs only when there are any to tell).
fn progress(plan: &Plan) -> String {
    let total = plan.decisions.len();
    let mut text = format!("{}/{total} answered", plan.count(DecisionStatus::Answered));
    let skipped = plan.count(DecisionStatus::Skipped);
    if skipped > 0 {
        text.push_str(&format!(" · {skipped} skipped"));
    }
    if plan.approval.needs_signoffs() {
        text.push_str(&format!(
            " · {}/{} signed off",
            plan.approval.signoffs.len(),
            plan.approval.require
        ));
    }
    text
}

/// `✅ *Database* → PostgreSQL · alice` / `⏭️ *Cache* skipped · bob`: who settled what.
fn answer_line(d: &Decision, names: &Viewer, max: usize) -> String {
    let who = d
        .answered_by
        .as_deref()
        .map(|by| format!(" · {}", line(&names.name(by), max)))
        .unwrap_or_default();
    let title = line(&d.title, max);
    if d.status == DecisionStatus::Skipped {
        return format!("⏭️ *{title}* skipped{who}");
    }
    let answer = match d.chosen_option().map(|i| &d.options[i]) {
        Some(o) if !o.label.trim().is_empty() && d.kind == Kind::Choice => o.label.clone(),
        _ => super::shown_answer(d),
    };
    format!("✅ *{title}* → {}{who}", line(&answer, max))
}

/// The quick answer: a plan with exactly one decision, of a kind a tap answers, offers it on the card: a `choice`
/// with 1 to [`QUICK_OPTIONS`] options (`A. label`, the chosen one `✓`), or a `boolean` as `✅ Yes` / `❌ No`.
/// Free-text questions, custom answers, the other kinds and notes need typing or several taps: they are answered
/// in the private chat (`📂 Open`).
fn quick_answers(plan: &Plan) -> Vec<Button> {
    let [d] = plan.decisions.as_slice() else {
        return Vec::new();
    };
    if d.kind == Kind::Boolean {
        let chosen = match &d.value {
            Some(AnswerValue::Bool(b)) if d.status == DecisionStatus::Answered => Some(*b),
            _ => None,
        };
        return [(true, "✅ Yes"), (false, "❌ No")]
            .into_iter()
            .map(|(yes, text)| {
                let tick = if chosen == Some(yes) { "✓ " } else { "" };
                let data = Callback::Boolean {
                    plan: pref(plan),
                    index: 0,
                    yes,
                    seen: seen::of_decision(d),
                };
                Button::new(format!("{tick}{text}"), data)
            })
            .collect();
    }
    if d.kind != Kind::Choice || d.options.is_empty() || d.options.len() > QUICK_OPTIONS {
        return Vec::new();
    }
    let chosen = d
        .chosen_option()
        .filter(|_| d.status == DecisionStatus::Answered);
    d.options
        .iter()
        .enumerate()
        .filter_map(|(i, o)| {
            let shown = if o.label.trim().is_empty() {
                &o.key
            } else {
                &o.label
            };
            let tick = if chosen == Some(i) { "✓ " } else { "" };
            let data = Callback::Answer {
                plan: pref(plan),
                index: 0,
                option: index16(i)?,
                seen: seen::of_option(d, o),
            };
            Some(Button::new(
                button_text(&format!("{tick}{}. ", letter(i)), shown),
                data,
            ))
        })
        .collect()
}

/// The link that opens the bot's private chat at plan `plan_id`: `https://t.me/<bot>?start=plan_<id>`, or
/// `start=ref_<reference>` for an id a start parameter cannot carry (only `A-Z a-z 0-9 _ -`, at most 64
/// characters). `None` for a username Telegram would not give a bot.
#[must_use]
pub fn deep_link(bot_username: &str, plan_id: &str) -> Option<url::Url> {
    let username_ok = (4..=32).contains(&bot_username.len())
        && bot_username
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !username_ok {
        return None;
    }
    let id_ok = !plan_id.is_empty()
        && plan_id.len() <= 64 - "plan_".len()
        && plan_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    let payload = if id_ok {
        format!("plan_{plan_id}")
    } else {
        format!("ref_{}", plan_ref(plan_id))
    };
    url::Url::parse(&format!("https://t.me/{bot_username}?start={payload}")).ok()
}

/// A message about a plan (a reminder, an escalation, a deadline notice) as a group gets it: the same text,
/// and only `📂 Open` (the link to the private chat) instead of buttons that would draw private views in the group.
#[must_use]
pub fn in_group(view: View, open: Option<&url::Url>) -> View {
    let keyboard = open
        .map(|url| vec![vec![Button::link("📂 Open", url.clone())]])
        .unwrap_or_default();
    View::new(view.text, keyboard)
}

/// `🔺 *Escalated* to alice, bob` with the plan's heading, what is left and how long it has waited, for the plan's
/// topic (the people themselves get `🔺 Escalated to you` in their private chat); `📂 Open`.
#[must_use]
pub fn escalated_in_group(
    plan: &Plan,
    to: &[String],
    open: Option<&url::Url>,
    now: DateTime<Utc>,
) -> View {
    let text = fit(|caps| {
        let names: Vec<String> = to.iter().map(|n| line(n, caps.label)).collect();
        let mut text = format!(
            "🔺 *Escalated* to {}\n\n{}\n📊 {}",
            if names.is_empty() {
                "nobody".to_owned()
            } else {
                names.join(", ")
            },
            super::announce::plan_heading(plan, caps),
            escape(&progress(plan))
        );
        if let Some(due) = super::due_line(plan, now) {
            text.push_str(&format!("\n{due}"));
        }
        text.into()
    })
    .text;
    in_group(View::new(text, Vec::new()), open)
}

#[cfg(test)]
#[path = "card_tests.rs"]
mod tests;
