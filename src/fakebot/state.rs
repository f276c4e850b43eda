//! The fake server's state: chats and their messages, pending updates, the call log, faults.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::telegram::markdown_check::Entity;

/// The fake bot's own user id (the number before `:` in [`super::FakeBot::token`]).
pub const BOT_ID: i64 = 123_456;
/// The fake bot's username.
pub const BOT_USERNAME: &str = "arbiter_fake_bot";

/// One request the fake received.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Canonical camelCase method name (`sendMessage`), or the name as sent when unknown.
    pub method: String,
    /// The parameters, from a JSON, form or query body.
    pub params: Value,
    /// When the request arrived.
    pub at: SystemTime,
}

/// One inline keyboard button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Button {
    pub text: String,
    pub callback_data: Option<String>,
    pub url: Option<String>,
    /// The URL of a `web_app` button (a Mini App the client opens).
    pub web_app: Option<String>,
}

/// The reply markup attached to a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Markup {
    /// Rows of inline buttons.
    Inline(Vec<Vec<Button>>),
    /// Force reply (the client opens a reply to this message).
    ForceReply { placeholder: Option<String> },
    /// Any other reply keyboard (kept as JSON).
    Other(Value),
}

impl Markup {
    /// All inline buttons, row by row.
    #[must_use]
    pub fn buttons(&self) -> Vec<&Button> {
        match self {
            Self::Inline(rows) => rows.iter().flatten().collect(),
            _ => Vec::new(),
        }
    }
}

/// Telegram's limit on a file a bot uploads.
pub(crate) const MAX_UPLOAD_BYTES: usize = 50 * 1024 * 1024;

/// Files of a multipart request, by field name.
pub(crate) type Files = HashMap<String, Upload>;

/// A file received in a multipart request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upload {
    /// The file name the client gave, if any.
    pub file_name: Option<String>,
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
}

/// A document or photo the bot sent (sendDocument, sendPhoto), as stored by the fake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The id Telegram would give the file (`doc<n>`), which sendDocument accepts again.
    pub file_id: String,
    pub file_name: Option<String>,
    pub mime_type: Option<String>,
    /// The uploaded bytes.
    pub bytes: Vec<u8>,
    /// Width and height of a photo (sendPhoto, a PNG); `None` for a document.
    pub photo: Option<(u32, u32)>,
}

/// A message in a chat, sent by the bot or injected as a user's.
#[derive(Debug, Clone, PartialEq)]
pub struct SentMessage {
    pub chat_id: i64,
    pub message_id: i32,
    /// `BOT_ID` for the bot's messages, else the user's id.
    pub from: i64,
    /// The text as sent (MarkdownV2 source when `parse_mode` is MarkdownV2); a document's caption.
    pub text: String,
    pub parse_mode: Option<String>,
    /// The text a user sees, after entity parsing.
    pub plain: String,
    pub entities: Vec<Entity>,
    pub reply_markup: Option<Markup>,
    pub disable_notification: bool,
    pub reply_to: Option<i32>,
    /// The forum topic (`message_thread_id`) of a message in a forum supergroup; `None` elsewhere (and in the
    /// General topic).
    pub thread: Option<i32>,
    /// Unix seconds.
    pub date: i64,
    pub edited: bool,
    /// Earlier texts (as sent), oldest first; one entry per editMessageText.
    pub history: Vec<String>,
    /// The file of a document or photo message (sendDocument, sendPhoto).
    pub document: Option<Document>,
}

impl SentMessage {
    /// Whether the bot sent it.
    #[must_use]
    pub fn from_bot(&self) -> bool {
        self.from == BOT_ID
    }

    /// The message as its reader sees it: plain text, then one line per row of buttons (`[A] [B]`).
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = match &self.document {
            Some(doc) => {
                let name = doc.file_name.as_deref().unwrap_or("file");
                let caption = if self.plain.is_empty() {
                    String::new()
                } else {
                    format!("\n{}", self.plain)
                };
                let icon = if doc.photo.is_some() { "🖼" } else { "📎" };
                format!("{icon} {name} ({} bytes){caption}", doc.bytes.len())
            }
            None => self.plain.clone(),
        };
        match &self.reply_markup {
            Some(Markup::Inline(rows)) => {
                for row in rows {
                    let labels: Vec<String> = row.iter().map(|b| format!("[{}]", b.text)).collect();
                    out.push('\n');
                    out.push_str(&labels.join(" "));
                }
            }
            Some(Markup::ForceReply { .. }) => out.push_str("\n(reply requested)"),
            _ => {}
        }
        out
    }

    /// The inline buttons, row by row (empty without an inline keyboard).
    #[must_use]
    pub fn buttons(&self) -> Vec<&Button> {
        self.reply_markup
            .as_ref()
            .map(Markup::buttons)
            .unwrap_or_default()
    }
}

/// A supergroup the fake knows.
#[derive(Debug, Clone, Default)]
pub(crate) struct Group {
    pub title: String,
    /// A forum: messages may go to topics (`message_thread_id`).
    pub forum: bool,
    /// Users in the group (they may post and tap there).
    pub members: BTreeSet<i64>,
    /// Forum topics: thread id → name.
    pub topics: BTreeMap<i32, String>,
    /// The bot was removed: every call for this chat is refused with 403.
    pub kicked: bool,
}

/// Telegram's answer to a bot that was removed from a supergroup.
pub const KICKED: &str = "Forbidden: bot was kicked from the supergroup chat";

impl Group {
    pub fn chat_json(&self, chat_id: i64) -> Value {
        let mut chat = json!({"id": chat_id, "type": "supergroup", "title": self.title});
        if self.forum {
            chat["is_forum"] = json!(true);
        }
        chat
    }
}

/// A failure to inject into the next calls of a method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// 429 with `parameters.retry_after`. The request has no effect.
    TooManyRequests { retry_after_secs: u32 },
    /// A 5xx status with a JSON error body. The request has no effect.
    ServerError(u16),
    /// The socket is closed without any response. The request has no effect.
    DropConnection,
    /// The request takes effect, but the answer comes only after this delay.
    Stall(Duration),
    /// 409 "Conflict: terminated by other getUpdates request". The request has no effect.
    Conflict,
    /// 401 "Unauthorized", as Telegram answers a token it does not know. The request has no effect.
    Unauthorized,
}

#[derive(Debug, Default)]
pub(crate) struct Chat {
    pub next_message_id: i32,
    pub messages: Vec<SentMessage>,
}

#[derive(Debug, Default)]
pub(crate) struct State {
    pub next_update_id: i32,
    pub updates: VecDeque<(i32, Value)>,
    /// Bumped by every getUpdates, so an older long poll knows it was superseded (409).
    pub poll_generation: u64,
    pub chats: HashMap<i64, Chat>,
    pub calls: Vec<Call>,
    /// Callback query id → answered?
    pub queries: HashMap<String, bool>,
    pub next_query_id: u64,
    pub answers: Vec<(String, Option<String>, bool)>,
    pub faults: HashMap<String, VecDeque<Fault>>,
    pub commands: Value,
    /// setChatMenuButton: chat id (None: the default for every chat) → the menu button as sent.
    pub menu_buttons: HashMap<Option<i64>, Value>,
    pub next_file_id: u64,
    /// Supergroups by chat id (negative), with their members and forum topics.
    pub groups: HashMap<i64, Group>,
}

pub(crate) fn now_unix() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| i64::try_from(d.as_secs()).unwrap_or(1))
        .max(1)
}

pub(crate) fn bot_user_json() -> Value {
    json!({"id": BOT_ID, "is_bot": true, "first_name": "Arbiter (fake)", "username": BOT_USERNAME})
}

pub(crate) fn user_json(user_id: i64) -> Value {
    json!({
        "id": user_id,
        "is_bot": false,
        "first_name": format!("User {user_id}"),
        "username": format!("user{user_id}"),
        "language_code": "en",
    })
}

fn private_chat_json(chat_id: i64) -> Value {
    json!({
        "id": chat_id,
        "type": "private",
        "first_name": format!("User {chat_id}"),
        "username": format!("user{chat_id}"),
    })
}

fn markup_json(markup: &Markup) -> Option<Value> {
    let Markup::Inline(rows) = markup else {
        return None;
    };
    let rows: Vec<Vec<Value>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|b| match (&b.callback_data, &b.url, &b.web_app) {
                    (Some(data), _, _) => json!({"text": b.text, "callback_data": data}),
                    (None, Some(url), _) => json!({"text": b.text, "url": url}),
                    (None, None, Some(url)) => json!({"text": b.text, "web_app": {"url": url}}),
                    (None, None, None) => json!({"text": b.text}),
                })
                .collect()
        })
        .collect();
    Some(json!({ "inline_keyboard": rows }))
}

fn entity_json(entity: &Entity) -> Value {
    use crate::telegram::markdown_check::EntityKind;
    let mut value =
        json!({"type": entity.kind.api_name(), "offset": entity.offset, "length": entity.length});
    match &entity.kind {
        EntityKind::Pre {
            language: Some(language),
        } => value["language"] = json!(language),
        EntityKind::TextLink { url } => value["url"] = json!(url),
        EntityKind::CustomEmoji { id } => value["custom_emoji_id"] = json!(id),
        _ => {}
    }
    value
}

impl State {
    /// The Bot API `Chat` object: a supergroup (a forum or not) for a group the fake knows, else a private chat.
    pub fn chat_json(&self, chat_id: i64) -> Value {
        match self.groups.get(&chat_id) {
            Some(group) => group.chat_json(chat_id),
            None => private_chat_json(chat_id),
        }
    }

    pub fn chat(&mut self, chat_id: i64) -> &mut Chat {
        self.chats.entry(chat_id).or_insert_with(|| Chat {
            next_message_id: 1,
            messages: Vec::new(),
        })
    }

    pub fn find(&self, chat_id: i64, message_id: i32) -> Option<&SentMessage> {
        self.chats
            .get(&chat_id)?
            .messages
            .iter()
            .find(|m| m.message_id == message_id)
    }

    pub fn find_mut(&mut self, chat_id: i64, message_id: i32) -> Option<&mut SentMessage> {
        self.chats
            .get_mut(&chat_id)?
            .messages
            .iter_mut()
            .find(|m| m.message_id == message_id)
    }

    /// Stores `message` with the chat's next message id; returns that id.
    pub fn store(&mut self, mut message: SentMessage) -> i32 {
        let chat = self.chat(message.chat_id);
        let id = chat.next_message_id;
        chat.next_message_id += 1;
        message.message_id = id;
        chat.messages.push(message);
        id
    }

    pub fn push_update(&mut self, kind: &str, payload: Value) {
        self.next_update_id += 1;
        let id = self.next_update_id;
        self.updates
            .push_back((id, json!({ "update_id": id, kind: payload })));
    }

    /// Queues a callback query from `user` on `message` (a `Message` object) in chat `chat`; returns its id.
    pub fn push_callback(&mut self, user: i64, chat: i64, message: Value, data: &str) -> String {
        self.next_query_id += 1;
        let id = format!("{}{:06}", user.unsigned_abs(), self.next_query_id);
        let query = json!({
            "id": id,
            "from": user_json(user),
            "message": message,
            "chat_instance": format!("ci{chat}"),
            "data": data,
        });
        self.queries.insert(id.clone(), false);
        self.push_update("callback_query", query);
        id
    }

    /// The Bot API `Message` object of a stored message.
    pub fn message_json(&self, message: &SentMessage) -> Value {
        let from = if message.from_bot() {
            bot_user_json()
        } else {
            user_json(message.from)
        };
        let mut value = json!({
            "message_id": message.message_id,
            "date": message.date,
            "chat": self.chat_json(message.chat_id),
            "from": from,
        });
        if let Some(thread) = message.thread {
            value["message_thread_id"] = json!(thread);
            value["is_topic_message"] = json!(true);
        }
        let entities: Vec<Value> = message.entities.iter().map(entity_json).collect();
        if let Some(doc) = &message.document {
            match doc.photo {
                Some((width, height)) => {
                    value["photo"] = json!([{
                        "file_id": doc.file_id,
                        "file_unique_id": format!("u{}", doc.file_id),
                        "width": width,
                        "height": height,
                        "file_size": doc.bytes.len(),
                    }]);
                }
                None => {
                    value["document"] = json!({
                        "file_id": doc.file_id,
                        "file_unique_id": format!("u{}", doc.file_id),
                        "file_name": doc.file_name,
                        "mime_type": doc.mime_type,
                        "file_size": doc.bytes.len(),
                    });
                }
            }
            if !message.plain.is_empty() {
                value["caption"] = json!(message.plain);
            }
            if !entities.is_empty() {
                value["caption_entities"] = json!(entities);
            }
        } else {
            value["text"] = json!(message.plain);
            if !entities.is_empty() {
                value["entities"] = json!(entities);
            }
        }
        if let Some(markup) = message.reply_markup.as_ref().and_then(markup_json) {
            value["reply_markup"] = markup;
        }
        if message.edited {
            value["edit_date"] = json!(now_unix());
        }
        let replied = message
            .reply_to
            .and_then(|id| self.find(message.chat_id, id));
        if let Some(replied) = replied {
            let mut inner = replied.clone();
            inner.reply_to = None;
            value["reply_to_message"] = self.message_json(&inner);
        }
        value
    }
}
