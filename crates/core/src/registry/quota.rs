//! What one identity may hold in the registry, so that no single one can exhaust it.
//!
//! The registry's totals (`MAX_FEDERATIONS`, `MAX_FEDERATES` per federation) bound its
//! memory, but one asker alone could fill them: create every federation the registry
//! holds, after which nobody else can create one. So each holder may have created at most
//! `federations_per_creator` of the federations that exist, and have at most
//! `federates_per_node` federates joined across all federations. The holder is the
//! certificate name the request's first router proved (`ManageFrame::asker`), so one
//! identity's nodes share one allowance; over links without certificates it is the node
//! the request came from. A refusal is `ErrorKind::LimitReached` with a message naming the
//! holder and the limit; the federate API raises it as RTIinternalError with that message
//! (IEEE 1516.1-2010 lists no closer exception for createFederationExecution or
//! joinFederationExecution).
//!
//! A federation recreated by a reclaim after a registry restart has no known creator, and a
//! reclaim is not refused for these limits: it restores what was already admitted.

use super::{error, ErrorKind, FederateRecord, Registry, Response};
use crate::wire::NodeId;
use std::fmt;

/// Whom the limits count against: a proven identity, else a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Holder {
    Identity(String),
    Node(NodeId),
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holder::Identity(name) => write!(f, "{name:?}"),
            Holder::Node(node) => write!(f, "node {node}"),
        }
    }
}

impl Holder {
    /// Whom a request from `origin`, whose link proved `asker` (if any), counts against.
    pub(super) fn of(origin: NodeId, asker: Option<&str>) -> Holder {
        match asker {
            Some(name) => Holder::Identity(name.to_owned()),
            None => Holder::Node(origin),
        }
    }

    fn holds(&self, federate: &FederateRecord) -> bool {
        match self {
            Holder::Identity(name) => federate.identity.as_ref() == Some(name),
            Holder::Node(node) => federate.identity.is_none() && federate.node == Some(*node),
        }
    }
}

/// `RegistryLimits::federations_per_creator` unless configured otherwise.
pub const DEFAULT_FEDERATIONS_PER_CREATOR: usize = 64;
/// `RegistryLimits::federates_per_node` unless configured otherwise.
pub const DEFAULT_FEDERATES_PER_NODE: usize = 1024;

/// Per-node limits of the registry (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegistryLimits {
    /// Most existing federations one node may have created.
    pub federations_per_creator: usize,
    /// Most federates one node may have joined at once, across all federations.
    pub federates_per_node: usize,
}

impl Default for RegistryLimits {
    fn default() -> RegistryLimits {
        RegistryLimits {
            federations_per_creator: DEFAULT_FEDERATIONS_PER_CREATOR,
            federates_per_node: DEFAULT_FEDERATES_PER_NODE,
        }
    }
}

impl Registry {
    /// Apply per-node limits from now on (what is held already stays).
    pub fn set_limits(&mut self, limits: RegistryLimits) {
        self.limits = limits;
    }

    /// The per-node limits in force.
    pub fn limits(&self) -> RegistryLimits {
        self.limits
    }

    /// createFederationExecution for node `origin`, whose link proved `asker` (if any),
    /// within its holder's limit; the federation remembers its creator.
    pub(super) fn create_by(
        &mut self,
        (origin, asker): (NodeId, Option<&str>),
        federation: String,
        fingerprint: u64,
        modules: Vec<String>,
        time_representation: String,
    ) -> Response {
        // An existing name is refused as such, whatever the creator holds.
        let holder = Holder::of(origin, asker);
        if !self.federations.contains_key(&federation) {
            if let Some(refusal) = self.creation_refusal(&holder) {
                return refusal;
            }
        }
        let name = federation.clone();
        let response = self.create(federation, fingerprint, modules, time_representation);
        if response == Response::Created {
            if let Some(record) = self.federations.get_mut(&name) {
                record.creator = Some(holder);
            }
        }
        response
    }

    /// Why `holder` may not create another federation, if it may not.
    fn creation_refusal(&self, holder: &Holder) -> Option<Response> {
        let limit = self.limits.federations_per_creator;
        let created = self
            .federations
            .values()
            .filter(|record| record.creator.as_ref() == Some(holder))
            .count();
        (created >= limit).then(|| {
            error(
                ErrorKind::LimitReached,
                format!(
                    "{holder} already created {created} federations (the per-creator limit \
                     is {limit}): destroy one of them first"
                ),
            )
        })
    }

    /// Why `holder` may not join another federate to `federation`, if it may not. An
    /// unknown federation is left to `join` to refuse as such.
    pub(super) fn join_refusal(&self, holder: Holder, federation: &str) -> Option<Response> {
        if !self.federations.contains_key(federation) {
            return None;
        }
        let limit = self.limits.federates_per_node;
        // A walk over every federate: joins are rare next to the data they enable, and the
        // per-node limits keep the registry small enough for it.
        let joined = self
            .federations
            .values()
            .flat_map(|record| record.federates.values())
            .filter(|federate| holder.holds(federate))
            .count();
        (joined >= limit).then(|| {
            error(
                ErrorKind::LimitReached,
                format!(
                    "{holder} already has {joined} federates joined (the per-node limit is \
                     {limit}): resign one of them first"
                ),
            )
        })
    }
}
