//! Where a node listens or dials: `tcp://host:port`, `tls://host:port`, `udp://host:port`,
//! `mem://name`.
//!
//! Spellings other RTIs' users write are accepted for TCP too: `host:port` without a scheme
//! (as the C++ local settings designator always took), and OpenRTI's `rti://host[:port]`
//! (its port 14321 when none is given, `rti://` alone for this host), so a federate or a
//! command line written for OpenRTI needs no edit. They print back as `tcp://`.

use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};
use std::str::FromStr;
use thiserror::Error;

/// A transport address a node listens on or dials, parsed from a URL-like designator.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Endpoint {
    /// Stream transport for control, reliable and (without UDP) best-effort frames.
    Tcp(SocketAddr),
    /// A TCP link inside TLS. `host` is the host as written, the name a dialer checks the
    /// server's certificate against (an IP address as an IP SAN).
    Tls {
        /// The resolved address to connect to or listen on.
        addr: SocketAddr,
        /// The host as written.
        host: String,
    },
    /// Best-effort datagrams beside a TCP link.
    Udp(SocketAddr),
    /// Another host in the same process and runtime.
    Memory(String),
}

/// The port OpenRTI's `rti://` designators use when they give none (its `rtinode` default).
pub const OPENRTI_DEFAULT_PORT: u16 = 14321;

/// A designator that does not parse: the text as given and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("bad address {text:?}: {why}")]
pub struct EndpointError {
    /// The designator as written.
    pub text: String,
    /// What is wrong with it, for the user.
    pub why: String,
}

impl FromStr for Endpoint {
    type Err = EndpointError;

    fn from_str(text: &str) -> Result<Endpoint, EndpointError> {
        let err = |why: &str| EndpointError {
            text: text.to_owned(),
            why: why.to_owned(),
        };
        let Some((scheme, rest)) = text.split_once("://") else {
            if text.contains('/') || !text.contains(':') {
                return Err(err(
                    "expected scheme://address or host:port, e.g. tcp://127.0.0.1:7000",
                ));
            }
            return resolve(text).map(Endpoint::Tcp).map_err(|why| err(&why));
        };
        match scheme {
            "tcp" | "udp" => {
                if rest.is_empty() {
                    return Err(err("missing host:port"));
                }
                let addr = resolve(rest).map_err(|why| err(&why))?;
                Ok(if scheme == "tcp" {
                    Endpoint::Tcp(addr)
                } else {
                    Endpoint::Udp(addr)
                })
            }
            "tls" => {
                if rest.is_empty() {
                    return Err(err("missing host:port"));
                }
                let addr = resolve(rest).map_err(|why| err(&why))?;
                Ok(Endpoint::Tls {
                    addr,
                    host: host_of(rest).to_owned(),
                })
            }
            "rti" => resolve_openrti(rest)
                .map(Endpoint::Tcp)
                .map_err(|why| err(&why)),
            "mem" => {
                if rest.is_empty() || rest.contains('/') {
                    return Err(err("a memory endpoint is mem://name"));
                }
                Ok(Endpoint::Memory(rest.to_owned()))
            }
            other => Err(err(&format!(
                "unknown scheme {other:?} (use tcp, tls, udp, mem, or rti as OpenRTI does)"
            ))),
        }
    }
}

/// OpenRTI's `rti://host[:port][/]`: its default port when none is given, this host when
/// no host is.
fn resolve_openrti(rest: &str) -> Result<SocketAddr, String> {
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.contains('/') {
        return Err("rti:// takes host[:port] and no path".into());
    }
    let host = if rest.is_empty() { "127.0.0.1" } else { rest };
    let has_port = match host.rsplit_once(':') {
        Some((before, _)) => !before.is_empty() && (before.ends_with(']') || !before.contains(':')),
        None => false,
    };
    if has_port {
        return resolve(host);
    }
    let host = host.trim_start_matches('[').trim_end_matches(']');
    (host, OPENRTI_DEFAULT_PORT)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve: {e}"))?
        .next()
        .ok_or_else(|| "resolves to no address".to_owned())
}

/// The host of `host:port` as written, without the brackets of an IPv6 address.
fn host_of(host_port: &str) -> &str {
    let host = host_port
        .rsplit_once(':')
        .map_or(host_port, |(host, _)| host);
    host.trim_start_matches('[').trim_end_matches(']')
}

impl Endpoint {
    /// A `tls://` endpoint for an address, named by its IP.
    pub fn tls(addr: SocketAddr) -> Endpoint {
        Endpoint::Tls {
            addr,
            host: addr.ip().to_string(),
        }
    }

    /// The socket address of a TCP or TLS endpoint.
    pub fn stream_addr(&self) -> Option<SocketAddr> {
        match self {
            Endpoint::Tcp(addr) | Endpoint::Tls { addr, .. } => Some(*addr),
            Endpoint::Udp(_) | Endpoint::Memory(_) => None,
        }
    }
}

fn resolve(host_port: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = host_port.parse::<SocketAddr>() {
        return Ok(addr);
    }
    if !host_port.contains(':') {
        return Err("missing :port".into());
    }
    let mut addrs = host_port
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve: {e}"))?;
    addrs
        .next()
        .ok_or_else(|| "resolves to no address".to_owned())
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Tcp(addr) => write!(f, "tcp://{addr}"),
            Endpoint::Tls { addr, host } if host.contains(':') => {
                write!(f, "tls://[{host}]:{}", addr.port())
            }
            Endpoint::Tls { addr, host } => write!(f, "tls://{host}:{}", addr.port()),
            Endpoint::Udp(addr) => write!(f, "udp://{addr}"),
            Endpoint::Memory(name) => write!(f, "mem://{name}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_parse_and_print_back() {
        for text in [
            "tcp://127.0.0.1:7000",
            "udp://127.0.0.1:7001",
            "mem://router-a",
            "tcp://[::1]:80",
            "tls://127.0.0.1:7002",
            "tls://[::1]:7003",
            "tls://localhost:7004",
        ] {
            let endpoint: Endpoint = text.parse().unwrap();
            assert_eq!(endpoint.to_string(), text);
        }
        let localhost: Endpoint = "tcp://localhost:7000".parse().unwrap();
        assert!(matches!(localhost, Endpoint::Tcp(addr) if addr.port() == 7000));
    }

    /// A tls:// endpoint keeps the host as written: the dialer checks the server's
    /// certificate against it.
    #[test]
    fn tls_endpoints_keep_the_host_for_the_certificate() {
        let Ok(Endpoint::Tls { addr, host }) = "tls://localhost:7000".parse() else {
            panic!("tls:// is TLS");
        };
        assert_eq!((addr.port(), host.as_str()), (7000, "localhost"));
        let Ok(Endpoint::Tls { host, .. }) = "tls://[::1]:7000".parse() else {
            panic!("tls:// is TLS");
        };
        assert_eq!(host, "::1");
        let tls = Endpoint::tls("127.0.0.1:9".parse().unwrap());
        assert_eq!(tls.to_string(), "tls://127.0.0.1:9");
        assert_eq!(tls.stream_addr(), Some("127.0.0.1:9".parse().unwrap()));
        assert!(matches!("rti://127.0.0.1:9".parse(), Ok(Endpoint::Tcp(_))));
    }

    /// What other RTIs' users write: OpenRTI's rti:// (with its default port when none is
    /// given) and a bare host:port, both TCP.
    #[test]
    fn openrti_and_bare_spellings_are_tcp() {
        let tcp = |text: &str| match text.parse::<Endpoint>() {
            Ok(Endpoint::Tcp(addr)) => addr,
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(tcp("rti://127.0.0.1:7999").to_string(), "127.0.0.1:7999");
        assert_eq!(tcp("rti://127.0.0.1").port(), OPENRTI_DEFAULT_PORT);
        assert_eq!(tcp("rti://localhost").port(), OPENRTI_DEFAULT_PORT);
        assert_eq!(tcp("rti://localhost:14322/").port(), 14322);
        assert_eq!(tcp("rti://[::1]").port(), OPENRTI_DEFAULT_PORT);
        assert_eq!(tcp("rti://[::1]:9").to_string(), "[::1]:9");
        assert_eq!(tcp("rti://").to_string(), "127.0.0.1:14321");
        assert_eq!(tcp("127.0.0.1:7999").to_string(), "127.0.0.1:7999");
        assert_eq!(tcp("localhost:7000").port(), 7000);
        assert_eq!(
            "rti://127.0.0.1:7999"
                .parse::<Endpoint>()
                .unwrap()
                .to_string(),
            "tcp://127.0.0.1:7999",
            "printed as what it is"
        );
    }

    #[test]
    fn bad_endpoints_say_what_is_wrong() {
        let cases = [
            ("router-a", "expected scheme://address or host:port"),
            ("a/b:1", "expected scheme://address or host:port"),
            ("rti://host/federation", "no path"),
            ("http://127.0.0.1:80", "unknown scheme \"http\""),
            ("tcp://", "missing host:port"),
            ("tls://", "missing host:port"),
            ("tls://127.0.0.1", "missing :port"),
            ("tcp://127.0.0.1", "missing :port"),
            ("tcp://127.0.0.1:99999", "cannot resolve"),
            ("mem://", "mem://name"),
        ];
        for (text, why) in cases {
            let err = text.parse::<Endpoint>().unwrap_err();
            assert!(err.to_string().contains(why), "{text}: {err}");
            assert!(err.to_string().contains(text), "{text}: {err}");
        }
    }
}
