//! The agent side of a daemon on another machine (`--server URL`, `ARBITER_SERVER`): the agent commands, `arbiter
//! mcp` and the hooks reach the daemon's HTTP server instead of a queue folder. The agent commands speak MCP to its
//! `/mcp` ([`Session`]); a hook posts its input to `/agent/hook`, where the daemon runs the hook core on its own
//! queue ([`hook`]). Nothing is written locally and nothing is kept to send later: every failure answers at once
//! with one line naming the URL ([`RemoteError`]).

pub mod acp;
pub mod hook;
mod session;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use session::Session;

use crate::config::SecretToken;

/// Where the daemon serves MCP (`crate::mcp::http::PATH`, which the MCP layer checks is the same).
pub const MCP_PATH: &str = "/mcp";

/// How long connecting may take before the daemon counts as unreachable.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a request that does not wait for the owner may take (a daemon that stalls longer is given up on).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a daemon on another machine could not be used. Each reads as one line naming the URL.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The command line or the environment do not say enough (no token, a bad URL, a CA file that does not read).
    #[error("{0}")]
    Setup(String),
    #[error("{url}: unreachable: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("{url}: TLS failed: {reason}")]
    Tls { url: String, reason: String },
    #[error(
        "{url}: the daemon refused the token (HTTP 401): a wrong token, or one revoked (`arbiter token list` on the \
         daemon's machine)"
    )]
    Refused { url: String },
    #[error("{url}: no answer within {}s: the daemon stalls", .after.as_secs())]
    Stalled { url: String, after: Duration },
    #[error("{url}: not an answer Arbiter's daemon gives: {reason}")]
    Garbage { url: String, reason: String },
    /// The daemon did the request and said no (an invalid plan, no such plan): its own words.
    #[error("{0}")]
    Said(String),
}

impl RemoteError {
    /// The failure of a request to `url`, told from what the HTTP client says.
    fn of_http(url: &str, e: &(dyn std::error::Error + 'static)) -> RemoteError {
        let url = url.to_owned();
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
        let mut words = Vec::new();
        let mut status = None;
        while let Some(now) = source {
            let tls = now.downcast_ref::<rustls::Error>().or_else(|| {
                now.downcast_ref::<std::io::Error>()
                    .and_then(std::io::Error::get_ref)
                    .and_then(|inner| inner.downcast_ref::<rustls::Error>())
            });
            if let Some(tls) = tls {
                return RemoteError::Tls {
                    url,
                    reason: tls.to_string(),
                };
            }
            if let Some(http) = now.downcast_ref::<http_client::Error>() {
                status = status.or(http.status());
                if http.is_timeout() {
                    return RemoteError::Stalled {
                        url,
                        after: REQUEST_TIMEOUT,
                    };
                }
            }
            words.push(now.to_string());
            source = now.source();
        }
        let said = words.join(": ");
        if status.is_some_and(|s| s.as_u16() == 401)
            || said.contains("401")
            || said.contains("Auth required")
        {
            return RemoteError::Refused { url };
        }
        let reason = words.last().cloned().unwrap_or_default();
        // rustls's error reaches here boxed inside the connector's, where it can't always be downcast: its words.
        if let Some(tls) = words.iter().rev().find(|w| {
            w.contains("certificate") || w.contains("handshake") || w.contains("peer sent")
        }) {
            return RemoteError::Tls {
                url,
                reason: tls.clone(),
            };
        }
        if said.contains("error sending request")
            || said.contains("connect")
            || said.contains("Connection refused")
        {
            return RemoteError::Unreachable { url, reason };
        }
        RemoteError::Garbage { url, reason: said }
    }
}

/// The failure of a request to `url` as one line (see [`RemoteError`]).
#[must_use]
pub fn describe(url: &str, e: &(dyn std::error::Error + 'static)) -> String {
    RemoteError::of_http(url, e).to_string()
}

/// Where the daemon is and how to prove who this machine is.
#[derive(Debug, Clone)]
pub struct Server {
    /// The daemon's base URL (`https://arbiter.example.com`), without a trailing `/`.
    base: String,
    token: SecretToken,
    client: http_client::Client,
}

/// The global flags that point the agent side at a daemon on another machine.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags<'a> {
    pub server: Option<&'a str>,
    pub token_file: Option<&'a Path>,
    pub ca_file: Option<&'a Path>,
}

impl Server {
    /// The daemon the flags or the environment name (`--server`, else `ARBITER_SERVER`); `None`: the local queue.
    pub fn from(
        flags: Flags<'_>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<Server>, RemoteError> {
        let Some(url) = flags
            .server
            .map(str::to_owned)
            .or_else(|| env("ARBITER_SERVER"))
            .filter(|u| !u.trim().is_empty())
        else {
            return Ok(None);
        };
        let base = checked_url(url.trim())?;
        let token = token(flags.token_file, env, &base)?;
        let ca = flags.ca_file.map(Path::to_path_buf).or_else(|| {
            env("ARBITER_CA_FILE")
                .filter(|f| !f.is_empty())
                .map(PathBuf::from)
        });
        let client = client(ca.as_deref())?;
        Ok(Some(Server {
            base,
            token,
            client,
        }))
    }

    /// The URL of `path` on the daemon (`/mcp`).
    #[must_use]
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Posts `body` as JSON to `path` and reads the JSON answer; the daemon has `wait` (the owner's time) and
    /// [`REQUEST_TIMEOUT`] more before it counts as stalled.
    pub async fn post<B: serde::Serialize, T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
        wait: Duration,
    ) -> Result<T, RemoteError> {
        let url = self.url(path);
        let limit = REQUEST_TIMEOUT + wait;
        let stalled_or = |e: &http_client::Error| {
            if e.is_timeout() {
                RemoteError::Stalled {
                    url: url.clone(),
                    after: limit,
                }
            } else {
                RemoteError::of_http(&url, e)
            }
        };
        let sent = self
            .client
            .post(&url)
            .bearer_auth(self.token.expose())
            .json(body)
            .timeout(limit)
            .send()
            .await
            .map_err(|e| stalled_or(&e))?;
        let status = sent.status();
        if status.as_u16() == 401 {
            return Err(RemoteError::Refused { url });
        }
        let answer = sent.bytes().await.map_err(|e| stalled_or(&e))?;
        if !status.is_success() {
            let said = String::from_utf8_lossy(&answer);
            return Err(RemoteError::Garbage {
                url,
                reason: format!("HTTP {status}: {}", said.trim()),
            });
        }
        serde_json::from_slice(&answer).map_err(|e| RemoteError::Garbage {
            url,
            reason: format!("not the answer asked for ({e})"),
        })
    }
}

/// `url` as a base URL, if the client may use it: `https://`, or `http://` to a loopback address only (anything
/// else would send the token in the clear).
fn checked_url(url: &str) -> Result<String, RemoteError> {
    let parsed = url::Url::parse(url)
        .map_err(|e| RemoteError::Setup(format!("--server {url}: not a URL ({e})")))?;
    let loopback = match parsed.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match parsed.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => {
            return Err(RemoteError::Setup(format!(
                "--server {url}: plain http:// only to a loopback address (the token would cross the network in the \
                 clear); put the daemon behind HTTPS (a reverse proxy) or an SSH tunnel"
            )));
        }
        other => {
            return Err(RemoteError::Setup(format!(
                "--server {url}: `{other}` is not a scheme Arbiter speaks; use https:// (or http:// to a loopback \
                 address)"
            )));
        }
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(RemoteError::Setup(format!(
            "--server {url}: give the daemon's base URL, without a query or fragment"
        )));
    }
    Ok(parsed.as_str().trim_end_matches('/').to_owned())
}

/// The machine's token: `--token-file`, else `ARBITER_TOKEN_FILE`, else `ARBITER_TOKEN` (never a command-line
/// value: it would show in `ps`).
fn token(
    file: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    base: &str,
) -> Result<SecretToken, RemoteError> {
    let file = file.map(Path::to_path_buf).or_else(|| {
        env("ARBITER_TOKEN_FILE")
            .filter(|f| !f.is_empty())
            .map(PathBuf::from)
    });
    let token = match file {
        Some(file) => std::fs::read_to_string(&file)
            .map_err(|e| {
                RemoteError::Setup(format!(
                    "{}: cannot read the token file: {e}",
                    file.display()
                ))
            })?
            .trim()
            .to_owned(),
        None => env("ARBITER_TOKEN").unwrap_or_default().trim().to_owned(),
    };
    if token.is_empty() {
        return Err(RemoteError::Setup(format!(
            "{base}: no token for the daemon: set ARBITER_TOKEN_FILE (or --token-file) to a file holding the one \
             `arbiter token add NAME` printed on the daemon's machine, or ARBITER_TOKEN"
        )));
    }
    Ok(SecretToken::new(token))
}

/// The HTTP client: rustls with ring, the system's roots or (with a CA file) that file's certificates only.
fn client(ca_file: Option<&Path>) -> Result<http_client::Client, RemoteError> {
    let mut roots = rustls::RootCertStore::empty();
    match ca_file {
        Some(path) => {
            let named =
                |reason: String| RemoteError::Setup(format!("{}: {reason}", path.display()));
            let certs = rustls::pki_types::pem::PemObject::pem_file_iter(path)
                .map_err(|e| named(format!("cannot read the CA file: {e}")))?
                .collect::<Result<Vec<rustls::pki_types::CertificateDer<'static>>, _>>()
                .map_err(|e| named(format!("not a PEM certificate file: {e}")))?;
            if certs.is_empty() {
                return Err(named("no certificate in the CA file".to_owned()));
            }
            for cert in certs {
                roots
                    .add(cert)
                    .map_err(|e| named(format!("a certificate that does not read: {e}")))?;
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            for cert in found.certs {
                let _ = roots.add(cert);
            }
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| RemoteError::Setup(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    http_client::Client::builder()
        .tls_backend_preconfigured(tls)
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(Duration::from_secs(60))
        .build()
        .map_err(|e| RemoteError::Setup(format!("cannot build the HTTP client: {e}")))
}

/// The process's environment, for [`Server::from`].
#[must_use]
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_only_to_loopback() {
        for good in [
            "https://arbiter.example.com",
            "https://arbiter.example.com/",
            "http://127.0.0.1:8470",
            "http://localhost:8470/",
            "http://[::1]:8470",
            "https://10.0.0.5/arbiter",
        ] {
            assert!(checked_url(good).is_ok(), "{good}");
        }
        assert_eq!(
            checked_url("http://127.0.0.1:8470/").unwrap(),
            "http://127.0.0.1:8470"
        );
        for bad in [
            "http://10.0.0.5:8470",
            "http://arbiter.example.com",
            "ftp://127.0.0.1",
            "127.0.0.1:8470",
            "https://x/?a=b",
        ] {
            let e = checked_url(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{bad}: {e}");
        }
    }

    #[test]
    fn a_token_never_comes_from_the_command_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, "arbiter_abc\n").unwrap();
        let none = |_: &str| None;
        assert_eq!(
            token(Some(&file), &none, "u").unwrap().expose(),
            "arbiter_abc"
        );
        let env = |k: &str| (k == "ARBITER_TOKEN").then(|| "arbiter_env".to_owned());
        assert_eq!(token(None, &env, "u").unwrap().expose(), "arbiter_env");
        let e = token(None, &none, "https://d").unwrap_err().to_string();
        assert!(
            e.contains("https://d") && e.contains("ARBITER_TOKEN_FILE"),
            "{e}"
        );
        let e = token(Some(&dir.path().join("nope")), &none, "u")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("nope") && e.contains("cannot read the token file"),
            "{e}"
        );
    }

    #[test]
    fn a_ca_file_must_hold_certificates() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ca.pem");
        std::fs::write(&file, "not a certificate").unwrap();
        let e = client(Some(&file)).unwrap_err().to_string();
        assert!(e.contains("ca.pem"), "{e}");
    }
}
