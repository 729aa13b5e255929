//! How this federate's own updates and interactions go out, changed at run time: preferred
//! order type (IEEE 1516.1-2010 §8.28, §8.29).

use super::{RtiAmbassador, RtiError};
use trellis_core::federate::ObjectId;
use trellis_core::fom::{AttributeHandle, InteractionClassHandle, Order};

impl RtiAmbassador {
    /// changeAttributeOrderType: time-stamped updates of these owned attributes go
    /// time-stamp order (when regulating) or receive order.
    pub fn change_attribute_order_type(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        order: Order,
    ) -> Result<(), RtiError> {
        self.with(|f| Ok(f.change_attribute_order_type(object, attributes, order)?))
    }

    /// changeInteractionOrderType: the same for a published interaction class.
    pub fn change_interaction_order_type(
        &mut self,
        class: InteractionClassHandle,
        order: Order,
    ) -> Result<(), RtiError> {
        self.with(|f| Ok(f.change_interaction_order_type(class, order)?))
    }
}
