//! The plan view: where the viewer last saw each vehicle, for the demo's web page (dots on
//! the 1000 × 1000 map, the watcher's quarter shaded), sent as JSON a few times a second.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// Vehicles the view keeps at most (the demo has a few; a bound all the same).
pub const MAX_VEHICLES: usize = 10_000;

pub(super) const PAGE: &str = include_str!("plan_view.html");
pub(super) const SCRIPT: &str = include_str!("plan_view.js");

pub(super) struct PlanView {
    /// The watcher's quarter: x and y below this edge.
    quarter: u64,
    vehicles: Mutex<BTreeMap<String, (u64, u64)>>,
}

impl PlanView {
    pub(super) fn new(quarter: u64) -> PlanView {
        PlanView {
            quarter,
            vehicles: Mutex::new(BTreeMap::new()),
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

    /// `{"quarter":500,"vehicles":[["GroundVehicle-0",x,y],…]}`.
    pub(super) fn json(&self) -> String {
        let vehicles = self.vehicles.lock().unwrap_or_else(|e| e.into_inner());
        let list: Vec<(&String, u64, u64)> =
            vehicles.iter().map(|(n, &(x, y))| (n, x, y)).collect();
        serde_json::json!({"quarter": self.quarter, "vehicles": list}).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_latest_position_of_each_vehicle() {
        let view = PlanView::new(500);
        view.moved("Aircraft-0", 1, 2);
        view.moved("GroundVehicle-0", 3, 4);
        view.moved("Aircraft-0", 5, 6);
        assert_eq!(
            view.json(),
            r#"{"quarter":500,"vehicles":[["Aircraft-0",5,6],["GroundVehicle-0",3,4]]}"#
        );
    }
}
