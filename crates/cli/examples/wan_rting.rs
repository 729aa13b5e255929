//! RTI-NG's WAN case in the site lab (needs root): one sender in site `sender`, 1–15 receivers
//! in site `receivers`, across slow site links, for three interconnects:
//!
//! - collocated: every federate attached to one router in the sender's site (the sender's
//!   side explodes each update to every receiver, as a fully connected RTI-NG federate does);
//! - centralized: one router in a third site `central` (RTI-NG's distribution node in the
//!   fedex process, on some other host's LAN);
//! - hierarchical: a router per site, the receivers' router a child of the sender's.
//!
//! Each interconnect runs once per bundling setting (`--bundling off,5,20`: the paper's no
//! bundling, 5 ms and 20 ms timeouts). A setting applies to every link an update takes: the
//! sender's own link to its router and each router's links (`trellis router --bundling`),
//! so a lone update waits the delay at every hop: twice when collocated or centralized
//! (the sender's link, then the router's link to the receiver), three times hierarchical.
//!
//! Per case: bytes the wan namespace sent into the receivers' site per update (the veth's
//! counter, during the throughput phase), each receiver's update rate while the sender sends
//! as fast as it can, and the one-way latency of paced updates (threads of this process, one
//! clock). Writes a results folder `trellis report` draws.
//!
//! `cargo run -p trellis-cli --example wan_rting -- --trellis target/debug/trellis --out DIR
//!  [--receivers 1,6,15] [--updates 300] [--payload 1000] [--delay-ms 20] [--mbit 10]
//!  [--bundling off,5,20]`

use anyhow::{anyhow, bail, Context, Result};
use std::net::{SocketAddr, SocketAddrV4};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use trellis_core::federate::Callback;
use trellis_core::fom::ObjectModel;
use trellis_lab::{probe, Lab, LabSpec};
use trellis_net::rti::{RtiAmbassador, RtiConfig};
use trellis_net::{Endpoint, NodeConfig};
use trellis_tools::bench::Bundling;
use trellis_tools::wan::{write_study, LinkModel, RtingCase, RtingSummary, StudyMeta};

/// Bound on every wait (joins across slow links, a phase's deliveries).
const WAIT: Duration = Duration::from_secs(90);
/// Paced updates of the latency phase, and the gap between them.
const LATENCY_UPDATES: usize = 20;
const LATENCY_GAP: Duration = Duration::from_millis(50);
const SENDER: usize = 0;
const RECEIVERS: usize = 1;
const CENTRAL: usize = 2;
/// The first payload byte says which phase an update belongs to.
const WARM_UP: u8 = 0;
const THROUGHPUT: u8 = 1;
const LATENCY: u8 = 2;

struct Options {
    trellis: PathBuf,
    out: PathBuf,
    receivers: Vec<usize>,
    updates: usize,
    payload: usize,
    delay_ms: f64,
    mbit: f64,
    bundling: Vec<Bundling>,
}

fn options() -> Result<Options> {
    let mut o = Options {
        trellis: PathBuf::new(),
        out: PathBuf::new(),
        receivers: vec![1, 6, 15],
        updates: 300,
        payload: 1000,
        delay_ms: 20.0,
        mbit: 10.0,
        bundling: vec![
            Bundling::Off,
            Bundling::Fixed(Duration::from_millis(5)),
            Bundling::Fixed(Duration::from_millis(20)),
        ],
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .ok_or_else(|| anyhow!("{flag}: needs a value"))?;
        let bad = |e: &dyn std::fmt::Display| anyhow!("{flag} {value:?}: {e}");
        match flag.as_str() {
            "--trellis" => o.trellis = value.into(),
            "--out" => o.out = value.into(),
            "--receivers" => {
                o.receivers = value
                    .split(',')
                    .map(|n| n.parse().map_err(|e| bad(&e)))
                    .collect::<Result<_>>()?
            }
            "--updates" => o.updates = value.parse().map_err(|e| bad(&e))?,
            "--payload" => o.payload = value.parse().map_err(|e| bad(&e))?,
            "--delay-ms" => o.delay_ms = value.parse().map_err(|e| bad(&e))?,
            "--mbit" => o.mbit = value.parse().map_err(|e| bad(&e))?,
            "--bundling" => {
                o.bundling = value
                    .split(',')
                    .map(|b| b.parse().map_err(|e: String| bad(&e)))
                    .collect::<Result<_>>()?
            }
            _ => bail!("unknown option {flag}"),
        }
    }
    if o.trellis.as_os_str().is_empty() || o.out.as_os_str().is_empty() {
        bail!("give --trellis PATH (the trellis binary for the routers) and --out DIR");
    }
    if o.payload < 9 {
        bail!(
            "--payload {}: at least 9 bytes (phase and send time)",
            o.payload
        );
    }
    Ok(o)
}

fn lab_text(o: &Options) -> String {
    let mut text = String::new();
    for site in ["sender", "receivers", "central"] {
        text.push_str(&format!("[[site]]\nname = \"{site}\"\n"));
    }
    for (a, b) in [
        ("sender", "receivers"),
        ("sender", "central"),
        ("central", "receivers"),
    ] {
        text.push_str(&format!(
            "[[link]]\nsites = [\"{a}\", \"{b}\"]\ndelay_ms = {}\nbandwidth_mbit = {}\n",
            o.delay_ms, o.mbit
        ));
    }
    text
}

fn model() -> Arc<ObjectModel> {
    let fom = include_str!("../../../foms/trellis-demo.xml");
    Arc::new(ObjectModel::from_sources(&[("demo.xml", fom)]).expect("the demo FOM parses"))
}

/// Join `federation` through the router at `at`, retrying while its registry is not yet
/// reachable (a child router may still be linking to its parent). The federate's own link
/// bundles as `bundling` says.
fn join(at: SocketAddr, federation: &str, name: &str, bundling: Bundling) -> Result<RtiAmbassador> {
    let model = model();
    let deadline = Instant::now() + WAIT;
    loop {
        let mut node = NodeConfig::child_of(name, federation, Endpoint::Tcp(at));
        node.link = bundling.link_config();
        let config = RtiConfig::new(node);
        let attempt = RtiAmbassador::connect(config).and_then(|mut rti| {
            let _ = rti.create_federation_execution(&model);
            rti.join_federation_execution(name, "wan", Arc::clone(&model))
                .map(|_| rti)
        });
        match attempt {
            Ok(rti) => return Ok(rti),
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => bail!("{name} could not join {federation} at {at}: {e}"),
        }
    }
}

fn start_router(lab: &Lab, o: &Options, site: usize, port: u16, extra: &[&str]) -> Result<Child> {
    let address = SocketAddrV4::new(lab.site_address(site), port);
    let child = lab
        .command(site, &o.trellis)
        .args(["router", "--listen", &format!("tcp://{address}")])
        .args(extra)
        .env("TRELLIS_LOG", "warn")
        .stdout(Stdio::null())
        .spawn()
        .with_context(|| format!("starting a router at {address}"))?;
    probe::wait_listening(lab, site, address, WAIT)
        .with_context(|| format!("the router at {address}"))?;
    Ok(child)
}

enum Order {
    StopWarmUp,
    Throughput,
    Latency,
    Done,
}

/// Nanoseconds since `epoch`, the clock every thread of this process shares.
fn since(epoch: Instant) -> u64 {
    epoch.elapsed().as_nanos() as u64
}

fn update(phase: u8, epoch: Instant, payload: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; payload];
    bytes[0] = phase;
    bytes[1..9].copy_from_slice(&since(epoch).to_le_bytes());
    bytes
}

/// The sender: warm-up updates until told to stop (so every receiver knows the object), then
/// the throughput phase as fast as it can, then paced latency updates, each on order.
fn sender(
    mut rti: RtiAmbassador,
    o: (usize, usize),
    epoch: Instant,
    orders: Receiver<Order>,
    stopped: SyncSender<()>,
) -> Result<()> {
    let (updates, payload) = o;
    let vehicle = rti.object_class_handle("Vehicle")?;
    let name = rti.attribute_handle(vehicle, "Name")?;
    rti.publish_object_class_attributes(vehicle, &[name])?;
    let object = rti.register_object_instance(vehicle)?;
    while orders.try_recv().is_err() {
        let warm = update(WARM_UP, epoch, 16);
        rti.update_attribute_values(object, &[(name, warm.as_slice())], b"")?;
        rti.evoke_multiple_callbacks(Duration::from_millis(20), 100)?;
    }
    stopped.send(())?;
    loop {
        match orders.try_recv() {
            Ok(Order::Throughput) => {
                for _ in 0..updates {
                    let bytes = update(THROUGHPUT, epoch, payload);
                    rti.update_attribute_values(object, &[(name, bytes.as_slice())], b"")?;
                    rti.evoke_callback(Duration::ZERO)?;
                }
            }
            Ok(Order::Latency) => {
                for _ in 0..LATENCY_UPDATES {
                    let bytes = update(LATENCY, epoch, payload);
                    rti.update_attribute_values(object, &[(name, bytes.as_slice())], b"")?;
                    rti.evoke_multiple_callbacks(LATENCY_GAP, 100)?;
                }
            }
            Ok(Order::Done) => return Ok(()),
            _ => {
                rti.evoke_multiple_callbacks(Duration::from_millis(5), 100)?;
            }
        }
    }
}

/// What one receiver measured.
struct Heard {
    throughput: usize,
    /// When its last throughput update arrived, since the epoch.
    last_ns: u64,
    latencies_ns: Vec<u64>,
}

/// A receiver: says when it reflected a warm-up and when it has every throughput update,
/// then collects the latency phase.
fn receiver(
    mut rti: RtiAmbassador,
    o: (usize, usize),
    epoch: Instant,
    warm: SyncSender<()>,
    through: SyncSender<()>,
) -> Result<Heard> {
    let (updates, payload) = o;
    let vehicle = rti.object_class_handle("Vehicle")?;
    let name = rti.attribute_handle(vehicle, "Name")?;
    rti.subscribe_object_class_attributes(vehicle, &[name])?;
    let mut heard = Heard {
        throughput: 0,
        last_ns: 0,
        latencies_ns: Vec::new(),
    };
    let (mut warmed, mut said_through) = (false, false);
    let deadline = Instant::now() + WAIT;
    while heard.latencies_ns.len() < LATENCY_UPDATES && Instant::now() < deadline {
        // One callback at a time, timed as it arrives: evoke_multiple_callbacks would gather
        // for its whole wait and stamp them all late.
        if let Some(Callback::ReflectAttributeValues { values, .. }) =
            rti.evoke_callback(Duration::from_millis(10))?
        {
            for (_, value) in values {
                let now = since(epoch);
                match value.first() {
                    Some(&THROUGHPUT) if value.len() == payload => {
                        heard.throughput += 1;
                        heard.last_ns = now;
                    }
                    Some(&LATENCY) if value.len() == payload => {
                        let sent = u64::from_le_bytes(value[1..9].try_into().expect("8 bytes"));
                        heard.latencies_ns.push(now.saturating_sub(sent));
                    }
                    _ if !warmed => {
                        warmed = true;
                        warm.send(())?;
                    }
                    _ => {}
                }
            }
        }
        if heard.throughput == updates && !said_through {
            said_through = true;
            through.send(())?;
        }
    }
    Ok(heard)
}

struct Interconnect {
    topology: &'static str,
    routers: &'static str,
    sender_at: SocketAddr,
    receivers_at: SocketAddr,
}

fn run_case(
    lab: &Lab,
    o: &Options,
    ic: &Interconnect,
    bundling: Bundling,
    receivers: usize,
) -> Result<RtingCase> {
    let federation = format!(
        "{}-{}-{receivers}-{}",
        ic.topology,
        bundling.label(),
        std::process::id()
    );
    let epoch = Instant::now();
    let shape = (o.updates, o.payload);
    let (warm_tx, warm_rx) = sync_channel(receivers);
    let (through_tx, through_rx) = sync_channel(receivers);
    let listening: Vec<_> = (0..receivers)
        .map(|r| {
            let (warm, through) = (warm_tx.clone(), through_tx.clone());
            let (federation, at) = (federation.clone(), ic.receivers_at);
            lab.spawn_in_site(RECEIVERS, move || {
                let run = || {
                    receiver(
                        join(at, &federation, &format!("receiver-{r}"), bundling)?,
                        shape,
                        epoch,
                        warm,
                        through,
                    )
                };
                run().map_err(|e| trellis_lab::LabError::Io {
                    what: format!("receiver-{r}: {e:#}"),
                    source: std::io::ErrorKind::Other.into(),
                })
            })
        })
        .collect::<Result<_, _>>()?;
    let (order_tx, order_rx) = sync_channel(4);
    let (stopped_tx, stopped_rx) = sync_channel(1);
    let (federation_name, at) = (federation.clone(), ic.sender_at);
    let sending = lab.spawn_in_site(SENDER, move || {
        let run = || {
            sender(
                join(at, &federation_name, "sender", bundling)?,
                shape,
                epoch,
                order_rx,
                stopped_tx,
            )
        };
        run().map_err(|e| trellis_lab::LabError::Io {
            what: format!("sender: {e:#}"),
            source: std::io::ErrorKind::Other.into(),
        })
    })?;
    for _ in 0..receivers {
        warm_rx.recv_timeout(WAIT).map_err(|_| {
            anyhow!("{federation}: not every receiver heard the sender within {WAIT:?}")
        })?;
    }
    order_tx.send(Order::StopWarmUp)?;
    stopped_rx.recv_timeout(WAIT)?;
    let before = lab.bytes_toward(RECEIVERS)?;
    let started = since(epoch);
    order_tx.send(Order::Throughput)?;
    let mut complete = true;
    for _ in 0..receivers {
        if through_rx.recv_timeout(WAIT).is_err() {
            complete = false;
            break;
        }
    }
    let after = lab.bytes_toward(RECEIVERS)?;
    order_tx.send(Order::Latency)?;
    let mut heard = Vec::new();
    for handle in listening {
        heard.push(
            handle
                .join()
                .map_err(|_| anyhow!("a receiver panicked"))??,
        );
    }
    order_tx.send(Order::Done)?;
    sending
        .join()
        .map_err(|_| anyhow!("the sender panicked"))??;
    let rates: Vec<f64> = heard
        .iter()
        .map(|h| h.throughput as f64 / ((h.last_ns.saturating_sub(started)) as f64 / 1e9))
        .collect();
    let latencies: Vec<u64> = heard.iter().flat_map(|h| h.latencies_ns.clone()).collect();
    let received: usize = heard.iter().map(|h| h.throughput).sum();
    if !complete {
        eprintln!(
            "{federation}: {received} of {} throughput updates arrived within {WAIT:?}",
            receivers * o.updates
        );
    }
    let bytes = after - before;
    Ok(RtingCase {
        topology: ic.topology.to_owned(),
        routers: ic.routers.to_owned(),
        bundling: bundling.label(),
        receivers: receivers as u64,
        site_link_bytes: bytes,
        bytes_per_update: bytes as f64 / o.updates as f64,
        receiver_rate_mean: rates.iter().sum::<f64>() / rates.len() as f64,
        receiver_rate_min: rates.iter().copied().fold(f64::INFINITY, f64::min),
        received: received as u64,
        latency_mean_us: (!latencies.is_empty())
            .then(|| latencies.iter().sum::<u64>() as f64 / latencies.len() as f64 / 1e3),
        latency_max_us: latencies.iter().max().map(|&ns| ns as f64 / 1e3),
    })
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The four routers every interconnect needs, bundling as `bundling` says, on ports of
/// their own for setting number `index` (a stopped set leaves its ports to no one).
fn start_routers(lab: &Lab, o: &Options, bundling: Bundling, index: u16) -> Result<Vec<Child>> {
    let port = 7000 + 10 * index;
    let label = bundling.label();
    let with = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["--bundling".to_owned(), label.clone()];
        args.extend(extra.iter().map(|a| a.to_string()));
        args
    };
    let top = format!(
        "tcp://{}",
        SocketAddr::from((lab.site_address(SENDER), port + 1))
    );
    let mut routers = Vec::new();
    for (site, port, extra) in [
        (SENDER, port, with(&[])),
        (CENTRAL, port, with(&[])),
        (SENDER, port + 1, with(&["--name", "top"])),
        (
            RECEIVERS,
            port + 1,
            with(&["--name", "leaf", "--parent", &top]),
        ),
    ] {
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        match start_router(lab, o, site, port, &extra) {
            Ok(child) => routers.push(child),
            Err(e) => {
                stop_routers(&mut routers);
                return Err(e);
            }
        }
    }
    Ok(routers)
}

fn stop_routers(routers: &mut Vec<Child>) {
    for router in routers.iter_mut() {
        let _ = router.kill();
        let _ = router.wait();
    }
    routers.clear();
}

fn interconnects(lab: &Lab, index: u16) -> [Interconnect; 3] {
    let port = 7000 + 10 * index;
    let at = |site: usize, port: u16| SocketAddr::from((lab.site_address(site), port));
    [
        Interconnect {
            topology: "collocated",
            routers: "one, in the sender's site",
            sender_at: at(SENDER, port),
            receivers_at: at(SENDER, port),
        },
        Interconnect {
            topology: "centralized",
            routers: "one, in a third site",
            sender_at: at(CENTRAL, port),
            receivers_at: at(CENTRAL, port),
        },
        Interconnect {
            topology: "hierarchical",
            routers: "one per site, the receivers' a child of the sender's",
            sender_at: at(SENDER, port + 1),
            receivers_at: at(RECEIVERS, port + 1),
        },
    ]
}

/// Every interconnect and receiver count under each bundling setting, in order, until the
/// first failure: the cases measured, and the failure if there was one.
fn run_all(lab: &Lab, o: &Options) -> (Vec<RtingCase>, Result<()>) {
    let mut cases = Vec::new();
    for (index, &bundling) in o.bundling.iter().enumerate() {
        let index = index as u16;
        let mut routers = match start_routers(lab, o, bundling, index) {
            Ok(routers) => routers,
            Err(e) => {
                return (
                    cases,
                    Err(e.context(format!("bundling {}", bundling.label()))),
                )
            }
        };
        for ic in &interconnects(lab, index) {
            for &n in &o.receivers {
                match run_case(lab, o, ic, bundling, n) {
                    Ok(case) => {
                        eprintln!(
                            "{} bundling {}, {n} receivers: {:.0} bytes per update across the site link, {:.0} updates/s per receiver (slowest {:.0}), latency {:.1} ms",
                            case.topology,
                            case.bundling,
                            case.bytes_per_update,
                            case.receiver_rate_mean,
                            case.receiver_rate_min,
                            case.latency_mean_us.unwrap_or(f64::NAN) / 1e3
                        );
                        cases.push(case);
                    }
                    Err(e) => {
                        stop_routers(&mut routers);
                        let what = format!(
                            "{} with {n} receivers, bundling {}",
                            ic.topology,
                            bundling.label()
                        );
                        return (cases, Err(e.context(what)));
                    }
                }
            }
        }
        stop_routers(&mut routers);
    }
    (cases, Ok(()))
}

fn main() -> Result<()> {
    let o = options()?;
    let started_unix = unix_now();
    let lab = Lab::build(LabSpec::parse(&lab_text(&o), "rting-wan.toml".as_ref())?)?;
    let (cases, outcome) = run_all(&lab, &o);
    let stats = lab.stop();
    eprintln!("relay: {stats:?}");
    let summary = RtingSummary {
        link: LinkModel {
            delay_ms: o.delay_ms,
            bandwidth_mbit: Some(o.mbit),
        },
        payload: o.payload as u64,
        updates: o.updates as u64,
        latency_updates: LATENCY_UPDATES as u64,
        cases,
    };
    let meta = StudyMeta {
        benchmark: trellis_tools::wan::RTING_BENCHMARK.to_owned(),
        command: std::env::args().collect::<Vec<_>>().join(" "),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        started_unix,
        finished_unix: unix_now(),
        complete: outcome.is_ok(),
    };
    write_study(&o.out, &meta, &summary)?;
    outcome
}
