//! Synchronization points as the registry keeps them (IEEE 1516.1-2010 §4.11–4.14).
//!
//! A point is registered once per label; its members are a named set of federates or, when
//! none is named, the whole federation including federates that join while it is pending.
//! It is synchronized when every member still joined has achieved it: a member that
//! resigns or dies counts as achieved (successfully), so a crash never hangs a federation.

use super::codec::{get_handles, put_handles, put_str, Response};
use super::{unknown, Registry};
use crate::wire::reader::Reader;
use crate::wire::WireError;
use bytes::{BufMut, Bytes, BytesMut};
use std::collections::{BTreeMap, BTreeSet};

/// Most synchronization points pending in one federation at once.
pub const MAX_SYNC_POINTS: usize = 1024;

#[derive(Clone)]
pub(super) struct SyncPoint {
    pub tag: Bytes,
    /// `None`: every joined federate, late joiners included.
    pub members: Option<BTreeSet<u32>>,
    /// Who achieved, and whether successfully.
    pub achieved: BTreeMap<u32, bool>,
    /// Rebuilt from reclaims after a restart: the sequence number, in the earlier
    /// incarnation, of the event that announced it (`None`: registered in this one).
    pub reclaimed: Option<u64>,
}

/// Why a registration failed, as the standard's SynchronizationPointFailureReason.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SyncFailure {
    /// Another point with this label is pending in the federation.
    LabelNotUnique,
    /// A named member federate is not joined to the federation.
    MemberNotJoined,
}

impl SyncPoint {
    pub(super) fn includes(&self, federate: u32) -> bool {
        self.members.as_ref().is_none_or(|m| m.contains(&federate))
    }

    /// Whether every member still joined has achieved; `joined` is the federation's set.
    pub(super) fn complete(&self, joined: &BTreeSet<u32>) -> bool {
        joined
            .iter()
            .filter(|f| self.includes(**f))
            .all(|f| self.achieved.contains_key(f))
    }

    /// Members that achieved without success, in handle order.
    pub(super) fn failed(&self) -> Vec<u32> {
        self.achieved
            .iter()
            .filter(|(_, ok)| !**ok)
            .map(|(f, _)| *f)
            .collect()
    }
}

/// One pending point as a federation manager sees it (the MOM's
/// HLAreportSynchronizationPointStatus): each member still joined, and whether it has
/// achieved the point. Members learn of announcements and synchronizations from the
/// registry's events, not of each other's achievements, so only the registry can say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncPointStatus {
    /// The point's label.
    pub label: String,
    /// (federate handle, achieved), in handle order.
    pub members: Vec<(u32, bool)>,
}

impl Registry {
    /// The federation's pending synchronization points, in label order, with their members
    /// or without (`Request::SyncPoints`).
    pub(super) fn sync_points(&self, federation: &str, with_members: bool) -> Response {
        let Some(record) = self.federations.get(federation) else {
            return unknown(federation);
        };
        let points = (record.sync_points.iter())
            .map(|(label, point)| SyncPointStatus {
                label: label.clone(),
                members: (record.federates.keys())
                    .filter(|f| with_members && point.includes(**f))
                    .map(|f| (*f, point.achieved.contains_key(f)))
                    .collect(),
            })
            .collect();
        Response::SyncPoints(points)
    }
}

/// At most `MAX_SYNC_POINTS` points go on the wire, each with its members as a handle list
/// (at most `u16::MAX`) and one achieved byte per member.
pub(super) fn put_sync_points(out: &mut BytesMut, points: &[SyncPointStatus]) {
    let points = &points[..points.len().min(MAX_SYNC_POINTS)];
    out.put_u32_le(points.len() as u32);
    for point in points {
        put_str(out, &point.label);
        let handles: Vec<u32> = point.members.iter().map(|(h, _)| *h).collect();
        put_handles(out, &handles);
        let sent = handles.len().min(u16::MAX as usize);
        for (_, achieved) in &point.members[..sent] {
            out.put_u8(u8::from(*achieved));
        }
    }
}

pub(super) fn get_sync_points(r: &mut Reader<'_>) -> Result<Vec<SyncPointStatus>, WireError> {
    let count = r.u32("synchronization point count")? as usize;
    if count > MAX_SYNC_POINTS {
        return Err(r.malformed("more synchronization points than a federation holds"));
    }
    let mut points = Vec::with_capacity(count);
    for _ in 0..count {
        let label = r.long_str("label")?;
        let handles = get_handles(r)?;
        let members = (handles.into_iter())
            .map(|h| Ok((h, r.u8("achieved")? != 0)))
            .collect::<Result<_, WireError>>()?;
        points.push(SyncPointStatus { label, members });
    }
    Ok(points)
}
