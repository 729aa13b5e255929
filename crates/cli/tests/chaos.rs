//! `trellis bench chaos` end to end: real `trellis up` router processes on a 3-level tree,
//! a leaf, a mid router and the registry's router killed with SIGKILL in turn while four
//! federates exchange updates. Nothing may be duplicated or lost without a report, every
//! fault must recover, and the results folder must feed `trellis report`.

mod common;

use common::{read_json, trellis_within, TempDir};
use std::time::Duration;

/// Bound on the whole run: 20 s of faults, recoveries, start-up and drain take about 30 s.
const RUN_BOUND: Duration = Duration::from_secs(240);

#[test]
fn chaos_on_a_tree_loses_nothing_silently_and_recovers_from_every_kill() {
    let dir = TempDir::new("chaos");
    let out = dir.0.to_str().unwrap();
    let (ok, stdout, stderr) = trellis_within(
        &[
            "bench",
            "chaos",
            "--topology",
            "tree",
            "--seconds",
            "20",
            "--seed",
            "1",
            "--fault-every-seconds",
            "5",
            "--out",
            out,
        ],
        RUN_BOUND,
    );
    println!("{stdout}");
    assert!(ok, "chaos failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("PASS"), "{stdout}");
    let faults = read_json(&dir.0.join("faults.json"));
    let faults = faults.as_array().unwrap();
    assert!(faults.len() >= 3, "{faults:?}");
    let kinds: Vec<&str> = faults[..3]
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["leaf", "mid", "registry"]);
    for fault in faults {
        assert_eq!(fault["recovered"], true, "{fault}");
        assert_eq!(fault["duplicated"], 0, "{fault}");
        assert_eq!(fault["unreported"], 0, "{fault}");
        assert!(fault["delivered"].as_u64().unwrap() > 0, "{fault}");
        assert!(fault["detection_s"].is_number(), "no symptom seen: {fault}");
    }
    let summary = read_json(&dir.0.join("summary.json"));
    assert_eq!(summary["totals"]["duplicated"], 0);
    assert_eq!(summary["totals"]["unreported"], 0);
    assert_eq!(summary["passed"], true);
    let meta = read_json(&dir.0.join("meta.json"));
    assert_eq!(meta["benchmark"], "chaos");
    assert_eq!(meta["complete"], true);
    assert!(dir.0.join("faults.csv").exists());
    assert!(dir.0.join("topology.toml").exists());
    let page = dir.0.join("report.html");
    let (ok, _, stderr) = trellis_within(
        &["report", out, "-o", page.to_str().unwrap()],
        Duration::from_secs(60),
    );
    assert!(ok, "{stderr}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<section id=\"chaos\">"), "no chaos section");
    assert!(html.contains("<caption>Per fault</caption>"));
    assert!(html.contains("<td>registry</td>"));
}
