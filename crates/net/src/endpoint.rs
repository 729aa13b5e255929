//! Where a node listens or dials: `tcp://host:port`, `udp://host:port`, `mem://name`.

use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};
use std::str::FromStr;
use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Endpoint {
    /// Stream transport for control, reliable and (without UDP) best-effort frames.
    Tcp(SocketAddr),
    /// Best-effort datagrams beside a TCP link.
    Udp(SocketAddr),
    /// Another host in the same process and runtime.
    Memory(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("bad address {text:?}: {why}")]
pub struct EndpointError {
    pub text: String,
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
            return Err(err("expected scheme://address, e.g. tcp://127.0.0.1:7000"));
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
            "mem" => {
                if rest.is_empty() || rest.contains('/') {
                    return Err(err("a memory endpoint is mem://name"));
                }
                Ok(Endpoint::Memory(rest.to_owned()))
            }
            other => Err(err(&format!(
                "unknown scheme {other:?} (use tcp, udp or mem)"
            ))),
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
        ] {
            let endpoint: Endpoint = text.parse().unwrap();
            assert_eq!(endpoint.to_string(), text);
        }
        let localhost: Endpoint = "tcp://localhost:7000".parse().unwrap();
        assert!(matches!(localhost, Endpoint::Tcp(addr) if addr.port() == 7000));
    }

    #[test]
    fn bad_endpoints_say_what_is_wrong() {
        let cases = [
            ("127.0.0.1:7000", "expected scheme://address"),
            ("http://127.0.0.1:80", "unknown scheme \"http\""),
            ("tcp://", "missing host:port"),
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
