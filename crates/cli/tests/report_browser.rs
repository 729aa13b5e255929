//! `trellis report` in a real headless Chromium, on the report tests' results folders (a
//! tree and a mesh ping-pong run of six pairs each, a raw-socket baseline, a 1 → N
//! throughput sweep): the ping-pong means are plain means of all six pairs, named so; no
//! "1 pairs"; the throughput section has its all-subscribers line. Screenshots:
//! `test-artefacts/report/pingpong.png` and `test-artefacts/report/throughput.png` in the
//! target directory.

#[path = "monitor_browser/cdp.rs"]
mod cdp;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const PAGE_WAIT: Duration = Duration::from_secs(60);
const RUNS: [&str; 4] = [
    "tree-pingpong",
    "mesh-pingpong",
    "raw-tcp-pingpong",
    "throughput-sweep",
];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tools/tests/data/results")
        .join(name)
}

/// Scroll the section `id` to the top and screenshot the window to `name`.
fn shoot_section(browser: &mut cdp::Browser, id: &str, name: &str) {
    browser.eval(&format!(
        "document.getElementById('{id}').scrollIntoView(); true"
    ));
    browser.wait_for(
        &format!("Math.abs(document.getElementById('{id}').getBoundingClientRect().top) < 2"),
        PAGE_WAIT,
    );
    browser.screenshot(&cdp::artefacts("report").join(name));
}

#[test]
fn the_report_states_its_means_honestly_in_a_browser() {
    let dir = std::env::temp_dir().join(format!("trellis-report-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("report.html");
    let status = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .arg("report")
        .args(RUNS.map(fixture))
        .arg("-o")
        .arg(&page)
        .status()
        .unwrap();
    assert!(status.success(), "trellis report: {status}");

    let mut browser = cdp::Browser::launch(&dir.join("profile"));
    browser.open(&format!("file://{}", page.display()));
    let text = browser.eval("document.body.innerText");
    let text = text.as_str().unwrap();
    assert!(
        text.contains("mean of all 6 pairs"),
        "the mean names its pairs"
    );
    assert!(
        !text.contains("two largest discarded"),
        "six pairs discard nothing"
    );
    assert!(!text.contains(" 1 pairs"), "a plural for one");
    assert!(text.contains("at least 10 pairs"), "the rule is stated");
    let delivered = browser.eval(
        "[...document.querySelectorAll('#throughput svg')].some((s) => s.textContent.includes('all subscribers'))",
    );
    assert_eq!(
        delivered,
        serde_json::json!(true),
        "the all-subscribers chart"
    );
    shoot_section(&mut browser, "pingpong-latency", "pingpong.png");
    shoot_section(&mut browser, "throughput", "throughput.png");
    drop(browser);
    let _ = std::fs::remove_dir_all(&dir);
}
