//! rtiperf's ping-pong: N master/slave pairs exchange messages of swept sizes; per size,
//! the mean over pairs after discarding the two largest pair means, the standard
//! deviation, and every pair's mean.

use super::hairpin::{raw_pair, LocalForwarder};
use super::human;
use super::network::Network;
use super::results::Results;
use super::sides::{federate_pair, node_pair, Side, Sides, MAX_UDP_PAYLOAD};
use super::stats::{mean_std, without_two_largest};
use super::{Api, BenchError, Mode, Raw, Setup};
use hdrhistogram::Histogram;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Exchanges before measuring: connections and caches warm up.
pub(crate) const WARMUP_EXCHANGES: usize = 20;
/// A ping whose answer has not come back by then counts as lost.
pub(crate) const LOSS_TIMEOUT: Duration = Duration::from_secs(1);
/// The default size sweep: 64 B to 64 KiB.
pub const DEFAULT_SIZES: [usize; 6] = [64, 256, 1024, 4096, 16384, 65536];

#[derive(Clone, Debug)]
pub struct PingpongOptions {
    pub setup: Setup,
    pub raw: Option<Raw>,
    /// With `raw`: each pair's bytes pass through a plain forwarder on loopback (a thread
    /// per direction that copies, no framing): the floor any relay or router pays.
    pub relayed: bool,
    /// With `raw`: each pair's bytes go through the hairpin forwarder at this address
    /// instead (`trellis lab` starts one in the router's site), so the baseline crosses the
    /// network a router there would (see [`super::hairpin`]).
    pub raw_via: Option<std::net::SocketAddr>,
    pub pairs: usize,
    /// Place the pairs at these (master, slave) attachment points instead of choosing:
    /// the way to compare topologies with the same pairs.
    pub placement: Vec<(String, String)>,
    pub sizes: Vec<usize>,
    /// Measured exchanges per size per pair.
    pub exchanges: usize,
}

pub use crate::results::pingpong::{PairInfo, PingpongSummary, SizeResult};

/// What a master measured for one size.
pub(crate) struct Measured {
    pub(crate) pair: usize,
    pub(crate) rtts: Vec<Duration>,
    pub(crate) lost: usize,
}

pub fn run(options: &PingpongOptions, results: &Results) -> Result<PingpongSummary, BenchError> {
    let pair_count = if options.placement.is_empty() {
        options.pairs
    } else {
        options.placement.len()
    };
    if pair_count == 0 || options.sizes.is_empty() || options.exchanges == 0 {
        return Err(BenchError::Failed(
            "ping-pong needs at least one pair, size and exchange".into(),
        ));
    }
    let setup = &options.setup;
    if options.raw == Some(Raw::Udp) && options.sizes.iter().any(|&s| s > MAX_UDP_PAYLOAD) {
        return Err(BenchError::Failed(format!(
            "raw UDP carries at most {MAX_UDP_PAYLOAD} bytes per datagram; choose --sizes below that"
        )));
    }
    // Sides are made before any thread starts: a setup failure leaves nothing running.
    let mut network = None;
    let forwarder = if options.raw.is_some() && options.relayed && options.raw_via.is_none() {
        Some(LocalForwarder::start()?)
    } else {
        None
    };
    let mut pairs = Vec::new();
    let mut sides: Vec<Sides> = Vec::new();
    match options.raw {
        Some(raw) => {
            let via = (options.raw_via).or(forwarder.as_ref().map(|f| f.address));
            for i in 0..pair_count {
                pairs.push(PairInfo {
                    master: format!("master-{}", i + 1),
                    slave: format!("slave-{}", i + 1),
                    // Sender to forwarder, forwarder to receiver.
                    links: if via.is_some() { 2 } else { 0 },
                });
                sides.push(raw_pair(raw, via)?);
            }
        }
        None => {
            let network: &Network = network.insert(Network::start(setup)?);
            let attachments = network.attachments();
            let placed = if options.placement.is_empty() {
                attachments.pairs(options.pairs)?
            } else {
                options.placement.clone()
            };
            let federation = match setup.api {
                Api::Federate => Some(network.federation(&placed[0].0)?),
                Api::Node => None,
            };
            for (i, (master, slave)) in placed.iter().enumerate() {
                pairs.push(PairInfo {
                    master: master.clone(),
                    slave: slave.clone(),
                    links: attachments.links(master, slave),
                });
                sides.push(match &federation {
                    Some(federation) => {
                        let (a, b) = federate_pair(
                            network,
                            federation,
                            master,
                            slave,
                            i as u32,
                            setup.transport,
                        )?;
                        (Box::new(a), Box::new(b))
                    }
                    None => {
                        let (a, b) = node_pair(network, master, slave, i as u32, setup.transport)?;
                        (Box::new(a), Box::new(b))
                    }
                });
            }
        }
    }
    let summary = exchange(options, pairs, sides, results)?;
    drop(network);
    drop(forwarder);
    Ok(summary)
}

/// Run the sizes over the prepared pairs, all pairs at once per size.
fn exchange(
    options: &PingpongOptions,
    pairs: Vec<PairInfo>,
    sides: Vec<Sides>,
    results: &Results,
) -> Result<PingpongSummary, BenchError> {
    let stop_slaves = Arc::new(AtomicBool::new(false));
    let (measured_tx, measured) = mpsc::channel::<Result<Measured, BenchError>>();
    let mut go = Vec::new();
    let mut threads = Vec::new();
    for (i, (mut master, mut slave)) in sides.into_iter().enumerate() {
        let stop = stop_slaves.clone();
        threads.push(std::thread::spawn(move || {
            echo_until(slave.as_mut(), &stop)
        }));
        let (go_tx, go_rx) = mpsc::channel::<Option<(usize, usize)>>();
        go.push(go_tx);
        let (tx, exchanges) = (measured_tx.clone(), options.exchanges);
        threads.push(std::thread::spawn(move || -> Result<(), BenchError> {
            let mut warmed = false;
            while let Ok(Some((index, size))) = go_rx.recv() {
                let outcome = run_size(master.as_mut(), i, index, size, exchanges, &mut warmed);
                let failed = outcome.is_err();
                let _ = tx.send(outcome);
                if failed {
                    break;
                }
            }
            Ok(())
        }));
    }
    drop(measured_tx);
    let pair_count = go.len();
    let summary = report_sizes(options, pairs, results, |index, size| {
        for g in &go {
            let _ = g.send(Some((index, size)));
        }
        let mut measured_pairs = Vec::with_capacity(pair_count);
        for _ in 0..pair_count {
            match measured.recv() {
                Ok(m) => measured_pairs.push(m?),
                Err(_) => return Err(BenchError::Failed("a ping-pong master stopped".into())),
            }
        }
        Ok(measured_pairs)
    });
    for g in &go {
        let _ = g.send(None);
    }
    stop_slaves.store(true, Ordering::SeqCst);
    for thread in threads {
        thread
            .join()
            .map_err(|_| BenchError::Failed("a ping-pong thread panicked".into()))??;
    }
    summary
}

/// Measure every size with `measure` (what every pair's master measured for size `index`,
/// `size`), wherever the masters run, and write the summary and table as sizes finish.
pub(crate) fn report_sizes(
    options: &PingpongOptions,
    pairs: Vec<PairInfo>,
    results: &Results,
    mut measure: impl FnMut(usize, usize) -> Result<Vec<Measured>, BenchError>,
) -> Result<PingpongSummary, BenchError> {
    let setup = &options.setup;
    let mut histogram = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3)
        .map_err(|e| BenchError::Failed(format!("histogram: {e}")))?;
    let mut summary = PingpongSummary {
        mode: Mode::carrying(options.raw),
        api: setup.api,
        transport: setup.transport,
        pairs,
        sizes: Vec::new(),
        count: 0,
        lost: 0,
        rtt_p50_us: f64::NAN,
        rtt_p99_us: f64::NAN,
        rtt_mean_us: f64::NAN,
        rtt_min_us: f64::NAN,
        rtt_max_us: f64::NAN,
        clock: None,
    };
    let progress = super::progress::bar(options.sizes.len() as u64, "ping-pong sizes");
    let mut rows = Vec::new();
    let mut failure = None;
    for (index, &size) in options.sizes.iter().enumerate() {
        if setup.stopped() {
            break;
        }
        let mut per_pair: Vec<Option<Measured>> = (0..summary.pairs.len()).map(|_| None).collect();
        match measure(index, size) {
            Ok(measured) => {
                for m in measured {
                    let pair = m.pair;
                    if let Some(slot) = per_pair.get_mut(pair) {
                        *slot = Some(m);
                    }
                }
            }
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
        if per_pair.iter().any(Option::is_none) {
            failure = Some(BenchError::Failed(format!(
                "size {size}: a pair's master sent no measurement"
            )));
            break;
        }
        let mut pair_means = Vec::new();
        let mut lost = 0;
        for (pair, m) in per_pair.into_iter().enumerate() {
            let Some(m) = m else { continue };
            let us: Vec<f64> = m.rtts.iter().map(|d| d.as_secs_f64() * 1e6).collect();
            for d in &m.rtts {
                histogram.saturating_record(d.as_nanos().max(1) as u64);
            }
            let mean = mean_std(&us).map_or(f64::NAN, |(mean, _)| mean);
            lost += m.lost;
            let info = &summary.pairs[pair];
            rows.push(vec![
                size.to_string(),
                (pair + 1).to_string(),
                info.master.clone(),
                info.slave.clone(),
                info.links.to_string(),
                format!("{mean:.3}"),
                m.rtts.len().to_string(),
                m.lost.to_string(),
            ]);
            pair_means.push(mean);
        }
        let (mean_us, std_us, discarded_us) = without_two_largest(&pair_means);
        summary.lost += lost;
        summary.sizes.push(SizeResult {
            size,
            mean_us,
            std_us,
            pair_means_us: pair_means,
            discarded_us,
            lost,
        });
        summarise(&mut summary, &histogram);
        results.write_summary(&summary)?;
        results.write_csv(
            "pingpong.csv",
            &[
                "size",
                "pair",
                "master",
                "slave",
                "links",
                "mean_rtt_us",
                "exchanges",
                "lost",
            ],
            &rows,
        )?;
        progress.inc(1);
    }
    progress.finish_and_clear();
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// A slave: answer every payload with itself until `stop`.
pub(crate) fn echo_until(slave: &mut dyn Side, stop: &AtomicBool) -> Result<(), BenchError> {
    while !stop.load(Ordering::Relaxed) {
        if let Some(payload) = slave.recv(Duration::from_millis(50))? {
            slave.send(&payload)?;
        }
    }
    Ok(())
}

fn summarise(summary: &mut PingpongSummary, histogram: &Histogram<u64>) {
    let us = |nanos: u64| nanos as f64 / 1000.0;
    summary.count = histogram.len() as usize;
    if histogram.is_empty() {
        return;
    }
    summary.rtt_p50_us = us(histogram.value_at_quantile(0.5));
    summary.rtt_p99_us = us(histogram.value_at_quantile(0.99));
    summary.rtt_mean_us = histogram.mean() / 1000.0;
    summary.rtt_min_us = us(histogram.min());
    summary.rtt_max_us = us(histogram.max());
}

/// One round trip: the payload names pair, size and exchange so a late answer is never
/// taken for the current one. `None` if no answer came in time.
fn round_trip(
    side: &mut dyn Side,
    payload: &mut [u8],
    tag: (usize, usize, u64),
) -> Result<Option<Duration>, BenchError> {
    payload[..4].copy_from_slice(&(tag.0 as u32).to_le_bytes());
    payload[4..8].copy_from_slice(&(tag.1 as u32).to_le_bytes());
    payload[8..16].copy_from_slice(&tag.2.to_le_bytes());
    let sent_at = Instant::now();
    side.send(payload)?;
    loop {
        let left = LOSS_TIMEOUT.saturating_sub(sent_at.elapsed());
        match side.recv(left)? {
            Some(answer) if answer.get(..16) == Some(&payload[..16]) => {
                return Ok(Some(sent_at.elapsed()))
            }
            Some(_) => continue,
            None => return Ok(None),
        }
    }
}

pub(crate) fn run_size(
    side: &mut dyn Side,
    pair: usize,
    index: usize,
    size: usize,
    exchanges: usize,
    warmed: &mut bool,
) -> Result<Measured, BenchError> {
    let mut payload = vec![0xA5u8; size.max(16)];
    let mut serial = 0u64;
    if !*warmed {
        // Until the first answer, subscriptions may still be on their way.
        let deadline = Instant::now() + super::network::SETUP_TIMEOUT;
        while round_trip(side, &mut payload, (pair, index, serial))?.is_none() {
            serial += 1;
            if Instant::now() > deadline {
                return Err(BenchError::Failed(format!(
                    "pair {} never answered",
                    pair + 1
                )));
            }
        }
        *warmed = true;
    }
    for _ in 0..WARMUP_EXCHANGES {
        serial += 1;
        round_trip(side, &mut payload, (pair, index, serial))?;
    }
    let mut rtts = Vec::with_capacity(exchanges);
    let mut lost = 0;
    for _ in 0..exchanges {
        serial += 1;
        match round_trip(side, &mut payload, (pair, index, serial))? {
            Some(rtt) => rtts.push(rtt),
            None => lost += 1,
        }
    }
    Ok(Measured { pair, rtts, lost })
}

/// The summary for people.
pub fn table(s: &PingpongSummary) -> String {
    let mut text = format!(
    "pingpong ({}, {} pair(s)): p50 {:.1} µs, p99 {:.1} µs, mean {:.1} µs over {} round trips, lost {}",
    human::carrier(s.mode, s.api, Some(s.transport)), s.pairs.len(), s.rtt_p50_us, s.rtt_p99_us, s.rtt_mean_us, s.count, s.lost
);
    for size in &s.sizes {
        text.push_str(&format!(
            "\n  {:>6} B: mean {:.1} µs ± {:.1} (pairs {:?}, discarded {:?})",
            size.size,
            size.mean_us,
            size.std_us,
            size.pair_means_us
                .iter()
                .map(|m| (m * 10.0).round() / 10.0)
                .collect::<Vec<_>>(),
            size.discarded_us
                .iter()
                .map(|m| (m * 10.0).round() / 10.0)
                .collect::<Vec<_>>()
        ));
    }
    human::push_clock(&mut text, &s.clock);
    text
}
