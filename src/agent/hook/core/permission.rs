//! A tool permission as a one-decision plan: the title names the tool and what it acts on; the context says who
//! asks, where and why, and shows what the call does: the command as a code block (or as an editable proposal
//! where the agent runs an edited command), a file edit as its diff, anything else as the input's JSON. The
//! options: allow once, allow for this session, always allow in this project (where the agent keeps such a
//! rule), deny.

use serde_json::{Map, Value};

use crate::agent::spec::{DecisionSpec, OptionSpec, PlanSpec};
use crate::plan::Plan;

use super::change::{self, Change};
use super::text::{code_block, code_span, cut, cut_lines, one_line, project};
use super::{Act, Event, Origin, SessionGrant, ToolCall};

/// The plan's only decision.
pub const DECISION_ID: &str = "permission";
/// Option keys: what the human's tap records, and what [`super::verdict`] reads back.
pub const ALLOW: &str = "allow";
pub const ALLOW_SESSION: &str = "allow-session";
/// Claude Code's own project rule, no longer offered (`🔁 Always allow this` took its place); read back on plans
/// pushed before.
pub const ALLOW_PROJECT: &str = "allow-project";
pub const DENY: &str = "deny";

/// Longest title, in characters (a long command is cut: the full one is in the context).
pub(super) const TITLE_MAX: usize = 100;
/// Longest tool input shown, in characters (a `Write` can carry a whole file; plans over 1 MiB are not read).
const INPUT_MAX: usize = 3000;

/// What the command line adds to the plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanOptions {
    pub priority: Option<String>,
    /// Default: the last component of the agent's working directory (the project's folder name).
    pub tag: Option<String>,
    /// The plan's `deadline` (a duration from now): the hook's own `--timeout`, so the human sees how long the
    /// agent waits. The plan stays `on_deadline: wait`: at the timeout the hook itself answers.
    pub deadline: Option<String>,
    /// How long `⏱ Allow <agent> for N min` allows (config `rules.grantMinutes`; default 30).
    pub grant_minutes: Option<u32>,
    /// The machine the agent runs on, when it asks a daemon on another machine (`arbiter hook --server`): the
    /// daemon sets it from the token, never the agent.
    pub machine: Option<String>,
}

impl PlanOptions {
    /// The minutes `⏱ Allow <agent> for N min` offers.
    #[must_use]
    pub fn grant_minutes(&self) -> u32 {
        self.grant_minutes
            .unwrap_or(crate::actions::rules::GRANT_MINUTES)
    }
}

/// The plan asking the human about this tool call. An editable command is an `edit` decision: `✅ Approve as is`
/// allows it once, `✏️ Edit` allows the edited command (the agent runs it as `updatedInput`), and the grants
/// and `❌ Deny` are its options. Any other call is a `choice` whose typed answer denies the call and tells the
/// model what to do instead.
#[must_use]
pub fn plan_spec(call: &ToolCall, options: &PlanOptions) -> PlanSpec {
    let choices = if call.grants.offered.is_empty() {
        choices(call, options)
    } else {
        offered(call, options)
    };
    decision_plan(call, options, choices)
}

/// The agent's own answers, in its order, with `🔁 Always allow this` before the first denial where a rule may be
/// made.
fn offered(call: &ToolCall, options: &PlanOptions) -> Vec<OptionSpec> {
    let mut choices: Vec<OptionSpec> = Vec::new();
    let ruled = super::ruling::ruling(call, options.grant_minutes()).is_some();
    for offer in &call.grants.offered {
        if ruled
            && offer.key.starts_with(DENY)
            && !choices.iter().any(|c| c.key == super::ruling::ALWAYS)
        {
            choices.push(option(super::ruling::ALWAYS, "🔁 Always allow this"));
        }
        if !choices.iter().any(|c| c.key == offer.key) {
            choices.push(option(offer.key, &cut(&one_line(&offer.label), TITLE_MAX)));
        }
    }
    if ruled && !choices.iter().any(|c| c.key == super::ruling::ALWAYS) {
        choices.push(option(super::ruling::ALWAYS, "🔁 Always allow this"));
    }
    choices
}

/// Arbiter's own answers: allow once (or the editable command's approval), for the session, the rule and the
/// grant where they may be made, deny.
fn choices(call: &ToolCall, options: &PlanOptions) -> Vec<OptionSpec> {
    let mut choices = Vec::new();
    let editable = match &call.act {
        Act::Command { command, editable } => (*editable).then_some(command.as_str()),
        Act::Change(_) | Act::Other => None,
    };
    if editable.is_none() {
        choices.push(option(ALLOW, "✅ Allow once"));
    }
    let session_label = match &call.grants.session {
        SessionGrant::Agent { label, .. } => Some(label.clone()),
        SessionGrant::Arbiter => Some(session_label(call)),
        SessionGrant::None => None,
    };
    if let Some(label) = session_label {
        let label = format!("✅ Allow for this session ({label})");
        choices.push(option(ALLOW_SESSION, &cut(&one_line(&label), TITLE_MAX)));
    }
    // Every "always" is Arbiter's standing rule, seen, counted and revocable from the phone: it takes the place
    // of an agent's own project rule (Claude Code's `✅ Always allow in this project`).
    let ruling = super::ruling::ruling(call, options.grant_minutes());
    if ruling.is_some() {
        choices.push(option(super::ruling::ALWAYS, "🔁 Always allow this"));
    }
    if ruling.is_some() && call.origin.session.is_some() {
        let label = format!(
            "⏱ Allow {} for {} min",
            call.origin.agent.display,
            options.grant_minutes()
        );
        choices.push(option(super::ruling::GRANT, &label));
    }
    choices.push(option(DENY, "❌ Deny"));
    choices
}

/// The one-decision plan of `call` with `choices`.
fn decision_plan(call: &ToolCall, options: &PlanOptions, choices: Vec<OptionSpec>) -> PlanSpec {
    let editable = match &call.act {
        Act::Command { command, editable } => (*editable).then_some(command.as_str()),
        Act::Change(_) | Act::Other => None,
    };
    let decision = match (&call.act, editable) {
        (_, Some(command)) => DecisionSpec {
            id: Some(DECISION_ID.to_owned()),
            title: "Run this command?".to_owned(),
            kind: Some("edit".to_owned()),
            proposal: Some(command.to_owned()),
            language: Some("bash".to_owned()),
            options: choices,
            ..DecisionSpec::default()
        },
        (Act::Command { command, .. }, None) => DecisionSpec {
            id: Some(DECISION_ID.to_owned()),
            title: "Run this command?".to_owned(),
            context: Some(code_block(&cut_lines(command, INPUT_MAX, ""), "bash")),
            allow_custom: true,
            options: choices,
            ..DecisionSpec::default()
        },
        (Act::Change(change), None) => DecisionSpec {
            id: Some(DECISION_ID.to_owned()),
            title: format!("Allow {}?", one_line(&call.tool)),
            context: Some(diff_context(change)),
            allow_custom: true,
            options: choices,
            ..DecisionSpec::default()
        },
        (Act::Other, None) => DecisionSpec {
            id: Some(DECISION_ID.to_owned()),
            title: format!("Allow {}?", one_line(&call.tool)),
            allow_custom: true,
            options: choices,
            ..DecisionSpec::default()
        },
    };
    PlanSpec {
        title: title(call),
        context: Some(context(call)),
        decisions: vec![decision],
        project: call.origin.cwd.clone(),
        ruling: super::ruling::ruling(call, options.grant_minutes()),
        ..base_spec(&call.origin, options)
    }
}

/// The answer recorded on a completed permission plan (an option key, a typed text, an edited command).
#[must_use]
pub fn answer(plan: &Plan) -> Option<&str> {
    plan.decision(DECISION_ID)?.answer.as_deref()
}

/// A plan of the hook's with no decisions yet: who asks (the agent, its session), the tag (the project's folder
/// name unless `--tag`), the priority and the deadline of the command line.
#[must_use]
pub fn base_spec(origin: &Origin, options: &PlanOptions) -> PlanSpec {
    PlanSpec {
        id: None,
        title: String::new(),
        tag: options
            .tag
            .clone()
            .or_else(|| project(origin.cwd.as_deref())),
        priority: options.priority.clone(),
        agent: Some(origin.agent.name.to_owned()),
        machine: options.machine.clone(),
        session: origin.session.clone(),
        notify_session: None,
        context: None,
        deadline: options.deadline.clone(),
        on_deadline: None,
        remind_every: None,
        escalate_after: None,
        escalate_to: Vec::new(),
        approvers: Vec::new(),
        require: None,
        elicitation: false,
        reply_to: None,
        project: None,
        ruling: None,
        decisions: Vec::new(),
    }
}

pub(super) fn option(key: &str, label: &str) -> OptionSpec {
    OptionSpec {
        key: key.to_owned(),
        label: Some(label.to_owned()),
    }
}

/// `Bash: cargo test`, `Edit: /home/me/src/main.rs`, `mcp__github__create_issue`: one line, at most
/// [`TITLE_MAX`] characters.
#[must_use]
pub fn title(call: &ToolCall) -> String {
    let tool = one_line(&call.tool);
    let subject = match &call.act {
        Act::Command { command, .. } => Some(command.clone()),
        Act::Change(change) => match change.files.as_slice() {
            [] => None,
            [one] => Some(one.clone()),
            [first, more @ ..] => Some(format!("{first} (+{} files)", more.len())),
        },
        Act::Other => subject(&call.input).map(str::to_owned),
    };
    let text = match subject {
        Some(subject) => format!("{tool}: {}", one_line(&subject)),
        None => tool,
    };
    cut(&text, TITLE_MAX)
}

/// What a tool acts on, from the input fields agents' tools use.
fn subject(tool_input: &Map<String, Value>) -> Option<&str> {
    [
        "command",
        "file_path",
        "path",
        "notebook_path",
        "url",
        "query",
        "pattern",
        "description",
    ]
    .into_iter()
    .find_map(|key| tool_input.get(key)?.as_str())
    .filter(|s| !s.trim().is_empty())
}

/// Who asks, where and why; for a call that is neither a command nor a file edit, the tool input as pretty JSON
/// in a code block. Pretty JSON keeps every string on one line (line breaks are escaped), so nothing in it can
/// start a `## ` section of the plan.
fn context(call: &ToolCall) -> String {
    let agent = call.origin.agent.display;
    let mut head = match &call.act {
        Act::Command { .. } => format!("{agent} asks to run a command"),
        Act::Change(change) => format!(
            "{agent} asks to change {}",
            change
                .files
                .iter()
                .map(|f| code_span(&one_line(f)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Act::Other => format!("{agent} asks to use {}", code_span(&one_line(&call.tool))),
    };
    if let Some(cwd) = &call.origin.cwd {
        head.push_str(&format!(" in {}", code_span(&one_line(cwd))));
    }
    let reason = call
        .reason
        .as_deref()
        .map(one_line)
        .filter(|r| !r.is_empty());
    match (&call.act, reason) {
        (Act::Command { .. } | Act::Change(_), Some(reason)) => {
            head.push_str(": ");
            head.push_str(&cut(&reason, INPUT_MAX));
            if !reason.ends_with(['.', '!', '?']) {
                head.push('.');
            }
        }
        (Act::Command { .. } | Act::Change(_), None) => head.push('.'),
        (Act::Other, _) => head.push_str(match call.event {
            Event::Permission => " (its permission dialog).",
            Event::PreTool | Event::PostTool | Event::Form | Event::Finished => ".",
        }),
    }
    if !matches!(call.act, Act::Other) {
        return head;
    }
    let json = serde_json::to_string_pretty(&call.input).unwrap_or_default();
    let shown = cut_lines(&json, INPUT_MAX, "");
    format!("{head}\n\n{}", code_block(&shown, "json"))
}

/// What `✅ Allow for this session` allows, for its label: `cargo test`, `edits of src/x.rs`, `this mcp__x call`.
fn session_label(call: &ToolCall) -> String {
    match &call.act {
        Act::Command { command, .. } => cut(&one_line(command), 60),
        Act::Change(change) => cut(&format!("edits of {}", change.files.join(", ")), 60),
        Act::Other => format!("this {} call", cut(&one_line(&call.tool), 40)),
    }
}

/// A change as the decision's context: how the diff was made (when that matters), then the diff.
fn diff_context(change: &Change) -> String {
    let diff = change::kept(&change.diff);
    let block = if diff.trim().is_empty() {
        "_(The edit changes nothing.)_".to_owned()
    } else {
        code_block(&diff, "diff")
    };
    match &change.note {
        Some(note) => format!("{note}\n\n{block}"),
        None => block,
    }
}
