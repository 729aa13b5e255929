//! Listen addresses: `tcp://host:port`, `tls://host:port`, `udp://host:port`, `mem://name`.
//!
//! The same spellings `trellis-net` dials and listens on. Checked here without resolving
//! anything (the core never touches the network): a host is taken as written.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// The URL scheme of a listen address, which picks the transport a dialer uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scheme {
    /// Plain TCP (`tcp://host:port`).
    Tcp,
    /// TCP inside TLS: dialed instead of `tcp://` for the tcp and udp pipes when a node
    /// listens on it.
    Tls,
    /// UDP datagrams for best-effort frames (`udp://host:port`); always paired with a TCP address.
    Udp,
    /// An in-process pipe (`mem://name`), for nodes sharing one runtime.
    Memory,
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scheme::Tcp => "tcp",
            Scheme::Tls => "tls",
            Scheme::Udp => "udp",
            Scheme::Memory => "mem",
        })
    }
}

/// Where a process accepts links; also where others dial it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ListenAddress {
    scheme: Scheme,
    /// `host:port` for tcp and udp, the name for mem.
    location: String,
}

impl ListenAddress {
    /// Which transport the address is for.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// What a listener on it binds, as written: tcp:// and tls:// share TCP's ports.
    pub fn binds(&self) -> (&'static str, &str) {
        let transport = match self.scheme {
            Scheme::Tcp | Scheme::Tls => "tcp",
            Scheme::Udp => "udp",
            Scheme::Memory => "mem",
        };
        (transport, &self.location)
    }
}

/// A listen address that does not parse, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{text:?} is not a listen address: {why}")]
pub struct AddressError {
    /// The text as written.
    pub text: String,
    /// What is wrong with it, e.g. a missing port.
    pub why: String,
}

impl FromStr for ListenAddress {
    type Err = AddressError;

    fn from_str(text: &str) -> Result<ListenAddress, AddressError> {
        let fail = |why: &str| AddressError {
            text: text.to_owned(),
            why: why.to_owned(),
        };
        let Some((scheme, location)) = text.split_once("://") else {
            return Err(fail("expected scheme://address, e.g. tcp://127.0.0.1:7000"));
        };
        let scheme = match scheme {
            "tcp" => Scheme::Tcp,
            "tls" => Scheme::Tls,
            "udp" => Scheme::Udp,
            "mem" => Scheme::Memory,
            other => {
                return Err(fail(&format!(
                    "unknown scheme {other:?} (use tcp://, tls://, udp:// or mem://)"
                )))
            }
        };
        if location.is_empty() || location.chars().any(|c| c.is_whitespace() || c == '/') {
            return Err(fail(match scheme {
                Scheme::Memory => "expected mem://name",
                Scheme::Tcp | Scheme::Tls | Scheme::Udp => "expected host:port after the scheme",
            }));
        }
        if scheme != Scheme::Memory {
            check_host_port(location).map_err(fail)?;
        }
        Ok(ListenAddress {
            scheme,
            location: location.to_owned(),
        })
    }
}

fn check_host_port(location: &str) -> Result<(), &'static str> {
    let Some((host, port)) = location.rsplit_once(':') else {
        return Err("missing :port");
    };
    // An IPv6 host keeps its colons inside brackets; anywhere else a colon means a typo.
    let bracketed = host.len() > 2 && host.starts_with('[') && host.ends_with(']');
    if host.is_empty() || (!bracketed && (host.contains(':') || host.contains(['[', ']']))) {
        return Err("expected host:port, with an IPv6 host in brackets");
    }
    match port.parse::<u16>() {
        Ok(0) => Err("port 0 picks a port at random, which nobody could dial"),
        Ok(_) => Ok(()),
        Err(_) => Err("the port must be a number from 1 to 65535"),
    }
}

impl fmt::Display for ListenAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.scheme, self.location)
    }
}

impl Serialize for ListenAddress {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ListenAddress {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse_and_print_back() {
        for text in [
            "tcp://127.0.0.1:7000",
            "udp://127.0.0.1:7000",
            "tcp://[::1]:7000",
            "tls://127.0.0.1:7001",
            "tcp://router-3.example.org:7000",
            "mem://east",
        ] {
            let address: ListenAddress = text.parse().unwrap();
            assert_eq!(address.to_string(), text);
        }
    }

    #[test]
    fn bad_addresses_say_what_is_wrong() {
        let cases = [
            ("127.0.0.1:7000", "expected scheme://address"),
            ("http://127.0.0.1:80", "unknown scheme \"http\""),
            ("memory://east", "unknown scheme \"memory\""),
            ("tcp://", "expected host:port"),
            ("tcp://127.0.0.1", "missing :port"),
            ("tls://127.0.0.1", "missing :port"),
            ("tcp://:7000", "expected host:port"),
            ("tcp://::1:7000", "IPv6 host in brackets"),
            ("tcp://127.0.0.1:0", "port 0"),
            ("tcp://127.0.0.1:70000", "from 1 to 65535"),
            ("tcp://127.0.0.1:7000/x", "expected host:port"),
            ("mem://", "expected mem://name"),
        ];
        for (text, why) in cases {
            let err = text.parse::<ListenAddress>().unwrap_err().to_string();
            assert!(err.contains(why), "{text}: {err}");
            assert!(err.contains(text), "{text}: {err}");
        }
    }
}
