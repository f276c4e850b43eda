//! Shared by the view tests: fixture plans, state changes, a readable rendering, the limit checks.

use crate::plan::{DecisionStatus, Plan, parse};
use crate::telegram::callback::{Callback, MAX_CALLBACK_BYTES, fingerprint, plan_ref};
use crate::telegram::markdown_check::{parse_markdown_v2, telegram_length};

use super::{Button, MAX_BUTTON_TEXT, MAX_BUTTONS, MAX_BUTTONS_PER_ROW, MAX_TEXT, View};

/// The example plan, tests/fixtures/spec-example.md ("API Design Decisions", three decisions, all pending).
pub fn spec_plan() -> Plan {
    let text = include_str!("../../../tests/fixtures/spec-example.md");
    parse(text, "spec-example").unwrap()
}

/// A plan whose contexts use every Markdown construct agents write (tests/fixtures/rich-context.md).
pub fn rich_plan() -> Plan {
    let text = include_str!("../../../tests/fixtures/rich-context.md");
    parse(text, "rich-context").unwrap()
}

/// A second small plan (tests/fixtures/test-plan.md).
pub fn test_plan() -> Plan {
    let text = include_str!("../../../tests/fixtures/test-plan.md");
    parse(text, "test-plan").unwrap()
}

pub fn answer(plan: &mut Plan, index: usize, answer: &str) {
    let d = &mut plan.decisions[index];
    d.status = DecisionStatus::Answered;
    d.answer = Some(answer.to_owned());
}

pub fn skip(plan: &mut Plan, index: usize) {
    let d = &mut plan.decisions[index];
    d.status = DecisionStatus::Skipped;
    d.answer = None;
}

/// The MarkdownV2 text, then each keyboard row as `[text → callback data]` cells.
pub fn render(view: &View) -> String {
    let mut out = view.text.clone();
    out.push_str("\n\n──── keyboard ────");
    for row in &view.keyboard {
        out.push('\n');
        let cells: Vec<String> = row
            .iter()
            .map(|b| match (&b.web_app, &b.url) {
                (Some(url), _) => format!("[{} → web_app {url}]", b.text),
                (None, Some(url)) => format!("[{} → {url}]", b.text),
                (None, None) => format!("[{} → {}]", b.text, b.data.encode()),
            })
            .collect();
        out.push_str(&cells.join(" "));
    }
    if view.force_reply {
        out.push_str("\n(force reply)");
    }
    out
}

/// Every Telegram limit the views promise; panics with the offending part.
pub fn assert_within_limits(view: &View) {
    let plain = parse_markdown_v2(&view.text)
        .unwrap_or_else(|e| panic!("invalid MarkdownV2: {e}\n{}", view.text));
    assert!(!plain.trim().is_empty(), "blank text");
    let len = telegram_length(&plain);
    assert!(len <= MAX_TEXT, "text is {len} UTF-16 units");
    let buttons: Vec<_> = view.buttons().collect();
    assert!(buttons.len() <= MAX_BUTTONS, "{} buttons", buttons.len());
    assert!(
        !view.force_reply || buttons.is_empty(),
        "force reply with a keyboard"
    );
    for row in &view.keyboard {
        assert!(!row.is_empty(), "empty row");
        assert!(row.len() <= MAX_BUTTONS_PER_ROW, "row of {}", row.len());
    }
    for button in buttons {
        assert!(!button.text.trim().is_empty(), "blank button text");
        let units = button.text.encode_utf16().count();
        assert!(units <= MAX_BUTTON_TEXT, "button text {:?}", button.text);
        let data = button.data.encode();
        assert!(
            !data.is_empty() && data.len() <= MAX_CALLBACK_BYTES,
            "{data}"
        );
        assert_eq!(
            Callback::decode(&data).as_ref(),
            Some(&button.data),
            "{data}"
        );
    }
}

/// The option buttons of decision view `view` (of decision `index`, drawn for the owner) answer option i, in
/// order, with letter i (the label itself for the lone option of a one-decision plan; `✓` only on the chosen
/// one) and the fingerprint of what they showed.
pub fn assert_answer_buttons(plan: &Plan, view: &View, index: usize) {
    let d = &plan.decisions[index];
    let answers: Vec<&Button> = view
        .buttons()
        .filter(|b| matches!(b.data, Callback::Answer { .. }))
        .collect();
    assert_eq!(answers.len(), d.options.len().min(90));
    let chosen = d
        .chosen_option()
        .filter(|_| d.status == DecisionStatus::Answered);
    for (i, (button, option)) in answers.iter().zip(&d.options).enumerate() {
        let want = Callback::Answer {
            plan: plan_ref(&plan.id),
            index: u16::try_from(index).unwrap(),
            option: u16::try_from(i).unwrap(),
            seen: fingerprint(&[&d.id, &option.key, &option.label]),
        };
        assert_eq!(button.data, want);
        assert_eq!(Callback::decode(&button.data.encode()), Some(want));
        // A lone option of a one-decision plan reads as itself beside `🔁 Request changes`.
        let lone = d.options.len() == 1 && plan.decisions.len() == 1 && !plan.elicitation;
        let tick = if chosen == Some(i) { "✓ " } else { "" };
        let text = if lone {
            let shown = if option.label.trim().is_empty() {
                &option.key
            } else {
                &option.label
            };
            super::layout::button_text(tick, shown)
        } else {
            format!("{tick}{}", super::layout::letter(i))
        };
        assert_eq!(button.text, text);
    }
}

/// A plan with one decision of each answer kind but `choice` (tests/fixtures/kinds.md): multi, number, text
/// (date), boolean, edit with a `reject` option; an elicitation plan.
pub fn kinds_plan() -> Plan {
    let text = include_str!("../../../tests/fixtures/kinds.md");
    parse(text, "kinds").unwrap()
}

/// Records a typed answer in memory, as the file would hold it.
pub fn answer_value(plan: &mut Plan, index: usize, value: crate::plan::AnswerValue) {
    let d = &mut plan.decisions[index];
    d.status = DecisionStatus::Answered;
    d.answer = Some(value.text());
    d.value = Some(value);
}
