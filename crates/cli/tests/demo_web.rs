//! `trellis demo` shows itself: the page whose URL it prints has the vehicles moving on
//! the map (the plan view) beside the monitor of the demo's router and federates, in a real
//! headless Chromium, every request to the demo's own address. Vehicle labels never cover
//! one another and stay inside the map; time-stepped, the page shows each federate's
//! logical time and the federation's, advancing. Screenshots: `test-artefacts/demo/demo.png`
//! and `test-artefacts/demo/demo-time-stepped.png` in the target directory.

#[path = "monitor_browser/cdp.rs"]
mod cdp;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const PAGE_WAIT: Duration = Duration::from_secs(60);
/// Frames of the plan view whose label layout is checked.
const FRAMES_CHECKED: usize = 12;

/// The demo as a child process, stopped with SIGTERM when dropped.
struct Demo(Child);

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

/// `trellis demo` with four vehicles, its page on any free port, and `extra` arguments;
/// the demo and the URL it printed.
fn start_demo(extra: &[&str]) -> (Demo, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args([
            "demo",
            "--seconds",
            "120",
            "--vehicles",
            "4",
            "--web",
            "127.0.0.1:0",
        ])
        .args(extra)
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let demo = Demo(child);
    let mut lines = Vec::new();
    let mut stdout = stdout.lines();
    let url = loop {
        let line = stdout
            .next()
            .expect("the demo ended before printing its URL")
            .unwrap();
        lines.push(line.clone());
        if let Some(rest) = line.strip_prefix("watch it live: ") {
            break rest.split_whitespace().next().unwrap().to_owned();
        }
    };
    // Keep reading, so the demo never writes into a full pipe.
    std::thread::spawn(move || stdout.for_each(drop));
    assert!(url.starts_with("http://127.0.0.1:"), "{lines:?}");
    (demo, url)
}

fn browser(name: &str) -> cdp::Browser {
    let dir = std::env::temp_dir().join(format!("trellis-{name}-{}", std::process::id()));
    cdp::Browser::launch(&dir)
}

/// What is wrong with the vehicle labels as drawn: one leaving the map square (0..1000 on
/// both axes, where it would be cut off or cover the axis), or two covering each other.
const LABEL_TROUBLE: &str = "(() => {
  const map = document.getElementById('map');
  const m = map.getScreenCTM();
  const a = new DOMPoint(0, 0).matrixTransform(m), b = new DOMPoint(1000, 1000).matrixTransform(m);
  const labels = [...map.querySelectorAll('[data-label]')].map((t) => [t.dataset.label, t.getBoundingClientRect()]);
  const trouble = [];
  for (const [name, r] of labels) {
    if (r.left < a.x - 0.5 || r.top < a.y - 0.5 || r.right > b.x + 0.5 || r.bottom > b.y + 0.5) trouble.push(`${name} leaves the map`);
  }
  for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
    const [n, r] = labels[i], [o, s] = labels[j];
    const w = Math.min(r.right, s.right) - Math.max(r.left, s.left);
    const h = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
    if (w > 0.5 && h > 0.5) trouble.push(`${n} covers ${o}`);
  }
  return labels.length === 0 ? ['no labels'] : trouble;
})()";

/// Over successive frames of the plan view, no label leaves the map or covers another.
fn labels_stay_apart_and_inside(browser: &mut cdp::Browser) {
    for _ in 0..FRAMES_CHECKED {
        let frame = browser.eval("window.planView.frames");
        browser.wait_for(&format!("window.planView.frames > {frame}"), PAGE_WAIT);
        let trouble = browser.eval(LABEL_TROUBLE);
        assert_eq!(trouble, serde_json::json!([]), "vehicle labels");
    }
}

/// What covers what in the monitor beside the plan view: a link's labels over another's,
/// or over a node's circle, name or figures.
const MONITOR_LABEL_TROUBLE: &str = "(() => {
  const doc = document.getElementById('monitor').contentDocument;
  const links = [...doc.querySelectorAll('#links [data-link]')].map((g) => [`${g.dataset.a}–${g.dataset.b}`, [...g.querySelectorAll('text')].map((t) => t.getBoundingClientRect()).filter((r) => r.width > 0)]);
  const nodes = [...doc.querySelectorAll('#nodes [data-node]')].map((g) => [g.dataset.node, [...g.querySelectorAll('.ring, .name, .figures')].map((t) => t.getBoundingClientRect()).filter((r) => r.width > 0)]);
  const meet = (r, s) => Math.min(r.right, s.right) - Math.max(r.left, s.left) > 0.5 && Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top) > 0.5;
  const any = (p, q) => p.some((r) => q.some((s) => meet(r, s)));
  const trouble = [];
  links.forEach(([name, boxes], i) => {
    links.slice(i + 1).forEach(([other, others]) => { if (any(boxes, others)) trouble.push(`${name} covers ${other}`); });
    nodes.forEach(([node, parts]) => { if (any(boxes, parts)) trouble.push(`${name} covers ${node}`); });
  });
  return links.length === 0 ? ['no links'] : trouble;
})()";

fn nothing_requested_beyond(browser: &cdp::Browser, url: &str) {
    let outside: Vec<&String> = browser
        .requested
        .iter()
        .filter(|u| !u.starts_with(url))
        .collect();
    assert!(outside.is_empty(), "requests beyond the demo: {outside:?}");
}

#[test]
fn the_demo_page_shows_the_vehicles_moving_beside_the_monitor() {
    let (demo, url) = start_demo(&[]);
    let mut browser = browser("demo-web");
    browser.open(&url);
    // Four vehicles on the map, moving.
    browser.wait_for(
        "Object.keys(window.planView.vehicles).length === 4",
        PAGE_WAIT,
    );
    let first = browser
        .eval("document.querySelector('[data-vehicle=\"Aircraft-0\"]').getAttribute('transform')");
    browser.wait_for(
        &format!("document.querySelector('[data-vehicle=\"Aircraft-0\"]').getAttribute('transform') !== {first}"),
        PAGE_WAIT,
    );
    labels_stay_apart_and_inside(&mut browser);
    // Not time-stepped: the page says so where the clocks would be.
    let clock = browser.eval("document.getElementById('clock').textContent");
    assert!(
        clock.as_str().unwrap().starts_with("Not time-stepped"),
        "{clock}"
    );
    // The monitor beside it: the demo's router and its five federates, live.
    let monitor = "document.getElementById('monitor').contentDocument";
    let nodes = browser.wait_for(
        &format!(
            "(() => {{ const nodes = [...{monitor}.querySelectorAll('#nodes [data-node]')]; \
             return nodes.length === 6 && nodes.every(n => n.dataset.status === 'live') && nodes.map(n => n.dataset.node).sort(); }})()"
        ),
        PAGE_WAIT,
    );
    assert_eq!(
        nodes,
        serde_json::json!([
            "air-sim",
            "creator",
            "demo-router",
            "ground-sim",
            "sw-watcher",
            "viewer"
        ])
    );
    // Traffic on the viewer's link, as the router counts it.
    browser.wait_for(
        &format!(
            "Number({monitor}.querySelector('#links [data-a=\"viewer\"]').dataset.rateBToA) > 0"
        ),
        PAGE_WAIT,
    );
    // Every link's rates are shown by now; none covers another label or a node.
    let trouble = browser.eval(MONITOR_LABEL_TROUBLE);
    assert_eq!(trouble, serde_json::json!([]), "monitor labels");
    browser.screenshot(&cdp::artefacts("demo").join("demo.png"));
    nothing_requested_beyond(&browser, &url);
    drop(browser);
    drop(demo);
}

#[test]
fn the_time_stepped_demo_page_shows_logical_time_advancing() {
    let (demo, url) = start_demo(&["--time-stepped"]);
    let mut browser = browser("demo-stepped");
    browser.open(&url);
    let federation = "Number(document.getElementById('federation-time').dataset.time)";
    let first = browser.wait_for(&format!("{federation} > 0 && {federation}"), PAGE_WAIT);
    browser.wait_for(&format!("{federation} > {first}"), PAGE_WAIT);
    // Every time-managed federate's own clock, none behind the federation's time.
    let clocks = browser.eval(&format!(
        "[...document.querySelectorAll('.federate-time')].map((c) => [c.dataset.federate, Number(c.dataset.time) >= {federation}])"
    ));
    assert_eq!(
        clocks,
        serde_json::json!([["viewer", true], ["ground-sim", true], ["air-sim", true]])
    );
    let text = browser.eval("document.getElementById('federation-time').textContent");
    assert!(
        text.as_str().unwrap().starts_with("Federation time "),
        "{text}"
    );
    browser.wait_for(
        "Object.keys(window.planView.vehicles).length === 4",
        PAGE_WAIT,
    );
    labels_stay_apart_and_inside(&mut browser);
    browser.screenshot(&cdp::artefacts("demo").join("demo-time-stepped.png"));
    nothing_requested_beyond(&browser, &url);
    drop(browser);
    drop(demo);
}
