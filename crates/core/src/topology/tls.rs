//! A router's TLS files in a topology file (`tls_cert`, `tls_key`, `tls_ca`, `mtls`),
//! checked for completeness and carried into its plan. The paths are taken as written:
//! the router process reads them (the core never opens them).

use super::address::Scheme;
use super::file::{RouterEntry, TopologyFile};
use super::model::Topology;
use super::problem::Problem;
use serde::{Deserialize, Serialize};

/// The PEM files of a process's TLS, as its plan carries them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsFiles {
    /// Its certificate (then intermediates) and key: for tls:// listeners, and presented
    /// when it dials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert: Option<String>,
    /// The private key of `cert` (PEM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The CAs it trusts.
    pub ca: String,
    /// Refuse clients without a certificate from `ca`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mtls: bool,
}

/// The TLS files of each router entry, in the file's order, and what is missing.
pub(super) fn router_tls(file: &TopologyFile) -> (Vec<Option<TlsFiles>>, Vec<Problem>) {
    let mut problems = Vec::new();
    let files = file
        .routers
        .iter()
        .map(|entry| match entry_tls(entry) {
            Ok(files) => files,
            Err(why) => {
                problems.push(Problem::IncompleteTls {
                    router: entry.name.clone(),
                    why,
                });
                None
            }
        })
        .collect();
    (files, problems)
}

fn entry_tls(entry: &RouterEntry) -> Result<Option<TlsFiles>, String> {
    let listens_tls = entry.listen.iter().any(|a| a.starts_with("tls://"));
    let (cert, key) = match (&entry.tls_cert, &entry.tls_key) {
        (Some(cert), Some(key)) => (Some(cert.clone()), Some(key.clone())),
        (None, None) if listens_tls => {
            return Err("listens on tls:// but sets no tls_cert and tls_key".into())
        }
        (None, None) => (None, None),
        _ => return Err("tls_cert and tls_key go together".into()),
    };
    let Some(ca) = entry.tls_ca.clone() else {
        if cert.is_some() || entry.mtls || listens_tls {
            return Err("sets TLS but no tls_ca (the CAs it trusts)".into());
        }
        return Ok(None);
    };
    Ok(Some(TlsFiles {
        cert,
        key,
        ca,
        mtls: entry.mtls,
    }))
}

/// Routers that dial a tls:// address need the CAs to check it against.
pub(super) fn dialers_without_ca(topology: &Topology) -> Vec<Problem> {
    let mut problems: Vec<Problem> = topology
        .links
        .iter()
        .filter(|link| link.target.address.scheme() == Scheme::Tls)
        .map(|link| &topology.nodes[link.dialer])
        .filter(|node| node.kind == super::NodeKind::Router && node.tls.is_none())
        .map(|node| Problem::IncompleteTls {
            router: node.name.clone(),
            why: "dials a tls:// address but sets no tls_ca (the CAs it trusts)".into(),
        })
        .collect();
    problems.dedup();
    problems
}

#[cfg(test)]
mod tests {
    use super::super::Topology;
    use super::*;

    const TREE: &str = r#"
[[router]]
name = "hub"
listen = ["tls://127.0.0.1:7000", "tcp://127.0.0.1:7100"]
tls_cert = "certs/hub.pem"
tls_key = "certs/hub.key"
tls_ca = "certs/ca.pem"
mtls = true

[[router]]
name = "edge"
parent = "hub"
listen = ["tcp://127.0.0.1:7001"]
tls_cert = "certs/edge.pem"
tls_key = "certs/edge.key"
tls_ca = "certs/ca.pem"
"#;

    /// A router that listens on tls:// is dialed there, and each plan carries its files.
    #[test]
    fn plans_dial_tls_and_carry_the_files() {
        let topology = Topology::from_toml(TREE).unwrap();
        let edge = topology.plan("edge").unwrap();
        assert_eq!(edge.dial[0].address.to_string(), "tls://127.0.0.1:7000");
        assert_eq!(
            edge.tls,
            Some(TlsFiles {
                cert: Some("certs/edge.pem".into()),
                key: Some("certs/edge.key".into()),
                ca: "certs/ca.pem".into(),
                mtls: false,
            })
        );
        assert!(topology.plan("hub").unwrap().tls.unwrap().mtls);
        // Written back, the file reads as the same topology.
        let again = Topology::from_file(&topology.to_file()).unwrap();
        assert_eq!(again.plan("edge").unwrap(), edge);
    }

    #[test]
    fn incomplete_tls_is_named_per_router() {
        let cases = [
            (TREE.replace("tls_key = \"certs/hub.key\"\n", ""), "\"hub\": tls_cert and tls_key go together"),
            (TREE.replace("tls_ca = \"certs/ca.pem\"\nmtls", "mtls"), "\"hub\": sets TLS but no tls_ca"),
            (
                TREE.replace("tls_cert = \"certs/hub.pem\"\ntls_key = \"certs/hub.key\"\n", ""),
                "\"hub\": listens on tls:// but sets no tls_cert and tls_key",
            ),
            (
                TREE.replace("tls_cert = \"certs/edge.pem\"\ntls_key = \"certs/edge.key\"\ntls_ca = \"certs/ca.pem\"\n", ""),
                "\"edge\": dials a tls:// address but sets no tls_ca",
            ),
        ];
        for (text, why) in cases {
            let err = Topology::from_toml(&text).unwrap_err().to_string();
            assert!(err.contains(why), "expected {why:?} in: {err}");
        }
    }
}
