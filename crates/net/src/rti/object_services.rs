//! Object management services a federate written for another RTI expects: releasing
//! reserved names (IEEE 1516.1-2010 §6.5, §6.7), deleting an instance locally (§6.15), and
//! instances by name and names by instance (§10.9, §10.10).

use super::{RtiAmbassador, RtiError};
use trellis_core::federate::{InstanceName, ObjectId};
use trellis_core::registry::{Request, Response};

impl RtiAmbassador {
    /// releaseObjectInstanceName: the name may then be reserved by any federate.
    pub fn release_object_instance_name(&mut self, name: &str) -> Result<(), RtiError> {
        self.release_multiple_object_instance_names(&[name])
    }

    /// releaseMultipleObjectInstanceName: all or none; every name must be reserved by this
    /// federate (ObjectInstanceNameNotReserved otherwise, nothing released).
    pub fn release_multiple_object_instance_names(
        &mut self,
        names: &[&str],
    ) -> Result<(), RtiError> {
        self.federate()?
            .check_names_reserved(names.iter().copied())?;
        let handle = self.federate()?.handle();
        for name in names {
            let request = Request::ReleaseName {
                federation: self.federation.clone(),
                federate: handle,
                name: (*name).to_owned(),
            };
            match self.ask_as_member(request)? {
                Response::Ack => self.with(|f| {
                    f.name_released(name);
                    Ok(())
                })?,
                other => return Err(Self::unexpected(other)),
            }
        }
        Ok(())
    }

    /// localDeleteObjectInstance: this federate forgets `object` as if it had never
    /// discovered it; its next update discovers it again.
    pub fn local_delete_object_instance(&mut self, object: ObjectId) -> Result<(), RtiError> {
        self.with(|f| Ok(f.local_delete_object_instance(object)?))
    }

    /// getObjectInstanceHandle: the instance this federate registered or discovered under
    /// `name` (its given name, or its id's default one).
    pub fn object_instance_handle(&self, name: &str) -> Result<ObjectId, RtiError> {
        Ok(self.federate()?.object_instance_handle(name)?)
    }

    /// getObjectInstanceName: the name of an instance this federate registered or
    /// discovered.
    pub fn object_instance_name(&self, object: ObjectId) -> Result<InstanceName, RtiError> {
        Ok(self.federate()?.object_instance_name(object)?)
    }
}
