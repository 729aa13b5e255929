//! Development certificates for a topology (`trellis certs`): one certificate authority, and
//! a certificate and key for every router and federate, for links secured with mutual TLS.
//!
//! Each certificate names its holder in its common name and says what it is in its
//! organizational unit, `trellis-router` or `trellis-federate`: a router takes a link that
//! carries every federation only from a router's (`trellis_core::router::claims`). Its
//! subject alternative names are the hosts the node listens on, its own name, `localhost`
//! and the loopback addresses, so a dialer that checks the name finds it. They serve for
//! both ends of a link (server and client authentication).
//!
//! The CA is reused when the output folder holds one already (`ca.pem`, `ca.key`): a node
//! added to the topology later gets a certificate the others trust. For production, use
//! your own PKI: these keys sit unencrypted on disk.

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use std::path::{Path, PathBuf};
use thiserror::Error;
use trellis_core::topology::{NodeKind, Topology};

/// The organizational units that say a certificate's role, as the TLS layer reads them.
pub use trellis_net::tls::{FEDERATE_UNIT, ROUTER_UNIT};
/// Most days a development certificate may be valid for.
pub const MAX_DAYS: u32 = 3650;

#[derive(Debug, Error)]
pub enum CertsError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a usable CA ({why}); move it away to make a new CA")]
    BadCa { path: PathBuf, why: String },
    #[error("making the certificate of {what}: {why}")]
    Make { what: String, why: String },
    #[error("--days {0}: between 1 and {MAX_DAYS}")]
    Days(u32),
}

/// What was written: the CA (made now or reused) and one pair per node.
#[derive(Debug)]
pub struct Written {
    pub ca: PathBuf,
    pub ca_reused: bool,
    /// (node, certificate, key), in the topology's order.
    pub nodes: Vec<(String, PathBuf, PathBuf)>,
}

/// Write the CA and every node's certificate and key into `out`, valid for `days`.
pub fn write_for_topology(
    topology: &Topology,
    out: &Path,
    days: u32,
) -> Result<Written, CertsError> {
    if days == 0 || days > MAX_DAYS {
        return Err(CertsError::Days(days));
    }
    std::fs::create_dir_all(out).map_err(|source| io(out, source))?;
    let (issuer, ca_reused) = certificate_authority(out, days)?;
    let mut nodes = Vec::new();
    for node in topology.nodes() {
        let unit = match node.kind {
            NodeKind::Router => ROUTER_UNIT,
            NodeKind::Federate => FEDERATE_UNIT,
        };
        let hosts = node
            .listen
            .iter()
            .filter_map(|l| listen_host(&l.to_string()));
        let (cert, key) = node_certificate(&node.name, unit, hosts, days, &issuer)?;
        let cert_path = out.join(format!("{}.pem", node.name));
        let key_path = out.join(format!("{}.key", node.name));
        write(&cert_path, &cert, false)?;
        write(&key_path, &key, true)?;
        nodes.push((node.name.clone(), cert_path, key_path));
    }
    Ok(Written {
        ca: out.join("ca.pem"),
        ca_reused,
        nodes,
    })
}

/// The CA in `out`, or a new one written there. Whether it was reused.
fn certificate_authority(
    out: &Path,
    days: u32,
) -> Result<(Issuer<'static, KeyPair>, bool), CertsError> {
    let (cert_path, key_path) = (out.join("ca.pem"), out.join("ca.key"));
    if cert_path.exists() || key_path.exists() {
        let bad = |why: String| CertsError::BadCa {
            path: cert_path.clone(),
            why,
        };
        let cert = std::fs::read_to_string(&cert_path).map_err(|e| bad(e.to_string()))?;
        let key = std::fs::read_to_string(&key_path).map_err(|e| bad(format!("ca.key: {e}")))?;
        let key = KeyPair::from_pem(&key).map_err(|e| bad(format!("ca.key: {e}")))?;
        let issuer = Issuer::from_ca_cert_pem(&cert, key).map_err(|e| bad(e.to_string()))?;
        return Ok((issuer, true));
    }
    let make = |why: rcgen::Error| CertsError::Make {
        what: "the CA".into(),
        why: why.to_string(),
    };
    let key = KeyPair::generate().map_err(make)?;
    let mut params = CertificateParams::default();
    params
        .distinguished_name
        .push(DnType::CommonName, "Trellis development CA");
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    set_validity(&mut params, days);
    let cert = params.self_signed(&key).map_err(make)?;
    write(&cert_path, &cert.pem(), false)?;
    write(&key_path, &key.serialize_pem(), true)?;
    Ok((Issuer::new(params, key), false))
}

/// One node's certificate and key, in PEM.
fn node_certificate(
    name: &str,
    unit: &str,
    hosts: impl Iterator<Item = String>,
    days: u32,
    issuer: &Issuer<'_, KeyPair>,
) -> Result<(String, String), CertsError> {
    let make = |why: rcgen::Error| CertsError::Make {
        what: name.to_owned(),
        why: why.to_string(),
    };
    let mut names: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    names.extend(hosts);
    if is_dns_name(name) {
        names.push(name.to_owned());
    }
    names.sort();
    names.dedup();
    let mut params = CertificateParams::new(names).map_err(make)?;
    params.distinguished_name.push(DnType::CommonName, name);
    params
        .distinguished_name
        .push(DnType::OrganizationalUnitName, unit);
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
    ];
    set_validity(&mut params, days);
    let key = KeyPair::generate().map_err(make)?;
    let cert = params.signed_by(&key, issuer).map_err(make)?;
    Ok((cert.pem(), key.serialize_pem()))
}

/// Whether a node's name can also be a DNS name in its certificate.
fn is_dns_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['-', '.'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
}

/// Valid from a day ago (clocks of a federation's hosts differ) for `days`.
fn set_validity(params: &mut CertificateParams, days: u32) {
    let now = time::OffsetDateTime::now_utc();
    params.not_before = now - time::Duration::days(1);
    params.not_after = now + time::Duration::days(i64::from(days));
}

/// The host of a listen address (`tcp://10.0.0.5:7000` → `10.0.0.5`); none for `mem://`.
fn listen_host(address: &str) -> Option<String> {
    let (scheme, location) = address.split_once("://")?;
    if scheme == "mem" {
        return None;
    }
    let (host, _port) = location.rsplit_once(':')?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    (!host.is_empty() && host != "0.0.0.0" && host != "::").then(|| host.to_owned())
}

fn write(path: &Path, text: &str, secret: bool) -> Result<(), CertsError> {
    std::fs::write(path, text).map_err(|source| io(path, source))?;
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::PermissionsExt;
        let owner_only = std::fs::Permissions::from_mode(0o600);
        std::fs::set_permissions(path, owner_only).map_err(|source| io(path, source))?;
    }
    #[cfg(not(unix))]
    let _ = secret;
    Ok(())
}

fn io(path: &Path, source: std::io::Error) -> CertsError {
    CertsError::Io {
        path: path.to_owned(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    const TOPOLOGY: &str = r#"
[[router]]
name = "root"
listen = ["tcp://127.0.0.1:7000"]

[[router]]
name = "leaf"
listen = ["tcp://10.1.2.3:7001"]
parent = "root"

[[federate]]
name = "tank"
parent = "leaf"
"#;

    fn openssl(args: &[&str]) -> Option<String> {
        let output = Command::new("openssl").args(args).output().ok()?;
        assert!(output.status.success(), "openssl {args:?}: {output:?}");
        Some(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    #[test]
    fn every_node_gets_a_certificate_of_its_role_that_openssl_verifies_against_the_ca() {
        let out = std::env::temp_dir().join(format!("trellis-certs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let topology = Topology::from_toml(TOPOLOGY).expect("topology");
        let written = write_for_topology(&topology, &out, 30).expect("written");
        assert!(!written.ca_reused);
        let names: Vec<_> = written.nodes.iter().map(|(n, ..)| n.as_str()).collect();
        assert_eq!(names, ["root", "leaf", "tank"]);
        let ca = written.ca.to_str().expect("utf-8");
        for (name, cert, key) in &written.nodes {
            let cert = cert.to_str().expect("utf-8");
            let Some(verified) = openssl(&["verify", "-CAfile", ca, cert]) else {
                panic!("openssl is not installed: the check needs a third-party verifier");
            };
            assert!(verified.contains(": OK"), "{verified}");
            let subject = openssl(&["x509", "-noout", "-subject", "-in", cert]).unwrap_or_default();
            let unit = if *name == "tank" {
                FEDERATE_UNIT
            } else {
                ROUTER_UNIT
            };
            assert!(subject.contains(&format!("CN = {name}")), "{subject}");
            assert!(subject.contains(&format!("OU = {unit}")), "{subject}");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(key).expect("key").permissions().mode();
                assert_eq!(mode & 0o077, 0, "{} is readable by others", key.display());
            }
        }
        let leaf = out.join("leaf.pem");
        let text = openssl(&[
            "x509",
            "-noout",
            "-ext",
            "subjectAltName",
            "-in",
            leaf.to_str().expect("utf-8"),
        ])
        .unwrap_or_default();
        assert!(
            text.contains("IP Address:10.1.2.3") && text.contains("DNS:leaf"),
            "{text}"
        );
        // A second run keeps the CA: certificates made before still verify.
        let ca_before = std::fs::read(&written.ca).expect("ca");
        let again = write_for_topology(&topology, &out, 30).expect("again");
        assert!(again.ca_reused);
        assert_eq!(std::fs::read(&again.ca).expect("ca"), ca_before);
        let root = out.join("root.pem");
        let verified = openssl(&["verify", "-CAfile", ca, root.to_str().expect("utf-8")]);
        assert!(verified.unwrap_or_default().contains(": OK"));
        assert!(matches!(
            write_for_topology(&topology, &out, 0),
            Err(CertsError::Days(0))
        ));
        std::fs::remove_dir_all(&out).expect("clean up");
    }
}
