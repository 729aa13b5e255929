//! The figures over real HTTP: two routers on loopback sockets (hub, and edge below it),
//! a federate on each exchanging updates, both routers and the federates' process serving
//! `/metrics` on 127.0.0.1; a scrape before and after the traffic.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_core::fom::ObjectModel;
use trellis_core::router::RouterConfig;
use trellis_core::wire::NodeId;
use trellis_monitor::metrics::{self, FederateBoard, MetricsServer};
use trellis_net::rti::{RtiAmbassador, RtiConfig};
use trellis_net::{DialConfig, Endpoint, Host, HostConfig, NodeConfig, Runtime};

const DEMO: &str = include_str!("../../../foms/trellis-demo.xml");
const WAIT: Duration = Duration::from_secs(20);
const FEDERATION: &str = "Metrics";
const UPDATES: usize = 40;

fn any_port() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn router(runtime: &Runtime, name: &str, id: u64, parent: Option<&Endpoint>) -> Host {
    let mut router = RouterConfig::new(name, NodeId(id));
    router.hosts_registry = parent.is_none();
    let mut config = HostConfig::new(router);
    config.listen.push("tcp://127.0.0.1:0".parse().unwrap());
    if let Some(parent) = parent {
        config.dial.push(DialConfig::parent(parent.clone(), ""));
    }
    runtime.add_host(config).unwrap()
}

/// `GET /metrics` over a plain socket; the body of a 200 answer.
fn scrape(server: &MetricsServer) -> String {
    let mut stream = TcpStream::connect(server.address()).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("text/plain; version=0.0.4"), "{head}");
    body.to_owned()
}

/// The value of the one sample of `name` whose labels include every `labels` pair.
fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let matching: Vec<f64> = text
        .lines()
        .filter(|line| line.starts_with(&format!("{name}{{")))
        .filter(|line| {
            labels
                .iter()
                .all(|(k, v)| line.contains(&format!("{k}=\"{v}\"")))
        })
        .map(|line| line.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(
        matching.len() <= 1,
        "{name} {labels:?} matches {matching:?}"
    );
    matching.first().copied()
}

fn join(at: &Endpoint, name: &str, model: &Arc<ObjectModel>, create: bool) -> RtiAmbassador {
    let config = RtiConfig::new(NodeConfig::child_of(name, FEDERATION, at.clone()));
    let mut rti = RtiAmbassador::connect(config).unwrap();
    if create {
        rti.create_federation_execution(model).unwrap();
    }
    rti.join_federation_execution(name, "test", model.clone())
        .unwrap();
    rti
}

fn evoke_until(rti: &mut RtiAmbassador, mut done: impl FnMut(&Callback) -> bool) {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "the expected callbacks did not come in time"
        );
        if let Some(callback) = rti
            .evoke_callback(left.min(Duration::from_millis(50)))
            .unwrap()
        {
            if done(&callback) {
                return;
            }
        }
    }
}

#[test]
fn counters_rise_with_traffic_and_labels_name_the_peers() {
    let runtime = Runtime::start("metrics-test").unwrap();
    let hub = router(&runtime, "hub", 1, None);
    let edge = router(&runtime, "edge", 2, Some(&hub.listening()[0]));
    edge.wait_for_links(1, WAIT).unwrap();
    let hub_metrics = metrics::serve_router(any_port(), "hub", hub.clone()).unwrap();
    let edge_metrics = metrics::serve_router(any_port(), "edge", edge.clone()).unwrap();

    let model = Arc::new(ObjectModel::from_sources(&[("trellis-demo.xml", DEMO)]).unwrap());
    let mut watcher = join(&hub.listening()[0], "watcher", &model, true);
    let mut mover = join(&edge.listening()[0], "mover", &model, false);
    let board = FederateBoard::new();
    let federates_metrics = metrics::serve_federates(any_port(), "feds", board.clone()).unwrap();

    let vehicle = mover.object_class_handle("Vehicle").unwrap();
    let position = mover.attribute_handle(vehicle, "Position").unwrap();
    watcher
        .subscribe_object_class_attributes(vehicle, &[position])
        .unwrap();
    mover
        .publish_object_class_attributes(vehicle, &[position])
        .unwrap();
    // Updates sent before the watcher's interest reaches the mover's node are (rightly)
    // not sent at all: wait until the RTI says someone subscribes (under load, that takes
    // a while to cross two routers).
    mover
        .enable_object_class_relevance_advisory_switch()
        .unwrap();
    evoke_until(&mut mover, |callback| {
        matches!(callback, Callback::StartRegistrationForObjectClass { .. })
    });
    let before = scrape(&hub_metrics);
    let watcher_link = [
        ("peer", "watcher"),
        ("role", "federate"),
        ("federation", FEDERATION),
    ];
    let out_before = value(
        &before,
        "trellis_link_messages_total",
        &[watcher_link[0], ("direction", "out")],
    )
    .expect("the hub reports its link to the watcher");

    let car = mover.register_object_instance(vehicle).unwrap();
    let mut reflected = 0;
    for i in 0..UPDATES {
        mover
            .update_attribute_values(car, &[(position, format!("{i},0").as_bytes())], b"")
            .unwrap();
    }
    evoke_until(&mut watcher, |callback| {
        if matches!(callback, Callback::ReflectAttributeValues { .. }) {
            reflected += 1;
        }
        reflected == UPDATES
    });
    board.publish_from(&mover);
    board.publish_from(&watcher);

    let hub_text = scrape(&hub_metrics);
    let edge_text = scrape(&edge_metrics);
    // Hub: the watcher is a federate of the federation, the edge router a child trunk.
    let mut labels = watcher_link.to_vec();
    labels.push(("direction", "out"));
    let out_after = value(&hub_text, "trellis_link_messages_total", &labels).unwrap();
    assert!(
        out_after >= out_before + UPDATES as f64,
        "{out_before} → {out_after}"
    );
    let from_edge = [
        ("peer", "edge"),
        ("role", "child"),
        ("federation", ""),
        ("direction", "in"),
    ];
    assert!(value(&hub_text, "trellis_link_messages_total", &from_edge).unwrap() >= UPDATES as f64);
    assert_eq!(
        value(&hub_text, "trellis_link_up", &[("peer", "edge")]),
        Some(1.0)
    );
    assert!(
        value(
            &hub_text,
            "trellis_link_interest_ids",
            &[watcher_link[0], ("direction", "in")]
        )
        .unwrap()
            > 0.0
    );
    assert!(
        value(&hub_text, "trellis_router_data_forwarded_total", &[]).unwrap() >= UPDATES as f64
    );
    // The hub's index holds the watcher's interest and was consulted for every update.
    assert!(value(&hub_text, "trellis_interest_ids", &[]).unwrap() > 0.0);
    assert!(value(&hub_text, "trellis_interest_link_sets", &[]).unwrap() >= 1.0);
    assert!(value(&hub_text, "trellis_interest_lookups_total", &[]).unwrap() >= UPDATES as f64);
    assert!(value(&hub_text, "trellis_interest_updates_total", &[]).unwrap() >= 1.0);
    assert_eq!(
        value(&hub_text, "trellis_process_info", &[("kind", "router")]),
        Some(1.0)
    );
    // Edge: the hub is its parent, the mover its federate.
    let to_hub = [("peer", "hub"), ("role", "parent"), ("direction", "out")];
    assert!(value(&edge_text, "trellis_link_messages_total", &to_hub).unwrap() >= UPDATES as f64);
    let from_mover = [("peer", "mover"), ("role", "federate"), ("direction", "in")];
    assert!(value(&edge_text, "trellis_link_bytes_total", &from_mover).unwrap() > 0.0);
    assert!(value(&edge_text, "trellis_link_age_seconds", &[("peer", "hub")]).unwrap() > 0.0);
    assert!(edge_text.contains("trellis_link_drops_total{process=\"edge\""));
    // The federates' process: what each federate published.
    let feds_text = scrape(&federates_metrics);
    let mover_labels = [("federate", "mover"), ("federation", FEDERATION)];
    assert_eq!(
        value(&feds_text, "trellis_federate_updates_total", &mover_labels),
        Some(UPDATES as f64)
    );
    assert_eq!(
        value(
            &feds_text,
            "trellis_federate_objects",
            &[mover_labels[0], ("kind", "owned")]
        ),
        Some(1.0)
    );
    let watcher_fed = [("federate", "watcher"), ("kind", "known")];
    assert_eq!(
        value(&feds_text, "trellis_federate_objects", &watcher_fed),
        Some(1.0)
    );
    assert_eq!(
        value(
            &feds_text,
            "trellis_federate_reflects_total",
            &[("federate", "watcher")]
        ),
        Some(UPDATES as f64)
    );
    assert_eq!(
        value(&feds_text, "trellis_process_info", &[("kind", "federate")]),
        Some(1.0)
    );
}

#[test]
fn a_port_in_use_is_an_error_naming_it_and_a_dropped_server_frees_its_port() {
    let first = MetricsServer::start(any_port(), String::new).unwrap();
    let taken = first.address();
    let err = MetricsServer::start(taken, String::new)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains(&taken.to_string()), "{err}");
    drop(first);
    let again = MetricsServer::start(taken, || "again\n".into()).unwrap();
    assert_eq!(scrape(&again), "again\n");
}

/// A connection refused for its source address's share of the link slots is counted by
/// reason.
#[test]
fn connections_refused_for_the_link_budget_are_counted_by_reason() {
    let runtime = Runtime::start("metrics-refusals").unwrap();
    let mut config = HostConfig::new(RouterConfig::new("budget", NodeId(1)));
    config.listen.push("tcp://127.0.0.1:0".parse().unwrap());
    config.max_links_per_address = 1;
    let host = runtime.add_host(config).unwrap();
    let Endpoint::Tcp(address) = host.listening()[0].clone() else {
        panic!("a tcp listener")
    };
    let server = metrics::serve_router(any_port(), "budget", host.clone()).unwrap();
    let refused = |text: &str| {
        value(
            text,
            "trellis_router_connections_refused_total",
            &[("reason", "per_address")],
        )
    };
    assert_eq!(refused(&scrape(&server)), Some(0.0));
    let _held = TcpStream::connect(address).unwrap();
    let mut second = TcpStream::connect(address).unwrap();
    second.set_read_timeout(Some(WAIT)).unwrap();
    // Refused with a goodbye, then closed: reading to the end waits for the refusal.
    let mut goodbye = Vec::new();
    second.read_to_end(&mut goodbye).unwrap();
    assert!(String::from_utf8_lossy(&goodbye).contains("per source address"));
    assert_eq!(refused(&scrape(&server)), Some(1.0));
}
