//! `trellis monitor --federation NAME` in a real headless Chromium, against a real
//! `trellis router` process and two federates in this process (one regulating and
//! advancing its time): before the federation exists the panel says so and the monitor
//! keeps trying; once it exists the panel lists both members (name, type, handle, time
//! state) with the stepper's logical time rising and plotted against wall time, the
//! monitor's own tool federate left out; on SIGTERM the monitor's tool federate resigns.
//!
//! Screenshots go to `test-artefacts/monitor/` in the target directory:
//! 6-federation-absent.png, 7-federation.png.

#[path = "monitor_browser/cdp.rs"]
mod cdp;
mod common;

use common::session::{evoke_until, joined};

use common::router::RouterProcess;
use common::{free_ports, trellis_within, TempDir};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, Interval, LogicalTime};
use trellis_net::rti::Session;
use trellis_net::Endpoint;

const FEDERATION: &str = "Paneled";
/// Bound on every wait (generous: the machine may be loaded).
const WAIT: Duration = Duration::from_secs(60);
/// How long the stepper drives its callbacks between two time steps (its pace).
const STEP_PACE: Duration = Duration::from_millis(100);

/// Drive `session` (it answers the MOM only while driven) for `period`.
fn evoke_for(session: &mut Session, period: Duration) {
    let deadline = Instant::now() + period;
    while Instant::now() < deadline {
        session.evoke_callback(Duration::from_millis(10)).unwrap();
    }
}

/// The regulating stepper on a thread: one time step of 1 after another, driven between
/// them, until stopped.
fn keep_stepping(mut session: Session, stop: Arc<AtomicBool>) -> JoinHandle<Session> {
    session
        .joined()
        .unwrap()
        .enable_time_regulation(Interval::Integer(1))
        .unwrap();
    evoke_until(&mut session, WAIT, |c| {
        matches!(c, Callback::TimeRegulationEnabled { .. })
    });
    std::thread::spawn(move || {
        let mut time = 0;
        while !stop.load(Ordering::Relaxed) {
            time += 1;
            let target = LogicalTime::from_i64(time);
            session
                .joined()
                .unwrap()
                .time_advance_request(target)
                .unwrap();
            evoke_until(
                &mut session,
                WAIT,
                |c| matches!(c, Callback::TimeAdvanceGrant { time } if *time == target),
            );
            evoke_for(&mut session, STEP_PACE);
        }
        session
    })
}

fn keep_evoking(mut session: Session, stop: Arc<AtomicBool>) -> JoinHandle<Session> {
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            session.evoke_callback(Duration::from_millis(10)).unwrap();
        }
        session
    })
}

/// `trellis monitor FILE --federation FEDERATION --rti AT` as a child process, killed when
/// dropped unless it ended.
struct Monitor(Option<Child>);

impl Drop for Monitor {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn start_monitor(file: &std::path::Path, at: &Endpoint) -> (Monitor, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(["monitor", file.to_str().unwrap(), "--listen"])
        .arg(format!("127.0.0.1:{}", free_ports(1)))
        .args(["--federation", FEDERATION, "--rti", &at.to_string()])
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_owned();
    (Monitor(Some(child)), url)
}

/// SIGTERM to the monitor, and its exit within the bound.
fn terminate(monitor: &mut Monitor) {
    let mut child = monitor.0.take().unwrap();
    let pid = child.id();
    assert!(Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap()
        .success());
    let (exited, exit) = std::sync::mpsc::channel();
    std::thread::spawn(move || exited.send(child.wait()));
    match exit.recv_timeout(WAIT) {
        Ok(status) => assert!(status.unwrap().success(), "the monitor failed on SIGTERM"),
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("the monitor did not stop within {WAIT:?} of SIGTERM");
        }
    }
}

/// `trellis federations --json` at `at`: each federation's name and member count.
fn members_listed(at: &Endpoint) -> serde_json::Value {
    let (ok, listed, stderr) = trellis_within(&["federations", &at.to_string(), "--json"], WAIT);
    assert!(ok, "trellis federations failed: {stderr}");
    serde_json::from_str(&listed).unwrap()
}

/// The panel's row of `name` as [handle, type, reg/con, time].
fn row_of(browser: &mut cdp::Browser, name: &str) -> serde_json::Value {
    browser.eval(&format!(
        "(() => {{ const r = document.querySelector('#federates tr[data-federate=\"{name}\"]'); \
         return r && [Number(r.dataset.handle), r.querySelector('.type').textContent, \
         r.querySelector('.regcon').textContent, r.dataset.time === '' ? null : Number(r.dataset.time)]; }})()"
    ))
}

#[test]
fn the_federation_panel_shows_each_member_and_the_steppers_time_rising() {
    let dir = TempDir::new("monitor-federation");
    let router = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let at = router.endpoint();
    let file = dir.path("one-router.toml");
    std::fs::write(
        &file,
        format!("[[router]]\nname = \"root\"\nlisten = [\"{at}\"]\n"),
    )
    .unwrap();

    // Before the federation exists: the panel says so, and the monitor keeps running.
    let (mut monitor, url) = start_monitor(&file, &at);
    let artefacts = cdp::artefacts("monitor");
    let mut browser = cdp::Browser::launch(&dir.path("chromium"));
    browser.open(&url);
    let status = browser.wait_for(
        "!document.getElementById('federation').hidden && \
         document.getElementById('federation').dataset.state === 'absent' && \
         document.getElementById('federation-status').textContent",
        WAIT,
    );
    let status = status.as_str().unwrap();
    assert!(
        status.contains(&format!("{FEDERATION:?} does not exist"))
            && status.contains("trying again"),
        "{status}"
    );
    assert_eq!(
        browser.eval("document.getElementById('federation-name').textContent"),
        FEDERATION
    );
    browser.screenshot(&artefacts.join("6-federation-absent.png"));
    let still_running = monitor.0.as_mut().unwrap().try_wait().unwrap();
    assert!(
        still_running.is_none(),
        "the monitor exited: {still_running:?}"
    );

    // The federation comes: both members on the panel, the stepper's time rising.
    let (stepper, stepper_handle) = joined(&at, FEDERATION, "stepper");
    let (mut watcher, watcher_handle) = joined(&at, FEDERATION, "watcher");
    // A point only the watcher is in, never achieved: the panel says whom it waits for.
    let rti = watcher.joined().unwrap();
    rti.register_federation_synchronization_point("Checkpoint", b"", &[watcher_handle])
        .unwrap();
    // One vehicle of the watcher's: the panel counts the federation's objects per class.
    let vehicle = rti.object_class_handle("Vehicle").unwrap();
    let name = rti.attribute_handle(vehicle, "Name").unwrap();
    rti.publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    rti.register_object_instance(vehicle).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let members = [
        keep_stepping(stepper, stop.clone()),
        keep_evoking(watcher, stop.clone()),
    ];
    browser.wait_for(
        "document.getElementById('federation').dataset.state === 'watching' && \
         document.querySelectorAll('#federates tr[data-federate=\"stepper\"]').length === 1 && \
         document.querySelectorAll('#federates tr[data-federate=\"watcher\"]').length === 1",
        WAIT,
    );
    let first = row_of(&mut browser, "stepper");
    assert_eq!(first[0], stepper_handle);
    assert_eq!(first[1], "sim");
    assert_eq!(first[2], "yes / no");
    let watcher_row = row_of(&mut browser, "watcher");
    assert_eq!(
        watcher_row,
        serde_json::json!([watcher_handle, "sim", "no / no", 0])
    );
    let first_time = first[3].as_f64().unwrap_or(0.0);
    let later = browser.wait_for(
        &format!(
            "(() => {{ const r = document.querySelector('#federates tr[data-federate=\"stepper\"]'); \
             const t = r && Number(r.dataset.time); return t > {first_time} + 3 && t; }})()"
        ),
        WAIT,
    );
    eprintln!("the stepper's logical time on the panel: {first_time}, then {later}");
    let waits = format!("synchronization point “Checkpoint” waits for {watcher_handle}");
    let status = browser.wait_for(
        &format!(
            "(() => {{ const t = document.getElementById('federation-status').textContent; \
             return t.includes('{waits}') && t.includes('objects: Vehicle 1') && t; }})()"
        ),
        WAIT,
    );
    eprintln!("the panel's status line: {status}");
    // Only the two members: the monitor's own tool federate is left out.
    assert_eq!(
        browser.eval("document.querySelectorAll('#federates tbody tr').length"),
        2
    );
    // The chart: a line of the stepper's times against wall time, rising.
    let plotted = browser.wait_for(
        "(() => { const line = (monitor.federation.history || []).find((l) => l.name === 'stepper'); \
         return line && line.points.length >= 3 && \
         document.querySelectorAll('#federation-plot .plot polyline').length >= 1 && \
         line.points.map((p) => p[1]); })()",
        WAIT,
    );
    let times: Vec<f64> = (plotted.as_array().unwrap().iter())
        .map(|t| t.as_f64().unwrap())
        .collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]) && times.last() > times.first(),
        "{times:?}"
    );
    browser.screenshot(&artefacts.join("7-federation.png"));

    // SIGTERM: the monitor stops, and its tool federate resigned (two members are left).
    assert_eq!(
        members_listed(&at)[0]["federates"],
        3,
        "the two and the monitor's view"
    );
    terminate(&mut monitor);
    assert_eq!(
        members_listed(&at),
        serde_json::json!([
            {"name": FEDERATION, "time_implementation": "HLAinteger64Time", "federates": 2}
        ])
    );

    stop.store(true, Ordering::Relaxed);
    for member in members {
        member.join().unwrap().close();
    }
    drop(browser);
}
