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

/// A federate-ambassador callback (IEEE 1516.1-2010 "†" services), queued by the federate
/// library in the order the user is to see them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callback {
    /// A new instance, presented as the subscribed class it is known as.
    DiscoverObjectInstance {
        /// The instance discovered.
        object: ObjectId,
        /// The subscribed class the instance is known as here (registered class or an ancestor).
        class: ObjectClassHandle,
        /// Its instance name, given or default (`HLAobject_F_N`).
        name: InstanceName,
    },
    /// reflectAttributeValues†: new values of subscribed attributes of a known instance.
    ReflectAttributeValues {
        /// The instance updated.
        object: ObjectId,
        /// The known class (the subscribed class the instance belongs to).
        class: ObjectClassHandle,
        /// Only the subscribed attributes of that class.
        values: Vec<(AttributeHandle, Bytes)>,
        /// The updating federate's tag.
        tag: Bytes,
        /// The sender's time stamp.
        time: u64,
        /// The updating federate's handle.
        sender: u32,
        /// The transportation type the update travelled by.
        transport: TransportClass,
        /// The update region (DDM) it was sent with, when it had one. Boxed: see
        /// [`CALLBACK_BYTES`].
        region: Option<Box<Region>>,
        /// How it was sent and how it is delivered (time-stamp order only to a constrained
        /// federate, from a regulating one).
        sent_order: Order,
        /// How it is delivered here: time-stamp order only to a constrained federate.
        received_order: Order,
        /// The message's retraction handle, when it was sent in time-stamp order.
        retraction: Option<MessageRetractionHandle>,
    },
    /// removeObjectInstance†: a known instance was deleted (or its owner left the federation).
    RemoveObjectInstance {
        /// The instance removed.
        object: ObjectId,
        /// The deleting federate's tag.
        tag: Bytes,
        /// The sender's time stamp: a logical time key if sent in time-stamp order, else its clock.
        time: u64,
        /// The deleting federate's handle.
        sender: u32,
        /// How it was sent (receive or time-stamp order).
        sent_order: Order,
        /// How it is delivered here.
        received_order: Order,
        /// The message's retraction handle, when it was sent in time-stamp order.
        retraction: Option<MessageRetractionHandle>,
    },
    /// receiveInteraction†: an interaction of a subscribed class.
    ReceiveInteraction {
        /// The subscribed class the interaction is presented as.
        class: InteractionClassHandle,
        /// The parameters sent, as handle and encoded value.
        parameters: Vec<(ParameterHandle, Bytes)>,
        /// The sending federate's tag.
        tag: Bytes,
        /// The sender's time stamp: a logical time key if sent in time-stamp order, else its clock.
        time: u64,
        /// The sending federate's handle.
        sender: u32,
        /// The transportation type it travelled by.
        transport: TransportClass,
        /// The region (DDM) it was sent with, when it had one. Boxed: see [`CALLBACK_BYTES`].
        region: Option<Box<Region>>,
        /// How it was sent (receive or time-stamp order).
        sent_order: Order,
        /// How it is delivered here.
        received_order: Order,
        /// The message's retraction handle, when it was sent in time-stamp order.
        retraction: Option<MessageRetractionHandle>,
    },
    /// Another federate asks for current values of attributes this federate owns.
    ProvideAttributeValueUpdate {
        /// The instance asked about.
        object: ObjectId,
        /// The attributes whose values are asked for, among those this federate owns.
        attributes: Vec<AttributeHandle>,
        /// The requesting federate's tag.
        tag: Bytes,
    },
    /// synchronizationPointRegistrationSucceeded†: this federate registered the point.
    SynchronizationPointRegistrationSucceeded {
        /// The label registered.
        label: String,
    },
    /// synchronizationPointRegistrationFailed†: the registration was refused.
    SynchronizationPointRegistrationFailed {
        /// The label asked for.
        label: String,
        /// Why the registry refused it.
        reason: SyncFailure,
    },
    /// announceSynchronizationPoint†: this federate is a member of a new synchronization point.
    AnnounceSynchronizationPoint {
        /// The point's label.
        label: String,
        /// The registering federate's tag.
        tag: Bytes,
    },
    /// Every member achieved the point; `failed` achieved it without success.
    FederationSynchronized {
        /// The point's label.
        label: String,
        /// Handles of the members that achieved it unsuccessfully.
        failed: Vec<u32>,
    },
    /// timeRegulationEnabled†: regulation asked for is on.
    TimeRegulationEnabled {
        /// The federate's logical time from now on.
        time: LogicalTime,
    },
    /// timeConstrainedEnabled†: constraint asked for is on.
    TimeConstrainedEnabled {
        /// The federate's logical time from now on.
        time: LogicalTime,
    },
    /// timeAdvanceGrant†: the pending time advance request is granted.
    TimeAdvanceGrant {
        /// The time granted: the federate's logical time from now on.
        time: LogicalTime,
    },
    /// Ownership management (IEEE 1516.1-2010 §7): see `federate::ownership`.
    Ownership(OwnershipCallback),
    /// Someone subscribes to this published class (or a superclass): registering
    /// instances of it is advised (object class relevance advisory switch).
    StartRegistrationForObjectClass {
        /// The published class.
        class: ObjectClassHandle,
    },
    /// Nobody subscribes to this published class any more.
    StopRegistrationForObjectClass {
        /// The published class.
        class: ObjectClassHandle,
    },
    /// Someone subscribes to this published interaction class (interaction relevance).
    TurnInteractionsOn {
        /// The published interaction class.
        class: InteractionClassHandle,
    },
    /// Nobody subscribes to this published interaction class any more.
    TurnInteractionsOff {
        /// The published interaction class.
        class: InteractionClassHandle,
    },
    /// Updates of these attributes of an owned instance would reach someone now
    /// (attribute relevance advisory switch).
    TurnUpdatesOnForObjectInstance {
        /// The owned instance.
        object: ObjectId,
        /// The attributes that now reach someone.
        attributes: Vec<AttributeHandle>,
    },
    /// Updates of these attributes would reach nobody now.
    TurnUpdatesOffForObjectInstance {
        /// The owned instance.
        object: ObjectId,
        /// The attributes that now reach nobody.
        attributes: Vec<AttributeHandle>,
    },
    /// The federate's link to the federation failed (the transport broke, its router cut
    /// it as a slow consumer, heartbeats stopped): the registry resigned it, and it is no
    /// longer joined. The last callback of the federation execution (1516.1 §4.4).
    ConnectionLost {
        /// What failed, for the user.
        fault: String,
    },
    /// Reliable messages this federate should have received never arrived: a router on
    /// the way crashed, a link failed with them queued, or interest took a moment to be
    /// declared again after a restart. `count` were missing before the message from the
    /// same sender that revealed the gap. `sender` is the federate that sent them, when
    /// this federate has heard from it before. Trellis's own callback: 1516.1 has none, and
    /// a silent gap is worse than an unexpected callback.
    ReliableMessagesLost {
        /// The sending federate, when this federate has heard from it before.
        sender: Option<u32>,
        /// The node (router or federate) the lost data frames came from.
        sender_node: crate::wire::NodeId,
        /// How many reliable messages were lost.
        count: u64,
    },
    /// These subscribed attributes of a known instance came into scope: another federate
    /// owns them and (with regions) updates them in a subscribed region (attribute scope
    /// advisory switch; see `federate::scope`).
    AttributesInScope {
        /// The known instance.
        object: ObjectId,
        /// The attributes now in scope.
        attributes: Vec<AttributeHandle>,
    },
    /// These attributes of a known instance left scope.
    AttributesOutOfScope {
        /// The known instance.
        object: ObjectId,
        /// The attributes now out of scope.
        attributes: Vec<AttributeHandle>,
    },
    /// requestRetraction† (1516.1-2010 §8.22): the sender retracted this message, which was
    /// delivered already (a message still queued is dropped instead).
    RequestRetraction {
        /// The retracted message's handle, as it came with the message.
        handle: MessageRetractionHandle,
    },
    // ---- answers to this federate's own service calls ------------------------------------
    // The standard answers these services by callback; the Rust API also returns the answer
    // from the call, and queues the callback so a federate written against the standard's
    // callbacks (the C++ API's) sees them in the order the calls were made.
    /// objectInstanceNameReservationSucceeded (1516.1-2010 §6.3).
    ObjectInstanceNameReservationSucceeded {
        /// The name reserved.
        name: String,
    },
    /// objectInstanceNameReservationFailed (§6.3): another federate holds the name.
    ObjectInstanceNameReservationFailed {
        /// The name refused.
        name: String,
    },
    /// multipleObjectInstanceNameReservationSucceeded (§6.6): every name is reserved.
    MultipleObjectInstanceNameReservationSucceeded {
        /// The names reserved.
        names: Vec<String>,
    },
    /// multipleObjectInstanceNameReservationFailed (§6.6): none is (all or none).
    MultipleObjectInstanceNameReservationFailed {
        /// The names asked for, none of which is reserved.
        names: Vec<String>,
    },
    /// confirmAttributeTransportationTypeChange (§6.24).
    ConfirmAttributeTransportationTypeChange {
        /// The instance.
        object: ObjectId,
        /// The attributes whose transportation type changed.
        attributes: Vec<AttributeHandle>,
        /// The transportation type they now use.
        transport: TransportClass,
    },
    /// reportAttributeTransportationType (§6.26).
    ReportAttributeTransportationType {
        /// The instance asked about.
        object: ObjectId,
        /// The attribute asked about.
        attribute: AttributeHandle,
        /// The transportation type it uses.
        transport: TransportClass,
    },
    /// confirmInteractionTransportationTypeChange (§6.28).
    ConfirmInteractionTransportationTypeChange {
        /// The interaction class.
        class: InteractionClassHandle,
        /// The transportation type it now uses.
        transport: TransportClass,
    },
    /// reportInteractionTransportationType (§6.30).
    ReportInteractionTransportationType {
        /// The federate asked about.
        federate: u32,
        /// The interaction class asked about.
        class: InteractionClassHandle,
        /// The transportation type that federate sends it with.
        transport: TransportClass,
    },
    /// reportFederationExecutions (§4.8): (federation name, logical time implementation).
    /// Made by the connection (`trellis_net::rti::Session`), not by a joined federate.
    ReportFederationExecutions {
        /// The federation executions that exist: (name, logical time implementation name).
        federations: Vec<(String, String)>,
    },
    /// Federation save and restore (§4.16–4.31): see `federate::save`.
    Save(SaveCallback),
}

/// At most this many bytes per callback. A callback is moved several times on its way to
/// the application (into the federate's queue, out of it, up through the ambassador's
/// calls, into the C ABI's slot), once per reflect; a move of up to 128 bytes is compiled
/// to a few vector moves, a larger one to a call to `memcpy`, which was about 14 % of a
/// receiving federate's thread at 160 bytes. A reflect's region (56 bytes) is therefore
/// boxed, the box reused like its list of values ([`super::Federate::recycle_values_of`]).
pub const CALLBACK_BYTES: usize = 128;
const _: () = assert!(size_of::<Callback>() <= CALLBACK_BYTES);

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

impl Callback {
    /// The standard's name of this callback (`reflectAttributeValues`), as the MOM reports
    /// it; `reliableMessagesLost` is Trellis's own.
    pub fn service_name(&self) -> &'static str {
        match self {
            Callback::DiscoverObjectInstance { .. } => "discoverObjectInstance",
            Callback::ReflectAttributeValues { .. } => "reflectAttributeValues",
            Callback::RemoveObjectInstance { .. } => "removeObjectInstance",
            Callback::ReceiveInteraction { .. } => "receiveInteraction",
            Callback::ProvideAttributeValueUpdate { .. } => "provideAttributeValueUpdate",
            Callback::SynchronizationPointRegistrationSucceeded { .. } => {
                "synchronizationPointRegistrationSucceeded"
            }
            Callback::SynchronizationPointRegistrationFailed { .. } => {
                "synchronizationPointRegistrationFailed"
            }
            Callback::AnnounceSynchronizationPoint { .. } => "announceSynchronizationPoint",
            Callback::FederationSynchronized { .. } => "federationSynchronized",
            Callback::TimeRegulationEnabled { .. } => "timeRegulationEnabled",
            Callback::TimeConstrainedEnabled { .. } => "timeConstrainedEnabled",
            Callback::TimeAdvanceGrant { .. } => "timeAdvanceGrant",
            Callback::StartRegistrationForObjectClass { .. } => "startRegistrationForObjectClass",
            Callback::StopRegistrationForObjectClass { .. } => "stopRegistrationForObjectClass",
            Callback::TurnInteractionsOn { .. } => "turnInteractionsOn",
            Callback::TurnInteractionsOff { .. } => "turnInteractionsOff",
            Callback::TurnUpdatesOnForObjectInstance { .. } => "turnUpdatesOnForObjectInstance",
            Callback::TurnUpdatesOffForObjectInstance { .. } => "turnUpdatesOffForObjectInstance",
            Callback::ConnectionLost { .. } => "connectionLost",
            Callback::ReliableMessagesLost { .. } => "reliableMessagesLost",
            Callback::AttributesInScope { .. } => "attributesInScope",
            Callback::AttributesOutOfScope { .. } => "attributesOutOfScope",
            Callback::RequestRetraction { .. } => "requestRetraction",
            Callback::ObjectInstanceNameReservationSucceeded { .. } => {
                "objectInstanceNameReservationSucceeded"
            }
            Callback::ObjectInstanceNameReservationFailed { .. } => {
                "objectInstanceNameReservationFailed"
            }
            Callback::MultipleObjectInstanceNameReservationSucceeded { .. } => {
                "multipleObjectInstanceNameReservationSucceeded"
            }
            Callback::MultipleObjectInstanceNameReservationFailed { .. } => {
                "multipleObjectInstanceNameReservationFailed"
            }
            Callback::ConfirmAttributeTransportationTypeChange { .. } => {
                "confirmAttributeTransportationTypeChange"
            }
            Callback::ReportAttributeTransportationType { .. } => {
                "reportAttributeTransportationType"
            }
            Callback::ConfirmInteractionTransportationTypeChange { .. } => {
                "confirmInteractionTransportationTypeChange"
            }
            Callback::ReportInteractionTransportationType { .. } => {
                "reportInteractionTransportationType"
            }
            Callback::ReportFederationExecutions { .. } => "reportFederationExecutions",
            Callback::Ownership(ownership) => ownership.service_name(),
            Callback::Save(save) => save.service_name(),
        }
    }
}
