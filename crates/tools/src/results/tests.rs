//! The writers' types written by the harness read back by the report's loader: one schema.

use super::chaos::{ChaosSummary, ChaosTotals, FaultKind, FaultRecord};
use super::pingpong::{PairInfo, PingpongSummary, SizeResult};
use super::throughput::{ThroughputCase, ThroughputSummary};
use super::{measured, Api, Mode, Transport};
use crate::bench::results::{Meta, Results};
use crate::bench::Setup;
use crate::report::load::{load_all, Run, Summary};
use std::path::{Path, PathBuf};

fn folder(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trellis-schema-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Write `summary` as the harness does, finish the run, and load the folder as the report does.
fn round_trip(tag: &str, benchmark: &str, summary: &impl serde::Serialize) -> Run {
    let dir = folder(tag);
    let meta = Meta::new(benchmark, "test", &Setup::default(), Mode::RawTcp);
    let mut results = Results::create(Some(&dir), meta).unwrap();
    results.write_summary(summary).unwrap();
    results.finish(true).unwrap();
    let mut runs = load_all(std::slice::from_ref(&dir)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(runs.len(), 1);
    let run = runs.remove(0);
    assert_eq!(run.meta.benchmark, benchmark);
    assert_eq!(run.meta.mode.as_deref(), Some("raw-tcp"));
    assert_eq!(run.meta.complete, Some(true));
    assert!(run.is_baseline());
    run
}

#[test]
fn a_pingpong_summary_reads_back_as_written() {
    let written = PingpongSummary {
        mode: Mode::RawTcp,
        api: Api::Federate,
        transport: Transport::BestEffort,
        pairs: vec![PairInfo {
            master: "m".into(),
            slave: "s".into(),
            links: 4,
        }],
        sizes: vec![SizeResult {
            size: 64,
            mean_us: 12.5,
            std_us: f64::NAN,
            pair_means_us: vec![12.5],
            discarded_us: vec![f64::NAN, 99.0],
            lost: 3,
        }],
        count: 40,
        lost: 3,
        rtt_p50_us: 11.0,
        rtt_p99_us: 20.0,
        rtt_mean_us: 12.5,
        rtt_min_us: 9.0,
        rtt_max_us: f64::INFINITY,
        clock: Some("ntp".into()),
    };
    let Summary::Pingpong(read) = round_trip("pingpong", "pingpong", &written).summary else {
        panic!("not a pingpong summary");
    };
    assert_eq!(
        (read.mode, read.api, read.transport),
        (Mode::RawTcp, Api::Federate, Transport::BestEffort)
    );
    assert_eq!(read.pairs[0].links, 4);
    assert_eq!((read.count, read.lost, read.sizes[0].lost), (40, 3, 3));
    assert_eq!(read.sizes[0].mean_us, 12.5);
    // Not finite when written: JSON says null, read as not measured.
    assert_eq!(measured(read.sizes[0].std_us), None);
    assert_eq!(measured(read.rtt_max_us), None);
    assert_eq!(measured(read.sizes[0].discarded_us[0]), None);
    assert_eq!(read.sizes[0].discarded_us[1], 99.0);
    assert_eq!(
        (read.rtt_p50_us, read.rtt_p99_us, read.rtt_min_us),
        (11.0, 20.0, 9.0)
    );
    assert_eq!(read.clock.as_deref(), Some("ntp"));
}

#[test]
fn a_throughput_summary_reads_back_as_written() {
    let case = ThroughputCase {
        subscribers: 2,
        size: 256,
        seconds: 1.5,
        sent: 1000,
        received: 1990,
        lost: 10,
        sender_msgs_per_sec: 666.7,
        msgs_per_sec: 663.3,
        per_subscriber_msgs_per_sec: vec![660.0, f64::NAN],
        payload_mb_per_sec: 0.17,
    };
    let written = ThroughputSummary {
        mode: Mode::Trellis,
        api: Api::Node,
        transport: Transport::Reliable,
        size: 256,
        cases: vec![case],
        subscribers: 2,
        msgs_per_sec: 663.3,
        sent: 1000,
        received: 1990,
        lost: 10,
        clock: None,
    };
    let Summary::Throughput(read) = round_trip("throughput", "throughput", &written).summary else {
        panic!("not a throughput summary");
    };
    let c = &read.cases[0];
    assert_eq!(
        (c.subscribers, c.size, c.sent, c.received, c.lost),
        (2, 256, 1000, 1990, 10)
    );
    assert_eq!(
        (c.seconds, c.sender_msgs_per_sec, c.msgs_per_sec),
        (1.5, 666.7, 663.3)
    );
    assert_eq!(c.payload_mb_per_sec, 0.17);
    assert_eq!(c.per_subscriber_msgs_per_sec[0], 660.0);
    assert_eq!(measured(c.per_subscriber_msgs_per_sec[1]), None);
    assert_eq!(
        (read.size, read.subscribers, read.msgs_per_sec),
        (256, 2, 663.3)
    );
    assert_eq!((read.sent, read.received, read.lost), (1000, 1990, 10));
    assert_eq!(read.clock, None);
}

fn fault() -> FaultRecord {
    FaultRecord {
        number: 1,
        kind: FaultKind::Registry,
        router: "r0".into(),
        killed_at_s: 2.0,
        restarted_after_s: Some(0.4),
        detection_s: Some(0.1),
        detected_by: Some("connectionLost".into()),
        recovery_s: None,
        outage_s: Some(1.2),
        recovered: true,
        delivered: 500,
        duplicated: 1,
        reported_lost: 2,
        missing: 3,
        unreported: 4,
        lost_with_membership: 5,
        best_effort_expected: 60,
        best_effort_delivered: 45,
        // Exactly representable: serde_json without `float_roundtrip` may read the last bit
        // of an arbitrary double back differently.
        best_effort_ratio: Some(0.75),
        memberships_lost: 1,
        membership_fault: Some("link lost".into()),
        outcome: "memberships kept".into(),
    }
}

#[test]
fn a_chaos_summary_reads_back_as_written() {
    let totals = ChaosTotals {
        faults: 1,
        recovered: 1,
        delivered: 900,
        missing: 3,
        best_effort_ratio: Some(0.5),
        ..ChaosTotals::default()
    };
    let written = ChaosSummary {
        topology: "tree".into(),
        routers: 3,
        federates: vec!["a".into(), "b".into()],
        seconds: 30.0,
        fault_every_seconds: 5.0,
        rate_hz: 100.0,
        seed: 7,
        faults: vec![fault()],
        totals,
        passed: true,
        problems: vec!["router r2 not restarted".into()],
    };
    let Summary::Chaos(read) = round_trip("chaos", "chaos", &written).summary else {
        panic!("not a chaos summary");
    };
    assert_eq!(
        (read.topology.as_str(), read.routers, read.seed),
        ("tree", 3, 7)
    );
    assert_eq!(read.federates, ["a", "b"]);
    assert_eq!(
        (read.seconds, read.fault_every_seconds, read.rate_hz),
        (30.0, 5.0, 100.0)
    );
    assert!(read.passed);
    assert_eq!(read.problems, ["router r2 not restarted"]);
    let t = &read.totals;
    assert_eq!(
        (t.faults, t.recovered, t.delivered, t.missing),
        (1, 1, 900, 3)
    );
    assert_eq!(t.best_effort_ratio, Some(0.5));
    let f = &read.faults[0];
    let w = fault();
    assert_eq!(
        (f.number, f.kind, f.router.as_str()),
        (1, FaultKind::Registry, "r0")
    );
    assert_eq!(
        (f.killed_at_s, f.restarted_after_s, f.detection_s),
        (2.0, w.restarted_after_s, w.detection_s)
    );
    assert_eq!(
        (f.recovery_s, f.outage_s, f.recovered),
        (None, Some(1.2), true)
    );
    assert_eq!(f.detected_by, w.detected_by);
    let counts = |r: &FaultRecord| {
        [
            r.delivered,
            r.duplicated,
            r.reported_lost,
            r.missing,
            r.unreported,
        ]
        .into_iter()
        .chain([
            r.lost_with_membership,
            r.best_effort_expected,
            r.best_effort_delivered,
        ])
        .collect::<Vec<_>>()
    };
    assert_eq!(counts(f), counts(&w));
    assert_eq!(
        (f.best_effort_ratio, f.memberships_lost),
        (w.best_effort_ratio, 1)
    );
    assert_eq!(f.membership_fault, w.membership_fault);
    assert_eq!(f.outcome, w.outcome);
}

fn write(dir: &Path, meta: &str, summary: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("meta.json"), meta).unwrap();
    std::fs::write(dir.join("summary.json"), summary).unwrap();
}

/// A folder as the first harness wrote it: no `fault` in meta.json, a throughput case
/// without `seconds`, `per_subscriber_msgs_per_sec` or `payload_mb_per_sec`, no carrier in
/// the summary.
#[test]
fn a_folder_in_the_older_form_still_loads() {
    let dir = folder("older");
    write(
        &dir,
        r#"{"benchmark": "throughput", "command": "trellis bench throughput", "version": "0.0.9",
            "machine": {"cores": 2, "kernel": "6.1", "hostname": "h", "cpu": "x"},
            "topology": null, "mode": "trellis", "api": "node", "transport": "reliable",
            "bundling": "adaptive", "started_unix": 1, "finished_unix": 2, "complete": true}"#,
        r#"{"size": 64, "subscribers": 1, "msgs_per_sec": 10.0, "sent": 5, "received": 5, "lost": 0,
            "cases": [{"subscribers": 1, "size": 64, "sent": 5, "received": 5, "lost": 0,
                       "sender_msgs_per_sec": 10.5, "msgs_per_sec": null}]}"#,
    );
    let loaded = load_all(std::slice::from_ref(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
    let run = loaded.unwrap().remove(0);
    assert_eq!(run.meta.fault, None);
    assert_eq!(run.meta.complete, Some(true));
    let Summary::Throughput(read) = run.summary else {
        panic!("not a throughput summary");
    };
    assert_eq!(read.transport, Transport::Reliable);
    let c = &read.cases[0];
    assert_eq!((c.sent, c.sender_msgs_per_sec), (5, 10.5));
    assert_eq!(measured(c.msgs_per_sec), None);
    assert_eq!(measured(c.seconds), None);
    assert_eq!(measured(c.payload_mb_per_sec), None);
    assert!(c.per_subscriber_msgs_per_sec.is_empty());
}

/// The C++ benchmark federates (`cpp/examples/bench`, `scripts/bench-cpp-api`) write their
/// own folders, naming their API `cpp-1516e`: the report reads them (as the federate API;
/// meta.json keeps the name), and an API nobody writes is refused, named.
#[test]
fn the_cpp_benchmarks_folders_load() {
    let meta = r#"{"benchmark":"pingpong","command":"trellis-cpp-pingpong","version":"0.1.0",
        "mode":"trellis","api":"cpp-1516e","transport":"reliable","bundling":"adaptive",
        "started_unix":1,"finished_unix":1,"complete":true}"#;
    let pingpong = r#"{"mode":"trellis","api":"cpp-1516e","transport":"reliable",
        "pairs":[{"master":"master-1","slave":"slave-1","links":2}],
        "sizes":[{"size":64,"mean_us":30.5,"std_us":2.0,"pair_means_us":[30.5],
                  "discarded_us":[],"lost":0}],
        "count":100,"lost":0,"rtt_p50_us":30.0,"rtt_p99_us":40.0,"rtt_mean_us":30.5}"#;
    let dir = folder("cpp-pingpong");
    write(&dir, meta, pingpong);
    let loaded = load_all(std::slice::from_ref(&dir));
    write(&dir, meta, &pingpong.replace("cpp-1516e", "java-1516e"));
    let refused = load_all(std::slice::from_ref(&dir))
        .err()
        .map(|e| e.to_string());
    std::fs::remove_dir_all(&dir).unwrap();
    let run = loaded.unwrap().remove(0);
    assert_eq!(run.meta.api.as_deref(), Some("cpp-1516e"));
    let Summary::Pingpong(read) = run.summary else {
        panic!("not a ping-pong summary");
    };
    assert_eq!((read.api, read.count), (Api::Federate, 100));
    let refused = refused.expect("an unknown API is refused");
    assert!(refused.contains("java-1516e"), "{refused}");

    let throughput = r#"{"mode":"trellis","api":"cpp-1516e","transport":"reliable","size":64,
        "cases":[{"subscribers":1,"size":64,"seconds":1.0,"sent":10,"received":10,"lost":0,
                  "sender_msgs_per_sec":10.0,"msgs_per_sec":10.0,
                  "per_subscriber_msgs_per_sec":[10.0],"payload_mb_per_sec":0.00064}],
        "subscribers":1,"msgs_per_sec":10.0,"sent":10,"received":10,"lost":0}"#;
    let dir = folder("cpp-throughput");
    write(&dir, &meta.replace("pingpong", "throughput"), throughput);
    let loaded = load_all(std::slice::from_ref(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
    let Summary::Throughput(read) = loaded.unwrap().remove(0).summary else {
        panic!("not a throughput summary");
    };
    assert_eq!((read.api, read.sent, read.lost), (Api::Federate, 10, 0));
}

#[test]
fn symmetric_and_latency_summaries_read_back_as_written() {
    let symmetric = super::symmetric::SymmetricSummary {
        mode: Mode::Trellis,
        api: Api::Federate,
        transport: Transport::Reliable,
        cases: vec![super::symmetric::SymmetricCase {
            federates: 3,
            size: 64,
            per_federate_msgs_per_sec: vec![1.5, f64::NAN, 2.5],
            total_msgs_per_sec: 4.0,
            sent: 9,
            received: 17,
            lost: 1,
        }],
        clock: None,
    };
    let Summary::Symmetric(read) = round_trip("symmetric", "symmetric", &symmetric).summary else {
        panic!("not a symmetric summary");
    };
    let c = &read.cases[0];
    assert_eq!(
        (c.federates, c.size, c.sent, c.received, c.lost),
        (3, 64, 9, 17, 1)
    );
    assert_eq!(c.total_msgs_per_sec, 4.0);
    let rates: Vec<Option<f64>> = c
        .per_federate_msgs_per_sec
        .iter()
        .map(|&r| measured(r))
        .collect();
    assert_eq!(rates, [Some(1.5), None, Some(2.5)]);

    let latency = super::latency::LatencySummary {
        mode: Mode::Trellis,
        api: Api::Node,
        transport: Transport::BestEffort,
        cases: vec![super::latency::LatencyCase {
            receivers: 4,
            size: 128,
            mean_us: 33.25,
            std_us: f64::NAN,
            count: 100,
            lost: 2,
        }],
        clock: Some("one clock".into()),
    };
    let Summary::Latency(read) = round_trip("latency", "latency", &latency).summary else {
        panic!("not a latency summary");
    };
    let c = &read.cases[0];
    assert_eq!((c.receivers, c.size, c.count, c.lost), (4, 128, 100, 2));
    assert_eq!((c.mean_us, measured(c.std_us)), (33.25, None));
    assert_eq!(
        (read.transport, read.clock.as_deref()),
        (Transport::BestEffort, Some("one clock"))
    );
}

#[test]
fn a_timestep_summary_reads_back_as_written() {
    let case = super::timestep::TimestepCase {
        network: "one-router".into(),
        routers: 1,
        federates: 2,
        seconds: 2.0,
        steps: 400,
        grants: 800,
        grants_per_sec: 200.0,
        min_grants_per_sec: 190.0,
        time_messages_received_per_grant: 1.5,
        bounds_sent_per_grant: f64::NAN,
        reflects: 400,
        reflects_per_step: 1.0,
        expected_reflects_per_step: 1,
        late_time_stamped: 0,
        queue_overflow: 3,
    };
    let written = super::timestep::TimestepSummary {
        mode: Mode::Trellis,
        api: Api::Federate,
        transport: Transport::Reliable,
        time_representation: "HLAinteger64Time".into(),
        lookahead: 5,
        cases: vec![case],
    };
    let Summary::Timestep(read) = round_trip("timestep", "timestep", &written).summary else {
        panic!("not a timestep summary");
    };
    assert_eq!(
        (read.time_representation.as_str(), read.lookahead),
        ("HLAinteger64Time", 5)
    );
    let c = &read.cases[0];
    assert_eq!(
        (c.network.as_str(), c.routers, c.federates),
        ("one-router", 1, 2)
    );
    assert_eq!(
        (c.steps, c.grants, c.reflects, c.queue_overflow),
        (400, 800, 400, 3)
    );
    assert_eq!(
        (c.seconds, c.grants_per_sec, c.min_grants_per_sec),
        (2.0, 200.0, 190.0)
    );
    assert_eq!(
        (c.time_messages_received_per_grant, c.reflects_per_step),
        (1.5, 1.0)
    );
    assert_eq!(measured(c.bounds_sent_per_grant), None);
    assert_eq!((c.expected_reflects_per_step, c.late_time_stamped), (1, 0));
}

#[test]
fn a_oneway_summary_reads_back_as_written() {
    let case = super::oneway::OnewayCase {
        size: 17,
        rate_hz: 50.0,
        transport: Transport::BestEffort,
        sent: 100,
        received: 97,
        missing: 3,
        min_us: Some(10.0),
        max_us: None,
        mean_us: Some(12.5),
        data_file: "oneway-17B-50Hz.dat".into(),
    };
    let written = super::oneway::OnewaySummary {
        mode: Mode::Trellis,
        api: Api::Node,
        transport: Transport::BestEffort,
        seconds: 2.0,
        cases: vec![case],
        clock: None,
    };
    let Summary::Oneway(read) = round_trip("oneway", "oneway", &written).summary else {
        panic!("not a oneway summary");
    };
    let c = &read.cases[0];
    assert_eq!(
        (c.size, c.rate_hz, c.transport),
        (17, 50.0, Transport::BestEffort)
    );
    assert_eq!((c.sent, c.received, c.missing), (100, 97, 3));
    assert_eq!(
        (c.min_us, c.max_us, c.mean_us),
        (Some(10.0), None, Some(12.5))
    );
    assert_eq!(c.data_file, "oneway-17B-50Hz.dat");
    assert_eq!(read.seconds, 2.0);
}

#[test]
fn a_testfed_summary_reads_back_as_written() {
    let federate = super::testfed::FederateResult {
        name: "load-1".into(),
        at: "leaf-a".into(),
        attributes: 4,
        rate_hz: 20.0,
        size: 100,
        interaction_rate_hz: 2.0,
        ramp_seconds: 1.0,
        ramp_rate_hz: f64::NAN,
        updates_sent: 80,
        ramp_updates_sent: 10,
        interactions_sent: 8,
        updates_received: 79,
        interactions_received: 8,
        updates_missing: 1,
        interactions_missing: 0,
        update_latency_mean_us: Some(40.0),
        update_latency_max_us: Some(90.0),
        interaction_latency_mean_us: None,
        interaction_latency_max_us: Some(50.0),
    };
    let written = super::testfed::TestfedSummary {
        mode: Mode::Trellis,
        api: Api::Federate,
        transport: Transport::Reliable,
        seconds: 4.0,
        federates: vec![federate.clone()],
        clock: None,
    };
    let Summary::Testfed(read) = round_trip("testfed", "testfed", &written).summary else {
        panic!("not a testfed summary");
    };
    let f = &read.federates[0];
    let w = &federate;
    assert_eq!((f.name.as_str(), f.at.as_str()), ("load-1", "leaf-a"));
    assert_eq!((f.attributes, f.size), (4, 100));
    assert_eq!(
        (f.rate_hz, f.interaction_rate_hz, f.ramp_seconds),
        (20.0, 2.0, 1.0)
    );
    assert_eq!(measured(f.ramp_rate_hz), None);
    let counts = |r: &super::testfed::FederateResult| {
        [
            r.updates_sent,
            r.ramp_updates_sent,
            r.interactions_sent,
            r.updates_received,
        ]
        .into_iter()
        .chain([
            r.interactions_received,
            r.updates_missing,
            r.interactions_missing,
        ])
        .collect::<Vec<_>>()
    };
    assert_eq!(counts(f), counts(w));
    let latencies = |r: &super::testfed::FederateResult| {
        [r.update_latency_mean_us, r.update_latency_max_us]
            .into_iter()
            .chain([r.interaction_latency_mean_us, r.interaction_latency_max_us])
            .collect::<Vec<_>>()
    };
    assert_eq!(latencies(f), latencies(w));
    assert_eq!(read.seconds, 4.0);
}

mod clutter;
mod lab;
mod matrix;
mod rting;
