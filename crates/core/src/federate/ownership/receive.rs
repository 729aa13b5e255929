//! What arrives: ownership requests a keeper answers, announcements everyone notes, and
//! answers meant for one federate.

use super::wire::{Op, OwnershipBody};
use super::{Acquiring, Keeper, OwnershipCallback, Token, IMPLICIT_PRIVILEGE};
use crate::federate::{Federate, ObjectId};
use crate::fom::AttributeHandle;
use bytes::Bytes;
use std::collections::BTreeMap;

impl Federate {
    /// An ownership message arrived (sent by `sender` for an instance registered as `class`).
    pub(in crate::federate) fn on_ownership(
        &mut self,
        sender: u32,
        class: u32,
        body: OwnershipBody,
        tag: Bytes,
    ) {
        if sender == self.handle {
            return;
        }
        if !self.ownership_wellformed(class, &body) {
            self.stats.malformed += 1;
            return;
        }
        if !self.instances.contains_key(body.object) {
            // An instance this federate does not know: nothing it holds or must note.
            return;
        }
        self.note_keepers(&body);
        if body.to != 0 && body.to != self.handle {
            return;
        }
        self.on_ownership_for_me(&body, tag);
    }

    /// The class is registered and every attribute is one of the model's (or the implicit
    /// privilege to delete).
    fn ownership_wellformed(&self, class: u32, body: &OwnershipBody) -> bool {
        let count = self.model.counts().attributes;
        let valid = |a: u32| (a as usize) < count || a == IMPLICIT_PRIVILEGE.0;
        let registered = self.model.object_class_checked(class);
        registered.is_some()
            && body.attributes.iter().all(|(a, _)| valid(*a))
            && body.pairs.iter().all(|(a, _)| valid(*a))
    }

    /// Announcements everyone notes: who keeps the attributes of a grant, a hand-over or a
    /// release into no one's hands.
    fn note_keepers(&mut self, body: &OwnershipBody) {
        let (federate, owned) = match body.op {
            Op::Grant => (body.to, true),
            Op::HandOver => (body.to, false),
            Op::Unowned => (body.from, false),
            _ => return,
        };
        let instance = self.instance(body.object);
        for &(a, generation) in &body.attributes {
            let keeper = Keeper {
                federate,
                owned,
                generation,
            };
            instance.announce(body.object, AttributeHandle(a), keeper);
        }
    }

    /// A message addressed to this federate (or to every federate).
    fn on_ownership_for_me(&mut self, body: &OwnershipBody, tag: Bytes) {
        let attributes: Vec<AttributeHandle> = body
            .attributes
            .iter()
            .map(|(a, _)| AttributeHandle(*a))
            .collect();
        let object = body.object;
        match body.op {
            Op::Offer => self.on_offer(object, &attributes, tag),
            Op::Acquire | Op::AcquireIfAvailable | Op::Cancel | Op::Query => {
                self.on_request_to_keeper(body, &attributes, tag)
            }
            Op::Grant | Op::HandOver => self.on_tokens(body, &attributes, tag),
            Op::Unavailable => {
                let attributes = self.settle(object, &attributes, Acquiring::IfAvailable);
                if !attributes.is_empty() {
                    let callback =
                        OwnershipCallback::AttributeOwnershipUnavailable { object, attributes };
                    self.ownership_callback(callback);
                }
            }
            Op::CancelConfirmed => {
                let attributes = self.settle(object, &attributes, Acquiring::Acquisition);
                if !attributes.is_empty() {
                    let callback =
                        OwnershipCallback::ConfirmAttributeOwnershipAcquisitionCancellation {
                            object,
                            attributes,
                        };
                    self.ownership_callback(callback);
                }
            }
            Op::Inform => {
                for &(a, owner) in &body.pairs {
                    self.inform(object, AttributeHandle(a), owner);
                }
            }
            Op::Unowned => {}
        }
    }

    /// End this federate's pending acquisitions of `attributes` of this kind (an answer to
    /// an earlier kind of request must not end a later one); returns those it ended.
    fn settle(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        kind: Acquiring,
    ) -> Vec<AttributeHandle> {
        let instance = self.instance(object);
        let ended: Vec<AttributeHandle> = attributes
            .iter()
            .copied()
            .filter(|a| instance.acquiring.get(a) == Some(&kind))
            .collect();
        for a in &ended {
            instance.acquiring.remove(a);
        }
        ended
    }

    /// requestAttributeOwnershipAssumption, for what this federate publishes and lacks.
    fn on_offer(&mut self, object: ObjectId, attributes: &[AttributeHandle], tag: Bytes) {
        let class = self.registered_class(object);
        let offered: Vec<AttributeHandle> = attributes
            .iter()
            .copied()
            .filter(|a| *a != IMPLICIT_PRIVILEGE)
            .filter(|a| self.publishes(class, *a) && !self.owns(object, *a))
            .collect();
        if !offered.is_empty() {
            let callback = OwnershipCallback::RequestAttributeOwnershipAssumption {
                object,
                attributes: offered,
                tag,
            };
            self.ownership_callback(callback);
        }
    }

    /// A request for the keeper of each attribute: answer for the tokens held here,
    /// forward the rest along the grants this federate made.
    fn on_request_to_keeper(
        &mut self,
        body: &OwnershipBody,
        attributes: &[AttributeHandle],
        tag: Bytes,
    ) {
        let object = body.object;
        let requester = body.from;
        if requester == self.handle {
            return;
        }
        let class = self.registered_class(object);
        let instance = self.instance(object);
        let mut held = Vec::new();
        let mut forward: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
        for &a in attributes {
            if instance.tokens.contains_key(&a) {
                held.push(a);
            } else if let Some(&next) = instance.forwarded.get(&a) {
                if next != requester {
                    forward.entry(next).or_default().push((a.0, 0));
                }
            }
        }
        for (next, attributes) in forward {
            let forwarded = OwnershipBody {
                to: next,
                attributes,
                ..body.clone()
            };
            self.send_ownership(class, &tag, forwarded);
        }
        if held.is_empty() {
            return;
        }
        match body.op {
            Op::Acquire => self.keeper_acquire(object, requester, &held, tag),
            Op::AcquireIfAvailable => self.keeper_acquire_if_available(object, requester, &held),
            Op::Cancel => {
                let instance = self.instance(object);
                let mut withdrawn = Vec::new();
                for a in &held {
                    let queue = &mut instance.tokens.get_mut(a).expect("held").queue;
                    if let Some(at) = queue.iter().position(|f| *f == requester) {
                        queue.remove(at);
                        withdrawn.push(*a);
                    }
                }
                self.answer(
                    object,
                    Op::CancelConfirmed,
                    requester,
                    &withdrawn,
                    Vec::new(),
                );
            }
            Op::Query => {
                let me = self.handle;
                let instance = self.instance(object);
                let pairs = held
                    .iter()
                    .map(|a| (a.0, if instance.tokens[a].owned { me } else { 0 }))
                    .collect();
                self.answer(object, Op::Inform, requester, &held, pairs);
            }
            _ => unreachable!("only requests reach the keeper"),
        }
    }

    fn answer(
        &mut self,
        object: ObjectId,
        op: Op,
        to: u32,
        attributes: &[AttributeHandle],
        pairs: Vec<(u32, u32)>,
    ) {
        if attributes.is_empty() {
            return;
        }
        let class = self.registered_class(object);
        let body = OwnershipBody {
            op,
            object,
            from: self.handle,
            to,
            attributes: attributes.iter().map(|a| (a.0, 0)).collect(),
            pairs,
        };
        self.send_ownership(class, &[], body);
    }

    /// Unowned attributes go to the requester at once; owned ones queue it, and the owner
    /// is asked to release (or to confirm, when it is divesting them).
    fn keeper_acquire(
        &mut self,
        object: ObjectId,
        requester: u32,
        held: &[AttributeHandle],
        tag: Bytes,
    ) {
        let instance = self.instance(object);
        let mut grant = Vec::new();
        let mut release = Vec::new();
        let mut confirm = Vec::new();
        for a in held {
            let token = instance.tokens.get_mut(a).expect("held");
            if !token.owned {
                grant.push(*a);
            } else if !token.queue.contains(&requester) {
                token.queue.push(requester);
                if token.divesting {
                    confirm.push(*a);
                } else {
                    release.push(*a);
                }
            }
        }
        self.hand_tokens(object, Op::Grant, requester, &grant, &tag);
        if !confirm.is_empty() {
            let callback = OwnershipCallback::RequestDivestitureConfirmation {
                object,
                attributes: confirm,
            };
            self.ownership_callback(callback);
        }
        if !release.is_empty() {
            let callback = OwnershipCallback::RequestAttributeOwnershipRelease {
                object,
                attributes: release,
                tag,
            };
            self.ownership_callback(callback);
        }
    }

    fn keeper_acquire_if_available(
        &mut self,
        object: ObjectId,
        requester: u32,
        held: &[AttributeHandle],
    ) {
        let instance = self.instance(object);
        let (unowned, owned): (Vec<AttributeHandle>, Vec<AttributeHandle>) =
            held.iter().partition(|a| !instance.tokens[a].owned);
        self.hand_tokens(object, Op::Grant, requester, &unowned, &[]);
        self.answer(object, Op::Unavailable, requester, &owned, Vec::new());
    }

    /// Tokens arrive: owned (a grant this federate asked for) or in trust (a keeper that
    /// resigned). Waiting acquirers come with them.
    fn on_tokens(&mut self, body: &OwnershipBody, attributes: &[AttributeHandle], tag: Bytes) {
        let object = body.object;
        let owned = body.op == Op::Grant;
        let instance = self.instance(object);
        for &(a, generation) in &body.attributes {
            let a = AttributeHandle(a);
            let queue = body
                .pairs
                .iter()
                .filter(|(q, _)| *q == a.0)
                .map(|(_, f)| *f)
                .collect();
            let token = Token {
                owned,
                divesting: false,
                queue,
                generation,
            };
            instance.tokens.insert(a, token);
            instance.forwarded.remove(&a);
            if owned {
                instance.acquiring.remove(&a);
            }
        }
        self.sync_owned(object);
        if owned {
            let callback = OwnershipCallback::AttributeOwnershipAcquisitionNotification {
                object,
                attributes: attributes.to_vec(),
                tag,
            };
            self.ownership_callback(callback);
            self.ask_release_for_waiting(object, attributes);
        } else {
            self.serve_trust(object, attributes);
        }
    }

    /// A new owner learns at once that others still wait for what it got.
    fn ask_release_for_waiting(&mut self, object: ObjectId, attributes: &[AttributeHandle]) {
        let instance = self.instance(object);
        let waiting: Vec<AttributeHandle> = attributes
            .iter()
            .copied()
            .filter(|a| !instance.tokens[a].queue.is_empty())
            .collect();
        if !waiting.is_empty() {
            let callback = OwnershipCallback::RequestAttributeOwnershipRelease {
                object,
                attributes: waiting,
                tag: Bytes::new(),
            };
            self.ownership_callback(callback);
        }
    }

    /// Unowned tokens now kept here: this federate's own pending acquisitions take them,
    /// then the first federate waiting for each.
    pub(super) fn serve_trust(&mut self, object: ObjectId, attributes: &[AttributeHandle]) {
        let instance = self.instance(object);
        let mine: Vec<AttributeHandle> = attributes
            .iter()
            .copied()
            .filter(|a| instance.acquiring.contains_key(a))
            .collect();
        if !mine.is_empty() {
            let left = self.take_from_trust(object, &mine, &[]);
            debug_assert!(left.is_empty(), "every token was held here");
        }
        let rest: Vec<AttributeHandle> = attributes
            .iter()
            .copied()
            .filter(|a| !mine.contains(a))
            .collect();
        self.grant_to_first_waiting(object, &rest, &[]);
    }
}

/// Acquisitions the tokens' loss leaves unanswered are asked again.
pub(super) fn pending_at(
    acquiring: &BTreeMap<AttributeHandle, Acquiring>,
    lost: &[AttributeHandle],
) -> Vec<(AttributeHandle, Acquiring)> {
    acquiring
        .iter()
        .filter(|(a, _)| lost.contains(a))
        .map(|(a, k)| (*a, *k))
        .collect()
}
