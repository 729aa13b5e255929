//! The federation registry: where a federation's shared state lives.
//!
//! One node of the network hosts it (by default the router at the top of the topology; see
//! `RouterConfig::hosts_registry`). It holds, per federation execution: its name, the
//! fingerprint of its object model, the joined federates with their handles, and reserved
//! object-instance names. Requests reach it as manage frames that routers forward along the
//! registry route; nothing on the data path ever waits for it. Object instances are named
//! by (federate handle, local number), so registering one needs no round trip.
//!
//! When a federate's link to its router fails, that router tells the registry
//! (`NodeGone`), which resigns the federates of that node.

mod codec;

pub use codec::{ErrorKind, Request, Response};

use crate::wire::NodeId;
use std::collections::BTreeMap;

/// Most federation executions one registry holds.
pub const MAX_FEDERATIONS: usize = 1024;
/// Most federates joined to one federation at once.
pub const MAX_FEDERATES: usize = 65_535;
/// Most reserved object-instance names per federation.
pub const MAX_RESERVED_NAMES: usize = 1 << 20;

struct FederateRecord {
    name: String,
    kind: String,
    node: NodeId,
}

struct FederationRecord {
    fingerprint: u64,
    modules: Vec<String>,
    federates: BTreeMap<u32, FederateRecord>,
    next_handle: u32,
    reserved: BTreeMap<String, u32>,
}

#[derive(Default)]
pub struct Registry {
    federations: BTreeMap<String, FederationRecord>,
}

fn error(kind: ErrorKind, message: String) -> Response {
    Response::Error { kind, message }
}

impl Registry {
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Act on a request from `origin` and answer it.
    pub fn handle(&mut self, origin: NodeId, request: Request) -> Response {
        match request {
            Request::Create {
                federation,
                fingerprint,
                modules,
            } => {
                if self.federations.contains_key(&federation) {
                    return error(
                        ErrorKind::FederationExists,
                        format!("federation execution {federation:?} already exists"),
                    );
                }
                if self.federations.len() >= MAX_FEDERATIONS {
                    return error(
                        ErrorKind::LimitReached,
                        format!("the registry holds its limit of {MAX_FEDERATIONS} federations"),
                    );
                }
                self.federations.insert(
                    federation,
                    FederationRecord {
                        fingerprint,
                        modules,
                        federates: BTreeMap::new(),
                        next_handle: 1,
                        reserved: BTreeMap::new(),
                    },
                );
                Response::Created
            }
            Request::Destroy { federation } => {
                let Some(record) = self.federations.get(&federation) else {
                    return unknown(&federation);
                };
                if !record.federates.is_empty() {
                    let names: Vec<&str> =
                        record.federates.values().map(|f| f.name.as_str()).collect();
                    return error(
                        ErrorKind::FederatesJoined,
                        format!(
                            "federation execution {federation:?} still has joined federates: {}",
                            names.join(", ")
                        ),
                    );
                }
                self.federations.remove(&federation);
                Response::Destroyed
            }
            Request::Join {
                federation,
                federate_name,
                federate_type,
                fingerprint,
            } => {
                let Some(record) = self.federations.get_mut(&federation) else {
                    return unknown(&federation);
                };
                if record.fingerprint != fingerprint {
                    return error(
                        ErrorKind::InconsistentFom,
                        format!(
                            "the object model differs from the one federation execution {federation:?} was created with ({})",
                            record.modules.join(", ")
                        ),
                    );
                }
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
                let handle = record.next_handle;
                record.next_handle += 1;
                record.federates.insert(
                    handle,
                    FederateRecord {
                        name: federate_name,
                        kind: federate_type,
                        node: origin,
                    },
                );
                Response::Joined { federate: handle }
            }
            Request::Resign {
                federation,
                federate,
            } => {
                let Some(record) = self.federations.get_mut(&federation) else {
                    return unknown(&federation);
                };
                if record.federates.remove(&federate).is_none() {
                    return error(
                        ErrorKind::FederateUnknown,
                        format!("federate {federate} is not joined to {federation:?}"),
                    );
                }
                record.reserved.retain(|_, owner| *owner != federate);
                Response::Resigned
            }
            Request::ReserveName {
                federation,
                federate,
                name,
            } => {
                let Some(record) = self.federations.get_mut(&federation) else {
                    return unknown(&federation);
                };
                if !record.federates.contains_key(&federate) {
                    return error(
                        ErrorKind::FederateUnknown,
                        format!("federate {federate} is not joined to {federation:?}"),
                    );
                }
                if record.reserved.contains_key(&name)
                    || record.reserved.len() >= MAX_RESERVED_NAMES
                {
                    return Response::NameRefused { name };
                }
                record.reserved.insert(name.clone(), federate);
                Response::NameReserved { name }
            }
            Request::ReleaseName {
                federation,
                federate,
                name,
            } => {
                let Some(record) = self.federations.get_mut(&federation) else {
                    return unknown(&federation);
                };
                if record.reserved.get(&name) == Some(&federate) {
                    record.reserved.remove(&name);
                }
                Response::Ack
            }
            Request::NodeGone { node } => {
                for record in self.federations.values_mut() {
                    let gone: Vec<u32> = record
                        .federates
                        .iter()
                        .filter(|(_, f)| f.node == node)
                        .map(|(h, _)| *h)
                        .collect();
                    for handle in gone {
                        record.federates.remove(&handle);
                        record.reserved.retain(|_, owner| *owner != handle);
                    }
                }
                Response::Ack
            }
            Request::Federates { federation } => {
                let Some(record) = self.federations.get(&federation) else {
                    return unknown(&federation);
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
    }
}

fn unknown(federation: &str) -> Response {
    error(
        ErrorKind::FederationUnknown,
        format!("federation execution {federation:?} does not exist"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(r: &mut Registry, name: &str, fingerprint: u64) -> Response {
        r.handle(
            NodeId(1),
            Request::Create {
                federation: name.into(),
                fingerprint,
                modules: vec!["demo.xml".into()],
            },
        )
    }

    fn join(
        r: &mut Registry,
        node: u64,
        federation: &str,
        name: &str,
        fingerprint: u64,
    ) -> Response {
        r.handle(
            NodeId(node),
            Request::Join {
                federation: federation.into(),
                federate_name: name.into(),
                federate_type: "sim".into(),
                fingerprint,
            },
        )
    }

    fn kind(response: Response) -> ErrorKind {
        match response {
            Response::Error { kind, .. } => kind,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn the_federation_lifecycle_with_its_failures() {
        let mut r = Registry::new();
        assert_eq!(create(&mut r, "F", 7), Response::Created);
        assert_eq!(kind(create(&mut r, "F", 7)), ErrorKind::FederationExists);
        assert_eq!(
            kind(join(&mut r, 2, "G", "a", 7)),
            ErrorKind::FederationUnknown
        );
        assert_eq!(
            kind(join(&mut r, 2, "F", "a", 8)),
            ErrorKind::InconsistentFom
        );
        assert_eq!(
            join(&mut r, 2, "F", "a", 7),
            Response::Joined { federate: 1 }
        );
        assert_eq!(
            join(&mut r, 3, "F", "b", 7),
            Response::Joined { federate: 2 }
        );
        assert_eq!(
            kind(join(&mut r, 4, "F", "a", 7)),
            ErrorKind::FederateNameInUse
        );
        let destroy = Request::Destroy {
            federation: "F".into(),
        };
        assert_eq!(
            kind(r.handle(NodeId(1), destroy.clone())),
            ErrorKind::FederatesJoined
        );
        let resign = Request::Resign {
            federation: "F".into(),
            federate: 1,
        };
        assert_eq!(r.handle(NodeId(2), resign.clone()), Response::Resigned);
        assert_eq!(
            kind(r.handle(NodeId(2), resign)),
            ErrorKind::FederateUnknown
        );
        // The node of federate 2 drops off the network: it is resigned for it.
        assert_eq!(
            r.handle(NodeId(9), Request::NodeGone { node: NodeId(3) }),
            Response::Ack
        );
        assert_eq!(r.handle(NodeId(1), destroy.clone()), Response::Destroyed);
        assert_eq!(
            kind(r.handle(NodeId(1), destroy)),
            ErrorKind::FederationUnknown
        );
    }

    #[test]
    fn names_are_reserved_once_and_freed_by_resigning() {
        let mut r = Registry::new();
        create(&mut r, "F", 1);
        join(&mut r, 2, "F", "a", 1);
        join(&mut r, 3, "F", "b", 1);
        let reserve = |federate: u32| Request::ReserveName {
            federation: "F".into(),
            federate,
            name: "Tank-1".into(),
        };
        assert_eq!(
            r.handle(NodeId(2), reserve(1)),
            Response::NameReserved {
                name: "Tank-1".into()
            }
        );
        assert_eq!(
            r.handle(NodeId(3), reserve(2)),
            Response::NameRefused {
                name: "Tank-1".into()
            }
        );
        r.handle(
            NodeId(2),
            Request::Resign {
                federation: "F".into(),
                federate: 1,
            },
        );
        assert_eq!(
            r.handle(NodeId(3), reserve(2)),
            Response::NameReserved {
                name: "Tank-1".into()
            }
        );
    }
}
