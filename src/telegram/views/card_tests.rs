//! Snapshots of the group card in each state, every one within Telegram's limits, and its deep link.

use chrono::TimeZone;
use insta::assert_snapshot;

use super::super::test_support::{answer, assert_within_limits, render, skip, spec_plan};
use super::*;
use crate::plan::parse;

const ONE_CHOICE: &str = "---\nid: db-choice\ntitle: Pick the database\nagent: builder\ntag: infra\npriority: high\n\
    deadline: 2026-02-01T14:00:00Z\n---\n# Pick the database\n\nContext.\n\n## Decision 1: Database\n\nid: database\n\
    status: pending\n\n**Options:**\n- `pg` — PostgreSQL\n- `sqlite` — SQLite\n";

fn names() -> Viewer {
    Viewer {
        names: vec![(11, "alice".to_owned()), (22, "bob".to_owned())],
        ..Viewer::default()
    }
}

fn at(hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 2, 1, hour, 0, 0).unwrap()
}

fn link() -> url::Url {
    deep_link("arbiter_bot", "db-choice").unwrap()
}

fn draw(plan: &Plan, state: CardState, now: DateTime<Utc>) -> View {
    let names = names();
    let open = link();
    let view = card(
        plan,
        &Card {
            state,
            open: Some(&open),
            names: &names,
            now,
        },
    );
    assert_within_limits(&view);
    view
}

#[test]
fn a_one_choice_plan_offers_its_options() {
    let mut plan = parse(ONE_CHOICE, "db-choice").unwrap();
    assert_snapshot!(
        "card_fresh",
        render(&draw(&plan, CardState::Pending, at(10)))
    );
    answer(&mut plan, 0, "pg");
    plan.decisions[0].answered_by = Some("22".to_owned());
    assert_snapshot!(
        "card_answered_overdue",
        render(&draw(&plan, CardState::Pending, at(15)))
    );
    assert_snapshot!(
        "card_submitted",
        render(&draw(&plan, CardState::Submitted, at(15)))
    );
}

#[test]
fn a_plan_of_several_decisions_links_to_the_private_chat() {
    let mut plan = spec_plan();
    answer(&mut plan, 0, "jwt");
    plan.decisions[0].answered_by = Some("11".to_owned());
    skip(&mut plan, 1);
    plan.decisions[1].answered_by = Some("99".to_owned());
    plan.approval.require = 2;
    plan.approval.signoffs = vec![11];
    assert_snapshot!(
        "card_several",
        render(&draw(&plan, CardState::Pending, at(10)))
    );
    assert_snapshot!("card_gone", render(&draw(&plan, CardState::Gone, at(10))));
    assert_snapshot!(
        "card_sent_back",
        render(&draw(&plan, CardState::SentBack, at(10)))
    );
    assert_snapshot!(
        "card_declined",
        render(&draw(&plan, CardState::Declined, at(10)))
    );
}

#[test]
fn group_messages_carry_only_the_link() {
    let plan = spec_plan();
    let open = link();
    let nudge = super::super::nudge(&plan, super::super::Nudge::Reminder, at(10));
    let view = in_group(nudge.clone(), Some(&open));
    assert_eq!(view.text, nudge.text);
    assert_eq!(view.keyboard, vec![vec![Button::link("📂 Open", open)]]);
    assert!(in_group(nudge, None).keyboard.is_empty());
}

#[test]
fn deep_links_carry_the_id_or_a_reference() {
    assert_eq!(
        deep_link("arbiter_bot", "api-design_2").unwrap().as_str(),
        "https://t.me/arbiter_bot?start=plan_api-design_2"
    );
    let odd = "plan.with.dots";
    assert_eq!(
        deep_link("arbiter_bot", odd).unwrap().as_str(),
        format!("https://t.me/arbiter_bot?start=ref_{}", plan_ref(odd))
    );
    let long = "x".repeat(60);
    assert!(
        deep_link("arbiter_bot", &long)
            .unwrap()
            .as_str()
            .contains("start=ref_")
    );
    assert_eq!(deep_link("bad name", "a"), None);
}

#[test]
fn an_escalation_in_the_topic_names_who_it_went_to() {
    let plan = parse(ONE_CHOICE, "db-choice").unwrap();
    let open = link();
    let view = escalated_in_group(
        &plan,
        &["alice".to_owned(), "bob".to_owned()],
        Some(&open),
        at(10),
    );
    assert_within_limits(&view);
    assert_snapshot!("card_escalated", render(&view));
}
