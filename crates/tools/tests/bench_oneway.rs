//! The JADS one-way matrix on loopback: every serial sent is accounted for, reliable
//! delivery loses nothing, and a message the sender holds back is reported MISSING.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use trellis_tools::bench::oneway::{OnewayOptions, OnewaySummary};
use trellis_tools::bench::results::{Meta, Results};
use trellis_tools::bench::{oneway, Api, Mode, Raw, Setup, Transport};

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!("trellis-oneway-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Dir(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn options(setup: Setup) -> OnewayOptions {
    OnewayOptions {
        setup,
        raw: None,
        sizes: vec![17, 1001],
        rates: vec![50.0, 200.0],
        seconds: 0.3,
        drop_every: None,
    }
}

fn run(dir: &Dir, options: &OnewayOptions) -> OnewaySummary {
    let results = Results::create(
        Some(&dir.0),
        Meta::new("oneway", "test", &options.setup, Mode::Trellis),
    )
    .unwrap();
    oneway::run(options, &results).unwrap()
}

/// The data file's records: serial and latency, or `None` for MISSING.
fn records(dir: &Dir, file: &str) -> Vec<(u64, Option<f64>)> {
    std::fs::read_to_string(dir.0.join(file))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let serial = fields[0].parse().unwrap();
            match fields[1] {
                "MISSING" => (serial, None),
                _ => (serial, Some(fields[3].parse().unwrap())),
            }
        })
        .collect()
}

fn assert_sane(summary: &OnewaySummary) {
    for case in &summary.cases {
        assert_eq!(case.sent, case.received + case.missing, "{case:?}");
        assert_eq!(
            case.sent,
            (case.rate_hz * 0.3).round() as u64,
            "a whole number of periods: {case:?}"
        );
        if case.received > 0 {
            let (min, mean, max) = (
                case.min_us.unwrap(),
                case.mean_us.unwrap(),
                case.max_us.unwrap(),
            );
            assert!(0.0 <= min && min <= mean && mean <= max, "{case:?}");
            assert!(max.is_finite());
        } else {
            assert!(case.min_us.is_none() && case.mean_us.is_none() && case.max_us.is_none());
        }
    }
}

#[test]
fn reliable_delivery_on_loopback_has_no_missing_serial() {
    for api in [Api::Federate, Api::Node] {
        let dir = Dir::new(&format!("reliable-{api:?}"));
        let summary = run(
            &dir,
            &options(Setup {
                api,
                ..Setup::default()
            }),
        );
        assert_eq!(summary.cases.len(), 4, "two sizes × two rates");
        assert_sane(&summary);
        for case in &summary.cases {
            assert_eq!(case.missing, 0, "{api:?} {case:?}");
            assert_eq!(case.transport, Transport::Reliable);
            let records = records(&dir, &case.data_file);
            assert_eq!(records.len() as u64, case.sent, "a record per serial sent");
            assert!(records.iter().enumerate().all(|(i, r)| r.0 == i as u64));
            assert!(records.iter().all(|r| r.1.is_some_and(|l| l >= 0.0)));
        }
        assert_eq!(summary.cases[0].data_file, "oneway-17B-50Hz.dat");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.0.join("summary.json")).unwrap())
                .unwrap();
        for key in [
            "size",
            "rate_hz",
            "transport",
            "sent",
            "received",
            "missing",
            "min_us",
            "max_us",
            "mean_us",
            "data_file",
        ] {
            assert!(!json["cases"][0][key].is_null(), "{key} in {json}");
        }
        assert_eq!(json["mode"], "trellis");
        let csv = std::fs::read_to_string(dir.0.join("oneway.csv")).unwrap();
        assert_eq!(csv.lines().count(), 5, "a header and a row per case");
    }
}

#[test]
fn serials_the_sender_holds_back_are_missing_and_only_those() {
    for api in [Api::Federate, Api::Node] {
        let dir = Dir::new(&format!("dropped-{api:?}"));
        let summary = run(
            &dir,
            &OnewayOptions {
                sizes: vec![17],
                rates: vec![100.0],
                drop_every: Some(5),
                ..options(Setup {
                    api,
                    ..Setup::default()
                })
            },
        );
        let case = &summary.cases[0];
        assert_eq!((case.sent, case.missing, case.received), (30, 6, 24));
        for (serial, latency) in records(&dir, &case.data_file) {
            assert_eq!(
                latency.is_none(),
                (serial + 1) % 5 == 0,
                "{api:?}: serial {serial}"
            );
        }
        let text = std::fs::read_to_string(dir.0.join(&case.data_file)).unwrap();
        assert!(text.contains("\n4 MISSING\n"), "{text}");
    }
}

#[test]
fn best_effort_accounts_for_every_serial() {
    let dir = Dir::new("best-effort");
    let summary = run(
        &dir,
        &options(Setup {
            transport: Transport::BestEffort,
            ..Setup::default()
        }),
    );
    assert_sane(&summary);
    assert_eq!(summary.transport, Transport::BestEffort);
    assert!(summary.cases.iter().all(|c| c.received > 0));
}

#[test]
fn raw_sockets_run_the_same_matrix() {
    for raw in [Raw::Tcp, Raw::Udp] {
        let dir = Dir::new(&format!("raw-{raw:?}"));
        let summary = run(
            &dir,
            &OnewayOptions {
                raw: Some(raw),
                ..options(Setup::default())
            },
        );
        assert_sane(&summary);
        assert!(summary.cases.iter().all(|c| c.received > 0), "{raw:?}");
        if raw == Raw::Tcp {
            assert!(summary.cases.iter().all(|c| c.missing == 0));
            assert_eq!(summary.mode, Mode::RawTcp);
        } else {
            assert_eq!(summary.transport, Transport::BestEffort);
        }
    }
}

#[test]
fn bad_matrices_are_refused_and_a_stopped_run_keeps_nothing_unfinished() {
    let dir = Dir::new("refused");
    let results = Results::create(
        Some(&dir.0),
        Meta::new("oneway", "test", &Setup::default(), Mode::Trellis),
    )
    .unwrap();
    let refused = |options: OnewayOptions| oneway::run(&options, &results).unwrap_err().to_string();
    let base = || options(Setup::default());
    assert!(refused(OnewayOptions {
        sizes: vec![16],
        ..base()
    })
    .contains("16 B"));
    assert!(refused(OnewayOptions {
        rates: vec![0.0],
        ..base()
    })
    .contains("rate"));
    assert!(refused(OnewayOptions {
        seconds: 0.01,
        ..base()
    })
    .contains("no message"));
    assert!(refused(OnewayOptions {
        rates: vec![1e9],
        ..base()
    })
    .contains("at most"));
    assert!(refused(OnewayOptions {
        drop_every: Some(0),
        ..base()
    })
    .contains("drop_every"));
    let setup = Setup::default();
    setup.stop.store(true, Ordering::SeqCst);
    let summary = oneway::run(&options(setup), &results).unwrap();
    assert!(summary.cases.is_empty());
}
