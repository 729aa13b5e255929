//! The EC1 matrix across a site link (needs root, as every lab test): the raw-socket phase 0
//! crosses the link the way the Trellis run does, and the report draws the two side by
//! side from the folders. No timing bound from above: delay can only be added, so a loaded
//! machine makes the path slower, never faster than the link asks.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TRELLIS: &str = env!("CARGO_BIN_EXE_trellis");
/// Longest one small lab run may take on a loaded machine.
const RUN_LIMIT: Duration = Duration::from_secs(120);
/// The lab's one-way delay (labs/two-sites-20ms.toml).
const DELAY_MS: f64 = 20.0;
const CELL: &str = "--configs 1-1 --entities 2 --rates 20 --sizes 128 --seconds 1";

fn require_root() {
    assert!(
        trellis_lab::is_root(),
        "this test builds network namespaces and must run as root"
    );
}

fn lab_file() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../labs/two-sites-20ms.toml");
    path.to_str().unwrap().to_owned()
}

/// A folder removed when the test ends, passed or not.
struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `trellis lab two-sites-20ms --bench 'matrix BENCH --out OUT'`, waited for at most
/// RUN_LIMIT (killed and cleaned up past it); its stderr for messages.
fn lab_matrix(bench: &str, out: &Path) -> String {
    let mut child = Command::new(TRELLIS)
        .args(["lab", &lab_file(), "--bench"])
        .arg(format!("matrix {bench} {CELL} --out {}", out.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let deadline = Instant::now() + RUN_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            let _ = Command::new(TRELLIS).args(["lab", "--clean"]).output();
            panic!("trellis lab --bench 'matrix {bench}' ran past {RUN_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let log = log.join().unwrap();
    assert!(status.success(), "matrix {bench}: {status}\n{log}");
    log
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The one case of a folder, checked complete: every published update arrived once.
fn only_case(dir: &Path) -> serde_json::Value {
    let summary = json(&dir.join("summary.json"));
    let cases = summary["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 1, "{summary}");
    let case = cases[0].clone();
    assert!(case["published"].as_u64().unwrap() > 0, "{case}");
    assert_eq!(case["received"], case["published"], "{case}");
    assert_eq!(case["reliability"], 1.0, "{case}");
    case
}

#[test]
fn phase_0_crosses_the_site_link_and_the_report_sets_it_beside_trellis() {
    require_root();
    let dir = Dir(std::env::temp_dir().join(format!("trellis-lab-ec1-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    std::fs::create_dir_all(&dir.0).unwrap();
    let (tcp, udp, trellis) = (
        dir.0.join("phase0-tcp"),
        dir.0.join("phase0-udp"),
        dir.0.join("trellis"),
    );

    for (raw, out) in [("tcp", &tcp), ("udp", &udp)] {
        let log = lab_matrix(&format!("--raw {raw}"), out);
        assert!(log.contains("through the hairpin forwarder at"), "{log}");
        let case = only_case(out);
        // Sender → forwarder in east → receiver in west: the 20 ms link twice, at least.
        let latency_ms = case["mean_latency_us"].as_f64().unwrap() / 1e3;
        assert!(
            latency_ms >= 2.0 * DELAY_MS,
            "raw {raw}: {latency_ms} ms one way, less than the link's 2 × {DELAY_MS} ms: it did not cross"
        );
        let summary = json(&out.join("summary.json"));
        assert_eq!(summary["mode"], format!("raw-{raw}"), "{summary}");
        let lab = json(&out.join("lab.json"));
        assert!(lab["raw_via"].as_str().is_some(), "{lab}");
        // Every payload byte went into east (to the forwarder) and back into west.
        let payload = case["received"].as_u64().unwrap() * 128;
        for site in ["east", "west"] {
            let bytes = lab["site_link_bytes_in"][site].as_u64().unwrap();
            assert!(
                bytes >= payload,
                "{site}: {bytes} < {payload} payload bytes: {lab}"
            );
        }
    }
    lab_matrix("--deliveries reliable,best-effort", &trellis);
    let summary = json(&trellis.join("summary.json"));
    assert_eq!(summary["cases"].as_array().unwrap().len(), 2, "{summary}");

    let page = dir.0.join("report.html");
    let out = Command::new(TRELLIS)
        .arg("report")
        .args([&tcp, &udp, &trellis])
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let html = std::fs::read_to_string(&page).unwrap();
    let start = html
        .find("id=\"ec1-wan\"")
        .unwrap_or_else(|| panic!("no EC1 site-link section in the report"));
    let section = &html[start..];
    assert!(
        section.contains("Figures 2 and 3"),
        "the paper's figures are named"
    );
    assert!(
        section.contains("1 site link of 20 ms one way"),
        "the link is named"
    );
    // Both deliveries' cells, each with phase 0 beside it (no "–" where its figures go).
    for cell in ["1-1 2e 20Hz 128B rel", "1-1 2e 20Hz 128B BE"] {
        let row = section
            .split("<tr>")
            .find(|row| row.contains(cell))
            .unwrap_or_else(|| panic!("no row for {cell}"));
        assert!(
            !row.contains("<td>–</td>"),
            "{cell}: phase 0 missing: {row}"
        );
    }
}
