//! What arrives for the federate's application: registry and time messages, and data
//! messages decoded and checked exactly (region overlap, subscribed attributes, keep-latest
//! freshness) before they become callbacks, at once or when time management grants them.

use super::instance_name::is_default_name;
use super::message::{self, Body, Message};
use super::retraction::MessageRetractionHandle;
use super::time::TIME_MESSAGE_KIND;
use super::{covers, ownership, Callback, Federate, InstanceName, LogicalTime, ObjectId, Region};
use crate::fom::{AttributeHandle, ObjectClassHandle, Order, ParameterHandle};
use crate::registry::REGISTRY_EVENT_KIND;
use crate::wire::{DataFrame, NodeId, TransportClass};
use bytes::Bytes;
use std::sync::Arc;

impl Federate {
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
        self.handle_message_at(payload.clone(), 0, transport, keyed)
    }

    /// A data frame for this federate's application arrived: its payload, with what a
    /// keep-latest frame's header says about its freshness. Decoded in the frame's own
    /// buffer, which the frame gives up: no handle on the payload alone is made per
    /// message, and the last value keeps the frame's.
    pub fn handle_data(&mut self, frame: DataFrame) {
        let keyed = frame.latest().map(|_| (frame.source(), frame.seq()));
        let class = frame.class();
        let start = frame.as_bytes().len() - frame.payload().len();
        self.handle_message_at(frame.into_bytes(), start, class, keyed)
    }

    /// [`Federate::handle_message_from`] for the message filling `bytes` from `start` on.
    fn handle_message_at(
        &mut self,
        bytes: Bytes,
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
        let spare = self.spare_values.pop().unwrap_or_default();
        let Ok(message) = Message::decode_into(bytes, start, spare) else {
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
                            retraction: stamp.retraction(),
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

    fn on_register(&mut self, class: u32, object: ObjectId, name: Option<message::Text>) {
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
            self.discover(
                object,
                known,
                class,
                name.as_ref().map(message::Text::as_str),
            );
        }
    }

    /// The class `object` was discovered as here, if it was: from the dense cache when it
    /// holds it (every reflect asks), else from the instance map, which is the truth.
    pub(super) fn discovered_class(&self, object: ObjectId) -> Option<ObjectClassHandle> {
        let from_map = || self.instances.get(object).and_then(|i| i.known);
        let cached = self.known_classes.get(object).map(ObjectClassHandle);
        let class = cached.or_else(from_map);
        debug_assert_eq!(class, from_map(), "the cache agrees with the instance map");
        class
    }

    /// Forget `object` and the keep-latest values reflected of it. Whether it had been
    /// discovered here: its removal is then due to the application.
    pub(super) fn forget_discovered(&mut self, object: ObjectId) -> bool {
        self.reflected.remove(&object);
        (self.forget_instance(object)).is_some_and(|i| i.known.is_some())
    }

    /// `given`: the name the message carried (`None`: the id's default).
    fn discover(
        &mut self,
        object: ObjectId,
        class: ObjectClassHandle,
        registered: ObjectClassHandle,
        given: Option<&str>,
    ) {
        let named = &mut self.named_instances;
        let instance = (self.instances).get_or_insert_with(object, || {
            let stored: Option<Arc<str>> =
                given.filter(|n| !is_default_name(object, n)).map(Arc::from);
            if let Some(name) = &stored {
                named.insert(name.clone(), object);
            }
            ownership::Instance::discovered(registered, stored)
        });
        // The instance and the callback share one string, if any.
        let name = InstanceName::of(object, instance.name.as_ref());
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
        self.scope_stale(object);
    }

    #[allow(clippy::too_many_arguments)]
    fn on_update(
        &mut self,
        class: u32,
        object: ObjectId,
        name: Option<message::Text>,
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
        let Some(values) = self.subscribed_values(known, object, values, region.as_ref()) else {
            return;
        };
        let values = match keyed {
            Some(key) => match self.fresh_values(object, values, key) {
                Some(fresh) => fresh,
                None => return,
            },
            None => values,
        };
        self.mom_count_reflection(class, transport);
        let class = match self.discovered_class(object) {
            Some(class) => class,
            None => {
                self.discover(
                    object,
                    known,
                    class,
                    name.as_ref().map(message::Text::as_str),
                );
                known
            }
        };
        self.stats.reflections += 1;
        let (sent_order, received_order) = self.orders(stamp);
        let region = self.boxed(region);
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
            retraction: stamp.retraction(),
        };
        // Update rates thin receive-order reflections only (`update_rate`).
        let time_stamped = stamp.time_stamped && self.time.is_constrained();
        if !time_stamped && !self.update_rates_empty() {
            if let Some(callback) = self.thin_reflection(object, class, callback) {
                self.deliver_receive_order(callback);
            }
            return;
        }
        self.deliver(stamp, callback);
    }

    /// A callback's region, in a box handed back with an earlier callback when there is one.
    fn boxed(&mut self, region: Option<Region>) -> Option<Box<Region>> {
        let region = region?;
        Some(match self.spare_regions.pop() {
            Some(mut spare) => {
                *spare = region;
                spare
            }
            None => Box::new(region),
        })
    }

    /// The values of an update that the subscription to `known` takes (its attributes, in
    /// its regions); `None`, counted as over-delivered, when it takes none. Where the sender
    /// updates is noted for the scope advisory either way.
    fn subscribed_values(
        &mut self,
        known: ObjectClassHandle,
        object: ObjectId,
        values: Vec<(u32, Bytes)>,
        region: Option<&Region>,
    ) -> Option<Vec<(AttributeHandle, Bytes)>> {
        let attribute_count = self.model.counts().attributes;
        let carried: Vec<u32> = if self.attribute_scope_advisory_switch() {
            (values.iter().map(|(a, _)| *a))
                .filter(|a| (*a as usize) < attribute_count)
                .collect()
        } else {
            Vec::new()
        };
        let subscription = &self.object_subscriptions[&known];
        let in_region = covers(&subscription.regions, region);
        let values: Vec<(AttributeHandle, Bytes)> = values
            .into_iter()
            .filter(|(a, _)| {
                (*a as usize) < attribute_count
                    && subscription.attributes.contains(&AttributeHandle(*a))
                    && (self.regions).attribute_takes(known, AttributeHandle(*a), region)
            })
            .map(|(a, v)| (AttributeHandle(a), v))
            .collect();
        let taken = in_region && !values.is_empty();
        if taken || self.discovered_class(object).is_some() {
            // Where the sender updates them now, for the scope advisory: outside every
            // subscribed region takes a known instance's attributes out of scope.
            let carried = carried.iter().map(|a| AttributeHandle(*a));
            self.scope_heard_update(object, carried, region);
        }
        if !taken {
            self.stats.over_delivered += 1;
            return None;
        }
        Some(values)
    }

    /// The values of a keep-latest frame from `(node, seq)` newer than those reflected
    /// already (a router's cache may hand an older copy after a newer one); `None` when none
    /// is. The stale ones are counted.
    fn fresh_values(
        &mut self,
        object: ObjectId,
        values: Vec<(AttributeHandle, Bytes)>,
        (node, seq): (NodeId, u64),
    ) -> Option<Vec<(AttributeHandle, Bytes)>> {
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
            return None;
        }
        let newest = self.reflected.entry(object).or_default();
        for (a, _) in &fresh {
            newest.insert(*a, (node, seq));
        }
        Some(fresh)
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
        self.mom_on_interaction(class, &values);
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
        let model = &self.model;
        let parameters = values
            .into_iter()
            .filter(|(p, _)| model.has_parameter(known, ParameterHandle(*p)))
            .map(|(p, v)| (ParameterHandle(p), v))
            .collect();
        self.stats.interactions += 1;
        self.mom_count_interaction(class, transport, false);
        let (sent_order, received_order) = self.orders(stamp);
        let region = self.boxed(region);
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
            retraction: stamp.retraction(),
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
        self.mom_on_request(requested, object, &attributes, 0);
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
                let name = self.instances[object].name.clone();
                self.announce_registration(object, class, name.as_deref(), 0);
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
            self.note_delivered(&callback);
            self.deliver_receive_order(callback);
        }
    }
}

/// Who sent a message, with which time stamp, and whether in time-stamp order.
#[derive(Copy, Clone)]
struct Stamp {
    sender: u32,
    time: u64,
    time_stamped: bool,
    serial: Option<u32>,
}

impl Stamp {
    fn of(message: &Message) -> Stamp {
        Stamp {
            sender: message.sender,
            time: message.time,
            time_stamped: message.time_stamped,
            serial: message.serial.filter(|_| message.time_stamped),
        }
    }

    /// The message's retraction handle, when it was sent in time-stamp order with one.
    fn retraction(self) -> Option<MessageRetractionHandle> {
        self.serial.map(|serial| MessageRetractionHandle {
            federate: self.sender,
            serial,
        })
    }
}
