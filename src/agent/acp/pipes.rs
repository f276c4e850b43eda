//! The relay's plumbing: the agent started as a child in a process group of its own, and each side's lines read
//! into the relay's event channel and written from a channel of lines. No JSON here.

use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{Child, Command};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

/// The agent's process: its stdio is the relay's.
pub struct Agent {
    pub child: Child,
    pub stdin: tokio::process::ChildStdin,
    pub stdout: tokio::process::ChildStdout,
}

/// Starts `command` (program and arguments) with `ARBITER_ACP=1`, so its own Arbiter hooks step aside; its stderr
/// is the relay's.
pub fn spawn(command: &[String], cwd: Option<&std::path::Path>) -> std::io::Result<Agent> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| std::io::Error::other("no agent command after `--`"))?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env("ARBITER_ACP", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    let mut child = cmd.spawn()?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(std::io::Error::other(
            "the agent's stdio could not be piped",
        ));
    };
    Ok(Agent {
        child,
        stdin,
        stdout,
    })
}

/// Stops the agent's whole process group: SIGTERM, and SIGKILL if it is still there after `grace`.
pub async fn stop(child: &mut Child, grace: std::time::Duration) {
    if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
        let group = rustix::process::Pid::from_raw(pid);
        if let Some(group) = group {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::TERM);
            if tokio::time::timeout(grace, child.wait()).await.is_err() {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            }
        }
    }
    let _ = child.wait().await;
}

/// Reads `input` line by line into `events` (each line through `line`), then sends `closed`. A line that is not
/// UTF-8 is passed on as read lossily.
pub fn read_lines<E: Send + 'static>(
    input: impl AsyncRead + Unpin + Send + 'static,
    events: UnboundedSender<E>,
    line: fn(String) -> E,
    closed: E,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut reader = BufReader::with_capacity(1 << 16, input);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                        buf.pop();
                    }
                    if buf.is_empty() {
                        continue;
                    }
                    let text = match String::from_utf8(std::mem::take(&mut buf)) {
                        Ok(text) => text,
                        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
                    };
                    if events.send(line(text)).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = events.send(closed);
    })
}

/// Writes each line of `lines` to `output` with its newline, flushing whenever no more is waiting; ends (closing
/// `output`) when every sender is gone or the peer stops reading.
pub fn write_lines(
    output: impl AsyncWrite + Unpin + Send + 'static,
    mut lines: UnboundedReceiver<String>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut out = BufWriter::with_capacity(1 << 16, output);
        while let Some(line) = lines.recv().await {
            if out.write_all(line.as_bytes()).await.is_err() || out.write_all(b"\n").await.is_err()
            {
                return;
            }
            if lines.is_empty() && out.flush().await.is_err() {
                return;
            }
        }
        let _ = out.flush().await;
        let _ = out.shutdown().await;
    })
}
