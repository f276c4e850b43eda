//! The agent stopped waiting for the hook: it ended the hook (SIGTERM, SIGINT, SIGHUP: its own timeout, the user
//! interrupting the agent) or went away itself (the hook's parent is no longer the process that started it). The
//! question can't reach anyone then, so the core withdraws it rather than leave the owner a card whose answer goes
//! nowhere.

use std::time::Duration;

use tokio::signal::unix::{Signal, SignalKind, signal};

/// How often the hook looks whether its agent is still there.
const LOOK: Duration = Duration::from_millis(500);

/// Listens, from the hook's start, for the agent to stop waiting: a signal that comes while the question is
/// being pushed is still seen.
pub struct Watch {
    parent: u32,
    term: Option<Signal>,
    int: Option<Signal>,
    hup: Option<Signal>,
}

impl Watch {
    /// Starts listening (needs a tokio runtime). A signal that can't be listened for is left to its default.
    #[must_use]
    pub fn start() -> Watch {
        Watch {
            parent: std::os::unix::process::parent_id(),
            term: signal(SignalKind::terminate()).ok(),
            int: signal(SignalKind::interrupt()).ok(),
            hup: signal(SignalKind::hangup()).ok(),
        }
    }

    /// Resolves when the agent stopped waiting, with why; never otherwise.
    pub async fn abandoned(&mut self) -> String {
        let parent = self.parent;
        let parent_gone = async {
            loop {
                tokio::time::sleep(LOOK).await;
                if std::os::unix::process::parent_id() != parent {
                    return;
                }
            }
        };
        tokio::select! {
            () = received(&mut self.term) => "the agent ended the hook (SIGTERM)".to_owned(),
            () = received(&mut self.int) => "the agent ended the hook (SIGINT)".to_owned(),
            () = received(&mut self.hup) => "the agent ended the hook (SIGHUP)".to_owned(),
            () = parent_gone => "the agent that started the hook is gone".to_owned(),
        }
    }
}

/// Resolves when `signal` arrives; never when it could not be listened for.
async fn received(signal: &mut Option<Signal>) {
    match signal {
        Some(signal) => {
            signal.recv().await;
        }
        None => std::future::pending().await,
    }
}
