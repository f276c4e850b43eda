//! Claude Code's `ExitPlanMode`: the plan Claude wants to carry out becomes the plan's context, with one decision,
//! `✅ Approve`; `🔁 Request changes` beside it sends the owner's feedback back to Claude as the deny message, and
//! Claude plans again. The next plan of the same session is pushed as a revision of the one sent
//! back, so the owner is shown what changed.

use std::path::Path;

use pulldown_cmark::{Event as Md, HeadingLevel, Parser, Tag};
use serde_json::Value;

use crate::agent::spec::{DecisionSpec, PlanSpec};
use crate::plan::Plan;
use crate::queue::{Loaded, Queue};

use super::permission::{PlanOptions, base_spec, option};
use super::text::{code_span, cut, one_line};
use super::{Origin, ToolCall, Verdict};
/// The plan's only decision, and its option.
pub const DECISION_ID: &str = "plan";
pub const APPROVE: &str = "approve";
/// Longest plan shown, in characters (a plan file can be long; the rest stays in the file Claude wrote).
const PLAN_MAX: usize = 60_000;
/// Largest plan file read (bytes).
const FILE_MAX: u64 = 1024 * 1024;

/// Claude's plan: the tool input's `plan`, else the file at `planFilePath`. `None` when there is neither.
#[must_use]
pub fn plan_text(input: &serde_json::Map<String, Value>) -> Option<String> {
    let field = |key: &str| {
        input
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    if let Some(plan) = field("plan") {
        return Some(plan.to_owned());
    }
    let path = Path::new(field("planFilePath")?);
    match super::files::read_text(path, FILE_MAX) {
        super::files::OnDisk::Text(plan) if !plan.trim().is_empty() => Some(plan),
        _ => None,
    }
}

/// The plan asking the owner to approve `plan`; `revision` is its number when it revises the plan sent back. The
/// option's label names the revision, so an answer given to the previous plan is never carried over to this one.
#[must_use]
pub fn plan_spec(
    call: &ToolCall,
    plan: &str,
    options: &PlanOptions,
    revision: Option<u32>,
) -> PlanSpec {
    let agent = call.origin.agent;
    let mut head = format!("{} wants to carry out this plan", agent.display);
    if let Some(cwd) = &call.origin.cwd {
        head.push_str(&format!(" in {}", code_span(&one_line(cwd))));
    }
    head.push_str(&format!(
        ". ✅ Approve lets it start; 🔁 Request changes sends your words to {}, which plans again.",
        agent.short
    ));
    let shown = if plan.chars().count() > PLAN_MAX {
        let kept: String = plan.chars().take(PLAN_MAX).collect();
        format!(
            "{kept}\n\n… ({} more characters in Claude's plan file)",
            plan.chars().count() - PLAN_MAX
        )
    } else {
        plan.trim().to_owned()
    };
    PlanSpec {
        title: cut(&format!("Plan: {}", plan_title(plan)), 100),
        context: Some(format!("{head}\n\n{}", demote_headings(&shown))),
        decisions: vec![DecisionSpec {
            id: Some(DECISION_ID.to_owned()),
            title: "Approve this plan?".to_owned(),
            options: vec![match revision {
                Some(n) => option(APPROVE, &format!("✅ Approve revision {n}")),
                None => option(APPROVE, "✅ Approve"),
            }],
            ..DecisionSpec::default()
        }],
        ..base_spec(&call.origin, options)
    }
}

/// The verdict a completed plan holds: approved → allow, with the tool input as it was (Claude Code ignores an
/// allow without it); anything else → the agent's own dialog.
#[must_use]
pub fn verdict(plan: &Plan, call: &ToolCall) -> Verdict {
    let decision = plan.decision(DECISION_ID);
    let by = match decision.and_then(|d| d.answered_by.as_deref()) {
        Some(who) if !who.is_empty() => format!(" by {who}"),
        _ => String::new(),
    };
    match decision.and_then(|d| d.answer.as_deref().map(|a| (a, d.is_custom_answer()))) {
        Some((APPROVE, _)) => Verdict::Allow {
            reason: format!("Plan approved{by} via Arbiter"),
            session: Vec::new(),
            updated_input: Some(call.input.clone()),
        },
        // A typed answer is what to change, as `🔁 Request changes` would send it.
        Some((text, true)) if !text.trim().is_empty() => Verdict::Deny {
            reason: format!("The user asked for changes: {}", text.trim()),
        },
        _ => Verdict::Ask {
            reason: "The plan was not approved in Arbiter; answer here".to_owned(),
        },
    }
}

/// The plan's first heading (or first line), for the title.
fn plan_title(plan: &str) -> String {
    let line = plan
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("Claude's plan");
    one_line(line.trim_start_matches('#'))
}

/// `markdown` with every ATX heading two levels down (at most `######`), so no heading of Claude's plan can open a
/// `## ` decision section of the plan file; headings inside code blocks are code, and stay as they are.
#[must_use]
pub fn demote_headings(markdown: &str) -> String {
    let mut starts: Vec<usize> = Vec::new();
    for (event, range) in Parser::new(markdown).into_offset_iter() {
        let Md::Start(Tag::Heading { level, .. }) = event else {
            continue;
        };
        let text = &markdown[range.start..];
        let start = range.start + (text.len() - text.trim_start_matches(' ').len());
        let after = &markdown[start..];
        let marks = after.len() - after.trim_start_matches('#').len();
        let opens = (1..=6).contains(&marks)
            && after
                .as_bytes()
                .get(marks)
                .is_none_or(|&b| b == b' ' || (0x09..=0x0d).contains(&b));
        if level != HeadingLevel::H6 && opens {
            starts.push(start);
        }
    }
    let mut out = String::with_capacity(markdown.len() + starts.len() * 2);
    let mut last = 0;
    for start in starts {
        out.push_str(&markdown[last..start]);
        let marks = markdown[start..].len() - markdown[start..].trim_start_matches('#').len();
        out.push_str(&"#".repeat((marks + 2).min(6) - marks));
        last = start;
    }
    out.push_str(&markdown[last..]);
    out
}

/// The plan of the same agent session (on the same machine) that the owner sent back, which this new plan revises.
#[must_use]
pub fn sent_back(queue: &Queue, origin: &Origin, machine: Option<&str>) -> Option<Loaded> {
    let session = origin.session.as_deref()?;
    queue
        .returned_plans()
        .ok()?
        .into_iter()
        .filter(|l| {
            l.plan.agent.as_deref() == Some(origin.agent.name)
                && l.plan.session.as_deref() == Some(session)
                && l.plan.machine.as_deref() == machine
                && l.plan.decision(DECISION_ID).is_some()
                && l.plan.decisions.len() == 1
        })
        .max_by(|a, b| a.plan.updated_at.cmp(&b.plan.updated_at))
}
