//! The team's group chats as the daemon knows them: `telegram.groups` and where a plan's card goes, the cards
//! posted (remembered in `<queue>/telegram-cards.json`), the groups that refused the bot. No Telegram calls here:
//! [`super::groups`] posts and redraws.

mod store;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use teloxide::RequestError;

use crate::config::{GroupConfig, TopicRule};
use crate::plan::Outline;
use crate::queue::{Listed, Loaded};
use crate::sync::lock;
use crate::telegram::views::{self, View};

pub(crate) use store::CardAt;

/// Chats and topics whose id was logged: each once (a busy group must not fill the log).
const LOGGED_KEPT: usize = 1000;

/// The groups of `telegram.groups`, the cards posted in them, and what the bot knows of them.
#[derive(Debug, Default)]
pub struct Groups {
    config: Vec<GroupConfig>,
    /// The bot's username (from getMe), for the `📂 Open` deep links.
    pub(super) username: Mutex<Option<String>>,
    pub(super) cards: store::Cards,
    /// Chats that refused the bot (removed from the group): no card is posted there until it is added again.
    pub(super) lost: Mutex<HashSet<i64>>,
    /// (plan, chat) pairs Telegram refused for good (say a topic that no longer exists): not tried again.
    pub(super) given_up: Mutex<HashSet<(String, i64)>>,
    /// Last drawn view of each card (by plan, chat): a card is edited only when it would change.
    pub(super) drawn: Mutex<HashMap<(String, i64), View>>,
    /// The last pending version of each carded plan, read whole from its file, with the snapshot's brief it was
    /// read for (a new brief means a new version to read): cards are drawn from it, and the card of a deleted
    /// plan too.
    pub(super) last: Mutex<HashMap<String, LastRead>>,
    pub(super) logged: Mutex<HashSet<(i64, Option<i32>)>>,
    /// Wakes [`run`] (a tap in a group was recorded).
    pub(super) wake: tokio::sync::Notify,
}

/// A carded plan as last read whole from its file, and the snapshot's brief it was read for.
#[derive(Debug, Clone)]
pub(super) struct LastRead {
    pub(super) read_for: Arc<Listed>,
    pub(super) loaded: Arc<Loaded>,
}

impl Groups {
    /// The groups of `config`, with the cards remembered in `queue_root`'s card file.
    #[must_use]
    pub fn new(config: Vec<GroupConfig>, queue_root: &std::path::Path) -> Groups {
        let cards = if config.is_empty() {
            store::Cards::default()
        } else {
            store::Cards::load(queue_root)
        };
        Groups {
            config,
            cards,
            ..Groups::default()
        }
    }

    /// True when `telegram.groups` names any group.
    #[must_use]
    pub fn configured(&self) -> bool {
        !self.config.is_empty()
    }

    /// `telegram.groups`.
    #[must_use]
    pub fn config(&self) -> &[GroupConfig] {
        &self.config
    }

    pub fn set_username(&self, username: &str) {
        *lock(&self.username) = Some(username.to_owned());
    }

    /// The deep link to plan `id` in the private chat, once the bot's username is known.
    pub(super) fn open(&self, id: &str) -> Option<url::Url> {
        lock(&self.username)
            .as_deref()
            .and_then(|u| views::deep_link(u, id))
    }

    /// Where `plan` gets a card: per group, the topic of its agent, else of its tag, else `*`; a group without
    /// topics takes every plan in its main chat. Topic 1 (a forum's General topic) is reached without a thread.
    #[must_use]
    pub fn places<P: Outline + ?Sized>(&self, plan: &P) -> Vec<(i64, Option<i32>)> {
        let lost = lock(&self.lost);
        self.config
            .iter()
            .filter(|g| !lost.contains(&g.chat))
            .filter_map(|g| {
                if g.topics.is_empty() {
                    return Some((g.chat, None));
                }
                let find = |want: &dyn Fn(&TopicRule) -> bool| {
                    g.topics.iter().find(|(r, _)| want(r)).map(|(_, id)| *id)
                };
                let agent = plan.agent().map(str::trim);
                let tag = plan.tag().map(str::trim);
                let topic =
                    find(&|r| matches!(r, TopicRule::Agent(a) if Some(a.as_str()) == agent))
                        .or_else(|| {
                            find(&|r| matches!(r, TopicRule::Tag(t) if Some(t.as_str()) == tag))
                        })
                        .or_else(|| find(&|r| *r == TopicRule::Any))?;
                Some((g.chat, (topic != 1).then_some(topic)))
            })
            .collect()
    }

    /// The topic of `plan`'s card in each group it has one in (for its reminders and notices).
    pub(super) fn topics_of(&self, plan_id: &str) -> Vec<(i64, Option<i32>)> {
        let lost = lock(&self.lost);
        self.cards
            .of(plan_id)
            .into_iter()
            .filter(|c| !lost.contains(&c.chat))
            .map(|c| (c.chat, c.thread))
            .collect()
    }

    /// Wakes the card task (something changed that it should draw now).
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// The chat refused the bot for good: log it once, and post nothing there until the bot is added again.
    pub(super) fn lose(&self, chat: i64, error: &RequestError) {
        if lock(&self.lost).insert(chat) {
            tracing::warn!(chat, %error, "the group refused the bot (removed from it?): no more cards there until it is added again");
        }
    }

    /// Logs a group's chat id (and topic) the first time the bot sees it, so the owner can put it in the config.
    pub(super) fn log_seen(&self, chat: i64, thread: Option<i32>, title: Option<&str>) {
        let mut logged = lock(&self.logged);
        if logged.len() < LOGGED_KEPT && logged.insert((chat, thread)) {
            let configured = self.config.iter().any(|g| g.chat == chat);
            tracing::info!(chat, topic = ?thread, title = title.unwrap_or_default(), configured, "message in a group (telegram.groups takes this chat id; topic is the forum topic's id)");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;

    fn plan(agent: Option<&str>, tag: Option<&str>) -> Plan {
        let mut keys = String::new();
        if let Some(a) = agent {
            keys.push_str(&format!("agent: {a}\n"));
        }
        if let Some(t) = tag {
            keys.push_str(&format!("tag: {t}\n"));
        }
        let text =
            format!("---\nid: p\n{keys}---\n# P\n\n## Decision 1: D\n\n**Options:**\n- `a` — A\n");
        crate::plan::parse(&text, "p").expect("plan")
    }

    #[test]
    fn a_plan_goes_to_its_agents_topic_else_its_tags_else_any() {
        let dir = tempfile::tempdir().expect("temp dir");
        let groups = Groups::new(
            vec![
                GroupConfig {
                    chat: -1,
                    topics: vec![
                        (TopicRule::Any, 1),
                        (TopicRule::Agent("builder".to_owned()), 17),
                        (TopicRule::Tag("infra".to_owned()), 23),
                    ],
                },
                GroupConfig {
                    chat: -2,
                    topics: Vec::new(),
                },
                GroupConfig {
                    chat: -3,
                    topics: vec![(TopicRule::Tag("infra".to_owned()), 5)],
                },
            ],
            dir.path(),
        );
        let at = |agent, tag| groups.places(&plan(agent, tag));
        assert_eq!(
            at(Some("builder"), Some("infra")),
            [(-1, Some(17)), (-2, None), (-3, Some(5))]
        );
        assert_eq!(
            at(Some("ops"), Some("infra")),
            [(-1, Some(23)), (-2, None), (-3, Some(5))]
        );
        // `*` is topic 1, the General topic: no thread. A group whose topics match nothing gets no card.
        assert_eq!(at(None, None), [(-1, None), (-2, None)]);
        // A group that refused the bot gets nothing until it is added again.
        lock(&groups.lost).insert(-2);
        assert_eq!(at(None, None), [(-1, None)]);
    }
}
