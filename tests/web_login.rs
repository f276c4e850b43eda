//! `arbiter web-login` against the real daemon (`arbiter run --config A`), as a new user would run it: a link is
//! printed only when the running dashboard redeems links from the state folder it is written to.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::SystemTime;

use arbiter_zebu::fakebot::FakeBot;
use reqwest::StatusCode;

use crate::cli_support::{Arbiter, Output};
use crate::support::TempQueue;
use crate::support::binary::{spawn_daemon, wait_polling};
use crate::support::daemon::OWNER;
use crate::support::web;

/// Writes `dir/config.json` for the fake Bot API and `queue`, with the dashboard on a free port.
fn write_config(dir: &Path, fake: &FakeBot, queue: &Path) -> PathBuf {
    let path = dir.join("config.json");
    let config = serde_json::json!({
        "telegram": { "token": fake.token(), "allowedUsers": [OWNER], "apiUrl": fake.api_url() },
        "queue": { "dir": queue },
        "web": { "listen": "127.0.0.1:0" },
        "logs": { "dir": dir.join("logs"), "level": "warn" }
    });
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

fn stop(mut daemon: Child) {
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(daemon.id().to_string())
        .status();
    assert!(daemon.wait().unwrap().success(), "SIGTERM is a clean stop");
}

/// `arbiter web-login --user OWNER [--config CONFIG]`, the default config being `home/config.json`.
fn web_login(home: &Path, config: Option<&Path>) -> Output {
    let owner = OWNER.to_string();
    let mut args = vec!["web-login", "--user", &owner];
    if let Some(config) = config {
        args.extend(["--config", config.to_str().unwrap()]);
    }
    Arbiter::home(home).args(&args).run()
}

fn canonical(path: &Path) -> String {
    std::fs::canonicalize(path).unwrap().display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_login_makes_links_only_for_the_daemon_that_redeems_them() {
    let fake = FakeBot::start().await.unwrap();
    let queue = TempQueue::new();
    let a = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let config_a = write_config(a.path(), &fake, queue.root());
    // The default config (ARBITER_HOME/config.json) names the same queue: its dashboard state is elsewhere.
    let default_config = write_config(home.path(), &fake, queue.root());
    let since = SystemTime::now();
    let daemon = spawn_daemon(&config_a);
    wait_polling(&fake, since).await;

    // `arbiter web-login --user ID` reads the default config: the link would not work, so none is printed.
    let wrong = web_login(home.path(), None);
    assert_eq!(wrong.code, Some(2), "{}", wrong.stderr);
    assert_eq!(wrong.stdout, "");
    assert_eq!(
        wrong.stderr,
        format!(
            "arbiter: a link made with {} would not work: the daemon serving its queue {} was started with {} and \
             redeems links from {}, not {}; pass --config {}\n",
            default_config.display(),
            queue.root().display(),
            canonical(&config_a),
            canonical(&a.path().join("web")),
            home.path().join("web").display(),
            canonical(&config_a),
        )
    );
    assert!(!home.path().join("web").exists(), "no login was written");

    // With the daemon's config, the link opens the dashboard.
    let right = web_login(home.path(), Some(&config_a));
    assert_eq!(right.code, Some(0), "{}", right.stderr);
    assert_eq!(right.stderr, "Valid for 10 minutes, once.\n");
    let link = right.stdout.trim();
    let base = &link[..link.find("/login/").expect("a login link")];
    let http = web::client();
    let cookie = web::sign_in(&http, base, link)
        .await
        .expect("the daemon accepts the link");
    let queue_page = web::get(&http, &format!("{base}/queue"), Some(&cookie)).await;
    assert_eq!(queue_page.status, StatusCode::OK);
    assert!(queue_page.body.contains("Decision queue"));

    // Once the daemon has stopped, nothing would redeem a link.
    stop(daemon);
    let stopped = web_login(home.path(), Some(&config_a));
    assert_eq!(stopped.code, Some(1), "{}", stopped.stderr);
    assert_eq!(stopped.stdout, "");
    assert_eq!(
        stopped.stderr,
        format!(
            "arbiter: no arbiter daemon is serving the web dashboard for the queue {} (the queue of {}), so no link \
             was made: start it with `arbiter run`, or, if it runs with another config file, pass that one with \
             --config FILE\n",
            queue.root().display(),
            config_a.display(),
        )
    );
}
