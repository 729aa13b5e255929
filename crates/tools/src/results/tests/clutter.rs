//! A clutter run's summary, written by the harness and read by the report.

use super::round_trip;
use crate::report::load::Summary;
use crate::results::clutter::{
    CaseSummary, ClutterSummary, FederateRates, Latency, ProcessRow, Role, Scalability, SecondRow,
};
use crate::results::Transport;
use trellis_net::rti::Driver;

fn case() -> CaseSummary {
    CaseSummary {
        entities: 1000,
        simulators: 8,
        viewers: 2,
        planned_updates: 10_000,
        updates_sent: 9_950,
        achieved_ratio: 0.995,
        delivery_ratio: Some(1.0),
        exact: true,
        latency: Latency {
            p50_us: Some(700),
            p99_us: Some(9_000),
            max_us: None,
        },
        memory_per_federate_kb: None,
        seconds_rows: vec![SecondRow {
            second: 1,
            reflects: 42,
            router_forwards: Some(7),
            ..SecondRow::default()
        }],
        process_rows: vec![ProcessRow {
            process: "worker-0".into(),
            federates: 5,
            cpu_percent: 12.5,
            rss_max_kb: 2048,
        }],
        federates: vec![FederateRates {
            name: "simulator-1".into(),
            role: Some(Role::Viewer),
            out_per_second: 3.0,
            ..FederateRates::default()
        }],
        ..CaseSummary::default()
    }
}

fn summary() -> ClutterSummary {
    ClutterSummary {
        transport: Transport::BestEffort,
        topology: Some("mesh.toml".into()),
        processes: 2,
        rate_hz: 1.0,
        seconds: 10.0,
        frame_ms: 50,
        driver: Driver::Thread,
        area_units: 20,
        margin_units: 5,
        viewer_window_units: 40,
        seed: 7,
        cases: vec![case()],
        scalability: Some(Scalability {
            interest_fixed: true,
            smallest_entities: 1000,
            largest_entities: 4000,
            max_out_smallest: 10.0,
            max_out_largest: 11.0,
            max_in_smallest: 20.0,
            max_in_largest: 21.0,
            holds: true,
        }),
        passed: false,
    }
}

#[test]
fn a_clutter_summary_reads_back_as_written() {
    let written = summary();
    let Summary::Clutter(read) = round_trip("clutter", "clutter", &written).summary else {
        panic!("not a clutter summary");
    };
    assert_eq!(
        (read.transport, read.driver, read.frame_ms),
        (Transport::BestEffort, Driver::Thread, 50)
    );
    assert_eq!(read.topology.as_deref(), Some("mesh.toml"));
    assert_eq!((read.processes, read.seed, read.passed), (2, 7, false));
    assert_eq!((read.rate_hz, read.seconds), (1.0, 10.0));
    assert_eq!(
        (read.area_units, read.margin_units, read.viewer_window_units),
        (20, 5, 40)
    );
    let s = read.scalability.as_ref().expect("the verdict reads back");
    assert_eq!((s.smallest_entities, s.largest_entities), (1000, 4000));
    assert_eq!((s.max_out_largest, s.max_in_smallest), (11.0, 20.0));
    assert!(s.interest_fixed && s.holds);
    let c = &read.cases[0];
    assert_eq!((c.entities, c.simulators, c.viewers), (1000, 8, 2));
    assert_eq!((c.updates_sent, c.achieved_ratio), (9_950, 0.995));
    assert_eq!(
        (c.delivery_ratio, c.memory_per_federate_kb),
        (Some(1.0), None)
    );
    assert_eq!(
        (c.latency.p50_us, c.latency.p99_us, c.latency.max_us),
        (Some(700), Some(9_000), None)
    );
    assert_eq!(
        (
            c.seconds_rows[0].reflects,
            c.seconds_rows[0].router_forwards
        ),
        (42, Some(7))
    );
    assert_eq!(c.process_rows[0].rss_max_kb, 2048);
    assert_eq!(c.federates[0].role, Some(Role::Viewer));
}

/// Before frames and the driver choice, a summary had neither: each update was sent when
/// due, by a directly driven node.
#[test]
fn a_clutter_summary_from_before_frames_and_drivers_loads() {
    let mut older = serde_json::to_value(summary()).expect("a summary encodes");
    let fields = older.as_object_mut().expect("a summary is an object");
    assert!(fields.remove("frame_ms").is_some() && fields.remove("driver").is_some());
    let read: ClutterSummary = serde_json::from_value(older).expect("the older form loads");
    assert_eq!((read.frame_ms, read.driver), (0, Driver::Direct));
}
