//! Joining and leaving (IEEE 1516.1-2010 §4.5-4.10): create, destroy, join (with
//! additional FOM modules, §4.9, and the extension of the model they bring to every
//! member), resign.

use super::reporting::Call;
use super::{Joined, RtiAmbassador, RtiError};
use roaring::RoaringBitmap;
use std::sync::Arc;
use trellis_core::federate::{Federate, ResignAction, TimeRepresentation};
use trellis_core::fom::ObjectModel;
use trellis_core::registry::{Request, Response};

impl RtiAmbassador {
    /// Create the federation execution with this object model, on HLAinteger64Time.
    pub fn create_federation_execution(&mut self, model: &ObjectModel) -> Result<(), RtiError> {
        self.create_federation_execution_with_time(model, TimeRepresentation::Integer64)
    }

    /// Create the federation execution with this object model and logical time
    /// representation (the standard's logical time implementation name).
    pub fn create_federation_execution_with_time(
        &mut self,
        model: &ObjectModel,
        time: TimeRepresentation,
    ) -> Result<(), RtiError> {
        self.create_federation_execution_with_modules(model, time, model.modules().to_vec())
    }

    /// Create the federation execution with `model`, loaded from `modules`
    /// ([`ObjectModel::federation_designators`]): the list a federate that joins without
    /// modules loads ([`RtiAmbassador::federation_modules`]).
    pub fn create_federation_execution_with_modules(
        &mut self,
        model: &ObjectModel,
        time: TimeRepresentation,
        modules: Vec<String>,
    ) -> Result<(), RtiError> {
        log_model_warnings(model);
        let request = Request::Create {
            federation: self.federation.clone(),
            fingerprint: Federate::fingerprint(model, self.bins),
            modules,
            time_representation: time.name().to_owned(),
        };
        match self.ask(request)? {
            Response::Created => Ok(()),
            other => Err(Self::unexpected(other)),
        }
    }

    /// destroyFederationExecution of this connection's federation.
    pub fn destroy_federation_execution(&mut self) -> Result<(), RtiError> {
        let request = Request::Destroy {
            federation: self.federation.clone(),
        };
        match self.ask(request)? {
            Response::Destroyed => Ok(()),
            other => Err(Self::unexpected(other)),
        }
    }

    /// Join with an object model that must match the federation's. Returns the federate
    /// handle, unique within the federation.
    pub fn join_federation_execution(
        &mut self,
        federate_name: &str,
        federate_type: &str,
        model: Arc<ObjectModel>,
    ) -> Result<u32, RtiError> {
        self.join_federation_execution_with_modules(federate_name, federate_type, model, Vec::new())
    }

    /// Join with additional FOM modules (1516.1-2010 §4.9): `model` was loaded from
    /// `modules`, the federation's own ([`RtiAmbassador::federation_modules`]) followed by
    /// the additions, and must extend the federation's model ([`ObjectModel::extension_of`]).
    /// Every member takes the extended model on. `modules` empty: as
    /// [`RtiAmbassador::join_federation_execution`].
    pub fn join_federation_execution_with_modules(
        &mut self,
        federate_name: &str,
        federate_type: &str,
        model: Arc<ObjectModel>,
        modules: Vec<String>,
    ) -> Result<u32, RtiError> {
        if self.joined.is_some() {
            return Err(RtiError::FederateAlreadyExecutionMember(
                self.federation.clone(),
            ));
        }
        log_model_warnings(&model);
        // Before the join: a member always knows what it may publish and subscribe to.
        let rights = match self.ask(Request::ClassRights {
            federation: self.federation.clone(),
        })? {
            Response::ClassRights(rights) => rights,
            other => return Err(Self::unexpected(other)),
        };
        let request = Request::Join {
            federation: self.federation.clone(),
            federate_name: federate_name.to_owned(),
            federate_type: federate_type.to_owned(),
            fingerprint: Federate::fingerprint(&model, self.bins),
            modules: modules.clone(),
        };
        let modules_joined = modules;
        let (handle, snapshot) = match self.ask(request)? {
            Response::Joined { federate, snapshot } => (federate, snapshot),
            other => return Err(Self::unexpected(other)),
        };
        let identity = super::mom::identity(&model, &modules_joined, &snapshot);
        let mut federate = Federate::new(model, handle, self.bins)?;
        if !self.mom {
            federate.disable_mom();
        }
        federate.set_class_rights(rights);
        federate.apply_join(&self.federation, &snapshot);
        federate.set_mom_identity(identity);
        self.forget_link_losses();
        self.joined = Some(Joined {
            federate,
            name: federate_name.to_owned(),
        });
        Ok(handle)
    }

    /// A joiner extended the federation's model: load it from `modules` and take it on.
    /// (Its warnings were the joiner's to log.)
    pub(super) fn extend_model(&mut self, modules: &[String], fingerprint: u64) {
        let bins = self.bins;
        let Some(joined) = self.joined.as_mut() else {
            return;
        };
        let loaded = ObjectModel::load_federation(modules, &|path| std::fs::read(path))
            .map_err(|e| e.to_string())
            .and_then(|model| {
                if Federate::fingerprint(&model, bins) == fingerprint {
                    Ok(model)
                } else {
                    Err("the modules load here into another model than the joiner's".to_owned())
                }
            });
        let result = loaded.and_then(|model| {
            joined
                .federate
                .extend_model(Arc::new(model))
                .map_err(|e| e.to_string())
        });
        if let Err(why) = result {
            tracing::warn!(federation = %self.federation, "{why}");
            joined.federate.model_extension_failed(modules, &why);
        }
    }

    /// Carry out `action` (see [`ResignAction`]; its default deletes the instances this
    /// federate may delete, as resigning always did) and leave the federation. Fails, still
    /// joined, when the action leaves attributes owned or acquisitions pending.
    pub fn resign_federation_execution(&mut self, action: ResignAction) -> Result<(), RtiError> {
        // Resigning is allowed during a save: the save then fails (FederateResignedDuringSave).
        let now = self.wall.unix_nanos();
        self.with_during_save(Call::new("resignFederationExecution", &[&action]), |f| {
            Ok(f.resign(action, now)?)
        })?;
        // Regulating and constrained federates stop waiting for this one once its last
        // time-stamped message is in.
        self.with_during_save(Call::INTERNAL, |f| {
            f.depart();
            Ok(())
        })?;
        let handle = self.federate()?.handle();
        let request = Request::Resign {
            federation: self.federation.clone(),
            federate: handle,
        };
        let answer = self.ask_as_member(request);
        self.joined = None;
        self.link.set_interest(&RoaringBitmap::new())?;
        match answer? {
            Response::Resigned => Ok(()),
            other => Err(Self::unexpected(other)),
        }
    }
}

/// What an object model loaded with, once per create or join: sloppiness that changes
/// nothing at run time (see `ObjectModel::warnings`), which the common RTIs load too.
fn log_model_warnings(model: &ObjectModel) {
    for warning in model.warnings() {
        tracing::warn!("object model: {warning}");
    }
}
