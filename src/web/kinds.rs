//! The dashboard's inputs for the answer kinds (DESIGN.md Part 3): checkboxes for `multi`, a number field with
//! its bounds, date / date-time / email / URL fields for text formats, Yes and No, and for `edit` a textarea
//! holding the proposal with a diff of the edit (drawn by the server for a recorded edit, live by
//! `assets/app.js` while typing). Each sits in the decision's one form, so one post is one action.

use maud::{Markup, html};

use crate::plan::{AnswerValue, Decision, DecisionStatus, Kind, TextFormat, diff, prompt_for};

/// What the owner reads as the recorded answer of a decision of a kind other than `choice`.
#[must_use]
pub fn answer_text(d: &Decision) -> String {
    match (&d.kind, &d.value) {
        (Kind::Multi { .. }, Some(AnswerValue::List(keys))) => keys
            .iter()
            .map(|k| match d.options.iter().find(|o| &o.key == k) {
                Some(o) => format!("{} — {}", o.key, o.label),
                None => format!("“{k}” (own)"),
            })
            .collect::<Vec<_>>()
            .join(", "),
        _ => crate::telegram::views::shown_answer(d),
    }
}

/// The inputs of decision `d` (of a kind other than `choice`), inside its form; `None` for a `choice`.
pub fn inputs(d: &Decision, i: usize) -> Option<Markup> {
    let answered = d.status == DecisionStatus::Answered;
    let accepted = prompt_for(d);
    let field = format!("value-{i}");
    let markup = match &d.kind {
        Kind::Choice => return None,
        Kind::Multi { .. } => {
            let picked = if answered {
                d.picked_options()
            } else {
                Vec::new()
            };
            html! {
                fieldset.options {
                    legend.meta { (accepted) }
                    @for (j, o) in d.options.iter().enumerate() {
                        label.option {
                            input type="checkbox" name="pick" value=(j) checked[picked.contains(&j)];
                            " " code { (o.key) } " — " (o.label)
                        }
                    }
                    @if d.allow_custom {
                        label for=(format!("other-{i}")) { "Your own (added to the ticked ones)" }
                        input #(format!("other-{i}")) type="text" name="other";
                    }
                }
                button.primary type="submit" name="do" value="multi" { "✅ Done" }
            }
        }
        Kind::Number {
            minimum,
            maximum,
            integer,
        } => {
            let current = match &d.value {
                Some(AnswerValue::Number(n)) if answered => n.to_string(),
                _ => String::new(),
            };
            html! {
                div.custom {
                    label for=(field) { (accepted) }
                    input #(field) type="number" name="value" value=(current)
                        min=[minimum.map(|n| n.to_string())] max=[maximum.map(|n| n.to_string())]
                        step=(if *integer { "1" } else { "any" });
                    button type="submit" name="do" value="input" { "✏️ Answer" }
                }
            }
        }
        Kind::Text { format, .. } => {
            let current = match &d.value {
                Some(AnswerValue::Text(t)) if answered => t.clone(),
                _ => String::new(),
            };
            let (kind, current) = match format {
                Some(TextFormat::Date) => ("date", current),
                // datetime-local has no offset: the field is UTC, and the server adds `Z` (see `typed_input`).
                Some(TextFormat::DateTime) => (
                    "datetime-local",
                    current.trim_end_matches('Z').chars().take(19).collect(),
                ),
                Some(TextFormat::Email) => ("email", current),
                Some(TextFormat::Uri) => ("url", current),
                None => ("text", current),
            };
            let utc = matches!(format, Some(TextFormat::DateTime));
            html! {
                div.custom {
                    label for=(field) { (accepted) @if utc { " (UTC)" } }
                    input #(field) type=(kind) name=(if utc { "datetime" } else { "value" }) value=(current);
                    button type="submit" name="do" value="input" { "✏️ Answer" }
                }
            }
        }
        Kind::Boolean => {
            let chosen = match &d.value {
                Some(AnswerValue::Bool(b)) if answered => Some(*b),
                _ => None,
            };
            html! {
                div.options {
                    button type="submit" name="do" value="yes"
                        class=(if chosen == Some(true) { "option chosen" } else { "option" }) { "✅ Yes" }
                    button type="submit" name="do" value="no"
                        class=(if chosen == Some(false) { "option chosen" } else { "option" }) { "❌ No" }
                }
            }
        }
        Kind::Edit { proposal, .. } => {
            let current = match (&d.value, d.edited) {
                (Some(AnswerValue::Text(t)), Some(true)) if answered => t.clone(),
                _ => proposal.text.clone(),
            };
            let rows = proposal.text.lines().count().clamp(3, 30);
            html! {
                label for=(field) { "Proposal" @if let Some(l) = &proposal.language { " (" (l) ")" } ": approve it as is, or edit it" }
                textarea #(field) name="value" rows=(rows) spellcheck="false" data-proposal=(proposal.text) { (current) }
                pre.diff data-diff aria-live="polite" { (diff_markup(&proposal.text, &current)) }
                div.options {
                    button.primary type="submit" name="do" value="approve" { "✅ Approve as is" }
                    button type="submit" name="do" value="input" { "✏️ Save the edited version" }
                }
            }
        }
    };
    Some(markup)
}

/// The edit against the proposal, one line each (`- ` removed, `+ ` added); nothing when they are the same.
fn diff_markup(old: &str, new: &str) -> Markup {
    if old == new {
        return html! {};
    }
    html! {
        @for line in diff::lines(old, new) {
            @match line {
                diff::Line::Same(_) => span { (line.unified()) "\n" },
                diff::Line::Removed(_) => del { (line.unified()) "\n" },
                diff::Line::Added(_) => ins { (line.unified()) "\n" },
            }
        }
    }
}

/// A `datetime-local` field's value (`2026-01-30T09:00`, no offset) as RFC 3339: seconds and `Z` added (the field
/// says UTC). Anything else is left as posted, for the action to check.
#[must_use]
pub fn utc_datetime(value: &str) -> String {
    let t = value.as_bytes().get(10) == Some(&b'T');
    match value.len() {
        16 if t => format!("{value}:00Z"),
        19 if t => format!("{value}Z"),
        _ => value.to_owned(),
    }
}
