//! Bytes in: decoding, the handshake, interest frames and data frames from links.

use super::event::{CloseReason, Event, PeerInfo};
use super::index::Slot;
use super::link::{Binding, Expectation, FedIndex, LinkState, PartialFrame};
use super::{Federation, InterestOpRequest, LinkId, Router};
use crate::interest::set_of;
use crate::time::Time;
use crate::wire::{
    missing_bytes, split_frame, FederationId, Frame, FrameKind, Hello, InterestFrame, InterestOp,
    LinkFlags, Role,
};
use crate::wire::{DataFrame, TransportClass, WireError};

impl Router {
    /// Bytes arrived on a link's stream. They are decoded and acted on at once, unless the
    /// link is paused by back-pressure (`wants_read` false), in which case they wait.
    pub fn handle_bytes(&mut self, now: Time, id: LinkId, bytes: &[u8]) {
        let Some(buf) = self.input_buffer(id, bytes.len()) else {
            return;
        };
        buf.extend_from_slice(bytes);
        self.handle_received(now, id, bytes.len());
    }

    /// The input buffer of link `id`, with room for at least `more` bytes, for a driver that
    /// reads its socket straight into the room: one copy less than [`Router::handle_bytes`].
    /// The driver may only append to it, then must call [`Router::handle_received`] with how
    /// many bytes it appended. `None` when the link is gone or closing: its bytes are not
    /// wanted (a driver can hand them to `handle_bytes`, which drops them).
    pub fn input_buffer(&mut self, id: LinkId, more: usize) -> Option<&mut bytes::BytesMut> {
        let slot = self.live(id)?;
        let max_frame_bytes = self.max_frame_size;
        let link = self.links[slot as usize].as_mut().expect("live link");
        if link.is_closing() {
            return None;
        }
        self.input_buffers
            .reserve(&mut link.inbuf, more, max_frame_bytes);
        Some(&mut link.inbuf)
    }

    /// `count` bytes were appended to the input buffer of link `id` (see
    /// [`Router::input_buffer`]). They are decoded and acted on at once, unless the link is
    /// paused by back-pressure (`wants_read` false), in which case they wait.
    pub fn handle_received(&mut self, now: Time, id: LinkId, count: usize) {
        let Some(slot) = self.live(id) else { return };
        let link = self.link_mut(slot);
        if link.is_closing() {
            return;
        }
        debug_assert!(
            link.inbuf.len() >= count,
            "received bytes are in the buffer"
        );
        link.stats.bytes_in += count as u64;
        let frames_before = link.stats.frames_in;
        if let Some(reason) = self.input_refusal(slot) {
            // Closing clears the buffer, these bytes with it.
            self.fail(now, slot, reason);
        } else if self.link(slot).stalled.is_none() {
            // A paused link's bytes wait: they are processed when it resumes.
            self.process_input(now, slot);
        }
        if let Some(link) = self.links[slot as usize].as_mut() {
            super::inbuf::InputBuffers::settle(&mut link.inbuf);
        }
        self.note_input_progress(now, slot, frames_before);
        self.recount_input(slot);
    }

    /// After input was decoded (`frames_before` frames had been before): a frame that
    /// completed is a sign of life, and an incomplete one left in the buffer starts its
    /// deadline, or keeps the one it had if it is the same frame. Bytes of an incomplete
    /// frame are not a sign of life: a peer dripping a frame it never finishes is silent.
    pub(super) fn note_input_progress(&mut self, now: Time, slot: Slot, frames_before: u64) {
        let Some(link) = self.links[slot as usize].as_mut() else {
            return;
        };
        let frames = link.stats.frames_in;
        if frames > frames_before {
            link.last_received = now;
        }
        // A paused link's input waits by our choice, and a closing one's is thrown away.
        let incomplete = !link.inbuf.is_empty() && link.stalled.is_none() && !link.is_closing();
        link.partial_frame = match link.partial_frame {
            _ if !incomplete => None,
            Some(partial) if partial.frames_before == frames => Some(partial),
            _ => Some(PartialFrame {
                since: now,
                frames_before: frames,
            }),
        };
        let deadline = link.config.frame_deadline;
        if let (Some(partial), false) = (link.partial_frame, deadline.is_zero()) {
            // A router at rest may have planned to sleep past the deadline.
            self.next_housekeeping = self.next_housekeeping.min(partial.since + deadline);
        }
    }

    /// Why the bytes buffered for `slot` may not be kept, if they may not.
    fn input_refusal(&self, slot: Slot) -> Option<CloseReason> {
        let link = self.link(slot);
        let held = link.inbuf.len();
        // Only an accepted link is bounded before its hello: whoever dialed it sends nothing
        // more until our hello answers, while the router we dialed may send its hello and
        // its interest in one segment.
        let accepted_handshake = matches!(link.state, LinkState::Handshake { expect: None });
        let limit = self.config.handshake_input_limit_bytes;
        if accepted_handshake && held > limit {
            return Some(CloseReason::InputLimit {
                what: "input before the hello",
                limit,
            });
        }
        let limit = self.config.input_budget_bytes;
        (self.input_buffered - link.input_counted + held > limit).then_some(
            CloseReason::InputLimit {
                what: "undecoded input across all links",
                limit,
            },
        )
    }

    /// Bring the router's total of buffered input up to date with `slot`'s buffer.
    pub(super) fn recount_input(&mut self, slot: Slot) {
        let Some(link) = self.links[slot as usize].as_mut() else {
            return;
        };
        let held = link.inbuf.len();
        self.input_buffered = self.input_buffered - link.input_counted + held;
        link.input_counted = held;
    }

    /// The link's stream ended. A partial frame left in the buffer is reported as truncated.
    pub fn handle_eof(&mut self, now: Time, id: LinkId) {
        let Some(slot) = self.live(id) else { return };
        let link = self.link(slot);
        let reason = match &link.state {
            LinkState::Closing { reason, .. } => reason.clone(),
            _ if !link.inbuf.is_empty() => CloseReason::Protocol(WireError::Truncated {
                missing: missing_bytes(&link.inbuf),
            }),
            LinkState::Handshake { expect: None } => CloseReason::ClosedBeforeHello,
            _ => CloseReason::EndOfStream,
        };
        self.begin_close(now, slot, reason, false);
    }

    /// The link's transport failed.
    pub fn handle_transport_error(&mut self, now: Time, id: LinkId, error: impl Into<String>) {
        let Some(slot) = self.live(id) else { return };
        let reason = match &self.link(slot).state {
            LinkState::Closing { reason, .. } => reason.clone(),
            _ => CloseReason::Transport(error.into()),
        };
        self.begin_close(now, slot, reason, false);
    }

    /// Decode and act on buffered input until it runs out or a frame stalls.
    pub(super) fn process_input(&mut self, now: Time, slot: Slot) {
        loop {
            let link = self.link_mut(slot);
            if link.is_closing() {
                link.inbuf.clear();
                return;
            }
            if let Some((fed, frame)) = link.stalled.take() {
                if !self.route_counted(now, slot, fed, frame) {
                    return;
                }
                continue;
            }
            let max = self.max_frame_size;
            let link = self.link_mut(slot);
            let established = !matches!(link.state, LinkState::Handshake { .. });
            let decoded = match split_frame(&mut link.inbuf, max) {
                Ok(None) => return,
                Ok(Some((kind, bytes))) => {
                    link.stats.frames_in += 1;
                    // Data, most of what a router reads, skips the general decoder.
                    if kind == FrameKind::Data && established {
                        DataFrame::from_bytes(bytes).map(|data| self.on_data(now, slot, data))
                    } else {
                        Frame::parse(bytes).map(|frame| self.handle_frame(now, slot, frame))
                    }
                }
                Err(error) => Err(error),
            };
            if let Err(error) = decoded {
                self.fail(now, slot, CloseReason::Protocol(error));
                return;
            }
            // A frame may have closed the link and freed its slot.
            if self.links[slot as usize].is_none() {
                return;
            }
        }
    }

    /// Close a link for something it did wrong, telling it why.
    pub(super) fn fail(&mut self, now: Time, slot: Slot, reason: CloseReason) {
        self.begin_close(now, slot, reason, true);
    }

    fn violation(&mut self, now: Time, slot: Slot, what: String) {
        self.fail(now, slot, CloseReason::Violation(what));
    }

    fn handle_frame(&mut self, now: Time, slot: Slot, frame: Frame) {
        let handshaking = matches!(self.link(slot).state, LinkState::Handshake { .. });
        match frame {
            Frame::Hello(hello) if handshaking => self.on_hello(now, slot, hello),
            Frame::Hello(_) => {
                self.violation(now, slot, "a second hello on an established link".into())
            }
            // A goodbye is heard even during the handshake: it says why the peer refused us.
            Frame::Goodbye(goodbye) => {
                self.begin_close(now, slot, CloseReason::PeerGoodbye(goodbye.reason), false)
            }
            other if handshaking => {
                let kind = other.kind().name();
                self.violation(now, slot, format!("{kind} frame before hello"))
            }
            Frame::Heartbeat => {}
            Frame::Interest(interest) => self.on_interest(now, slot, interest),
            Frame::Data(data) => self.on_data(now, slot, data),
            Frame::RegistryRoute(route) => self.on_registry_route(now, slot, route),
            Frame::Manage(frame) => self.on_manage(now, slot, frame),
            Frame::Session(frame) => self.on_session(now, slot, frame),
            Frame::Ack(received) => self.on_ack(slot, received),
        }
    }

    fn on_hello(&mut self, now: Time, slot: Slot, hello: Hello) {
        let LinkState::Handshake { expect } = self.link(slot).state.clone() else {
            return;
        };
        let (federation, binding) = match self.admit_hello(slot, expect.as_ref(), &hello) {
            Ok(admitted) => admitted,
            Err(why) => return self.violation(now, slot, why),
        };
        if expect.is_none() {
            self.answer_hello(now, slot, &hello);
        }
        let peer = PeerInfo {
            node_name: hello.node_name,
            node_id: hello.node_id,
            role: hello.role,
            flags: hello.flags,
            federation,
            clique: hello.clique,
        };
        let link = self.link_mut(slot);
        link.role = hello.role;
        link.far_flags = hello.flags;
        link.binding = binding;
        link.peer = Some(peer.clone());
        let id = link.id;
        if let (Some(_), Some(theirs)) = (link.udp_local, hello.udp) {
            link.udp_peer = Some(theirs);
            self.events.push_back(Event::UdpPeer {
                link: id,
                port: theirs.port,
            });
        }
        self.link_up(now, slot, peer);
    }

    /// The federation a hello binds its link to and the binding, or why the link may not
    /// open: the far side must be what we dialed (if we dialed), and the federation one this
    /// node serves.
    fn admit_hello(
        &mut self,
        slot: Slot,
        expect: Option<&Expectation>,
        hello: &Hello,
    ) -> Result<(String, Binding), String> {
        let federation = match expect {
            Some(expect) => {
                hello_answers(expect, hello)?;
                expect.federation.clone()
            }
            None => hello.federation.clone(),
        };
        if hello.role == Role::Peer && hello.clique.is_empty() {
            return Err("a peer hello must name its clique".into());
        }
        if let Some(app) = &self.config.application {
            if !federation.is_empty() && federation != app.federation {
                let serves = &app.federation;
                return Err(format!(
                    "this node serves federation {serves:?}, not {federation:?}"
                ));
            }
        }
        let binding = if federation.is_empty() {
            Binding::Trunk
        } else {
            Binding::Federation(self.federation_by_name(&federation)?)
        };
        if let Some(why) = self.refuse_router_link(slot, &binding, hello.role) {
            return Err(why);
        }
        Ok((federation, binding))
    }

    /// The hello a dialed link answers with: our side of what the dialer said.
    fn answer_hello(&mut self, now: Time, slot: Slot, hello: &Hello) {
        let link = self.link(slot);
        let reply = Hello {
            node_id: self.config.node_id,
            node_name: self.config.node_name.clone(),
            role: hello.role.inverse(),
            flags: link.our_flags,
            federation: hello.federation.clone(),
            clique: hello.clique.clone(),
            udp: link.udp_local,
        };
        self.send_control(now, slot, |out| reply.encode(out));
    }

    fn on_interest(&mut self, now: Time, slot: Slot, frame: InterestFrame) {
        if !self.link(slot).far_flags.contains(LinkFlags::SINK) {
            return self.violation(now, slot, "interest from a link that is not a sink".into());
        }
        let fed = match self.fed_for_link(slot, frame.federation) {
            Ok(fed) => fed,
            Err(why) => return self.violation(now, slot, why),
        };
        let mut ids = set_of(&frame.ranges);
        if frame.op != InterestOp::Remove {
            self.keep_permitted_interest(slot, fed, &mut ids);
        }
        let request = match frame.op {
            InterestOp::Add => InterestOpRequest::Add(&ids),
            InterestOp::Remove => InterestOpRequest::Remove(&ids),
            InterestOp::Replace => InterestOpRequest::Replace(&ids),
        };
        let current = self.link(slot).interest(fed).cloned().unwrap_or_default();
        let (added, removed) = request.delta(&current);
        let next = request.apply(current);
        let limit = self.link(slot).config.max_interest_ids;
        if next.len() > limit {
            let n = next.len();
            return self.violation(
                now,
                slot,
                format!("interest set of {n} ids exceeds the limit of {limit}"),
            );
        }
        *self.link_mut(slot).interest_mut(fed) = next;
        self.propagate(now, fed, slot, &added, &removed);
        self.replay_latest(now, fed, slot, &added);
        if !added.is_empty() || !removed.is_empty() {
            let link = self.link(slot).id;
            self.events.push_back(Event::InterestChanged { link });
        }
    }

    fn on_data(&mut self, now: Time, slot: Slot, frame: DataFrame) {
        if !self.link(slot).far_flags.contains(LinkFlags::SOURCE) {
            return self.violation(now, slot, "data from a link that is not a source".into());
        }
        let fed = match self.fed_for_link(slot, frame.federation()) {
            Ok(fed) => fed,
            Err(why) => return self.violation(now, slot, why),
        };
        let link = self.link_mut(slot);
        link.stats.data_in += 1;
        self.stats.data_received += 1;
        if self.refuse_data(now, slot, fed, &frame) {
            return;
        }
        self.route_counted(now, slot, fed, frame);
    }

    /// Route a data frame that arrived on `slot`'s stream; a reliable one is counted for
    /// the link session once routed (a paused one when it is retried). False if paused.
    pub(super) fn route_counted(
        &mut self,
        now: Time,
        slot: Slot,
        fed: FedIndex,
        frame: DataFrame,
    ) -> bool {
        let reliable = frame.class() == TransportClass::Reliable;
        if !self.route(now, slot, fed, frame) {
            return false;
        }
        if reliable {
            self.received_reliable(now, slot);
        }
        true
    }

    /// The federation a frame on `slot` belongs to, refusing one the link does not carry.
    pub(super) fn fed_for_link(
        &mut self,
        slot: Slot,
        id: FederationId,
    ) -> Result<FedIndex, String> {
        match self.link(slot).binding {
            Binding::Federation(fed) if self.fed(fed).id == id => Ok(fed),
            Binding::Federation(fed) => {
                let bound = self.fed(fed).name.clone().unwrap_or_default();
                Err(format!(
                    "frame for federation {id} on a link bound to federation {bound:?}"
                ))
            }
            Binding::Trunk => self.federation_by_id(id, None),
            Binding::Unbound => Err("frame before the link was bound to a federation".into()),
        }
    }

    /// Find or start tracking a federation by name.
    pub(super) fn federation_by_name(&mut self, name: &str) -> Result<FedIndex, String> {
        self.federation_by_id(FederationId::of(name), Some(name))
    }

    fn federation_by_id(
        &mut self,
        id: FederationId,
        name: Option<&str>,
    ) -> Result<FedIndex, String> {
        if let Some(&fed) = self.fed_by_id.get(&id) {
            let state = self.feds[fed as usize]
                .as_mut()
                .expect("indexed federation is live");
            match (&state.name, name) {
                (Some(known), Some(name)) if known != name => {
                    return Err(format!(
                        "federation name {name:?} has the same wire id as {known:?}; rename one of them"
                    ))
                }
                (None, Some(name)) => state.name = Some(name.to_owned()),
                _ => {}
            }
            return Ok(fed);
        }
        let live = self.feds.len() - self.free_feds.len();
        if live >= self.config.max_federations {
            return Err(format!(
                "this router already serves its limit of {} federations",
                self.config.max_federations
            ));
        }
        let state = Federation {
            id,
            name: name.map(str::to_owned),
            index: Default::default(),
            declared: Default::default(),
        };
        let fed = match self.free_feds.pop() {
            Some(fed) => {
                self.feds[fed as usize] = Some(state);
                fed
            }
            None => {
                self.feds.push(Some(state));
                (self.feds.len() - 1) as FedIndex
            }
        };
        self.fed_by_id.insert(id, fed);
        Ok(fed)
    }
}

/// Whether the far side of a link we dialed answered as what we dialed: its role, its
/// federation and, for a peer, its clique.
fn hello_answers(expect: &Expectation, hello: &Hello) -> Result<(), String> {
    if hello.role != expect.far_role {
        return Err(format!(
            "dialed a {} but the far side answered as a {}",
            expect.far_role.name(),
            hello.role.name()
        ));
    }
    if hello.federation != expect.federation {
        return Err(format!(
            "asked for federation {:?} but the far side answered {:?}",
            expect.federation, hello.federation
        ));
    }
    if hello.role == Role::Peer && hello.clique != expect.clique {
        return Err(format!(
            "dialed a peer of clique {:?} but it answered for clique {:?}",
            expect.clique, hello.clique
        ));
    }
    Ok(())
}
