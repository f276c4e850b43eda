//! API faults and hostile input: the daemon keeps polling, delivers what it owes, and never leaks the token.

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use arbiter_zebu::fakebot::{FakeBot, Fault};

use crate::support::daemon::{OWNER, Running, WAIT};
use crate::support::{SPEC_EXAMPLE, TempQueue, plan_with};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_faults_never_make_the_daemon_deaf() {
    let d = Running::start(TempQueue::new()).await;
    // getUpdates: another poller (409) for a while, dropped connections, one stall past the client timeout.
    d.fake.inject("getUpdates", Fault::Conflict, 4);
    d.fake.inject("getUpdates", Fault::DropConnection, 2);
    d.fake
        .inject("getUpdates", Fault::Stall(Duration::from_secs(6)), 1);
    // sendMessage: rate limited, a bad gateway, a dropped connection.
    d.fake.inject(
        "sendMessage",
        Fault::TooManyRequests {
            retry_after_secs: 1,
        },
        2,
    );
    d.fake.inject("sendMessage", Fault::ServerError(502), 1);
    d.fake.inject("sendMessage", Fault::DropConnection, 1);

    d.queue.drop_plan("p.md", SPEC_EXAMPLE);
    d.fake.send_text(OWNER, "/start");
    // Everything owed is delivered once the API behaves: the announcement and the queue view.
    d.wait_message(|m| {
        m.plain.contains("API Design Decisions") && !m.plain.contains("Decision Queue")
    })
    .await;
    let queue = d.wait_message(|m| m.plain.contains("Decision Queue")).await;
    // And the daemon still works normally afterwards.
    d.tap(queue.message_id, "1").await;
    d.wait_message(|m| m.message_id == queue.message_id && m.plain.contains("📄"))
        .await;
    d.queue.drop_plan("q.md", &plan_with("later", "s", 1));
    d.wait_message(|m| m.plain.contains("Plan later")).await;
    assert!(!d.task.is_finished(), "the daemon exited");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_and_random_callback_data_from_the_owner_change_nothing() {
    let q = TempQueue::new();
    q.drop_plan("p.md", SPEC_EXAMPLE);
    let d = Running::start(q).await;
    d.wait_message(|_| true).await;
    let before = d.queue.read("pending", "p.md");
    let forged = [
        "a:000000000000:0:0:000000",
        "a:../../../etc/passwd",
        "o:",
        "x:zzzzzzzzzzzz",
        "q:99999999999",
        "s:aaaaaaaaaaaa:65535",
        "\u{0}\u{1}",
        "🙂",
    ];
    let mut ids = Vec::new();
    for data in forged {
        ids.push(d.fake.tap_raw(OWNER, 12345, data));
    }
    let ok = d.wait_answered(&ids, WAIT).await;
    assert!(ok, "every callback is answered");
    assert_eq!(d.queue.read("pending", "p.md"), before);
    assert!(!d.task.is_finished());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_files_and_symlinks_out_of_the_queue_are_never_read() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.md");
    std::fs::write(
        &secret,
        SPEC_EXAMPLE.replace("API Design Decisions", "TOP SECRET PLAN"),
    )
    .unwrap();
    let q = TempQueue::new();
    std::os::unix::fs::symlink(&secret, q.root().join("pending/link.md")).unwrap();
    let mut big = plan_with("big", "s", 1);
    big.push_str(&"x".repeat(10 * 1024 * 1024));
    q.drop_plan("big.md", &big);
    let d = Running::start(q).await;
    let warning = d.wait_message(|m| m.plain.contains("big.md")).await;
    assert!(warning.plain.contains("limit"), "{}", warning.plain);
    d.fake.send_text(OWNER, "/start");
    let queue = d.wait_message(|m| m.plain.contains("Decision Queue")).await;
    assert!(!d.transcript().contains("TOP SECRET"), "{}", d.transcript());
    assert!(!queue.plain.contains("Plan big"));
    d.queue.drop_plan("ok.md", &plan_with("fine", "s", 1));
    d.wait_message(|m| m.plain.contains("Plan fine")).await;
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        SPEC_EXAMPLE.replace("API Design Decisions", "TOP SECRET PLAN")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_never_reaches_the_logs_and_loose_config_permissions_are_warned() {
    const TOKEN: &str = "987654:SECRET-token-never-logged";
    let fake = FakeBot::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let q = TempQueue::new();
    let config = home.path().join("config.json");
    let json = serde_json::json!({
        "telegram": { "token": TOKEN, "allowedUsers": [OWNER], "apiUrl": fake.api_url() },
        "queue": { "dir": q.root(), "watchInterval": 200 },
        "logs": { "dir": home.path().join("logs"), "level": "debug" }
    });
    std::fs::write(&config, json.to_string()).unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();
    fake.inject("getMe", Fault::DropConnection, 1);
    fake.inject("getUpdates", Fault::DropConnection, 2);
    fake.inject(
        "sendMessage",
        Fault::TooManyRequests {
            retry_after_secs: 1,
        },
        1,
    );
    let since = SystemTime::now();
    let child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["run", "--config"])
        .arg(&config)
        .env("ARBITER_LOG", "debug")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let polled = fake
        .wait_for_call(
            "getUpdates",
            |c| c.at >= since && c.params["offset"] != -1,
            WAIT,
        )
        .await;
    assert!(polled.is_some());
    q.drop_plan("p.md", SPEC_EXAMPLE);
    fake.send_text(OWNER, "/start");
    fake.wait_until(
        |f| {
            f.messages(OWNER)
                .iter()
                .any(|m| m.plain.contains("Decision Queue"))
        },
        WAIT,
    )
    .await;
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "SIGTERM is a clean stop: {:?}",
        out.status
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let file = std::fs::read_to_string(home.path().join("logs/arbiter.log")).unwrap();
    assert!(stderr.contains("readable by other users"), "{stderr}");
    assert!(
        stderr.contains("retrying") || stderr.contains("polling again"),
        "faults were logged: {stderr}"
    );
    for log in [&*stderr, &*file, &*String::from_utf8_lossy(&out.stdout)] {
        assert!(!log.contains("SECRET-token"), "token leaked:\n{log}");
    }
}
