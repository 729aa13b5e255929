//! Federation executions and their members: create and destroy, join and resign, reserved
//! object instance names, and the liveness of the nodes federates sit behind.

use super::quota::Holder;
use super::{
    error, unknown, Departure, ErrorKind, FederateRecord, FederationEvent, FederationRecord,
    Registry, Response, MAX_FEDERATES, MAX_FEDERATIONS, MAX_RESERVED_NAMES,
};
use crate::wire::NodeId;
use std::collections::BTreeSet;

impl Registry {
    /// createFederationExecution.
    pub(super) fn create(
        &mut self,
        federation: String,
        fingerprint: u64,
        modules: Vec<String>,
        time_representation: String,
    ) -> Response {
        if self.federations.contains_key(&federation) {
            return error(
                ErrorKind::FederationExists,
                format!("federation execution {federation:?} already exists"),
            );
        }
        if self.federations.len() >= MAX_FEDERATIONS {
            return error(
                ErrorKind::LimitReached,
                format!(
                    "the registry holds {MAX_FEDERATIONS} federations, its limit: none can be \
                     created until one is destroyed"
                ),
            );
        }
        self.federations.insert(
            federation,
            FederationRecord::new(fingerprint, modules, time_representation),
        );
        Response::Created
    }

    /// destroyFederationExecution: refused while federates are joined.
    pub(super) fn destroy(&mut self, federation: &str) -> Response {
        let Some(record) = self.federations.get(federation) else {
            return unknown(federation);
        };
        if !record.federates.is_empty() {
            let names: Vec<&str> = record.federates.values().map(|f| f.name.as_str()).collect();
            return error(
                ErrorKind::FederatesJoined,
                format!(
                    "federation execution {federation:?} still has joined federates: {}",
                    names.join(", ")
                ),
            );
        }
        self.federations.remove(federation);
        Response::Destroyed
    }

    /// joinFederationExecution from a federate behind node `origin`, whose link proved
    /// `asker` (if any), with an object model (fingerprint, modules): the federation's, or
    /// the federation's extended by additional modules (1516.1-2010 §4.9), which every
    /// member then takes on. The name must be free.
    pub(super) fn join(
        &mut self,
        (origin, asker): (NodeId, Option<&str>),
        federation: String,
        federate_name: String,
        federate_type: String,
        (fingerprint, modules): (u64, Vec<String>),
    ) -> Response {
        if let Some(refusal) = self.join_refusal(Holder::of(origin, asker), &federation) {
            return refusal;
        }
        // joinFederationExecution raises SaveInProgress / RestoreInProgress (§4.9).
        if let Some(refusal) = self.busy(&federation) {
            return refusal;
        }
        let Some(record) = self.federations.get_mut(&federation) else {
            return unknown(&federation);
        };
        let extends = match record.model_change(fingerprint, &modules) {
            Ok(extends) => extends,
            Err(why) => {
                return error(
                    ErrorKind::InconsistentFom,
                    format!("federation execution {federation:?}: {why}"),
                )
            }
        };
        if record.federates.values().any(|f| f.name == federate_name) {
            return error(
                ErrorKind::FederateNameInUse,
                format!("a federate named {federate_name:?} is already joined to {federation:?}"),
            );
        }
        if record.federates.len() >= MAX_FEDERATES || record.next_handle == u32::MAX {
            return error(
                ErrorKind::LimitReached,
                format!("federation execution {federation:?} has no federate handles left"),
            );
        }
        if extends {
            record.fingerprint = fingerprint;
            record.modules = modules.clone();
        }
        let handle = record.next_handle;
        record.next_handle += 1;
        record.federates.insert(
            handle,
            FederateRecord {
                renewed: self.now,
                name: federate_name.clone(),
                kind: federate_type.clone(),
                node: Some(origin),
                identity: asker.map(str::to_owned),
            },
        );
        if extends {
            // Before the joiner appears: whatever it publishes, members know its classes.
            self.emit(
                &federation,
                FederationEvent::ModulesAdded {
                    modules,
                    fingerprint,
                },
            );
        }
        self.emit(
            &federation,
            FederationEvent::FederateJoined {
                federate: handle,
                name: federate_name,
                kind: federate_type,
            },
        );
        let snapshot = self.federations[&federation].snapshot(self.epoch, handle);
        Response::Joined {
            federate: handle,
            snapshot,
        }
    }

    /// resignFederationExecution.
    pub(super) fn resign(&mut self, federation: &str, federate: u32) -> Response {
        self.resign_as(federation, federate, Departure::Resigned)
    }

    /// Resign `federate`, gone `how` (it asked, or a manager resigned it).
    pub(super) fn resign_as(
        &mut self,
        federation: &str,
        federate: u32,
        how: Departure,
    ) -> Response {
        let Some(record) = self.federations.get_mut(federation) else {
            return unknown(federation);
        };
        if record.federates.remove(&federate).is_none() {
            return error(
                ErrorKind::FederateUnknown,
                format!("federate {federate} is not joined to {federation:?}"),
            );
        }
        self.federate_left(federation, federate, how);
        Response::Resigned
    }

    /// reserveObjectInstanceName: granted once per name, up to `MAX_RESERVED_NAMES`.
    pub(super) fn reserve_name(
        &mut self,
        federation: &str,
        federate: u32,
        name: String,
    ) -> Response {
        let Some(record) = self.federations.get_mut(federation) else {
            return unknown(federation);
        };
        if !record.federates.contains_key(&federate) {
            return error(
                ErrorKind::FederateUnknown,
                format!("federate {federate} is not joined to {federation:?}"),
            );
        }
        if record.reserved.contains_key(&name) || record.reserved.len() >= MAX_RESERVED_NAMES {
            return Response::NameRefused { name };
        }
        record.reserved.insert(name.clone(), federate);
        Response::NameReserved { name }
    }

    /// releaseObjectInstanceName: only the federate holding the name releases it.
    pub(super) fn release_name(&mut self, federation: &str, federate: u32, name: &str) -> Response {
        let Some(record) = self.federations.get_mut(federation) else {
            return unknown(federation);
        };
        if record.reserved.get(name) == Some(&federate) {
            record.reserved.remove(name);
        }
        Response::Ack
    }

    /// A router vouches that `nodes` are alive: their federates' leases are renewed. Answers
    /// with the nodes it knows no federate behind.
    pub(super) fn vouch(&mut self, nodes: Vec<NodeId>) -> Response {
        let now = self.now;
        let vouched: BTreeSet<NodeId> = nodes.iter().copied().collect();
        let mut known = BTreeSet::new();
        for record in self.federations.values_mut() {
            for federate in record.federates.values_mut() {
                if let Some(node) = federate.node.filter(|n| vouched.contains(n)) {
                    federate.renewed = now;
                    known.insert(node);
                }
            }
        }
        let unknown = nodes.into_iter().filter(|n| !known.contains(n)).collect();
        Response::Vouched { unknown }
    }

    /// Node `node` is gone: every federate behind it leaves, as if resigned by the RTI.
    pub(super) fn node_gone(&mut self, node: NodeId, how: Departure) -> Response {
        let mut gone = Vec::new();
        for (name, record) in &mut self.federations {
            record.federates.retain(|handle, f| {
                if f.node == Some(node) {
                    gone.push((name.clone(), *handle));
                }
                f.node != Some(node)
            });
        }
        for (federation, handle) in gone {
            self.federate_left(&federation, handle, how);
        }
        Response::Ack
    }

    /// The federates joined to `federation`: handle, name, type.
    pub(super) fn federates(&self, federation: &str) -> Response {
        let Some(record) = self.federations.get(federation) else {
            return unknown(federation);
        };
        Response::Federates(
            record
                .federates
                .iter()
                .map(|(h, f)| (*h, f.name.clone(), f.kind.clone()))
                .collect(),
        )
    }
}

impl FederationRecord {
    /// Whether a joiner's model (fingerprint, modules) extends the federation's by
    /// additional modules (`Ok(true)`), is the federation's (`Ok(false)`), or neither.
    fn model_change(&self, fingerprint: u64, modules: &[String]) -> Result<bool, String> {
        if fingerprint == self.fingerprint {
            return Ok(false);
        }
        if modules.len() > self.modules.len() && modules.starts_with(&self.modules) {
            return Ok(true);
        }
        // The fingerprint covers the routing bins too: with the same modules (none named is
        // a plain join, with the federation's), they are the likelier difference (a tool
        // joining a federation of federates configured apart).
        let why = if modules.is_empty() || modules == self.modules.as_slice() {
            "the same modules, so the joiner uses other routing bins per dimension than the \
             federation's federates (RtiConfig::bins; a tool's --bins), or the files changed \
             since the federation loaded them"
        } else {
            "not the federation's with modules added (the federation's modules may have changed \
             since they were loaded: join again)"
        };
        Err(format!(
            "the object model differs from the federation's ({}): {why}",
            self.modules.join(", ")
        ))
    }
}
