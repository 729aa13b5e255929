//! BmThruput: one sender, N receivers. The sender's rate, each receiver's rate, losses;
//! swept over receiver counts (default 1, 3, 6, 9, 12, 15).

use super::human;
use super::network::{ids, Federation, Network, SETUP_TIMEOUT};
use super::results::Results;
use super::sweep::Sweep;
use super::{raw, Api, BenchError, Mode, Raw, Setup, Transport, DATA_ID, FIRST_SUBSCRIBER_ID};

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, ObjectId};
use trellis_core::fom::AttributeHandle;
use trellis_net::rti::{Driver, ResignAction, RtiAmbassador, SendOptions};
use trellis_net::Node;

pub const DEFAULT_SUBSCRIBERS: [usize; 6] = [1, 3, 6, 9, 12, 15];

#[derive(Clone, Debug)]
pub struct ThroughputOptions {
    pub setup: Setup,
    pub raw: Option<Raw>,
    /// With `raw`: every receiver's bytes go through the hairpin forwarder at this address
    /// (`trellis lab` starts one in the router's site), so the baseline crosses the network
    /// a router there would (see [`super::hairpin`]).
    pub raw_via: Option<std::net::SocketAddr>,
    pub size: usize,
    /// Seconds the sender sends, per case.
    pub seconds: f64,
    /// Receiver counts, one case each.
    pub subscribers: Vec<usize>,
    /// How the federates' nodes run (federate API only).
    pub driver: Driver,
    /// The MOM's part (federate API only).
    pub mom: MomLoad,
}

use super::mom_watcher::{MomLoad, MomWatcher};
pub use crate::results::throughput::{ThroughputCase, ThroughputSummary};

/// Counts of a running receiver, shared with the thread that reads its messages.
#[derive(Default)]
pub(crate) struct Counter {
    pub(crate) received: AtomicU64,
    /// Nanoseconds after the case's start of the latest receipt.
    pub(crate) last_nanos: AtomicU64,
}

impl Counter {
    pub(crate) fn record(&self, received: u64, start: Instant) {
        self.last_nanos
            .store(start.elapsed().as_nanos() as u64, Ordering::SeqCst);
        self.received.store(received, Ordering::SeqCst);
    }

    pub(crate) fn received(&self) -> u64 {
        self.received.load(Ordering::SeqCst)
    }

    pub(crate) fn elapsed(&self) -> Duration {
        Duration::from_nanos(self.last_nanos.load(Ordering::SeqCst))
    }
}

/// What one case measured before it is summed up.
pub(crate) struct Outcome {
    pub(crate) sent: u64,
    pub(crate) send_time: Duration,
    /// Per receiver: received and the time of the last receipt, from the case's start.
    pub(crate) receivers: Vec<(u64, Duration)>,
}

pub fn run(
    options: &ThroughputOptions,
    results: &Results,
) -> Result<ThroughputSummary, BenchError> {
    if options.subscribers.contains(&0) || options.subscribers.is_empty() {
        return Err(BenchError::Failed(
            "every case needs at least one receiver".into(),
        ));
    }
    let setup = &options.setup;
    run_cases(options, results, |n| match (options.raw, setup.api) {
        (Some(raw), _) => raw::throughput(raw, options, n),
        (None, Api::Node) => nodes(options, n),
        (None, Api::Federate) => federates(options, n, results),
    })
}

/// Run every case with `outcome` (what one case with `n` receivers measured, wherever its
/// federates run) and write the summary and table as cases finish.
pub(crate) fn run_cases(
    options: &ThroughputOptions,
    results: &Results,
    mut outcome: impl FnMut(usize) -> Result<Outcome, BenchError>,
) -> Result<ThroughputSummary, BenchError> {
    let setup = &options.setup;
    let mode = match options.raw {
        None => Mode::Trellis,
        Some(Raw::Tcp) => Mode::RawTcp,
        Some(Raw::Udp) => Mode::RawUdp,
    };
    let mut summary = ThroughputSummary {
        mode,
        api: setup.api,
        transport: setup.transport,
        size: options.size,
        cases: Vec::new(),
        subscribers: 0,
        msgs_per_sec: 0.0,
        sent: 0,
        received: 0,
        lost: 0,
        clock: None,
    };
    let mut sweep = Sweep::new(
        results,
        setup,
        "throughput cases",
        options.subscribers.len(),
        "throughput.csv",
        &[
            "subscribers",
            "size",
            "sent",
            "received",
            "lost",
            "sender_msgs_per_sec",
            "msgs_per_sec",
        ],
    );
    for &n in &options.subscribers {
        if sweep.stopped() {
            break;
        }
        let outcome = outcome(n)?;
        let case = case(options, n, &outcome);
        let row = vec![
            n.to_string(),
            options.size.to_string(),
            case.sent.to_string(),
            case.received.to_string(),
            case.lost.to_string(),
            format!("{:.1}", case.sender_msgs_per_sec),
            format!("{:.1}", case.msgs_per_sec),
        ];
        summary.cases.push(case);
        let first = &summary.cases[0];
        (
            summary.subscribers,
            summary.msgs_per_sec,
            summary.sent,
            summary.received,
            summary.lost,
        ) = (
            first.subscribers,
            first.msgs_per_sec,
            first.sent,
            first.received,
            first.lost,
        );
        sweep.record(&summary, row)?;
    }
    Ok(summary)
}

fn case(options: &ThroughputOptions, subscribers: usize, outcome: &Outcome) -> ThroughputCase {
    let rates: Vec<f64> = outcome
        .receivers
        .iter()
        .map(|(received, elapsed)| *received as f64 / elapsed.as_secs_f64().max(1e-9))
        .collect();
    let received: u64 = outcome.receivers.iter().map(|(r, _)| r).sum();
    let msgs_per_sec = rates.iter().sum::<f64>() / rates.len().max(1) as f64;
    ThroughputCase {
        subscribers,
        size: options.size,
        seconds: options.seconds,
        sent: outcome.sent,
        received,
        lost: (outcome.sent * subscribers as u64).saturating_sub(received),
        sender_msgs_per_sec: outcome.sent as f64 / outcome.send_time.as_secs_f64().max(1e-9),
        msgs_per_sec,
        per_subscriber_msgs_per_sec: rates,
        payload_mb_per_sec: msgs_per_sec * options.size as f64 / 1e6,
    }
}

/// Send with `send` for the configured time, 256 messages between clock reads.
pub(crate) fn send_for(
    seconds: f64,
    mut send: impl FnMut() -> Result<(), BenchError>,
) -> Result<(u64, Duration), BenchError> {
    let duration = Duration::from_secs_f64(seconds);
    let began = Instant::now();
    let mut sent = 0u64;
    while began.elapsed() < duration {
        for _ in 0..256 {
            send()?;
            sent += 1;
        }
    }
    Ok((sent, began.elapsed()))
}

fn nodes(options: &ThroughputOptions, n: usize) -> Result<Outcome, BenchError> {
    let network = Network::start(&options.setup)?;
    let places = network.attachments().take(n + 1)?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut subscribers = Vec::new();
    for (i, place) in places[1..].iter().enumerate() {
        let node = network.node(place)?;
        node.subscribe(&ids([DATA_ID, FIRST_SUBSCRIBER_ID + i as u32]))?;
        subscribers.push(node);
    }
    let publisher = network.node(&places[0])?;
    let every = ids((0..n as u32).map(|i| FIRST_SUBSCRIBER_ID + i));
    publisher.wait_for_network_interest(&every, SETUP_TIMEOUT)?;
    let start = Instant::now();
    let counters: Vec<Arc<Counter>> = (0..n).map(|_| Arc::default()).collect();
    // Named, so a profile tells the application threads from each other and from the nodes'.
    let readers = subscribers
        .into_iter()
        .zip(&counters)
        .enumerate()
        .map(|(i, (node, counter))| {
            let (counter, stop) = (counter.clone(), stop.clone());
            std::thread::Builder::new()
                .name(format!("reader-{}", i + 1))
                .spawn(move || read_node(&node, &counter, &stop, start))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let payload = vec![0xA5u8; options.size];
    let class = options.setup.transport.class();
    let (sent, send_time) = send_for(options.seconds, || {
        Ok(publisher.publish(&[DATA_ID], class, &payload)?)
    })?;
    wait_for_drain(&counters, &vec![sent; n], options.setup.transport, pause);
    stop.store(true, Ordering::SeqCst);
    for reader in readers {
        let _ = reader.join();
    }
    Ok(Outcome {
        sent,
        send_time,
        receivers: counters
            .iter()
            .map(|c| (c.received(), c.elapsed()))
            .collect(),
    })
}

fn read_node(node: &Node, counter: &Counter, stop: &AtomicBool, start: Instant) {
    let mut received = 0u64;
    while !stop.load(Ordering::Relaxed) {
        match node.recv_timeout(Duration::from_millis(20)) {
            Ok(Some(_)) => {
                received += 1;
                // Shared counters in batches: an atomic store per message slows the reader.
                if received % 64 == 0 {
                    counter.record(received, start);
                }
            }
            Ok(None) => {
                if counter.received() != received {
                    counter.record(received, start);
                }
            }
            Err(_) => break,
        }
    }
    if counter.received() != received {
        counter.record(received, start);
    }
}

/// Wait until every receiver has what it should (reliable) or nothing more arrives for a
/// while, within a bound. Reliable traffic gets a longer silence (5 s, against 1 s for best
/// effort): on a loaded machine a one-second pause is not a loss, and counting the tail that
/// had not arrived yet as lost (53,114 in one run under load 16) misreports it.
/// `idle` passes a few milliseconds between looks: a sleep, or a sender's tick.
pub(crate) fn wait_for_drain(
    counters: &[Arc<Counter>],
    expected: &[u64],
    transport: Transport,
    mut idle: impl FnMut(),
) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let quiet_limit = match transport {
        Transport::Reliable => Duration::from_secs(5),
        Transport::BestEffort => Duration::from_secs(1),
    };
    let mut last_total = u64::MAX;
    let mut quiet_since = Instant::now();
    while Instant::now() < deadline {
        let counts: Vec<u64> = counters.iter().map(|c| c.received()).collect();
        if transport == Transport::Reliable && counts.iter().zip(expected).all(|(c, e)| c >= e) {
            return;
        }
        let total: u64 = counts.iter().sum();
        if total != last_total {
            last_total = total;
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() > quiet_limit {
            return;
        }
        idle();
    }
}

/// Wait between looks at the receivers' counts when nothing needs driving.
pub(crate) fn pause() {
    std::thread::sleep(DRAIN_POLL);
}

const DRAIN_POLL: Duration = Duration::from_millis(5);

/// First byte of a warm-up update's value; measured updates carry `MEASURED`.
const WARMUP: u8 = 0;
const MEASURED: u8 = 1;

/// The same workload through HLA services: one federate updates one attribute of one
/// object, the others reflect it. A warm-up runs until every receiver reflected once, so
/// the measured run starts with all subscriptions in place; only measured updates count.
/// Resigns come after the measurement: one that fails is a fault on `results`, and the
/// case keeps what it measured.
fn federates(
    options: &ThroughputOptions,
    n: usize,
    results: &Results,
) -> Result<Outcome, BenchError> {
    let network = Network::start(&options.setup)?;
    // The sender, the receivers, and the MOM watcher when there is one.
    let watched = options.mom == MomLoad::Watched;
    let places = network.attachments().take(n + 1 + usize::from(watched))?;
    let federation = network.federation(&places[0])?;
    let start = Instant::now();
    let mom = options.mom != MomLoad::Off;
    let mut receivers = Vec::new();
    for place in &places[1..=n] {
        let driver = options.driver;
        receivers.push(Receiver::join(
            &network,
            &federation,
            place,
            start,
            driver,
            mom,
        )?);
    }
    let (size, transport) = (options.size, options.setup.transport);
    let mut sender = Sender::join(
        &network,
        &federation,
        &places[0],
        size,
        transport,
        options.driver,
        mom,
    )?;
    let watcher = match options.mom {
        MomLoad::Watched => Some(MomWatcher::join(&network, &federation, &places[n + 1])?),
        MomLoad::Off | MomLoad::Idle => None,
    };
    sender.warm_up(|| receivers.iter().all(Receiver::warmed))?;
    let measured_from = start.elapsed();
    let (sent, send_time) = sender.send_measured(options.seconds)?;
    let counters: Vec<Arc<Counter>> = receivers.iter().map(|r| r.counter.clone()).collect();
    // The sender ticks while the receivers drain, as an HLA federate keeps ticking: a node
    // driven on its thread writes what it held to bundle, or what the network pushed back.
    wait_for_drain(&counters, &vec![sent; n], options.setup.transport, || {
        sender.tick(DRAIN_POLL)
    });
    for (i, receiver) in receivers.into_iter().enumerate() {
        let resigned = receiver.finish()?;
        results.after_measurement(&format!("receiver-{}", i + 1), "resign", resigned);
    }
    results.after_measurement("sender", "resign", sender.resign());
    if let Some(watcher) = watcher {
        let reports = watcher.finish()?;
        tracing::info!("the MOM watcher reflected {reports} reports");
        if reports == 0 {
            results.fault("the MOM watcher got no report: the run was not watched");
        }
    }
    Ok(Outcome {
        sent,
        send_time,
        receivers: counters
            .iter()
            .map(|c| (c.received(), c.elapsed().saturating_sub(measured_from)))
            .collect(),
    })
}

/// A receiving federate: a thread reflects and counts measured updates until finished.
pub(crate) struct Receiver {
    pub(crate) counter: Arc<Counter>,
    warmed: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<ReflectOutcome>,
}

type ReflectOutcome = Result<Result<(), trellis_net::rti::RtiError>, BenchError>;

impl Receiver {
    /// Join at `place` and subscribe; receipt times count from `start`.
    pub(crate) fn join(
        network: &Network,
        federation: &Federation,
        place: &str,
        start: Instant,
        driver: Driver,
        mom: bool,
    ) -> Result<Receiver, BenchError> {
        let mut rti = network.federate(federation, place, driver, mom)?;
        let vehicle = rti.object_class_handle("Vehicle")?;
        let name = rti.attribute_handle(vehicle, "Name")?;
        rti.subscribe_object_class_attributes(vehicle, &[name])?;
        let counter: Arc<Counter> = Arc::default();
        let warmed: Arc<AtomicBool> = Arc::default();
        let stop: Arc<AtomicBool> = Arc::default();
        let (c, w, s) = (counter.clone(), warmed.clone(), stop.clone());
        // Named, so a profile tells the application thread from its node's.
        let thread = std::thread::Builder::new()
            .name(format!("{place}-app"))
            .spawn(move || {
                reflect(&mut rti, &c, &w, &s, start)
                    .map(|()| rti.resign_federation_execution(ResignAction::default()))
            })?;
        Ok(Receiver {
            counter,
            warmed,
            stop,
            thread,
        })
    }

    /// It reflected a warm-up update: its subscription is in place.
    pub(crate) fn warmed(&self) -> bool {
        self.warmed.load(Ordering::SeqCst)
    }

    /// Stop reflecting and resign; the outer error is the thread's, the inner the resign's.
    pub(crate) fn finish(self) -> ReflectOutcome {
        self.stop.store(true, Ordering::SeqCst);
        self.thread
            .join()
            .map_err(|_| BenchError::Failed("receiver thread panicked".into()))?
    }
}

/// The sending federate: one object whose Name it updates.
pub(crate) struct Sender {
    rti: RtiAmbassador,
    object: ObjectId,
    name: AttributeHandle,
    value: Vec<u8>,
    transport: Transport,
}

impl Sender {
    pub(crate) fn join(
        network: &Network,
        federation: &Federation,
        place: &str,
        size: usize,
        transport: Transport,
        driver: Driver,
        mom: bool,
    ) -> Result<Sender, BenchError> {
        let mut rti = network.federate(federation, place, driver, mom)?;
        let vehicle = rti.object_class_handle("Vehicle")?;
        let name = rti.attribute_handle(vehicle, "Name")?;
        rti.publish_object_class_attributes(vehicle, &[name])?;
        let object = rti.register_object_instance(vehicle)?;
        Ok(Sender {
            rti,
            object,
            name,
            value: vec![WARMUP; size.max(1)],
            transport,
        })
    }

    fn update(&mut self) -> Result<(), BenchError> {
        let send = SendOptions {
            transport: Some(self.transport.class()),
            ..Default::default()
        };
        let values = [(self.name, self.value.as_slice())];
        Ok(self
            .rti
            .update_attribute_values_with(self.object, &values, b"", &send)?)
    }

    /// Send warm-up updates, one a millisecond, until `every_receiver_warmed` says so.
    pub(crate) fn warm_up(
        &mut self,
        mut every_receiver_warmed: impl FnMut() -> bool,
    ) -> Result<(), BenchError> {
        let deadline = Instant::now() + SETUP_TIMEOUT;
        self.value[0] = WARMUP;
        while !every_receiver_warmed() {
            if Instant::now() > deadline {
                return Err(BenchError::Failed(
                    "receivers reflected nothing during the warm-up".into(),
                ));
            }
            self.update()?;
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }

    /// The measured run: updates for `seconds`; how many and for how long.
    pub(crate) fn send_measured(&mut self, seconds: f64) -> Result<(u64, Duration), BenchError> {
        self.value[0] = MEASURED;
        send_for(seconds, || self.update())
    }

    /// Evoke for at most `wait`, driving the network. The sender subscribes to nothing, so
    /// no callback it might get is of interest, and a failure shows as a loss.
    fn tick(&mut self, wait: Duration) {
        let _ = self.rti.evoke_callback(wait);
    }

    pub(crate) fn resign(mut self) -> Result<(), trellis_net::rti::RtiError> {
        self.rti
            .resign_federation_execution(ResignAction::default())
    }
}

/// Count measured reflections until stopped; the caller resigns, after the measurement.
fn reflect(
    rti: &mut RtiAmbassador,
    counter: &Counter,
    warmed: &AtomicBool,
    stop: &AtomicBool,
    start: Instant,
) -> Result<(), BenchError> {
    let mut received = 0u64;
    while !stop.load(Ordering::Relaxed) {
        match rti.evoke_callback(Duration::from_millis(20))? {
            Some(callback) => {
                let measured = match &callback {
                    Callback::ReflectAttributeValues { values, .. } => {
                        Some(values.first().and_then(|(_, v)| v.first()) == Some(&MEASURED))
                    }
                    _ => None,
                };
                // Handed back, as the C ABI does: its list of values serves the next
                // reflect, and receiving allocates nothing.
                rti.recycle(callback);
                match measured {
                    Some(true) => {
                        received += 1;
                        if received % 64 == 0 {
                            counter.record(received, start);
                        }
                    }
                    Some(false) => warmed.store(true, Ordering::SeqCst),
                    None => {}
                }
            }
            None => {
                if counter.received() != received {
                    counter.record(received, start);
                }
            }
        }
    }
    if counter.received() != received {
        counter.record(received, start);
    }
    Ok(())
}

/// The summary for people.
pub fn table(s: &ThroughputSummary) -> String {
    let mut text = format!(
        "throughput ({}, {} B):",
        human::carrier(s.mode, s.api, Some(s.transport)),
        s.size
    );
    for c in &s.cases {
        text.push_str(&format!(
        "\n  {:>2} receiver(s): {:.0} msg/s each ({:.1} MB/s), sender {:.0} msg/s; sent {}, received {}, lost {}",
        c.subscribers, c.msgs_per_sec, c.payload_mb_per_sec, c.sender_msgs_per_sec, c.sent, c.received, c.lost
    ));
    }
    human::push_clock(&mut text, &s.clock);
    text
}
