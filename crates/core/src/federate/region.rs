//! Data distribution management: regions, their overlap, and the routing cells they cover.
//!
//! A routing space is the set of dimensions a class uses, each split into bins. A cell is
//! one bin of every dimension; routers filter by cell, and the federate library then checks
//! exact region overlap, so nothing outside a subscription is ever handed to the user.

use super::regions::RegionHandle;
use smallvec::SmallVec;
use thiserror::Error;

/// A half-open range `[lower, upper)` on one dimension, in the dimension's own units
/// (0 to its upper bound, as the object model declares it).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    /// First value inside the range.
    pub lower: u64,
    /// First value past the range; greater than `lower` in a valid range.
    pub upper: u64,
}

impl Range {
    /// The range `[lower, upper)`; checked against its dimension by `CellLayout::validate`.
    pub fn new(lower: u64, upper: u64) -> Range {
        Range { lower, upper }
    }

    fn overlaps(&self, other: &Range) -> bool {
        self.lower < other.upper && other.lower < self.upper
    }
}

/// Why a region is refused (IEEE 1516.1-2010 InvalidRangeBound / InvalidRegion).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RegionError {
    /// A range with `lower >= upper`: it would contain nothing.
    #[error("dimension {dimension}: empty range [{lower}, {upper})")]
    EmptyRange {
        /// Name of the dimension, from the object model.
        dimension: String,
        /// The range's lower bound.
        lower: u64,
        /// The range's upper bound.
        upper: u64,
    },
    /// A range reaching past the dimension's upper bound.
    #[error("dimension {dimension}: range [{lower}, {upper}) passes its upper bound {bound}")]
    OutOfBounds {
        /// Name of the dimension, from the object model.
        dimension: String,
        /// The range's lower bound.
        lower: u64,
        /// The range's upper bound.
        upper: u64,
        /// The dimension's upper bound, from the object model.
        bound: u64,
    },
    /// The standard's InvalidRegion for a handle: never created, or deleted.
    #[error("region {0} does not exist (never created, or deleted)")]
    Unknown(RegionHandle),
}

/// Ranges on some dimensions (by handle). A dimension the region does not name is
/// unbounded: the region spans all of it.
///
/// The ranges sit inline, sorted by dimension, while there are at most two (most routing
/// spaces): every update and reflect with a region builds one, and a map allocated a node
/// for it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Region {
    ranges: SmallVec<[(u32, Range); 2]>,
}

impl Region {
    /// A region naming no dimension: it spans the whole routing space.
    pub fn new() -> Region {
        Region::default()
    }

    /// This region with `range` on `dimension` (replacing any range it had there).
    pub fn with(mut self, dimension: u32, range: Range) -> Region {
        self.set(dimension, range);
        self
    }

    /// Put `range` on `dimension`, replacing any range the region had there.
    pub fn set(&mut self, dimension: u32, range: Range) {
        match self.ranges.binary_search_by_key(&dimension, |(d, _)| *d) {
            Ok(at) => self.ranges[at].1 = range,
            Err(at) => self.ranges.insert(at, (dimension, range)),
        }
    }

    /// The ranges the region names, by dimension handle in increasing order.
    pub fn ranges(&self) -> impl Iterator<Item = (u32, Range)> + '_ {
        self.ranges.iter().copied()
    }

    /// The range on `dimension`, or `None` when the region does not name it (unbounded).
    pub fn range(&self, dimension: u32) -> Option<Range> {
        let at = self
            .ranges
            .binary_search_by_key(&dimension, |(d, _)| *d)
            .ok()?;
        Some(self.ranges[at].1)
    }

    /// True when the region names no dimension and so spans everything.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Two regions overlap when their ranges overlap on every dimension both name.
    pub fn overlaps(&self, other: &Region) -> bool {
        self.ranges
            .iter()
            .all(|(d, r)| other.range(*d).is_none_or(|o| r.overlaps(&o)))
    }
}

/// One dimension of a class's routing space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// The dimension's handle in the object model.
    pub dimension: u32,
    /// The dimension's name, for error messages.
    pub name: String,
    /// The dimension's upper bound: values run from 0 to it, exclusive.
    pub upper_bound: u64,
    /// How many equal bins the dimension is cut into for routing; at least 1.
    pub bins: u32,
}

impl Axis {
    fn bin(&self, value: u64) -> u32 {
        let bound = self.upper_bound.max(1);
        let value = value.min(bound - 1);
        // A 128-bit division is a library call: about 1 % of a clutter run's CPU, where
        // every update's region is binned. Routing-space bounds mostly fit 64 bits.
        match value.checked_mul(u64::from(self.bins)) {
            Some(scaled) => (scaled / bound) as u32,
            None => ((u128::from(value) * u128::from(self.bins)) / u128::from(bound)) as u32,
        }
    }

    /// The first and last bin `region` touches on this axis (all bins when it does not
    /// name the dimension).
    fn span(&self, region: &Region) -> (u32, u32) {
        match region.range(self.dimension) {
            Some(r) if r.upper > r.lower => (self.bin(r.lower), self.bin(r.upper - 1)),
            _ => (0, self.bins - 1),
        }
    }
}

/// How a class's routing space is cut into cells: its axes in dimension-handle order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellLayout {
    axes: Vec<Axis>,
}

impl CellLayout {
    /// A layout over `axes`, in any order (they are sorted by dimension handle).
    pub fn new(mut axes: Vec<Axis>) -> CellLayout {
        axes.sort_by_key(|a| a.dimension);
        CellLayout { axes }
    }

    /// The axes, by dimension handle in increasing order.
    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    /// Cells in the whole space.
    pub fn cell_count(&self) -> u64 {
        self.axes.iter().map(|a| u64::from(a.bins)).product()
    }

    /// Check a region against the axes' bounds.
    pub fn validate(&self, region: &Region) -> Result<(), RegionError> {
        for (dimension, range) in region.ranges() {
            let Some(axis) = self.axes.iter().find(|a| a.dimension == dimension) else {
                continue;
            };
            if range.lower >= range.upper {
                return Err(RegionError::EmptyRange {
                    dimension: axis.name.clone(),
                    lower: range.lower,
                    upper: range.upper,
                });
            }
            if range.upper > axis.upper_bound {
                return Err(RegionError::OutOfBounds {
                    dimension: axis.name.clone(),
                    lower: range.lower,
                    upper: range.upper,
                    bound: axis.upper_bound,
                });
            }
        }
        Ok(())
    }

    /// Every cell the region touches (a dimension it does not name counts as all bins).
    pub fn cells(&self, region: &Region) -> Vec<u32> {
        let mut cells = Vec::new();
        self.for_each_cell(region, &mut |cell| cells.push(cell));
        cells
    }

    /// How many cells the region touches, without listing them.
    pub fn cells_touched(&self, region: &Region) -> u64 {
        (self.axes.iter())
            .map(|axis| {
                let (first, last) = axis.span(region);
                u64::from(last - first + 1)
            })
            .product()
    }

    /// Hand `f` every cell the region touches, in increasing order. Nothing is allocated:
    /// an update in a region computes its ids this way for every message.
    pub fn for_each_cell(&self, region: &Region, f: &mut impl FnMut(u32)) {
        cells_under(&self.axes, region, 0, f);
    }
}

/// The cells under `prefix` (the cell number the axes before `axes` make), first axis most
/// significant.
fn cells_under(axes: &[Axis], region: &Region, prefix: u32, f: &mut impl FnMut(u32)) {
    let Some((axis, rest)) = axes.split_first() else {
        return f(prefix);
    };
    let (first, last) = axis.span(region);
    for bin in first..=last {
        cells_under(rest, region, prefix * axis.bins + bin, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> CellLayout {
        CellLayout::new(vec![
            Axis {
                dimension: 2,
                name: "Y".into(),
                upper_bound: 1000,
                bins: 4,
            },
            Axis {
                dimension: 1,
                name: "X".into(),
                upper_bound: 1000,
                bins: 10,
            },
        ])
    }

    #[test]
    fn regions_overlap_on_every_shared_dimension() {
        let a = Region::new()
            .with(1, Range::new(0, 100))
            .with(2, Range::new(0, 100));
        let b = Region::new().with(1, Range::new(99, 200));
        let c = Region::new().with(1, Range::new(100, 200));
        let d = Region::new()
            .with(1, Range::new(50, 60))
            .with(2, Range::new(500, 600));
        assert!(a.overlaps(&b) && b.overlaps(&a));
        assert!(!a.overlaps(&c), "half-open: 100 is outside [0, 100)");
        assert!(!a.overlaps(&d), "overlap on X but not on Y");
        assert!(
            a.overlaps(&Region::new()),
            "an empty region spans everything"
        );
    }

    #[test]
    fn cells_cover_exactly_the_bins_a_region_touches() {
        let layout = layout();
        assert_eq!(layout.cell_count(), 40);
        // X (dimension 1) is the first axis: cell = x_bin * 4 + y_bin.
        let point = Region::new()
            .with(1, Range::new(150, 151))
            .with(2, Range::new(10, 11));
        assert_eq!(layout.cells(&point), vec![4]);
        let strip = Region::new().with(1, Range::new(0, 200));
        assert_eq!(layout.cells(&strip), vec![0, 1, 2, 3, 4, 5, 6, 7]);
        let edge = Region::new()
            .with(1, Range::new(999, 1000))
            .with(2, Range::new(999, 1000));
        assert_eq!(layout.cells(&edge), vec![39]);
        assert_eq!(layout.cells(&Region::new()).len(), 40);
        for region in [point, strip, edge, Region::new()] {
            assert_eq!(
                layout.cells_touched(&region),
                layout.cells(&region).len() as u64
            );
        }
    }

    #[test]
    fn regions_are_checked_against_the_bounds() {
        let layout = layout();
        let bad = Region::new().with(1, Range::new(10, 10));
        assert!(matches!(
            layout.validate(&bad),
            Err(RegionError::EmptyRange { .. })
        ));
        let bad = Region::new().with(2, Range::new(900, 1001));
        assert_eq!(
            layout.validate(&bad).unwrap_err().to_string(),
            "dimension Y: range [900, 1001) passes its upper bound 1000"
        );
    }
}
