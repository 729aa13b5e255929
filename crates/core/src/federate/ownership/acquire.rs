//! Acquisition (IEEE 1516.1-2010 §7.8 - §7.11, §7.14 - §7.16): a federate asks the keeper
//! of each attribute for it, takes at once what it holds in trust itself, and may cancel.

use super::wire::{Op, OwnershipBody};
use super::{attribute_set, Acquiring, Keeper, OwnershipCallback, Result};
use crate::federate::{Federate, FederateError, ObjectId};
use crate::fom::{AttributeHandle, ObjectClassHandle};
use bytes::Bytes;

impl Federate {
    fn check_acquirable(
        &self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<ObjectClassHandle> {
        let class = self.known_instance(object, attributes)?;
        let published_any = self.model.object_ancestry(class).any(|c| {
            self.published_objects
                .get(&c)
                .is_some_and(|p| !p.is_empty())
        });
        if !published_any {
            return Err(FederateError::ObjectClassNotPublished(
                self.class_name(class),
            ));
        }
        if let Some(a) = attributes.iter().find(|a| !self.publishes(class, **a)) {
            return Err(FederateError::AttributeNotPublished {
                class: self.class_name(class),
                attribute: self.attribute_name(*a),
            });
        }
        if let Some(a) = attributes.iter().find(|a| self.owns(object, **a)) {
            return Err(FederateError::AttributeAlreadyOwned {
                object,
                attribute: self.attribute_name(*a),
            });
        }
        Ok(class)
    }

    /// Take at once what this federate keeps unowned; returns what it must ask for.
    pub(super) fn take_from_trust(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Vec<AttributeHandle> {
        let me = self.handle;
        let class = self.registered_class(object);
        let instance = self.instance(object);
        let mut taken = Vec::new();
        let mut ask = Vec::new();
        for a in attributes {
            match instance.tokens.get_mut(a) {
                Some(token) => {
                    token.owned = true;
                    token.generation += 1;
                    let keeper = Keeper {
                        federate: me,
                        owned: true,
                        generation: token.generation,
                    };
                    instance.keepers.insert(*a, keeper);
                    instance.acquiring.remove(a);
                    taken.push(*a);
                }
                None => ask.push(*a),
            }
        }
        if !taken.is_empty() {
            // Others learn the new owner as if it had been granted to this federate.
            let generations = taken
                .iter()
                .map(|a| (a.0, instance.tokens[a].generation))
                .collect();
            let body = OwnershipBody {
                op: Op::Grant,
                object,
                from: me,
                to: me,
                attributes: generations,
                pairs: Vec::new(),
            };
            self.send_ownership(class, tag, body);
            let callback = OwnershipCallback::AttributeOwnershipAcquisitionNotification {
                object,
                attributes: taken,
                tag: Bytes::copy_from_slice(tag),
            };
            self.ownership_callback(callback);
        }
        ask
    }

    /// attributeOwnershipAcquisition: the owners are asked to release; unowned attributes
    /// are granted by their keepers.
    pub fn attribute_ownership_acquisition(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Result<()> {
        let attributes = &attribute_set(attributes)?;
        crate::federate::message::check_tag(tag)?;
        self.check_acquirable(object, attributes)?;
        let ask = self.take_from_trust(object, attributes, tag);
        if ask.is_empty() {
            return Ok(());
        }
        let instance = self.instance(object);
        for a in &ask {
            instance.acquiring.insert(*a, Acquiring::Acquisition);
        }
        self.request(object, Op::Acquire, &ask, tag);
        Ok(())
    }

    /// attributeOwnershipAcquisitionIfAvailable: granted if unowned, otherwise
    /// attributeOwnershipUnavailable (an owner's negotiated divestiture does not make an
    /// attribute available: that owner still decides whom to confirm).
    pub fn attribute_ownership_acquisition_if_available(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<()> {
        let attributes = &attribute_set(attributes)?;
        self.check_acquirable(object, attributes)?;
        let acquiring = self.instances[object].acquiring();
        if let Some(&a) = attributes
            .iter()
            .find(|a| acquiring.is_some_and(|acquiring| acquiring.contains_key(a)))
        {
            return Err(FederateError::AttributeAlreadyBeingAcquired {
                object,
                attribute: self.attribute_name(a),
            });
        }
        let ask = self.take_from_trust(object, attributes, &[]);
        if ask.is_empty() {
            return Ok(());
        }
        let instance = self.instance(object);
        for a in &ask {
            instance.acquiring.insert(*a, Acquiring::IfAvailable);
        }
        self.request(object, Op::AcquireIfAvailable, &ask, &[]);
        Ok(())
    }

    /// cancelAttributeOwnershipAcquisition: confirmed by the keepers, unless a grant
    /// crosses the cancellation (then the attribute is acquired after all).
    pub fn cancel_attribute_ownership_acquisition(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<()> {
        let attributes = &attribute_set(attributes)?;
        self.known_instance(object, attributes)?;
        if let Some(a) = attributes.iter().find(|a| self.owns(object, **a)) {
            return Err(FederateError::AttributeAlreadyOwned {
                object,
                attribute: self.attribute_name(*a),
            });
        }
        let acquiring = self.instances[object].acquiring();
        let kind = |a: &AttributeHandle| acquiring.and_then(|acquiring| acquiring.get(a));
        if let Some(&a) = attributes
            .iter()
            .find(|a| kind(a) != Some(&Acquiring::Acquisition))
        {
            return Err(FederateError::AttributeAcquisitionWasNotRequested {
                object,
                attribute: self.attribute_name(a),
            });
        }
        self.request(object, Op::Cancel, attributes, &[]);
        Ok(())
    }
}
