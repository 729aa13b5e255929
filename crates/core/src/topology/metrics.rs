//! The `metrics` key of `[[router]]`: the `IP:PORT` where that router serves its figures
//! on `/metrics` for Prometheus. Checked here so a typo or a port given twice names the
//! router and the key before any process starts.

use super::address::Scheme;
use super::file::TopologyFile;
use super::problem::Problem;
use std::net::SocketAddr;

/// Each router's metrics address, in the order of the file's routers, and the problems
/// found: an address that does not parse, port 0 (a scrape needs a known port), and a
/// port that another router's metrics or any `tcp://` listen address of the file also
/// takes on the same IP.
pub(super) fn metrics_addresses(file: &TopologyFile) -> (Vec<Option<SocketAddr>>, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut addresses = Vec::with_capacity(file.routers.len());
    for router in &file.routers {
        let Some(text) = &router.metrics else {
            addresses.push(None);
            continue;
        };
        match parse(text) {
            Ok(address) => addresses.push(Some(address)),
            Err(why) => {
                problems.push(Problem::BadMetricsAddress {
                    router: router.name.clone(),
                    value: text.clone(),
                    why,
                });
                addresses.push(None);
            }
        }
    }
    problems.extend(clashes(file, &addresses));
    (addresses, problems)
}

fn parse(text: &str) -> Result<SocketAddr, String> {
    let address: SocketAddr = text
        .parse()
        .map_err(|_| "expected IP:PORT, e.g. \"127.0.0.1:9100\"".to_owned())?;
    if address.port() == 0 {
        return Err("port 0 is chosen by the system; Prometheus needs a fixed port".into());
    }
    Ok(address)
}

/// Two sockets collide on one port when their IPs are equal or either is a wildcard.
fn overlap(a: SocketAddr, b: SocketAddr) -> bool {
    a.port() == b.port() && (a.ip() == b.ip() || a.ip().is_unspecified() || b.ip().is_unspecified())
}

fn clashes(file: &TopologyFile, addresses: &[Option<SocketAddr>]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let listeners = tcp_listeners(file);
    for (index, (router, address)) in file.routers.iter().zip(addresses).enumerate() {
        let Some(address) = *address else { continue };
        let earlier = file.routers[..index]
            .iter()
            .zip(addresses)
            .find(|(_, other)| other.is_some_and(|o| overlap(o, address)));
        if let Some((first, _)) = earlier {
            problems.push(Problem::DuplicateMetricsPort {
                router: router.name.clone(),
                address,
                other: format!("the metrics of router {:?}", first.name),
            });
        }
        if let Some((owner, listen)) = listeners.iter().find(|(_, l)| overlap(*l, address)) {
            problems.push(Problem::DuplicateMetricsPort {
                router: router.name.clone(),
                address,
                other: format!("{owner} listening on tcp://{listen}"),
            });
        }
    }
    problems
}

/// Every `tcp://IP:PORT` listen address of the file with who declares it (host names, not
/// resolved here, are left out).
fn tcp_listeners(file: &TopologyFile) -> Vec<(String, SocketAddr)> {
    let routers = file
        .routers
        .iter()
        .map(|r| (format!("router {:?}", r.name), &r.listen));
    let federates = file
        .federates
        .iter()
        .map(|f| (format!("federate {:?}", f.name), &f.listen));
    routers
        .chain(federates)
        .flat_map(|(owner, listen)| {
            listen.iter().filter_map(move |text| {
                let address: super::address::ListenAddress = text.parse().ok()?;
                // A tls:// listener is a TCP socket too.
                let socket = matches!(address.scheme(), Scheme::Tcp | Scheme::Tls)
                    .then(|| text.get("tcp://".len()..)?.parse().ok())??;
                Some((owner.clone(), socket))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::Topology;

    fn error_of(text: &str) -> String {
        Topology::from_toml(text).unwrap_err().to_string()
    }

    #[test]
    fn a_bad_metrics_address_names_the_router_and_the_key() {
        let err = error_of("[[router]]\nname = \"hub\"\nlisten = [\"tcp://127.0.0.1:7000\"]\nmetrics = \"localhost\"\n");
        assert!(err.contains("router \"hub\""), "{err}");
        assert!(err.contains("metrics"), "{err}");
        assert!(err.contains("\"localhost\""), "{err}");
    }

    #[test]
    fn a_metrics_port_used_twice_is_refused() {
        let text = "[[router]]\nname = \"a\"\nlisten = [\"tcp://127.0.0.1:7000\"]\nmetrics = \"127.0.0.1:9100\"\n\
                    [[router]]\nname = \"b\"\nparent = \"a\"\nlisten = [\"tcp://127.0.0.1:7001\"]\nmetrics = \"0.0.0.0:9100\"\n";
        let err = error_of(text);
        assert!(err.contains("router \"b\""), "{err}");
        assert!(err.contains("the metrics of router \"a\""), "{err}");
    }

    #[test]
    fn a_metrics_port_on_a_listen_address_is_refused() {
        let text = "[[router]]\nname = \"a\"\nlisten = [\"tcp://127.0.0.1:7000\"]\nmetrics = \"127.0.0.1:7000\"\n";
        let err = error_of(text);
        assert!(err.contains("listening on tcp://127.0.0.1:7000"), "{err}");
    }

    #[test]
    fn metrics_addresses_reach_the_model_and_the_plan_and_read_back() {
        let text = "[[router]]\nname = \"a\"\nlisten = [\"tcp://127.0.0.1:7000\"]\nmetrics = \"127.0.0.1:9100\"\n\
                    [[router]]\nname = \"b\"\nparent = \"a\"\nlisten = [\"tcp://127.0.0.1:7001\"]\n";
        let topology = Topology::from_toml(text).unwrap();
        let expected: std::net::SocketAddr = "127.0.0.1:9100".parse().unwrap();
        assert_eq!(topology.node("a").unwrap().metrics, Some(expected));
        assert_eq!(topology.node("b").unwrap().metrics, None);
        assert_eq!(topology.plan("a").unwrap().metrics, Some(expected));
        let again = Topology::from_toml(&topology.to_toml().unwrap()).unwrap();
        assert_eq!(again, topology);
    }
}
