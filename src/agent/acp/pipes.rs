//! The relay's plumbing: the agent started as a child in a process group of its own, and each side's lines read
//! into the relay's event channel and written from a channel of lines. No JSON here.

use std::process::Stdio;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
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

/// What a reader found: a run of whole lines to pass on as they are, or one line the relay must read.
pub enum Piece {
    /// Whole lines, each with its newline, that need nothing of the relay.
    Pass(Vec<u8>),
    /// One line (without its newline).
    Line(String),
}

/// Reads `input` into `events` in the order it came: runs of lines `matters` says nothing about as one
/// [`Piece::Pass`] per read (a stream of updates costs an event per 256 KiB, not per line), every other line as a
/// [`Piece::Line`] (lossily, if it is not UTF-8); then sends `closed`. A last line without its newline is a line.
pub fn read<E: Send + 'static>(
    mut input: impl AsyncRead + Unpin + Send + 'static,
    events: UnboundedSender<E>,
    wrap: fn(Piece) -> E,
    matters: fn(&[u8]) -> bool,
    closed: E,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut buf: Vec<u8> = Vec::with_capacity(CHUNK);
        loop {
            if buf.capacity() - buf.len() < CHUNK / 4 {
                buf.reserve(CHUNK);
            }
            let n = match input.read_buf(&mut buf).await {
                Ok(0) | Err(_) => 0,
                Ok(n) => n,
            };
            let eof = n == 0;
            if eof && !buf.is_empty() && buf.last() != Some(&b'\n') {
                buf.push(b'\n');
            }
            let whole = match memchr::memrchr(b'\n', &buf) {
                Some(at) => at + 1,
                None => 0,
            };
            let rest = buf.split_off(whole);
            if !send_pieces(&events, wrap, matters, buf) {
                return;
            }
            buf = rest;
            if eof {
                break;
            }
        }
        let _ = events.send(closed);
    })
}

const CHUNK: usize = 1 << 18;

/// Splits whole lines into pieces and sends them; false when the relay is gone.
fn send_pieces<E>(
    events: &UnboundedSender<E>,
    wrap: fn(Piece) -> E,
    matters: fn(&[u8]) -> bool,
    lines: Vec<u8>,
) -> bool {
    if lines.is_empty() {
        return true;
    }
    let mut pass_from = 0;
    let mut start = 0;
    let mut pieces = Vec::new();
    for end in memchr::memchr_iter(b'\n', &lines) {
        let line = trim_cr(&lines[start..end]);
        if line.is_empty() || matters(line) {
            if pass_from < start {
                pieces.push(Piece::Pass(lines[pass_from..start].to_vec()));
            }
            if !line.is_empty() {
                pieces.push(Piece::Line(String::from_utf8_lossy(line).into_owned()));
            }
            pass_from = end + 1;
        }
        start = end + 1;
    }
    if pass_from == 0 && start == lines.len() && pieces.is_empty() {
        return events.send(wrap(Piece::Pass(lines))).is_ok();
    }
    if pass_from < start {
        pieces.push(Piece::Pass(lines[pass_from..start].to_vec()));
    }
    pieces.into_iter().all(|p| events.send(wrap(p)).is_ok())
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Every line matters (the editor's side: few lines, each read).
#[must_use]
pub fn every_line(_line: &[u8]) -> bool {
    true
}

/// Writes what `out` receives (lines with their newlines, runs of lines) to `output`, flushing whenever nothing
/// more is waiting; ends (closing `output`) when every sender is gone or the peer stops reading.
pub fn write(
    output: impl AsyncWrite + Unpin + Send + 'static,
    mut out: UnboundedReceiver<Vec<u8>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut writer = BufWriter::with_capacity(WRITE_BUFFER, output);
        while let Some(bytes) = out.recv().await {
            if writer.write_all(&bytes).await.is_err() {
                return;
            }
            if out.is_empty() && writer.flush().await.is_err() {
                return;
            }
        }
        let _ = writer.flush().await;
        let _ = writer.shutdown().await;
    })
}

/// [`write`] for a file descriptor tokio only writes through its blocking pool (the relay's stdout): one blocking
/// task writes it directly, without a hand-off per write.
pub fn write_blocking(
    output: impl std::io::Write + Send + 'static,
    mut out: UnboundedReceiver<Vec<u8>>,
) -> tokio::task::JoinHandle<()> {
    tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut writer = std::io::BufWriter::with_capacity(WRITE_BUFFER, output);
        while let Some(bytes) = out.blocking_recv() {
            if writer.write_all(&bytes).is_err() {
                return;
            }
            if out.is_empty() && writer.flush().is_err() {
                return;
            }
        }
        let _ = writer.flush();
    })
}

/// Small: a run of lines larger than this is written straight from its own buffer.
const WRITE_BUFFER: usize = 1 << 13;

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &[u8], matters: fn(&[u8]) -> bool) -> Vec<String> {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        assert!(send_pieces(&tx, |p| p, matters, text.to_vec()));
        drop(tx);
        let mut out = Vec::new();
        while let Ok(p) = rx.try_recv() {
            out.push(match p {
                Piece::Pass(bytes) => format!("pass:{}", String::from_utf8_lossy(&bytes)),
                Piece::Line(line) => format!("line:{line}"),
            });
        }
        out
    }

    #[test]
    fn lines_that_matter_are_read_in_order_and_the_rest_passes_in_runs() {
        let id = |l: &[u8]| l.starts_with(b"id");
        assert_eq!(pieces(b"a\nb\n", id), ["pass:a\nb\n"]);
        assert_eq!(
            pieces(b"a\nid1\r\nb\nc\nid2\n", id),
            ["pass:a\n", "line:id1", "pass:b\nc\n", "line:id2"]
        );
        assert_eq!(pieces(b"\n\nid\n", id), ["line:id"]);
        assert_eq!(pieces(b"x\n", every_line), ["line:x"]);
    }

    #[tokio::test]
    async fn a_stream_is_read_whole_across_reads_and_a_last_line_without_newline_counts() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut text = Vec::new();
        for i in 0..20_000 {
            text.extend_from_slice(format!("line {i} {}\n", "x".repeat(i % 50)).as_bytes());
        }
        text.extend_from_slice(b"id last");
        let reader = read(
            std::io::Cursor::new(text.clone()),
            tx,
            Some,
            |l| l.starts_with(b"id"),
            None,
        );
        reader.await.unwrap();
        let mut passed = Vec::new();
        let mut lines = Vec::new();
        while let Some(Some(piece)) = rx.recv().await {
            match piece {
                Piece::Pass(bytes) => passed.extend(bytes),
                Piece::Line(line) => lines.push(line),
            }
        }
        assert_eq!(passed, text[..text.len() - 7]);
        assert_eq!(lines, ["id last"]);
    }
}
