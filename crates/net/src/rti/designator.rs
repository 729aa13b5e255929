//! The local settings designator of `connect`: where the router is and how the node is
//! driven. Spellings written for other RTIs work unchanged (see `Endpoint`): OpenRTI's
//! `rti://host[:port]`, a bare `host:port`, and Trellis's `tcp://host:port`. `tls://host:port`
//! attaches over TLS, with the files named by TRELLIS_TLS_CA, TRELLIS_TLS_CERT and
//! TRELLIS_TLS_KEY (or the designator's `tls_ca`, `tls_cert`, `tls_key` options).

use super::{Driver, RtiError};
use crate::{Endpoint, TlsConfig, DEFAULT_BUNDLE_HOLD};
use std::time::Duration;

/// Where a federate attaches when the designator is empty and TRELLIS_RTI_ADDRESS unset.
pub const DEFAULT_DESIGNATOR: &str = "tcp://127.0.0.1:7000";

/// Where and how to attach: the router's endpoint, how the node is driven, and how long
/// a direct node holds publishes to bundle them.
#[derive(Clone, Debug)]
pub struct LocalSettings {
    /// The router's endpoint to attach to.
    pub endpoint: Endpoint,
    /// On the caller's thread or an event-loop thread of its own.
    pub driver: Driver,
    /// How long a direct node holds publishes to bundle them ([`crate::NodeConfig::bundle_hold`]).
    pub bundle_hold: Duration,
    /// For a `tls://` endpoint: the CAs to trust and the certificate to present, if any.
    pub tls: Option<TlsConfig>,
}

/// The environment variables of a TLS federate: the CAs it trusts (needed for tls://), and
/// its certificate and key (both or neither; needed where the router asks for mutual TLS).
pub const TLS_CA_VARIABLE: &str = "TRELLIS_TLS_CA";
/// The environment variable naming this federate's certificate (PEM).
pub const TLS_CERT_VARIABLE: &str = "TRELLIS_TLS_CERT";
/// The environment variable naming this federate's private key (PEM).
pub const TLS_KEY_VARIABLE: &str = "TRELLIS_TLS_KEY";

/// The TLS files a designator's options name, before the environment is consulted.
#[derive(Default)]
struct TlsFiles {
    ca: Option<String>,
    cert: Option<String>,
    key: Option<String>,
}

/// The longest `bundle_us` a designator may ask for.
const MAX_BUNDLE_HOLD: Duration = Duration::from_millis(100);

impl LocalSettings {
    /// "tcp://HOST:PORT", "HOST:PORT" or OpenRTI's "rti://HOST[:PORT]" (port 14321 when none is
    /// given), optionally "?driver=direct|thread&bundle_us=N":
    /// direct (the default) runs the node on the caller's thread inside service calls and
    /// evoke, lowest latency; thread gives the node a thread of its own, so batches form while
    /// the federate works. `bundle_us` (direct only; 50 by default, at
    /// most 100000, 0 writes each update at once) holds a publish that comes within N µs of the
    /// last written bundle for the next one (`NodeConfig::bundle_hold`).
    pub fn parse(designator: Option<&str>) -> Result<LocalSettings, RtiError> {
        parse_with(designator, |name| std::env::var(name).ok())
    }
}

/// `LocalSettings::parse`, with the environment given (tests pass their own).
fn parse_with(
    designator: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<LocalSettings, RtiError> {
    let from_env = env("TRELLIS_RTI_ADDRESS");
    let text = designator
        .or(from_env.as_deref().filter(|s| !s.is_empty()))
        .unwrap_or(DEFAULT_DESIGNATOR);
    let invalid = |why: String| {
        RtiError::InvalidLocalSettingsDesignator(format!("local settings designator {text:?}: {why}; expected tcp://HOST:PORT, tls://HOST:PORT, HOST:PORT or rti://HOST[:PORT], then [?driver=direct|thread][&bundle_us=N][&tls_ca=FILE][&tls_cert=FILE&tls_key=FILE]"))
    };
    let (address, options) = text.split_once('?').unwrap_or((text, ""));
    let mut driver = Driver::Direct;
    let mut bundle_hold = DEFAULT_BUNDLE_HOLD;
    let mut files = TlsFiles::default();
    for option in options.split('&').filter(|o| !o.is_empty()) {
        match option.split_once('=') {
            Some(("driver", "direct")) => driver = Driver::Direct,
            Some(("driver", "thread")) => driver = Driver::Thread,
            Some(("bundle_us", micros)) => {
                bundle_hold = micros
                    .parse()
                    .ok()
                    .map(Duration::from_micros)
                    .filter(|hold| *hold <= MAX_BUNDLE_HOLD)
                    .ok_or_else(|| {
                        invalid(format!(
                            "bundle_us={micros:?} is not a whole number of microseconds up to {}",
                            MAX_BUNDLE_HOLD.as_micros()
                        ))
                    })?;
            }
            Some(("tls_ca", path)) => files.ca = Some(path.to_owned()),
            Some(("tls_cert", path)) => files.cert = Some(path.to_owned()),
            Some(("tls_key", path)) => files.key = Some(path.to_owned()),
            _ => return Err(invalid(format!("unknown option {option:?}"))),
        }
    }
    let endpoint = match address.parse::<Endpoint>() {
        Ok(endpoint @ (Endpoint::Tcp(_) | Endpoint::Tls { .. })) => endpoint,
        Ok(_) => return Err(invalid("federates attach over TCP or TLS".into())),
        Err(e) => return Err(invalid(e.to_string())),
    };
    let tls = match endpoint {
        Endpoint::Tls { .. } => Some(tls_config(files, &env).map_err(invalid)?),
        // Files given for a plaintext link would promise a security it does not have.
        _ if files.ca.is_some() || files.cert.is_some() || files.key.is_some() => {
            return Err(invalid(
                "tls_ca, tls_cert and tls_key are for tls:// designators".into(),
            ))
        }
        _ => None,
    };
    Ok(LocalSettings {
        endpoint,
        driver,
        bundle_hold,
        tls,
    })
}

/// The TLS files of a `tls://` designator: its options first, then the environment. The
/// files are read here, so that a wrong one is named at connect, not at join.
fn tls_config(files: TlsFiles, env: &impl Fn(&str) -> Option<String>) -> Result<TlsConfig, String> {
    let take = |given: Option<String>, variable: &str| {
        given
            .or_else(|| env(variable))
            .filter(|path| !path.is_empty())
    };
    let ca = take(files.ca, TLS_CA_VARIABLE).ok_or_else(|| {
        format!("tls:// needs the CAs to trust: set {TLS_CA_VARIABLE} (or the tls_ca option) to a PEM file")
    })?;
    let cert = take(files.cert, TLS_CERT_VARIABLE);
    let key = take(files.key, TLS_KEY_VARIABLE);
    if cert.is_some() != key.is_some() {
        return Err(format!(
            "{TLS_CERT_VARIABLE} and {TLS_KEY_VARIABLE} (tls_cert and tls_key) go together: \
             a certificate is presented with its key"
        ));
    }
    let config = TlsConfig {
        cert_chain_pem: cert.map(Into::into),
        key_pem: key.map(Into::into),
        trusted_ca_pem: ca.into(),
        require_client_cert: false,
    };
    config.check().map_err(|e| e.to_string())?;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(text: &str) -> std::net::SocketAddr {
        match LocalSettings::parse(Some(text)) {
            Ok(LocalSettings {
                endpoint: Endpoint::Tcp(address),
                ..
            }) => address,
            Ok(_) => panic!("{text}: not TCP"),
            Err(e) => panic!("{text}: {e}"),
        }
    }

    /// What federates written for OpenRTI hard-code, and the bare form, unchanged.
    #[test]
    fn openrti_designators_and_bare_addresses_attach_over_tcp() {
        assert_eq!(tcp("rti://127.0.0.1:14322").port(), 14322);
        assert_eq!(
            tcp("rti://localhost").port(),
            14321,
            "OpenRTI's default port"
        );
        assert_eq!(tcp("127.0.0.1:7999").port(), 7999);
        assert_eq!(tcp("tcp://127.0.0.1:7001?driver=thread").port(), 7001);
        let options =
            LocalSettings::parse(Some("rti://127.0.0.1:9?driver=thread&bundle_us=0")).unwrap();
        assert_eq!(options.driver, Driver::Thread);
        assert_eq!(options.bundle_hold, Duration::ZERO);
    }

    fn with_env(text: &str, vars: &[(&str, &str)]) -> Result<LocalSettings, RtiError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        parse_with(Some(text), move |name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    }

    fn message(result: Result<LocalSettings, RtiError>) -> String {
        match result {
            Ok(_) => panic!("taken"),
            Err(e) => e.to_string(),
        }
    }

    /// tls:// takes its files from the environment, or from the designator's options.
    #[test]
    fn tls_designators_name_their_files() {
        let no_ca = message(with_env("tls://127.0.0.1:9", &[]));
        assert!(no_ca.contains(TLS_CA_VARIABLE), "{no_ca}");
        let missing = message(with_env(
            "tls://127.0.0.1:9",
            &[(TLS_CA_VARIABLE, "/nonexistent/ca.pem")],
        ));
        assert!(missing.contains("/nonexistent/ca.pem"), "{missing}");
        let option = message(with_env("tls://127.0.0.1:9?tls_ca=/elsewhere/ca.pem", &[]));
        assert!(option.contains("/elsewhere/ca.pem"), "{option}");
        let half = message(with_env(
            "tls://127.0.0.1:9",
            &[(TLS_CA_VARIABLE, "ca.pem"), (TLS_CERT_VARIABLE, "cert.pem")],
        ));
        assert!(half.contains("go together"), "{half}");
        let Ok(plain) = with_env("tcp://127.0.0.1:9", &[(TLS_CA_VARIABLE, "/nope")]) else {
            panic!("a tcp:// designator needs no TLS");
        };
        assert!(plain.tls.is_none());
        let plain_with_files = message(with_env("tcp://127.0.0.1:9?tls_ca=ca.pem", &[]));
        assert!(
            plain_with_files.contains("are for tls://"),
            "{plain_with_files}"
        );
    }

    #[test]
    fn a_bad_designator_names_itself_and_the_forms_taken() {
        for text in ["udp://127.0.0.1:9", "ftp://x:1", "router-a", "rti://h/x"] {
            let Err(e @ RtiError::InvalidLocalSettingsDesignator(_)) =
                LocalSettings::parse(Some(text))
            else {
                panic!("{text} was taken");
            };
            assert!(e.to_string().contains(text), "{e}");
        }
    }
}
