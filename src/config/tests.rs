//! `Config::load`: every error asserted by its exact one-line message.

// This branch predates main's clippy.toml (allow-unwrap-in-tests); harmless once merged.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::config::paths::env_of;
use std::fs;
use std::path::PathBuf;
use std::time::Duration;
use tracing::level_filters::LevelFilter;

const TOKEN: &str = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11";
const MINIMAL: &str =
    r#"{"telegram": {"token": "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11", "allowedUsers": [42]}}"#;

struct Fixture {
    dir: tempfile::TempDir,
    path: PathBuf,
}

fn write(text: &str) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    fs::write(&path, text).unwrap();
    Fixture { dir, path }
}

fn load_with(text: &str, env: &[(&str, &str)]) -> (Fixture, Result<Config, String>) {
    let f = write(text);
    let result = Config::load(&f.path, &env_of(env)).map_err(|e| e.to_string());
    (f, result)
}

/// Loads `text` with HOME=/home/ada and asserts the error is exactly `<path>: <expected>`.
#[track_caller]
fn assert_error(text: &str, expected: &str) {
    let (f, result) = load_with(text, &[("HOME", "/home/ada")]);
    assert_eq!(
        result.err(),
        Some(format!("{}: {expected}", f.path.display()))
    );
}

/// MINIMAL's telegram section with `extra` spliced in at the top level.
fn with_section(extra: &str) -> String {
    format!(r#"{{"telegram": {{"token": "{TOKEN}", "allowedUsers": [42]}}, {extra}}}"#)
}

#[test]
fn example_file_loads_with_every_key() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config.example.json");
    let config = Config::load(&path, &env_of(&[("HOME", "/home/ada")])).unwrap();
    assert_eq!(config.telegram.token.expose(), TOKEN);
    assert_eq!(config.telegram.token_source, TokenSource::File);
    assert_eq!(config.telegram.allowed_users, vec![93533553]);
    let api_url = config.telegram.api_url.map(String::from);
    assert_eq!(api_url.as_deref(), Some("https://api.telegram.org/"));
    assert_eq!(config.queue.dir, PathBuf::from("/home/ada/.arbiter/queue"));
    assert_eq!(config.queue.watch_interval, Duration::from_millis(1000));
    assert!(config.notifications.enabled);
    assert_eq!(config.logs.dir, PathBuf::from("/home/ada/.arbiter/logs"));
    assert_eq!(config.logs.level, LevelFilter::INFO);
    assert_eq!(
        config.digest,
        Some(crate::digest::DigestAt::parse("09:00", chrono_tz::Tz::UTC).unwrap())
    );
    assert_eq!(config.people, vec![("alice".to_owned(), 93533553)]);
}

#[test]
fn the_digest_time_is_read_in_the_notifications_time_zone() {
    let (_f, config) = load_with(
        &with_section(
            r#""digest": {"at": "07:30:15"}, "notifications": {"timezone": "Asia/Tokyo"}"#,
        ),
        &[("HOME", "/home/ada")],
    );
    let config = config.unwrap();
    let tokyo = chrono_tz::Tz::Asia__Tokyo;
    assert_eq!(config.notifications.timezone, tokyo);
    assert_eq!(
        config.digest,
        Some(crate::digest::DigestAt::parse("07:30:15", tokyo).unwrap())
    );
    // Without a digest section: none, and UTC.
    let (_f, config) = load_with(MINIMAL, &[("HOME", "/home/ada")]);
    let config = config.unwrap();
    assert_eq!(config.digest, None);
    assert_eq!(config.notifications.timezone, chrono_tz::Tz::UTC);
}

#[test]
fn defaults_hang_off_the_arbiter_home() {
    let (_f, config) = load_with(
        MINIMAL,
        &[("HOME", "/home/ada"), ("ARBITER_HOME", "/srv/arb")],
    );
    let config = config.unwrap();
    assert_eq!(config.queue.dir, PathBuf::from("/srv/arb/queue"));
    assert_eq!(config.logs.dir, PathBuf::from("/srv/arb/logs"));
    assert_eq!(
        config.telegram.api_url, None,
        "Telegram's, {DEFAULT_API_URL}"
    );
    assert_eq!(config.queue.watch_interval, DEFAULT_WATCH_INTERVAL);
    assert!(config.notifications.enabled);
}

#[test]
fn relative_dirs_are_relative_to_the_config_file() {
    let (f, config) = load_with(
        &with_section(r#""queue": {"dir": "q"}, "logs": {"dir": "/var/log/arb"}"#),
        &[],
    );
    let config = config.unwrap();
    assert_eq!(config.queue.dir, f.dir.path().join("q"));
    assert_eq!(config.logs.dir, PathBuf::from("/var/log/arb"));
}

#[test]
fn env_token_wins_over_the_file() {
    let env = [("HOME", "/h"), ("ARBITER_TELEGRAM_TOKEN", " 999:fromEnv\n")];
    let (_f, config) = load_with(MINIMAL, &env);
    let config = config.unwrap();
    assert_eq!(config.telegram.token.expose(), "999:fromEnv");
    assert_eq!(config.telegram.token_source, TokenSource::Env);
}

#[test]
fn env_token_alone_is_enough() {
    let env = [("HOME", "/h"), ("ARBITER_TELEGRAM_TOKEN", "999:fromEnv")];
    let (_f, config) = load_with(
        r#"{"telegram": {"token": "", "allowedUsers": [1, 2]}}"#,
        &env,
    );
    assert_eq!(config.unwrap().telegram.allowed_users, vec![1, 2]);
}

#[test]
fn token_is_redacted_in_debug() {
    let (_f, config) = load_with(MINIMAL, &[("HOME", "/h")]);
    let debug = format!("{:?}", config.unwrap());
    assert!(!debug.contains("ABC-DEF"), "{debug}");
    assert!(debug.contains("BotToken(<redacted>)"), "{debug}");
}

#[test]
fn missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    let error = Config::load(&path, &env_of(&[])).unwrap_err().to_string();
    let expected = format!(
        "{}: config file not found; run `arbiter init` to create it",
        path.display()
    );
    assert_eq!(error, expected);
}

#[test]
fn unreadable_file() {
    // A folder in place of the file: unreadable even when the tests run as root.
    let dir = tempfile::tempdir().unwrap();
    let error = Config::load(dir.path(), &env_of(&[]))
        .unwrap_err()
        .to_string();
    let prefix = format!("{}: cannot read config file: ", dir.path().display());
    assert!(error.starts_with(&prefix), "{error}");
}

#[test]
fn invalid_json_names_line_and_column() {
    let (f, result) = load_with("{\n  \"telegram\": {,}\n}", &[]);
    let expected = format!(
        "{}:2:16: invalid JSON: key must be a string",
        f.path.display()
    );
    assert_eq!(result.err(), Some(expected));
    let (f, result) = load_with("{\"telegram\": {}", &[]);
    let expected = format!(
        "{}:1:15: invalid JSON: EOF while parsing an object",
        f.path.display()
    );
    assert_eq!(result.err(), Some(expected));
}

#[test]
fn top_level_must_be_an_object() {
    assert_error(
        "[1]",
        "top level: expected an object with telegram, queue, notifications, logs, digest, people, web and rules sections, found a list",
    );
}

#[test]
fn wrong_types() {
    let cases = [
        (
            r#"{"telegram": {"token": "1:a", "allowedUsers": "93533553"}}"#,
            "telegram.allowedUsers: expected a list of Telegram user ids (numbers), found a string",
        ),
        (
            r#"{"telegram": {"token": "1:a", "allowedUsers": [1, "@bob"]}}"#,
            "telegram.allowedUsers[1]: expected a Telegram user id (a positive whole number), found a string",
        ),
        (
            r#"{"telegram": {"token": 5, "allowedUsers": [1]}}"#,
            "telegram.token: expected the bot token as a string, found a number",
        ),
        (
            r#"{"telegram": []}"#,
            "telegram: expected an object ({ ... }), found a list",
        ),
    ];
    for (text, expected) in cases {
        assert_error(text, expected);
    }
    let typed = [
        (
            r#""telegram2": 1"#,
            "telegram2: unknown key; did you mean telegram?",
        ),
        (
            r#""queue": {"dir": 7}"#,
            "queue.dir: expected a folder path as a string, found a number",
        ),
        (
            r#""queue": {"dir": " "}"#,
            "queue.dir: expected a folder path, found an empty string",
        ),
        (
            r#""queue": {"watchInterval": "1s"}"#,
            "queue.watchInterval: expected a number of milliseconds, found a string",
        ),
        (
            r#""notifications": {"enabled": "yes"}"#,
            "notifications.enabled: expected true or false, found a string",
        ),
        (
            r#""notifications": null"#,
            "notifications: expected an object ({ ... }), found null",
        ),
        (
            r#""logs": {"level": "loud"}"#,
            r#"logs.level: expected one of error, warn, info, debug, trace, off, found "loud""#,
        ),
        (
            r#""logs": {"level": 3}"#,
            "logs.level: expected one of error, warn, info, debug, trace, off as a string, found a number",
        ),
    ];
    for (extra, expected) in typed {
        assert_error(&with_section(extra), expected);
    }
}

#[test]
fn bad_user_ids() {
    for (id, shown) in [("-5", "-5"), ("0", "0"), ("1.5", "1.5")] {
        let text = format!(r#"{{"telegram": {{"token": "1:a", "allowedUsers": [{id}]}}}}"#);
        let expected = format!(
            "telegram.allowedUsers[0]: expected a Telegram user id (a positive whole number), found {shown}"
        );
        assert_error(&text, &expected);
    }
}

#[test]
fn unknown_keys() {
    assert_error(
        r#"{"telegram": {"token": "1:a", "alowedUsers": [1]}}"#,
        "telegram.alowedUsers: unknown key; did you mean allowedUsers?",
    );
    assert_error(
        r#"{"telegram": {"token": "1:a", "allowedUsers": [1], "proxy": "x"}}"#,
        "telegram.proxy: unknown key; expected one of token, allowedUsers, apiUrl, groups",
    );
    assert_error(
        &with_section(r#""colour": 1"#),
        "colour: unknown key; expected one of telegram, queue, notifications, logs, digest, people, web, rules",
    );
}

#[test]
fn missing_token() {
    assert_error(
        r#"{"telegram": {"allowedUsers": [1]}}"#,
        "telegram.token: missing; put the token from @BotFather here or set ARBITER_TELEGRAM_TOKEN",
    );
    assert_error(
        r#"{"telegram": {"token": "  ", "allowedUsers": [1]}}"#,
        "telegram.token: missing; put the token from @BotFather here or set ARBITER_TELEGRAM_TOKEN",
    );
}

#[test]
fn malformed_token_is_named_but_never_shown() {
    let shape = "does not look like a bot token (expected digits, a colon, then letters, digits, - and _, \
        e.g. 123456:ABC-DEF1234ghIkl)";
    assert_error(
        r#"{"telegram": {"token": "BOT_TOKEN_HERE", "allowedUsers": [1]}}"#,
        &format!("telegram.token: {shape}"),
    );
    let (f, result) = load_with(MINIMAL, &[("ARBITER_TELEGRAM_TOKEN", "secret with spaces")]);
    let expected = format!("{}: ARBITER_TELEGRAM_TOKEN: {shape}", f.path.display());
    assert_eq!(result.err(), Some(expected));
}

#[test]
fn allowed_users_missing_or_empty() {
    assert_error(
        r#"{"telegram": {"token": "1:a"}}"#,
        "telegram.allowedUsers: missing; list the Telegram user ids allowed to use the bot",
    );
    assert_error(
        "{}",
        "telegram.token: missing; put the token from @BotFather here or set ARBITER_TELEGRAM_TOKEN",
    );
    assert_error(
        r#"{"telegram": {"token": "1:a", "allowedUsers": []}}"#,
        "telegram.allowedUsers: empty, so nobody could use the bot; add your Telegram user id",
    );
}

#[test]
fn watch_interval_bounds() {
    for (value, ok) in [
        ("0", false),
        ("9", false),
        ("10", true),
        ("3600000", true),
        ("3600001", false),
        ("-1", false),
        ("2.5", false),
    ] {
        let (f, result) = load_with(
            &with_section(&format!(r#""queue": {{"watchInterval": {value}}}"#)),
            &[("HOME", "/h")],
        );
        if ok {
            assert!(result.is_ok(), "{value}: {result:?}");
        } else {
            let expected = format!(
                "{}: queue.watchInterval: expected milliseconds between 10 and 3600000, found {value}",
                f.path.display()
            );
            assert_eq!(result.err(), Some(expected));
        }
    }
}

#[test]
fn grant_minutes_bounds_and_default() {
    let (_, default) = load_with(&with_section(r#""queue": {}"#), &[("HOME", "/h")]);
    assert_eq!(default.unwrap().grant_minutes, 30);
    for (value, ok) in [
        ("1", true),
        ("1440", true),
        ("0", false),
        ("1441", false),
        ("2.5", false),
    ] {
        let (f, result) = load_with(
            &with_section(&format!(r#""rules": {{"grantMinutes": {value}}}"#)),
            &[("HOME", "/h")],
        );
        if ok {
            assert_eq!(result.unwrap().grant_minutes.to_string(), value);
        } else {
            let expected = format!(
                "{}: rules.grantMinutes: {value} is no number of minutes from 1 to 1440",
                f.path.display()
            );
            assert_eq!(result.err(), Some(expected));
        }
    }
}

#[test]
fn api_url_must_be_http() {
    assert_error(
        &format!(
            r#"{{"telegram": {{"token": "{TOKEN}", "allowedUsers": [1], "apiUrl": "api.telegram.org"}}}}"#
        ),
        r#"telegram.apiUrl: expected an http:// or https:// URL, found "api.telegram.org""#,
    );
    let text = format!(
        r#"{{"telegram": {{"token": "{TOKEN}", "allowedUsers": [1], "apiUrl": "http://127.0.0.1:9/"}}}}"#
    );
    let (_f, config) = load_with(&text, &[("HOME", "/h")]);
    let api_url = config.unwrap().telegram.api_url.map(String::from);
    assert_eq!(api_url.as_deref(), Some("http://127.0.0.1:9/"));
}

/// `url::Url` refuses these; the old check let them through and the daemon quietly used Telegram's URL
/// (with the token) instead. Now they are an error naming the key.
#[test]
fn api_url_that_does_not_parse_is_an_error() {
    for (url, reason) in [
        ("http://:80", "empty host"),
        ("http://[::1", "invalid IPv6 address"),
    ] {
        assert_error(
            &format!(
                r#"{{"telegram": {{"token": "{TOKEN}", "allowedUsers": [1], "apiUrl": "{url}"}}}}"#
            ),
            &format!(
                r#"telegram.apiUrl: expected an http:// or https:// URL, found "{url}" ({reason})"#
            ),
        );
    }
    assert_error(
        &format!(r#"{{"telegram": {{"token": "{TOKEN}", "allowedUsers": [1], "apiUrl": 8081}}}}"#),
        "telegram.apiUrl: expected a URL as a string, found a number",
    );
}

#[test]
fn tilde_without_home() {
    let (f, result) = load_with(&with_section(r#""queue": {"dir": "~/q"}"#), &[]);
    let expected = format!(
        "{}: queue.dir: cannot expand ~ because HOME is not set",
        f.path.display()
    );
    assert_eq!(result.err(), Some(expected));
}

#[test]
fn defaults_without_any_home() {
    let (_f, result) = load_with(MINIMAL, &[]);
    assert_eq!(
        result.err(),
        Some("cannot find the arbiter home: set ARBITER_HOME or HOME".to_owned())
    );
}

#[cfg(unix)]
#[test]
fn permission_warning_for_group_or_world_access() {
    use std::os::unix::fs::PermissionsExt;
    let f = write(MINIMAL);
    fs::set_permissions(&f.path, fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(Config::permission_warning(&f.path), None);
    fs::set_permissions(&f.path, fs::Permissions::from_mode(0o644)).unwrap();
    let expected = format!(
        "config.json is readable by other users (mode 0644); run chmod 600 {}",
        f.path.display()
    );
    assert_eq!(Config::permission_warning(&f.path), Some(expected));
}

#[test]
fn a_repeated_key_is_an_error_not_the_last_one_winning() {
    assert_error(
        &with_section(r#""queue": {"dir": "/a"}, "queue": {"dir": "/b"}"#),
        "queue: appears twice; keep one",
    );
}

#[test]
fn people_name_allowed_users_only() {
    let users = r#""telegram": {"token": "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11", "allowedUsers": [42, 7]}"#;
    let (_f, config) = load_with(
        &format!(r#"{{{users}, "people": {{"bob": 7, "alice": 42}}}}"#),
        &[("HOME", "/h")],
    );
    assert_eq!(
        config.unwrap().people,
        vec![("alice".to_owned(), 42), ("bob".to_owned(), 7)]
    );
    for (people, problem) in [
        (
            r#"{"carol": 99}"#,
            "people.carol: 99 is not in telegram.allowedUsers: only allowed users can be named (add it there first)",
        ),
        (
            r#"{"123": 42}"#,
            "people.123: a name must be a word of letters, digits, _, - or . (not only digits, which would read as a user id)",
        ),
        (
            r#"{"a b": 42}"#,
            "people.a b: a name must be a word of letters, digits, _, - or . (not only digits, which would read as a user id)",
        ),
        (
            r#"{"alice": 42, "ally": 42}"#,
            "people.ally: 42 is already named `alice`",
        ),
        (
            r#"{"alice": "42"}"#,
            "people.alice: expected a Telegram user id (a positive whole number), found a string",
        ),
    ] {
        assert_error(&format!(r#"{{{users}, "people": {people}}}"#), problem);
    }
}
