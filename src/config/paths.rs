//! Where things live: the arbiter home, its default folders, `~` expansion.
//!
//! Every function takes the environment as a lookup function (`env("HOME")`) instead of reading the
//! process environment, so tests describe the world they need without mutating global state.

use std::path::{Path, PathBuf};

use super::error::ConfigError;

/// Overrides the arbiter home (default `~/.arbiter`).
pub const ENV_HOME: &str = "ARBITER_HOME";
/// Overrides the queue folder for agent-side commands.
pub const ENV_QUEUE: &str = "ARBITER_QUEUE";
/// Holds the bot token so it need not sit in `config.json`; wins over the file.
pub const ENV_TOKEN: &str = "ARBITER_TELEGRAM_TOKEN";
/// The owner's config file, when it is not `<home>/config.json` (as `--config FILE`).
pub const ENV_CONFIG: &str = "ARBITER_CONFIG";

/// The owner's config file and how it was chosen: `--config`, else `ARBITER_CONFIG`, else the arbiter home's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigLocation {
    pub path: PathBuf,
    /// How the place was chosen, as an error names it.
    pub looked: &'static str,
}

/// Where the owner's config file is (`~` expanded); it may not exist.
pub fn locate_config(
    flag: Option<&Path>,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<ConfigLocation, ConfigError> {
    let home = user_home(env);
    let expand = |raw: &str| expand_tilde(raw, home.as_deref()).ok_or(ConfigError::NoHome);
    if let Some(flag) = flag {
        let path = match flag.to_str() {
            Some(raw) => expand(raw)?,
            None => flag.to_path_buf(),
        };
        return Ok(ConfigLocation {
            path,
            looked: "given with --config",
        });
    }
    if let Some(raw) = non_empty(env, ENV_CONFIG) {
        return Ok(ConfigLocation {
            path: expand(&raw)?,
            looked: "given with ARBITER_CONFIG",
        });
    }
    Ok(ConfigLocation {
        path: config_file(&arbiter_home(env)?),
        looked: "the arbiter home's, ARBITER_HOME or ~/.arbiter; neither --config nor ARBITER_CONFIG was given",
    })
}

impl ConfigLocation {
    /// A missing file named with where it was looked for; every other error as it is.
    #[must_use]
    pub fn explain(&self, error: ConfigError) -> ConfigError {
        match error {
            ConfigError::NotFound { path } => ConfigError::Missing {
                path,
                looked: self.looked,
            },
            other => other,
        }
    }
}

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

/// An environment made of `pairs`, for tests (the config takes its environment as a function).
#[cfg(test)]
pub(crate) fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |key| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
