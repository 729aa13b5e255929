//! Interest ids and the sets of them that links declare.
//!
//! An interest id names one (class, cell) pair; routers never need to know which. Sets are
//! roaring bitmaps, so a region spanning thousands of neighbouring cells costs a few bytes.

use roaring::RoaringBitmap;

/// One interest id. All 2^32 values are usable.
pub type InterestId = u32;

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
