//! What a federate knows of its federation, on the wire: the snapshot a join returns, and
//! what a federate of an earlier registry incarnation carries to reclaim its membership.

use super::{checked_count, get_federates, get_handles, get_strs, put_federates, put_handles};
use super::{put_str, put_strs};
use crate::registry::event::{get_str_bytes, put_str_bytes};
use crate::wire::reader::Reader;
use crate::wire::WireError;
use bytes::{BufMut, Bytes, BytesMut};

/// What a joining federate needs to take part in the federation's ordered history: the
/// registry's sequence number at the join (events up to it are already reflected here) and
/// the state those events built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// The registry incarnation that answered (`Registry::epoch`): events carry it too, so
    /// the federate can tell a restarted registry from the one it joined.
    pub epoch: u64,
    /// The registry's sequence number at the join: events up to it are reflected in this snapshot.
    pub seq: u64,
    /// The federation's logical time representation ("HLAinteger64Time", "HLAfloat64Time").
    pub time_representation: String,
    /// (handle, name, type) of every joined federate, the new one included.
    pub federates: Vec<(u32, String, String)>,
    /// Regulating federates with the sequence number of the event that switched them on
    /// (their regulation epoch).
    pub regulating: Vec<(u32, u64)>,
    /// Handles of the time-constrained federates.
    pub constrained: Vec<u32>,
    /// Pending synchronization points the new federate is a member of: (label, tag).
    pub sync_points: Vec<(String, Bytes)>,
}

/// What a federate knows of its federation, carried by `Request::Reclaim`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reclaim {
    /// The federation execution it belongs to.
    pub federation: String,
    /// Fingerprint of its object model, as the federation was created or extended with.
    pub fingerprint: u64,
    /// The object model's modules, in order (the federation's, then those added at joins).
    pub modules: Vec<String>,
    /// The federation's logical time representation.
    pub time_representation: String,
    /// The incarnation it was a member of, and the last event of it applied.
    pub epoch: u64,
    /// The last event of that incarnation it applied (its sequence number).
    pub seq: u64,
    /// Its federate handle, which it asks to keep.
    pub federate: u32,
    /// Its federate name.
    pub name: String,
    /// Its federate type.
    pub kind: String,
    /// Every federate it knew as joined, itself included: (handle, name, type).
    pub federates: Vec<(u32, String, String)>,
    /// Object-instance names it had reserved.
    pub reserved: Vec<String>,
    /// Synchronization points it knows as announced and not yet synchronized.
    pub sync_points: Vec<ReclaimedSync>,
    /// Its view of time management: regulating federates with their regulation epochs, and
    /// constrained federates (itself included when on).
    pub regulating: Vec<(u32, u64)>,
    /// Handles of the time-constrained federates.
    pub constrained: Vec<u32>,
}

/// A synchronization point a reclaiming federate knows as announced and not synchronized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReclaimedSync {
    /// The point's label.
    pub label: String,
    /// The registering federate's tag.
    pub tag: Bytes,
    /// Empty: the whole federation.
    pub members: Vec<u32>,
    /// The sequence number of the event that announced it (0: it came with the join), in
    /// the earlier incarnation's numbering.
    pub announced: u64,
    /// Whether it achieved the point, and with what success.
    pub achieved: Option<bool>,
}

impl Snapshot {
    pub(super) fn encode(&self, out: &mut BytesMut) {
        out.put_u64_le(self.epoch);
        out.put_u64_le(self.seq);
        put_str(out, &self.time_representation);
        put_federates(out, &self.federates);
        out.put_u32_le(self.regulating.len() as u32);
        for (handle, epoch) in &self.regulating {
            out.put_u32_le(*handle);
            out.put_u64_le(*epoch);
        }
        put_handles(out, &self.constrained);
        out.put_u32_le(self.sync_points.len() as u32);
        for (label, tag) in &self.sync_points {
            put_str(out, label);
            put_str_bytes(out, tag);
        }
    }

    pub(super) fn decode(r: &mut Reader<'_>) -> Result<Snapshot, WireError> {
        let epoch = r.u64("epoch")?;
        let seq = r.u64("seq")?;
        let time_representation = r.long_str("time representation")?;
        let federates = get_federates(r)?;
        let count = checked_count(r, 12)?;
        let mut regulating = Vec::with_capacity(count);
        for _ in 0..count {
            regulating.push((r.u32("handle")?, r.u64("epoch")?));
        }
        let constrained = get_handles(r)?;
        let count = checked_count(r, 4)?;
        let mut sync_points = Vec::with_capacity(count);
        for _ in 0..count {
            sync_points.push((r.long_str("label")?, get_str_bytes(r)?));
        }
        Ok(Snapshot {
            epoch,
            seq,
            time_representation,
            federates,
            regulating,
            constrained,
            sync_points,
        })
    }
}

impl Reclaim {
    pub(super) fn encode(&self, out: &mut BytesMut) {
        put_str(out, &self.federation);
        out.put_u64_le(self.fingerprint);
        put_strs(out, &self.modules);
        put_str(out, &self.time_representation);
        out.put_u64_le(self.epoch);
        out.put_u64_le(self.seq);
        out.put_u32_le(self.federate);
        put_str(out, &self.name);
        put_str(out, &self.kind);
        put_federates(out, &self.federates);
        put_strs(out, &self.reserved);
        out.put_u32_le(self.sync_points.len() as u32);
        for point in &self.sync_points {
            put_str(out, &point.label);
            put_str_bytes(out, &point.tag);
            put_handles(out, &point.members);
            out.put_u64_le(point.announced);
            out.put_u8(match point.achieved {
                None => 0,
                Some(false) => 1,
                Some(true) => 2,
            });
        }
        out.put_u32_le(self.regulating.len() as u32);
        for (handle, epoch) in &self.regulating {
            out.put_u32_le(*handle);
            out.put_u64_le(*epoch);
        }
        put_handles(out, &self.constrained);
    }

    pub(super) fn decode(r: &mut Reader<'_>) -> Result<Reclaim, WireError> {
        let mut reclaim = Reclaim {
            federation: r.long_str("federation")?,
            fingerprint: r.u64("fingerprint")?,
            modules: get_strs(r)?,
            time_representation: r.long_str("time representation")?,
            epoch: r.u64("epoch")?,
            seq: r.u64("seq")?,
            federate: r.u32("federate")?,
            name: r.long_str("name")?,
            kind: r.long_str("type")?,
            federates: get_federates(r)?,
            reserved: get_strs(r)?,
            ..Reclaim::default()
        };
        let count = checked_count(r, 15)?;
        for _ in 0..count {
            reclaim.sync_points.push(ReclaimedSync {
                label: r.long_str("label")?,
                tag: get_str_bytes(r)?,
                members: get_handles(r)?,
                announced: r.u64("announced")?,
                achieved: match r.u8("achieved")? {
                    0 => None,
                    1 => Some(false),
                    2 => Some(true),
                    _ => return Err(r.malformed("unknown achievement")),
                },
            });
        }
        let count = checked_count(r, 12)?;
        for _ in 0..count {
            reclaim.regulating.push((r.u32("handle")?, r.u64("epoch")?));
        }
        reclaim.constrained = get_handles(r)?;
        Ok(reclaim)
    }
}
