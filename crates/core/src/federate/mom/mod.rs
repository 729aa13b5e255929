//! The Management Object Model (IEEE 1516.1-2010 §11): the RTI's own objects and
//! interactions in the standard MIM's `HLAmanager` classes, which federation managers,
//! loggers and monitors read.
//!
//! **Who speaks for what.** There is no central RTI process that could own the MOM's
//! objects, so each federate's local RTI component speaks for its own federate: it owns the
//! `HLAmanager.HLAfederate` instance describing it (id `ObjectId::new(handle, 0)`: local
//! number 0 is never a registered instance's) and answers the `HLAmanager.HLAfederate`
//! interactions addressed to it. The `HLAmanager.HLAfederation` instance (id
//! `ObjectId::new(0, 1)`: federate handle 0 is nobody's) is spoken for by the member with
//! the lowest handle, whom every member knows from the registry's ordered events, so
//! exactly one answers.
//!
//! **Not a hot spot.** MOM objects travel as ordinary registrations and updates, routed by
//! interest: nothing is sent until someone subscribes (discovery) or asks (update requests,
//! `HLArequest…`), and periodic updates (`HLAadjust.HLAsetTiming`) only while a subscriber's
//! interest reaches this federate's node. A federate costs its MOM two request ids and
//! the control interactions' ids in its interest.
//!
//! **Seen by itself too.** The network never loops a federate's messages back, yet a
//! federate subscribing to `HLAmanager.HLAfederate` must discover every federate's instance,
//! its own included. So what the MOM sends is also handed to this federate's own receive
//! path, exactly as a remote federate would receive it.
//!
//! **When a federate leaves**, every member removes its `HLAfederate` instance on the
//! registry's `FederateLeft` (resigned or died alike), so no departed federate lingers.

mod control;
mod counts;
pub mod decode;
pub mod encode;
mod federation;
mod invocations;
mod module_data;
mod reports;
mod service;
mod values;

pub(in crate::federate) use counts::TRANSPORTS;
pub use invocations::{Invocation, MAX_ARGUMENTS, MAX_ARGUMENT_CHARS};

use super::layout::{DISCOVERY_CELL, REQUEST_CELL};
use super::message::Outgoing;
use super::send::Stamping;
use super::{Action, Callback, Federate, ObjectId, Plain};
use crate::fom::{InteractionClassHandle, ObjectClassHandle, ObjectModel, ParameterHandle};
use crate::wire::TransportClass;
use bytes::Bytes;
use roaring::RoaringBitmap;

/// What a federate's MOM says of it that the federate state machine does not know: where it
/// runs and what it joined with. The host passes it at join ([`Federate::set_mom_identity`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MomIdentity {
    /// HLAfederateHost: the host name the federate runs on.
    pub host: String,
    /// HLARTIversion.
    pub rti_version: String,
    /// The FOM module designators this federate joined with (HLAfederate's
    /// HLAFOMmoduleDesignatorList).
    pub joined_modules: Vec<String>,
    /// The federation's FOM module designators (HLAfederation's list).
    pub federation_modules: Vec<String>,
    /// HLAMIMdesignator.
    pub mim_designator: String,
    /// HLAtimeImplementationName (HLAinteger64Time or HLAfloat64Time).
    pub time_implementation: String,
}

/// The id of the federation's `HLAmanager.HLAfederation` instance: federate 0's (nobody's)
/// instance 1.
pub const FEDERATION_OBJECT: ObjectId = ObjectId(1);

/// The id of the `HLAmanager.HLAfederate` instance describing federate `handle`.
pub fn federate_object(handle: u32) -> ObjectId {
    ObjectId::new(handle, 0)
}

/// Longest reporting period HLAsetTiming may set, in seconds (a day).
const MAX_REPORT_PERIOD_SECONDS: i32 = 86_400;

/// The MOM's classes and the parameters it reads and writes, looked up once.
pub(super) struct MomHandles {
    pub federate_class: ObjectClassHandle,
    pub federation_class: ObjectClassHandle,
    /// HLAinteractionRoot.HLAmanager.HLAfederate and its HLAfederate parameter, which every
    /// MOM interaction about one federate carries.
    pub manager_federate: InteractionClassHandle,
    pub federate_parameter: ParameterHandle,
    /// The HLAmanager.HLAfederation.HLArequest classes the federation's speaker answers
    /// (`federation`).
    federation_requests: federation::FederationRequests,
}

impl MomHandles {
    /// `None` when the model lacks the standard MIM's manager classes (a federation's own
    /// MIM must hold them, so only a hand-built model in a test does).
    fn find(model: &ObjectModel) -> Option<MomHandles> {
        let manager_federate = model.find_interaction_class("HLAmanager.HLAfederate")?;
        Some(MomHandles {
            federate_class: model.find_object_class("HLAmanager.HLAfederate")?,
            federation_class: model.find_object_class("HLAmanager.HLAfederation")?,
            manager_federate,
            federate_parameter: model.find_parameter(manager_federate, "HLAfederate")?,
            federation_requests: federation::FederationRequests::find(model),
        })
    }
}

/// A federate's MOM state.
pub(super) struct Mom {
    pub handles: MomHandles,
    pub identity: MomIdentity,
    /// HLAsetTiming's period in nanoseconds; 0: no periodic updates.
    pub report_period: u64,
    /// When the next periodic update is due (the host's wall clock, nanoseconds since the
    /// Unix epoch, as the `time` of every service call).
    pub next_report: Option<u64>,
    /// HLAsetSwitches: HLAconveyRegionDesignatorSets, HLAconveyProducingFederate.
    pub convey_regions: bool,
    pub convey_producer: bool,
    /// The per-class counts the reports give.
    pub counts: counts::MomCounts,
    /// HLAsetServiceReporting and HLAsetExceptionReporting.
    pub reporting: invocations::Reporting,
}

impl Mom {
    pub fn new(model: &ObjectModel) -> Option<Mom> {
        Some(Mom {
            handles: MomHandles::find(model)?,
            identity: MomIdentity::default(),
            report_period: 0,
            next_report: None,
            convey_regions: false,
            convey_producer: false,
            counts: counts::MomCounts::default(),
            reporting: invocations::Reporting::default(),
        })
    }
}

impl Federate {
    /// Leave this federate out of the MOM: no `HLAfederate` instance, no counts, no
    /// answers, and no MOM ids in its interest. Call before it applies its join.
    pub fn disable_mom(&mut self) {
        self.mom = None;
    }

    /// Tell the MOM where this federate runs and what it joined with (once, at join).
    pub fn set_mom_identity(&mut self, identity: MomIdentity) {
        if let Some(mom) = &mut self.mom {
            mom.identity = identity;
        }
    }

    /// Ids the MOM listens on whatever the application declared: update and discovery
    /// requests for the manager object classes, the interactions addressed to a
    /// federate (`HLAmanager.HLAfederate` and its subclasses), and the federation-level
    /// requests the federation's speaker answers (`federation`).
    pub(in crate::federate) fn mom_interest(&self, ids: &mut RoaringBitmap) {
        let Some(mom) = &self.mom else { return };
        let handles = &mom.handles;
        for class in [handles.federate_class, handles.federation_class] {
            ids.insert(self.layouts.object_id(class, REQUEST_CELL));
        }
        for class in self.model.interaction_descendants(handles.manager_federate) {
            ids.extend(self.layouts.interaction_ids(class, None));
        }
        // Every member listens: the speaker changes when the lowest handle leaves.
        for class in handles.federation_requests.classes() {
            ids.extend(self.layouts.interaction_ids(class, None));
        }
    }

    /// Whether this federate speaks for the federation's object: it has the lowest handle.
    fn speaks_for_federation(&self) -> bool {
        self.view.federates.keys().next() == Some(&self.handle)
    }

    /// An update or discovery request for `requested` (a class at or above the manager
    /// classes), for `object` or every instance: answer for the instances this federate
    /// speaks for. No attributes: announce them (discovery).
    pub(in crate::federate) fn mom_on_request(
        &mut self,
        requested: ObjectClassHandle,
        object: Option<ObjectId>,
        attributes: &[u32],
        time: u64,
    ) {
        let Some(mom) = &self.mom else { return };
        let mut ours = vec![(mom.handles.federate_class, federate_object(self.handle))];
        if self.speaks_for_federation() {
            ours.push((mom.handles.federation_class, FEDERATION_OBJECT));
        }
        for (class, id) in ours {
            let asked = object.is_none_or(|o| o == id);
            if !asked || !self.model.is_object_subclass(class, requested) {
                continue;
            }
            if attributes.is_empty() {
                self.mom_announce(class, id, time);
            } else {
                let attributes: Vec<_> = attributes
                    .iter()
                    .map(|&a| crate::fom::AttributeHandle(a))
                    .collect();
                self.mom_update(class, id, &attributes, time);
            }
        }
    }

    /// Register-announce a MOM instance to its subscribers, and to this federate.
    fn mom_announce(&mut self, class: ObjectClassHandle, object: ObjectId, time: u64) {
        let ids = vec![self.layouts.object_id(class, DISCOVERY_CELL)];
        let outgoing = Plain::Register { object, name: None };
        self.mom_send(ids, class.0, time, &outgoing);
    }

    /// Send the values of `attributes` of a MOM instance (every attribute the MOM can give,
    /// when `attributes` is empty); attributes it cannot give are left out.
    fn mom_update(
        &mut self,
        class: ObjectClassHandle,
        object: ObjectId,
        attributes: &[crate::fom::AttributeHandle],
        time: u64,
    ) {
        let values = self.mom_values(class, object, attributes);
        if values.is_empty() {
            return;
        }
        let borrowed: Vec<(u32, &[u8])> = values.iter().map(|(a, v)| (*a, v.as_slice())).collect();
        let ids = self.layouts.object_ids(class, None);
        let outgoing = Outgoing::Update {
            object,
            name: None,
            region: None,
            values: &borrowed,
        };
        self.mom_send(ids, class.0, time, &outgoing);
    }

    /// Send a MOM interaction of `class` with `parameters`.
    fn mom_interaction(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(u32, Vec<u8>)],
        time: u64,
    ) {
        let borrowed: Vec<(u32, &[u8])> =
            parameters.iter().map(|(p, v)| (*p, v.as_slice())).collect();
        let ids = self.layouts.interaction_ids(class, None);
        let outgoing = Outgoing::Interaction {
            region: None,
            values: &borrowed,
        };
        self.mom_send(ids, class.0, time, &outgoing);
    }

    /// Publish a MOM message reliably, in receive order, and hand it to this federate's own
    /// receive path as the network hands it to everyone else.
    fn mom_send<V: AsRef<[u8]>>(
        &mut self,
        ids: Vec<u32>,
        class: u32,
        time: u64,
        outgoing: &Outgoing<'_, V>,
    ) {
        let stamp = Stamping::of(None, None, time, TransportClass::Reliable, None);
        let header = stamp.header(self.handle, class, &[]);
        let frame = Self::encode(&mut self.encode_buf, &stamp, &ids, &header, outgoing);
        // MOM messages are rare: a copy of the message for this federate's own receive path.
        let message = Bytes::copy_from_slice(frame.payload());
        self.actions.push_back(Action::PublishFrame(frame));
        self.handle_message(&message, TransportClass::Reliable);
    }

    /// A federate left the federation: its MOM instance goes from this federate's view.
    pub(in crate::federate) fn mom_federate_left(&mut self, federate: u32) {
        let object = federate_object(federate);
        if self.mom.is_some() && self.forget_discovered(object) {
            self.callbacks.push_back(Callback::RemoveObjectInstance {
                object,
                tag: Bytes::from_static(b"HLAfederate resigned"),
                time: 0,
                sender: federate,
                sent_order: crate::fom::Order::Receive,
                received_order: crate::fom::Order::Receive,
                retraction: None,
            });
        }
    }

    /// When the MOM next wants [`Federate::handle_mom_timeout`] (the host's wall clock in
    /// nanoseconds, as the `time` of service calls): a periodic update is due. `None`: nothing is periodic.
    ///
    /// Call after every service call and every `handle_message`, as the period may change.
    #[must_use]
    pub fn poll_mom_timeout(&self) -> Option<u64> {
        self.mom.as_ref().and_then(|m| m.next_report)
    }

    /// Send the periodic updates due at `now` (HLAsetTiming), to subscribers only: when no
    /// one's interest for the federate class reaches this node, nothing is sent.
    pub fn handle_mom_timeout(&mut self, now: u64) {
        let Some(mom) = &mut self.mom else { return };
        let Some(due) = mom.next_report else { return };
        if now < due {
            return;
        }
        assert!(mom.report_period > 0, "a report is due only with a period");
        mom.next_report = Some(now.max(due) + mom.report_period);
        let class = mom.handles.federate_class;
        if self.mom_has_subscribers(class) {
            self.mom_update(class, federate_object(self.handle), &[], now);
        }
    }

    /// Whether some federate's interest in `class`'s updates reaches this node, or this
    /// federate subscribes to it itself.
    fn mom_has_subscribers(&self, class: ObjectClassHandle) -> bool {
        let subscribed_here = self
            .model
            .object_ancestry(class)
            .any(|c| self.object_subscriptions.contains_key(&c));
        let ids = self.layouts.object_ids(class, None);
        subscribed_here || ids.iter().any(|id| self.network_wants(*id))
    }
}

/// HLAsetTiming's HLAreportPeriod in nanoseconds: 0 stops periodic updates; refused when
/// negative or longer than a day.
fn report_period_nanos(seconds: i32) -> Option<u64> {
    (0..=MAX_REPORT_PERIOD_SECONDS)
        .contains(&seconds)
        .then(|| u64::from(seconds.unsigned_abs()) * 1_000_000_000)
}
