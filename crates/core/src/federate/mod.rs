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
pub mod error;
mod federation;
mod id_slots;
mod instance_table;
pub mod layout;
pub mod logical_time;
pub mod message;
pub mod ownership;
mod reclaim;
pub mod region;
pub mod regions;
pub mod time;
mod timed;

pub use advisory::AdvisorySwitches;
pub use callback::Callback;
pub use error::FederateError;
pub use federation::{MAX_DEFERRED_ASKS, MAX_EARLY_EVENTS};
pub use logical_time::{Interval, LogicalTime, TimeRepresentation};
pub use message::ObjectId;
pub use ownership::{OwnershipCallback, ResignAction};
pub use reclaim::MAX_RECLAIMED_NAMES;
pub use region::{Range, Region};
pub use regions::{AttributeSetRegionSetPair, RegionHandle};
pub use time::{AdvanceKind, TimeError, TimeStats};

use crate::fom::{
    AttributeHandle, DimensionHandle, InteractionClassHandle, ObjectClassHandle, ObjectModel,
    Order, ParameterHandle,
};
use crate::registry::{Request, REGISTRY_EVENT_KIND};
use crate::wire::{DataFrame, LatestKey, NodeId, TransportClass};
use bytes::{Bytes, BytesMut};
use federation::FederationView;
use layout::{Layouts, DISCOVERY_CELL, REQUEST_CELL, WILDCARD_CELL};
use message::{Body, Header, Message, Outgoing, MAX_VALUES};
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
use time::{TimeManager, TIME_MESSAGE_KIND};

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
    Publish {
        ids: Vec<u32>,
        class: TransportClass,
        payload: Bytes,
        /// Publish as a keep-latest frame with this key (see the module notes).
        latest: Option<LatestKey>,
    },
    /// Send this to the registry and hand its answer to `Federate::handle_reply`.
    Ask(Request),
}

/// Counts of what arrived and what the exact checks threw away.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FederateStats {
    pub messages: u64,
    pub reflections: u64,
    pub interactions: u64,
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
    published_objects: BTreeMap<ObjectClassHandle, BTreeSet<AttributeHandle>>,
    published_interactions: BTreeSet<InteractionClassHandle>,
    object_subscriptions: BTreeMap<ObjectClassHandle, ObjectSubscription>,
    interaction_subscriptions: BTreeMap<InteractionClassHandle, Vec<Region>>,
    interest: RoaringBitmap,
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
    next_local: u32,
    actions: VecDeque<Action>,
    callbacks: VecDeque<Callback>,
    stats: FederateStats,
    encode_buf: BytesMut,
    view: FederationView,
    time: TimeManager,
    /// The logical time stamp of the message being sent, when it goes time-stamp order.
    sending_time_stamp: Option<LogicalTime>,
    regions: regions::RegionTable,
    advisories: advisory::Advisories,
    /// Keep-latest switches set at run time, over the object model's: per registered class
    /// and attribute.
    keep_latest: BTreeMap<(ObjectClassHandle, AttributeHandle), bool>,
    /// Per known instance and attribute, the node and sequence number of the newest
    /// keep-latest value reflected: older copies are dropped.
    reflected: FxHashMap<ObjectId, FxHashMap<AttributeHandle, (NodeId, u64)>>,
    /// Id lists of publishes the node carried out ([`Federate::recycle`]), cleared: an
    /// update takes one instead of allocating.
    spare_ids: Vec<Vec<u32>>,
    /// The allocation of an update's list of values for one message, kept empty between
    /// updates (its values borrow from one call).
    part_buffer: Vec<Value<'static>>,
}

impl Federate {
    /// The federate `handle` has joined; `bins` cuts every dimension of the routing spaces.
    pub fn new(model: Arc<ObjectModel>, handle: u32, bins: u32) -> Result<Federate, FederateError> {
        let classes = model.object_classes().len() + model.interaction_classes().len();
        let layouts = Layouts::new(&model, bins).ok_or(FederateError::TooManyClasses(classes))?;
        let privilege_to_delete = ownership::privilege_to_delete_of(&model);
        Ok(Federate {
            fingerprint: Federate::fingerprint(&model, bins),
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
            interest: RoaringBitmap::new(),
            instances: instance_table::InstanceTable::default(),
            known_classes: id_slots::IdSlots::default(),
            counts: ownership::Counts::default(),
            reserved_names: BTreeSet::new(),
            used_names: BTreeSet::new(),
            next_local: 1,
            actions: VecDeque::new(),
            callbacks: VecDeque::new(),
            stats: FederateStats::default(),
            encode_buf: BytesMut::new(),
            view: FederationView::default(),
            time: TimeManager::new(TimeRepresentation::default(), handle),
            sending_time_stamp: None,
            regions: Default::default(),
            advisories: Default::default(),
            keep_latest: BTreeMap::new(),
            reflected: FxHashMap::default(),
            spare_ids: Vec::new(),
            part_buffer: Vec::new(),
        })
    }

    /// The fingerprint federates of one federation must share: the object model and the
    /// bins that cut its routing spaces.
    pub fn fingerprint(model: &ObjectModel, bins: u32) -> u64 {
        model.fingerprint() ^ u64::from(bins).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    pub fn handle(&self) -> u32 {
        self.handle
    }

    pub fn model(&self) -> &Arc<ObjectModel> {
        &self.model
    }

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

    /// Callbacks queued for the application, not yet evoked.
    pub fn callbacks_pending(&self) -> usize {
        self.callbacks.len()
    }

    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// Hand back an action the node has carried out: its buffers serve later updates, which
    /// then allocate nothing. An action not handed back is merely not reused.
    pub fn recycle(&mut self, action: Action) {
        if let Action::Publish { mut ids, .. } = action {
            if self.spare_ids.len() < SPARE_ID_LISTS {
                ids.clear();
                self.spare_ids.push(ids);
            }
        }
    }

    pub fn poll_callback(&mut self) -> Option<Callback> {
        self.refresh_advisories();
        self.callbacks.pop_front()
    }

    /// Whether callbacks are queued for the application (without looking for new ones).
    pub fn has_callbacks(&self) -> bool {
        !self.callbacks.is_empty()
    }

    // ---- names to handles ---------------------------------------------------------------

    pub fn object_class(&self, name: &str) -> Result<ObjectClassHandle, FederateError> {
        self.model
            .find_object_class(name)
            .ok_or_else(|| FederateError::ObjectClassNotDefined(name.to_owned()))
    }

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

    pub fn interaction_class(&self, name: &str) -> Result<InteractionClassHandle, FederateError> {
        self.model
            .find_interaction_class(name)
            .ok_or_else(|| FederateError::InteractionClassNotDefined(name.to_owned()))
    }

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

    // ---- declaration management ---------------------------------------------------------

    pub fn publish_object_class_attributes(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
    ) -> Result<(), FederateError> {
        self.check_attributes(class, attributes)?;
        self.published_objects
            .entry(class)
            .or_default()
            .extend(attributes);
        self.update_interest();
        Ok(())
    }

    /// getKnownObjectClassHandle: the class an instance is known as here (registered as, or
    /// discovered as).
    pub fn known_object_class(&self, object: ObjectId) -> Option<ObjectClassHandle> {
        let instance = self.instances.get(object)?;
        if instance.kept {
            Some(instance.class)
        } else {
            instance.known
        }
    }

    /// The attributes of `class` this federate publishes.
    pub fn published_attributes(&self, class: ObjectClassHandle) -> Vec<AttributeHandle> {
        self.published_objects
            .get(&class)
            .map(|set| set.iter().copied().collect())
            .unwrap_or_default()
    }

    /// The attributes of `class` this federate subscribes to.
    pub fn subscribed_attributes(&self, class: ObjectClassHandle) -> Vec<AttributeHandle> {
        self.object_subscriptions
            .get(&class)
            .map(|s| s.attributes.iter().copied().collect())
            .unwrap_or_default()
    }

    pub fn unpublish_object_class(&mut self, class: ObjectClassHandle) {
        self.published_objects.remove(&class);
        self.update_interest();
    }

    pub fn subscribe_object_class_attributes(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        regions: &[Region],
    ) -> Result<(), FederateError> {
        self.check_attributes(class, attributes)?;
        for region in regions {
            self.layouts.object(class).validate(region)?;
        }
        self.regions.forget_object_subscription(class);
        self.object_subscriptions.insert(
            class,
            ObjectSubscription {
                attributes: attributes.iter().copied().collect(),
                regions: regions.to_vec(),
            },
        );
        self.update_interest();
        self.request_registrations(class);
        Ok(())
    }

    pub fn unsubscribe_object_class(&mut self, class: ObjectClassHandle) {
        self.regions.forget_object_subscription(class);
        self.object_subscriptions.remove(&class);
        self.update_interest();
    }

    pub fn publish_interaction_class(&mut self, class: InteractionClassHandle) {
        self.advisories_stale();
        self.published_interactions.insert(class);
    }

    pub fn unpublish_interaction_class(&mut self, class: InteractionClassHandle) {
        self.advisories_stale();
        self.published_interactions.remove(&class);
    }

    pub fn subscribe_interaction_class(
        &mut self,
        class: InteractionClassHandle,
        regions: &[Region],
    ) -> Result<(), FederateError> {
        for region in regions {
            self.layouts.interaction(class).validate(region)?;
        }
        self.regions.forget_interaction_subscription(class);
        self.interaction_subscriptions
            .insert(class, regions.to_vec());
        self.update_interest();
        Ok(())
    }

    pub fn unsubscribe_interaction_class(&mut self, class: InteractionClassHandle) {
        self.regions.forget_interaction_subscription(class);
        self.interaction_subscriptions.remove(&class);
        self.update_interest();
    }

    /// Recompute the ids this federate needs and ask for them if they changed. A
    /// subscription covers the class and its subclasses, in the cells of its regions
    /// (all cells and the registrations' cell without regions) and the wildcard cell; a
    /// publisher listens for update requests to its classes.
    fn update_interest(&mut self) {
        self.advisories_stale();
        let mut ids = RoaringBitmap::new();
        let cover = |ids: &mut RoaringBitmap,
                     layout: &region::CellLayout,
                     regions: &[Region],
                     id: &dyn Fn(u32) -> u32| {
            ids.insert(id(WILDCARD_CELL));
            if regions.is_empty() {
                let cells = layout.cell_count() as u32;
                ids.insert_range(id(0)..=id(cells - 1));
            } else {
                for region in regions {
                    ids.extend(layout.cells(region).into_iter().map(id));
                }
            }
        };
        for (&class, subscription) in &self.object_subscriptions {
            for d in self.model.object_descendants(class) {
                let layout = self.layouts.object(d);
                cover(&mut ids, layout, &subscription.regions, &|cell| {
                    self.layouts.object_id(d, cell)
                });
                if subscription.regions.is_empty() {
                    ids.insert(self.layouts.object_id(d, DISCOVERY_CELL));
                }
            }
        }
        for (&class, regions) in &self.interaction_subscriptions {
            for d in self.model.interaction_descendants(class) {
                let layout = self.layouts.interaction(d);
                cover(&mut ids, layout, regions, &|cell| {
                    self.layouts.interaction_id(d, cell)
                });
            }
        }
        for &class in self.published_objects.keys() {
            ids.insert(self.layouts.object_id(class, REQUEST_CELL));
        }
        if ids != self.interest {
            self.interest = ids.clone();
            self.actions.push_back(Action::SetInterest(ids));
        }
    }

    // ---- object management --------------------------------------------------------------

    /// A name the registry reserved for this federate.
    pub fn name_reserved(&mut self, name: &str) {
        self.reserved_names.insert(name.to_owned());
    }

    pub fn name_released(&mut self, name: &str) {
        self.reserved_names.remove(name);
    }

    /// Register an instance of a published class. No round trip: its id is this
    /// federate's handle and a local number. A name must have been reserved first.
    pub fn register_object_instance(
        &mut self,
        class: ObjectClassHandle,
        name: Option<&str>,
        time: u64,
    ) -> Result<ObjectId, FederateError> {
        if self
            .published_objects
            .get(&class)
            .is_none_or(BTreeSet::is_empty)
        {
            return Err(FederateError::ObjectClassNotPublished(
                self.class_name(class),
            ));
        }
        let object = ObjectId::new(self.handle, self.next_local);
        let name: Arc<str> = match name {
            Some(name) => {
                if !self.reserved_names.contains(name) {
                    return Err(FederateError::ObjectInstanceNameNotReserved(
                        name.to_owned(),
                    ));
                }
                if self.used_names.contains(name) {
                    return Err(FederateError::ObjectInstanceNameInUse(name.to_owned()));
                }
                Arc::from(name)
            }
            None => Arc::from(ownership::default_name(object)),
        };
        self.next_local += 1;
        self.used_names.insert(name.clone());
        self.announce_registration(object, class, &name, time);
        self.took_registration(object, class, name);
        self.advisories_stale();
        Ok(object)
    }

    /// Tell the subscribers of `class` (and its superclasses) without regions that `object`
    /// exists; those with regions discover it by its updates (`on_register`).
    fn announce_registration(
        &mut self,
        object: ObjectId,
        class: ObjectClassHandle,
        name: &str,
        time: u64,
    ) {
        let ids = vec![self.layouts.object_id(class, DISCOVERY_CELL)];
        let outgoing = Plain::Register { object, name };
        self.send(ids, TransportClass::Reliable, class.0, time, &[], outgoing);
    }

    /// Ask the owners of instances of `class` (and subclasses) to announce them again: a
    /// federate that subscribes after an instance was registered discovers it (IEEE
    /// 1516.1-2010 §6.9) without waiting for its next update. A class request with no
    /// attributes is this discovery request.
    fn request_registrations(&mut self, class: ObjectClassHandle) {
        let ids: Vec<u32> = self
            .model
            .object_descendants(class)
            .into_iter()
            .map(|d| self.layouts.object_id(d, REQUEST_CELL))
            .collect();
        let outgoing = Plain::Request {
            object: None,
            attributes: &[],
        };
        self.send(ids, TransportClass::Reliable, class.0, 0, &[], outgoing);
    }

    /// Encode into `buf`, an arena split per message: one allocation per 64 KiB of messages.
    fn encode<V: AsRef<[u8]>>(
        buf: &mut BytesMut,
        header: &Header<'_>,
        outgoing: &Outgoing<'_, V>,
    ) -> Bytes {
        let len = outgoing.encoded_len(header);
        if buf.capacity() < len {
            buf.reserve(len.max(64 << 10));
        }
        outgoing.encode(header, buf);
        buf.split().freeze()
    }

    fn send<V: AsRef<[u8]>>(
        &mut self,
        ids: Vec<u32>,
        class: TransportClass,
        fom_class: u32,
        time: u64,
        tag: &[u8],
        outgoing: Outgoing<'_, V>,
    ) {
        self.send_keyed(ids, class, fom_class, time, tag, outgoing, None)
    }

    /// [`Federate::send`] as a keep-latest frame with `latest`: never a time-stamped
    /// update (queues would reorder it), though a time-stamped removal keeps its key so
    /// caches forget the instance.
    #[allow(clippy::too_many_arguments)]
    fn send_keyed<V: AsRef<[u8]>>(
        &mut self,
        ids: Vec<u32>,
        class: TransportClass,
        fom_class: u32,
        time: u64,
        tag: &[u8],
        outgoing: Outgoing<'_, V>,
        latest: Option<LatestKey>,
    ) {
        let stamp = Stamping::of(self.sending_time_stamp, time, class, latest);
        let header = stamp.header(self.handle, fom_class, tag);
        let payload = Self::encode(&mut self.encode_buf, &header, &outgoing);
        self.actions.push_back(stamp.publish(ids, payload));
    }

    /// Trellis extension: mark `attributes` of instances registered as `class` (all its
    /// available attributes when empty) keep-latest, or not, for this federate's updates,
    /// over what the object model says.
    pub fn set_keep_latest(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        keep_latest: bool,
    ) -> Result<(), FederateError> {
        self.check_attributes(class, attributes)?;
        let all;
        let attributes = if attributes.is_empty() {
            all = self.model.available_attributes(class);
            &all
        } else {
            attributes
        };
        for &a in attributes {
            self.keep_latest.insert((class, a), keep_latest);
        }
        Ok(())
    }

    /// Whether updates of `attribute` of an instance registered as `class` are keep-latest.
    pub fn is_keep_latest(&self, class: ObjectClassHandle, attribute: AttributeHandle) -> bool {
        self.keep_latest
            .get(&(class, attribute))
            .copied()
            .unwrap_or_else(|| self.model.is_keep_latest(class, attribute))
    }

    /// Whether any update may be keep-latest: something is marked or switched on.
    fn may_keep_latest(&self) -> bool {
        self.model_keeps_latest || !self.keep_latest.is_empty()
    }

    fn class_keeps_latest(&self, class: ObjectClassHandle) -> bool {
        self.may_keep_latest()
            && self
                .model
                .available_attributes(class)
                .into_iter()
                .any(|a| self.is_keep_latest(class, a))
    }

    /// Send new values of owned attributes. Reliable and best-effort attributes travel
    /// apart unless `transport` overrides the object model for all of them.
    #[allow(clippy::too_many_arguments)] // the HLA service's arguments, plus region and transport
    pub fn update_attribute_values<V: AsRef<[u8]>>(
        &mut self,
        object: ObjectId,
        values: &[(AttributeHandle, V)],
        tag: &[u8],
        time: u64,
        region: Option<&Region>,
        transport: Option<TransportClass>,
    ) -> Result<(), FederateError> {
        // The one look-up of the instance: class, name and ownership are in its entry.
        let owned = self.instances.get(object).filter(|i| i.kept);
        let Some(owned) = owned else {
            return Err(self.not_kept(object, values.first().map(|(a, _)| *a)));
        };
        let class = owned.class;
        if values.len() > MAX_VALUES {
            return Err(FederateError::TooManyValues(values.len()));
        }
        let attributes = || values.iter().map(|(a, _)| a);
        self.check_attributes(class, attributes())?;
        if let Some(missing) = attributes().find(|a| !self.publishes(class, **a)) {
            return Err(FederateError::AttributeNotPublished {
                class: self.class_name(class),
                attribute: self.model.attribute(*missing).name.clone(),
            });
        }
        if let Some(a) = attributes().find(|a| !self.owned_by_me(owned, **a)) {
            return Err(self.not_kept(object, Some(*a)));
        }
        if let Some(region) = region {
            self.layouts.object(class).validate(region)?;
        }
        // Keep-latest attributes go in their own message, keyed by the instance with one
        // mask bit per attribute position (past 64 positions they cannot be keyed). The
        // positions are the instance attributes' (available ones, then an implicit
        // privilege that no update names).
        let keyed_bits: Vec<(u32, u64)> = if self.may_keep_latest() {
            let positions = self.instance_attributes(class);
            values
                .iter()
                .filter_map(|(a, _)| {
                    let position = positions.binary_search(a).ok()?;
                    (position < 64 && self.is_keep_latest(class, *a))
                        .then_some((a.0, 1u64 << position))
                })
                .collect()
        } else {
            Vec::new()
        };
        let transport_of = |a: AttributeHandle| {
            transport.unwrap_or(if self.model.attribute(a).transportation.reliable {
                TransportClass::Reliable
            } else {
                TransportClass::BestEffort
            })
        };
        let bit_of = |a: u32| keyed_bits.iter().find(|(h, _)| *h == a).map(|(_, b)| *b);
        // One message per transport, and the keep-latest attributes apart; most updates are
        // one message. The instance's name is borrowed, not copied: the encoding buffer and
        // the queue are other fields of the federate.
        let name = owned.name(object);
        let mut part: Vec<Value<'_>> = reuse_buffer(std::mem::take(&mut self.part_buffer));
        for transport in [TransportClass::Reliable, TransportClass::BestEffort] {
            for keyed in [false, true] {
                part.clear();
                part.extend(
                    values
                        .iter()
                        .map(|(a, v)| (a.0, v.as_ref()))
                        .filter(|(a, _)| {
                            transport_of(AttributeHandle(*a)) == transport
                                && bit_of(*a).is_some() == keyed
                        }),
                );
                if part.is_empty() {
                    continue;
                }
                let latest = keyed.then(|| LatestKey {
                    key: object.0,
                    attributes: part
                        .iter()
                        .filter_map(|(a, _)| bit_of(*a))
                        .fold(0, |mask, bit| mask | bit),
                });
                let stamp = Stamping::of(self.sending_time_stamp, time, transport, latest);
                let outgoing = Outgoing::Update {
                    object,
                    name: &name,
                    region,
                    values: &part,
                };
                let header = stamp.header(self.handle, class.0, tag);
                let payload = Self::encode(&mut self.encode_buf, &header, &outgoing);
                let mut ids = self.spare_ids.pop().unwrap_or_default();
                self.layouts.object_ids_into(class, region, &mut ids);
                self.actions.push_back(stamp.publish(ids, payload));
            }
        }
        self.part_buffer = reuse_buffer(part);
        self.stats.updates_sent += 1;
        Ok(())
    }

    pub fn delete_object_instance(
        &mut self,
        object: ObjectId,
        tag: &[u8],
        time: u64,
    ) -> Result<(), FederateError> {
        self.check_delete_privilege(object)?;
        let owned = self.forget_instance(object).filter(|i| i.kept);
        let Some(owned) = owned else {
            return Err(FederateError::ObjectInstanceNotKnown(object));
        };
        if let Some(name) = &owned.name {
            self.used_names.remove(name);
        }
        self.regions.forget_object(object);
        self.advisories_stale();
        let ids = self.layouts.object_ids(owned.class, None);
        // A keyed removal makes the routers' caches forget the instance's values.
        let latest = self.class_keeps_latest(owned.class).then_some(LatestKey {
            key: object.0,
            attributes: 0,
        });
        self.send_keyed(
            ids,
            TransportClass::Reliable,
            owned.class.0,
            time,
            tag,
            Plain::Delete { object },
            latest,
        );
        Ok(())
    }

    #[allow(clippy::too_many_arguments)] // the HLA service's arguments, plus region and transport
    pub fn send_interaction<V: AsRef<[u8]>>(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(ParameterHandle, V)],
        tag: &[u8],
        time: u64,
        region: Option<&Region>,
        transport: Option<TransportClass>,
    ) -> Result<(), FederateError> {
        let info = self.model.interaction_class(class);
        if !self.published_interactions.contains(&class) {
            return Err(FederateError::InteractionClassNotPublished(
                info.qualified_name.clone(),
            ));
        }
        if parameters.len() > MAX_VALUES {
            return Err(FederateError::TooManyValues(parameters.len()));
        }
        for (p, _) in parameters {
            let defined = (p.0 as usize) < self.model.counts().parameters
                && self
                    .model
                    .is_interaction_subclass(class, self.model.parameter(*p).class);
            if !defined {
                return Err(FederateError::InteractionParameterNotDefined {
                    class: info.qualified_name.clone(),
                    parameter: format!("#{}", p.0),
                });
            }
        }
        if let Some(region) = region {
            self.layouts.interaction(class).validate(region)?;
        }
        let transport = transport.unwrap_or(if info.transportation.reliable {
            TransportClass::Reliable
        } else {
            TransportClass::BestEffort
        });
        let ids = self.layouts.interaction_ids(class, region);
        let values: Vec<(u32, &[u8])> = parameters.iter().map(|(p, v)| (p.0, v.as_ref())).collect();
        self.send(
            ids,
            transport,
            class.0,
            time,
            tag,
            Outgoing::Interaction {
                region,
                values: &values,
            },
        );
        self.stats.interactions_sent += 1;
        Ok(())
    }

    /// Ask the owner of `object` for current values of `attributes`.
    pub fn request_object_attribute_value_update(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Result<(), FederateError> {
        let Some(class) = self.discovered_class(object) else {
            return Err(FederateError::ObjectInstanceNotKnown(object));
        };
        self.check_attributes(class, attributes)?;
        // The request goes to every class the instance might be registered as.
        let ids: Vec<u32> = self
            .model
            .object_descendants(class)
            .into_iter()
            .map(|d| self.layouts.object_id(d, REQUEST_CELL))
            .collect();
        let attributes: Vec<u32> = attributes.iter().map(|a| a.0).collect();
        let outgoing = Plain::Request {
            object: Some(object),
            attributes: &attributes,
        };
        self.send(ids, TransportClass::Reliable, class.0, 0, tag, outgoing);
        Ok(())
    }

    /// Ask the owners of every instance of `class` (and subclasses) for current values.
    pub fn request_class_attribute_value_update(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Result<(), FederateError> {
        self.check_attributes(class, attributes)?;
        let ids: Vec<u32> = self
            .model
            .object_descendants(class)
            .into_iter()
            .map(|d| self.layouts.object_id(d, REQUEST_CELL))
            .collect();
        let attributes: Vec<u32> = attributes.iter().map(|a| a.0).collect();
        let outgoing = Plain::Request {
            object: None,
            attributes: &attributes,
        };
        self.send(ids, TransportClass::Reliable, class.0, 0, tag, outgoing);
        Ok(())
    }

    // ---- what arrives -------------------------------------------------------------------

    /// A message for this federate's application arrived over `transport`.
    pub fn handle_message(&mut self, payload: &Bytes, transport: TransportClass) {
        self.handle_message_from(payload, transport, None)
    }

    /// [`Federate::handle_message`] for a keep-latest frame when `keyed` gives its source
    /// node and sequence number (see the module notes).
    pub fn handle_message_from(
        &mut self,
        payload: &Bytes,
        transport: TransportClass,
        keyed: Option<(NodeId, u64)>,
    ) {
        self.handle_message_at(payload, 0, transport, keyed)
    }

    /// A data frame for this federate's application arrived: its payload, with what a
    /// keep-latest frame's header says about its freshness. Decoded in the frame's own
    /// buffer: no handle on the payload alone is made per message.
    pub fn handle_data(&mut self, frame: &DataFrame) {
        let keyed = frame.latest().map(|_| (frame.source(), frame.seq()));
        let bytes = frame.as_bytes();
        let start = bytes.len() - frame.payload().len();
        self.handle_message_at(bytes, start, frame.class(), keyed)
    }

    /// [`Federate::handle_message_from`] for the message filling `bytes` from `start` on.
    fn handle_message_at(
        &mut self,
        bytes: &Bytes,
        start: usize,
        transport: TransportClass,
        keyed: Option<(NodeId, u64)>,
    ) {
        self.stats.messages += 1;
        let payload = &bytes[start..];
        match payload.first() {
            Some(&REGISTRY_EVENT_KIND) => return self.on_registry_payload(payload),
            Some(&TIME_MESSAGE_KIND) => return self.on_time_payload(payload),
            _ => {}
        }
        let Ok(message) = Message::decode_at(bytes, start) else {
            self.stats.malformed += 1;
            return;
        };
        let stamp = Stamp::of(&message);
        match message.body {
            Body::Register { object, name } => self.on_register(message.class, object, name),
            Body::Update {
                object,
                name,
                region,
                values,
            } => self.on_update(
                message.class,
                object,
                name,
                region,
                values,
                message.tag,
                stamp,
                transport,
                keyed,
            ),
            Body::Interaction { region, values } => {
                self.on_interaction(message.class, region, values, message.tag, stamp, transport)
            }
            Body::Delete { object } => {
                // The instance is forgotten on arrival; a time-stamped removal is still
                // handed over in time-stamp order.
                // The deleter held the privilege; what this federate kept goes too.
                if self.forget_discovered(object) {
                    let (sent_order, received_order) = self.orders(stamp);
                    self.deliver(
                        stamp,
                        Callback::RemoveObjectInstance {
                            object,
                            tag: message.tag,
                            time: message.time,
                            sender: message.sender,
                            sent_order,
                            received_order,
                        },
                    );
                }
            }
            Body::Request { object, attributes } => {
                self.on_request(message.class, object, attributes, message.tag)
            }
            Body::Ownership(body) => {
                self.on_ownership(message.sender, message.class, body, message.tag)
            }
        }
    }

    /// The subscribed class an instance registered as `class` is known as: the nearest
    /// subscribed class at or above it.
    fn known_class(&self, class: ObjectClassHandle) -> Option<ObjectClassHandle> {
        self.model
            .object_ancestry(class)
            .find(|c| self.object_subscriptions.contains_key(c))
    }

    fn on_register(&mut self, class: u32, object: ObjectId, name: String) {
        let Some(class) = self.model.object_class_checked(class) else {
            self.stats.malformed += 1;
            return;
        };
        let Some(known) = self.known_class(class) else {
            self.stats.over_delivered += 1;
            return;
        };
        if self.discovered_class(object).is_some() {
            return;
        }
        // A region-filtered subscriber discovers the instance on its first update in a
        // subscribed region instead.
        if self.object_subscriptions[&known].regions.is_empty() {
            self.discover(object, known, class, name);
        }
    }

    /// The class `object` was discovered as here, if it was: from the dense cache when it
    /// holds it (every reflect asks), else from the instance map, which is the truth.
    fn discovered_class(&self, object: ObjectId) -> Option<ObjectClassHandle> {
        let from_map = || self.instances.get(object).and_then(|i| i.known);
        let cached = self.known_classes.get(object).map(ObjectClassHandle);
        let class = cached.or_else(from_map);
        debug_assert_eq!(class, from_map(), "the cache agrees with the instance map");
        class
    }

    /// Forget `object` and the keep-latest values reflected of it. Whether it had been
    /// discovered here: its removal is then due to the application.
    fn forget_discovered(&mut self, object: ObjectId) -> bool {
        self.reflected.remove(&object);
        (self.forget_instance(object)).is_some_and(|i| i.known.is_some())
    }

    fn discover(
        &mut self,
        object: ObjectId,
        class: ObjectClassHandle,
        registered: ObjectClassHandle,
        name: String,
    ) {
        let stored = (!ownership::is_default_name(object, &name)).then(|| Arc::from(&*name));
        let instance = (self.instances).get_or_insert_with(object, || {
            ownership::Instance::discovered(registered, stored)
        });
        self.counts.known += usize::from(instance.known.is_none());
        instance.known = Some(class);
        // A class the slots refuse is read from the instance map.
        let _cached = self.known_classes.hold(object, class.0);
        self.stats.discoveries += 1;
        self.callbacks.push_back(Callback::DiscoverObjectInstance {
            object,
            class,
            name,
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn on_update(
        &mut self,
        class: u32,
        object: ObjectId,
        name: message::Text,
        region: Option<Region>,
        values: Vec<(u32, Bytes)>,
        tag: Bytes,
        stamp: Stamp,
        transport: TransportClass,
        keyed: Option<(NodeId, u64)>,
    ) {
        let Some(class) = self.model.object_class_checked(class) else {
            self.stats.malformed += 1;
            return;
        };
        let Some(known) = self.known_class(class) else {
            self.stats.over_delivered += 1;
            return;
        };
        // A cache may still hold values of a federate that left: they would discover a
        // ghost. Before the join's snapshot the members are not known, so nothing is kept
        // out.
        let joined = self.view.seq.is_some();
        if keyed.is_some() && joined && !self.view.federates.contains_key(&stamp.sender) {
            self.stats.departed_values += 1;
            return;
        }
        let subscription = &self.object_subscriptions[&known];
        let in_region = covers(&subscription.regions, region.as_ref());
        let attribute_count = self.model.counts().attributes;
        let values: Vec<(AttributeHandle, Bytes)> = values
            .into_iter()
            .filter(|(a, _)| {
                (*a as usize) < attribute_count
                    && subscription.attributes.contains(&AttributeHandle(*a))
                    && (self.regions).attribute_takes(known, AttributeHandle(*a), region.as_ref())
            })
            .map(|(a, v)| (AttributeHandle(a), v))
            .collect();
        if !in_region || values.is_empty() {
            self.stats.over_delivered += 1;
            return;
        }
        let values = match keyed {
            Some((node, seq)) => {
                let newest = self.reflected.get(&object);
                let older = |a: &AttributeHandle| {
                    newest
                        .and_then(|n| n.get(a))
                        .is_some_and(|&(from, at)| from == node && at >= seq)
                };
                let before = values.len();
                let fresh: Vec<(AttributeHandle, Bytes)> =
                    values.into_iter().filter(|(a, _)| !older(a)).collect();
                self.stats.stale_values += (before - fresh.len()) as u64;
                if fresh.is_empty() {
                    return;
                }
                let newest = self.reflected.entry(object).or_default();
                for (a, _) in &fresh {
                    newest.insert(*a, (node, seq));
                }
                fresh
            }
            None => values,
        };
        let class = match self.discovered_class(object) {
            Some(class) => class,
            None => {
                self.discover(object, known, class, name.into());
                known
            }
        };
        self.stats.reflections += 1;
        let (sent_order, received_order) = self.orders(stamp);
        let callback = Callback::ReflectAttributeValues {
            object,
            class,
            values,
            tag,
            time: stamp.time,
            sender: stamp.sender,
            transport,
            region,
            sent_order,
            received_order,
        };
        self.deliver(stamp, callback);
    }

    #[allow(clippy::too_many_arguments)]
    fn on_interaction(
        &mut self,
        class: u32,
        region: Option<Region>,
        values: Vec<(u32, Bytes)>,
        tag: Bytes,
        stamp: Stamp,
        transport: TransportClass,
    ) {
        let Some(class) = self.model.interaction_class_checked(class) else {
            self.stats.malformed += 1;
            return;
        };
        let Some(known) = self
            .model
            .interaction_ancestry(class)
            .find(|c| self.interaction_subscriptions.contains_key(c))
        else {
            self.stats.over_delivered += 1;
            return;
        };
        let regions = &self.interaction_subscriptions[&known];
        let in_region = covers(regions, region.as_ref());
        if !in_region {
            self.stats.over_delivered += 1;
            return;
        }
        // Presented as the subscribed class: parameters only a subclass has are dropped.
        let available = self.model.available_parameters(known);
        let parameters = values
            .into_iter()
            .filter(|(p, _)| available.binary_search(&ParameterHandle(*p)).is_ok())
            .map(|(p, v)| (ParameterHandle(p), v))
            .collect();
        self.stats.interactions += 1;
        let (sent_order, received_order) = self.orders(stamp);
        let callback = Callback::ReceiveInteraction {
            class: known,
            parameters,
            tag,
            time: stamp.time,
            sender: stamp.sender,
            transport,
            region,
            sent_order,
            received_order,
        };
        self.deliver(stamp, callback);
    }

    fn on_request(
        &mut self,
        class: u32,
        object: Option<ObjectId>,
        attributes: Vec<u32>,
        tag: Bytes,
    ) {
        let Some(requested) = self.model.object_class_checked(class) else {
            self.stats.malformed += 1;
            return;
        };
        let targets: Vec<(ObjectId, ObjectClassHandle)> = match object {
            Some(object) => (self.instances.get(object))
                .filter(|o| o.kept)
                .map(|o| (object, o.class))
                .into_iter()
                .collect(),
            None => (self.instances.iter())
                .filter(|(_, o)| o.kept && self.model.is_object_subclass(o.class, requested))
                .map(|(id, o)| (id, o.class))
                .collect(),
        };
        if object.is_none() && attributes.is_empty() {
            for (object, class) in targets {
                let name = self.instances[object].name(object).into_owned();
                self.announce_registration(object, class, &name, 0);
            }
            return;
        }
        for (object, _) in targets {
            let attributes: Vec<AttributeHandle> = attributes
                .iter()
                .map(|&a| AttributeHandle(a))
                .filter(|a| self.owns(object, *a))
                .collect();
            if !attributes.is_empty() {
                self.callbacks
                    .push_back(Callback::ProvideAttributeValueUpdate {
                        object,
                        attributes,
                        tag: tag.clone(),
                    });
            }
        }
    }

    /// (sent, received) order of a message: time-stamp order is kept only by a constrained
    /// federate; to anyone else a time-stamped message arrives in receive order.
    fn orders(&self, stamp: Stamp) -> (Order, Order) {
        match (stamp.time_stamped, self.time.is_constrained()) {
            (false, _) => (Order::Receive, Order::Receive),
            (true, false) => (Order::TimeStamp, Order::Receive),
            (true, true) => (Order::TimeStamp, Order::TimeStamp),
        }
    }

    /// Hand a callback to the application now, or to time management to hold until its
    /// time stamp is granted.
    fn deliver(&mut self, stamp: Stamp, callback: Callback) {
        if stamp.time_stamped && self.time.is_constrained() {
            self.time
                .on_time_stamped(LogicalTime::from_key(stamp.time), callback);
            self.drain_time();
        } else {
            self.callbacks.push_back(callback);
        }
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

/// Who sent a message, with which time stamp, and whether in time-stamp order.
#[derive(Copy, Clone)]
struct Stamp {
    sender: u32,
    time: u64,
    time_stamped: bool,
}

impl Stamp {
    fn of(message: &Message) -> Stamp {
        Stamp {
            sender: message.sender,
            time: message.time,
            time_stamped: message.time_stamped,
        }
    }
}

/// An empty vector with `buffer`'s allocation, for elements of another type of the same
/// size and alignment (collecting in place keeps the allocation): scratch space kept
/// across calls for elements that borrow from one call.
fn reuse_buffer<T, U>(mut buffer: Vec<T>) -> Vec<U> {
    buffer.clear();
    buffer.into_iter().map(|_| unreachable!()).collect()
}

/// Whether a subscription in `regions` (none: the whole space) takes something sent in
/// `region` (none: the default region, which overlaps everything).
fn covers(regions: &[Region], region: Option<&Region>) -> bool {
    match region {
        None => true,
        Some(r) => regions.is_empty() || regions.iter().any(|s| s.overlaps(r)),
    }
}

/// How a message goes out: a time-stamped message always travels reliably (a lost one
/// would leave a hole in time-stamp order, and a best-effort one could overtake its
/// sender's bound), and keeps a keep-latest key only to remove an instance (queues would
/// reorder a keyed update).
struct Stamping {
    time: u64,
    time_stamped: bool,
    class: TransportClass,
    latest: Option<LatestKey>,
}

impl Stamping {
    fn of(
        sending: Option<LogicalTime>,
        time: u64,
        class: TransportClass,
        latest: Option<LatestKey>,
    ) -> Stamping {
        let (time, time_stamped, class) = match sending {
            Some(stamp) => (stamp.key(), true, TransportClass::Reliable),
            None => (time, false, class),
        };
        let latest = latest.filter(|l| !time_stamped || l.is_removal());
        Stamping {
            time,
            time_stamped,
            class,
            latest,
        }
    }

    fn header<'a>(&self, sender: u32, fom_class: u32, tag: &'a [u8]) -> Header<'a> {
        Header {
            sender,
            class: fom_class,
            time: self.time,
            time_stamped: self.time_stamped,
            tag,
        }
    }

    fn publish(self, ids: Vec<u32>, payload: Bytes) -> Action {
        Action::Publish {
            ids,
            class: self.class,
            payload,
            latest: self.latest,
        }
    }
}

#[cfg(test)]
mod tests;
