//! One federate of a worker process, on a thread of its own with a directly driven node:
//! join, declare interest by region, register (simulators), greet until every receiver
//! hears the simulators it must hear, send and reflect for the run, then account for what
//! arrived against what its interest says must have.

use super::geometry::{Geometry, Rect, BINS};
use super::histogram::Histogram;
use super::pacing::Pacing;
use super::payload::{self, EntityState};
use super::protocol::{FederateReport, FederateSpec, JoinRecord, Role, Target, WorkerPlan};
use super::tally::Tally;
use super::worker::Shared;
use crate::bench::BenchError;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use trellis_core::federate::{Callback, ObjectId, Range, Region};
use trellis_core::fom::{AttributeHandle, InteractionClassHandle, ParameterHandle};
use trellis_core::topology::Topology;
use trellis_core::wire::TransportClass;
use trellis_net::rti::{Driver, ResignAction, RtiAmbassador, RtiConfig, SendOptions};
use trellis_net::NodeConfig;

/// Measured updates carry this tag; greetings are Radio interactions.
const UPDATE_TAG: &[u8] = b"clutter";
const GREETING_TAG: &[u8] = b"greeting";
const GREETING_EVERY: Duration = Duration::from_millis(200);
const POLL: Duration = Duration::from_millis(10);
/// Updates sent in one go before callbacks are taken again.
const SEND_BATCH: u64 = 256;
/// Callbacks taken in one go before due updates are sent again.
const RECEIVE_BATCH: usize = 4096;
/// Reflects between two clock reads: the clock was about 5 % of a receiver's time when read
/// per reflect. The read comes after them, so a latency is overstated by at most the time
/// these take (tens of microseconds), never understated.
const REFLECTS_PER_CLOCK_READ: usize = 64;
/// Registrations between two looks at the network, so a big registration does not leave
/// the federate's inbound queue unread.
const REGISTER_BATCH: u64 = 1024;
/// After the expected counts arrive, stragglers get this long once nothing more comes.
const STRAGGLER_QUIET: Duration = Duration::from_secs(2);
pub const DRAIN_LIMIT: Duration = Duration::from_secs(20);

pub fn unix_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn failed(who: &str, what: impl std::fmt::Display) -> BenchError {
    BenchError::Failed(format!("{who}: {what}"))
}

/// A node at the federate's attachment point, under its own node name, bundling and
/// polling as the run says.
fn node_config(plan: &WorkerPlan, spec: &FederateSpec) -> Result<NodeConfig, BenchError> {
    let mut config = attached_node(&plan.target, spec, &plan.federation)?;
    config.link = plan.bundling.link_config();
    config.spin = plan.spin;
    Ok(config)
}

fn attached_node(
    target: &Target,
    spec: &FederateSpec,
    federation: &str,
) -> Result<NodeConfig, BenchError> {
    match target {
        Target::Router(url) => {
            let endpoint = url
                .parse()
                .map_err(|e| failed(&spec.name, format!("router {url}: {e}")))?;
            Ok(NodeConfig::child_of(
                spec.name.clone(),
                federation,
                endpoint,
            ))
        }
        Target::Topology(file) => {
            let text = std::fs::read_to_string(file)?;
            let topology = Topology::from_toml(&text)
                .map_err(|e| failed(&spec.name, format!("{}: {e}", file.display())))?;
            let mut plan = topology
                .plan(&spec.at)
                .map_err(|e| failed(&spec.name, format!("attachment point: {e}")))?;
            plan.name = spec.name.clone();
            Ok(NodeConfig::from_plan(&plan, federation)?)
        }
    }
}

/// How long a federation-management request may take: resigning comes right after the
/// simulators' deletes (one per entity, to every receiver), which the registry's router
/// forwards too.
const MANAGEMENT_TIMEOUT: Duration = Duration::from_secs(60);

/// An RTI configured as every federate of the run is (the same routing bins).
pub fn rti_config(node: NodeConfig, driver: Driver) -> RtiConfig {
    let mut config = RtiConfig::new(node);
    config.driver = driver;
    config.bins = BINS;
    config.timeout = MANAGEMENT_TIMEOUT;
    config
}

fn connect(plan: &WorkerPlan, spec: &FederateSpec) -> Result<RtiAmbassador, BenchError> {
    Ok(RtiAmbassador::connect(rti_config(
        node_config(plan, spec)?,
        plan.driver,
    ))?)
}

/// What one second of one federate counted.
#[derive(Default)]
pub struct SecondCounts {
    pub updates_sent: u64,
    pub reflects: u64,
    pub latency: Histogram,
}

/// A joined federate and its account.
pub struct Federate<'a> {
    spec: FederateSpec,
    shared: &'a Shared,
    rti: RtiAmbassador,
    position: AttributeHandle,
    radio: InteractionClassHandle,
    sender: ParameterHandle,
    x: u32,
    y: u32,
    interest: Rect,
    objects: Vec<ObjectId>,
    /// Simulators this receiver must hear before the start, and those heard.
    must_hear: BTreeSet<u32>,
    heard: BTreeSet<u32>,
    tally: Tally,
    report: FederateReport,
    /// By second since the start.
    pub seconds: BTreeMap<u64, SecondCounts>,
    /// Send times of reflects taken since the last clock read.
    unread_send_times: Vec<u64>,
    start_nanos: u64,
}

impl<'a> Federate<'a> {
    fn geometry(&self) -> &Geometry {
        &self.shared.plan.geometry
    }

    pub fn simulator(&self) -> Option<u32> {
        (self.spec.role == Role::Simulator).then_some(self.spec.index)
    }

    /// Connect and join (timed), then publish (simulators); see [`Federate::subscribe`]
    /// for why subscribing comes next, before anyone registers.
    pub fn join(
        spec: FederateSpec,
        shared: &'a Shared,
    ) -> Result<(Federate<'a>, JoinRecord), BenchError> {
        let plan = &shared.plan;
        let started = Instant::now();
        let mut rti = connect(plan, &spec)?;
        let connect_us = started.elapsed().as_micros() as u64;
        let joining = Instant::now();
        rti.join_federation_execution(&spec.name, "clutter", shared.model.clone())?;
        let join_us = joining.elapsed().as_micros() as u64;
        let vehicle = rti.object_class_handle("Vehicle")?;
        let position = rti.attribute_handle(vehicle, "Position")?;
        let radio = rti.interaction_class_handle("Radio")?;
        let sender = rti.parameter_handle(radio, "Sender")?;
        let x = rti.dimension_handle("X")?.0;
        let y = rti.dimension_handle("Y")?.0;
        let geometry = &plan.geometry;
        let interest = match spec.role {
            Role::Simulator => geometry.subscription(spec.index),
            Role::Viewer => geometry.window(spec.index),
        };
        if spec.role == Role::Simulator {
            rti.publish_object_class_attributes(vehicle, &[position])?;
            rti.publish_interaction_class(radio)?;
        }
        let own = (spec.role == Role::Simulator).then_some(spec.index);
        let must_hear = geometry
            .sources(&interest)
            .into_iter()
            .filter(|s| Some(*s) != own)
            .collect();
        let ticks = (plan.seconds * plan.rate_hz).ceil() as u64 + 1;
        let report = FederateReport {
            name: spec.name.clone(),
            role: Some(spec.role),
            index: spec.index,
            connect_us,
            join_us,
            ..FederateReport::default()
        };
        let record = JoinRecord {
            name: spec.name.clone(),
            connect_us,
            join_us,
        };
        let federate = Federate {
            tally: Tally::new(geometry, interest, own, ticks),
            spec,
            shared,
            rti,
            position,
            radio,
            sender,
            x,
            y,
            interest,
            objects: Vec::new(),
            must_hear,
            heard: BTreeSet::new(),
            report,
            seconds: BTreeMap::new(),
            unread_send_times: Vec::with_capacity(REFLECTS_PER_CLOCK_READ),
            start_nanos: 0,
        };
        Ok((federate, record))
    }

    /// Subscribe by region to the federate's interest. The RTI announces a registration to
    /// every subscriber of the class (not by region), and a new subscription asks every
    /// owner to announce all its instances again (IEEE 1516.1 §6.9 discovery): so every
    /// federate subscribes before anyone registers, and setting up costs N × receivers
    /// announcements once (registering after the subscriptions) instead of again per
    /// subscriber.
    pub fn subscribe(&mut self) -> Result<(), BenchError> {
        let vehicle = self.rti.object_class_handle("Vehicle")?;
        let interest = self.interest;
        let region = Region::new()
            .with(self.x, Range::new(interest.x0.into(), interest.x1.into()))
            .with(self.y, Range::new(interest.y0.into(), interest.y1.into()));
        // Objects before the interaction: interest travels in order, so a receiver that
        // hears a simulator's greeting has its update interest in place at that simulator.
        self.rti.subscribe_object_class_attributes_with_regions(
            vehicle,
            &[self.position],
            std::slice::from_ref(&region),
        )?;
        self.rti
            .subscribe_interaction_class_with_regions(self.radio, &[region])?;
        Ok(())
    }

    /// Withdraw the subscriptions once the account is done: the simulators' deletes at
    /// resign then reach no one.
    pub fn unsubscribe(&mut self) -> Result<(), BenchError> {
        let vehicle = self.rti.object_class_handle("Vehicle")?;
        self.rti.unsubscribe_object_class(vehicle)?;
        self.rti.unsubscribe_interaction_class(self.radio)?;
        Ok(())
    }

    /// Take callbacks for up to `timeout` (at most a batch), counting each.
    pub fn pump(&mut self, timeout: Duration) -> Result<(), BenchError> {
        let mut wait = timeout;
        for _ in 0..RECEIVE_BATCH {
            match self.rti.evoke_callback(wait)? {
                Some(mut callback) => {
                    self.take(&callback);
                    // Its values' list and region serve a later reflect: no allocation.
                    self.rti.recycle_values_of(&mut callback);
                }
                None => break,
            }
            wait = Duration::ZERO;
        }
        self.count_reflects();
        Ok(())
    }

    /// Count the reflects taken since the last clock read, in the second of this one.
    fn count_reflects(&mut self) {
        if self.unread_send_times.is_empty() {
            return;
        }
        let now = unix_nanos();
        let counts = self.seconds.entry(self.second_of(now)).or_default();
        counts.reflects += self.unread_send_times.len() as u64;
        for sent in self.unread_send_times.drain(..) {
            counts.latency.record(now.saturating_sub(sent) / 1000);
        }
    }

    fn second_of(&self, unix_nanos: u64) -> u64 {
        unix_nanos.saturating_sub(self.start_nanos) / 1_000_000_000
    }

    fn take(&mut self, callback: &Callback) {
        match callback {
            Callback::ReflectAttributeValues {
                values, time, tag, ..
            } if tag.as_ref() == UPDATE_TAG => {
                let state = values
                    .iter()
                    .find(|(a, _)| *a == self.position)
                    .and_then(|(_, v)| payload::decode(v));
                let geometry = &self.shared.plan.geometry;
                self.tally.reflect(geometry, state);
                self.unread_send_times.push(*time);
                if self.unread_send_times.len() >= REFLECTS_PER_CLOCK_READ {
                    self.count_reflects();
                }
            }
            Callback::DiscoverObjectInstance { .. } => self.report.discovered += 1,
            Callback::ReceiveInteraction {
                parameters, tag, ..
            } if tag.as_ref() == GREETING_TAG => {
                let greeting = parameters
                    .iter()
                    .find(|(p, _)| *p == self.sender)
                    .and_then(|(_, v)| std::str::from_utf8(v).ok()?.parse::<u32>().ok());
                if let Some(simulator) = greeting {
                    self.heard.insert(simulator);
                }
            }
            Callback::ReliableMessagesLost { count, .. } => self.report.reported_lost += *count,
            _ => {}
        }
    }

    /// Take callbacks until `done` holds, within `bound`; false when it never did (or the
    /// worker aborted).
    pub fn pump_until(
        &mut self,
        bound: Duration,
        mut done: impl FnMut(&Self) -> bool,
    ) -> Result<bool, BenchError> {
        let deadline = Instant::now() + bound;
        while !done(self) {
            if Instant::now() > deadline || self.shared.aborted() {
                return Ok(false);
            }
            self.pump(POLL)?;
        }
        Ok(true)
    }

    /// Register the simulator's entities, looking at the network between batches.
    pub fn register(&mut self) -> Result<(), BenchError> {
        let Some(simulator) = self.simulator() else {
            return Ok(());
        };
        let vehicle = self.rti.object_class_handle("Vehicle")?;
        let (_, count) = self.geometry().owned(simulator);
        self.objects.reserve_exact(count as usize);
        for n in 0..count {
            self.objects
                .push(self.rti.register_object_instance(vehicle)?);
            if n % REGISTER_BATCH == REGISTER_BATCH - 1 {
                self.pump(Duration::ZERO)?;
            }
        }
        self.report.entities_owned = count;
        Ok(())
    }

    /// Greet (simulators, in their area) until the start is set; count ready once every
    /// simulator this federate must hear was heard. Returns the start (unix nanoseconds).
    pub fn greet(&mut self, bound: Duration) -> Result<Option<u64>, BenchError> {
        let deadline = Instant::now() + bound;
        let mut counted = false;
        let mut next_greeting = Instant::now();
        loop {
            let start = self.shared.start_nanos.load(Ordering::SeqCst);
            if start != 0 {
                self.start_nanos = start;
                return Ok(Some(start));
            }
            if self.shared.aborted() || Instant::now() > deadline {
                return Ok(None);
            }
            if Instant::now() >= next_greeting {
                self.send_greeting()?;
                next_greeting = Instant::now() + GREETING_EVERY;
            }
            self.pump(POLL)?;
            if !counted && self.must_hear.is_subset(&self.heard) {
                counted = true;
                self.shared.ready.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    /// One greeting per receiver that must hear this simulator, each in one cell where the
    /// receiver's region meets this simulator's area: a greeting in the whole area would
    /// name hundreds of cells.
    fn send_greeting(&mut self) -> Result<(), BenchError> {
        let Some(simulator) = self.simulator() else {
            return Ok(());
        };
        let name = simulator.to_string();
        for (x, y) in self.geometry().greeting_cells(simulator) {
            let region = Region::new()
                .with(self.x, Range::new(x.into(), u64::from(x) + 1))
                .with(self.y, Range::new(y.into(), u64::from(y) + 1));
            let options = SendOptions {
                region: Some(&region),
                ..SendOptions::default()
            };
            self.rti.send_interaction_with(
                self.radio,
                &[(self.sender, name.as_bytes())],
                GREETING_TAG,
                &options,
            )?;
        }
        Ok(())
    }

    /// The run: update `q` of this simulator (entity `q % count` at tick `q / count`) is due
    /// `q / (count × rate)` seconds after the start; due updates go out in batches, and
    /// callbacks are taken in between. Ends at the end of the run's seconds, whatever is
    /// still due (that shortfall is what "achieved" measures).
    pub fn run(&mut self) -> Result<u64, BenchError> {
        let plan = &self.shared.plan;
        let (seconds, reliable) = (plan.seconds, plan.reliable);
        let start = self.start_nanos;
        let end = start + (seconds * 1e9) as u64;
        let (first, count) = match self.simulator() {
            Some(s) => self.geometry().owned(s),
            None => (0, 0),
        };
        let pacing = Pacing::new(start, count as f64 * plan.rate_hz, seconds, plan.frame_ms);
        let transport = if reliable {
            TransportClass::Reliable
        } else {
            TransportClass::BestEffort
        };
        let mut region = Region::new();
        let mut value = Vec::with_capacity(payload::PAYLOAD_BYTES);
        let mut sent = 0u64;
        loop {
            let now = unix_nanos();
            if now >= end {
                break;
            }
            let batch_end = pacing.due(now).min(sent + SEND_BATCH);
            // The batch's updates carry the time it was computed, as a simulation's frame
            // does: one clock read per batch, and no latency understated.
            let batch_len = batch_end.saturating_sub(sent);
            while sent < batch_end {
                let (j, tick) = (sent % count, sent / count);
                let update = (first + j, j, tick);
                self.send_update(update, now, transport, &mut region, &mut value)?;
                sent += 1;
            }
            if batch_len > 0 {
                self.seconds
                    .entry(self.second_of(now))
                    .or_default()
                    .updates_sent += batch_len;
            }
            let wait = if sent >= pacing.planned {
                Duration::from_nanos(end - now)
            } else {
                pacing.wait(sent, now)
            };
            self.pump(wait.min(POLL))?;
        }
        self.report.updates_sent = sent;
        Ok(sent)
    }

    /// Send update `tick` of `entity` (this simulator's `local`-th), stamped `now`.
    fn send_update(
        &mut self,
        (entity, local, tick): (u64, u64, u64),
        now: u64,
        transport: TransportClass,
        region: &mut Region,
        value: &mut Vec<u8>,
    ) -> Result<(), BenchError> {
        let geometry = &self.shared.plan.geometry;
        let motion = geometry.motion(entity);
        let area = geometry.area(self.spec.index);
        let position = geometry.position_in(&area, &motion, tick);
        region.set(
            self.x,
            Range::new(position.0.into(), u64::from(position.0) + 1),
        );
        region.set(
            self.y,
            Range::new(position.1.into(), u64::from(position.1) + 1),
        );
        let state = EntityState {
            entity,
            tick,
            position,
        };
        payload::encode(&state, (motion.dx, motion.dy), value);
        let options = SendOptions {
            time: Some(now),
            region: Some(region),
            transport: Some(transport),
        };
        let object = self.objects[local as usize];
        self.rti.update_attribute_values_with(
            object,
            &[(self.position, value.as_slice())],
            UPDATE_TAG,
            &options,
        )?;
        Ok(())
    }

    /// Once the expected counts are known, take callbacks until everything expected
    /// arrived, or nothing came for a while (bounded).
    pub fn drain(&mut self) -> Result<(), BenchError> {
        let shared = self.shared;
        let arrived = self.pump_until(DRAIN_LIMIT, |_| shared.expected().is_some())?;
        let Some(sent) = shared.expected().filter(|_| arrived) else {
            return Err(failed(&self.spec.name, "the expected counts never came"));
        };
        let expected = self
            .geometry()
            .expected(&self.interest, self.simulator(), &sent);
        self.report.expected = expected;
        let deadline = Instant::now() + DRAIN_LIMIT;
        let mut last_count = self.tally.reflects;
        let mut last_change = Instant::now();
        while self.tally.in_interest < expected
            && Instant::now() < deadline
            && last_change.elapsed() < STRAGGLER_QUIET
        {
            self.pump(POLL)?;
            if self.tally.reflects != last_count {
                last_count = self.tally.reflects;
                last_change = Instant::now();
            }
        }
        // What arrives after the last expected update would be unexpected: take what is
        // already queued.
        self.pump(Duration::ZERO)?;
        Ok(())
    }

    /// The federate's account (after [`Federate::drain`]).
    pub fn account(&mut self) -> FederateReport {
        let tally = &self.tally;
        let mut report = self.report.clone();
        report.reflects = tally.reflects;
        report.missing = report.expected.saturating_sub(tally.in_interest);
        report.unexpected = tally.unexpected;
        report.duplicates = tally.duplicates;
        report.corrupt = tally.corrupt;
        report.over_delivered = self.rti.stats().map_or(0, |s| s.over_delivered);
        report
    }

    /// Keep the node going until the coordinator says finish (bounded), then resign (which
    /// deletes the simulator's instances: the standard's default action; resigning without
    /// an action is refused while the federate owns attributes).
    pub fn leave(mut self, bound: Duration) -> Result<(), BenchError> {
        let shared = self.shared;
        self.pump_until(bound, |_| shared.finishing())?;
        self.rti
            .resign_federation_execution(ResignAction::default())?;
        Ok(())
    }
}
