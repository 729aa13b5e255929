//! One publisher, N subscribers: how many messages per second each subscriber receives.

use super::network::{ids, Network, SETUP_TIMEOUT};
use super::{raw, BenchError, Mode, Transport, DATA_ID, FIRST_SUBSCRIBER_ID};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_net::{Endpoint, Node};

#[derive(Clone, Debug)]
pub struct ThroughputOptions {
    pub router: Option<Endpoint>,
    pub size: usize,
    pub seconds: f64,
    pub subscribers: usize,
    pub transport: Transport,
    pub raw: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct ThroughputResult {
    pub mode: Mode,
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
    let (sent, tallies) = if options.raw {
        raw::throughput(options)?
    } else {
        through_router(options)?
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
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last_total = u64::MAX;
    let mut quiet_since = Instant::now();
    while Instant::now() < deadline {
        let total: u64 = counters
            .iter()
            .map(|c| c.received.load(Ordering::SeqCst))
            .sum();
        if transport == Transport::Reliable
            && counters
                .iter()
                .all(|c| c.received.load(Ordering::SeqCst) >= sent)
        {
            return;
        }
        if total != last_total {
            last_total = total;
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() > Duration::from_secs(1) {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
