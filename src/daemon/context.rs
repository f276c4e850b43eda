//! Everything a handler needs, and the small steps every handler shares (resolve a plan, show a view).

use std::collections::HashSet;
use std::sync::Arc;

use teloxide::types::{ChatId, MessageId};

use crate::plan::Plan;
use crate::queue::{Loaded, Queue, StoreError};
use crate::telegram::callback::PlanRef;
use crate::telegram::views::View;

use super::api::{Api, Patience};
use super::state::{Snapshot, State};

/// Shared by every update worker and the watcher.
#[derive(Clone)]
pub struct Ctx {
    pub api: Api,
    pub queue: Queue,
    pub state: Arc<State>,
    pub allowed: Arc<HashSet<u64>>,
}

/// The current time as the files record it: RFC 3339 UTC, seconds.
#[must_use]
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl Ctx {
    #[must_use]
    pub fn is_allowed(&self, user: u64) -> bool {
        self.allowed.contains(&user)
    }

    /// Rescans pending/ into the snapshot (file I/O off the async threads).
    pub async fn rescan(&self) -> Result<(), StoreError> {
        let queue = self.queue.clone();
        let scan = tokio::task::spawn_blocking(move || queue.scan_pending())
            .await
            .map_err(|e| StoreError::Io {
                path: self.queue.pending_dir(),
                source: std::io::Error::other(e),
            })??;
        self.state.set_snapshot(Snapshot::new(scan.plans));
        Ok(())
    }

    /// The pending plan a button refers to, read fresh from disk (the snapshot only maps the reference to an
    /// id). `None`: the plan is gone (completed, deleted, or never existed).
    pub async fn resolve(&self, r: &PlanRef) -> Option<Loaded> {
        let mut id = self
            .state
            .with_snapshot(|s| s.by_ref(r).map(|l| l.plan.id.clone()));
        if id.is_none() {
            // Maybe a plan newer than the last scan.
            if let Err(e) = self.rescan().await {
                tracing::warn!(error = %e, "rescan failed");
            }
            id = self
                .state
                .with_snapshot(|s| s.by_ref(r).map(|l| l.plan.id.clone()));
        }
        let id = id?;
        self.fresh(&id).await
    }

    /// The pending plan `id` as it is on disk now.
    pub async fn fresh(&self, id: &str) -> Option<Loaded> {
        let queue = self.queue.clone();
        let id = id.to_owned();
        let found = tokio::task::spawn_blocking(move || queue.find(&id))
            .await
            .ok()?;
        match found {
            Ok(l) if l.location == crate::queue::Location::Pending => Some(l),
            _ => None,
        }
    }

    /// Runs a store operation off the async threads.
    pub async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Queue) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let queue = self.queue.clone();
        tokio::task::spawn_blocking(move || f(&queue))
            .await
            .unwrap_or_else(|e| {
                Err(StoreError::Io {
                    path: queue_root_hint(),
                    source: std::io::Error::other(e),
                })
            })
    }

    /// Pending plans of the last scan.
    pub fn plans(&self) -> Vec<Plan> {
        self.state
            .with_snapshot(|s| s.plans.iter().map(|l| l.plan.clone()).collect())
    }

    /// Shows a view: edits `message` in place when there is one, else (or if it can't be edited) sends it.
    pub async fn show(&self, chat: ChatId, message: Option<MessageId>, view: &View) {
        if let Some(m) = message {
            match self.api.edit(chat, m, view).await {
                Ok(()) => return,
                Err(e) => tracing::warn!(error = %e, "can't edit the message; sending a new one"),
            }
        }
        if let Err(e) = self
            .api
            .send(chat, view, false, Patience::Interactive)
            .await
        {
            tracing::error!(error = %e, "can't send a view");
        }
    }
}

fn queue_root_hint() -> std::path::PathBuf {
    std::path::PathBuf::from("<queue>")
}
