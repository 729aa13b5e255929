//! The EC1 matrix's summary, written by the harness and read by the report.

use super::round_trip;
use crate::report::load::Summary;
use crate::results::matrix::{Configuration, LeftOut, MatrixCase, MatrixSummary};
use crate::results::{measured, Api, Mode, Transport};

fn case() -> MatrixCase {
    MatrixCase {
        entities: 10,
        rate_hz: 20.0,
        size: 128,
        transport: Transport::BestEffort,
        config: Configuration::ManyToMany,
        senders: 3,
        receivers: 3,
        throughput_mbps: 0.4,
        theoretical_mbps: f64::NAN,
        reliability: 0.97,
        mean_latency_us: Some(80.0),
        jitter_us: None,
        scheduled: 120,
        published: 119,
        received: 230,
        duplicates: 2,
    }
}

#[test]
fn a_matrix_summary_reads_back_as_written() {
    let written = MatrixSummary {
        mode: Mode::RawUdp,
        raw_via: Some("10.0.0.1:7000".into()),
        api: Api::Federate,
        seconds: 2.0,
        n: 3,
        cases: vec![case()],
        left_out: vec![LeftOut {
            config: Configuration::OneToMany,
            entities: 100,
            rate_hz: 120.0,
            size: 9000,
            transport: Transport::Reliable,
            theoretical_mbps: 864.0,
        }],
        clock: Some("one clock".into()),
    };
    let Summary::Matrix(read) = round_trip("matrix", "matrix", &written).summary else {
        panic!("not a matrix summary");
    };
    assert_eq!((read.mode, read.api), (Mode::RawUdp, Api::Federate));
    assert_eq!(read.raw_via.as_deref(), Some("10.0.0.1:7000"));
    assert_eq!((read.seconds, read.n), (2.0, 3));
    assert_eq!(read.clock.as_deref(), Some("one clock"));
    let (c, w) = (&read.cases[0], &written.cases[0]);
    assert_eq!(c.cell(), w.cell());
    assert_eq!((c.senders, c.receivers), (3, 3));
    assert_eq!(
        [c.scheduled, c.published, c.received, c.duplicates],
        [120, 119, 230, 2]
    );
    assert_eq!((c.throughput_mbps, c.reliability), (0.4, 0.97));
    // Not finite when written: null in the file, not measured when read.
    assert_eq!(measured(c.theoretical_mbps), None);
    assert_eq!((c.mean_latency_us, c.jitter_us), (Some(80.0), None));
    assert_eq!(read.left_out[0].cell(), written.left_out[0].cell());
    assert_eq!(read.left_out[0].theoretical_mbps, 864.0);
}

/// The report's own fixtures give a case only its cell and the drawn figures, the summary
/// only its cases, and a left-out cell only its cell and theoretical throughput.
#[test]
fn a_hand_written_matrix_summary_loads() {
    let read: MatrixSummary = serde_json::from_str(
        r#"{"cases": [{"entities": 10, "rate_hz": 20, "size": 128, "config": "1-N",
                       "throughput_mbps": null, "reliability": 1.0}],
            "left_out": [{"entities": 1, "rate_hz": 10, "size": 64, "config": "N-1",
                          "transport": "best-effort", "theoretical_mbps": 5.5}]}"#,
    )
    .expect("a hand-written matrix summary loads");
    assert_eq!((read.mode, read.api, read.n), (Mode::Trellis, Api::Node, 0));
    assert_eq!(measured(read.seconds), None);
    let c = &read.cases[0];
    assert_eq!(
        (c.config, c.transport, c.senders),
        (Configuration::OneToMany, Transport::Reliable, 0)
    );
    assert_eq!(measured(c.throughput_mbps), None);
    assert_eq!(measured(c.theoretical_mbps), None);
    assert_eq!(read.left_out[0].transport, Transport::BestEffort);
}
