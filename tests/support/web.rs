//! The real daemon with its web dashboard on 127.0.0.1, and a plain HTTP client that signs in the way a person
//! does: `/web` in Telegram, open the link, press Sign in.

use std::path::PathBuf;

use arbiter_zebu::config::{BotToken, SecretToken};
use arbiter_zebu::fakebot::FakeBot;
use arbiter_zebu::web::WebSettings;
use reqwest::StatusCode;
use reqwest::header::HeaderMap;

use super::TempQueue;
use super::daemon::{OWNER, Running, settings};

/// A daemon with the dashboard on a free port; `home` holds config.json and the dashboard's state (`web/`).
pub struct Dash {
    pub run: Running,
    pub home: tempfile::TempDir,
    /// `http://127.0.0.1:PORT`: where the daemon listens.
    pub base: String,
    pub http: reqwest::Client,
}

/// A response as the tests look at it.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Reply {
    #[must_use]
    pub fn location(&self) -> Option<&str> {
        self.headers
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
    }
}

/// The bearer token of agent `builder` for MCP over HTTP.
pub const AGENT_TOKEN: &str = "builder-token-0123456789abcdef";

impl Dash {
    pub async fn start(queue: TempQueue) -> Dash {
        Dash::start_in(queue, tempfile::tempdir().expect("home"), &[], None).await
    }

    /// [`Dash::start`] with `others` allowed besides the owner.
    pub async fn start_with_users(queue: TempQueue, others: &[u64]) -> Dash {
        Dash::start_in(queue, tempfile::tempdir().expect("home"), others, None).await
    }

    /// [`Dash::start`] with `web.publicUrl` set (where a reverse proxy in front serves it); login links point there,
    /// `base` is still where the daemon listens.
    pub async fn start_public(queue: TempQueue, public_url: &str) -> Dash {
        Dash::start_in(
            queue,
            tempfile::tempdir().expect("home"),
            &[],
            Some(public_url),
        )
        .await
    }

    /// Stops the daemon and starts a new one on the same queue and state folder (a restart).
    pub async fn restart(self) -> Dash {
        let Dash { run, home, .. } = self;
        let queue = run.stop().await;
        Dash::start_in(queue, home, &[], None).await
    }

    async fn start_in(
        queue: TempQueue,
        home: tempfile::TempDir,
        others: &[u64],
        public_url: Option<&str>,
    ) -> Dash {
        let fake = FakeBot::start().await.expect("fake bot");
        let mut s = settings(&fake, &queue);
        s.allowed_users.extend_from_slice(others);
        // With a public URL the login links name it, not the port: pick a free port up front.
        let listen = match public_url {
            Some(_) => free_local_address(),
            None => "127.0.0.1:0".parse().expect("addr"),
        };
        s.web = Some(WebSettings {
            listen,
            public_url: public_url.map(|u| u.parse().expect("public URL")),
            session_days: 30,
            state_dir: home.path().join("web"),
            agent_tokens: [("builder".to_owned(), SecretToken::new(AGENT_TOKEN))].into(),
            bot_token: BotToken::new(fake.token()),
            timezone: chrono_tz::Tz::UTC,
            config_file: None,
        });
        let run = Running::start_with(fake, queue, s).await;
        let http = client();
        let mut dash = Dash {
            run,
            home,
            base: String::new(),
            http,
        };
        dash.base = if public_url.is_some() {
            format!("http://{listen}")
        } else {
            let link = dash.login_link().await;
            let at = link.find("/login/").expect("login path");
            link[..at].to_owned()
        };
        dash
    }

    /// A fresh login link, asked for with `/web` in Telegram.
    pub async fn login_link(&self) -> String {
        self.login_link_for(OWNER).await
    }

    /// A fresh login link for `user`, asked for with `/web` in their Telegram chat.
    pub async fn login_link_for(&self, user: i64) -> String {
        let fake = &self.run.fake;
        let links = |f: &FakeBot| -> Vec<String> {
            f.messages(user)
                .into_iter()
                .filter(|m| m.from_bot() && m.plain.contains("/login/"))
                .map(|m| m.plain)
                .collect()
        };
        let before = links(fake).len();
        fake.send_text(user, "/web");
        let ok = fake
            .wait_until(|f| links(f).len() > before, super::daemon::WAIT)
            .await;
        assert!(ok, "no login link; chat:\n{}", self.run.transcript());
        let text = links(fake).pop().expect("link");
        let start = text
            .find("http://")
            .or_else(|| text.find("https://"))
            .expect("http(s) link");
        text[start..]
            .split_whitespace()
            .next()
            .expect("link")
            .to_owned()
    }

    /// Opens a login link and presses Sign in: the session cookie (`name=value`).
    pub async fn sign_in_with(&self, link: &str) -> Option<String> {
        sign_in(&self.http, &self.base, link).await
    }

    /// Signs in as the owner: the session cookie.
    pub async fn sign_in(&self) -> String {
        let link = self.login_link().await;
        self.sign_in_with(&link).await.expect("signed in")
    }

    pub async fn get(&self, path: &str, cookie: Option<&str>) -> Reply {
        self.get_url(&format!("{}{path}", self.base), cookie).await
    }

    pub async fn get_url(&self, url: &str, cookie: Option<&str>) -> Reply {
        get(&self.http, url, cookie).await
    }

    /// POSTs a form; `origin` is sent as the Origin header when given.
    pub async fn post(
        &self,
        path: &str,
        cookie: Option<&str>,
        origin: Option<&str>,
        form: &[(&str, &str)],
    ) -> Reply {
        self.post_url(&format!("{}{path}", self.base), cookie, origin, form)
            .await
    }

    /// POSTs a form as one of the dashboard's own pages does: with the session `cookie` and this dashboard's
    /// Origin.
    pub async fn post_from_page(&self, path: &str, cookie: &str, form: &[(&str, &str)]) -> Reply {
        self.post(path, Some(cookie), Some(&self.base), form).await
    }

    pub async fn post_url(
        &self,
        url: &str,
        cookie: Option<&str>,
        origin: Option<&str>,
        form: &[(&str, &str)],
    ) -> Reply {
        post(&self.http, url, cookie, origin, form).await
    }

    /// The dashboard's state folder.
    #[must_use]
    pub fn state_dir(&self) -> PathBuf {
        self.home.path().join("web")
    }
}

/// An HTTP client that shows redirects instead of following them.
#[must_use]
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// Opens a login link and presses Sign in, as a browser on the dashboard at `base` does: the session cookie
/// (`name=value`).
pub async fn sign_in(http: &reqwest::Client, base: &str, link: &str) -> Option<String> {
    let page = get(http, link, None).await;
    if page.status != StatusCode::OK {
        return None;
    }
    let reply = post(http, link, None, Some(base), &[]).await;
    let cookie = reply
        .headers
        .get(reqwest::header::SET_COOKIE)?
        .to_str()
        .ok()?;
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    Some(cookie.split(';').next()?.to_owned())
}

/// GETs `url`, with the session cookie when given.
pub async fn get(http: &reqwest::Client, url: &str, cookie: Option<&str>) -> Reply {
    let mut req = http.get(url);
    if let Some(c) = cookie {
        req = req.header(reqwest::header::COOKIE, c);
    }
    reply(req.send().await.expect("GET")).await
}

/// POSTs a form; `origin` is sent as the Origin header when given.
pub async fn post(
    http: &reqwest::Client,
    url: &str,
    cookie: Option<&str>,
    origin: Option<&str>,
    form: &[(&str, &str)],
) -> Reply {
    let body = form
        .iter()
        .fold(
            url::form_urlencoded::Serializer::new(String::new()),
            |mut s, (k, v)| {
                s.append_pair(k, v);
                s
            },
        )
        .finish();
    let mut req = http
        .post(url)
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body(body);
    if let Some(c) = cookie {
        req = req.header(reqwest::header::COOKIE, c);
    }
    if let Some(o) = origin {
        req = req.header(reqwest::header::ORIGIN, o);
    }
    reply(req.send().await.expect("POST")).await
}

/// A free address on 127.0.0.1 (a port the system just handed out and took back).
#[must_use]
pub fn free_local_address() -> std::net::SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind a free port")
        .local_addr()
        .expect("its address")
}

async fn reply(r: reqwest::Response) -> Reply {
    let status = r.status();
    let headers = r.headers().clone();
    let body = r.text().await.unwrap_or_default();
    Reply {
        status,
        headers,
        body,
    }
}

/// The value of the first `name="NAME" value="..."` input in a page.
#[must_use]
pub fn field(page: &str, name: &str) -> Option<String> {
    let at = page.find(&format!("name=\"{name}\" value=\""))?;
    let rest = &page[at + name.len() + 15..];
    Some(rest[..rest.find('"')?].to_owned())
}

/// Every `value` of buttons and inputs named `name`, in page order.
#[must_use]
pub fn values(page: &str, name: &str) -> Vec<String> {
    let needle = format!("name=\"{name}\" value=\"");
    page.match_indices(&needle)
        .filter_map(|(at, _)| {
            let rest = &page[at + needle.len()..];
            Some(rest[..rest.find('"')?].to_owned())
        })
        .collect()
}
