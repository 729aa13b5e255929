//! The plan view: where the viewer last saw each vehicle, for the demo's web page (dots on
//! the 1000 × 1000 map, the watcher's quarter shaded), and in a time-stepped run each
//! federate's granted logical time, sent as JSON a few times a second.

use super::progress::Board;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Vehicles the view keeps at most (the demo has a few; a bound all the same).
pub const MAX_VEHICLES: usize = 10_000;

pub(super) const PAGE: &str = include_str!("plan_view.html");
pub(super) const SCRIPT: &str = include_str!("plan_view.js");

/// A time-stepped run's clocks, as the page shows them.
pub(super) struct Clocks {
    pub board: Arc<Board>,
    /// Simulated seconds per logical step (1 / steps per second).
    pub step_seconds: f64,
}

pub(super) struct PlanView {
    /// The watcher's quarter: x and y below this edge.
    quarter: u64,
    vehicles: Mutex<BTreeMap<String, (u64, u64)>>,
    /// `None` when the run is not time-stepped.
    clocks: Option<Clocks>,
}

impl PlanView {
    pub(super) fn new(quarter: u64, clocks: Option<Clocks>) -> PlanView {
        PlanView {
            quarter,
            vehicles: Mutex::new(BTreeMap::new()),
            clocks,
        }
    }

    /// The viewer reflected `name` at (x, y).
    pub(super) fn moved(&self, name: &str, x: u64, y: u64) {
        let mut vehicles = self.vehicles.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = vehicles.get_mut(name) {
            *at = (x, y);
        } else if vehicles.len() < MAX_VEHICLES {
            vehicles.insert(name.to_owned(), (x, y));
        }
    }

    /// `{"quarter":500,"vehicles":[["GroundVehicle-0",x,y],…],"time":…}`, where `time` is
    /// null unless time-stepped, then `{"federation":least granted,"federates":[["viewer",
    /// granted],…],"grants":so far,"step_seconds":…}`.
    pub(super) fn json(&self) -> String {
        let vehicles = self.vehicles.lock().unwrap_or_else(|e| e.into_inner());
        let list: Vec<(&String, u64, u64)> =
            vehicles.iter().map(|(n, &(x, y))| (n, x, y)).collect();
        let time = self.clocks.as_ref().and_then(Clocks::json);
        serde_json::json!({"quarter": self.quarter, "vehicles": list, "time": time}).to_string()
    }
}

impl Clocks {
    /// The federation's time is the least granted time: no time-managed federate is behind
    /// it, and no time-stamped message below it can still arrive at any of them.
    fn json(&self) -> Option<serde_json::Value> {
        let time = self.board.granted_time()?;
        Some(serde_json::json!({
            "federation": time.min,
            "federates": self.board.granted_by_federate(),
            "grants": time.grants,
            "step_seconds": self.step_seconds,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_latest_position_of_each_vehicle() {
        let view = PlanView::new(500, None);
        view.moved("Aircraft-0", 1, 2);
        view.moved("GroundVehicle-0", 3, 4);
        view.moved("Aircraft-0", 5, 6);
        assert_eq!(
            view.json(),
            r#"{"quarter":500,"time":null,"vehicles":[["Aircraft-0",5,6],["GroundVehicle-0",3,4]]}"#
        );
    }

    #[test]
    fn a_time_stepped_view_carries_each_clock_and_the_least_as_the_federations() {
        let board = Arc::new(Board::with_clocks(&["viewer", "ground-sim"]));
        let view = PlanView::new(
            500,
            Some(Clocks {
                board: board.clone(),
                step_seconds: 0.1,
            }),
        );
        board.clock("viewer").unwrap().granted(7);
        board.clock("ground-sim").unwrap().granted(8);
        let json: serde_json::Value = serde_json::from_str(&view.json()).unwrap();
        assert_eq!(
            json["time"],
            serde_json::json!({
                "federation": 7,
                "federates": [["viewer", 7], ["ground-sim", 8]],
                "grants": 2,
                "step_seconds": 0.1,
            })
        );
    }
}
