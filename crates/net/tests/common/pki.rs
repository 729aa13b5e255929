//! A development CA for the TLS tests, made with rcgen in a directory of the test's own.

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};
use std::path::PathBuf;
use trellis_net::TlsConfig;

/// A development CA in a directory of its own, issuing certificates into it.
pub struct Pki {
    dir: PathBuf,
    ca: CertifiedIssuer<'static, KeyPair>,
}

/// What a certificate is issued for.
pub struct Subject<'a> {
    pub name: &'a str,
    pub unit: &'a str,
    pub sans: &'a [&'a str],
    pub expired: bool,
}

impl<'a> Subject<'a> {
    pub fn router(name: &'a str) -> Subject<'a> {
        Subject {
            name,
            unit: "trellis-router",
            sans: &["127.0.0.1", "localhost"],
            expired: false,
        }
    }

    pub fn federate(name: &'a str) -> Subject<'a> {
        Subject {
            unit: "trellis-federate",
            ..Subject::router(name)
        }
    }
}

impl Pki {
    pub fn new(tag: &str) -> Pki {
        let dir = std::env::temp_dir().join(format!("trellis-tls-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params
            .distinguished_name
            .push(DnType::CommonName, format!("Trellis test CA {tag}"));
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
        Pki { dir, ca }
    }

    pub fn ca(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }

    /// Issue a certificate; returns the paths of its PEM certificate and key.
    pub fn issue(&self, subject: &Subject) -> (PathBuf, PathBuf) {
        let sans: Vec<String> = subject.sans.iter().map(|s| s.to_string()).collect();
        let mut params = CertificateParams::new(sans).unwrap();
        params
            .distinguished_name
            .push(DnType::CommonName, subject.name);
        params
            .distinguished_name
            .push(DnType::OrganizationalUnitName, subject.unit);
        if subject.expired {
            params.not_before = rcgen::date_time_ymd(2020, 1, 1);
            params.not_after = rcgen::date_time_ymd(2021, 1, 1);
        }
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.ca).unwrap();
        let cert_path = self.dir.join(format!("{}.pem", subject.name));
        let key_path = self.dir.join(format!("{}.key", subject.name));
        std::fs::write(&cert_path, cert.pem()).unwrap();
        std::fs::write(&key_path, key.serialize_pem()).unwrap();
        (cert_path, key_path)
    }

    /// TLS settings presenting a certificate for `subject`, trusting this CA.
    pub fn config(&self, subject: &Subject) -> TlsConfig {
        let (cert, key) = self.issue(subject);
        TlsConfig::with_identity(cert, key, self.ca())
    }
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
