//! The 3CE EC1 matrix on loopback: throughput never above theoretical, reliability a
//! fraction, latency and jitter real numbers, and reliable delivery loses nothing.

use std::path::PathBuf;
use trellis_tools::bench::matrix::{
    Configuration, MatrixCase, MatrixOptions, MatrixSummary, ALL_CONFIGURATIONS,
};
use trellis_tools::bench::results::{Meta, Results};
use trellis_tools::bench::{matrix, Api, Mode, Raw, Setup, Transport};

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!("trellis-matrix-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Dir(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn options(setup: Setup) -> MatrixOptions {
    MatrixOptions {
        setup,
        raw: None,
        raw_via: None,
        entities: vec![1, 4],
        rates: vec![20.0],
        sizes: vec![128],
        deliveries: vec![Transport::Reliable],
        configurations: ALL_CONFIGURATIONS.to_vec(),
        seconds: 0.5,
        n: 2,
        max_theoretical_mbps: None,
    }
}

fn run(dir: &Dir, options: &MatrixOptions) -> MatrixSummary {
    let results = Results::create(
        Some(&dir.0),
        Meta::new("matrix", "test", &options.setup, Mode::Trellis),
    )
    .unwrap();
    matrix::run(options, &results).unwrap()
}

/// Senders each receiver hears with N = 2.
fn heard(config: Configuration) -> f64 {
    match config {
        Configuration::ManyToOne => 2.0,
        _ => 1.0,
    }
}

fn assert_sane(case: &MatrixCase) {
    assert!(
        case.throughput_mbps <= case.theoretical_mbps * (1.0 + 1e-12),
        "throughput above theoretical: {case:?}"
    );
    assert!(case.throughput_mbps >= 0.0, "{case:?}");
    assert!((0.0..=1.0).contains(&case.reliability), "{case:?}");
    let latency = case.mean_latency_us.unwrap();
    let jitter = case.jitter_us.unwrap();
    assert!(latency.is_finite() && latency >= 0.0, "{case:?}");
    assert!(jitter.is_finite() && jitter >= 0.0, "{case:?}");
    let theoretical =
        case.entities as f64 * case.rate_hz * case.size as f64 * 8.0 / 1e6 * heard(case.config);
    assert!(
        (case.theoretical_mbps - theoretical).abs() < 1e-9,
        "entities × rate × payload × 8 × senders heard: {case:?}"
    );
    assert!(case.published <= case.scheduled);
}

#[test]
fn reliable_federates_deliver_every_update_in_every_configuration() {
    let dir = Dir::new("reliable");
    let summary = run(&dir, &options(Setup::default()));
    assert_eq!(summary.cases.len(), 2 * 4, "entity counts × configurations");
    for case in &summary.cases {
        assert_sane(case);
        assert_eq!(case.published, case.scheduled, "{case:?}");
        assert_eq!(case.reliability, 1.0, "{case:?}");
        assert_eq!(case.duplicates, 0);
        assert!(case.throughput_mbps > 0.0);
        let per_sender = case.entities as u64 * 10;
        assert_eq!(case.scheduled, case.senders as u64 * per_sender);
        let (senders, receivers) = match case.config {
            Configuration::OneToOne => (1, 1),
            Configuration::OneToMany => (1, 2),
            Configuration::ManyToOne => (2, 1),
            Configuration::ManyToMany => (2, 2),
        };
        assert_eq!((case.senders, case.receivers), (senders, receivers));
        assert_eq!(
            case.received,
            receivers as u64 * heard(case.config) as u64 * per_sender,
            "{case:?}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.0.join("summary.json")).unwrap())
            .unwrap();
    let first = &json["cases"][0];
    for key in [
        "entities",
        "rate_hz",
        "size",
        "transport",
        "config",
        "throughput_mbps",
        "theoretical_mbps",
        "reliability",
        "mean_latency_us",
        "jitter_us",
        "published",
        "received",
    ] {
        assert!(!first[key].is_null(), "{key} in {first}");
    }
    assert_eq!(first["config"], "1-1");
    let csv = std::fs::read_to_string(dir.0.join("matrix.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 8);
}

#[test]
fn best_effort_nodes_stay_within_bounds() {
    let dir = Dir::new("best-effort");
    let summary = run(
        &dir,
        &MatrixOptions {
            deliveries: vec![Transport::BestEffort],
            configurations: vec![Configuration::OneToMany, Configuration::ManyToMany],
            sizes: vec![1024],
            ..options(Setup {
                api: Api::Node,
                ..Setup::default()
            })
        },
    );
    assert_eq!(summary.cases.len(), 4);
    for case in &summary.cases {
        assert_sane(case);
        assert_eq!(case.transport, Transport::BestEffort);
        assert!(case.received > 0, "{case:?}");
    }
}

#[test]
fn raw_sockets_run_every_configuration() {
    for raw in [Raw::Tcp, Raw::Udp] {
        let dir = Dir::new(&format!("raw-{raw:?}"));
        let summary = run(
            &dir,
            &MatrixOptions {
                raw: Some(raw),
                entities: vec![3],
                deliveries: Vec::new(),
                ..options(Setup::default())
            },
        );
        assert_eq!(summary.cases.len(), 4, "{raw:?}");
        for case in &summary.cases {
            assert_sane(case);
            assert!(case.received > 0, "{raw:?} {case:?}");
            if raw == Raw::Tcp {
                assert_eq!(case.reliability, 1.0, "{case:?}");
                assert_eq!(case.transport, Transport::Reliable);
            } else {
                assert_eq!(case.transport, Transport::BestEffort);
            }
        }
    }
}

#[test]
fn bad_matrices_are_refused() {
    let dir = Dir::new("refused");
    let results = Results::create(
        Some(&dir.0),
        Meta::new("matrix", "test", &Setup::default(), Mode::Trellis),
    )
    .unwrap();
    let refused = |options: MatrixOptions| matrix::run(&options, &results).unwrap_err().to_string();
    let base = || options(Setup::default());
    assert!(refused(MatrixOptions {
        sizes: vec![23],
        ..base()
    })
    .contains("23 B"));
    assert!(refused(MatrixOptions {
        entities: vec![0],
        ..base()
    })
    .contains("entity count"));
    assert!(refused(MatrixOptions { n: 1, ..base() }).contains("N must"));
    assert!(refused(MatrixOptions {
        entities: vec![100_000],
        rates: vec![100_000.0],
        ..base()
    })
    .contains("fewer entities"));
    assert!(refused(MatrixOptions {
        rates: vec![f64::NAN],
        ..base()
    })
    .contains("rate"));
    assert!(refused(MatrixOptions {
        deliveries: Vec::new(),
        ..base()
    })
    .contains("delivery"));
}
