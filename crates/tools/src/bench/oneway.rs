//! JADS one-way tests: one sender, one receiver, a matrix of message sizes × send rates.
//! Every message carries a serial number and its send time; the receiver notes when each
//! serial arrived. Per case a data file lists every serial sent with its latency, or the
//! word MISSING, and the summary gives sent, received, missing and min / max / mean latency.
//!
//! Both ends run in this process, so one monotonic clock ([`Clock`]) replaces the GPS and
//! NTP synchronisation the paper needed. With agents (`agents::oneway`) the ends are
//! processes of their own, perhaps on other hosts: each reads the coordinator's clock
//! through its measured offset ([`Clock::shifted`]), so send and receipt times are compared
//! on one clock to within the offsets' bounds.

use super::hairpin::raw_pair;
use super::human;
use super::network::{Network, SETUP_TIMEOUT};
use super::results::Results;
use super::sides::{federate_pair, node_pair, Side, Sides, MAX_UDP_PAYLOAD};
use super::sweep::Sweep;
use super::{Api, BenchError, Mode, Raw, Setup, Transport};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The paper's sizes (bytes) and rates (Hz).
pub const DEFAULT_SIZES: [usize; 6] = [17, 51, 101, 301, 501, 1001];
pub const DEFAULT_RATES: [f64; 8] = [5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 400.0, 500.0];
pub const DEFAULT_SECONDS: f64 = 2.0;

/// Serial (u64), send time (u64 nanoseconds) and a case marker (u8): the smallest of the
/// paper's sizes, 17 B, holds exactly that.
pub const HEADER_BYTES: usize = 17;
/// The case marker of warm-up messages; cases use 1 to 255 in turn, so a straggler from an
/// earlier case is never taken for one of the current case.
const WARMUP_MARKER: u8 = 0;

/// The largest payload any of these benchmarks sends: Trellis's hard frame cap.
pub(crate) const MAX_PAYLOAD_BYTES: usize = 64 << 20;
/// A case keeps a record per message and writes a line per message: rate × seconds may not
/// exceed this.
const MAX_MESSAGES_PER_CASE: u64 = 1_000_000;
/// After the last send, stragglers are awaited while they keep coming, until none came for
/// this long...
const STRAGGLER_QUIET: Duration = Duration::from_millis(500);
/// ...and never longer than this: then whatever has not arrived is MISSING.
const STRAGGLER_LIMIT: Duration = Duration::from_secs(10);
/// How long a receiver waits for one message before it looks at the clock again.
const RECEIVE_POLL: Duration = Duration::from_millis(20);
/// Poll timeouts round up to whole milliseconds: a sender drives its node until this much
/// is left before a deadline, then sleeps the rest.
const POLL_GRANULARITY: Duration = Duration::from_millis(1);

#[derive(Clone, Debug)]
pub struct OnewayOptions {
    pub setup: Setup,
    pub raw: Option<Raw>,
    /// Message sizes in bytes, each at least [`HEADER_BYTES`].
    pub sizes: Vec<usize>,
    /// Send rates in Hz.
    pub rates: Vec<f64>,
    /// Seconds of sending per case.
    pub seconds: f64,
    /// Test hook: the sender skips every k-th serial (serials k−1, 2k−1, …) but counts it
    /// as sent, so the receiver must report it MISSING.
    pub drop_every: Option<u64>,
}

pub use crate::results::oneway::{OnewayCase, OnewaySummary};

/// Nanoseconds on the run's clock, shared by every end of a run: what a message carries as
/// its send time, and what its receiver reads on arrival.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Clock {
    /// One monotonic clock, every end in this process.
    Run(Instant),
    /// The coordinator's wall clock since `began_unix_nanos`, read in a process whose wall
    /// clock is `offset_nanos` ahead of it (as measured, to within its bound).
    Shifted {
        offset_nanos: i64,
        began_unix_nanos: u64,
    },
}

impl Clock {
    pub(crate) fn start() -> Clock {
        Clock::Run(Instant::now())
    }

    /// The coordinator's clock from `began_unix_nanos` on, read through `offset_nanos`.
    pub(crate) fn shifted(offset_nanos: i64, began_unix_nanos: u64) -> Clock {
        Clock::Shifted {
            offset_nanos,
            began_unix_nanos,
        }
    }

    pub(crate) fn nanos(self) -> u64 {
        match self {
            Clock::Run(start) => start.elapsed().as_nanos() as u64,
            Clock::Shifted {
                offset_nanos,
                began_unix_nanos,
            } => {
                let own = super::agents::protocol::unix_nanos() as i128;
                (own - offset_nanos as i128 - began_unix_nanos as i128).max(0) as u64
            }
        }
    }

    /// The instant `nanos` after the clock started.
    pub(crate) fn instant(self, nanos: u64) -> Instant {
        match self {
            Clock::Run(start) => start + Duration::from_nanos(nanos),
            Clock::Shifted { .. } => {
                let (now, here) = (self.nanos(), Instant::now());
                if nanos >= now {
                    here + Duration::from_nanos(nanos - now)
                } else {
                    here.checked_sub(Duration::from_nanos(now - nanos))
                        .unwrap_or(here)
                }
            }
        }
    }
}

/// When the `k`-th event at `rate_hz` after `start` is due. Computed from `k`, never by
/// adding periods, so an event sent late does not delay the ones after it (no drift).
pub(crate) fn deadline(start: Instant, k: u64, rate_hz: f64) -> Instant {
    start + Duration::from_secs_f64(k as f64 / rate_hz)
}

/// Raises a flag when dropped: a thread that stops, by success or error, says so.
pub(crate) struct RaiseOnDrop<'a>(pub(crate) &'a AtomicBool);

impl Drop for RaiseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Rejects rates that are not positive and finite, naming `what`.
pub(crate) fn check_rate(what: &str, rate_hz: f64) -> Result<(), BenchError> {
    if rate_hz.is_finite() && rate_hz > 0.0 {
        Ok(())
    } else {
        Err(BenchError::Failed(format!(
            "{what} must be a positive number of Hz, not {rate_hz}"
        )))
    }
}

/// Rejects durations that are not positive and finite, naming `what`.
pub(crate) fn check_seconds(what: &str, seconds: f64) -> Result<(), BenchError> {
    if seconds.is_finite() && seconds > 0.0 {
        Ok(())
    } else {
        Err(BenchError::Failed(format!(
            "{what} must be a positive number of seconds, not {seconds}"
        )))
    }
}

/// Messages a case sends: the whole periods that fit in `seconds`.
fn message_count(rate_hz: f64, seconds: f64) -> u64 {
    (rate_hz * seconds + 1e-9).floor() as u64
}

/// How results files name a delivery (as the JSON does).
pub(crate) fn transport_label(transport: Transport) -> &'static str {
    match transport {
        Transport::Reliable => "reliable",
        Transport::BestEffort => "best-effort",
    }
}

/// The delivery a run gets: the socket's own for raw baselines, the chosen one otherwise.
fn transport(options: &OnewayOptions) -> Transport {
    match options.raw {
        None => options.setup.transport,
        Some(Raw::Tcp) => Transport::Reliable,
        Some(Raw::Udp) => Transport::BestEffort,
    }
}

pub(crate) fn validate(options: &OnewayOptions) -> Result<(), BenchError> {
    if options.sizes.is_empty() || options.rates.is_empty() {
        return Err(BenchError::Failed(
            "the one-way matrix needs at least one size and one rate".into(),
        ));
    }
    if let Some(&size) = options.sizes.iter().find(|&&s| s < HEADER_BYTES) {
        return Err(BenchError::Failed(format!(
            "a one-way message carries a {HEADER_BYTES}-byte serial, send time and case marker; {size} B is too small"
        )));
    }
    if let Some(&size) = options.sizes.iter().find(|&&s| s > MAX_PAYLOAD_BYTES) {
        return Err(BenchError::Failed(format!(
            "{size} B is more than the {MAX_PAYLOAD_BYTES} bytes a message may carry"
        )));
    }
    if options.raw == Some(Raw::Udp) && options.sizes.iter().any(|&s| s > MAX_UDP_PAYLOAD) {
        return Err(BenchError::Failed(format!(
            "raw UDP carries at most {MAX_UDP_PAYLOAD} bytes per datagram; choose --sizes below that"
        )));
    }
    check_seconds("--seconds", options.seconds)?;
    for &rate in &options.rates {
        check_rate("every rate", rate)?;
        let count = message_count(rate, options.seconds);
        if count == 0 {
            return Err(BenchError::Failed(format!(
                "{rate} Hz for {} s sends no message; raise --seconds",
                options.seconds
            )));
        }
        if count > MAX_MESSAGES_PER_CASE {
            return Err(BenchError::Failed(format!(
                "{rate} Hz for {} s is {count} messages; a case sends at most {MAX_MESSAGES_PER_CASE}",
                options.seconds
            )));
        }
    }
    if options.drop_every == Some(0) {
        return Err(BenchError::Failed(
            "drop_every counts from 1 (every k-th serial)".into(),
        ));
    }
    Ok(())
}

pub fn run(options: &OnewayOptions, results: &Results) -> Result<OnewaySummary, BenchError> {
    validate(options)?;
    let setup = &options.setup;
    // Declared before the sides so that they are dropped after them: the federation and
    // routers outlive the federates.
    let network;
    let federation;
    let (mut sender, mut receiver): Sides = match options.raw {
        Some(raw) => raw_pair(raw, None)?,
        None => {
            network = Network::start(setup)?;
            let (from, to) = network.attachments().pairs(1)?.remove(0);
            match setup.api {
                Api::Federate => {
                    federation = network.federation(&from)?;
                    let (a, b) =
                        federate_pair(&network, &federation, &from, &to, 0, setup.transport)?;
                    (Box::new(a), Box::new(b))
                }
                Api::Node => {
                    let (a, b) = node_pair(&network, &from, &to, 0, setup.transport)?;
                    (Box::new(a), Box::new(b))
                }
            }
        }
    };
    let clock = Clock::start();
    warm_up(sender.as_mut(), receiver.as_mut(), clock)?;
    run_cases(options, results, None, |plan| {
        run_case(plan, sender.as_mut(), receiver.as_mut(), clock)
    })
}

/// The matrix of cases, each run by `case` (in this process or by agents); its data file,
/// summary and CSV row written as it ends. `clock` says how times were compared (agents).
pub(crate) fn run_cases(
    options: &OnewayOptions,
    results: &Results,
    clock: Option<String>,
    mut case: impl FnMut(&CasePlan) -> Result<Arrivals, BenchError>,
) -> Result<OnewaySummary, BenchError> {
    let setup = &options.setup;
    let mut summary = OnewaySummary {
        mode: Mode::carrying(options.raw),
        api: setup.api,
        transport: transport(options),
        seconds: options.seconds,
        cases: Vec::new(),
        clock,
    };
    let mut sweep = Sweep::new(
        results,
        setup,
        "one-way cases",
        options.sizes.len() * options.rates.len(),
        "oneway.csv",
        &CSV_HEADER,
    );
    'matrix: for &size in &options.sizes {
        for &rate in &options.rates {
            if sweep.stopped() {
                break 'matrix;
            }
            let marker = (summary.cases.len() % 255 + 1) as u8;
            let plan = CasePlan {
                size,
                rate_hz: rate,
                count: message_count(rate, options.seconds),
                marker,
                drop_every: options.drop_every,
            };
            let arrivals = case(&plan)?;
            let data_file = format!("oneway-{size}B-{rate}Hz.dat");
            results.write_file(&data_file, &data_text(&plan, summary.transport, &arrivals))?;
            let case = summarise(&plan, summary.transport, &arrivals, data_file);
            let row = csv_row(&case);
            summary.cases.push(case);
            sweep.record(&summary, row)?;
        }
    }
    Ok(summary)
}

/// One case: what to send.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CasePlan {
    pub size: usize,
    pub rate_hz: f64,
    pub count: u64,
    pub marker: u8,
    pub drop_every: Option<u64>,
}

impl CasePlan {
    /// Whether the test hook holds this serial back.
    fn dropped(&self, serial: u64) -> bool {
        self.drop_every.is_some_and(|k| (serial + 1) % k == 0)
    }
}

/// Per serial: send and receive time in nanoseconds on the run's clock, if it arrived.
pub type Arrivals = Vec<Option<(u64, u64)>>;

fn encode(payload: &mut [u8], serial: u64, sent_nanos: u64, marker: u8) {
    payload[..8].copy_from_slice(&serial.to_le_bytes());
    payload[8..16].copy_from_slice(&sent_nanos.to_le_bytes());
    payload[16] = marker;
}

/// Serial, send time and case marker of a message, if it is long enough to be one.
fn decode(payload: &[u8]) -> Option<(u64, u64, u8)> {
    let serial = u64::from_le_bytes(payload.get(..8)?.try_into().ok()?);
    let sent = u64::from_le_bytes(payload.get(8..16)?.try_into().ok()?);
    Some((serial, sent, *payload.get(16)?))
}

/// Until the receiver has one message, subscriptions may still be on their way: send
/// warm-up messages until one arrives.
fn warm_up(sender: &mut dyn Side, receiver: &mut dyn Side, clock: Clock) -> Result<(), BenchError> {
    let receiver_done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let listening = scope.spawn(|| -> Result<(), BenchError> {
            let _done = RaiseOnDrop(&receiver_done);
            warm_up_listen(receiver)
        });
        warm_up_send(sender, clock, || Ok(receiver_done.load(Ordering::SeqCst)))?;
        listening
            .join()
            .map_err(|_| BenchError::Failed("the one-way receiver panicked".into()))?
    })
}

/// The receiver's warm-up: wait, bounded, for one warm-up message.
pub(crate) fn warm_up_listen(receiver: &mut dyn Side) -> Result<(), BenchError> {
    let deadline = Instant::now() + SETUP_TIMEOUT;
    while Instant::now() < deadline {
        if let Some(payload) = receiver.recv(RECEIVE_POLL)? {
            if matches!(decode(&payload), Some((_, _, WARMUP_MARKER))) {
                return Ok(());
            }
        }
    }
    Err(BenchError::Failed(format!(
        "the one-way receiver heard nothing within {SETUP_TIMEOUT:?}"
    )))
}

/// The sender's warm-up: warm-up messages until `heard` says the receiver has one (its own
/// wait is bounded, and so is whatever tells `heard`).
pub(crate) fn warm_up_send(
    sender: &mut dyn Side,
    clock: Clock,
    mut heard: impl FnMut() -> Result<bool, BenchError>,
) -> Result<(), BenchError> {
    let mut payload = vec![0xA5u8; HEADER_BYTES];
    let mut serial = 0;
    while !heard()? {
        encode(&mut payload, serial, clock.nanos(), WARMUP_MARKER);
        sender.send(&payload)?;
        serial += 1;
        // Drives the sender's node while it waits.
        sender.recv(Duration::from_millis(5))?;
    }
    Ok(())
}

/// Send one case on a deadline schedule while the receiver notes arrivals; then wait for
/// stragglers.
fn run_case(
    plan: &CasePlan,
    sender: &mut dyn Side,
    receiver: &mut dyn Side,
    clock: Clock,
) -> Result<Arrivals, BenchError> {
    let sending_done = AtomicBool::new(false);
    let receiving_done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let receiving = scope.spawn(|| {
            let _done = RaiseOnDrop(&receiving_done);
            receive(plan, receiver, clock, || {
                Ok(sending_done.load(Ordering::SeqCst))
            })
        });
        let sent = (|| {
            let done = RaiseOnDrop(&sending_done);
            send_case(plan, sender, clock)?;
            drop(done);
            linger(sender, || Ok(receiving_done.load(Ordering::SeqCst)))
        })();
        let arrivals = receiving
            .join()
            .map_err(|_| BenchError::Failed("the one-way receiver panicked".into()))?;
        sent?;
        arrivals
    })
}

/// Send one case's messages on their deadline schedule.
pub(crate) fn send_case(
    plan: &CasePlan,
    sender: &mut dyn Side,
    clock: Clock,
) -> Result<(), BenchError> {
    let mut payload = vec![0xA5u8; plan.size];
    let start = Instant::now();
    for serial in 0..plan.count {
        let due = deadline(start, serial, plan.rate_hz);
        loop {
            let left = due.saturating_duration_since(Instant::now());
            if left > POLL_GRANULARITY {
                // Reading drives the sender's node (a direct node works only in calls);
                // nothing is sent to the sender.
                sender.recv(left - POLL_GRANULARITY)?;
            } else {
                std::thread::sleep(left);
                break;
            }
        }
        if plan.dropped(serial) {
            continue;
        }
        encode(&mut payload, serial, clock.nanos(), plan.marker);
        sender.send(&payload)?;
    }
    Ok(())
}

/// Frames still queued leave only while the node is driven: keep driving the sender's
/// until `receiver_done` says the receiver has finished (its own wait is bounded; this one
/// is bounded beyond it).
pub(crate) fn linger(
    sender: &mut dyn Side,
    mut receiver_done: impl FnMut() -> Result<bool, BenchError>,
) -> Result<(), BenchError> {
    let limit = Instant::now() + STRAGGLER_LIMIT + Duration::from_secs(1);
    while !receiver_done()? && Instant::now() < limit {
        sender.recv(RECEIVE_POLL)?;
    }
    Ok(())
}

/// Note when each serial of the case arrives, until all did or, once `sending_done`
/// says the sender finished, stragglers stop coming (bounded).
pub(crate) fn receive(
    plan: &CasePlan,
    receiver: &mut dyn Side,
    clock: Clock,
    mut sending_done: impl FnMut() -> Result<bool, BenchError>,
) -> Result<Arrivals, BenchError> {
    let mut arrivals: Arrivals = vec![None; plan.count as usize];
    let mut received = 0u64;
    let mut last_arrival = Instant::now();
    let mut sending_ended: Option<Instant> = None;
    while received < plan.count {
        if let Some(payload) = receiver.recv(RECEIVE_POLL)? {
            let now = clock.nanos();
            if let Some((serial, sent, marker)) = decode(&payload) {
                if marker == plan.marker && serial < plan.count {
                    let slot = &mut arrivals[serial as usize];
                    if slot.is_none() {
                        *slot = Some((sent, now));
                        received += 1;
                        last_arrival = Instant::now();
                    }
                }
            }
        }
        if sending_ended.is_some() || sending_done()? {
            let ended = *sending_ended.get_or_insert_with(Instant::now);
            let quiet = last_arrival.max(ended).elapsed();
            if quiet > STRAGGLER_QUIET || ended.elapsed() > STRAGGLER_LIMIT {
                break;
            }
        }
    }
    Ok(arrivals)
}

fn latency_us((sent, received): (u64, u64)) -> f64 {
    received.saturating_sub(sent) as f64 / 1e3
}

/// The paper's data file: a record per serial sent, with send time, receive time and
/// latency, or MISSING.
fn data_text(plan: &CasePlan, transport: Transport, arrivals: &Arrivals) -> String {
    let mut text = String::with_capacity(arrivals.len() * 40 + 200);
    let _ = writeln!(
        text,
        "# one-way {} B at {} Hz, {}: serial, send and receive time (µs on the run's clock), latency (µs); MISSING when it never arrived",
        plan.size,
        plan.rate_hz,
        transport_label(transport)
    );
    for (serial, arrival) in arrivals.iter().enumerate() {
        let _ = match arrival {
            Some((sent, received)) => writeln!(
                text,
                "{serial} {:.3} {:.3} {:.3}",
                *sent as f64 / 1e3,
                *received as f64 / 1e3,
                latency_us((*sent, *received))
            ),
            None => writeln!(text, "{serial} MISSING"),
        };
    }
    text
}

fn summarise(
    plan: &CasePlan,
    transport: Transport,
    arrivals: &Arrivals,
    data_file: String,
) -> OnewayCase {
    let latencies: Vec<f64> = arrivals.iter().flatten().map(|&a| latency_us(a)).collect();
    let received = latencies.len() as u64;
    let mean_us = super::stats::mean_std(&latencies).map(|(mean, _)| mean);
    OnewayCase {
        size: plan.size,
        rate_hz: plan.rate_hz,
        transport,
        sent: plan.count,
        received,
        missing: plan.count - received,
        min_us: latencies.iter().copied().reduce(f64::min),
        max_us: latencies.iter().copied().reduce(f64::max),
        mean_us,
        data_file,
    }
}

const CSV_HEADER: [&str; 10] = [
    "size",
    "rate_hz",
    "transport",
    "sent",
    "received",
    "missing",
    "min_us",
    "max_us",
    "mean_us",
    "data_file",
];

fn csv_row(case: &OnewayCase) -> Vec<String> {
    let us = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.3}"));
    vec![
        case.size.to_string(),
        case.rate_hz.to_string(),
        transport_label(case.transport).to_owned(),
        case.sent.to_string(),
        case.received.to_string(),
        case.missing.to_string(),
        us(case.min_us),
        us(case.max_us),
        us(case.mean_us),
        case.data_file.clone(),
    ]
}

/// The summary for people.
pub fn table(s: &OnewaySummary) -> String {
    let mut text = format!(
        "oneway ({}), {} s per case, latency in µs:",
        human::carrier(s.mode, s.api, Some(s.transport)),
        s.seconds
    );
    for c in &s.cases {
        text.push_str(&format!(
            "\n  {:>5} B @ {:>4} Hz: sent {:>5}, received {:>5}, missing {:>4}; min {} mean {} max {}",
            c.size, c.rate_hz, c.sent, c.received, c.missing, human::us(c.min_us), human::us(c.mean_us), human::us(c.max_us)
        ));
    }
    human::push_clock(&mut text, &s.clock);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_do_not_drift() {
        let start = Instant::now();
        let late = deadline(start, 1_000_000, 300.0) - start;
        let expected = Duration::from_secs_f64(1_000_000.0 / 300.0);
        assert!(late.abs_diff(expected) < Duration::from_micros(1));
    }

    #[test]
    fn the_drop_hook_holds_back_every_kth_serial() {
        let plan = CasePlan {
            size: 17,
            rate_hz: 10.0,
            count: 10,
            marker: 1,
            drop_every: Some(4),
        };
        let dropped: Vec<u64> = (0..10).filter(|&s| plan.dropped(s)).collect();
        assert_eq!(dropped, vec![3, 7]);
    }

    #[test]
    fn a_header_survives_the_round_trip() {
        let mut payload = vec![0u8; 17];
        encode(&mut payload, 42, 123_456, 7);
        assert_eq!(decode(&payload), Some((42, 123_456, 7)));
        assert_eq!(decode(&payload[..16]), None);
    }
}
