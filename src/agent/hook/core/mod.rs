//! The hook core: what an agent's prompt becomes and how its answer comes back, the same for every agent.
//!
//! A dialect (`super::dialect`) reads the agent's hook input into a [`Prompt`]: a tool permission
//! ([`permission`]: allow once, for the session, always in the project, deny; a command editable where the agent
//! takes an edited one; a file edit shown as its diff, [`change`]), a question tool's questions ([`ask`]), a plan
//! to approve ([`plan_mode`]), an MCP server's form ([`form`]), or the agent's turn ending ([`finished`]). The core
//! pushes it as a plan, waits for the owner, and returns a neutral [`Verdict`], which the dialect prints in the
//! agent's own JSON. It never fails in a way that blocks the agent: a malformed input, an unreachable queue, no
//! daemon to show the question, or a timeout is answered with the agent's "no decision" (or the `--on-timeout`
//! choice), and the reason goes to stderr. Every plan the hook gives up on leaves the queue through
//! [`withdraw`].

mod abandon;
pub mod ask;
mod call;
pub mod change;
pub mod dialect;
pub mod files;
pub mod finished;
pub mod form;
pub mod memory;
pub mod permission;
pub mod plan_mode;
pub mod rules;
pub mod ruling;
pub mod text;
pub mod verdict;

use std::time::Duration;

use serde_json::Value;

use crate::agent::spec::PlanSpec;
use crate::clock::now as now_rfc3339;
use crate::plan::{Plan, PlanStatus};
use crate::queue::{Loaded, Location, Queue, audit, notify_file};

use crate::agent::revise::revise_spec;
use crate::agent::{AgentError, WaitOutcome, push_spec, wait_for_completion};
pub use abandon::Watch;
pub use call::{Act, Agent, AnswerBy, Event, Grants, Offered, Origin, SessionGrant, ToolCall};
pub use dialect::Dialect;

pub use form::FormInput;
pub use permission::PlanOptions;
pub use verdict::{OnTimeout, Verdict};

/// What one hook call asks.
#[derive(Debug, Clone)]
pub enum Prompt {
    /// A tool call to allow or deny.
    Permission(ToolCall),
    /// A question tool's questions.
    Questions {
        call: ToolCall,
        questions: Vec<ask::Question>,
        answer: AnswerBy,
    },
    /// Claude Code's `ExitPlanMode`: the plan to approve.
    PlanApproval(ToolCall, String),
    /// An MCP server's form.
    Form(FormInput),
    /// The agent ended its turn: what next?
    Finished(finished::Finished),
    /// A tool's result, for the standing rule that allowed the call (if one did).
    Result(ruling::ToolResult),
    /// Nothing to ask: a pre-tool hook on a tool that needs no one (the agent's permission hook asks for it). No
    /// answer, nothing on stderr.
    Pass,
}

impl Prompt {
    /// The event to answer in.
    #[must_use]
    pub fn event(&self) -> Event {
        match self {
            Prompt::Permission(call)
            | Prompt::Questions { call, .. }
            | Prompt::PlanApproval(call, _) => call.event,
            Prompt::Form(form) => form.event,
            Prompt::Finished(_) => Event::Finished,
            Prompt::Result(_) => Event::PostTool,
            Prompt::Pass => Event::PreTool,
        }
    }

    /// The questions of question tool `call` (read as [`ask::questions`] reads them, by `shape`), answered by
    /// `answer`; questions that can't be asked here are the input's error, answered in `call`'s event.
    pub fn questions(
        call: ToolCall,
        shape: ask::Shape,
        answer: AnswerBy,
    ) -> Result<Prompt, InputError> {
        match ask::questions(&call.tool, &call.input, shape) {
            Ok(questions) => Ok(Prompt::Questions {
                call,
                questions,
                answer,
            }),
            Err(reason) => Err(InputError {
                answer_as: Some(call.event),
                reason,
            }),
        }
    }

    /// The plan to push; `revision` is its revision number when it revises a plan sent back.
    pub(crate) fn spec(
        &self,
        options: &PlanOptions,
        revision: Option<u32>,
    ) -> Result<PlanSpec, String> {
        Ok(match self {
            Prompt::Permission(call) => permission::plan_spec(call, options),
            Prompt::Questions {
                call, questions, ..
            } => ask::plan_spec(call, questions, options),
            Prompt::PlanApproval(call, plan) => plan_mode::plan_spec(call, plan, options, revision),
            Prompt::Form(form) => form::plan_spec(form, options)?,
            Prompt::Finished(_) | Prompt::Result(_) | Prompt::Pass => {
                return Err("not a question (this is a bug)".to_owned());
            }
        })
    }

    /// The verdict a completed plan holds.
    fn verdict(&self, plan: &Plan) -> Verdict {
        match self {
            Prompt::Permission(call) => verdict::of_answer(plan, call),
            Prompt::Questions {
                call,
                questions,
                answer,
            } => ask::verdict(plan, call, questions, *answer),
            Prompt::PlanApproval(call, _) => plan_mode::verdict(plan, call),
            Prompt::Form(input) => form::verdict(plan, input),
            Prompt::Finished(_) | Prompt::Result(_) | Prompt::Pass => Verdict::Stop,
        }
    }

    /// The plan to revise instead of pushing a new one: the same session's plan the owner sent back.
    fn revises(&self, queue: &Queue, machine: Option<&str>) -> Option<Loaded> {
        match self {
            Prompt::PlanApproval(call, _) => plan_mode::sent_back(queue, &call.origin, machine),
            _ => None,
        }
    }
}

/// Why the hook input can't be used, and in which event's format the hook should still answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct InputError {
    /// The event to answer "no decision" for; `None` for an event the hook doesn't answer (no output at all).
    pub answer_as: Option<Event>,
    pub reason: String,
}

/// How the hook asks and how long it waits.
#[derive(Debug, Clone)]
pub struct HookOptions {
    pub timeout: Duration,
    /// `timeout` as the user reads it (`2s`, `9m`), for the reasons the hook gives.
    pub timeout_label: String,
    pub on_timeout: OnTimeout,
    /// How long a finished card waits for the owner's next instruction.
    pub stop_timeout: Duration,
    pub stop_timeout_label: String,
    pub plan: PlanOptions,
}

/// What the hook prints: the answer JSON line on stdout (or nothing: no decision), a note on stderr. The exit
/// code is always 0: agents read the JSON only then, and several read exit 2 as "block" or "go on".
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reply {
    pub stdout: Option<String>,
    pub stderr: Option<String>,
}

impl Reply {
    /// The agent's "no decision" because the hook could not do its work; `answer_as` says in which event's format
    /// (`None`: no output at all).
    #[must_use]
    pub fn fallback(dialect: &dyn Dialect, answer_as: Option<Event>, reason: &str) -> Reply {
        let (stdout, word) = match answer_as {
            Some(Event::Finished) => (
                dialect.render(Event::Finished, &Verdict::Stop),
                format!("letting {} stop", dialect.agent().display),
            ),
            Some(event) => {
                let verdict = Verdict::Ask {
                    reason: format!("Arbiter could not ask: {reason}"),
                };
                (
                    dialect.render(event, &verdict),
                    format!("answering `{}`", dialect.no_decision(event)),
                )
            }
            None => (None, "no decision".to_owned()),
        };
        Reply {
            stdout,
            stderr: Some(format!("arbiter: {reason}; {word}")),
        }
    }
}

/// Runs the hook on the input `text` in `dialect`: reads it, pushes the question into the queue `open` gives,
/// waits for the answer and returns what to print. `event` is the event the command line names (for agents whose
/// input names none). Needs a tokio runtime.
pub async fn answer(
    dialect: &dyn Dialect,
    text: &str,
    event: Option<&str>,
    open: impl FnOnce() -> Result<Queue, AgentError>,
    options: &HookOptions,
) -> Reply {
    answer_watched(dialect, text, event, open, options, Watch::start).await
}

/// [`answer`], with the watch `watch` makes telling when the asker stopped waiting (the daemon's endpoint for hooks
/// on other machines: the hook's connection closed).
pub async fn answer_watched(
    dialect: &dyn Dialect,
    text: &str,
    event: Option<&str>,
    open: impl FnOnce() -> Result<Queue, AgentError>,
    options: &HookOptions,
    watch: impl FnOnce() -> Watch,
) -> Reply {
    let prompt = match dialect.parse(text, event) {
        Ok(Prompt::Pass) => return Reply::default(),
        Ok(prompt) => prompt,
        Err(e) => return Reply::fallback(dialect, e.answer_as, &e.reason),
    };
    let mut watch = watch();
    let event = prompt.event();
    let queue = match open() {
        Ok(queue) => queue,
        Err(e) => {
            let reason = format!("the queue is unreachable: {e}");
            return Reply::fallback(dialect, Some(event), &reason);
        }
    };
    // A tool's result: only the standing rule that allowed the call hears of it.
    if let Prompt::Result(result) = &prompt {
        return rules::result(&queue, result);
    }
    // An allow Arbiter keeps for the session, or a standing rule, answers at once, daemon or not.
    let mut warnings = Vec::new();
    if let Prompt::Permission(call) = &prompt {
        if let Some(reply) =
            memory::allowed_before(&queue, dialect, call, options.plan.machine.as_deref())
        {
            return reply;
        }
        match rules::answered(&queue, dialect, call, &options.plan) {
            (Some(reply), _) => return reply,
            (None, said) => warnings = said,
        }
    }
    let reply = asked(&queue, dialect, &prompt, event, options, &mut watch).await;
    with_warnings(reply, &warnings)
}

/// `reply`, with the rules' warnings first on stderr.
fn with_warnings(reply: Reply, warnings: &[String]) -> Reply {
    if warnings.is_empty() {
        return reply;
    }
    let mut lines = warnings.to_vec();
    lines.extend(reply.stderr);
    Reply {
        stderr: Some(lines.join("\n")),
        ..reply
    }
}

/// Asks the owner (the prompt no rule answered): falls back at once when no daemon would show it.
async fn asked(
    queue: &Queue,
    dialect: &dyn Dialect,
    prompt: &Prompt,
    event: Event,
    options: &HookOptions,
    watch: &mut Watch,
) -> Reply {
    if let Some(reason) = nobody_to_ask(queue) {
        return Reply::fallback(dialect, Some(event), &reason);
    }
    if let Prompt::Finished(finished) = prompt {
        return finished::run(queue, dialect, finished, options, watch).await;
    }
    ask(queue, dialect, prompt, event, options, watch).await
}

/// Why nobody would see a question pushed now: no daemon holds the queue's instance lock. `None` when one does
/// (or when that can't be told: the hook then waits as usual).
pub fn nobody_to_ask(queue: &Queue) -> Option<String> {
    match crate::queue::instance::daemon(queue.root()) {
        crate::queue::instance::Daemon::Stopped => Some(format!(
            "no arbiter daemon is running on the queue {} (start `arbiter run`): nobody would see the question",
            queue.root().display()
        )),
        crate::queue::instance::Daemon::Running | crate::queue::instance::Daemon::Unknown => None,
    }
}

/// How a question put to the owner ended ([`put`]).
#[derive(Debug)]
pub enum Asked {
    /// Answered: the plan as completed.
    Answered(Loaded),
    /// Sent back with a request for changes (the plan stays in returned/).
    SentBack(Loaded),
    /// No answer within the timeout: the plan's status when it gave up, and whether it was withdrawn.
    Unanswered {
        id: String,
        status: PlanStatus,
        withdrawn: bool,
    },
    /// Nobody will answer: why (any plan pushed was withdrawn).
    Failed(String),
}

/// Pushes the prompt's plan (a revision of the one sent back, when there is one) and waits for it (at most
/// `options.timeout`), unless `watch` says the asker stopped waiting; every plan given up on is withdrawn.
pub async fn put(
    queue: &Queue,
    prompt: &Prompt,
    options: &HookOptions,
    watch: &mut Watch,
) -> Asked {
    let previous = prompt.revises(queue, options.plan.machine.as_deref());
    let revision = previous.as_ref().map(|p| p.plan.revision + 1);
    let spec = match prompt.spec(&options.plan, revision) {
        Ok(spec) => spec,
        Err(reason) => return Asked::Failed(reason),
    };
    let now = now_rfc3339();
    let pushed = match &previous {
        Some(previous) => revise_spec(queue, &previous.plan.id, &spec, "", &now),
        None => push_spec(queue, &spec, "", &now),
    };
    let id = match pushed {
        Ok(pushed) => pushed.id,
        Err(e) => return Asked::Failed(format!("cannot push the question: {e}")),
    };
    let waited = match waiting(queue, &id, options.timeout, watch).await {
        Ok(waited) => waited,
        Err(why) => {
            withdraw_because(queue, &id, &watch.withdraw_reason(&why));
            return Asked::Failed(format!("{why}: plan `{id}` withdrawn from the queue"));
        }
    };
    let last = match waited {
        Ok(WaitOutcome::Completed(done)) => return Asked::Answered(done),
        Ok(WaitOutcome::TimedOut(last)) => last,
        // Taken back by someone else meanwhile (its agent, by hand): nobody will answer here.
        Ok(WaitOutcome::Withdrawn(gone)) => {
            return Asked::Failed(format!(
                "plan `{}` was withdrawn before anyone answered",
                gone.plan.id
            ));
        }
        Ok(WaitOutcome::ChangesRequested(sent)) => return Asked::SentBack(sent),
        Err(e) => {
            withdraw(queue, &id);
            return Asked::Failed(format!("waiting for plan `{id}` failed: {e}"));
        }
    };
    // A submit that landed just as the wait gave up still counts.
    if let Ok(now) = queue.find(&id)
        && is_completed(&now)
    {
        return Asked::Answered(now);
    }
    Asked::Unanswered {
        withdrawn: withdraw(queue, &id),
        status: last.plan.status,
        id,
    }
}

/// Asks the owner and answers in the dialect: the answer, the owner's request for changes as a deny the model
/// reads, or the `--on-timeout` choice.
async fn ask(
    queue: &Queue,
    dialect: &dyn Dialect,
    prompt: &Prompt,
    event: Event,
    options: &HookOptions,
    watch: &mut Watch,
) -> Reply {
    let (id, status, withdrawn) = match put(queue, prompt, options, watch).await {
        Asked::Answered(done) => return answered(queue, dialect, &done, prompt, event),
        // Sent back: the owner's request for changes is the reason the model reads (the plan stays in returned/,
        // where the session's next plan finds it to revise).
        Asked::SentBack(sent) => {
            forget_notification(queue, &sent.plan);
            let feedback = sent.plan.feedback.map(|f| f.text).unwrap_or_default();
            let verdict = Verdict::Deny {
                reason: format!("The user asked for changes: {feedback}"),
            };
            return Reply {
                stdout: dialect.render(event, &verdict),
                stderr: None,
            };
        }
        Asked::Failed(reason) => return Reply::fallback(dialect, Some(event), &reason),
        Asked::Unanswered {
            id,
            status,
            withdrawn,
        } => (id, status, withdrawn),
    };
    let verdict = verdict::of_timeout(options.on_timeout, &options.timeout_label);
    let what = match (&verdict, event) {
        (Verdict::Allow { .. }, Event::Form) => "ask",
        (Verdict::Deny { .. }, Event::Form) => "decline",
        (Verdict::Allow { .. }, _) => "allow",
        (Verdict::Deny { .. }, _) => "deny",
        (_, event) => dialect.no_decision(event),
    };
    Reply {
        stdout: dialect.render(event, &verdict),
        stderr: Some(format!(
            "arbiter: no answer to plan `{id}` within {} ({status}){}; answering `{what}`",
            options.timeout_label,
            if withdrawn {
                ", withdrawn from the queue"
            } else {
                ""
            }
        )),
    }
}

/// Waits for plan `id` (at most `timeout`), unless the agent stops waiting first: `Err` says how it did.
async fn waiting(
    queue: &Queue,
    id: &str,
    timeout: Duration,
    watch: &mut Watch,
) -> Result<Result<WaitOutcome, AgentError>, String> {
    tokio::select! {
        outcome = wait_for_completion(queue, id, Some(timeout)) => Ok(outcome),
        why = watch.abandoned() => Err(why),
    }
}

fn is_completed(loaded: &Loaded) -> bool {
    loaded.location == Location::Completed || loaded.plan.status == PlanStatus::Completed
}

/// The hook is the agent that reads this plan's notification: its notify file is taken (the plan itself stays
/// in completed/ or returned/).
pub(crate) fn forget_notification(queue: &Queue, plan: &Plan) {
    let _ = queue.take_notify(&notify_file::file_name(plan), None);
}

/// The human's answer as the reply. A permission the agent keeps (for the session, or in the project's settings)
/// or that Arbiter keeps for the session is a grant, recorded in the audit trail before it is printed.
fn answered(
    queue: &Queue,
    dialect: &dyn Dialect,
    done: &Loaded,
    prompt: &Prompt,
    event: Event,
) -> Reply {
    let machine = done.plan.machine.as_deref();
    forget_notification(queue, &done.plan);
    let verdict = prompt.verdict(&done.plan);
    let grant = match (&verdict, prompt) {
        (Verdict::Allow { session, .. }, _) if !session.is_empty() => {
            Some(Value::Array(session.iter().cloned().map(Value::Object).collect()).to_string())
        }
        (Verdict::Allow { .. }, Prompt::Permission(call))
            if call.grants.session == SessionGrant::Arbiter
                && permission::answer(&done.plan) == Some(permission::ALLOW_SESSION) =>
        {
            if let Err(e) = memory::remember(queue, call, &done.plan.id) {
                let reason = format!("cannot remember the allow for this session: {e}");
                return Reply::fallback(dialect, Some(event), &reason);
            }
            Some(memory::describe(call))
        }
        _ => None,
    };
    if let Some(grant) = grant {
        let change = audit::Change {
            at: &now_rfc3339(),
            actor: &actor(dialect, machine),
            action: "grant",
            plan: &done.plan.id,
            revision: done.plan.revision,
            decision: Some(permission::DECISION_ID),
            value: Some(&grant),
            ..audit::Change::default()
        };
        if let Err(e) = queue.audit(&done.path, change) {
            let reason = format!("cannot record the grant in the audit trail: {e}");
            return Reply::fallback(dialect, Some(event), &reason);
        }
    }
    Reply {
        stdout: dialect.render(event, &verdict),
        stderr: None,
    }
}

/// The audit trail's actor for the hook of `dialect`'s agent: `agent:codex`, or `agent:codex@devbox` on another
/// machine.
fn actor(dialect: &dyn Dialect, machine: Option<&str>) -> String {
    match machine {
        Some(machine) => format!("agent:{}@{machine}", dialect.agent().name),
        None => format!("agent:{}", dialect.agent().name),
    }
}

/// Takes a plan nobody answered in time out of pending/ through the action layer (`status: withdrawn`, an audit
/// line, the owner's views say so): the agent has moved on, so a later answer would go nowhere. Every path of the
/// hooks that gives up on a plan goes through here. True when it was withdrawn.
pub fn withdraw(queue: &Queue, id: &str) -> bool {
    withdraw_because(queue, id, "the agent stopped waiting for an answer")
}

/// [`withdraw`], saying why (the owner's views show it): the ACP relay's editor answered first, its session ended.
pub fn withdraw_because(queue: &Queue, id: &str, reason: &str) -> bool {
    matches!(
        crate::actions::withdraw(queue, id, None, Some(reason), &now_rfc3339()),
        crate::actions::Outcome::Withdrawn(_)
    )
}

#[cfg(test)]
mod prompt_tests;
