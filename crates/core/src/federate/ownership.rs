//! Ownership management (IEEE 1516.1-2010 §7) among federates, with no central arbiter.
//!
//! # Why two federates can never both own an attribute
//!
//! Every instance attribute has exactly one *keeper*: the federate that holds its token.
//! The keeper either owns the attribute, or keeps it unowned, in trust. The token leaves a
//! keeper only in one message addressed to one federate (`Grant`: owned, `HandOver`: in
//! trust), and the keeper forgets it when it sends that message. A federate owns an
//! attribute only while it holds the token, so at any moment the token is at one federate
//! or in one message, never in two places: two owners would need two tokens.
//!
//! So the arbiter of an attribute is its keeper: the current owner decides for what it
//! owns (release, negotiated divestiture, unavailable), and for an unowned attribute the
//! last owner, keeping it in trust, decides: concurrent `attributeOwnershipAcquisition`s
//! of an unowned attribute reach the same keeper, which grants the first it reads and
//! queues the others (or answers `attributeOwnershipUnavailable` to `IfAvailable`). An
//! acquirer that holds the token in trust itself takes it at once.
//!
//! # Reaching the keeper
//!
//! An acquiring federate must publish the attributes, so it listens on the REQUEST_CELL id
//! of its published class: requests and announcements go to the REQUEST_CELL ids of the
//! instance's registered class and its ancestors (every federate that may publish what
//! it needs) and to the class's wildcard id (every subscriber, which learns where the
//! privilege to delete is). A request that reaches a federate that has just granted the
//! token away is forwarded along the grant (FIFO paths: the forward arrives after the
//! token); handling a request twice changes nothing (the requester is queued once).
//!
//! # The privilege to delete
//!
//! `HLAprivilegeToDeleteObject` is an attribute like the others; owning it is the right to
//! delete the instance. A model without it (the standard MIM defines it on HLAobjectRoot)
//! gets an implicit one that federates cannot name, so it stays with the registering
//! federate. Every federate that knows an instance tracks the keeper of every attribute
//! from the announcements (`Grant`, `Unowned`, `HandOver`), newest generation winning.
//!
//! # Keepers that leave
//!
//! A resigning federate hands the tokens it keeps in trust to the keeper of the privilege
//! to delete (or another keeper of the same instance). When a federate is gone
//! ([`Federate::federate_gone`]), each federate applies the same rule to what it knows:
//! instances whose privilege to delete the gone federate kept are removed; the other
//! attributes it kept become unowned, kept by the privilege's keeper, and pending
//! acquisitions of them are sent again. An instance whose privilege to delete was kept
//! in trust by a federate that left, with no other keeper to hand it to, has no arbiter
//! left and is removed as well (the standard would keep it unowned; without a central
//! arbiter no one could ever safely grant it).
//!
//! One window is open: a grant still in flight from a federate that is then declared gone
//! can meet the token the privilege's keeper regenerates for the same attribute. Closing
//! it needs the registry's notice of a death to travel behind the dead federate's last
//! messages (or a grant to be acknowledged before the granter forgets the token).

mod acquire;
mod divest;
mod instance;
pub mod wire;

use instance::Exchange;
pub(super) use instance::{Counts, Instance};

#[cfg(test)]
mod tests;

use super::message::{ObjectId, Outgoing};
use super::{Callback, Federate, FederateError};
use crate::fom::{AttributeHandle, ObjectClassHandle, ObjectModel};
use crate::wire::TransportClass;
use bytes::Bytes;
use std::collections::BTreeMap;
use wire::{Op, OwnershipBody};

/// The attribute whose ownership is the right to delete an instance.
pub const PRIVILEGE_TO_DELETE: &str = "HLAprivilegeToDeleteObject";
/// Stands for the privilege to delete when the object model does not define it.
const IMPLICIT_PRIVILEGE: AttributeHandle = AttributeHandle(u32::MAX);

/// What resigning does first (IEEE 1516.1-2010 §4.10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ResignAction {
    /// Divest every attribute this federate owns, leaving them unowned.
    UnconditionallyDivestAttributes,
    /// Delete every instance whose privilege to delete this federate owns.
    DeleteObjects,
    /// Cancel this federate's pending ownership acquisitions.
    CancelPendingOwnershipAcquisitions,
    /// Delete the instances it may delete, then divest the rest of what it owns.
    DeleteObjectsThenDivest,
    /// The default: it cannot fail, and a federate that never used ownership services
    /// deletes the instances it registered, as resigning always did.
    #[default]
    CancelThenDeleteThenDivest,
    /// Do nothing first; resigning fails while this federate owns attributes or acquires some.
    NoAction,
}

impl ResignAction {
    fn cancels(self) -> bool {
        matches!(
            self,
            ResignAction::CancelPendingOwnershipAcquisitions
                | ResignAction::CancelThenDeleteThenDivest
        )
    }

    fn deletes(self) -> bool {
        matches!(
            self,
            ResignAction::DeleteObjects
                | ResignAction::DeleteObjectsThenDivest
                | ResignAction::CancelThenDeleteThenDivest
        )
    }

    fn divests(self) -> bool {
        matches!(
            self,
            ResignAction::UnconditionallyDivestAttributes
                | ResignAction::DeleteObjectsThenDivest
                | ResignAction::CancelThenDeleteThenDivest
        )
    }
}

/// The federate-ambassador callbacks of §7.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnershipCallback {
    /// `requestAttributeOwnershipAssumption`: another federate offers these attributes (negotiated divestiture).
    RequestAttributeOwnershipAssumption {
        /// The instance whose attributes are offered.
        object: ObjectId,
        /// The attributes offered, each once.
        attributes: Vec<AttributeHandle>,
        /// The divesting federate's tag.
        tag: Bytes,
    },
    /// `requestDivestitureConfirmation`: acquirers were found; confirm to complete the negotiated divestiture.
    RequestDivestitureConfirmation {
        /// The instance being divested.
        object: ObjectId,
        /// The attributes for which an acquirer is waiting.
        attributes: Vec<AttributeHandle>,
    },
    /// `attributeOwnershipAcquisitionNotification`: this federate now owns these attributes.
    AttributeOwnershipAcquisitionNotification {
        /// The instance acquired.
        object: ObjectId,
        /// The attributes this federate now owns.
        attributes: Vec<AttributeHandle>,
        /// The tag sent with the grant (the acquirer's own when it took a token it held in trust).
        tag: Bytes,
    },
    /// `attributeOwnershipUnavailable`: an `IfAvailable` acquisition found these attributes owned.
    AttributeOwnershipUnavailable {
        /// The instance asked about.
        object: ObjectId,
        /// The attributes that stay with their owner.
        attributes: Vec<AttributeHandle>,
    },
    /// `requestAttributeOwnershipRelease`: another federate wants these attributes this federate owns.
    RequestAttributeOwnershipRelease {
        /// The instance asked about.
        object: ObjectId,
        /// The attributes wanted.
        attributes: Vec<AttributeHandle>,
        /// The acquiring federate's tag.
        tag: Bytes,
    },
    /// `confirmAttributeOwnershipAcquisitionCancellation`: the cancelled acquisition is withdrawn.
    ConfirmAttributeOwnershipAcquisitionCancellation {
        /// The instance.
        object: ObjectId,
        /// The attributes no longer being acquired.
        attributes: Vec<AttributeHandle>,
    },
    /// `informAttributeOwnership`: answer to `queryAttributeOwnership` when the attribute is owned.
    InformAttributeOwnership {
        /// The instance asked about.
        object: ObjectId,
        /// The attribute asked about.
        attribute: AttributeHandle,
        /// Handle of the federate that owns it.
        owner: u32,
    },
    /// `attributeIsNotOwned`: answer to `queryAttributeOwnership` when no federate owns the attribute.
    AttributeIsNotOwned {
        /// The instance asked about.
        object: ObjectId,
        /// The attribute asked about.
        attribute: AttributeHandle,
    },
    /// For attributes of MOM instances, which Trellis does not have yet: never produced.
    AttributeIsOwnedByRti {
        /// The instance asked about.
        object: ObjectId,
        /// The attribute asked about.
        attribute: AttributeHandle,
    },
}

/// Where an attribute's token is, as far as this federate has heard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Keeper {
    federate: u32,
    owned: bool,
    generation: u32,
}

/// A token this federate holds.
#[derive(Clone, Debug, Default)]
struct Token {
    owned: bool,
    /// negotiatedAttributeOwnershipDivestiture is in progress.
    divesting: bool,
    /// Federates waiting to acquire, first come first served.
    queue: Vec<u32>,
    generation: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Acquiring {
    Acquisition,
    IfAvailable,
}

type Result<T> = std::result::Result<T, FederateError>;

/// The attributes a service names, as the set HLA means (sorted, each once), within the
/// count one message carries.
fn attribute_set(attributes: &[AttributeHandle]) -> Result<Vec<AttributeHandle>> {
    if attributes.len() > super::message::MAX_VALUES {
        return Err(FederateError::TooManyValues(attributes.len()));
    }
    let mut set = attributes.to_vec();
    set.sort();
    set.dedup();
    Ok(set)
}

/// The attribute of `model` whose ownership is the privilege to delete, if it declares one.
pub(super) fn privilege_to_delete_of(model: &ObjectModel) -> Option<AttributeHandle> {
    let root = model.find_object_class("HLAobjectRoot")?;
    model.find_attribute(root, PRIVILEGE_TO_DELETE)
}

impl Federate {
    // ---- shared helpers ---------------------------------------------------------------------

    /// The attribute whose ownership is the privilege to delete.
    pub fn privilege_to_delete(&self) -> Option<AttributeHandle> {
        self.privilege_to_delete
    }

    fn privilege(&self) -> AttributeHandle {
        self.privilege_to_delete().unwrap_or(IMPLICIT_PRIVILEGE)
    }

    /// Every attribute of an instance of `class`, the privilege to delete included, sorted
    /// (the implicit privilege is the greatest handle): worked out once per class in
    /// [`Federate::new`], as an update looks positions up in it.
    pub(super) fn instance_attributes(&self, class: ObjectClassHandle) -> &[AttributeHandle] {
        &self.class_attributes[class.0 as usize]
    }

    /// What [`Federate::instance_attributes`] holds, for every class of `model`.
    pub(super) fn class_attributes_of(
        model: &ObjectModel,
        privilege_to_delete: Option<AttributeHandle>,
    ) -> Vec<Box<[AttributeHandle]>> {
        let classes = model.object_classes().len() as u32;
        (0..classes)
            .map(|c| {
                let mut attributes = model.available_attributes(ObjectClassHandle(c));
                if privilege_to_delete.is_none() {
                    attributes.push(IMPLICIT_PRIVILEGE);
                }
                attributes.into_boxed_slice()
            })
            .collect()
    }

    fn attribute_name(&self, attribute: AttributeHandle) -> String {
        if attribute == IMPLICIT_PRIVILEGE {
            PRIVILEGE_TO_DELETE.to_owned()
        } else {
            self.model.attribute(attribute).name.clone()
        }
    }

    /// Whether this federate publishes `attribute` at `class` or a class above it (where
    /// it would know an instance registered as `class`). Publishing a class publishes its
    /// privilege to delete.
    pub(super) fn publishes(&self, class: ObjectClassHandle, attribute: AttributeHandle) -> bool {
        let privilege = attribute == self.privilege();
        self.model.object_ancestry(class).any(|c| {
            self.published_objects
                .get(&c)
                .is_some_and(|p| p.contains(&attribute) || (privilege && !p.is_empty()))
        })
    }

    pub(super) fn owns(&self, object: ObjectId, attribute: AttributeHandle) -> bool {
        (self.instances.get(object)).is_some_and(|i| self.owned_by_me(i, attribute))
    }

    /// The registered class of a known instance, after checking the attributes belong to it.
    fn known_instance(
        &self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<ObjectClassHandle> {
        let instance = self
            .instances
            .get(object)
            .ok_or(FederateError::ObjectInstanceNotKnown(object))?;
        self.check_attributes(instance.class, attributes)?;
        Ok(instance.class)
    }

    /// The negotiation maps of a known instance, allocated at its first exchange.
    fn instance(&mut self, object: ObjectId) -> &mut Exchange {
        // Every change of a keeper goes through here: scope may follow.
        self.scope_stale(object);
        let instance = (self.instances.get_mut(object)).expect("checked by known_instance");
        instance.exchange(object, &self.class_attributes[instance.class.0 as usize])
    }

    /// The class `object` was registered as; it must be known.
    fn registered_class(&self, object: ObjectId) -> ObjectClassHandle {
        self.instances[object].class
    }

    /// Every attribute must be owned here. The instance is looked up once.
    pub(super) fn check_owned<'a>(
        &self,
        object: ObjectId,
        attributes: impl IntoIterator<Item = &'a AttributeHandle>,
    ) -> Result<()> {
        let instance = self.instances.get(object);
        let owns = |a: AttributeHandle| instance.is_some_and(|i| self.owned_by_me(i, a));
        match attributes.into_iter().find(|a| !owns(**a)) {
            Some(a) => Err(FederateError::AttributeNotOwned {
                object,
                attribute: self.attribute_name(*a),
            }),
            None => Ok(()),
        }
    }

    /// Why `object` cannot be updated here: it is known but `attribute` is not owned, or
    /// it is not known at all.
    pub(super) fn not_kept(
        &self,
        object: ObjectId,
        attribute: Option<AttributeHandle>,
    ) -> FederateError {
        let known = self.instances.get(object);
        if known.is_some_and(|i| i.kept || i.known.is_some()) {
            let attribute = attribute.map(|a| self.attribute_name(a));
            FederateError::AttributeNotOwned {
                object,
                attribute: attribute.unwrap_or_default(),
            }
        } else {
            FederateError::ObjectInstanceNotKnown(object)
        }
    }

    /// Whether this federate owns `attribute` of `instance`.
    pub(super) fn owned_by_me(&self, instance: &Instance, attribute: AttributeHandle) -> bool {
        instance.owns(self.instance_attributes(instance.class), attribute)
    }

    pub(super) fn check_delete_privilege(&self, object: ObjectId) -> Result<()> {
        if !self.instances.contains_key(object) {
            return Err(FederateError::ObjectInstanceNotKnown(object));
        }
        if !self.owns(object, self.privilege()) {
            return Err(FederateError::DeletePrivilegeNotHeld(object));
        }
        Ok(())
    }

    /// This federate registered `object`: it keeps every token, and owns what it publishes
    /// and the privilege to delete.
    pub(super) fn took_registration(
        &mut self,
        object: ObjectId,
        class: ObjectClassHandle,
        name: Option<std::sync::Arc<str>>,
    ) {
        if let Some(name) = &name {
            self.named_instances.insert(name.clone(), object);
        }
        let privilege = self.privilege();
        let attributes = self.instance_attributes(class);
        let owns = |a| a == privilege || self.publishes(class, a);
        let instance = Instance::registered(object, class, name, attributes, owns);
        self.counts.owned += 1;
        self.known_classes.forget(object);
        if let Some(old) = self.instances.insert(object, instance) {
            self.counts.forget(&old);
        }
    }

    /// Remove `object` from the instances, and from the counts.
    pub(super) fn forget_instance(&mut self, object: ObjectId) -> Option<Instance> {
        let instance = self.instances.remove(object)?;
        if let Some(name) = &instance.name {
            if self.named_instances.get(name) == Some(&object) {
                self.named_instances.remove(name);
            }
        }
        self.scope_forget(object);
        self.update_rate_forget(object);
        self.counts.forget(&instance);
        self.known_classes.forget(object);
        Some(instance)
    }

    /// Keep `kept` (instances whose tokens this federate holds) in step with the tokens.
    fn sync_owned(&mut self, object: ObjectId) {
        let Some(instance) = self.instances.get_mut(object) else {
            return;
        };
        let kept = instance.holds_any();
        if kept != instance.kept {
            instance.kept = kept;
            self.counts.owned = if kept {
                self.counts.owned + 1
            } else {
                self.counts.owned - 1
            };
        }
    }

    fn ownership_ids(&self, class: ObjectClassHandle) -> Vec<u32> {
        use super::layout::{REQUEST_CELL, WILDCARD_CELL};
        let mut ids: Vec<u32> = self
            .model
            .object_ancestry(class)
            .map(|c| self.layouts.object_id(c, REQUEST_CELL))
            .collect();
        ids.push(self.layouts.object_id(class, WILDCARD_CELL));
        ids
    }

    fn send_ownership(&mut self, class: ObjectClassHandle, tag: &[u8], body: OwnershipBody) {
        let ids = self.ownership_ids(class);
        let outgoing = Outgoing::<&[u8]>::Ownership(&body);
        self.send(ids, TransportClass::Reliable, class.0, 0, tag, outgoing);
    }

    /// Send a request (to every keeper) on behalf of this federate.
    fn request(&mut self, object: ObjectId, op: Op, attributes: &[AttributeHandle], tag: &[u8]) {
        let class = self.registered_class(object);
        let body = OwnershipBody {
            op,
            object,
            from: self.handle,
            to: 0,
            attributes: attributes.iter().map(|a| (a.0, 0)).collect(),
            pairs: Vec::new(),
        };
        self.send_ownership(class, tag, body);
    }

    fn ownership_callback(&mut self, callback: OwnershipCallback) {
        self.callbacks.push_back(Callback::Ownership(callback));
    }

    /// Hand tokens to `to`: owned (`Grant`) or in trust (`HandOver`), with their queues.
    fn hand_tokens(
        &mut self,
        object: ObjectId,
        op: Op,
        to: u32,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) {
        let owned = op == Op::Grant;
        let me = self.handle;
        let class = self.registered_class(object);
        let instance = self.instance(object);
        let mut sent = Vec::new();
        let mut pairs = Vec::new();
        for &a in attributes {
            let Some(token) = instance.tokens.remove(&a) else {
                continue;
            };
            let generation = token.generation + 1;
            pairs.extend(token.queue.iter().filter(|f| **f != to).map(|f| (a.0, *f)));
            instance.forwarded.insert(a, to);
            let keeper = Keeper {
                federate: to,
                owned,
                generation,
            };
            instance.keepers.insert(a, keeper);
            sent.push((a.0, generation));
        }
        if sent.is_empty() {
            return;
        }
        let body = OwnershipBody {
            op,
            object,
            from: me,
            to,
            attributes: sent,
            pairs,
        };
        self.send_ownership(class, tag, body);
        self.sync_owned(object);
    }

    /// Grant each attribute to the first federate waiting for it; the rest stay.
    fn grant_to_first_waiting(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Vec<AttributeHandle> {
        let instance = self.instance(object);
        let mut by_acquirer: BTreeMap<u32, Vec<AttributeHandle>> = BTreeMap::new();
        for a in attributes {
            if let Some(token) = instance.tokens.get_mut(a) {
                if !token.queue.is_empty() {
                    let first = token.queue.remove(0);
                    by_acquirer.entry(first).or_default().push(*a);
                }
            }
        }
        let mut granted = Vec::new();
        for (acquirer, attributes) in by_acquirer {
            self.hand_tokens(object, Op::Grant, acquirer, &attributes, tag);
            granted.extend(attributes);
        }
        granted.sort();
        granted
    }

    // ---- queries (§7.17 - §7.20) ------------------------------------------------------------

    /// queryAttributeOwnership: answered by informAttributeOwnership or
    /// attributeIsNotOwned, from the attribute's keeper.
    pub fn query_attribute_ownership(
        &mut self,
        object: ObjectId,
        attribute: AttributeHandle,
    ) -> Result<()> {
        self.known_instance(object, &[attribute])?;
        let instance = &self.instances[object];
        match instance.token(self.instance_attributes(instance.class), attribute) {
            Some(owned) => {
                let owner = if owned { self.handle } else { 0 };
                self.inform(object, attribute, owner);
            }
            None => self.request(object, Op::Query, &[attribute], &[]),
        }
        Ok(())
    }

    fn inform(&mut self, object: ObjectId, attribute: AttributeHandle, owner: u32) {
        let callback = if owner == 0 {
            OwnershipCallback::AttributeIsNotOwned { object, attribute }
        } else {
            OwnershipCallback::InformAttributeOwnership {
                object,
                attribute,
                owner,
            }
        };
        self.ownership_callback(callback);
    }

    /// isAttributeOwnedByFederate.
    pub fn is_attribute_owned_by_federate(
        &self,
        object: ObjectId,
        attribute: AttributeHandle,
    ) -> Result<bool> {
        self.known_instance(object, &[attribute])?;
        Ok(self.owns(object, attribute))
    }

    /// The keeper of `attribute` as this federate last heard: (federate, owned).
    pub fn attribute_keeper(
        &self,
        object: ObjectId,
        attribute: AttributeHandle,
    ) -> Option<(u32, bool)> {
        let instance = self.instances.get(object)?;
        let keeper = instance.keeper(object, self.instance_attributes(instance.class), attribute);
        Some((keeper.federate, keeper.owned))
    }

    /// The federate that holds the privilege to delete `object`, as last heard.
    pub fn delete_privilege_holder(&self, object: ObjectId) -> Option<u32> {
        let privilege = self.privilege();
        let instance = self.instances.get(object)?;
        let keeper = instance.keeper(object, self.instance_attributes(instance.class), privilege);
        keeper.owned.then_some(keeper.federate)
    }
}

mod local_delete;
mod receive;
mod resign;

impl OwnershipCallback {
    /// The standard's name of this callback, as the MOM reports it.
    pub fn service_name(&self) -> &'static str {
        match self {
            OwnershipCallback::RequestAttributeOwnershipAssumption { .. } => {
                "requestAttributeOwnershipAssumption"
            }
            OwnershipCallback::RequestDivestitureConfirmation { .. } => {
                "requestDivestitureConfirmation"
            }
            OwnershipCallback::AttributeOwnershipAcquisitionNotification { .. } => {
                "attributeOwnershipAcquisitionNotification"
            }
            OwnershipCallback::AttributeOwnershipUnavailable { .. } => {
                "attributeOwnershipUnavailable"
            }
            OwnershipCallback::RequestAttributeOwnershipRelease { .. } => {
                "requestAttributeOwnershipRelease"
            }
            OwnershipCallback::ConfirmAttributeOwnershipAcquisitionCancellation { .. } => {
                "confirmAttributeOwnershipAcquisitionCancellation"
            }
            OwnershipCallback::InformAttributeOwnership { .. } => "informAttributeOwnership",
            OwnershipCallback::AttributeIsNotOwned { .. } => "attributeIsNotOwned",
            OwnershipCallback::AttributeIsOwnedByRti { .. } => "attributeIsOwnedByRTI",
        }
    }
}
