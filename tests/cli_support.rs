//! Running the real `arbiter` binary against a temp queue: a small builder and its captured output.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::support::TempQueue;

/// What a finished `arbiter` run left behind.
#[derive(Debug)]
pub struct Output {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// An `arbiter` command line to run, with `--queue` pointing at a temp queue and no ARBITER_* variables.
#[must_use]
pub struct Arbiter {
    cmd: Command,
    stdin: Option<String>,
}

impl Arbiter {
    pub fn new(queue: &TempQueue) -> Arbiter {
        Arbiter::at(queue.root())
    }

    pub fn at(root: &Path) -> Arbiter {
        let mut arbiter = Arbiter::home(root);
        arbiter
            .cmd
            .arg("--queue")
            .arg(root)
            .env_remove("ARBITER_HOME");
        arbiter
    }

    /// Without `--queue`: ARBITER_HOME (and HOME) is `home`, so the command finds the queue the way a
    /// user's would, from `home/config.json` or the default.
    pub fn home(home: &Path) -> Arbiter {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_arbiter"));
        cmd.env_remove("ARBITER_QUEUE")
            .env("ARBITER_HOME", home)
            .env_remove("ARBITER_TELEGRAM_TOKEN")
            .env("HOME", home)
            .env_remove("RUST_LOG");
        Arbiter { cmd, stdin: None }
    }

    pub fn args(mut self, args: &[&str]) -> Arbiter {
        self.cmd.args(args);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Arbiter {
        self.cmd.env(key, value);
        self
    }

    pub fn stdin(mut self, text: &str) -> Arbiter {
        self.stdin = Some(text.to_owned());
        self
    }

    /// Starts it in the background, with piped stdout and stderr (and stdin when given).
    pub fn spawn(mut self) -> Child {
        self.cmd
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = self.cmd.spawn().expect("spawn arbiter");
        if let Some(text) = self.stdin.take() {
            let mut pipe = child.stdin.take().expect("stdin pipe");
            pipe.write_all(text.as_bytes()).expect("write stdin");
        }
        child
    }

    /// Runs it to the end.
    pub fn run(self) -> Output {
        collect(self.spawn())
    }
}

/// Waits for a spawned run and captures its output.
pub fn collect(child: Child) -> Output {
    let out = child.wait_with_output().expect("wait for arbiter");
    Output {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
