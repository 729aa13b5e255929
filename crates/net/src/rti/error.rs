use crate::error::NetError;
use thiserror::Error;
use trellis_core::federate::{variant_name, FederateError};
use trellis_core::fom::{FddErrorKind, MimError, MimErrorKind};

/// Why an RTI service failed. Names follow the IEEE 1516-2010 exceptions.
#[derive(Debug, Error)]
pub enum RtiError {
    /// A federate service refused by the federate state machine (its own exception names).
    #[error(transparent)]
    Federate(#[from] FederateError),
    /// NotConnected: a service that needs a connection was called before connect.
    #[error("not connected: call connect first")]
    NotConnected,
    /// ConnectionFailed: no router answered, or the link could not be made.
    #[error("{0}")]
    ConnectionFailed(String),
    /// InvalidLocalSettingsDesignator: the designator does not parse; the text says why.
    #[error("{0}")]
    InvalidLocalSettingsDesignator(String),
    /// FederateIsExecutionMember: disconnect while joined.
    #[error("this federate is joined to federation execution {0:?}: resign first")]
    FederateIsExecutionMember(String),
    /// CouldNotOpenFDD, ErrorReadingFDD, InconsistentFDD, CouldNotOpenMIM, ErrorReadingMIM:
    /// `MimError::kind` says which, its message names file, line and element.
    #[error(transparent)]
    ObjectModel(#[from] MimError),
    /// DesignatorIsHLAstandardMIM: a MIM designator naming the standard MIM itself.
    #[error(
        "the MIM designator is HLAstandardMIM: create without a MIM, which loads the standard \
         MIM (1516.1-2010 §4.5)"
    )]
    DesignatorIsHlaStandardMim,
    /// CouldNotCreateLogicalTimeFactory: an unknown logical time implementation name.
    #[error("logical time implementation {0:?}: Trellis has HLAinteger64Time and HLAfloat64Time")]
    CouldNotCreateLogicalTimeFactory(String),
    /// FederationExecutionAlreadyExists.
    #[error("federation execution {0:?} already exists")]
    FederationExecutionAlreadyExists(String),
    /// FederationExecutionDoesNotExist.
    #[error("federation execution {0:?} does not exist")]
    FederationExecutionDoesNotExist(String),
    /// FederatesCurrentlyJoined: destroy while members remain; the text names them.
    #[error("{0}")]
    FederatesCurrentlyJoined(String),
    /// InconsistentFDD: a joining federate's modules conflict with the federation's.
    #[error("inconsistent object model: {0}")]
    InconsistentFdd(String),
    /// FederateNameAlreadyInUse.
    #[error("{0}")]
    FederateNameAlreadyInUse(String),
    /// FederateNotExecutionMember: a service that needs a joined federate.
    #[error("this federate has not joined a federation execution")]
    FederateNotExecutionMember,
    /// FederateAlreadyExecutionMember: join twice.
    #[error("this federate has already joined federation execution {0:?}")]
    FederateAlreadyExecutionMember(String),
    /// ObjectInstanceNameInUse.
    #[error("object instance name {0:?} is already reserved")]
    ObjectInstanceNameInUse(String),
    /// The registry answered something this service cannot use (RTIinternalError).
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
    /// Async callbacks asked of a federate driven on the caller's thread.
    #[error("async callbacks need a thread-driven connection (Driver::Thread)")]
    AsyncNeedsThreadDriver,
    /// The network layer failed (a node that stopped, a timeout, TLS).
    #[error(transparent)]
    Net(#[from] NetError),
}

impl RtiError {
    /// The IEEE 1516.1-2010 exception this error stands for, as the Python API raises it
    /// and the MOM reports it.
    pub fn exception_name(&self) -> String {
        let name = match self {
            RtiError::Federate(inner) => return inner.exception_name(),
            RtiError::ObjectModel(mim) => match mim.kind() {
                MimErrorKind::CouldNotOpenMim => "CouldNotOpenMIM",
                MimErrorKind::ErrorReadingMim => "ErrorReadingMIM",
                MimErrorKind::Fdd(kind) => fdd_exception_name(kind),
            },
            RtiError::NotConnected => "NotConnected",
            RtiError::ConnectionFailed(_) | RtiError::Net(_) => "ConnectionFailed",
            RtiError::InconsistentFdd(_) => "InconsistentFDD",
            RtiError::Registry(_)
            | RtiError::LimitReached(_)
            | RtiError::AsyncNeedsThreadDriver => "RTIinternalError",
            RtiError::DesignatorIsHlaStandardMim => "DesignatorIsHLAstandardMIM",
            other => return variant_name(&format!("{other:?}")).to_owned(),
        };
        name.to_owned()
    }
}

/// The standard's name for an object model that could not be read.
pub fn fdd_exception_name(kind: FddErrorKind) -> &'static str {
    match kind {
        FddErrorKind::CouldNotOpen => "CouldNotOpenFDD",
        FddErrorKind::ErrorReading => "ErrorReadingFDD",
        FddErrorKind::Inconsistent => "InconsistentFDD",
    }
}
