//! What the federate library hands the user: the HLA federate-ambassador callbacks.

use super::instance_name::InstanceName;
use super::logical_time::LogicalTime;
use super::message::ObjectId;
pub use super::ownership::OwnershipCallback;
use super::region::Region;
use super::retraction::MessageRetractionHandle;
pub use super::save::SaveCallback;
use crate::fom::{
    AttributeHandle, InteractionClassHandle, ObjectClassHandle, Order, ParameterHandle,
};
use crate::registry::SyncFailure;
use crate::wire::TransportClass;
use bytes::Bytes;
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callback {
    /// A new instance, presented as the subscribed class it is known as.
    DiscoverObjectInstance {
        object: ObjectId,
        class: ObjectClassHandle,
        name: InstanceName,
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
        /// How it was sent and how it is delivered (time-stamp order only to a constrained
        /// federate, from a regulating one).
        sent_order: Order,
        received_order: Order,
        /// The message's retraction handle, when it was sent in time-stamp order.
        retraction: Option<MessageRetractionHandle>,
    },
    RemoveObjectInstance {
        object: ObjectId,
        tag: Bytes,
        time: u64,
        sender: u32,
        sent_order: Order,
        received_order: Order,
        /// The message's retraction handle, when it was sent in time-stamp order.
        retraction: Option<MessageRetractionHandle>,
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
        sent_order: Order,
        received_order: Order,
        /// The message's retraction handle, when it was sent in time-stamp order.
        retraction: Option<MessageRetractionHandle>,
    },
    /// Another federate asks for current values of attributes this federate owns.
    ProvideAttributeValueUpdate {
        object: ObjectId,
        attributes: Vec<AttributeHandle>,
        tag: Bytes,
    },
    SynchronizationPointRegistrationSucceeded {
        label: String,
    },
    SynchronizationPointRegistrationFailed {
        label: String,
        reason: SyncFailure,
    },
    AnnounceSynchronizationPoint {
        label: String,
        tag: Bytes,
    },
    /// Every member achieved the point; `failed` achieved it without success.
    FederationSynchronized {
        label: String,
        failed: Vec<u32>,
    },
    TimeRegulationEnabled {
        time: LogicalTime,
    },
    TimeConstrainedEnabled {
        time: LogicalTime,
    },
    TimeAdvanceGrant {
        time: LogicalTime,
    },
    /// Ownership management (IEEE 1516.1-2010 §7): see `federate::ownership`.
    Ownership(OwnershipCallback),
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
    /// The federate's link to the federation failed (the transport broke, its router cut
    /// it as a slow consumer, heartbeats stopped): the registry resigned it, and it is no
    /// longer joined. The last callback of the federation execution (1516.1 §4.4).
    ConnectionLost {
        fault: String,
    },
    /// Reliable messages this federate should have received never arrived: a router on
    /// the way crashed, a link failed with them queued, or interest took a moment to be
    /// declared again after a restart. `count` were missing before the message from the
    /// same sender that revealed the gap. `sender` is the federate that sent them, when
    /// this federate has heard from it before. Trellis's own callback: 1516.1 has none, and
    /// a silent gap is worse than an unexpected callback.
    ReliableMessagesLost {
        sender: Option<u32>,
        sender_node: crate::wire::NodeId,
        count: u64,
    },
    /// These subscribed attributes of a known instance came into scope: another federate
    /// owns them and (with regions) updates them in a subscribed region (attribute scope
    /// advisory switch; see `federate::scope`).
    AttributesInScope {
        object: ObjectId,
        attributes: Vec<AttributeHandle>,
    },
    /// These attributes of a known instance left scope.
    AttributesOutOfScope {
        object: ObjectId,
        attributes: Vec<AttributeHandle>,
    },
    /// requestRetraction† (1516.1-2010 §8.22): the sender retracted this message, which was
    /// delivered already (a message still queued is dropped instead).
    RequestRetraction {
        handle: MessageRetractionHandle,
    },
    // ---- answers to this federate's own service calls ------------------------------------
    // The standard answers these services by callback; the Rust API also returns the answer
    // from the call, and queues the callback so a federate written against the standard's
    // callbacks (the C++ API's) sees them in the order the calls were made.
    /// objectInstanceNameReservationSucceeded (1516.1-2010 §6.3).
    ObjectInstanceNameReservationSucceeded {
        name: String,
    },
    /// objectInstanceNameReservationFailed (§6.3): another federate holds the name.
    ObjectInstanceNameReservationFailed {
        name: String,
    },
    /// multipleObjectInstanceNameReservationSucceeded (§6.6): every name is reserved.
    MultipleObjectInstanceNameReservationSucceeded {
        names: Vec<String>,
    },
    /// multipleObjectInstanceNameReservationFailed (§6.6): none is (all or none).
    MultipleObjectInstanceNameReservationFailed {
        names: Vec<String>,
    },
    /// confirmAttributeTransportationTypeChange (§6.24).
    ConfirmAttributeTransportationTypeChange {
        object: ObjectId,
        attributes: Vec<AttributeHandle>,
        transport: TransportClass,
    },
    /// reportAttributeTransportationType (§6.26).
    ReportAttributeTransportationType {
        object: ObjectId,
        attribute: AttributeHandle,
        transport: TransportClass,
    },
    /// confirmInteractionTransportationTypeChange (§6.28).
    ConfirmInteractionTransportationTypeChange {
        class: InteractionClassHandle,
        transport: TransportClass,
    },
    /// reportInteractionTransportationType (§6.30).
    ReportInteractionTransportationType {
        federate: u32,
        class: InteractionClassHandle,
        transport: TransportClass,
    },
    /// reportFederationExecutions (§4.8): (federation name, logical time implementation).
    /// Made by the connection (`trellis_net::rti::Session`), not by a joined federate.
    ReportFederationExecutions {
        federations: Vec<(String, String)>,
    },
    /// Federation save and restore (§4.16–4.31): see `federate::save`.
    Save(SaveCallback),
}

impl Callback {
    /// The retraction handle of the time-stamp-order message this callback delivers.
    pub fn retraction(&self) -> Option<MessageRetractionHandle> {
        match self {
            Callback::ReflectAttributeValues { retraction, .. }
            | Callback::ReceiveInteraction { retraction, .. }
            | Callback::RemoveObjectInstance { retraction, .. } => *retraction,
            _ => None,
        }
    }
}
