//! The web dashboard: server-rendered pages over the owner-action layer, served by `arbiter run`.
//!
//! Every change goes through [`Actions::take`] with the session's user as the actor, and every list of plans
//! through [`Actions::visible`]: the dashboard decides no permission itself. Pages work without JavaScript;
//! the one embedded script adds keyboard shortcuts and live updates (Server-Sent Events fired when the daemon's
//! rescan of pending/ sees a change). Security: login links and sessions in [`auth`], headers, CSRF and Origin
//! checks in [`guard`], which Host and Origin are this dashboard's (the DNS rebinding defence, for every route
//! including `/mcp`) in [`origin`].

pub(crate) mod auth;
mod bulk;
mod guard;
mod history_page;
mod kinds;
mod layout;
pub(crate) mod markdown;
mod origin;
mod pages;
mod plan_forms;
mod plan_page;
mod reply;
mod revision_page;
mod rules_page;
pub(crate) mod serving;
mod stats_page;

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use axum::Router;
use axum::routing::{get, post};
use tokio::sync::broadcast;

use crate::actions::{Actions, Actor};
use crate::config::{BotToken, SecretToken};
use crate::queue::Loaded;

pub use auth::AuthStore;

/// What `arbiter run` needs to serve the dashboard (from config `web`).
#[derive(Debug, Clone)]
pub struct WebSettings {
    pub listen: SocketAddr,
    /// Where a reverse proxy or tunnel serves it; login links use it.
    pub public_url: Option<url::Url>,
    pub session_days: u32,
    /// Login links and sessions (`logins/`, `sessions/`).
    pub state_dir: PathBuf,
    /// Agent name → bearer token for MCP over HTTP (`POST /mcp`); empty: every MCP request gets 401.
    pub agent_tokens: std::collections::BTreeMap<String, SecretToken>,
    /// The bot token: a Telegram Mini App's `initData` is signed with it (`POST /auth/telegram`).
    pub bot_token: BotToken,
    /// `notifications.timezone`: the days of the stats chart.
    pub timezone: chrono_tz::Tz,
    /// The config file `arbiter run` read, for `arbiter web-login` to name when it is run with another one.
    pub config_file: Option<PathBuf>,
}

impl WebSettings {
    /// The state folder beside a config file: `<config folder>/web`.
    #[must_use]
    pub fn state_dir_for(config_path: &std::path::Path) -> PathBuf {
        config_path
            .parent()
            .unwrap_or_else(|| std::path::Path::new("."))
            .join("web")
    }
}

/// Makes login links: the store plus the URL the dashboard is reached at.
#[derive(Debug, Clone)]
pub struct Links {
    pub auth: AuthStore,
    /// `publicUrl`, else `http://<listen address>`, without a trailing `/`.
    pub base: String,
}

impl Links {
    /// A one-time login link for `user` (whether `user` may log in is the caller's to check, with
    /// `Access::is_member`).
    pub fn login_link(&self, user: u64) -> io::Result<String> {
        let token = self.auth.create_login(user, SystemTime::now())?;
        Ok(format!("{}/login/{token}", self.base))
    }

    /// The base URL for a dashboard at `listen`, or at `public_url` when set.
    #[must_use]
    pub fn base_for(listen: SocketAddr, public_url: Option<&url::Url>) -> String {
        match public_url {
            Some(url) => url.as_str().trim_end_matches('/').to_owned(),
            None => format!("http://{listen}"),
        }
    }
}

/// Shared by every request.
#[derive(Clone)]
pub(crate) struct Web {
    pub actions: Actions,
    pub auth: AuthStore,
    pub changes: broadcast::Sender<()>,
    /// Where the dashboard is served (its listener and `publicUrl`): which Origins are its own.
    pub site: origin::Site,
    pub session_days: u32,
    /// Read only where a Mini App's `initData` signature is checked.
    pub bot_token: Arc<BotToken>,
    pub timezone: chrono_tz::Tz,
    /// Becomes `true` when the daemon stops: open event streams end with it.
    pub stop: tokio::sync::watch::Receiver<bool>,
    /// The audit trail's month files the History page found intact, read again only when they change.
    pub audit_checked: Arc<crate::queue::audit::Checked>,
}

impl Web {
    /// Cookies get `Secure` when the dashboard is served over https.
    fn secure(&self) -> bool {
        self.site
            .public_url()
            .is_some_and(|u| u.scheme() == "https")
    }

    /// The pending plans `user` may see, from a fresh scan (plans naming people nobody can reach are left out, as
    /// the bot leaves them out).
    pub async fn plans(&self, user: u64) -> Vec<Arc<Loaded>> {
        let queue = self.actions.queue().clone();
        let scan = tokio::task::spawn_blocking(move || queue.scan_pending()).await;
        let plans = match scan {
            Ok(Ok(scan)) => scan.plans,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "scan of pending/ failed");
                Vec::new()
            }
            Err(e) => {
                tracing::error!(error = %e, "scan task failed");
                Vec::new()
            }
        };
        let access = self.actions.access();
        plans
            .into_iter()
            .filter(|l| {
                access.unknown_people(&l.plan).is_none()
                    && !self
                        .actions
                        .visible(Actor::User(user), [&l.plan])
                        .is_empty()
            })
            .collect()
    }
}

/// A running dashboard: dropping it stops the server (it stops listening at once; requests under way finish,
/// event streams end).
pub struct Running {
    pub links: Links,
    pub addr: SocketAddr,
    stop: tokio::sync::watch::Sender<bool>,
    /// Tells `arbiter web-login` that this dashboard serves the queue, until it stops.
    _announced: Option<serving::Announced>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// Why the dashboard could not start.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("web dashboard: can't listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: io::Error },
    #[error("web dashboard: can't use the state folder {}: {source}", dir.display())]
    State { dir: PathBuf, source: io::Error },
}

/// Binds `settings.listen` and serves the dashboard until the returned [`Running`] is dropped. `changes` fires
/// whenever the daemon's rescan of pending/ sees a change.
pub async fn start(
    settings: &WebSettings,
    actions: Actions,
    changes: broadcast::Sender<()>,
) -> Result<Running, WebError> {
    let auth = AuthStore::open(&settings.state_dir).map_err(|source| WebError::State {
        dir: settings.state_dir.clone(),
        source,
    })?;
    let listener = tokio::net::TcpListener::bind(settings.listen)
        .await
        .map_err(|source| WebError::Bind {
            addr: settings.listen,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| WebError::Bind {
        addr: settings.listen,
        source,
    })?;
    let queue_root = actions.queue().root().to_owned();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mcp_stop = tokio_util::sync::CancellationToken::new();
    let mcp = crate::mcp::http::router(
        actions.queue().clone(),
        &settings.agent_tokens,
        Some(crate::mcp::machines::Machines::in_state_dir(
            &settings.state_dir,
        )),
        Some(actions.grant_minutes()),
        mcp_stop.clone(),
    );
    let site = origin::Site::new(addr, settings.public_url.as_ref());
    let web = Web {
        actions,
        auth: auth.clone(),
        changes,
        site: site.clone(),
        session_days: settings.session_days,
        bot_token: Arc::new(settings.bot_token.clone()),
        timezone: settings.timezone,
        stop: stopped.clone(),
        audit_checked: Arc::default(),
    };
    // Host and Origin are checked for every route, `/mcp` included, before anything else looks at a request.
    let app = router(web)
        .merge(mcp)
        .layer(axum::middleware::from_fn_with_state(
            site,
            guard::addressed_here,
        ));
    let mut stopped = stopped;
    tokio::spawn(async move {
        let shutdown = async move {
            let _ = stopped.wait_for(|stop| *stop).await;
            // MCP's open sessions and event streams end with the dashboard.
            mcp_stop.cancel();
        };
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(shutdown)
            .await
        {
            tracing::error!(error = %e, "web dashboard stopped");
        }
    });
    tracing::info!(%addr, "web dashboard listening");
    let links = Links {
        auth,
        base: Links::base_for(addr, settings.public_url.as_ref()),
    };
    let announced = announce(settings, &queue_root, &links.base);
    Ok(Running {
        links,
        addr,
        stop,
        _announced: announced,
    })
}

/// Records in the queue folder that this dashboard serves it (for `arbiter web-login`). Without the record the
/// dashboard still works, and `web-login` refuses to make links for it, so a failure is only a warning.
fn announce(
    settings: &WebSettings,
    queue_root: &std::path::Path,
    base: &str,
) -> Option<serving::Announced> {
    let canonical = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    let record = serving::Serving {
        state_dir: canonical(&settings.state_dir),
        base: base.to_owned(),
        config: settings.config_file.as_deref().map(canonical),
    };
    match serving::announce(queue_root, &record) {
        Ok(Some(announced)) => Some(announced),
        Ok(None) => {
            tracing::warn!(queue = %queue_root.display(), "another dashboard holds {}; `arbiter web-login` names that one", serving::FILE);
            None
        }
        Err(e) => {
            tracing::warn!(queue = %queue_root.display(), error = %e, "can't record the dashboard in {}; `arbiter web-login` will not make links for it", serving::FILE);
            None
        }
    }
}

fn router(web: Web) -> Router {
    let frame_ancestors = if web.site.public_url().is_some() {
        "https://web.telegram.org"
    } else {
        "'none'"
    };
    Router::new()
        .route("/", get(pages::home))
        .route("/assets/style.css", get(pages::style))
        .route("/assets/app.js", get(pages::script))
        .route("/login", get(pages::login_needed))
        .route("/login/{token}", get(pages::login_page).post(pages::login))
        .route("/auth/telegram", post(pages::telegram_login))
        .route("/logout", post(pages::logout))
        .route("/queue", get(pages::queue))
        .route("/plan", get(plan_page::show))
        .route("/plan/decide", post(plan_forms::decide))
        .route("/plan/submit", post(plan_forms::submit))
        .route("/plan/request-changes", post(plan_forms::request_changes))
        .route("/bulk", get(bulk::show).post(bulk::answer))
        .route("/stats", get(stats_page::show))
        .route("/history", get(history_page::show))
        .route("/rules", get(rules_page::show))
        .route("/rules/change", post(rules_page::change))
        .route("/rules/always", post(rules_page::always))
        .route("/history/revision", get(revision_page::show))
        .route("/events", get(pages::events))
        .layer(axum::middleware::map_response(
            move |response: axum::response::Response| guard::headers(response, frame_ancestors),
        ))
        .with_state(web)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOT: &str = "123456:bot-secret-never-printed";
    const AGENT: &str = "agent-secret-never-printed";

    fn settings() -> WebSettings {
        WebSettings {
            listen: SocketAddr::from(([127, 0, 0, 1], 8470)),
            public_url: None,
            session_days: 30,
            state_dir: PathBuf::from("/tmp/arbiter-web"),
            agent_tokens: [("builder".to_owned(), SecretToken::new(AGENT))].into(),
            bot_token: BotToken::new(BOT),
            timezone: chrono_tz::Tz::UTC,
            config_file: None,
        }
    }

    #[test]
    fn printing_the_settings_shows_no_token() {
        let web = settings();
        let mut daemon = crate::daemon::Settings::new(
            BotToken::new(BOT),
            vec![7],
            PathBuf::from("/tmp/arbiter-queue"),
        );
        daemon.web = Some(web.clone());
        for printed in [
            format!("{web:?}"),
            format!("{web:#?}"),
            format!("{daemon:?}"),
        ] {
            assert!(!printed.contains("secret-never-printed"), "{printed}");
        }
        // What is printed still names the agents (a typed token hides its value, not that it is there).
        assert!(format!("{web:?}").contains(r#""builder": SecretToken(<redacted>)"#));
    }
}
