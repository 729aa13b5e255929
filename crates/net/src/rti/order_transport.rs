//! How this federate's own updates and interactions go out, changed at run time: preferred
//! order type (IEEE 1516.1-2010 §8.28, §8.29) and transportation type (§6.23-§6.30).

use super::reporting::Call;
use super::{RtiAmbassador, RtiError};
use trellis_core::federate::ObjectId;
use trellis_core::fom::{AttributeHandle, InteractionClassHandle, Order};
use trellis_core::wire::TransportClass;

impl RtiAmbassador {
    /// changeAttributeOrderType: time-stamped updates of these owned attributes go
    /// time-stamp order (when regulating) or receive order.
    pub fn change_attribute_order_type(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        order: Order,
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("changeAttributeOrderType", &[&object, &attributes, &order]),
            |f| Ok(f.change_attribute_order_type(object, attributes, order)?),
        )
    }

    /// changeInteractionOrderType: the same for a published interaction class.
    pub fn change_interaction_order_type(
        &mut self,
        class: InteractionClassHandle,
        order: Order,
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("changeInteractionOrderType", &[&class, &order]),
            |f| Ok(f.change_interaction_order_type(class, order)?),
        )
    }
}

impl RtiAmbassador {
    /// requestAttributeTransportationTypeChange: updates of these owned attributes of
    /// `object` travel `transport` from now on. The change is in effect on return, and
    /// confirmed by the confirmAttributeTransportationTypeChange callback.
    pub fn request_attribute_transportation_type_change(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        transport: TransportClass,
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "requestAttributeTransportationTypeChange",
                &[&object, &attributes, &transport],
            ),
            |f| Ok(f.change_attribute_transportation(object, attributes, transport)?),
        )
    }

    /// queryAttributeTransportationType: answered at once, and by the
    /// reportAttributeTransportationType callback; see `Federate::attribute_transportation`.
    pub fn query_attribute_transportation_type(
        &mut self,
        object: ObjectId,
        attribute: AttributeHandle,
    ) -> Result<TransportClass, RtiError> {
        self.with(
            Call::new("queryAttributeTransportationType", &[&object, &attribute]),
            |f| Ok(f.report_attribute_transportation(object, attribute)?),
        )
    }

    /// requestInteractionTransportationTypeChange: this federate's interactions of a
    /// published class travel `transport` from now on; confirmed by the
    /// confirmInteractionTransportationTypeChange callback.
    pub fn request_interaction_transportation_type_change(
        &mut self,
        class: InteractionClassHandle,
        transport: TransportClass,
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "requestInteractionTransportationTypeChange",
                &[&class, &transport],
            ),
            |f| Ok(f.change_interaction_transportation(class, transport)?),
        )
    }

    /// queryInteractionTransportationType: answered at once, and by the
    /// reportInteractionTransportationType callback; see
    /// `Federate::interaction_transportation`.
    pub fn query_interaction_transportation_type(
        &mut self,
        federate: u32,
        class: InteractionClassHandle,
    ) -> Result<TransportClass, RtiError> {
        self.with(
            Call::new("queryInteractionTransportationType", &[&federate, &class]),
            |f| Ok(f.report_interaction_transportation(federate, class)?),
        )
    }
}
