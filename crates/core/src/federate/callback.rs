//! What the federate library hands the user: the HLA federate-ambassador callbacks.

use super::message::ObjectId;
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
    /// Someone subscribes to this published class (or a superclass): registering
    /// instances of it is advised (object class relevance advisory switch).
    StartRegistrationForObjectClass {
        class: ObjectClassHandle,
    },
    /// Nobody subscribes to this published class any more.
    StopRegistrationForObjectClass {
        class: ObjectClassHandle,
    },
    /// Someone subscribes to this published interaction class (interaction relevance).
    TurnInteractionsOn {
        class: InteractionClassHandle,
    },
    TurnInteractionsOff {
        class: InteractionClassHandle,
    },
    /// Updates of these attributes of an owned instance would reach someone now
    /// (attribute relevance advisory switch).
    TurnUpdatesOnForObjectInstance {
        object: ObjectId,
        attributes: Vec<AttributeHandle>,
    },
    /// Updates of these attributes would reach nobody now.
    TurnUpdatesOffForObjectInstance {
        object: ObjectId,
        attributes: Vec<AttributeHandle>,
    },
}
