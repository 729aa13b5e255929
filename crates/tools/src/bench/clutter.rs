//! The clutter benchmark (JSAF / JESPP style): simulator federates each own a share of N
//! entities moving on a 2-D map and update every entity's position at R Hz; each simulator
//! subscribes, by routing region, to its area and a band around it (so it hears its
//! neighbours' entities near the border), and a few viewers subscribe to a window of the
//! map. It measures whether the RTI keeps up, and checks that every receiver got exactly
//! what its interest says.
//!
//! **The workload.** The object model is the demo FOM: Vehicle.Position, whose routing
//! space is X × Y, `[0, 1000)` each, cut into 1000 bins so that one map unit is one routing
//! cell. Simulator `s` owns entities `first(s) .. first(s) + count(s)` (N split evenly) in a
//! square area of `--area-units`; areas tile the map in a square grid. Each entity starts at
//! a seeded position in its owner's area and moves by a seeded step (at most
//! `--max-step-units` per axis) every tick, wrapping around inside the area, so it keeps
//! crossing routing cells. Every update carries a 100-byte value shaped like an RPR entity
//! state (ids, position, velocity, orientation, type, marking) with the entity number and
//! tick, is sent with the region `[x, x+1) × [y, y+1)` of the entity's position at that
//! tick, reliably unless `--transport best-effort`, and is stamped with the sender's wall
//! clock (all processes share it: one machine). Update `q` of a simulator is entity
//! `q mod count` at tick `q div count`, due `q / (count × R)` seconds after the start, so
//! the load is spread evenly over each second; whatever is not sent when the run's seconds
//! are over is what "achieved" falls short of "planned".
//!
//! **Interest.** A simulator subscribes to one region, its area grown by `--margin-units`
//! on each side (within the map); a viewer to a `--viewer-window-units` square spread along
//! the map's diagonal. Both also subscribe to the Radio interaction in the same region,
//! which is how readiness is established: simulators send a greeting in their area every
//! 100 ms until the start, and a receiver counts as ready once it heard every simulator
//! whose area meets its region. Object interest is declared before interaction interest
//! and interest travels in order, so a receiver that heard a simulator has its update
//! interest in place at that simulator.
//!
//! **Exactness and completeness.** Every process computes positions from the seed, so a
//! receiver knows exactly what it must reflect: update (e, k) iff e is not its own entity
//! and e's position at tick k lies inside its subscription region (the update's region is
//! that one cell; the region at send time is what counts, and a move changes the cell of
//! the next update only). Simulators report how many updates they sent; from that each
//! receiver computes its expected count and keeps one bit per (entity it may see, tick):
//! *missing* = expected − distinct arrivals inside the interest (must be 0 when reliable),
//! *unexpected* = arrivals outside the interest, of its own entities or past what was sent
//! (must be 0: exactness), *duplicates* = a second arrival of the same (e, k), *corrupt* = a
//! value that does not decode or whose position is not where that entity was at that
//! tick. The delivery ratio is (expected − missing) / expected.
//!
//! **Processes.** Simulators are spread round-robin over `--processes` worker processes
//! (`trellis bench clutter-worker`, one thread and one directly driven node per federate);
//! viewers run in one more process of their own, so memory per entity can be told apart.
//! Routers run in this process, one event loop thread each (so their CPU is read per
//! thread and their forward counters directly), or are already running
//! (`--routers-running`: found by command line, measured from /proc, no counters).
//!
//! **Order of setting up.** The RTI announces every registration to every subscriber of the
//! class (its wildcard cell, whatever their regions), and a subscription asks every owner
//! to announce all its instances again (discovery, IEEE 1516.1 §6.9). So every federate
//! joins and subscribes first, and only once all have (the coordinator says so) do the
//! simulators register: N × receivers announcements once, before the measurement (a
//! region subscriber drops them; it discovers an instance with its first update in its
//! region). After their account receivers unsubscribe, so the deletes of resigning (the
//! standard's default action) reach no one.
//!
//! **Caveats.** Memory per entity includes the benchmark's own bookkeeping (an object
//! handle per owned entity; one bit per entity and tick in a receiver).

mod coordinator;
mod creator;
mod federate;
mod geometry;
mod histogram;
mod pacing;
mod payload;
mod procstat;
mod protocol;
mod routers;
mod summary;
mod tally;
mod worker;

pub use crate::results::clutter::{
    frames, CaseSummary, ClutterSummary, FederateRates, Latency, ProcessRow, ProcessSecond, Role,
    Scalability, SecondRow, SCALABILITY_FACTOR,
};
pub use geometry::Geometry;

use super::results::Results;
use super::{BenchError, Setup, Transport};
use std::path::PathBuf;
use trellis_net::rti::Driver;

pub const DEFAULT_ENTITIES: u64 = 10_000;
pub const DEFAULT_RATE_HZ: f64 = 1.0;
pub const DEFAULT_SECONDS: f64 = 10.0;
/// A simulator's frame: it sends the updates falling due in each frame at the frame's
/// start, as a simulation loop does, instead of each on its own wake-up.
pub const DEFAULT_FRAME_MS: u32 = 0;
/// Frames longer than this would make the rate a burst per second.
pub const MAX_FRAME_MS: u32 = 1000;

pub const DEFAULT_SIMULATORS: u32 = 8;
pub const DEFAULT_VIEWERS: u32 = 2;
pub const DEFAULT_PROCESSES: usize = 2;
pub const DEFAULT_AREA_UNITS: u32 = 20;
pub const DEFAULT_MARGIN_UNITS: u32 = 5;
pub const DEFAULT_VIEWER_WINDOW_UNITS: u32 = 40;
pub const DEFAULT_MAX_STEP_UNITS: u32 = 2;
/// Ticks a receiver keeps a bit for per entity: bounds its bookkeeping.
const MAX_TICKS: f64 = 100_000.0;
#[derive(Clone, Debug)]
pub struct ClutterOptions {
    pub setup: Setup,
    /// The `trellis` executable, to start worker processes.
    pub trellis: PathBuf,
    /// One case per value.
    pub entities: Vec<u64>,
    /// Simulators per case, unless `entities_per_simulator` decides.
    pub simulators: u32,
    /// Simulators = ⌈N / this⌉ in each case: the per-simulator load and interest stay
    /// fixed as N grows (the JESPP scalability sweep).
    pub entities_per_simulator: Option<u64>,
    pub viewers: u32,
    /// Worker processes for the simulators (viewers get one more).
    pub processes: usize,
    /// Workers placed on this file's hosts (locally or over ssh), by the names `worker-N`;
    /// `None`: children of this process.
    pub hosts: Option<super::agents::HostsFile>,
    pub rate_hz: f64,
    pub seconds: f64,
    /// Simulators send in frames of this many milliseconds (0: each update when due).
    pub frame_ms: u32,
    pub driver: Driver,
    pub area_units: u32,
    pub margin_units: u32,
    pub viewer_window_units: u32,
    pub max_step_units: u32,
    pub seed: u64,
}

impl ClutterOptions {
    /// Defaults for everything but where it runs and the executable.
    pub fn new(setup: Setup, trellis: PathBuf) -> ClutterOptions {
        ClutterOptions {
            setup,
            trellis,
            entities: vec![DEFAULT_ENTITIES],
            simulators: DEFAULT_SIMULATORS,
            entities_per_simulator: None,
            viewers: DEFAULT_VIEWERS,
            processes: DEFAULT_PROCESSES,
            hosts: None,
            rate_hz: DEFAULT_RATE_HZ,
            seconds: DEFAULT_SECONDS,
            frame_ms: DEFAULT_FRAME_MS,
            driver: Driver::Thread,
            area_units: DEFAULT_AREA_UNITS,
            margin_units: DEFAULT_MARGIN_UNITS,
            viewer_window_units: DEFAULT_VIEWER_WINDOW_UNITS,
            max_step_units: DEFAULT_MAX_STEP_UNITS,
            seed: 1,
        }
    }

    /// The geometry of the case with `entities` entities.
    pub fn geometry(&self, entities: u64) -> Geometry {
        let simulators = match self.entities_per_simulator {
            Some(each) => entities.div_ceil(each.max(1)).min(u64::from(u32::MAX)) as u32,
            None => self.simulators,
        };
        Geometry {
            entities,
            simulators,
            viewers: self.viewers,
            area_units: self.area_units,
            margin_units: self.margin_units,
            viewer_window_units: self.viewer_window_units,
            max_step_units: self.max_step_units,
            seed: self.seed,
        }
    }

    /// What is wrong with the options, naming the flag.
    pub fn validate(&self) -> Result<(), String> {
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("{name} must be a positive number, not {v}"))
            }
        };
        positive("--rate", self.rate_hz)?;
        positive("--seconds", self.seconds)?;
        if self.rate_hz * self.seconds > MAX_TICKS {
            return Err(format!(
                "--rate × --seconds is {} ticks; at most {MAX_TICKS} are kept per entity",
                self.rate_hz * self.seconds
            ));
        }
        if self.frame_ms > MAX_FRAME_MS {
            return Err(format!(
                "--frame-ms is {}; at most {MAX_FRAME_MS}",
                self.frame_ms
            ));
        }
        if self.processes == 0 {
            return Err("--processes must be at least 1".into());
        }
        if self.entities.is_empty() || self.entities.contains(&0) {
            return Err("--entities must list at least one count, each at least 1".into());
        }
        if self.entities_per_simulator == Some(0) {
            return Err("--entities-per-simulator must be at least 1".into());
        }
        if self.setup.api == super::Api::Node {
            return Err(
                "clutter exercises the HLA services (regions, updates); it has no node-API form"
                    .into(),
            );
        }
        for &n in &self.entities {
            self.geometry(n)
                .validate()
                .map_err(|e| format!("{n} entities: {e}"))?;
        }
        Ok(())
    }
}

/// Run a worker process: its plan and commands on stdin, messages on stdout.
pub fn worker_main() -> Result<(), BenchError> {
    worker::main(std::io::BufReader::new(std::io::stdin()))
}

/// Run every case, writing the results folder as each finishes.
pub fn run(options: &ClutterOptions, results: &Results) -> Result<ClutterSummary, BenchError> {
    options.validate().map_err(BenchError::Failed)?;
    let mut summary = ClutterSummary {
        transport: options.setup.transport,
        topology: options
            .setup
            .topology
            .as_ref()
            .map(|t| t.display().to_string()),
        processes: options.processes,
        rate_hz: options.rate_hz,
        seconds: options.seconds,
        frame_ms: options.frame_ms,
        driver: options.driver,
        area_units: options.area_units,
        margin_units: options.margin_units,
        viewer_window_units: options.viewer_window_units,
        seed: options.seed,
        cases: Vec::new(),
        scalability: None,
        passed: true,
    };
    let routers = routers::Routers::start(&options.setup)?;
    check_places(options, routers.places())?;
    let reliable = options.setup.transport == Transport::Reliable;
    let mut first_place = 0;
    for (case, &entities) in options.entities.iter().enumerate() {
        if options.setup.stopped() {
            break;
        }
        let geometry = options.geometry(entities);
        let place = coordinator::Place {
            case,
            routers: &routers,
            first_place,
            dir: results.dir(),
        };
        // Each case's federates and its creator take fresh attachment points.
        first_place += (geometry.simulators + geometry.viewers) as usize + 1;
        let outcome = coordinator::run_case(options, geometry, &place)?;
        for fault in &outcome.faults {
            results.fault(format!("{entities} entities: {fault}"));
        }
        let case_summary = summary::summarise(
            &outcome,
            options.processes,
            options.rate_hz,
            options.seconds,
            reliable,
        );
        write_case(results, case, &case_summary)?;
        summary.cases.push(case_summary);
        summary.scalability = scalability(options, &summary.cases);
        summary.passed = summary
            .cases
            .iter()
            .all(|c| c.exact && (!reliable || c.complete));
        results.write_summary(&summary)?;
    }
    Ok(summary)
}

/// Every federate of a case (and the case's creator) needs an attachment point of its own:
/// nodes sharing one lost their memberships (the registry resigned them as died).
fn check_places(options: &ClutterOptions, places: Option<usize>) -> Result<(), BenchError> {
    let Some(places) = places else {
        return Ok(());
    };
    for &n in &options.entities {
        let g = options.geometry(n);
        let needed = (g.simulators + g.viewers) as usize + 1;
        if needed > places {
            return Err(BenchError::Failed(format!(
                "{n} entities need {needed} attachment points (simulators, viewers and the federation's creator); the topology has {places}: generate it with more --federates"
            )));
        }
    }
    Ok(())
}

fn scalability(options: &ClutterOptions, cases: &[CaseSummary]) -> Option<Scalability> {
    let smallest = cases.iter().min_by_key(|c| c.entities)?;
    let largest = cases.iter().max_by_key(|c| c.entities)?;
    if cases.len() < 2 || smallest.entities == largest.entities {
        return None;
    }
    let per_simulator = |c: &CaseSummary| c.entities.div_ceil(u64::from(c.simulators.max(1)));
    let interest_fixed = cases
        .windows(2)
        .all(|w| per_simulator(&w[0]).abs_diff(per_simulator(&w[1])) <= 1);
    let within = |large: f64, small: f64| large <= small * SCALABILITY_FACTOR;
    let _ = options;
    Some(Scalability {
        interest_fixed,
        smallest_entities: smallest.entities,
        largest_entities: largest.entities,
        max_out_smallest: smallest.max_out_per_second,
        max_out_largest: largest.max_out_per_second,
        max_in_smallest: smallest.max_in_per_second,
        max_in_largest: largest.max_in_per_second,
        holds: interest_fixed
            && within(largest.max_out_per_second, smallest.max_out_per_second)
            && within(largest.max_in_per_second, smallest.max_in_per_second),
    })
}

fn write_case(results: &Results, case: usize, c: &CaseSummary) -> Result<(), BenchError> {
    let n = c.entities;
    let us = |v: Option<u64>| v.map_or_else(String::new, |v| v.to_string());
    let seconds: Vec<Vec<String>> = c
        .seconds_rows
        .iter()
        .map(|r| {
            vec![
                r.second.to_string(),
                r.planned_updates.to_string(),
                r.updates_sent.to_string(),
                r.reflects.to_string(),
                us(r.latency.p50_us),
                us(r.latency.p99_us),
                us(r.latency.max_us),
                r.router_forwards
                    .map_or_else(String::new, |f| f.to_string()),
            ]
        })
        .collect();
    results.write_csv(
        &format!("case-{case}-{n}-seconds.csv"),
        &[
            "second",
            "planned_updates",
            "updates_sent",
            "reflects",
            "latency_p50_us",
            "latency_p99_us",
            "latency_max_us",
            "router_forwards",
        ],
        &seconds,
    )?;
    let processes: Vec<Vec<String>> = c
        .process_seconds
        .iter()
        .map(|p| {
            vec![
                p.second.to_string(),
                p.process.clone(),
                format!("{:.1}", p.cpu_percent),
                p.rss_kb.to_string(),
            ]
        })
        .collect();
    results.write_csv(
        &format!("case-{case}-{n}-processes.csv"),
        &["second", "process", "cpu_percent", "rss_kb"],
        &processes,
    )?;
    let federates: Vec<Vec<String>> = c
        .federates
        .iter()
        .map(|f| {
            vec![
                f.name.clone(),
                f.role
                    .map_or("", |r| {
                        if r == Role::Simulator {
                            "simulator"
                        } else {
                            "viewer"
                        }
                    })
                    .to_owned(),
                format!("{:.1}", f.out_per_second),
                format!("{:.1}", f.in_per_second),
                format!("{:.1}", f.expected_per_second),
            ]
        })
        .collect();
    results.write_csv(
        &format!("case-{case}-{n}-federates.csv"),
        &[
            "federate",
            "role",
            "out_per_second",
            "in_per_second",
            "expected_per_second",
        ],
        &federates,
    )?;
    Ok(())
}

fn figure(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.digits$}"))
}

fn ms(v: Option<u64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{:.1}", v as f64 / 1000.0))
}

/// The summary for people.
pub fn table(s: &ClutterSummary) -> String {
    let mut text = format!(
        "clutter ({:?}, {} Hz, {} s, {}, {:?} nodes, areas {} units, margin {}, viewer window {}):",
        s.transport,
        s.rate_hz,
        s.seconds,
        frames(s.frame_ms),
        s.driver,
        s.area_units,
        s.margin_units,
        s.viewer_window_units
    );
    for c in &s.cases {
        text.push_str(&format!(
            "\n  {} entities, {} simulators, {} viewers, {} processes: planned {:.0}/s, achieved {:.0}/s ({:.2} %); reflects {}, expected {}, missing {}, unexpected {}, duplicates {}, corrupt {}; delivery {}; latency p50 {} ms, p99 {} ms, max {} ms; {}",
            c.entities, c.simulators, c.viewers, c.processes, c.planned_per_second, c.achieved_per_second,
            c.achieved_ratio * 100.0, c.reflects, c.expected, c.missing, c.unexpected, c.duplicates, c.corrupt,
            figure(c.delivery_ratio, 4), ms(c.latency.p50_us), ms(c.latency.p99_us), ms(c.latency.max_us),
            if c.sustained { "sustained" } else { "NOT sustained" },
        ));
        text.push_str(&format!(
            "\n    join p50 {} ms, max {} ms; memory per federate {} KiB; per entity: simulator {} B (RSS {} B), viewer {} B over {} known; registering {:.1} s; router forwards {}/s; per federate max out {:.0}/s, max in {:.0}/s",
            ms(c.join_p50_us), ms(c.join_max_us), figure(c.memory_per_federate_kb, 1),
            figure(c.simulator_bytes_per_entity, 0), figure(c.simulator_rss_bytes_per_entity, 0),
            figure(c.viewer_bytes_per_entity, 0), c.viewer_entities_known, c.register_seconds,
            figure(c.router_forwards_per_second, 0), c.max_out_per_second, c.max_in_per_second,
        ));
        for p in &c.process_rows {
            text.push_str(&format!(
                "\n    {}: {} federates, CPU {:.0} %, RSS max {:.1} MiB",
                p.process,
                p.federates,
                p.cpu_percent,
                p.rss_max_kb as f64 / 1024.0
            ));
        }
    }
    if let Some(k) = &s.scalability {
        text.push_str(&format!(
            "\n  scalability {} → {} entities: max out per federate {:.0} → {:.0}/s, max in {:.0} → {:.0}/s; interest {}; {}",
            k.smallest_entities, k.largest_entities, k.max_out_smallest, k.max_out_largest, k.max_in_smallest, k.max_in_largest,
            if k.interest_fixed { "fixed" } else { "NOT fixed (use --entities-per-simulator)" },
            if k.holds { "holds" } else { "does NOT hold" },
        ));
    }
    text
}
