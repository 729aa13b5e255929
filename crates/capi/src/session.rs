//! What one ambassador holds between calls: where the router is, the node bound to a
//! federation, the joined federate, and the callbacks the library makes itself.
//!
//! IEEE 1516.1-2010 connects before it names a federation, while a Trellis node belongs to
//! one federation. So `connect` only checks that a router answers; the node is made on the
//! first service that names a federation (create, destroy, join) and kept for the joined
//! federation. Management calls for another federation while joined use a node of their
//! own for that call.

use crate::designator::Designator;
use crate::status::{
    Failure, TRELLIS_ERR_CONNECTION_FAILED, TRELLIS_ERR_FEDERATE_NOT_EXECUTION_MEMBER,
    TRELLIS_ERR_NOT_CONNECTED,
};
use std::collections::VecDeque;
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use trellis_core::federate::{Callback, ResignAction, TimeRepresentation};
use trellis_core::fom::ObjectModel;
use trellis_core::wire::TransportClass;
use trellis_net::rti::{Driver, RtiAmbassador, RtiConfig, RtiError};
use trellis_net::{Endpoint, NodeConfig};

/// How long `connect` waits for the router's TCP port to answer.
const CONNECT_PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Callbacks the library produces itself (answers to calls, not messages).
pub(crate) enum LocalCallback {
    FederationExecutions(Vec<(String, String)>),
    NameReserved(String),
    NameRefused(String),
    NamesReserved(Vec<String>),
    NamesRefused(Vec<String>),
    /// confirmAttributeTransportationTypeChange: (object, attributes, transport).
    AttributeTransportChanged(u64, Vec<u64>, TransportClass),
    /// reportAttributeTransportationType: (object, attribute, transport).
    AttributeTransport(u64, u64, TransportClass),
    /// confirmInteractionTransportationTypeChange: (class, transport).
    InteractionTransportChanged(u64, TransportClass),
    /// reportInteractionTransportationType: (federate, class, transport).
    InteractionTransport(u64, u64, TransportClass),
}

pub(crate) struct Session {
    endpoint: Option<Endpoint>,
    driver: Driver,
    /// `NodeConfig::bundle_hold` of the nodes it opens.
    bundle_hold: Duration,
    /// For a `tls://` router: what to trust and present.
    tls: Option<trellis_net::TlsConfig>,
    bound: Option<RtiAmbassador>,
    joined: bool,
    pub time: TimeRepresentation,
    pub local: VecDeque<LocalCallback>,
    /// Callbacks taken from the federate (a batch per lock, or to learn whether more are
    /// pending), delivered first.
    pub stash: VecDeque<Callback>,
    pub callbacks_enabled: bool,
    pub automatic_resign: ResignAction,
}

impl Session {
    pub fn new() -> Session {
        Session {
            endpoint: None,
            driver: Driver::Direct,
            bundle_hold: trellis_net::DEFAULT_BUNDLE_HOLD,
            tls: None,
            bound: None,
            joined: false,
            time: TimeRepresentation::Integer64,
            local: VecDeque::new(),
            stash: VecDeque::new(),
            callbacks_enabled: true,
            automatic_resign: ResignAction::default(),
        }
    }

    pub fn is_connected(&self) -> bool {
        self.endpoint.is_some()
    }

    pub fn is_joined(&self) -> bool {
        self.joined
    }

    /// Check the router answers at `endpoint` and remember it, and how nodes are driven.
    pub fn connect(&mut self, designator: Designator) -> Result<(), Failure> {
        let Designator {
            endpoint,
            driver,
            bundle_hold,
            tls,
        } = designator;
        self.driver = driver;
        self.bundle_hold = bundle_hold;
        self.tls = tls;
        if let Some(address) = endpoint.stream_addr() {
            TcpStream::connect_timeout(&address, CONNECT_PROBE_TIMEOUT).map_err(|e| {
                Failure::new(
                    TRELLIS_ERR_CONNECTION_FAILED,
                    format!("no Trellis router answers at {endpoint}: {e}"),
                )
            })?;
        }
        self.endpoint = Some(endpoint);
        Ok(())
    }

    pub fn disconnect(&mut self) {
        self.bound = None;
        self.endpoint = None;
        self.joined = false;
        self.stash.clear();
        self.local.clear();
    }

    fn endpoint(&self) -> Result<&Endpoint, Failure> {
        self.endpoint.as_ref().ok_or_else(|| {
            Failure::new(
                TRELLIS_ERR_NOT_CONNECTED,
                "not connected: call connect first",
            )
        })
    }

    fn open(&self, federation: &str) -> Result<RtiAmbassador, Failure> {
        static NODES: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "federate-{}-{}",
            std::process::id(),
            NODES.fetch_add(1, Ordering::Relaxed)
        );
        let mut node = NodeConfig::child_of(name, federation, self.endpoint()?.clone());
        node.bundle_hold = self.bundle_hold;
        node.tls = self.tls.clone();
        let mut config = RtiConfig::new(node);
        config.driver = self.driver;
        RtiAmbassador::connect(config).map_err(|e| {
            let mut failure = Failure::from(e);
            failure.status = TRELLIS_ERR_CONNECTION_FAILED;
            failure
        })
    }

    /// Run a federation-management request for `federation` on a node of that federation.
    pub fn manage<T>(
        &mut self,
        federation: &str,
        request: impl FnOnce(&mut RtiAmbassador) -> Result<T, RtiError>,
    ) -> Result<T, Failure> {
        self.endpoint()?;
        let bound_here = self
            .bound
            .as_ref()
            .is_some_and(|b| b.federation() == federation);
        if bound_here {
            let rti = self.bound.as_mut().expect("bound");
            return request(rti).map_err(Failure::from);
        }
        if self.joined {
            let mut own = self.open(federation)?;
            return request(&mut own).map_err(Failure::from);
        }
        self.bound = Some(self.open(federation)?);
        let rti = self.bound.as_mut().expect("just bound");
        request(rti).map_err(Failure::from)
    }

    pub fn set_joined(&mut self, joined: bool) {
        self.joined = joined;
        if !joined {
            self.stash.clear();
        }
    }

    /// The joined federate's ambassador.
    pub fn joined(&mut self) -> Result<&mut RtiAmbassador, Failure> {
        self.endpoint()?;
        match self.bound.as_mut() {
            Some(rti) if self.joined => Ok(rti),
            _ => Err(Failure::new(
                TRELLIS_ERR_FEDERATE_NOT_EXECUTION_MEMBER,
                "this federate has not joined a federation execution",
            )),
        }
    }

    /// The joined federate's object model (extended when a joiner adds modules).
    pub fn model(&mut self) -> Result<Arc<ObjectModel>, Failure> {
        Ok(self.joined()?.federate()?.model().clone())
    }
}
