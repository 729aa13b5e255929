//! The federation view's tool federate: it joins, subscribes to the MOM's
//! `HLAmanager.HLAfederate` and `HLAmanager.HLAfederation` classes, asks every instance it
//! discovers for its values, and keeps the latest — as any MOM tool would. It resigns when
//! done, whatever happened meanwhile.

use super::object_counts::ObjectCountsQuery;
use super::sync_points::SyncPointsQuery;
use super::view::{self, FederationReport, Values};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use thiserror::Error;
use trellis_core::federate::mom;
use trellis_core::federate::{
    federate_object, Callback, FederateError, ObjectId, ResignAction, SaveCallback,
    TimeRepresentation, FEDERATION_OBJECT,
};
use trellis_core::fom::MimError;
use trellis_core::fom::{
    AttributeHandle, InteractionClassHandle, ObjectClassHandle, ObjectModel, ParameterHandle,
};
use trellis_net::rti::{LocalSettings, RtiAmbassador, RtiConfig, RtiError};
use trellis_net::NodeConfig;

/// Why the view could not join, read or leave.
#[derive(Debug, Error)]
pub enum ViewError {
    #[error("connecting to the router at {endpoint}: {source}")]
    Connect { endpoint: String, source: RtiError },
    #[error("loading federation {federation:?}'s object model: {source}")]
    Model {
        federation: String,
        source: MimError,
    },
    #[error("the federation's object model has no {0}")]
    NoMomClass(String),
    #[error("joining federation {federation:?}: {source}")]
    Join {
        federation: String,
        source: RtiError,
    },
    #[error("resigning from federation {federation:?}: {source}")]
    Resign {
        federation: String,
        source: RtiError,
    },
    #[error("the connection to the router was lost: {0}")]
    ConnectionLost(String),
    #[error("the federation's MIM has no HLAmanager.HLAfederate.HLAadjust.HLAsetTiming")]
    NoSetTiming,
    #[error(transparent)]
    Rti(#[from] RtiError),
}

type Result<T, E = ViewError> = std::result::Result<T, E>;

/// A FOM module built into the program that runs the view (the demo's), found by its file
/// name when the federation lists it at a path that does not exist here.
pub type BuiltInModule = (&'static str, &'static str);

/// The federate type the view joins as; its name is `federation-view-PID-N`.
pub const FEDERATE_TYPE: &str = "trellis-federation-view";

/// How long one evoke waits before the caller looks at its clock and stop flag again.
const EVOKE_SLICE: Duration = Duration::from_millis(20);

/// How often a read asks again the members that have not answered (see
/// [`Tool::ask_silent_members`]).
const ASK_AGAIN: Duration = Duration::from_secs(1);

/// A MOM class the view subscribes to: its handle and attributes by handle and name.
struct MomClass {
    class: ObjectClassHandle,
    attributes: Vec<AttributeHandle>,
    names: BTreeMap<AttributeHandle, String>,
}

impl MomClass {
    fn find(model: &ObjectModel, name: &str) -> Result<MomClass> {
        let class = model
            .find_object_class(name)
            .ok_or_else(|| ViewError::NoMomClass(name.to_owned()))?;
        let attributes = model.available_attributes(class);
        let names = (attributes.iter())
            .map(|&a| (a, model.attribute(a).name.clone()))
            .collect();
        Ok(MomClass {
            class,
            attributes,
            names,
        })
    }
}

pub struct Tool {
    rti: RtiAmbassador,
    federation: String,
    handle: u32,
    time: TimeRepresentation,
    federate_class: MomClass,
    federation_class: MomClass,
    set_timing: Option<SetTiming>,
    /// HLAmanager.HLAfederation's latest values.
    federation_values: Values,
    /// Each member's HLAmanager.HLAfederate latest values, by federate handle.
    members: BTreeMap<u32, Values>,
    /// Members asked for periodic updates, and at what period (seconds).
    reporting: BTreeMap<u32, i32>,
    /// The pending synchronization points; `None` without the standard MIM's classes.
    sync_points: Option<SyncPointsQuery>,
    /// Each member's instances per class; `None` without the standard MIM's classes.
    object_counts: Option<ObjectCountsQuery>,
    /// The federation's model, for class names.
    model: Arc<ObjectModel>,
}

/// HLAmanager.HLAfederate.HLAadjust.HLAsetTiming and its two parameters.
struct SetTiming {
    class: InteractionClassHandle,
    federate: ParameterHandle,
    period: ParameterHandle,
}

impl Tool {
    /// Join `federation` through the router `settings` name, as a view. Modules not found
    /// where the federation lists them are looked for in `fom_path`, then in `built_in`.
    pub fn join(
        settings: &LocalSettings,
        federation: &str,
        fom_path: &[PathBuf],
        built_in: &[BuiltInModule],
    ) -> Result<Tool> {
        let name = format!("federation-view-{}", std::process::id());
        let mut node = NodeConfig::child_of(name.clone(), federation, settings.endpoint.clone());
        node.bundle_hold = settings.bundle_hold;
        node.tls = settings.tls.clone();
        let mut config = RtiConfig::new(node);
        config.driver = settings.driver;
        let mut rti = RtiAmbassador::connect(config).map_err(|source| ViewError::Connect {
            endpoint: settings.endpoint.to_string(),
            source,
        })?;
        // Its error names the federation when it does not exist.
        let modules = rti.federation_modules()?;
        let model =
            load_model(&modules, fom_path, built_in).map_err(|source| ViewError::Model {
                federation: federation.to_owned(),
                source,
            })?;
        // Found before joining: a model without the MOM's classes fails without a trace.
        let federate_class = MomClass::find(&model, "HLAmanager.HLAfederate")?;
        let federation_class = MomClass::find(&model, "HLAmanager.HLAfederation")?;
        let handle = rti
            .join_federation_execution(&name, FEDERATE_TYPE, model.clone())
            .map_err(|source| ViewError::Join {
                federation: federation.to_owned(),
                source,
            })?;
        let time = rti.federate()?.time_representation();
        let mut tool = Tool {
            rti,
            federation: federation.to_owned(),
            handle,
            time,
            federate_class,
            federation_class,
            set_timing: find_set_timing(&model),
            federation_values: Values::new(),
            members: BTreeMap::new(),
            reporting: BTreeMap::new(),
            sync_points: SyncPointsQuery::find(&model),
            object_counts: ObjectCountsQuery::find(&model),
            model,
        };
        if let Err(e) = tool.subscribe() {
            // Joined already: leave rather than linger until the router notices.
            let _ = tool.resign();
            return Err(e);
        }
        Ok(tool)
    }

    fn subscribe(&mut self) -> Result<()> {
        for class in [&self.federate_class, &self.federation_class] {
            (self.rti).subscribe_object_class_attributes(class.class, &class.attributes)?;
        }
        if let Some(timing) = &self.set_timing {
            self.rti.publish_interaction_class(timing.class)?;
        }
        if let Some(sync_points) = &self.sync_points {
            sync_points.declare(&mut self.rti)?;
            sync_points.ask(&mut self.rti)?;
        }
        if let Some(object_counts) = &self.object_counts {
            object_counts.declare(&mut self.rti)?;
        }
        Ok(())
    }

    /// Take callbacks until every member the federation lists has answered, or `bound`
    /// passes, or `stop` says so.
    pub fn read(&mut self, bound: Duration, stop: &dyn Fn() -> bool) -> Result<()> {
        let deadline = Instant::now() + bound;
        let mut ask_again_at = Instant::now() + ASK_AGAIN;
        while !self.complete() && Instant::now() < deadline && !stop() {
            self.take_callbacks(EVOKE_SLICE)?;
            if Instant::now() >= ask_again_at {
                self.ask_silent_members()?;
                ask_again_at = Instant::now() + ASK_AGAIN;
            }
        }
        Ok(())
    }

    /// Whether a save or restore is in progress, which refuses the view's requests
    /// (SaveInProgress): the view asks again once it is over.
    fn saving(&self) -> bool {
        (self.rti.federate()).is_ok_and(|f| f.check_not_saving().is_err())
    }

    /// Ask `member` for its instances per class. A request lost on the way is asked again
    /// by [`Tool::refresh_members`]; one that cannot be sent is logged, as the view's
    /// other values still come.
    fn ask_object_counts(&mut self, member: u32) {
        if self.saving() {
            return;
        }
        if let Some(counts) = &self.object_counts {
            if let Err(e) = counts.ask(&mut self.rti, member) {
                tracing::warn!("asking federate {member} for its object counts: {e}");
            }
        }
    }

    /// Ask again every listed member that has not answered, and the federation for its
    /// list. One request is not enough: sending filters by interest, so a request sent
    /// before a member's interest in it reached this view's node (a member that joined
    /// moments ago) reaches no one, and the member stays silent however long the read waits.
    fn ask_silent_members(&mut self) -> Result<()> {
        if self.saving() {
            return Ok(());
        }
        let silent = (self.listed_members().unwrap_or_default().into_iter())
            .filter(|h| !self.members.contains_key(h));
        let attributes = self.federate_class.attributes.clone();
        let mut undiscovered = false;
        for member in silent {
            let object = federate_object(member);
            match (self.rti).request_attribute_value_update(object, &attributes, b"") {
                Ok(()) => {}
                Err(RtiError::Federate(FederateError::ObjectInstanceNotKnown(_))) => {
                    undiscovered = true;
                }
                Err(e) => return Err(e.into()),
            }
        }
        if undiscovered {
            // Asking the class discovers the instances this view has not seen yet.
            let class = self.federate_class.class;
            (self.rti).request_class_attribute_value_update(class, &attributes, b"")?;
        }
        self.refresh_members()
    }

    /// Take callbacks for `period`, or until `stop` says so.
    pub fn take_for(&mut self, period: Duration, stop: &dyn Fn() -> bool) -> Result<()> {
        let deadline = Instant::now() + period;
        while Instant::now() < deadline && !stop() {
            self.take_callbacks(EVOKE_SLICE.min(period))?;
        }
        Ok(())
    }

    /// Whether the federation's member list is in, every member on it answered with its
    /// values and its object counts, and the synchronization points are in.
    fn complete(&self) -> bool {
        // The member list is decoded once per look: this runs after every evoke of a read.
        let Some(listed) = self.listed_members() else {
            return false;
        };
        let answered = |h: &u32| {
            self.members.contains_key(h) && self.object_counts.as_ref().is_none_or(|c| c.has(*h))
        };
        listed.iter().all(answered) && self.sync_points.as_ref().is_none_or(|s| s.complete())
    }

    /// The members HLAfederatesInFederation lists, this view left out.
    fn listed_members(&self) -> Option<BTreeSet<u32>> {
        let values = self.federation_values.get("HLAfederatesInFederation")?;
        let handles = mom::decode::handle_list(values).ok()?;
        let members = handles.into_iter().filter_map(|h| u32::try_from(h).ok());
        Some(members.filter(|&h| h != self.handle).collect())
    }

    fn take_callbacks(&mut self, timeout: Duration) -> Result<()> {
        let Some(callback) = self.rti.evoke_callback(timeout)? else {
            return Ok(());
        };
        match &callback {
            Callback::DiscoverObjectInstance { object, class, .. } => {
                self.discovered(*object, *class)?;
            }
            Callback::ReflectAttributeValues { object, values, .. } => {
                self.reflected(*object, values);
            }
            Callback::ReceiveInteraction {
                class, parameters, ..
            } => {
                let taken = (self.sync_points.as_mut())
                    .is_some_and(|s| s.on_interaction(*class, parameters));
                if let (false, Some(counts)) = (taken, self.object_counts.as_mut()) {
                    counts.on_interaction(*class, parameters);
                }
            }
            Callback::RemoveObjectInstance { object, .. } => {
                self.members.remove(&object.federate());
                self.reporting.remove(&object.federate());
                if let Some(counts) = self.object_counts.as_mut() {
                    counts.forget(object.federate());
                }
            }
            // A view only watches: it must not hold the federation at a synchronization
            // point it was announced for having joined before it was registered, nor hold
            // a save (its part is nothing to keep), nor a restore.
            Callback::AnnounceSynchronizationPoint { label, .. } => {
                self.rti.synchronization_point_achieved(label, true)?;
            }
            Callback::Save(SaveCallback::InitiateFederateSave { .. }) => {
                self.rti.federate_save_begun()?;
                self.rti.federate_save_complete(true)?;
            }
            Callback::Save(SaveCallback::InitiateFederateRestore { .. }) => {
                self.rti.federate_restore_complete(true)?;
            }
            Callback::ConnectionLost { fault } => {
                return Err(ViewError::ConnectionLost(fault.to_string()))
            }
            _ => {}
        }
        self.rti.recycle(callback);
        Ok(())
    }

    /// A MOM instance appeared: ask it for every value (not this view's own).
    fn discovered(&mut self, object: ObjectId, class: ObjectClassHandle) -> Result<()> {
        let attributes = if object == FEDERATION_OBJECT {
            &self.federation_class.attributes
        } else if object == federate_object(object.federate()) && object.federate() != self.handle {
            &self.federate_class.attributes
        } else {
            return Ok(());
        };
        tracing::debug!(?object, ?class, "discovered a MOM instance");
        let attributes = attributes.clone();
        self.rti
            .request_attribute_value_update(object, &attributes, b"")?;
        Ok(())
    }

    fn reflected(&mut self, object: ObjectId, values: &[(AttributeHandle, impl AsRef<[u8]>)]) {
        let (target, names) = if object == FEDERATION_OBJECT {
            (&mut self.federation_values, &self.federation_class.names)
        } else if object == federate_object(object.federate()) && object.federate() != self.handle {
            let handle = object.federate();
            if !self.members.contains_key(&handle) {
                self.ask_object_counts(handle);
            }
            let member = self.members.entry(handle).or_default();
            (member, &self.federate_class.names)
        } else {
            return;
        };
        for (attribute, value) in values {
            if let Some(name) = names.get(attribute) {
                target.insert(name.clone(), value.as_ref().to_vec());
            }
        }
    }

    /// Ask the federation for its member list and synchronization points again, and every
    /// member for its object counts (members come and go while watching).
    pub fn refresh_members(&mut self) -> Result<()> {
        if self.saving() {
            return Ok(());
        }
        if let Some(sync_points) = &self.sync_points {
            sync_points.ask(&mut self.rti)?;
        }
        let members: Vec<u32> = self.members.keys().copied().collect();
        for member in members {
            self.ask_object_counts(member);
        }
        let attributes = self.federation_class.attributes.clone();
        self.rti
            .request_attribute_value_update(FEDERATION_OBJECT, &attributes, b"")
            .or_else(|_| {
                // Not discovered yet: ask the class, which discovers it.
                let class = self.federation_class.class;
                self.rti
                    .request_class_attribute_value_update(class, &attributes, b"")
            })?;
        Ok(())
    }

    /// HLAsetTiming to every member not yet asked: periodic updates every `seconds`.
    pub fn ask_for_reports(&mut self, seconds: i32) -> Result<()> {
        if self.saving() {
            return Ok(());
        }
        let members: Vec<u32> = self.members.keys().copied().collect();
        for member in members {
            if self.reporting.get(&member) != Some(&seconds) {
                self.set_timing(member, seconds)?;
            }
        }
        Ok(())
    }

    /// HLAsetTiming with period 0 to every member asked: no more periodic updates.
    pub fn stop_reports(&mut self) -> Result<()> {
        if self.saving() {
            return Ok(());
        }
        let members: Vec<u32> = self.reporting.keys().copied().collect();
        for member in members {
            self.set_timing(member, 0)?;
        }
        self.reporting.clear();
        Ok(())
    }

    fn set_timing(&mut self, member: u32, seconds: i32) -> Result<()> {
        let Some(timing) = &self.set_timing else {
            return Err(ViewError::NoSetTiming);
        };
        let parameters = [
            (timing.federate, mom::encode::handle(u64::from(member))),
            (timing.period, seconds.to_be_bytes().to_vec()),
        ];
        let class = timing.class;
        self.rti.send_interaction(class, &parameters, b"")?;
        self.reporting.insert(member, seconds);
        Ok(())
    }

    /// What the view shows now; values that do not decode are in `problems`.
    pub fn report(&self, problems: &mut Vec<String>) -> FederationReport {
        let facts = view::federation_facts(&self.federation_values, self.time, problems);
        let federates = (self.members.iter())
            .map(|(&h, values)| view::federate_report(h, values, self.time, problems))
            .collect();
        let not_answering = (self.listed_members().unwrap_or_default().into_iter())
            .filter(|h| !self.members.contains_key(h))
            .collect();
        FederationReport {
            federation: self.federation.clone(),
            time_implementation: facts
                .time_implementation
                .or_else(|| Some(self.time.name().to_owned())),
            rti_version: facts.rti_version,
            mim_designator: facts.mim_designator,
            fom_modules: facts.fom_modules,
            federates,
            not_answering,
            synchronization_points: (self.sync_points.as_ref()).and_then(|s| s.report(self.handle)),
            save: facts.save,
            objects_per_class: (self.object_counts.as_ref())
                .map(|c| c.report(&self.model, self.members.keys().copied())),
        }
    }

    /// Leave the federation (the view owns nothing, so nothing is deleted or divested).
    pub fn resign(mut self) -> Result<()> {
        self.rti
            .resign_federation_execution(ResignAction::default())
            .map_err(|source| ViewError::Resign {
                federation: self.federation.clone(),
                source,
            })
    }
}

fn find_set_timing(model: &ObjectModel) -> Option<SetTiming> {
    let class = model.find_interaction_class("HLAmanager.HLAfederate.HLAadjust.HLAsetTiming")?;
    Some(SetTiming {
        class,
        federate: model.find_parameter(class, "HLAfederate")?,
        period: model.find_parameter(class, "HLAreportPeriod")?,
    })
}

/// The federation's model from the modules its registry lists. A module not found where
/// it is listed (the federation was created on another host, or from a model built into
/// its program) is looked for by file name in `fom_path`'s folders, then among `built_in`.
fn load_model(
    modules: &[String],
    fom_path: &[PathBuf],
    built_in: &[BuiltInModule],
) -> Result<Arc<ObjectModel>, MimError> {
    let read = |path: &Path| -> std::io::Result<Vec<u8>> {
        match std::fs::read(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                elsewhere(path, fom_path, built_in).ok_or(e)
            }
            other => other,
        }
    };
    Ok(Arc::new(ObjectModel::load_federation(modules, &read)?))
}

fn elsewhere(path: &Path, fom_path: &[PathBuf], built_in: &[BuiltInModule]) -> Option<Vec<u8>> {
    let file_name = path.file_name()?;
    let found = fom_path
        .iter()
        .find_map(|dir| std::fs::read(dir.join(file_name)).ok());
    found.or_else(|| {
        (built_in.iter())
            .find(|(name, _)| file_name == *name)
            .map(|(_, text)| text.as_bytes().to_vec())
    })
}
