//! The Bot API methods the fake implements (all but the long-polling part of getUpdates).

use serde_json::{Value, json};

mod chats;
mod documents;

use documents::{send_document, send_photo};

use super::state::{
    BOT_ID, Button, Document, Files, Markup, SentMessage, State, bot_user_json, now_unix,
};
use crate::telegram::markdown_check::{Entity, parse_markdown_v2_entities, telegram_length};

/// Method names the fake knows, in Telegram's camelCase.
pub(crate) const METHODS: &[&str] = &[
    "getMe",
    "getUpdates",
    "deleteWebhook",
    "setMyCommands",
    "getMyCommands",
    "sendMessage",
    "sendDocument",
    "sendPhoto",
    "editMessageText",
    "editMessageReplyMarkup",
    "answerCallbackQuery",
    "deleteMessage",
    "sendChatAction",
    "setChatMenuButton",
    "getChatMenuButton",
];

const MAX_TEXT_UTF16: usize = 4096;
const MAX_BUTTONS: usize = 100;
const MAX_BUTTONS_PER_ROW: usize = 8;
const MAX_CALLBACK_DATA_BYTES: usize = 64;
pub(crate) const NOT_MODIFIED: &str = "message is not modified: specified new message content and reply markup are \
                                       exactly the same as a current content and reply markup of the message";
pub(crate) const INVALID_QUERY: &str =
    "query is too old and response timeout expired or query ID is invalid";

/// The canonical name of a method, matched case-insensitively.
pub(crate) fn canonical(name: &str) -> Option<&'static str> {
    METHODS
        .iter()
        .copied()
        .find(|m| m.eq_ignore_ascii_case(name))
}

/// A Telegram error response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApiFailure {
    pub code: u16,
    pub description: String,
    pub retry_after: Option<u32>,
}

impl ApiFailure {
    pub fn bad(reason: &str) -> Self {
        Self {
            code: 400,
            description: format!("Bad Request: {reason}"),
            retry_after: None,
        }
    }

    pub fn new(code: u16, description: &str) -> Self {
        Self {
            code,
            description: description.to_owned(),
            retry_after: None,
        }
    }
}

pub(super) type Reply = Result<Value, ApiFailure>;

/// A string parameter (numbers are accepted and stringified, as form bodies carry only strings).
pub(crate) fn str_param(params: &Value, key: &str) -> Option<String> {
    match params.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

pub(crate) fn int_param(params: &Value, key: &str) -> Option<i64> {
    match params.get(key)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

pub(super) fn bool_param(params: &Value, key: &str) -> bool {
    match params.get(key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s == "true",
        _ => false,
    }
}

/// A JSON-object parameter, which form bodies carry as a JSON string.
fn object_param(params: &Value, key: &str) -> Option<Value> {
    match params.get(key)? {
        Value::String(s) => serde_json::from_str(s).ok(),
        Value::Null => None,
        other => Some(other.clone()),
    }
}

pub(super) fn chat_id(params: &Value) -> Result<i64, ApiFailure> {
    int_param(params, "chat_id").ok_or_else(|| ApiFailure::bad("chat not found"))
}

fn message_id(params: &Value) -> Option<i32> {
    int_param(params, "message_id").and_then(|id| i32::try_from(id).ok())
}

/// Text as sent, its parse mode, the plain text and its entities.
pub(super) type Rendered = (String, Option<String>, String, Vec<Entity>);

/// Parses and checks `text` like Telegram: entities, emptiness, length.
fn render(params: &Value, too_long: &str) -> Result<Rendered, ApiFailure> {
    let text = str_param(params, "text").unwrap_or_default();
    let rendered = parse_entities(params, text)?;
    if rendered.2.trim().is_empty() {
        return Err(ApiFailure::bad("message text is empty"));
    }
    if telegram_length(&rendered.2) > MAX_TEXT_UTF16 {
        return Err(ApiFailure::bad(too_long));
    }
    Ok(rendered)
}

/// Parses `text` in the request's parse mode.
pub(super) fn parse_entities(params: &Value, text: String) -> Result<Rendered, ApiFailure> {
    let parse_mode = str_param(params, "parse_mode").filter(|m| !m.is_empty());
    let (plain, entities) = match parse_mode.as_deref() {
        Some(mode) if mode.eq_ignore_ascii_case("MarkdownV2") => {
            let parsed = parse_markdown_v2_entities(&text).map_err(|e| ApiFailure::bad(&e))?;
            (parsed.plain, parsed.entities)
        }
        _ => (text.clone(), Vec::new()),
    };
    Ok((text, parse_mode, plain, entities))
}

fn parse_button(value: &Value) -> Result<Button, ApiFailure> {
    let text = value
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let callback_data = value
        .get("callback_data")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let url = value.get("url").and_then(Value::as_str).map(str::to_owned);
    let web_app = match value.get("web_app") {
        Some(web_app) => Some(web_app_url(web_app)?),
        None => None,
    };
    if let Some(data) = &callback_data
        && (data.is_empty() || data.len() > MAX_CALLBACK_DATA_BYTES)
    {
        return Err(ApiFailure::bad("BUTTON_DATA_INVALID"));
    }
    if callback_data.is_none()
        && url.is_none()
        && web_app.is_none()
        && value.as_object().is_some_and(|o| o.len() <= 1)
    {
        return Err(ApiFailure::bad(
            "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard",
        ));
    }
    Ok(Button {
        text,
        callback_data,
        url,
        web_app,
    })
}

/// The URL of a `WebAppInfo`, which Telegram takes only over https.
fn web_app_url(web_app: &Value) -> Result<String, ApiFailure> {
    let url = web_app
        .get("url")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !url.starts_with("https://") || url.len() <= "https://".len() {
        return Err(ApiFailure::bad(&format!(
            "inline keyboard button Web App URL '{url}' is invalid: Only HTTPS links are allowed"
        )));
    }
    Ok(url.to_owned())
}

/// setChatMenuButton: stores the button for the chat, or as the default without `chat_id`.
fn set_chat_menu_button(state: &mut State, params: &Value) -> Reply {
    let chat = int_param(params, "chat_id");
    let button = object_param(params, "menu_button").unwrap_or_else(|| json!({"type": "default"}));
    match button.get("type").and_then(Value::as_str) {
        Some("default" | "commands") => {}
        Some("web_app") => {
            let text = button
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if text.trim().is_empty() {
                return Err(ApiFailure::bad("BUTTON_TEXT_INVALID"));
            }
            web_app_url(button.get("web_app").unwrap_or(&Value::Null))?;
        }
        _ => return Err(ApiFailure::bad("can't parse menu button JSON object")),
    }
    state.menu_buttons.insert(chat, button);
    Ok(json!(true))
}

/// getChatMenuButton: the chat's button, else the default one, else `default`.
fn get_chat_menu_button(state: &State, params: &Value) -> Reply {
    let chat = int_param(params, "chat_id");
    Ok(state
        .menu_buttons
        .get(&chat)
        .or_else(|| state.menu_buttons.get(&None))
        .cloned()
        .unwrap_or_else(|| json!({"type": "default"})))
}

/// Parses and checks `reply_markup` like Telegram: callback data size, button counts.
pub(super) fn parse_markup(params: &Value) -> Result<Option<Markup>, ApiFailure> {
    let Some(markup) = object_param(params, "reply_markup") else {
        return Ok(None);
    };
    let malformed = || ApiFailure::bad("can't parse reply keyboard markup JSON object");
    if let Some(rows) = markup.get("inline_keyboard") {
        let rows = rows.as_array().ok_or_else(malformed)?;
        let mut parsed = Vec::with_capacity(rows.len());
        let mut total = 0;
        for row in rows {
            let row = row.as_array().ok_or_else(malformed)?;
            total += row.len();
            if row.len() > MAX_BUTTONS_PER_ROW || total > MAX_BUTTONS {
                return Err(ApiFailure::bad("REPLY_MARKUP_TOO_LONG"));
            }
            parsed.push(
                row.iter()
                    .map(parse_button)
                    .collect::<Result<Vec<_>, _>>()?,
            );
        }
        return Ok(Some(Markup::Inline(parsed)));
    }
    if bool_param(&markup, "force_reply") {
        let placeholder = str_param(&markup, "input_field_placeholder");
        return Ok(Some(Markup::ForceReply { placeholder }));
    }
    Ok(Some(Markup::Other(markup)))
}

/// Runs every method but getUpdates against the state.
pub(crate) fn handle(state: &mut State, method: &str, params: &Value, files: &Files) -> Reply {
    match method {
        "getMe" => Ok(get_me()),
        "deleteWebhook" | "sendChatAction" => Ok(json!(true)),
        "setMyCommands" => {
            state.commands = object_param(params, "commands").unwrap_or_else(|| json!([]));
            Ok(json!(true))
        }
        "getMyCommands" => Ok(if state.commands.is_array() {
            state.commands.clone()
        } else {
            json!([])
        }),
        "sendMessage" => send_message(state, params),
        "sendDocument" => send_document(state, params, files),
        "sendPhoto" => send_photo(state, params, files),
        "editMessageText" => edit_message_text(state, params),
        "editMessageReplyMarkup" => edit_reply_markup(state, params),
        "answerCallbackQuery" => answer_callback_query(state, params),
        "deleteMessage" => delete_message(state, params),
        "setChatMenuButton" => set_chat_menu_button(state, params),
        "getChatMenuButton" => get_chat_menu_button(state, params),
        _ => Err(ApiFailure::new(404, "Not Found")),
    }
}

fn get_me() -> Value {
    let mut me = bot_user_json();
    me["can_join_groups"] = json!(true);
    me["can_read_all_group_messages"] = json!(false);
    me["supports_inline_queries"] = json!(false);
    me["can_connect_to_business"] = json!(false);
    me["has_main_web_app"] = json!(false);
    me
}

fn send_message(state: &mut State, params: &Value) -> Reply {
    let chat_id = chat_id(params)?;
    let rendered = render(params, "message is too long")?;
    store_sent(state, chat_id, params, rendered, None)
}

/// Stores a message the bot sent (text or caption already rendered; markup, reply and silence read from
/// `params`, checked like Telegram) and answers with it.
pub(super) fn store_sent(
    state: &mut State,
    chat_id: i64,
    params: &Value,
    (text, parse_mode, plain, entities): Rendered,
    document: Option<Document>,
) -> Reply {
    let thread = chats::check_send(state, chat_id, params)?;
    let reply_markup = parse_markup(params)?;
    let reply_to = reply_to(state, chat_id, params)?;
    let message = SentMessage {
        chat_id,
        message_id: 0,
        from: BOT_ID,
        text,
        parse_mode,
        plain,
        entities,
        reply_markup,
        disable_notification: bool_param(params, "disable_notification"),
        reply_to,
        thread,
        date: now_unix(),
        edited: false,
        history: Vec::new(),
        document,
    };
    let id = state.store(message);
    stored_json(state, chat_id, id)
}

/// The message a reply refers to, checked like Telegram (it must exist in the chat).
pub(super) fn reply_to(
    state: &State,
    chat_id: i64,
    params: &Value,
) -> Result<Option<i32>, ApiFailure> {
    let reply_to = object_param(params, "reply_parameters")
        .and_then(|p| message_id(&p))
        .or_else(|| int_param(params, "reply_to_message_id").and_then(|id| i32::try_from(id).ok()));
    if let Some(id) = reply_to
        && state.find(chat_id, id).is_none()
    {
        return Err(ApiFailure::bad("message to be replied not found"));
    }
    Ok(reply_to)
}

pub(super) fn stored_json(state: &State, chat_id: i64, message_id: i32) -> Reply {
    let message = state
        .find(chat_id, message_id)
        .ok_or_else(|| ApiFailure::bad("message to edit not found"))?;
    Ok(state.message_json(message))
}

/// The bot's own message that an edit targets.
fn editable<'a>(state: &'a mut State, params: &Value) -> Result<&'a mut SentMessage, ApiFailure> {
    if params.get("inline_message_id").is_some() {
        return Err(ApiFailure::bad("message to edit not found"));
    }
    let chat_id = chat_id(params)?;
    chats::check_member(state, chat_id)?;
    let id = message_id(params).ok_or_else(|| ApiFailure::bad("message to edit not found"))?;
    let message = state
        .find_mut(chat_id, id)
        .ok_or_else(|| ApiFailure::bad("message to edit not found"))?;
    if !message.from_bot() {
        return Err(ApiFailure::bad("message can't be edited"));
    }
    Ok(message)
}

fn edit_message_text(state: &mut State, params: &Value) -> Reply {
    let (text, parse_mode, plain, entities) = render(params, "MESSAGE_TOO_LONG")?;
    // Like Telegram: an edit without reply_markup removes the inline keyboard.
    let reply_markup = parse_markup(params)?;
    let message = editable(state, params)?;
    if message.document.is_some() {
        return Err(ApiFailure::bad("there is no text in the message to edit"));
    }
    if message.plain == plain
        && message.entities == entities
        && message.reply_markup == reply_markup
    {
        return Err(ApiFailure::bad(NOT_MODIFIED));
    }
    let previous = std::mem::replace(&mut message.text, text);
    message.history.push(previous);
    message.parse_mode = parse_mode;
    message.plain = plain;
    message.entities = entities;
    message.reply_markup = reply_markup;
    message.edited = true;
    let (chat_id, id) = (message.chat_id, message.message_id);
    stored_json(state, chat_id, id)
}

fn edit_reply_markup(state: &mut State, params: &Value) -> Reply {
    let reply_markup = parse_markup(params)?;
    let message = editable(state, params)?;
    if message.reply_markup == reply_markup {
        return Err(ApiFailure::bad(NOT_MODIFIED));
    }
    message.reply_markup = reply_markup;
    message.edited = true;
    let (chat_id, id) = (message.chat_id, message.message_id);
    stored_json(state, chat_id, id)
}

fn answer_callback_query(state: &mut State, params: &Value) -> Reply {
    let id = str_param(params, "callback_query_id").unwrap_or_default();
    match state.queries.get_mut(&id) {
        Some(answered @ false) => *answered = true,
        _ => return Err(ApiFailure::bad(INVALID_QUERY)),
    }
    let text = str_param(params, "text");
    state
        .answers
        .push((id, text, bool_param(params, "show_alert")));
    Ok(json!(true))
}

fn delete_message(state: &mut State, params: &Value) -> Reply {
    let chat_id = chat_id(params)?;
    let id = message_id(params).ok_or_else(|| ApiFailure::bad("message to delete not found"))?;
    let chat = state.chat(chat_id);
    let before = chat.messages.len();
    chat.messages.retain(|m| m.message_id != id);
    if chat.messages.len() == before {
        return Err(ApiFailure::bad("message to delete not found"));
    }
    Ok(json!(true))
}
