//! A recording of an HLAfloat64Time federation over real routers: the file names its time
//! representation, `record inspect` shows its logical times as the federation's floats (in
//! the summary, the CSV and a Float64 Parquet column), and `replay --time-step --from t=`
//! takes float times and lookaheads.

mod common;

use common::router::RouterProcess;
use common::session::DEMO_FOM;
use common::{terminate, trellis_within, wait_exit, wait_until, TempDir};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, Interval, LogicalTime, TimeRepresentation};
use trellis_core::fom::ObjectModel;
use trellis_net::rti::{RtiAmbassador, RtiConfig};
use trellis_net::NodeConfig;
use trellis_record::{Record, Recording};

const WAIT: Duration = Duration::from_secs(60);

/// Evoke until `want` matches a callback, within [`WAIT`].
fn evoke_until(rti: &mut RtiAmbassador, what: &str, want: impl Fn(&Callback) -> bool) {
    let deadline = Instant::now() + WAIT;
    loop {
        assert!(Instant::now() < deadline, "not within {WAIT:?}: {what}");
        if let Some(callback) = rti.evoke_callback(Duration::from_millis(50)).unwrap() {
            if want(&callback) {
                return;
            }
        }
    }
}

#[test]
fn a_float_time_federation_is_recorded_inspected_and_replayed_in_its_own_times() {
    let router = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let at = router.endpoint().to_string();
    let dir = TempDir::new("record-float");
    let file = dir.path("float.trec");
    let model = Arc::new(ObjectModel::load(&[DEMO_FOM], &|p| std::fs::read(p)).unwrap());
    let node = NodeConfig::child_of("sender", "Floats", router.endpoint());
    let mut sender = RtiAmbassador::connect(RtiConfig::new(node)).unwrap();
    sender
        .create_federation_execution_with_time(&model, TimeRepresentation::Float64)
        .unwrap();
    sender
        .join_federation_execution("sender", "sim", model.clone())
        .unwrap();
    let vehicle = sender.object_class_handle("Vehicle").unwrap();
    let position = sender.attribute_handle(vehicle, "Position").unwrap();
    sender
        .publish_object_class_attributes(vehicle, &[position])
        .unwrap();
    sender
        .enable_object_class_relevance_advisory_switch()
        .unwrap();
    sender
        .enable_time_regulation(Interval::Float(0.25))
        .unwrap();
    evoke_until(&mut sender, "regulating", |c| {
        matches!(c, Callback::TimeRegulationEnabled { .. })
    });

    let mut recorder = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args([
            "record",
            "--rti",
            &at,
            "--federation",
            "Floats",
            "--fom",
            DEMO_FOM,
        ])
        .args(["--flush-ms", "50", "-o"])
        .arg(&file)
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Sent before the recorder's subscription reaches the sender, an update reaches no one.
    evoke_until(&mut sender, "the recorder subscribed", |c| {
        matches!(c, Callback::StartRegistrationForObjectClass { .. })
    });
    let tank = sender.register_object_instance(vehicle).unwrap();
    for (i, t) in [0.5, 1.25, 2.0].into_iter().enumerate() {
        let value = [i as u8; 8];
        let time = LogicalTime::from_f64(t).unwrap();
        sender
            .update_attribute_values_at(tank, &[(position, &value[..])], b"", time, None)
            .unwrap();
    }
    let updates = || {
        let Ok(mut recording) = Recording::open(&file) else {
            return 0;
        };
        let mut n = 0;
        let _ = recording.for_each_record(|_, r| {
            n += usize::from(matches!(r, Record::Reflect { .. }));
            Ok(())
        });
        n
    };
    wait_until("the recording holds the 3 updates", WAIT, || updates() == 3);
    terminate(&mut recorder);
    assert!(wait_exit(&mut recorder, WAIT).success());
    let header = Recording::open(&file).unwrap().header;
    assert_eq!(header.time_representation, TimeRepresentation::Float64);

    let csv = dir.path("float.csv");
    let (ok, stdout, stderr) = trellis_within(
        &[
            "record",
            "inspect",
            file.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
        ],
        WAIT,
    );
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("logical time: 0.5 .. 2\n"), "{stdout}");
    let csv = std::fs::read_to_string(&csv).unwrap();
    let times: Vec<&str> = csv
        .lines()
        .filter(|l| l.contains(",reflect,"))
        .map(|l| l.split(',').nth(8).unwrap())
        .collect();
    assert_eq!(times, ["0.5", "1.25", "2"], "{csv}");

    // From t=1 with a lookahead of a quarter: the updates at 1.25 and 2.
    let (ok, stdout, stderr) = trellis_within(
        &[
            "replay",
            file.to_str().unwrap(),
            "--rti",
            &at,
            "--federation",
            "FloatReplay",
            "--time-step",
            "--lookahead",
            "0.25",
            "--from",
            "t=1",
            "--wait-subscribers",
            "0",
        ],
        WAIT,
    );
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("replayed 2 updates"), "{stdout}");
    let (ok, stdout, _) = trellis_within(&["federations", &at], WAIT);
    assert!(ok);
    let replayed = stdout.lines().find(|l| l.contains("FloatReplay"));
    assert!(
        replayed.is_some_and(|l| l.contains("HLAfloat64Time")),
        "{stdout}"
    );
}
