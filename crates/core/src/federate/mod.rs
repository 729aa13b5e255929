//! The federate library's state machine (the local RTI component). Sans-IO like the
//! router: service calls check their arguments against the object model and queue
//! [`Action`]s for the node (interest changes, data to publish); data arriving from the
//! node becomes [`Callback`]s after the exact checks the routers cannot make (region
//! overlap, attribute subset). What those checks discard is counted as over-delivery.
//!
//! **Keep-latest attributes** (the object model's `keepLatest` extension on an attribute,
//! or on a class for all attributes of its instances and its subclasses' instances, or
//! [`Federate::set_keep_latest`]) travel in keep-latest frames
//! (`wire::LatestKey`): the key is the object instance, the mask has one bit per attribute
//! carried, by its position among the registered class's available attributes (the first
//! 64; attributes past them travel as plain updates). Routers replace queued frames of the
//! same source, instance and mask and keep the newest for late subscribers
//! (`router::latest`); time-stamped updates are never keyed (replacing one would break
//! time-stamp order). Deleting an instance of a class with keep-latest attributes sends a
//! keyed removal, so caches forget it. On arrival, a keyed value is reflected only if it is
//! newer (by the sender node's sequence number) than the one reflected for that instance
//! and attribute from the same node, and only if its sender is still a member: copies from
//! several caches, and values a cache kept for a federate that has since left, are dropped
//! and counted (`FederateStats::stale_values`, `departed_values`). Values of one attribute
//! from two nodes (its ownership moved) are not compared, as two nodes' sequence numbers
//! mean nothing to each other: routers replay in the order frames reached them, so the old
//! owner's last value goes before the new owner's. Discovery needs nothing
//! more: an update names its instance's class and name, so a late joiner's first cached
//! update discovers the instance, then reflects.

pub mod advisory;
pub mod callback;
mod class_rights;
mod declaration;
mod delivery;
mod departures;
pub mod error;
mod extend;
mod federation;
mod id_slots;
mod instance_name;
mod instance_table;
mod keep_latest;
pub mod layout;
pub mod logical_time;
pub mod message;
pub mod mom;
mod objects;
pub mod ownership;
mod preferences;
mod receive;
mod reclaim;
mod rediscovery;
pub mod region;
pub mod regions;
pub mod retraction;
pub mod save;
mod scope;
mod send;
pub mod time;
mod timed;
mod update_rate;

pub use advisory::AdvisorySwitches;
pub use callback::{Callback, CALLBACK_BYTES};
pub use delivery::MAX_HELD_RECEIVE_ORDER;
pub use error::{variant_name, FederateError};
pub use federation::{MAX_DEFERRED_ASKS, MAX_EARLY_EVENTS};
pub use instance_name::InstanceName;
pub use logical_time::{Interval, LogicalTime, TimeRepresentation};
pub use message::ObjectId;
pub use mom::{federate_object, Invocation, MomIdentity, FEDERATION_OBJECT};
pub use ownership::{OwnershipCallback, ResignAction};
pub use reclaim::MAX_RECLAIMED_NAMES;
pub use region::{Range, Region};
pub use regions::{AttributeSetRegionSetPair, RegionHandle};
pub use retraction::{MessageRetractionHandle, MAX_REMEMBERED_DELIVERIES, MAX_RETRACTABLE};
pub use save::{SaveCallback, MAX_SAVED_PARTS};
pub use time::{AdvanceKind, TimeError, TimeStats};

use crate::fom::{
    AttributeHandle, DimensionHandle, InteractionClassHandle, ObjectClassHandle, ObjectModel,
    ParameterHandle,
};
use crate::registry::Request;
use crate::wire::{LatestKey, NodeId, TransportClass, UnstampedFrame};
use bytes::Bytes;
use federation::FederationView;
use layout::Layouts;
use message::Outgoing;
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::Arc;
use time::TimeManager;

/// A value to send: attribute or parameter handle, and the bytes.
type Value<'a> = (u32, &'a [u8]);

/// An outgoing message without values (registration, deletion, request).
type Plain<'a> = Outgoing<'a, &'a [u8]>;

/// Bins per dimension unless configured otherwise.
pub const DEFAULT_BINS: u32 = 16;

/// Id lists kept for reuse: more than the publishes one service call queues.
const SPARE_ID_LISTS: usize = 8;

/// What the federate asks of the node it runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Declare exactly this interest from now on.
    SetInterest(RoaringBitmap),
    /// Send `payload` (one encoded federate message) on the interest ids `ids`.
    Publish {
        /// The interest ids (class and cell, see `layout`) to send on.
        ids: Vec<u32>,
        /// The transportation type (reliable or best effort).
        class: TransportClass,
        /// The encoded message.
        payload: Bytes,
        /// Publish as a keep-latest frame with this key (see the module notes).
        latest: Option<LatestKey>,
    },
    /// Publish this frame, encoded whole here (header, ids, message): the node checks it,
    /// fills in its federation, source and numbers, and sends it without copying it.
    PublishFrame(UnstampedFrame),
    /// Send this to the registry and hand its answer to `Federate::handle_reply`.
    Ask(Request),
    /// Load the object model from `modules` (the federation's, extended by a joiner's) and
    /// hand it to `Federate::extend_model` if its `Federate::fingerprint` is `fingerprint`,
    /// else to `Federate::model_extension_failed`.
    ExtendModel {
        /// Names of the object model modules, the federation's then the joiner's.
        modules: Vec<String>,
        /// The fingerprint the loaded model must have to be taken on.
        fingerprint: u64,
    },
}

/// Counts of what arrived and what the exact checks threw away.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FederateStats {
    /// Payloads received from the node, of every kind (data, registry events, time messages).
    pub messages: u64,
    /// reflectAttributeValues callbacks made (HLAreflectionsReceived in the MOM).
    pub reflections: u64,
    /// receiveInteraction callbacks made (HLAinteractionsReceived).
    pub interactions: u64,
    /// discoverObjectInstance callbacks made (HLAobjectInstancesDiscovered).
    pub discoveries: u64,
    /// Messages (or all their values) the routers delivered but the subscription does not
    /// cover: outside every subscribed region, no subscribed attribute, or no subscribed
    /// class. The price of cell-level routing.
    pub over_delivered: u64,
    /// Messages that did not decode or named things the object model lacks.
    pub malformed: u64,
    /// Requests the registry refused with an error.
    pub registry_refusals: u64,
    /// Keep-latest values not reflected: one as new or newer from the same node was
    /// reflected already (a copy from another cache on the way, or overtaken in a queue).
    pub stale_values: u64,
    /// Keep-latest updates not reflected because their sender is no longer a member (a
    /// cache kept them after it left).
    pub departed_values: u64,
    /// Updates of attribute values this federate sent (one per service call; an update
    /// with regions counts once per region group).
    pub updates_sent: u64,
    /// Interactions this federate sent.
    pub interactions_sent: u64,
}

struct ObjectSubscription {
    attributes: BTreeSet<AttributeHandle>,
    /// Empty: the whole routing space.
    regions: Vec<Region>,
}

/// One joined federate's local RTI component: its HLA state and services, sans-IO.
/// The host drives it: service calls and arrived frames in, `Action`s and `Callback`s out.
pub struct Federate {
    model: Arc<ObjectModel>,
    /// HLAprivilegeToDeleteObject of the model's root class, if it declares one: looked up
    /// by name once here, not at every update and reflect that checks publication.
    privilege_to_delete: Option<AttributeHandle>,
    /// Whether the object model marks anything keep-latest: when it does not and nothing
    /// is switched at run time, an update needs no keep-latest bookkeeping.
    model_keeps_latest: bool,
    layouts: Layouts,
    handle: u32,
    /// `Federate::fingerprint` of the model and bins: a reclaim carries it.
    fingerprint: u64,
    /// Bins per dimension of the routing spaces (the layouts are rebuilt with them when the
    /// model is extended).
    bins: u32,
    published_objects: BTreeMap<ObjectClassHandle, BTreeSet<AttributeHandle>>,
    published_interactions: BTreeSet<InteractionClassHandle>,
    object_subscriptions: BTreeMap<ObjectClassHandle, ObjectSubscription>,
    interaction_subscriptions: BTreeMap<InteractionClassHandle, Vec<Region>>,
    /// Subscribed classes whose latest subscription was passive: they receive as the
    /// others do, but raise no relevance advisories at publishers (`layout::ACTIVE_CELL`).
    passive: declaration::Passive,
    interest: RoaringBitmap,
    /// What the access policy of the first router lets this federate publish and
    /// subscribe to (`class_rights.rs`); unrestricted unless told otherwise at join.
    class_rights: crate::policy::ClassRights,
    /// Every instance this federate registered or discovered, in one entry each: an
    /// update finds its class, name and ownership with one look-up (the owned objects are
    /// those `kept`, the known ones those with a `known` class).
    instances: instance_table::InstanceTable<ownership::Instance>,
    /// The instances' known classes again (by 4 bytes each), for the reflect path: its
    /// look-ups come in any order, and read fewer cache lines here than in the entries.
    known_classes: id_slots::IdSlots,
    counts: ownership::Counts,
    /// [`Federate::instance_attributes`] by class.
    class_attributes: Vec<Box<[AttributeHandle]>>,
    reserved_names: BTreeSet<String>,
    /// Names of registered instances: the same allocations as the instances' names.
    used_names: BTreeSet<Arc<str>>,
    /// Every instance known here (registered or discovered) by its given name, for
    /// getObjectInstanceHandle: the same allocations again. Default names are not kept;
    /// they are read back as their ids.
    named_instances: HashMap<Arc<str>, ObjectId>,
    next_local: u32,
    actions: VecDeque<Action>,
    callbacks: VecDeque<Callback>,
    /// Receive-order messages held for a constrained federate until it advances.
    receive_order: delivery::ReceiveOrderGate,
    stats: FederateStats,
    encode_buf: crate::wire::FrameArena,
    view: FederationView,
    /// Federates that left, until their last messages are in (`departures`).
    departures: departures::Departures,
    time: TimeManager,
    /// The logical time stamp of the message being sent, when it goes time-stamp order.
    sending_time_stamp: Option<LogicalTime>,
    /// The serial number (retraction) of the message being sent in time-stamp order.
    sending_serial: Option<u32>,
    /// This federate's time-stamped messages it may still retract.
    retractable: retraction::Retractable,
    /// Time-stamped messages delivered here: a retraction of one is a requestRetraction.
    delivered: retraction::Delivered,
    regions: regions::RegionTable,
    advisories: advisory::Advisories,
    scope: scope::Scope,
    update_rates: update_rate::UpdateRates,
    /// Order and transportation changed by the federate over the defaults.
    preferences: preferences::Preferences,
    /// Keep-latest switches set at run time, over the object model's: per registered class
    /// and attribute.
    keep_latest: BTreeMap<(ObjectClassHandle, AttributeHandle), bool>,
    /// Per known instance and attribute, the node and sequence number of the newest
    /// keep-latest value reflected: older copies are dropped.
    reflected: FxHashMap<ObjectId, FxHashMap<AttributeHandle, (NodeId, u64)>>,
    /// Id lists, cleared, for an update to fill instead of allocating: it puts its list back
    /// once the ids are in the frame, and time messages' come back through
    /// [`Federate::recycle`].
    spare_ids: Vec<Vec<u32>>,
    /// The allocation of an update's list of values for one message, kept empty between
    /// updates (its values borrow from one call).
    part_buffer: Vec<Value<'static>>,
    /// Lists of values of reflects and interactions the application handed back
    /// ([`Federate::recycle_callback`]), emptied: a message received decodes into one.
    spare_values: Vec<Vec<(u32, Bytes)>>,
    /// Boxes of regions of callbacks handed back, for a later reflect's region: the boxes
    /// themselves are what is kept (a reflect's region is boxed).
    #[allow(clippy::vec_box)]
    spare_regions: Vec<Box<Region>>,
    /// The Management Object Model's part of this federate (`mom`); `None` only for a
    /// model without the standard MIM's manager classes.
    mom: Option<mom::Mom>,
    /// Federation save and restore, and the parts saved (`save`).
    saves: save::Saves,
}

/// At most this many emptied value lists wait to be reused.
const SPARE_VALUE_LISTS: usize = 64;
/// At most this many regions' boxes wait to be reused.
const SPARE_REGIONS: usize = 64;

impl Federate {
    /// The federate `handle` has joined; `bins` cuts every dimension of the routing spaces.
    pub fn new(model: Arc<ObjectModel>, handle: u32, bins: u32) -> Result<Federate, FederateError> {
        let classes = model.object_classes().len() + model.interaction_classes().len();
        let layouts = Layouts::new(&model, bins).ok_or(FederateError::TooManyClasses(classes))?;
        let privilege_to_delete = ownership::privilege_to_delete_of(&model);
        Ok(Federate {
            mom: mom::Mom::new(&model),
            fingerprint: Federate::fingerprint(&model, bins),
            bins,
            class_attributes: Federate::class_attributes_of(&model, privilege_to_delete),
            privilege_to_delete,
            model_keeps_latest: model.marks_keep_latest(),
            model,
            layouts,
            handle,
            published_objects: BTreeMap::new(),
            published_interactions: BTreeSet::new(),
            object_subscriptions: BTreeMap::new(),
            interaction_subscriptions: BTreeMap::new(),
            passive: Default::default(),
            interest: RoaringBitmap::new(),
            class_rights: Default::default(),
            instances: instance_table::InstanceTable::default(),
            known_classes: id_slots::IdSlots::default(),
            counts: ownership::Counts::default(),
            reserved_names: BTreeSet::new(),
            used_names: BTreeSet::new(),
            named_instances: HashMap::new(),
            next_local: 1,
            actions: VecDeque::new(),
            callbacks: VecDeque::new(),
            receive_order: Default::default(),
            stats: FederateStats::default(),
            encode_buf: Default::default(),
            view: FederationView::default(),
            departures: Default::default(),
            time: TimeManager::new(TimeRepresentation::default(), handle),
            sending_time_stamp: None,
            sending_serial: None,
            retractable: Default::default(),
            delivered: Default::default(),
            regions: Default::default(),
            advisories: Default::default(),
            scope: Default::default(),
            update_rates: Default::default(),
            preferences: Default::default(),
            keep_latest: BTreeMap::new(),
            reflected: FxHashMap::default(),
            spare_ids: Vec::new(),
            part_buffer: Vec::new(),
            spare_values: Vec::new(),
            spare_regions: Vec::new(),
            saves: Default::default(),
        })
    }

    /// The fingerprint federates of one federation must share: the object model and the
    /// bins that cut its routing spaces.
    pub fn fingerprint(model: &ObjectModel, bins: u32) -> u64 {
        model.fingerprint() ^ u64::from(bins).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// This federate's handle in its federation, assigned by the registry at join.
    pub fn handle(&self) -> u32 {
        self.handle
    }

    /// The object model this federate uses (the federation's, with modules added at joins).
    pub fn model(&self) -> &Arc<ObjectModel> {
        &self.model
    }

    /// Counts of what arrived, what was delivered and what the exact checks discarded.
    pub fn stats(&self) -> FederateStats {
        self.stats
    }

    /// How many instances [`Federate::owned_objects`] lists, without walking them.
    pub fn owned_object_count(&self) -> usize {
        self.counts.owned
    }

    /// How many instances [`Federate::known_objects`] lists, without walking them.
    pub fn known_object_count(&self) -> usize {
        self.counts.known
    }

    /// Callbacks queued for the application, not yet evoked (held receive-order messages
    /// included).
    pub fn callbacks_pending(&self) -> usize {
        self.callbacks.len() + self.held_receive_order()
    }

    /// The next action for the driver (interest to declare, a message to publish, a
    /// registry request, a model to load).
    ///
    /// Call after every service call and every `handle_message`, until it returns `None`.
    #[must_use]
    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// Hand back an action the node has carried out: its buffers serve later updates, which
    /// then allocate nothing. An action not handed back is merely not reused.
    pub fn recycle(&mut self, action: Action) {
        if let Action::Publish { ids, .. } = action {
            send::keep_id_list(&mut self.spare_ids, ids);
        }
    }

    /// Hand back a callback the application is done with: the list of values of a reflect
    /// or an interaction then serves a later message, which allocates nothing. A callback
    /// not handed back is merely not reused.
    pub fn recycle_callback(&mut self, mut callback: Callback) {
        self.recycle_values_of(&mut callback);
    }

    /// [`Federate::recycle_callback`] where the callback lies: its list of values and its
    /// region's box are taken (the callback is left with neither), and the callback is not
    /// moved, which a caller that holds it in a queue or a slot saves.
    pub fn recycle_values_of(&mut self, callback: &mut Callback) {
        // The values drop here (their bytes go back to the frames they came from); the
        // list keeps its allocation, the handles being plain u32 either way.
        let (list, region): (Vec<(u32, Bytes)>, _) = match callback {
            Callback::ReflectAttributeValues { values, region, .. } => {
                let mut values = std::mem::take(values);
                values.clear();
                (
                    values.into_iter().map(|(a, v)| (a.0, v)).collect(),
                    region.take(),
                )
            }
            Callback::ReceiveInteraction {
                parameters, region, ..
            } => {
                let mut parameters = std::mem::take(parameters);
                parameters.clear();
                (
                    parameters.into_iter().map(|(p, v)| (p.0, v)).collect(),
                    region.take(),
                )
            }
            _ => return,
        };
        if list.capacity() > 0 && self.spare_values.len() < SPARE_VALUE_LISTS {
            self.spare_values.push(list);
        }
        if let Some(region) = region.filter(|_| self.spare_regions.len() < SPARE_REGIONS) {
            self.spare_regions.push(region);
        }
        debug_assert!(self.spare_values.len() <= SPARE_VALUE_LISTS);
        debug_assert!(self.spare_regions.len() <= SPARE_REGIONS);
    }

    /// The next callback: receive-order messages held until now first (they came before
    /// anything queued since), then the queue.
    ///
    /// Call when the application evokes callbacks, after `handle_message` and the time
    /// services (their grants and advisories queue here).
    #[must_use]
    pub fn poll_callback(&mut self) -> Option<Callback> {
        self.refresh_advisories();
        self.refresh_scope();
        self.release_due_reflections();
        // Without `Option` combinators, which moved the callback once more.
        if self.has_released_receive_order() {
            return self.release_receive_order();
        }
        self.callbacks.pop_front()
    }

    /// Whether callbacks may be delivered now (without looking for new ones): held
    /// receive-order messages count only once they may be delivered.
    pub fn has_callbacks(&self) -> bool {
        !self.callbacks.is_empty()
            || self.has_released_receive_order()
            || self.scope.pending()
            || self.update_rate_due()
    }

    // ---- names to handles ---------------------------------------------------------------

    /// getObjectClassHandle: the object class named `name` (qualified or unique short name).
    pub fn object_class(&self, name: &str) -> Result<ObjectClassHandle, FederateError> {
        self.model
            .find_object_class(name)
            .ok_or_else(|| FederateError::ObjectClassNotDefined(name.to_owned()))
    }

    /// getAttributeHandle: the attribute `name` of `class` (its own or inherited).
    pub fn attribute(
        &self,
        class: ObjectClassHandle,
        name: &str,
    ) -> Result<AttributeHandle, FederateError> {
        self.model
            .find_attribute(class, name)
            .ok_or_else(|| FederateError::AttributeNotDefined {
                class: self.class_name(class),
                attribute: name.to_owned(),
            })
    }

    /// getInteractionClassHandle: the interaction class named `name`.
    pub fn interaction_class(&self, name: &str) -> Result<InteractionClassHandle, FederateError> {
        self.model
            .find_interaction_class(name)
            .ok_or_else(|| FederateError::InteractionClassNotDefined(name.to_owned()))
    }

    /// getParameterHandle: the parameter `name` of `class` (its own or inherited).
    pub fn parameter(
        &self,
        class: InteractionClassHandle,
        name: &str,
    ) -> Result<ParameterHandle, FederateError> {
        self.model.find_parameter(class, name).ok_or_else(|| {
            FederateError::InteractionParameterNotDefined {
                class: self.model.interaction_class(class).qualified_name.clone(),
                parameter: name.to_owned(),
            }
        })
    }

    /// getDimensionHandle: the dimension named `name`.
    pub fn dimension(&self, name: &str) -> Result<DimensionHandle, FederateError> {
        self.model
            .find_dimension(name)
            .ok_or_else(|| FederateError::DimensionNotDefined(name.to_owned()))
    }

    fn class_name(&self, class: ObjectClassHandle) -> String {
        self.model.object_class(class).qualified_name.clone()
    }

    fn check_attributes<'a>(
        &self,
        class: ObjectClassHandle,
        attributes: impl IntoIterator<Item = &'a AttributeHandle>,
    ) -> Result<(), FederateError> {
        for &a in attributes {
            let defined = (a.0 as usize) < self.model.counts().attributes
                && self
                    .model
                    .is_object_subclass(class, self.model.attribute(a).class);
            if !defined {
                return Err(FederateError::AttributeNotDefined {
                    class: self.class_name(class),
                    attribute: format!("#{}", a.0),
                });
            }
        }
        Ok(())
    }

    /// Instances whose attributes (some, owned or kept unowned) this federate holds.
    pub fn owned_objects(&self) -> impl Iterator<Item = ObjectId> + '_ {
        (self.instances.iter())
            .filter(|(_, i)| i.kept)
            .map(|(id, _)| id)
    }

    /// Instances this federate has discovered.
    pub fn known_objects(&self) -> impl Iterator<Item = (ObjectId, ObjectClassHandle)> + '_ {
        (self.instances.iter()).filter_map(|(id, i)| Some((id, i.known?)))
    }
}

/// Whether a subscription in `regions` (none: the whole space) takes something sent in
/// `region` (none: the default region, which overlaps everything).
fn covers(regions: &[Region], region: Option<&Region>) -> bool {
    match region {
        None => true,
        Some(r) => regions.is_empty() || regions.iter().any(|s| s.overlaps(r)),
    }
}

#[cfg(test)]
mod tests;
