//! BmThruput: one sender, N receivers. The sender's rate, each receiver's rate, losses;
//! swept over receiver counts (default 1, 3, 6, 9, 12, 15).

use super::network::{ids, Network, SETUP_TIMEOUT};
use super::results::Results;
use super::{raw, Api, BenchError, Mode, Raw, Setup, Transport, DATA_ID, FIRST_SUBSCRIBER_ID};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_net::rti::{Driver, ResignAction, RtiAmbassador, SendOptions};
use trellis_net::Node;

pub const DEFAULT_SUBSCRIBERS: [usize; 6] = [1, 3, 6, 9, 12, 15];

#[derive(Clone, Debug)]
pub struct ThroughputOptions {
    pub setup: Setup,
    pub raw: Option<Raw>,
    pub size: usize,
    /// Seconds the sender sends, per case.
    pub seconds: f64,
    /// Receiver counts, one case each.
    pub subscribers: Vec<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ThroughputCase {
    pub subscribers: usize,
    pub size: usize,
    pub seconds: f64,
    /// Messages the sender sent.
    pub sent: u64,
    /// Messages received, all receivers together.
    pub received: u64,
    /// sent × receivers − received.
    pub lost: u64,
    pub sender_msgs_per_sec: f64,
    /// Received per second per receiver (mean over receivers).
    pub msgs_per_sec: f64,
    pub per_subscriber_msgs_per_sec: Vec<f64>,
    pub payload_mb_per_sec: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ThroughputSummary {
    pub mode: Mode,
    pub api: Api,
    pub transport: Transport,
    pub size: usize,
    pub cases: Vec<ThroughputCase>,
    /// The first case's figures, as the single-case benchmark always reported them.
    pub subscribers: usize,
    pub msgs_per_sec: f64,
    pub sent: u64,
    pub received: u64,
    pub lost: u64,
}

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

    fn received(&self) -> u64 {
        self.received.load(Ordering::SeqCst)
    }

    fn elapsed(&self) -> Duration {
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
    };
    let progress = super::progress::bar(options.subscribers.len() as u64, "throughput cases");
    let mut rows = Vec::new();
    for &n in &options.subscribers {
        if setup.stopped() {
            break;
        }
        let outcome = match (options.raw, setup.api) {
            (Some(raw), _) => raw::throughput(raw, options, n)?,
            (None, Api::Node) => nodes(options, n)?,
            (None, Api::Federate) => federates(options, n, results)?,
        };
        let case = case(options, n, &outcome);
        rows.push(vec![
            n.to_string(),
            options.size.to_string(),
            case.sent.to_string(),
            case.received.to_string(),
            case.lost.to_string(),
            format!("{:.1}", case.sender_msgs_per_sec),
            format!("{:.1}", case.msgs_per_sec),
        ]);
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
        results.write_summary(&summary)?;
        results.write_csv(
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
            &rows,
        )?;
        progress.inc(1);
    }
    progress.finish_and_clear();
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
    let readers: Vec<_> = subscribers
        .into_iter()
        .zip(&counters)
        .map(|(node, counter)| {
            let (counter, stop) = (counter.clone(), stop.clone());
            std::thread::spawn(move || read_node(&node, &counter, &stop, start))
        })
        .collect();
    let payload = vec![0xA5u8; options.size];
    let class = options.setup.transport.class();
    let (sent, send_time) = send_for(options.seconds, || {
        Ok(publisher.publish(&[DATA_ID], class, &payload)?)
    })?;
    wait_for_drain(&counters, &vec![sent; n], options.setup.transport);
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
pub(crate) fn wait_for_drain(counters: &[Arc<Counter>], expected: &[u64], transport: Transport) {
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
        std::thread::sleep(Duration::from_millis(5));
    }
}

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
    let places = network.attachments().take(n + 1)?;
    let federation = network.federation(&places[0])?;
    let stop = Arc::new(AtomicBool::new(false));
    let counters: Vec<Arc<Counter>> = (0..n).map(|_| Arc::default()).collect();
    let warmed: Vec<Arc<AtomicBool>> = (0..n).map(|_| Arc::default()).collect();
    let start = Instant::now();
    let mut readers = Vec::new();
    for ((place, counter), warmed) in places[1..].iter().zip(&counters).zip(&warmed) {
        let mut rti = network.federate(&federation, place, Driver::Thread)?;
        let vehicle = rti.object_class_handle("Vehicle")?;
        let name = rti.attribute_handle(vehicle, "Name")?;
        rti.subscribe_object_class_attributes(vehicle, &[name])?;
        let (counter, warmed, stop) = (counter.clone(), warmed.clone(), stop.clone());
        readers.push(std::thread::spawn(move || {
            reflect(&mut rti, &counter, &warmed, &stop, start)
                .map(|()| rti.resign_federation_execution(ResignAction::default()))
        }));
    }
    let mut publisher = network.federate(&federation, &places[0], Driver::Thread)?;
    let vehicle = publisher.object_class_handle("Vehicle")?;
    let name = publisher.attribute_handle(vehicle, "Name")?;
    publisher.publish_object_class_attributes(vehicle, &[name])?;
    let object = publisher.register_object_instance(vehicle)?;
    let mut value = vec![WARMUP; options.size.max(1)];
    let send = SendOptions {
        transport: Some(options.setup.transport.class()),
        ..Default::default()
    };
    let warmup_deadline = Instant::now() + SETUP_TIMEOUT;
    while warmed.iter().any(|w| !w.load(Ordering::SeqCst)) {
        if Instant::now() > warmup_deadline {
            return Err(BenchError::Failed(
                "receivers reflected nothing during the warm-up".into(),
            ));
        }
        publisher.update_attribute_values_with(object, &[(name, value.as_slice())], b"", &send)?;
        std::thread::sleep(Duration::from_millis(1));
    }
    let measured_from = start.elapsed();
    value[0] = MEASURED;
    let values = [(name, value.as_slice())];
    let (sent, send_time) = send_for(options.seconds, || {
        Ok(publisher.update_attribute_values_with(object, &values, b"", &send)?)
    })?;
    wait_for_drain(&counters, &vec![sent; n], options.setup.transport);
    stop.store(true, Ordering::SeqCst);
    for (i, reader) in readers.into_iter().enumerate() {
        let resigned = reader
            .join()
            .map_err(|_| BenchError::Failed("receiver thread panicked".into()))??;
        results.after_measurement(&format!("receiver-{}", i + 1), "resign", resigned);
    }
    let resigned = publisher.resign_federation_execution(ResignAction::default());
    results.after_measurement("sender", "resign", resigned);
    Ok(Outcome {
        sent,
        send_time,
        receivers: counters
            .iter()
            .map(|c| (c.received(), c.elapsed().saturating_sub(measured_from)))
            .collect(),
    })
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
            Some(Callback::ReflectAttributeValues { values, .. }) => {
                if values.first().and_then(|(_, v)| v.first()) != Some(&MEASURED) {
                    warmed.store(true, Ordering::SeqCst);
                    continue;
                }
                received += 1;
                if received % 64 == 0 {
                    counter.record(received, start);
                }
            }
            Some(_) => {}
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
