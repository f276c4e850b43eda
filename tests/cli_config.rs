//! config.json as the real binary reads it: `arbiter run` refuses a bad file with one line naming the file
//! and the key (every message is tested beside the loader, in src/config/tests.rs), and the agent commands
//! find their queue in it.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::cli_support::{Arbiter, Output, collect};
use crate::support::{SPEC_EXAMPLE, TempQueue};

const TOKEN: &str = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11";

/// Waits for `child` to exit by itself; a daemon still running after a while is killed and fails the test.
fn finished(mut child: Child) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("arbiter run kept running: {:?}", collect(child));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    collect(child)
}

/// `arbiter run --config <home>/config.json` with `config` in the file.
fn run_with(home: &Path, config: &serde_json::Value) -> (String, Output) {
    let path = home.join("config.json");
    std::fs::write(&path, config.to_string()).unwrap();
    let child = Arbiter::home(home)
        .args(&["run", "--config"])
        .args(&[path.to_str().unwrap()])
        .spawn();
    (path.display().to_string(), finished(child))
}

#[test]
fn run_refuses_an_api_url_it_cannot_parse_and_never_falls_back_to_telegram() {
    let home = tempfile::tempdir().unwrap();
    for (url, reason) in [
        ("http://:80", "empty host"),
        ("http://[::1", "invalid IPv6 address"),
    ] {
        let config = json!({
            "telegram": { "token": TOKEN, "allowedUsers": [42], "apiUrl": url },
            "queue": { "dir": home.path().join("queue") },
        });
        let (path, out) = run_with(home.path(), &config);
        let expected = format!(
            "arbiter: {path}: telegram.apiUrl: expected an http:// or https:// URL, found \"{url}\" ({reason})\n"
        );
        assert_eq!((out.code, out.stderr), (Some(1), expected), "{url}");
        assert_eq!(out.stdout, "");
    }
    // Nothing was started: no lock, no log, no queue.
    assert!(!home.path().join("queue").exists());
    assert!(!home.path().join("logs").exists());
}

#[test]
fn run_refuses_unknown_keys_and_wrong_types() {
    let home = tempfile::tempdir().unwrap();
    let cases = [
        (
            json!({ "telegram": { "token": TOKEN, "allowedUsers": [42] }, "notifcations": {} }),
            "notifcations: unknown key; did you mean notifications?",
        ),
        (
            json!({ "telegram": { "token": TOKEN, "allowedUsers": [42, "@bob"] } }),
            "telegram.allowedUsers[1]: expected a Telegram user id (a positive whole number), found a string",
        ),
        (
            json!({ "telegram": { "token": TOKEN, "allowedUsers": [42] }, "queue": { "watchInterval": "1s" } }),
            "queue.watchInterval: expected a number of milliseconds, found a string",
        ),
    ];
    for (config, problem) in cases {
        let (path, out) = run_with(home.path(), &config);
        let expected = format!("arbiter: {path}: {problem}\n");
        assert_eq!((out.code, out.stderr), (Some(1), expected));
    }
}

#[test]
fn agent_commands_find_the_queue_in_the_config_without_a_token() {
    let home = tempfile::tempdir().unwrap();
    let q = TempQueue::new();
    q.drop_plan("p.md", SPEC_EXAMPLE);
    // No telegram section at all: agents need no token.
    let config = json!({ "queue": { "dir": q.root() } });
    std::fs::write(home.path().join("config.json"), config.to_string()).unwrap();
    let out = Arbiter::home(home.path()).args(&["list", "--json"]).run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    let listed: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(listed[0]["id"], "abc123", "{listed}");
    assert!(!home.path().join("queue").exists(), "not the default queue");
}

#[test]
fn lint_checks_escalate_to_against_the_config_when_there_is_one() {
    let home = tempfile::tempdir().unwrap();
    let plan = home.path().join("p.md");
    std::fs::write(
        &plan,
        "---\nid: p\ncreated_at: 2026-02-01T10:00:00Z\nescalate_after: 1h\nescalate_to: [42, 777]\n---\n# P\n\n## Q\n\n**Options:**\n- `a` — A\n",
    )
    .unwrap();
    let file = plan.to_str().unwrap();
    // No config on this machine: the plan itself is fine.
    let out = Arbiter::home(home.path()).args(&["lint", file]).run();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let config = json!({ "telegram": { "token": TOKEN, "allowedUsers": [42] } });
    std::fs::write(home.path().join("config.json"), config.to_string()).unwrap();
    let out = Arbiter::home(home.path()).args(&["lint", file]).run();
    assert_eq!(out.code, Some(1));
    assert_eq!(
        out.stderr,
        format!(
            "{file}:5: `escalate_to`: `777` is nobody the bot may talk to: use a name from the config's `people` or a user id from telegram.allowedUsers\n"
        )
    );
}

#[test]
fn lint_resolves_approvers_by_name_from_the_config() {
    let home = tempfile::tempdir().unwrap();
    let config = json!({
        "telegram": { "token": TOKEN, "allowedUsers": [42, 43] },
        "people": { "alice": 42, "bob": 43 }
    });
    std::fs::write(home.path().join("config.json"), config.to_string()).unwrap();
    let write = |name: &str, keys: &str| {
        let plan = home.path().join(name);
        std::fs::write(
            &plan,
            format!("---\nid: p\n{keys}---\n# P\n\n## Q\n\n**Options:**\n- `a` — A\n"),
        )
        .unwrap();
        plan.to_str().unwrap().to_owned()
    };
    let ok = write(
        "ok.md",
        "approvers: [alice, bob]\nrequire: 2\nescalate_to: bob\n",
    );
    let out = Arbiter::home(home.path()).args(&["lint", &ok]).run();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let unknown = write("unknown.md", "approvers: [alice, dave]\n");
    let out = Arbiter::home(home.path()).args(&["lint", &unknown]).run();
    assert_eq!(out.code, Some(1));
    assert_eq!(
        out.stderr,
        format!(
            "{unknown}:3: `approvers`: `dave` is nobody the bot may talk to: use a name from the config's `people` or a user id from telegram.allowedUsers\n"
        )
    );
    // Two allowed users approve by default: three sign-offs can never happen.
    let too_many = write("many.md", "require: 3\n");
    let out = Arbiter::home(home.path()).args(&["lint", &too_many]).run();
    assert_eq!(
        out.stderr,
        format!(
            "{too_many}:3: `require: 3` needs more sign-offs than the plan has approvers (2)\n"
        )
    );
}

#[test]
fn quiet_hours_are_checked_and_name_their_key() {
    let cases = [
        (
            json!({ "telegram": { "token": TOKEN, "allowedUsers": [42] }, "notifications": { "quietHours": "late" } }),
            "notifications.quietHours: `late` is not a span of local time like 22:00-07:00",
        ),
        (
            json!({ "telegram": { "token": TOKEN, "allowedUsers": [42] },
                    "notifications": { "quietHours": "22:00-07:00", "timezone": "Mars/Olympus" } }),
            "notifications.timezone: unknown time zone `Mars/Olympus`: use an IANA name such as Europe/Berlin or UTC",
        ),
    ];
    for (config, expected) in cases {
        let home = tempfile::tempdir().unwrap();
        let (path, out) = run_with(home.path(), &config);
        assert_eq!(out.code, Some(1), "{}", out.stderr);
        assert_eq!(out.stderr, format!("arbiter: {path}: {expected}\n"));
    }
}

#[test]
fn a_bad_digest_time_or_time_zone_names_its_key() {
    let telegram = json!({ "token": TOKEN, "allowedUsers": [42] });
    let cases = [
        (
            json!({ "telegram": telegram, "digest": { "at": "9am" } }),
            "digest.at: `9am` is not a time of day like 09:00 (or 09:00:30)",
        ),
        (
            json!({ "telegram": telegram, "digest": { "at": "24:00" } }),
            "digest.at: `24:00` is not a time of day like 09:00 (or 09:00:30)",
        ),
        (
            json!({ "telegram": telegram, "digest": {} }),
            "digest.at: missing; the local time of day to send the digest at, like \"09:00\"",
        ),
        (
            json!({ "telegram": telegram, "digest": { "at": "09:00", "every": "day" } }),
            "digest.every: unknown key; expected one of at",
        ),
        (
            json!({ "telegram": telegram, "digest": "09:00" }),
            "digest: expected an object ({ ... }), found a string",
        ),
        (
            json!({ "telegram": telegram, "digest": { "at": "09:00" },
                    "notifications": { "timezone": "Mars/Olympus" } }),
            "notifications.timezone: unknown time zone `Mars/Olympus`: use an IANA name such as Europe/Berlin or UTC",
        ),
        (
            json!({ "telegram": telegram, "notifications": { "timezone": "Europe/Berlin" } }),
            "notifications.timezone: set, but there is no notifications.quietHours or digest.at for it to apply to",
        ),
    ];
    for (config, expected) in cases {
        let home = tempfile::tempdir().unwrap();
        let (path, out) = run_with(home.path(), &config);
        assert_eq!(out.code, Some(1), "{}", out.stderr);
        assert_eq!(
            out.stderr,
            format!("arbiter: {path}: {expected}\n"),
            "{config}"
        );
    }
}
