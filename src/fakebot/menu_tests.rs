//! Mini App pieces of the fake: web_app buttons and setChatMenuButton, driven by a real `teloxide::Bot`.

#![allow(clippy::unwrap_used)]

use serde_json::json;
use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup, MenuButton, WebAppInfo};

use super::tests::{OWNER, api_error, setup};

fn web_app(url: &str) -> WebAppInfo {
    WebAppInfo {
        url: url.parse().unwrap(),
    }
}

#[tokio::test]
async fn set_chat_menu_button_is_stored_per_chat_or_as_the_default() {
    let (fake, bot) = setup().await;
    assert_eq!(fake.menu_button(None), None);
    bot.set_chat_menu_button()
        .menu_button(MenuButton::WebApp {
            text: "Dashboard".into(),
            web_app: web_app("https://arbiter.example.org/"),
        })
        .await
        .unwrap();
    let dashboard = json!({"type": "web_app", "text": "Dashboard", "web_app": {"url": "https://arbiter.example.org/"}});
    assert_eq!(fake.menu_button(None), Some(dashboard.clone()));
    assert_eq!(fake.menu_button(Some(OWNER)), None);
    let got = bot
        .get_chat_menu_button()
        .chat_id(ChatId(OWNER))
        .await
        .unwrap();
    assert_eq!(
        got,
        MenuButton::WebApp {
            text: "Dashboard".into(),
            web_app: web_app("https://arbiter.example.org/")
        }
    );

    bot.set_chat_menu_button()
        .chat_id(ChatId(OWNER))
        .menu_button(MenuButton::Commands)
        .await
        .unwrap();
    assert_eq!(
        fake.menu_button(Some(OWNER)),
        Some(json!({"type": "commands"}))
    );
    assert_eq!(fake.menu_button(None), Some(dashboard));
    assert_eq!(
        bot.get_chat_menu_button()
            .chat_id(ChatId(OWNER))
            .await
            .unwrap(),
        MenuButton::Commands
    );

    // Like Telegram, a Mini App must be served over https.
    let refused = bot
        .set_chat_menu_button()
        .menu_button(MenuButton::WebApp {
            text: "Dashboard".into(),
            web_app: web_app("http://arbiter.example.org/"),
        })
        .await;
    refused_as_not_https(refused);
}

#[tokio::test]
async fn a_web_app_button_is_kept_and_must_be_https() {
    let (fake, bot) = setup().await;
    let markup = InlineKeyboardMarkup::new([[
        InlineKeyboardButton::callback("🔄 Refresh", "q0"),
        InlineKeyboardButton::web_app("🗂 Dashboard", web_app("https://arbiter.example.org/app")),
    ]]);
    let sent = bot
        .send_message(ChatId(OWNER), "Queue")
        .reply_markup(markup)
        .await
        .unwrap();
    let stored = fake.last_message(OWNER).unwrap();
    let dashboard = stored.buttons()[1].clone();
    assert_eq!(dashboard.text, "🗂 Dashboard");
    assert_eq!(
        dashboard.web_app.as_deref(),
        Some("https://arbiter.example.org/app")
    );
    assert_eq!(dashboard.callback_data, None);
    assert!(fake.tap_label(OWNER, sent.id.0, "🗂 Dashboard").is_err());
    // teloxide reads the button back from the stored message.
    let keyboard = sent.reply_markup().unwrap();
    assert_eq!(
        keyboard.inline_keyboard[0][1],
        InlineKeyboardButton::web_app("🗂 Dashboard", web_app("https://arbiter.example.org/app"))
    );

    let refused = bot
        .send_message(ChatId(OWNER), "Queue")
        .reply_markup(InlineKeyboardMarkup::new([[
            InlineKeyboardButton::web_app("🗂 Dashboard", web_app("http://127.0.0.1:8470/")),
        ]]))
        .await;
    refused_as_not_https(refused);
}

/// Telegram's refusal of a Mini App link that is not https.
fn refused_as_not_https(result: Result<impl std::fmt::Debug, teloxide::RequestError>) {
    let error = api_error(result).to_string();
    assert!(error.contains("Only HTTPS links are allowed"), "{error}");
}
