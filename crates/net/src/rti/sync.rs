//! Synchronization points and the federation's membership (IEEE 1516.1-2010 §4.11–4.14,
//! §10 support services). The registry orders them; see `trellis_core::registry`.

use super::reporting::Call;
use super::{RtiAmbassador, RtiError};
use trellis_core::registry::{Request, Response};

impl RtiAmbassador {
    /// registerFederationSynchronizationPoint; `members` empty: the whole federation,
    /// late joiners included. Success or failure arrives as a callback.
    pub fn register_federation_synchronization_point(
        &mut self,
        label: &str,
        tag: &[u8],
        members: &[u32],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "registerFederationSynchronizationPoint",
                &[&label, &tag, &members],
            ),
            |f| {
                f.register_synchronization_point(label, tag, members);
                Ok(())
            },
        )
    }

    /// synchronizationPointAchieved.
    pub fn synchronization_point_achieved(
        &mut self,
        label: &str,
        success: bool,
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("synchronizationPointAchieved", &[&label, &success]),
            |f| Ok(f.synchronization_point_achieved(label, success)?),
        )
    }

    /// getFederateHandle.
    pub fn federate_handle(&self, name: &str) -> Result<u32, RtiError> {
        Ok(self.federate()?.federate_handle(name)?)
    }

    /// getFederateName.
    pub fn federate_name_of(&self, handle: u32) -> Result<String, RtiError> {
        Ok(self.federate()?.federate_name(handle)?.to_owned())
    }

    /// listFederationExecutions: (name, logical time implementation name) of each.
    pub fn list_federation_executions(&mut self) -> Result<Vec<(String, String)>, RtiError> {
        match self.ask(Request::ListFederations)? {
            Response::Federations(list) => Ok(list),
            other => Err(Self::unexpected(other)),
        }
    }

    /// The object model modules this ambassador's federation was created with, as the
    /// creator named them: what a federate that joins without modules loads.
    pub fn federation_modules(&mut self) -> Result<Vec<String>, RtiError> {
        let request = Request::Modules {
            federation: self.federation().to_owned(),
        };
        match self.ask(request)? {
            Response::Modules(modules) => Ok(modules),
            other => Err(Self::unexpected(other)),
        }
    }
}
