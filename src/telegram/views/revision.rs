//! Sending a plan back and its revision: the force-reply prompt for the owner's request, the message after it,
//! and the announcement of the agent's revision with what changed.

use crate::plan::diff::{self, Line};
use crate::plan::{Decision, Plan};
use crate::telegram::callback::Callback;
use crate::telegram::markdown::{escape, escape_code, truncate};

use super::announce::plan_heading;
use super::layout::{Caps, Draft, block, fit, line, pref, to_queue};
use super::{Button, View};

/// The force-reply prompt after `🔁 Request changes`: what the owner types is sent to the agent.
#[must_use]
pub fn request_changes_prompt(plan: &Plan) -> View {
    let draft = fit(|caps| {
        Draft::from(format!(
            "🔁 What should the agent change in *{}*?\n\nType your request\\. The plan goes back to the agent \
             with it, and its revision comes back here\\. Send /cancel to leave the plan as it is\\.",
            line(&plan.title, caps.title)
        ))
    });
    View {
        text: draft.text,
        keyboard: Vec::new(),
        force_reply: true,
    }
}

/// After the request went out: `🔁 *Sent back:* Title`, the request as a quote; button `📋 Back to Queue`.
#[must_use]
pub fn sent_back(plan: &Plan) -> View {
    let text = fit(|caps| {
        let mut text = format!(
            "🔁 *Sent back to the agent:* {}\n",
            line(&plan.title, caps.title)
        );
        if let Some(f) = &plan.feedback {
            text.push_str(&format!("\n{}\n", quote(&f.text, caps.context.max(60))));
        }
        text.push_str("\n_It left the queue; the agent's revision will be announced here\\._");
        Draft::from(text)
    })
    .text;
    View::new(text, vec![vec![to_queue("📋 Back to Queue")]])
}

/// The agent's revision: `🔁 *Revision 2:* Title`, priority and tag, the request it answers, then what changed
/// against `previous` (decisions added, removed, changed; each changed context as a `diff` block; answers carried
/// over); button `📂 Open`.
#[must_use]
pub fn revision_announcement(plan: &Plan, previous: &Plan) -> View {
    let changes = changes(previous, plan);
    let text = fit(|caps| {
        let mut text = format!(
            "🔁 *Revision {}:* {}\n{}",
            plan.revision,
            line(&plan.title, caps.title),
            plan_heading(plan, caps)
                .split_once('\n')
                .map_or_else(String::new, |(head, _)| head.to_owned())
        );
        if let Some(f) = &plan.feedback {
            text.push_str(&format!(
                "\n\n_You asked:_\n{}",
                quote(&f.text, caps.context.max(60))
            ));
        }
        text.push_str("\n\n*What changed:*");
        let mut shown = 0;
        for change in &changes {
            if shown >= caps.items {
                break;
            }
            shown += 1;
            text.push('\n');
            text.push_str(&change.line(caps));
            if let Some((old, new)) = change.context
                && caps.context > 0
            {
                text.push('\n');
                text.push_str(&diff_block(old, new, caps.context));
            }
        }
        if changes.is_empty() {
            text.push_str("\n_No decision changed\\._");
        }
        let hidden = changes.len() - shown;
        if hidden > 0 {
            text.push_str(&format!("\n_…and {hidden} more_"));
        }
        let carried = plan.decisions.iter().filter(|d| d.carried).count();
        if carried > 0 {
            text.push_str(&format!(
                "\n\n↪️ {carried} {} carried over",
                if carried == 1 { "answer" } else { "answers" }
            ));
        }
        Draft::from(text)
    })
    .text;
    let open = Button::new("📂 Open", Callback::Open { plan: pref(plan) });
    View::new(text, vec![vec![open]])
}

/// One line of "What changed".
struct Change<'a> {
    mark: &'static str,
    title: &'a str,
    /// The context before and after, when it changed.
    context: Option<(&'a str, &'a str)>,
    /// What else changed: `options`, `kind`, `title`.
    what: Vec<&'static str>,
}

impl Change<'_> {
    fn line(&self, caps: Caps) -> String {
        let mut text = format!("{} *{}*", self.mark, line(self.title, caps.title));
        if !self.what.is_empty() {
            text.push_str(&format!(" _\\({}\\)_", escape(&self.what.join(", "))));
        }
        text
    }
}

/// The plan's context, then every decision added, removed or changed, in the new plan's order (removed ones
/// last).
fn changes<'a>(previous: &'a Plan, plan: &'a Plan) -> Vec<Change<'a>> {
    let mut out = Vec::new();
    if previous.context != plan.context {
        out.push(Change {
            mark: "✏️",
            title: "Plan context",
            context: Some((&previous.context, &plan.context)),
            what: Vec::new(),
        });
    }
    for d in &plan.decisions {
        match previous.decision(&d.id) {
            None => out.push(Change {
                mark: "➕",
                title: &d.title,
                context: None,
                what: vec!["added"],
            }),
            Some(p) => {
                let what = what_changed(p, d);
                let context =
                    (p.context != d.context).then_some((p.context.as_str(), d.context.as_str()));
                if !what.is_empty() || context.is_some() {
                    out.push(Change {
                        mark: "✏️",
                        title: &d.title,
                        context,
                        what,
                    });
                }
            }
        }
    }
    for p in &previous.decisions {
        if plan.decision(&p.id).is_none() {
            out.push(Change {
                mark: "➖",
                title: &p.title,
                context: None,
                what: vec!["removed"],
            });
        }
    }
    out
}

/// What changed in a decision besides its context.
fn what_changed(before: &Decision, now: &Decision) -> Vec<&'static str> {
    let mut what = Vec::new();
    if before.title != now.title {
        what.push("title");
    }
    if before.kind != now.kind {
        what.push("kind");
    }
    if before.options != now.options {
        what.push("options");
    }
    what
}

/// A `diff` code block of `new` against `old`: changed lines with one line around each change, cut to `max`
/// units.
fn diff_block(old: &str, new: &str, max: usize) -> String {
    let (old, new) = (block(old), block(new));
    let lines = diff::lines(&old, &new);
    let near_change = |i: usize| {
        (i.saturating_sub(1)..=(i + 1).min(lines.len().saturating_sub(1)))
            .any(|j| !matches!(lines[j], Line::Same(_)))
    };
    let mut out: Vec<String> = Vec::new();
    let mut gap = false;
    for (i, l) in lines.iter().enumerate() {
        if near_change(i) {
            out.push(l.unified());
            gap = false;
        } else if !gap {
            out.push("  …".to_owned());
            gap = true;
        }
    }
    format!(
        "```diff\n{}\n```",
        escape_code(&truncate(&out.join("\n"), max))
    )
}

/// `text` as a MarkdownV2 block quote, cut to `max` units.
fn quote(text: &str, max: usize) -> String {
    truncate(&block(text), max)
        .lines()
        .map(|l| format!(">{}", escape(l)))
        .collect::<Vec<_>>()
        .join("\n")
}
