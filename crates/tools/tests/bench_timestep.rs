//! A tiny run of the time-step benchmark: two regulating, constrained federates on one
//! router for 0.3 s. The JSON must carry every figure, the federation must have advanced,
//! and each step must reflect the other federate's update exactly once.

use std::path::PathBuf;
use trellis_tools::bench::results::{Meta, Results};
use trellis_tools::bench::timestep::{self, TimestepNetwork, TimestepOptions};
use trellis_tools::bench::{Mode, Setup};

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn two_federates_on_one_router_step_and_reflect_each_other_once_per_step() {
    let out = Dir(std::env::temp_dir().join(format!("trellis-timestep-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&out.0);
    let setup = Setup::default();
    let mut results = Results::create(
        Some(&out.0),
        Meta::new("timestep", "test", &setup, Mode::Trellis),
    )
    .unwrap();
    let options = TimestepOptions {
        setup,
        federates: vec![2],
        seconds: 0.3,
        networks: vec![TimestepNetwork::OneRouter],
    };
    let summary = timestep::run(&options, &results).unwrap();
    results.finish(true).unwrap();

    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.0.join("summary.json")).expect("summary.json written"),
    )
    .unwrap();
    assert_eq!(json["time_representation"], "HLAinteger64Time");
    assert_eq!(json["lookahead"], 1);
    let cases = json["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 1);
    let case = &cases[0];
    for field in [
        "network",
        "routers",
        "federates",
        "seconds",
        "steps",
        "grants",
        "grants_per_sec",
        "min_grants_per_sec",
        "time_messages_received_per_grant",
        "bounds_sent_per_grant",
        "reflects",
        "reflects_per_step",
        "expected_reflects_per_step",
    ] {
        assert!(!case[field].is_null(), "{field} missing from {case}");
    }
    assert_eq!(case["network"], "one-router");
    assert_eq!(case["federates"], 2);

    let case = &summary.cases[0];
    assert!(case.grants > 0, "no grants: {case:?}");
    assert!(case.steps > 0 && case.grants_per_sec > 0.0, "{case:?}");
    // Both federates stop at the same logical time, one grant per step each.
    assert_eq!(case.grants, 2 * case.steps, "{case:?}");
    assert_eq!(case.expected_reflects_per_step, 1);
    assert_eq!(
        case.reflects,
        case.steps * 2,
        "N − 1 = 1 reflection per step each"
    );
    assert_eq!(case.reflects_per_step, 1.0);
    // Each grant needs at least the other federate's new bound.
    assert!(case.time_messages_received_per_grant >= 1.0, "{case:?}");
    assert!(case.bounds_sent_per_grant > 0.0, "{case:?}");
    assert_eq!(case.late_time_stamped + case.queue_overflow, 0);

    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.0.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["benchmark"], "timestep");
    assert_eq!(meta["complete"], true);
    assert!(out.0.join("timestep.csv").exists());

    let report = trellis_tools::report::render(std::slice::from_ref(&out.0)).unwrap();
    assert!(report.contains("Time-step rate"), "report lists the run");
}
