//! Content built to break the views: every reserved character, backslashes, backticks, emoji,
//! Cyrillic and RTL text, 80-character ids, 12 options, 30 decisions, 10 000-character contexts.

use super::test_support::{answer, assert_answer_buttons, assert_within_limits, skip, spec_plan};
use super::*;
use crate::plan::{DecisionOption, Plan, Priority};
use crate::telegram::callback::Callback;
use crate::telegram::markdown_check::{parse_markdown_v2, telegram_length};
use crate::telegram::render::FULL_CONTEXT;

const NASTY: &str = "_*[]()~`>#+-=|{}.!\\ \\\\ ``` *bold _it__ ||x|| [l](http://x) 🎉👩‍👩‍👧 Привет שלום مرحبا \u{202e}evil";

fn nasty(i: usize, len: usize) -> String {
    let mut s = format!("{i}{NASTY}");
    while s.chars().count() < len {
        s.push_str(NASTY);
    }
    s.chars().take(len).collect()
}

fn hostile_plan() -> Plan {
    let mut plan = spec_plan();
    let template = plan.decisions[2].clone();
    plan.id = format!(">{}", "i".repeat(79));
    plan.title = nasty(0, 300);
    plan.tag = Some(nasty(1, 200));
    plan.agent = Some(nasty(2, 100));
    plan.notify_session = Some(nasty(3, 500));
    plan.context = nasty(4, 10_000);
    plan.priority = Priority::Urgent;
    plan.decisions = (0..30)
        .map(|i| {
            let mut d = template.clone();
            d.id = format!("{i}-{}", "d".repeat(78));
            d.title = nasty(i, 200 + i * 10);
            d.context = nasty(i, 10_000);
            d.allow_custom = i % 2 == 0;
            d.options = (0..12)
                .map(|o| DecisionOption {
                    key: format!("{o}`{}", "k".repeat(78)),
                    label: nasty(o, 400),
                })
                .collect();
            d
        })
        .collect();
    plan
}

fn every_view(plan: &Plan) -> Vec<View> {
    let mut views = vec![
        queue(&[plan], 0),
        super::plan(plan, &Drawn::now()),
        review(plan, None, &Drawn::now()),
        completion(plan),
        announcement(plan),
        announcement_burst(&[plan, plan, plan]),
        startup_summary(&[plan]),
    ];
    let viewer = Viewer::default();
    let open = card::deep_link("arbiter_bot", &plan.id);
    for state in [
        CardState::Pending,
        CardState::Submitted,
        CardState::SentBack,
        CardState::Declined,
        CardState::Gone,
    ] {
        let drawn = Card {
            state,
            open: open.as_ref(),
            names: &viewer,
            now: chrono::Utc::now(),
        };
        views.push(card(plan, &drawn));
        // A hostile plan cut to one decision gets the quick answer.
        let mut one = plan.clone();
        one.decisions.truncate(1);
        views.push(card(&one, &drawn));
    }
    for (i, d) in plan.decisions.iter().enumerate() {
        let confirm = after_answer(d);
        views.push(decision(plan, i, None, &Drawn::now()));
        views.push(decision(plan, i, Some(&confirm), &Drawn::now()));
        views.push(review(plan, Some(&confirm), &Drawn::now()));
        views.push(custom_prompt(plan, i));
    }
    views
}

#[test]
fn hostile_plans_stay_within_limits() {
    let mut plan = hostile_plan();
    for view in every_view(&plan) {
        assert_within_limits(&view);
    }
    for i in 0..30 {
        match i % 3 {
            0 => answer(&mut plan, i, &nasty(i, 5000)),
            1 => {
                let key = plan.decisions[i].options[i % 12].key.clone();
                answer(&mut plan, i, &key);
            }
            _ => skip(&mut plan, i),
        }
    }
    for view in every_view(&plan) {
        assert_within_limits(&view);
    }
    for i in 0..30 {
        assert_answer_buttons(&plan, &decision(&plan, i, None, &Drawn::now()), i);
    }
    assert_within_limits(&problem(&nasty(5, 300), &nasty(6, 10_000)));
    let caption = parse_markdown_v2(&file_caption(&plan)).unwrap();
    assert!(telegram_length(&caption) <= 1024, "{caption}");
}

#[test]
fn long_content_is_cut_with_an_ellipsis() {
    let plan = hostile_plan();
    let view = decision(&plan, 0, None, &Drawn::now());
    let plain = parse_markdown_v2(&view.text).unwrap();
    assert!(telegram_length(&plain) > 3000, "cut only as much as needed");
    assert!(plain.contains('…'));
    assert!(view.buttons().any(|b| b.text == "📄 Full context"));
    // The plan view's context is cut to 300 characters of what the owner sees (the Full context
    // line included), where no entity is open, and offers the whole file.
    let plan_view = super::plan(&plan, &Drawn::now());
    let plan_plain = parse_markdown_v2(&plan_view.text).unwrap();
    let context = &plan_plain[plan_plain.find("\n\n4").unwrap() + 2..];
    assert!(context.ends_with(FULL_CONTEXT), "{context}");
    let units = context.encode_utf16().count();
    assert!((200..=300).contains(&units), "{units} units: {context}");
    let full = Callback::FullContext {
        plan: crate::telegram::callback::plan_ref(&plan.id),
    };
    assert!(plan_view.buttons().any(|b| b.data == full));
}

#[test]
fn huge_lists_are_capped() {
    let mut plan = hostile_plan();
    let many: Vec<_> = (0..150).map(|i| plan.decisions[i % 30].clone()).collect();
    plan.decisions = many;
    plan.decisions[0].options = (0..200)
        .map(|o| DecisionOption {
            key: format!("k{o}"),
            label: format!("Option {o}"),
        })
        .collect();
    let plans: Vec<&Plan> = std::iter::repeat_n(&plan, 40).collect();
    for view in [
        super::plan(&plan, &Drawn::now()),
        review(&plan, None, &Drawn::now()),
        completion(&plan),
        decision(&plan, 0, None, &Drawn::now()),
        decision(&plan, 149, Some("✅ *x*"), &Drawn::now()),
        queue(&plans, 3),
        announcement_burst(&plans),
    ] {
        assert_within_limits(&view);
    }
    let view = decision(&plan, 0, None, &Drawn::now());
    let letters: Vec<&str> = view
        .buttons()
        .filter(|b| matches!(b.data, Callback::Answer { .. }))
        .map(|b| b.text.as_str())
        .collect();
    assert_eq!(letters.len(), 90);
    assert_eq!(letters[26], "AA");
    assert_eq!(letters[89], "CL");
}

#[test]
fn empty_and_blank_strings() {
    let mut plan = spec_plan();
    plan.title = String::new();
    plan.tag = Some(" ".into());
    plan.agent = Some(String::new());
    plan.context = "\n\n".into();
    for d in &mut plan.decisions {
        d.title = "\n".into();
        d.context = String::new();
        for o in &mut d.options {
            o.label = String::new();
        }
    }
    answer(&mut plan, 0, "");
    for view in every_view(&plan) {
        assert_within_limits(&view);
    }
    assert_within_limits(&problem("", ""));
    let empty = Plan {
        decisions: Vec::new(),
        ..plan
    };
    for view in every_view(&empty) {
        assert_within_limits(&view);
    }
}

#[test]
fn people_views_stay_within_limits() {
    let mut plan = hostile_plan();
    plan.approval.require = 3;
    plan.approval.signoffs = vec![1, 2];
    for (i, d) in plan.decisions.iter_mut().enumerate() {
        d.note = Some(nasty(i, 5000));
        d.answered_by = Some(format!("{}", i % 3 + 1));
        d.status = crate::plan::DecisionStatus::Answered;
        d.answer = Some(d.options[0].key.clone());
        d.delegated_to = (i % 2 == 0).then_some(2);
        d.delegated_by = Some(1);
    }
    let names: Vec<(u64, String)> = (1..=90).map(|id| (id, nasty(id as usize, 300))).collect();
    let approver = Viewer {
        names: names.clone(),
        only: None,
        delegates: (2..=90).collect(),
    };
    let delegate = Viewer {
        names,
        only: Some(vec![0, 2]),
        delegates: Vec::new(),
    };
    for viewer in [&approver, &delegate, &Viewer::default()] {
        let mut views = vec![
            super::plan(&plan, &Drawn::to(viewer)),
            review(&plan, None, &Drawn::to(viewer)),
            review(
                &plan,
                Some(&after_answer(&plan.decisions[0])),
                &Drawn::to(viewer),
            ),
        ];
        for i in 0..plan.decisions.len() {
            views.push(decision(&plan, i, None, &Drawn::to(viewer)));
            views.push(decision(
                &plan,
                i,
                Some("👉 Delegated to *x*"),
                &Drawn::to(viewer),
            ));
            views.push(delegate_picker(&plan, i, viewer));
            views.push(note_prompt(&plan, i));
        }
        for view in &views {
            assert_within_limits(view);
        }
    }
    // A delegate's view has no navigation and no way to the rest of the plan.
    let theirs = decision(&plan, 0, None, &Drawn::to(&delegate));
    assert!(
        theirs.buttons().all(|b| !matches!(
            b.data,
            Callback::Show { .. } | Callback::Open { .. } | Callback::Review { .. }
        )),
        "{theirs:?}"
    );
    let review = review(&plan, None, &Drawn::to(&approver));
    assert!(review.buttons().any(|b| b.text == "✅ Sign off (2/3)"));
    assert!(!review.buttons().any(|b| b.text == "📤 Submit"));
}

/// A one-decision plan's lone option reads as its label (beside `🔁 Request changes`); chosen, its `✓ ` is part of
/// the button's room, so a long label still fits (a proptest found it 2 units over).
#[test]
fn a_chosen_lone_option_with_a_long_label_fits_its_button() {
    let mut plan = hostile_plan();
    plan.decisions.truncate(1);
    plan.decisions[0].options.truncate(1);
    let key = plan.decisions[0].options[0].key.clone();
    answer(&mut plan, 0, &key);
    for confirm in [None, Some(after_answer(&plan.decisions[0]))] {
        let view = decision(&plan, 0, confirm.as_deref(), &Drawn::now());
        assert_within_limits(&view);
        assert_answer_buttons(&plan, &view, 0);
        let lone = view
            .buttons()
            .find(|b| matches!(b.data, Callback::Answer { .. }))
            .unwrap();
        assert!(lone.text.starts_with("✓ 0"), "{}", lone.text);
        assert!(lone.text.ends_with('…'), "{}", lone.text);
    }
}
