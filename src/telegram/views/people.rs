//! The people views: the person picker of `👉 Delegate` and the `💬 Note` prompt.

use crate::actions::seen;
use crate::plan::Plan;
use crate::telegram::callback::Callback;

use super::layout::{Draft, button_text, fit, index16, line, pref, rows_of};
use super::{Button, View, Viewer};

/// Most people listed in the picker (a keyboard holds 100 buttons; one row is `↩️ Back`).
const MAX_PEOPLE: usize = 90;

/// `👉 Delegate *Title* to:` with one button per person (by name), and `↩️ Back` to the decision.
#[must_use]
pub fn delegate_picker(plan: &Plan, index: usize, viewer: &Viewer) -> View {
    let Some((d, at)) = plan.decisions.get(index).zip(index16(index)) else {
        return super::plan(plan, &super::Drawn::to(viewer));
    };
    let text = fit(|caps| {
        let mut text = format!("👉 Delegate *{}* to:", line(&d.title, caps.title));
        if viewer.delegates.is_empty() {
            text.push_str("\n\n_Nobody to delegate to\\._");
        }
        Draft::from(text)
    })
    .text;
    let seen = seen::of_decision(d);
    let people = viewer
        .delegates
        .iter()
        .take(MAX_PEOPLE)
        .map(|to| {
            let data = Callback::Delegate {
                plan: pref(plan),
                index: at,
                to: *to,
                seen: seen.clone(),
            };
            Button::new(button_text("", &viewer.name_of(*to)), data)
        })
        .collect();
    let mut keyboard = rows_of(people, 2);
    let back = Callback::Show {
        plan: pref(plan),
        index: at,
    };
    keyboard.push(vec![Button::new("↩️ Back", back)]);
    View::new(text, keyboard)
}

/// Asks for a note on decision `index` with a force reply: `💬 Type your note for *Title*`, where it belongs,
/// the current note if any, and the `/cancel` hint. A note never changes the answer.
#[must_use]
pub fn note_prompt(plan: &Plan, index: usize) -> View {
    let Some(d) = plan.decisions.get(index) else {
        return super::plan(plan, &super::Drawn::now());
    };
    let draft = fit(|caps| {
        let mut text = format!(
            "💬 Type your note for *{}*\n_{} · {}/{}_",
            line(&d.title, caps.title),
            line(&plan.title, caps.title),
            index + 1,
            plan.decisions.len()
        );
        if let Some(note) = &d.note {
            text.push_str(&format!("\n\nCurrent note: {}", line(note, caps.label)));
        }
        text.push_str(
            "\n\nThe answer stays as it is\\. Send /cancel to leave the note as it is\\.",
        );
        Draft::from(text)
    });
    View {
        text: draft.text,
        keyboard: Vec::new(),
        force_reply: true,
    }
}
