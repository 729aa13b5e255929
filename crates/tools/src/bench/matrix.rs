//! The 3CE EC1 matrix: entity count × update rate × payload size × delivery × configuration
//! (1-1, 1-N, N-1, N-N). Every sender registers its entities and updates each of them at
//! the rate; receivers reflect. Per case: throughput against theoretical, reliability
//! (unique updates received / updates published), mean latency and jitter (the standard
//! deviation of latency), all measured at the application.
//!
//! Latency is the receive time minus the time stamp the update carries
//! (`SendOptions::time`), both on one clock shared by every party in this process. With
//! agents (`agents::matrix`) every party of a case is a process of its own, coordinating
//! through a [`Team`](super::team::Team) instead of the atomics [`party::Shared`] holds,
//! and reading the run's clock through its measured offset.
//!
//! Files: `party` (a party over Trellis), `raw` (phase 0 over sockets), `tally` (what a
//! receiver counts).

use super::human;
use super::oneway::{check_rate, check_seconds, transport_label, Clock, MAX_PAYLOAD_BYTES};
use super::results::Results;
use super::sides::MAX_UDP_PAYLOAD;
use super::stats::mean_std;
use super::sweep::Sweep;
use super::{BenchError, Mode, Raw, Setup, Transport};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::time::Duration;

mod party;
mod raw;
mod tally;

use party::trellis_case;
pub use party::PartyReport;
pub(crate) use party::{party_leave, party_run, wire, Outcome, Wire};
use raw::raw_case;
use tally::Spread;
pub use tally::Tally;

/// The paper's entity counts, rates and a spread of its payload sizes (128 B to 9000 B).
pub const DEFAULT_ENTITIES: [usize; 3] = [1, 10, 100];
pub const DEFAULT_RATES: [f64; 4] = [10.0, 20.0, 60.0, 120.0];
pub const DEFAULT_SIZES: [usize; 3] = [128, 1024, 9000];
/// N of 1-N, N-1 and N-N.
pub const DEFAULT_N: usize = 3;
pub const DEFAULT_SECONDS: f64 = 2.0;

/// Sender (u32), entity (u32), serial (u64) and send time (u64 nanoseconds).
pub const HEADER_BYTES: usize = 24;
/// The serial of a greeting: sent before the measurement so that receivers can tell every
/// sender reaches them.
const GREETING: u64 = u64::MAX;
const GREETING_EVERY: Duration = Duration::from_millis(10);
/// A sender that falls behind keeps catching up until twice the case's time has passed;
/// what it has not sent by then is not published.
const OVERRUN_FACTOR: f64 = 2.0;
/// After the senders finish, receivers wait for stragglers while they keep coming, until
/// none came for this long, and never longer than the limit.
const STRAGGLER_QUIET: Duration = Duration::from_millis(500);
pub(crate) const STRAGGLER_LIMIT: Duration = Duration::from_secs(10);
const RECEIVE_POLL: Duration = Duration::from_millis(10);
/// Each entity is an object instance of its own; far beyond the paper's 100.
const MAX_ENTITIES: usize = 100_000;
/// Receivers keep a bit per update they could get; a case may track at most this many
/// (128 MiB of bits).
const MAX_TRACKED_UPDATES: u128 = 1 << 30;

pub use crate::results::matrix::{
    Configuration, LeftOut, MatrixCase, MatrixSummary, ALL_CONFIGURATIONS,
};

/// The parties of a case with this configuration and `n`.
fn roles(configuration: Configuration, n: usize) -> Vec<Role> {
    const SENDER: Role = Role {
        sends: true,
        receives: false,
    };
    const RECEIVER: Role = Role {
        sends: false,
        receives: true,
    };
    const BOTH: Role = Role {
        sends: true,
        receives: true,
    };
    let mut roles = Vec::new();
    match configuration {
        Configuration::OneToOne => roles.extend([SENDER, RECEIVER]),
        Configuration::OneToMany => {
            roles.push(SENDER);
            roles.extend(std::iter::repeat_n(RECEIVER, n));
        }
        Configuration::ManyToOne => {
            roles.extend(std::iter::repeat_n(SENDER, n));
            roles.push(RECEIVER);
        }
        Configuration::ManyToMany => roles.extend(std::iter::repeat_n(BOTH, n)),
    }
    roles
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Role {
    sends: bool,
    receives: bool,
}

#[derive(Clone, Debug)]
pub struct MatrixOptions {
    pub setup: Setup,
    /// Plain sockets instead of Trellis: each sender writes every update to every receiver
    /// it serves, over a connection (TCP) or a socket (UDP) of that pair; the socket decides
    /// delivery, so `deliveries` is not used.
    pub raw: Option<Raw>,
    /// With `raw`: every pair's bytes go through the hairpin forwarder at this address
    /// ([`super::hairpin`]), as `trellis lab` places it in the router's site, so the
    /// baseline crosses the site link the way its Trellis twin does.
    pub raw_via: Option<SocketAddr>,
    pub entities: Vec<usize>,
    pub rates: Vec<f64>,
    /// Payload sizes in bytes, each at least [`HEADER_BYTES`].
    pub sizes: Vec<usize>,
    pub deliveries: Vec<Transport>,
    pub configurations: Vec<Configuration>,
    /// Seconds of sending per case.
    pub seconds: f64,
    /// N of 1-N, N-1 and N-N.
    pub n: usize,
    /// Leave out the cells whose theoretical throughput per receiver is above this many
    /// Mbps (a network's rate several times over only measures its saturation, slowly);
    /// they are listed in the summary's `left_out`.
    pub max_theoretical_mbps: Option<f64>,
}

/// Ticks (updates of every entity) a case schedules: the whole periods in `seconds`.
fn tick_count(rate_hz: f64, seconds: f64) -> u64 {
    (rate_hz * seconds + 1e-9).floor() as u64
}

pub(crate) fn validate(options: &MatrixOptions) -> Result<(), BenchError> {
    let empty = |list: bool, what: &str| {
        if list {
            Err(BenchError::Failed(format!(
                "the matrix needs at least one {what}"
            )))
        } else {
            Ok(())
        }
    };
    empty(options.entities.is_empty(), "entity count")?;
    empty(options.rates.is_empty(), "rate")?;
    empty(options.sizes.is_empty(), "size")?;
    empty(options.configurations.is_empty(), "configuration")?;
    empty(
        options.raw.is_none() && options.deliveries.is_empty(),
        "delivery",
    )?;
    if let Some(&entities) = options
        .entities
        .iter()
        .find(|&&e| e == 0 || e > MAX_ENTITIES)
    {
        return Err(BenchError::Failed(format!(
            "an entity count is 1 to {MAX_ENTITIES}, not {entities}"
        )));
    }
    if let Some(&size) = options.sizes.iter().find(|&&s| s < HEADER_BYTES) {
        return Err(BenchError::Failed(format!(
            "an update carries a {HEADER_BYTES}-byte sender, entity, serial and send time; {size} B is too small"
        )));
    }
    if let Some(&size) = options.sizes.iter().find(|&&s| s > MAX_PAYLOAD_BYTES) {
        return Err(BenchError::Failed(format!(
            "{size} B is more than the {MAX_PAYLOAD_BYTES} bytes an update may carry"
        )));
    }
    if options.raw == Some(Raw::Udp) && options.sizes.iter().any(|&s| s > MAX_UDP_PAYLOAD) {
        return Err(BenchError::Failed(format!(
            "raw UDP carries at most {MAX_UDP_PAYLOAD} bytes per datagram; choose --sizes below that"
        )));
    }
    if options.n < 2 {
        return Err(BenchError::Failed(format!(
            "N must be at least 2, not {}",
            options.n
        )));
    }
    check_seconds("--seconds", options.seconds)?;
    if let Some(max) = options.max_theoretical_mbps {
        if !(max.is_finite() && max > 0.0) {
            return Err(BenchError::Failed(format!(
                "--max-theoretical-mbps is a positive number of Mbps, not {max}"
            )));
        }
    }
    for &rate in &options.rates {
        check_rate("every rate", rate)?;
        if tick_count(rate, options.seconds) == 0 {
            return Err(BenchError::Failed(format!(
                "{rate} Hz for {} s sends no update; raise --seconds",
                options.seconds
            )));
        }
    }
    let most_ticks = options
        .rates
        .iter()
        .map(|&r| tick_count(r, options.seconds))
        .max();
    let most_entities = options.entities.iter().max();
    for &configuration in &options.configurations {
        let roles = roles(configuration, options.n);
        let heard_pairs = (0..roles.len())
            .filter(|&r| roles[r].receives)
            .map(|r| {
                (0..roles.len())
                    .filter(|&s| s != r && roles[s].sends)
                    .count()
            })
            .sum::<usize>();
        let tracked = heard_pairs as u128
            * most_entities.copied().unwrap_or(0) as u128
            * u128::from(most_ticks.unwrap_or(0));
        if tracked > MAX_TRACKED_UPDATES {
            return Err(BenchError::Failed(format!(
                "a {} case would track {tracked} updates at its receivers, more than {MAX_TRACKED_UPDATES}: fewer entities, a lower rate, fewer seconds or a smaller N",
                configuration.label()
            )));
        }
    }
    Ok(())
}

pub fn run(options: &MatrixOptions, results: &Results) -> Result<MatrixSummary, BenchError> {
    run_cases(options, results, |plan| {
        let clock = Clock::start();
        match options.raw {
            Some(raw) => raw_case(raw, options.raw_via, plan, clock),
            None => trellis_case(&options.setup, plan, clock, results),
        }
    })
}

/// The grid of cases, each run by `case` (in this process or by agents), its summary and
/// CSV row written as it ends.
pub(crate) fn run_cases(
    options: &MatrixOptions,
    results: &Results,
    mut case: impl FnMut(&CasePlan) -> Result<Outcome, BenchError>,
) -> Result<MatrixSummary, BenchError> {
    validate(options)?;
    let deliveries = match options.raw {
        None => options.deliveries.clone(),
        Some(Raw::Tcp) => vec![Transport::Reliable],
        Some(Raw::Udp) => vec![Transport::BestEffort],
    };
    let mut plans = Vec::new();
    let mut left_out = Vec::new();
    // The paper's order: by configuration, then entities, rate, payload and delivery.
    for &configuration in &options.configurations {
        for &entities in &options.entities {
            for &rate_hz in &options.rates {
                for &size in &options.sizes {
                    for &transport in &deliveries {
                        let plan = CasePlan {
                            entities,
                            rate_hz,
                            size,
                            transport,
                            configuration,
                            roles: roles(configuration, options.n),
                            ticks: tick_count(rate_hz, options.seconds),
                            seconds: options.seconds,
                        };
                        let theoretical_mbps = plan.theoretical_mbps();
                        if options
                            .max_theoretical_mbps
                            .is_some_and(|max| theoretical_mbps > max)
                        {
                            left_out.push(LeftOut {
                                config: configuration,
                                entities,
                                rate_hz,
                                size,
                                transport,
                                theoretical_mbps,
                            });
                        } else {
                            plans.push(plan);
                        }
                    }
                }
            }
        }
    }
    if plans.is_empty() {
        return Err(BenchError::Failed(format!(
            "every cell's theoretical throughput is above {} Mbps (--max-theoretical-mbps)",
            options.max_theoretical_mbps.unwrap_or(0.0)
        )));
    }
    let mut summary = MatrixSummary {
        mode: Mode::carrying(options.raw),
        raw_via: options.raw.and(options.raw_via).map(|via| via.to_string()),
        api: options.setup.api,
        seconds: options.seconds,
        n: options.n,
        cases: Vec::new(),
        left_out,
        clock: None,
    };
    let mut sweep = Sweep::new(
        results,
        &options.setup,
        "matrix cases",
        plans.len(),
        "matrix.csv",
        &CSV_HEADER,
    );
    for plan in &plans {
        if sweep.stopped() {
            break;
        }
        let case = summarise(plan, &case(plan)?);
        let row = csv_row(&case);
        summary.cases.push(case);
        sweep.record(&summary, row)?;
    }
    Ok(summary)
}

/// One case of the matrix.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CasePlan {
    entities: usize,
    rate_hz: f64,
    size: usize,
    transport: Transport,
    configuration: Configuration,
    /// Every party: which send, which receive.
    roles: Vec<Role>,
    ticks: u64,
    seconds: f64,
}

impl CasePlan {
    /// The parties of the case.
    pub(crate) fn parties(&self) -> usize {
        self.roles.len()
    }

    /// Whether party `party` sends.
    pub(crate) fn sends(&self, party: usize) -> bool {
        self.roles[party].sends
    }

    /// The transport the case's updates travel by.
    pub(crate) fn transport(&self) -> Transport {
        self.transport
    }

    /// A sender gives up catching up this long after the start.
    pub(crate) fn overrun(&self) -> Duration {
        Duration::from_secs_f64(self.seconds * OVERRUN_FACTOR)
    }

    /// The senders `receiver` hears: every sender but itself.
    pub(crate) fn heard_by(&self, receiver: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.roles.len()).filter(move |&s| s != receiver && self.roles[s].sends)
    }

    pub(crate) fn receivers(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.roles.len()).filter(|&r| self.roles[r].receives)
    }

    fn updates_per_sender(&self) -> u64 {
        self.entities as u64 * self.ticks
    }

    /// What each receiver would take in if every scheduled update arrived, in Mbps:
    /// entities × rate × payload × the senders it hears (every receiver hears as many).
    fn theoretical_mbps(&self) -> f64 {
        let heard = self
            .receivers()
            .next()
            .map_or(0, |r| self.heard_by(r).count()) as u64;
        (heard * self.updates_per_sender()) as f64 * self.size as f64 * 8.0 / self.seconds / 1e6
    }
}

fn summarise(plan: &CasePlan, outcome: &Outcome) -> MatrixCase {
    let bits = plan.size as f64 * 8.0;
    let receivers: Vec<usize> = plan.receivers().collect();
    let senders = plan.roles.iter().filter(|r| r.sends).count();
    let theoretical_mbps = plan.theoretical_mbps();
    let mut throughputs = Vec::new();
    let mut reliabilities = Vec::new();
    let mut latency = Spread::default();
    let (mut received, mut duplicates) = (0, 0);
    for &receiver in &receivers {
        let Some(tally) = &outcome.tallies[receiver] else {
            continue;
        };
        let expected: u64 = plan.heard_by(receiver).map(|s| outcome.published[s]).sum();
        // Nothing published to it: nothing could be delivered either.
        reliabilities.push(if expected == 0 {
            0.0
        } else {
            tally.unique as f64 / expected as f64
        });
        // Over at least the case's time, so a burst after a late start never reads as
        // more than was scheduled.
        let to_last = tally.last_nanos.saturating_sub(outcome.start_nanos) as f64 / 1e9;
        let window = plan.seconds.max(to_last);
        throughputs.push(tally.unique as f64 * bits / window / 1e6);
        latency.merge(&tally.latency_us);
        received += tally.unique;
        duplicates += tally.duplicates;
    }
    let mean = |values: &[f64]| mean_std(values).map_or(0.0, |(mean, _)| mean);
    let latency = latency.mean_std();
    MatrixCase {
        entities: plan.entities,
        rate_hz: plan.rate_hz,
        size: plan.size,
        transport: plan.transport,
        config: plan.configuration,
        senders,
        receivers: receivers.len(),
        throughput_mbps: mean(&throughputs),
        theoretical_mbps,
        reliability: mean(&reliabilities),
        mean_latency_us: latency.map(|(mean, _)| mean),
        jitter_us: latency.map(|(_, std)| std),
        scheduled: senders as u64 * plan.updates_per_sender(),
        published: outcome.published.iter().sum(),
        received,
        duplicates,
    }
}

const CSV_HEADER: [&str; 16] = [
    "config",
    "entities",
    "rate_hz",
    "size",
    "transport",
    "senders",
    "receivers",
    "throughput_mbps",
    "theoretical_mbps",
    "reliability",
    "mean_latency_us",
    "jitter_us",
    "scheduled",
    "published",
    "received",
    "duplicates",
];

fn csv_row(case: &MatrixCase) -> Vec<String> {
    let us = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.3}"));
    vec![
        case.config.label().to_owned(),
        case.entities.to_string(),
        case.rate_hz.to_string(),
        case.size.to_string(),
        transport_label(case.transport).to_owned(),
        case.senders.to_string(),
        case.receivers.to_string(),
        format!("{:.4}", case.throughput_mbps),
        format!("{:.4}", case.theoretical_mbps),
        format!("{:.5}", case.reliability),
        us(case.mean_latency_us),
        us(case.jitter_us),
        case.scheduled.to_string(),
        case.published.to_string(),
        case.received.to_string(),
        case.duplicates.to_string(),
    ]
}

/// The summary for people.
pub fn table(s: &MatrixSummary) -> String {
    let mut text = format!(
        "matrix ({}, N = {}), {} s per case; throughput / theoretical in Mbps per receiver:",
        human::carrier(s.mode, s.api, None),
        s.n,
        s.seconds
    );
    for c in &s.cases {
        text.push_str(&format!(
            "\n  {} {:>3} entities {:>4} Hz {:>5} B {:<12} {:.3} / {:.3}, reliability {:.4}, latency {} µs, jitter {} µs",
            c.config.label(), c.entities, c.rate_hz, c.size,
            match c.transport { Transport::Reliable => "reliable:", Transport::BestEffort => "best-effort:" },
            c.throughput_mbps, c.theoretical_mbps, c.reliability, human::us(c.mean_latency_us), human::us(c.jitter_us)
        ));
    }
    if !s.left_out.is_empty() {
        text.push_str(&format!(
            "\n  left out: {} cells above --max-theoretical-mbps (summary.json's left_out)",
            s.left_out.len()
        ));
    }
    human::push_clock(&mut text, &s.clock);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn plan(configuration: Configuration) -> CasePlan {
        CasePlan {
            entities: 2,
            rate_hz: 10.0,
            size: 64,
            transport: Transport::Reliable,
            configuration,
            roles: roles(configuration, 3),
            ticks: 5,
            seconds: 0.5,
        }
    }

    #[test]
    fn configurations_parse_and_shape_the_parties() {
        for c in ALL_CONFIGURATIONS {
            assert_eq!(c.label().parse::<Configuration>(), Ok(c));
        }
        assert_eq!(
            "n-n".parse::<Configuration>(),
            Ok(Configuration::ManyToMany)
        );
        assert!("2-2".parse::<Configuration>().is_err());
        let heard = |c| {
            let plan = plan(c);
            plan.receivers()
                .map(|r| plan.heard_by(r).count())
                .collect::<Vec<_>>()
        };
        assert_eq!(heard(Configuration::OneToOne), vec![1]);
        assert_eq!(heard(Configuration::OneToMany), vec![1, 1, 1]);
        assert_eq!(heard(Configuration::ManyToOne), vec![3]);
        assert_eq!(heard(Configuration::ManyToMany), vec![2, 2, 2]);
    }

    #[test]
    fn theoretical_throughput_counts_the_senders_a_receiver_hears() {
        // 2 entities × 5 ticks in 0.5 s of 64-byte updates: 10240 bits per sender heard.
        let per_sender = 2.0 * 5.0 * 64.0 * 8.0 / 0.5 / 1e6;
        for (c, heard) in [
            (Configuration::OneToOne, 1.0),
            (Configuration::OneToMany, 1.0),
            (Configuration::ManyToOne, 3.0),
            (Configuration::ManyToMany, 2.0),
        ] {
            let theoretical = plan(c).theoretical_mbps();
            assert!((theoretical - heard * per_sender).abs() < 1e-12, "{c:?}");
        }
    }
}
