//! The topology file as written: TOML read and written with serde, nothing checked beyond
//! the shape of the text. [`super::Topology::from_file`] does the checking.

use super::link::LinkOverrides;
use serde::{Deserialize, Serialize};

/// A topology file. Every table refuses keys it does not know, so a misspelt key is an
/// error with its line, never a silently ignored setting.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologyFile {
    /// Options of every link that does not set its own.
    #[serde(default, skip_serializing_if = "LinkOverrides::is_empty")]
    pub defaults: LinkOverrides,
    /// `[[router]]` tables, in file order.
    #[serde(default, rename = "router", skip_serializing_if = "Vec::is_empty")]
    pub routers: Vec<RouterEntry>,
    /// `[[federate]]` tables, in file order.
    #[serde(default, rename = "federate", skip_serializing_if = "Vec::is_empty")]
    pub federates: Vec<FederateEntry>,
    /// `[[clique]]` tables, in file order.
    #[serde(default, rename = "clique", skip_serializing_if = "Vec::is_empty")]
    pub cliques: Vec<CliqueEntry>,
}

/// `[[router]]`: a router process.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouterEntry {
    /// Unique among routers and federates: 1 to 100 letters, digits, '-', '_' or '.'.
    pub name: String,
    /// Where it accepts links: `tcp://host:port`, `udp://host:port`, `mem://name`, at most
    /// one of each scheme.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listen: Vec<String>,
    /// The router or federate this one dials as its parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Parents to attach to instead, in turn, when the link to the parent fails (N+1
    /// failover). One attachment is live at a time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternates: Vec<String>,
    /// Options of the link to the parent.
    #[serde(default, skip_serializing_if = "LinkOverrides::is_empty")]
    pub link: LinkOverrides,
    /// `IP:PORT` where the router serves `/metrics` for Prometheus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<String>,
    /// Its certificate (PEM) for `tls://` listeners, also presented when it dials; the path
    /// as the router process sees it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_cert: Option<String>,
    /// The private key of `tls_cert` (PEM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_key: Option<String>,
    /// The CAs it trusts (PEM): for `tls://` parents and peers, and clients' certificates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_ca: Option<String>,
    /// Mutual TLS: refuse clients without a certificate from `tls_ca`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mtls: bool,
}

/// `[[federate]]`: where one federate process (or `count` of them) attaches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FederateEntry {
    /// Unique among routers and federates; with `count`, the prefix of the members' names.
    pub name: String,
    /// Declares `count` federates named `name-1` … `name-count`, alike in everything else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// Needed only by a federate that others dial: a parent, or a clique member.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listen: Vec<String>,
    /// The router or federate this one dials as its parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// As for a router: parents to fail over to, in turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternates: Vec<String>,
    /// Options of the link to the parent.
    #[serde(default, skip_serializing_if = "LinkOverrides::is_empty")]
    pub link: LinkOverrides,
}

/// `[[clique]]`: routers and federates all linked to each other (a block of DESIGN.md §2).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CliqueEntry {
    /// Unique among cliques.
    pub name: String,
    /// Names of the routers and federates in the clique; at least 2, each once.
    pub members: Vec<String>,
    /// Options of every link between two members.
    #[serde(default, skip_serializing_if = "LinkOverrides::is_empty")]
    pub link: LinkOverrides,
}

impl TopologyFile {
    /// Reads the text of a topology file. Errors carry the line and column, and name the
    /// key when it is unknown.
    pub fn from_toml(text: &str) -> Result<TopologyFile, toml::de::Error> {
        toml::from_str(text)
    }

    /// Writes the file as TOML that [`TopologyFile::from_toml`] reads back unchanged.
    pub fn to_toml(&self) -> Result<String, toml::ser::Error> {
        toml::to_string(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_key_is_named_with_its_line() {
        let text = "[[router]]\nname = \"hub\"\nlisten = [\"tcp://127.0.0.1:7000\"]\n\n\
                    [[federate]]\nname = \"a\"\nparnet = \"hub\"\n";
        let err = TopologyFile::from_toml(text).unwrap_err().to_string();
        assert!(err.contains("line 7"), "{err}");
        assert!(err.contains("parnet"), "{err}");
    }

    #[test]
    fn a_misspelt_tls_key_is_named_with_its_line() {
        let text =
            "[[router]]\nname = \"hub\"\ntls_cert = \"hub.pem\"\ntls_keyfile = \"hub.key\"\n";
        let err = TopologyFile::from_toml(text).unwrap_err().to_string();
        assert!(err.contains("line 4"), "{err}");
        assert!(err.contains("tls_keyfile"), "{err}");
    }

    #[test]
    fn an_unknown_link_option_is_refused() {
        let text = "[defaults]\nbundling_ms = 5\n";
        let err = TopologyFile::from_toml(text).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("bundling_ms"), "{err}");
    }

    #[test]
    fn an_unknown_pipe_is_refused() {
        let text = "[defaults]\npipe = \"mpi\"\n";
        let err = TopologyFile::from_toml(text).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("mpi"), "{err}");
    }
}
