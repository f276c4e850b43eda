//! Standing rules in the hook: a permission prompt a rule answers is answered here, before any plan is pushed and
//! whether or not a daemon runs (the plan goes straight to completed/, answered by the rule; nobody is asked), and
//! a tool result the agent reports afterwards (`PostToolUse`, Claude Code's `PostToolUseFailure`) counts toward the
//! failures that pause the rule that allowed the call.
//!
//! A permission plan carries what a tap needs to make a rule ([`super::ruling`]): the options `🔁 Always allow
//! this` and `⏱ Allow <agent> for N min` (only when the agent names its session), and the frontmatter keys
//! `project` (the agent's working directory), `rule_tool`, `rule_command` (what [`ToolCall::key`] says the call
//! is) and `grant_minutes`.

use crate::actions::rules::{self as actions_rules, Ruled, results};
use crate::clock::now as now_rfc3339;
use crate::queue::Queue;
use crate::queue::rules::Ask;

use super::ruling::ToolResult;
use super::{Dialect, PlanOptions, Reply, ToolCall, Verdict, permission};

/// What a rule would match of `call`: its agent, project, session, tool and exact command.
fn ask_of<'a>(call: &'a ToolCall, command: &'a str) -> Ask<'a> {
    Ask {
        agent: call.origin.agent.name,
        project: call.origin.cwd.as_deref(),
        session: call.origin.session.as_deref(),
        tool: &call.tool,
        command,
    }
}

/// The reply to `call` when a standing rule answers it (the plan it answered is in completed/ with its line), and
/// what the rules had to say for stderr (a `rules.json` that does not read, a rule without its line).
pub fn answered(
    queue: &Queue,
    dialect: &dyn Dialect,
    call: &ToolCall,
    options: &PlanOptions,
) -> (Option<Reply>, Vec<String>) {
    let (_, command) = call.key();
    let ask = ask_of(call, &command);
    let now = now_rfc3339();
    let make = || {
        let spec = permission::plan_spec(call, options);
        let id = crate::agent::id::fresh(|_| false);
        let text = crate::agent::spec::render(&spec, &id, &now);
        let name = crate::plan::parse(&text, &id).map_or_else(
            |_| format!("{}-{id}.md", call.origin.agent.name),
            |plan| crate::agent::push::file_name(&plan),
        );
        Ruled { name, text }
    };
    let looked = actions_rules::answer_permission(queue, &ask, make, &now);
    let warnings = looked
        .warnings
        .iter()
        .map(|w| format!("arbiter: {w}"))
        .collect();
    let Some(fired) = looked.fired else {
        return (None, warnings);
    };
    let verdict = Verdict::allow(format!(
        "Allowed by standing rule {} via Arbiter (plan {})",
        fired.rule.id, fired.plan.plan.id
    ));
    // The hook is the agent that reads this plan's answer: its notify file goes.
    let _ = queue.take_notify(
        &crate::queue::notify_file::file_name(&fired.plan.plan),
        None,
    );
    let reply = Reply {
        stdout: dialect.render(call.event, &verdict),
        stderr: (!warnings.is_empty()).then(|| warnings.join("\n")),
    };
    (Some(reply), Vec::new())
}

/// A tool's result against the rule that allowed the call, if one did: no output (the agent reads none), a line on
/// stderr when the rule paused itself.
pub fn result(queue: &Queue, result: &ToolResult) -> Reply {
    let (_, command) = result.call.key();
    let ask = ask_of(&result.call, &command);
    let failed = result.failure.is_some();
    let reason = result.failure.as_deref().unwrap_or_default();
    match results::record(queue, &ask, failed, reason, &now_rfc3339()) {
        Ok(Some(paused)) => Reply {
            stdout: None,
            stderr: Some(format!(
                "arbiter: standing rule {} paused itself: what it allowed failed twice in a row ({})",
                paused.rule.id, paused.reason
            )),
        },
        Ok(None) => Reply::default(),
        Err(e) => Reply {
            stdout: None,
            stderr: Some(format!("arbiter: can't record the tool's result: {e}")),
        },
    }
}
