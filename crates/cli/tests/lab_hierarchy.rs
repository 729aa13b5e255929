//! RTI-NG's point, measured on the site link (needs root): with a router at each site
//! (hierarchical), an update crosses the slow link once whatever the number of receivers
//! behind it; with the receivers attached across the link to the sender's router, once per
//! receiver. Bytes are counted on the wan namespace's veth toward the receivers' site.

use std::net::SocketAddr;
use std::process::{Child, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_core::fom::ObjectModel;
use trellis_lab::{probe, Lab, LabSpec};
use trellis_net::rti::{RtiAmbassador, RtiConfig};
use trellis_net::{Endpoint, NodeConfig};

const TRELLIS: &str = env!("CARGO_BIN_EXE_trellis");
const WAIT: Duration = Duration::from_secs(30);
const RECEIVERS: usize = 3;
const UPDATES: usize = 200;
const PAYLOAD: usize = 1000;
const SENDER_SITE: usize = 0;
const RECEIVER_SITE: usize = 1;

const LAB: &str = r#"
[[site]]
name = "sender"
[[site]]
name = "receivers"
[[link]]
sites = ["sender", "receivers"]
delay_ms = 5
"#;

fn model() -> Arc<ObjectModel> {
    Arc::new(
        ObjectModel::from_sources(&[("demo.xml", include_str!("../../../foms/trellis-demo.xml"))])
            .unwrap(),
    )
}

/// Join `federation` through the router at `at`, retrying while the registry is not yet
/// reachable (the leaf router may still be linking to the top one).
fn join(at: SocketAddr, federation: &str, name: &str) -> RtiAmbassador {
    let model = model();
    let deadline = Instant::now() + WAIT;
    loop {
        let config = RtiConfig::new(NodeConfig::child_of(name, federation, Endpoint::Tcp(at)));
        let attempt = RtiAmbassador::connect(config).and_then(|mut rti| {
            let _ = rti.create_federation_execution(&model);
            rti.join_federation_execution(name, "lab", Arc::clone(&model))
                .map(|_| rti)
        });
        match attempt {
            Ok(rti) => return rti,
            Err(e) if Instant::now() < deadline => {
                eprintln!("{name}: join failed, again: {e}");
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => panic!("{name} could not join {federation} at {at}: {e}"),
        }
    }
}

fn start_router(lab: &Lab, site: usize, extra: &[&str]) -> (Child, SocketAddr) {
    let address = SocketAddr::from((lab.site_address(site), 7000));
    let child = lab
        .command(site, TRELLIS)
        .args(["router", "--listen", &format!("tcp://{address}")])
        .args(extra)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let SocketAddr::V4(v4) = address else {
        unreachable!()
    };
    probe::wait_listening(lab, site, v4, WAIT).unwrap();
    (child, address)
}

enum ToSender {
    StopWarmUp,
    Go,
    Done,
}

/// The sender: warm-up updates until told to stop (so receivers know the object), then
/// `UPDATES` updates of `PAYLOAD` bytes, then calls in until told it is over.
fn sender(mut rti: RtiAmbassador, orders: Receiver<ToSender>, stopped: SyncSender<()>) {
    let vehicle = rti.object_class_handle("Vehicle").unwrap();
    let name = rti.attribute_handle(vehicle, "Name").unwrap();
    rti.publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    let object = rti.register_object_instance(vehicle).unwrap();
    let warm_up = [0u8; 16];
    while orders.try_recv().is_err() {
        rti.update_attribute_values(object, &[(name, warm_up.as_slice())], b"")
            .unwrap();
        rti.evoke_multiple_callbacks(Duration::from_millis(20), 100)
            .unwrap();
    }
    stopped.send(()).unwrap();
    while !matches!(orders.try_recv(), Ok(ToSender::Go)) {
        rti.evoke_multiple_callbacks(Duration::from_millis(5), 100)
            .unwrap();
    }
    let measured = [1u8; PAYLOAD];
    for _ in 0..UPDATES {
        rti.update_attribute_values(object, &[(name, measured.as_slice())], b"")
            .unwrap();
        rti.evoke_callback(Duration::ZERO).unwrap();
    }
    while !matches!(orders.try_recv(), Ok(ToSender::Done)) {
        rti.evoke_multiple_callbacks(Duration::from_millis(5), 100)
            .unwrap();
    }
}

/// A receiver: says when it has reflected a warm-up, then counts measured updates.
fn receiver(mut rti: RtiAmbassador, warm: SyncSender<()>) -> usize {
    let vehicle = rti.object_class_handle("Vehicle").unwrap();
    let name = rti.attribute_handle(vehicle, "Name").unwrap();
    rti.subscribe_object_class_attributes(vehicle, &[name])
        .unwrap();
    let (mut warmed, mut measured) = (false, 0);
    let deadline = Instant::now() + WAIT;
    while measured < UPDATES && Instant::now() < deadline {
        for callback in rti
            .evoke_multiple_callbacks(Duration::from_millis(10), 1000)
            .unwrap()
        {
            let Callback::ReflectAttributeValues { values, .. } = callback else {
                continue;
            };
            for (_, value) in values {
                if value.len() == PAYLOAD {
                    measured += 1;
                } else if !warmed {
                    warmed = true;
                    warm.send(()).unwrap();
                }
            }
        }
    }
    measured
}

/// Bytes toward the receivers' site per update, the sender at `sender_at`, the receivers at
/// `receivers_at`.
fn bytes_per_update(
    lab: &Lab,
    federation: &str,
    sender_at: SocketAddr,
    receivers_at: SocketAddr,
) -> f64 {
    let (warm_tx, warm_rx) = sync_channel(RECEIVERS);
    let receivers: Vec<_> = (0..RECEIVERS)
        .map(|r| {
            let (warm, federation) = (warm_tx.clone(), federation.to_owned());
            lab.spawn_in_site(RECEIVER_SITE, move || {
                let rti = join(receivers_at, &federation, &format!("receiver-{r}"));
                Ok(receiver(rti, warm))
            })
            .unwrap()
        })
        .collect();
    let (order_tx, order_rx) = sync_channel(3);
    let (stopped_tx, stopped_rx) = sync_channel(1);
    let federation_name = federation.to_owned();
    let sending = lab
        .spawn_in_site(SENDER_SITE, move || {
            sender(
                join(sender_at, &federation_name, "sender"),
                order_rx,
                stopped_tx,
            );
            Ok(())
        })
        .unwrap();
    for _ in 0..RECEIVERS {
        warm_rx
            .recv_timeout(WAIT)
            .expect("every receiver hears the warm-up");
    }
    order_tx.send(ToSender::StopWarmUp).unwrap();
    stopped_rx.recv_timeout(WAIT).unwrap();
    let before = lab.bytes_toward(RECEIVER_SITE).unwrap();
    order_tx.send(ToSender::Go).unwrap();
    for receiver in receivers {
        assert_eq!(receiver.join().unwrap().unwrap(), UPDATES);
    }
    let after = lab.bytes_toward(RECEIVER_SITE).unwrap();
    order_tx.send(ToSender::Done).unwrap();
    sending.join().unwrap().unwrap();
    (after - before) as f64 / UPDATES as f64
}

#[test]
fn a_hierarchy_sends_each_update_across_the_site_link_once() {
    assert!(
        trellis_lab::is_root(),
        "this test builds network namespaces and must run as root"
    );
    let lab = Lab::build(LabSpec::parse(LAB, "hierarchy.toml".as_ref()).unwrap()).unwrap();
    let (top, top_at) = start_router(&lab, SENDER_SITE, &["--name", "top"]);
    let parent = format!("tcp://{top_at}");
    let (leaf, leaf_at) = start_router(
        &lab,
        RECEIVER_SITE,
        &["--name", "leaf", "--parent", &parent],
    );

    let pid = std::process::id();
    let hierarchical = bytes_per_update(&lab, &format!("hier-{pid}"), top_at, leaf_at);
    let across = bytes_per_update(&lab, &format!("across-{pid}"), top_at, top_at);
    eprintln!(
        "bytes toward the receivers' site per {PAYLOAD}-byte update, {RECEIVERS} receivers: \
         hierarchical {hierarchical:.0}, receivers across the link {across:.0}"
    );
    let stats = lab.stop().unwrap();
    for mut router in [top, leaf] {
        let _ = router.kill();
        router.wait().unwrap();
    }
    eprintln!("relay: {stats:?}");
    let payload = PAYLOAD as f64;
    assert!(
        (payload..1.5 * payload).contains(&hierarchical),
        "hierarchical: {hierarchical:.0} bytes per update, expected one copy"
    );
    let per_receiver = RECEIVERS as f64 * payload;
    assert!(
        (per_receiver..1.5 * per_receiver).contains(&across),
        "across: {across:.0} bytes per update, expected one copy per receiver"
    );
}
