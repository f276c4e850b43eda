//! `arbiter web-login --user ID`: prints a one-time login link for the web dashboard. It works while the daemon
//! runs in another process: links are files in the dashboard's state folder (see `web::auth`), which the daemon
//! reads when the link is opened. So a link is printed only when the dashboard serving the config's queue keeps
//! its state in the config's state folder (see `web::serving`); otherwise the link could not work, and the error
//! says which config file to pass.

use std::path::{Path, PathBuf};

use crate::actions::Access;
use crate::web::serving::{self, Serving};
use crate::web::{AuthStore, Links, WebSettings};

use crate::config::ConfigError;

/// Why no link was printed.
#[derive(Debug, thiserror::Error)]
pub enum WebLoginError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(
        "{}: the web dashboard is off; add \"web\": {{\"listen\": \"127.0.0.1:8470\"}} and restart the daemon",
        config.display()
    )]
    Off { config: PathBuf },
    #[error("user {0} is not in telegram.allowedUsers; no link was made")]
    NotAllowed(u64),
    #[error("{}: {source}", dir.display())]
    State {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "no arbiter daemon is serving the web dashboard for the queue {} (the queue of {}), so no link was made: \
         start it with `arbiter run`, or, if it runs with another config file, pass that one with --config FILE",
        queue.display(),
        config.display()
    )]
    NotServing { queue: PathBuf, config: PathBuf },
    #[error(
        "a link made with {} would not work: the daemon serving its queue {} {}redeems links from {}, not {}; pass {}",
        config.display(),
        queue.display(),
        started_with(theirs),
        theirs.state_dir.display(),
        ours.display(),
        what_to_pass(theirs)
    )]
    OtherState {
        queue: PathBuf,
        config: PathBuf,
        ours: PathBuf,
        theirs: Box<Serving>,
    },
}

/// `was started with FILE and ` when the daemon says which config file it read.
fn started_with(theirs: &Serving) -> String {
    theirs
        .config
        .as_ref()
        .map(|file| format!("was started with {} and ", file.display()))
        .unwrap_or_default()
}

fn what_to_pass(theirs: &Serving) -> String {
    match &theirs.config {
        Some(file) => format!("--config {}", file.display()),
        None => "--config with the config file it was started with".to_owned(),
    }
}

impl WebLoginError {
    /// True when what was asked for is at fault (exit code 2), false for run-time failures (exit code 1).
    #[must_use]
    pub fn is_invalid_input(&self) -> bool {
        matches!(
            self,
            WebLoginError::NotAllowed(_) | WebLoginError::OtherState { .. }
        )
    }
}

pub fn run(config_path: Option<PathBuf>, user: u64) -> Result<(), WebLoginError> {
    let (_, cfg) = super::load_config(config_path)?;
    if cfg.web.is_none() {
        return Err(WebLoginError::Off { config: cfg.path });
    }
    // Who may sign in is the owner-action layer's decision, as for every other front end.
    if !Access::new(cfg.telegram.allowed_users.iter().copied()).is_member(user) {
        return Err(WebLoginError::NotAllowed(user));
    }
    let dir = WebSettings::state_dir_for(&cfg.path);
    let serving = serving_dashboard(&cfg.queue.dir, &cfg.path, &dir)?;
    let state = |source| WebLoginError::State {
        dir: dir.clone(),
        source,
    };
    // The daemon's own base: where it listens now (the config's `web` may have changed since it started).
    let links = Links {
        auth: AuthStore::open(&dir).map_err(state)?,
        base: serving.base,
    };
    let link = links.login_link(user).map_err(state)?;
    println!("{link}");
    eprintln!("Valid for 10 minutes, once.");
    Ok(())
}

/// The dashboard serving `queue`, when it redeems links from `state_dir` (the one beside `config`).
fn serving_dashboard(
    queue: &Path,
    config: &Path,
    state_dir: &Path,
) -> Result<Serving, WebLoginError> {
    let found = serving::find(queue).map_err(|source| WebLoginError::State {
        dir: queue.join(serving::FILE),
        source,
    })?;
    let Some(theirs) = found else {
        return Err(WebLoginError::NotServing {
            queue: queue.to_owned(),
            config: config.to_owned(),
        });
    };
    // Their state folder is canonical; ours may not exist yet (then it is not theirs).
    let ours = std::fs::canonicalize(state_dir).unwrap_or_else(|_| state_dir.to_owned());
    if theirs.state_dir != ours {
        return Err(WebLoginError::OtherState {
            queue: queue.to_owned(),
            config: config.to_owned(),
            ours,
            theirs: Box::new(theirs),
        });
    }
    Ok(theirs)
}
