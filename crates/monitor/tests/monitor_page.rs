//! The monitor against fake processes serving `/metrics`: the page's topology, rates that
//! follow the counters, a silent process marked stale with what it cuts off, and 300
//! processes scraped every second without the frames falling behind.

mod monitor_support;

use monitor_support::{get, Events, FakeProcess, FakeProcesses, Rows};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use trellis_core::topology::Topology;
use trellis_monitor::monitor::{self, MonitorSetup};

/// Node row columns (crates/monitor/src/monitor/board.rs).
const STATUS: usize = 1;
const CPU_USER: usize = 2;
const RATE_IN: usize = 5;
const CUT_FEDERATES: usize = 8;
const LIVE: f64 = 1.0;
const STALE: f64 = 2.0;
/// Link row column: messages per second from the dialing end to the other.
const A_TO_B: usize = 1;

/// A `[[router]]` entry with a listen address nobody dials and the fake's metrics address.
fn router(name: &str, parent: Option<&str>, port: u16, metrics: SocketAddr) -> String {
    let parent = parent.map_or(String::new(), |p| format!("parent = \"{p}\"\n"));
    format!("[[router]]\nname = \"{name}\"\nlisten = [\"tcp://127.0.0.1:{port}\"]\n{parent}metrics = \"{metrics}\"\n\n")
}

fn start(text: &str) -> (monitor::Running, MonitorSetup) {
    let topology = Topology::from_toml(text).unwrap();
    let setup = MonitorSetup::from_topology(&topology, "test.toml");
    let running = monitor::start(
        MonitorSetup::from_topology(&topology, "test.toml"),
        "127.0.0.1:0".parse().unwrap(),
    )
    .unwrap();
    (running, setup)
}

#[test]
fn the_page_follows_the_figures_and_marks_a_silent_router_stale_with_its_cut_off() {
    let fakes = FakeProcesses::start(vec![
        FakeProcess::new("root", &["a", "b"]),
        FakeProcess::new("a", &["root", "fa-1", "fa-2"]),
        FakeProcess::new("b", &["root", "fb-1"]),
    ]);
    let mut text = router("root", None, 1001, fakes.addresses[0]);
    text += &router("a", Some("root"), 1002, fakes.addresses[1]);
    text += &router("b", Some("root"), 1003, fakes.addresses[2]);
    text += "[[federate]]\nname = \"fa\"\ncount = 2\nparent = \"a\"\n\n";
    text += "[[federate]]\nname = \"fb\"\ncount = 1\nparent = \"b\"\n";
    let (running, setup) = start(&text);
    let graph: serde_json::Value =
        serde_json::from_str(&get(running.address(), "/graph.json")).unwrap();
    assert_eq!(graph["nodes"].as_array().unwrap().len(), 6);
    assert_eq!(graph["links"].as_array().unwrap().len(), 5);
    let page = get(running.address(), "/");
    assert!(page.contains("monitor.js") && !page.contains("http://") && !page.contains("https://"));

    let node = |name: &str| setup.graph.node_index(name).unwrap();
    let a_to_root = setup.graph.link_between(node("a"), node("root")).unwrap();
    assert_eq!(
        setup.graph.links[a_to_root].a,
        node("a"),
        "a child dials its parent"
    );
    let mut events = Events::open(running.address());
    let mut rows = Rows::default();
    events.until(
        Duration::from_secs(20),
        "every node live",
        |rows| (0..6).all(|n| rows.node(n, STATUS) == Some(LIVE)),
        &mut rows,
    );
    // CPU shows once two scrapes are in: 0.25 CPU s per scrape on 2 cores.
    events.until(
        Duration::from_secs(20),
        "a CPU share",
        |rows| rows.node(node("a"), CPU_USER).is_some_and(|c| c > 0.0),
        &mut rows,
    );
    assert_eq!(rows.link(a_to_root, A_TO_B), Some(0.0), "no traffic yet");

    fakes.set(1, |a| a.rate = 100);
    events.until(
        Duration::from_secs(20),
        "a's rate toward root",
        |rows| rows.link(a_to_root, A_TO_B).is_some_and(|r| r > 50.0),
        &mut rows,
    );
    // fa-1 has no figures of its own: what a sends it is what it receives.
    assert!(rows.node(node("fa-1"), RATE_IN).is_some_and(|r| r > 50.0));

    fakes.set(1, |a| a.silent = true);
    let silenced = Instant::now();
    events.until(
        Duration::from_secs(20),
        "a stale",
        |rows| rows.node(node("a"), STATUS) == Some(STALE),
        &mut rows,
    );
    let took = silenced.elapsed();
    eprintln!("silent to stale: {took:?}");
    assert!(
        took >= Duration::from_secs(2),
        "stale only after 3 s without a report: {took:?}"
    );
    assert_eq!(rows.node(node("a"), CUT_FEDERATES), Some(2.0));
    assert_eq!(rows.node(node("root"), STATUS), Some(LIVE));
    // The link's figures now come from root's end alone.
    events.until(
        Duration::from_secs(20),
        "the federates behind a stale",
        |rows| {
            rows.node(node("fa-1"), STATUS) == Some(STALE)
                && rows.node(node("fa-2"), STATUS) == Some(STALE)
        },
        &mut rows,
    );
    assert_eq!(rows.node(node("fb-1"), STATUS), Some(LIVE));

    let history: Vec<serde_json::Value> = serde_json::from_str(&get(
        running.address(),
        &format!("/history/{}", node("root")),
    ))
    .unwrap();
    assert!(history.len() >= 3, "{history:?}");
    assert!(history.iter().all(|s| s["t"].as_u64().is_some()));
}

#[test]
fn three_hundred_processes_are_scraped_every_second_and_the_frames_keep_up() {
    const ROUTERS: usize = 300;
    let names: Vec<String> = (1..ROUTERS).map(|i| format!("r{i}")).collect();
    let mut fakes = vec![FakeProcess::new(
        "root",
        &names.iter().map(String::as_str).collect::<Vec<_>>(),
    )];
    fakes.extend(names.iter().map(|n| FakeProcess::new(n, &["root"])));
    for fake in &mut fakes {
        fake.rate = 7;
    }
    let fakes = FakeProcesses::start(fakes);
    let mut text = router("root", None, 1000, fakes.addresses[0]);
    for (i, name) in names.iter().enumerate() {
        text += &router(name, Some("root"), 1001 + i as u16, fakes.addresses[i + 1]);
    }
    let (running, _setup) = start(&text);
    let mut events = Events::open(running.address());
    let mut rows = Rows::default();
    let started = Instant::now();
    events.until(
        Duration::from_secs(60),
        "all 300 live",
        |rows| (0..ROUTERS).all(|n| rows.node(n, STATUS) == Some(LIVE)),
        &mut rows,
    );
    eprintln!("300 processes live after {:?}", started.elapsed());
    // Five seconds of frames: none of the 300 goes stale, and every frame arrives within a
    // second of being composed.
    let (bytes, frames) = (events.bytes, events.frames);
    let window = Instant::now();
    let mut worst_lag = 0u64;
    let mut biggest = 0usize;
    while window.elapsed() < Duration::from_secs(5) {
        let before = events.bytes;
        let frame = events.next();
        biggest = biggest.max(events.bytes - before);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        worst_lag = worst_lag.max(now.saturating_sub(frame["t"].as_u64().unwrap()));
        rows.apply(&frame);
        let stale: Vec<usize> = (0..ROUTERS)
            .filter(|&n| rows.node(n, STATUS) != Some(LIVE))
            .collect();
        assert!(stale.is_empty(), "nodes fell behind: {stale:?}");
    }
    let seconds = window.elapsed().as_secs_f64();
    eprintln!(
        "300 processes: {:.0} frames/s, {:.0} bytes/s to a page, biggest frame {biggest} bytes, worst lag {worst_lag} ms",
        (events.frames - frames) as f64 / seconds,
        (events.bytes - bytes) as f64 / seconds
    );
    assert!(worst_lag < 1000, "frames {worst_lag} ms late");
}

/// An operator's open page must not keep a stopped monitor alive (`trellis monitor` on
/// Ctrl-C): its event stream never ends by itself.
#[test]
fn a_stopped_monitor_closes_the_pages_still_open() {
    let fake = FakeProcesses::start(vec![FakeProcess::new("solo", &[])]);
    let text = router("solo", None, 1001, fake.addresses[0]);
    let (running, _) = start(&text);
    let mut page = Events::open(running.address());
    page.next();
    let (stopped, done) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(running);
        let _ = stopped.send(());
    });
    assert!(
        done.recv_timeout(Duration::from_secs(20)).is_ok(),
        "the monitor did not stop while a page was open"
    );
}
