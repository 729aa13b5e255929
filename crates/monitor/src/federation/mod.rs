//! The federation view: what a federation's MOM says of it and of each member, read as any
//! tool federate would (join, subscribe to `HLAmanager`, ask, resign).
//!
//! - [`tool`]: the tool federate; [`view`]: the report built from its raw values (no I/O).
//!   `trellis federation NAME` prints that report.
//! - [`Watcher`]: the monitor's federation panel — the tool federate on a thread of its
//!   own, asking every member for a report every second (`HLAadjust.HLAsetTiming`), keeping
//!   the latest report and each member's logical time over the last minutes for the page.
//!   A federation that does not exist (yet), or a router that does not answer, is said on
//!   the panel and tried again every [`RETRY_PERIOD`]; the monitor never exits for it.

mod object_counts;
mod sync_points;
pub mod tool;
pub mod view;

use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tool::{BuiltInModule, Tool, ViewError};
use trellis_net::rti::{LocalSettings, RtiError};
use view::{FederationReport, Time};

/// How often members are asked to report, in seconds (HLAsetTiming's period).
pub const REPORT_PERIOD_SECONDS: i32 = 1;
/// How long after a failed join (no such federation, no router) the watcher tries again.
pub const RETRY_PERIOD: Duration = Duration::from_secs(3);
/// How long the first read waits for every member's answer.
const FIRST_READ: Duration = Duration::from_secs(5);
/// Each member's logical time is kept this long, one point per report.
pub const TIME_HISTORY: Duration = Duration::from_secs(5 * 60);
/// Points kept per member: the history at one report a second, with room for jitter.
const TIME_POINTS: usize = 330;

/// What to watch and how to reach it.
pub struct WatchSetup {
    pub settings: LocalSettings,
    pub federation: String,
    /// Folders to look in for FOM modules not where the federation lists them.
    pub fom_path: Vec<PathBuf>,
    pub built_in: Vec<BuiltInModule>,
}

/// Where the watcher stands, as the page shows it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PanelState {
    /// Connecting and joining.
    Joining,
    /// The federation does not exist (yet): tried again every [`RETRY_PERIOD`].
    Absent,
    /// Joining failed otherwise (no router, a model that does not load): tried again.
    Failed,
    /// Joined and reading the MOM.
    Watching,
}

/// One member's logical time against wall time.
#[derive(Debug, Serialize)]
pub struct TimeLine {
    pub handle: u32,
    pub name: Option<String>,
    /// `[unix ms, logical time]`, oldest first.
    pub points: VecDeque<(u64, f64)>,
}

/// What `/federation.json` serves.
#[derive(Debug, Serialize)]
pub struct Panel {
    pub federation: String,
    pub state: PanelState,
    /// Why the state is not `watching`, in words.
    pub message: Option<String>,
    /// Unix ms of the latest report.
    pub at: Option<u64>,
    pub report: Option<FederationReport>,
    /// Per member (by handle), its logical time over the last [`TIME_HISTORY`].
    pub history: Vec<TimeLine>,
}

impl Panel {
    fn new(federation: &str) -> Panel {
        Panel {
            federation: federation.to_owned(),
            state: PanelState::Joining,
            message: None,
            at: None,
            report: None,
            history: Vec::new(),
        }
    }

    fn set_state(&mut self, state: PanelState, message: Option<String>) {
        self.state = state;
        self.message = message;
    }

    /// Take `report`, made at `now` (unix ms): each member's logical time joins its line;
    /// points older than [`TIME_HISTORY`] and lines left without points go.
    pub fn record(&mut self, report: FederationReport, now: u64) {
        let mut lines: BTreeMap<u32, TimeLine> = (self.history.drain(..))
            .map(|line| (line.handle, line))
            .collect();
        for federate in &report.federates {
            let Some(time) = federate.time.logical_time else {
                continue;
            };
            let line = lines.entry(federate.handle).or_insert_with(|| TimeLine {
                handle: federate.handle,
                name: None,
                points: VecDeque::new(),
            });
            line.name.clone_from(&federate.name);
            if line.points.len() == TIME_POINTS {
                line.points.pop_front();
            }
            line.points.push_back((now, as_number(time)));
        }
        let oldest = now.saturating_sub(millis(TIME_HISTORY));
        for line in lines.values_mut() {
            while line.points.front().is_some_and(|&(t, _)| t < oldest) {
                line.points.pop_front();
            }
        }
        self.history = (lines.into_values())
            .filter(|line| !line.points.is_empty())
            .collect();
        self.report = Some(report);
        self.at = Some(now);
    }
}

fn as_number(time: Time) -> f64 {
    match time {
        // Plotted: a logical time beyond 2^53 loses precision on the chart only.
        Time::Integer(v) => v as f64,
        Time::Float(v) => v,
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The tool federate on a thread of its own; dropping the watcher stops its reports and
/// resigns it (within about one evoke slice and a resign's round trip).
pub struct Watcher {
    panel: Arc<Mutex<Panel>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watcher {
    pub fn start(setup: WatchSetup) -> std::io::Result<Watcher> {
        let panel = Arc::new(Mutex::new(Panel::new(&setup.federation)));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::thread::Builder::new()
            .name("federation-view".into())
            .spawn({
                let (panel, stop) = (panel.clone(), stop.clone());
                move || watch(&setup, &panel, &stop)
            })?;
        Ok(Watcher {
            panel,
            stop,
            thread: Some(thread),
        })
    }

    /// The panel as the page reads it.
    pub fn panel(&self) -> Arc<Mutex<Panel>> {
        self.panel.clone()
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn lock(panel: &Mutex<Panel>) -> std::sync::MutexGuard<'_, Panel> {
    // A panel is plain data: a panic elsewhere leaves it usable.
    panel
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Join, watch until stopped or failed, leave; again after [`RETRY_PERIOD`] unless stopped.
fn watch(setup: &WatchSetup, panel: &Mutex<Panel>, stop: &AtomicBool) {
    let stopped = || stop.load(Ordering::Relaxed);
    while !stopped() {
        lock(panel).set_state(PanelState::Joining, None);
        let joined = Tool::join(
            &setup.settings,
            &setup.federation,
            &setup.fom_path,
            &setup.built_in,
        );
        let failure = match joined {
            Ok(mut tool) => {
                lock(panel).set_state(PanelState::Watching, None);
                let watched = watch_joined(&mut tool, panel, &stopped);
                // Leave whatever happened: no member keeps reporting to nobody.
                let stopped_reports = tool.stop_reports();
                let left = tool.resign();
                let failure = watched.and(stopped_reports).and(left).err();
                if let Some(e) = &failure {
                    tracing::warn!("federation view of {:?}: {e}", setup.federation);
                }
                failure.map(|e| (PanelState::Failed, e.to_string()))
            }
            Err(ViewError::Rti(RtiError::FederationExecutionDoesNotExist(name))) => Some((
                PanelState::Absent,
                format!("federation execution {name:?} does not exist (yet)"),
            )),
            Err(e) => Some((PanelState::Failed, e.to_string())),
        };
        if stopped() {
            break;
        }
        if let Some((state, message)) = failure {
            let retry = RETRY_PERIOD.as_secs();
            lock(panel).set_state(
                state,
                Some(format!("{message}; trying again every {retry} s")),
            );
        }
        wait(RETRY_PERIOD, &stopped);
    }
}

fn wait(period: Duration, stopped: &dyn Fn() -> bool) {
    let deadline = Instant::now() + period;
    while Instant::now() < deadline && !stopped() {
        std::thread::sleep(Duration::from_millis(50).min(period));
    }
}

/// Read every member once, then ask for a report every second and publish each round.
fn watch_joined(
    tool: &mut Tool,
    panel: &Mutex<Panel>,
    stopped: &dyn Fn() -> bool,
) -> Result<(), ViewError> {
    tool.read(FIRST_READ, stopped)?;
    publish(tool, panel);
    let period = Duration::from_secs(u64::from(REPORT_PERIOD_SECONDS.unsigned_abs()));
    while !stopped() {
        // Members that joined since are asked too; those asked already are not again.
        tool.ask_for_reports(REPORT_PERIOD_SECONDS)?;
        tool.take_for(period, stopped)?;
        if stopped() {
            break;
        }
        tool.refresh_members()?;
        publish(tool, panel);
    }
    Ok(())
}

fn publish(tool: &Tool, panel: &Mutex<Panel>) {
    let mut problems = Vec::new();
    let report = tool.report(&mut problems);
    for problem in problems {
        tracing::debug!("federation view: {problem}");
    }
    lock(panel).record(report, crate::monitor::board::unix_ms());
}

#[cfg(test)]
mod tests {
    use super::*;
    use view::{Counts, FederateReport, SaveState, TimeState};

    fn report(times: &[(u32, Option<i64>)]) -> FederationReport {
        let federates = (times.iter())
            .map(|&(handle, time)| FederateReport {
                handle,
                name: Some(format!("f{handle}")),
                federate_type: None,
                host: None,
                rti_version: None,
                time: TimeState {
                    logical_time: time.map(Time::Integer),
                    ..TimeState::default()
                },
                counts: Counts::default(),
            })
            .collect();
        FederationReport {
            federation: "F".into(),
            time_implementation: None,
            rti_version: None,
            mim_designator: None,
            fom_modules: None,
            federates,
            not_answering: Vec::new(),
            synchronization_points: None,
            save: SaveState::default(),
            objects_per_class: None,
        }
    }

    #[test]
    fn each_member_gets_a_line_of_its_times_and_old_points_go() {
        let mut panel = Panel::new("F");
        panel.record(report(&[(2, Some(1)), (3, None)]), 1_000);
        panel.record(report(&[(2, Some(4)), (3, Some(0))]), 2_000);
        let lines: Vec<(u32, Vec<(u64, f64)>)> = (panel.history.iter())
            .map(|l| (l.handle, l.points.iter().copied().collect()))
            .collect();
        assert_eq!(
            lines,
            [
                (2, vec![(1_000, 1.0), (2_000, 4.0)]),
                (3, vec![(2_000, 0.0)])
            ]
        );
        // Five minutes on, member 2 has left: its line ages out; member 3's keeps its last.
        let later = 2_000 + millis(TIME_HISTORY) + 500;
        panel.record(report(&[(3, Some(9))]), later);
        let lines: Vec<(u32, usize)> = (panel.history.iter())
            .map(|l| (l.handle, l.points.len()))
            .collect();
        assert_eq!(lines, [(3, 1)]);
        assert_eq!(panel.at, Some(later));
    }
}
