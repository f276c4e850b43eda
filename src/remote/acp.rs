//! `arbiter acp --server URL`: the relay asks a daemon on another machine. What the relay would ask its own queue
//! (the standing rules, a permission request, a finished card, a headless session's first instruction) is posted
//! to `/agent/acp` with what the agent wrote and the files a diff needs (read here, where the agent runs); the
//! daemon runs the same functions on its own queue and answers. The relay telling a question to stop waiting (the
//! editor answered first, the session ended) posts its reason to `/agent/acp/stop`, and the plan is withdrawn with
//! it; a relay that goes away closes its connection, which withdraws the plan too.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::hook::Flags;
use super::{RemoteError, Server};
use crate::agent::acp::phone::{Ask, Asking, Phone};
use crate::agent::hook::core::files::{self, Sent};
use crate::agent::hook::core::{HookOptions, Origin, PlanOptions};

/// Where the daemon answers the relay's questions.
pub const PATH: &str = "/agent/acp";
/// Where the relay tells a question to stop waiting.
pub const STOP_PATH: &str = "/agent/acp/stop";

/// One question of the relay's.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AcpRequest {
    /// The relay's name for this question (random), to stop it by.
    pub ask: String,
    /// The agent: its name (`agentInfo.name` or `--agent-name`) and what people call it.
    pub agent: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(flatten)]
    pub flags: Flags,
    pub what: What,
}

/// What the relay asks.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum What {
    /// Whether there is anyone to ask (when the relay starts).
    Ready,
    /// The standing rules' answer to a `session/request_permission` (its params).
    Rules {
        params: Value,
        cwd: Option<String>,
        #[serde(default)]
        files: Sent,
    },
    /// A `session/request_permission` on the phone.
    Permission {
        params: Value,
        cwd: Option<String>,
        #[serde(default)]
        files: Sent,
    },
    /// A finished turn's card, with the agent's message of the turn.
    Card {
        session: Option<String>,
        cwd: Option<String>,
        message: String,
    },
    /// A headless session's first instruction.
    First {
        session: Option<String>,
        cwd: Option<String>,
    },
}

/// What the daemon answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AcpAnswer {
    Ready,
    Ruled {
        answer: Option<Value>,
        warnings: Vec<String>,
    },
    /// The agent's option, as the relay sends it (`{"outcome": …}`).
    Permission(Value),
    /// The owner's next instruction; `None`: stop.
    Next(Option<String>),
    /// Why there is no answer (nobody to ask, a timeout, a withdrawal).
    Failed(String),
}

/// A question to stop waiting, and why.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stop {
    pub ask: String,
    pub reason: String,
}

/// A daemon on another machine, as the relay's phone (a clone shares its connection pool).
#[derive(Clone)]
pub struct Daemon {
    server: Arc<Server>,
    flags: Flags,
}

impl Daemon {
    /// The daemon at `server`, if it answers and has someone to ask; else why not, in one line naming the URL.
    pub async fn reached(server: Server, hook: &HookOptions) -> Result<Daemon, String> {
        let daemon = Daemon {
            server: Arc::new(server),
            flags: Flags {
                timeout_seconds: hook.timeout.as_secs(),
                stop_timeout_seconds: hook.stop_timeout.as_secs(),
                on_timeout: "ask".to_owned(),
                priority: hook
                    .plan
                    .priority
                    .clone()
                    .unwrap_or_else(|| "high".to_owned()),
                tag: hook.plan.tag.clone(),
            },
        };
        let agent = Question {
            agent: "agent".to_owned(),
            title: None,
        };
        match daemon.asked(&agent, What::Ready, None).await? {
            AcpAnswer::Ready => Ok(daemon),
            other => Err(unexpected(&daemon.server, &other)),
        }
    }

    async fn asked(
        &self,
        agent: &Question,
        what: What,
        told: Option<oneshot::Receiver<String>>,
    ) -> Result<AcpAnswer, String> {
        let request = AcpRequest {
            ask: ask_id(),
            agent: agent.agent.clone(),
            title: agent.title.clone(),
            flags: self.flags.clone(),
            what,
        };
        let wait = match request.what {
            What::Ready | What::Rules { .. } => Duration::ZERO,
            _ => self.flags.longest_wait(),
        };
        let server = &self.server;
        let post = server.post::<_, AcpAnswer>(PATH, &request, wait);
        tokio::pin!(post);
        let answer = match told {
            None => post.await,
            Some(told) => {
                let why = tokio::select! {
                    answer = &mut post => Err(answer),
                    Ok(why) = told => Ok(why),
                };
                match why {
                    Err(answer) => answer,
                    // Told before the connection closes, so the plan is withdrawn with the relay's reason.
                    Ok(why) => {
                        let stop = Stop {
                            ask: request.ask.clone(),
                            reason: why.clone(),
                        };
                        let _ = server
                            .post::<_, Value>(STOP_PATH, &stop, Duration::ZERO)
                            .await;
                        return Err(why);
                    }
                }
            }
        };
        match answer {
            Ok(AcpAnswer::Failed(why)) => Err(why),
            Ok(answer) => Ok(answer),
            Err(RemoteError::Said(said)) => Err(said),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// Who asks: the agent's name and title, as the daemon names the plan's agent.
struct Question {
    agent: String,
    title: Option<String>,
}

impl Question {
    fn of(agent: &crate::agent::hook::core::Agent) -> Question {
        Question {
            agent: agent.name.to_owned(),
            title: Some(agent.display.to_owned()),
        }
    }
}

fn unexpected(server: &Server, answer: &AcpAnswer) -> String {
    RemoteError::Garbage {
        url: server.url(PATH),
        reason: format!("an answer to another question ({answer:?})"),
    }
    .to_string()
}

/// A question's name: random, so relays on machines that share a token never meet.
fn ask_id() -> String {
    let mut bytes = [0u8; 12];
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        return format!("{}-{nanos}", std::process::id());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The files a permission request's diffs are read from (those without their old text), read here.
fn diff_files(params: &Value, cwd: Option<&str>) -> Sent {
    let named = json!({"cwd": cwd, "toolCall": params.get("toolCall")});
    files::gather(&named.to_string())
}

impl Phone for Daemon {
    fn ruled(&self, ask: Ask, _options: PlanOptions) -> Asking<(Option<Value>, Vec<String>)> {
        let this = self.clone();
        Box::pin(async move {
            let files = diff_files(&ask.params, ask.cwd.as_deref());
            let what = What::Rules {
                params: ask.params,
                cwd: ask.cwd,
                files,
            };
            match this.asked(&Question::of(&ask.acp.agent), what, None).await {
                Ok(AcpAnswer::Ruled { answer, warnings }) => (answer, warnings),
                Ok(other) => (None, vec![unexpected(&this.server, &other)]),
                Err(why) => (None, vec![format!("arbiter acp: standing rules: {why}")]),
            }
        })
    }

    fn permission(
        &self,
        ask: Ask,
        _options: HookOptions,
        told: oneshot::Receiver<String>,
    ) -> Asking<Result<Value, String>> {
        let this = self.clone();
        Box::pin(async move {
            let files = diff_files(&ask.params, ask.cwd.as_deref());
            let what = What::Permission {
                params: ask.params,
                cwd: ask.cwd,
                files,
            };
            match this
                .asked(&Question::of(&ask.acp.agent), what, Some(told))
                .await?
            {
                AcpAnswer::Permission(answer) => Ok(answer),
                other => Err(unexpected(&this.server, &other)),
            }
        })
    }

    fn card(
        &self,
        origin: Origin,
        message: String,
        _options: HookOptions,
        told: oneshot::Receiver<String>,
    ) -> Asking<Result<Option<String>, String>> {
        let this = self.clone();
        Box::pin(async move {
            let what = What::Card {
                session: origin.session,
                cwd: origin.cwd,
                message,
            };
            match this
                .asked(&Question::of(&origin.agent), what, Some(told))
                .await?
            {
                AcpAnswer::Next(next) => Ok(next),
                other => Err(unexpected(&this.server, &other)),
            }
        })
    }

    fn first_prompt(
        &self,
        origin: Origin,
        _options: HookOptions,
        told: oneshot::Receiver<String>,
    ) -> Asking<Result<String, String>> {
        let this = self.clone();
        Box::pin(async move {
            let what = What::First {
                session: origin.session,
                cwd: origin.cwd,
            };
            match this
                .asked(&Question::of(&origin.agent), what, Some(told))
                .await?
            {
                AcpAnswer::Next(Some(instruction)) => Ok(instruction),
                AcpAnswer::Next(None) => Err("the owner tapped 🏁 Done".to_owned()),
                other => Err(unexpected(&this.server, &other)),
            }
        })
    }
}
