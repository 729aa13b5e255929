//! Phase 0: the case's updates over raw TCP or UDP sockets, no RTI, for comparison.

use super::party::{Outcome, Shared};
use super::tally::{Header, Tally};
use super::{CasePlan, RECEIVE_POLL, STRAGGLER_LIMIT, STRAGGLER_QUIET};
use crate::bench::hairpin::raw_pair;
use crate::bench::oneway::{deadline, Clock, RaiseOnDrop};
use crate::bench::sides::Side;
use crate::bench::team::START_LEAD;
use crate::bench::{BenchError, Raw};
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// A case over plain sockets: a connection (TCP) or socket pair (UDP) per sender and
/// receiver it serves, so N-1 and N-N work as 1-1 and 1-N do; a thread per sender and
/// one per pair reading. With `via`, each pair goes through that hairpin forwarder.
pub(super) fn raw_case(
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
            let (out, into) = raw_pair(raw, via)?;
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
