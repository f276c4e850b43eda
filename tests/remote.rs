//! Agents on another machine: the real `arbiter` binary with `--server` (ARBITER_SERVER) against the daemon's HTTP
//! server, run as another user (uid 65534, when the tests run as root) with a HOME of its own and the daemon's
//! queue closed to it, so nothing it does can go through the queue's files. Tokens come from `arbiter token add`
//! on the daemon's side, through the real binary too.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::cli_support::{Output, collect};
use crate::support::TempQueue;
use crate::support::daemon::{OWNER, WAIT};
use crate::support::web::Dash;

/// The uid and gid the agent side runs as, when the tests can switch to it.
const NOBODY: u32 = 65534;

const PLAN: &str = "---\nagent: builder\ntitle: Ship the release?\n---\n\n## Ship\n\n**Options:**\n- `yes` — Ship it\n- `no` — Hold it\n";

/// The daemon (in-process, with its dashboard), its config for `arbiter token`, and a home for the agent side.
pub struct Remote {
    pub dash: Dash,
    pub config: PathBuf,
    pub agent_home: tempfile::TempDir,
}

fn as_other_user() -> bool {
    rustix::process::geteuid().is_root() && Path::new("/usr/bin/setpriv").exists()
}

impl Remote {
    pub async fn start() -> Remote {
        Remote::start_at(None).await
    }

    /// [`Remote::start`] with `web.publicUrl` (behind a reverse proxy).
    pub async fn start_at(public_url: Option<&str>) -> Remote {
        let queue = TempQueue::new();
        // The daemon's queue: closed to everyone but its owner.
        std::fs::set_permissions(queue.root(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let dash = match public_url {
            Some(url) => Dash::start_public(queue, url).await,
            None => Dash::start(queue).await,
        };
        let config = dash.home.path().join("config.json");
        let text = serde_json::json!({
            "telegram": {"token": dash.run.fake.token(), "allowedUsers": [OWNER]},
            "web": {"listen": "127.0.0.1:8470"},
        });
        std::fs::write(&config, text.to_string()).unwrap();
        let agent_home = tempfile::tempdir().unwrap();
        if as_other_user() {
            rustix::fs::chown(
                agent_home.path(),
                Some(rustix::fs::Uid::from_raw(NOBODY)),
                Some(rustix::fs::Gid::from_raw(NOBODY)),
            )
            .unwrap();
        }
        Remote {
            dash,
            config,
            agent_home,
        }
    }

    /// `arbiter --config CONFIG token ARGS…` on the daemon's machine.
    pub fn token(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_arbiter"));
        cmd.arg("--config")
            .arg(&self.config)
            .arg("token")
            .args(args);
        cmd.env("HOME", self.dash.home.path())
            .env("ARBITER_HOME", self.dash.home.path())
            .env_remove("ARBITER_SERVER")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        collect(cmd.spawn().unwrap())
    }

    /// A new token for machine `name`, written to a file of the agent's home; the file's path.
    pub fn token_file(&self, name: &str) -> PathBuf {
        let made = self.token(&["add", name]);
        assert_eq!(made.code, Some(0), "{}", made.stderr);
        let file = self.agent_home.path().join(format!("{name}.token"));
        std::fs::write(&file, &made.stdout).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        if as_other_user() {
            rustix::fs::chown(
                &file,
                Some(rustix::fs::Uid::from_raw(NOBODY)),
                Some(rustix::fs::Gid::from_raw(NOBODY)),
            )
            .unwrap();
        }
        file
    }

    /// The agent side: `arbiter ARGS…` as the other user, in its own home, with ARBITER_SERVER and
    /// ARBITER_TOKEN_FILE set.
    pub fn agent(&self, token: &Path, args: &[&str]) -> Command {
        agent_command(self.agent_home.path(), &self.dash.base, token, args)
    }
}

/// The command line that runs `arbiter ARGS…` as the other user (for a client that starts it itself).
fn other_user_command_line(args: &[&str]) -> Vec<String> {
    let exe = env!("CARGO_BIN_EXE_arbiter");
    let mut line: Vec<String> = if as_other_user() {
        [
            "/usr/bin/setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--",
            exe,
        ]
        .map(str::to_owned)
        .to_vec()
    } else {
        vec![exe.to_owned()]
    };
    line.extend(args.iter().map(|a| (*a).to_owned()));
    line
}

/// `arbiter ARGS…` as the other user with home `home`, pointed at `server` with `token`.
pub fn agent_command(home: &Path, server: &str, token: &Path, args: &[&str]) -> Command {
    let exe = env!("CARGO_BIN_EXE_arbiter");
    let mut cmd = if as_other_user() {
        let mut c = Command::new("/usr/bin/setpriv");
        c.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--",
            exe,
        ]);
        c
    } else {
        Command::new(exe)
    };
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ARBITER_HOME", home.join(".arbiter"))
        .env("ARBITER_SERVER", server)
        .env("ARBITER_TOKEN_FILE", token)
        .current_dir(home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn run(mut cmd: Command, stdin: &str) -> Output {
    use std::io::Write;
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    collect(child)
}

/// Answers the plan announced with `title` on the owner's phone: open, continue, the option, submit.
async fn answer_on_phone(dash: &Dash, title: &str, option: &str) {
    let d = &dash.run;
    let id = d.wait_message(|m| m.plain.contains(title)).await.message_id;
    d.tap(id, "📂 Open").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("📄"))
        .await;
    d.tap(id, "▶️ Continue").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("1/1"))
        .await;
    d.tap(id, option).await;
    let review = d
        .wait_message(|m| m.buttons().iter().any(|b| b.text == "📤 Submit") && m.message_id == id)
        .await;
    d.tap(review.message_id, "📤 Submit").await;
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_and_await_from_another_machine_answered_on_the_phone() {
    let r = Remote::start().await;
    let queue = r.dash.run.queue.root().to_owned();
    if as_other_user() {
        // The agent side can't reach the daemon's files at all.
        let mut peek = Command::new("/usr/bin/setpriv");
        peek.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--",
            "ls",
        ])
        .arg(queue.join("pending"));
        let peek = peek.output().unwrap();
        assert!(
            !peek.status.success(),
            "the queue must be closed to the agent side"
        );
    }
    let token = r.token_file("devbox");

    let pushed = run(r.agent(&token, &["push", "-"]), PLAN);
    assert_eq!(pushed.code, Some(0), "{}", pushed.stderr);
    let id = pushed.stdout.trim().to_owned();
    assert!(!id.is_empty());
    // The plan is in the daemon's queue, carrying the machine; the owner's message names agent@machine.
    let pending = files(&queue.join("pending"));
    assert_eq!(pending.len(), 1, "{pending:?}");
    let text = std::fs::read_to_string(queue.join("pending").join(&pending[0])).unwrap();
    assert!(text.contains("\nmachine: devbox\n"), "{text}");
    let announced = r
        .dash
        .run
        .wait_message(|m| m.plain.contains("Ship the release?"))
        .await;
    assert!(
        announced.plain.contains("from builder@devbox"),
        "{}",
        announced.plain
    );
    // Nothing was written on the agent's side.
    assert!(!r.agent_home.path().join(".arbiter").exists());

    // `status`, `list` and `get` read it through the daemon.
    let status = run(r.agent(&token, &["status", &id, "--json"]), "");
    assert_eq!(status.code, Some(0), "{}", status.stderr);
    let status: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(status["status"], "pending");
    let list = run(r.agent(&token, &["list"]), "");
    assert!(list.stdout.contains(&id), "{}", list.stdout);

    // `await` waits on the daemon while the owner answers on the phone.
    let waiting = r
        .agent(&token, &["await", &id, "--timeout", "2m"])
        .spawn()
        .unwrap();
    answer_on_phone(&r.dash, "Ship the release?", "A").await;
    let waited = tokio::task::spawn_blocking(move || collect(waiting))
        .await
        .unwrap();
    assert_eq!(waited.code, Some(0), "{}", waited.stderr);
    assert!(waited.stdout.contains("[ship]: yes"), "{}", waited.stdout);
    let done = std::fs::read_to_string(queue.join("completed").join(&pending[0])).unwrap();
    assert!(done.contains("status: completed"), "{done}");

    // Its notification, through the daemon, acknowledged there.
    let told = run(r.agent(&token, &["notifications", "--ack", "--json"]), "");
    assert_eq!(told.code, Some(0), "{}", told.stderr);
    let told: serde_json::Value = serde_json::from_str(&told.stdout).unwrap();
    assert_eq!(told[0]["plan_id"], id.as_str(), "{told}");
    assert!(files(&queue.join("notify")).is_empty());

    // The audit trail names the machine.
    let trail = arbiter_zebu::queue::audit::recent(&queue, 1).unwrap();
    assert!(
        trail
            .iter()
            .any(|e| e.action == "push" && e.actor == "agent:builder@devbox"),
        "{trail:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_machine_reaches_only_its_own_plans_and_withdraws_them() {
    let r = Remote::start().await;
    let queue = r.dash.run.queue.root().to_owned();
    let mine = r.token_file("devbox");
    let theirs = r.token_file("ci-runner");
    let pushed = run(r.agent(&mine, &["push", "-"]), PLAN);
    let id = pushed.stdout.trim().to_owned();

    // Another machine's token does not see it, nor take it back: it reads as no plan at all.
    for args in [
        vec!["status", id.as_str()],
        vec!["get", id.as_str()],
        vec!["withdraw", id.as_str()],
        vec!["await", id.as_str(), "--timeout", "2s"],
    ] {
        let out = run(r.agent(&theirs, &args), "");
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains(&format!("no plan with id `{id}`")),
            "{args:?}: {}",
            out.stderr
        );
    }
    let list = run(r.agent(&theirs, &["list", "--json"]), "");
    assert_eq!(list.stdout.trim(), "[]", "{}", list.stderr);
    assert_eq!(files(&queue.join("pending")).len(), 1);

    // Its own machine withdraws it.
    let out = run(
        r.agent(&mine, &["withdraw", &id, "--reason", "moved on"]),
        "",
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("was withdrawn"), "{}", out.stdout);
    assert!(out.stdout.contains("moved on"), "{}", out.stdout);
    assert!(files(&queue.join("pending")).is_empty());
    let out = run(r.agent(&mine, &["await", &id]), "");
    assert_eq!(out.code, Some(5), "{}", out.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_and_revoked_tokens_are_refused_with_nothing_written() {
    let r = Remote::start().await;
    let queue = r.dash.run.queue.root().to_owned();
    let wrong = r.agent_home.path().join("wrong.token");
    std::fs::write(
        &wrong,
        "arbiter_0000000000000000000000000000000000000000000000000000000000000000\n",
    )
    .unwrap();
    if as_other_user() {
        rustix::fs::chown(
            &wrong,
            Some(rustix::fs::Uid::from_raw(NOBODY)),
            Some(rustix::fs::Gid::from_raw(NOBODY)),
        )
        .unwrap();
    }
    let out = run(r.agent(&wrong, &["push", "-"]), PLAN);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_eq!(
        out.stderr,
        format!(
            "arbiter: {}/mcp: the daemon refused the token (HTTP 401): a wrong token, or one revoked (`arbiter \
             token list` on the daemon's machine)\n",
            r.dash.base
        )
    );
    assert!(files(&queue.join("pending")).is_empty());

    // A token in force, then revoked: refused from the next request on, no restart.
    let token = r.token_file("devbox");
    let first = run(r.agent(&token, &["push", "-"]), PLAN);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let listed = r.token(&["list"]);
    assert!(
        listed.stdout.contains("devbox") && listed.stdout.contains("in force"),
        "{}",
        listed.stdout
    );
    let revoked = r.token(&["revoke", "devbox"]);
    assert_eq!(revoked.code, Some(0), "{}", revoked.stderr);
    let again = run(
        r.agent(&token, &["push", "-"]),
        PLAN.replace("Ship the", "Ship another").as_str(),
    );
    assert_eq!(again.code, Some(2), "{}", again.stderr);
    assert!(
        again.stderr.contains("refused the token"),
        "{}",
        again.stderr
    );
    assert_eq!(files(&queue.join("pending")).len(), 1);
    // The file keeps hashes only.
    let stored = std::fs::read_to_string(r.dash.home.path().join("web/machines.json")).unwrap();
    let secret = std::fs::read_to_string(&token).unwrap();
    assert!(!stored.contains(secret.trim()), "{stored}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_that_is_down_or_plain_http_elsewhere_is_one_line_and_exit_2() {
    let home = tempfile::tempdir().unwrap();
    let token = home.path().join("t");
    std::fs::write(&token, "arbiter_x").unwrap();
    let addr = crate::support::web::free_local_address();
    let url = format!("http://{addr}");
    let out = run(
        agent_command(home.path(), &url, &token, &["push", "-"]),
        PLAN,
    );
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .starts_with(&format!("arbiter: {url}/mcp: unreachable: ")),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    // Plain http:// to another host is refused before anything is sent.
    let out = run(
        agent_command(
            home.path(),
            "http://192.0.2.1:8470",
            &token,
            &["status", "x"],
        ),
        "",
    );
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("plain http:// only to a loopback address"),
        "{}",
        out.stderr
    );

    // A hook against a daemon that is down: the agent's "no decision" at once (exit 0), one line on stderr.
    let input = include_str!("fixtures/agents/codex/PermissionRequest.json");
    let out = run(
        agent_command(home.path(), &url, &token, &["hook", "codex"]),
        input,
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, "", "no decision: Codex asks in its own prompt");
    assert!(
        out.stderr
            .starts_with(&format!("arbiter: {url}/agent/hook: unreachable: ")),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
}

/// Something that is not Arbiter's daemon answers: one line saying so, exit 2 (the hook: no decision).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_answers_garbage_is_named() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = axum::Router::new().fallback(|| async { "hello from something else" });
    tokio::spawn(async move { axum::serve(listener, app).await });
    let home = tempfile::tempdir().unwrap();
    let token = home.path().join("t");
    std::fs::write(&token, "arbiter_x").unwrap();
    let out = run(agent_command(home.path(), &url, &token, &["list"]), "");
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr.starts_with(&format!(
            "arbiter: {url}/mcp: not an answer Arbiter's daemon gives: "
        )),
        "{}",
        out.stderr
    );
    let input = include_str!("fixtures/agents/codex/PermissionRequest.json");
    let out = run(
        agent_command(home.path(), &url, &token, &["hook", "codex"]),
        input,
    );
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (Some(0), ""),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.starts_with(&format!(
            "arbiter: {url}/agent/hook: not an answer Arbiter's daemon gives: "
        )),
        "{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arbiter_mcp_relays_to_the_daemon_for_the_official_mcp_client() {
    if !crate::mcp_python::sdk() {
        return;
    }
    let r = Remote::start().await;
    let queue = r.dash.run.queue.root().to_owned();
    let token = r.token_file("devbox");
    let mut args: Vec<String> = vec![
        "relay".into(),
        r.dash.base.clone(),
        token.to_string_lossy().into_owned(),
        r.agent_home.path().to_string_lossy().into_owned(),
    ];
    args.extend(other_user_command_line(&["mcp"]));
    let root = queue.clone();
    let result = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        crate::mcp_python::elicit(&root, &args, |root, owner, id| {
            let plan = arbiter_zebu::queue::Queue::open(root, true)
                .unwrap()
                .find_pending(id)
                .unwrap()
                .expect("pending in the daemon's queue")
                .plan;
            assert_eq!(plan.machine.as_deref(), Some("devbox"));
            crate::mcp_python::accept(root, owner, id);
        })
    })
    .await
    .unwrap();
    assert_eq!(
        result,
        serde_json::json!({"action": "accept", "content": {"replicas": 3, "region": "eu", "checks": ["lint", "tests"]}})
    );
    assert!(!r.agent_home.path().join(".arbiter").exists());
}

/// Gemini CLI (the real one, against the fake model API) with hooks from `hook gemini install --server`: its shell
/// command is asked through the daemon on the owner's phone, allowed there, and runs; nothing is written on the
/// agent's side but the project's hook settings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_coding_agents_hooks_installed_with_server_ask_the_daemon() {
    use crate::coding_agents::{exited, submit, tap_option};
    use crate::support::agent_cli::{self, Agent, Project};
    use crate::support::model::Turn;
    let Some(cli) = agent_cli::cli(Agent::Gemini) else {
        return;
    };
    let r = Remote::start().await;
    let token = r.token_file("devbox");
    let model = Agent::Gemini
        .model(vec![
            Agent::Gemini.shell("call_allow", "touch allowed.txt"),
            Turn::Text("Created the file.".to_owned()),
        ])
        .await;
    let project = Project::new(&cli, &model);
    let said = project.install_remote(&r.dash.base, &token, &["--no-stop"]);
    let settings = std::fs::read_to_string(project.dir().join(".gemini/settings.json")).unwrap();
    assert!(
        settings.contains("--server") && settings.contains("--token-file"),
        "{settings}"
    );
    assert!(
        !settings.contains("--queue") && !settings.contains("arbiter_"),
        "{settings}"
    );
    let mut run = project.start(&cli, "Create the file");
    let d = &r.dash.run;
    let shown = d.open_announced("touch allowed.txt").await;
    assert!(
        shown.plain.contains("gemini@devbox"),
        "{said}\n{}",
        shown.plain
    );
    let id = shown.message_id;
    d.tap(id, "▶️ Continue").await;
    let decision = d
        .wait_message(|m| m.message_id == id && m.plain.contains("1/1 ·"))
        .await;
    tap_option(d, &decision, "✅ Allow once").await;
    submit(d).await;
    exited(&mut run, &model, Some(d)).await;
    assert!(
        project.dir().join("allowed.txt").exists(),
        "the allowed command did not run; the agent printed:\n{}",
        run.log()
    );
    assert!(model.tool_output("call_allow").is_some(), "{}", model.log());
    assert!(
        !project.home().join(".arbiter").exists(),
        "nothing written locally"
    );
    let queue = r.dash.run.queue.root();
    let done = files(&queue.join("completed"));
    let text = std::fs::read_to_string(queue.join("completed").join(&done[0])).unwrap();
    assert!(text.contains("\nmachine: devbox\n"), "{text}");
}

/// The daemon behind a real TLS reverse proxy (Debian's `caddy`, `tls internal`: a private CA): the agent side
/// reaches it with that CA (`ARBITER_CA_FILE`) and is refused, with a TLS error naming the URL, without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_caddy_with_a_private_ca_and_refused_without_it() {
    if !Path::new("/usr/bin/caddy").exists() {
        assert!(
            std::env::var_os("ARBITER_REQUIRE_CADDY").is_none(),
            "CI requires caddy (apt-get install caddy)"
        );
        eprintln!("skipped: caddy is not installed");
        return;
    }
    let https = crate::support::web::free_local_address().port();
    let http = crate::support::web::free_local_address().port();
    let public = format!("https://localhost:{https}");
    let r = Remote::start_at(Some(&public)).await;
    let caddy_dir = tempfile::tempdir().unwrap();
    let data = caddy_dir.path().join("data");
    let upstream = r.dash.base.trim_start_matches("http://").to_owned();
    let caddyfile = caddy_dir.path().join("Caddyfile");
    std::fs::write(
        &caddyfile,
        format!(
            "{{\n\tadmin off\n\tskip_install_trust\n\thttp_port {http}\n\thttps_port {https}\n\t\
             storage file_system {{\n\t\troot {}\n\t}}\n}}\n\n\
             localhost:{https} {{\n\ttls internal\n\treverse_proxy {upstream}\n}}\n",
            data.display()
        ),
    )
    .unwrap();
    let mut caddy = Command::new("/usr/bin/caddy")
        .args(["run", "--adapter", "caddyfile", "--config"])
        .arg(&caddyfile)
        .env("HOME", caddy_dir.path())
        .env("XDG_DATA_HOME", caddy_dir.path())
        .env("XDG_CONFIG_HOME", caddy_dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let root = data.join("pki/authorities/local/root.crt");
    let ready = tokio::time::timeout(WAIT, async {
        while !root.exists() || std::net::TcpStream::connect(("127.0.0.1", https)).is_err() {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    })
    .await;
    if ready.is_err() {
        let _ = caddy.kill();
        panic!(
            "caddy did not start: {:?}",
            caddy
                .wait_with_output()
                .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
        );
    }
    let token = r.token_file("devbox");
    // The CA's root, readable by the agent side.
    let ca = r.agent_home.path().join("caddy-root.crt");
    std::fs::copy(&root, &ca).unwrap();
    std::fs::set_permissions(&ca, std::fs::Permissions::from_mode(0o644)).unwrap();

    let mut with_ca = agent_command(r.agent_home.path(), &public, &token, &["push", "-"]);
    with_ca.env("ARBITER_CA_FILE", &ca);
    let pushed = run(with_ca, PLAN);
    assert_eq!(pushed.code, Some(0), "{}", pushed.stderr);
    let id = pushed.stdout.trim().to_owned();
    let mut status = agent_command(r.agent_home.path(), &public, &token, &["status", &id]);
    status.env("ARBITER_CA_FILE", &ca);
    let status = run(status, "");
    assert_eq!(status.code, Some(0), "{}", status.stderr);
    assert!(status.stdout.contains("pending"), "{}", status.stdout);

    // Without the CA, the system's roots don't know caddy's: refused, one line, nothing pushed.
    let refused = run(
        agent_command(r.agent_home.path(), &public, &token, &["push", "-"]),
        PLAN,
    );
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .starts_with(&format!("arbiter: {public}/mcp: TLS failed: ")),
        "{}",
        refused.stderr
    );
    assert_eq!(files(&r.dash.run.queue.root().join("pending")).len(), 1);
    let _ = caddy.kill();
    let _ = caddy.wait();
}

/// A hook on another machine that is killed while it waits (its agent gave up): its connection closes, and the
/// daemon withdraws the plan it was asking with, as for a local hook.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_hook_that_goes_away_withdraws_its_plan() {
    let r = Remote::start().await;
    let token = r.token_file("devbox");
    let input = include_str!("fixtures/agents/codex/PermissionRequest.json");
    let mut hook = r
        .agent(&token, &["hook", "codex", "--timeout", "5m"])
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = hook.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
    }
    let queue = r.dash.run.queue.root().to_owned();
    let shown = r
        .dash
        .run
        .wait_message(|m| m.plain.contains("touch allowed.txt"))
        .await;
    assert!(shown.plain.contains("codex@devbox"), "{}", shown.plain);
    assert_eq!(files(&queue.join("pending")).len(), 1);
    // SIGKILL: nothing of the hook runs any more; only its closed connection tells.
    hook.kill().unwrap();
    let _ = hook.wait();
    let withdrawn = tokio::time::timeout(WAIT, async {
        loop {
            if let Some(name) = files(&queue.join("completed")).pop() {
                let text = std::fs::read_to_string(queue.join("completed").join(name)).unwrap();
                if text.contains("status: withdrawn") {
                    return text;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    })
    .await
    .expect("the plan is withdrawn once the hook is gone");
    assert!(
        withdrawn.contains("the hook on devbox stopped waiting"),
        "{withdrawn}"
    );
    assert!(files(&queue.join("pending")).is_empty());
}

/// `arbiter acp --server`: Gemini CLI over ACP beside an editor (the official ACP client library), its relay
/// asking the daemon on another machine. The editor leaves the request waiting: the phone allows it (the card says
/// whose machine asks), the command runs, the editor's copy is cancelled, the plan on the daemon names the machine,
/// and nothing is written where the agent runs. Then a second request the editor answers first: the plan is
/// withdrawn on the daemon with that reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_acp_agent_beside_an_editor_asks_the_daemon_on_another_machine() {
    use crate::coding_agents::{LONG, submit, tap_option};
    use crate::support::acp::{Answer, Editor, client_installed};
    use crate::support::agent_cli::{self, Agent, Project};
    use crate::support::model::Turn;
    let Some(cli) = agent_cli::cli(Agent::Gemini) else {
        return;
    };
    if !client_installed() {
        return;
    }
    let r = Remote::start().await;
    let token = r.token_file("devbox");
    let model = Agent::Gemini
        .model(vec![
            Agent::Gemini.shell("call_phone", "touch phone.txt"),
            Turn::Text("Created the file.".to_owned()),
        ])
        .await;
    let project = Project::new(&cli, &model);
    let mut editor = Editor::start_remote(
        &cli,
        &project,
        &r.dash.base,
        &token,
        &["--phone-after", "1s"],
        Answer::Never,
        "Create the file",
    );
    let d = &r.dash.run;
    let shown = d.open_announced("touch phone.txt").await;
    assert!(
        shown.plain.contains("@devbox"),
        "{}\n{}",
        shown.plain,
        editor.report()
    );
    let id = shown.message_id;
    d.tap(id, "▶️ Continue").await;
    let decision = d
        .wait_message(|m| m.message_id == id && m.plain.contains("1/1 ·"))
        .await;
    tap_option(d, &decision, "✅ Allow once").await;
    submit(d).await;
    let done = editor
        .wait(LONG, |e| e["event"] == "prompt_done")
        .await
        .unwrap_or_else(|| panic!("the turn never ended\n{}", editor.report()));
    assert_eq!(done["stopReason"], "end_turn", "{}", editor.report());
    assert!(
        project.dir().join("phone.txt").exists(),
        "the allowed command did not run\n{}\n{}",
        editor.report(),
        model.log()
    );
    assert!(
        editor
            .raw()
            .iter()
            .any(|m| m["method"] == "$/cancel_request"),
        "the editor's copy was not cancelled\n{}",
        editor.report()
    );
    editor.close(LONG).await;
    let queue = r.dash.run.queue.root();
    let completed = files(&queue.join("completed"));
    assert_eq!(completed.len(), 1, "{completed:?}");
    let text = std::fs::read_to_string(queue.join("completed").join(&completed[0])).unwrap();
    assert!(text.contains("\nmachine: devbox\n"), "{text}");
    assert!(
        !project.home().join(".arbiter").exists(),
        "the relay wrote a queue where the agent runs"
    );

    // The editor answers after the plan reached the phone: withdrawn on the daemon, with the reason.
    std::fs::remove_file(project.dir().join("phone.txt")).unwrap();
    model.push(vec![
        Agent::Gemini.shell("call_editor", "touch editor.txt"),
        Turn::Text("Created it.".to_owned()),
    ]);
    let mut editor = Editor::start_remote(
        &cli,
        &project,
        &r.dash.base,
        &token,
        &["--phone-after", "1s"],
        Answer::Allow {
            after: std::time::Duration::from_secs(8),
        },
        "Create the other file",
    );
    let announced = d
        .wait_message(|m| m.plain.contains("touch editor.txt"))
        .await;
    editor
        .wait(LONG, |e| e["event"] == "prompt_done")
        .await
        .unwrap_or_else(|| panic!("the second turn never ended\n{}", editor.report()));
    assert!(
        project.dir().join("editor.txt").exists(),
        "{}",
        editor.report()
    );
    let redrawn = d
        .wait_message(|m| {
            m.message_id == announced.message_id && m.plain.contains("answered in the editor")
        })
        .await;
    assert!(!redrawn.plain.contains("Allow once"), "{}", redrawn.plain);
    editor.close(LONG).await;
    let withdrawn: Vec<String> = files(&queue.join("completed"))
        .into_iter()
        .filter(|f| !completed.contains(f))
        .collect();
    assert_eq!(withdrawn.len(), 1, "{withdrawn:?}");
    let text = std::fs::read_to_string(queue.join("completed").join(&withdrawn[0])).unwrap();
    assert!(text.contains("\nstatus: withdrawn\n"), "{text}");
    let (_, entries) = arbiter_zebu::queue::audit::read(queue).unwrap().unwrap();
    let line = entries
        .iter()
        .find(|e| e.action == "withdraw")
        .unwrap_or_else(|| panic!("no withdraw line: {entries:?}"));
    assert_eq!(line.value.as_deref(), Some("answered in the editor"));
}

/// `arbiter acp run --server`: headless, the daemon on another machine asks for the first instruction, the
/// permission and the finished card; `🏁 Done` ends the session, exit 0. A token the daemon refuses: `acp run`
/// exits at once with one line naming the URL, and beside an editor the relay is a plain one that says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acp_run_headless_through_the_daemon_on_another_machine() {
    use crate::coding_agents::{LONG, submit, tap_option};
    use crate::coding_agents_next::{is_card, open_card};
    use crate::support::agent_cli::{self, Agent, Project};
    use crate::support::model::Turn;
    let Some(cli) = agent_cli::cli(Agent::Gemini) else {
        return;
    };
    let r = Remote::start().await;
    let token = r.token_file("runner");
    let model = Agent::Gemini
        .model(vec![
            Agent::Gemini.shell("call_run", "touch headless.txt"),
            Turn::Text("Created the file.".to_owned()),
        ])
        .await;
    let project = Project::new(&cli, &model);
    let (command, env) = project.acp(&cli);
    let relay = |token: &Path| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_arbiter"));
        cmd.arg("--server")
            .arg(&r.dash.base)
            .arg("--token-file")
            .arg(token)
            .args(["acp", "run", "--cwd"])
            .arg(project.dir())
            .arg("--")
            .args(&command)
            .env_clear()
            .envs(env.clone())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    };
    // A wrong token: refused at once, nothing asked.
    let wrong = r.agent_home.path().join("wrong.token");
    std::fs::write(
        &wrong,
        "arbiter_0000000000000000000000000000000000000000000000000000000000000000\n",
    )
    .unwrap();
    let refused = collect(relay(&wrong).spawn().unwrap());
    assert_ne!(refused.code, Some(0), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("refused the token") && refused.stderr.contains(&r.dash.base),
        "{}",
        refused.stderr
    );
    assert!(
        files(&r.dash.run.queue.root().join("pending")).is_empty()
            && !r
                .dash
                .run
                .chat()
                .iter()
                .any(|m| m.plain.contains("what should it do")),
        "{}",
        r.dash.run.transcript()
    );

    let mut run = relay(&token).spawn().expect("arbiter acp run");
    let d = &r.dash.run;
    let first = d
        .wait_message(|m| m.plain.contains("what should it do?"))
        .await;
    assert!(first.plain.contains("@runner"), "{}", first.plain);
    let id = first.message_id;
    d.tap(id, "📂 Open").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("📄"))
        .await;
    d.tap(id, "▶️ Continue").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("1/1 · What should it do?"))
        .await;
    d.tap(id, "✏️ Custom").await;
    let prompt = d
        .wait_message(|m| m.plain.contains("What should it do?") && m.message_id != id)
        .await;
    d.fake
        .send_reply(OWNER, "Create the file", prompt.message_id);
    submit(d).await;
    let shown = d.open_announced("touch headless.txt").await;
    let id = shown.message_id;
    d.tap(id, "▶️ Continue").await;
    let decision = d
        .wait_message(|m| m.message_id == id && m.plain.contains("1/1 ·"))
        .await;
    tap_option(d, &decision, "✅ Allow once").await;
    submit(d).await;
    let card = d.wait_message(is_card).await;
    let (shown, decision) = open_card(d, card.message_id).await;
    assert!(shown.plain.contains("Created the file."), "{}", shown.plain);
    tap_option(d, &decision, "🏁 Done").await;
    submit(d).await;
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = run.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < LONG, "acp run did not end");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    assert!(status.success(), "{status:?}");
    assert!(project.dir().join("headless.txt").exists());
    let (_, instruction) = model.last_message(0).expect("the model was asked");
    assert!(instruction.contains("Create the file"), "{instruction}");
    assert!(files(&r.dash.run.queue.root().join("pending")).is_empty());
}
