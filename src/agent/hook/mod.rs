//! `arbiter hook claude-code`: Claude Code's permission question, asked of the human through the queue.
//!
//! The hook input (`PreToolUse` or `PermissionRequest`) becomes a one-decision plan ([`question`]); the hook
//! waits for it to be completed and prints the answer as Claude Code's decision JSON ([`verdict`]). It never
//! fails in a way that blocks Claude Code: a malformed input, an unreachable queue or a timeout is answered
//! with `ask` (Claude Code's own prompt) or the `--on-timeout` choice, and the reason goes to stderr.

pub mod input;
pub mod question;
pub mod verdict;

use std::fs;
use std::time::Duration;

use crate::plan::PlanStatus;
use crate::queue::{Loaded, Location, Queue, notify_file};

use super::{AgentError, WaitOutcome, push_spec, wait_for_completion};
use crate::clock::now as now_rfc3339;

pub use input::{Event, HookInput};
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
    let event = Some(input.event);
    let queue = match open() {
        Ok(queue) => queue,
        Err(e) => return Reply::fallback(event, &format!("the queue is unreachable: {e}")),
    };
    let spec = question::plan_spec(&input, &options.plan);
    let id = match push_spec(&queue, &spec, "", &now_rfc3339()) {
        Ok(pushed) => pushed.id,
        Err(e) => return Reply::fallback(event, &format!("cannot push the question: {e}")),
    };
    let last = match wait_for_completion(&queue, &id, Some(options.timeout)).await {
        Ok(WaitOutcome::Completed(done)) => return answered(&queue, &done, &input),
        Ok(WaitOutcome::TimedOut(last)) => last,
        // Sent back: the owner's request for changes is the reason Claude reads (the plan stays in returned/).
        Ok(WaitOutcome::ChangesRequested(sent)) => {
            let _ = fs::remove_file(queue.notify_dir().join(notify_file::file_name(&sent.plan)));
            let feedback = sent.plan.feedback.map(|f| f.text).unwrap_or_default();
            let verdict = Verdict::Deny {
                reason: format!("The user asked for changes: {feedback}"),
            };
            return Reply {
                stdout: verdict::output(input.event, &verdict),
                stderr: None,
            };
        }
        Err(e) => {
            withdraw(&queue, &id);
            return Reply::fallback(event, &format!("waiting for plan `{id}` failed: {e}"));
        }
    };
    // A submit that landed just as the wait gave up still counts.
    if let Ok(now) = queue.find(&id)
        && is_completed(&now)
    {
        return answered(&queue, &now, &input);
    }
    let withdrawn = withdraw(&queue, &id);
    let verdict = verdict::of_timeout(options.on_timeout, &options.timeout_label);
    let what = match &verdict {
        Verdict::Allow { .. } => "allow",
        Verdict::Deny { .. } => "deny",
        Verdict::Ask { .. } => "ask",
    };
    Reply {
        stdout: verdict::output(input.event, &verdict),
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
/// file is deleted (the completed plan stays in completed/).
fn answered(queue: &Queue, done: &Loaded, input: &HookInput) -> Reply {
    let _ = fs::remove_file(queue.notify_dir().join(notify_file::file_name(&done.plan)));
    Reply {
        stdout: verdict::output(input.event, &verdict::of_answer(&done.plan, input)),
        stderr: None,
    }
}

/// Takes an unanswered question out of pending/: Claude Code has moved on, so a later answer would go nowhere.
/// True when a file was removed.
fn withdraw(queue: &Queue, id: &str) -> bool {
    match queue.find_pending(id) {
        Ok(Some(loaded)) if loaded.plan.status != PlanStatus::Completed => {
            fs::remove_file(&loaded.path).is_ok()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
