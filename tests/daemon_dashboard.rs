//! The dashboard as a Telegram Mini App: with an https dashboard URL the daemon sets the bot's menu button to it
//! and the queue carries a `🗂 Dashboard` web_app button; without one (or with plain http) neither appears.

use serde_json::json;

use crate::support::daemon::{OWNER, Running, WAIT, settings};
use crate::support::{TempQueue, plan_with};
use arbiter_zebu::fakebot::FakeBot;

async fn start(dashboard_url: Option<&str>) -> Running {
    let fake = FakeBot::start().await.unwrap();
    let queue = TempQueue::new();
    queue.drop_plan("tester-plan-p1.md", &plan_with("p1", "s", 1));
    let mut s = settings(&fake, &queue);
    s.dashboard_url = dashboard_url.map(str::to_owned);
    Running::start_with(fake, queue, s).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_dashboard_is_the_menu_button_and_a_queue_button() {
    let d = start(Some("https://arbiter.example.org/")).await;
    let set = d
        .fake
        .wait_for_call("setChatMenuButton", |_| true, WAIT)
        .await;
    assert!(set.is_some(), "no setChatMenuButton");
    assert_eq!(
        d.fake.menu_button(None),
        Some(
            json!({"type": "web_app", "text": "Dashboard", "web_app": {"url": "https://arbiter.example.org/"}})
        )
    );

    d.fake.send_text(OWNER, "/queue");
    let queue = d.wait_message(|m| m.plain.contains("Decision Queue")).await;
    let rows = match queue.reply_markup {
        Some(arbiter_zebu::fakebot::Markup::Inline(rows)) => rows,
        other => panic!("no inline keyboard: {other:?}"),
    };
    let last: Vec<(&str, Option<&str>)> = rows
        .last()
        .unwrap()
        .iter()
        .map(|b| (b.text.as_str(), b.web_app.as_deref()))
        .collect();
    assert_eq!(
        last,
        [
            ("🔄 Refresh", None),
            ("🗂 Dashboard", Some("https://arbiter.example.org/"))
        ]
    );
    // The rest of the queue still works: the plan opens.
    d.tap(queue.message_id, "1").await;
    d.wait_message(|m| m.message_id == queue.message_id && m.plain.contains("📄 Plan p1"))
        .await;
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_https_dashboard_there_is_no_mini_app() {
    for url in [None, Some("http://127.0.0.1:8470/"), Some("not a url")] {
        let d = start(url).await;
        d.fake.send_text(OWNER, "/queue");
        let queue = d.wait_message(|m| m.plain.contains("Decision Queue")).await;
        let labels: Vec<&str> = queue.buttons().iter().map(|b| b.text.as_str()).collect();
        assert_eq!(labels, ["1", "🔄 Refresh"], "{url:?}");
        assert!(queue.buttons().iter().all(|b| b.web_app.is_none()));
        // The menu button would be set at start-up, long before the answer to /queue: none was.
        assert!(d.fake.calls_of("setChatMenuButton").is_empty(), "{url:?}");
        assert_eq!(d.fake.menu_button(None), None);
        d.stop().await;
    }
}
