//! localDeleteObjectInstance (IEEE 1516.1-2010 §6.15): the federate forgets an instance it
//! knows as if it had never discovered it. The instance stays in the federation; its next
//! update (or registration announcement) that reaches this federate discovers it again,
//! possibly as another class if the subscriptions changed meanwhile.

use super::Result;
use crate::federate::{Callback, Federate, FederateError, ObjectId};

impl Federate {
    /// localDeleteObjectInstance: refused while this federate owns an attribute of the
    /// instance (FederateOwnsAttributes) or is acquiring one (OwnershipAcquisitionPending).
    /// Tokens it keeps in trust, unowned, go to another keeper first, as on resigning:
    /// the federate can no longer arbitrate for an instance it does not know.
    pub fn local_delete_object_instance(&mut self, object: ObjectId) -> Result<()> {
        let Some(instance) = self.instances.get(object) else {
            return Err(FederateError::ObjectInstanceNotKnown(object));
        };
        let attributes = self.instance_attributes(instance.class);
        if let Some((a, _)) = (instance.tokens(attributes).into_iter()).find(|(_, owned)| *owned) {
            return Err(FederateError::FederateOwnsAttributes {
                object,
                attribute: self.attribute_name(a),
            });
        }
        if let Some(a) = instance.acquiring().and_then(|a| a.keys().next()) {
            return Err(FederateError::OwnershipAcquisitionPending {
                object,
                attribute: self.attribute_name(*a),
            });
        }
        let (me, privilege) = (self.handle, self.privilege());
        self.hand_over_trust_of(object, me, privilege);
        self.forget_discovered(object);
        self.regions.forget_object(object);
        // What was queued for the application about it would name an instance it no longer
        // knows; the next update discovers it again instead.
        self.callbacks.retain(|c| !is_about(c, object));
        self.forget_held_receive_order(|c| is_about(c, object));
        self.advisories_stale();
        Ok(())
    }
}

/// Whether `callback` tells of `object` as a discovered instance.
fn is_about(callback: &Callback, object: ObjectId) -> bool {
    match callback {
        Callback::DiscoverObjectInstance { object: o, .. }
        | Callback::ReflectAttributeValues { object: o, .. }
        | Callback::RemoveObjectInstance { object: o, .. } => *o == object,
        _ => false,
    }
}
