//! The fake driven by a real `teloxide::Bot`, plus raw HTTP for what teloxide cannot send.

#![allow(clippy::unwrap_used)] // main has clippy.toml allow-unwrap-in-tests; this branch predates it

use std::time::Duration;

use serde_json::Value;
use teloxide::prelude::*;
use teloxide::types::{
    InlineKeyboardButton, InlineKeyboardMarkup, MessageEntityKind, MessageId, ParseMode, UpdateKind,
};
use teloxide::{ApiError, RequestError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::*;

pub(super) const OWNER: i64 = 42;
pub(super) const WAIT: Duration = Duration::from_secs(5);

pub(super) async fn setup() -> (FakeBot, Bot) {
    let fake = FakeBot::start().await.unwrap();
    let bot = Bot::new(fake.token()).set_api_url(fake.api_url().parse().unwrap());
    (fake, bot)
}

fn keyboard(data: &[&str]) -> InlineKeyboardMarkup {
    InlineKeyboardMarkup::new([data
        .iter()
        .map(|d| InlineKeyboardButton::callback(format!("btn {d}"), *d))])
}

async fn send_with_keyboard(bot: &Bot, data: &[&str]) -> Message {
    bot.send_message(ChatId(OWNER), "*Pick* one\\.")
        .parse_mode(ParseMode::MarkdownV2)
        .reply_markup(keyboard(data))
        .await
        .unwrap()
}

/// POSTs with a raw socket; returns the status and the JSON body.
pub(super) async fn raw_post(
    fake: &FakeBot,
    path: &str,
    content_type: &str,
    body: &str,
) -> (u16, Value) {
    let mut stream = TcpStream::connect(fake.addr).await.unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

pub(super) fn api_error(result: Result<impl std::fmt::Debug, RequestError>) -> ApiError {
    match result {
        Err(RequestError::Api(error)) => error,
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn get_me_deserializes_as_teloxide_me() {
    let (fake, bot) = setup().await;
    let me = bot.get_me().await.unwrap();
    assert_eq!(me.username(), BOT_USERNAME);
    assert_eq!(i64::try_from(me.id.0).unwrap(), BOT_ID);
    assert!(me.is_bot);
    assert_eq!(fake.calls_of("getMe").len(), 1);
    assert_eq!(
        fake.calls()[0].method,
        "getMe",
        "PascalCase path logged as camelCase"
    );
}

#[tokio::test]
async fn send_message_round_trips_into_a_teloxide_message() {
    let (fake, bot) = setup().await;
    let message = send_with_keyboard(&bot, &["a:1", "a:2"]).await;
    assert_eq!(message.text(), Some("Pick one."));
    assert!(message.chat.is_private());
    assert_eq!(message.from.as_ref().map(|u| u.is_bot), Some(true));
    assert!(message.date.timestamp() > 0);
    let entities = message.entities().unwrap();
    assert_eq!(entities.len(), 1);
    assert_eq!(entities[0].kind, MessageEntityKind::Bold);
    let markup = message.reply_markup().unwrap();
    assert_eq!(markup.inline_keyboard[0].len(), 2);

    let stored = fake.last_message(OWNER).unwrap();
    assert_eq!(stored.message_id, message.id.0);
    assert_eq!(stored.text, "*Pick* one\\.");
    assert_eq!(stored.plain, "Pick one.");
    assert_eq!(stored.parse_mode.as_deref(), Some("MarkdownV2"));
    let data: Vec<_> = stored
        .buttons()
        .iter()
        .map(|b| b.callback_data.clone().unwrap())
        .collect();
    assert_eq!(data, ["a:1", "a:2"]);
}

#[tokio::test]
async fn a_tap_arrives_as_an_accessible_callback_query() {
    let (fake, bot) = setup().await;
    let message = send_with_keyboard(&bot, &["a:1"]).await;
    let query_id = fake.tap_label(OWNER, message.id.0, "btn a:1").unwrap();
    assert!(fake.tap(OWNER, message.id.0, "forged").is_err());
    assert!(fake.tap(OWNER, 999, "a:1").is_err());

    let updates = bot.get_updates().timeout(1).await.unwrap();
    assert_eq!(updates.len(), 1);
    let UpdateKind::CallbackQuery(query) = &updates[0].kind else {
        panic!("{:?}", updates[0].kind)
    };
    assert_eq!(query.id.0, query_id);
    assert_eq!(query.data.as_deref(), Some("a:1"));
    assert_eq!(query.from.id.0, 42);
    let tapped = query.regular_message().expect("message is accessible");
    assert_eq!(tapped.id, message.id);
    assert_eq!(tapped.reply_markup(), message.reply_markup());

    bot.answer_callback_query(query.id.clone())
        .text("Saved")
        .await
        .unwrap();
    assert_eq!(
        fake.callback_answers(),
        vec![(query_id, Some("Saved".to_owned()), false)]
    );
    // Telegram's text says "query ID", which teloxide's `InvalidQueryId` ("query id") does not match.
    let again = api_error(bot.answer_callback_query(query.id.clone()).await);
    assert!(again.to_string().contains("query is too old"), "{again:?}");
}

#[tokio::test]
async fn a_forged_tap_on_an_unknown_message_is_inaccessible() {
    let (fake, bot) = setup().await;
    fake.tap_raw(OWNER, 77, "../../etc/passwd");
    let updates = bot.get_updates().await.unwrap();
    let UpdateKind::CallbackQuery(query) = &updates[0].kind else {
        panic!("{:?}", updates[0].kind)
    };
    assert!(query.regular_message().is_none());
    assert_eq!(query.data.as_deref(), Some("../../etc/passwd"));
}

#[tokio::test]
async fn long_polling_waits_for_updates_and_honours_offsets() {
    let (fake, bot) = setup().await;
    let poll = tokio::spawn({
        let bot = bot.clone();
        async move { bot.get_updates().timeout(10).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = std::time::Instant::now();
    let text_id = fake.send_text(OWNER, "hello");
    let updates = poll.await.unwrap().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "answered as soon as the update arrived"
    );
    let UpdateKind::Message(message) = &updates[0].kind else {
        panic!("{:?}", updates[0].kind)
    };
    assert_eq!((message.id.0, message.text()), (text_id, Some("hello")));

    let reply_id = fake.send_reply(OWNER, "as a reply", text_id);
    let next = i32::try_from(updates[0].id.0).unwrap() + 1;
    let updates = bot.get_updates().offset(next).await.unwrap();
    assert_eq!(
        updates.len(),
        1,
        "the first update was confirmed by the offset"
    );
    let UpdateKind::Message(reply) = &updates[0].kind else {
        panic!("{:?}", updates[0].kind)
    };
    assert_eq!(reply.id.0, reply_id);
    assert_eq!(reply.reply_to_message().map(|m| m.id.0), Some(text_id));

    fake.send_text(OWNER, "two");
    fake.send_text(OWNER, "three");
    let updates = bot.get_updates().offset(-1).await.unwrap();
    assert_eq!(updates.len(), 1);
    let UpdateKind::Message(last) = &updates[0].kind else {
        panic!("{:?}", updates[0].kind)
    };
    assert_eq!(last.text(), Some("three"));
    assert_eq!(
        fake.pending_updates(),
        1,
        "a negative offset forgets all earlier updates"
    );

    let started = std::time::Instant::now();
    let last_id = i32::try_from(updates[0].id.0).unwrap();
    let empty = bot
        .get_updates()
        .offset(last_id + 1)
        .timeout(1)
        .await
        .unwrap();
    assert!(empty.is_empty());
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "waited for the timeout"
    );
}

#[tokio::test]
async fn edits_follow_telegram_rules() {
    let (fake, bot) = setup().await;
    let message = send_with_keyboard(&bot, &["a:1"]).await;
    let same = bot
        .edit_message_text(ChatId(OWNER), message.id, "*Pick* one\\.")
        .parse_mode(ParseMode::MarkdownV2)
        .reply_markup(keyboard(&["a:1"]))
        .await;
    assert_eq!(api_error(same), ApiError::MessageNotModified);

    let edited = bot
        .edit_message_text(ChatId(OWNER), message.id, "Answered")
        .await
        .unwrap();
    assert_eq!(edited.text(), Some("Answered"));
    assert!(
        edited.reply_markup().is_none(),
        "an edit without reply_markup drops the keyboard"
    );
    let stored = fake.last_message(OWNER).unwrap();
    assert!(stored.edited);
    assert_eq!(stored.history, ["*Pick* one\\."]);

    let markup = bot
        .edit_message_reply_markup(ChatId(OWNER), message.id)
        .reply_markup(keyboard(&["b"]))
        .await;
    assert_eq!(
        markup
            .unwrap()
            .reply_markup()
            .map(|m| m.inline_keyboard.len()),
        Some(1)
    );

    let missing = bot
        .edit_message_text(ChatId(OWNER), MessageId(999), "x")
        .await;
    assert_eq!(api_error(missing), ApiError::MessageToEditNotFound);
    let user_message = MessageId(fake.send_text(OWNER, "mine"));
    let not_ours = bot
        .edit_message_text(ChatId(OWNER), user_message, "x")
        .await;
    assert_eq!(api_error(not_ours), ApiError::MessageCantBeEdited);

    bot.delete_message(ChatId(OWNER), message.id).await.unwrap();
    assert!(fake.messages(OWNER).is_empty());
    assert_eq!(
        api_error(bot.delete_message(ChatId(OWNER), message.id).await),
        ApiError::MessageToDeleteNotFound
    );
}

#[tokio::test]
async fn bad_messages_are_rejected_like_telegram_does() {
    let (fake, bot) = setup().await;
    let long_data = "x".repeat(65);
    let too_long_data = bot
        .send_message(ChatId(OWNER), "hi")
        .reply_markup(keyboard(&[&long_data]))
        .await;
    assert_eq!(api_error(too_long_data), ApiError::ButtonDataInvalid);
    let sixty_four = "y".repeat(64);
    bot.send_message(ChatId(OWNER), "hi")
        .reply_markup(keyboard(&[&sixty_four]))
        .await
        .unwrap();

    let nine: Vec<String> = (0..9).map(|i| i.to_string()).collect();
    let nine: Vec<&str> = nine.iter().map(String::as_str).collect();
    let crowded = bot
        .send_message(ChatId(OWNER), "hi")
        .reply_markup(keyboard(&nine))
        .await;
    assert!(
        api_error(crowded)
            .to_string()
            .contains("REPLY_MARKUP_TOO_LONG")
    );

    let markdown = bot
        .send_message(ChatId(OWNER), "Version 1.2")
        .parse_mode(ParseMode::MarkdownV2)
        .await;
    let ApiError::CantParseEntities(description) = api_error(markdown) else {
        panic!("wrong error")
    };
    assert!(
        description.contains("Character '.' is reserved"),
        "{description}"
    );
    // Without a parse mode the same text is fine.
    bot.send_message(ChatId(OWNER), "Version 1.2")
        .await
        .unwrap();

    let empty = bot
        .send_message(ChatId(OWNER), "**")
        .parse_mode(ParseMode::MarkdownV2)
        .await;
    assert_eq!(api_error(empty), ApiError::MessageTextIsEmpty);
    let longest = "é".repeat(4096);
    bot.send_message(ChatId(OWNER), longest.clone())
        .await
        .unwrap();
    let too_long = bot.send_message(ChatId(OWNER), format!("{longest}!")).await;
    assert_eq!(api_error(too_long), ApiError::MessageIsTooLong);
    assert_eq!(fake.messages(OWNER).len(), 3);
}

#[tokio::test]
async fn waiters_wake_on_state_changes() {
    let (fake, bot) = setup().await;
    let send = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        bot.send_message(ChatId(OWNER), "later").await
    });
    let call = fake
        .wait_for_call("sendMessage", |c| c.params["text"] == "later", WAIT)
        .await;
    assert_eq!(call.map(|c| c.method), Some("sendMessage".to_owned()));
    assert!(
        fake.wait_until(|f| f.last_message(OWNER).is_some(), WAIT)
            .await
    );
    send.await.unwrap().unwrap();
    let never = fake
        .wait_for_call("deleteMessage", |_| true, Duration::from_millis(50))
        .await;
    assert!(never.is_none());
}

#[tokio::test]
async fn commands_are_stored() {
    let (fake, bot) = setup().await;
    let commands = [teloxide::types::BotCommand::new("queue", "Show the queue")];
    bot.set_my_commands(commands).await.unwrap();
    assert_eq!(fake.commands()[0]["command"], "queue");
    assert_eq!(bot.get_my_commands().await.unwrap()[0].command, "queue");
    bot.delete_webhook().await.unwrap();
    bot.send_chat_action(ChatId(OWNER), teloxide::types::ChatAction::Typing)
        .await
        .unwrap();
}
