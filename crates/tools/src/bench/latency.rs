//! BmLatency: one sender, N receivers all subscribed; each message names one receiver, and
//! only that one answers. Half the round trip is the reported latency, per receiver count.

use super::human;
use super::network::Network;
use super::results::Results;
use super::sides::{peer, Channel, Peer};
use super::stats::mean_std;
use super::sweep::Sweep;
use super::{Api, BenchError, Mode, Setup};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const DEFAULT_RECEIVERS: [usize; 6] = [1, 3, 6, 9, 12, 15];
const LOSS_TIMEOUT: Duration = Duration::from_secs(1);

#[derive(Clone, Debug)]
pub struct LatencyOptions {
    pub setup: Setup,
    pub size: usize,
    pub receivers: Vec<usize>,
    /// Measured exchanges per case.
    pub exchanges: usize,
}

pub use crate::results::latency::{LatencyCase, LatencySummary};

pub fn run(options: &LatencyOptions, results: &Results) -> Result<LatencySummary, BenchError> {
    run_cases(options, results, |n| run_case(options, n))
}

/// Every case of the sweep, each measured by `case`; the summary and CSV after each.
pub(crate) fn run_cases(
    options: &LatencyOptions,
    results: &Results,
    mut case: impl FnMut(usize) -> Result<LatencyCase, BenchError>,
) -> Result<LatencySummary, BenchError> {
    if options.receivers.contains(&0) || options.exchanges == 0 {
        return Err(BenchError::Failed(
            "every case needs receivers and exchanges".into(),
        ));
    }
    let setup = &options.setup;
    let mut summary = LatencySummary {
        mode: Mode::Trellis,
        api: setup.api,
        transport: setup.transport,
        cases: Vec::new(),
        clock: None,
    };
    let mut sweep = Sweep::new(
        results,
        setup,
        "latency cases",
        options.receivers.len(),
        "latency.csv",
        &["receivers", "size", "mean_us", "std_us", "count", "lost"],
    );
    for &n in &options.receivers {
        if sweep.stopped() {
            break;
        }
        let c = case(n)?;
        let row = vec![
            c.receivers.to_string(),
            c.size.to_string(),
            format!("{:.3}", c.mean_us),
            format!("{:.3}", c.std_us),
            c.count.to_string(),
            c.lost.to_string(),
        ];
        summary.cases.push(c);
        sweep.record(&summary, row)?;
    }
    Ok(summary)
}

fn tagged(payload: &mut [u8], target: u32, serial: u64) {
    payload[..4].copy_from_slice(&target.to_le_bytes());
    payload[4..12].copy_from_slice(&serial.to_le_bytes());
}

fn run_case(options: &LatencyOptions, n: usize) -> Result<LatencyCase, BenchError> {
    let network = Network::start(&options.setup)?;
    let places = network.attachments().take(n + 1)?;
    let federation = match options.setup.api {
        Api::Federate => Some(network.federation(&places[0])?),
        Api::Node => None,
    };
    let transport = options.setup.transport;
    let mut sender = peer(
        &network,
        federation.as_ref(),
        &places[0],
        &[Channel::Reply],
        transport,
    )?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for (i, place) in places[1..].iter().enumerate() {
        let mut receiver = peer(
            &network,
            federation.as_ref(),
            place,
            &[Channel::Data],
            transport,
        )?;
        let stop = stop.clone();
        threads.push(std::thread::spawn(move || {
            echo_targeted(receiver.as_mut(), i as u32, &stop)
        }));
    }
    let measured = ping(sender.as_mut(), n, options.size, options.exchanges);
    stop.store(true, Ordering::SeqCst);
    for thread in threads {
        thread
            .join()
            .map_err(|_| BenchError::Failed("a receiver panicked".into()))??;
    }
    let (one_way, lost) = measured?;
    Ok(case_of(n, options.size, &one_way, lost))
}

/// A receiver: answer on the reply channel every message that names it (`index`), until
/// `stop`.
pub(crate) fn echo_targeted(
    receiver: &mut dyn Peer,
    index: u32,
    stop: &AtomicBool,
) -> Result<(), BenchError> {
    while !stop.load(Ordering::Relaxed) {
        if let Some((Channel::Data, payload)) = receiver.recv(Duration::from_millis(50))? {
            if payload.get(..4) == Some(&index.to_le_bytes()[..]) {
                receiver.send(Channel::Reply, &payload)?;
            }
        }
    }
    Ok(())
}

/// A case from the half round trips measured (µs) and the exchanges lost.
pub(crate) fn case_of(n: usize, size: usize, one_way: &[f64], lost: usize) -> LatencyCase {
    let (mean_us, std_us) = mean_std(one_way).unwrap_or((f64::NAN, f64::NAN));
    LatencyCase {
        receivers: n,
        size,
        mean_us,
        std_us,
        count: one_way.len(),
        lost,
    }
}

/// The sender: every one of `n` receivers answers once, then `exchanges` exchanges of
/// `size` bytes target them in turn. Half of each round trip (µs), and the exchanges lost.
pub(crate) fn ping(
    sender: &mut dyn Peer,
    n: usize,
    size: usize,
    exchanges: usize,
) -> Result<(Vec<f64>, usize), BenchError> {
    let mut payload = vec![0xA5u8; size.max(12)];
    let mut exchange =
        |sender: &mut dyn Peer, target: u32, serial: u64| -> Result<Option<Duration>, BenchError> {
            tagged(&mut payload, target, serial);
            let sent_at = Instant::now();
            sender.send(Channel::Data, &payload)?;
            loop {
                let left = LOSS_TIMEOUT.saturating_sub(sent_at.elapsed());
                match sender.recv(left)? {
                    Some((Channel::Reply, answer)) if answer.get(..12) == Some(&payload[..12]) => {
                        return Ok(Some(sent_at.elapsed() / 2))
                    }
                    Some(_) => continue,
                    None => return Ok(None),
                }
            }
        };
    // Every receiver answers once before measuring: subscriptions are in place.
    let mut serial = 0u64;
    let deadline = Instant::now() + super::network::SETUP_TIMEOUT;
    for target in 0..n as u32 {
        while exchange(sender, target, serial)?.is_none() {
            serial += 1;
            if Instant::now() > deadline {
                return Err(BenchError::Failed(format!(
                    "receiver {} never answered",
                    target + 1
                )));
            }
        }
        serial += 1;
    }
    let mut one_way = Vec::new();
    let mut lost = 0;
    for k in 0..exchanges {
        serial += 1;
        match exchange(sender, (k % n) as u32, serial)? {
            Some(latency) => one_way.push(latency.as_secs_f64() * 1e6),
            None => lost += 1,
        }
    }
    Ok((one_way, lost))
}

/// The summary for people.
pub fn table(s: &LatencySummary) -> String {
    let mut text = format!(
        "latency ({:?} API, {:?}), half round trip:",
        s.api, s.transport
    );
    for c in &s.cases {
        text.push_str(&format!(
            "\n  {:>2} receiver(s): {:.1} µs ± {:.1} over {} exchanges, lost {}",
            c.receivers, c.mean_us, c.std_us, c.count, c.lost
        ));
    }
    human::push_clock(&mut text, &s.clock);
    text
}
