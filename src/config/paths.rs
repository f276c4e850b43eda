//! Where things live: the arbiter home, `~` expansion, and which queue folder an agent-side command uses.
//!
//! Every function takes the environment as a lookup function (`env("HOME")`) instead of reading the
//! process environment, so tests describe the world they need without mutating global state.

use std::path::{Path, PathBuf};

use super::ConfigError;

/// Overrides the arbiter home (default `~/.arbiter`).
pub const ENV_HOME: &str = "ARBITER_HOME";
/// Overrides the queue folder for agent-side commands.
pub const ENV_QUEUE: &str = "ARBITER_QUEUE";
/// Holds the bot token so it need not sit in `config.json`; wins over the file.
pub const ENV_TOKEN: &str = "ARBITER_TELEGRAM_TOKEN";

/// Reads a variable from the real process environment; the `env` argument production code passes.
/// Unset, empty and non-UTF-8 values all count as absent.
#[must_use]
pub fn process_env(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

/// Looks a variable up, treating an empty value like an unset one (`ARBITER_HOME= arbiter ...`).
pub(crate) fn non_empty(env: &impl Fn(&str) -> Option<String>, key: &str) -> Option<String> {
    env(key).filter(|value| !value.trim().is_empty())
}

/// The user's home folder from `HOME`.
#[must_use]
pub fn user_home(env: &impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    non_empty(env, "HOME").map(PathBuf::from)
}

/// Expands a leading `~` or `~/` to `user_home`. Other paths (including `~user/...`, not supported)
/// come back unchanged. `None` when the path needs a home folder and none is known.
#[must_use]
pub fn expand_tilde(raw: &str, user_home: Option<&Path>) -> Option<PathBuf> {
    if raw == "~" {
        return user_home.map(Path::to_path_buf);
    }
    match raw.strip_prefix("~/") {
        Some(rest) => user_home.map(|home| home.join(rest)),
        None => Some(PathBuf::from(raw)),
    }
}

/// The arbiter home: `ARBITER_HOME` (with `~` expanded) if set, else `$HOME/.arbiter`.
pub fn arbiter_home(env: &impl Fn(&str) -> Option<String>) -> Result<PathBuf, ConfigError> {
    let home = user_home(env);
    match non_empty(env, ENV_HOME) {
        Some(raw) => expand_tilde(&raw, home.as_deref()).ok_or(ConfigError::NoHome),
        None => home
            .map(|home| home.join(".arbiter"))
            .ok_or(ConfigError::NoHome),
    }
}

/// `<home>/config.json`.
#[must_use]
pub fn config_file(arbiter_home: &Path) -> PathBuf {
    arbiter_home.join("config.json")
}

/// `<home>/queue`, the queue folder when nothing else says otherwise.
#[must_use]
pub fn default_queue_dir(arbiter_home: &Path) -> PathBuf {
    arbiter_home.join("queue")
}

/// `<home>/logs`, the log folder when the config does not say otherwise.
#[must_use]
pub fn default_logs_dir(arbiter_home: &Path) -> PathBuf {
    arbiter_home.join("logs")
}

/// The folder for systemd user units: `$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`.
#[must_use]
pub fn systemd_user_unit_dir(env: &impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let config_home = non_empty(env, "XDG_CONFIG_HOME")
        .map(PathBuf::from)
        // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
        .filter(|dir| dir.is_absolute())
        .or_else(|| user_home(env).map(|home| home.join(".config")))?;
    Some(config_home.join("systemd").join("user"))
}

/// A path from the config file: `~` expanded, a relative path taken relative to the config file's folder
/// (so the daemon does not depend on the directory it was started from).
pub(crate) fn config_relative(
    raw: &str,
    config_path: &Path,
    user_home: Option<&Path>,
) -> Option<PathBuf> {
    let expanded = expand_tilde(raw, user_home)?;
    if expanded.is_absolute() {
        return Some(expanded);
    }
    let base = config_path.parent().unwrap_or_else(|| Path::new(""));
    Some(base.join(expanded))
}

/// Which rule picked the queue folder; worth a `debug!` line when an agent cannot find its plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueDirSource {
    /// The `--queue` flag.
    Flag,
    /// The `ARBITER_QUEUE` variable.
    Env,
    /// `queue.dir` in this config file.
    ConfigFile(PathBuf),
    /// `<home>/queue`.
    Default,
}

/// The queue folder an agent-side command should use, and why.
#[derive(Debug)]
pub struct ResolvedQueueDir {
    pub dir: PathBuf,
    pub source: QueueDirSource,
    /// Set when the config file exists but could not be used (unreadable, bad JSON, `queue.dir` not a
    /// string): the default was used instead, and the user should hear about it on stderr.
    pub warning: Option<ConfigError>,
}

/// Resolves the queue folder for agent-side commands (`push`, `status`, `get`, `await`, `mcp`, ...):
/// `--queue` flag > `ARBITER_QUEUE` > `queue.dir` of `config_path` (only if that file exists and parses;
/// nothing else in it is checked, so agents need no token) > `<arbiter_home>/queue`.
pub fn resolve_queue_dir(
    flag: Option<&Path>,
    env: &impl Fn(&str) -> Option<String>,
    config_path: &Path,
    arbiter_home: &Path,
) -> ResolvedQueueDir {
    let home = user_home(env);
    let resolved = |dir, source| ResolvedQueueDir {
        dir,
        source,
        warning: None,
    };
    if let Some(flag) = flag {
        let dir = flag
            .to_str()
            .and_then(|raw| expand_tilde(raw, home.as_deref()));
        return resolved(
            dir.unwrap_or_else(|| flag.to_path_buf()),
            QueueDirSource::Flag,
        );
    }
    if let Some(raw) = non_empty(env, ENV_QUEUE) {
        // Like the flag: without HOME a `~` stays literal rather than silently losing the variable.
        let dir = expand_tilde(&raw, home.as_deref()).unwrap_or_else(|| PathBuf::from(&raw));
        return resolved(dir, QueueDirSource::Env);
    }
    let default = || default_queue_dir(arbiter_home);
    match super::walk::queue_dir_only(config_path, home.as_deref()) {
        Ok(Some(dir)) => resolved(dir, QueueDirSource::ConfigFile(config_path.to_path_buf())),
        Ok(None) => resolved(default(), QueueDirSource::Default),
        Err(error) => ResolvedQueueDir {
            dir: default(),
            source: QueueDirSource::Default,
            warning: Some(error),
        },
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // see src/config/tests.rs
mod tests {
    use super::*;
    use std::fs;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |key| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    }

    #[test]
    fn tilde_expansion() {
        let home = Path::new("/home/ada");
        assert_eq!(
            expand_tilde("~", Some(home)),
            Some(PathBuf::from("/home/ada"))
        );
        assert_eq!(
            expand_tilde("~/q", Some(home)),
            Some(PathBuf::from("/home/ada/q"))
        );
        assert_eq!(
            expand_tilde("/abs/~/x", Some(home)),
            Some(PathBuf::from("/abs/~/x"))
        );
        assert_eq!(
            expand_tilde("~bob/x", Some(home)),
            Some(PathBuf::from("~bob/x"))
        );
        assert_eq!(expand_tilde("rel", None), Some(PathBuf::from("rel")));
        assert_eq!(expand_tilde("~/q", None), None);
    }

    #[test]
    fn home_from_arbiter_home_then_home() {
        let env = env_of(&[("HOME", "/home/ada"), ("ARBITER_HOME", "~/arb")]);
        assert_eq!(
            arbiter_home(&env).ok(),
            Some(PathBuf::from("/home/ada/arb"))
        );
        let env = env_of(&[("HOME", "/home/ada"), ("ARBITER_HOME", "")]);
        assert_eq!(
            arbiter_home(&env).ok(),
            Some(PathBuf::from("/home/ada/.arbiter"))
        );
        let env = env_of(&[]);
        assert_eq!(
            arbiter_home(&env).map_err(|e| e.to_string()),
            Err("cannot find the arbiter home: set ARBITER_HOME or HOME".to_owned())
        );
    }

    #[test]
    fn systemd_dir_respects_xdg_config_home() {
        let env = env_of(&[("HOME", "/home/ada"), ("XDG_CONFIG_HOME", "/cfg")]);
        assert_eq!(
            systemd_user_unit_dir(&env),
            Some(PathBuf::from("/cfg/systemd/user"))
        );
        let env = env_of(&[("HOME", "/home/ada"), ("XDG_CONFIG_HOME", "relative")]);
        let expected = PathBuf::from("/home/ada/.config/systemd/user");
        assert_eq!(systemd_user_unit_dir(&env), Some(expected));
        assert_eq!(systemd_user_unit_dir(&env_of(&[])), None);
    }

    struct Fixture {
        _dir: tempfile::TempDir,
        home: PathBuf,
        config: PathBuf,
    }

    fn fixture(config_text: Option<&str>) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join(".arbiter");
        fs::create_dir_all(&home).unwrap();
        let config = config_file(&home);
        if let Some(text) = config_text {
            fs::write(&config, text).unwrap();
        }
        Fixture {
            _dir: dir,
            home,
            config,
        }
    }

    fn resolve(f: &Fixture, flag: Option<&str>, env: &[(&str, &str)]) -> ResolvedQueueDir {
        resolve_queue_dir(flag.map(Path::new), &env_of(env), &f.config, &f.home)
    }

    const WITH_DIR: &str = r#"{"queue": {"dir": "~/from-config"}}"#;

    #[test]
    fn queue_flag_beats_env_and_config() {
        let f = fixture(Some(WITH_DIR));
        let r = resolve(
            &f,
            Some("~/flag"),
            &[("HOME", "/h"), ("ARBITER_QUEUE", "/env")],
        );
        assert_eq!(
            (r.dir, r.source),
            (PathBuf::from("/h/flag"), QueueDirSource::Flag)
        );
    }

    #[test]
    fn queue_env_beats_config() {
        let f = fixture(Some(WITH_DIR));
        let r = resolve(&f, None, &[("HOME", "/h"), ("ARBITER_QUEUE", "~/env")]);
        assert_eq!(
            (r.dir, r.source),
            (PathBuf::from("/h/env"), QueueDirSource::Env)
        );
    }

    #[test]
    fn queue_from_config_without_token() {
        // No token, unknown keys elsewhere: agents only care about queue.dir.
        let f = fixture(Some(
            r#"{"queue": {"dir": "~/from-config"}, "whatever": 1}"#,
        ));
        let r = resolve(&f, None, &[("HOME", "/h")]);
        assert_eq!(r.dir, PathBuf::from("/h/from-config"));
        assert_eq!(r.source, QueueDirSource::ConfigFile(f.config.clone()));
        assert!(r.warning.is_none());
    }

    #[test]
    fn queue_relative_config_dir_is_relative_to_the_config_file() {
        let f = fixture(Some(r#"{"queue": {"dir": "q"}}"#));
        let r = resolve(&f, None, &[("HOME", "/h")]);
        assert_eq!(r.dir, f.home.join("q"));
    }

    #[test]
    fn queue_default_without_config_or_without_key() {
        for text in [None, Some(r#"{"telegram": {}}"#)] {
            let f = fixture(text);
            let r = resolve(&f, None, &[("HOME", "/h"), ("ARBITER_QUEUE", " ")]);
            assert_eq!(
                (r.dir, r.source),
                (f.home.join("queue"), QueueDirSource::Default)
            );
            assert!(r.warning.is_none());
        }
    }

    #[test]
    fn queue_default_with_warning_when_config_is_broken() {
        let f = fixture(Some("{ nope"));
        let r = resolve(&f, None, &[("HOME", "/h")]);
        assert_eq!(
            (r.dir, r.source),
            (f.home.join("queue"), QueueDirSource::Default)
        );
        let warning = r.warning.map(|w| w.to_string()).unwrap_or_default();
        let expected = format!(
            "{}:1:3: invalid JSON: key must be a string",
            f.config.display()
        );
        assert_eq!(warning, expected);
    }
}
