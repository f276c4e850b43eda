//! The editor of the ACP tests: `tests/fixtures/acp/editor.py`, the official ACP Python client (PyPI
//! `agent-client-protocol`, pinned in .ci/run), starting `arbiter acp … -- AGENT` as Zed would, and logging what
//! it sees as JSON lines. Without the package the tests are skipped, unless `ARBITER_REQUIRE_AGENTS=1`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::agent_cli::{Cli, Project};

/// Whether the ACP client library is there (else the test is skipped, or fails when required).
#[must_use]
pub fn client_installed() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import acp"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("ARBITER_REQUIRE_AGENTS").is_none(),
            "ARBITER_REQUIRE_AGENTS is set but PyPI's agent-client-protocol is missing (.ci/run installs it)"
        );
        eprintln!("skipped: no agent-client-protocol for python3 (.ci/run installs it)");
    }
    ok
}

/// How the editor answers permission requests.
#[derive(Debug, Clone, Copy)]
pub enum Answer {
    Never,
    Allow { after: Duration },
    Deny { after: Duration },
}

/// A running editor. Dropping it kills it and what it started.
pub struct Editor {
    child: Child,
    stdin: Option<ChildStdin>,
    log: PathBuf,
    stderr: PathBuf,
}

impl Editor {
    /// Starts the editor in the project on `prompt`, its agent `arbiter --queue QUEUE acp RELAY… -- AGENT`.
    pub fn start(
        cli: &Cli,
        project: &Project,
        queue: &Path,
        relay: &[&str],
        answer: Answer,
        prompt: &str,
    ) -> Editor {
        let at = [OsStr::new("--queue"), queue.as_os_str()];
        Editor::start_at(cli, project, &at, relay, answer, prompt)
    }

    /// [`Editor::start`] with the relay pointed at a daemon on another machine: `arbiter --server URL
    /// --token-file FILE acp RELAY… -- AGENT`.
    pub fn start_remote(
        cli: &Cli,
        project: &Project,
        server: &str,
        token_file: &Path,
        relay: &[&str],
        answer: Answer,
        prompt: &str,
    ) -> Editor {
        let at = [
            OsStr::new("--server"),
            OsStr::new(server),
            OsStr::new("--token-file"),
            token_file.as_os_str(),
        ];
        Editor::start_at(cli, project, &at, relay, answer, prompt)
    }

    fn start_at(
        cli: &Cli,
        project: &Project,
        at: &[&OsStr],
        relay: &[&str],
        answer: Answer,
        prompt: &str,
    ) -> Editor {
        let (agent, env) = project.acp(cli);
        let log = project
            .home()
            .join(format!("editor-{}.jsonl", rand_suffix()));
        let stderr = log.with_extension("stderr");
        let (word, after) = match answer {
            Answer::Never => ("never", Duration::ZERO),
            Answer::Allow { after } => ("allow", after),
            Answer::Deny { after } => ("deny", after),
        };
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/acp/editor.py");
        let mut cmd = Command::new("python3");
        cmd.arg(script)
            .arg("--log")
            .arg(&log)
            .arg("--cwd")
            .arg(project.dir())
            .args(["--prompt", prompt, "--answer", word])
            .arg("--answer-after")
            .arg(after.as_secs_f64().to_string())
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_arbiter"))
            .args(at)
            .arg("acp")
            .args(relay)
            .arg("--")
            .args(&agent)
            .env_clear()
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"));
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().expect("start the editor");
        Editor {
            stdin: child.stdin.take(),
            child,
            log,
            stderr,
        }
    }

    /// Everything the editor logged so far.
    #[must_use]
    pub fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The raw lines the editor received from the relay.
    #[must_use]
    pub fn raw(&self) -> Vec<Value> {
        self.events()
            .into_iter()
            .filter(|e| e["event"] == "raw")
            .filter_map(|e| serde_json::from_str(e["line"].as_str()?).ok())
            .collect()
    }

    /// What the relay (and the agent) printed on stderr.
    #[must_use]
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Waits (at most `timeout`) for an event `pred` holds.
    pub async fn wait(&self, timeout: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        let start = Instant::now();
        loop {
            if let Some(e) = self.events().into_iter().find(|e| pred(e)) {
                return Some(e);
            }
            if start.elapsed() > timeout {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Closes the editor's connection (its stdin) and waits for it to exit; returns the agent side's exit code.
    pub async fn close(&mut self, timeout: Duration) -> Option<i64> {
        self.stdin = None;
        let exit = self.wait(timeout, |e| e["event"] == "exit").await?;
        exit["code"].as_i64()
    }

    /// What happened, for a failing test's message.
    #[must_use]
    pub fn report(&self) -> String {
        let cut = |line: &str| line.chars().take(400).collect::<String>();
        let log: Vec<String> = std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(cut)
            .collect();
        format!(
            "editor log:\n{}\nstderr:\n{}",
            log.join("\n"),
            self.stderr()
        )
    }
}

impl Drop for Editor {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.wait();
    }
}

fn rand_suffix() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}
