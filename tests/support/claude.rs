//! The real `claude` CLI (npm `@anthropic-ai/claude-code`, pinned in .ci/claude/package.json), run interactively
//! in a tmux pane (its `-p` mode disables AskUserQuestion) against the fake Anthropic API, in a project whose
//! `.claude/settings.json` points Claude Code's hooks at the real `arbiter` binary and the test's queue.
//!
//! Without `claude` or tmux the tests that need them are skipped with a message, unless
//! `ARBITER_REQUIRE_CLAUDE=1` (CI sets it) makes that a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The API key the fake accepts (any key works; Claude Code asks to approve a custom key once, which
/// `~/.claude.json` records as approved).
const API_KEY: &str = "sk-ant-api03-arbiter-test-key-0123456789abcdef";

/// The `claude` binary, or `None` (with a message) when the test should be skipped.
#[must_use]
pub fn binary() -> Option<PathBuf> {
    let path = std::env::var_os("ARBITER_CLAUDE").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/claude/node_modules/.bin/claude"),
        PathBuf::from,
    );
    let tmux = Command::new("tmux")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if path.exists() && tmux {
        return Some(path);
    }
    assert!(
        std::env::var_os("ARBITER_REQUIRE_CLAUDE").is_none(),
        "ARBITER_REQUIRE_CLAUDE is set but {} or tmux is missing (.ci/run installs them)",
        path.display()
    );
    eprintln!(
        "skipped: no {} or no tmux (.ci/run installs them)",
        path.display()
    );
    None
}

/// A project folder and a HOME for Claude Code, the hooks pointing at `arbiter --queue QUEUE`.
pub struct Project {
    pub dir: tempfile::TempDir,
    pub home: tempfile::TempDir,
}

impl Project {
    /// A trusted project whose `.claude/settings.json` runs `arbiter hook claude-code` for `events` (each with
    /// matcher `*`).
    #[must_use]
    pub fn new(queue: &Path, events: &[&str]) -> Project {
        let project = Project::trusted();
        let command = format!(
            "'{}' --queue '{}' hook claude-code --timeout 120s",
            env!("CARGO_BIN_EXE_arbiter"),
            queue.display()
        );
        let mut hooks = serde_json::Map::new();
        for event in events {
            hooks.insert(
                (*event).to_owned(),
                json!([{"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": 180}]}]),
            );
        }
        project.write(".claude/settings.json", &json!({"hooks": hooks}));
        project
    }

    /// A trusted project whose hooks `arbiter hook claude-code install --project` wrote, merged into the
    /// `.claude/settings.local.json` that `local` (the user's own keys) starts it with.
    #[must_use]
    pub fn installed(queue: &Path, local: &Value) -> Project {
        let project = Project::trusted();
        project.write(".claude/settings.local.json", local);
        let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .arg("--queue")
            .arg(queue)
            .args([
                "hook",
                "claude-code",
                "install",
                "--timeout",
                "120s",
                // These tests are about prompts: no "What next?" card at the end of each turn.
                "--no-stop",
                "--project",
            ])
            .arg(project.path())
            .output()
            .expect("run arbiter hook claude-code install");
        assert!(out.status.success(), "install: {}", stderr(&out));
        project
    }

    /// An empty project folder Claude Code trusts, with a HOME whose `.claude.json` skips the first-run dialogs.
    fn trusted() -> Project {
        let dir = tempfile::tempdir().expect("project dir");
        let home = tempfile::tempdir().expect("home dir");
        let project = dir.path().canonicalize().expect("project path");
        let key_tail: String = API_KEY
            .chars()
            .rev()
            .take(20)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        write_json(
            &home.path().join(".claude.json"),
            &json!({
                "hasCompletedOnboarding": true,
                "lastOnboardingVersion": "2.1.328",
                "numStartups": 5,
                "theme": "dark",
                "customApiKeyResponses": {"approved": [key_tail], "rejected": []},
                "projects": {project.to_string_lossy(): {
                    "hasTrustDialogAccepted": true,
                    "hasCompletedProjectOnboarding": true,
                    "allowedTools": [],
                }},
            }),
        );
        Project { dir, home }
    }

    /// Writes `value` as JSON to `relative` in the project.
    pub fn write(&self, relative: &str, value: &Value) {
        write_json(&self.path().join(relative), value);
    }

    #[must_use]
    pub fn path(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("project path")
    }
}

fn write_json(path: &Path, value: &Value) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("settings dir");
    }
    std::fs::write(path, serde_json::to_string_pretty(value).expect("json")).expect("write json");
}

/// `claude` running in a tmux pane of its own tmux server. Dropping it kills the server.
pub struct Session {
    socket: PathBuf,
    _socket_dir: tempfile::TempDir,
}

impl Session {
    /// Starts `claude --permission-mode default` in `project` against the fake API at `api_url`.
    #[must_use]
    pub fn start(claude: &Path, project: &Project, api_url: &str) -> Session {
        Session::start_in(claude, project, api_url, "default")
    }

    /// Starts `claude --permission-mode MODE` (`default`, `plan`, …).
    #[must_use]
    pub fn start_in(claude: &Path, project: &Project, api_url: &str, mode: &str) -> Session {
        let socket_dir = tempfile::tempdir().expect("tmux dir");
        let socket = socket_dir.path().join("tmux.sock");
        let session = Session {
            socket,
            _socket_dir: socket_dir,
        };
        let out = session
            .tmux()
            .args([
                "new-session",
                "-d",
                "-s",
                "claude",
                "-x",
                "200",
                "-y",
                "50",
                "-c",
            ])
            .arg(project.path())
            .arg(claude)
            .args(["--permission-mode", mode])
            .env("HOME", project.home.path())
            .env("ANTHROPIC_BASE_URL", api_url)
            .env("ANTHROPIC_API_KEY", API_KEY)
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("TERM", "xterm-256color")
            .env_remove("TMUX")
            .env_remove("CLAUDECODE")
            .env_remove("ARBITER_QUEUE")
            .env_remove("ARBITER_HOME")
            .output()
            .expect("run tmux");
        assert!(out.status.success(), "tmux new-session: {}", stderr(&out));
        session
    }

    fn tmux(&self) -> Command {
        let mut cmd = Command::new("tmux");
        cmd.arg("-S").arg(&self.socket).args(["-f", "/dev/null"]);
        cmd
    }

    /// The pane as the user sees it now.
    #[must_use]
    pub fn screen(&self) -> String {
        let out = self
            .tmux()
            .args(["capture-pane", "-p", "-t", "claude"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the pane shows `text` (at most `timeout`).
    pub async fn wait_screen(&self, text: &str, timeout: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if self.screen().contains(text) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        false
    }

    /// Types `text` and presses Enter.
    pub async fn prompt(&self, text: &str) {
        let out = self
            .tmux()
            .args(["send-keys", "-t", "claude", "-l", text])
            .output()
            .expect("tmux send-keys");
        assert!(out.status.success(), "send-keys: {}", stderr(&out));
        tokio::time::sleep(Duration::from_millis(300)).await;
        self.keys(&["Enter"]);
    }

    /// Presses keys (tmux key names).
    pub fn keys(&self, keys: &[&str]) {
        let out = self
            .tmux()
            .args(["send-keys", "-t", "claude"])
            .args(keys)
            .output()
            .expect("tmux send-keys");
        assert!(out.status.success(), "send-keys: {}", stderr(&out));
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").output();
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
