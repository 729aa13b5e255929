//! Figures of the federates a process runs. A federate's ambassador lives on its own
//! thread and is not shared, so the federate publishes its figures to a [`FederateBoard`]
//! when it likes (every loop turn or every second: a copy of a few counters), and a
//! scrape reads the board without asking the federate anything.

use super::render::{Exposition, Kind};
use std::sync::{Arc, Mutex};
use trellis_core::federate::{Federate, TimeRepresentation};
use trellis_net::rti::RtiAmbassador;

/// Most federates one board lists; publishing more is refused (the figures of a
/// process's first federates are kept, never an unbounded list).
pub const MAX_FEDERATES_PER_BOARD: usize = 4096;

/// One federate's figures at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FederateFigures {
    pub federate: String,
    pub federation: String,
    pub owned_objects: u64,
    pub known_objects: u64,
    pub updates_sent: u64,
    pub reflects: u64,
    pub interactions_received: u64,
    pub interactions_sent: u64,
    pub callbacks_pending: u64,
    /// The granted logical time, only while time-regulating or time-constrained.
    pub granted_time: Option<f64>,
}

impl FederateFigures {
    /// The figures of a joined federate; `None` before it joined or after it resigned.
    pub fn of(rti: &RtiAmbassador) -> Option<FederateFigures> {
        let federate = rti.federate().ok()?;
        Some(FederateFigures::from_federate(
            rti.federate_name()?,
            rti.federation(),
            federate,
        ))
    }

    pub fn from_federate(name: &str, federation: &str, federate: &Federate) -> FederateFigures {
        let stats = federate.stats();
        let timed = federate.is_time_regulating() || federate.is_time_constrained();
        let granted_time = timed.then(|| {
            let time = federate.query_logical_time();
            match federate.time_representation() {
                TimeRepresentation::Integer64 => time.as_i64() as f64,
                TimeRepresentation::Float64 => time.as_f64(),
            }
        });
        FederateFigures {
            federate: name.to_owned(),
            federation: federation.to_owned(),
            owned_objects: federate.owned_object_count() as u64,
            known_objects: federate.known_object_count() as u64,
            updates_sent: stats.updates_sent,
            reflects: stats.reflections,
            interactions_received: stats.interactions,
            interactions_sent: stats.interactions_sent,
            callbacks_pending: federate.callbacks_pending() as u64,
            granted_time,
        }
    }

    /// Add this federate's families to `out`.
    pub fn write(&self, out: &mut Exposition) {
        let base = [
            ("federate", self.federate.as_str()),
            ("federation", self.federation.as_str()),
        ];
        let with = |kind: &'static str| [base[0], base[1], ("kind", kind)];
        let help =
            "Object instances the federate holds: owned (registered) and known (discovered).";
        out.sample(
            "trellis_federate_objects",
            Kind::Gauge,
            help,
            &with("owned"),
            self.owned_objects as f64,
        );
        out.sample(
            "trellis_federate_objects",
            Kind::Gauge,
            help,
            &with("known"),
            self.known_objects as f64,
        );
        let counters: [(&'static str, &'static str, u64); 4] = [
            (
                "trellis_federate_updates_total",
                "Attribute value updates the federate sent.",
                self.updates_sent,
            ),
            (
                "trellis_federate_reflects_total",
                "Attribute value updates reflected to the federate.",
                self.reflects,
            ),
            (
                "trellis_federate_interactions_total",
                "Interactions the federate received.",
                self.interactions_received,
            ),
            (
                "trellis_federate_interactions_sent_total",
                "Interactions the federate sent.",
                self.interactions_sent,
            ),
        ];
        for (name, help, value) in counters {
            out.sample(name, Kind::Counter, help, &base, value as f64);
        }
        let help = "Callbacks queued for the federate, not yet evoked.";
        out.sample(
            "trellis_federate_callbacks_pending",
            Kind::Gauge,
            help,
            &base,
            self.callbacks_pending as f64,
        );
        if let Some(time) = self.granted_time {
            let help = "The federate's granted logical time (time-regulating or constrained only).";
            out.sample(
                "trellis_federate_granted_time",
                Kind::Gauge,
                help,
                &base,
                time,
            );
        }
    }
}

/// The latest figures of each federate of a process, by federate name. Cheap to clone:
/// every clone is the same board.
#[derive(Clone, Debug, Default)]
pub struct FederateBoard {
    federates: Arc<Mutex<Vec<FederateFigures>>>,
}

impl FederateBoard {
    pub fn new() -> FederateBoard {
        FederateBoard::default()
    }

    /// Replace the figures of `figures.federate` (or add them). Past
    /// [`MAX_FEDERATES_PER_BOARD`] names a new one is not added; returns whether kept.
    pub fn publish(&self, figures: FederateFigures) -> bool {
        let mut federates = self.federates.lock().unwrap_or_else(|e| e.into_inner());
        let known = federates
            .iter()
            .position(|f| f.federate == figures.federate);
        match known {
            Some(at) => federates[at] = figures,
            None if federates.len() < MAX_FEDERATES_PER_BOARD => federates.push(figures),
            None => return false,
        }
        true
    }

    /// Publish the figures of a joined federate; nothing before it joined.
    pub fn publish_from(&self, rti: &RtiAmbassador) {
        if let Some(figures) = FederateFigures::of(rti) {
            self.publish(figures);
        }
    }

    /// Forget a federate that resigned.
    pub fn remove(&self, federate: &str) {
        let mut federates = self.federates.lock().unwrap_or_else(|e| e.into_inner());
        federates.retain(|f| f.federate != federate);
    }

    pub fn snapshot(&self) -> Vec<FederateFigures> {
        self.federates
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn write(&self, out: &mut Exposition) {
        for figures in self.snapshot() {
            figures.write(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(name: &str, updates: u64) -> FederateFigures {
        FederateFigures {
            federate: name.into(),
            federation: "Ex".into(),
            updates_sent: updates,
            ..FederateFigures::default()
        }
    }

    #[test]
    fn a_board_keeps_the_latest_figures_of_each_federate() {
        let board = FederateBoard::new();
        board.publish(figures("a", 1));
        board.publish(figures("b", 5));
        board.publish(figures("a", 9));
        let names: Vec<(String, u64)> = board
            .snapshot()
            .into_iter()
            .map(|f| (f.federate, f.updates_sent))
            .collect();
        assert_eq!(names, [("a".to_owned(), 9), ("b".to_owned(), 5)]);
        board.remove("a");
        assert_eq!(board.snapshot().len(), 1);
    }

    #[test]
    fn granted_time_is_written_only_when_known() {
        let mut out = Exposition::new("p");
        figures("a", 3).write(&mut out);
        let text = out.render();
        assert!(
            text.contains(
                "trellis_federate_updates_total{process=\"p\",federate=\"a\",federation=\"Ex\"} 3"
            ),
            "{text}"
        );
        assert!(!text.contains("granted_time"), "{text}");
        let mut out = Exposition::new("p");
        FederateFigures {
            granted_time: Some(12.5),
            ..figures("a", 3)
        }
        .write(&mut out);
        assert!(out.render().contains(
            "trellis_federate_granted_time{process=\"p\",federate=\"a\",federation=\"Ex\"} 12.5"
        ));
    }
}
