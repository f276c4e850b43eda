//! A stateful fake Telegram Bot API over real HTTP on 127.0.0.1, for the tests and `arbiter demo`.
//!
//! Point teloxide at it with `Bot::new(fake.token()).set_api_url(fake.api_url().parse()?)`.
//! Requests are `POST /bot<any token>/<method>` (method names matched case-insensitively) with a
//! JSON, form or query body; answers use Telegram's envelope and Telegram's error descriptions.
//!
//! - Start: [`FakeBot::start`] binds `127.0.0.1:0`; [`FakeBot::api_url`], [`FakeBot::token`]. Handles
//!   are cheap clones; the server stops when the last one is dropped.
//! - Methods: getMe, getUpdates (long polling, `offset` incl. negative, `timeout`, `limit`; a newer
//!   getUpdates ends a waiting one with 409), deleteWebhook, setMyCommands, getMyCommands, sendMessage,
//!   sendDocument (multipart upload, or a file id it gave before), sendPhoto (the same, a PNG only),
//!   editMessageText, editMessageReplyMarkup, answerCallbackQuery, deleteMessage, sendChatAction,
//!   setChatMenuButton, getChatMenuButton.
//!   Anything else: 404 "Not Found". Checks as Telegram does: MarkdownV2 (via
//!   [`crate::telegram::markdown_check`]), empty or over-4096 (UTF-16) text, captions over 1024,
//!   missing or empty documents, callback_data of 1–64 bytes, https-only Web App URLs, ≤ 100 buttons and
//!   ≤ 8 per row, edits
//!   of unknown or unchanged messages, unknown or already answered callback queries.
//! - Act as a user: [`FakeBot::send_text`], [`FakeBot::send_reply`], [`FakeBot::tap`] (a button of
//!   a stored message), [`FakeBot::tap_label`], [`FakeBot::tap_raw`] (any data, any message id).
//! - Observe: [`FakeBot::calls`] (an uploaded file appears in the params as its name and size),
//!   [`FakeBot::calls_of`], [`FakeBot::messages`] (a document's or photo's bytes in [`SentMessage::document`]),
//!   [`FakeBot::last_message`], [`FakeBot::callback_answers`], [`FakeBot::commands`],
//!   [`FakeBot::menu_button`], and the waiters
//!   [`FakeBot::wait_for_call`] and [`FakeBot::wait_until`] (woken on every state change).
//! - Groups: [`FakeBot::add_group`] (a supergroup, a forum or not, the bot added by a member: a `my_chat_member`
//!   update), [`FakeBot::add_member`], [`FakeBot::create_topic`] (a forum topic; its id is the id of the
//!   service message that created it, as in Telegram), [`FakeBot::send_group_text`], [`FakeBot::tap_in_group`]
//!   (the callback's message is the group's), [`FakeBot::kick_bot`] (then every call for that chat is 403
//!   "Forbidden: bot was kicked from the supergroup chat"), [`FakeBot::topic_messages`]. `message_thread_id`
//!   is checked as Telegram does: only a topic of a forum supergroup (never 1, the General topic, which is
//!   reached without it).
//! - Break it: [`FakeBot::inject`] a [`Fault`] into the next N calls of a method.

#[cfg(test)]
mod document_tests;
#[cfg(test)]
mod fault_tests;
mod groups;
#[cfg(test)]
mod groups_tests;
#[cfg(test)]
mod menu_tests;
mod methods;
mod server;
mod state;
#[cfg(test)]
mod tests;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use self::server::Shared;
use self::state::now_unix;
pub use self::state::{
    BOT_ID, BOT_USERNAME, Button, Call, Document, Fault, Markup, SentMessage, Upload,
};

/// Handle to a running fake Bot API server.
#[derive(Clone)]
pub struct FakeBot {
    shared: Arc<Shared>,
    addr: SocketAddr,
    _server: Arc<ServerTask>,
}

/// Aborts the server when the last handle goes away.
struct ServerTask(JoinHandle<()>);

impl Drop for ServerTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl FakeBot {
    /// Binds 127.0.0.1 on a free port and starts serving.
    pub async fn start() -> io::Result<FakeBot> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::default());
        let task = tokio::spawn({
            let shared = Arc::clone(&shared);
            async move {
                if let Err(error) = server::serve(listener, shared).await {
                    tracing::error!(%error, "fake Bot API server stopped");
                }
            }
        });
        Ok(FakeBot {
            shared,
            addr,
            _server: Arc::new(ServerTask(task)),
        })
    }

    /// Base URL for `Bot::set_api_url`, e.g. `http://127.0.0.1:40123/`.
    #[must_use]
    pub fn api_url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// A fixed fake token (any token is accepted).
    #[must_use]
    pub fn token(&self) -> &'static str {
        "123456:TEST"
    }

    /// A private text message from `user_id` to the bot (chat id = user id); returns its message id.
    pub fn send_text(&self, user_id: i64, text: &str) -> i32 {
        self.user_message(user_id, text, None)
    }

    /// Like [`FakeBot::send_text`], as a reply to message `reply_to` of that chat.
    pub fn send_reply(&self, user_id: i64, text: &str, reply_to: i32) -> i32 {
        self.user_message(user_id, text, Some(reply_to))
    }

    fn user_message(&self, user_id: i64, text: &str, reply_to: Option<i32>) -> i32 {
        self.shared.update(|state| {
            let message = SentMessage {
                chat_id: user_id,
                message_id: 0,
                from: user_id,
                text: text.to_owned(),
                parse_mode: None,
                plain: text.to_owned(),
                entities: Vec::new(),
                reply_markup: None,
                disable_notification: false,
                reply_to,
                thread: None,
                date: now_unix(),
                edited: false,
                history: Vec::new(),
                document: None,
            };
            let id = state.store(message);
            let json = state
                .find(user_id, id)
                .map(|m| state.message_json(m))
                .unwrap_or_default();
            state.push_update("message", json);
            id
        })
    }

    /// `user_id` taps the button with callback `data` on the bot's message `message_id` in their chat.
    /// Returns the callback query id, or why the tap is impossible (no such message or button).
    pub fn tap(&self, user_id: i64, message_id: i32, data: &str) -> Result<String, String> {
        let state = self.shared.lock();
        let message = state
            .find(user_id, message_id)
            .ok_or_else(|| format!("no message {message_id} in chat {user_id}"))?;
        if !message
            .buttons()
            .iter()
            .any(|b| b.callback_data.as_deref() == Some(data))
        {
            return Err(format!(
                "message {message_id} has no button with data {data:?}"
            ));
        }
        drop(state);
        Ok(self.tap_raw(user_id, message_id, data))
    }

    /// `user_id` taps the button labelled `label` on message `message_id`; returns the query id.
    pub fn tap_label(&self, user_id: i64, message_id: i32, label: &str) -> Result<String, String> {
        let data = {
            let state = self.shared.lock();
            let message = state
                .find(user_id, message_id)
                .ok_or_else(|| format!("no message {message_id} in chat {user_id}"))?;
            let button = message
                .buttons()
                .into_iter()
                .find(|b| b.text == label)
                .cloned();
            button
                .and_then(|b| b.callback_data)
                .ok_or_else(|| format!("message {message_id} has no callback button {label:?}"))?
        };
        self.tap(user_id, message_id, &data)
    }

    /// A callback query with any `data` on any message id (forged taps). An unknown message is sent
    /// as inaccessible (`date: 0`), as Telegram does for old messages.
    pub fn tap_raw(&self, user_id: i64, message_id: i32, data: &str) -> String {
        self.shared.update(|state| {
            let message = match state.find(user_id, message_id) {
                Some(message) => state.message_json(message),
                None => json!({"chat": {"id": user_id, "type": "private"}, "message_id": message_id, "date": 0}),
            };
            state.push_callback(user_id, user_id, message, data)
        })
    }

    /// Every request received so far, oldest first.
    #[must_use]
    pub fn calls(&self) -> Vec<Call> {
        self.shared.lock().calls.clone()
    }

    /// How many requests the fake has received so far (a mark for [`FakeBot::calls_since`]).
    #[must_use]
    pub fn call_count(&self) -> usize {
        self.shared.lock().calls.len()
    }

    /// The requests received after the first `mark` ones (see [`FakeBot::call_count`]): a wait for the next call
    /// copies only the calls since, not every call of a long run.
    #[must_use]
    pub fn calls_since(&self, mark: usize) -> Vec<Call> {
        let state = self.shared.lock();
        state.calls.get(mark..).unwrap_or_default().to_vec()
    }

    /// The requests of one method (any case: `sendMessage`, `SendMessage`).
    #[must_use]
    pub fn calls_of(&self, method: &str) -> Vec<Call> {
        let state = self.shared.lock();
        state
            .calls
            .iter()
            .filter(|c| c.method.eq_ignore_ascii_case(method))
            .cloned()
            .collect()
    }

    /// The bot's messages in a chat (not deleted), oldest first, with their current content.
    #[must_use]
    pub fn messages(&self, chat_id: i64) -> Vec<SentMessage> {
        let state = self.shared.lock();
        let chat = state.chats.get(&chat_id);
        chat.map(|c| {
            c.messages
                .iter()
                .filter(|m| m.from_bot())
                .cloned()
                .collect()
        })
        .unwrap_or_default()
    }

    /// The bot's most recent message in a chat.
    #[must_use]
    pub fn last_message(&self, chat_id: i64) -> Option<SentMessage> {
        self.messages(chat_id).pop()
    }

    /// Every answerCallbackQuery: (query id, text, show_alert), oldest first.
    #[must_use]
    pub fn callback_answers(&self) -> Vec<(String, Option<String>, bool)> {
        self.shared.lock().answers.clone()
    }

    /// The commands from the last setMyCommands (a JSON array).
    #[must_use]
    pub fn commands(&self) -> Value {
        self.shared.lock().commands.clone()
    }

    /// The menu button the last setChatMenuButton set for a chat (`None`: the default for all chats), as sent.
    #[must_use]
    pub fn menu_button(&self, chat_id: Option<i64>) -> Option<Value> {
        self.shared.lock().menu_buttons.get(&chat_id).cloned()
    }

    /// Updates injected but not yet confirmed by a getUpdates offset.
    #[must_use]
    pub fn pending_updates(&self) -> usize {
        self.shared.lock().updates.len()
    }

    /// The first call of `method` (ever received) matching `pred`, waiting up to `timeout` for one.
    pub async fn wait_for_call(
        &self,
        method: &str,
        mut pred: impl FnMut(&Call) -> bool,
        timeout: Duration,
    ) -> Option<Call> {
        let mut found = None;
        let matches = || {
            let state = self.shared.lock();
            found = state
                .calls
                .iter()
                .find(|c| c.method.eq_ignore_ascii_case(method) && pred(c))
                .cloned();
            found.is_some()
        };
        self.shared
            .wait_until(matches, Instant::now() + timeout)
            .await;
        found
    }

    /// Waits until `pred` holds over the fake's observable state; returns whether it did in time.
    pub async fn wait_until(
        &self,
        mut pred: impl FnMut(&FakeBot) -> bool,
        timeout: Duration,
    ) -> bool {
        self.shared
            .wait_until(|| pred(self), Instant::now() + timeout)
            .await
    }

    /// Makes the next `times` calls of `method` fail with `fault` (queued after earlier injections).
    pub fn inject(&self, method: &str, fault: Fault, times: usize) {
        let method = methods::canonical(method).map_or_else(|| method.to_owned(), str::to_owned);
        self.shared.update(|state| {
            state
                .faults
                .entry(method)
                .or_default()
                .extend(std::iter::repeat_n(fault, times));
        });
    }
}
