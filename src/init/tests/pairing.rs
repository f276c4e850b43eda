//! `init` pairing with a scripted Telegram: who ends up in allowedUsers, which token pairs, and that an expired
//! code or a running daemon writes nothing. The real exchange is tests/cli_pair.rs.

use super::*;

fn ada() -> Paired {
    Paired {
        id: 93533553,
        name: "Ada Lovelace (@ada)".to_owned(),
    }
}

#[test]
fn without_a_user_the_owner_is_paired_with_the_token_given() {
    let world = World::new();
    let mut script = Script::pairing_with(Some(ada()));
    let opts = InitOptions {
        users: vec![],
        api_url: Some("http://127.0.0.1:9/".into()),
        ..world.options()
    };
    let report = init(opts, &mut script).unwrap();
    assert_eq!(report.paired, Some(ada()));
    assert!(
        report.to_string().starts_with(
            "paired   Ada Lovelace (@ada), user id 93533553: added to telegram.allowedUsers\n"
        ),
        "{report}"
    );
    let [request] = script.pair_requests.as_slice() else {
        panic!("{:?}", script.pair_requests);
    };
    assert_eq!(
        (
            request.token.expose(),
            request.api_url.as_str(),
            request.ttl
        ),
        (TOKEN, "http://127.0.0.1:9", DEFAULT_TTL)
    );
    let config = Config::load(&world.home().join("config.json"), &world.env()).unwrap();
    assert_eq!(config.telegram.allowed_users, vec![93533553]);
}

#[test]
fn pair_adds_to_the_users_given_and_the_environment_token_pairs() {
    let world = World::new();
    let mut script = Script::pairing_with(Some(ada()));
    let opts = InitOptions {
        token: Some(String::new()),
        env_token: Some("999:ENV".into()),
        users: vec![42],
        pair: true,
        pair_ttl: Some(Duration::from_secs(3)),
        ..world.options()
    };
    init(opts, &mut script).unwrap();
    assert_eq!(script.pair_requests[0].token.expose(), "999:ENV");
    assert_eq!(script.pair_requests[0].ttl, Duration::from_secs(3));
    let env = world.env_with(&[("ARBITER_TELEGRAM_TOKEN", TOKEN)]);
    let config = Config::load(&world.home().join("config.json"), &env).unwrap();
    assert_eq!(config.telegram.allowed_users, vec![42, 93533553]);
    assert_eq!(config.telegram.token_source, TokenSource::Env);
}

#[test]
fn an_expired_code_or_a_running_daemon_writes_nothing() {
    let world = World::new();
    let opts = InitOptions {
        users: vec![],
        ..world.options()
    };
    let error = init(opts.clone(), &mut Script::pairing_with(None)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the pairing code expired after 10 minutes with no `/start pair-<code>` from a private chat; nothing \
         was written: run `arbiter init` again"
    );
    assert!(!world.home().exists());

    let queue = world.user_home.join("q");
    fs::create_dir_all(&queue).unwrap();
    let lock = fs::File::create(queue.join(".arbiter.lock")).unwrap();
    lock.lock().unwrap();
    let mut script = Script::pairing_with(Some(ada()));
    let error = init(
        InitOptions {
            queue: Some(queue.clone()),
            ..opts
        },
        &mut script,
    )
    .unwrap_err();
    assert!(
        matches!(&error, InitError::DaemonRunning { queue: q, .. } if *q == queue),
        "{error}"
    );
    assert!(script.pair_requests.is_empty());
    assert!(!world.home().exists());
}
