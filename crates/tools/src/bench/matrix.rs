//! The 3CE EC1 matrix: entity count × update rate × payload size × delivery × configuration
//! (1-1, 1-N, N-1, N-N). Every sender registers its entities and updates each of them at
//! the rate; receivers reflect. Per case: throughput against theoretical, reliability
//! (unique updates received / updates published), mean latency and jitter (the standard
//! deviation of latency), all measured at the application.
//!
//! Latency is the receive time minus the time stamp the update carries
//! (`SendOptions::time`), both on one clock shared by every party in this process. With
//! agents (`agents::matrix`) every party of a case is a process of its own, coordinating
//! through a [`Team`] instead of the atomics [`Shared`] holds, and reading the run's clock
//! through its measured offset.

use super::hairpin::{tcp_pair_via, udp_pair_via};
use super::network::{ids, Federation, Network, SETUP_TIMEOUT};
use super::oneway::{
    check_rate, check_seconds, deadline, transport_label, Clock, RaiseOnDrop, MAX_PAYLOAD_BYTES,
};
use super::results::Results;
use super::sides::{tcp_pair, udp_pair, Side, MAX_UDP_PAYLOAD};
use super::stats::mean_std;
use super::team::{StartGate, Team, START_LEAD};
use super::{Api, BenchError, Mode, Raw, Setup, Transport, DATA_ID};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, ObjectId};
use trellis_core::fom::AttributeHandle;
use trellis_core::wire::TransportClass;
use trellis_net::rti::{Driver, RtiAmbassador, SendOptions};
use trellis_net::DirectNode;

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

/// Who sends to whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Configuration {
    #[serde(rename = "1-1")]
    OneToOne,
    #[serde(rename = "1-N")]
    OneToMany,
    #[serde(rename = "N-1")]
    ManyToOne,
    /// N federates, each sending to and receiving from all the others.
    #[serde(rename = "N-N")]
    ManyToMany,
}

pub const ALL_CONFIGURATIONS: [Configuration; 4] = [
    Configuration::OneToOne,
    Configuration::OneToMany,
    Configuration::ManyToOne,
    Configuration::ManyToMany,
];

impl Configuration {
    pub fn label(self) -> &'static str {
        match self {
            Configuration::OneToOne => "1-1",
            Configuration::OneToMany => "1-N",
            Configuration::ManyToOne => "N-1",
            Configuration::ManyToMany => "N-N",
        }
    }

    /// The parties of a case with this configuration and `n`.
    fn roles(self, n: usize) -> Vec<Role> {
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
        match self {
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
}

impl std::str::FromStr for Configuration {
    type Err = String;

    fn from_str(text: &str) -> Result<Configuration, String> {
        ALL_CONFIGURATIONS
            .into_iter()
            .find(|c| c.label().eq_ignore_ascii_case(text))
            .ok_or_else(|| format!("a configuration is 1-1, 1-N, N-1 or N-N, not {text:?}"))
    }
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

/// A cell of the grid that was not run, and why: its theoretical throughput.
#[derive(Clone, Debug, Serialize)]
pub struct LeftOut {
    pub config: Configuration,
    pub entities: usize,
    pub rate_hz: f64,
    pub size: usize,
    pub transport: Transport,
    pub theoretical_mbps: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct MatrixCase {
    pub entities: usize,
    pub rate_hz: f64,
    pub size: usize,
    pub transport: Transport,
    pub config: Configuration,
    pub senders: usize,
    pub receivers: usize,
    /// Payload megabits per second each receiver took in (mean over receivers): unique
    /// updates over the longer of the case's time and the time to the last one.
    pub throughput_mbps: f64,
    /// What each receiver would take in if every scheduled update arrived: entities × rate
    /// × payload × 8 / 10⁶ × the senders it hears (N − 1 in N-N).
    pub theoretical_mbps: f64,
    /// Unique updates received / updates published to it, mean over receivers.
    pub reliability: f64,
    /// Over every update received, all receivers together; `None` (null) if none arrived.
    pub mean_latency_us: Option<f64>,
    /// The standard deviation of latency.
    pub jitter_us: Option<f64>,
    /// Updates the senders were to send, and did send, all senders together.
    pub scheduled: u64,
    pub published: u64,
    /// Unique updates received, all receivers together, and copies of ones already had.
    pub received: u64,
    pub duplicates: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct MatrixSummary {
    pub mode: Mode,
    /// Raw runs through a hairpin forwarder: its address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_via: Option<String>,
    pub api: Api,
    pub seconds: f64,
    pub n: usize,
    pub cases: Vec<MatrixCase>,
    /// Cells above `max_theoretical_mbps`, not run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<LeftOut>,
    /// With agents: how send and receipt times were brought onto one clock, and how well.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
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
        let roles = configuration.roles(options.n);
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
                            roles: configuration.roles(options.n),
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
    let progress = super::progress::bar(plans.len() as u64, "matrix cases");
    let mut rows = Vec::new();
    for plan in &plans {
        if options.setup.stopped() {
            break;
        }
        let outcome = case(plan)?;
        let case = summarise(plan, &outcome);
        rows.push(csv_row(&case));
        summary.cases.push(case);
        results.write_summary(&summary)?;
        results.write_csv("matrix.csv", &CSV_HEADER, &rows)?;
        progress.inc(1);
    }
    progress.finish_and_clear();
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    sender: u32,
    entity: u32,
    serial: u64,
    sent_nanos: u64,
}

impl Header {
    fn encode(self, payload: &mut [u8]) {
        payload[..4].copy_from_slice(&self.sender.to_le_bytes());
        payload[4..8].copy_from_slice(&self.entity.to_le_bytes());
        payload[8..16].copy_from_slice(&self.serial.to_le_bytes());
        payload[16..24].copy_from_slice(&self.sent_nanos.to_le_bytes());
    }

    fn decode(payload: &[u8]) -> Option<Header> {
        let u32_at = |at: usize| {
            Some(u32::from_le_bytes(
                payload.get(at..at + 4)?.try_into().ok()?,
            ))
        };
        let u64_at = |at: usize| {
            Some(u64::from_le_bytes(
                payload.get(at..at + 8)?.try_into().ok()?,
            ))
        };
        Some(Header {
            sender: u32_at(0)?,
            entity: u32_at(4)?,
            serial: u64_at(8)?,
            sent_nanos: u64_at(16)?,
        })
    }
}

/// Mean and standard deviation kept as values come (Welford), so that a case of many
/// updates needs no memory per update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Spread {
    count: u64,
    mean: f64,
    /// Sum of squared differences from the mean.
    m2: f64,
}

impl Spread {
    fn add(&mut self, value: f64) {
        self.count += 1;
        let delta = value - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (value - self.mean);
    }

    /// Pool another spread into this one (Chan et al.).
    fn merge(&mut self, other: &Spread) {
        if other.count == 0 {
            return;
        }
        let count = self.count + other.count;
        let delta = other.mean - self.mean;
        self.mean += delta * other.count as f64 / count as f64;
        self.m2 += other.m2 + delta * delta * (self.count * other.count) as f64 / count as f64;
        self.count = count;
    }

    /// Mean and population standard deviation; `None` for no values.
    fn mean_std(&self) -> Option<(f64, f64)> {
        (self.count > 0).then(|| (self.mean, (self.m2 / self.count as f64).max(0.0).sqrt()))
    }
}

/// What one receiver got. Its figures travel from agents; the bits stay where they were
/// counted.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tally {
    /// Per party: a bit per update (entity × tick) that arrived; empty for parties not
    /// heard.
    #[serde(skip)]
    seen: Vec<Vec<u64>>,
    /// Per party: whether its greeting arrived.
    #[serde(skip)]
    greeted: Vec<bool>,
    ticks: u64,
    /// Updates each sender schedules: entities × ticks.
    updates: u64,
    unique: u64,
    duplicates: u64,
    latency_us: Spread,
    /// When the last new update arrived, nanoseconds on the case's clock.
    last_nanos: u64,
}

impl Tally {
    fn new(plan: &CasePlan, heard: impl Iterator<Item = usize>) -> Tally {
        let mut seen = vec![Vec::new(); plan.roles.len()];
        for sender in heard {
            seen[sender] = vec![0; plan.updates_per_sender().div_ceil(64) as usize];
        }
        Tally {
            seen,
            greeted: vec![false; plan.roles.len()],
            ticks: plan.ticks,
            updates: plan.updates_per_sender(),
            unique: 0,
            duplicates: 0,
            latency_us: Spread::default(),
            last_nanos: 0,
        }
    }

    /// Whether every sender this receiver hears has greeted it.
    fn greeted_all(&self) -> bool {
        self.seen
            .iter()
            .zip(&self.greeted)
            .all(|(seen, greeted)| seen.is_empty() || *greeted)
    }

    /// An update with `header`, stamped `stamp`, arrived at `now` (both on the case's
    /// clock). Anything not from a heard sender's schedule is ignored.
    fn record(&mut self, header: Header, stamp: u64, now: u64) {
        let sender = header.sender as usize;
        if header.serial == GREETING {
            if let Some(greeted) = self.greeted.get_mut(sender) {
                *greeted = true;
            }
            return;
        }
        let Some(seen) = self.seen.get_mut(sender) else {
            return;
        };
        if header.serial >= self.ticks {
            return;
        }
        let index = u64::from(header.entity) * self.ticks + header.serial;
        if index >= self.updates {
            return;
        }
        let bit = 1u64 << (index % 64);
        let Some(word) = seen.get_mut((index / 64) as usize) else {
            return;
        };
        if *word & bit != 0 {
            self.duplicates += 1;
            return;
        }
        *word |= bit;
        self.unique += 1;
        self.latency_us.add(now.saturating_sub(stamp) as f64 / 1e3);
        self.last_nanos = self.last_nanos.max(now);
    }

    /// The figures without the bits: what a report carries.
    fn figures(&self) -> Tally {
        Tally {
            seen: Vec::new(),
            greeted: Vec::new(),
            ..*self
        }
    }

    /// Add what another reader of the same receiver counted (from other senders).
    fn absorb(&mut self, other: Tally) {
        self.unique += other.unique;
        self.duplicates += other.duplicates;
        self.latency_us.merge(&other.latency_us);
        self.last_nanos = self.last_nanos.max(other.last_nanos);
    }
}

/// What a case measured: per party, what it published and (receivers) what it got.
pub(crate) struct Outcome {
    /// When sending started, on the case's clock.
    pub(crate) start_nanos: u64,
    pub(crate) published: Vec<u64>,
    pub(crate) tallies: Vec<Option<Tally>>,
}

/// What a party reports to its team: what it published, and (receivers, once drained) the
/// figures of what it got.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PartyReport {
    pub published: u64,
    pub tally: Option<Tally>,
}

/// How the parties of a case coordinate: all in this process, so plain atomics.
struct Shared {
    gate: StartGate,
    published: Vec<AtomicU64>,
    done_sending: Vec<AtomicBool>,
}

impl Shared {
    fn new(parties: usize) -> Shared {
        Shared {
            gate: StartGate::default(),
            published: (0..parties).map(|_| AtomicU64::new(0)).collect(),
            done_sending: (0..parties).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    fn aborted(&self) -> bool {
        self.gate.aborted()
    }

    fn all_sent(&self, senders: impl IntoIterator<Item = usize>) -> bool {
        senders
            .into_iter()
            .all(|s| self.done_sending[s].load(Ordering::SeqCst))
    }

    fn published_by(&self, senders: impl IntoIterator<Item = usize>) -> u64 {
        senders
            .into_iter()
            .map(|s| self.published[s].load(Ordering::SeqCst))
            .sum()
    }
}

/// The parties of one case in this process: threads sharing [`Shared`], faults on the
/// results.
struct InCase<'a> {
    shared: &'a Shared,
    plan: &'a CasePlan,
    results: &'a Results,
}

impl Team<PartyReport> for InCase<'_> {
    fn aborted(&self) -> bool {
        self.shared.aborted()
    }

    fn heard_all(&self, _me: usize) -> Result<(), BenchError> {
        self.shared.gate.heard_all();
        Ok(())
    }

    fn start(&self) -> Result<Option<u64>, BenchError> {
        Ok(self.shared.gate.start())
    }

    fn done_sending(&self, me: usize, report: &PartyReport) -> Result<(), BenchError> {
        self.shared.published[me].store(report.published, Ordering::SeqCst);
        self.shared.done_sending[me].store(true, Ordering::SeqCst);
        Ok(())
    }

    fn sent_by_others(&self, me: usize) -> Result<Option<(u64, u64)>, BenchError> {
        let heard = || self.plan.heard_by(me);
        Ok(self
            .shared
            .all_sent(heard())
            .then(|| (self.shared.published_by(heard()), 0)))
    }

    fn drained(&self, _me: usize, _report: &PartyReport) -> Result<(), BenchError> {
        self.shared.gate.drained_one();
        Ok(())
    }

    fn all_drained(&self) -> Result<bool, BenchError> {
        Ok(self.shared.gate.drained() >= self.plan.receivers().count())
    }

    fn after_measurement(&self, who: &str, step: &str, outcome: Result<(), BenchError>) {
        self.results.after_measurement(who, step, outcome);
    }
}

/// One party's connection to the federation: the HLA services or the node API.
pub(crate) trait Wire: Send {
    /// Update entity `entity` with `payload`, time-stamped `time` (on the case's clock).
    fn update(&mut self, entity: usize, payload: &[u8], time: u64) -> Result<(), BenchError>;
    /// The next update's header and the time stamp it carried, waiting at most `timeout`.
    fn recv(&mut self, timeout: Duration) -> Result<Option<(Header, u64)>, BenchError>;
    fn leave(&mut self) -> Result<(), BenchError>;
}

/// A federate: one Vehicle per entity, updating its Position.
struct FederateWire {
    rti: RtiAmbassador,
    objects: Vec<ObjectId>,
    position: AttributeHandle,
    class: TransportClass,
}

impl Wire for FederateWire {
    fn update(&mut self, entity: usize, payload: &[u8], time: u64) -> Result<(), BenchError> {
        let options = SendOptions {
            time: Some(time),
            transport: Some(self.class),
            region: None,
        };
        Ok(self.rti.update_attribute_values_with(
            self.objects[entity],
            &[(self.position, payload)],
            b"",
            &options,
        )?)
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<(Header, u64)>, BenchError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rti.evoke_callback(left)? {
                Some(Callback::ReflectAttributeValues { values, time, .. }) => {
                    if let Some(header) = values.first().and_then(|(_, v)| Header::decode(v)) {
                        return Ok(Some((header, time)));
                    }
                }
                Some(_) => {}
                None => return Ok(None),
            }
        }
    }

    fn leave(&mut self) -> Result<(), BenchError> {
        Ok(self
            .rti
            .resign_federation_execution(trellis_net::rti::ResignAction::default())?)
    }
}

/// A node: updates are payloads on one interest id, the send time in the header.
struct NodeWire {
    node: DirectNode,
    class: TransportClass,
}

impl Wire for NodeWire {
    fn update(&mut self, _entity: usize, payload: &[u8], _time: u64) -> Result<(), BenchError> {
        Ok(self.node.publish(&[DATA_ID], self.class, payload)?)
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<(Header, u64)>, BenchError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.node.recv_timeout(left)? {
                Some(message) => {
                    if let Some(header) = Header::decode(message.payload()) {
                        return Ok(Some((header, header.sent_nanos)));
                    }
                }
                None => return Ok(None),
            }
        }
    }

    fn leave(&mut self) -> Result<(), BenchError> {
        Ok(())
    }
}

/// Party `party` of the case at `place`: a federate with a federation, a node without.
pub(crate) fn wire(
    network: &Network,
    federation: Option<&Federation>,
    place: &str,
    plan: &CasePlan,
    party: usize,
) -> Result<Box<dyn Wire>, BenchError> {
    let role = plan.roles[party];
    let class = plan.transport.class();
    let Some(federation) = federation else {
        let mut node = network.direct_node(place)?;
        if role.receives {
            node.subscribe(&ids([DATA_ID]))?;
        }
        return Ok(Box::new(NodeWire { node, class }));
    };
    let mut rti = network.federate(federation, place, Driver::Direct)?;
    let vehicle = rti.object_class_handle("Vehicle")?;
    let position = rti.attribute_handle(vehicle, "Position")?;
    let mut objects = Vec::new();
    if role.sends {
        rti.publish_object_class_attributes(vehicle, &[position])?;
        for _ in 0..plan.entities {
            objects.push(rti.register_object_instance(vehicle)?);
        }
    }
    if role.receives {
        rti.subscribe_object_class_attributes(vehicle, &[position])?;
    }
    Ok(Box::new(FederateWire {
        rti,
        objects,
        position,
        class,
    }))
}

/// A case through Trellis: a network of its own (so best-effort cases get UDP), one
/// thread per party, each driving its own federate or node.
fn trellis_case(
    setup: &Setup,
    plan: &CasePlan,
    clock: Clock,
    results: &Results,
) -> Result<Outcome, BenchError> {
    let setup = Setup {
        transport: plan.transport,
        ..setup.clone()
    };
    let network = Network::start(&setup)?;
    let places = network.attachments().take(plan.roles.len())?;
    let federation = match setup.api {
        Api::Federate => Some(network.federation(&places[0])?),
        Api::Node => None,
    };
    let mut wires = Vec::new();
    for (party, place) in places.iter().enumerate() {
        wires.push(wire(&network, federation.as_ref(), place, plan, party)?);
    }
    let shared = Shared::new(plan.roles.len());
    let team = InCase {
        shared: &shared,
        plan,
        results,
    };
    let parties = std::thread::scope(|scope| {
        let threads: Vec<_> = wires
            .into_iter()
            .enumerate()
            .map(|(party, mut wire)| {
                let (shared, team) = (&shared, &team);
                scope.spawn(move || {
                    let outcome = party_run(wire.as_mut(), party, plan, team, clock);
                    match outcome {
                        Err(_) => shared.gate.abort(),
                        Ok(Some(_)) => party_leave(wire.as_mut(), party, plan, team, clock),
                        // Stopped because another party failed: that failure ends the case.
                        Ok(None) => {}
                    }
                    outcome
                })
            })
            .collect();
        let receivers = plan.receivers().count();
        let started = shared
            .gate
            .start_when_ready(receivers, clock, "receivers and senders");
        let mut parties = Vec::new();
        for thread in threads {
            parties.push(
                thread
                    .join()
                    .map_err(|_| BenchError::Failed("a matrix party panicked".into()))
                    .and_then(|outcome| outcome),
            );
        }
        started.map(|()| parties)
    })?;
    // A failure is the cause; parties that stopped because of it have nothing to add.
    let parties = parties.into_iter().collect::<Result<Vec<_>, _>>()?;
    let mut outcome = Outcome {
        start_nanos: shared.gate.start_nanos(),
        published: Vec::new(),
        tallies: Vec::new(),
    };
    for party in parties {
        let (published, tally) = party.ok_or_else(|| {
            BenchError::Failed("a matrix party stopped before the case ended".into())
        })?;
        outcome.published.push(published);
        outcome.tallies.push(tally);
    }
    Ok(outcome)
}

/// Receive one update within `timeout` into `tally`, if this party keeps one. Reading
/// also drives the party's node, which a sender needs as much as a receiver does.
fn receive(
    wire: &mut dyn Wire,
    tally: &mut Option<Tally>,
    timeout: Duration,
    clock: Clock,
) -> Result<bool, BenchError> {
    let Some((header, stamp)) = wire.recv(timeout)? else {
        return Ok(false);
    };
    let now = clock.nanos();
    if let Some(tally) = tally {
        tally.record(header, stamp, now);
    }
    Ok(true)
}

/// What a party published, and what it received (receivers); `None` when it stopped
/// because another party failed.
pub(crate) type PartyOutcome = Option<(u64, Option<Tally>)>;

/// One party through a case: greet until the start is set, send on the deadline schedule,
/// and wait for stragglers ([`party_leave`] follows).
pub(crate) fn party_run<T: Team<PartyReport> + ?Sized>(
    wire: &mut dyn Wire,
    party: usize,
    plan: &CasePlan,
    team: &T,
    clock: Clock,
) -> Result<PartyOutcome, BenchError> {
    let role = plan.roles[party];
    let mut tally = role
        .receives
        .then(|| Tally::new(plan, plan.heard_by(party)));
    let mut payload = vec![0xA5u8; plan.size];
    let mut header = Header {
        sender: party as u32,
        entity: 0,
        serial: GREETING,
        sent_nanos: 0,
    };

    // Greetings until every receiver has heard every sender and the start is set.
    let setup_limit = Instant::now() + SETUP_TIMEOUT + Duration::from_secs(1);
    let mut counted_ready = false;
    let mut next_greeting = Instant::now();
    let start_nanos = loop {
        if team.aborted() {
            return Ok(None);
        }
        if let Some(start) = team.start()? {
            break start;
        }
        if Instant::now() > setup_limit {
            return Err(BenchError::Failed(format!(
                "party {party} saw no start within {SETUP_TIMEOUT:?}"
            )));
        }
        if role.sends && Instant::now() >= next_greeting {
            header.sent_nanos = clock.nanos();
            header.encode(&mut payload);
            wire.update(0, &payload, header.sent_nanos)?;
            next_greeting = Instant::now() + GREETING_EVERY;
        }
        receive(wire, &mut tally, GREETING_EVERY, clock)?;
        if !counted_ready && tally.as_ref().is_some_and(Tally::greeted_all) {
            counted_ready = true;
            team.heard_all(party)?;
        }
    };
    let start = clock.instant(start_nanos);

    let mut published = 0u64;
    if role.sends {
        let give_up = start + plan.overrun();
        for tick in 0..plan.ticks {
            // Waiting by reading: a send may leave up to a poll granule (1 ms) late, but
            // its stamp is taken as it leaves, and later deadlines do not move.
            let due = deadline(start, tick, plan.rate_hz);
            loop {
                let left = due.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                receive(wire, &mut tally, left, clock)?;
            }
            if team.aborted() {
                return Ok(None);
            }
            if Instant::now() > give_up {
                break;
            }
            header.serial = tick;
            for entity in 0..plan.entities {
                header.entity = entity as u32;
                header.sent_nanos = clock.nanos();
                header.encode(&mut payload);
                wire.update(entity, &payload, header.sent_nanos)?;
                published += 1;
            }
        }
    }
    let sent = PartyReport {
        published,
        tally: None,
    };
    team.done_sending(party, &sent)?;

    if role.receives {
        let limit = start + plan.overrun() + STRAGGLER_LIMIT;
        let mut senders_done: Option<Instant> = None;
        let mut expected = None;
        let mut last_receipt = Instant::now();
        loop {
            if team.aborted() {
                return Ok(None);
            }
            if Instant::now() > limit {
                break;
            }
            if expected.is_none() {
                expected = team.sent_by_others(party)?.map(|(updates, _)| updates);
            }
            if let Some(expected) = expected {
                let done = *senders_done.get_or_insert_with(Instant::now);
                let unique = tally.as_ref().map_or(0, |t| t.unique);
                if unique >= expected
                    || last_receipt.max(done).elapsed() > STRAGGLER_QUIET
                    || done.elapsed() > STRAGGLER_LIMIT
                {
                    break;
                }
            }
            if receive(wire, &mut tally, RECEIVE_POLL, clock)? {
                last_receipt = Instant::now();
            }
        }
        let got = PartyReport {
            published,
            tally: tally.as_ref().map(Tally::figures),
        };
        team.drained(party, &got)?;
    }
    Ok(Some((published, tally)))
}

/// After the measurement, linger and leave: a failure is a fault on `results`, and the
/// party's figures stay.
pub(crate) fn party_leave<T: Team<PartyReport> + ?Sized>(
    wire: &mut dyn Wire,
    party: usize,
    plan: &CasePlan,
    team: &T,
    clock: Clock,
) {
    let who = format!("party-{}", party + 1);
    match linger(wire, plan, team, clock) {
        Ok(()) => team.after_measurement(&who, "leave", wire.leave()),
        Err(e) => team.after_measurement(&who, "lingering", Err(e)),
    }
}

/// Frames still queued leave only while the node is driven: keep it going until every
/// receiver is done (their waits are bounded, and so is this one).
fn linger<T: Team<PartyReport> + ?Sized>(
    wire: &mut dyn Wire,
    plan: &CasePlan,
    team: &T,
    clock: Clock,
) -> Result<(), BenchError> {
    let linger_limit = Instant::now() + plan.overrun() + STRAGGLER_LIMIT;
    while !team.all_drained()? && !team.aborted() && Instant::now() < linger_limit {
        receive(wire, &mut None, RECEIVE_POLL, clock)?;
    }
    Ok(())
}

/// A case over plain sockets: a connection (TCP) or socket pair (UDP) per sender and
/// receiver it serves, so N-1 and N-N work as 1-1 and 1-N do; a thread per sender and
/// one per pair reading. With `via`, each pair goes through that hairpin forwarder.
fn raw_case(
    raw: Raw,
    via: Option<SocketAddr>,
    plan: &CasePlan,
    clock: Clock,
) -> Result<Outcome, BenchError> {
    let parties = plan.roles.len();
    let mut outgoing: Vec<Vec<Box<dyn Side>>> = (0..parties).map(|_| Vec::new()).collect();
    let mut incoming: Vec<(usize, usize, Box<dyn Side>)> = Vec::new();
    for receiver in plan.receivers() {
        for sender in plan.heard_by(receiver) {
            let (out, into): (Box<dyn Side>, Box<dyn Side>) = match (raw, via) {
                (Raw::Tcp, None) => {
                    let (a, b) = tcp_pair()?;
                    (Box::new(a), Box::new(b))
                }
                (Raw::Udp, None) => {
                    let (a, b) = udp_pair()?;
                    (Box::new(a), Box::new(b))
                }
                (Raw::Tcp, Some(via)) => {
                    let (a, b) = tcp_pair_via(via)?;
                    (Box::new(a), Box::new(b))
                }
                (Raw::Udp, Some(via)) => {
                    let (a, b) = udp_pair_via(via)?;
                    (Box::new(a), Box::new(b))
                }
            };
            outgoing[sender].push(out);
            incoming.push((receiver, sender, into));
        }
    }
    let shared = Shared::new(parties);
    let start_nanos = clock.nanos() + START_LEAD.as_nanos() as u64;
    shared.gate.set_start(start_nanos);
    let (published, pair_tallies) = std::thread::scope(|scope| {
        let shared = &shared;
        let senders: Vec<_> = outgoing
            .into_iter()
            .enumerate()
            .filter(|(party, _)| plan.roles[*party].sends)
            .map(|(party, mut sides)| {
                scope.spawn(move || {
                    let _done = RaiseOnDrop(&shared.done_sending[party]);
                    let sent = raw_send(&mut sides, party, plan, clock, start_nanos);
                    if let Ok(published) = sent {
                        shared.published[party].store(published, Ordering::SeqCst);
                    } else {
                        shared.gate.abort();
                    }
                    sent
                })
            })
            .collect();
        let readers: Vec<_> = incoming
            .into_iter()
            .map(|(receiver, sender, mut side)| {
                scope.spawn(move || {
                    let tally = raw_read(side.as_mut(), sender, plan, shared, clock);
                    tally.map(|t| (receiver, t))
                })
            })
            .collect();
        let panicked = || BenchError::Failed("a raw matrix thread panicked".into());
        let mut published = vec![0u64; parties];
        for thread in senders {
            thread.join().map_err(|_| panicked())??;
        }
        for (party, count) in published.iter_mut().enumerate() {
            *count = shared.published[party].load(Ordering::SeqCst);
        }
        let mut tallies = Vec::new();
        for thread in readers {
            tallies.push(thread.join().map_err(|_| panicked())??);
        }
        Ok::<_, BenchError>((published, tallies))
    })?;
    let mut tallies: Vec<Option<Tally>> = (0..parties)
        .map(|party| {
            plan.roles[party]
                .receives
                .then(|| Tally::new(plan, std::iter::empty()))
        })
        .collect();
    for (receiver, pair) in pair_tallies {
        if let Some(tally) = &mut tallies[receiver] {
            tally.absorb(pair);
        }
    }
    Ok(Outcome {
        start_nanos,
        published,
        tallies,
    })
}

/// A raw sender: every tick, every entity's update to every receiver it serves.
fn raw_send(
    sides: &mut [Box<dyn Side>],
    party: usize,
    plan: &CasePlan,
    clock: Clock,
    start_nanos: u64,
) -> Result<u64, BenchError> {
    let mut payload = vec![0xA5u8; plan.size];
    let start = clock.instant(start_nanos);
    let give_up = start + plan.overrun();
    let mut published = 0;
    for tick in 0..plan.ticks {
        std::thread::sleep(
            deadline(start, tick, plan.rate_hz).saturating_duration_since(Instant::now()),
        );
        if Instant::now() > give_up {
            break;
        }
        for entity in 0..plan.entities {
            let header = Header {
                sender: party as u32,
                entity: entity as u32,
                serial: tick,
                sent_nanos: clock.nanos(),
            };
            header.encode(&mut payload);
            for side in sides.iter_mut() {
                side.send(&payload)?;
            }
            published += 1;
        }
    }
    Ok(published)
}

/// A raw reader of one sender's updates to one receiver, until that sender is done and
/// stragglers stop coming.
fn raw_read(
    side: &mut dyn Side,
    sender: usize,
    plan: &CasePlan,
    shared: &Shared,
    clock: Clock,
) -> Result<Tally, BenchError> {
    let mut tally = Tally::new(plan, std::iter::once(sender));
    let start = clock.instant(shared.gate.start_nanos());
    let limit = start + plan.overrun() + STRAGGLER_LIMIT;
    let mut sender_done: Option<Instant> = None;
    let mut last_receipt = Instant::now();
    while Instant::now() < limit && !shared.aborted() {
        if shared.done_sending[sender].load(Ordering::SeqCst) {
            let done = *sender_done.get_or_insert_with(Instant::now);
            let expected = shared.published[sender].load(Ordering::SeqCst);
            if tally.unique >= expected
                || last_receipt.max(done).elapsed() > STRAGGLER_QUIET
                || done.elapsed() > STRAGGLER_LIMIT
            {
                break;
            }
        }
        if let Some(payload) = side.recv(RECEIVE_POLL)? {
            let now = clock.nanos();
            if let Some(header) = Header::decode(&payload) {
                tally.record(header, header.sent_nanos, now);
                last_receipt = Instant::now();
            }
        }
    }
    Ok(tally)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(configuration: Configuration) -> CasePlan {
        CasePlan {
            entities: 2,
            rate_hz: 10.0,
            size: 64,
            transport: Transport::Reliable,
            configuration,
            roles: configuration.roles(3),
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

    #[test]
    fn a_spread_pools_like_one_long_series() {
        let values = [3.0, 5.0, 7.5, 1.0, 12.0, 4.25];
        let mut whole = Spread::default();
        values.iter().for_each(|&v| whole.add(v));
        let (mut left, mut right) = (Spread::default(), Spread::default());
        values[..2].iter().for_each(|&v| left.add(v));
        values[2..].iter().for_each(|&v| right.add(v));
        left.merge(&right);
        let (mean, std) = mean_std(&values).unwrap();
        for spread in [whole, left] {
            let (m, s) = spread.mean_std().unwrap();
            assert!((m - mean).abs() < 1e-12 && (s - std).abs() < 1e-12);
        }
        assert_eq!(Spread::default().mean_std(), None);
    }

    #[test]
    fn a_tally_counts_unique_updates_once() {
        let plan = plan(Configuration::OneToOne);
        let mut tally = Tally::new(&plan, plan.heard_by(1));
        let header = |entity, serial| Header {
            sender: 0,
            entity,
            serial,
            sent_nanos: 0,
        };
        assert!(!tally.greeted_all());
        tally.record(header(0, GREETING), 0, 10);
        assert!(tally.greeted_all());
        tally.record(header(1, 4), 1_000, 3_000);
        tally.record(header(1, 4), 1_000, 4_000);
        tally.record(header(2, 0), 1_000, 4_000);
        tally.record(header(0, 5), 1_000, 4_000);
        tally.record(
            Header {
                sender: 1,
                ..header(0, 0)
            },
            0,
            1,
        );
        assert_eq!((tally.unique, tally.duplicates), (1, 1));
        assert_eq!(tally.latency_us.mean_std(), Some((2.0, 0.0)));
        let mut payload = vec![0u8; HEADER_BYTES];
        header(7, 9).encode(&mut payload);
        assert_eq!(Header::decode(&payload), Some(header(7, 9)));
    }
}
