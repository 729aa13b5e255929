//! The attribute scope advisory (IEEE 1516.1-2010 §6: attributesInScope† and
//! attributesOutOfScope†, told only while enable/disableAttributeScopeAdvisorySwitch of §10
//! has it on; off by default).
//!
//! An instance attribute is in scope for this federate when
//! - the instance is known here (discovered, as its known class),
//! - the attribute is subscribed at that known class,
//! - another federate owns it, and
//! - the subscription has no regions for it, or the attribute's update region overlaps
//!   its subscription region.
//!
//! What this federate knows of ownership is what its announcements said (`ownership`):
//! a discovered instance's attributes are taken as owned by the registrar until an
//! exchange is heard. The update region of another federate's attribute is learned only
//! from its updates: the region the last update of it was sent in, heard while the switch
//! was on. An attribute subscribed with regions and not yet heard is not in scope.
//!
//! Callbacks follow changes only. None is made for an instance that stops being known
//! (removed, or deleted locally): the callback would name an instance the federate no
//! longer knows, which the standard's callbacks never do; its removal says it all.
//!
//! Work is done only while the switch is on, and only for the instances something
//! happened to (or for all, when subscriptions change).

use super::{covers, Callback, Federate, FederateError, ObjectId, Region};
use crate::fom::AttributeHandle;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// The switch, and what it last told.
#[derive(Default)]
pub(super) struct Scope {
    on: bool,
    /// Every known instance needs looking at again (subscriptions or the switch changed).
    all_stale: bool,
    /// These instances need looking at again.
    stale: BTreeSet<ObjectId>,
    /// The attributes last told in scope, per instance.
    in_scope: FxHashMap<ObjectId, BTreeSet<AttributeHandle>>,
    /// The region each attribute of an instance was last updated in (`None`: the default
    /// region), heard while the switch was on.
    update_regions: FxHashMap<ObjectId, FxHashMap<AttributeHandle, Option<Region>>>,
}

impl Scope {
    /// Whether a refresh may have callbacks to make.
    pub(super) fn pending(&self) -> bool {
        self.on && (self.all_stale || !self.stale.is_empty())
    }
}

impl Federate {
    /// Whether the attribute scope advisory switch is on (attributesInScope / OutOfScope callbacks).
    pub fn attribute_scope_advisory_switch(&self) -> bool {
        self.scope.on
    }

    /// enableAttributeScopeAdvisorySwitch: attributes in scope now are told at once.
    pub fn enable_attribute_scope_advisory_switch(&mut self) -> Result<(), FederateError> {
        if self.scope.on {
            return Err(FederateError::AttributeScopeAdvisorySwitchIsOn);
        }
        self.scope.on = true;
        self.scope.all_stale = true;
        Ok(())
    }

    /// disableAttributeScopeAdvisorySwitch: everything told is forgotten, so turning it
    /// on again tells afresh.
    pub fn disable_attribute_scope_advisory_switch(&mut self) -> Result<(), FederateError> {
        if !self.scope.on {
            return Err(FederateError::AttributeScopeAdvisorySwitchIsOff);
        }
        self.scope = Scope::default();
        Ok(())
    }

    /// Something about `object` changed that scope depends on.
    pub(super) fn scope_stale(&mut self, object: ObjectId) {
        if self.scope.on {
            self.scope.stale.insert(object);
        }
    }

    /// Subscriptions or ownership across instances changed.
    pub(super) fn scope_all_stale(&mut self) {
        self.scope.all_stale = self.scope.on;
    }

    /// `object` is no longer known here: nothing more is told of it.
    pub(super) fn scope_forget(&mut self, object: ObjectId) {
        if self.scope.on {
            self.scope.in_scope.remove(&object);
            self.scope.update_regions.remove(&object);
            self.scope.stale.remove(&object);
        }
    }

    /// An update of `attributes` of the known `object` arrived in `region`.
    pub(super) fn scope_heard_update(
        &mut self,
        object: ObjectId,
        attributes: impl Iterator<Item = AttributeHandle>,
        region: Option<&Region>,
    ) {
        if !self.scope.on {
            return;
        }
        let heard = self.scope.update_regions.entry(object).or_default();
        let mut moved = false;
        for a in attributes {
            if heard.get(&a).map(Option::as_ref) != Some(region) {
                heard.insert(a, region.cloned());
                moved = true;
            }
        }
        // Most updates come in the region the last one did: nothing to work out again.
        if moved {
            self.scope.stale.insert(object);
        }
    }

    /// Tell what came into scope and what left it, for the instances that may have changed.
    pub(super) fn refresh_scope(&mut self) {
        if !self.scope.pending() {
            return;
        }
        let objects: Vec<ObjectId> = if std::mem::take(&mut self.scope.all_stale) {
            self.scope.stale.clear();
            let mut known: Vec<ObjectId> = self.known_objects().map(|(o, _)| o).collect();
            known.extend(self.scope.in_scope.keys());
            known.sort();
            known.dedup();
            known
        } else {
            std::mem::take(&mut self.scope.stale).into_iter().collect()
        };
        for object in objects {
            let now = self.attributes_in_scope(object);
            let before = self.scope.in_scope.remove(&object).unwrap_or_default();
            let came: Vec<AttributeHandle> = now.difference(&before).copied().collect();
            let left: Vec<AttributeHandle> = before.difference(&now).copied().collect();
            if !came.is_empty() {
                (self.callbacks).push_back(Callback::AttributesInScope {
                    object,
                    attributes: came,
                });
            }
            if !left.is_empty() {
                (self.callbacks).push_back(Callback::AttributesOutOfScope {
                    object,
                    attributes: left,
                });
            }
            if !now.is_empty() {
                self.scope.in_scope.insert(object, now);
            }
        }
    }

    /// The attributes of `object` in scope here now (see the module notes).
    fn attributes_in_scope(&self, object: ObjectId) -> BTreeSet<AttributeHandle> {
        let Some(instance) = self.instances.get(object) else {
            return BTreeSet::new();
        };
        let Some(known) = instance.known else {
            return BTreeSet::new();
        };
        let Some(subscription) = self.object_subscriptions.get(&known) else {
            return BTreeSet::new();
        };
        let heard = self.scope.update_regions.get(&object);
        let overlaps = |a: AttributeHandle| {
            let subscribed = self.regions.subscription_regions(known, a);
            let regions = subscribed.unwrap_or(&subscription.regions);
            if regions.is_empty() {
                return true;
            }
            match heard.and_then(|h| h.get(&a)) {
                Some(region) => covers(regions, region.as_ref()),
                None => false,
            }
        };
        (subscription.attributes.iter().copied())
            .filter(|&a| {
                let owner = self.attribute_keeper(object, a);
                owner.is_some_and(|(f, owned)| owned && f != self.handle) && overlaps(a)
            })
            .collect()
    }
}
