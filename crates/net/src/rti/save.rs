//! Federation save and restore (IEEE 1516.1-2010 §4.16–4.31). The registry orders them and
//! each federate's RTI component keeps its own part (`trellis_core::federate::save`); the
//! outcomes arrive as `Callback::Save` callbacks. These services are allowed while a save
//! or restore is in progress; the others raise SaveInProgress or RestoreInProgress then.

use super::reporting::Call;
use super::{RtiAmbassador, RtiError};
use trellis_core::federate::LogicalTime;

impl RtiAmbassador {
    /// requestFederationSave; `time`: a timed save, initiated at each time-constrained
    /// federate when its logical time reaches it.
    pub fn request_federation_save(
        &mut self,
        label: &str,
        time: Option<LogicalTime>,
    ) -> Result<(), RtiError> {
        self.with(Call::new("requestFederationSave", &[&label, &time]), |f| {
            Ok(f.request_federation_save(label, time)?)
        })
    }

    /// federateSaveBegun.
    pub fn federate_save_begun(&mut self) -> Result<(), RtiError> {
        self.with_during_save(Call::new("federateSaveBegun", &[]), |f| {
            Ok(f.federate_save_begun()?)
        })
    }

    /// federateSaveComplete (`success`) or federateSaveNotComplete.
    pub fn federate_save_complete(&mut self, success: bool) -> Result<(), RtiError> {
        self.with_during_save(Call::new("federateSaveComplete", &[&success]), |f| {
            Ok(f.federate_save_complete(success)?)
        })
    }

    /// abortFederationSave.
    pub fn abort_federation_save(&mut self) -> Result<(), RtiError> {
        self.with_during_save(Call::new("abortFederationSave", &[]), |f| {
            Ok(f.abort_federation_save()?)
        })
    }

    /// queryFederationSaveStatus: answered by federationSaveStatusResponse.
    pub fn query_federation_save_status(&mut self) -> Result<(), RtiError> {
        self.with_during_save(Call::new("queryFederationSaveStatus", &[]), |f| {
            f.query_federation_save_status();
            Ok(())
        })
    }

    /// requestFederationRestore: answered by requestFederationRestoreSucceeded or Failed.
    pub fn request_federation_restore(&mut self, label: &str) -> Result<(), RtiError> {
        self.with(Call::new("requestFederationRestore", &[&label]), |f| {
            Ok(f.request_federation_restore(label)?)
        })
    }

    /// federateRestoreComplete (`success`) or federateRestoreNotComplete.
    pub fn federate_restore_complete(&mut self, success: bool) -> Result<(), RtiError> {
        self.with_during_save(Call::new("federateRestoreComplete", &[&success]), |f| {
            Ok(f.federate_restore_complete(success)?)
        })
    }

    /// abortFederationRestore.
    pub fn abort_federation_restore(&mut self) -> Result<(), RtiError> {
        self.with_during_save(Call::new("abortFederationRestore", &[]), |f| {
            Ok(f.abort_federation_restore()?)
        })
    }

    /// queryFederationRestoreStatus: answered by federationRestoreStatusResponse.
    pub fn query_federation_restore_status(&mut self) -> Result<(), RtiError> {
        self.with_during_save(Call::new("queryFederationRestoreStatus", &[]), |f| {
            f.query_federation_restore_status();
            Ok(())
        })
    }
}
