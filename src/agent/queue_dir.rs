//! Which queue folder the agent commands use.

use std::path::{Path, PathBuf};

use super::AgentError;

/// `--queue` > `ARBITER_QUEUE` > `$ARBITER_HOME/queue` > `~/.arbiter/queue`, made absolute so the paths the
/// commands print are usable from anywhere. `env` looks a variable up (empty counts as unset).
// TODO(config): use crate::config::resolve_queue_dir (which also reads queue.dir from config.json) once merged.
pub fn resolve_queue_dir(
    flag: Option<&Path>,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<PathBuf, AgentError> {
    let var = |k: &str| env(k).filter(|v| !v.trim().is_empty());
    let home = var("HOME").map(PathBuf::from);
    let expand = |raw: &Path| -> PathBuf {
        match (raw.to_str().and_then(|s| s.strip_prefix("~/")), &home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => raw.to_path_buf(),
        }
    };
    let dir = if let Some(flag) = flag {
        expand(flag)
    } else if let Some(q) = var("ARBITER_QUEUE") {
        expand(Path::new(&q))
    } else if let Some(h) = var("ARBITER_HOME") {
        expand(Path::new(&h)).join("queue")
    } else {
        home.ok_or(AgentError::NoQueue)?
            .join(".arbiter")
            .join("queue")
    };
    std::path::absolute(&dir).map_err(|source| AgentError::Io { path: dir, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn flag_then_env_then_home() {
        let all = env(&[
            ("HOME", "/h"),
            ("ARBITER_QUEUE", "/q"),
            ("ARBITER_HOME", "/a"),
        ]);
        let r = |flag: Option<&str>, e: &dyn Fn(&str) -> Option<String>| {
            resolve_queue_dir(flag.map(Path::new), &e).ok()
        };
        assert_eq!(r(Some("~/f"), &all), Some(PathBuf::from("/h/f")));
        assert_eq!(r(None, &all), Some(PathBuf::from("/q")));
        let home = env(&[
            ("HOME", "/h"),
            ("ARBITER_QUEUE", " "),
            ("ARBITER_HOME", "/a"),
        ]);
        assert_eq!(r(None, &home), Some(PathBuf::from("/a/queue")));
        assert_eq!(
            r(None, &env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.arbiter/queue"))
        );
        assert!(r(None, &env(&[])).is_none());
    }
}
