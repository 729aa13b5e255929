//! A federate's RTI ambassador from connect to disconnect (IEEE 1516.1-2010 §4.2-§4.4):
//! what it holds between calls before and after it names a federation.
//!
//! The standard connects before it names a federation, while a Trellis node belongs to one
//! federation. So `connect` only checks that a router answers; a node is made on the first
//! service that names a federation (create, destroy, join) and kept for the joined
//! federation. Management calls for another federation while joined use a node of their
//! own for that call. The services of a joined federate are [`RtiAmbassador`]'s, reached
//! through [`Session::joined`].
//!
//! This is the one home of that state: the C ABI translates to it and keeps nothing else.

use super::designator::LocalSettings;
use super::modules::{federation_designators, joining_model, load_model};
use super::{EvokeBreaker, RtiAmbassador, RtiConfig, RtiError};
use crate::NodeConfig;
use std::collections::VecDeque;
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use trellis_core::federate::{Callback, ResignAction, TimeRepresentation};

/// How long `connect` waits for the router's TCP port to answer.
const CONNECT_PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// At most this many answers of the session's own (reportFederationExecutions) wait for
/// evoke; a federate that lists federations in a loop without evoking loses the oldest.
const MAX_ANSWERS: usize = 1024;

/// A federate's whole session as the C++ API sees it: connect, then create, join, resign
/// and destroy any federation through one object, and evoke its callbacks.
pub struct Session {
    /// `None` once disconnected (or the connection was lost).
    settings: Option<LocalSettings>,
    /// The node of the federation last named, joined or not.
    bound: Option<RtiAmbassador>,
    /// Callbacks the session makes itself, delivered before the federate's.
    answers: VecDeque<Callback>,
    callbacks_enabled: bool,
    automatic_resign: ResignAction,
    /// Breaks the wait of `evoke_callback` on the bound node, from another thread.
    evoke_breaker: EvokeBreaker,
}

impl Session {
    /// connect: check that a router answers where `settings` say (ConnectionFailed
    /// otherwise). The designator's text is [`LocalSettings::parse`]'s.
    pub fn connect(settings: LocalSettings) -> Result<Session, RtiError> {
        if let Some(address) = settings.endpoint.stream_addr() {
            TcpStream::connect_timeout(&address, CONNECT_PROBE_TIMEOUT).map_err(|e| {
                RtiError::ConnectionFailed(format!(
                    "no Trellis router answers at {}: {e}",
                    settings.endpoint
                ))
            })?;
        }
        Ok(Session {
            settings: Some(settings),
            bound: None,
            answers: VecDeque::new(),
            callbacks_enabled: true,
            automatic_resign: ResignAction::default(),
            evoke_breaker: EvokeBreaker::default(),
        })
    }

    /// Whether connect succeeded and no disconnect (or lost connection) followed.
    pub fn is_connected(&self) -> bool {
        self.settings.is_some()
    }

    /// Whether the session is joined to a federation execution.
    pub fn is_joined(&self) -> bool {
        self.joined_federation().is_some()
    }

    /// The federation this federate is joined to, if it is.
    fn joined_federation(&self) -> Option<&str> {
        let bound = self.bound.as_ref()?;
        bound.federate().ok().map(|_| bound.federation())
    }

    /// disconnect (§4.3): FederateIsExecutionMember while joined.
    pub fn disconnect(&mut self) -> Result<(), RtiError> {
        self.settings()?;
        if let Some(federation) = self.joined_federation() {
            return Err(RtiError::FederateIsExecutionMember(federation.to_owned()));
        }
        self.drop_connection();
        Ok(())
    }

    /// Resign by the automatic resign directive if joined, then disconnect: what the RTI
    /// does for a federate that goes away without resigning. Errors are logged: the
    /// federate is leaving either way.
    pub fn close(&mut self) {
        if self.is_joined() {
            let action = self.automatic_resign;
            if let Err(e) = self.resign_federation_execution(action) {
                tracing::warn!("automatic resign ({action:?}) failed: {e}");
            }
        }
        self.drop_connection();
    }

    fn drop_connection(&mut self) {
        self.bound = None;
        self.evoke_breaker.bind(None);
        self.settings = None;
        self.answers.clear();
    }

    fn settings(&self) -> Result<&LocalSettings, RtiError> {
        self.settings.as_ref().ok_or_else(|| RtiError::NotConnected)
    }

    fn open(&self, federation: &str) -> Result<RtiAmbassador, RtiError> {
        static NODES: AtomicU64 = AtomicU64::new(0);
        let settings = self.settings()?;
        let name = format!(
            "federate-{}-{}",
            std::process::id(),
            NODES.fetch_add(1, Ordering::Relaxed)
        );
        let mut node = NodeConfig::child_of(name, federation, settings.endpoint.clone());
        node.bundle_hold = settings.bundle_hold;
        node.tls = settings.tls.clone();
        let mut config = RtiConfig::new(node);
        config.driver = settings.driver;
        RtiAmbassador::connect(config).map_err(|e| RtiError::ConnectionFailed(e.to_string()))
    }

    /// Run a federation-management request on a node of `federation`: the bound one, a new
    /// bound one when not joined, or one for this call only while joined elsewhere.
    fn on_federation<T>(
        &mut self,
        federation: &str,
        request: impl FnOnce(&mut RtiAmbassador) -> Result<T, RtiError>,
    ) -> Result<T, RtiError> {
        self.settings()?;
        if let Some(rti) = self.bound.as_mut().filter(|b| b.federation() == federation) {
            return request(rti);
        }
        if self.is_joined() {
            return request(&mut self.open(federation)?);
        }
        let rti = self.bound.insert(self.open(federation)?);
        self.evoke_breaker.bind(Some(rti.wait_breaker()));
        request(rti)
    }

    /// The joined federate's ambassador: every service of a joined federate.
    pub fn joined(&mut self) -> Result<&mut RtiAmbassador, RtiError> {
        self.settings()?;
        match self.bound.as_mut() {
            Some(rti) if rti.federate().is_ok() => Ok(rti),
            _ => Err(RtiError::FederateNotExecutionMember),
        }
    }

    /// The joined federation's logical time representation.
    pub fn time_representation(&self) -> Option<TimeRepresentation> {
        let federate = self.bound.as_ref()?.federate().ok()?;
        Some(federate.time_representation())
    }

    // ---- federation management (§4.5-§4.10) -------------------------------------------

    /// createFederationExecution(WithMIM): FOM module paths (relative to the working
    /// directory) or file:// URLs; `mim` a MIM of the federation's own (None: the
    /// standard's); `time_implementation` None, "HLAinteger64Time" or "HLAfloat64Time".
    pub fn create_federation_execution<S: AsRef<str>>(
        &mut self,
        federation: &str,
        fom_modules: &[S],
        mim: Option<&str>,
        time_implementation: Option<&str>,
    ) -> Result<(), RtiError> {
        let time = match time_implementation.filter(|name| !name.is_empty()) {
            None => TimeRepresentation::Integer64,
            Some(name) => TimeRepresentation::from_name(name)
                .ok_or_else(|| RtiError::CouldNotCreateLogicalTimeFactory(name.to_owned()))?,
        };
        let designators = federation_designators(fom_modules, mim)?;
        let model = load_model(&designators)?;
        self.on_federation(federation, |rti| {
            rti.create_federation_execution_with_modules(&model, time, designators)
        })
    }

    /// destroyFederationExecution of `federation`.
    pub fn destroy_federation_execution(&mut self, federation: &str) -> Result<(), RtiError> {
        self.on_federation(federation, |rti| rti.destroy_federation_execution())
    }

    /// listFederationExecutions: the federations and their logical time implementations,
    /// returned and queued as the reportFederationExecutions callback (§4.8).
    pub fn list_federation_executions(&mut self) -> Result<Vec<(String, String)>, RtiError> {
        let federation = (self.bound.as_ref())
            .map(|b| b.federation().to_owned())
            .unwrap_or_default();
        let federations =
            self.on_federation(&federation, |rti| rti.list_federation_executions())?;
        if self.answers.len() == MAX_ANSWERS {
            self.answers.pop_front();
        }
        self.answers
            .push_back(Callback::ReportFederationExecutions {
                federations: federations.clone(),
            });
        Ok(federations)
    }

    /// joinFederationExecution: the federation's modules, as its registry lists them, are
    /// loaded; `additional_modules` extend the federation's model for every member, or fail
    /// with InconsistentFDD when they would change it (§4.9). No name: the RTI makes one.
    /// Returns the federate handle.
    pub fn join_federation_execution<S: AsRef<str>>(
        &mut self,
        federate_name: Option<&str>,
        federate_type: &str,
        federation: &str,
        additional_modules: &[S],
    ) -> Result<u32, RtiError> {
        if let Some(federation) = self.joined_federation() {
            return Err(RtiError::FederateAlreadyExecutionMember(
                federation.to_owned(),
            ));
        }
        let name = federate_name.map_or_else(generated_name, str::to_owned);
        self.on_federation(federation, |rti| {
            let joining = joining_model(rti, additional_modules)?;
            rti.join_federation_execution_with_modules(
                &name,
                federate_type,
                joining.model,
                joining.modules,
            )
        })
    }

    /// resignFederationExecution with the standard's action for owned attributes.
    pub fn resign_federation_execution(&mut self, action: ResignAction) -> Result<(), RtiError> {
        self.joined()?.resign_federation_execution(action)
    }

    /// setAutomaticResignDirective (§10.3): what [`Session::close`] does for a federate
    /// still joined.
    pub fn set_automatic_resign_directive(&mut self, action: ResignAction) -> Result<(), RtiError> {
        self.joined()?;
        self.automatic_resign = action;
        Ok(())
    }

    /// getAutomaticResignDirective (§10.2).
    pub fn automatic_resign_directive(&mut self) -> Result<ResignAction, RtiError> {
        self.joined()?;
        Ok(self.automatic_resign)
    }

    // ---- callbacks (the support services of §10) ----------------------------------------------------

    /// enableCallbacks (true) / disableCallbacks (false): while disabled, evoke delivers
    /// nothing and nothing counts as pending; what arrives waits.
    pub fn enable_callbacks(&mut self, enabled: bool) -> Result<(), RtiError> {
        self.settings()?;
        self.callbacks_enabled = enabled;
        Ok(())
    }

    /// Whether callbacks are enabled (enableCallbacks / disableCallbacks).
    pub fn callbacks_enabled(&self) -> bool {
        self.callbacks_enabled
    }

    /// Whether evoke has nothing to wait for: not joined, or callbacks disabled (only a
    /// service call can change that; a caller that waits sleeps rather than polls).
    pub fn is_idle(&self) -> bool {
        !self.callbacks_enabled || !self.is_joined()
    }

    /// The next callback within `timeout`: the session's own answers first, then the
    /// joined federate's. A connectionLost is the last (§4.4): the session is disconnected
    /// after it. Not joined, or callbacks disabled: `None` at once.
    pub fn evoke_callback(&mut self, timeout: Duration) -> Result<Option<Callback>, RtiError> {
        if !self.callbacks_enabled {
            return Ok(None);
        }
        if let Some(answer) = self.answers.pop_front() {
            return Ok(Some(answer));
        }
        if !self.is_joined() {
            return Ok(None);
        }
        // Returned as the ambassador made it: a move of the callback costs as much as the
        // rest of this function (`RtiAmbassador::evoke_callback`).
        let callback = self.joined()?.evoke_callback(timeout);
        if let Ok(Some(Callback::ConnectionLost { .. })) = callback {
            self.drop_connection();
        }
        callback
    }

    /// What another thread uses to end a wait of `evoke_callback` (see [`EvokeBreaker`]):
    /// taken once, it follows the session from federation to federation.
    pub fn evoke_breaker(&self) -> EvokeBreaker {
        self.evoke_breaker.clone()
    }

    /// Whether callbacks are pending: answers waiting, or callbacks queued in the federate
    /// (what the network has not delivered yet does not count: looking would cost a read).
    pub fn callbacks_pending(&self) -> bool {
        let queued = (self.bound.as_ref()).is_some_and(|b| b.callbacks_queued());
        self.callbacks_enabled && (!self.answers.is_empty() || queued)
    }
}

impl Drop for Session {
    /// A federate that goes away joined is resigned by its automatic resign directive.
    fn drop(&mut self) {
        self.close();
    }
}

fn generated_name() -> String {
    static NAMES: AtomicU64 = AtomicU64::new(0);
    format!(
        "federate-{}-{}",
        std::process::id(),
        NAMES.fetch_add(1, Ordering::Relaxed)
    )
}
