//! Object management (IEEE 1516.1-2010 §6): instance names, registration and its
//! announcement, updates, deletions, interactions and update requests.

use super::layout::{DISCOVERY_CELL, REQUEST_CELL};
use super::message::{check_tag, Outgoing, MAX_VALUES};
use super::send::Stamping;
use super::{
    preferences, Action, Callback, Federate, FederateError, InstanceName, ObjectId, Plain, Region,
    Value,
};
use crate::fom::{AttributeHandle, InteractionClassHandle, ObjectClassHandle, ParameterHandle};
use crate::wire::{LatestKey, TransportClass};
use std::collections::BTreeSet;
use std::sync::Arc;

impl Federate {
    /// Whether an application may reserve `name`: the RTI's own names begin "HLA", and
    /// updates carry the default ones (`HLAobject_F_N`) as a mark, not as text, so a
    /// reserved name must never equal one.
    pub fn check_reservable_name(name: &str) -> Result<(), FederateError> {
        if name.is_empty() || name.starts_with("HLA") {
            return Err(FederateError::IllegalName(name.to_owned()));
        }
        Ok(())
    }

    /// A name the registry reserved for this federate.
    pub fn name_reserved(&mut self, name: &str) {
        self.reserved_names.insert(name.to_owned());
    }

    /// The registry's answer to reserveObjectInstanceName: the name is this federate's
    /// (`reserved`) or another's; the answer is queued as the standard's callback.
    pub fn name_reservation_answered(&mut self, name: &str, reserved: bool) {
        let answer = if reserved {
            self.name_reserved(name);
            let name = name.to_owned();
            Callback::ObjectInstanceNameReservationSucceeded { name }
        } else {
            let name = name.to_owned();
            Callback::ObjectInstanceNameReservationFailed { name }
        };
        self.callbacks.push_back(answer);
    }

    /// The answer to reserveMultipleObjectInstanceName, all or none: the names are this
    /// federate's (`reserved`), or none of them is (the caller released any the registry
    /// had reserved before one was refused).
    pub fn names_reservation_answered(&mut self, names: Vec<String>, reserved: bool) {
        let answer = if reserved {
            for name in &names {
                self.name_reserved(name);
            }
            Callback::MultipleObjectInstanceNameReservationSucceeded { names }
        } else {
            Callback::MultipleObjectInstanceNameReservationFailed { names }
        };
        self.callbacks.push_back(answer);
    }

    /// releaseObjectInstanceName's check (IEEE 1516.1-2010 §6.5, §6.7): every name must be
    /// reserved by this federate (ObjectInstanceNameNotReserved names the first that is not).
    pub fn check_names_reserved<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), FederateError> {
        match names
            .into_iter()
            .find(|n| !self.reserved_names.contains(*n))
        {
            Some(name) => Err(FederateError::ObjectInstanceNameNotReserved(
                name.to_owned(),
            )),
            None => Ok(()),
        }
    }

    /// releaseObjectInstanceName done: `name` is no longer reserved by this federate.
    pub fn name_released(&mut self, name: &str) {
        self.reserved_names.remove(name);
    }

    /// getObjectInstanceName (IEEE 1516.1-2010 §10.10): the name of an instance this
    /// federate registered or discovered. ObjectInstanceNotKnown otherwise.
    pub fn object_instance_name(&self, object: ObjectId) -> Result<InstanceName, FederateError> {
        let instance =
            (self.instances.get(object)).ok_or(FederateError::ObjectInstanceNotKnown(object))?;
        Ok(InstanceName::of(object, instance.name.as_ref()))
    }

    /// getObjectInstanceHandle (§10.9): the instance this federate registered or
    /// discovered under `name`, its given name or its id's default one (`HLAobject_F_N`).
    pub fn object_instance_handle(&self, name: &str) -> Result<ObjectId, FederateError> {
        let not_known = || FederateError::ObjectInstanceNameNotKnown(name.to_owned());
        if let Some(&object) = self.named_instances.get(name) {
            return Ok(object);
        }
        let object = InstanceName::default_id(name).ok_or_else(not_known)?;
        // A default name answers only for a known instance that has no other.
        match self.object_instance_name(object) {
            Ok(InstanceName::Default(_)) => Ok(object),
            _ => Err(not_known()),
        }
    }

    /// registerObjectInstance: register an instance of a published class. No round trip: its id
    /// is this federate's handle and a local number. A name must have been reserved first.
    /// `time` is the sender's clock in nanoseconds, carried in the message header.
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
        // A default name is not stored: it follows from the id.
        let name: Option<Arc<str>> = match name {
            Some(name) => {
                if !self.reserved_names.contains(name) {
                    return Err(FederateError::ObjectInstanceNameNotReserved(
                        name.to_owned(),
                    ));
                }
                if self.used_names.contains(name) {
                    return Err(FederateError::ObjectInstanceNameInUse(name.to_owned()));
                }
                Some(Arc::from(name))
            }
            None => None,
        };
        self.next_local += 1;
        if let Some(name) = &name {
            self.used_names.insert(name.clone());
        }
        self.announce_registration(object, class, name.as_deref(), time);
        self.took_registration(object, class, name);
        self.advisories_stale();
        Ok(object)
    }

    /// Tell the subscribers of `class` (and its superclasses) without regions that `object`
    /// exists; those with regions discover it by its updates (`on_register`). `name`:
    /// `None` for the default.
    pub(super) fn announce_registration(
        &mut self,
        object: ObjectId,
        class: ObjectClassHandle,
        name: Option<&str>,
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
    pub(super) fn request_registrations(&mut self, class: ObjectClassHandle) {
        let ids: Vec<u32> = self
            .model
            .object_descendants(class)
            .into_iter()
            .map(|d| self.layouts.object_id(d, REQUEST_CELL))
            .collect();
        self.send_registration_request(class, ids);
    }

    /// Ask the publishers of exactly `class` (not its subclasses') to announce their
    /// instances of it again (`rediscovery.rs`).
    pub(super) fn request_registrations_of(&mut self, class: ObjectClassHandle) {
        let ids = vec![self.layouts.object_id(class, REQUEST_CELL)];
        self.send_registration_request(class, ids);
    }

    fn send_registration_request(&mut self, class: ObjectClassHandle, ids: Vec<u32>) {
        let outgoing = Plain::Request {
            object: None,
            attributes: &[],
        };
        self.send(ids, TransportClass::Reliable, class.0, 0, &[], outgoing);
        // The network does not loop the request back: this federate's own MOM answers.
        self.mom_on_request(class, None, &[], 0);
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
        self.check_update(object, owned, values, region, tag)?;
        let keyed_bits = self.keep_latest_bits(class, values.iter().map(|(a, _)| *a));
        // The caller's override, else the federate's change (requestAttributeTransportation
        // TypeChange), else the object model's.
        let changed = self.preferences.attribute_transports(object);
        let transport_of = |a: AttributeHandle| {
            transport.unwrap_or_else(|| {
                (changed.and_then(|c| c.get(&a).copied())).unwrap_or_else(|| {
                    preferences::model_transport(self.model.attribute(a).transportation.reliable)
                })
            })
        };
        let (split_order, orders) = self.update_orders(object);
        let preferences = &self.preferences;
        let prefers_receive =
            |a: u32| preferences.attribute_prefers_receive(object, AttributeHandle(a));
        // One message per transport, and the keep-latest attributes apart; most updates are
        // one message. The instance's name is borrowed, not copied: the encoding buffer and
        // the queue are other fields of the federate.
        let name = owned.name.as_deref();
        let mut part: Vec<Value<'_>> = reuse_buffer(std::mem::take(&mut self.part_buffer));
        let mut sent_on = [false; 2];
        for (t, &transport) in super::mom::TRANSPORTS.iter().enumerate() {
            for (keyed, &receive_ordered) in [false, true]
                .into_iter()
                .flat_map(|k| orders.iter().map(move |o| (k, o)))
            {
                part.clear();
                part.extend(
                    values
                        .iter()
                        .map(|(a, v)| (a.0, v.as_ref()))
                        .filter(|(a, _)| {
                            transport_of(AttributeHandle(*a)) == transport
                                && bit_of(&keyed_bits, *a).is_some() == keyed
                                && (!split_order || prefers_receive(*a) == receive_ordered)
                        }),
                );
                if part.is_empty() {
                    continue;
                }
                sent_on[t] = true;
                let latest = keyed.then(|| latest_key(object, &part, &keyed_bits));
                let sending = (!receive_ordered).then_some(self.sending_time_stamp);
                let stamp = Stamping::of(
                    sending.flatten(),
                    self.sending_serial,
                    time,
                    transport,
                    latest,
                );
                let outgoing = Outgoing::Update {
                    object,
                    name,
                    region,
                    values: &part,
                };
                let header = stamp.header(self.handle, class.0, tag);
                let mut ids = self.spare_ids.pop().unwrap_or_default();
                self.layouts.object_ids_into(class, region, &mut ids);
                let frame = Self::encode(&mut self.encode_buf, &stamp, &ids, &header, &outgoing);
                // The ids are in the frame: the list serves the next update.
                super::send::keep_id_list(&mut self.spare_ids, ids);
                self.actions.push_back(Action::PublishFrame(frame));
            }
        }
        self.part_buffer = reuse_buffer(part);
        self.stats.updates_sent += 1;
        self.mom_count_update(class, sent_on);
        Ok(())
    }

    /// updateAttributeValues' checks: at most `MAX_VALUES` values, of attributes of the
    /// instance's class that this federate publishes and owns, a region of the class's
    /// routing space, and a tag one message carries.
    fn check_update<V>(
        &self,
        object: ObjectId,
        owned: &super::ownership::Instance,
        values: &[(AttributeHandle, V)],
        region: Option<&Region>,
        tag: &[u8],
    ) -> Result<(), FederateError> {
        let class = owned.class;
        if values.len() > MAX_VALUES {
            return Err(FederateError::TooManyValues(values.len()));
        }
        check_tag(tag)?;
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
        Ok(())
    }

    /// Whether an update of `object` goes out as one message per order, and the orders
    /// (receive order or not) of its messages: a time-stamped update whose attributes prefer
    /// different orders is split (`preferences`); the others never look.
    fn update_orders(&self, object: ObjectId) -> (bool, &'static [bool]) {
        let split = self.sending_time_stamp.is_some()
            && self.preferences.any_attribute_prefers_receive(object);
        (split, if split { &[false, true] } else { &[false] })
    }

    /// Keep-latest attributes go in their own message, keyed by the instance with one mask
    /// bit per attribute position (past 64 positions they cannot be keyed): the bit of each
    /// keep-latest attribute updated. The positions are the instance attributes' (available
    /// ones, then an implicit privilege that no update names).
    fn keep_latest_bits(
        &self,
        class: ObjectClassHandle,
        attributes: impl Iterator<Item = AttributeHandle>,
    ) -> Vec<(u32, u64)> {
        if !self.may_keep_latest() {
            return Vec::new();
        }
        let positions = self.instance_attributes(class);
        attributes
            .filter_map(|a| {
                let position = positions.binary_search(&a).ok()?;
                (position < 64 && self.is_keep_latest(class, a)).then_some((a.0, 1u64 << position))
            })
            .collect()
    }

    /// deleteObjectInstance: needs the privilege to delete; subscribers get removeObjectInstance.
    pub fn delete_object_instance(
        &mut self,
        object: ObjectId,
        tag: &[u8],
        time: u64,
    ) -> Result<(), FederateError> {
        check_tag(tag)?;
        self.check_delete_privilege(object)?;
        let owned = self.forget_instance(object).filter(|i| i.kept);
        let Some(owned) = owned else {
            return Err(FederateError::ObjectInstanceNotKnown(object));
        };
        if let Some(name) = &owned.name {
            self.used_names.remove(name);
        }
        self.regions.forget_object(object);
        self.preferences.forget_object(object);
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

    /// sendInteraction of a published class, optionally in `region` (DDM) and with a transport
    /// other than the class's own; `time` is the sender's clock in nanoseconds.
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
        check_tag(tag)?;
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
            if !self.model.has_parameter(class, *p) {
                return Err(FederateError::InteractionParameterNotDefined {
                    class: info.qualified_name.clone(),
                    parameter: format!("#{}", p.0),
                });
            }
        }
        if let Some(region) = region {
            self.layouts.interaction(class).validate(region)?;
        }
        let transport = transport
            .or_else(|| self.preferences.interaction_transport(class))
            .unwrap_or_else(|| preferences::model_transport(info.transportation.reliable));
        // The id list and the list of values are kept from earlier messages, as an update's.
        let mut ids = self.spare_ids.pop().unwrap_or_default();
        self.layouts.interaction_ids_into(class, region, &mut ids);
        let mut values: Vec<Value<'_>> = reuse_buffer(std::mem::take(&mut self.part_buffer));
        values.extend(parameters.iter().map(|(p, v)| (p.0, v.as_ref())));
        let outgoing = Outgoing::Interaction {
            region,
            values: &values,
        };
        self.send(ids, transport, class.0, time, tag, outgoing);
        self.part_buffer = reuse_buffer(values);
        self.stats.interactions_sent += 1;
        self.mom_count_interaction(class, transport, true);
        // A control interaction naming this federate itself is answered here: the network
        // does not loop it back.
        self.mom_on_sent_interaction(class, parameters);
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
        self.check_update_request(class, attributes, tag)?;
        self.send_update_request(class, Some(object), attributes, tag);
        Ok(())
    }

    /// Ask the owners of every instance of `class` (and subclasses) for current values.
    pub fn request_class_attribute_value_update(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Result<(), FederateError> {
        self.check_update_request(class, attributes, tag)?;
        self.send_update_request(class, None, attributes, tag);
        Ok(())
    }

    /// An update request names attributes of the class, at most as many as one message
    /// carries, with a tag one message carries.
    fn check_update_request(
        &self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Result<(), FederateError> {
        if attributes.len() > MAX_VALUES {
            return Err(FederateError::TooManyValues(attributes.len()));
        }
        check_tag(tag)?;
        self.check_attributes(class, attributes)
    }

    /// An update request for `object` (`None`: every instance) of `class`, sent to every
    /// class an instance might be registered as: `class` and its descendants.
    fn send_update_request(
        &mut self,
        class: ObjectClassHandle,
        object: Option<ObjectId>,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) {
        let ids: Vec<u32> = self
            .model
            .object_descendants(class)
            .into_iter()
            .map(|d| self.layouts.object_id(d, REQUEST_CELL))
            .collect();
        let attributes: Vec<u32> = attributes.iter().map(|a| a.0).collect();
        let outgoing = Plain::Request {
            object,
            attributes: &attributes,
        };
        self.send(ids, TransportClass::Reliable, class.0, 0, tag, outgoing);
        self.mom_on_request(class, object, &attributes, 0);
    }
}

/// An empty vector with `buffer`'s allocation, for elements of another type of the same
/// size and alignment (collecting in place keeps the allocation): scratch space kept
/// across calls for elements that borrow from one call.
fn reuse_buffer<T, U>(mut buffer: Vec<T>) -> Vec<U> {
    buffer.clear();
    buffer.into_iter().map(|_| unreachable!()).collect()
}

/// The keep-latest bit of attribute `a` among an update's `keyed_bits`, if it has one.
fn bit_of(keyed_bits: &[(u32, u64)], a: u32) -> Option<u64> {
    keyed_bits.iter().find(|(h, _)| *h == a).map(|(_, b)| *b)
}

/// The keep-latest key of one message of an update: the instance, and the mask of the bits
/// of the attributes the message carries.
fn latest_key(object: ObjectId, part: &[Value<'_>], keyed_bits: &[(u32, u64)]) -> LatestKey {
    LatestKey {
        key: object.0,
        attributes: (part.iter())
            .filter_map(|(a, _)| bit_of(keyed_bits, *a))
            .fold(0, |mask, bit| mask | bit),
    }
}
