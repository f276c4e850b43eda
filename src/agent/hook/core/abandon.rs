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
    /// The hook's parent, looked at every [`LOOK`]; `None` for a watch that only listens to `told`.
    parent: Option<u32>,
    term: Option<Signal>,
    int: Option<Signal>,
    hup: Option<Signal>,
    /// Told by the process that asked (the ACP relay: the editor answered first, the session ended): the reason,
    /// which is also the withdrawn plan's.
    told: Option<tokio::sync::oneshot::Receiver<String>>,
}

impl Watch {
    /// Starts listening (needs a tokio runtime). A signal that can't be listened for is left to its default.
    #[must_use]
    pub fn start() -> Watch {
        Watch {
            parent: Some(std::os::unix::process::parent_id()),
            term: signal(SignalKind::terminate()).ok(),
            int: signal(SignalKind::interrupt()).ok(),
            hup: signal(SignalKind::hangup()).ok(),
            told: None,
        }
    }

    /// A watch of a question asked inside a longer-lived process (the ACP relay): no signals, no parent; the asker
    /// stops waiting when `told` says why (or is dropped).
    #[must_use]
    pub fn told(told: tokio::sync::oneshot::Receiver<String>) -> Watch {
        Watch {
            parent: None,
            term: None,
            int: None,
            hup: None,
            told: Some(told),
        }
    }

    /// The reason a plan given up on for `why` is withdrawn with: the asker's own words when it told, else that the
    /// agent stopped waiting.
    #[must_use]
    pub fn withdraw_reason(&self, why: &str) -> String {
        if self.told.is_some() {
            why.to_owned()
        } else {
            "the agent stopped waiting for an answer".to_owned()
        }
    }

    /// Resolves when the agent stopped waiting, with why; never otherwise.
    pub async fn abandoned(&mut self) -> String {
        let Watch {
            parent,
            term,
            int,
            hup,
            told,
        } = self;
        let parent = *parent;
        let parent_gone = async {
            let Some(parent) = parent else {
                return std::future::pending().await;
            };
            loop {
                tokio::time::sleep(LOOK).await;
                if std::os::unix::process::parent_id() != parent {
                    return;
                }
            }
        };
        let told = async {
            match told.as_mut() {
                Some(told) => told
                    .await
                    .unwrap_or_else(|_| "the asker went away".to_owned()),
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = received(term) => "the agent ended the hook (SIGTERM)".to_owned(),
            () = received(int) => "the agent ended the hook (SIGINT)".to_owned(),
            () = received(hup) => "the agent ended the hook (SIGHUP)".to_owned(),
            () = parent_gone => "the agent that started the hook is gone".to_owned(),
            why = told => why,
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
