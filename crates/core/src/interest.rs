//! Interest ids and the sets of them that links declare.
//!
//! An interest id names one (class, cell) pair; routers never need to know which. Sets are
//! roaring bitmaps, so a region spanning thousands of neighbouring cells costs a few bytes.

use roaring::RoaringBitmap;

/// One interest id. All 2^32 values are usable.
pub type InterestId = u32;

/// Ids that every link carrying a federation receives whether or not it declared them:
/// federation-wide control traffic (registry events, time-management announcements).
///
/// Why not ordinary interest: a federate's interest reaches a mesh peer over one link while
/// a registry event reaches that peer over another, so a reply sent on a freshly declared id
/// could be dropped there. Flooding these few ids along the block graph (split horizon still
/// applies, so each node gets each frame once, along the unique path) removes that race.
/// The federate library's class ids never reach this range (its slots stop below 0xFFF).
pub const BROADCAST_IDS: std::ops::RangeInclusive<InterestId> = 0xFFF0_0000..=0xFFF0_00FF;

/// Whether routers flood `id` to every link of its federation.
pub fn is_broadcast(id: InterestId) -> bool {
    BROADCAST_IDS.contains(&id)
}

/// The set of interest ids a link has declared, or that we declared toward it.
pub type InterestSet = RoaringBitmap;

/// The set as sorted inclusive runs, the form in which it travels on the wire.
pub fn ranges_of(set: &RoaringBitmap) -> Vec<(u32, u32)> {
    let mut ranges = Vec::new();
    let mut iter = set.iter();
    while let Some(run) = iter.next_range() {
        ranges.push((*run.start(), *run.end()));
    }
    ranges
}

/// Build a set from inclusive runs.
pub fn set_of(ranges: &[(u32, u32)]) -> RoaringBitmap {
    let mut set = RoaringBitmap::new();
    for &(start, end) in ranges {
        set.insert_range(start..=end);
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_round_trip_including_the_extremes() {
        let mut set = RoaringBitmap::new();
        set.insert_range(0..=9);
        set.insert(100);
        set.insert_range(u32::MAX - 2..=u32::MAX);
        let ranges = ranges_of(&set);
        assert_eq!(ranges, vec![(0, 9), (100, 100), (u32::MAX - 2, u32::MAX)]);
        assert_eq!(set_of(&ranges), set);
    }

    #[test]
    fn the_full_id_space_is_one_range() {
        let mut set = RoaringBitmap::new();
        set.insert_range(..);
        assert_eq!(set.len(), 1u64 << 32);
        assert_eq!(ranges_of(&set), vec![(0, u32::MAX)]);
        assert_eq!(set_of(&[(0, u32::MAX)]).len(), 1u64 << 32);
    }
}
