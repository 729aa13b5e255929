//! The RTI ambassador: HLA federate services over a Trellis node.
//!
//! One ambassador is one federate's connection to one federation. Service calls run the
//! federate state machine of `trellis_core::federate` and hand its actions to the node at
//! once; callbacks come from `evoke_callback` on the caller's thread (HLA's tick model) or,
//! with the thread driver, from `next_callback().await`.
//!
//! Federation management (create, join, resign, destroy, name reservation) asks the
//! federation registry, which one router of the network holds; everything else travels
//! between federates without it.

mod advisory;
mod callbacks;
mod connection;
mod designator;
mod error;
mod evoke_breaker;
mod federation;
mod link;
mod losses;
mod modules;
mod mom;
mod object_services;
mod order_transport;
mod ownership;
mod regions;
mod reporting;
mod save;
mod session;
mod shared_session;
mod stay_away;
mod sync;
mod time;
mod update_rate;
mod wall_clock;

pub use designator::{
    LocalSettings, DEFAULT_DESIGNATOR, TLS_CA_VARIABLE, TLS_CERT_VARIABLE, TLS_KEY_VARIABLE,
};
pub use error::{fdd_exception_name, RtiError};
pub use evoke_breaker::EvokeBreaker;
pub use session::Session;
pub use shared_session::{SessionGuard, SharedSession, Waited, IDLE_SLICE};
pub use stay_away::StayAway;
pub use trellis_core::federate::{OwnershipCallback, ResignAction};

use crate::node::{Arrived, DirectNode, Node, NodeConfig};
use link::Link;
use reporting::{Call, ValueSizes};
use std::time::Duration;
use trellis_core::federate::{Action, Federate, FederateStats, ObjectId, Region, DEFAULT_BINS};
use trellis_core::fom::{
    AttributeHandle, DimensionHandle, InteractionClassHandle, ObjectClassHandle, ParameterHandle,
};
use trellis_core::registry::{ErrorKind, Request, Response};
use trellis_core::wire::TransportClass;
use wall_clock::WallClock;

/// How the node under the ambassador runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Driver {
    /// On the caller's thread, inside service calls and `evoke_callback`: lowest latency,
    /// and bursts of updates bundled into writes (`NodeConfig::bundle_hold`).
    Direct,
    /// On an event-loop thread of its own: batches form while the caller works, and
    /// callbacks can be awaited.
    Thread,
}

/// How an [`RtiAmbassador`] connects: its node, how the node is driven, routing-space bins
/// and the bound on federation-management requests.
#[derive(Clone, Debug)]
pub struct RtiConfig {
    /// The node the federate's traffic goes through.
    pub node: NodeConfig,
    /// On the caller's thread ([`Driver::Direct`]) or a thread of its own.
    pub driver: Driver,
    /// Bins per dimension of every routing space; all federates of a federation use the
    /// same (it is part of the object-model fingerprint).
    pub bins: u32,
    /// How long a federation-management request may take.
    pub timeout: Duration,
    /// Whether the federate takes part in the MOM (on by default). Off, it has no
    /// `HLAmanager.HLAfederate` instance and answers no MOM request: managers and views do
    /// not see it (a departure from §11; `trellis bench throughput --mom off` measures the
    /// MOM's cost against it).
    pub mom: bool,
}

impl RtiConfig {
    /// Settings with the defaults: a direct node, the default bins, 10 s requests, the MOM.
    pub fn new(node: NodeConfig) -> RtiConfig {
        RtiConfig {
            node,
            driver: Driver::Direct,
            bins: DEFAULT_BINS,
            timeout: Duration::from_secs(10),
            mom: true,
        }
    }
}

/// Per-call choices beyond the HLA arguments.
#[derive(Clone, Debug, Default)]
pub struct SendOptions<'a> {
    /// The time stamp carried; the sender's clock (nanoseconds since 1970) when `None`.
    pub time: Option<u64>,
    /// Send with this region (DDM); the default region otherwise.
    pub region: Option<&'a Region>,
    /// Override the object model's transportation.
    pub transport: Option<TransportClass>,
}

/// The service's name as the standard has it: `plain` without regions, `with` with some
/// (the Rust API's `…_with_regions` take an empty list for the plain service).
fn with_regions<R>(regions: &[R], plain: &'static str, with: &'static str) -> &'static str {
    if regions.is_empty() {
        plain
    } else {
        with
    }
}

struct Joined {
    federate: Federate,
    name: String,
}

/// The RTI ambassador of one federation's connection: the federate's HLA services
/// (IEEE 1516.1-2010 §4–§10) over its own node. Callbacks come from `evoke_callback`.
pub struct RtiAmbassador {
    link: Link,
    /// The rest of the batch the link handed over last, taken before anything else it holds.
    arrived: Arrived,
    federation: String,
    bins: u32,
    timeout: Duration,
    /// `RtiConfig::mom`.
    mom: bool,
    /// Callbacks handed out since the MOM last looked at the clock (`rti/mom.rs`).
    mom_clock_skipped: u32,
    joined: Option<Joined>,
    /// The node's network-interest counter when the federate was last told (advisories).
    interest_seen: Option<u64>,
    /// The node's links as the federate's membership depends on them.
    watch: connection::Watch,
    /// The node's reliable-loss counter when losses were last taken.
    lost_reports_seen: u64,
    /// Reliable losses taken from the node and not yet handed out, by sending node.
    lost_pending: std::collections::VecDeque<(trellis_core::wire::NodeId, u64)>,
    /// Reliable messages reported lost so far (`Callback::ReliableMessagesLost` counts).
    lost_total: u64,
    senders: losses::Senders,
    /// The sender's clock stamped on what goes out in receive order.
    wall: WallClock,
}

impl RtiAmbassador {
    /// Connect to the network for one federation (not yet joined).
    pub fn connect(config: RtiConfig) -> Result<RtiAmbassador, RtiError> {
        let federation = config.node.federation.clone();
        let link = match config.driver {
            Driver::Direct => Link::Direct(Box::new(DirectNode::connect(config.node)?)),
            Driver::Thread => Link::Thread(Box::new(Node::connect(config.node)?)),
        };
        Ok(RtiAmbassador {
            link,
            arrived: Arrived::default(),
            federation,
            bins: config.bins,
            timeout: config.timeout,
            mom: config.mom,
            mom_clock_skipped: 0,
            joined: None,
            interest_seen: None,
            watch: connection::Watch::default(),
            lost_reports_seen: 0,
            lost_pending: Default::default(),
            lost_total: 0,
            senders: Default::default(),
            wall: WallClock::new(),
        })
    }

    /// The federation this connection serves.
    pub fn federation(&self) -> &str {
        &self.federation
    }

    fn ask(&mut self, request: Request) -> Result<Response, RtiError> {
        let federation = self.federation.clone();
        match self.link.manage(request, self.timeout)? {
            Response::Error { kind, message } => Err(match kind {
                ErrorKind::FederationExists => {
                    RtiError::FederationExecutionAlreadyExists(federation)
                }
                ErrorKind::FederationUnknown => {
                    RtiError::FederationExecutionDoesNotExist(federation)
                }
                ErrorKind::FederatesJoined => RtiError::FederatesCurrentlyJoined(message),
                ErrorKind::InconsistentFom => RtiError::InconsistentFdd(message),
                ErrorKind::FederateNameInUse => RtiError::FederateNameAlreadyInUse(message),
                ErrorKind::FederateUnknown => RtiError::FederateNotExecutionMember,
                ErrorKind::LimitReached => RtiError::LimitReached(message),
                ErrorKind::SaveInProgress => RtiError::SaveInProgress(message),
                ErrorKind::RestoreInProgress => RtiError::RestoreInProgress(message),
                ErrorKind::SaveNotInitiated | ErrorKind::RestoreNotRequested => {
                    RtiError::Registry(message)
                }
                ErrorKind::NoRegistry
                | ErrorKind::Malformed
                | ErrorKind::SyncPointUnknown
                | ErrorKind::RegistryRestarted
                | ErrorKind::NotPermitted => RtiError::Registry(message),
            }),
            response => Ok(response),
        }
    }

    fn unexpected(response: Response) -> RtiError {
        RtiError::Registry(format!("unexpected answer {response:?}"))
    }

    /// Ask for a joined federate; if the registry does not know it (it restarted and this
    /// federate has not reclaimed yet), reclaim and ask once more.
    fn ask_as_member(&mut self, request: Request) -> Result<Response, RtiError> {
        match self.ask(request.clone()) {
            Err(
                RtiError::FederateNotExecutionMember | RtiError::FederationExecutionDoesNotExist(_),
            ) if self.joined.is_some() => {
                self.with(Call::INTERNAL, |f| {
                    f.reclaim();
                    Ok(())
                })?;
                self.ask(request)
            }
            other => other,
        }
    }

    /// The joined federate's state: handle lookups, statistics.
    pub fn federate(&self) -> Result<&Federate, RtiError> {
        self.joined
            .as_ref()
            .map(|j| &j.federate)
            .ok_or_else(|| RtiError::FederateNotExecutionMember)
    }

    /// The federate's name once joined.
    pub fn federate_name(&self) -> Option<&str> {
        self.joined.as_ref().map(|j| j.name.as_str())
    }

    /// Run a service on the federate and hand what it asks for to the node. While a save
    /// or restore is in progress the service raises SaveInProgress or RestoreInProgress
    /// (`save.rs` has the services that do not). `call` names the service and its arguments
    /// for the MOM's service reporting.
    fn with<T: std::fmt::Debug>(
        &mut self,
        call: Call<'_>,
        service: impl FnOnce(&mut Federate) -> Result<T, RtiError>,
    ) -> Result<T, RtiError> {
        if let Err(refused) = self.federate()?.check_not_saving() {
            let refused = Err(refused.into());
            self.report(call, &refused);
            return refused;
        }
        self.with_during_save(call, service)
    }

    /// `with` for the services a save or restore in progress allows.
    fn with_during_save<T: std::fmt::Debug>(
        &mut self,
        call: Call<'_>,
        service: impl FnOnce(&mut Federate) -> Result<T, RtiError>,
    ) -> Result<T, RtiError> {
        let joined = self
            .joined
            .as_mut()
            .ok_or_else(|| RtiError::FederateNotExecutionMember)?;
        let result = service(&mut joined.federate);
        self.report(call, &result);
        self.flush_actions()?;
        result
    }

    /// Describe a service call to the MOM when a manager asked for service reports.
    fn report<T: std::fmt::Debug>(&mut self, call: Call<'_>, result: &Result<T, RtiError>) {
        if let Some(joined) = self.joined.as_mut() {
            if joined.federate.reports_invocations() {
                let now = self.wall.unix_nanos();
                reporting::report_call(&mut joined.federate, call, result, now);
            }
        }
    }

    /// Hand the federate's queued actions to the node: after service calls, and after
    /// incoming messages (time management answers and grants from there).
    fn flush_actions(&mut self) -> Result<(), RtiError> {
        loop {
            let Some(action) = self.joined.as_mut().and_then(|j| j.federate.poll_action()) else {
                return Ok(());
            };
            // The node takes the frame itself, as the federate encoded it.
            let action = match action {
                Action::PublishFrame(frame) => {
                    self.link.publish_unstamped(frame)?;
                    continue;
                }
                other => other,
            };
            match &action {
                Action::SetInterest(ids) => self.link.set_interest(ids)?,
                Action::Publish {
                    ids,
                    class,
                    payload,
                    latest: None,
                } => self.link.publish(ids, *class, payload)?,
                Action::Publish {
                    ids,
                    class,
                    payload,
                    latest: Some(latest),
                } => self.link.publish_latest(ids, *class, *latest, payload)?,
                Action::Ask(request) => {
                    let response = match self.link.manage(request.clone(), self.timeout) {
                        // The catch-up on missed events and the reclaim are the federate's
                        // own: it retries them.
                        Err(e)
                            if matches!(request, Request::Events { .. } | Request::Reclaim(_)) =>
                        {
                            Response::Error {
                                kind: ErrorKind::NoRegistry,
                                message: e.to_string(),
                            }
                        }
                        other => other?,
                    };
                    if let Some(joined) = self.joined.as_mut() {
                        joined.federate.handle_reply(request, response);
                    }
                }
                Action::ExtendModel {
                    modules,
                    fingerprint,
                } => self.extend_model(modules, *fingerprint),
                // Handed to the node above, without a copy.
                Action::PublishFrame(_) => {}
            }
            // Its buffers serve the next updates.
            if let Some(joined) = self.joined.as_mut() {
                joined.federate.recycle(action);
            }
        }
    }

    // ---- names ----------------------------------------------------------------------------

    /// getObjectClassHandle: by qualified name, with or without `HLAobjectRoot.`.
    pub fn object_class_handle(&self, name: &str) -> Result<ObjectClassHandle, RtiError> {
        Ok(self.federate()?.object_class(name)?)
    }

    /// getAttributeHandle of `class`.
    pub fn attribute_handle(
        &self,
        class: ObjectClassHandle,
        name: &str,
    ) -> Result<AttributeHandle, RtiError> {
        Ok(self.federate()?.attribute(class, name)?)
    }

    /// getInteractionClassHandle: by qualified name, with or without `HLAinteractionRoot.`.
    pub fn interaction_class_handle(&self, name: &str) -> Result<InteractionClassHandle, RtiError> {
        Ok(self.federate()?.interaction_class(name)?)
    }

    /// getParameterHandle of `class`.
    pub fn parameter_handle(
        &self,
        class: InteractionClassHandle,
        name: &str,
    ) -> Result<ParameterHandle, RtiError> {
        Ok(self.federate()?.parameter(class, name)?)
    }

    /// getDimensionHandle.
    pub fn dimension_handle(&self, name: &str) -> Result<DimensionHandle, RtiError> {
        Ok(self.federate()?.dimension(name)?)
    }

    // ---- declaration management -----------------------------------------------------------

    /// Trellis extension: updates of `attributes` (all of the class's when empty) of the
    /// instances this federate registers as `class` are keep-latest, or not, over what the
    /// object model's `keepLatest` says. A subscriber that falls behind then gets the newest
    /// value of each instance and attribute instead of a backlog, and one that subscribes
    /// later gets every instance's newest values at once from the routers' caches.
    pub fn set_keep_latest(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        keep_latest: bool,
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("setKeepLatest", &[&class, &attributes, &keep_latest]),
            |f| Ok(f.set_keep_latest(class, attributes, keep_latest)?),
        )
    }

    /// publishObjectClassAttributes: adds to what the class already publishes.
    pub fn publish_object_class_attributes(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("publishObjectClassAttributes", &[&class, &attributes]),
            |f| Ok(f.publish_object_class_attributes(class, attributes)?),
        )
    }

    /// unpublishObjectClass: every attribute of the class.
    pub fn unpublish_object_class(&mut self, class: ObjectClassHandle) -> Result<(), RtiError> {
        self.with(Call::new("unpublishObjectClass", &[&class]), |f| {
            f.unpublish_object_class(class);
            Ok(())
        })
    }

    /// unpublishObjectClassAttributes: the class stays published with its other attributes.
    pub fn unpublish_object_class_attributes(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("unpublishObjectClassAttributes", &[&class, &attributes]),
            |f| Ok(f.unpublish_object_class_attributes(class, attributes)?),
        )
    }

    /// subscribeObjectClassAttributes: replaces the class's subscribed attribute set.
    pub fn subscribe_object_class_attributes(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
    ) -> Result<(), RtiError> {
        self.subscribe_object_class_attributes_with_regions(class, attributes, &[])
    }

    /// Subscribe within regions (DDM): only updates overlapping one of them are reflected.
    pub fn subscribe_object_class_attributes_with_regions(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        regions: &[Region],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                with_regions(
                    regions,
                    "subscribeObjectClassAttributes",
                    "subscribeObjectClassAttributesWithRegions",
                ),
                &[&class, &attributes, &regions],
            ),
            |f| Ok(f.subscribe_object_class_attributes(class, attributes, regions)?),
        )
    }

    /// unsubscribeObjectClass: every attribute of the class.
    pub fn unsubscribe_object_class(&mut self, class: ObjectClassHandle) -> Result<(), RtiError> {
        self.with(Call::new("unsubscribeObjectClass", &[&class]), |f| {
            f.unsubscribe_object_class(class);
            Ok(())
        })
    }

    /// unsubscribeObjectClassAttributes: the class stays subscribed to its other attributes.
    pub fn unsubscribe_object_class_attributes(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("unsubscribeObjectClassAttributes", &[&class, &attributes]),
            |f| Ok(f.unsubscribe_object_class_attributes(class, attributes)?),
        )
    }

    /// publishInteractionClass.
    pub fn publish_interaction_class(
        &mut self,
        class: InteractionClassHandle,
    ) -> Result<(), RtiError> {
        self.with(Call::new("publishInteractionClass", &[&class]), |f| {
            Ok(f.publish_interaction_class(class)?)
        })
    }

    /// unpublishInteractionClass.
    pub fn unpublish_interaction_class(
        &mut self,
        class: InteractionClassHandle,
    ) -> Result<(), RtiError> {
        self.with(Call::new("unpublishInteractionClass", &[&class]), |f| {
            f.unpublish_interaction_class(class);
            Ok(())
        })
    }

    /// subscribeInteractionClass.
    pub fn subscribe_interaction_class(
        &mut self,
        class: InteractionClassHandle,
    ) -> Result<(), RtiError> {
        self.subscribe_interaction_class_with_regions(class, &[])
    }

    /// subscribeInteractionClassWithRegions, with the regions' values.
    pub fn subscribe_interaction_class_with_regions(
        &mut self,
        class: InteractionClassHandle,
        regions: &[Region],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                with_regions(
                    regions,
                    "subscribeInteractionClass",
                    "subscribeInteractionClassWithRegions",
                ),
                &[&class, &regions],
            ),
            |f| Ok(f.subscribe_interaction_class(class, regions)?),
        )
    }

    /// unsubscribeInteractionClass.
    pub fn unsubscribe_interaction_class(
        &mut self,
        class: InteractionClassHandle,
    ) -> Result<(), RtiError> {
        self.with(Call::new("unsubscribeInteractionClass", &[&class]), |f| {
            f.unsubscribe_interaction_class(class);
            Ok(())
        })
    }

    // ---- object management ----------------------------------------------------------------

    /// reserveObjectInstanceName: reserve a federation-unique name with the registry
    /// (waits for its answer). The answer is returned (ObjectInstanceNameInUse when another
    /// federate holds the name) and queued as the standard's callback.
    pub fn reserve_object_instance_name(&mut self, name: &str) -> Result<(), RtiError> {
        Federate::check_reservable_name(name)?;
        let reserved = self.ask_to_reserve(name)?;
        self.with(Call::new("reserveObjectInstanceName", &[&name]), |f| {
            f.name_reservation_answered(name, reserved);
            Ok(())
        })?;
        if reserved {
            Ok(())
        } else {
            Err(RtiError::ObjectInstanceNameInUse(name.to_owned()))
        }
    }

    /// Whether the registry reserves `name` for this federate (false: another holds it).
    fn ask_to_reserve(&mut self, name: &str) -> Result<bool, RtiError> {
        let request = Request::ReserveName {
            federation: self.federation.clone(),
            federate: self.federate()?.handle(),
            name: name.to_owned(),
        };
        match self.ask_as_member(request)? {
            Response::NameReserved { .. } => Ok(true),
            Response::NameRefused { .. } => Ok(false),
            other => Err(Self::unexpected(other)),
        }
    }

    /// registerObjectInstance: the RTI names the instance.
    pub fn register_object_instance(
        &mut self,
        class: ObjectClassHandle,
    ) -> Result<ObjectId, RtiError> {
        let now = self.wall.unix_nanos();
        self.with(Call::new("registerObjectInstance", &[&class]), |f| {
            Ok(f.register_object_instance(class, None, now)?)
        })
    }

    /// Register with a name reserved before.
    pub fn register_object_instance_with_name(
        &mut self,
        class: ObjectClassHandle,
        name: &str,
    ) -> Result<ObjectId, RtiError> {
        let now = self.wall.unix_nanos();
        self.with(Call::new("registerObjectInstance", &[&class, &name]), |f| {
            Ok(f.register_object_instance(class, Some(name), now)?)
        })
    }

    /// updateAttributeValues in receive order, with the attributes' own transportation.
    pub fn update_attribute_values<V: AsRef<[u8]>>(
        &mut self,
        object: ObjectId,
        values: &[(AttributeHandle, V)],
        tag: &[u8],
    ) -> Result<(), RtiError> {
        self.update_attribute_values_with(object, values, tag, &SendOptions::default())
    }

    /// updateAttributeValues with a time stamp, region or transportation from `options`.
    pub fn update_attribute_values_with<V: AsRef<[u8]>>(
        &mut self,
        object: ObjectId,
        values: &[(AttributeHandle, V)],
        tag: &[u8],
        options: &SendOptions<'_>,
    ) -> Result<(), RtiError> {
        let time = options.time.unwrap_or_else(|| self.wall.unix_nanos());
        self.with(
            Call::new(
                "updateAttributeValues",
                &[&object, &ValueSizes(values), &tag, &options],
            ),
            |f| {
                Ok(f.update_attribute_values_in_regions(
                    object,
                    values,
                    tag,
                    time,
                    options.region,
                    options.transport,
                )?)
            },
        )
    }

    /// deleteObjectInstance in receive order.
    pub fn delete_object_instance(&mut self, object: ObjectId, tag: &[u8]) -> Result<(), RtiError> {
        let now = self.wall.unix_nanos();
        self.with(Call::new("deleteObjectInstance", &[&object, &tag]), |f| {
            Ok(f.delete_object_instance(object, tag, now)?)
        })
    }

    /// sendInteraction in receive order, with the class's own transportation.
    pub fn send_interaction<V: AsRef<[u8]>>(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(ParameterHandle, V)],
        tag: &[u8],
    ) -> Result<(), RtiError> {
        self.send_interaction_with(class, parameters, tag, &SendOptions::default())
    }

    /// sendInteraction with a time stamp, region or transportation from `options`.
    pub fn send_interaction_with<V: AsRef<[u8]>>(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(ParameterHandle, V)],
        tag: &[u8],
        options: &SendOptions<'_>,
    ) -> Result<(), RtiError> {
        let time = options.time.unwrap_or_else(|| self.wall.unix_nanos());
        self.with(
            Call::new(
                "sendInteraction",
                &[&class, &ValueSizes(parameters), &tag, &options],
            ),
            |f| {
                Ok(f.send_interaction(
                    class,
                    parameters,
                    tag,
                    time,
                    options.region,
                    options.transport,
                )?)
            },
        )
    }

    /// requestAttributeValueUpdate of one instance: its owners get provideAttributeValueUpdate.
    pub fn request_attribute_value_update(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("requestAttributeValueUpdate", &[&object, &attributes, &tag]),
            |f| Ok(f.request_object_attribute_value_update(object, attributes, tag)?),
        )
    }

    /// requestAttributeValueUpdate of every instance of a class.
    pub fn request_class_attribute_value_update(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        tag: &[u8],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "requestClassAttributeValueUpdate",
                &[&class, &attributes, &tag],
            ),
            |f| Ok(f.request_class_attribute_value_update(class, attributes, tag)?),
        )
    }

    /// What arrived and what the exact checks discarded (over-delivery).
    pub fn stats(&self) -> Result<FederateStats, RtiError> {
        Ok(self.federate()?.stats())
    }
}
