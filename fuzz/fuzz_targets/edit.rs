//! Edit target: for any file that parses, `apply` either refuses or writes a file that parses, holds the edit,
//! leaves every other decision as it was and keeps every line it did not target.
//!
//! Input layout: `FILE [\0 PARAMS]`. Everything before the last NUL byte is the decision file; the bytes after
//! it are read with `arbitrary` as [`Params`] (which decision, which edit, custom text, user id). In an input
//! without a NUL byte (the seed files) the file's last 16 bytes are read as the params as well.
#![no_main]

use arbiter_zebu::plan::{self, Decision, DecisionStatus, Edit, EditError, Plan, PlanStatus};
use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_yaml::Value;

const STEM: &str = "fuzz";
const NOW: &str = "2026-03-04T05:06:07Z";

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Kind {
    Skip,
    Custom,
    Answer,
    /// Skip every pending decision in turn, then submit.
    SettleAndSubmit,
}

#[derive(Arbitrary, Debug)]
struct Params {
    decision: u8,
    kind: Kind,
    by: Option<String>,
    custom: String,
}

fuzz_target!(|data: &[u8]| {
    let (file, params) = match data.iter().rposition(|&b| b == 0) {
        Some(nul) => (&data[..nul], Some(&data[nul + 1..])),
        None => (data, None),
    };
    let Ok(text) = std::str::from_utf8(file) else {
        return;
    };
    let Ok(before) = plan::parse(text, STEM) else {
        return;
    };
    // Without a NUL byte the file's last bytes choose the edit too (one edit per run keeps runs cheap).
    let bytes = params.unwrap_or(&file[file.len().saturating_sub(16)..]);
    let Ok(p) = Params::arbitrary(&mut Unstructured::new(bytes)) else {
        return;
    };
    let custom = if params.is_none() && p.custom.trim().is_empty() {
        "a custom: answer #1"
    } else {
        p.custom.as_str()
    };
    let idx = usize::from(p.decision) % before.decisions.len();
    run(text, &before, idx, p.kind, p.by.as_deref(), custom);
});

fn run(text: &str, before: &Plan, idx: usize, kind: Kind, by: Option<&str>, custom: &str) {
    let d = &before.decisions[idx];
    let decision = d.id.clone();
    match kind {
        Kind::Skip => check_decision_edit(text, before, idx, &Edit::Skip { decision }, by),
        Kind::Custom => check_decision_edit(
            text,
            before,
            idx,
            &Edit::Custom {
                decision,
                text: custom.to_owned(),
            },
            by,
        ),
        Kind::Answer => {
            let Some(o) = d.options.first() else { return };
            // A tap on a view whose label has since changed records nothing.
            let stale = Edit::Answer {
                decision: decision.clone(),
                key: o.key.clone(),
                label: format!("{}\u{1}", o.label),
            };
            let r = plan::apply(text, STEM, &stale, by, NOW);
            assert!(r.is_err(), "a stale answer was recorded: {r:?}");
            let edit = Edit::Answer {
                decision,
                key: o.key.clone(),
                label: o.label.clone(),
            };
            check_decision_edit(text, before, idx, &edit, by);
        }
        Kind::SettleAndSubmit => settle_and_submit(text, before),
    }
}

/// `Skip`, `Custom` or `Answer` on decision `idx` of `before` (the parse of `text`).
fn check_decision_edit(text: &str, before: &Plan, idx: usize, edit: &Edit, by: Option<&str>) {
    let result = plan::apply(text, STEM, edit, by, NOW);
    if before.status == PlanStatus::Completed {
        assert_eq!(result, Err(EditError::Completed), "{edit:?} on a completed plan");
        return;
    }
    let Ok(new) = result else { return };
    let after = parse_edited(text, &new, edit);
    let d0 = &before.decisions[idx];
    let d1 = &after.decisions[idx];
    let (status, answer) = match edit {
        Edit::Skip { .. } => (DecisionStatus::Skipped, None),
        Edit::Custom { text, .. } => (DecisionStatus::Answered, Some(text.clone())),
        Edit::Answer { key, .. } => (DecisionStatus::Answered, Some(key.clone())),
        Edit::Submit => unreachable!(),
    };
    let ctx = || format!("{edit:?} by {by:?}\n--- before\n{text}\n--- after\n{new}");
    assert_eq!(d1.status, status, "edited decision's status: {}", ctx());
    assert_eq!(d1.answer, answer, "edited decision's answer: {}", ctx());
    assert_eq!(d1.answered_at.as_deref(), Some(NOW), "answered_at: {}", ctx());
    match by {
        Some(by) => assert_eq!(d1.answered_by.as_deref(), Some(by), "answered_by: {}", ctx()),
        None => assert_eq!(d1.answered_by, d0.answered_by, "answered_by: {}", ctx()),
    }
    assert_eq!(d1.id, d0.id, "edited decision's id: {}", ctx());
    assert_eq!(d1.title, d0.title, "edited decision's title: {}", ctx());
    assert_eq!(d1.options, d0.options, "edited decision's options: {}", ctx());
    assert_eq!(d1.context, d0.context, "edited decision's context: {}", ctx());
    assert_eq!(d1.allow_custom, d0.allow_custom, "allow_custom: {}", ctx());
    assert_eq!(after.status, PlanStatus::InProgress, "plan status: {}", ctx());
    check_untouched(text, before, &new, &after, Some(idx), edit);
}

/// Skips every pending decision in turn, then submits: a plan with nothing pending can always be submitted.
fn settle_and_submit(text: &str, before: &Plan) {
    if before.status == PlanStatus::Completed {
        let r = plan::apply(text, STEM, &Edit::Submit, None, NOW);
        assert_eq!(r, Err(EditError::Completed), "Submit on a completed plan");
        return;
    }
    let mut text = text.to_owned();
    let mut plan = before.clone();
    if plan.remaining() > 0 {
        let r = plan::apply(&text, STEM, &Edit::Submit, None, NOW);
        assert_eq!(
            r,
            Err(EditError::NotFinished {
                remaining: plan.remaining()
            }),
            "Submit with decisions pending"
        );
    }
    while let Some(i) = plan.next_pending(0) {
        let edit = Edit::Skip {
            decision: plan.decisions[i].id.clone(),
        };
        let Ok(new) = plan::apply(&text, STEM, &edit, None, NOW) else {
            return;
        };
        let after = parse_edited(&text, &new, &edit);
        assert_eq!(after.decisions[i].status, DecisionStatus::Skipped);
        assert_eq!(after.remaining(), plan.remaining() - 1, "{edit:?}\n{new}");
        check_untouched(&text, &plan, &new, &after, Some(i), &edit);
        text = new;
        plan = after;
    }
    let new = match plan::apply(&text, STEM, &Edit::Submit, None, NOW) {
        Ok(new) => new,
        Err(e) => panic!("Submit refused on a plan with nothing pending: {e}\n--- file\n{text}"),
    };
    let after = parse_edited(&text, &new, &Edit::Submit);
    assert_eq!(after.status, PlanStatus::Completed, "Submit\n{new}");
    assert_eq!(after.completed_at.as_deref(), Some(NOW), "Submit\n{new}");
    check_untouched(&text, &plan, &new, &after, None, &Edit::Submit);
}

fn parse_edited(text: &str, new: &str, edit: &Edit) -> Plan {
    plan::parse(new, STEM).unwrap_or_else(|d| {
        panic!("{edit:?} wrote a file that does not parse: {d}\n--- before\n{text}\n--- after\n{new}")
    })
}

/// What the edit did not target is as it was: other decisions, plan fields, unknown frontmatter keys, and every
/// non-blank line outside the frontmatter and the edited decision's `key: value` block (in order).
fn check_untouched(
    text: &str,
    before: &Plan,
    new: &str,
    after: &Plan,
    edited: Option<usize>,
    edit: &Edit,
) {
    let ctx = || format!("{edit:?}\n--- before\n{text}\n--- after\n{new}");
    assert_eq!(after.decisions.len(), before.decisions.len(), "decision count: {}", ctx());
    for (i, (d0, d1)) in before.decisions.iter().zip(&after.decisions).enumerate() {
        if Some(i) != edited {
            assert_eq!(same(d0), same(d1), "decision {i} changed: {}", ctx());
        }
    }
    assert_eq!(after.id, before.id, "plan id: {}", ctx());
    assert_eq!(after.title, before.title, "plan title: {}", ctx());
    assert_eq!(after.priority, before.priority, "priority: {}", ctx());
    assert_eq!(after.tag, before.tag, "tag: {}", ctx());
    assert_eq!(after.agent, before.agent, "agent: {}", ctx());
    assert_eq!(after.session, before.session, "session: {}", ctx());
    assert_eq!(after.notify_session, before.notify_session, "notify_session: {}", ctx());
    assert_eq!(after.created_at, before.created_at, "created_at: {}", ctx());
    assert_eq!(after.context, before.context, "plan context: {}", ctx());
    assert_eq!(after.updated_at.as_deref(), Some(NOW), "updated_at: {}", ctx());
    if *edit != Edit::Submit {
        assert_eq!(after.completed_at, before.completed_at, "completed_at: {}", ctx());
    }
    assert_eq!(
        other_keys(text, before),
        other_keys(new, after),
        "frontmatter keys the edit does not own changed: {}",
        ctx()
    );

    let old: Vec<&str> = text.split_inclusive('\n').collect();
    let mut kept = new.split_inclusive('\n').map(content);
    for (i, line) in old.iter().enumerate() {
        let targeted = before.frontmatter_lines.contains(&i)
            || edited.is_some_and(|e| before.decisions[e].meta_lines.contains(&i));
        if targeted || content(line).trim().is_empty() {
            continue;
        }
        let want = content(line);
        assert!(
            kept.any(|l| l == want),
            "line {} {want:?} lost or moved: {}",
            i + 1,
            ctx()
        );
    }
}

/// The frontmatter without the keys an edit rewrites.
fn other_keys(text: &str, plan: &Plan) -> Value {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let yaml = lines[plan.frontmatter_lines.clone()].concat();
    let mut value: Value = serde_yaml::from_str(&yaml).expect("the frontmatter parsed once");
    if value.is_null() {
        value = Value::Mapping(serde_yaml::Mapping::new());
    }
    if let Value::Mapping(m) = &mut value {
        for key in ["status", "total", "answered", "remaining", "updated_at", "completed_at"] {
            m.remove(key);
        }
    }
    value
}

/// The parts of a decision an edit elsewhere must not change (not its line numbers).
fn same(d: &Decision) -> impl PartialEq + std::fmt::Debug + '_ {
    (
        &d.id,
        &d.title,
        d.status,
        &d.answer,
        &d.answered_at,
        &d.answered_by,
        d.allow_custom,
        &d.context,
        &d.options,
    )
}

fn content(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}
