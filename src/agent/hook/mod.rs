//! `arbiter hook claude-code`: every prompt Claude Code raises, asked of the human through the queue.
//!
//! The hook input becomes a plan: a tool permission ([`question`]: allow once, for the session, always in the
//! project, deny; a `Bash` command editable), `AskUserQuestion`'s questions ([`ask`]), `ExitPlanMode`'s plan
//! ([`plan_mode`], revised in place when the owner sent the previous one back), an MCP server's form ([`form`]).
//! The hook waits for it to be completed and prints the answer as Claude Code's hook output ([`verdict`]). It
//! never fails in a way that blocks Claude Code: a malformed input, an unreachable queue or a timeout is answered
//! with `ask` (Claude Code's own prompt) or the `--on-timeout` choice, and the reason goes to stderr.

pub mod ask;
pub mod form;
pub mod input;
pub mod install;
pub mod plan_mode;
pub mod question;
pub mod verdict;

use std::time::Duration;

use crate::agent::spec::PlanSpec;
use crate::plan::{Plan, PlanStatus};
use crate::queue::{Loaded, Location, Queue, audit, notify_file};

use super::revise::revise_spec;
use super::{AgentError, WaitOutcome, push_spec, wait_for_completion};
use crate::clock::now as now_rfc3339;

pub use input::{Event, FormInput, HookInput, Input};
pub use question::PlanOptions;
pub use verdict::{OnTimeout, Verdict};

/// How the hook asks and how long it waits.
#[derive(Debug, Clone)]
pub struct HookOptions {
    pub timeout: Duration,
    /// `timeout` as the user reads it (`2s`, `9m`), for the reasons the hook gives.
    pub timeout_label: String,
    pub on_timeout: OnTimeout,
    pub plan: PlanOptions,
}

/// What the hook prints: the decision JSON line on stdout (or nothing: no decision), a note on stderr. The
/// exit code is always 0, the only one on which Claude Code reads the JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub stdout: Option<String>,
    pub stderr: Option<String>,
}

impl Reply {
    /// `ask` because the hook could not do its work; `answer_as` says in which event's format (`None`: no
    /// decision at all).
    #[must_use]
    pub fn fallback(answer_as: Option<Event>, reason: &str) -> Reply {
        let verdict = Verdict::Ask {
            reason: format!("Arbiter could not ask: {reason}"),
        };
        Reply {
            stdout: answer_as.and_then(|event| verdict::output(event, &verdict)),
            stderr: Some(format!("arbiter: {reason}; answering `ask`")),
        }
    }
}

/// What one hook call asks, and how its plan's answer reads back.
enum Prompt<'a> {
    /// A tool call to allow or deny (a `Bash` command may be edited).
    Permission(&'a HookInput),
    /// `AskUserQuestion`: the questions to answer.
    Questions(&'a HookInput, Vec<ask::Question>),
    /// `ExitPlanMode`: Claude's plan to approve.
    PlanApproval(&'a HookInput, String),
    /// An MCP server's form.
    Form(&'a FormInput),
}

impl<'a> Prompt<'a> {
    /// What `input` asks; an `AskUserQuestion` or `ExitPlanMode` the hook can't read is an error (answered `ask`).
    fn of(input: &'a Input) -> Result<Prompt<'a>, String> {
        match input {
            Input::Form(form) => Ok(Prompt::Form(form)),
            Input::Tool(tool) => match tool.tool_name.as_str() {
                ask::TOOL => Ok(Prompt::Questions(tool, ask::questions(tool)?)),
                plan_mode::TOOL => match plan_mode::plan_text(tool) {
                    Some(plan) => Ok(Prompt::PlanApproval(tool, plan)),
                    None => Err(
                        "the ExitPlanMode input has no plan (nor a readable plan file)".to_owned(),
                    ),
                },
                _ => Ok(Prompt::Permission(tool)),
            },
        }
    }

    /// The plan to push; `revision` is its revision number when it revises a plan sent back.
    fn spec(&self, options: &PlanOptions, revision: Option<u32>) -> Result<PlanSpec, String> {
        Ok(match self {
            Prompt::Permission(tool) => question::plan_spec(tool, options),
            Prompt::Questions(tool, questions) => ask::plan_spec(tool, questions, options),
            Prompt::PlanApproval(tool, plan) => plan_mode::plan_spec(tool, plan, options, revision),
            Prompt::Form(form) => form::plan_spec(form, options)?,
        })
    }

    /// The verdict a completed plan holds.
    fn verdict(&self, plan: &Plan) -> Verdict {
        let by = match plan
            .decisions
            .first()
            .and_then(|d| d.answered_by.as_deref())
        {
            Some(who) if !who.is_empty() => format!(" by {who}"),
            _ => String::new(),
        };
        match self {
            Prompt::Permission(tool) => verdict::of_answer(plan, tool),
            Prompt::Questions(tool, questions) => match ask::updated_input(plan, tool, questions) {
                Some(updated) => Verdict::Allow {
                    reason: format!("Answered{by} via Arbiter"),
                    session: Vec::new(),
                    updated_input: Some(updated),
                },
                None => Verdict::Ask {
                    reason: "Not every question was answered in Arbiter; answer here".to_owned(),
                },
            },
            Prompt::PlanApproval(tool, _) => {
                let approved = plan
                    .decision(plan_mode::DECISION_ID)
                    .and_then(|d| d.answer.as_deref())
                    == Some(plan_mode::APPROVE);
                if approved {
                    Verdict::Allow {
                        reason: format!("Plan approved{by} via Arbiter"),
                        session: Vec::new(),
                        updated_input: Some(tool.tool_input.clone()),
                    }
                } else {
                    Verdict::Ask {
                        reason: "The plan was not approved in Arbiter; answer here".to_owned(),
                    }
                }
            }
            Prompt::Form(_) => match form::result(plan) {
                Some(result) => Verdict::Form(result),
                None => Verdict::Ask {
                    reason: "The Arbiter form has no result".to_owned(),
                },
            },
        }
    }

    /// The plan to revise instead of pushing a new one: the same session's plan the owner sent back.
    fn revises(&self, queue: &Queue) -> Option<Loaded> {
        match self {
            Prompt::PlanApproval(tool, _) => {
                plan_mode::sent_back(queue, tool.session_id.as_deref())
            }
            _ => None,
        }
    }
}

/// Runs the hook on the input `text`: reads it, pushes the question into the queue `open` gives, waits for the
/// answer and returns what to print. Needs a tokio runtime.
pub async fn answer(
    text: &str,
    open: impl FnOnce() -> Result<Queue, AgentError>,
    options: &HookOptions,
) -> Reply {
    let input = match input::parse(text) {
        Ok(input) => input,
        Err(e) => return Reply::fallback(e.answer_as, &e.reason),
    };
    let event = input.event();
    let prompt = match Prompt::of(&input) {
        Ok(prompt) => prompt,
        Err(reason) => return Reply::fallback(Some(event), &reason),
    };
    let queue = match open() {
        Ok(queue) => queue,
        Err(e) => return Reply::fallback(Some(event), &format!("the queue is unreachable: {e}")),
    };
    let previous = prompt.revises(&queue);
    let revision = previous.as_ref().map(|p| p.plan.revision + 1);
    let spec = match prompt.spec(&options.plan, revision) {
        Ok(spec) => spec,
        Err(reason) => return Reply::fallback(Some(event), &reason),
    };
    let now = now_rfc3339();
    let pushed = match &previous {
        Some(previous) => revise_spec(&queue, &previous.plan.id, &spec, "", &now),
        None => push_spec(&queue, &spec, "", &now),
    };
    let id = match pushed {
        Ok(pushed) => pushed.id,
        Err(e) => return Reply::fallback(Some(event), &format!("cannot push the question: {e}")),
    };
    let last = match wait_for_completion(&queue, &id, Some(options.timeout)).await {
        Ok(WaitOutcome::Completed(done)) => return answered(&queue, &done, &prompt, event),
        Ok(WaitOutcome::TimedOut(last)) => last,
        // Taken back by someone else meanwhile (its agent, by hand): nobody will answer here.
        Ok(WaitOutcome::Withdrawn(gone)) => {
            return Reply::fallback(
                Some(event),
                &format!(
                    "plan `{}` was withdrawn before anyone answered",
                    gone.plan.id
                ),
            );
        }
        // Sent back: the owner's request for changes is the reason Claude reads (the plan stays in returned/,
        // where the session's next plan finds it to revise).
        Ok(WaitOutcome::ChangesRequested(sent)) => {
            let _ = queue.take_notify(&notify_file::file_name(&sent.plan), None);
            let feedback = sent.plan.feedback.map(|f| f.text).unwrap_or_default();
            let verdict = Verdict::Deny {
                reason: format!("The user asked for changes: {feedback}"),
            };
            return Reply {
                stdout: verdict::output(event, &verdict),
                stderr: None,
            };
        }
        Err(e) => {
            withdraw(&queue, &id);
            return Reply::fallback(Some(event), &format!("waiting for plan `{id}` failed: {e}"));
        }
    };
    // A submit that landed just as the wait gave up still counts.
    if let Ok(now) = queue.find(&id)
        && is_completed(&now)
    {
        return answered(&queue, &now, &prompt, event);
    }
    let withdrawn = withdraw(&queue, &id);
    let verdict = verdict::of_timeout(options.on_timeout, &options.timeout_label);
    let what = match (&verdict, event) {
        (Verdict::Allow { .. }, Event::Elicitation) | (Verdict::Ask { .. }, _) => "ask",
        (Verdict::Deny { .. }, Event::Elicitation) => "decline",
        (Verdict::Allow { .. }, _) => "allow",
        (Verdict::Deny { .. }, _) => "deny",
        (Verdict::Form(_), _) => "the form",
    };
    Reply {
        stdout: verdict::output(event, &verdict),
        stderr: Some(format!(
            "arbiter: no answer to plan `{id}` within {} ({}){}; answering `{what}`",
            options.timeout_label,
            last.plan.status,
            if withdrawn {
                ", withdrawn from the queue"
            } else {
                ""
            }
        )),
    }
}

fn is_completed(loaded: &Loaded) -> bool {
    loaded.location == Location::Completed || loaded.plan.status == PlanStatus::Completed
}

/// The human's answer as the reply. The hook is the agent that reads this plan's notification, so its notify
/// file is deleted (the completed plan stays in completed/). A permission that Claude Code will keep (for the
/// session, or in the project's settings) is a grant, recorded in the audit trail before it is printed.
fn answered(queue: &Queue, done: &Loaded, prompt: &Prompt, event: Event) -> Reply {
    let _ = queue.take_notify(&notify_file::file_name(&done.plan), None);
    let verdict = prompt.verdict(&done.plan);
    if let Verdict::Allow { session, .. } = &verdict
        && !session.is_empty()
    {
        let grant = serde_json::Value::Array(
            session
                .iter()
                .cloned()
                .map(serde_json::Value::Object)
                .collect(),
        )
        .to_string();
        let change = audit::Change {
            at: &now_rfc3339(),
            actor: &format!("agent:{}", question::AGENT),
            action: "grant",
            plan: &done.plan.id,
            revision: done.plan.revision,
            decision: Some(question::DECISION_ID),
            value: Some(&grant),
            ..audit::Change::default()
        };
        if let Err(e) = queue.audit(&done.path, change) {
            return Reply::fallback(
                Some(event),
                &format!("cannot record the grant in the audit trail: {e}"),
            );
        }
    }
    Reply {
        stdout: verdict::output(event, &verdict),
        stderr: None,
    }
}

/// Takes an unanswered question out of pending/ through the action layer (`status: withdrawn`, an audit line,
/// the owner's views say so): Claude Code has moved on, so a later answer would go nowhere. True when it was
/// withdrawn.
fn withdraw(queue: &Queue, id: &str) -> bool {
    let reason = "Claude Code stopped waiting for an answer";
    matches!(
        crate::actions::withdraw(queue, id, None, Some(reason), &now_rfc3339()),
        crate::actions::Outcome::Withdrawn(_)
    )
}

#[cfg(test)]
mod prompt_tests;
#[cfg(test)]
mod tests;
