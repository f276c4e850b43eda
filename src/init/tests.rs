//! `init` in a temp dir with an injected home: what ends up on disk, and what the user is told.

// This branch predates main's clippy.toml (allow-unwrap-in-tests); harmless once merged.
#![allow(clippy::unwrap_used)]

use super::files::Outcome;
use super::unit::SYSTEMD_UNIT;
use super::*;
use crate::config::{Config, TokenSource};
use std::collections::VecDeque;
use std::fs;

/// Without `--user`: the owner found by pairing (through a scripted [`InitIo::pair`]).
mod pairing;

const TOKEN: &str = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11";

struct Script {
    interactive: bool,
    answers: VecDeque<&'static str>,
    asked: Vec<String>,
    /// Who pairing finds (`None`: the code expires).
    paired: Option<Paired>,
    pair_requests: Vec<PairRequest>,
}

impl Script {
    fn silent() -> Script {
        Script {
            interactive: false,
            answers: VecDeque::new(),
            asked: Vec::new(),
            paired: None,
            pair_requests: Vec::new(),
        }
    }

    fn pairing_with(paired: Option<Paired>) -> Script {
        Script {
            paired,
            ..Script::silent()
        }
    }

    fn answering(answers: &[&'static str]) -> Script {
        Script {
            interactive: true,
            answers: answers.iter().copied().collect(),
            asked: Vec::new(),
            paired: None,
            pair_requests: Vec::new(),
        }
    }
}

impl InitIo for Script {
    fn interactive(&self) -> bool {
        self.interactive
    }

    fn ask(&mut self, question: &str) -> std::io::Result<Option<String>> {
        self.asked.push(question.to_owned());
        Ok(self.answers.pop_front().map(str::to_owned))
    }

    fn pair(&mut self, request: &PairRequest) -> Result<Paired, PairError> {
        self.pair_requests.push(request.clone());
        self.paired
            .clone()
            .ok_or(PairError::Expired { ttl: request.ttl })
    }
}

struct World {
    _dir: tempfile::TempDir,
    user_home: PathBuf,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let user_home = dir.path().join("ada");
        fs::create_dir(&user_home).unwrap();
        World {
            _dir: dir,
            user_home,
        }
    }

    fn home(&self) -> PathBuf {
        self.user_home.join(".arbiter")
    }

    fn env(&self) -> impl Fn(&str) -> Option<String> + use<> {
        self.env_with(&[])
    }

    /// HOME plus `extra` variables.
    fn env_with(&self, extra: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let mut vars = vec![(
            "HOME".to_owned(),
            self.user_home.to_string_lossy().into_owned(),
        )];
        vars.extend(
            extra
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        move |key| vars.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    }

    /// Options as the CLI builds them for `arbiter init --token TOKEN --user 42`.
    fn options(&self) -> InitOptions {
        InitOptions {
            token: Some(TOKEN.to_owned()),
            users: vec![42],
            ..InitOptions::from_env(&self.env()).unwrap()
        }
    }

    fn unit_path(&self) -> PathBuf {
        self.user_home.join(".config/systemd/user/arbiter.service")
    }
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn creates_the_layout_and_a_private_config_that_loads() {
    let world = World::new();
    let report = init(world.options(), &mut Script::silent()).unwrap();
    let home = world.home();
    for dir in ["queue/pending", "queue/completed", "queue/notify", "logs"] {
        assert!(home.join(dir).is_dir(), "{dir}");
    }
    let config_path = home.join("config.json");
    #[cfg(unix)]
    {
        assert_eq!(mode(&config_path), 0o600);
        assert_eq!(mode(&home), 0o700);
    }
    let config = Config::load(&config_path, &world.env()).unwrap();
    assert_eq!(config.telegram.token.expose(), TOKEN);
    assert_eq!(config.telegram.allowed_users, vec![42]);
    assert_eq!(config.queue.dir, home.join("queue"));
    assert_eq!(Config::permission_warning(&config_path), None);
    let text = fs::read_to_string(&config_path).unwrap();
    assert!(text.contains(r#""dir": "~/.arbiter/queue""#), "{text}");

    let outcomes: Vec<Outcome> = report.steps.iter().map(|step| step.outcome).collect();
    assert_eq!(
        outcomes,
        [[Outcome::CreatedDir; 5].as_slice(), &[Outcome::Wrote]].concat()
    );
    assert_eq!(report.steps[5].path, config_path);
    assert_eq!(
        report.next_steps,
        ["arbiter run   # start the daemon (or: arbiter init --systemd)"]
    );
    let shown = report.to_string();
    assert!(
        shown.starts_with(&format!("created  {}\n", home.display())),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("wrote    {}\n", config_path.display())),
        "{shown}"
    );
}

#[test]
fn never_overwrites_without_force() {
    let world = World::new();
    init(world.options(), &mut Script::silent()).unwrap();
    let config_path = world.home().join("config.json");
    fs::write(&config_path, "mine").unwrap();
    let error = init(world.options(), &mut Script::answering(&[])).unwrap_err();
    let expected = format!(
        "{}: already exists; pass --force to overwrite it",
        config_path.display()
    );
    assert_eq!(error.to_string(), expected);
    assert_eq!(fs::read_to_string(&config_path).unwrap(), "mine");
}

#[test]
fn force_overwrites_and_fixes_the_mode() {
    let world = World::new();
    init(world.options(), &mut Script::silent()).unwrap();
    let config_path = world.home().join("config.json");
    fs::write(&config_path, "mine").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&config_path, fs::Permissions::from_mode(0o644)).unwrap();
    }
    let opts = InitOptions {
        force: true,
        users: vec![7, 8],
        ..world.options()
    };
    let report = init(opts, &mut Script::silent()).unwrap();
    let config = Config::load(&config_path, &world.env()).unwrap();
    assert_eq!(config.telegram.allowed_users, vec![7, 8]);
    #[cfg(unix)]
    assert_eq!(mode(&config_path), 0o600);
    let last = report.steps.last().unwrap();
    assert_eq!(
        (last.path.clone(), last.outcome),
        (config_path, Outcome::Replaced)
    );
    assert!(
        report
            .steps
            .iter()
            .take(5)
            .all(|step| step.outcome == Outcome::ExistingDir)
    );
}

#[test]
fn writes_the_systemd_unit() {
    let world = World::new();
    let report = init(
        InitOptions {
            systemd: true,
            ..world.options()
        },
        &mut Script::silent(),
    )
    .unwrap();
    assert_eq!(fs::read_to_string(world.unit_path()).unwrap(), SYSTEMD_UNIT);
    assert_eq!(
        report.steps.last().map(|step| step.path.clone()),
        Some(world.unit_path())
    );
    assert_eq!(
        report.next_steps[0],
        "systemctl --user daemon-reload && systemctl --user enable --now arbiter"
    );
}

#[test]
fn a_host_denying_user_namespaces_gets_a_unit_that_starts_there_and_is_told_why() {
    let world = World::new();
    let report = init(
        InitOptions {
            systemd: true,
            user_namespaces: UserNamespaces::Denied(
                "kernel.apparmor_restrict_unprivileged_userns = 1",
            ),
            ..world.options()
        },
        &mut Script::silent(),
    )
    .unwrap();
    let unit = fs::read_to_string(world.unit_path()).unwrap();
    assert!(unit.contains("\n#CapabilityBoundingSet=\n"), "{unit}");
    assert!(unit.contains("\nSystemCallFilter=@system-service\n"));
    assert_eq!(
        report.next_steps[0],
        "this host denies unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1): \
         the unit's settings that need one are commented out (see its comments); its system-call filters \
         still apply"
    );
}

#[test]
fn unit_file_is_not_overwritten_without_force() {
    let world = World::new();
    fs::create_dir_all(world.unit_path().parent().unwrap()).unwrap();
    fs::write(world.unit_path(), "mine").unwrap();
    let error = init(
        InitOptions {
            systemd: true,
            ..world.options()
        },
        &mut Script::silent(),
    );
    let expected = format!(
        "{}: already exists; pass --force to overwrite it",
        world.unit_path().display()
    );
    assert_eq!(error.unwrap_err().to_string(), expected);
    assert!(!world.home().exists(), "nothing created before the check");
    let opts = InitOptions {
        systemd: true,
        force: true,
        ..world.options()
    };
    init(opts, &mut Script::silent()).unwrap();
    assert_eq!(fs::read_to_string(world.unit_path()).unwrap(), SYSTEMD_UNIT);
}

#[test]
fn systemd_unit_dir_follows_xdg_config_home() {
    let world = World::new();
    let xdg = world.user_home.join("xdg");
    let env = world.env_with(&[("XDG_CONFIG_HOME", &xdg.to_string_lossy())]);
    let opts = InitOptions {
        systemd: true,
        token: Some(String::new()),
        users: vec![1],
        ..InitOptions::from_env(&env).unwrap()
    };
    let report = init(opts, &mut Script::silent()).unwrap();
    assert!(xdg.join("systemd/user/arbiter.service").is_file());
    let no_token = "no token in config.json: put ARBITER_TELEGRAM_TOKEN=<token from @BotFather> in";
    assert!(
        report.next_steps[0].starts_with(no_token),
        "{:?}",
        report.next_steps
    );
}

#[test]
fn queue_and_api_url_flags_are_written() {
    let world = World::new();
    let queue = world.user_home.join("elsewhere/q");
    let opts = InitOptions {
        queue: Some(PathBuf::from("~/elsewhere/q")),
        api_url: Some("http://127.0.0.1:8081/".into()),
        ..world.options()
    };
    init(opts, &mut Script::silent()).unwrap();
    assert!(queue.join("pending").is_dir());
    assert!(!world.home().join("queue").exists());
    let config = Config::load(&world.home().join("config.json"), &world.env()).unwrap();
    assert_eq!(config.queue.dir, queue);
    let api_url = config.telegram.api_url.map(String::from);
    assert_eq!(api_url.as_deref(), Some("http://127.0.0.1:8081/"));
}

#[test]
fn non_interactive_without_user_is_an_error() {
    let world = World::new();
    let opts = InitOptions {
        token: Some(String::new()),
        users: vec![],
        ..world.options()
    };
    let error = init(opts, &mut Script::silent()).unwrap_err().to_string();
    let expected = "no Telegram user id given, and no bot token to pair with: give the token (the prompt, \
                    --token or ARBITER_TELEGRAM_TOKEN) so init can pair with your phone, or pass --user <id>";
    assert_eq!(error, expected);
    assert!(!world.home().exists());
}

#[test]
fn non_interactive_without_token_leaves_it_to_the_environment() {
    let world = World::new();
    init(
        InitOptions {
            token: None,
            ..world.options()
        },
        &mut Script::silent(),
    )
    .unwrap();
    let text = fs::read_to_string(world.home().join("config.json")).unwrap();
    assert!(!text.contains("token"), "{text}");
}

#[test]
fn prompts_for_missing_values() {
    let world = World::new();
    let mut script = Script::answering(&["nope", "", "@me", "93533553, 42"]);
    let opts = InitOptions {
        token: None,
        users: vec![],
        ..world.options()
    };
    init(opts, &mut script).unwrap();
    assert_eq!(script.asked.len(), 4);
    assert!(
        script.asked[1].starts_with("That does not look like a bot token"),
        "{:?}",
        script.asked
    );
    assert!(
        script.asked[3].starts_with("\"@me\" is not a user id"),
        "{:?}",
        script.asked
    );
    let env = world.env_with(&[("ARBITER_TELEGRAM_TOKEN", TOKEN)]);
    let config = Config::load(&world.home().join("config.json"), &env).unwrap();
    assert_eq!(config.telegram.allowed_users, vec![93533553, 42]);
    assert_eq!(config.telegram.token_source, TokenSource::Env);
}

#[test]
fn prompt_gives_up_after_three_bad_answers() {
    let world = World::new();
    let opts = InitOptions {
        token: Some(String::new()),
        users: vec![],
        ..world.options()
    };
    let error = init(opts, &mut Script::answering(&["a", "b", "c", "1"])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "--user c: not a Telegram user id (a positive whole number)"
    );
}

#[test]
fn bad_flags() {
    let world = World::new();
    let cases = [
        (
            InitOptions {
                token: Some("BOT_TOKEN_HERE".into()),
                ..world.options()
            },
            "--token: does not look like a bot token (expected digits, a colon, then letters, digits, - and _, e.g. 123456:ABC-DEF1234ghIkl)",
        ),
        (
            InitOptions {
                users: vec![0],
                ..world.options()
            },
            "--user 0: not a Telegram user id (a positive whole number)",
        ),
        (
            InitOptions {
                api_url: Some("localhost:8081".into()),
                ..world.options()
            },
            r#"--api-url: expected an http:// or https:// URL, found "localhost:8081""#,
        ),
        (
            InitOptions {
                systemd: true,
                systemd_unit_dir: None,
                ..world.options()
            },
            "cannot find the systemd user folder: set XDG_CONFIG_HOME or HOME",
        ),
    ];
    for (opts, expected) in cases {
        assert_eq!(
            init(opts, &mut Script::silent()).unwrap_err().to_string(),
            expected
        );
    }
    assert!(!world.home().exists());
}
