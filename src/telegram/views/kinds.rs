//! What the answer kinds (DESIGN.md Part 3) add to the views: a typed answer as the owner reads it, the
//! proposal of an `edit` decision as a code block and an edit as a `diff` block (both cut to a budget), the
//! messages around a typed answer (the prompt, the proposal to copy, the refusal), and the kind's buttons.

use crate::actions::seen;
use crate::plan::{
    AnswerValue, Decision, DecisionStatus, InputRefusal, Kind, Plan, diff, prompt_for,
};
use crate::telegram::callback::Callback;
use crate::telegram::markdown::{escape, escape_code, truncate};
use crate::telegram::render::FULL_CONTEXT;

use super::layout::{
    Caps, Draft, MAX_OPTION_BUTTONS, MAX_TEXT, button_text, code_line, fit, index16, letter, line,
    pref,
};
use super::{Button, View, full_context};

/// A recorded answer as the owner reads it: the option key or text; a `multi` answer's keys joined by `, `; a
/// number as written; `Yes`/`No`; for `edit`, `edited` or `approved as is` (or the option picked beside it).
#[must_use]
pub fn shown_answer(d: &Decision) -> String {
    match (&d.kind, &d.value) {
        (Kind::Boolean, Some(AnswerValue::Bool(b))) => yes_no(*b).to_owned(),
        (Kind::Edit { .. }, _) if d.edited == Some(true) => "edited".to_owned(),
        (Kind::Edit { .. }, _) if d.edited == Some(false) => "approved as is".to_owned(),
        (_, Some(value)) => value.text(),
        (_, None) => d.answer.clone().unwrap_or_default(),
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "Yes" } else { "No" }
}

/// A code block's language: the info string when it is one plain word, else none.
fn language(lang: Option<&str>) -> &str {
    lang.filter(|l| {
        !l.is_empty()
            && l.len() <= 32
            && l.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-'))
    })
    .unwrap_or("")
}

/// `lines` as a `pre` block in `lang`, as many whole lines as fit `budget` UTF-16 units of shown text (the
/// first line cut when even it does not fit); `None` when nothing fits. The bool: something was left out.
fn pre_block(
    lines: impl IntoIterator<Item = String>,
    lang: &str,
    budget: usize,
) -> (Option<String>, bool) {
    let mut shown: Vec<String> = Vec::new();
    let mut used = 0;
    let mut cut = false;
    for l in lines {
        let l = l.replace('\r', "");
        let units = l.encode_utf16().count() + usize::from(!shown.is_empty());
        if used + units <= budget {
            used += units;
            shown.push(l);
            continue;
        }
        if shown.is_empty() {
            let part = truncate(&l, budget);
            if !part.is_empty() {
                shown.push(part);
            }
        }
        cut = true;
        break;
    }
    if shown.iter().all(|l| l.trim().is_empty()) {
        return (None, true);
    }
    let body = escape_code(&shown.join("\n"));
    (Some(format!("```{lang}\n{body}\n```")), cut)
}

/// The lines a decision of a kind other than `choice` adds below its context: the proposal (or the edit as a
/// `diff`), the recorded answer, and what is accepted. `budget` bounds the code block; the draft says whether
/// it was cut.
pub(super) fn kind_text(d: &Decision, picks: Option<&[usize]>, budget: usize, caps: Caps) -> Draft {
    let answered = d.status == DecisionStatus::Answered;
    let mut parts: Vec<String> = Vec::new();
    let mut cut = false;
    match &d.kind {
        Kind::Choice => return Draft::from(String::new()),
        Kind::Multi { .. } => {
            let picked = picks.map_or_else(|| d.picked_options(), <[usize]>::to_vec);
            let mut list = Vec::new();
            for (i, o) in d.options.iter().take(MAX_OPTION_BUTTONS).enumerate() {
                let mark = if picked.contains(&i) { "☑" } else { "☐" };
                list.push(format!(
                    "{mark} {}\\. {}",
                    letter(i),
                    line(label(o), caps.label)
                ));
            }
            parts.push(list.join("\n"));
            if answered && d.is_custom_answer() {
                let own: Vec<String> = match &d.value {
                    Some(AnswerValue::List(keys)) => keys
                        .iter()
                        .filter(|k| d.chosen_option_of(k).is_none())
                        .cloned()
                        .collect(),
                    _ => Vec::new(),
                };
                parts.push(format!(
                    "_Own answer: {}_",
                    line(&own.join(", "), caps.label)
                ));
            }
        }
        Kind::Text { .. } | Kind::Number { .. } => {
            if answered {
                parts.push(format!(
                    "Answer: {} ✓",
                    code_line(&shown_answer(d), caps.label)
                ));
            }
        }
        Kind::Boolean => {
            if answered {
                parts.push(format!("Answer: *{}* ✓", escape(&shown_answer(d))));
            }
        }
        Kind::Edit { proposal, .. } => {
            let edited = match (&d.value, d.edited) {
                (Some(AnswerValue::Text(t)), Some(true)) if answered => Some(t),
                _ => None,
            };
            if let Some(new) = edited {
                let lines = diff::lines(&proposal.text, new)
                    .iter()
                    .map(diff::Line::unified)
                    .collect::<Vec<_>>();
                let (block, c) = pre_block(lines, "diff", budget);
                cut |= c;
                parts.push("*✏️ Your edit:*".to_owned());
                parts.extend(block);
            } else {
                let (block, c) = pre_block(
                    proposal.text.split('\n').map(str::to_owned),
                    language(proposal.language.as_deref()),
                    budget,
                );
                cut |= c;
                parts.push("*Proposal:*".to_owned());
                parts.extend(block);
            }
            if cut {
                parts.push(escape(FULL_CONTEXT));
            }
            if answered && d.edited == Some(false) {
                parts.push("_✅ Approved as is_".to_owned());
            }
        }
    }
    if matches!(d.kind, Kind::Edit { .. }) && !answered {
        parts.push("_✅ Approve it as is, or ✏️ Edit it first\\._".to_owned());
    } else if !answered || matches!(d.kind, Kind::Multi { .. }) {
        parts.push(format!("_{}_", escape(&prompt_for(d))));
    }
    Draft {
        text: parts.join("\n\n"),
        cut,
    }
}

fn label(o: &crate::plan::DecisionOption) -> &str {
    if o.label.trim().is_empty() {
        &o.key
    } else {
        &o.label
    }
}

/// The buttons a decision of a kind other than `choice` gets in place of option letters and `✏️ Custom`:
/// toggles and `✅ Done (n)` for `multi`, `✅ Yes` `❌ No`, `✏️ Answer` for text and number, `✅ Approve as is`
/// `✏️ Edit` for `edit` (its options, when it has some, keep their letters). `None` for a `choice`.
pub(super) fn kind_buttons(
    plan: &Plan,
    index: u16,
    d: &Decision,
    picks: Option<&[usize]>,
) -> Option<Vec<Vec<Button>>> {
    let seen = seen::of_decision(d);
    let plan_ref = pref(plan);
    let answered = d.status == DecisionStatus::Answered;
    let typed = |text: &str| {
        Button::new(
            text,
            Callback::Custom {
                plan: plan_ref.clone(),
                index,
                seen: seen.clone(),
            },
        )
    };
    let rows = match &d.kind {
        Kind::Choice => return None,
        Kind::Multi { .. } => {
            let picked = picks.map_or_else(|| d.picked_options(), <[usize]>::to_vec);
            let mut rows: Vec<Vec<Button>> = d
                .options
                .iter()
                .take(MAX_OPTION_BUTTONS)
                .enumerate()
                .filter_map(|(i, o)| {
                    let mark = if picked.contains(&i) { "☑" } else { "☐" };
                    let toggle = Callback::Toggle {
                        plan: plan_ref.clone(),
                        index,
                        option: index16(i)?,
                        seen: seen.clone(),
                    };
                    Some(vec![Button::new(
                        button_text(&format!("{mark} {}. ", letter(i)), label(o)),
                        toggle,
                    )])
                })
                .collect();
            let done = Callback::Done {
                plan: plan_ref.clone(),
                index,
                seen: seen.clone(),
            };
            rows.push(vec![Button::new(
                format!("✅ Done ({})", picked.len()),
                done,
            )]);
            rows
        }
        Kind::Boolean => {
            let chosen = match &d.value {
                Some(AnswerValue::Bool(b)) if answered => Some(*b),
                _ => None,
            };
            let button = |yes: bool, text: &str| {
                let tick = if chosen == Some(yes) { " ✓" } else { "" };
                Button::new(
                    format!("{text}{tick}"),
                    Callback::Boolean {
                        plan: plan_ref.clone(),
                        index,
                        yes,
                        seen: seen.clone(),
                    },
                )
            };
            vec![vec![button(true, "✅ Yes"), button(false, "❌ No")]]
        }
        Kind::Text { .. } | Kind::Number { .. } => {
            vec![vec![typed(if answered {
                "✏️ Change"
            } else {
                "✏️ Answer"
            })]]
        }
        Kind::Edit { .. } => {
            let approve = Callback::Approve {
                plan: plan_ref.clone(),
                index,
                seen: seen.clone(),
            };
            let approved = answered && d.edited == Some(false);
            let approve_text = if approved {
                "✅ Approve as is ✓"
            } else {
                "✅ Approve as is"
            };
            vec![vec![Button::new(approve_text, approve), typed("✏️ Edit")]]
        }
    };
    Some(rows)
}

/// The proposal of `edit` decision `index` alone, as a code block Telegram copies with one tap: sent before the
/// force reply that asks for the edited version. Cut to fit a message (with `📄 Full context`) when too long.
#[must_use]
pub fn proposal_message(plan: &Plan, index: usize) -> Option<View> {
    let proposal = plan.decisions.get(index)?.kind.proposal()?;
    let lang = language(proposal.language.as_deref());
    let lines = || proposal.text.split('\n').map(str::to_owned);
    let room = MAX_TEXT - FULL_CONTEXT.encode_utf16().count() - 2;
    let (block, cut) = pre_block(lines(), lang, room);
    let block = block.unwrap_or_else(|| "_\\(empty\\)_".to_owned());
    let (text, keyboard) = if cut {
        (
            format!("{block}\n{}", escape(FULL_CONTEXT)),
            vec![vec![full_context(plan)]],
        )
    } else {
        (block, Vec::new())
    };
    Some(View {
        text,
        keyboard,
        force_reply: false,
    })
}

/// The force-reply prompt of a decision whose answer is typed (text, number, an edited proposal): `✏️ Send your
/// answer for *Title*` (`✏️ Send the edited version of *Title*`), where it belongs, what is accepted, the current
/// answer, the `/cancel` hint.
pub(super) fn input_prompt(plan: &Plan, index: usize, d: &Decision) -> View {
    let draft = fit(|caps| {
        let ask = if matches!(d.kind, Kind::Edit { .. }) {
            "✏️ Send the edited version of"
        } else {
            "✏️ Send your answer for"
        };
        let mut text = format!(
            "{ask} *{}*\n_{} · {}/{}_\n\n{}",
            line(&d.title, caps.title),
            line(&plan.title, caps.title),
            index + 1,
            plan.decisions.len(),
            escape(&prompt_for(d)),
        );
        if d.status == DecisionStatus::Answered {
            text.push_str(&format!(
                "\n\nCurrent answer: {}",
                code_line(&shown_answer(d), caps.label)
            ));
        }
        text.push_str("\n\nSend /cancel to leave it as it is\\.");
        Draft::from(text)
    });
    View {
        text: draft.text,
        keyboard: Vec::new(),
        force_reply: true,
    }
}

/// A typed reply that does not fit the decision: why, and what is accepted (the prompt's sentence again).
/// Nothing was recorded; the next message is another try.
#[must_use]
pub fn input_refused(refusal: &InputRefusal) -> View {
    let reason = truncate(&refusal.reason, 1000);
    let text = format!(
        "⚠️ {}\n{}\n\n_Nothing was recorded\\. Send it again, or /cancel\\._",
        escape(&reason),
        escape(&refusal.prompt)
    );
    View::text_only(&text)
}
