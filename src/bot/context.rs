//! Everything a handler needs, and the small steps every handler shares (take an action off the async threads,
//! show a view). Looking at pending/ (the snapshot, a button's plan, the queue view) is in [`super::watch`].

use std::sync::Arc;

use teloxide::types::{ChatId, MessageId};

use tokio::sync::mpsc;

use crate::actions::Actions;
use crate::queue::Queue;
use crate::queue::watcher::Changes;
use crate::telegram::views::View;

use super::api::{Api, Patience};
use super::notice::Notice;
use super::state::State;

/// Shared by every update worker and the watcher.
#[derive(Clone)]
pub struct Ctx {
    pub api: Api,
    pub actions: Actions,
    pub state: Arc<State>,
    /// `notifications.quietHours`: announcements and reminders silent then, except urgent plans.
    pub quiet: Option<Arc<crate::quiet::QuietHours>>,
    /// `notifications.timezone`: the days of the stats chart.
    pub timezone: chrono_tz::Tz,
    /// `digest.at`: when the daily digest goes out; `None`: never.
    pub digest: Option<Arc<crate::digest::DigestAt>>,
    /// The dashboard's https URL: the queue view links it as a Mini App. `None`: no dashboard button.
    pub dashboard: Option<url::Url>,
    /// The watcher's changes, once it runs.
    pub looks: Option<Arc<Looks>>,
    /// Login links for the web dashboard (`/web`); `None` when it is off.
    pub web: Option<crate::web::Links>,
    /// `telegram.groups`: the team's group chats and the plan cards in them.
    pub groups: Arc<super::cards::Groups>,
}

/// What the watcher saw change, and one look at it at a time: the watcher's loop and the commands that must show
/// what is on disk now (`/queue`) share it, so a command never draws from a snapshot a look is still updating.
pub struct Looks {
    pub busy: tokio::sync::Mutex<()>,
    /// Held while a look lists the whole folder (outside `busy`): one listing at a time.
    pub listing: tokio::sync::Mutex<()>,
    pub changes: Changes,
    pub notices: mpsc::UnboundedSender<Notice>,
}

impl Ctx {
    #[must_use]
    pub fn queue(&self) -> &Queue {
        self.actions.queue()
    }

    /// Whether a message about `plans` goes out silently (`disable_notification`): low priority only, or quiet
    /// hours with nothing urgent.
    pub fn silent<'a, P: crate::plan::Outline + 'a>(
        &self,
        plans: impl IntoIterator<Item = &'a P>,
    ) -> bool {
        use crate::plan::Priority;
        let priorities: Vec<Priority> = plans.into_iter().map(|p| p.priority()).collect();
        let quiet_hours = self.quiet.as_ref().is_some_and(|q| q.now());
        priorities.iter().all(|&p| p == Priority::Low)
            || (quiet_hours && !priorities.contains(&Priority::Urgent))
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
