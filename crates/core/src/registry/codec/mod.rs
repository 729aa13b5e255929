//! The bodies of manage frames: registry requests and responses, bounds-checked both ways.

use super::event::{get_str_bytes, put_str_bytes, Departure, TimeSwitch};
use super::save::{RestoreStatus, SaveOp, SaveStatus};
use super::sync::{get_sync_points, put_sync_points, SyncFailure, SyncPointStatus};
use crate::policy::{ClassGrant, ClassRights};
use crate::wire::reader::Reader;
use crate::wire::{NodeId, WireError};
use bytes::{BufMut, Bytes, BytesMut};

mod state;

pub use state::{Reclaim, ReclaimedSync, Snapshot};

/// A request to the registry (or, for `ClassRights`, to the first router), carried in the body
/// of a manage frame; the registry answers each with a `Response`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// createFederationExecution.
    Create {
        /// The federation execution's name, unique among the registry's.
        federation: String,
        /// Fingerprint of the object model it is created with: joiners must match or extend it.
        fingerprint: u64,
        /// The object model's modules, for messages that name them.
        modules: Vec<String>,
        /// The logical time representation every federate of it uses.
        time_representation: String,
    },
    /// destroyFederationExecution: refused while federates are joined.
    Destroy {
        /// The federation execution to destroy.
        federation: String,
    },
    /// joinFederationExecution: answered with the federate's handle and a `Snapshot`.
    Join {
        /// The federation execution to join.
        federation: String,
        /// The federate name, unique in the federation.
        federate_name: String,
        /// The federate type (free text, for the MOM and tools).
        federate_type: String,
        /// Fingerprint of the joiner's object model (with its `modules` when it adds some).
        fingerprint: u64,
        /// The modules the joiner's model was loaded from, in order, when they extend the
        /// federation's (additional FOM modules at join, 1516.1-2010 §4.9): the
        /// federation's own first, then the additions. Empty: the model must be the
        /// federation's as it is.
        modules: Vec<String>,
    },
    /// resignFederationExecution of `federate`, after its resign action was carried out.
    Resign {
        /// The federation execution.
        federation: String,
        /// The resigning federate's handle.
        federate: u32,
    },
    /// reserveObjectInstanceName: answered `NameReserved` or `NameRefused`.
    ReserveName {
        /// The federation execution.
        federation: String,
        /// The reserving federate's handle.
        federate: u32,
        /// The instance name asked for.
        name: String,
    },
    /// releaseObjectInstanceName; a name the federate does not hold is ignored.
    ReleaseName {
        /// The federation execution.
        federation: String,
        /// The releasing federate's handle.
        federate: u32,
        /// The name released.
        name: String,
    },
    /// Sent by a router when a federate's link to it failed.
    NodeGone {
        /// The federate node whose link failed.
        node: NodeId,
        /// Why its router let it go: `Died` or `SlowConsumer`.
        how: Departure,
    },
    /// Sent by every router now and then: these federate nodes are linked to it and alive
    /// (renews their lease).
    Vouch {
        /// The federate nodes linked to the router and alive.
        nodes: Vec<NodeId>,
    },
    /// The federates joined to `federation` (handle, name, type), for tools and the MOM.
    Federates {
        /// The federation execution asked about.
        federation: String,
    },
    /// registerFederationSynchronizationPoint; `members` empty: the whole federation.
    RegisterSync {
        /// The federation execution.
        federation: String,
        /// The registering federate's handle.
        federate: u32,
        /// The point's label, unique among the federation's pending points.
        label: String,
        /// The registering federate's tag, announced with the point.
        tag: Bytes,
        /// Handles of the member federates.
        members: Vec<u32>,
    },
    /// synchronizationPointAchieved.
    AchieveSync {
        /// The federation execution.
        federation: String,
        /// The achieving federate's handle.
        federate: u32,
        /// The point's label.
        label: String,
        /// False when the federate achieved it unsuccessfully.
        success: bool,
    },
    /// Order a time-management switch among the federation's events.
    Time {
        /// The federation execution.
        federation: String,
        /// The federate switching.
        federate: u32,
        /// Which switch: regulation or constraint, on or off.
        switch: TimeSwitch,
    },
    /// A federation manager resigns another federate on its behalf (the MOM's
    /// HLAservice.HLAresignFederationExecution): it is gone as `Departure::ByManager`.
    /// Acts for `manager`, whose node alone may ask; the access policy's `manage` action
    /// decides who may.
    ResignFederate {
        /// The federation execution.
        federation: String,
        /// The manager federate the request acts for.
        manager: u32,
        /// The federate to resign.
        federate: u32,
    },
    /// listFederationExecutions.
    ListFederations,
    /// The object model modules the federation was created with (a joiner that names no
    /// modules loads these).
    Modules {
        /// The federation execution asked about.
        federation: String,
    },
    /// The federation's events after sequence number `after`, from the registry's log of
    /// recent events: a federate that found a gap (a link on the way was down while the
    /// registry spoke) catches up instead of leaving.
    Events {
        /// The federation execution.
        federation: String,
        /// The registry incarnation the asker's `after` counts in: a restarted registry
        /// numbers its events afresh, so it answers `RegistryRestarted` instead.
        epoch: u64,
        /// The last sequence number the asker applied.
        after: u64,
    },
    /// A federate of an earlier registry incarnation asks to be a member again, with what
    /// it knows (the registry is soft state rebuilt from its federates; see
    /// `registry::reclaim`).
    Reclaim(Box<Reclaim>),
    /// The classes the asker may publish and subscribe to in `federation`: answered by
    /// the first router its node's link reaches, whose access policy decides them
    /// (`router::claims`), never by the registry.
    ClassRights {
        /// The federation execution asked about.
        federation: String,
    },
    /// The federation's pending synchronization points and each member's progress, for
    /// the MOM's HLArequestSynchronizationPoints and …Status (`registry/sync.rs`).
    SyncPoints {
        /// The federation execution asked about.
        federation: String,
        /// With each point's members (HLAreportSynchronizationPointStatus); false: the
        /// labels alone (HLAreportSynchronizationPoints).
        members: bool,
    },
    /// A save or restore service (`registry/save.rs`).
    Save {
        /// The federation execution.
        federation: String,
        /// The asking federate's handle (the registry checks its node acts for it).
        federate: u32,
        /// Which service.
        op: SaveOp,
    },
}

impl Request {
    /// The federate a request acts for, if it acts for one (`federation`, `federate`): the
    /// registry takes it only from the node that federate joined from.
    pub fn acts_for(&self) -> Option<(&str, u32)> {
        match self {
            Request::Resign {
                federation,
                federate,
            }
            | Request::ReserveName {
                federation,
                federate,
                ..
            }
            | Request::ReleaseName {
                federation,
                federate,
                ..
            }
            | Request::RegisterSync {
                federation,
                federate,
                ..
            }
            | Request::AchieveSync {
                federation,
                federate,
                ..
            }
            | Request::Time {
                federation,
                federate,
                ..
            }
            | Request::Save {
                federation,
                federate,
                ..
            } => Some((federation, *federate)),
            Request::ResignFederate {
                federation,
                manager,
                ..
            } => Some((federation, *manager)),
            _ => None,
        }
    }
}

/// Why the registry refused a request; `Response::Error` carries it with a message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// createFederationExecution of a name that exists (FederationExecutionAlreadyExists).
    FederationExists,
    /// The federation execution named does not exist (FederationExecutionDoesNotExist).
    FederationUnknown,
    /// destroyFederationExecution while federates are joined (FederatesCurrentlyJoined).
    FederatesJoined,
    /// The joiner's object model neither matches nor extends the federation's (InconsistentFDD).
    InconsistentFom,
    /// joinFederationExecution under a name another joined federate has (FederateNameAlreadyInUse).
    FederateNameInUse,
    /// The federate the request names is not joined (FederateNotExecutionMember).
    FederateUnknown,
    /// A per-node or per-federation limit is full (federations, federates, handles, points).
    LimitReached,
    /// No registry is reachable from the asking node.
    NoRegistry,
    /// The request did not decode.
    Malformed,
    /// A synchronization point that is not pending or not announced to the asker.
    SyncPointUnknown,
    /// The asker knew an earlier incarnation of the registry (it restarted): it should
    /// reclaim its membership (`Request::Reclaim`).
    RegistryRestarted,
    /// The asker may not make this request: it acts for a federate of another node, or
    /// the link it came on may not carry it (`router::claims`).
    NotPermitted,
    /// A federation save is in progress (the standard's SaveInProgress).
    SaveInProgress,
    /// A federation restore is in progress (RestoreInProgress).
    RestoreInProgress,
    /// No save is in progress (SaveNotInitiated).
    SaveNotInitiated,
    /// No restore is in progress (RestoreNotRequested).
    RestoreNotRequested,
}

/// The registry's answer to a `Request`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// The federation execution was created.
    Created,
    /// The federation execution was destroyed.
    Destroyed,
    /// The federate joined.
    Joined {
        /// Its handle in the federation, assigned here and never reused in it.
        federate: u32,
        /// The federation as of the join.
        snapshot: Snapshot,
    },
    /// The federate resigned.
    Resigned,
    /// The name is reserved for the asker (objectInstanceNameReservationSucceeded).
    NameReserved {
        /// The name reserved.
        name: String,
    },
    /// Another federate holds the name (objectInstanceNameReservationFailed).
    NameRefused {
        /// The name refused.
        name: String,
    },
    /// The request was carried out and has nothing more to say.
    Ack,
    /// The federates joined to the federation: (handle, name, type).
    Federates(Vec<(u32, String, String)>),
    /// The request was refused.
    Error {
        /// Why, as a kind.
        kind: ErrorKind,
        /// Why, for a person.
        message: String,
    },
    /// The synchronization point was registered (synchronizationPointRegistrationSucceeded).
    SyncRegistered {
        /// The label registered.
        label: String,
    },
    /// The synchronization point was refused (synchronizationPointRegistrationFailed).
    SyncRefused {
        /// The label asked for.
        label: String,
        /// Why it was refused.
        reason: SyncFailure,
    },
    /// (name, time representation) of every federation execution.
    Federations(Vec<(String, String)>),
    /// The module designators given at create.
    Modules(Vec<String>),
    /// The answer to a vouch: the nodes vouched for that no federation has as a member
    /// (their federates were resigned, or the registry restarted without them).
    Vouched {
        /// The nodes vouched for that no federation knows.
        unknown: Vec<NodeId>,
    },
    /// The events asked for, in order: encoded payloads as they were broadcast (each
    /// carries its sequence number). Empty when the asker is up to date.
    Events(Vec<Bytes>),
    /// The log no longer reaches back that far: it can replay only events after
    /// `replayable_after`. The asker's view cannot be repaired.
    EventsTooOld {
        /// The log holds only the events after this sequence number.
        replayable_after: u64,
    },
    /// The reclaim was accepted: the federation as this incarnation has it, and the
    /// reserved names the federate could not keep (another federate holds them now).
    Reclaimed {
        /// The federation as this incarnation has it.
        snapshot: Snapshot,
        /// Reserved names the federate could not keep.
        names_lost: Vec<String>,
    },
    /// The answer to `Request::ClassRights`.
    ClassRights(ClassRights),
    /// queryFederationSaveStatus: every joined federate's status.
    SaveStatus(Vec<(u32, SaveStatus)>),
    /// queryFederationRestoreStatus.
    RestoreStatus(Vec<(u32, RestoreStatus)>),
    /// The pending synchronization points, in label order (`Request::SyncPoints`).
    SyncPoints(Vec<SyncPointStatus>),
    /// requestFederationRestoreSucceeded (`accepted`) or …Failed.
    RestoreRequest {
        /// The label asked for.
        label: String,
        /// Whether every member has a complete save under it (Succeeded), or not (Failed).
        accepted: bool,
    },
}

pub(crate) fn put_handles(out: &mut BytesMut, handles: &[u32]) {
    let handles = &handles[..handles.len().min(u16::MAX as usize)];
    out.put_u16_le(handles.len() as u16);
    for h in handles {
        out.put_u32_le(*h);
    }
}

pub(crate) fn get_handles(r: &mut Reader<'_>) -> Result<Vec<u32>, WireError> {
    let count = r.u16("handle count")?;
    (0..count).map(|_| r.u32("handle")).collect()
}

/// Entries of a list that each take at least `min_len` bytes: a lying count cannot reserve
/// memory.
fn checked_count(r: &mut Reader<'_>, min_len: usize) -> Result<usize, WireError> {
    let count = r.u32("count")? as usize;
    if count > r.remaining() / min_len {
        return Err(r.malformed("count runs past the end"));
    }
    Ok(count)
}

pub(crate) fn put_str(out: &mut BytesMut, text: &str) {
    let text = crate::wire::control_clip(text, u16::MAX as usize);
    out.put_u16_le(text.len() as u16);
    out.put_slice(text.as_bytes());
}

/// Requests fall in three groups, encoded and decoded group by group: the federation's
/// membership and what it is, the services a federate asks of the registry, and the
/// routers' keeping of links and events.
impl Request {
    /// The body of a manage frame that carries this request.
    pub fn encode(&self) -> Bytes {
        let mut out = BytesMut::new();
        out.put_u8(self.kind());
        match self {
            Request::Create { .. }
            | Request::Destroy { .. }
            | Request::Join { .. }
            | Request::Resign { .. }
            | Request::Federates { .. }
            | Request::ListFederations
            | Request::Modules { .. }
            | Request::ClassRights { .. } => self.put_membership_fields(&mut out),
            Request::SyncPoints {
                federation,
                members,
            } => {
                put_str(&mut out, federation);
                out.put_u8(u8::from(*members));
            }
            Request::ReserveName { .. }
            | Request::ReleaseName { .. }
            | Request::RegisterSync { .. }
            | Request::AchieveSync { .. }
            | Request::Time { .. }
            | Request::ResignFederate { .. } => self.put_service_fields(&mut out),
            Request::Save {
                federation,
                federate,
                op,
            } => {
                put_str(&mut out, federation);
                out.put_u32_le(*federate);
                op.encode(&mut out);
            }
            Request::NodeGone { .. }
            | Request::Vouch { .. }
            | Request::Events { .. }
            | Request::Reclaim(_) => self.put_keeping_fields(&mut out),
        }
        out.freeze()
    }

    /// The byte that opens a request on the wire: `decode` dispatches on it.
    fn kind(&self) -> u8 {
        match self {
            Request::Create { .. } => 1,
            Request::Destroy { .. } => 2,
            Request::Join { .. } => 3,
            Request::Resign { .. } => 4,
            Request::ReserveName { .. } => 5,
            Request::ReleaseName { .. } => 6,
            Request::NodeGone { .. } => 7,
            Request::Federates { .. } => 8,
            Request::RegisterSync { .. } => 9,
            Request::AchieveSync { .. } => 10,
            Request::Time { .. } => 11,
            Request::ListFederations => 12,
            Request::Modules { .. } => 13,
            Request::Vouch { .. } => 14,
            Request::Events { .. } => 15,
            Request::Reclaim(_) => 16,
            Request::ClassRights { .. } => 17,
            Request::ResignFederate { .. } => 18,
            Request::Save { .. } => 19,
            Request::SyncPoints { .. } => 20,
        }
    }

    /// `encode` sends only the membership kinds here.
    fn put_membership_fields(&self, out: &mut BytesMut) {
        match self {
            Request::Create {
                federation,
                fingerprint,
                modules,
                time_representation,
            } => {
                put_str(out, federation);
                out.put_u64_le(*fingerprint);
                put_create_modules(out, modules);
                put_str(out, time_representation);
            }
            Request::Destroy { federation }
            | Request::Federates { federation }
            | Request::Modules { federation }
            | Request::ClassRights { federation } => put_str(out, federation),
            Request::Join {
                federation,
                federate_name,
                federate_type,
                fingerprint,
                modules,
            } => {
                put_str(out, federation);
                put_str(out, federate_name);
                put_str(out, federate_type);
                out.put_u64_le(*fingerprint);
                put_strs(out, modules);
            }
            Request::Resign {
                federation,
                federate,
            } => {
                put_str(out, federation);
                out.put_u32_le(*federate);
            }
            _ => {}
        }
    }

    /// `encode` sends only the service kinds here.
    fn put_service_fields(&self, out: &mut BytesMut) {
        match self {
            Request::ReserveName {
                federation,
                federate,
                name,
            }
            | Request::ReleaseName {
                federation,
                federate,
                name,
            } => {
                put_str(out, federation);
                out.put_u32_le(*federate);
                put_str(out, name);
            }
            Request::RegisterSync {
                federation,
                federate,
                label,
                tag,
                members,
            } => {
                put_str(out, federation);
                out.put_u32_le(*federate);
                put_str(out, label);
                put_str_bytes(out, tag);
                put_handles(out, members);
            }
            Request::AchieveSync {
                federation,
                federate,
                label,
                success,
            } => {
                put_str(out, federation);
                out.put_u32_le(*federate);
                put_str(out, label);
                out.put_u8(u8::from(*success));
            }
            Request::Time {
                federation,
                federate,
                switch,
            } => {
                put_str(out, federation);
                out.put_u32_le(*federate);
                out.put_u8(switch.to_byte());
            }
            Request::ResignFederate {
                federation,
                manager,
                federate,
            } => {
                put_str(out, federation);
                out.put_u32_le(*manager);
                out.put_u32_le(*federate);
            }
            _ => {}
        }
    }

    /// `encode` sends only the kinds that keep links and events here.
    fn put_keeping_fields(&self, out: &mut BytesMut) {
        match self {
            Request::NodeGone { node, how } => {
                out.put_u64_le(node.0);
                out.put_u8(how.code());
            }
            Request::Vouch { nodes } => {
                let count = u16::try_from(nodes.len())
                    .expect("a router vouches for at most 65535 nodes at once");
                out.put_u16_le(count);
                for node in nodes {
                    out.put_u64_le(node.0);
                }
            }
            Request::Events {
                federation,
                epoch,
                after,
            } => {
                put_str(out, federation);
                out.put_u64_le(*epoch);
                out.put_u64_le(*after);
            }
            Request::Reclaim(reclaim) => reclaim.encode(out),
            _ => {}
        }
    }

    /// Read a request body; refuses a truncated or unknown one.
    pub fn decode(body: &[u8]) -> Result<Request, WireError> {
        let mut r = Reader::new(body, "registry request");
        let request = match r.u8("request kind")? {
            kind @ (1..=4 | 8 | 12 | 13 | 17) => Self::get_membership(kind, &mut r)?,
            kind @ (5 | 6 | 9..=11 | 18) => Self::get_service(kind, &mut r)?,
            kind @ (7 | 14..=16) => Self::get_keeping(kind, &mut r)?,
            19 => Request::Save {
                federation: r.long_str("federation")?,
                federate: r.u32("federate")?,
                op: SaveOp::decode(&mut r)?,
            },
            20 => Request::SyncPoints {
                federation: r.long_str("federation")?,
                members: r.u8("members")? != 0,
            },
            _ => return Err(r.malformed("unknown request kind")),
        };
        r.finish()?;
        Ok(request)
    }

    fn get_membership(kind: u8, r: &mut Reader<'_>) -> Result<Request, WireError> {
        Ok(match kind {
            1 => Request::Create {
                federation: r.long_str("federation")?,
                fingerprint: r.u64("fingerprint")?,
                modules: get_create_modules(r)?,
                time_representation: r.long_str("time representation")?,
            },
            2 => Request::Destroy {
                federation: r.long_str("federation")?,
            },
            3 => Request::Join {
                federation: r.long_str("federation")?,
                federate_name: r.long_str("federate name")?,
                federate_type: r.long_str("federate type")?,
                fingerprint: r.u64("fingerprint")?,
                modules: get_strs(r)?,
            },
            4 => Request::Resign {
                federation: r.long_str("federation")?,
                federate: r.u32("federate")?,
            },
            8 => Request::Federates {
                federation: r.long_str("federation")?,
            },
            12 => Request::ListFederations,
            13 => Request::Modules {
                federation: r.long_str("federation")?,
            },
            17 => Request::ClassRights {
                federation: r.long_str("federation")?,
            },

            _ => return Err(r.malformed("unknown request kind")),
        })
    }

    fn get_service(kind: u8, r: &mut Reader<'_>) -> Result<Request, WireError> {
        Ok(match kind {
            5 => Request::ReserveName {
                federation: r.long_str("federation")?,
                federate: r.u32("federate")?,
                name: r.long_str("name")?,
            },
            6 => Request::ReleaseName {
                federation: r.long_str("federation")?,
                federate: r.u32("federate")?,
                name: r.long_str("name")?,
            },
            9 => Request::RegisterSync {
                federation: r.long_str("federation")?,
                federate: r.u32("federate")?,
                label: r.long_str("label")?,
                tag: get_str_bytes(r)?,
                members: get_handles(r)?,
            },
            10 => Request::AchieveSync {
                federation: r.long_str("federation")?,
                federate: r.u32("federate")?,
                label: r.long_str("label")?,
                success: r.u8("success")? != 0,
            },
            11 => Request::Time {
                federation: r.long_str("federation")?,
                federate: r.u32("federate")?,
                switch: TimeSwitch::from_byte(r.u8("switch")?)
                    .ok_or(r.malformed("unknown time switch"))?,
            },
            18 => Request::ResignFederate {
                federation: r.long_str("federation")?,
                manager: r.u32("manager")?,
                federate: r.u32("federate")?,
            },
            _ => return Err(r.malformed("unknown request kind")),
        })
    }

    fn get_keeping(kind: u8, r: &mut Reader<'_>) -> Result<Request, WireError> {
        Ok(match kind {
            7 => Request::NodeGone {
                node: NodeId(r.u64("node")?),
                how: super::event::get_departure(r)?,
            },
            14 => {
                let count = r.u16("node count")?;
                let nodes = (0..count)
                    .map(|_| r.u64("node").map(NodeId))
                    .collect::<Result<_, _>>()?;
                Request::Vouch { nodes }
            }
            15 => Request::Events {
                federation: r.long_str("federation")?,
                epoch: r.u64("epoch")?,
                after: r.u64("after")?,
            },
            16 => Request::Reclaim(Box::new(Reclaim::decode(r)?)),
            _ => return Err(r.malformed("unknown request kind")),
        })
    }
}

/// `Request::Create`'s modules: at most 65535, counted in two bytes (a longer list is cut there).
fn put_create_modules(out: &mut BytesMut, list: &[String]) {
    out.put_u16_le(list.len().min(u16::MAX as usize) as u16);
    for text in list.iter().take(u16::MAX as usize) {
        put_str(out, text);
    }
}

fn get_create_modules(r: &mut Reader<'_>) -> Result<Vec<String>, WireError> {
    let count = r.u16("module count")?;
    let mut modules = Vec::new();
    for _ in 0..count {
        modules.push(r.long_str("module")?);
    }
    Ok(modules)
}

impl ErrorKind {
    fn to_byte(self) -> u8 {
        match self {
            ErrorKind::FederationExists => 1,
            ErrorKind::FederationUnknown => 2,
            ErrorKind::FederatesJoined => 3,
            ErrorKind::InconsistentFom => 4,
            ErrorKind::FederateNameInUse => 5,
            ErrorKind::FederateUnknown => 6,
            ErrorKind::LimitReached => 7,
            ErrorKind::NoRegistry => 8,
            ErrorKind::Malformed => 9,
            ErrorKind::SyncPointUnknown => 10,
            ErrorKind::RegistryRestarted => 11,
            ErrorKind::NotPermitted => 12,
            ErrorKind::SaveInProgress => 13,
            ErrorKind::RestoreInProgress => 14,
            ErrorKind::SaveNotInitiated => 15,
            ErrorKind::RestoreNotRequested => 16,
        }
    }

    fn from_byte(byte: u8) -> Option<ErrorKind> {
        Some(match byte {
            1 => ErrorKind::FederationExists,
            2 => ErrorKind::FederationUnknown,
            3 => ErrorKind::FederatesJoined,
            4 => ErrorKind::InconsistentFom,
            5 => ErrorKind::FederateNameInUse,
            6 => ErrorKind::FederateUnknown,
            7 => ErrorKind::LimitReached,
            8 => ErrorKind::NoRegistry,
            9 => ErrorKind::Malformed,
            10 => ErrorKind::SyncPointUnknown,
            11 => ErrorKind::RegistryRestarted,
            12 => ErrorKind::NotPermitted,
            13 => ErrorKind::SaveInProgress,
            14 => ErrorKind::RestoreInProgress,
            15 => ErrorKind::SaveNotInitiated,
            16 => ErrorKind::RestoreNotRequested,
            _ => return None,
        })
    }
}

impl Response {
    /// The body of a manage frame that carries this response.
    pub fn encode(&self) -> Bytes {
        let mut out = BytesMut::new();
        out.put_u8(self.kind());
        self.put_fields(&mut out);
        out.freeze()
    }

    /// The byte that opens a response on the wire: `decode` dispatches on it.
    fn kind(&self) -> u8 {
        match self {
            Response::Created => 1,
            Response::Destroyed => 2,
            Response::Joined { .. } => 3,
            Response::Resigned => 4,
            Response::NameReserved { .. } => 5,
            Response::NameRefused { .. } => 6,
            Response::Ack => 7,
            Response::Federates(_) => 8,
            Response::Error { .. } => 9,
            Response::SyncRegistered { .. } => 10,
            Response::SyncRefused { .. } => 11,
            Response::Federations(_) => 12,
            Response::Modules(_) => 13,
            Response::Vouched { .. } => 14,
            Response::Events(_) => 15,
            Response::EventsTooOld { .. } => 16,
            Response::Reclaimed { .. } => 17,
            Response::ClassRights(_) => 18,
            Response::SaveStatus(_) => 19,
            Response::RestoreStatus(_) => 20,
            Response::RestoreRequest { .. } => 21,
            Response::SyncPoints(_) => 22,
        }
    }

    fn put_fields(&self, out: &mut BytesMut) {
        match self {
            Response::Created | Response::Destroyed | Response::Resigned | Response::Ack => {}
            Response::Joined { federate, snapshot } => {
                out.put_u32_le(*federate);
                snapshot.encode(out);
            }
            Response::NameReserved { name } | Response::NameRefused { name } => put_str(out, name),
            Response::Federates(list) => put_federates(out, list),
            Response::Error { kind, message } => {
                out.put_u8(kind.to_byte());
                put_str(out, message);
            }
            Response::SyncRegistered { label } => put_str(out, label),
            Response::SyncRefused { label, reason } => {
                put_str(out, label);
                out.put_u8(match reason {
                    SyncFailure::LabelNotUnique => 1,
                    SyncFailure::MemberNotJoined => 2,
                });
            }
            Response::Federations(list) => put_federations(out, list),
            Response::Modules(modules) => put_strs(out, modules),
            Response::Vouched { unknown } => {
                out.put_u32_le(unknown.len() as u32);
                for node in unknown {
                    out.put_u64_le(node.0);
                }
            }
            // The registry's log bounds what goes in here (`EVENT_LOG_BYTES`), so the answer
            // fits a frame.
            Response::Events(events) => put_events(out, events),
            Response::EventsTooOld { replayable_after } => out.put_u64_le(*replayable_after),
            Response::Reclaimed {
                snapshot,
                names_lost,
            } => {
                snapshot.encode(out);
                put_strs(out, names_lost);
            }
            Response::ClassRights(rights) => {
                put_grant(out, rights.publish.as_ref());
                put_grant(out, rights.subscribe.as_ref());
            }
            Response::SaveStatus(list) => {
                let bytes: Vec<(u32, u8)> = list.iter().map(|(h, s)| (*h, s.to_byte())).collect();
                super::save::put_statuses(out, &bytes);
            }
            Response::RestoreStatus(list) => {
                let bytes: Vec<(u32, u8)> = list.iter().map(|(h, s)| (*h, s.to_byte())).collect();
                super::save::put_statuses(out, &bytes);
            }
            Response::RestoreRequest { label, accepted } => {
                put_str(out, label);
                out.put_u8(u8::from(*accepted));
            }
            Response::SyncPoints(points) => put_sync_points(out, points),
        }
    }

    /// Read a response body; refuses a truncated or unknown one.
    pub fn decode(body: &[u8]) -> Result<Response, WireError> {
        let mut r = Reader::new(body, "registry response");
        let response = match r.u8("response kind")? {
            1 => Response::Created,
            2 => Response::Destroyed,
            3 => Response::Joined {
                federate: r.u32("federate")?,
                snapshot: Snapshot::decode(&mut r)?,
            },
            4 => Response::Resigned,
            5 => Response::NameReserved {
                name: r.long_str("name")?,
            },
            6 => Response::NameRefused {
                name: r.long_str("name")?,
            },
            7 => Response::Ack,
            8 => Response::Federates(get_federates(&mut r)?),
            9 => Response::Error {
                kind: ErrorKind::from_byte(r.u8("error kind")?)
                    .ok_or(r.malformed("unknown error kind"))?,
                message: r.long_str("message")?,
            },
            10 => Response::SyncRegistered {
                label: r.long_str("label")?,
            },
            11 => Response::SyncRefused {
                label: r.long_str("label")?,
                reason: match r.u8("reason")? {
                    1 => SyncFailure::LabelNotUnique,
                    2 => SyncFailure::MemberNotJoined,
                    _ => return Err(r.malformed("unknown synchronization failure")),
                },
            },
            14 => {
                let count = checked_count(&mut r, 8)?;
                let unknown = (0..count)
                    .map(|_| r.u64("node").map(NodeId))
                    .collect::<Result<_, _>>()?;
                Response::Vouched { unknown }
            }
            12 => Response::Federations(get_federations(&mut r)?),
            13 => Response::Modules(get_modules(&mut r)?),
            15 => Response::Events(get_events(&mut r)?),
            16 => Response::EventsTooOld {
                replayable_after: r.u64("replayable after")?,
            },
            17 => Response::Reclaimed {
                snapshot: Snapshot::decode(&mut r)?,
                names_lost: get_strs(&mut r)?,
            },
            18 => Response::ClassRights(ClassRights {
                publish: get_grant(&mut r)?,
                subscribe: get_grant(&mut r)?,
            }),
            19 => Response::SaveStatus(super::save::get_statuses(&mut r, SaveStatus::from_byte)?),
            20 => Response::RestoreStatus(super::save::get_statuses(
                &mut r,
                RestoreStatus::from_byte,
            )?),
            21 => Response::RestoreRequest {
                label: r.long_str("label")?,
                accepted: r.u8("accepted")? != 0,
            },
            22 => Response::SyncPoints(get_sync_points(&mut r)?),
            _ => return Err(r.malformed("unknown response kind")),
        };
        r.finish()?;
        Ok(response)
    }
}

/// (name, time representation) of each federation.
fn put_federations(out: &mut BytesMut, list: &[(String, String)]) {
    out.put_u32_le(list.len() as u32);
    for (name, time) in list {
        put_str(out, name);
        put_str(out, time);
    }
}

fn get_federations(r: &mut Reader<'_>) -> Result<Vec<(String, String)>, WireError> {
    let count = checked_count(r, 4)?;
    let mut list = Vec::with_capacity(count);
    for _ in 0..count {
        list.push((r.long_str("name")?, r.long_str("time")?));
    }
    Ok(list)
}

/// Written as `put_strs`; read apart from `get_strs` only so errors name a module.
fn get_modules(r: &mut Reader<'_>) -> Result<Vec<String>, WireError> {
    let count = checked_count(r, 2)?;
    let mut modules = Vec::with_capacity(count);
    for _ in 0..count {
        modules.push(r.long_str("module")?);
    }
    Ok(modules)
}

/// Encoded events, each counted in four bytes.
fn put_events(out: &mut BytesMut, events: &[Bytes]) {
    out.put_u32_le(events.len() as u32);
    for event in events {
        out.put_u32_le(event.len() as u32);
        out.put_slice(event);
    }
}

fn get_events(r: &mut Reader<'_>) -> Result<Vec<Bytes>, WireError> {
    let count = checked_count(r, 4)?;
    let mut events = Vec::with_capacity(count);
    for _ in 0..count {
        let len = r.u32("event length")? as usize;
        events.push(Bytes::copy_from_slice(r.bytes(len, "event")?));
    }
    Ok(events)
}

fn put_federates(out: &mut BytesMut, list: &[(u32, String, String)]) {
    out.put_u32_le(list.len() as u32);
    for (handle, name, kind) in list {
        out.put_u32_le(*handle);
        put_str(out, name);
        put_str(out, kind);
    }
}

fn get_federates(r: &mut Reader<'_>) -> Result<Vec<(u32, String, String)>, WireError> {
    let count = checked_count(r, 8)?;
    let mut list = Vec::with_capacity(count);
    for _ in 0..count {
        list.push((r.u32("handle")?, r.long_str("name")?, r.long_str("type")?));
    }
    Ok(list)
}

/// A class grant: absent (unrestricted), or its patterns and the rules they come from.
fn put_grant(out: &mut BytesMut, grant: Option<&ClassGrant>) {
    let Some(grant) = grant else {
        out.put_u8(0);
        return;
    };
    out.put_u8(1);
    put_strs(out, &grant.patterns);
    let rules: Vec<u32> = grant.rules.iter().map(|&r| r as u32).collect();
    put_handles(out, &rules);
}

fn get_grant(r: &mut Reader<'_>) -> Result<Option<ClassGrant>, WireError> {
    match r.u8("class grant")? {
        0 => Ok(None),
        1 => Ok(Some(ClassGrant {
            patterns: get_strs(r)?,
            rules: get_handles(r)?.into_iter().map(|n| n as usize).collect(),
        })),
        _ => Err(r.malformed("unknown class grant")),
    }
}

pub(super) fn put_strs(out: &mut BytesMut, list: &[String]) {
    out.put_u32_le(list.len() as u32);
    for text in list {
        put_str(out, text);
    }
}

pub(super) fn get_strs(r: &mut Reader<'_>) -> Result<Vec<String>, WireError> {
    let count = checked_count(r, 2)?;
    (0..count).map(|_| r.long_str("name")).collect()
}

#[cfg(test)]
mod tests;
