//! TLS for `tls://` links: the files a host is configured with, loaded once at its start
//! into rustls configurations, and who the far side of a handshake proved to be.
//!
//! rustls with the ring provider: no C toolchain beyond what ring needs, no aws-lc.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConfig, RootCertStore, ServerConfig};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;
use trellis_core::router::{IdentityRole, PeerIdentity};

/// The organizational unit of a router's certificate (as `trellis certs` writes it).
pub const ROUTER_UNIT: &str = "trellis-router";
/// The organizational unit of a federate's certificate.
pub const FEDERATE_UNIT: &str = "trellis-federate";

/// Where a host's TLS material is. A host that listens on `tls://` needs a certificate
/// and key; a host that only dials needs the trusted CAs, and presents its certificate
/// when it has one (mutual TLS).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsConfig {
    /// This host's certificate, then the intermediates up to (not including) the CA.
    pub cert_chain_pem: Option<PathBuf>,
    /// The private key of the certificate (PKCS#8, PKCS#1 or SEC1).
    pub key_pem: Option<PathBuf>,
    /// The CAs whose certificates this host trusts, for both directions.
    pub trusted_ca_pem: PathBuf,
    /// A listener refuses clients without a certificate of a trusted CA. Without it a
    /// client may still present one, and then proves an identity.
    pub require_client_cert: bool,
}

impl TlsConfig {
    /// Trust `trusted_ca_pem` and present no certificate (a federate without one).
    pub fn trusting(trusted_ca_pem: impl Into<PathBuf>) -> TlsConfig {
        TlsConfig {
            cert_chain_pem: None,
            key_pem: None,
            trusted_ca_pem: trusted_ca_pem.into(),
            require_client_cert: false,
        }
    }

    /// Present `cert_chain_pem` with `key_pem` and trust `trusted_ca_pem`.
    pub fn with_identity(
        cert_chain_pem: impl Into<PathBuf>,
        key_pem: impl Into<PathBuf>,
        trusted_ca_pem: impl Into<PathBuf>,
    ) -> TlsConfig {
        TlsConfig {
            cert_chain_pem: Some(cert_chain_pem.into()),
            key_pem: Some(key_pem.into()),
            ..TlsConfig::trusting(trusted_ca_pem)
        }
    }
}

/// Why TLS material could not be loaded: each names the file and what is wrong.
#[derive(Debug, Error)]
pub enum TlsError {
    /// A certificate, key or CA file that cannot be read or parsed.
    #[error("TLS {what} {path}: {why}")]
    File {
        /// Which file it was meant to be (its certificate, its key, the trusted CAs).
        what: &'static str,
        /// The file as given.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A certificate without its key, or a key without its certificate.
    #[error("TLS: a certificate needs its key and a key its certificate (got only the {0})")]
    HalfIdentity(&'static str),
    /// A `tls://` listener without a server certificate and key.
    #[error("TLS: listening on tls:// needs a certificate and key (--tls-cert, --tls-key)")]
    NoServerIdentity,
    /// A `tls://` endpoint used where no TLS configuration was given.
    #[error("TLS: {endpoint} needs a TLS configuration (at least the trusted CAs)")]
    NotConfigured {
        /// The endpoint as written.
        endpoint: String,
    },
    /// rustls refused the configuration (for example a key that does not match its certificate).
    #[error("TLS configuration: {0}")]
    Rustls(#[from] rustls::Error),
    /// The trusted CAs cannot build a verifier for client certificates (mutual TLS).
    #[error("TLS: the trusted CAs in {path} cannot verify clients: {why}")]
    ClientVerifier {
        /// The trusted CAs file as given.
        path: PathBuf,
        /// What rustls said.
        why: String,
    },
}

/// A host's TLS, ready to make sessions: loaded once at host start.
#[derive(Clone)]
pub(crate) struct LoadedTls {
    /// `None` for a host that only dials and has no certificate.
    pub(crate) server: Option<Arc<ServerConfig>>,
    pub(crate) client: Arc<ClientConfig>,
}

impl std::fmt::Debug for LoadedTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedTls")
            .field("server", &self.server.is_some())
            .finish()
    }
}

fn file_error(what: &'static str, path: &Path, why: impl ToString) -> TlsError {
    TlsError::File {
        what,
        path: path.to_owned(),
        why: why.to_string(),
    }
}

fn load_certificates(
    what: &'static str,
    path: &Path,
) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| file_error(what, path, pem_why(e)))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| file_error(what, path, pem_why(e)))?;
    if certs.is_empty() {
        return Err(file_error(
            what,
            path,
            "holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
        ));
    }
    Ok(certs)
}

fn load_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    PrivateKeyDer::from_pem_file(path).map_err(|e| match e {
        rustls::pki_types::pem::Error::NoItemsFound => file_error(
            "key",
            path,
            "holds no PEM private key (-----BEGIN PRIVATE KEY----- or an RSA / EC key)",
        ),
        e => file_error("key", path, pem_why(e)),
    })
}

fn pem_why(e: rustls::pki_types::pem::Error) -> String {
    match e {
        rustls::pki_types::pem::Error::Io(io) => format!("cannot read: {io}"),
        e => format!("not valid PEM: {e}"),
    }
}

fn load_roots(path: &Path) -> Result<RootCertStore, TlsError> {
    let mut roots = RootCertStore::empty();
    for cert in load_certificates("CA file", path)? {
        roots.add(cert).map_err(|e| {
            file_error("CA file", path, format!("not a usable CA certificate: {e}"))
        })?;
    }
    Ok(roots)
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

impl TlsConfig {
    /// Read the files as a host would at its start, to report a wrong one early.
    pub fn check(&self) -> Result<(), TlsError> {
        self.load(false).map(drop)
    }

    /// Read the files and build the rustls configurations. `listens`: the host accepts on
    /// `tls://`, so it needs a certificate.
    pub(crate) fn load(&self, listens: bool) -> Result<LoadedTls, TlsError> {
        let identity = match (&self.cert_chain_pem, &self.key_pem) {
            (Some(cert), Some(key)) => Some((cert, key)),
            (None, None) => None,
            (Some(_), None) => return Err(TlsError::HalfIdentity("certificate")),
            (None, Some(_)) => return Err(TlsError::HalfIdentity("key")),
        };
        let roots = Arc::new(load_roots(&self.trusted_ca_pem)?);
        let identity = match identity {
            Some((cert, key)) => Some((load_certificates("certificate", cert)?, load_key(key)?)),
            None => None,
        };
        let client_builder = ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots.clone());
        let client = match &identity {
            Some((chain, key)) => client_builder
                .with_client_auth_cert(chain.clone(), key.clone_key())
                .map_err(|e| self.key_mismatch(e))?,
            None => client_builder.with_no_client_auth(),
        };
        let server = match identity {
            Some((chain, key)) => Some(Arc::new(self.server_config(roots, chain, key)?)),
            None if listens => return Err(TlsError::NoServerIdentity),
            None => None,
        };
        Ok(LoadedTls {
            server,
            client: Arc::new(client),
        })
    }

    fn server_config(
        &self,
        roots: Arc<RootCertStore>,
        chain: Vec<CertificateDer<'static>>,
        key: PrivateKeyDer<'static>,
    ) -> Result<ServerConfig, TlsError> {
        // Clients are always asked for a certificate: one that presents it proves who it
        // is even where it is not required.
        let verifier = WebPkiClientVerifier::builder_with_provider(roots, provider());
        let verifier = if self.require_client_cert {
            verifier
        } else {
            verifier.allow_unauthenticated()
        };
        let verifier = verifier.build().map_err(|e| TlsError::ClientVerifier {
            path: self.trusted_ca_pem.clone(),
            why: e.to_string(),
        })?;
        ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()?
            .with_client_cert_verifier(verifier)
            .with_single_cert(chain, key)
            .map_err(|e| self.key_mismatch(e))
    }

    /// A certificate whose key is not the one given, named by its files.
    fn key_mismatch(&self, e: rustls::Error) -> TlsError {
        match (&self.cert_chain_pem, &self.key_pem) {
            (Some(cert), Some(key)) => TlsError::File {
                what: "key",
                path: key.clone(),
                why: format!("does not go with the certificate {}: {e}", cert.display()),
            },
            _ => TlsError::Rustls(e),
        }
    }
}

/// The name a dialer checks the server's certificate against: the host of its endpoint,
/// an IP address as an IP SAN.
pub(crate) fn server_name(host: &str) -> Result<ServerName<'static>, String> {
    ServerName::try_from(host.to_owned())
        .map_err(|e| format!("{host:?} cannot name a TLS server: {e}"))
}

/// Who the far side proved to be: the subject of its certificate (checked against the
/// trusted CAs by the handshake). `None` without a certificate, or when its organizational
/// units name no Trellis role.
pub(crate) fn peer_identity(certificates: Option<&[CertificateDer<'_>]>) -> Option<PeerIdentity> {
    let der = certificates?.first()?;
    let (_, cert) = x509_parser::parse_x509_certificate(der.as_ref()).ok()?;
    let subject = cert.subject();
    let name = subject
        .iter_common_name()
        .find_map(|cn| cn.as_str().ok())?
        .to_owned();
    let role = subject
        .iter_organizational_unit()
        .find_map(|ou| match ou.as_str().ok()? {
            ROUTER_UNIT => Some(IdentityRole::Router),
            FEDERATE_UNIT => Some(IdentityRole::Federate),
            _ => None,
        })?;
    Some(PeerIdentity { name, role })
}

/// Whether the far side refused our certificate (or our lack of one): an alert no redial
/// changes.
pub(crate) fn refuses_us(error: &rustls::Error) -> bool {
    use rustls::AlertDescription as Alert;
    matches!(
        error,
        rustls::Error::AlertReceived(
            Alert::BadCertificate
                | Alert::UnknownCA
                | Alert::CertificateExpired
                | Alert::CertificateRequired
                | Alert::CertificateUnknown
                | Alert::UnsupportedCertificate
                | Alert::CertificateRevoked
                | Alert::AccessDenied
        )
    )
}

/// A handshake failure as the log and the dialer say it: what went wrong in words a user
/// can act on, with rustls' own wording after it.
pub(crate) fn describe_failure(error: &rustls::Error) -> String {
    match error {
        rustls::Error::AlertReceived(alert) if refuses_us(error) => {
            format!("the far side refused our certificate (received fatal alert: {alert:?})")
        }
        rustls::Error::NoCertificatesPresented => {
            "the client presented no certificate and this port requires one (mutual TLS)".into()
        }
        e => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_files_are_named() {
        let config = TlsConfig::trusting("/nonexistent/ca.pem");
        let err = config.load(false).unwrap_err().to_string();
        assert!(err.contains("/nonexistent/ca.pem"), "{err}");
        assert!(err.contains("CA file"), "{err}");
        assert!(err.contains("cannot read"), "{err}");
    }

    #[test]
    fn a_file_without_pem_is_named() {
        let dir = std::env::temp_dir().join(format!("trellis-tls-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("empty.pem");
        std::fs::write(&path, "not a certificate\n").unwrap();
        let err = TlsConfig::trusting(&path)
            .load(false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("empty.pem") && err.contains("no PEM certificate"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn half_an_identity_is_refused() {
        let config = TlsConfig {
            cert_chain_pem: Some("cert.pem".into()),
            key_pem: None,
            trusted_ca_pem: "ca.pem".into(),
            require_client_cert: false,
        };
        let err = config.load(false).unwrap_err().to_string();
        assert!(err.contains("got only the certificate"), "{err}");
    }

    #[test]
    fn server_names_take_hosts_and_addresses() {
        assert!(matches!(
            server_name("127.0.0.1"),
            Ok(ServerName::IpAddress(_))
        ));
        assert!(matches!(server_name("::1"), Ok(ServerName::IpAddress(_))));
        assert!(matches!(
            server_name("router-a.example"),
            Ok(ServerName::DnsName(_))
        ));
        assert!(server_name("bad name").is_err());
    }
}
