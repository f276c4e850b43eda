//! The request-changes prompt, the sent-back message and the revision announcement: snapshots on the example
//! plan, and Telegram's limits (MarkdownV2 that parses, ≤ 4096 characters) on hostile ones.

use insta::assert_snapshot;

use super::test_support::{answer, assert_within_limits, render, spec_plan};
use super::*;
use crate::plan::Feedback;

const SPECIALS: &str = "_*[]()~`>#+-=|{}.!\\ ";

fn feedback(text: &str) -> Option<Feedback> {
    Some(Feedback {
        text: text.to_owned(),
        by: Some("93533553".into()),
        at: Some("2026-02-01T10:00:00Z".into()),
    })
}

/// The example plan sent back, and its revision: database loses an option and gains a context line, caching is
/// gone, search is new, auth's answer carried.
fn revision_pair() -> (Plan, Plan) {
    let mut before = spec_plan();
    answer(&mut before, 0, "jwt");
    before.feedback = feedback("Use Postgres only: no Mongo.\nAnd add search.");
    let mut after = before.clone();
    after.revision = 2;
    after.decisions[0].carried = true;
    after.decisions[1].options.pop();
    after.decisions[1]
        .context
        .push_str("\nPostgres only, as asked.");
    let mut search = after.decisions[2].clone();
    search.id = "search".into();
    search.title = "Search".into();
    after.decisions[2] = search;
    (before, after)
}

#[test]
fn request_changes_views() {
    let (before, after) = revision_pair();
    let views = [
        ("request_changes_prompt", request_changes_prompt(&before)),
        ("sent_back", sent_back(&before)),
        ("revision_2", revision_announcement(&after, &before)),
    ];
    for (name, view) in views {
        assert_within_limits(&view);
        assert_snapshot!(name, render(&view));
    }
}

#[test]
fn hostile_revisions_stay_within_limits() {
    let nasty = |n: usize| SPECIALS.repeat(n);
    let mut before = spec_plan();
    before.title = nasty(30);
    before.context = format!("{}\n", nasty(50)).repeat(200);
    before.feedback = feedback(&format!("{}\n", nasty(40)).repeat(100));
    let template = before.decisions[2].clone();
    before.decisions = (0..60)
        .map(|i| {
            let mut d = template.clone();
            d.id = format!("d{i}");
            d.title = nasty(20);
            d.context = format!("line {i}\n{}", nasty(100)).repeat(20);
            d
        })
        .collect();
    let mut after = before.clone();
    after.revision = 7;
    for (i, d) in after.decisions.iter_mut().enumerate() {
        d.context = format!("{}\nchanged {i}", d.context.replace("line", "Line"));
        if i % 2 == 0 {
            d.id = format!("n{i}");
        }
    }
    after.context.push_str("more\n");
    for view in [
        revision_announcement(&after, &before),
        sent_back(&before),
        request_changes_prompt(&before),
        revision_announcement(&before, &before),
    ] {
        assert_within_limits(&view);
    }
}
