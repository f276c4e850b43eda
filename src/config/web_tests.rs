//! The `web` section: defaults, and every refusal by its exact message.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::config::paths::env_of;

const TOKEN: &str = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11";

fn load(web: &str) -> (tempfile::TempDir, Result<Config, String>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    let text =
        format!(r#"{{"telegram": {{"token": "{TOKEN}", "allowedUsers": [42]}}, "web": {web}}}"#);
    std::fs::write(&path, text).unwrap();
    let result = Config::load(&path, &env_of(&[("HOME", "/home/ada")]))
        .map_err(|e| e.to_string().replace(&format!("{}: ", path.display()), ""));
    (dir, result)
}

fn error(web: &str) -> String {
    load(web).1.unwrap_err()
}

#[test]
fn absent_means_off_and_an_empty_section_takes_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    let text = format!(r#"{{"telegram": {{"token": "{TOKEN}", "allowedUsers": [42]}}}}"#);
    std::fs::write(&path, text).unwrap();
    let config = Config::load(&path, &env_of(&[("HOME", "/home/ada")])).unwrap();
    assert_eq!(config.web, None);

    let web = load("{}").1.unwrap().web.unwrap();
    assert_eq!(web.listen.to_string(), DEFAULT_WEB_LISTEN);
    assert!(!web.allow_remote);
    assert_eq!(web.public_url, None);
    assert_eq!(web.session_days, DEFAULT_SESSION_DAYS);
    assert!(web.agent_tokens.is_empty());
}

#[test]
fn every_key() {
    let web = load(
        r#"{"listen": "0.0.0.0:9000", "allowRemote": true, "publicUrl": "https://arbiter.example.com/",
            "sessionDays": 7, "agentTokens": {"claude": "0123456789abcdef0123"}}"#,
    )
    .1
    .unwrap()
    .web
    .unwrap();
    assert_eq!(web.listen.to_string(), "0.0.0.0:9000");
    assert_eq!(
        web.public_url.unwrap().as_str(),
        "https://arbiter.example.com/"
    );
    assert_eq!(web.session_days, 7);
    assert_eq!(web.agent_tokens["claude"].expose(), "0123456789abcdef0123");
    assert_eq!(
        format!("{:?}", web.agent_tokens["claude"]),
        "SecretToken(<redacted>)"
    );
    let local = load(r#"{"listen": "localhost:8471"}"#)
        .1
        .unwrap()
        .web
        .unwrap();
    assert_eq!(local.listen.to_string(), "127.0.0.1:8471");
}

#[test]
fn refusals() {
    assert_eq!(
        error(r#"{"listen": "0.0.0.0:8470"}"#),
        "web.listen: 0.0.0.0:8470 can be reached from other machines; listen on 127.0.0.1 (and put a reverse \
         proxy or tunnel in front, see web.publicUrl), or set web.allowRemote to true if that is what you want"
    );
    assert_eq!(
        error(r#"{"listen": "8470"}"#),
        r#"web.listen: expected an address and port such as 127.0.0.1:8470, found "8470""#
    );
    assert_eq!(
        error(r#"{"publicUrl": "arbiter.example.com"}"#),
        r#"web.publicUrl: expected an http:// or https:// URL, found "arbiter.example.com""#
    );
    assert_eq!(
        error(r#"{"sessionDays": 0}"#),
        "web.sessionDays: expected a whole number of days from 1 to 365, found 0"
    );
    assert_eq!(
        error(r#"{"agentTokens": {"claude": "short"}}"#),
        r#"web.agentTokens: the token of "claude" must be at least 16 characters without spaces (e.g. from `openssl rand -hex 32`)"#
    );
    assert_eq!(
        error(r#"{"agentTokens": {"a": "0123456789abcdef", "b": "0123456789abcdef"}}"#),
        r#"web.agentTokens: the token of "b" is also another agent's; give each agent its own"#
    );
    assert_eq!(
        error(r#"{"allowRemote": "yes"}"#),
        "web.allowRemote: expected true or false, found a string"
    );
    assert_eq!(
        error(r#"{"port": 1}"#).split(';').next().unwrap(),
        "web.port: unknown key"
    );
    assert_eq!(
        error("[]"),
        "web: expected an object ({ ... }), found a list"
    );
}
