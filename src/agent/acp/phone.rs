//! What the relay asks on the phone, each through the hook core: a permission request (after the standing rules),
//! a finished turn's card, and a headless session's first instruction. Each runs as a task of its own and stops
//! waiting when the relay tells it why (the editor answered first, the session ended): its plan is withdrawn with
//! that reason.

use serde_json::Value;
use tokio::sync::oneshot;

use crate::agent::hook::core::finished::{self, Finished, LastMessage};
use crate::agent::hook::core::{
    self, Asked, HookOptions, Origin, PlanOptions, Prompt, Verdict, Watch, rules,
};
use crate::agent::{WaitOutcome, push_spec};
use crate::queue::Queue;

use super::dialect::{Acp, Kind, Request, answered};

/// The answer a standing rule gives `request` (the agent's `allow_once`), before anyone is asked, and what the
/// rules had to say.
pub fn ruled(
    queue: &Queue,
    acp: &Acp,
    request: &Request,
    options: &PlanOptions,
) -> (Option<Value>, Vec<String>) {
    let (reply, mut warnings) = rules::answered(queue, acp, &request.call, options);
    match reply {
        Some(reply) => {
            warnings.extend(reply.stderr);
            (request.answer(Kind::AllowOnce), warnings)
        }
        None => (None, warnings),
    }
}

/// Puts `request` on the phone and waits: the agent's option for the owner's answer, or why there is none.
pub async fn permission(
    queue: Queue,
    request: Request,
    options: HookOptions,
    told: oneshot::Receiver<String>,
) -> Result<Value, String> {
    if let Some(reason) = core::nobody_to_ask(&queue) {
        return Err(reason);
    }
    let mut watch = Watch::told(told);
    let prompt = Prompt::Permission(request.call.clone());
    let kind = match core::put(&queue, &prompt, &options, &mut watch).await {
        Asked::Answered(done) => {
            core::forget_notification(&queue, &done.plan);
            answered(&done.plan)
        }
        Asked::SentBack(sent) => {
            core::forget_notification(&queue, &sent.plan);
            Kind::RejectOnce
        }
        Asked::Unanswered { id, .. } => {
            return Err(format!(
                "no answer to plan `{id}` within {}, withdrawn from the queue",
                options.timeout_label
            ));
        }
        Asked::Failed(reason) => return Err(reason),
    };
    request
        .answer(kind)
        .ok_or_else(|| format!("the agent offered no option for the owner's answer ({kind:?})"))
}

/// The finished turn's card: the owner's next instruction, or stop.
pub async fn card(
    queue: Queue,
    origin: Origin,
    message: String,
    options: HookOptions,
    told: oneshot::Receiver<String>,
) -> Result<Verdict, String> {
    if let Some(reason) = core::nobody_to_ask(&queue) {
        return Err(reason);
    }
    let mut watch = Watch::told(told);
    let finished = Finished {
        origin,
        last: LastMessage::Text(Some(message)),
        cap: None,
    };
    finished::next(&queue, &finished, &options, &mut watch).await
}

/// A headless session's first instruction: `▶️ <agent> · <folder>: what should it do?`, typed on the phone.
pub async fn first_prompt(
    queue: Queue,
    origin: Origin,
    options: HookOptions,
    told: oneshot::Receiver<String>,
) -> Result<String, String> {
    if let Some(reason) = core::nobody_to_ask(&queue) {
        return Err(reason);
    }
    let folder = crate::agent::hook::core::text::project(origin.cwd.as_deref()).unwrap_or_default();
    let empty = Finished {
        origin: origin.clone(),
        last: LastMessage::Text(None),
        cap: None,
    };
    let mut spec = finished::plan_spec(&empty, None, None, &options.plan);
    spec.title = format!("▶️ {} · {folder}: what should it do?", origin.agent.display);
    spec.context = Some(format!(
        "{} is ready in `{}`: type what it should do, or tap 🏁 Done to stop it.",
        origin.agent.display,
        origin.cwd.as_deref().unwrap_or("?")
    ));
    spec.decisions[0].title = "What should it do?".to_owned();
    spec.decisions[0].context = None;
    spec.deadline = Some(options.stop_timeout_label.clone());
    let id = push_spec(&queue, &spec, "", &crate::clock::now())
        .map_err(|e| format!("cannot push the first prompt: {e}"))?
        .id;
    let mut watch = Watch::told(told);
    let waited = tokio::select! {
        waited = crate::agent::wait_for_completion(&queue, &id, Some(options.stop_timeout)) => waited,
        why = watch.abandoned() => {
            core::withdraw_because(&queue, &id, &why);
            return Err(why);
        }
    };
    match waited {
        Ok(WaitOutcome::Completed(done)) => {
            core::forget_notification(&queue, &done.plan);
            match finished::verdict(&done.plan) {
                Verdict::Continue { instruction } => Ok(instruction),
                _ => Err("the owner tapped 🏁 Done".to_owned()),
            }
        }
        Ok(WaitOutcome::TimedOut(_)) => {
            core::withdraw(&queue, &id);
            Err(format!(
                "no instruction within {}",
                options.stop_timeout_label
            ))
        }
        Ok(WaitOutcome::Withdrawn(_)) => Err(format!("plan `{id}` was withdrawn")),
        Ok(WaitOutcome::ChangesRequested(sent)) => {
            core::forget_notification(&queue, &sent.plan);
            sent.plan
                .feedback
                .map(|f| f.text)
                .filter(|t| !t.trim().is_empty())
                .ok_or_else(|| "sent back without an instruction".to_owned())
        }
        Err(e) => {
            core::withdraw(&queue, &id);
            Err(format!("waiting for plan `{id}` failed: {e}"))
        }
    }
}
