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
                .copied()
                .filter(|o| self.check_delete_privilege(*o).is_ok())
                .collect();
            for object in deletable {
                self.delete_object_instance(object, b"resigned", time)?;
            }
        }
        if action.divests() {
            let objects: Vec<ObjectId> = self.instances.keys().copied().collect();
            for object in objects {
                let owned: Vec<AttributeHandle> = self.instances[&object]
                    .tokens
                    .iter()
                    .filter(|(_, t)| t.owned)
                    .map(|(a, _)| *a)
                    .collect();
                self.divest(object, &owned);
            }
        }
        self.hand_over_trust();
        Ok(())
    }

    fn check_resign(&self, action: ResignAction) -> Result<(), FederateError> {
        if !action.cancels() {
            let pending = self
                .instances
                .iter()
                .find_map(|(o, i)| i.acquiring.keys().next().map(|a| (*o, *a)));
            if let Some((object, a)) = pending {
                return Err(FederateError::OwnershipAcquisitionPending {
                    object,
                    attribute: self.attribute_name(a),
                });
            }
        }
        if !action.divests() {
            let privilege = self.privilege();
            let deleted = |i: &super::Instance| {
                action.deletes() && i.tokens.get(&privilege).is_some_and(|t| t.owned)
            };
            let owned = self
                .instances
                .iter()
                .filter(|(_, i)| !deleted(i))
                .find_map(|(o, i)| {
                    i.tokens
                        .iter()
                        .find(|(_, t)| t.owned)
                        .map(|(a, _)| (*o, *a))
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
        let objects: Vec<ObjectId> = self.instances.keys().copied().collect();
        for object in objects {
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
        let objects: Vec<ObjectId> = self.instances.keys().copied().collect();
        let me = self.handle;
        let privilege = self.privilege();
        for object in objects {
            let instance = &self.instances[&object];
            let trust: Vec<AttributeHandle> = instance
                .tokens
                .iter()
                .filter(|(_, t)| !t.owned)
                .map(|(a, _)| *a)
                .collect();
            if trust.is_empty() {
                continue;
            }
            let privilege_keeper = instance.keeper(object, privilege).federate;
            let heir = std::iter::once(privilege_keeper)
                .chain(
                    self.instance_attributes(instance.class)
                        .into_iter()
                        .map(|a| instance.keeper(object, a).federate),
                )
                .find(|f| *f != me && *f != 0);
            if let Some(heir) = heir {
                self.hand_tokens(object, Op::HandOver, heir, &trust, &[]);
            }
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
        let objects: Vec<ObjectId> = self.instances.keys().copied().collect();
        for object in objects {
            let instance = &self.instances[&object];
            let heir = instance.keeper(object, privilege).federate;
            if heir == gone {
                self.remove_orphan(object, gone);
                continue;
            }
            let lost: Vec<(AttributeHandle, Keeper)> = self
                .instance_attributes(instance.class)
                .into_iter()
                .map(|a| (a, instance.keeper(object, a)))
                .filter(|(_, k)| k.federate == gone)
                .collect();
            self.inherit(object, heir, &lost);
        }
    }

    fn remove_orphan(&mut self, object: ObjectId, gone: u32) {
        self.instances.remove(&object);
        self.owned.remove(&object);
        self.reflected.remove(&object);
        if self.known.remove(&object).is_some() {
            self.callbacks.push_back(Callback::RemoveObjectInstance {
                object,
                tag: Bytes::new(),
                time: 0,
                sender: gone,
                sent_order: crate::fom::Order::Receive,
                received_order: crate::fom::Order::Receive,
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
