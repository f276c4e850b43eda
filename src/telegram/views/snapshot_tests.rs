//! Snapshots of every view on the example plan (tests/fixtures/spec-example.md) in its successive states,
//! checked by eye against docs/views.md (src/telegram/views/snapshots/), and every one within Telegram's limits.

use insta::assert_snapshot;

use super::test_support::{
    answer, assert_within_limits, render, rich_plan, skip, spec_plan, test_plan,
};
use super::*;
use crate::plan::{Plan, Priority};

fn snap(name: &str, view: &View) {
    assert_within_limits(view);
    assert_snapshot!(name, render(view));
}

#[test]
fn fresh_plan() {
    let plan = spec_plan();
    snap("fresh_queue", &queue(&[&plan], 0));
    snap("fresh_plan", &super::plan(&plan, &Drawn::now()));
    snap("fresh_decision_1", &decision(&plan, 0, None, &Drawn::now()));
    snap("fresh_decision_2", &decision(&plan, 1, None, &Drawn::now()));
    snap("fresh_decision_3", &decision(&plan, 2, None, &Drawn::now()));
    snap("fresh_review", &review(&plan, None, &Drawn::now()));
    snap("fresh_announcement", &announcement(&plan));
    snap("fresh_custom_prompt", &custom_prompt(&plan, 2));
}

#[test]
fn one_answered() {
    let mut plan = spec_plan();
    answer(&mut plan, 0, "jwt");
    let confirm = after_answer(&plan.decisions[0]);
    assert_eq!(confirm, "✅ *Auth Strategy* → `jwt`");
    snap("answered_plan", &super::plan(&plan, &Drawn::now()));
    snap(
        "answered_decision_1",
        &decision(&plan, 0, None, &Drawn::now()),
    );
    snap(
        "answered_next",
        &decision(&plan, 1, Some(&confirm), &Drawn::now()),
    );
    snap("answered_queue", &queue(&[&plan], 0));
    snap("answered_custom_prompt", &custom_prompt(&plan, 0));
}

#[test]
fn one_skipped() {
    let mut plan = spec_plan();
    skip(&mut plan, 1);
    let confirm = after_answer(&plan.decisions[1]);
    assert_eq!(confirm, "⏭️ *Database* skipped");
    snap("skipped_plan", &super::plan(&plan, &Drawn::now()));
    snap(
        "skipped_decision_2",
        &decision(&plan, 1, None, &Drawn::now()),
    );
    snap(
        "skipped_next",
        &decision(&plan, 2, Some(&confirm), &Drawn::now()),
    );
}

#[test]
fn custom_answer() {
    let mut plan = spec_plan();
    answer(&mut plan, 2, "varnish_in front (v7.4)");
    let confirm = after_answer(&plan.decisions[2]);
    assert_eq!(confirm, "✅ *Caching* → `varnish_in front (v7.4)`");
    snap(
        "custom_decision_3",
        &decision(&plan, 2, None, &Drawn::now()),
    );
    snap(
        "custom_review",
        &review(&plan, Some(&confirm), &Drawn::now()),
    );
}

#[test]
fn all_settled() {
    let mut plan = spec_plan();
    answer(&mut plan, 0, "jwt");
    answer(&mut plan, 1, "postgresql");
    skip(&mut plan, 2);
    let confirm = after_answer(&plan.decisions[2]);
    snap("settled_plan", &super::plan(&plan, &Drawn::now()));
    snap(
        "settled_review",
        &review(&plan, Some(&confirm), &Drawn::now()),
    );
    snap("settled_completion", &completion(&plan));
}

#[test]
fn completed() {
    let mut plan = spec_plan();
    answer(&mut plan, 0, "jwt");
    answer(&mut plan, 1, "postgresql");
    answer(&mut plan, 2, "redis");
    snap("completed_review", &review(&plan, None, &Drawn::now()));
    snap("completed", &completion(&plan));
}

#[test]
fn free_text_decision() {
    let mut plan = spec_plan();
    plan.decisions[1].options.clear();
    snap(
        "free_text_decision",
        &decision(&plan, 1, None, &Drawn::now()),
    );
    answer(&mut plan, 1, "sqlite, for now");
    snap(
        "free_text_answered",
        &decision(&plan, 1, None, &Drawn::now()),
    );
}

fn many_plans(n: usize) -> Vec<Plan> {
    let base = test_plan();
    (0..n)
        .map(|i| {
            let mut plan = base.clone();
            plan.id = format!("plan-{i}");
            plan.title = format!("Plan number {i}");
            plan.priority = Priority::ALL[(i * 7) % 4];
            plan.tag = (i % 3 != 0).then(|| format!("tag-{}", i % 3));
            if i % 2 == 0 {
                answer(&mut plan, 0, "option-a");
            }
            plan
        })
        .collect()
}

#[test]
fn queue_of_several_plans() {
    let mut spec = spec_plan();
    spec.priority = Priority::Urgent;
    let mut other = test_plan();
    answer(&mut other, 1, "yes");
    let plans = many_plans(4);
    let all: Vec<&Plan> = [&other, &spec].into_iter().chain(&plans).collect();
    snap("queue_several", &queue(&all, 0));
    snap("queue_empty", &queue(&[], 0));
    snap("startup_summary", &startup_summary(&all));
    snap("startup_summary_empty", &startup_summary::<Plan>(&[]));
    snap("burst", &announcement_burst(&all[..3]));
}

#[test]
fn queue_with_the_dashboard_as_a_mini_app() {
    let plans = many_plans(12);
    let all: Vec<&Plan> = plans.iter().collect();
    let url: url::Url = "https://arbiter.example.org/".parse().unwrap();
    snap(
        "queue_dashboard",
        &queue_with_dashboard(&all, 1, Some(&url)),
    );
    snap(
        "queue_empty_dashboard",
        &queue_with_dashboard(&[], 0, Some(&url)),
    );
    assert_eq!(queue_with_dashboard(&all, 1, None), queue(&all, 1));
}

#[test]
fn queue_pages() {
    let plans = many_plans(23);
    let all: Vec<&Plan> = plans.iter().collect();
    snap("queue_page_1", &queue(&all, 0));
    snap("queue_page_2", &queue(&all, 1));
    snap("queue_page_3", &queue(&all, 2));
    assert_eq!(queue(&all, 99), queue(&all, 2), "page is clamped");
    snap("burst_long", &announcement_burst(&all));
}

#[test]
fn notices() {
    snap("help", &help());
    snap("not_found", &not_found());
    snap(
        "problem",
        &problem(
            "ceo-api_design-abc.md",
            "line 12: `priority` must be low|normal|high|urgent, got \"asap\"",
        ),
    );
}

#[test]
fn to_plain_shows_what_the_owner_sees() {
    let plan = spec_plan();
    let want = "\
📄 API Design Decisions

🟡 normal │ ░░░░░░░░░░ 0/3
🏷️ nft-marketplace · 🤖 ceo

Context for the human reviewer.

[⬜ 1. Auth Strategy]
[⬜ 2. Database]
[⬜ 3. Caching]
[▶️ Continue] [↩️ Back]
[🔁 Request changes]";
    assert_eq!(super::plan(&plan, &Drawn::now()).to_plain(), want);
    assert!(
        custom_prompt(&plan, 0)
            .to_plain()
            .ends_with("(reply requested)")
    );
}

#[test]
fn out_of_range_index_draws_the_plan() {
    let plan = spec_plan();
    assert_eq!(
        decision(&plan, 3, None, &Drawn::now()),
        super::plan(&plan, &Drawn::now())
    );
    assert_eq!(custom_prompt(&plan, 7), super::plan(&plan, &Drawn::now()));
}

#[test]
fn a_broken_confirm_header_is_dropped() {
    let plan = spec_plan();
    let view = decision(&plan, 0, Some("*unclosed"), &Drawn::now());
    assert_within_limits(&view);
    assert_eq!(view, decision(&plan, 0, None, &Drawn::now()));
}

#[test]
fn markdown_contexts() {
    let plan = rich_plan();
    snap("rich_plan", &super::plan(&plan, &Drawn::now()));
    assert_eq!(file_caption(&plan), "📄 Full context of *Cache rollout*");
    snap("rich_decision_1", &decision(&plan, 0, None, &Drawn::now()));
    snap("rich_decision_2", &decision(&plan, 1, None, &Drawn::now()));
    let mut long = plan.clone();
    long.decisions[0].context = [plan.context.as_str(); 8].join("\n\n");
    let view = decision(&long, 0, None, &Drawn::now());
    assert!(
        view.to_plain()
            .contains("… 📄 Full context\n\nA. 60 seconds")
    );
    snap("rich_decision_long", &view);
}

#[test]
fn people() {
    let mut plan = spec_plan();
    answer(&mut plan, 0, "jwt");
    answer(&mut plan, 1, "postgresql");
    answer(&mut plan, 2, "redis");
    plan.decisions[0].answered_by = Some("93533553".into());
    plan.decisions[1].answered_by = Some("11111111".into());
    plan.decisions[1].delegated_to = Some(11111111);
    plan.decisions[1].delegated_by = Some(93533553);
    plan.decisions[0].note = Some("Short-lived tokens:\nrotate weekly".into());
    plan.approval.require = 2;
    plan.approval.signoffs = vec![93533553];
    let names = vec![(93533553, "alice".to_owned()), (11111111, "bob".to_owned())];
    let alice = Viewer {
        names: names.clone(),
        only: None,
        delegates: vec![11111111, 22222222],
    };
    let bob = Viewer {
        names,
        only: Some(vec![1]),
        delegates: Vec::new(),
    };
    snap(
        "people_decision_noted",
        &decision(&plan, 0, None, &Drawn::to(&alice)),
    );
    snap(
        "people_decision_delegated",
        &decision(&plan, 1, None, &Drawn::to(&alice)),
    );
    snap(
        "people_decision_as_delegate",
        &decision(
            &plan,
            1,
            Some("👉 *alice* delegated this decision to you"),
            &Drawn::to(&bob),
        ),
    );
    snap("people_delegate_picker", &delegate_picker(&plan, 2, &alice));
    snap(
        "people_review_sign_off",
        &review(&plan, None, &Drawn::to(&alice)),
    );
    snap("people_note_prompt", &note_prompt(&plan, 0));
}
