//! The local settings designator of `connect`: where the router is and how the node is
//! driven. Spellings written for other RTIs work unchanged (see `Endpoint`): OpenRTI's
//! `rti://host[:port]`, a bare `host:port`, and Trellis's `tcp://host:port`.

use crate::status::{Failure, TRELLIS_ERR_INVALID_LOCAL_SETTINGS_DESIGNATOR};
use std::time::Duration;
use trellis_net::rti::Driver;
use trellis_net::{Endpoint, DEFAULT_BUNDLE_HOLD};

/// Where a federate attaches when the designator is empty and TRELLIS_RTI_ADDRESS unset.
pub const TRELLIS_DEFAULT_DESIGNATOR: &str = "tcp://127.0.0.1:7000";

/// Where and how to attach: the router's endpoint, how the node is driven, and how long
/// a direct node holds publishes to bundle them.
pub(crate) struct Designator {
    pub endpoint: Endpoint,
    pub driver: Driver,
    pub bundle_hold: Duration,
}

/// The longest `bundle_us` a designator may ask for.
const MAX_BUNDLE_HOLD: Duration = Duration::from_millis(100);

/// "tcp://HOST:PORT", "HOST:PORT" or OpenRTI's "rti://HOST[:PORT]" (port 14321 when none is
/// given), optionally "?driver=direct|thread&bundle_us=N":
/// direct (the default) runs the node on the caller's thread inside service calls and
/// evoke, lowest latency; thread gives the node a thread of its own, so batches form while
/// the federate works. `bundle_us` (direct only; 50 by default, at
/// most 100000, 0 writes each update at once) holds a publish that comes within N µs of the
/// last written bundle for the next one (`NodeConfig::bundle_hold`).
pub(crate) fn parse(designator: Option<&str>) -> Result<Designator, Failure> {
    let from_env = std::env::var("TRELLIS_RTI_ADDRESS").ok();
    let text = designator
        .or(from_env.as_deref().filter(|s| !s.is_empty()))
        .unwrap_or(TRELLIS_DEFAULT_DESIGNATOR);
    let invalid = |why: String| {
        Failure::new(
            TRELLIS_ERR_INVALID_LOCAL_SETTINGS_DESIGNATOR,
            format!("local settings designator {text:?}: {why}; expected tcp://HOST:PORT, HOST:PORT or rti://HOST[:PORT], then [?driver=direct|thread][&bundle_us=N]"),
        )
    };
    let (address, options) = text.split_once('?').unwrap_or((text, ""));
    let mut driver = Driver::Direct;
    let mut bundle_hold = DEFAULT_BUNDLE_HOLD;
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
            _ => return Err(invalid(format!("unknown option {option:?}"))),
        }
    }
    match address.parse::<Endpoint>() {
        Ok(endpoint @ Endpoint::Tcp(_)) => Ok(Designator {
            endpoint,
            driver,
            bundle_hold,
        }),
        Ok(_) => Err(invalid("federates attach over TCP".into())),
        Err(e) => Err(invalid(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(text: &str) -> std::net::SocketAddr {
        match parse(Some(text)) {
            Ok(Designator {
                endpoint: Endpoint::Tcp(address),
                ..
            }) => address,
            Ok(_) => panic!("{text}: not TCP"),
            Err(failure) => panic!("{text}: {}", failure.message),
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
        let options = parse(Some("rti://127.0.0.1:9?driver=thread&bundle_us=0")).unwrap();
        assert_eq!(options.driver, Driver::Thread);
        assert_eq!(options.bundle_hold, Duration::ZERO);
    }

    #[test]
    fn a_bad_designator_names_itself_and_the_forms_taken() {
        for text in ["udp://127.0.0.1:9", "ftp://x:1", "router-a", "rti://h/x"] {
            let Err(failure) = parse(Some(text)) else {
                panic!("{text} was taken");
            };
            assert_eq!(
                failure.status,
                TRELLIS_ERR_INVALID_LOCAL_SETTINGS_DESIGNATOR
            );
            assert!(failure.message.contains(text), "{}", failure.message);
        }
    }
}
