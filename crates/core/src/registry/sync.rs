//! Synchronization points as the registry keeps them (IEEE 1516.1-2010 §4.11–4.14).
//!
//! A point is registered once per label; its members are a named set of federates or, when
//! none is named, the whole federation including federates that join while it is pending.
//! It is synchronized when every member still joined has achieved it: a member that
//! resigns or dies counts as achieved (successfully), so a crash never hangs a federation.

use bytes::Bytes;
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
