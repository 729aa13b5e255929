//! The DIS gateway's throughput and latency with both directions loaded at once: a DIS
//! source sends Entity State PDUs to the gateway (counted as reflections at an HLA
//! federate), and an HLA federate updates vehicles (counted as Entity State PDUs at a DIS
//! sink). A router, the gateway and both sides run in this process, on loopback.
//!
//! ```sh
//! cargo run --release -p trellis-dis --example throughput -- [SECONDS] [RATE] [ENTITIES]
//! ```
//!
//! RATE is the offered rate per direction (PDUs or updates per second, default 20,000);
//! each sent value carries its send time in its x coordinate, so the receivers measure the
//! one-way latency through the gateway (and the router, for the HLA side).

use std::net::{SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_core::fom::ObjectModel;
use trellis_core::router::RouterConfig;
use trellis_core::wire::NodeId;
use trellis_dis::pdu::{self, Body, EntityId, EntityState, EntityType, Pdu};
use trellis_dis::rpr::{self, Spatial};
use trellis_dis::{Gateway, GatewayConfig};
use trellis_net::rti::{RtiAmbassador, RtiConfig};
use trellis_net::{Endpoint, HostConfig, NodeConfig, Runtime};

const FEDERATION: &str = "DisThroughput";
const VEHICLE: &str = "BaseEntity.PhysicalEntity.Platform.GroundVehicle";

fn rpr_modules() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fom/rpr-2.0");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    paths.sort();
    paths
}

/// Nanoseconds since `epoch`, as the x coordinate that carries it.
fn stamp(epoch: Instant) -> f64 {
    epoch.elapsed().as_nanos() as f64
}

struct Received {
    count: u64,
    latencies_us: Vec<f64>,
}

impl Received {
    fn new() -> Received {
        Received {
            count: 0,
            latencies_us: Vec::new(),
        }
    }

    fn take(&mut self, epoch: Instant, sent_ns: f64) {
        self.count += 1;
        if self.latencies_us.len() < 2_000_000 {
            self.latencies_us.push((stamp(epoch) - sent_ns) / 1000.0);
        }
    }

    fn summary(mut self, what: &str, seconds: f64, sent: u64) {
        self.latencies_us.sort_by(f64::total_cmp);
        let at = |q: f64| {
            let n = self.latencies_us.len();
            if n == 0 {
                return f64::NAN;
            }
            self.latencies_us[((n - 1) as f64 * q) as usize]
        };
        println!(
            "{what}: sent {sent}, received {} ({:.0}/s), latency µs p50 {:.0} p99 {:.0} max {:.0}",
            self.count,
            self.count as f64 / seconds,
            at(0.5),
            at(0.99),
            at(1.0)
        );
    }
}

/// Run `send(i)` `rate` times a second (in 1 ms batches) until `stop`; the number sent.
fn paced(rate: u64, stop: &AtomicBool, mut send: impl FnMut(u64)) -> u64 {
    let start = Instant::now();
    let mut sent = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let due = (start.elapsed().as_secs_f64() * rate as f64) as u64;
        while sent < due {
            send(sent);
            sent += 1;
        }
        std::thread::sleep(Duration::from_micros(500));
    }
    sent
}

fn dis_source(
    to: SocketAddr,
    rate: u64,
    entities: u16,
    epoch: Instant,
    stop: Arc<AtomicBool>,
) -> JoinHandle<u64> {
    std::thread::spawn(move || {
        let socket = UdpSocket::bind("127.0.0.1:0").expect("a source socket");
        let mut es = EntityState {
            entity_type: EntityType {
                kind: 1,
                domain: 1,
                country: 225,
                ..EntityType::default()
            },
            ..EntityState::default()
        };
        es.dead_reckoning.algorithm = 1; // static: x stays the send time
        paced(rate, &stop, |i| {
            es.id = EntityId {
                site: 11,
                application: 22,
                entity: 1 + (i % u64::from(entities)) as u16,
            };
            es.location = [stamp(epoch), 0.0, 0.0];
            let pdu = Pdu::new(1, 0, Body::EntityState(es.clone()));
            let _ = socket.send_to(&pdu.to_bytes(), to);
        })
    })
}

fn dis_sink(socket: UdpSocket, epoch: Instant, stop: Arc<AtomicBool>) -> JoinHandle<Received> {
    std::thread::spawn(move || {
        socket
            .set_read_timeout(Some(Duration::from_millis(50)))
            .expect("a read timeout");
        let mut received = Received::new();
        let mut buffer = [0u8; 2048];
        while !stop.load(Ordering::Relaxed) {
            let Ok(length) = socket.recv(&mut buffer) else {
                continue;
            };
            if let Ok((pdu, _)) = pdu::decode_one(&buffer[..length]) {
                if let Body::EntityState(es) = pdu.body {
                    received.take(epoch, es.location[0]);
                }
            }
        }
        received
    })
}

fn joined(router: &Endpoint, name: &str, model: &Arc<ObjectModel>) -> RtiAmbassador {
    let node = NodeConfig::child_of(name, FEDERATION, router.clone());
    let mut rti = RtiAmbassador::connect(RtiConfig::new(node)).expect("connect");
    let _ = rti.create_federation_execution(model);
    rti.join_federation_execution(name, "throughput", model.clone())
        .expect("join");
    rti
}

/// Counts reflections the gateway sent (tag "DIS") and their latency.
fn hla_consumer(
    router: Endpoint,
    model: Arc<ObjectModel>,
    epoch: Instant,
    stop: Arc<AtomicBool>,
    ready: Arc<AtomicBool>,
) -> JoinHandle<Received> {
    std::thread::spawn(move || {
        let mut rti = joined(&router, "consumer", &model);
        let physical = rti
            .object_class_handle("BaseEntity.PhysicalEntity")
            .expect("class");
        let spatial = rti.attribute_handle(physical, "Spatial").expect("Spatial");
        rti.subscribe_object_class_attributes(physical, &[spatial])
            .expect("subscribe");
        ready.store(true, Ordering::Relaxed);
        let mut received = Received::new();
        while !stop.load(Ordering::Relaxed) {
            let Ok(Some(callback)) = rti.evoke_callback(Duration::from_millis(10)) else {
                continue;
            };
            if let Callback::ReflectAttributeValues { values, tag, .. } = &callback {
                let value = values.iter().find(|(h, _)| *h == spatial);
                if let (b"DIS", Some((_, bytes))) = (tag.as_ref(), value) {
                    if let Ok(s) = Spatial::decode(bytes) {
                        received.take(epoch, s.location[0]);
                    }
                }
            }
            rti.recycle(callback);
        }
        received
    })
}

/// Updates `entities` vehicles round-robin at `rate`, x carrying the send time.
fn hla_producer(
    router: Endpoint,
    model: Arc<ObjectModel>,
    rate: u64,
    entities: u16,
    epoch: Instant,
    stop: Arc<AtomicBool>,
) -> JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut rti = joined(&router, "producer", &model);
        let vehicle = rti.object_class_handle(VEHICLE).expect("class");
        let names = ["EntityIdentifier", "EntityType", "Spatial"];
        let handles: Vec<_> = (names.iter())
            .map(|n| rti.attribute_handle(vehicle, n).expect("attribute"))
            .collect();
        rti.publish_object_class_attributes(vehicle, &handles)
            .expect("publish");
        let objects: Vec<_> = (0..entities)
            .map(|_| rti.register_object_instance(vehicle).expect("register"))
            .collect();
        let kind = rpr::encode_entity_type(EntityType {
            kind: 1,
            domain: 1,
            ..EntityType::default()
        });
        paced(rate, &stop, |i| {
            let n = (i % u64::from(entities)) as usize;
            let id = rpr::encode_entity_id(EntityId {
                site: 33,
                application: 44,
                entity: n as u16 + 1,
            });
            let spatial = Spatial {
                algorithm: 1,
                location: [stamp(epoch), 0.0, 0.0],
                ..Spatial::default()
            };
            let values = [
                (handles[0], id),
                (handles[1], kind.clone()),
                (handles[2], spatial.encode()),
            ];
            let _ = rti.update_attribute_values(objects[n], &values, b"");
            while let Ok(Some(callback)) = rti.evoke_callback(Duration::ZERO) {
                rti.recycle(callback);
            }
        })
    })
}

fn main() {
    let arg = |n: usize, default: u64| {
        std::env::args()
            .nth(n)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let (seconds, rate, entities) = (arg(1, 5), arg(2, 20_000), arg(3, 100) as u16);
    let runtime = Runtime::start("dis-throughput").expect("runtime");
    let mut router = RouterConfig::new("router", NodeId(1));
    router.hosts_registry = true;
    let mut host = HostConfig::new(router);
    host.listen
        .push("tcp://127.0.0.1:0".parse().expect("address"));
    let router = runtime.add_host(host).expect("router").listening()[0].clone();
    let model =
        Arc::new(ObjectModel::load(&rpr_modules(), &|p| std::fs::read(p)).expect("the RPR FOM"));

    let sink = UdpSocket::bind("127.0.0.1:0").expect("a sink socket");
    let gateway = Gateway::start(GatewayConfig {
        rti: router.to_string(),
        federation: FEDERATION.into(),
        federate_name: "gateway".into(),
        fom: rpr_modules(),
        listen: "127.0.0.1:0".parse().expect("address"),
        send_to: vec![sink.local_addr().expect("sink address")],
        broadcast: false,
        multicast: None,
        exercise: 1,
        site: 1,
        application: 1,
        heartbeat: Duration::from_secs(5),
        timeout: Duration::from_secs(12),
        max_entities: 100_000,
    })
    .expect("the gateway starts");
    let gateway_at = gateway.local_addr().expect("gateway address");
    let epoch = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let stop_gateway = Arc::new(AtomicBool::new(false));
    let gateway_thread = {
        let stop = stop_gateway.clone();
        std::thread::spawn(move || gateway.run(&stop, Duration::from_secs(3600), &mut |_| {}))
    };
    let ready = Arc::new(AtomicBool::new(false));
    let consumer = hla_consumer(
        router.clone(),
        model.clone(),
        epoch,
        stop.clone(),
        ready.clone(),
    );
    while !ready.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(500)); // interest crosses the router
    let sink = dis_sink(sink, epoch, stop.clone());
    let source = dis_source(gateway_at, rate, entities, epoch, stop.clone());
    let producer = hla_producer(router, model, rate, entities, epoch, stop.clone());
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    let (sent_in, sent_out) = (
        source.join().expect("source"),
        producer.join().expect("producer"),
    );
    let seconds = seconds as f64;
    consumer.join().expect("consumer").summary(
        "DIS -> HLA (Entity State -> reflect)",
        seconds,
        sent_in,
    );
    sink.join()
        .expect("sink")
        .summary("HLA -> DIS (update -> Entity State)", seconds, sent_out);
    stop_gateway.store(true, Ordering::Relaxed);
    match gateway_thread.join().expect("gateway") {
        Ok(counts) => println!("gateway: {counts}"),
        Err(e) => println!("gateway: {e}"),
    }
    runtime.shutdown();
}
