//! Which requests are addressed to this dashboard, decided in one place for every route (pages, forms and
//! `/mcp`): the defence against DNS rebinding, where a web page the owner visits resolves its own name to the
//! owner's machine and talks to the dashboard from the browser.
//!
//! - **Host**: on a loopback listener, a request must name a loopback host (`127.0.0.0/8`, `localhost`, `[::1]`,
//!   any port) or `publicUrl`'s host; a rebinding page's requests name the attacker's host. A listener other
//!   machines reach (`allowRemote`) is reached by names this process cannot know, so it checks no Host.
//! - **Origin**: a request that carries one must come from a page of this dashboard: `publicUrl`'s origin, or
//!   `http://`/`https://` with a loopback host (or the listener's own address) and the listener's port.
//!   A request without `Origin` (the CLI, SDKs, MCP clients outside a browser) is not from a web page at all.

use std::net::{IpAddr, SocketAddr};

use url::Url;

/// Where the dashboard is served: the address it listens on and the URL a proxy serves it at.
#[derive(Debug, Clone)]
pub struct Site {
    /// The bound address (with the real port when the config said `:0`).
    listen: SocketAddr,
    public: Option<Url>,
}

/// Why a request is not this dashboard's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Foreign {
    /// A loopback listener was asked for another host (421 Misdirected Request).
    Host,
    /// The request came from another site's page (403 Forbidden).
    Origin,
}

impl Site {
    #[must_use]
    pub fn new(listen: SocketAddr, public_url: Option<&Url>) -> Site {
        Site {
            listen,
            public: public_url.cloned(),
        }
    }

    /// `publicUrl`, when set.
    #[must_use]
    pub fn public_url(&self) -> Option<&Url> {
        self.public.as_ref()
    }

    /// Whether a request with these `Host` and `Origin` headers (absent: `None`) is addressed to this dashboard.
    /// The Host is checked first: a rebinding page's request fails both.
    pub fn check(&self, host: Option<&str>, origin: Option<&str>) -> Result<(), Foreign> {
        if let Some(host) = host
            && !self.host_allowed(host)
        {
            return Err(Foreign::Host);
        }
        match origin {
            Some(origin) if !self.is_own_origin(origin) => Err(Foreign::Origin),
            _ => Ok(()),
        }
    }

    /// A `Host` header this dashboard answers for: anything on a listener other machines reach; on a loopback
    /// listener a loopback host or `publicUrl`'s host, with any port (a proxy in front may name its own).
    #[must_use]
    pub fn host_allowed(&self, host: &str) -> bool {
        if !self.listen.ip().is_loopback() {
            return true;
        }
        let Some((name, _port)) = split_authority(host) else {
            return false;
        };
        is_loopback_name(&name)
            || self
                .public
                .as_ref()
                .and_then(Url::host_str)
                .is_some_and(|public| public.eq_ignore_ascii_case(&name))
    }

    /// An `Origin` header naming a page of this dashboard: `publicUrl`'s origin, or http(s) with a loopback host
    /// or the listener's own address, and the listener's port. `null` and anything unparsable are foreign.
    #[must_use]
    pub fn is_own_origin(&self, origin: &str) -> bool {
        let Ok(url) = Url::parse(origin) else {
            return false;
        };
        if self
            .public
            .as_ref()
            .is_some_and(|p| p.origin() == url.origin())
        {
            return true;
        }
        if !matches!(url.scheme(), "http" | "https")
            || url.port_or_known_default() != Some(self.listen.port())
        {
            return false;
        }
        match url.host() {
            Some(url::Host::Domain(name)) => is_loopback_name(name),
            Some(url::Host::Ipv4(ip)) => self.is_own_ip(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => self.is_own_ip(IpAddr::V6(ip)),
            None => false,
        }
    }

    fn is_own_ip(&self, ip: IpAddr) -> bool {
        ip.is_loopback() || (!self.listen.ip().is_unspecified() && ip == self.listen.ip())
    }
}

/// A Host header's name (lowercase; an IPv6 address keeps its brackets) and port, or `None` when it is malformed.
fn split_authority(host: &str) -> Option<(String, Option<u16>)> {
    let (name, port) = if host.starts_with('[') {
        let end = host.find(']')?;
        let (name, rest) = host.split_at(end + 1);
        match rest {
            "" => (name, None),
            _ => (name, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    let port = match port {
        Some(port) => Some(port.parse::<u16>().ok()?),
        None => None,
    };
    (!name.is_empty()).then(|| (name.to_ascii_lowercase(), port))
}

/// `localhost`, an address in 127.0.0.0/8, or `[::1]` (a Host header's or a URL's host, brackets and all).
fn is_loopback_name(name: &str) -> bool {
    if name.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let bare = name
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .unwrap_or(name);
    bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn site(listen: &str, public: Option<&str>) -> Site {
        let public = public.map(|p| Url::parse(p).unwrap());
        Site::new(listen.parse().unwrap(), public.as_ref())
    }

    #[test]
    fn a_loopback_listener_answers_only_for_loopback_names_and_the_public_host() {
        let local = site("127.0.0.1:8470", None);
        let proxied = site("127.0.0.1:8470", Some("https://Arbiter.Example.org/"));
        for host in [
            "127.0.0.1:8470",
            "127.0.0.1",
            "127.9.9.9:1",
            "localhost",
            "LocalHost:8470",
            "[::1]",
            "[::1]:8470",
        ] {
            assert!(local.host_allowed(host), "{host}");
            assert!(proxied.host_allowed(host), "{host}");
        }
        for host in ["arbiter.example.org", "ARBITER.example.org:443"] {
            assert!(proxied.host_allowed(host), "{host}");
            assert!(!local.host_allowed(host), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:8470",
            "localhost.evil.example",
            "127.0.0.1.evil.example",
            "arbiter.example.org.evil.example",
            "10.0.0.1:8470",
            "[::2]:8470",
            "[::1",
            "127.0.0.1:port",
            "127.0.0.1:99999",
            "",
            ":8470",
        ] {
            assert!(!proxied.host_allowed(host), "{host}");
        }
    }

    #[test]
    fn a_remote_listener_checks_no_host() {
        for listen in ["0.0.0.0:8470", "192.168.1.5:8470", "[::]:8470"] {
            assert!(site(listen, None).host_allowed("evil.example"), "{listen}");
        }
    }

    #[test]
    fn own_origins_are_the_public_url_and_loopback_at_the_listeners_port() {
        let s = site("127.0.0.1:8470", Some("https://arbiter.example.org/base/"));
        for own in [
            "https://arbiter.example.org",
            "https://ARBITER.example.org:443",
            "http://127.0.0.1:8470",
            "https://127.0.0.1:8470",
            "http://localhost:8470",
            "http://127.1.2.3:8470",
            "http://[::1]:8470",
        ] {
            assert!(s.is_own_origin(own), "{own}");
        }
        for foreign in [
            "http://evil.example",
            "http://evil.example:8470",
            "http://arbiter.example.org",
            "https://arbiter.example.org:8443",
            "https://sub.arbiter.example.org",
            "http://127.0.0.1:8471",
            "http://127.0.0.1",
            "http://localhost",
            "ws://127.0.0.1:8470",
            "file://",
            "null",
            "",
        ] {
            assert!(!s.is_own_origin(foreign), "{foreign}");
        }
    }

    #[test]
    fn a_remote_listener_owns_its_own_address_but_not_the_unspecified_one() {
        let lan = site("192.168.1.5:8470", None);
        assert!(lan.is_own_origin("http://192.168.1.5:8470"));
        assert!(lan.is_own_origin("http://localhost:8470"));
        assert!(!lan.is_own_origin("http://192.168.1.6:8470"));
        assert!(!lan.is_own_origin("http://evil.example:8470"));
        let any = site("0.0.0.0:8470", None);
        assert!(!any.is_own_origin("http://0.0.0.0:8470"));
        assert!(!any.is_own_origin("http://192.168.1.5:8470"));
        assert!(any.is_own_origin("http://127.0.0.1:8470"));
    }

    #[test]
    fn the_host_is_checked_before_the_origin_and_an_absent_header_is_no_claim() {
        let s = site("127.0.0.1:8470", None);
        let own = Some("http://127.0.0.1:8470");
        let evil = Some("http://evil.example:8470");
        assert_eq!(s.check(Some("127.0.0.1:8470"), own), Ok(()));
        assert_eq!(s.check(Some("127.0.0.1:8470"), None), Ok(()));
        assert_eq!(s.check(None, None), Ok(()));
        assert_eq!(s.check(None, evil), Err(Foreign::Origin));
        assert_eq!(s.check(Some("localhost:8470"), evil), Err(Foreign::Origin));
        assert_eq!(s.check(Some("evil.example:8470"), evil), Err(Foreign::Host));
        assert_eq!(s.check(Some("evil.example:8470"), None), Err(Foreign::Host));
        assert_eq!(s.check(Some("evil.example:8470"), own), Err(Foreign::Host));
    }
}
