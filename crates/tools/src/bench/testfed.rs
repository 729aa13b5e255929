//! JADS testfed: several load federates, each publishing its own number of attribute updates
//! at its own rate and value size, interactions at its own rate, after a ramp-up at a low
//! rate (the paper's -w option: federates that all started at full rate at once lost data
//! at the start). Every load federate subscribes to the others and counts what it
//! receives, and how late.
//!
//! Configured by a TOML file:
//!
//! ```toml
//! seconds = 20            # the whole run, ramps included
//!
//! [[federate]]
//! name = "afewes"
//! attributes = 11         # attribute updates per tick, one Vehicle each
//! rate_hz = 20
//! size = 121              # bytes per attribute value and per interaction
//! interaction_rate_hz = 1 # optional, default 0 (none)
//! ramp_seconds = 5        # optional, default 0 (full rate from the start)
//! ramp_rate_hz = 1        # optional, default 1
//! ```
//!
//! Attribute updates travel with the run's transport; interactions are reliable, as the
//! paper's were.
//!
//! The load federates coordinate (heard everyone, start, done sending, drained) through a
//! [`Team`]: in one process, atomics shared by their threads; with agents
//! (`agents::testfed`), their coordinator. Both run the same per-federate code ([`Run`]).

use super::network::{Federation, Network, SETUP_TIMEOUT};
use super::oneway::Clock;
use super::results::Results;
use super::team::{StartGate, Team};
use super::{Api, BenchError, Mode, Setup, Transport};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, ObjectId};
use trellis_core::fom::{AttributeHandle, InteractionClassHandle, ParameterHandle};
use trellis_monitor::metrics::FederateBoard;
use trellis_net::rti::{Driver, RtiAmbassador, SendOptions};

mod config;
mod report;

pub use config::{LoadFederate, TestfedConfig, DEFAULT_SECONDS};
pub use report::table;
use report::{csv_rows, CSV_HEADER};

/// The tag of greetings, sent until every federate hears every other; measured traffic
/// carries [`LOAD_TAG`], so late greetings are never counted.
const GREETING_TAG: &[u8] = b"greeting";
const LOAD_TAG: &[u8] = b"load";
const GREETING_EVERY: Duration = Duration::from_millis(10);
/// After everyone stops sending, receivers wait for stragglers while they keep coming, until
/// none came for this long, and never longer than the limit.
const STRAGGLER_QUIET: Duration = Duration::from_millis(500);
pub(crate) const STRAGGLER_LIMIT: Duration = Duration::from_secs(10);
const RECEIVE_POLL: Duration = Duration::from_millis(10);

#[derive(Clone, Debug)]
pub struct TestfedOptions {
    pub setup: Setup,
    pub config: TestfedConfig,
    /// Where each load federate publishes its figures (objects, updates, reflects …) a few
    /// times a second, for a `/metrics` server (`trellis bench testfed --metrics`).
    pub figures: Option<FederateBoard>,
}

/// How often a load federate publishes its figures to [`TestfedOptions::figures`].
const FIGURES_EVERY: Duration = Duration::from_millis(250);

pub use crate::results::testfed::{FederateResult, TestfedSummary};

struct Ticks {
    ramp_seconds: f64,
    ramp_rate_hz: f64,
    rate_hz: f64,
    seconds: f64,
    ramp_ticks: u64,
    full_ticks: u64,
}

impl Ticks {
    fn new(load: &LoadFederate, seconds: f64) -> Ticks {
        Ticks {
            ramp_seconds: load.ramp_seconds,
            ramp_rate_hz: load.ramp_rate_hz,
            rate_hz: load.rate_hz,
            seconds,
            ramp_ticks: 0,
            full_ticks: 0,
        }
    }

    /// The next tick: when, and whether it falls in the ramp; `None` after the end.
    fn next(&self) -> Option<(f64, bool)> {
        let ramp_tick = self.ramp_ticks as f64 / self.ramp_rate_hz;
        if ramp_tick < self.ramp_seconds {
            return Some((ramp_tick, true));
        }
        let full_tick = self.ramp_seconds + self.full_ticks as f64 / self.rate_hz;
        (full_tick < self.seconds).then_some((full_tick, false))
    }

    fn advance(&mut self, in_ramp: bool) {
        if in_ramp {
            self.ramp_ticks += 1;
        } else {
            self.full_ticks += 1;
        }
    }
}

/// Running latency figures, in microseconds.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Latency {
    count: u64,
    sum_us: f64,
    max_us: f64,
}

impl Latency {
    fn record(&mut self, sent_nanos: u64, received_nanos: u64) {
        let us = received_nanos.saturating_sub(sent_nanos) as f64 / 1e3;
        self.count += 1;
        self.sum_us += us;
        self.max_us = self.max_us.max(us);
    }

    fn mean_us(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum_us / self.count as f64)
    }

    fn max_us(&self) -> Option<f64> {
        (self.count > 0).then_some(self.max_us)
    }
}

/// What one load federate did and got.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Counts {
    updates_sent: u64,
    ramp_updates_sent: u64,
    interactions_sent: u64,
    updates: Latency,
    interactions: Latency,
}

/// How the federates coordinate: all in this process, so plain atomics.
struct Shared {
    gate: StartGate,
    updates_sent: Vec<AtomicU64>,
    interactions_sent: Vec<AtomicU64>,
    done_sending: AtomicUsize,
}

impl Shared {
    fn aborted(&self) -> bool {
        self.gate.aborted()
    }
}

/// The federates of one process: threads sharing [`Shared`], faults on the results.
struct InProcess<'a> {
    shared: &'a Shared,
    results: &'a Results,
}

impl Team<Counts> for InProcess<'_> {
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

    fn done_sending(&self, me: usize, counts: &Counts) -> Result<(), BenchError> {
        let shared = self.shared;
        shared.updates_sent[me].store(counts.updates_sent, Ordering::SeqCst);
        shared.interactions_sent[me].store(counts.interactions_sent, Ordering::SeqCst);
        shared.done_sending.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    fn sent_by_others(&self, me: usize) -> Result<Option<(u64, u64)>, BenchError> {
        let shared = self.shared;
        if shared.done_sending.load(Ordering::SeqCst) < shared.updates_sent.len() {
            return Ok(None);
        }
        let others = |counts: &[AtomicU64]| -> u64 {
            counts
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != me)
                .map(|(_, c)| c.load(Ordering::SeqCst))
                .sum()
        };
        Ok(Some((
            others(&shared.updates_sent),
            others(&shared.interactions_sent),
        )))
    }

    fn drained(&self, _me: usize, _counts: &Counts) -> Result<(), BenchError> {
        self.shared.gate.drained_one();
        Ok(())
    }

    fn all_drained(&self) -> Result<bool, BenchError> {
        let shared = self.shared;
        Ok(shared.gate.drained() >= shared.updates_sent.len())
    }

    fn after_measurement(&self, who: &str, step: &str, outcome: Result<(), BenchError>) {
        self.results.after_measurement(who, step, outcome);
    }
}

/// A joined load federate and its handles.
pub(crate) struct Load {
    rti: RtiAmbassador,
    /// When the figures are next published.
    figures_due: Instant,
    objects: Vec<ObjectId>,
    position: AttributeHandle,
    radio: InteractionClassHandle,
    sender: ParameterHandle,
    text: ParameterHandle,
}

pub(crate) fn join(
    network: &Network,
    federation: &Federation,
    at: &str,
    load: &LoadFederate,
) -> Result<Load, BenchError> {
    let mut rti = network.federate(federation, at, Driver::Direct, true)?;
    let vehicle = rti.object_class_handle("Vehicle")?;
    let position = rti.attribute_handle(vehicle, "Position")?;
    let radio = rti.interaction_class_handle("Radio")?;
    let sender = rti.parameter_handle(radio, "Sender")?;
    let text = rti.parameter_handle(radio, "Text")?;
    // Attributes before interactions: interest travels in order, so a federate that hears
    // another's greeting (an interaction) also has its attribute subscription in place.
    rti.subscribe_object_class_attributes(vehicle, &[position])?;
    rti.subscribe_interaction_class(radio)?;
    rti.publish_object_class_attributes(vehicle, &[position])?;
    rti.publish_interaction_class(radio)?;
    let mut objects = Vec::with_capacity(load.attributes);
    for _ in 0..load.attributes {
        objects.push(rti.register_object_instance(vehicle)?);
    }
    Ok(Load {
        rti,
        figures_due: Instant::now(),
        objects,
        position,
        radio,
        sender,
        text,
    })
}

/// The configuration checked, and a run of it possible (the federate API).
pub(crate) fn validate(options: &TestfedOptions) -> Result<(), BenchError> {
    options.config.validate().map_err(BenchError::Failed)?;
    if options.setup.api == Api::Node {
        return Err(BenchError::Failed(
            "testfed exercises the HLA services (attribute updates and interactions); it has no node-API form"
                .into(),
        ));
    }
    Ok(())
}

/// A summary of no federates yet.
pub(crate) fn empty_summary(options: &TestfedOptions) -> TestfedSummary {
    TestfedSummary {
        mode: Mode::Trellis,
        api: options.setup.api,
        transport: options.setup.transport,
        seconds: options.config.seconds,
        federates: Vec::new(),
        clock: None,
    }
}

pub fn run(options: &TestfedOptions, results: &Results) -> Result<TestfedSummary, BenchError> {
    validate(options)?;
    let config = &options.config;
    let setup = &options.setup;
    let summary = empty_summary(options);
    if setup.stopped() {
        return Ok(summary);
    }
    let n = config.federates.len();
    let network = Network::start(setup)?;
    let places = network.attachments().take(n)?;
    let federation = network.federation(&places[0])?;
    let mut loads = Vec::with_capacity(n);
    for (place, load) in places.iter().zip(&config.federates) {
        loads.push(join(&network, &federation, place, load)?);
    }
    let shared = Shared {
        gate: StartGate::default(),
        updates_sent: (0..n).map(|_| AtomicU64::new(0)).collect(),
        interactions_sent: (0..n).map(|_| AtomicU64::new(0)).collect(),
        done_sending: AtomicUsize::new(0),
    };
    let clock = Clock::start();
    let team = InProcess {
        shared: &shared,
        results,
    };
    let outcomes = std::thread::scope(|scope| {
        let (shared, team) = (&shared, &team);
        let threads: Vec<_> = loads
            .into_iter()
            .enumerate()
            .map(|(me, mut load)| {
                let part = Run {
                    me,
                    config,
                    transport: setup.transport,
                    team,
                    clock,
                    stop: &setup.stop,
                    figures: options.figures.as_ref(),
                };
                scope.spawn(move || {
                    let outcome = part.federate(&mut load);
                    if outcome.is_err() {
                        shared.gate.abort();
                    }
                    outcome
                })
            })
            .collect();
        let started = shared.gate.start_when_ready(n, clock, "load federates");
        if started.is_ok() {
            follow(shared, n, config.seconds, clock);
        }
        let mut outcomes = Vec::new();
        for thread in threads {
            outcomes.push(
                thread
                    .join()
                    .map_err(|_| BenchError::Failed("a load federate panicked".into()))
                    .and_then(|outcome| outcome),
            );
        }
        started.map(|()| outcomes)
    })?;
    // A failure is the cause; federates that stopped because of it have nothing to add.
    let outcomes = outcomes.into_iter().collect::<Result<Vec<_>, _>>()?;
    let mut counts = Vec::with_capacity(n);
    for (load, outcome) in config.federates.iter().zip(outcomes) {
        counts.push(outcome.ok_or_else(|| {
            BenchError::Failed(format!("load federate {:?} stopped early", load.name))
        })?);
    }
    summarise(summary, config, &places, &counts, results)
}

/// The run's results from each federate's counts (in the order of the configuration, at
/// `places`): what each missed is what the others sent that it did not get. Written as
/// the summary and `testfed.csv`.
pub(crate) fn summarise(
    mut summary: TestfedSummary,
    config: &TestfedConfig,
    places: &[String],
    counts: &[Counts],
    results: &Results,
) -> Result<TestfedSummary, BenchError> {
    let everyone = counts;
    for (me, ((load, place), counts)) in config
        .federates
        .iter()
        .zip(places)
        .zip(everyone)
        .enumerate()
    {
        let (updates_expected, interactions_expected) = sent_by_others(everyone, me);
        summary.federates.push(FederateResult {
            name: load.name.clone(),
            at: place.clone(),
            attributes: load.attributes,
            rate_hz: load.rate_hz,
            size: load.size,
            interaction_rate_hz: load.interaction_rate_hz,
            ramp_seconds: load.ramp_seconds,
            ramp_rate_hz: load.ramp_rate_hz,
            updates_sent: counts.updates_sent,
            ramp_updates_sent: counts.ramp_updates_sent,
            interactions_sent: counts.interactions_sent,
            updates_received: counts.updates.count,
            interactions_received: counts.interactions.count,
            updates_missing: updates_expected.saturating_sub(counts.updates.count),
            interactions_missing: interactions_expected.saturating_sub(counts.interactions.count),
            update_latency_mean_us: counts.updates.mean_us(),
            update_latency_max_us: counts.updates.max_us(),
            interaction_latency_mean_us: counts.interactions.mean_us(),
            interaction_latency_max_us: counts.interactions.max_us(),
        });
    }
    results.write_summary(&summary)?;
    results.write_csv("testfed.csv", &CSV_HEADER, &csv_rows(&summary))?;
    Ok(summary)
}

/// What every federate but `me` sent: updates and interactions.
pub(crate) fn sent_by_others(counts: &[Counts], me: usize) -> (u64, u64) {
    let others = || counts.iter().enumerate().filter(move |(i, _)| *i != me);
    (
        others().map(|(_, c)| c.updates_sent).sum(),
        others().map(|(_, c)| c.interactions_sent).sum(),
    )
}

/// Show the run's progress while the federates send.
fn follow(shared: &Shared, n: usize, seconds: f64, clock: Clock) {
    let progress = super::progress::bar(seconds.ceil() as u64, "testfed seconds");
    let start = clock.instant(shared.gate.start_nanos());
    let limit = start + Duration::from_secs_f64(seconds) + STRAGGLER_LIMIT;
    while shared.done_sending.load(Ordering::SeqCst) < n
        && !shared.aborted()
        && Instant::now() < limit
    {
        progress.set_position(start.elapsed().as_secs());
        std::thread::sleep(Duration::from_millis(100));
    }
    progress.finish_and_clear();
}

/// One load federate's part of the run.
pub(crate) struct Run<'a, T: Team<Counts> + ?Sized> {
    pub(crate) me: usize,
    pub(crate) config: &'a TestfedConfig,
    pub(crate) transport: Transport,
    /// The others, and where faults after the measurement go.
    pub(crate) team: &'a T,
    pub(crate) clock: Clock,
    /// Ctrl-C: stop sending, count what arrived, report.
    pub(crate) stop: &'a AtomicBool,
    pub(crate) figures: Option<&'a FederateBoard>,
}

impl<T: Team<Counts> + ?Sized> Run<'_, T> {
    fn load(&self) -> &LoadFederate {
        &self.config.federates[self.me]
    }

    /// Greet until the start, send the load, wait for stragglers, then leave. `None` when
    /// another federate failed.
    pub(crate) fn federate(&self, load: &mut Load) -> Result<Option<Counts>, BenchError> {
        let mut counts = Counts::default();
        let Some(start) = self.greet(load, &mut counts)? else {
            return Ok(None);
        };
        if !self.send(load, &mut counts, start)? {
            return Ok(None);
        }
        self.team.done_sending(self.me, &counts)?;
        if !self.drain(load, &mut counts, start)? {
            return Ok(None);
        }
        self.team.drained(self.me, &counts)?;
        self.leave(load);
        Ok(Some(counts))
    }

    /// Linger, then resign: both come after the measurement, so a failure is a fault
    /// recorded on the results, and the counts stay.
    fn leave(&self, load: &mut Load) {
        if let Some(board) = self.figures {
            board.publish_from(&load.rti); // the final counts, before resigning
        }
        let who = format!("load federate {:?}", self.load().name);
        match self.linger(load) {
            Ok(()) => {
                let resigned = load
                    .rti
                    .resign_federation_execution(trellis_net::rti::ResignAction::default());
                self.team
                    .after_measurement(&who, "resign", resigned.map_err(BenchError::from));
            }
            Err(e) => self.team.after_measurement(&who, "lingering", Err(e)),
        }
    }

    /// Frames still queued leave only while the node is driven: keep it going until every
    /// federate is done (bounded).
    fn linger(&self, load: &mut Load) -> Result<(), BenchError> {
        let limit = Instant::now() + STRAGGLER_LIMIT;
        while !self.team.all_drained()? && !self.team.aborted() && Instant::now() < limit {
            load.rti.evoke_callback(RECEIVE_POLL)?;
        }
        Ok(())
    }

    /// Greetings until every federate heard every other and the start is set; the start.
    fn greet(&self, load: &mut Load, counts: &mut Counts) -> Result<Option<Instant>, BenchError> {
        let others = self.config.federates.len() - 1;
        let mut greeted = BTreeSet::new();
        let mut counted_ready = false;
        let mut next_greeting = Instant::now();
        let limit = Instant::now() + SETUP_TIMEOUT + Duration::from_secs(1);
        loop {
            if self.team.aborted() {
                return Ok(None);
            }
            if let Some(start) = self.team.start()? {
                return Ok(Some(self.clock.instant(start)));
            }
            if Instant::now() > limit {
                return Err(BenchError::Failed(format!(
                    "load federate {:?} saw no start within {SETUP_TIMEOUT:?}",
                    self.load().name
                )));
            }
            if Instant::now() >= next_greeting {
                self.interaction(load, GREETING_TAG, &[])?;
                next_greeting = Instant::now() + GREETING_EVERY;
            }
            if let Some(sender) = self.receive(load, counts, GREETING_EVERY)? {
                greeted.insert(sender);
            }
            if !counted_ready && greeted.len() >= others {
                counted_ready = true;
                self.team.heard_all(self.me)?;
            }
        }
    }

    /// The load: attribute ticks (ramp, then full rate) and interactions, each on its own
    /// deadline schedule, receiving between them. False when another federate failed.
    fn send(
        &self,
        load: &mut Load,
        counts: &mut Counts,
        start: Instant,
    ) -> Result<bool, BenchError> {
        let federate = self.load();
        let mut ticks = Ticks::new(federate, self.config.seconds);
        let mut interactions_sent = 0u64;
        let next_interaction = |sent: u64| {
            let at = sent as f64 / federate.interaction_rate_hz;
            (federate.interaction_rate_hz > 0.0 && at < self.config.seconds).then_some(at)
        };
        let value = vec![0xA5u8; federate.size];
        let update_options = SendOptions {
            transport: Some(self.transport.class()),
            ..Default::default()
        };
        let at = |seconds: f64| start + Duration::from_secs_f64(seconds);
        loop {
            if self.team.aborted() {
                return Ok(false);
            }
            if self.stop.load(Ordering::SeqCst) {
                return Ok(true);
            }
            let tick = ticks.next().filter(|_| federate.attributes > 0);
            let interaction = next_interaction(interactions_sent);
            let due = match (tick, interaction) {
                (None, None) => return Ok(true),
                (Some((t, _)), None) => t,
                (None, Some(i)) => i,
                (Some((t, _)), Some(i)) => t.min(i),
            };
            let left = at(due).saturating_duration_since(Instant::now());
            if !left.is_zero() {
                // Receiving while waiting: a send may leave up to a poll granule (1 ms)
                // late; its stamp is taken as it leaves.
                self.receive(load, counts, left)?;
                continue;
            }
            if let Some((_, in_ramp)) = tick.filter(|(t, _)| *t <= due) {
                let time = self.clock.nanos();
                let options = SendOptions {
                    time: Some(time),
                    ..update_options.clone()
                };
                for &object in &load.objects {
                    load.rti.update_attribute_values_with(
                        object,
                        &[(load.position, value.as_slice())],
                        LOAD_TAG,
                        &options,
                    )?;
                }
                counts.updates_sent += load.objects.len() as u64;
                if in_ramp {
                    counts.ramp_updates_sent += load.objects.len() as u64;
                }
                ticks.advance(in_ramp);
            }
            if interaction.is_some_and(|i| i <= due) {
                self.interaction(load, LOAD_TAG, &value)?;
                interactions_sent += 1;
                counts.interactions_sent += 1;
            }
        }
    }

    /// Receive until everything the others sent has arrived or stragglers stop coming
    /// (bounded). False when another federate failed.
    fn drain(
        &self,
        load: &mut Load,
        counts: &mut Counts,
        start: Instant,
    ) -> Result<bool, BenchError> {
        let limit = start + Duration::from_secs_f64(self.config.seconds) + 2 * STRAGGLER_LIMIT;
        let mut all_done: Option<Instant> = None;
        let mut others = None;
        let mut last_receipt = Instant::now();
        while Instant::now() < limit {
            if self.team.aborted() {
                return Ok(false);
            }
            if others.is_none() {
                others = self.team.sent_by_others(self.me)?;
            }
            if let Some((updates, interactions)) = others {
                let done = *all_done.get_or_insert_with(Instant::now);
                let complete =
                    counts.updates.count >= updates && counts.interactions.count >= interactions;
                if complete
                    || last_receipt.max(done).elapsed() > STRAGGLER_QUIET
                    || done.elapsed() > STRAGGLER_LIMIT
                {
                    break;
                }
            }
            let before = counts.updates.count + counts.interactions.count;
            self.receive(load, counts, RECEIVE_POLL)?;
            if counts.updates.count + counts.interactions.count > before {
                last_receipt = Instant::now();
            }
        }
        Ok(true)
    }

    fn interaction(&self, load: &mut Load, tag: &[u8], text: &[u8]) -> Result<(), BenchError> {
        let options = SendOptions {
            time: Some(self.clock.nanos()),
            ..Default::default()
        };
        let name = self.load().name.as_bytes();
        load.rti.send_interaction_with(
            load.radio,
            &[(load.sender, name), (load.text, text)],
            tag,
            &options,
        )?;
        Ok(())
    }

    fn publish_figures(&self, load: &mut Load) {
        let Some(board) = self.figures else { return };
        let now = Instant::now();
        if now >= load.figures_due {
            board.publish_from(&load.rti);
            load.figures_due = now + FIGURES_EVERY;
        }
    }

    /// Take one callback within `timeout` and count it. Returns the sender of a greeting.
    fn receive(
        &self,
        load: &mut Load,
        counts: &mut Counts,
        timeout: Duration,
    ) -> Result<Option<u32>, BenchError> {
        let callback = load.rti.evoke_callback(timeout)?;
        self.publish_figures(load);
        let now = self.clock.nanos();
        match callback {
            Some(Callback::ReflectAttributeValues { tag, time, .. }) if tag == LOAD_TAG => {
                counts.updates.record(time, now);
            }
            Some(Callback::ReceiveInteraction {
                tag, time, sender, ..
            }) => {
                if tag == GREETING_TAG {
                    return Ok(Some(sender));
                }
                if tag == LOAD_TAG {
                    counts.interactions.record(time, now);
                }
            }
            _ => {}
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests;
