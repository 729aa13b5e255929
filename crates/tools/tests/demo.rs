//! The demo run in-process: every run meets at the synchronization point, and a time-stepped
//! run advances logical time in lockstep with time-stamp-ordered updates.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use trellis_tools::demo::{self, DemoOptions};

fn run(time_stepped: bool) -> demo::DemoReport {
    let options = DemoOptions {
        seconds: 2,
        vehicles: 4,
        rate_hz: 10,
        time_stepped,
        web: None,
        rti: None,
    };
    demo::run(&options, Arc::new(AtomicBool::new(false))).expect("the demo runs")
}

#[test]
fn a_time_stepped_demo_synchronizes_then_advances_granted_time() {
    let report = run(true);
    assert_eq!(report.federates, 4, "{report:?}");
    assert_eq!(
        report.synchronized, report.federates,
        "every federate is told the federation synchronized: {report:?}"
    );
    let granted = report
        .granted
        .expect("time-stepped runs report granted time");
    // Three time-managed federates (the viewer and two simulators), about ten steps a
    // second for two seconds; a loaded machine may do fewer, but several at least.
    assert!(granted.min >= 3, "granted time advanced: {report:?}");
    assert!(granted.max >= granted.min, "{report:?}");
    // Lockstep: the simulators wait for each other, the viewer follows one step behind.
    assert!(granted.max - granted.min <= 2, "{report:?}");
    assert!(
        granted.grants >= 3 * granted.min as u64,
        "every federate was granted each step: {report:?}"
    );
    assert!(
        report.viewer_time_stamped > 0 && report.viewer_time_stamped <= report.viewer_reflections,
        "the constrained viewer receives positions in time-stamp order: {report:?}"
    );
}

#[test]
fn an_untimed_demo_synchronizes_and_reports_no_granted_time() {
    let report = run(false);
    assert_eq!(report.synchronized, report.federates, "{report:?}");
    assert_eq!(report.granted, None, "{report:?}");
    assert_eq!(report.viewer_time_stamped, 0, "{report:?}");
    assert!(report.viewer_reflections > 0, "{report:?}");
}
