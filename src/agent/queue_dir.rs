//! Which queue folder the agent commands use.

use std::path::{Path, PathBuf};

use crate::config::{self, ENV_QUEUE};

use super::AgentError;

/// The config's resolution (`--queue` > `ARBITER_QUEUE` > `queue.dir` of the config file (`--config`, else
/// `ARBITER_CONFIG`, else `<home>/config.json`) > `<home>/queue`), made absolute so the paths the commands print
/// work from anywhere. A config file that can't be read is a warning on stderr, not an error: agents need no token
/// and no valid daemon config.
pub fn resolve_queue_dir(
    flag: Option<&Path>,
    config_flag: Option<&Path>,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<PathBuf, AgentError> {
    let home = match config::arbiter_home(env) {
        Ok(home) => home,
        // Without a home the flag or the variable still say where the queue is.
        Err(_) if flag.is_some() || env(ENV_QUEUE).is_some_and(|q| !q.trim().is_empty()) => {
            PathBuf::new()
        }
        Err(_) => return Err(AgentError::NoQueue),
    };
    let (config_file, named) = match config::locate_config(config_flag, env) {
        Ok(location) => (
            location.path,
            config_flag.is_some() || env(config::ENV_CONFIG).is_some_and(|v| !v.trim().is_empty()),
        ),
        Err(_) => (config::config_file(&home), false),
    };
    let resolved = config::resolve_queue_dir(flag, env, &config_file, &home);
    // The home's file may well be absent (an agent's machine); one named by --config or ARBITER_CONFIG may not.
    let defaulted = resolved.source == config::QueueDirSource::Default;
    if named && defaulted && resolved.warning.is_none() && !config_file.exists() {
        eprintln!(
            "arbiter: warning: {}: config file not found; using {}",
            config_file.display(),
            resolved.dir.display()
        );
    }
    if let Some(warning) = &resolved.warning {
        eprintln!(
            "arbiter: warning: {warning}; using {}",
            resolved.dir.display()
        );
    }
    let dir = resolved.dir;
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
        let r = |flag: Option<&str>, e: &dyn Fn(&str) -> Option<String>| {
            resolve_queue_dir(flag.map(Path::new), None, &e).ok()
        };
        let all = env(&[
            ("HOME", "/nonexistent-h"),
            ("ARBITER_QUEUE", "/q"),
            ("ARBITER_HOME", "/nonexistent-a"),
        ]);
        assert_eq!(
            r(Some("~/f"), &all),
            Some(PathBuf::from("/nonexistent-h/f"))
        );
        assert_eq!(r(None, &all), Some(PathBuf::from("/q")));
        let home = env(&[
            ("HOME", "/nonexistent-h"),
            ("ARBITER_HOME", "/nonexistent-a"),
        ]);
        assert_eq!(r(None, &home), Some(PathBuf::from("/nonexistent-a/queue")));
        let plain = env(&[("HOME", "/nonexistent-h")]);
        assert_eq!(
            r(None, &plain),
            Some(PathBuf::from("/nonexistent-h/.arbiter/queue"))
        );
        assert!(r(None, &env(&[])).is_none());
        assert_eq!(r(Some("/f"), &env(&[])), Some(PathBuf::from("/f")));
    }
}
