//! Leaving: the resign actions (IEEE 1516.1-2010 §4.10), and what the others do when a
//! federate is gone (resigned, or its connection died).

use super::receive::pending_at;
use super::wire::Op;
use super::{Acquiring, Keeper, ResignAction, Token};
use crate::federate::{Callback, Federate, FederateError, ObjectId};
use crate::fom::AttributeHandle;
use bytes::Bytes;

impl Federate {
    /// Carry out `action` before resigning. Fails, doing nothing, when the federate would
    /// leave with acquisitions pending (OwnershipAcquisitionPending) or attributes owned
    /// (FederateOwnsAttributes) that the action does not take care of. Afterwards the
    /// tokens this federate still keeps, unowned, are handed to another keeper.
    pub fn resign(&mut self, action: ResignAction, time: u64) -> Result<(), FederateError> {
        self.check_resign(action)?;
        if action.cancels() {
            self.cancel_all_acquisitions();
        }
        if action.deletes() {
            let deletable: Vec<ObjectId> = self
                .instances
                .keys()
                .filter(|o| self.check_delete_privilege(*o).is_ok())
                .collect();
            for object in deletable {
                self.delete_object_instance(object, b"resigned", time)?;
            }
        }
        if action.divests() {
            let objects: Vec<ObjectId> = self.instances.keys().collect();
            for object in objects {
                let owned = self.held_tokens(object, true);
                // Divesting nothing changes nothing: an instance keeps its compact form.
                if !owned.is_empty() {
                    self.divest(object, &owned);
                }
            }
        }
        self.hand_over_trust();
        Ok(())
    }

    fn check_resign(&self, action: ResignAction) -> Result<(), FederateError> {
        if !action.cancels() {
            let pending = self.instances.iter().find_map(|(o, i)| {
                let first = i.acquiring().and_then(|acquiring| acquiring.keys().next());
                first.map(|a| (o, *a))
            });
            if let Some((object, a)) = pending {
                return Err(FederateError::OwnershipAcquisitionPending {
                    object,
                    attribute: self.attribute_name(a),
                });
            }
        }
        if !action.divests() {
            let privilege = self.privilege();
            let deleted = |i: &super::Instance| action.deletes() && self.owned_by_me(i, privilege);
            let owned = self
                .instances
                .iter()
                .filter(|(_, i)| !deleted(i))
                .find_map(|(o, i)| {
                    let tokens = i.tokens(self.instance_attributes(i.class));
                    tokens
                        .into_iter()
                        .find(|(_, owned)| *owned)
                        .map(|(a, _)| (o, a))
                });
            if let Some((object, a)) = owned {
                return Err(FederateError::FederateOwnsAttributes {
                    object,
                    attribute: self.attribute_name(a),
                });
            }
        }
        Ok(())
    }

    fn cancel_all_acquisitions(&mut self) {
        let objects: Vec<ObjectId> = self.instances.keys().collect();
        for object in objects {
            // Nothing to cancel before an exchange: an instance keeps its compact form.
            if self.instances[object]
                .acquiring()
                .is_none_or(|a| a.is_empty())
            {
                continue;
            }
            let instance = self.instance(object);
            let cancel: Vec<AttributeHandle> = instance
                .acquiring
                .iter()
                .filter(|(_, k)| **k == Acquiring::Acquisition)
                .map(|(a, _)| *a)
                .collect();
            instance.acquiring.clear();
            if !cancel.is_empty() {
                self.request(object, Op::Cancel, &cancel, &[]);
            }
        }
    }

    /// Tokens kept in trust go to the privilege's keeper, or to any other keeper of the
    /// instance; with no one to take them they stay here and leave with this federate.
    fn hand_over_trust(&mut self) {
        let objects: Vec<ObjectId> = self.instances.keys().collect();
        let me = self.handle;
        let privilege = self.privilege();
        for object in objects {
            self.hand_over_trust_of(object, me, privilege);
        }
    }

    /// [`Federate::hand_over_trust`] for one instance (also before a local delete).
    pub(super) fn hand_over_trust_of(
        &mut self,
        object: ObjectId,
        me: u32,
        privilege: AttributeHandle,
    ) {
        let trust = self.held_tokens(object, false);
        if trust.is_empty() {
            return;
        }
        let instance = &self.instances[object];
        let attributes = self.instance_attributes(instance.class);
        let keeper = |a| instance.keeper(object, attributes, a).federate;
        let heir = std::iter::once(keeper(privilege))
            .chain(attributes.iter().map(|a| keeper(*a)))
            .find(|f| *f != me && *f != 0);
        if let Some(heir) = heir {
            self.hand_tokens(object, Op::HandOver, heir, &trust, &[]);
        }
    }

    /// The registry reports that federate `gone` resigned or died. Every instance whose
    /// privilege to delete it kept is removed (RemoveObjectInstance); the other attributes
    /// it kept become unowned, kept by the privilege's keeper, and this federate asks
    /// again for those it was acquiring.
    pub fn federate_gone(&mut self, gone: u32) {
        if gone == self.handle {
            return;
        }
        let privilege = self.privilege();
        let objects: Vec<ObjectId> = self.instances.keys().collect();
        for object in objects {
            let instance = &self.instances[object];
            let attributes = self.instance_attributes(instance.class);
            let keeper = |a| instance.keeper(object, attributes, a);
            let heir = keeper(privilege).federate;
            if heir == gone {
                self.remove_orphan(object, gone);
                continue;
            }
            let lost: Vec<(AttributeHandle, Keeper)> = (attributes.iter())
                .map(|a| (*a, keeper(*a)))
                .filter(|(_, k)| k.federate == gone)
                .collect();
            // Inheriting nothing changes nothing: an instance keeps its compact form.
            if !lost.is_empty() {
                self.inherit(object, heir, &lost);
            }
        }
    }

    /// The tokens of `object` this federate holds, owned or kept in trust.
    pub(super) fn held_tokens(&self, object: ObjectId, owned: bool) -> Vec<AttributeHandle> {
        let instance = &self.instances[object];
        let tokens = instance.tokens(self.instance_attributes(instance.class));
        (tokens.into_iter())
            .filter(|(_, o)| *o == owned)
            .map(|(a, _)| a)
            .collect()
    }

    fn remove_orphan(&mut self, object: ObjectId, gone: u32) {
        if self.forget_discovered(object) {
            self.callbacks.push_back(Callback::RemoveObjectInstance {
                object,
                tag: Bytes::new(),
                time: 0,
                sender: gone,
                sent_order: crate::fom::Order::Receive,
                received_order: crate::fom::Order::Receive,
                retraction: None,
            });
        }
    }

    /// Every federate applies the same rule, so all agree on the new keeper.
    fn inherit(&mut self, object: ObjectId, heir: u32, lost: &[(AttributeHandle, Keeper)]) {
        let me = self.handle;
        let instance = self.instance(object);
        let mut kept_here = Vec::new();
        for (a, keeper) in lost {
            let generation = keeper.generation + 1;
            let keeper = Keeper {
                federate: heir,
                owned: false,
                generation,
            };
            instance.keepers.insert(*a, keeper);
            instance.forwarded.remove(a);
            if heir == me {
                let token = Token {
                    generation,
                    ..Token::default()
                };
                instance.tokens.insert(*a, token);
                kept_here.push(*a);
            }
        }
        let lost: Vec<AttributeHandle> = lost.iter().map(|(a, _)| *a).collect();
        let again = pending_at(&instance.acquiring, &lost);
        self.sync_owned(object);
        if heir == me {
            self.serve_trust(object, &kept_here);
            return;
        }
        for kind in [Acquiring::Acquisition, Acquiring::IfAvailable] {
            let ask: Vec<AttributeHandle> = again
                .iter()
                .filter(|(_, k)| *k == kind)
                .map(|(a, _)| *a)
                .collect();
            if !ask.is_empty() {
                let op = match kind {
                    Acquiring::Acquisition => Op::Acquire,
                    Acquiring::IfAvailable => Op::AcquireIfAvailable,
                };
                self.request(object, op, &ask, &[]);
            }
        }
    }
}
