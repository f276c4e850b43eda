//! The agent's files, as the hook core reads them: the file a write or an edit changes (to diff against), Claude
//! Code's plan file, an agent's transcript. On the agent's machine they are read from disk. When the hook asks a
//! daemon on another machine (`arbiter hook AGENT --server URL`), the hook reads them where the agent runs and
//! sends them with its input ([`Sent`], see [`gather`]); the daemon runs the core inside [`Sent::scope`], where
//! every read is answered from what was sent and never from the daemon's own disk.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Largest file read (bytes): a bigger one reads as [`OnDisk::Unreadable`].
pub const FILE_MAX: u64 = 8 * 1024 * 1024;
/// Most bytes a hook sends with one input.
const SENT_MAX: usize = 32 * 1024 * 1024;

/// What is at a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnDisk {
    Text(String),
    Missing,
    Unreadable(String),
}

/// The files a hook on another machine sent, by path as the core resolves it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent(pub BTreeMap<PathBuf, OnDisk>);

tokio::task_local! {
    static SENT: Arc<Sent>;
}

impl Sent {
    /// Runs `work` with every read of the core answered from these files.
    pub async fn scope<F: std::future::Future>(self, work: F) -> F::Output {
        SENT.scope(Arc::new(self), work).await
    }
}

/// The text at `path` (at most `max` bytes), from the files sent when the core runs for another machine, else
/// from disk.
#[must_use]
pub fn read_text(path: &Path, max: u64) -> OnDisk {
    if let Ok(sent) = SENT.try_with(|sent| sent.0.get(path).cloned()) {
        return sent
            .unwrap_or_else(|| OnDisk::Unreadable("not sent by the agent's machine".to_owned()));
    }
    from_disk(path, max)
}

/// The last `bytes` bytes of the text at `path` (from the first whole line in them), sent or on disk; `None` when
/// it can't be read.
#[must_use]
pub fn read_tail(path: &Path, bytes: u64) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    if let Ok(sent) = SENT.try_with(|sent| sent.0.get(path).cloned()) {
        let OnDisk::Text(text) = sent? else {
            return None;
        };
        let from = text
            .len()
            .saturating_sub(usize::try_from(bytes).unwrap_or(usize::MAX));
        let from = (from..=text.len()).find(|&i| text.is_char_boundary(i))?;
        return Some(text[from..].to_owned());
    }
    let mut file = fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(bytes))).ok()?;
    let mut tail = Vec::new();
    file.take(bytes).read_to_end(&mut tail).ok()?;
    Some(String::from_utf8_lossy(&tail).into_owned())
}

fn from_disk(path: &Path, max: u64) -> OnDisk {
    match fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return OnDisk::Missing,
        Err(e) => return OnDisk::Unreadable(e.to_string()),
        Ok(meta) if !meta.is_file() => return OnDisk::Unreadable("not a file".to_owned()),
        Ok(meta) if meta.len() > max => {
            return OnDisk::Unreadable(format!("{} bytes, too big to read", meta.len()));
        }
        Ok(_) => {}
    }
    match fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => OnDisk::Text(text),
            Err(_) => OnDisk::Unreadable("not UTF-8 text".to_owned()),
        },
        Err(e) => OnDisk::Unreadable(e.to_string()),
    }
}

/// `path` as the core reads it: relative to `cwd` when it is relative.
#[must_use]
pub fn resolve(path: &str, cwd: Option<&str>) -> PathBuf {
    let p = Path::new(path);
    match cwd {
        Some(cwd) if p.is_relative() => Path::new(cwd).join(p),
        _ => p.to_owned(),
    }
}

/// The files a hook input may make the core read, read here on the agent's machine: every string of the input
/// that names a file (or a file's place in an existing folder: a write that creates it), resolved against the
/// input's `cwd`. Strings that name nothing are left out; so is what would pass [`SENT_MAX`].
#[must_use]
pub fn gather(input: &str) -> Sent {
    let Ok(value) = serde_json::from_str::<Value>(input) else {
        return Sent::default();
    };
    let cwd = value
        .get("cwd")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            std::env::current_dir()
                .ok()
                .map(|d| d.to_string_lossy().into_owned())
        });
    let mut strings = Vec::new();
    strings_of(&value, &mut strings);
    let mut sent = BTreeMap::new();
    let mut size = 0;
    for s in strings {
        if s.is_empty() || s.len() > 4096 || s.contains('\n') || s.contains('\0') {
            continue;
        }
        let path = resolve(s, cwd.as_deref());
        if sent.contains_key(&path) {
            continue;
        }
        let found = from_disk(&path, FILE_MAX);
        let keep = match &found {
            OnDisk::Text(text) => size + text.len() <= SENT_MAX,
            OnDisk::Missing => path.parent().is_some_and(Path::is_dir) && s.contains(['/', '.']),
            OnDisk::Unreadable(_) => path.exists() && !path.is_dir(),
        };
        if keep {
            if let OnDisk::Text(text) = &found {
                size += text.len();
            }
            sent.insert(path, found);
        }
    }
    Sent(sent)
}

fn strings_of<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings_of(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings_of(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn inside_the_scope_only_what_was_sent_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let here = dir.path().join("here.txt");
        std::fs::write(&here, "on this disk\n").unwrap();
        let elsewhere = PathBuf::from("/agents/box/src/main.rs");
        let sent = Sent(BTreeMap::from([
            (elsewhere.clone(), OnDisk::Text("fn main() {}\n".into())),
            (PathBuf::from("/agents/box/new.rs"), OnDisk::Missing),
        ]));
        let read = sent
            .scope(async {
                (
                    read_text(&elsewhere, FILE_MAX),
                    read_text(Path::new("/agents/box/new.rs"), FILE_MAX),
                    read_text(&here, FILE_MAX),
                )
            })
            .await;
        assert_eq!(read.0, OnDisk::Text("fn main() {}\n".into()));
        assert_eq!(read.1, OnDisk::Missing);
        assert_eq!(
            read.2,
            OnDisk::Unreadable("not sent by the agent's machine".into())
        );
        assert_eq!(
            read_text(&here, FILE_MAX),
            OnDisk::Text("on this disk\n".into())
        );
    }

    #[test]
    fn a_hook_input_sends_the_files_it_names() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_str().unwrap();
        std::fs::write(dir.path().join("app.py"), "print(1)\n").unwrap();
        let input = serde_json::json!({
            "cwd": cwd,
            "tool_name": "Write",
            "tool_input": {"file_path": "app.py", "content": "print(2)\n"},
            "other": [format!("{cwd}/new.txt"), "not a path", "ls -la"],
        })
        .to_string();
        let sent = gather(&input);
        assert_eq!(
            sent.0.get(&dir.path().join("app.py")),
            Some(&OnDisk::Text("print(1)\n".into()))
        );
        assert_eq!(
            sent.0.get(&dir.path().join("new.txt")),
            Some(&OnDisk::Missing)
        );
        assert_eq!(sent.0.len(), 2, "{sent:?}");
    }
}
