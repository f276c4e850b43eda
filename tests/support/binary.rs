//! The real `arbiter run` binary against the fake Bot API.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::SystemTime;

use arbiter_zebu::fakebot::FakeBot;

use super::daemon::WAIT;

/// `arbiter run --config CONFIG`, its output discarded.
pub fn spawn_daemon(config: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["run", "--config"])
        .arg(config)
        .env_remove("ARBITER_TELEGRAM_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn arbiter run")
}

/// Waits until the daemon started at `since` long-polls (it has done its start-up work, the dashboard included).
pub async fn wait_polling(fake: &FakeBot, since: SystemTime) {
    let polled = fake
        .wait_for_call(
            "getUpdates",
            |c| c.at >= since && c.params["offset"] != -1,
            WAIT,
        )
        .await;
    assert!(polled.is_some(), "the daemon did not start polling");
}
