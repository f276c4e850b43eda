//! Standing rules in Telegram: `/rules` (every rule, its count and last use, `⏸ Pause` / `▶️ Resume` /
//! `🗑 Revoke`), the completion view's `🔁 Always answer` offer and the line saying which rule a submit made, and
//! the notices of a rule that paused itself or of a `rules.json` that can't be trusted.
//!
//! The bot reads the rules (`queue::rules`) and hands each one over as a [`Shown`]: views stay pure and import
//! nothing of the queue.

use crate::plan::Plan;
use crate::telegram::callback::{Callback, RuleOp};

use super::layout::{Draft, button_text, code_line, fit, line, pref, to_queue};
use super::{Button, View};

/// Rules listed per `/rules` page.
pub const RULES_PAGE_SIZE: usize = 8;

/// Where a rule stands, as the views say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    Active,
    Paused,
    Revoked,
    Expired,
}

/// A standing rule as the views show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub id: String,
    pub standing: Standing,
    /// What it answers: `Bash: npm test`, `every permission prompt of the session`, `target → Staging`.
    pub what: String,
    /// What it answers with (`allow`, an option key).
    pub answer: String,
    pub agent: String,
    pub project: Option<String>,
    /// A grant's session and end.
    pub session: Option<String>,
    pub expires_at: Option<String>,
    pub fired: u64,
    pub last_fired: Option<String>,
    /// Who made it, as the viewer knows them (a name from `people`, else the id).
    pub by: String,
    /// Why it paused itself (its allowed calls failed), when it did.
    pub paused_itself: Option<String>,
    /// The audit trail holds the line that made it (else it answers nothing).
    pub on_record: bool,
}

impl Standing {
    fn icon(self) -> &'static str {
        match self {
            Standing::Active => "✅",
            Standing::Paused => "⏸",
            Standing::Revoked => "🗑",
            Standing::Expired => "⌛",
        }
    }
}

/// `2026-02-01T10:05:00Z` as `2026-02-01 10:05 UTC` (anything else as written).
fn when(at: &str) -> String {
    match (at.get(..10), at.get(11..16)) {
        (Some(day), Some(time)) if at.ends_with('Z') => format!("{day} {time} UTC"),
        _ => at.to_owned(),
    }
}

/// One rule's lines in `/rules`: `1. ✅ `Bash: npm test` → allow` and its scope and use.
fn entry(n: usize, r: &Shown, label: usize) -> String {
    let mut text = format!(
        "{n}\\. {} {} → {} · {}",
        r.standing.icon(),
        code_line(&r.what, label),
        code_line(&r.answer, label),
        code_line(&r.id, label)
    );
    let mut scope = vec![line(&r.agent, label)];
    if let Some(project) = &r.project {
        scope.push(code_line(project, label));
    }
    if let Some(session) = &r.session {
        scope.push(format!("session {}", code_line(session, label)));
    }
    if let Some(until) = &r.expires_at {
        scope.push(format!("until {}", line(&when(until), label)));
    }
    scope.push(format!("{}×", r.fired));
    if let Some(last) = &r.last_fired {
        scope.push(format!("last {}", line(&when(last), label)));
    }
    scope.push(format!("by {}", line(&r.by, label)));
    text.push_str(&format!("\n    {}", scope.join(" · ")));
    if let Some(reason) = &r.paused_itself {
        text.push_str(&format!("\n    _paused itself: {}_", line(reason, label)));
    }
    if !r.on_record {
        text.push_str("\n    ⚠️ _not in the audit trail: it answers nothing_");
    }
    text
}

/// `/rules`: every rule (active and paused first, newest first), `page` of them with their buttons.
#[must_use]
pub fn rules(all: &[Shown], page: usize) -> View {
    let mut order: Vec<&Shown> = all.iter().collect();
    order.sort_by_key(|r| match r.standing {
        Standing::Active => 0,
        Standing::Paused => 1,
        Standing::Expired => 2,
        Standing::Revoked => 3,
    });
    let pages = order.len().div_ceil(RULES_PAGE_SIZE).max(1);
    let page = page.min(pages - 1);
    let shown: Vec<&Shown> = order
        .iter()
        .skip(page * RULES_PAGE_SIZE)
        .take(RULES_PAGE_SIZE)
        .copied()
        .collect();
    let count = |s: Standing| all.iter().filter(|r| r.standing == s).count();
    let fired = all.iter().fold(0u64, |sum, r| sum.saturating_add(r.fired));
    let text = fit(|caps| {
        if all.is_empty() {
            return Draft::from(
                "🔁 *Standing rules*\n\nNone yet\\. On a permission prompt, 🔁 *Always allow this* makes one \
                 \\(that agent, that exact command, that project\\), ⏱ *Allow … for 30 min* a grant for the \
                 session; a question you answer the same way three times in a row offers 🔁 *Always answer*\\. \
                 A rule never types for you\\."
                    .to_owned(),
            );
        }
        let mut text = format!(
            "🔁 *Standing rules*: {} active, {} paused · {} prompt{} answered",
            count(Standing::Active),
            count(Standing::Paused),
            fired,
            if fired == 1 { "" } else { "s" }
        );
        if pages > 1 {
            text.push_str(&format!(" · page {}/{pages}", page + 1));
        }
        for (i, r) in shown.iter().enumerate() {
            text.push_str("\n\n");
            text.push_str(&entry(page * RULES_PAGE_SIZE + i + 1, r, caps.label));
        }
        Draft::from(text)
    })
    .text;
    let mut keyboard = Vec::new();
    for (i, r) in shown.iter().enumerate() {
        let n = page * RULES_PAGE_SIZE + i + 1;
        let button = |label: &str, op: RuleOp| {
            Button::new(
                format!("{label} {n}"),
                Callback::Rule {
                    op,
                    rule: r.id.clone(),
                },
            )
        };
        let mut row = match r.standing {
            Standing::Active => vec![button("⏸ Pause", RuleOp::Pause)],
            Standing::Paused => vec![button("▶️ Resume", RuleOp::Resume)],
            Standing::Revoked | Standing::Expired => Vec::new(),
        };
        if matches!(r.standing, Standing::Active | Standing::Paused) {
            row.push(button("🗑 Revoke", RuleOp::Revoke));
        }
        // A rule whose id no button can carry (written by hand) is listed without buttons.
        if crate::telegram::callback::rule_id(&r.id).is_some() && !row.is_empty() {
            keyboard.push(row);
        }
    }
    let mut nav = Vec::new();
    if page > 0 {
        nav.push(Button::new(
            "⬅️ Prev",
            Callback::Rules {
                page: u16::try_from(page - 1).unwrap_or(u16::MAX),
            },
        ));
    }
    nav.push(Button::new(
        "🔄 Refresh",
        Callback::Rules {
            page: u16::try_from(page).unwrap_or(u16::MAX),
        },
    ));
    if page + 1 < pages {
        nav.push(Button::new(
            "Next ➡️",
            Callback::Rules {
                page: u16::try_from(page + 1).unwrap_or(u16::MAX),
            },
        ));
    }
    keyboard.push(nav);
    keyboard.push(vec![to_queue("📋 Queue")]);
    View::new(text, keyboard)
}

/// What a submit did for standing rules, for the completion view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AfterSubmit {
    /// The rule the answer made (`🔁 Always allow this`, `⏱ Allow … for N min`), or why none could be.
    pub made: Option<Result<Shown, String>>,
    /// `🔁 Always answer "<label>"`: the label and the offer's fingerprint.
    pub offer: Option<(String, String)>,
}

/// The completion view ([`super::completion`]) with what the submit did for standing rules: the rule made, or
/// the offer of one.
#[must_use]
pub fn completion_ruled(plan: &Plan, after: &AfterSubmit) -> View {
    let mut view = super::completion(plan);
    let note = match &after.made {
        Some(Ok(rule)) if rule.session.is_some() => Some(format!(
            "\n\n⏱ *Grant* {}: {} may run anything in this session without asking until {}\\. /rules",
            code_line(&rule.id, 40),
            line(&rule.agent, 60),
            line(
                &rule.expires_at.as_deref().map(when).unwrap_or_default(),
                40
            )
        )),
        Some(Ok(rule)) => Some(format!(
            "\n\n🔁 *Standing rule* {}: from now on {}'s {} gets {} without asking{}\\. /rules",
            code_line(&rule.id, 40),
            line(&rule.agent, 60),
            code_line(&rule.what, 200),
            code_line(&rule.answer, 60),
            rule.project
                .as_deref()
                .map(|p| format!(" in {}", code_line(p, 200)))
                .unwrap_or_default()
        )),
        Some(Err(why)) => Some(format!(
            "\n\n⚠️ No standing rule was made: {}",
            line(why, 300)
        )),
        None => None,
    };
    let offer = after.offer.as_ref().map(|(label, seen)| {
        Button::new(
            button_text("🔁 Always answer ", &format!("\"{label}\"")),
            Callback::AlwaysAnswer {
                plan: pref(plan),
                seen: seen.clone(),
            },
        )
    });
    let note = match (note, &offer) {
        (Some(note), _) => Some(note),
        (None, Some(_)) => Some(
            "\n\n_You gave this answer to this question three times in a row: 🔁 Always answer makes it a \
             standing rule \\(/rules to pause or revoke\\)\\._"
                .to_owned(),
        ),
        (None, None) => None,
    };
    if let Some(note) = note {
        let longer = format!("{}{note}", view.text);
        if super::layout::fits(&longer) {
            view.text = longer;
        }
    }
    if let Some(offer) = offer {
        view.keyboard.insert(0, vec![offer]);
    }
    view
}

/// A rule paused itself (what it allowed failed twice in a row): to its maker, with `▶️ Resume` and `/rules`.
#[must_use]
pub fn rule_paused(rule: &Shown, reason: &str) -> View {
    let text = fit(|caps| {
        Draft::from(format!(
            "⏸ *A standing rule paused itself*\n\n{}\n\nWhat it allowed failed twice in a row: {}\nIt \
             answers nothing until you resume it\\.",
            entry(1, rule, caps.label),
            code_line(reason, caps.context.min(300))
        ))
    })
    .text;
    let mut keyboard = Vec::new();
    if crate::telegram::callback::rule_id(&rule.id).is_some() {
        keyboard.push(vec![Button::new(
            "▶️ Resume",
            Callback::Rule {
                op: RuleOp::Resume,
                rule: rule.id.clone(),
            },
        )]);
    }
    keyboard.push(vec![Button::new("🔁 Rules", Callback::Rules { page: 0 })]);
    View::new(text, keyboard)
}

/// `rules.json` can't be trusted: it does not read (no rule answers anything), or rules in it have no line in
/// the audit trail (those answer nothing).
#[must_use]
pub fn rules_warning(what: &str) -> View {
    let text = fit(|caps| {
        Draft::from(format!(
            "⚠️ *Standing rules*\n\n{}\n\n_Until this is fixed, every such prompt is asked here\\._",
            line(what, caps.context.min(1500))
        ))
    })
    .text;
    View::new(
        text,
        vec![vec![Button::new("🔁 Rules", Callback::Rules { page: 0 })]],
    )
}

/// The alert after a rule button: what changed, or why nothing did.
#[must_use]
pub fn rule_alert(op: RuleOp, id: &str, changed: bool) -> String {
    let done = match op {
        RuleOp::Pause => "⏸ Paused",
        RuleOp::Resume => "▶️ Resumed",
        RuleOp::Revoke => "🗑 Revoked",
    };
    if changed {
        format!("{done}: rule {id}. It holds from the next prompt.")
    } else {
        format!("Rule {id} already stood so: nothing changed.")
    }
}
