//! `POST /agent/acp`: the ACP relay's questions for agents on other machines (`arbiter acp --server URL`). The
//! daemon answers each with the relay's own phone functions ([`crate::agent::acp::phone`]) on its queue — the
//! standing rules, a permission plan, a finished card, a headless session's first instruction — with every file read
//! answered from what the relay sent. `POST /agent/acp/stop` tells a waiting question why it stops (the editor
//! answered first, the session ended): its plan is withdrawn with that reason; a relay whose connection closes
//! withdraws it too. The caller's token decides the plans' `machine`, and a machine stops only its own questions.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{Extension, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use tokio::sync::oneshot;

use crate::actions::Caller;
use crate::agent::acp::dialect::Acp;
use crate::agent::acp::phone;
use crate::agent::hook::core::{self, HookOptions, Origin};
use crate::queue::Queue;
use crate::remote::acp::{AcpAnswer, AcpRequest, PATH, STOP_PATH, Stop, What};

/// The questions waiting, by the caller's machine and the relay's name for them.
type Waiting = Mutex<HashMap<(String, String), oneshot::Sender<String>>>;

struct Relays {
    queue: Queue,
    grant_minutes: Option<u32>,
    waiting: Waiting,
}

/// The router of [`PATH`] and [`STOP_PATH`]; authenticate it as `/mcp` is (the layer puts the [`Caller`] in).
pub fn router(queue: Queue, grant_minutes: Option<u32>) -> Router {
    Router::new()
        .route(PATH, axum::routing::post(answer))
        .route(STOP_PATH, axum::routing::post(stop))
        .with_state(Arc::new(Relays {
            queue,
            grant_minutes,
            waiting: Mutex::new(HashMap::new()),
        }))
}

fn machine_of(caller: &Caller) -> String {
    caller.machine().unwrap_or("this machine").to_owned()
}

async fn answer(
    State(relays): State<Arc<Relays>>,
    Extension(caller): Extension<Caller>,
    Json(request): Json<AcpRequest>,
) -> Response {
    let options = match super::hooks::options(&request.flags, &caller, relays.grant_minutes) {
        Ok(options) => options,
        Err(said) => return (StatusCode::BAD_REQUEST, said).into_response(),
    };
    let machine = machine_of(&caller);
    let key = (machine.clone(), request.ask.clone());
    let (tell, told) = oneshot::channel();
    relays
        .waiting
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(key.clone(), tell);
    // The question runs in a task of its own: when the relay's connection closes this handler is dropped, and with
    // it `_gone`, which tells the question its asker went away (the plan is withdrawn).
    let _gone = Gone {
        relays: Arc::clone(&relays),
        key,
        why: format!("the ACP relay on {machine} stopped waiting (its connection closed)"),
    };
    let queue = relays.queue.clone();
    let acp = Acp::named(&request.agent, request.title.as_deref());
    let work = tokio::spawn(asked(queue, acp, request.what, options, told));
    match work.await {
        Ok(answer) => Json(answer).into_response(),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the relay's question failed: {e}"),
        )
            .into_response(),
    }
}

/// The relay's question, answered with the relay's own phone functions on this daemon's queue.
async fn asked(
    queue: Queue,
    acp: Acp,
    what: What,
    options: HookOptions,
    told: oneshot::Receiver<String>,
) -> AcpAnswer {
    if let Some(why) = core::nobody_to_ask(&queue) {
        return AcpAnswer::Failed(why);
    }
    let origin = |session, cwd| Origin {
        agent: acp.agent,
        session,
        cwd,
    };
    match what {
        What::Ready => AcpAnswer::Ready,
        What::Rules { params, cwd, files } => {
            files
                .scope(async move {
                    match acp.request(&params, cwd.as_deref()) {
                        Ok(asked) => {
                            let (answer, warnings) =
                                phone::ruled(&queue, &acp, &asked, &options.plan);
                            AcpAnswer::Ruled { answer, warnings }
                        }
                        Err(why) => AcpAnswer::Failed(why),
                    }
                })
                .await
        }
        What::Permission { params, cwd, files } => {
            files
                .scope(async move {
                    match acp.request(&params, cwd.as_deref()) {
                        Ok(asked) => phone::permission(queue, asked, options, told)
                            .await
                            .map_or_else(AcpAnswer::Failed, AcpAnswer::Permission),
                        Err(why) => AcpAnswer::Failed(why),
                    }
                })
                .await
        }
        What::Card {
            session,
            cwd,
            message,
        } => phone::card(queue, origin(session, cwd), message, options, told)
            .await
            .map_or_else(AcpAnswer::Failed, AcpAnswer::Next),
        What::First { session, cwd } => {
            phone::first_prompt(queue, origin(session, cwd), options, told)
                .await
                .map_or_else(AcpAnswer::Failed, |next| AcpAnswer::Next(Some(next)))
        }
    }
}

async fn stop(
    State(relays): State<Arc<Relays>>,
    Extension(caller): Extension<Caller>,
    Json(stop): Json<Stop>,
) -> Response {
    let key = (machine_of(&caller), stop.ask);
    let tell = relays
        .waiting
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&key);
    match tell {
        Some(tell) => {
            let _ = tell.send(stop.reason);
            Json(serde_json::json!({"stopped": true})).into_response()
        }
        // Answered already, or another machine's: nothing changes.
        None => Json(serde_json::json!({"stopped": false})).into_response(),
    }
}

/// When dropped (the question answered, or its connection closed), the question's wait is told `why` if it still
/// waits.
struct Gone {
    relays: Arc<Relays>,
    key: (String, String),
    why: String,
}

impl Drop for Gone {
    fn drop(&mut self) {
        let tell = self
            .relays
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.key);
        if let Some(tell) = tell {
            let _ = tell.send(std::mem::take(&mut self.why));
        }
    }
}
