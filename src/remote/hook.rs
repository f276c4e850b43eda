//! A hook asking a daemon on another machine: `POST /agent/hook` with the agent's hook input, the files it names
//! (read here, where the agent runs) and the hook's flags; the daemon runs the hook core on its own queue — its
//! rules, its session grants, the owner's phone — and returns what to print. A hook that can't reach the daemon
//! answers the agent's "no decision" at once, with one line naming the URL.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Server;
use crate::agent::hook::core::files::{self, Sent};
use crate::agent::hook::{Dialect, Event, Reply};

/// The endpoint's path on the daemon's HTTP server.
pub const PATH: &str = "/agent/hook";

/// What a hook sends.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HookRequest {
    /// The dialect: `codex`, `gemini`, … (`arbiter hook AGENT`).
    pub agent: String,
    /// `--event`, for an agent whose input names none.
    #[serde(default)]
    pub event: Option<String>,
    /// The hook input as the agent wrote it.
    pub input: String,
    /// The files the input names, as they are on the agent's machine.
    #[serde(default)]
    pub files: Sent,
    #[serde(flatten)]
    pub flags: Flags,
}

/// The hook's flags, as the daemon reads them into the core's options.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Flags {
    pub timeout_seconds: u64,
    pub stop_timeout_seconds: u64,
    /// `allow`, `deny` or `ask`.
    pub on_timeout: String,
    pub priority: String,
    #[serde(default)]
    pub tag: Option<String>,
}

impl Flags {
    /// The longest the daemon may wait for the owner on this request.
    #[must_use]
    pub fn longest_wait(&self) -> Duration {
        Duration::from_secs(self.timeout_seconds.max(self.stop_timeout_seconds))
    }
}

/// What the daemon answers: the hook's stdout and stderr.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HookResponse {
    pub stdout: Option<String>,
    pub stderr: Option<String>,
}

/// Asks the daemon; `answer_as` is the event whose "no decision" a failure prints.
pub async fn ask(
    server: &Server,
    dialect: &dyn Dialect,
    answer_as: Option<Event>,
    mut request: HookRequest,
) -> Reply {
    request.files = files::gather(&request.input);
    // The daemon answers within the hook's timeout (or the finished card's); past that and a margin it stalls.
    let wait = request.flags.longest_wait();
    match server.post::<_, HookResponse>(PATH, &request, wait).await {
        Ok(response) => Reply {
            stdout: response.stdout,
            stderr: response.stderr,
        },
        Err(e) => Reply::fallback(dialect, answer_as, &e.to_string()),
    }
}
