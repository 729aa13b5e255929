//! One party of a case over Trellis: join, register or subscribe, greet, send at the
//! case's rate and reflect, then report to its team (threads of this process or agents).

use super::tally::{Header, Tally};
use super::{CasePlan, GREETING, GREETING_EVERY, RECEIVE_POLL, STRAGGLER_LIMIT, STRAGGLER_QUIET};
use crate::bench::network::{ids, Federation, Network, SETUP_TIMEOUT};
use crate::bench::oneway::{deadline, Clock};
use crate::bench::results::Results;
use crate::bench::team::{StartGate, Team};
use crate::bench::{Api, BenchError, Setup, DATA_ID};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, ObjectId};
use trellis_core::fom::AttributeHandle;
use trellis_core::wire::TransportClass;
use trellis_net::rti::{Driver, RtiAmbassador, SendOptions};
use trellis_net::DirectNode;

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
pub(super) struct Shared {
    pub(super) gate: StartGate,
    pub(super) published: Vec<AtomicU64>,
    pub(super) done_sending: Vec<AtomicBool>,
}

impl Shared {
    pub(super) fn new(parties: usize) -> Shared {
        Shared {
            gate: StartGate::default(),
            published: (0..parties).map(|_| AtomicU64::new(0)).collect(),
            done_sending: (0..parties).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    pub(super) fn aborted(&self) -> bool {
        self.gate.aborted()
    }

    pub(super) fn all_sent(&self, senders: impl IntoIterator<Item = usize>) -> bool {
        senders
            .into_iter()
            .all(|s| self.done_sending[s].load(Ordering::SeqCst))
    }

    pub(super) fn published_by(&self, senders: impl IntoIterator<Item = usize>) -> u64 {
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
    let mut rti = network.federate(federation, place, Driver::Direct, true)?;
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
pub(crate) fn trellis_case(
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
