//! What the federate library hands the user: the HLA federate-ambassador callbacks.

use super::message::ObjectId;
pub use super::ownership::OwnershipCallback;
use super::region::Region;
use crate::fom::{AttributeHandle, InteractionClassHandle, ObjectClassHandle, ParameterHandle};
use crate::wire::TransportClass;
use bytes::Bytes;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callback {
    /// A new instance, presented as the subscribed class it is known as.
    DiscoverObjectInstance {
        object: ObjectId,
        class: ObjectClassHandle,
        name: String,
    },
    ReflectAttributeValues {
        object: ObjectId,
        /// The known class (the subscribed class the instance belongs to).
        class: ObjectClassHandle,
        /// Only the subscribed attributes of that class.
        values: Vec<(AttributeHandle, Bytes)>,
        tag: Bytes,
        /// The sender's time stamp.
        time: u64,
        /// The updating federate's handle.
        sender: u32,
        transport: TransportClass,
        region: Option<Region>,
    },
    RemoveObjectInstance {
        object: ObjectId,
        tag: Bytes,
        time: u64,
        sender: u32,
    },
    ReceiveInteraction {
        /// The subscribed class the interaction is presented as.
        class: InteractionClassHandle,
        parameters: Vec<(ParameterHandle, Bytes)>,
        tag: Bytes,
        time: u64,
        sender: u32,
        transport: TransportClass,
        region: Option<Region>,
    },
    /// Another federate asks for current values of attributes this federate owns.
    ProvideAttributeValueUpdate {
        object: ObjectId,
        attributes: Vec<AttributeHandle>,
        tag: Bytes,
    },
    /// Ownership management (IEEE 1516.1-2010 §7): see `federate::ownership`.
    Ownership(OwnershipCallback),
}
