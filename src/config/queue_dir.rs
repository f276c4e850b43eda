//! Which queue folder an agent-side command uses: the flag, the variable, the config's `queue.dir`, or
//! the default.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::error::ConfigError;
use super::file::{self, QueueSection};
use super::paths::{ENV_QUEUE, default_queue_dir, expand_tilde, non_empty, user_home};
use super::values;

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
    /// Set when the config file exists but could not be used (unreadable, bad JSON, a bad `queue`
    /// section): the default was used instead, and the user should hear about it on stderr.
    pub warning: Option<ConfigError>,
}

/// Resolves the queue folder for agent-side commands (`push`, `status`, `get`, `await`, `mcp`, ...):
/// `--queue` flag > `ARBITER_QUEUE` > `queue.dir` of `config_path` (only if that file exists and its
/// `queue` section is valid; nothing else in it is checked, so agents need no token) > `<arbiter_home>/queue`.
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
    match queue_dir_in(config_path, home.as_deref()) {
        Ok(Some(dir)) => resolved(dir, QueueDirSource::ConfigFile(config_path.to_path_buf())),
        Ok(None) => resolved(default(), QueueDirSource::Default),
        Err(error) => ResolvedQueueDir {
            dir: default(),
            source: QueueDirSource::Default,
            warning: Some(error),
        },
    }
}

/// The part of config.json agents read: the `queue` section, of the schema's own type. The other
/// sections are not looked at (nor required to be valid), so an agent needs no token, and a mistake in
/// the daemon's settings does not move the agents' queue.
#[derive(Deserialize)]
struct AgentView {
    #[serde(default, deserialize_with = "values::section")]
    queue: QueueSection,
}

/// `queue.dir` of the config file at `path`, resolved; `Ok(None)` when the file or the key does not exist.
fn queue_dir_in(path: &Path, user_home: Option<&Path>) -> Result<Option<PathBuf>, ConfigError> {
    let Some(text) = file::read(path)? else {
        return Ok(None);
    };
    let view: AgentView = file::parse(path, &text)?;
    let Some(dir) = view.queue.dir else {
        return Ok(None);
    };
    dir.resolve(path, user_home)
        .map(Some)
        .map_err(|problem| ConfigError::invalid(path, "queue.dir", problem))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::config_file;
    use crate::config::paths::env_of;
    use std::fs;

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

    #[test]
    fn queue_section_typo_is_a_warning_not_silence() {
        // Before the schema was shared, `dri` went unnoticed and the default queue was used without a word.
        let f = fixture(Some(r#"{"queue": {"dri": "~/q"}}"#));
        let r = resolve(&f, None, &[("HOME", "/h")]);
        assert_eq!(r.dir, f.home.join("queue"));
        let warning = r.warning.map(|w| w.to_string()).unwrap_or_default();
        let expected = format!(
            "{}: queue.dri: unknown key; expected one of dir, watchInterval",
            f.config.display()
        );
        assert_eq!(warning, expected);
    }
}
