use crate::error::NetError;
use thiserror::Error;
use trellis_core::federate::FederateError;
use trellis_core::fom::MimError;

/// Why an RTI service failed. Names follow the IEEE 1516-2010 exceptions.
#[derive(Debug, Error)]
pub enum RtiError {
    #[error(transparent)]
    Federate(#[from] FederateError),
    #[error("not connected: call connect first")]
    NotConnected,
    #[error("{0}")]
    ConnectionFailed(String),
    #[error("{0}")]
    InvalidLocalSettingsDesignator(String),
    #[error("this federate is joined to federation execution {0:?}: resign first")]
    FederateIsExecutionMember(String),
    /// CouldNotOpenFDD, ErrorReadingFDD, InconsistentFDD, CouldNotOpenMIM, ErrorReadingMIM:
    /// `MimError::kind` says which, its message names file, line and element.
    #[error(transparent)]
    ObjectModel(#[from] MimError),
    #[error(
        "the MIM designator is HLAstandardMIM: create without a MIM, which loads the standard \
         MIM (1516.1-2010 §4.5)"
    )]
    DesignatorIsHlaStandardMim,
    #[error("logical time implementation {0:?}: Trellis has HLAinteger64Time and HLAfloat64Time")]
    CouldNotCreateLogicalTimeFactory(String),
    #[error("federation execution {0:?} already exists")]
    FederationExecutionAlreadyExists(String),
    #[error("federation execution {0:?} does not exist")]
    FederationExecutionDoesNotExist(String),
    #[error("{0}")]
    FederatesCurrentlyJoined(String),
    #[error("inconsistent object model: {0}")]
    InconsistentFdd(String),
    #[error("{0}")]
    FederateNameAlreadyInUse(String),
    #[error("this federate has not joined a federation execution")]
    FederateNotExecutionMember,
    #[error("this federate has already joined federation execution {0:?}")]
    FederateAlreadyExecutionMember(String),
    #[error("object instance name {0:?} is already reserved")]
    ObjectInstanceNameInUse(String),
    #[error("the federation registry: {0}")]
    Registry(String),
    /// The registry refused for one of its limits (its totals, or what one node may create
    /// or join); the message names which. IEEE 1516.1-2010 has no closer exception than
    /// RTIinternalError for this.
    #[error("{0}")]
    LimitReached(String),
    /// The registry refused (a join) because the federation is saving (SaveInProgress).
    #[error("{0}")]
    SaveInProgress(String),
    /// … or restoring (RestoreInProgress).
    #[error("{0}")]
    RestoreInProgress(String),
    #[error("async callbacks need a thread-driven connection (Driver::Thread)")]
    AsyncNeedsThreadDriver,
    #[error(transparent)]
    Net(#[from] NetError),
}
