//! Federation management on the router: the route to the registry, and forwarding manage
//! frames along it (requests toward the registry, replies back the way they came).
//!
//! The route is a distance vector with split horizon per block: a router announces its
//! distance to every link except into the block its own route leaves through (to those it
//! announces "unreachable"). In a block graph that removes every loop, so routes converge
//! after a failure without counting to infinity.

use super::index::Slot;
use super::{Event, LinkId, Router};
use crate::registry::{ErrorKind, Request, Response, FEDERATION_CONTROL_ID};
use crate::time::Time;
use crate::wire::{
    DataFrame, DataHeader, FederationId, ManageDirection, ManageFrame, NodeId, RegistryRoute, Role,
    TransportClass,
};
use std::time::Duration;

/// Most requests a router forwards at once; beyond it, asking nodes get an error.
pub(crate) const MAX_PENDING: usize = 4096;
/// A forwarded request whose reply has not come back by then is forgotten.
const PENDING_TIMEOUT: Duration = Duration::from_secs(30);
/// Routes longer than this are treated as unreachable.
const MAX_DISTANCE: u8 = 64;
/// Nodes named in one vouch request.
const VOUCH_CHUNK: usize = 1024;
/// The request number of a neighbour's notice that the registry does not know this node:
/// never one of a node's own requests, which count up from 1.
const VOUCH_NOTICE: u64 = u64::MAX;

pub(crate) struct Pending {
    asker: LinkId,
    /// The link the request left through: if it closes, no answer will come back.
    via: LinkId,
    expires: Time,
}

impl Router {
    /// This router's distance to the registry and the link its route leaves through.
    fn best_registry_route(&self) -> (u8, Option<Slot>) {
        if self.registry.is_some() {
            return (0, None);
        }
        let mut best = (RegistryRoute::UNREACHABLE, None);
        for link in self.links.iter().flatten() {
            if link.is_app() || !link.is_connected() {
                continue;
            }
            let distance = link.registry_distance.saturating_add(1);
            if distance <= MAX_DISTANCE && distance < best.0 {
                best = (distance, Some(link.id.slot));
            }
        }
        best
    }

    /// Recompute the route and tell every link what changed for it.
    pub(super) fn update_registry_route(&mut self, now: Time) {
        let (distance, via) = self.best_registry_route();
        self.registry_distance = distance;
        self.registry_via = via;
        let via_block = via.and_then(|v| self.link(v).block);
        for id in self.link_ids() {
            let link = self.link(id.slot);
            if link.is_app() || !link.is_connected() {
                continue;
            }
            let announce = if via_block.is_some() && link.block == via_block {
                RegistryRoute::UNREACHABLE
            } else {
                distance
            };
            if link.registry_announced != Some(announce) {
                self.link_mut(id.slot).registry_announced = Some(announce);
                self.send_control(now, id.slot, |out| {
                    RegistryRoute { distance: announce }.encode(out)
                });
            }
        }
        self.release_awaiting_route(now);
    }

    pub(super) fn on_registry_route(&mut self, now: Time, slot: Slot, route: RegistryRoute) {
        let link = self.link_mut(slot);
        link.registry_distance = route.distance;
        link.registry_heard = true;
        self.update_registry_route(now);
    }

    fn request_frame(&mut self, request: &Request) -> ManageFrame {
        let id = self.next_request;
        self.next_request += 1;
        ManageFrame {
            direction: ManageDirection::Request,
            origin: self.config.node_id,
            request: id,
            asker: None,
            body: request.encode(),
        }
    }

    /// Ask the registry for the local application. The answer comes from
    /// `poll_manage_reply` with the returned number.
    pub fn manage(&mut self, now: Time, request: &Request) -> u64 {
        let frame = self.request_frame(request);
        let id = frame.request;
        let asker = self.app.map(|app| self.link(app).id);
        self.forward_request(now, asker, frame);
        id
    }

    /// The next answer to a `manage` request of the local application.
    ///
    /// Call after `manage` and after every `handle_*` call (answers arrive as input).
    #[must_use]
    pub fn poll_manage_reply(&mut self) -> Option<(u64, Response)> {
        let (id, body) = self.manage_replies.pop_front()?;
        let response = Response::decode(&body).unwrap_or_else(|e| Response::Error {
            kind: ErrorKind::Malformed,
            message: format!("the registry's answer did not decode: {e}"),
        });
        Some((id, response))
    }

    pub(super) fn on_manage(&mut self, now: Time, slot: Slot, mut frame: ManageFrame) {
        match frame.direction {
            ManageDirection::Request => {
                let link = self.link(slot);
                // Where a request enters the network, its asker is what the link proved,
                // whatever the peer wrote; routers' links carry what their router set.
                if !link.is_from_router() {
                    frame.asker = link.identity.as_ref().map(|i| i.name.clone());
                }
                let asker = link.id;
                // Decoded once for the checks here; one that does not decode goes on, and the
                // registry answers it as malformed.
                if let Ok(request) = Request::decode(&frame.body) {
                    if let Some(rights) = self.answer_class_rights(slot, &request) {
                        return self.reply(now, asker, &frame, rights);
                    }
                    if let Some(why) = self.refuse_request(slot, &frame, &request) {
                        return self.refuse(now, asker, &frame, why);
                    }
                }
                self.forward_request(now, Some(asker), frame)
            }
            ManageDirection::Reply => {
                if let Some(pending) = self.pending_manage.remove(&(frame.origin, frame.request)) {
                    self.send_reply(now, pending.asker, frame);
                } else if frame.origin == self.config.node_id && Some(slot) == self.registry_via {
                    // Only from toward the registry: anyone else could say "unknown" of us.
                    if let Ok(response) = Response::decode(&frame.body) {
                        self.on_own_answer(now, &response);
                    }
                }
            }
        }
    }

    /// Name the registry's incarnation before it first acts: from this process's node id
    /// (drawn per process) and the time, so a restarted host's registry has another epoch
    /// and federates can tell it from the one they knew (`registry/reclaim.rs`).
    fn start_registry(&mut self, now: Time) {
        let seed = self.config.node_id.0 ^ now.as_nanos().rotate_left(32);
        if let Some(registry) = self.registry.as_mut() {
            registry.start_epoch(mix(seed));
        }
    }

    /// Answer a request here if we hold the registry, else pass it on toward it.
    pub(super) fn forward_request(&mut self, now: Time, asker: Option<LinkId>, frame: ManageFrame) {
        self.start_registry(now);
        if let Some(registry) = self.registry.as_mut() {
            let response = match Request::decode(&frame.body) {
                Ok(request) => registry.handle_as(frame.origin, frame.asker.as_deref(), request),
                Err(e) => Response::Error {
                    kind: ErrorKind::Malformed,
                    message: format!("registry request did not decode: {e}"),
                },
            };
            if let (Response::Error { kind, message }, Some(link)) = (&response, asker) {
                if *kind == ErrorKind::NotPermitted {
                    self.stats.requests_refused += 1;
                    let why = message.clone();
                    self.events.push_back(Event::RequestRefused { link, why });
                }
            }
            self.broadcast_registry_events(now);
            match asker {
                Some(asker) => self.reply(now, asker, &frame, response),
                None if frame.origin == self.config.node_id => self.on_own_answer(now, &response),
                None => {}
            }
            return;
        }
        let Some(via) = self.registry_via else {
            if let Some(asker) = asker {
                if self.registry_route_unheard() {
                    return self.await_registry_route(now, asker, frame);
                }
                let response = Response::Error {
                    kind: ErrorKind::NoRegistry,
                    message: format!(
                        "no federation registry is reachable from {} (no link toward one is \
                         up; a federate node redials its router)",
                        self.config.node_name
                    ),
                };
                self.reply(now, asker, &frame, response);
            }
            return;
        };
        if let Some(asker) = asker {
            if self.pending_manage.len() >= MAX_PENDING {
                let response = Response::Error {
                    kind: ErrorKind::LimitReached,
                    message: format!(
                        "{} has {MAX_PENDING} registry requests in flight",
                        self.config.node_name
                    ),
                };
                self.reply(now, asker, &frame, response);
                return;
            }
            let pending = Pending {
                asker,
                via: self.link(via).id,
                expires: now + PENDING_TIMEOUT,
            };
            self.pending_manage
                .insert((frame.origin, frame.request), pending);
            self.housekeep_soon(now);
        }
        let bytes = self.encode(|out| frame.encode(out));
        self.queue_control(now, via, bytes);
    }

    /// Send what the registry has to tell federates. Events go out before the reply to the
    /// request that caused them, though a federate must not rely on it: replies travel as
    /// control frames and may overtake data.
    fn broadcast_registry_events(&mut self, now: Time) {
        while let Some((federation, payload)) = self.registry.as_mut().and_then(|r| r.poll_event())
        {
            let Ok(fed) = self.federation_by_name(&federation) else {
                self.stats.registry_events_unsent += 1;
                continue;
            };
            let header = DataHeader {
                federation: FederationId::of(&federation),
                source: self.config.node_id,
                seq: self.next_seq,
                priority: 7,
                class: TransportClass::Reliable,
            };
            let frame = self
                .encode(|out| DataFrame::encode(out, &header, &[FEDERATION_CONTROL_ID], &payload));
            self.originate_broadcast(now, fed, DataFrame::from_validated(frame));
        }
    }

    /// Refuse `request` where it entered, saying why: counted, told (`Event::RequestRefused`)
    /// and answered with `ErrorKind::NotPermitted`.
    fn refuse(&mut self, now: Time, asker: LinkId, request: &ManageFrame, why: String) {
        self.stats.requests_refused += 1;
        self.events.push_back(Event::RequestRefused {
            link: asker,
            why: why.clone(),
        });
        let response = Response::Error {
            kind: ErrorKind::NotPermitted,
            message: why,
        };
        self.reply(now, asker, request, response);
    }

    pub(super) fn reply(
        &mut self,
        now: Time,
        asker: LinkId,
        request: &ManageFrame,
        response: Response,
    ) {
        let frame = ManageFrame {
            direction: ManageDirection::Reply,
            origin: request.origin,
            request: request.request,
            asker: None,
            body: response.encode(),
        };
        self.send_reply(now, asker, frame);
    }

    fn send_reply(&mut self, now: Time, asker: LinkId, frame: ManageFrame) {
        let Some(slot) = self.live(asker) else { return };
        if self.link(slot).is_app() {
            self.manage_replies.push_back((frame.request, frame.body));
            return;
        }
        let bytes = self.encode(|out| frame.encode(out));
        self.queue_control(now, slot, bytes);
    }

    /// Every `RouterConfig::vouch_interval`: tell the registry which federate nodes are linked to us and
    /// alive, renewing their membership lease; and, on the router that hosts the registry,
    /// let it resign whoever's lease ran out.
    ///
    /// A federate node does not vouch for itself: the node at the other end of its link
    /// (its router, or a clique peer) vouches for it, and tells it when the registry does
    /// not know it (`relay_unknown`). Each federate vouching for itself too sent the
    /// registry one request per federate per interval, and the registry looked each up
    /// among all its federates: quadratic in an idle federation. Only a node hosting the
    /// registry vouches for itself, without a frame.
    pub(super) fn keep_leases(&mut self, now: Time) {
        if now >= self.next_vouch {
            self.next_vouch = now + self.config.vouch_interval;
            let mut nodes: Vec<NodeId> = self.vouched_nodes().map(|(_, node)| node).collect();
            if self.app.is_some() && self.registry.is_some() {
                nodes.push(self.config.node_id);
            }
            for chunk in nodes.chunks(VOUCH_CHUNK) {
                let frame = self.request_frame(&Request::Vouch {
                    nodes: chunk.to_vec(),
                });
                self.forward_request(now, None, frame);
            }
        }
        self.start_registry(now);
        if let Some(registry) = self.registry.as_mut() {
            registry.tick(now);
            self.broadcast_registry_events(now);
        }
    }

    /// The nodes this one vouches for, and their links: those linked to it in a
    /// federation, up, as its children or clique peers (its parent vouches for it, not the
    /// other way round).
    pub(super) fn vouched_nodes(&self) -> impl Iterator<Item = (Slot, NodeId)> + '_ {
        self.links
            .iter()
            .flatten()
            .filter(|l| l.is_up() && l.role != Role::Parent)
            .filter(|l| matches!(l.binding, super::link::Binding::Federation(_)))
            .filter_map(|l| Some((l.id.slot, l.peer.as_ref()?.node_id)))
    }

    /// The registry's answer to a request this router made itself (a vouch), or a
    /// neighbour's notice that the registry does not know this node (`relay_unknown`).
    fn on_own_answer(&mut self, now: Time, response: &Response) {
        if let Response::Vouched { unknown } = response {
            if self.app.is_some() && unknown.contains(&self.config.node_id) {
                self.events.push_back(Event::NotAMember);
            }
            self.relay_unknown(now, unknown);
        }
    }

    /// Tell each linked node the registry does not know, which we vouched for, so: a
    /// `Vouched` reply naming it alone, numbered [`VOUCH_NOTICE`], which it takes as the
    /// answer to a vouch of its own.
    fn relay_unknown(&mut self, now: Time, unknown: &[NodeId]) {
        let told: Vec<(Slot, NodeId)> = self
            .vouched_nodes()
            .filter(|(_, node)| unknown.contains(node))
            .collect();
        for (slot, node) in told {
            let notice = ManageFrame {
                direction: ManageDirection::Reply,
                origin: node,
                request: VOUCH_NOTICE,
                asker: None,
                body: Response::Vouched {
                    unknown: vec![node],
                }
                .encode(),
            };
            let link = self.link(slot).id;
            self.send_reply(now, link, notice);
        }
    }

    /// Tell the registry that the node behind a closing federate link is gone.
    pub(super) fn report_node_gone(
        &mut self,
        now: Time,
        node: NodeId,
        how: crate::registry::Departure,
    ) {
        // The router's own request: nobody waits for its answer.
        let frame = self.request_frame(&Request::NodeGone { node, how });
        self.forward_request(now, None, frame);
    }

    /// Requests unanswered for `PENDING_TIMEOUT` are answered with an error here, so the
    /// asker hears why instead of waiting for nothing.
    pub(super) fn expire_pending_manage(&mut self, now: Time) {
        let expired: Vec<_> = self
            .pending_manage
            .iter()
            .filter(|(_, p)| p.expires <= now)
            .map(|(key, _)| *key)
            .collect();
        let why = format!(
            "the federation registry did not answer within {} s",
            PENDING_TIMEOUT.as_secs()
        );
        for key in expired {
            self.answer_pending(now, key, &why);
        }
    }

    /// A link closes: requests that left through it will get no answer (the registry may or
    /// may not have acted on them), so their askers hear that now rather than at expiry;
    /// requests it brought are forgotten, there is nobody to answer.
    pub(super) fn close_pending_manage(&mut self, now: Time, link: LinkId) {
        self.pending_manage.retain(|_, p| p.asker != link);
        self.forget_awaiting_route_of(link);
        let cut: Vec<_> = self
            .pending_manage
            .iter()
            .filter(|(_, p)| p.via == link)
            .map(|(key, _)| *key)
            .collect();
        let why = "the link toward the federation registry closed before it answered (the \
                   request may or may not have taken effect)";
        for key in cut {
            self.answer_pending(now, key, why);
        }
    }

    fn answer_pending(&mut self, now: Time, key: (NodeId, u64), why: &str) {
        let Some(pending) = self.pending_manage.remove(&key) else {
            return;
        };
        let response = Response::Error {
            kind: ErrorKind::NoRegistry,
            message: format!("{}: {why}", self.config.node_name),
        };
        let frame = ManageFrame {
            direction: ManageDirection::Reply,
            origin: key.0,
            request: key.1,
            asker: None,
            body: response.encode(),
        };
        self.send_reply(now, pending.asker, frame);
    }

    /// Whether this router holds the federation registry.
    pub fn hosts_registry(&self) -> bool {
        self.registry.is_some()
    }

    /// The registry's epoch, on the router that hosts it.
    pub fn registry_epoch(&self) -> Option<u64> {
        self.registry.as_ref().map(|r| r.epoch())
    }

    /// Links between this router and the registry (`None` when unreachable).
    pub fn registry_distance(&self) -> Option<u8> {
        (self.registry_distance != RegistryRoute::UNREACHABLE).then_some(self.registry_distance)
    }
}

/// splitmix64's finalizer: nearby seeds give unrelated epochs.
fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
