//! Everything a handler needs, and the small steps every handler shares (resolve a button's plan, take an
//! action off the async threads, show a view).

use std::sync::Arc;

use teloxide::types::{ChatId, MessageId};

use crate::actions::{Action, Actions, Actor, Outcome, Role, Tell};
use crate::plan::Plan;
use crate::queue::{Problem, Queue, Scan, StoreError};
use crate::telegram::callback::PlanRef;
use crate::telegram::markdown::escape;
use crate::telegram::views::{self, View, Viewer};

use super::api::{Api, Patience};
use super::state::{Snapshot, State};

/// Shared by every update worker and the watcher.
#[derive(Clone)]
pub struct Ctx {
    pub api: Api,
    pub actions: Actions,
    pub state: Arc<State>,
    /// `notifications.quietHours`: announcements and reminders silent then, except urgent plans.
    pub quiet: Option<Arc<crate::quiet::QuietHours>>,
}

impl Ctx {
    #[must_use]
    pub fn queue(&self) -> &Queue {
        self.actions.queue()
    }

    /// Rescans pending/ into the snapshot (file I/O off the async threads).
    pub async fn rescan(&self) -> Result<(), StoreError> {
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

    /// The queue view `actor` may see, from a fresh scan.
    pub async fn queue_view(&self, actor: Actor, page: usize) -> View {
        if let Err(e) = self.rescan().await {
            tracing::warn!(error = %e, "rescan failed");
        }
        self.state.with_snapshot(|s| {
            let plans: Vec<&Plan> = self.actions.visible(actor, s.plans.iter().map(|l| &l.plan));
            views::queue(&plans, page)
        })
    }

    /// How `user` sees `plan`: names from `people`, and what their role lets them do (a delegate sees only their
    /// decision; an approver may delegate to the other members).
    #[must_use]
    pub fn viewer(&self, user: u64, plan: &Plan) -> Viewer {
        let access = self.actions.access();
        let names = access
            .members()
            .filter_map(|m| access.name_of(m).map(|n| (m, n.to_owned())))
            .collect();
        match access.role(Actor::User(user), plan) {
            Role::Delegate(only) => Viewer {
                names,
                only: Some(only),
                delegates: Vec::new(),
            },
            _ => Viewer {
                names,
                only: None,
                delegates: access.delegates_for(user, plan),
            },
        }
    }

    /// A name for a user id in views: from `people`, else the id.
    #[must_use]
    pub fn name(&self, user: u64) -> String {
        self.actions.access().display(&user.to_string())
    }

    /// Tells the people a recorded change concerns besides `actor` (who changed decision `decision` of `plan`):
    /// the delegator that their delegate answered, and the signers that their sign-offs were cleared.
    pub async fn tell(&self, actor: u64, plan: &Plan, decision: usize, tell: &Tell) {
        let Some(d) = plan.decisions.get(decision) else {
            return;
        };
        if let Some(delegator) = tell.delegator {
            let who = self.name(actor);
            let text = match d.status {
                crate::plan::DecisionStatus::Skipped => format!("⏭️ {who} skipped {}", d.title),
                _ => format!(
                    "✅ {who} answered {} → {}",
                    d.title,
                    d.answer.as_deref().unwrap_or_default()
                ),
            };
            // A long custom answer or title must not push the message past Telegram's limit.
            let view = View::text_only(&escape(&crate::telegram::markdown::truncate(&text, 1000)));
            self.send_to(delegator, &view).await;
        }
        for signer in &tell.signoffs_cleared {
            let header = format!(
                "✍️ {} changed {}: the sign\\-offs on this plan were cleared, yours too\\. Review it and sign off again\\.",
                escape(&self.name(actor)),
                escape(&d.title)
            );
            let view = views::review_for(plan, Some(&header), &self.viewer(*signer, plan));
            self.send_to(*signer, &view).await;
        }
    }

    /// Sends `view` to `user`'s private chat.
    pub async fn send_to(&self, user: u64, view: &View) {
        let chat = ChatId(i64::try_from(user).unwrap_or(i64::MAX));
        if let Err(e) = self
            .api
            .send(chat, view, false, Patience::Interactive)
            .await
        {
            tracing::warn!(user, error = %e, "can't send a message to a user");
        }
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
