//! `trellis bench chaos` end to end: real `trellis up` router processes on a 3-level tree,
//! a leaf, a mid router and the registry's router killed with SIGKILL in turn while four
//! federates exchange updates. Nothing may be duplicated or lost without a report, every
//! fault must recover, and the results folder must feed `trellis report`.

mod common;

use common::{read_json, trellis_within, TempDir};
use std::time::Duration;

/// Bound on the whole run: 20 s of faults, recoveries, start-up and drain take about 30 s.
const RUN_BOUND: Duration = Duration::from_secs(240);

/// Silence on a pair longer than this is the symptom "traffic stopped": three periods of the
/// default 20 Hz publishers plus 50 ms (`bench chaos`'s stall bound).
const STALL_S: f64 = 3.0 / 20.0 + 0.05;

/// A fault with no symptom is one the federation masked: a registry router that restarts in
/// milliseconds can come back before any pair's traffic is late and without a frame lost. Then
/// nothing may be missing or reported lost and the outage must be shorter than a stall; any
/// fault that lost or delayed traffic unseen fails here.
fn assert_fault_was_masked(fault: &serde_json::Value) {
    assert_eq!(fault["reported_lost"], 0, "loss with no symptom: {fault}");
    assert_eq!(fault["missing"], 0, "loss with no symptom: {fault}");
    let outage_s = fault["outage_s"]
        .as_f64()
        .expect("recovered faults have an outage");
    assert!(
        outage_s < STALL_S,
        "traffic out for {outage_s} s, longer than a stall, yet no symptom seen: {fault}"
    );
}

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
        if !fault["detection_s"].is_number() {
            assert_fault_was_masked(fault);
        }
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
