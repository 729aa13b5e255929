//! Link sessions: a link whose transport fails is resumed, not lost.
//!
//! When a link's transport fails (an error, end of stream, silence past the heartbeat
//! timeout), the link is suspended for `LinkConfig::resume_grace` instead of closed: it
//! stays in its block with its interest, so frames routed to it queue up as for any slow
//! link (bounded by its queue; a full queue pauses publishers within the slow-consumer
//! bound). The dialer redials; right after the hellos each side sends a session frame, and
//! a side that holds a suspended link to the same node names the far side's session on it
//! and how many reliable frames it received there. The far side then sends first the
//! reliable frames it sent on that session after that count (kept until acked, within
//! `RouterConfig::resend_budget_bytes`), then what was still queued; the new link takes
//! over the old one's interest without either ever being withdrawn, so no other router
//! sees it come and go. A short outage loses and repeats nothing. Past the grace, or if the
//! far side cannot resume (it restarted: a new node id), the link closes as before, and
//! what it held is lost; the receivers' streams (`streams`) report it.

use super::event::{CloseReason, Event};
use super::index::Slot;
use super::link::LinkState;
use super::Router;
use crate::time::Time;
use crate::wire::{encode_ack, NodeId, RegistryRoute, Resume, Role, SessionFrame};
use bytes::Bytes;
use roaring::RoaringBitmap;
use std::collections::VecDeque;

/// Acknowledge after this many reliable frames (and at every housekeeping pass).
const ACK_EVERY: u64 = 128;

/// Reliable frames handed to the transport and not yet acknowledged, in order.
#[derive(Debug, Default)]
pub(crate) struct ResendBuffer {
    /// Frames numbered up to this were acknowledged or let go.
    base: u64,
    frames: VecDeque<Bytes>,
    bytes: usize,
}

impl ResendBuffer {
    pub(crate) fn push(&mut self, frame: Bytes) {
        self.bytes += frame.len();
        self.frames.push_back(frame);
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// The far side has the first `received` frames. Returns the bytes freed.
    fn ack(&mut self, received: u64) -> usize {
        let mut freed = 0;
        while self.base < received {
            let Some(frame) = self.frames.pop_front() else {
                break;
            };
            freed += frame.len();
            self.base += 1;
        }
        self.bytes -= freed;
        freed
    }

    /// Stop keeping the oldest frame (over budget). Returns the bytes freed.
    fn let_go_oldest(&mut self) -> usize {
        let Some(frame) = self.frames.pop_front() else {
            return 0;
        };
        self.base += 1;
        self.bytes -= frame.len();
        frame.len()
    }

    /// The frames after the first `received`, and how many of those were let go already.
    fn take_after(&mut self, received: u64) -> (u64, Vec<Bytes>) {
        let let_go = self.base.saturating_sub(received);
        let skip = received.saturating_sub(self.base) as usize;
        let frames = self.frames.drain(..).skip(skip).collect();
        self.bytes = 0;
        (let_go, frames)
    }

    fn clear(&mut self) -> usize {
        self.frames.clear();
        std::mem::take(&mut self.bytes)
    }
}

impl Router {
    /// Whether a link failing for `reason` is suspended rather than closed.
    pub(super) fn suspends(&self, slot: Slot, reason: &CloseReason) -> bool {
        let link = self.link(slot);
        let transport_failed = matches!(
            reason,
            CloseReason::Transport(_) | CloseReason::EndOfStream | CloseReason::HeartbeatTimeout(_)
        );
        transport_failed
            && !link.is_app()
            && link.is_connected()
            && link.peer_session.is_some()
            && !link.config.resume_grace.is_zero()
    }

    /// The transport is gone: the driver forgets the link; the router keeps routing to it
    /// until the peer resumes it or the grace runs out.
    pub(super) fn suspend(&mut self, now: Time, slot: Slot, reason: CloseReason) {
        self.housekeep_soon(now);
        let link = self.link_mut(slot);
        link.state = LinkState::Suspended {
            until: now + link.config.resume_grace,
            reason: reason.clone(),
        };
        link.stalled = None;
        link.inbuf.clear();
        link.registry_distance = RegistryRoute::UNREACHABLE;
        link.registry_heard = false;
        let dropped = link.out.keep_reliable_only() as u64;
        link.stats.drops.link_closed += dropped;
        let id = link.id;
        self.stats.drops.link_closed += dropped;
        self.recount_input(slot);
        self.close_pending_manage(now, id);
        self.update_registry_route(now);
        self.events
            .push_back(Event::LinkClosed { link: id, reason });
    }

    /// A suspended link nobody resumed: close it for good, quietly (the driver already
    /// forgot it).
    pub(super) fn expire_suspended(&mut self, now: Time, slot: Slot) {
        let LinkState::Suspended { reason, .. } = self.link(slot).state.clone() else {
            return;
        };
        self.detach(now, slot, &reason);
        self.update_registry_route(now);
        self.drop_held(slot);
        self.free_slot(slot);
    }

    /// Throw away what a link held to send or resend.
    fn drop_held(&mut self, slot: Slot) {
        let link = self.link_mut(slot);
        let dropped = link.out.clear() as u64 + link.resend.frames.len() as u64;
        let freed = link.resend.clear();
        link.stats.drops.link_closed += dropped;
        self.stats.drops.link_closed += dropped;
        self.resend_bytes -= freed;
    }

    /// The link's handshake is done: name its session, and offer to resume the suspended
    /// link to the same node, if there is one. Goes out before any interest.
    pub(super) fn send_session(&mut self, now: Time, slot: Slot, peer: NodeId) {
        let session = self.next_session;
        self.next_session += 1;
        let resume = self.suspended_to(peer, slot).and_then(|old| {
            let old = self.link(old);
            Some(Resume {
                your_session: old.peer_session?,
                received: old.received_reliable,
            })
        });
        self.link_mut(slot).session = session;
        self.send_control(now, slot, |out| {
            SessionFrame { session, resume }.encode(out)
        });
    }

    /// A new parent link is up to `peer`: a suspended link to another parent is one this
    /// node failed over from. Let it go now, so the node is attached through one parent
    /// at a time (and never resumes a session whose frames it got by the other path).
    pub(super) fn left_other_parents(&mut self, now: Time, slot: Slot, peer: NodeId) {
        let left: Vec<Slot> = self
            .links
            .iter()
            .flatten()
            .filter(|l| l.id.slot != slot && l.is_suspended() && l.role == Role::Parent)
            .filter(|l| l.peer.as_ref().is_some_and(|p| p.node_id != peer))
            .map(|l| l.id.slot)
            .collect();
        for old in left {
            self.expire_suspended(now, old);
        }
    }

    /// The latest suspended link (other than `except`) to node `peer`.
    fn suspended_to(&self, peer: NodeId, except: Slot) -> Option<Slot> {
        self.links
            .iter()
            .flatten()
            .filter(|l| l.id.slot != except && l.is_suspended())
            .filter(|l| l.peer.as_ref().is_some_and(|p| p.node_id == peer))
            .max_by_key(|l| l.session)
            .map(|l| l.id.slot)
    }

    pub(super) fn on_session(&mut self, now: Time, slot: Slot, frame: SessionFrame) {
        let link = self.link_mut(slot);
        if link.peer_session.replace(frame.session).is_some() {
            return self.fail(
                now,
                slot,
                CloseReason::Violation("a second session frame".into()),
            );
        }
        let Some(peer) = link.peer.as_ref().map(|p| p.node_id) else {
            return;
        };
        let Some(old) = self.suspended_to(peer, slot) else {
            return;
        };
        let session = self.link(old).session;
        let received = frame
            .resume
            .filter(|r| r.your_session == session)
            .map(|r| r.received);
        self.adopt(now, old, slot, received);
    }

    /// `new` carries on for the suspended link `old` to the same node: it sends first what
    /// the far side did not get (when it said how much it got), and takes over the
    /// interest; `old` is forgotten without its interest ever being withdrawn.
    fn adopt(&mut self, now: Time, old: Slot, new: Slot, received: Option<u64>) {
        if let Some(received) = received {
            let link = self.link_mut(old);
            let (let_go, mut frames) = link.resend.take_after(received);
            frames.extend(link.out.take_reliable());
            link.stats.drops.link_closed += let_go;
            self.stats.drops.link_closed += let_go;
            for frame in frames {
                self.link_mut(new).out.push_reliable(now, frame);
            }
            self.mark_ready(new);
        }
        self.drop_held(old);
        let interest = std::mem::take(&mut self.link_mut(old).interest);
        for (fed, set) in interest {
            if self.link(new).carries(fed) {
                let added = &set
                    - self
                        .link(new)
                        .interest(fed)
                        .unwrap_or(&RoaringBitmap::new());
                *self.link_mut(new).interest_mut(fed) |= &set;
                self.propagate(now, fed, new, &added, &RoaringBitmap::new());
            }
            self.propagate(now, fed, old, &RoaringBitmap::new(), &set);
        }
        let reason = CloseReason::Local("resumed on a new connection".into());
        self.link_mut(old).state = LinkState::Closing {
            deadline: now,
            reason: reason.clone(),
        };
        self.detach(now, old, &reason);
        self.free_slot(old);
        let resumed = self.link(new).id;
        self.events.push_back(Event::LinkResumed {
            link: resumed,
            resent: received.is_some(),
        });
    }

    pub(super) fn on_ack(&mut self, slot: Slot, received: u64) {
        let freed = self.link_mut(slot).resend.ack(received);
        self.resend_bytes -= freed;
    }

    /// A reliable data frame from `slot` was routed: count it, and acknowledge now and then.
    pub(super) fn received_reliable(&mut self, now: Time, slot: Slot) {
        let link = self.link_mut(slot);
        link.received_reliable += 1;
        let unacked = link.received_reliable - link.acked;
        if unacked >= ACK_EVERY {
            self.send_ack(now, slot);
        } else if unacked == 1 {
            // The rest is acknowledged at housekeeping, which a router at rest put off.
            self.housekeep_soon(now);
        }
    }

    /// At housekeeping: acknowledge whatever is not yet.
    pub(super) fn ack_pending(&mut self, now: Time, slot: Slot) {
        let link = self.link(slot);
        if link.is_connected() && link.received_reliable > link.acked {
            self.send_ack(now, slot);
        }
    }

    fn send_ack(&mut self, now: Time, slot: Slot) {
        let received = self.link(slot).received_reliable;
        self.link_mut(slot).acked = received;
        self.send_control(now, slot, |out| encode_ack(out, received));
    }

    /// Frames just handed to `slot`'s transport grew its resend buffer to `before + added`
    /// bytes: count them, and let the oldest go while all links keep more than the budget.
    pub(super) fn kept_for_resend(&mut self, slot: Slot, before: usize) {
        let link = self.link_mut(slot);
        let added = link.resend.bytes() - before;
        self.resend_bytes += added;
        while self.resend_bytes > self.config.resend_budget_bytes {
            let freed = self.link_mut(slot).resend.let_go_oldest();
            if freed == 0 {
                break;
            }
            self.resend_bytes -= freed;
        }
    }

    /// Whether some link waits to be resumed.
    pub fn has_suspended_links(&self) -> bool {
        self.links.iter().flatten().any(|l| l.is_suspended())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(n: u8) -> Bytes {
        Bytes::from(vec![n; 10])
    }

    #[test]
    fn acks_trim_and_a_resume_takes_what_was_not_received() {
        let mut buffer = ResendBuffer::default();
        for n in 1..=5 {
            buffer.push(frame(n));
        }
        assert_eq!(buffer.ack(2), 20);
        assert_eq!(buffer.bytes(), 30);
        let (let_go, frames) = buffer.take_after(3);
        assert_eq!(let_go, 0);
        assert_eq!(frames, vec![frame(4), frame(5)]);
    }

    #[test]
    fn frames_let_go_before_a_resume_are_counted_lost() {
        let mut buffer = ResendBuffer::default();
        for n in 1..=4 {
            buffer.push(frame(n));
        }
        buffer.let_go_oldest();
        buffer.let_go_oldest();
        let (let_go, frames) = buffer.take_after(1);
        assert_eq!(
            let_go, 1,
            "frame 2 was received by nobody and kept by nobody"
        );
        assert_eq!(frames, vec![frame(3), frame(4)]);
    }

    #[test]
    fn an_ack_past_what_was_sent_empties_the_buffer_and_no_more() {
        let mut buffer = ResendBuffer::default();
        buffer.push(frame(1));
        assert_eq!(buffer.ack(99), 10);
        assert_eq!(buffer.bytes(), 0);
    }
}
