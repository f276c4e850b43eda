//! `arbiter init`: the flags reach `init::init` (its behaviour is tested beside it, in src/init/tests.rs).

use serde_json::{Value, json};

use crate::cli_support::Arbiter;
use crate::support::TempQueue;

#[test]
fn flags_are_wired_and_an_existing_config_is_kept() {
    let q = TempQueue::new();
    let home = q.root().join("home");
    let init = |extra: &[&str]| {
        let mut args = vec!["init", "--user", "42", "--user", "43", "--token", ""];
        args.extend_from_slice(extra);
        Arbiter::new(&q)
            .env("ARBITER_HOME", &home)
            .env("XDG_CONFIG_HOME", q.root().join("xdg"))
            .args(&args)
            .run()
    };
    let out = init(&["--api-url", "http://127.0.0.1:9/"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (Some(0), ""),
        "{}",
        out.stdout
    );
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["telegram"]["allowedUsers"], json!([42, 43]));
    assert_eq!(config["telegram"]["apiUrl"], "http://127.0.0.1:9");
    assert!(config["telegram"].get("token").is_none(), "{config}");
    // The global --queue is the queue folder it sets up.
    assert_eq!(config["queue"]["dir"], json!(q.root()));

    let again = init(&[]);
    assert_eq!(again.code, Some(1));
    assert_eq!(
        again.stderr,
        format!(
            "arbiter: {}: already exists; pass --force to overwrite it\n",
            home.join("config.json").display()
        )
    );
    let forced = init(&["--force", "--systemd"]);
    assert_eq!(forced.code, Some(0), "{}", forced.stderr);
    assert!(q.root().join("xdg/systemd/user/arbiter.service").is_file());

    let no_user = Arbiter::new(&q)
        .env("ARBITER_HOME", q.root().join("other"))
        .args(&["init", "--token", ""])
        .run();
    assert_eq!(no_user.code, Some(2));
    assert!(
        no_user
            .stderr
            .starts_with("arbiter: no Telegram user id given"),
        "{}",
        no_user.stderr
    );
}
