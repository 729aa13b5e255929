//! One publisher, N subscribers: how many messages per second each subscriber receives.

use super::network::{ids, Network, SETUP_TIMEOUT};
use super::{raw, Api, BenchError, Mode, Transport, DATA_ID, FIRST_SUBSCRIBER_ID};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_net::rti::{Driver, RtiAmbassador, SendOptions};
use trellis_net::{Endpoint, Node};

#[derive(Clone, Debug)]
pub struct ThroughputOptions {
    pub router: Option<Endpoint>,
    pub size: usize,
    pub seconds: f64,
    pub subscribers: usize,
    pub transport: Transport,
    pub raw: bool,
    pub api: Api,
}

#[derive(Clone, Debug, Serialize)]
pub struct ThroughputResult {
    pub mode: Mode,
    /// The API the workload used (not meaningful for raw runs).
    pub api: Api,
    pub transport: Transport,
    pub size: usize,
    pub seconds: f64,
    pub subscribers: usize,
    /// Messages the publisher sent.
    pub sent: u64,
    /// Messages received, all subscribers together.
    pub received: u64,
    /// sent × subscribers − received.
    pub lost: u64,
    /// Received per second, per subscriber (mean over subscribers).
    pub msgs_per_sec: f64,
    /// The same for each subscriber.
    pub per_subscriber_msgs_per_sec: Vec<f64>,
    /// Payload megabytes per second per subscriber.
    pub payload_mb_per_sec: f64,
}

/// What one subscriber counted.
pub(crate) struct Tally {
    pub(crate) received: u64,
    pub(crate) elapsed: Duration,
}

pub fn run(options: &ThroughputOptions) -> Result<ThroughputResult, BenchError> {
    if options.subscribers == 0 {
        return Err(BenchError::Failed(
            "at least one subscriber is needed".into(),
        ));
    }
    let (sent, tallies) = match (options.raw, options.api) {
        (true, _) => raw::throughput(options)?,
        (false, Api::Node) => through_router(options)?,
        (false, Api::Federate) => through_federates(options)?,
    };
    Ok(summarize(options, sent, &tallies))
}

pub(crate) fn summarize(
    options: &ThroughputOptions,
    sent: u64,
    tallies: &[Tally],
) -> ThroughputResult {
    let rates: Vec<f64> = tallies
        .iter()
        .map(|t| t.received as f64 / t.elapsed.as_secs_f64().max(1e-9))
        .collect();
    let received: u64 = tallies.iter().map(|t| t.received).sum();
    let msgs_per_sec = rates.iter().sum::<f64>() / rates.len() as f64;
    ThroughputResult {
        mode: if options.raw {
            Mode::RawTcp
        } else {
            Mode::Trellis
        },
        api: options.api,
        transport: options.transport,
        size: options.size,
        seconds: options.seconds,
        subscribers: options.subscribers,
        sent,
        received,
        lost: (sent * options.subscribers as u64).saturating_sub(received),
        msgs_per_sec,
        per_subscriber_msgs_per_sec: rates,
        payload_mb_per_sec: msgs_per_sec * options.size as f64 / 1e6,
    }
}

/// Counts of a running subscriber, shared with the thread that reads its messages.
#[derive(Default)]
pub(crate) struct Counter {
    pub(crate) received: AtomicU64,
    /// Nanoseconds after the benchmark's start of the latest receipt.
    pub(crate) last_nanos: AtomicU64,
}

impl Counter {
    pub(crate) fn tally(&self) -> Tally {
        Tally {
            received: self.received.load(Ordering::SeqCst),
            elapsed: Duration::from_nanos(self.last_nanos.load(Ordering::SeqCst)),
        }
    }
}

fn through_router(options: &ThroughputOptions) -> Result<(u64, Vec<Tally>), BenchError> {
    let network = Network::start(options.router.as_ref(), options.transport, Duration::ZERO)?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut subscribers = Vec::new();
    for i in 0..options.subscribers {
        let node = network.node(&format!("subscriber-{i}"))?;
        node.subscribe(&ids([DATA_ID, FIRST_SUBSCRIBER_ID + i as u32]))?;
        subscribers.push(node);
    }
    let publisher = network.node("publisher")?;
    let every = ids((0..options.subscribers as u32).map(|i| FIRST_SUBSCRIBER_ID + i));
    publisher.wait_for_network_interest(&every, SETUP_TIMEOUT)?;

    let start = Instant::now();
    let counters: Vec<Arc<Counter>> = (0..options.subscribers).map(|_| Arc::default()).collect();
    let readers: Vec<_> = subscribers
        .into_iter()
        .zip(&counters)
        .map(|(node, counter)| {
            let (counter, stop) = (counter.clone(), stop.clone());
            std::thread::spawn(move || read_until_stopped(&node, &counter, &stop, start))
        })
        .collect();

    let payload = vec![0xA5u8; options.size];
    let class = options.transport.class();
    let duration = Duration::from_secs_f64(options.seconds);
    let mut sent = 0u64;
    'publish: loop {
        for _ in 0..256 {
            publisher.publish(&[DATA_ID], class, &payload)?;
            sent += 1;
        }
        if start.elapsed() >= duration {
            break 'publish;
        }
    }
    wait_for_drain(&counters, sent, options.transport);
    stop.store(true, Ordering::SeqCst);
    for reader in readers {
        let _ = reader.join();
    }
    Ok((sent, counters.iter().map(|c| c.tally()).collect()))
}

fn read_until_stopped(node: &Node, counter: &Counter, stop: &AtomicBool, start: Instant) {
    let mut received = 0u64;
    let mut last = Duration::ZERO;
    let publish = |received: u64, last: Duration| {
        counter
            .last_nanos
            .store(last.as_nanos() as u64, Ordering::SeqCst);
        counter.received.store(received, Ordering::SeqCst);
    };
    while !stop.load(Ordering::Relaxed) {
        match node.recv_timeout(Duration::from_millis(20)) {
            Ok(Some(_)) => {
                received += 1;
                last = start.elapsed();
                // Shared counters in batches: an atomic store per message would slow the reader.
                if received % 64 == 0 {
                    publish(received, last);
                }
            }
            Ok(None) => publish(received, last),
            Err(_) => break,
        }
    }
    publish(received, last);
}

/// Wait until every subscriber has everything (reliable) or nothing more arrives for a
/// while (best effort), within a bound.
pub(crate) fn wait_for_drain(counters: &[Arc<Counter>], sent: u64, transport: Transport) {
    wait_for_drain_to(counters, &vec![sent; counters.len()], transport);
}

/// As `wait_for_drain`, with what each subscriber should end up with.
fn wait_for_drain_to(counters: &[Arc<Counter>], expected: &[u64], transport: Transport) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last_total = u64::MAX;
    let mut quiet_since = Instant::now();
    while Instant::now() < deadline {
        let counts: Vec<u64> = counters
            .iter()
            .map(|c| c.received.load(Ordering::SeqCst))
            .collect();
        if transport == Transport::Reliable && counts.iter().zip(expected).all(|(c, e)| c >= e) {
            return;
        }
        let total: u64 = counts.iter().sum();
        if total != last_total {
            last_total = total;
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() > Duration::from_secs(1) {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The same workload through HLA services: one federate updates one attribute of one
/// object, the others reflect it. A warm-up runs until every subscriber reflected once, so
/// the measured run starts with all subscriptions in place.
fn through_federates(options: &ThroughputOptions) -> Result<(u64, Vec<Tally>), BenchError> {
    let network = Network::start(options.router.as_ref(), options.transport, Duration::ZERO)?;
    let federation = network.federation()?;
    let stop = Arc::new(AtomicBool::new(false));
    let counters: Vec<Arc<Counter>> = (0..options.subscribers).map(|_| Arc::default()).collect();
    let start = Instant::now();
    let mut readers = Vec::new();
    for (i, counter) in counters.iter().enumerate() {
        let mut rti = network.federate(&federation, &format!("subscriber-{i}"), Driver::Thread)?;
        let vehicle = rti.object_class_handle("Vehicle")?;
        let name = rti.attribute_handle(vehicle, "Name")?;
        rti.subscribe_object_class_attributes(vehicle, &[name])?;
        let (counter, stop) = (counter.clone(), stop.clone());
        readers.push(std::thread::spawn(move || {
            reflect_until_stopped(&mut rti, &counter, &stop, start)
        }));
    }
    let mut publisher = network.federate(&federation, "publisher", Driver::Thread)?;
    let vehicle = publisher.object_class_handle("Vehicle")?;
    let name = publisher.attribute_handle(vehicle, "Name")?;
    publisher.publish_object_class_attributes(vehicle, &[name])?;
    let object = publisher.register_object_instance(vehicle)?;
    let value = vec![0xA5u8; options.size];
    let send_options = SendOptions {
        transport: Some(options.transport.class()),
        ..Default::default()
    };
    let values = [(name, value.as_slice())];

    let warmup_deadline = Instant::now() + SETUP_TIMEOUT;
    while counters
        .iter()
        .any(|c| c.received.load(Ordering::SeqCst) == 0)
    {
        if Instant::now() > warmup_deadline {
            return Err(BenchError::Failed(
                "subscribers reflected nothing during the warm-up".into(),
            ));
        }
        publisher.update_attribute_values_with(object, &values, b"", &send_options)?;
        std::thread::sleep(Duration::from_millis(1));
    }
    let baseline: Vec<u64> = counters
        .iter()
        .map(|c| c.received.load(Ordering::SeqCst))
        .collect();
    let measured_from = start.elapsed();
    let duration = Duration::from_secs_f64(options.seconds);
    let began = Instant::now();
    let mut sent = 0u64;
    while began.elapsed() < duration {
        for _ in 0..256 {
            publisher.update_attribute_values_with(object, &values, b"", &send_options)?;
            sent += 1;
        }
    }
    let expected: Vec<u64> = baseline.iter().map(|b| b + sent).collect();
    wait_for_drain_to(&counters, &expected, options.transport);
    stop.store(true, Ordering::SeqCst);
    for reader in readers {
        reader
            .join()
            .map_err(|_| BenchError::Failed("subscriber thread panicked".into()))??;
    }
    let tallies = counters
        .iter()
        .zip(&baseline)
        .map(|(c, base)| {
            let t = c.tally();
            Tally {
                received: t.received.saturating_sub(*base),
                elapsed: t.elapsed.saturating_sub(measured_from),
            }
        })
        .collect();
    publisher.resign_federation_execution()?;
    Ok((sent, tallies))
}

fn reflect_until_stopped(
    rti: &mut RtiAmbassador,
    counter: &Counter,
    stop: &AtomicBool,
    start: Instant,
) -> Result<(), BenchError> {
    let mut received = 0u64;
    let mut last = Duration::ZERO;
    let publish = |received: u64, last: Duration| {
        counter
            .last_nanos
            .store(last.as_nanos() as u64, Ordering::SeqCst);
        counter.received.store(received, Ordering::SeqCst);
    };
    while !stop.load(Ordering::Relaxed) {
        match rti.evoke_callback(Duration::from_millis(20))? {
            Some(Callback::ReflectAttributeValues { .. }) => {
                received += 1;
                last = start.elapsed();
                if received % 64 == 0 || received == 1 {
                    publish(received, last);
                }
            }
            Some(_) => {}
            None => publish(received, last),
        }
    }
    publish(received, last);
    rti.resign_federation_execution()?;
    Ok(())
}
