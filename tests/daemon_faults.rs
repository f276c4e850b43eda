//! API faults and hostile input: the daemon keeps polling, delivers what it owes, and never leaks the token.

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use arbiter_zebu::fakebot::{FakeBot, Fault};
use arbiter_zebu::plan::parse;
use arbiter_zebu::telegram::callback::{Callback, fingerprint, plan_ref};
use arbiter_zebu::telegram::views;

use crate::support::binary::wait_polling;
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
    // Polling is back once a later command is answered: faults on getUpdates are used up in order, and the
    // first /start may have ridden a long poll that was already under way when they were injected.
    d.fake.send_text(OWNER, "/queue");
    let views = |f: &FakeBot| {
        f.messages(OWNER)
            .iter()
            .filter(|m| m.from_bot() && m.plain.contains("Decision Queue"))
            .count()
    };
    let recovered = d
        .fake
        .wait_until(|f| views(f) >= 2, Duration::from_secs(60))
        .await;
    assert!(recovered, "polling never recovered:\n{}", d.transcript());
    // A second outage: server errors and a rate limit on polling, then on the tap's own calls. The tap still
    // arrives, is answered and redraws its message.
    d.fake.inject("getUpdates", Fault::ServerError(500), 2);
    d.fake.inject(
        "getUpdates",
        Fault::TooManyRequests {
            retry_after_secs: 1,
        },
        1,
    );
    d.fake.inject("getUpdates", Fault::ServerError(502), 1);
    d.fake
        .inject("answerCallbackQuery", Fault::ServerError(500), 1);
    d.fake.inject("editMessageText", Fault::ServerError(500), 1);
    d.fake.inject(
        "editMessageText",
        Fault::TooManyRequests {
            retry_after_secs: 1,
        },
        1,
    );
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
    q.drop_plan("q.md", &plan_with("later", "s", 2));
    let d = Running::start(q).await;
    d.wait_message(|_| true).await;
    // The owner opens the first decision of plan abc123: the real buttons a forger starts from.
    d.fake.send_text(OWNER, "/start plan_abc123");
    let plan = d.wait_message(|m| m.plain.contains("📄")).await;
    let id = plan.message_id;
    d.tap(id, "▶️ Continue").await;
    let view = d
        .wait_message(|m| m.message_id == id && m.plain.contains("1/"))
        .await;
    let data: Vec<String> = view
        .buttons()
        .iter()
        .filter_map(|b| b.callback_data.clone())
        .collect();
    let real = data
        .iter()
        .find(|c| c.starts_with("a:"))
        .expect("answer button")
        .clone();
    let skip = data
        .iter()
        .find(|c| c.starts_with("k:"))
        .expect("skip button")
        .clone();
    let (p_ref, q_ref) = (plan_ref("abc123").0, plan_ref("later").0);
    let fp = real.rsplit(':').next().expect("fingerprint").to_owned();
    // What the skip button carries: the fingerprint of the decision shown.
    let dfp = skip.rsplit(':').next().expect("fingerprint").to_owned();
    let before = (
        d.queue.read("pending", "p.md"),
        d.queue.read("pending", "q.md"),
    );

    let mut forged = vec![
        // Another plan's ref with what this view showed: the other plan's decision 0 is not what was seen.
        real.replacen(&p_ref, &q_ref, 1),
        skip.replacen(&p_ref, &q_ref, 1),
        // This plan, a decision or option the human did not see, with the fingerprint of the one they did.
        format!("a:{p_ref}:1:0:{fp}"),
        format!("a:{p_ref}:0:9:{fp}"),
        format!("a:{p_ref}:65535:0:{fp}"),
        // Submit while decisions are pending (the button only exists on a finished review), with the answers as
        // they are, and in the form before Submit carried them.
        format!(
            "x:{p_ref}:{}",
            arbiter_zebu::actions::seen::of_answers(&parse(&before.0, "abc123").unwrap())
        ),
        format!(
            "x:{q_ref}:{}",
            arbiter_zebu::actions::seen::of_answers(&parse(&before.1, "later").unwrap())
        ),
        format!("x:{p_ref}"),
        format!("x:{q_ref}"),
        // A ref no plan has, and path tricks.
        "a:000000000000:0:0:000000".to_owned(),
        "a:../../../etc/passwd".to_owned(),
        format!("a:../{p_ref}:0:0:{fp}"),
        "o:".to_owned(),
        "x:zzzzzzzzzzzz".to_owned(),
        "q:99999999999".to_owned(),
        "s:aaaaaaaaaaaa:65535".to_owned(),
        "\u{0}\u{1}".to_owned(),
        "🙂".to_owned(),
        // The people buttons with another plan's ref, a decision not shown, a fingerprint not drawn, or a
        // person nobody allowed: notes, delegation (to the owner themselves, to an outsider), take back
        // (nothing is delegated), sign-off on answers never shown (the plan needs no sign-offs anyway).
        format!("m:{q_ref}:0:{fp}"),
        format!("m:{p_ref}:1:{fp}"),
        format!("d:{p_ref}:0:000000"),
        format!("d:{q_ref}:0:{fp}"),
        format!("g:{q_ref}:0:{OWNER}:{fp}"),
        format!("g:{p_ref}:0:666:{dfp}"),
        format!("g:{p_ref}:0:{OWNER}:{dfp}"),
        format!("b:{p_ref}:0:{dfp}"),
        format!("b:{p_ref}:0:000000"),
        format!("b:{q_ref}:1:{fp}"),
        format!("v:{p_ref}:000000"),
        format!("v:{q_ref}:{fp}"),
        format!("g:{p_ref}:0:0:{fp}"),
        format!("g:{p_ref}:0:{}:{fp}", "9".repeat(30)),
        // Huge: far past Telegram's 64 bytes.
        format!("a:{}", "9".repeat(100_000)),
        format!("{real}{}", "0".repeat(10_000)),
    ];
    // Every truncation of a real answer.
    forged.extend((1..real.len()).map(|n| real[..n].to_owned()));
    let ids: Vec<String> = forged
        .iter()
        .map(|f| d.fake.tap_raw(OWNER, id, f))
        .collect();
    assert!(
        d.wait_answered(&ids, WAIT).await,
        "every callback is answered"
    );
    let answers = d.fake.callback_answers();
    for (qid, data) in ids.iter().zip(&forged) {
        let (_, text, alert) = answers.iter().find(|(q, _, _)| q == qid).expect("answered");
        assert!(
            *alert && text.is_some(),
            "{data:.80}: answered {text:?} without an alert"
        );
    }
    assert_eq!(
        (
            d.queue.read("pending", "p.md"),
            d.queue.read("pending", "q.md")
        ),
        before,
        "a forged callback changed a plan"
    );
    // The real button still records exactly its option.
    let qid = d.fake.tap_raw(OWNER, id, &real);
    assert!(d.wait_answered(&[qid], WAIT).await);
    let after = parse(&d.queue.read("pending", "p.md"), "p").expect("parses");
    assert_eq!(after.decisions[0].answer.as_deref(), Some("jwt"));
    assert_eq!(after.answered(), 1);
    assert_eq!(d.queue.read("pending", "q.md"), before.1);
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
    // A forged tap answering the linked plan exactly as its own view would (its id, its first option): if the
    // daemon had read the plan through the link, this would write into the file outside the queue.
    let forged = Callback::Answer {
        plan: plan_ref("abc123"),
        index: 0,
        option: 0,
        seen: fingerprint(&["auth-strategy", "jwt", "JWT tokens (stateless, scalable)"]),
    };
    let qid = d.fake.tap_raw(OWNER, queue.message_id, &forged.encode());
    assert!(d.wait_answered(std::slice::from_ref(&qid), WAIT).await);
    let alert = d
        .fake
        .callback_answers()
        .into_iter()
        .find(|(q, ..)| *q == qid);
    assert_eq!(
        alert.and_then(|(_, text, _)| text).as_deref(),
        Some(views::PLAN_GONE_ALERT)
    );
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
    wait_polling(&fake, since).await;
    q.drop_plan("p.md", SPEC_EXAMPLE);
    fake.send_text(OWNER, "/start");
    let replied = fake
        .wait_until(
            |f| {
                f.messages(OWNER)
                    .iter()
                    .any(|m| m.plain.contains("Decision Queue"))
            },
            WAIT,
        )
        .await;
    assert!(replied, "the daemon never answered /start");
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
