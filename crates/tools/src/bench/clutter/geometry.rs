//! The map and who is where, computed the same way by every process from the run's
//! parameters and seed: simulators' areas, their subscriptions (the area and a band of
//! neighbouring cells), viewers' windows, and every entity's position at every tick.
//!
//! Units are the object model's X and Y dimensions (Vehicle.Position, `[0, 1000)`), cut
//! into 1000 routing bins each, so one map unit is one routing cell and a region that is
//! whole units is exactly a set of cells: the routers never pass an update the federate
//! library then has to discard.

use serde::{Deserialize, Serialize};

/// The dimensions' upper bound in the demo object model.
pub const MAP_UNITS: u32 = 1000;
/// Routing bins per dimension: one per map unit.
pub const BINS: u32 = MAP_UNITS;

/// A half-open rectangle `[x0, x1) × [y0, y1)` in map units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rect {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

impl Rect {
    pub fn contains(&self, (x, y): (u32, u32)) -> bool {
        self.x0 <= x && x < self.x1 && self.y0 <= y && y < self.y1
    }

    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x0 < other.x1 && other.x0 < self.x1 && self.y0 < other.y1 && other.y0 < self.y1
    }

    pub fn cells(&self) -> u64 {
        u64::from(self.x1 - self.x0) * u64::from(self.y1 - self.y0)
    }
}

/// Everything that decides where entities are and who must hear them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Geometry {
    pub entities: u64,
    pub simulators: u32,
    pub viewers: u32,
    /// Side of each simulator's square area.
    pub area_units: u32,
    /// How far past its area a simulator listens (its neighbours' border bands).
    pub margin_units: u32,
    /// Side of a viewer's square window (capped at the map).
    pub viewer_window_units: u32,
    /// Largest step an entity takes per tick along each axis.
    pub max_step_units: u32,
    pub seed: u64,
}

/// An entity's start within its owner's area and its step per tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Motion {
    pub x0: u32,
    pub y0: u32,
    pub dx: i64,
    pub dy: i64,
}

/// splitmix64: a fast, well-mixed hash of the seed and an entity number.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Geometry {
    /// Areas per row: the smallest square grid that holds every simulator.
    pub fn columns(&self) -> u32 {
        let s = self.simulators.max(1);
        let mut c = (f64::from(s)).sqrt() as u32;
        while c * c < s {
            c += 1;
        }
        c.max(1)
    }

    pub fn rows(&self) -> u32 {
        self.simulators.max(1).div_ceil(self.columns())
    }

    /// The part of the space the areas cover.
    pub fn map(&self) -> Rect {
        Rect {
            x0: 0,
            y0: 0,
            x1: self.columns() * self.area_units,
            y1: self.rows() * self.area_units,
        }
    }

    /// What is wrong with these parameters, naming the option to change.
    pub fn validate(&self) -> Result<(), String> {
        if self.simulators == 0 {
            return Err("--simulators must be at least 1".into());
        }
        if self.area_units == 0 {
            return Err("--area-units must be at least 1".into());
        }
        let map = self.map();
        if map.x1 > MAP_UNITS || map.y1 > MAP_UNITS {
            return Err(format!(
                "{} simulators of {} × {} units need a {} × {} map; the space is {MAP_UNITS} × {MAP_UNITS}: lower --area-units or --simulators",
                self.simulators, self.area_units, self.area_units, map.x1, map.y1
            ));
        }
        if self.viewer_window_units == 0 && self.viewers > 0 {
            return Err("--viewer-window-units must be at least 1".into());
        }
        if u64::from(self.simulators) > self.entities.max(1) {
            return Err(format!(
                "{} simulators for {} entities: every simulator needs at least one entity",
                self.simulators, self.entities
            ));
        }
        Ok(())
    }

    pub fn area(&self, simulator: u32) -> Rect {
        let a = self.area_units;
        let (col, row) = (simulator % self.columns(), simulator / self.columns());
        Rect {
            x0: col * a,
            y0: row * a,
            x1: (col + 1) * a,
            y1: (row + 1) * a,
        }
    }

    /// A simulator's subscription: its area and `margin_units` around it, within the map.
    pub fn subscription(&self, simulator: u32) -> Rect {
        let (area, map, m) = (self.area(simulator), self.map(), self.margin_units);
        Rect {
            x0: area.x0.saturating_sub(m),
            y0: area.y0.saturating_sub(m),
            x1: (area.x1 + m).min(map.x1),
            y1: (area.y1 + m).min(map.y1),
        }
    }

    /// Viewer `v`'s window: spread along the map's diagonal.
    pub fn window(&self, viewer: u32) -> Rect {
        let map = self.map();
        let place = |extent: u32| {
            let side = self.viewer_window_units.min(extent);
            let free = u64::from(extent - side);
            let start = free * u64::from(2 * viewer + 1) / u64::from(2 * self.viewers.max(1));
            (start as u32, start as u32 + side)
        };
        let (x0, x1) = place(map.x1);
        let (y0, y1) = place(map.y1);
        Rect { x0, y0, x1, y1 }
    }

    /// Entities simulator `s` owns: `first .. first + count`.
    pub fn owned(&self, simulator: u32) -> (u64, u64) {
        let s = u64::from(simulator);
        let (each, extra) = (
            self.entities / u64::from(self.simulators),
            self.entities % u64::from(self.simulators),
        );
        (s * each + s.min(extra), each + u64::from(s < extra))
    }

    /// Who owns `entity`, and its number among that simulator's entities.
    pub fn owner(&self, entity: u64) -> (u32, u64) {
        let each = self.entities / u64::from(self.simulators);
        let extra = self.entities % u64::from(self.simulators);
        let big = extra * (each + 1);
        if entity < big {
            ((entity / (each + 1)) as u32, entity % (each + 1))
        } else {
            let rest = entity - big;
            ((extra + rest / each) as u32, rest % each)
        }
    }

    pub fn motion(&self, entity: u64) -> Motion {
        let h = mix(self.seed ^ mix(entity));
        let a = u64::from(self.area_units);
        let span = 2 * i64::from(self.max_step_units) + 1;
        Motion {
            x0: (h % a) as u32,
            y0: ((h >> 16) % a) as u32,
            dx: ((h >> 32) % span as u64) as i64 - i64::from(self.max_step_units),
            dy: ((h >> 48) % span as u64) as i64 - i64::from(self.max_step_units),
        }
    }

    /// Where `entity` is at tick `k`: it moves in a straight line and wraps around within
    /// its owner's area (a torus), so it never leaves the area but crosses its cells.
    pub fn position(&self, entity: u64, tick: u64) -> (u32, u32) {
        let (owner, _) = self.owner(entity);
        self.position_in(&self.area(owner), &self.motion(entity), tick)
    }

    pub fn position_in(&self, area: &Rect, motion: &Motion, tick: u64) -> (u32, u32) {
        let a = i64::from(self.area_units);
        let k = tick as i64;
        let x = (i64::from(motion.x0) + motion.dx * k).rem_euclid(a) as u32;
        let y = (i64::from(motion.y0) + motion.dy * k).rem_euclid(a) as u32;
        (area.x0 + x, area.y0 + y)
    }

    /// The simulators whose entities can enter `interest`.
    pub fn sources(&self, interest: &Rect) -> Vec<u32> {
        (0..self.simulators)
            .filter(|&s| self.area(s).overlaps(interest))
            .collect()
    }

    /// Cells in simulator `s`'s area that every receiver whose region meets the area has in
    /// its region (one per receiver, the corner of the overlap; repeated cells once).
    pub fn greeting_cells(&self, simulator: u32) -> Vec<(u32, u32)> {
        let area = self.area(simulator);
        let simulators = (0..self.simulators)
            .filter(|&s| s != simulator)
            .map(|s| self.subscription(s));
        let windows = (0..self.viewers).map(|v| self.window(v));
        let mut cells: Vec<(u32, u32)> = simulators
            .chain(windows)
            .filter(|interest| interest.overlaps(&area))
            .map(|interest| (interest.x0.max(area.x0), interest.y0.max(area.y0)))
            .collect();
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    /// What a receiver with `interest` must reflect: every update of an entity (not its
    /// own, `except`) whose position at that tick lies inside `interest`, for the updates
    /// each simulator sent (`sent[s]` of them, in order: update `q` of simulator `s` is
    /// its entity `q % count` at tick `q / count`).
    pub fn expected(&self, interest: &Rect, except: Option<u32>, sent: &[u64]) -> u64 {
        let mut expected = 0;
        for s in self.sources(interest) {
            if Some(s) == except {
                continue;
            }
            let (first, count) = self.owned(s);
            let area = self.area(s);
            let sent = sent.get(s as usize).copied().unwrap_or(0);
            for j in 0..count {
                let motion = self.motion(first + j);
                let mut tick = 0;
                while tick * count + j < sent {
                    if interest.contains(self.position_in(&area, &motion, tick)) {
                        expected += 1;
                    }
                    tick += 1;
                }
            }
        }
        expected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry(entities: u64, simulators: u32) -> Geometry {
        Geometry {
            entities,
            simulators,
            viewers: 2,
            area_units: 20,
            margin_units: 5,
            viewer_window_units: 40,
            max_step_units: 2,
            seed: 7,
        }
    }

    #[test]
    fn every_entity_has_one_owner_and_stays_in_its_area() {
        let g = geometry(1003, 7);
        let mut next = 0;
        for s in 0..7 {
            let (first, count) = g.owned(s);
            assert_eq!(first, next);
            next += count;
            for j in 0..count {
                assert_eq!(g.owner(first + j), (s, j));
                for tick in 0..50 {
                    assert!(g.area(s).contains(g.position(first + j, tick)));
                }
            }
        }
        assert_eq!(next, 1003);
    }

    #[test]
    fn areas_tile_the_map_and_subscriptions_reach_the_neighbours() {
        let g = geometry(100, 9);
        assert_eq!((g.columns(), g.rows()), (3, 3));
        assert_eq!(g.map().x1, 60);
        let centre = g.subscription(4);
        assert_eq!(
            centre,
            Rect {
                x0: 15,
                y0: 15,
                x1: 45,
                y1: 45
            }
        );
        assert_eq!(g.sources(&centre), (0..9).collect::<Vec<_>>());
        let corner = g.subscription(0);
        assert_eq!(
            corner,
            Rect {
                x0: 0,
                y0: 0,
                x1: 25,
                y1: 25
            }
        );
        assert_eq!(g.sources(&corner), vec![0, 1, 3, 4]);
        // Every receiver that must hear simulator 4 has one of its greeting cells.
        let cells = g.greeting_cells(4);
        for s in (0..9).filter(|&s| s != 4) {
            assert!(
                cells.iter().any(|&c| g.subscription(s).contains(c)),
                "simulator {s}"
            );
            assert!(cells.iter().all(|&c| g.area(4).contains(c)));
        }
        assert!(g.validate().is_ok());
        assert!(geometry(10, 2600)
            .validate()
            .unwrap_err()
            .contains("--area-units"));
    }

    #[test]
    fn expected_counts_follow_the_motion() {
        let g = geometry(40, 4);
        let sent = vec![30, 30, 30, 30];
        // A window over the whole map expects every update but its own.
        let all = g.map();
        assert_eq!(g.expected(&all, None, &sent), 120);
        assert_eq!(g.expected(&all, Some(0), &sent), 90);
        // By hand for one simulator's window.
        let window = g.window(0);
        let mut by_hand = 0;
        for entity in 0..40 {
            let (owner, j) = g.owner(entity);
            for tick in 0..3 {
                let q = tick * 10 + j;
                if q < sent[owner as usize] && window.contains(g.position(entity, tick)) {
                    by_hand += 1;
                }
            }
        }
        assert_eq!(g.expected(&window, None, &sent), by_hand);
    }
}
