//! Supergroups in the fake: forum topics, members, the bot added and kicked, and Telegram's checks on them
//! (`message_thread_id` only for a topic of a forum; a kicked bot gets 403 for everything in that chat).

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::FakeBot;
use super::state::{BOT_ID, Group, SentMessage, bot_user_json, now_unix, user_json};

/// A `ChatMember` of the bot with `status`.
fn bot_member(status: &str) -> Value {
    let mut member = json!({"user": bot_user_json(), "status": status});
    if status == "kicked" {
        member["until_date"] = json!(0);
    }
    member
}

impl FakeBot {
    /// `added_by` creates a supergroup `chat_id` (negative) and adds the bot: a `my_chat_member` update, as
    /// Telegram sends. `forum`: topics may be created in it.
    pub fn add_group(&self, chat_id: i64, title: &str, forum: bool, added_by: i64) {
        self.shared.update(|state| {
            let group = Group {
                title: title.to_owned(),
                forum,
                members: BTreeSet::from([added_by]),
                ..Group::default()
            };
            state.groups.insert(chat_id, group);
            if forum {
                // Message 1 of a forum is its General topic's start: topics and messages come after it.
                state.chat(chat_id).next_message_id = 2;
            }
            let update = json!({
                "chat": state.chat_json(chat_id),
                "from": user_json(added_by),
                "date": now_unix(),
                "old_chat_member": bot_member("left"),
                "new_chat_member": bot_member("member"),
            });
            state.push_update("my_chat_member", update);
        });
    }

    /// `user` joins group `chat_id` (no update: the bot needs none).
    pub fn add_member(&self, chat_id: i64, user: i64) {
        self.shared.update(|state| {
            if let Some(group) = state.groups.get_mut(&chat_id) {
                group.members.insert(user);
            }
        });
    }

    /// `by` creates a topic `name` in forum `chat_id`; returns its id (the id of the service message that
    /// created it, as in Telegram), or why it can't.
    pub fn create_topic(&self, chat_id: i64, name: &str, by: i64) -> Result<i32, String> {
        self.shared.update(|state| {
            let forum = state.groups.get(&chat_id).is_some_and(|g| g.forum);
            if !forum {
                return Err(format!("{chat_id} is no forum"));
            }
            let id = state.store(group_message(chat_id, by, "", None));
            if let Some(message) = state.find_mut(chat_id, id) {
                message.thread = Some(id);
            }
            if let Some(group) = state.groups.get_mut(&chat_id) {
                group.topics.insert(id, name.to_owned());
            }
            Ok(id)
        })
    }

    /// A text message from member `user` in group `chat_id` (in topic `thread`); returns its id, or why it
    /// can't be sent.
    pub fn send_group_text(
        &self,
        chat_id: i64,
        thread: Option<i32>,
        user: i64,
        text: &str,
    ) -> Result<i32, String> {
        self.shared.update(|state| {
            let group = state
                .groups
                .get(&chat_id)
                .ok_or_else(|| format!("no group {chat_id}"))?;
            if !group.members.contains(&user) {
                return Err(format!("{user} is not in group {chat_id}"));
            }
            if thread.is_some_and(|t| !group.topics.contains_key(&t)) {
                return Err(format!("no topic {thread:?} in {chat_id}"));
            }
            let id = state.store(group_message(chat_id, user, text, thread));
            let json = state
                .find(chat_id, id)
                .map(|m| state.message_json(m))
                .unwrap_or_default();
            if !state.groups.get(&chat_id).is_some_and(|g| g.kicked) {
                state.push_update("message", json);
            }
            Ok(id)
        })
    }

    /// Member `user` taps the button with callback `data` on the bot's message `message_id` in group
    /// `chat_id`: the callback's message (and chat) is the group's. Returns the query id, or why the tap is
    /// impossible.
    pub fn tap_in_group(
        &self,
        chat_id: i64,
        user: i64,
        message_id: i32,
        data: &str,
    ) -> Result<String, String> {
        self.shared.update(|state| {
            let member = state
                .groups
                .get(&chat_id)
                .is_some_and(|g| g.members.contains(&user));
            if !member {
                return Err(format!("{user} is not in group {chat_id}"));
            }
            let message = state
                .find(chat_id, message_id)
                .filter(|m| m.from_bot())
                .ok_or_else(|| format!("no bot message {message_id} in group {chat_id}"))?;
            let message = state.message_json(message);
            Ok(state.push_callback(user, chat_id, message, data))
        })
    }

    /// `by` removes the bot from group `chat_id`: a `my_chat_member` update (kicked), then 403 for every call
    /// about that chat.
    pub fn kick_bot(&self, chat_id: i64, by: i64) {
        self.shared.update(|state| {
            let Some(group) = state.groups.get_mut(&chat_id) else {
                return;
            };
            group.kicked = true;
            let update = json!({
                "chat": state.chat_json(chat_id),
                "from": user_json(by),
                "date": now_unix(),
                "old_chat_member": bot_member("member"),
                "new_chat_member": bot_member("kicked"),
            });
            state.push_update("my_chat_member", update);
        });
    }

    /// The bot's messages in topic `thread` of group `chat_id` (`None`: outside every topic), oldest first.
    #[must_use]
    pub fn topic_messages(&self, chat_id: i64, thread: Option<i32>) -> Vec<SentMessage> {
        self.messages(chat_id)
            .into_iter()
            .filter(|m| m.thread == thread)
            .collect()
    }
}

fn group_message(chat_id: i64, from: i64, text: &str, thread: Option<i32>) -> SentMessage {
    debug_assert_ne!(from, BOT_ID);
    SentMessage {
        chat_id,
        message_id: 0,
        from,
        text: text.to_owned(),
        parse_mode: None,
        plain: text.to_owned(),
        entities: Vec::new(),
        reply_markup: None,
        disable_notification: false,
        reply_to: None,
        thread,
        date: now_unix(),
        edited: false,
        history: Vec::new(),
        document: None,
    }
}
