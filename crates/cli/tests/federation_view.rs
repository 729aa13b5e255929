//! `trellis federations` and `trellis federation NAME --json` against a real `trellis router`
//! process, with two federates in this process (one regulating and advanced to a known
//! time): the view lists each member's name, handle, time state, leaves itself out, and
//! resigns (the registry lists two members after it ran).

mod common;

use common::session::{evoke_until, joined};

use common::router::RouterProcess;
use common::{gen, spawn_lines, trellis_within, TempDir, Up};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, Interval, LogicalTime, SaveCallback};
use trellis_net::rti::Session;
use trellis_net::Endpoint;

const FEDERATION: &str = "Viewed";
/// Bound on every wait (generous: the machine may be loaded).
const WAIT: Duration = Duration::from_secs(30);
/// The logical time the stepper is granted before the view looks.
const STEPPED_TO: i64 = 5;

/// A member answers the MOM only while it is driven: evoke on a thread until stopped.
fn keep_evoking(mut session: Session, stop: Arc<AtomicBool>) -> JoinHandle<Session> {
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            session.evoke_callback(Duration::from_millis(10)).unwrap();
        }
        session
    })
}

fn member<'a>(members: &'a [serde_json::Value], name: &str) -> &'a serde_json::Value {
    (members.iter())
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no member {name} in {members:?}"))
}

#[test]
fn the_view_shows_every_member_and_its_time_state_and_leaves_itself_out() {
    let router = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let at = router.endpoint();
    let (mut stepper, stepper_handle) = joined(&at, FEDERATION, "stepper");
    let (watcher, watcher_handle) = joined(&at, FEDERATION, "watcher");
    let rti = stepper.joined().unwrap();
    rti.enable_time_regulation(Interval::Integer(1)).unwrap();
    evoke_until(&mut stepper, WAIT, |c| {
        matches!(c, Callback::TimeRegulationEnabled { .. })
    });
    let target = LogicalTime::from_i64(STEPPED_TO);
    stepper
        .joined()
        .unwrap()
        .time_advance_request(target)
        .unwrap();
    evoke_until(
        &mut stepper,
        WAIT,
        |c| matches!(c, Callback::TimeAdvanceGrant { time } if *time == target),
    );
    // Two vehicles of the stepper's: the view counts the federation's objects per class.
    let rti = stepper.joined().unwrap();
    let vehicle = rti.object_class_handle("Vehicle").unwrap();
    let name = rti.attribute_handle(vehicle, "Name").unwrap();
    rti.publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    for _ in 0..2 {
        rti.register_object_instance(vehicle).unwrap();
    }
    // A point the stepper achieved and the watcher has not: the view shows who it waits for.
    let members = [stepper_handle, watcher_handle];
    rti.register_federation_synchronization_point("Checkpoint", b"", &members)
        .unwrap();
    evoke_until(&mut stepper, WAIT, |c| {
        matches!(c, Callback::AnnounceSynchronizationPoint { .. })
    });
    (stepper.joined().unwrap())
        .synchronization_point_achieved("Checkpoint", true)
        .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let members = [
        keep_evoking(stepper, stop.clone()),
        keep_evoking(watcher, stop.clone()),
    ];
    let router_arg = at.to_string();
    let view = [
        "federation",
        FEDERATION,
        &router_arg,
        "--json",
        "--wait",
        "30",
    ];
    let (ok, stdout, stderr) = trellis_within(&view, WAIT * 2);
    assert!(ok, "trellis federation failed: {stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(report["federation"], FEDERATION);
    assert_eq!(report["time_implementation"], "HLAinteger64Time");
    assert_eq!(report["not_answering"], serde_json::json!([]), "{report}");
    let federates = report["federates"].as_array().unwrap();
    assert_eq!(
        federates.len(),
        2,
        "the two members, not the view: {report}"
    );
    let shown_stepper = member(federates, "stepper");
    assert_eq!(shown_stepper["handle"], stepper_handle);
    assert_eq!(shown_stepper["type"], "sim");
    assert_eq!(shown_stepper["time"]["regulating"], true);
    assert_eq!(shown_stepper["time"]["logical_time"], STEPPED_TO);
    assert_eq!(shown_stepper["time"]["lookahead"], 1);
    let shown_watcher = member(federates, "watcher");
    assert_eq!(shown_watcher["handle"], watcher_handle);
    assert_eq!(shown_watcher["time"]["regulating"], false);
    assert_eq!(shown_watcher["time"]["logical_time"], 0);
    let expected_points = serde_json::json!([
        {"label": "Checkpoint", "achieved": [stepper_handle], "waiting_for": [watcher_handle]}
    ]);
    assert_eq!(
        report["synchronization_points"], expected_points,
        "{report}"
    );
    let expected_objects = serde_json::json!([{"class": "Vehicle", "objects": 2}]);
    assert_eq!(report["objects_per_class"], expected_objects, "{report}");

    // The table: a heading, then one row per member, the stepper regulating at its time.
    let (ok, table, stderr) = trellis_within(&["federation", FEDERATION, &router_arg], WAIT * 2);
    assert!(ok, "trellis federation failed: {stderr}");
    eprintln!("{table}");
    let stepper_row: Vec<&str> = (table.lines())
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|cells| cells.get(1) == Some(&"stepper"))
        .unwrap_or_else(|| panic!("no stepper row in {table}"));
    let expected_start = [stepper_handle.to_string(), "stepper".into(), "sim".into()];
    assert_eq!(
        stepper_row[..3],
        expected_start.each_ref().map(String::as_str)
    );
    assert_eq!(stepper_row[4..7], ["yes", "no", "5"], "{table}");
    assert!(!table.contains("federation-view"), "{table}");
    let point_line = format!(
        "synchronization point \"Checkpoint\": achieved by {stepper_handle}; waiting for {watcher_handle}"
    );
    assert!(table.contains(&point_line), "{table}");
    assert!(table.contains("objects: Vehicle 2"), "{table}");

    // The views resigned: the registry lists the two members only.
    let (ok, listed, stderr) = trellis_within(&["federations", &router_arg, "--json"], WAIT);
    assert!(ok, "trellis federations failed: {stderr}");
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let expected = serde_json::json!([
        {"name": FEDERATION, "time_implementation": "HLAinteger64Time", "federates": 2}
    ]);
    assert_eq!(listed, expected);
    let (ok, table, _) = trellis_within(&["federations", &router_arg], WAIT);
    assert!(ok);
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == [FEDERATION, "HLAinteger64Time", "2"]),
        "{table}"
    );

    stop.store(true, Ordering::Relaxed);
    for member in members {
        member.join().unwrap().close();
    }
}

#[test]
fn an_unknown_federation_is_a_clear_error() {
    let router = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let at = router.endpoint().to_string();
    let (ok, _, stderr) = trellis_within(&["federation", "Nowhere", &at], WAIT);
    assert!(!ok);
    eprintln!("{stderr}");
    assert!(stderr.contains("\"Nowhere\""), "{stderr}");
}

/// The first line from `lines` that `wanted` accepts, within the bound.
fn line_where(lines: &Receiver<String>, mut wanted: impl FnMut(&str) -> bool) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if wanted(&line) => return line,
            Ok(_) => {}
            Err(e) => panic!("no wanted line within {WAIT:?}: {e}"),
        }
    }
}

/// SIGTERM `child` (as Ctrl-C's SIGINT, which it handles the same) and its exit status.
fn terminate(mut child: Child) -> std::process::ExitStatus {
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "trellis did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The stepper's logical time in one `--json --watch` line.
fn stepper_time(line: &str) -> Option<i64> {
    let report: serde_json::Value = serde_json::from_str(line).ok()?;
    let federates = report["federates"].as_array()?;
    let stepper = federates.iter().find(|f| f["name"] == "stepper")?;
    stepper["time"]["logical_time"].as_i64()
}

#[test]
fn watching_redraws_as_a_federate_advances_and_leaves_on_sigterm() {
    let router = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let at = router.endpoint();
    let (mut stepper, _) = joined(&at, FEDERATION, "stepper");
    stepper
        .joined()
        .unwrap()
        .enable_time_regulation(Interval::Integer(1))
        .unwrap();
    let (advance, save) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let stepping = {
        let (advance, save, stop) = (advance.clone(), save.clone(), stop.clone());
        std::thread::spawn(move || {
            let (mut requested, mut save_requested) = (false, false);
            while !stop.load(Ordering::Relaxed) {
                let rti = stepper.joined().unwrap();
                if advance.load(Ordering::Relaxed) && !requested {
                    let to = LogicalTime::from_i64(STEPPED_TO);
                    rti.time_advance_request(to).unwrap();
                    requested = true;
                }
                if save.load(Ordering::Relaxed) && !save_requested {
                    rti.request_federation_save("Watched", None).unwrap();
                    save_requested = true;
                }
                let callback = stepper.evoke_callback(Duration::from_millis(10)).unwrap();
                if let Some(Callback::Save(SaveCallback::InitiateFederateSave { .. })) = callback {
                    let rti = stepper.joined().unwrap();
                    rti.federate_save_begun().unwrap();
                    rti.federate_save_complete(true).unwrap();
                }
            }
            stepper
        })
    };
    let router_arg = at.to_string();
    let (view, lines) = spawn_lines(&["federation", FEDERATION, &router_arg, "--json", "--watch"]);
    line_where(&lines, |l| stepper_time(l) == Some(0));
    advance.store(true, Ordering::Relaxed);
    // The periodic reports (HLAsetTiming, every second) bring the new time without a request.
    line_where(&lines, |l| stepper_time(l) == Some(STEPPED_TO));
    // A save while the view watches: the view does its part at once, so the save ends,
    // and the view shows it as the federation's last save.
    save.store(true, Ordering::Relaxed);
    line_where(&lines, |l| {
        let report: serde_json::Value = serde_json::from_str(l).unwrap_or_default();
        report["save"]["last"] == "Watched"
    });
    assert!(terminate(view).success());

    let (ok, listed, stderr) = trellis_within(&["federations", &router_arg, "--json"], WAIT);
    assert!(ok, "{stderr}");
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed[0]["federates"], 1, "the view left: {listed}");
    stop.store(true, Ordering::Relaxed);
    stepping.join().unwrap().close();
}

/// The view on the time-stepped demo running on a `trellis up` tree (a root and two
/// leaves): the demo's federates below one leaf (`demo --rti`), the view below the other.
#[test]
fn the_view_reads_the_time_stepped_demo_on_a_trellis_up_tree() {
    let dir = TempDir::new("federation-view-demo-tree");
    let args = ["tree", "--levels", "2", "--fanout", "2", "--federates", "1"];
    let (file, topology) = gen(&dir, "tree.toml", &args, 3);
    let _up = Up::start(&file);
    let (demo_at, view_at) = (
        attachment(&topology, "fed-1"),
        attachment(&topology, "fed-2"),
    );
    assert_ne!(demo_at, view_at);
    let demo_at = demo_at.to_string();
    let demo_args = [
        "demo",
        "--rti",
        &demo_at,
        "--no-web",
        "--time-stepped",
        "--seconds",
        "120",
    ];
    let (demo, lines) = spawn_lines(&demo_args);
    line_where(&lines, |l| l.contains("federation TrellisDemo created"));
    let router_arg = view_at.to_string();
    // The vehicles regulate and advance: wait until the view shows them past time 0.
    let deadline = Instant::now() + WAIT;
    let report = loop {
        let args = [
            "federation",
            "TrellisDemo",
            &router_arg,
            "--json",
            "--wait",
            "10",
        ];
        let (ok, stdout, stderr) = trellis_within(&args, WAIT * 2);
        assert!(ok, "trellis federation failed: {stderr}");
        let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let federates = report["federates"].as_array().unwrap().clone();
        let advanced = federates.iter().any(|f| {
            f["time"]["regulating"] == true && f["time"]["logical_time"].as_i64() > Some(0)
        });
        if advanced {
            break report;
        }
        assert!(
            Instant::now() < deadline,
            "no regulating federate advanced: {report}"
        );
    };
    assert_eq!(report["not_answering"], serde_json::json!([]), "{report}");
    let names: Vec<&str> = (report["federates"].as_array().unwrap().iter())
        .filter_map(|f| f["name"].as_str())
        .collect();
    for name in ["viewer", "ground-sim", "air-sim"] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    // The demo's six vehicles: three ground vehicles and three aircraft, by class handle.
    let expected_objects = serde_json::json!([
        {"class": "Vehicle.GroundVehicle", "objects": 3},
        {"class": "Vehicle.Aircraft", "objects": 3}
    ]);
    assert_eq!(report["objects_per_class"], expected_objects, "{report}");
    assert!(
        terminate(demo).success(),
        "the demo stops cleanly on SIGTERM"
    );
}

/// Where federate `at` of a topology attaches: its parent router's address.
fn attachment(topology: &trellis_core::topology::Topology, at: &str) -> Endpoint {
    let plan = topology.plan(at).unwrap();
    plan.dial[0].address.to_string().parse().unwrap()
}

/// On a `trellis up` tree (a root and two leaves): the stepper below one leaf, the view
/// below the other, so the MOM's discovery, requests and answers cross the tree.
#[test]
fn the_view_reads_members_across_a_trellis_up_tree() {
    let dir = TempDir::new("federation-view-tree");
    let args = ["tree", "--levels", "2", "--fanout", "2", "--federates", "1"];
    let (file, topology) = gen(&dir, "tree.toml", &args, 3);
    let up = Up::start(&file);
    let (stepper_at, view_at) = (
        attachment(&topology, "fed-1"),
        attachment(&topology, "fed-2"),
    );
    assert_ne!(stepper_at, view_at);
    let (mut stepper, stepper_handle) = joined(&stepper_at, FEDERATION, "stepper");
    let rti = stepper.joined().unwrap();
    rti.enable_time_regulation(Interval::Integer(1)).unwrap();
    evoke_until(&mut stepper, WAIT, |c| {
        matches!(c, Callback::TimeRegulationEnabled { .. })
    });
    let target = LogicalTime::from_i64(STEPPED_TO);
    stepper
        .joined()
        .unwrap()
        .time_advance_request(target)
        .unwrap();
    evoke_until(
        &mut stepper,
        WAIT,
        |c| matches!(c, Callback::TimeAdvanceGrant { time } if *time == target),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let stepping = keep_evoking(stepper, stop.clone());

    let view_arg = view_at.to_string();
    let view = [
        "federation",
        FEDERATION,
        &view_arg,
        "--json",
        "--wait",
        "30",
    ];
    let (ok, stdout, stderr) = trellis_within(&view, WAIT * 2);
    assert!(ok, "trellis federation failed: {stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let federates = report["federates"].as_array().unwrap();
    assert_eq!(federates.len(), 1, "{report}");
    assert_eq!(federates[0]["handle"], stepper_handle);
    assert_eq!(federates[0]["time"]["logical_time"], STEPPED_TO);
    assert_eq!(federates[0]["time"]["regulating"], true);
    let (ok, listed, _) = trellis_within(&["federations", &view_arg, "--json"], WAIT);
    assert!(ok);
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed[0]["federates"], 1, "the view left: {listed}");
    stop.store(true, Ordering::Relaxed);
    stepping.join().unwrap().close();
    up.stop();
}
