//! What the relay asks on the phone, each through the hook core: a permission request (after the standing rules),
//! a finished turn's card, and a headless session's first instruction. Each runs as a task of its own and stops
//! waiting when the relay tells it why (the editor answered first, the session ended): its plan is withdrawn with
//! that reason.
//!
//! The relay asks through a [`Phone`]: [`Here`], the queue of a daemon on this machine, or a daemon on another
//! machine (`crate::remote::acp`), which runs these same functions on its own queue.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;
use tokio::sync::oneshot;

use crate::agent::hook::core::finished::{self, Finished, LastMessage};
use crate::agent::hook::core::{
    self, Asked, HookOptions, Origin, PlanOptions, Prompt, Verdict, Watch, rules,
};
use crate::agent::{WaitOutcome, push_spec};
use crate::queue::Queue;

use super::dialect::{Acp, Kind, Request, answered};

/// What an answer from the phone is on its way to be.
pub type Asking<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// A permission request as the relay read it, with what the agent wrote (for a daemon that reads it again).
#[derive(Debug, Clone)]
pub struct Ask {
    pub acp: Acp,
    pub request: Request,
    /// The `session/request_permission`'s params.
    pub params: Value,
    /// The session's folder.
    pub cwd: Option<String>,
}

/// Where the relay asks the owner. Every answer comes back to the relay's one task as an event.
pub trait Phone: Send + Sync {
    /// The standing rules' answer to `ask` (the agent's option), before anyone is asked, and their warnings.
    fn ruled(&self, ask: Ask, options: PlanOptions) -> Asking<(Option<Value>, Vec<String>)>;
    /// `ask` on the phone: the agent's option for the owner's answer, or why there is none. `told` stops the wait.
    fn permission(
        &self,
        ask: Ask,
        options: HookOptions,
        told: oneshot::Receiver<String>,
    ) -> Asking<Result<Value, String>>;
    /// The finished turn's card: the owner's next instruction, `None` to stop.
    fn card(
        &self,
        origin: Origin,
        message: String,
        options: HookOptions,
        told: oneshot::Receiver<String>,
    ) -> Asking<Result<Option<String>, String>>;
    /// A headless session's first instruction.
    fn first_prompt(
        &self,
        origin: Origin,
        options: HookOptions,
        told: oneshot::Receiver<String>,
    ) -> Asking<Result<String, String>>;
}

/// The queue of a daemon on this machine.
pub struct Here(pub Queue);

impl Phone for Here {
    fn ruled(&self, ask: Ask, options: PlanOptions) -> Asking<(Option<Value>, Vec<String>)> {
        let queue = self.0.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || ruled(&queue, &ask.acp, &ask.request, &options))
                .await
                .unwrap_or_else(|e| (None, vec![format!("the standing rules failed: {e}")]))
        })
    }

    fn permission(
        &self,
        ask: Ask,
        options: HookOptions,
        told: oneshot::Receiver<String>,
    ) -> Asking<Result<Value, String>> {
        Box::pin(permission(self.0.clone(), ask.request, options, told))
    }

    fn card(
        &self,
        origin: Origin,
        message: String,
        options: HookOptions,
        told: oneshot::Receiver<String>,
    ) -> Asking<Result<Option<String>, String>> {
        Box::pin(card(self.0.clone(), origin, message, options, told))
    }

    fn first_prompt(
        &self,
        origin: Origin,
        options: HookOptions,
        told: oneshot::Receiver<String>,
    ) -> Asking<Result<String, String>> {
        Box::pin(first_prompt(self.0.clone(), origin, options, told))
    }
}

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

/// The finished turn's card: the owner's next instruction, or `None` to stop.
pub async fn card(
    queue: Queue,
    origin: Origin,
    message: String,
    options: HookOptions,
    told: oneshot::Receiver<String>,
) -> Result<Option<String>, String> {
    if let Some(reason) = core::nobody_to_ask(&queue) {
        return Err(reason);
    }
    let mut watch = Watch::told(told);
    let finished = Finished {
        origin,
        last: LastMessage::Text(Some(message)),
        cap: None,
    };
    match finished::next(&queue, &finished, &options, &mut watch).await? {
        Verdict::Continue { instruction } => Ok(Some(instruction)),
        _ => Ok(None),
    }
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
