//! `telegram.groups`: read in order, every mistake named by its key.

use super::*;
use crate::config::paths::env_of;
use std::fs;

const TOKEN: &str = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11";

/// Loads a config whose telegram section holds `groups`; the error is the line after the file's path.
fn load(groups: &str) -> Result<Config, String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("config.json");
    let text = format!(
        r#"{{"telegram": {{"token": "{TOKEN}", "allowedUsers": [42], "groups": {groups}}}}}"#
    );
    fs::write(&path, text).expect("write");
    Config::load(&path, &env_of(&[("HOME", "/home/ada")])).map_err(|e| {
        let full = e.to_string();
        let prefix = format!("{}: ", path.display());
        full.strip_prefix(&prefix).unwrap_or(&full).to_owned()
    })
}

#[test]
fn groups_and_topics_are_read_in_order() {
    let config = load(
        r#"[{"chat": -1001234567890, "topics": {"agent:builder": 17, "tag:infra": 23, "*": 1}},
            {"chat": -42}]"#,
    )
    .expect("valid");
    assert_eq!(
        config.telegram.groups,
        vec![
            GroupConfig {
                chat: -1001234567890,
                // A JSON object's keys in the map's order: `*` sorts first; the daemon tries agent, tag, then `*`.
                topics: vec![
                    (TopicRule::Any, 1),
                    (TopicRule::Agent("builder".to_owned()), 17),
                    (TopicRule::Tag("infra".to_owned()), 23),
                ],
            },
            GroupConfig {
                chat: -42,
                topics: Vec::new()
            },
        ]
    );
    assert_eq!(load("[]").expect("valid").telegram.groups, Vec::new());
}

#[test]
fn every_mistake_names_its_key() {
    let cases = [
        (
            r#"[{"topics": {"*": 1}}]"#,
            "telegram.groups[0].chat: missing; the group's chat id (negative, like -1001234567890: the daemon \
             logs it when the bot is added to the group)",
        ),
        (
            r#"[{"chat": 93533553}]"#,
            "telegram.groups[0].chat: 93533553 is no group: a group's chat id is negative (like \
             -1001234567890); a user id goes in telegram.allowedUsers",
        ),
        (
            r#"[{"chat": -5}, {"chat": -5}]"#,
            "telegram.groups[1].chat: -5 is already telegram.groups[0]: list a group once",
        ),
        (
            r#"[{"chat": -5, "topics": {"builder": 3}}]"#,
            "telegram.groups[0].topics.builder: a topic key is `agent:NAME`, `tag:TAG` or `*`",
        ),
        (
            r#"[{"chat": -5, "topics": {"agent:": 3}}]"#,
            "telegram.groups[0].topics.agent:: a topic key is `agent:NAME`, `tag:TAG` or `*`",
        ),
        (
            r#"[{"chat": -5, "topics": {"tag:infra": 0}}]"#,
            "telegram.groups[0].topics.tag:infra: 0 is no topic id: a positive whole number (the daemon logs \
             the ids of topics it sees a message in; 1 is the General topic)",
        ),
    ];
    for (groups, expected) in cases {
        assert_eq!(load(groups).err().as_deref(), Some(expected), "{groups}");
    }
    // Types and unknown keys are serde's, at the key.
    let wrong_type = load(r#"[{"chat": "-5"}]"#).err().unwrap_or_default();
    assert!(
        wrong_type.starts_with("telegram.groups[0].chat: "),
        "{wrong_type}"
    );
    let unknown = load(r#"[{"chat": -5, "topic": {}}]"#)
        .err()
        .unwrap_or_default();
    assert!(
        unknown.starts_with("telegram.groups[0].topic: unknown key"),
        "{unknown}"
    );
    let not_a_list = load(r#"{"chat": -5}"#).err().unwrap_or_default();
    assert!(not_a_list.starts_with("telegram.groups: "), "{not_a_list}");
}
