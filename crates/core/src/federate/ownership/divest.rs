//! Divestiture (IEEE 1516.1-2010 §7.2 - §7.6, §7.12, §7.13): an owner gives attributes
//! up, at once or negotiated with an acquirer, and answers release requests.

use super::wire::{Op, OwnershipBody};
use super::{attribute_set, Keeper, OwnershipCallback, Result};
use crate::federate::{Federate, FederateError, ObjectId};
use crate::fom::AttributeHandle;

impl Federate {
    /// unconditionalAttributeOwnershipDivestiture: the attributes go to a federate waiting
    /// for them, or become unowned (kept here in trust).
    pub fn unconditional_attribute_ownership_divestiture(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<()> {
        let attributes = &attribute_set(attributes)?;
        self.known_instance(object, attributes)?;
        self.check_owned(object, attributes)?;
        self.divest(object, attributes);
        Ok(())
    }

    pub(super) fn divest(&mut self, object: ObjectId, attributes: &[AttributeHandle]) {
        let granted = self.grant_to_first_waiting(object, attributes, &[]);
        let me = self.handle;
        let instance = self.instance(object);
        let mut unowned = Vec::new();
        for a in attributes.iter().filter(|a| !granted.contains(a)) {
            if let Some(token) = instance.tokens.get_mut(a) {
                token.owned = false;
                token.divesting = false;
                token.generation += 1;
                let keeper = Keeper {
                    federate: me,
                    owned: false,
                    generation: token.generation,
                };
                instance.keepers.insert(*a, keeper);
                unowned.push((a.0, token.generation));
            }
        }
        if !unowned.is_empty() {
            let class = self.registered_class(object);
            let body = OwnershipBody {
                op: Op::Unowned,
                object,
                from: me,
                to: 0,
                attributes: unowned,
                pairs: Vec::new(),
            };
            self.send_ownership(class, &[], body);
        }
    }

    /// negotiatedAttributeOwnershipDivestiture: publishers are asked to assume ownership;
    /// the owner keeps it until it confirms the divestiture to an acquirer.
    pub fn negotiated_attribute_ownership_divestiture(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Result<()> {
        let attributes = &attribute_set(attributes)?;
        crate::federate::message::check_tag(tag)?;
        self.known_instance(object, attributes)?;
        self.check_owned(object, attributes)?;
        let instance = self.instance(object);
        if let Some(&a) = attributes.iter().find(|a| instance.tokens[a].divesting) {
            return Err(FederateError::AttributeAlreadyBeingDivested {
                object,
                attribute: self.attribute_name(a),
            });
        }
        let instance = self.instance(object);
        let mut wanted = Vec::new();
        for a in attributes {
            let token = instance.tokens.get_mut(a).expect("owned");
            token.divesting = true;
            if !token.queue.is_empty() {
                wanted.push(*a);
            }
        }
        self.request(object, Op::Offer, attributes, tag);
        if !wanted.is_empty() {
            let callback = OwnershipCallback::RequestDivestitureConfirmation {
                object,
                attributes: wanted,
            };
            self.ownership_callback(callback);
        }
        Ok(())
    }

    /// confirmDivestiture: hand each attribute to the first federate waiting for it.
    pub fn confirm_divestiture(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Result<()> {
        let attributes = &attribute_set(attributes)?;
        crate::federate::message::check_tag(tag)?;
        self.known_instance(object, attributes)?;
        self.check_owned(object, attributes)?;
        let instance = self.instance(object);
        let states: Vec<(bool, bool)> = (attributes.iter())
            .map(|a| {
                (
                    instance.tokens[a].divesting,
                    instance.tokens[a].queue.is_empty(),
                )
            })
            .collect();
        for (&(divesting, nobody_waits), a) in states.iter().zip(attributes) {
            let attribute = self.attribute_name(*a);
            if !divesting {
                return Err(FederateError::AttributeDivestitureWasNotRequested {
                    object,
                    attribute,
                });
            }
            if nobody_waits {
                return Err(FederateError::NoAcquisitionPending { object, attribute });
            }
        }
        self.grant_to_first_waiting(object, attributes, tag);
        Ok(())
    }

    /// cancelNegotiatedAttributeOwnershipDivestiture.
    pub fn cancel_negotiated_attribute_ownership_divestiture(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<()> {
        let attributes = &attribute_set(attributes)?;
        self.known_instance(object, attributes)?;
        self.check_owned(object, attributes)?;
        let instance = self.instance(object);
        if let Some(&a) = attributes.iter().find(|a| !instance.tokens[a].divesting) {
            return Err(FederateError::AttributeDivestitureWasNotRequested {
                object,
                attribute: self.attribute_name(a),
            });
        }
        for a in attributes {
            self.instance(object)
                .tokens
                .get_mut(a)
                .expect("owned")
                .divesting = false;
        }
        Ok(())
    }

    /// attributeOwnershipReleaseDenied: the owner keeps the attributes. The acquirers
    /// stay queued: a later divestiture still serves them, first come first served.
    pub fn attribute_ownership_release_denied(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<()> {
        let attributes = &attribute_set(attributes)?;
        self.known_instance(object, attributes)?;
        self.check_owned(object, attributes)
    }

    /// attributeOwnershipDivestitureIfWanted: divest the attributes someone is waiting
    /// for; returns those.
    pub fn attribute_ownership_divestiture_if_wanted(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<Vec<AttributeHandle>> {
        let attributes = &attribute_set(attributes)?;
        self.known_instance(object, attributes)?;
        self.check_owned(object, attributes)?;
        Ok(self.grant_to_first_waiting(object, attributes, &[]))
    }
}
