//! Everything a handler needs, and the small steps every handler shares (resolve a button's plan, take an
//! action off the async threads, show a view).

use std::sync::Arc;

use teloxide::types::{ChatId, MessageId};

use crate::actions::{Action, Actions, Actor, Outcome};
use crate::plan::Plan;
use crate::queue::{Problem, Queue, Scan, StoreError};
use crate::telegram::callback::PlanRef;
use crate::telegram::views::{self, View};

use tokio::sync::mpsc;

use crate::queue::watcher::Changes;

use super::announce::Notice;
use super::api::{Api, Patience};
use super::state::{QueueOrder, Snapshot, State};

/// Shared by every update worker and the watcher.
#[derive(Clone)]
pub struct Ctx {
    pub api: Api,
    pub actions: Actions,
    pub state: Arc<State>,
    /// `notifications.quietHours`: announcements and reminders silent then, except urgent plans.
    pub quiet: Option<Arc<crate::quiet::QuietHours>>,
    /// `notifications.timezone`: the days of the stats chart.
    pub timezone: jiff::tz::TimeZone,
    /// `digest.at`: when the daily digest goes out; `None`: never.
    pub digest: Option<Arc<crate::digest::DigestAt>>,
    /// The dashboard's https URL: the queue view links it as a Mini App. `None`: no dashboard button.
    pub dashboard: Option<url::Url>,
    /// The watcher's changes, once it runs.
    pub looks: Option<Arc<Looks>>,
    /// Login links for the web dashboard (`/web`); `None` when it is off.
    pub web: Option<crate::web::Links>,
}

/// What the watcher saw change, and one look at it at a time: the watcher's loop and the commands that must show
/// what is on disk now (`/queue`) share it, so a command never draws from a snapshot a look is still updating.
pub struct Looks {
    pub busy: tokio::sync::Mutex<()>,
    pub changes: Changes,
    pub notices: mpsc::UnboundedSender<Notice>,
}

impl Ctx {
    #[must_use]
    pub fn queue(&self) -> &Queue {
        self.actions.queue()
    }

    /// Rescans pending/ into the snapshot (file I/O off the async threads).
    pub async fn rescan(&self) -> Result<(), StoreError> {
        // Once the watcher runs, a rescan is a look at the whole folder: plans it finds for the first time are
        // announced like any other (the look decides what is new against the snapshot it replaces).
        if let Some(looks) = &self.looks {
            looks.changes.everything();
            self.look().await;
            return Ok(());
        }
        let queue = self.queue().clone();
        let scan = tokio::task::spawn_blocking(move || queue.scan_pending())
            .await
            .map_err(|e| StoreError::Io {
                path: self.queue().pending_dir(),
                source: std::io::Error::other(e),
            })??;
        let mut scan = scan;
        self.admit(&mut scan);
        self.state.set_snapshot(Snapshot::new(scan.plans));
        Ok(())
    }

    /// Plans naming people the bot can't reach are malformed for this configuration: they move from the scan's
    /// plans to its problems (warned and skipped like any other malformed file).
    pub fn admit(&self, scan: &mut Scan) {
        let access = self.actions.access();
        let mut problems = Vec::new();
        scan.plans.retain(|l| match access.unknown_people(&l.plan) {
            None => true,
            Some(diagnostic) => {
                let version = std::fs::metadata(&l.path)
                    .map(|m| (m.len(), m.modified().ok()))
                    .unwrap_or((0, None));
                problems.push(Problem {
                    diagnostic: diagnostic.in_file(&l.path),
                    path: l.path.clone(),
                    version,
                });
                false
            }
        });
        scan.problems.extend(problems);
    }

    /// The id of the pending plan a button refers to (the snapshot maps references to ids; a plan newer than the
    /// last scan triggers a rescan). `None`: no such plan is pending.
    pub async fn resolve(&self, r: &PlanRef) -> Option<String> {
        let id = self
            .state
            .with_snapshot(|s| s.by_ref(r).map(|l| l.plan.id.clone()));
        if id.is_some() {
            return id;
        }
        if let Err(e) = self.rescan().await {
            tracing::warn!(error = %e, "rescan failed");
        }
        self.state
            .with_snapshot(|s| s.by_ref(r).map(|l| l.plan.id.clone()))
    }

    /// Takes an owner action (file I/O off the async threads).
    pub async fn act(&self, actor: Actor, plan_id: &str, action: Action) -> Outcome {
        let actions = self.actions.clone();
        let id = plan_id.to_owned();
        tokio::task::spawn_blocking(move || actions.take(actor, &id, &action, &crate::clock::now()))
            .await
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, "action task failed");
                Outcome::Gone
            })
    }

    /// Brings the snapshot up to date with every change the watcher has seen (the files an event named, or the
    /// whole folder after a poll tick), announcing new plans; waits for a look already under way.
    pub async fn look(&self) {
        let Some(looks) = &self.looks else { return };
        let _one_at_a_time = looks.busy.lock().await;
        let changed = looks.changes.take();
        if !changed.is_nothing() {
            super::announce::look(self, changed, &looks.notices).await;
        }
    }

    /// The queue view `actor` may see, from the snapshot after a [`Ctx::look`]: only files the watcher saw change
    /// are read while the owner waits.
    pub async fn queue_view(&self, actor: Actor, page: usize) -> View {
        self.look().await;
        self.state.with_snapshot(|s| {
            let queue = self.queue_order(s, actor);
            let sorted: Vec<&Plan> = queue.order.iter().map(|&i| &s.plans[i].plan).collect();
            let view = views::queue_page(&sorted, &queue.counts, page, chrono::Utc::now());
            views::with_dashboard(view, self.dashboard.as_ref())
        })
    }

    /// `actor`'s queue in snapshot `s` (drawn once per snapshot).
    fn queue_order(&self, s: &Snapshot, actor: Actor) -> Arc<QueueOrder> {
        let access = self.actions.access();
        s.queue_order(actor, |plans| {
            (0..plans.len())
                .filter(|&i| access.sees(actor, plans[i]))
                .collect()
        })
    }

    /// Draws every member's queue and the button references for the current snapshot ahead of their next use
    /// (after a look, off the owner's wait).
    pub fn warm_queues(&self) {
        self.state.with_snapshot(|s| {
            s.refs();
            for user in self.actions.access().members() {
                self.queue_order(s, Actor::User(user));
            }
        });
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
