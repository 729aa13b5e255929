//! Object management services a federate written for another RTI expects: reserving and
//! releasing several names at once (IEEE 1516.1-2010 §6.5-§6.7), deleting an instance locally (§6.15), and
//! instances by name and names by instance (§10.9, §10.10).

use super::reporting::Call;
use super::{RtiAmbassador, RtiError};
use trellis_core::federate::{Federate, FederateError, InstanceName, ObjectId};
use trellis_core::registry::{Request, Response};

impl RtiAmbassador {
    /// reserveMultipleObjectInstanceName (1516.1-2010 §6.6): all or none. When the registry
    /// refuses one name, those it reserved in this call are released again, the failure
    /// callback is queued and ObjectInstanceNameInUse names the refused one.
    pub fn reserve_multiple_object_instance_names(
        &mut self,
        names: &[&str],
    ) -> Result<(), RtiError> {
        if names.is_empty() {
            return Err(FederateError::NameSetWasEmpty.into());
        }
        for name in names {
            Federate::check_reservable_name(name)?;
        }
        let mut refused = None;
        let mut reserved_here = Vec::new();
        for name in names {
            if self.ask_to_reserve(name)? {
                reserved_here.push(*name);
            } else {
                refused = Some((*name).to_owned());
                break;
            }
        }
        if refused.is_some() {
            for name in &reserved_here {
                self.ask_to_release(name)?;
            }
        }
        let owned = names.iter().map(|n| (*n).to_owned()).collect();
        self.with(
            Call::new("reserveMultipleObjectInstanceNames", &[&names]),
            |f| {
                f.names_reservation_answered(owned, refused.is_none());
                Ok(())
            },
        )?;
        match refused {
            Some(name) => Err(RtiError::ObjectInstanceNameInUse(name)),
            None => Ok(()),
        }
    }

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
        for name in names {
            self.ask_to_release(name)?;
            self.with(
                Call::new("releaseMultipleObjectInstanceNames", &[&names]),
                |f| {
                    f.name_released(name);
                    Ok(())
                },
            )?;
        }
        Ok(())
    }

    /// Give a reserved name back to the registry.
    fn ask_to_release(&mut self, name: &str) -> Result<(), RtiError> {
        let request = Request::ReleaseName {
            federation: self.federation.clone(),
            federate: self.federate()?.handle(),
            name: name.to_owned(),
        };
        match self.ask_as_member(request)? {
            Response::Ack => Ok(()),
            other => Err(Self::unexpected(other)),
        }
    }

    /// localDeleteObjectInstance: this federate forgets `object` as if it had never
    /// discovered it; its next update discovers it again.
    pub fn local_delete_object_instance(&mut self, object: ObjectId) -> Result<(), RtiError> {
        self.with(Call::new("localDeleteObjectInstance", &[&object]), |f| {
            Ok(f.local_delete_object_instance(object)?)
        })
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
