//! Property tests: for arbitrary plans, every view is valid MarkdownV2 within Telegram's limits, and
//! every option button answers the option it was drawn for; contexts (arbitrary Markdown) show every
//! word in order, or are cut with `… 📄 Full context` and its button.

use proptest::prelude::*;

use super::test_support::{assert_answer_buttons, assert_within_limits};
use super::*;
use crate::plan::{
    AnswerValue, Decision, DecisionOption, DecisionStatus, Kind, Plan, PlanStatus, Priority,
};
use crate::telegram::markdown_check::parse_markdown_v2;
use crate::telegram::render::FULL_CONTEXT;
use crate::telegram::render::arbitrary::{holds_in_order, markdown, words};

/// Arbitrary text: any Unicode (controls included), or text dense in MarkdownV2 specials.
fn text(max: usize) -> BoxedStrategy<String> {
    let specials = format!("[_*\\[\\]()~`>#+=|{{}}.!\\\\\n a-zЖש🎉-]{{0,{max}}}");
    prop_oneof![
        any::<String>(),
        proptest::string::string_regex(&specials).unwrap(),
        proptest::string::string_regex(&format!("\\PC{{0,{max}}}")).unwrap(),
    ]
    .boxed()
}

/// A context: arbitrary text, or Markdown dense in hostile constructs.
fn context(max: usize) -> BoxedStrategy<String> {
    prop_oneof![text(max), markdown(max / 4)].boxed()
}

fn status() -> impl Strategy<Value = DecisionStatus> {
    prop_oneof![
        Just(DecisionStatus::Pending),
        Just(DecisionStatus::Answered),
        Just(DecisionStatus::Skipped),
    ]
}

fn arb_decision() -> impl Strategy<Value = Decision> {
    (
        (text(90), text(120), status(), any::<bool>()),
        (any::<prop::sample::Index>(), any::<bool>(), text(300)),
        prop::collection::vec((text(80), text(120)), 0..=12),
        context(3000),
    )
        .prop_map(
            |((id, title, status, allow_custom), (pick, pick_option, custom), options, context)| {
                let options: Vec<DecisionOption> = options
                    .into_iter()
                    .map(|(key, label)| DecisionOption { key, label })
                    .collect();
                let answer = match status {
                    DecisionStatus::Pending => None,
                    _ if pick_option && !options.is_empty() => Some(pick.get(&options).key.clone()),
                    _ => Some(custom),
                };
                Decision {
                    id,
                    title,
                    status,
                    answer: answer.clone(),
                    answered_at: None,
                    answered_by: None,
                    allow_custom,
                    default: options.last().map(|o| o.key.clone()),
                    note: None,
                    delegated_to: None,
                    delegated_by: None,
                    context,
                    value: answer.clone().map(AnswerValue::Text),
                    default_value: options.last().map(|o| AnswerValue::Text(o.key.clone())),
                    options,
                    kind: Kind::Choice,
                    edited: None,
                    required: false,
                    carried: false,
                    line: 1,
                    meta_lines: 0..0,
                }
            },
        )
}

fn arb_plan() -> impl Strategy<Value = Plan> {
    (
        (text(100), text(300), 0..4usize),
        (
            prop::option::of(text(80)),
            prop::option::of(text(80)),
            prop::option::of(text(120)),
        ),
        context(5000),
        prop::collection::vec(arb_decision(), 1..=30),
    )
        .prop_map(
            |((id, title, priority), (tag, agent, notify_session), context, decisions)| Plan {
                id,
                title,
                priority: Priority::ALL[priority],
                status: PlanStatus::Pending,
                tag,
                agent,
                session: None,
                machine: None,
                notify_session,
                created_at: None,
                updated_at: None,
                completed_at: None,
                timing: crate::plan::Timing::default(),
                approval: crate::plan::Approval::default(),
                elicitation: false,
                outcome: None,
                revision: 1,
                feedback: None,
                withdrawal: None,
                project: None,
                ruling: None,
                reply_to: None,
                context,
                decisions,
                frontmatter_lines: 0..0,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_view_of_any_plan_is_valid(plan in arb_plan(), page in 0..3usize) {
        let plans = [&plan, &plan];
        let mut views = vec![
            queue(&plans, page),
            super::plan(&plan, &Drawn::now()),
            review(&plan, None, &Drawn::now()),
            completion(&plan),
            announcement(&plan),
            announcement_burst(&plans),
            startup_summary(&plans),
        ];
        for (i, d) in plan.decisions.iter().enumerate() {
            let confirm = after_answer(d);
            let view = decision(&plan, i, Some(&confirm), &Drawn::now());
            assert_answer_buttons(&plan, &view, i);
            views.push(view);
            views.push(review(&plan, Some(&confirm), &Drawn::now()));
            views.push(custom_prompt(&plan, i));
        }
        for view in &views {
            assert_within_limits(view);
        }
    }

    #[test]
    fn problem_reports_are_valid(file in text(300), reason in text(6000)) {
        assert_within_limits(&problem(&file, &reason));
    }
}

/// A view showing `context` shows every word of it in order, or says it was cut and offers the file.
fn shows_context(view: &View, context: &str) -> Result<(), TestCaseError> {
    let plain = parse_markdown_v2(&view.text).map_err(TestCaseError::fail)?;
    let offered = view
        .buttons()
        .any(|b| matches!(b.data, Callback::FullContext { .. }));
    if offered {
        prop_assert!(
            plain.contains(FULL_CONTEXT),
            "cut without saying so:\n{}",
            plain
        );
    } else {
        holds_in_order(&plain, &words(context)).map_err(TestCaseError::fail)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn contexts_keep_their_words_or_offer_the_file(
        plan_context in markdown(400),
        contexts in prop::collection::vec(markdown(600), 1..=3),
    ) {
        let mut plan = super::test_support::spec_plan();
        plan.context = plan_context;
        for (d, context) in plan.decisions.iter_mut().zip(contexts) {
            d.context = context;
        }
        let view = super::plan(&plan, &Drawn::now());
        assert_within_limits(&view);
        shows_context(&view, &plan.context)?;
        for (i, d) in plan.decisions.iter().enumerate() {
            let view = decision(&plan, i, None, &Drawn::now());
            assert_within_limits(&view);
            shows_context(&view, &d.context)?;
        }
    }
}
