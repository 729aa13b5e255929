//! `trellis demo` shows itself: the page whose URL it prints has the vehicles moving on
//! the map (the plan view) beside the monitor of the demo's router and federates, in a real
//! headless Chromium, every request to the demo's own address. Screenshot:
//! `test-artefacts/demo/demo.png` in the target directory.

#[path = "monitor_browser/cdp.rs"]
mod cdp;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const PAGE_WAIT: Duration = Duration::from_secs(60);

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

#[test]
fn the_demo_page_shows_the_vehicles_moving_beside_the_monitor() {
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
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let demo = Demo(child);
    let (lines, url) = {
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
        (lines, url)
    };
    assert!(url.starts_with("http://127.0.0.1:"), "{lines:?}");

    let dir = std::env::temp_dir().join(format!("trellis-demo-web-{}", std::process::id()));
    let mut browser = cdp::Browser::launch(&dir);
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
    browser.screenshot(&cdp::artefacts("demo").join("demo.png"));
    let outside: Vec<&String> = browser
        .requested
        .iter()
        .filter(|u| !u.starts_with(&url))
        .collect();
    assert!(outside.is_empty(), "requests beyond the demo: {outside:?}");
    drop(browser);
    drop(demo);
}
