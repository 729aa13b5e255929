//! `trellis record`, `trellis replay` and `trellis record inspect` on real routers over TCP:
//! the time-stepped demo is recorded; replayed into a fresh federation, a subscriber sees
//! what an observer of the original saw; a file cut mid-write replays up to its last whole
//! chunk; inspect's CSV and Parquet read back in Python (pyarrow) with the right rows.

mod common;

use common::router::RouterProcess;
use common::session::DEMO_FOM;
use common::{spawn_lines, terminate, trellis_within};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, LogicalTime, ObjectId};
use trellis_core::fom::{ObjectModel, Order};
use trellis_net::rti::{RtiAmbassador, RtiConfig, RtiError};
use trellis_net::{Endpoint, NodeConfig};
use trellis_record::{Record, Recording};

/// Bound on every wait of these tests (the machine may be loaded by builds).
const WAIT: Duration = Duration::from_secs(60);

/// Per instance name, the Position values in the order received, with their logical time.
type Seen = BTreeMap<String, Vec<(i64, Vec<u8>)>>;

fn model() -> Arc<ObjectModel> {
    Arc::new(ObjectModel::load(&[DEMO_FOM], &|p| std::fs::read(p)).unwrap())
}

/// A federate that subscribes to Vehicle.Position (which covers the demo's ground vehicles
/// and aircraft), achieves any synchronization point announced to it, and collects what it
/// reflects until `stop`. Creates the federation if `create`.
fn subscriber(
    at: Endpoint,
    federation: &str,
    create: bool,
    stop: Arc<AtomicBool>,
) -> (Arc<Mutex<Seen>>, std::thread::JoinHandle<()>) {
    let seen = Arc::new(Mutex::new(Seen::new()));
    let out = seen.clone();
    let federation = federation.to_owned();
    let (ready_tx, ready) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        let model = model();
        let name = format!("observer-{federation}");
        let deadline = Instant::now() + WAIT;
        let mut rti = loop {
            let mut rti = RtiAmbassador::connect(RtiConfig::new(NodeConfig::child_of(
                name.as_str(),
                federation.as_str(),
                at.clone(),
            )))
            .unwrap();
            if create {
                match rti.create_federation_execution(&model) {
                    Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
                    Err(e) => panic!("create: {e}"),
                }
            }
            match rti.join_federation_execution(&name, "observer", model.clone()) {
                Ok(_) => break rti,
                // The demo creates its federation a moment after its router listens.
                Err(RtiError::FederationExecutionDoesNotExist(_)) if Instant::now() < deadline => {
                    continue
                }
                Err(e) => panic!("join: {e}"),
            }
        };
        let vehicle = rti.object_class_handle("Vehicle").unwrap();
        let position = rti.attribute_handle(vehicle, "Position").unwrap();
        rti.subscribe_object_class_attributes(vehicle, &[position])
            .unwrap();
        ready_tx.send(()).unwrap();
        let mut names: BTreeMap<ObjectId, String> = BTreeMap::new();
        while !stop.load(Ordering::SeqCst) {
            let Ok(Some(callback)) = rti.evoke_callback(Duration::from_millis(20)) else {
                continue;
            };
            match callback {
                Callback::AnnounceSynchronizationPoint { label, .. } => {
                    rti.synchronization_point_achieved(&label, true).unwrap();
                }
                Callback::DiscoverObjectInstance { object, name, .. } => {
                    names.insert(object, name.to_string());
                }
                Callback::ReflectAttributeValues {
                    object,
                    values,
                    time,
                    sent_order,
                    ..
                } => {
                    let name = names
                        .get(&object)
                        .cloned()
                        .expect("reflected before discovered");
                    for (attribute, value) in values.iter().filter(|(a, _)| *a == position) {
                        let _ = attribute;
                        // Receive order (a replay as fast as possible): no logical time.
                        let t = match sent_order {
                            Order::TimeStamp => LogicalTime::from_key(time).as_i64(),
                            Order::Receive => -1,
                        };
                        out.lock()
                            .unwrap()
                            .entry(name.clone())
                            .or_default()
                            .push((t, value.to_vec()));
                    }
                }
                _ => {}
            }
        }
        let _ = rti.resign_federation_execution(trellis_net::rti::ResignAction::NoAction);
    });
    ready
        .recv_timeout(WAIT)
        .expect("the subscriber joined and subscribed");
    (seen, thread)
}

fn count(seen: &Mutex<Seen>) -> usize {
    seen.lock().unwrap().values().map(Vec::len).sum()
}

fn wait_until(what: &str, done: impl FnMut() -> bool) {
    common::wait_until(what, WAIT, done)
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    common::wait_exit(child, WAIT)
}

struct Recorded {
    file: PathBuf,
    /// What an independent observer of the original federation saw.
    observed: Seen,
}

/// The time-stepped demo, recorded once for every test of this file.
fn recorded() -> &'static Recorded {
    static RECORDED: OnceLock<Recorded> = OnceLock::new();
    RECORDED.get_or_init(record_the_demo)
}

fn record_the_demo() -> Recorded {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("demo.trec");
    let (mut demo, lines) = spawn_lines(&[
        "demo",
        "--time-stepped",
        "--no-web",
        "--seconds",
        "60",
        "--vehicles",
        "4",
        "--rate",
        "20",
    ]);
    let at = loop {
        let line = lines
            .recv_timeout(WAIT)
            .expect("the demo prints where its router listens");
        if let Some(rest) = line.strip_prefix("router listening on ") {
            break rest.split(',').next().unwrap().to_owned();
        }
    };
    let endpoint: Endpoint = at.parse().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (observed, observer) = subscriber(endpoint, "TrellisDemo", false, stop.clone());
    let mut recorder = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args([
            "record",
            "--time-constrained",
            "--rti",
            &at,
            "--federation",
            "TrellisDemo",
            "--fom",
            DEMO_FOM,
        ])
        .args(["--chunk-bytes", "2048", "--flush-ms", "100", "-o"])
        .arg(&file)
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Enough steps for several chunks, recorded and observed alike.
    wait_until("the observer saw 300 positions", || count(&observed) >= 300);
    let mut grew = 0;
    wait_until(
        "the recording holds whole chunks while being written",
        || {
            grew = Recording::open(&file).map_or(0, |r| r.chunks.len());
            grew >= 4
        },
    );
    wait_until("the observer saw 300 more positions", || {
        count(&observed) >= 600
    });
    terminate(&mut recorder);
    let status = wait_exit(&mut recorder);
    let out = recorder.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("bytes per update"), "{stdout}");
    stop.store(true, Ordering::SeqCst);
    observer.join().unwrap();
    let _ = demo.kill();
    let _ = demo.wait();
    let observed = observed.lock().unwrap().clone();
    Recorded { file, observed }
}

/// The Position values of a recording, per instance name, as the file holds them.
fn in_file(file: &Path) -> Seen {
    let mut recording = Recording::open(file).unwrap();
    let position = recording
        .header
        .dictionary
        .attributes
        .iter()
        .find(|(_, _, name)| name == "Position")
        .map(|(h, _, _)| *h)
        .unwrap();
    let mut names = BTreeMap::new();
    let mut seen = Seen::new();
    let damaged = recording
        .for_each_record(|_, record| {
            match record {
                Record::Discover { object, name, .. } => {
                    names.insert(object, name);
                }
                Record::Reflect {
                    object,
                    sent,
                    values,
                    ..
                } => {
                    for (_, value) in values.into_iter().filter(|(a, _)| *a == position) {
                        let t = LogicalTime::from_key(sent.time().expect("stamped")).as_i64();
                        seen.entry(names[&object].clone())
                            .or_default()
                            .push((t, value));
                    }
                }
                _ => {}
            }
            Ok(())
        })
        .unwrap();
    assert!(damaged.is_empty());
    seen
}

/// Replay `file` into a fresh router and federation with `pace`; what a subscriber there saw.
fn replay(file: &Path, federation: &str, pace: &[&str]) -> (Seen, String) {
    let expected: usize = in_file(file).values().map(Vec::len).sum();
    replay_expecting(file, federation, pace, expected)
}

/// `replay`, waiting for `expected` positions at the subscriber.
fn replay_expecting(
    file: &Path,
    federation: &str,
    pace: &[&str],
    expected: usize,
) -> (Seen, String) {
    let router = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let stop = Arc::new(AtomicBool::new(false));
    let (seen, thread) = subscriber(router.endpoint(), federation, true, stop.clone());
    let at = router.endpoint().to_string();
    let mut args = vec![
        "replay",
        file.to_str().unwrap(),
        "--rti",
        &at,
        "--federation",
        federation,
    ];
    args.extend_from_slice(pace);
    let (ok, stdout, stderr) = trellis_within(&args, WAIT * 2);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(
        stdout.lines().any(|l| l.starts_with("replayed ")),
        "a replay summary: {stdout}"
    );
    // Every Position expected (the subscriber's only attribute); the callers check that
    // nothing more came.
    wait_until("the subscriber reflected every recorded position", || {
        count(&seen) >= expected
    });
    stop.store(true, Ordering::SeqCst);
    thread.join().unwrap();
    let seen = seen.lock().unwrap().clone();
    (seen, stdout)
}

/// `b` restricted to the logical times `a` covers.
fn within(a: &[(i64, Vec<u8>)], b: &[(i64, Vec<u8>)]) -> Vec<(i64, Vec<u8>)> {
    let (lo, hi) = (a.first().unwrap().0, a.last().unwrap().0);
    b.iter()
        .filter(|(t, _)| (lo..=hi).contains(t))
        .cloned()
        .collect()
}

#[test]
fn the_time_stepped_demo_replayed_in_time_steps_shows_a_subscriber_what_the_original_showed() {
    let recorded = recorded();
    let file = in_file(&recorded.file);
    assert_eq!(file.len(), 4, "four vehicles recorded: {:?}", file.keys());
    let (replayed, stdout) = replay(&recorded.file, "ReplayedInSteps", &["--time-step"]);
    assert!(stdout.contains("of 4 instances"), "{stdout}");
    // Exactly the recording, per instance, in order, at the recorded logical times.
    assert_eq!(replayed, file);
    for (name, values) in &replayed {
        // And what an independent observer of the original federation saw over the same
        // logical times (the recorder and the observer joined at slightly different steps).
        let observed = &recorded.observed[name];
        let common_observed = within(values, observed);
        let common_replayed = within(observed, values);
        assert!(
            common_replayed.len() >= 50,
            "{name}: only {} values in common",
            common_replayed.len()
        );
        assert_eq!(common_replayed, common_observed, "{name}");
        assert!(
            values.windows(2).all(|w| w[0].0 < w[1].0),
            "{name}: logical time increases"
        );
    }
}

#[test]
fn a_recording_cut_mid_chunk_replays_up_to_its_last_whole_chunk() {
    let recorded = recorded();
    let whole = Recording::open(&recorded.file).unwrap();
    assert!(
        whole.closed_cleanly && whole.chunks.len() >= 4,
        "{} chunks",
        whole.chunks.len()
    );
    let middle = whole.chunks[whole.chunks.len() / 2];
    let cut_at = middle.offset + 52 + u64::from(middle.payload_len) / 2;
    let cut = recorded.file.with_file_name("cut.trec");
    let bytes = std::fs::read(&recorded.file).unwrap();
    std::fs::write(&cut, &bytes[..cut_at as usize]).unwrap();

    let kept = Recording::open(&cut).unwrap();
    assert_eq!(
        kept.chunks,
        whole.chunks[..whole.chunks.len() / 2],
        "the chunks before the cut"
    );
    let expected = in_file(&cut);
    let full = in_file(&recorded.file);
    let expected_count: usize = expected.values().map(Vec::len).sum();
    assert!(expected_count > 0 && expected_count < full.values().map(Vec::len).sum());
    for (name, values) in &expected {
        assert_eq!(
            values[..],
            full[name][..values.len()],
            "{name}: a prefix of the whole"
        );
    }
    let (replayed, stdout) = replay(&cut, "ReplayedCut", &["--as-fast-as-possible"]);
    assert!(stdout.contains("cut short"), "{stdout}");
    // Sent in receive order: the same values per instance, in order, without their times.
    let values = |seen: &Seen| -> BTreeMap<String, Vec<Vec<u8>>> {
        seen.iter()
            .map(|(n, v)| (n.clone(), v.iter().map(|(_, v)| v.clone()).collect()))
            .collect()
    };
    assert_eq!(values(&replayed), values(&expected));
    assert!(
        replayed.values().flatten().all(|(t, _)| *t == -1),
        "sent in receive order"
    );
}

fn python() -> PathBuf {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/python/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/python-env",
        python.display()
    );
    python
}

#[test]
fn inspect_summarises_and_its_csv_and_parquet_read_back_in_pyarrow_with_the_right_rows() {
    let python = python();
    let recorded = recorded();
    let csv = recorded.file.with_file_name("demo.csv");
    let parquet = recorded.file.with_file_name("demo.parquet");
    let (ok, stdout, stderr) = trellis_within(
        &[
            "record",
            "inspect",
            recorded.file.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
            "--parquet",
            parquet.to_str().unwrap(),
        ],
        WAIT,
    );
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("closed cleanly"), "{stdout}");
    assert!(
        stdout.contains("HLAobjectRoot.Vehicle.GroundVehicle"),
        "{stdout}"
    );
    // Expected from the file itself: Position rows per instance, in order.
    let file = in_file(&recorded.file);
    let script = r#"
import json, sys
import pyarrow.csv, pyarrow.parquet
out = {}
for name, table in (("csv", pyarrow.csv.read_csv(sys.argv[1], convert_options=pyarrow.csv.ConvertOptions(column_types={"value": pyarrow.string()}))),
                    ("parquet", pyarrow.parquet.read_table(sys.argv[2]))):
    rows = table.to_pylist()
    positions = {}
    for r in rows:
        if r["kind"] == "reflect" and r["member"] == "Position":
            value = r["value"] if name == "csv" else r["value"].hex()
            positions.setdefault(r["instance"], []).append([r["logical_time"], value])
    kinds = {}
    for r in rows:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    out[name] = {"rows": len(rows), "kinds": kinds, "positions": positions}
print(json.dumps(out))
"#;
    let result = Command::new(&python)
        .arg("-c")
        .arg(script)
        .arg(&csv)
        .arg(&parquet)
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let read: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    let rows: u64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("csv: "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    for format in ["csv", "parquet"] {
        let table = &read[format];
        assert_eq!(table["rows"], rows, "{format}");
        assert_eq!(
            table["kinds"]["discover"], 4,
            "{format}: {}",
            table["kinds"]
        );
        for (name, values) in &file {
            let expected: Vec<serde_json::Value> = values
                .iter()
                .map(|(t, v)| {
                    serde_json::json!([t, v.iter().map(|b| format!("{b:02x}")).collect::<String>()])
                })
                .collect();
            assert_eq!(
                table["positions"][name],
                serde_json::Value::Array(expected),
                "{format}: {name}"
            );
        }
    }
}

/// A publisher of `Vehicle.Name` values "0", "1", "2"… on its own thread until `stop`,
/// riding out router restarts (its node redials).
fn counter(at: Endpoint, federation: &str, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    let federation = federation.to_owned();
    let (ready_tx, ready) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        let model = model();
        let mut rti = RtiAmbassador::connect(RtiConfig::new(NodeConfig::child_of(
            "counter",
            federation.as_str(),
            at,
        )))
        .unwrap();
        let _ = rti.create_federation_execution(&model);
        rti.join_federation_execution("counter", "counter", model)
            .unwrap();
        let vehicle = rti.object_class_handle("Vehicle").unwrap();
        let name = rti.attribute_handle(vehicle, "Name").unwrap();
        rti.publish_object_class_attributes(vehicle, &[name])
            .unwrap();
        let object = rti.register_object_instance(vehicle).unwrap();
        ready_tx.send(()).unwrap();
        let mut sent = 0u64;
        while !stop.load(Ordering::SeqCst) {
            if rti
                .update_attribute_values(object, &[(name, sent.to_string().as_bytes())], b"")
                .is_ok()
            {
                sent += 1;
            }
            // Paces the updates (about 100 a second) and serves the node.
            let _ = rti.evoke_callback(Duration::from_millis(10));
        }
        sent
    });
    ready.recv_timeout(WAIT).expect("the counter joined");
    thread
}

#[test]
fn a_router_restart_while_recording_leaves_no_hole_the_file_does_not_mark_as_a_gap() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("record-restart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("restart.trec");
    let port = common::free_ports(1);
    let listen = format!("tcp://127.0.0.1:{port}");
    let mut router = RouterProcess::start(&["--listen", &listen]);
    let stop = Arc::new(AtomicBool::new(false));
    let counter = counter(router.endpoint(), "Restart", stop.clone());
    let mut recorder = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args([
            "record",
            "--rti",
            &listen,
            "--federation",
            "Restart",
            "--fom",
            DEMO_FOM,
            "--flush-ms",
            "50",
            "-o",
        ])
        .arg(&file)
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let updates = |file: &Path| -> Vec<Record> {
        let mut records = Vec::new();
        if let Ok(mut recording) = Recording::open(file) {
            let _ = recording.for_each_record(|_, r| {
                records.push(r);
                Ok(())
            });
        }
        records
    };
    let reflects = |records: &[Record]| {
        records
            .iter()
            .filter(|r| matches!(r, Record::Reflect { .. }))
            .count()
    };
    wait_until("50 updates recorded before the restart", || {
        reflects(&updates(&file)) >= 50
    });
    router.child.kill().unwrap();
    router.child.wait().unwrap();
    let before = reflects(&updates(&file));
    let _restarted = RouterProcess::start(&["--listen", &listen]);
    drop(router);
    wait_until("50 more updates recorded after the restart", || {
        reflects(&updates(&file)) >= before + 50
    });
    terminate(&mut recorder);
    assert!(wait_exit(&mut recorder).success());
    stop.store(true, Ordering::SeqCst);
    counter.join().unwrap();
    // Every value the counter sent between two recorded ones is either recorded or inside
    // a gap the file reports; a messages-lost gap counts exactly the values missing.
    let mut last: Option<u64> = None;
    let mut gaps_since_last: Vec<(trellis_record::GapCause, u64)> = Vec::new();
    let mut holes = Vec::new();
    let mut miscounted = Vec::new();
    for record in updates(&file) {
        match record {
            Record::Gap { cause, lost, .. } => gaps_since_last.push((cause, lost)),
            Record::Reflect { values, .. } => {
                let value: u64 = String::from_utf8(values[0].1.clone())
                    .unwrap()
                    .parse()
                    .unwrap();
                if let Some(last) = last {
                    let missing = value - last - 1;
                    let only_counted = gaps_since_last
                        .iter()
                        .all(|(cause, _)| *cause == trellis_record::GapCause::MessagesLost);
                    let counted: u64 = gaps_since_last.iter().map(|(_, lost)| lost).sum();
                    if missing > 0 && gaps_since_last.is_empty() {
                        holes.push((last, value));
                    } else if only_counted && counted != missing {
                        miscounted.push((last, value, counted));
                    }
                }
                last = Some(value);
                gaps_since_last.clear();
            }
            _ => {}
        }
    }
    assert!(
        holes.is_empty(),
        "values missing with no gap recorded: {holes:?}"
    );
    assert!(
        miscounted.is_empty(),
        "messages-lost gaps that miscount: {miscounted:?}"
    );
}

#[test]
fn recording_two_routers_at_once_writes_one_file_with_each_routers_records_under_its_source() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("record-two-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("two.trec");
    let root = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let root_at = root.endpoint().to_string();
    let leaf = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0", "--parent", &root_at]);
    let leaf_at = leaf.endpoint().to_string();
    let stop = Arc::new(AtomicBool::new(false));
    let counter = counter(leaf.endpoint(), "TwoRouters", stop.clone());
    let mut recorder = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args([
            "record",
            "--rti",
            &root_at,
            "--rti",
            &leaf_at,
            "--federation",
            "TwoRouters",
        ])
        .args(["--fom", DEMO_FOM, "--flush-ms", "50", "-o"])
        .arg(&file)
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let per_source = || -> [usize; 2] {
        let mut counts = [0, 0];
        if let Ok(mut recording) = Recording::open(&file) {
            let _ = recording.for_each_record(|_, r| {
                if let Record::Reflect { source, .. } = r {
                    counts[source as usize] += 1;
                }
                Ok(())
            });
        }
        counts
    };
    wait_until("20 updates recorded through each router", || {
        per_source().iter().all(|n| *n >= 20)
    });
    terminate(&mut recorder);
    assert!(wait_exit(&mut recorder).success());
    stop.store(true, Ordering::SeqCst);
    counter.join().unwrap();
    let recording = Recording::open(&file).unwrap();
    assert_eq!(recording.header.sources, [root_at, leaf_at]);
}

#[test]
fn a_replay_in_time_steps_from_a_logical_time_sends_only_what_was_stamped_from_then_on() {
    let recorded = recorded();
    let file = in_file(&recorded.file);
    let times: Vec<i64> = file.values().flatten().map(|(t, _)| *t).collect();
    let (first, last) = (*times.iter().min().unwrap(), *times.iter().max().unwrap());
    let from = first + (last - first) / 2;
    let expected: Seen = file
        .iter()
        .map(|(n, v)| {
            (
                n.clone(),
                v.iter().filter(|(t, _)| *t >= from).cloned().collect(),
            )
        })
        .collect();
    let count = expected.values().map(Vec::len).sum();
    let from_arg = format!("t={from}");
    let (replayed, stdout) = replay_expecting(
        &recorded.file,
        "ReplayedFrom",
        &["--time-step", "--from", &from_arg],
        count,
    );
    assert!(stdout.contains("of 4 instances"), "{stdout}");
    assert_eq!(replayed, expected);
}
