//! Closing links, and the timers: heartbeats, slow consumers, bundling, close deadlines.

use super::event::{CloseReason, Event};
use super::index::Slot;
use super::link::{Binding, LinkState};
use super::{LinkId, Router};
use crate::registry::Departure;
use crate::time::Time;
use crate::wire::{encode_heartbeat, Goodbye};
use roaring::RoaringBitmap;
use std::time::Duration;

/// Whether a federate node whose link closes for `reason` has left for good, so the
/// registry is told at once (`NodeGone`) instead of letting its lease run out.
///
/// - A goodbye from the node: it is leaving.
/// - End of stream: its process closed the socket without a goodbye; typically it died (the
///   kernel closes a dead process's sockets). A node that lives redials on a new connection
///   and a new link, so nothing is lost by resigning it now.
/// - A close of our own (shutdown, slow consumer, protocol error, input limit): we say
///   goodbye, and the node takes a goodbye from its router as the end of its membership.
/// - Not a heartbeat timeout or a transport error: the link failed but the node may well be
///   alive (a partition, a reset connection) and redial within its lease. Resigning it at
///   once would cost it its membership, handles and objects for a blip; if it does not come
///   back, no router vouches for it and the lease resigns it (`RouterConfig::federate_lease`).
fn node_left(reason: &CloseReason) -> bool {
    !matches!(
        reason,
        CloseReason::HeartbeatTimeout(_) | CloseReason::Transport(_)
    )
}

/// A consumer's reliable queue may outgrow its limit (control frames are not paused), but
/// never past this many times the limit.
const HARD_LIMIT_FACTOR: usize = 4;

impl Router {
    /// Close a link on purpose: what is queued still goes out, then a goodbye with `reason`.
    pub fn close_link(&mut self, now: Time, id: LinkId, reason: &str) {
        if let Some(slot) = self.live(id) {
            self.begin_close(now, slot, CloseReason::Local(reason.to_owned()), true);
        }
    }

    /// Close every link on purpose (the process is stopping).
    pub fn shutdown(&mut self, now: Time, reason: &str) {
        for id in self.link_ids() {
            let slot = id.slot;
            if !self.link(slot).is_app() {
                self.begin_close(now, slot, CloseReason::Local(reason.to_owned()), true);
            }
        }
    }

    /// Whether any link is still open or flushing its goodbye.
    pub fn has_links(&self) -> bool {
        self.links.iter().flatten().any(|l| !l.is_app())
    }

    /// Stop routing to and from `slot`. With `goodbye`, the link stays to flush a goodbye
    /// (after its queued frames for a local close, instead of them for a failure); without,
    /// it is gone at once.
    pub(super) fn begin_close(
        &mut self,
        now: Time,
        slot: Slot,
        reason: CloseReason,
        goodbye: bool,
    ) {
        if self.link(slot).is_closing() {
            if !goodbye {
                self.finish_close(slot);
            }
            return;
        }
        if self.link(slot).is_suspended() {
            return self.expire_suspended(now, slot);
        }
        if self.suspends(slot, &reason) {
            return self.suspend(now, slot, reason);
        }
        self.detach(now, slot, &reason);
        self.update_registry_route(now);
        if goodbye && !matches!(reason, CloseReason::Local(_)) {
            let link = self.link(slot).id;
            self.events.push_back(Event::LinkCut {
                link,
                reason: reason.clone(),
            });
        }
        let keep_queue = matches!(reason, CloseReason::Local(_));
        if !keep_queue || !goodbye {
            let dropped = self.link_mut(slot).out.clear() as u64;
            self.link_mut(slot).stats.drops.link_closed += dropped;
            self.stats.drops.link_closed += dropped;
        }
        if !goodbye {
            self.link_mut(slot).state = LinkState::Closing {
                deadline: now,
                reason,
            };
            self.finish_close(slot);
            return;
        }
        let text = reason.to_string();
        let goodbye = self.encode(|out| Goodbye::encode(&text, out));
        if keep_queue {
            // A local close says goodbye after what is queued, so nothing is cut short.
            self.link_mut(slot).out.push_reliable(now, goodbye);
            self.mark_ready(slot);
        } else {
            self.queue_control(now, slot, goodbye);
        }
        let config = &self.link(slot).config;
        let linger = match reason {
            CloseReason::SlowConsumer { .. } => config.slow_consumer_goodbye_timeout,
            _ => config.close_timeout,
        };
        let deadline = now + linger;
        self.link_mut(slot).state = LinkState::Closing { deadline, reason };
        self.housekeep_soon(now);
    }

    /// Withdraw the link's interest, take it out of its block, and release whoever waited on it.
    pub(super) fn detach(&mut self, now: Time, slot: Slot, reason: &CloseReason) {
        let link = self.link_mut(slot);
        // No route to the registry through a closing link.
        link.registry_distance = crate::wire::RegistryRoute::UNREACHABLE;
        link.registry_heard = false;
        let id = link.id;
        let federate_gone = match (&link.binding, &link.peer) {
            (Binding::Federation(_), Some(peer)) if link.is_up() && node_left(reason) => {
                Some(peer.node_id)
            }
            _ => None,
        };
        if let Some(node) = federate_gone {
            let how = match reason {
                CloseReason::SlowConsumer { .. } => Departure::SlowConsumer,
                _ => Departure::Died,
            };
            self.report_node_gone(now, node, how);
        }
        self.close_pending_manage(now, id);
        let interest = std::mem::take(&mut self.link_mut(slot).interest);
        for (fed, set) in interest {
            self.propagate(now, fed, slot, &RoaringBitmap::new(), &set);
        }
        self.leave_block(slot);
        let link = self.link_mut(slot);
        link.stalled = None;
        link.inbuf.clear();
        link.full_since = None;
        self.recount_input(slot);
        let link = self.link_mut(slot);
        let waiters = std::mem::take(&mut link.waiters);
        self.resumable.extend(waiters);
    }

    /// The link is done: report it and free its slot.
    pub(super) fn finish_close(&mut self, slot: Slot) {
        let link = self.free_slot(slot);
        let LinkState::Closing { reason, .. } = link.state else {
            unreachable!("finish_close on a link that is not closing")
        };
        self.events.push_back(Event::LinkClosed {
            link: link.id,
            reason,
        });
    }

    /// Forget a detached link and free its slot; returns what it was.
    pub(super) fn free_slot(&mut self, slot: Slot) -> super::link::Link {
        let link = self.links[slot as usize]
            .take()
            .expect("closing link is live");
        debug_assert_eq!(link.input_counted, 0, "detach released the link's input");
        if let Some(offer) = link.udp_local {
            self.udp_sessions.remove(&offer.token);
        }
        self.reassembly.forget(link.id);
        self.generations[slot as usize] = self.generations[slot as usize].wrapping_add(1);
        self.free_slots.push(slot);
        self.bundling.retain(|&s| s != slot);
        self.stats.links_closed += 1;
        link
    }

    /// A reliable queue past its hard bound means a consumer that cannot keep up even with
    /// control traffic: disconnect it rather than grow.
    pub(super) fn enforce_hard_limit(&mut self, now: Time, slot: Slot) {
        let link = self.link(slot);
        let limit = link.config.queue_limit_bytes;
        let queued = link.out.reliable_bytes() + link.out.control_bytes();
        if queued > limit.saturating_mul(HARD_LIMIT_FACTOR) && !link.is_closing() {
            self.fail(
                now,
                slot,
                CloseReason::SlowConsumer {
                    queued_bytes: queued,
                    limit,
                    stalled: link
                        .full_since
                        .map_or(Duration::ZERO, |since| now.since(since)),
                    taken_bytes: link.taken_while_full(),
                },
            );
        }
    }

    /// The earliest time `handle_timeout` has work to do: at once when links paused by
    /// back-pressure may continue (a queue they waited on drained).
    ///
    /// Call after every call that changes queues or timers, and call `handle_timeout` once
    /// the time it gives has come.
    #[must_use]
    pub fn poll_timeout(&self) -> Time {
        if !self.resumable.is_empty() {
            return Time::ZERO;
        }
        let mut next = self.next_housekeeping;
        for &slot in &self.filling {
            if let Some(deadline) = self.slow_consumer_deadline(slot) {
                next = next.min(deadline);
            }
        }
        for &slot in &self.bundling {
            if let Some(link) = self.links[slot as usize].as_ref() {
                if let Some(oldest) = link.out.oldest {
                    next = next.min(oldest + link.config.bundling_delay);
                }
            }
        }
        next.min(self.reassembly.next_expiry().unwrap_or(next))
    }

    /// Run whatever timers are due at `now`, and retry the links that back-pressure paused
    /// and that may continue now.
    pub fn handle_timeout(&mut self, now: Time) {
        while let Some(id) = self.resumable.pop() {
            if let Some(slot) = self.live(id) {
                self.resume(now, slot);
            }
        }
        let mut still_bundling = Vec::new();
        for slot in std::mem::take(&mut self.bundling) {
            let Some(link) = self.links[slot as usize].as_ref() else {
                continue;
            };
            match link.out.oldest {
                Some(oldest) if oldest + link.config.bundling_delay > now => {
                    still_bundling.push(slot)
                }
                Some(_) => self.mark_ready(slot),
                None => {}
            }
        }
        self.bundling = still_bundling;
        self.cut_slow_consumers(now);
        self.expire_reassembly(now);
        if now < self.next_housekeeping {
            return;
        }
        self.next_housekeeping = now + self.config.housekeeping_interval;
        self.expire_pending_manage(now);
        self.expire_awaiting_route(now);
        self.keep_leases(now);
        for id in self.link_ids() {
            let slot = id.slot;
            let link = self.link(slot);
            if link.is_app() {
                continue;
            }
            match &link.state {
                LinkState::Closing { deadline, .. } => {
                    if now >= *deadline {
                        self.finish_close(slot);
                    }
                    continue;
                }
                LinkState::Suspended { until, .. } => {
                    if now >= *until {
                        self.expire_suspended(now, slot);
                    }
                    continue;
                }
                LinkState::Handshake { .. } | LinkState::Up => {}
            }
            self.ack_pending(now, slot);
            if let Some(reason) = self.link_failure(now, slot) {
                self.fail(now, slot, reason);
                continue;
            }
            let link = self.link(slot);
            let config = &link.config;
            // One heartbeat at a time waits in the control lane of a link that cannot write.
            let heartbeat_due = !config.heartbeat_interval.is_zero()
                && link.is_connected()
                && !link.out.has_control()
                && now.since(link.last_sent) >= config.heartbeat_interval;
            if heartbeat_due {
                self.send_control(now, slot, encode_heartbeat);
            }
        }
        self.next_housekeeping = self.next_housekeeping_after(now);
    }

    /// Why an open link must be closed now, if it must: no hello in time, a frame begun and
    /// never finished, or silence (no complete frame). (A consumer stuck past its bound is
    /// cut on its own timer, `cut_slow_consumers`.)
    fn link_failure(&self, now: Time, slot: Slot) -> Option<CloseReason> {
        let link = self.link(slot);
        let config = &link.config;
        let handshaking = matches!(link.state, LinkState::Handshake { .. });
        if handshaking && now.since(link.opened) >= config.handshake_timeout {
            return Some(CloseReason::HandshakeTimeout(now.since(link.opened)));
        }
        if let Some(partial) = link.partial_frame {
            let age = now.since(partial.since);
            if !config.frame_deadline.is_zero() && age >= config.frame_deadline {
                return Some(CloseReason::FrameDeadline(age));
            }
        }
        // A link paused by our own back-pressure is not read, so its silence means nothing.
        let silent = now.since(link.last_received);
        if !config.heartbeat_timeout.is_zero()
            && link.stalled.is_none()
            && silent >= config.heartbeat_timeout
        {
            return Some(CloseReason::HeartbeatTimeout(silent));
        }
        None
    }

    /// When the consumer on `slot` is to be cut if its queue is still marked full: its mark
    /// plus its bound. `None` when it is not marked, or never cut (`slow_consumer_bound`).
    fn slow_consumer_deadline(&self, slot: Slot) -> Option<Time> {
        let link = self.links[slot as usize].as_ref()?;
        if link.is_app() || link.is_closing() {
            return None;
        }
        let bound = link.slow_consumer_bound(self.app.is_some())?;
        Some(link.full_since? + bound)
    }

    /// Cut every consumer whose queue stayed marked full to its deadline, at the deadline
    /// (its own timer, not the next housekeeping pass: the bound is how long its publishers
    /// may be paused, so it is kept to the tick). A suspended one is let go.
    fn cut_slow_consumers(&mut self, now: Time) {
        let mut filling = std::mem::take(&mut self.filling);
        filling.sort_unstable();
        filling.dedup();
        for &slot in &filling {
            let due = self
                .slow_consumer_deadline(slot)
                .is_some_and(|at| now >= at);
            if !due {
                continue;
            }
            let link = self.link(slot);
            let reason = CloseReason::SlowConsumer {
                queued_bytes: link.out.reliable_bytes(),
                limit: link.config.queue_limit_bytes,
                stalled: link.full_since.map_or(Duration::ZERO, |t| now.since(t)),
                taken_bytes: link.taken_while_full(),
            };
            if link.is_suspended() {
                self.expire_suspended(now, slot);
            } else {
                self.fail(now, slot, reason);
            }
        }
        // Closing cleared their marks; links marked meanwhile were pushed afresh.
        filling.append(&mut self.filling);
        filling.retain(|&slot| {
            self.links[slot as usize]
                .as_ref()
                .is_some_and(|l| l.full_since.is_some())
        });
        self.filling = filling;
    }
}
