//! Telegram calls with retries: 429 (retry_after), 5xx and network errors are retried for every method, so a
//! flaky API slows the daemon down but never stops it.

use std::future::Future;
use std::time::Duration;

use teloxide::prelude::*;
use teloxide::types::{
    BotCommand, ChatId, ForceReply, InlineKeyboardButton, InlineKeyboardMarkup, InputFile,
    MenuButton, MessageId, ParseMode, ReplyMarkup, WebAppInfo,
};
use teloxide::{ApiError, RequestError};

use crate::telegram::views::View;

/// How hard a call is retried.
#[derive(Debug, Clone, Copy)]
pub enum Patience {
    /// A reply to something the owner just did: a few tries within about half a minute.
    Interactive,
    /// Announcements and start-up calls: keep trying until it goes through or the daemon stops.
    Persistent,
}

impl Patience {
    fn attempts(self) -> usize {
        match self {
            Patience::Interactive => 6,
            Patience::Persistent => usize::MAX,
        }
    }
}

/// True for failures that may go away by themselves: rate limits, server errors, network trouble.
#[must_use]
pub fn is_transient(e: &RequestError) -> bool {
    match e {
        RequestError::RetryAfter(_)
        | RequestError::Network(_)
        | RequestError::Io(_)
        | RequestError::InvalidJson { .. } => true,
        RequestError::Api(ApiError::Unknown(desc)) => {
            let d = desc.to_ascii_lowercase();
            [
                "internal server error",
                "bad gateway",
                "gateway",
                "service unavailable",
                "too many requests",
                "conflict",
            ]
            .iter()
            .any(|m| d.contains(m))
        }
        RequestError::Api(_) | RequestError::MigrateToChatId(_) => false,
    }
}

/// "message is not modified" means the message already shows what we wanted: success.
#[must_use]
pub fn is_not_modified(e: &RequestError) -> bool {
    match e {
        RequestError::Api(ApiError::MessageNotModified) => true,
        RequestError::Api(ApiError::Unknown(d)) => d.contains("message is not modified"),
        _ => false,
    }
}

/// Runs `call` until it succeeds, fails for good, or runs out of `patience`; backs off between tries.
pub async fn retry<T, F, Fut>(
    what: &str,
    patience: Patience,
    mut call: F,
) -> Result<T, RequestError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, RequestError>>,
{
    let mut delay = Duration::from_millis(200);
    let mut attempt = 0;
    loop {
        attempt += 1;
        match call().await {
            Ok(v) => return Ok(v),
            Err(e) if is_transient(&e) && attempt < patience.attempts() => {
                let wait = match &e {
                    RequestError::RetryAfter(s) => s.duration().max(Duration::from_millis(100)),
                    _ => delay,
                };
                tracing::warn!(call = what, attempt, error = %e, wait_ms = wait.as_millis() as u64, "Telegram call failed; retrying");
                tokio::time::sleep(wait).await;
                delay = (delay * 2).min(Duration::from_secs(30));
            }
            Err(e) => return Err(e),
        }
    }
}

/// The inline keyboard (or force-reply) of a view, as teloxide wants it.
#[must_use]
pub fn markup(view: &View) -> Option<ReplyMarkup> {
    if view.force_reply {
        return Some(ReplyMarkup::ForceReply(ForceReply::new()));
    }
    if view.keyboard.is_empty() {
        return None;
    }
    Some(ReplyMarkup::InlineKeyboard(inline_keyboard(view)))
}

fn inline_keyboard(view: &View) -> InlineKeyboardMarkup {
    InlineKeyboardMarkup::new(view.keyboard.iter().map(|row| {
        row.iter()
            .map(|b| match (&b.web_app, &b.url) {
                (Some(url), _) => {
                    InlineKeyboardButton::web_app(b.text.clone(), WebAppInfo { url: url.clone() })
                }
                (None, Some(url)) => InlineKeyboardButton::url(b.text.clone(), url.clone()),
                (None, None) => InlineKeyboardButton::callback(b.text.clone(), b.data.encode()),
            })
            .collect::<Vec<_>>()
    }))
}

/// The daemon's Telegram client.
#[derive(Clone)]
pub struct Api {
    pub bot: Bot,
}

/// The HTTP client could not be built (TLS set-up).
#[derive(Debug, thiserror::Error)]
#[error("can't build the HTTP client: {0}")]
pub struct ClientError(String);

impl Api {
    /// The client for the bot with `token` at `api_url` (`None`: Telegram's), each call within `timeout` (the
    /// long poll adds its own). The token is exposed here only, to the HTTP client.
    pub fn new(
        token: &crate::config::BotToken,
        api_url: Option<&url::Url>,
        timeout: Duration,
    ) -> Result<Api, ClientError> {
        let client = teloxide::net::default_reqwest_settings()
            .timeout(timeout)
            .build()
            .map_err(|e| ClientError(e.to_string()))?;
        let mut bot = Bot::with_client(token.expose(), client);
        if let Some(url) = api_url {
            bot = bot.set_api_url(url.clone());
        }
        Ok(Api { bot })
    }

    /// Sends a view as a new message; returns its id.
    pub async fn send(
        &self,
        chat: ChatId,
        view: &View,
        silent: bool,
        patience: Patience,
    ) -> Result<MessageId, RequestError> {
        self.send_in(chat, None, view, silent, patience).await
    }

    /// Sends a view as a new message in reply to message `to` of the same chat (sent anyway if that one is
    /// gone); returns its id.
    pub async fn send_reply(
        &self,
        chat: ChatId,
        view: &View,
        silent: bool,
        patience: Patience,
        to: MessageId,
    ) -> Result<MessageId, RequestError> {
        retry("sendMessage", patience, || {
            let mut req = self
                .bot
                .send_message(chat, view.text.clone())
                .parse_mode(ParseMode::MarkdownV2)
                .reply_parameters(
                    teloxide::types::ReplyParameters::new(to).allow_sending_without_reply(),
                );
            if let Some(m) = markup(view) {
                req = req.reply_markup(m);
            }
            if silent {
                req = req.disable_notification(true);
            }
            async move { req.await.map(|m| m.id) }
        })
        .await
    }

    /// Sends a view as a new message into forum topic `thread` of a group (`None`: the chat itself, or a
    /// forum's General topic); returns its id.
    pub async fn send_in(
        &self,
        chat: ChatId,
        thread: Option<i32>,
        view: &View,
        silent: bool,
        patience: Patience,
    ) -> Result<MessageId, RequestError> {
        retry("sendMessage", patience, || {
            let mut req = self
                .bot
                .send_message(chat, view.text.clone())
                .parse_mode(ParseMode::MarkdownV2);
            if let Some(thread) = thread {
                req = req.message_thread_id(teloxide::types::ThreadId(MessageId(thread)));
            }
            if let Some(m) = markup(view) {
                req = req.reply_markup(m);
            }
            if silent {
                req = req.disable_notification(true);
            }
            async move { req.await.map(|m| m.id) }
        })
        .await
    }

    /// Sends `bytes` as a document named `file_name`, with a MarkdownV2 `caption`; returns its id.
    pub async fn send_document(
        &self,
        chat: ChatId,
        file_name: &str,
        bytes: Vec<u8>,
        caption: &str,
    ) -> Result<MessageId, RequestError> {
        retry("sendDocument", Patience::Interactive, || {
            let file = InputFile::memory(bytes.clone()).file_name(file_name.to_owned());
            let req = self
                .bot
                .send_document(chat, file)
                .caption(caption.to_owned())
                .parse_mode(ParseMode::MarkdownV2);
            async move { req.await.map(|m| m.id) }
        })
        .await
    }

    /// Sends `png` as a photo with a plain-text `caption`; returns its id.
    pub async fn send_photo(
        &self,
        chat: ChatId,
        png: Vec<u8>,
        caption: &str,
    ) -> Result<MessageId, RequestError> {
        retry("sendPhoto", Patience::Interactive, || {
            let file = InputFile::memory(png.clone()).file_name("stats.png");
            let req = self.bot.send_photo(chat, file).caption(caption.to_owned());
            async move { req.await.map(|m| m.id) }
        })
        .await
    }

    /// Replaces a message's text and buttons with a view ("not modified" counts as done).
    pub async fn edit(
        &self,
        chat: ChatId,
        message: MessageId,
        view: &View,
    ) -> Result<(), RequestError> {
        let result = retry("editMessageText", Patience::Interactive, || {
            let mut req = self
                .bot
                .edit_message_text(chat, message, view.text.clone())
                .parse_mode(ParseMode::MarkdownV2);
            if !view.force_reply && !view.keyboard.is_empty() {
                req = req.reply_markup(inline_keyboard(view));
            }
            async move { req.await.map(|_| ()) }
        })
        .await;
        match result {
            Err(e) if is_not_modified(&e) => Ok(()),
            other => other,
        }
    }

    /// Answers a callback query, with an alert text when something went wrong.
    pub async fn answer_callback(
        &self,
        id: &str,
        text: Option<&str>,
        alert: bool,
    ) -> Result<(), RequestError> {
        retry("answerCallbackQuery", Patience::Interactive, || {
            let mut req = self
                .bot
                .answer_callback_query(teloxide::types::CallbackQueryId(id.to_owned()));
            if let Some(t) = text {
                req = req.text(t.to_owned()).show_alert(alert);
            }
            async move { req.await.map(|_| ()) }
        })
        .await
    }

    /// Makes the bot's menu button (the default for every private chat) open the dashboard as a Mini App.
    pub async fn set_dashboard_menu_button(
        &self,
        dashboard: &url::Url,
    ) -> Result<(), RequestError> {
        let button = MenuButton::WebApp {
            text: "Dashboard".to_owned(),
            web_app: WebAppInfo {
                url: dashboard.clone(),
            },
        };
        retry("setChatMenuButton", Patience::Persistent, || {
            let req = self.bot.set_chat_menu_button().menu_button(button.clone());
            async move { req.await.map(|_| ()) }
        })
        .await
    }

    /// Registers the bot's commands in Telegram's menu.
    pub async fn set_commands(&self) -> Result<(), RequestError> {
        let commands: Vec<BotCommand> = crate::telegram::commands::COMMANDS
            .iter()
            .map(|(name, about, _)| BotCommand::new(*name, *about))
            .collect();
        retry("setMyCommands", Patience::Persistent, || {
            let req = self.bot.set_my_commands(commands.clone());
            async move { req.await.map(|_| ()) }
        })
        .await
    }
}
