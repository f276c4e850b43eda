//! Fault injection and raw HTTP: what the daemon must survive, seen through a real `teloxide::Bot`.

#![allow(clippy::unwrap_used)] // main has clippy.toml allow-unwrap-in-tests; this branch predates it

use std::time::Duration;

use serde_json::Value;
use teloxide::prelude::*;
use teloxide::{ApiError, RequestError};

use super::tests::{OWNER, WAIT, api_error, raw_post, setup};
use super::*;

#[tokio::test]
async fn a_second_get_updates_ends_the_first_with_conflict() {
    let (fake, bot) = setup().await;
    let first = tokio::spawn({
        let bot = bot.clone();
        async move { bot.get_updates().timeout(10).await }
    });
    assert!(
        fake.wait_until(|f| f.calls_of("getUpdates").len() == 1, WAIT)
            .await
    );
    let second = tokio::spawn({
        let bot = bot.clone();
        async move { bot.get_updates().timeout(1).await }
    });
    assert_eq!(
        api_error(first.await.unwrap()),
        ApiError::TerminatedByOtherGetUpdates
    );
    assert!(second.await.unwrap().unwrap().is_empty());
    fake.inject("getUpdates", Fault::Conflict, 1);
    assert_eq!(
        api_error(bot.get_updates().await),
        ApiError::TerminatedByOtherGetUpdates
    );
}

#[tokio::test]
async fn too_many_requests_surfaces_as_retry_after() {
    let (fake, bot) = setup().await;
    fake.inject(
        "SENDMESSAGE",
        Fault::TooManyRequests {
            retry_after_secs: 7,
        },
        1,
    );
    let limited = bot.send_message(ChatId(OWNER), "hi").await;
    assert!(
        matches!(limited, Err(RequestError::RetryAfter(s)) if s.seconds() == 7),
        "{limited:?}"
    );
    assert!(
        fake.messages(OWNER).is_empty(),
        "a faulted request has no effect"
    );
    bot.send_message(ChatId(OWNER), "hi").await.unwrap();
    assert_eq!(fake.calls_of("sendMessage").len(), 2);
}

#[tokio::test]
async fn a_dropped_connection_is_a_network_error() {
    let (fake, bot) = setup().await;
    fake.inject("sendMessage", Fault::DropConnection, 1);
    let dropped = bot.send_message(ChatId(OWNER), "hi").await;
    assert!(
        matches!(dropped, Err(RequestError::Network(_))),
        "{dropped:?}"
    );
    assert!(fake.messages(OWNER).is_empty());
    bot.send_message(ChatId(OWNER), "hi").await.unwrap();
}

#[tokio::test]
async fn a_stalled_request_times_out_but_takes_effect() {
    let fake = FakeBot::start().await.unwrap();
    let client = teloxide::net::default_reqwest_settings()
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let bot = Bot::with_client(fake.token(), client).set_api_url(fake.api_url().parse().unwrap());
    fake.inject("sendMessage", Fault::Stall(Duration::from_secs(2)), 1);
    let stalled = bot.send_message(ChatId(OWNER), "hi").await;
    assert!(
        matches!(stalled, Err(RequestError::Network(_))),
        "{stalled:?}"
    );
    assert_eq!(fake.messages(OWNER).len(), 1);
}

#[tokio::test]
async fn raw_http_accepts_forms_and_reports_faults() {
    let (fake, _bot) = setup().await;
    let form = "chat_id=5&text=plain+text&reply_markup=%7B%22force_reply%22%3Atrue%7D";
    let (status, body) = raw_post(
        &fake,
        "/botANY/SENDMESSAGE",
        "application/x-www-form-urlencoded",
        form,
    )
    .await;
    assert_eq!((status, &body["ok"]), (200, &Value::Bool(true)), "{body}");
    let sent = fake.last_message(5).unwrap();
    assert_eq!(sent.text, "plain text");
    assert_eq!(
        sent.reply_markup,
        Some(Markup::ForceReply { placeholder: None })
    );

    let (status, body) = raw_post(&fake, "/botANY/frobnicate", "application/json", "{}").await;
    assert_eq!(
        (status, body["description"].as_str()),
        (404, Some("Not Found"))
    );

    fake.inject("getMe", Fault::ServerError(502), 1);
    let (status, body) = raw_post(&fake, "/botANY/getMe", "application/json", "{}").await;
    assert_eq!((status, body["error_code"].as_u64()), (502, Some(502)));
    let (status, body) = raw_post(&fake, "/botANY/getMe", "application/json", "{}").await;
    assert_eq!(
        (status, body["result"]["has_main_web_app"].as_bool()),
        (200, Some(false))
    );
}
