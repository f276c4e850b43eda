//! Snapshots of each answer kind's views (tests/fixtures/kinds.md), and the limits with hostile content: 25
//! options toggled, a 3,500-character proposal, a proposal full of MarkdownV2 specials.

use insta::assert_snapshot;

use super::test_support::{answer_value, assert_within_limits, kinds_plan, render};
use super::*;
use crate::plan::{AnswerValue, InputRefusal, Number, parse};

fn snap(name: &str, view: &View) {
    assert_within_limits(view);
    assert_snapshot!(name, render(view));
}

fn drawn() -> Drawn<'static> {
    Drawn::at(chrono::DateTime::UNIX_EPOCH)
}

#[test]
fn multi_toggles_and_done() {
    let mut plan = kinds_plan();
    snap("kinds_multi_fresh", &decision(&plan, 0, None, &drawn()));
    snap("kinds_multi_toggled", &toggled(&plan, 0, &[0, 2], &drawn()));
    answer_value(
        &mut plan,
        0,
        AnswerValue::List(vec!["lint".into(), "tests".into()]),
    );
    snap("kinds_multi_answered", &decision(&plan, 0, None, &drawn()));
    assert_eq!(
        after_answer(&plan.decisions[0]),
        "✅ *Checks* → `lint, tests`"
    );
}

#[test]
fn number_and_text_ask_with_a_force_reply() {
    let mut plan = kinds_plan();
    snap("kinds_number_fresh", &decision(&plan, 1, None, &drawn()));
    snap("kinds_number_prompt", &custom_prompt(&plan, 1));
    snap("kinds_text_fresh", &decision(&plan, 2, None, &drawn()));
    snap("kinds_text_prompt", &custom_prompt(&plan, 2));
    let three = Number::new(3.0).unwrap();
    answer_value(&mut plan, 1, AnswerValue::Number(three));
    snap("kinds_number_answered", &decision(&plan, 1, None, &drawn()));
    snap("kinds_number_prompt_answered", &custom_prompt(&plan, 1));
    let refusal = InputRefusal {
        reason: "`12abc` is not a number written in digits.".into(),
        prompt: "Send a whole number from 1 to 10.".into(),
    };
    snap("kinds_number_refused", &input_refused(&refusal));
}

#[test]
fn boolean_has_yes_and_no() {
    let mut plan = kinds_plan();
    snap("kinds_boolean_fresh", &decision(&plan, 3, None, &drawn()));
    answer_value(&mut plan, 3, AnswerValue::Bool(false));
    snap(
        "kinds_boolean_answered",
        &decision(&plan, 3, None, &drawn()),
    );
    assert_eq!(after_answer(&plan.decisions[3]), "✅ *Migrate* → `No`");
}

#[test]
fn edit_shows_the_proposal_and_then_the_diff() {
    let mut plan = kinds_plan();
    snap("kinds_edit_fresh", &decision(&plan, 4, None, &drawn()));
    snap(
        "kinds_edit_proposal",
        &proposal_message(&plan, 4).expect("an edit decision"),
    );
    snap("kinds_edit_prompt", &custom_prompt(&plan, 4));
    answer_value(
        &mut plan,
        4,
        AnswerValue::Text("rm -rf build/\nmake release --dry-run".into()),
    );
    plan.decisions[4].edited = Some(true);
    snap("kinds_edit_edited", &decision(&plan, 4, None, &drawn()));
    assert_eq!(
        after_answer(&plan.decisions[4]),
        "✅ *Cleanup command* → `edited`"
    );
}

#[test]
fn review_and_completion_show_typed_answers_and_decline() {
    let mut plan = kinds_plan();
    snap("kinds_review_pending", &review(&plan, None, &drawn()));
    answer_value(&mut plan, 0, AnswerValue::List(vec!["lint".into()]));
    answer_value(&mut plan, 1, AnswerValue::Number(Number::new(3.0).unwrap()));
    answer_value(&mut plan, 2, AnswerValue::Text("2026-03-01".into()));
    answer_value(&mut plan, 3, AnswerValue::Bool(true));
    let proposal = plan.decisions[4].kind.proposal().unwrap().text.clone();
    answer_value(&mut plan, 4, AnswerValue::Text(proposal));
    plan.decisions[4].edited = Some(false);
    snap("kinds_review_done", &review(&plan, None, &drawn()));
    snap("kinds_completion", &completion(&plan));
    plan.outcome = Some(crate::plan::OUTCOME_DECLINED.to_owned());
    snap("kinds_completion_declined", &completion(&plan));
}

fn edit_plan(proposal: &str, lang: &str) -> Plan {
    let text = format!(
        "---\nid: e\n---\n# E\n\n## Run\n\nkind: edit\n\n**Proposal:**\n\n````{lang}\n{proposal}\n````\n"
    );
    parse(&text, "e").unwrap()
}

#[test]
fn a_long_proposal_is_cut_with_full_context() {
    let long: String = (0..100)
        .map(|i| format!("echo line {i:03} {}\n", "x".repeat(25)))
        .collect();
    assert!(long.chars().count() > 3500);
    let mut plan = edit_plan(long.trim_end(), "bash");
    let view = decision(&plan, 0, None, &drawn());
    assert_within_limits(&view);
    assert!(view.text.contains("```bash\n"), "{}", view.text);
    let message = proposal_message(&plan, 0).unwrap();
    assert_within_limits(&message);
    // A 3,500-character proposal fits the message sent to copy: whole, no Full context.
    let exact: String = "y".repeat(3499);
    let exact_plan = edit_plan(&exact, "");
    let whole = proposal_message(&exact_plan, 0).unwrap();
    assert_within_limits(&whole);
    assert!(whole.keyboard.is_empty(), "{}", whole.text);
    let view = decision(&exact_plan, 0, None, &drawn());
    assert_within_limits(&view);
    // Edited: the diff of a long proposal fits too.
    let edited = long.replace("line 050", "LINE 050");
    answer_value(&mut plan, 0, AnswerValue::Text(edited));
    plan.decisions[0].edited = Some(true);
    let view = decision(&plan, 0, None, &drawn());
    assert_within_limits(&view);
    assert!(view.text.contains("```diff\n"), "{}", view.text);
}

#[test]
fn a_proposal_full_of_markdown_specials_stays_valid() {
    let specials = "_*[]()~`>#+-=|{}.!\\ ```\n\\`x` *bold* _it_ ||sp|| [l](http://x) > q\n";
    let hostile = specials.repeat(60);
    let mut plan = edit_plan(hostile.trim_end(), "weird lang!");
    for view in [
        decision(&plan, 0, None, &drawn()),
        proposal_message(&plan, 0).unwrap(),
        custom_prompt(&plan, 0),
    ] {
        assert_within_limits(&view);
    }
    answer_value(
        &mut plan,
        0,
        AnswerValue::Text(format!("{hostile}changed `x`")),
    );
    plan.decisions[0].edited = Some(true);
    let view = decision(&plan, 0, None, &drawn());
    assert_within_limits(&view);
    assert_within_limits(&review(&plan, None, &drawn()));
    assert_within_limits(&completion(&plan));
}

#[test]
fn twenty_five_options_toggled_stay_within_limits() {
    let options: String = (0..25)
        .map(|i| {
            format!(
                "- `o{i}` — {} option {i} with a long label\n",
                "*_[".repeat(20)
            )
        })
        .collect();
    let text = format!(
        "---\nid: m\n---\n# M\n\n## Pick\n\nkind: multi\nmin: 2\n\n**Context:** {}\n\n**Options:**\n{options}",
        "long context ".repeat(300)
    );
    let mut plan = parse(&text, "m").unwrap();
    let all: Vec<usize> = (0..25).collect();
    let view = toggled(&plan, 0, &all, &drawn());
    assert_within_limits(&view);
    assert!(view.buttons().any(|b| b.text == "✅ Done (25)"));
    assert_eq!(
        view.buttons().filter(|b| b.text.starts_with("☑")).count(),
        25
    );
    let keys: Vec<String> = (0..25).map(|i| format!("o{i}")).collect();
    answer_value(&mut plan, 0, AnswerValue::List(keys));
    assert_within_limits(&decision(&plan, 0, None, &drawn()));
    assert_within_limits(&review(&plan, None, &drawn()));
    assert_within_limits(&completion(&plan));
}
