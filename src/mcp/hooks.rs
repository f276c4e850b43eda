//! `POST /agent/hook`: the hook core for agents on other machines. A hook run with `--server` sends its input, the
//! files it names (read where the agent runs) and its flags ([`crate::remote::hook::HookRequest`]); the daemon
//! runs the same core as a local hook, on its own queue — rules, session grants, the phone — with every file read
//! answered from what the hook sent, and returns what the hook prints. The caller's token decides the plans'
//! `machine`. A hook that goes away (its connection closes) withdraws the plan it was waiting on, as a local hook
//! that is killed does.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Extension, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};

use crate::actions::Caller;
use crate::agent::hook::core::Watch;
use crate::agent::hook::{self, HookOptions, OnTimeout, PlanOptions};
use crate::plan::duration;
use crate::queue::Queue;
use crate::remote::hook::{Flags, HookRequest, HookResponse, PATH};

/// The longest a remote hook may ask the daemon to wait for the owner.
const LONGEST: Duration = Duration::from_secs(24 * 3600);

#[derive(Clone)]
struct Hooks {
    queue: Queue,
    grant_minutes: Option<u32>,
}

/// The router of [`PATH`]; authenticate it as `/mcp` is (the layer puts the [`Caller`] in the request).
pub fn router(queue: Queue, grant_minutes: Option<u32>) -> Router {
    Router::new()
        .route(PATH, axum::routing::post(answer))
        .with_state(Arc::new(Hooks {
            queue,
            grant_minutes,
        }))
}

async fn answer(
    State(hooks): State<Arc<Hooks>>,
    Extension(caller): Extension<Caller>,
    Json(mut request): Json<HookRequest>,
) -> Response {
    let Some(dialect) = hook::named(&request.agent) else {
        let said = format!(
            "`{}` is not an agent `arbiter hook` knows (it knows {})",
            request.agent,
            hook::NAMES.join(", ")
        );
        return (StatusCode::BAD_REQUEST, said).into_response();
    };
    let options = match options(&request.flags, &caller, hooks.grant_minutes) {
        Ok(options) => options,
        Err(said) => return (StatusCode::BAD_REQUEST, said).into_response(),
    };
    // The core runs in a task of its own: when the hook's connection closes, this handler is dropped, and with it
    // `_gone`, which tells the core's watch the asker went away (the plan is withdrawn).
    let (gone, told) = tokio::sync::oneshot::channel();
    let _gone = Gone(
        Some(gone),
        caller.machine().unwrap_or("another machine").to_owned(),
    );
    let queue = hooks.queue.clone();
    let work = tokio::spawn(async move {
        std::mem::take(&mut request.files)
            .scope(hook::answer_watched(
                dialect,
                &request.input,
                request.event.as_deref(),
                move || Ok(queue),
                &options,
                move || Watch::told(told),
            ))
            .await
    });
    match work.await {
        Ok(reply) => Json(HookResponse {
            stdout: reply.stdout,
            stderr: reply.stderr,
        })
        .into_response(),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the hook's task failed: {e}"),
        )
            .into_response(),
    }
}

/// Tells the core's watch, when dropped, that the hook on machine `.1` stopped waiting.
struct Gone(Option<tokio::sync::oneshot::Sender<String>>, String);

impl Drop for Gone {
    fn drop(&mut self) {
        if let Some(gone) = self.0.take() {
            let _ = gone.send(format!(
                "the hook on {} stopped waiting (its connection closed)",
                self.1
            ));
        }
    }
}

/// The hook's flags as a local hook reads them; the machine comes from the token, the grant's minutes from the
/// daemon's config.
pub(super) fn options(
    request: &Flags,
    caller: &Caller,
    grant_minutes: Option<u32>,
) -> Result<HookOptions, String> {
    let timeout = Duration::from_secs(request.timeout_seconds).min(LONGEST);
    let stop_timeout = Duration::from_secs(request.stop_timeout_seconds).min(LONGEST);
    let on_timeout = match request.on_timeout.as_str() {
        "allow" => OnTimeout::Allow,
        "deny" => OnTimeout::Deny,
        "ask" => OnTimeout::Ask,
        other => return Err(format!("--on-timeout `{other}`: allow, deny or ask")),
    };
    if !["low", "normal", "high", "urgent"].contains(&request.priority.as_str()) {
        return Err(format!(
            "--priority `{}`: low, normal, high or urgent",
            request.priority
        ));
    }
    Ok(HookOptions {
        timeout,
        timeout_label: duration::say(timeout, duration::Style::Written),
        on_timeout,
        stop_timeout,
        stop_timeout_label: duration::say(stop_timeout, duration::Style::Written),
        plan: PlanOptions {
            priority: Some(request.priority.clone()),
            tag: request.tag.clone(),
            deadline: Some(duration::say(timeout, duration::Style::Written)),
            grant_minutes,
            machine: caller.machine().map(str::to_owned),
        },
    })
}
