//! Ownership management services of the RTI ambassador (IEEE 1516.1-2010 §7). They run the
//! federate state machine (`trellis_core::federate::ownership`), which explains how the
//! federates agree on one owner without a central arbiter; answers arrive as
//! `Callback::Ownership` from `evoke_callback`.

use super::reporting::Call;
use super::{RtiAmbassador, RtiError};
use trellis_core::federate::ObjectId;
use trellis_core::fom::AttributeHandle;

impl RtiAmbassador {
    /// unconditionalAttributeOwnershipDivestiture: the attributes become unowned at once.
    pub fn unconditional_attribute_ownership_divestiture(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "unconditionalAttributeOwnershipDivestiture",
                &[&object, &attributes],
            ),
            |f| Ok(f.unconditional_attribute_ownership_divestiture(object, attributes)?),
        )
    }

    /// negotiatedAttributeOwnershipDivestiture: offered until another federate takes them.
    pub fn negotiated_attribute_ownership_divestiture(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "negotiatedAttributeOwnershipDivestiture",
                &[&object, &attributes, &tag],
            ),
            |f| Ok(f.negotiated_attribute_ownership_divestiture(object, attributes, tag)?),
        )
    }

    /// confirmDivestiture: completes a negotiated divestiture the RTI asked to confirm.
    pub fn confirm_divestiture(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("confirmDivestiture", &[&object, &attributes, &tag]),
            |f| Ok(f.confirm_divestiture(object, attributes, tag)?),
        )
    }

    /// cancelNegotiatedAttributeOwnershipDivestiture.
    pub fn cancel_negotiated_attribute_ownership_divestiture(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "cancelNegotiatedAttributeOwnershipDivestiture",
                &[&object, &attributes],
            ),
            |f| Ok(f.cancel_negotiated_attribute_ownership_divestiture(object, attributes)?),
        )
    }

    /// attributeOwnershipAcquisition: asks the owners to release the attributes.
    pub fn attribute_ownership_acquisition(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "attributeOwnershipAcquisition",
                &[&object, &attributes, &tag],
            ),
            |f| Ok(f.attribute_ownership_acquisition(object, attributes, tag)?),
        )
    }

    /// attributeOwnershipAcquisitionIfAvailable: takes only unowned attributes.
    pub fn attribute_ownership_acquisition_if_available(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "attributeOwnershipAcquisitionIfAvailable",
                &[&object, &attributes],
            ),
            |f| Ok(f.attribute_ownership_acquisition_if_available(object, attributes)?),
        )
    }

    /// attributeOwnershipReleaseDenied: answers a release request with no.
    pub fn attribute_ownership_release_denied(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("attributeOwnershipReleaseDenied", &[&object, &attributes]),
            |f| Ok(f.attribute_ownership_release_denied(object, attributes)?),
        )
    }

    /// Returns the attributes divested (those another federate was waiting for).
    pub fn attribute_ownership_divestiture_if_wanted(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<Vec<AttributeHandle>, RtiError> {
        self.with(
            Call::new(
                "attributeOwnershipDivestitureIfWanted",
                &[&object, &attributes],
            ),
            |f| Ok(f.attribute_ownership_divestiture_if_wanted(object, attributes)?),
        )
    }

    /// cancelAttributeOwnershipAcquisition.
    pub fn cancel_attribute_ownership_acquisition(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "cancelAttributeOwnershipAcquisition",
                &[&object, &attributes],
            ),
            |f| Ok(f.cancel_attribute_ownership_acquisition(object, attributes)?),
        )
    }

    /// queryAttributeOwnership: answered by an informAttributeOwnership callback.
    pub fn query_attribute_ownership(
        &mut self,
        object: ObjectId,
        attribute: AttributeHandle,
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("queryAttributeOwnership", &[&object, &attribute]),
            |f| Ok(f.query_attribute_ownership(object, attribute)?),
        )
    }

    /// isAttributeOwnedByFederate: this federate's own knowledge, answered at once.
    pub fn is_attribute_owned_by_federate(
        &self,
        object: ObjectId,
        attribute: AttributeHandle,
    ) -> Result<bool, RtiError> {
        Ok(self
            .federate()?
            .is_attribute_owned_by_federate(object, attribute)?)
    }

    /// The registry reports that federate `handle` resigned or died: its instances go
    /// (see `Federate::federate_gone`).
    pub fn federate_gone(&mut self, handle: u32) -> Result<(), RtiError> {
        self.with(Call::INTERNAL, |f| {
            f.federate_gone(handle);
            Ok(())
        })
    }
}
