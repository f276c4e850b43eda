//! `arbiter run [--config F]`: load the config, set up logging, run the daemon until SIGTERM or Ctrl-C.

use std::path::{Path, PathBuf};

use crate::config::{self, Config};
use crate::daemon::{self, Settings};
use crate::queue::watcher::Mode;

use super::CliError;

pub fn run(config_path: Option<PathBuf>) -> Result<(), CliError> {
    let (path, cfg) = super::load_config(config_path)?;
    init_logging(&cfg.logs.dir, cfg.logs.level);
    if let Some(w) = Config::permission_warning(&path) {
        tracing::warn!("{w}");
    }
    let settings = settings_from(&cfg);
    tracing::info!(queue = %settings.queue_dir.display(), users = settings.allowed_users.len(), "arbiter daemon starting");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    runtime
        .block_on(daemon::run(settings, shutdown_signal()))
        .inspect_err(|e| tracing::error!(error = %e, "the daemon could not start"))?;
    tracing::info!("stopped");
    Ok(())
}

/// Daemon settings from a loaded config.
#[must_use]
pub fn settings_from(cfg: &Config) -> Settings {
    let mut s = Settings::new(
        cfg.telegram.token.clone(),
        cfg.telegram.allowed_users.clone(),
        cfg.queue.dir.clone(),
    );
    // Checked by Config::load: None only when apiUrl is not set.
    s.api_url = cfg.telegram.api_url.clone();
    // ARBITER_WATCH=poll: no file events, polling every watchInterval (network filesystems; benchmarks).
    let poll = cfg.queue.watch_interval;
    s.watch = match config::process_env("ARBITER_WATCH").as_deref() {
        Some("poll") => Mode::Polling { poll },
        _ => Mode::Events { poll },
    };
    s.notifications = cfg.notifications.enabled;
    s.quiet_hours = cfg.notifications.quiet_hours.clone().map(|q| q.0);
    s.timezone = cfg.notifications.timezone;
    s.digest = cfg.digest.clone();
    s.people = cfg.people.clone();
    s.groups = cfg.telegram.groups.clone();
    s.grant_minutes = cfg.grant_minutes;
    s.web = cfg.web.as_ref().map(|w| crate::web::WebSettings {
        listen: w.listen,
        public_url: w.public_url.clone(),
        session_days: w.session_days,
        state_dir: crate::web::WebSettings::state_dir_for(&cfg.path),
        agent_tokens: w.agent_tokens.clone(),
        bot_token: cfg.telegram.token.clone(),
        timezone: cfg.notifications.timezone,
        config_file: Some(cfg.path.clone()),
    });
    // With an https public URL, the bot offers the dashboard as a Telegram Mini App.
    s.dashboard_url = cfg
        .web
        .as_ref()
        .and_then(|w| w.public_url.as_ref())
        .map(|u| u.to_string());
    s
}

/// Resolves on SIGTERM (systemd stop) or SIGINT (Ctrl-C).
async fn shutdown_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        () = term => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

/// Logs to stderr and appends to `<logs>/arbiter.log`. The token never reaches a log line: teloxide redacts it
/// from its errors and the daemon never formats it.
fn init_logging(dir: &Path, level: tracing::level_filters::LevelFilter) {
    use tracing_subscriber::prelude::*;
    let filter = tracing_subscriber::EnvFilter::builder()
        .with_default_directive(level.into())
        .with_env_var("ARBITER_LOG")
        .from_env_lossy();
    let file = std::fs::create_dir_all(dir)
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join("arbiter.log"))
        })
        .ok();
    // Colour only on a terminal: journald and redirected logs would show the escape codes.
    let stderr = tracing_subscriber::fmt::layer()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    let file_layer = file.map(|f| {
        tracing_subscriber::fmt::layer()
            .with_ansi(false)
            .with_writer(std::sync::Mutex::new(f))
    });
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(stderr)
        .with(file_layer)
        .try_init();
}
