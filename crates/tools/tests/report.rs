//! `trellis_tools::report` on the fixture results folders in `tests/data/results/`.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use trellis_tools::report;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/results")
        .join(name)
}

const VALID: [&str; 9] = [
    "tree-pingpong",
    "mesh-pingpong",
    "raw-tcp-pingpong",
    "oneway",
    "matrix",
    "throughput-sweep",
    "symmetric",
    "latency",
    "testfed",
];

fn all_valid() -> Vec<PathBuf> {
    VALID.iter().map(|name| fixture(name)).collect()
}

fn render(names: &[&str]) -> String {
    let dirs: Vec<PathBuf> = names.iter().map(|name| fixture(name)).collect();
    report::render(&dirs).unwrap_or_else(|e| panic!("{e}"))
}

/// The rows (cells as text) of the table whose caption starts with `caption`.
fn table(html: &str, caption: &str) -> Vec<Vec<String>> {
    let start = html
        .find(&format!("<caption>{caption}"))
        .unwrap_or_else(|| panic!("no table captioned {caption:?}"));
    let body = &html[start..];
    let body = &body[body.find("<tbody>").unwrap()..body.find("</tbody>").unwrap()];
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| {
                    let text = &cell[cell.find('>').unwrap() + 1..];
                    text[..text.find("</td>").unwrap()].to_owned()
                })
                .collect()
        })
        .collect()
}

/// A directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let path =
            std::env::temp_dir().join(format!("trellis-report-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    /// A results folder `name` holding these two files.
    fn results(&self, name: &str, meta: &str, summary: &str) -> PathBuf {
        let dir = self.0.join(name);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("meta.json"), meta).unwrap();
        fs::write(dir.join("summary.json"), summary).unwrap();
        dir
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[test]
fn report_shows_every_section_with_data_and_its_numbers() {
    let html = report::render(&all_valid()).unwrap();
    for id in [
        "runs",
        "pingpong-latency",
        "tree-mesh-ratio",
        "pair-distributions",
        "matrix-throughput",
        "matrix-reliability",
        "matrix-latency",
        "oneway",
        "throughput",
        "symmetric",
        "latency",
        "testfed",
    ] {
        assert!(html.contains(&format!("<section id=\"{id}\">")), "{id}");
        assert!(
            html.contains(&format!("<a href=\"#{id}\">")),
            "{id} in the contents"
        );
    }
    assert!(html.contains("monotonic clock (Rust std::time::Instant)"));
    assert!(html.contains("tree (tree.toml): a tree; routers 7"));
    assert!(html.contains("mesh (mesh.toml): a mesh; routers 4"));
    assert!(html.contains("paths by link count: 2 links: 4, 4 links: 8, 6 links: 16"));
    assert!(html.contains("2026-09-21 14:13:20 UTC to 2026-09-21 14:15:00 UTC (100 s)"));

    // Round trips by size and hop count, for the tree run. Six pairs are too few for the
    // outlier rule: the means are plain means of every pair mean (the baseline's too).
    let tree = table(&html, "tree-pingpong: round-trip time");
    assert_eq!(tree[0], ["64", "508.3", "304.1", "210", "390", "925", "48"]);
    assert_eq!(tree.len(), 3);
    // Matrix: theoretical = entities × rate × payload; reliability; jitter.
    let throughput = table(&html, "Throughput (Mbps) against theoretical");
    assert_eq!(
        throughput[0],
        ["1-N 10e 20Hz 128B BE", "0.2048", "0.1987", "97.02"]
    );
    assert_eq!(
        throughput[3],
        ["1-N 10e 20Hz 9000B rel", "14.4", "12.96", "90"]
    );
    let reliability = table(&html, "Reliability per case");
    assert_eq!(reliability[0][1], "0.97");
    let timing = table(&html, "One-way latency and jitter");
    assert_eq!(timing[2], ["1-N 10e 20Hz 9000B BE", "240", "31.5"]);
    // One-way: MISSING records, and a case where nothing arrived.
    let oneway = table(&html, "One-way cases");
    assert_eq!(
        oneway[1],
        [
            "17 B @ 500 Hz reliable",
            "5000",
            "4997",
            "3",
            "31",
            "52.5",
            "410",
            "oneway-17B-500Hz.dat"
        ]
    );
    assert_eq!(oneway[3][3..7], ["5000", "–", "–", "–"]);
    // Sweeps.
    let sweep = table(&html, "1 → N throughput per case");
    assert_eq!(
        sweep[0][..8],
        [
            "throughput-sweep",
            "64",
            "1",
            "100000",
            "100000",
            "0",
            "183636",
            "181818"
        ]
    );
    let symmetric = table(&html, "N ↔ N symmetric throughput");
    assert_eq!(symmetric[1][6], "16000");
    let latency = table(&html, "Multi-receiver latency");
    assert_eq!(latency[1][5], "52");
    let testfed = table(&html, "Testfed federates");
    assert_eq!(testfed[1][9], "482");
}

#[test]
fn report_ratio_is_tree_time_over_mesh_time_at_common_sizes() {
    let html = render(&["tree-pingpong", "mesh-pingpong"]);
    let rows = table(&html, "Tree / mesh time ratio");
    // Sizes both runs measured (the mesh's 65536 B is not in the tree run).
    let sizes: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(sizes, ["64", "1024", "8192"]);
    // size, tree mean, mesh mean, ratio, then per hop count of the tree (2, 4, 6 links).
    // Six pairs a run: plain means of all pair means.
    assert_eq!(rows[0][..4], ["64", "508.3", "203.3", "2.5"]);
    assert_eq!(rows[1][..4], ["1024", "616.7", "336.7", "1.832"]);
    assert_eq!(rows[2][..4], ["8192", "1117", "1017", "1.098"]);
    // 2 links: tree (200 + 220) / 2 over the same pairs in the mesh, (140 + 140) / 2.
    assert_eq!(rows[0][4], "1.5");
    assert_eq!(rows[0][6], "2.984");
    assert_eq!(rows[1][4], "1.292");
    assert_eq!(rows[2][6], "1.24");
    assert!(html.contains("tree time / mesh time"));
}

#[test]
fn report_has_no_ratio_without_both_a_tree_and_a_mesh() {
    let html = render(&["tree-pingpong", "raw-tcp-pingpong"]);
    assert!(!html.contains("id=\"tree-mesh-ratio\""));
    assert!(html.contains("id=\"pingpong-latency\""));
    let html = render(&["matrix"]);
    assert!(!html.contains("pingpong"));
    assert!(!html.contains("id=\"oneway\""));
}

#[test]
fn report_lists_pair_means_discarding_none_of_six() {
    // Six pairs are below the outlier rule's ten: nothing marked, nothing left out (the
    // marks of a larger run: a_run_of_twelve_pairs_discards_its_two_largest_as_outliers).
    let html = render(&["tree-pingpong"]);
    let rows = table(&html, "tree-pingpong: mean round-trip time of each pair");
    assert_eq!(rows[0][..3], ["fed-1 → fed-2", "2", "200"]);
    assert_eq!(rows[4][2], "900");
    assert_eq!(rows[5][2], "950");
    assert_eq!(rows[6][..3], ["mean of all 6 pairs", "", "508.3"]);
    assert_eq!(rows[8][2], "none");
    assert!(html.contains("Cumulative distribution of pair means: tree-pingpong"));
    assert!(!html.contains("discarded (two largest)"));
}

#[test]
fn report_draws_raw_baselines_beside_the_trellis_runs() {
    let html = render(&["tree-pingpong", "raw-tcp-pingpong"]);
    let name = "raw-tcp-pingpong (baseline, raw-tcp)";
    assert!(html.contains(name));
    // The tree run's chart and table carry the baseline's mean, dashed.
    let tree = table(&html, "tree-pingpong: round-trip time");
    // The baseline's plain mean of its six pair means: (38 + 39 + 40 + 41 + 60 + 70) / 6.
    assert_eq!(tree[0].last().unwrap(), "48");
    assert!(html.contains("stroke-dasharray=\"7 4\""));
    // Only the Trellis run's header lists the Trellis settings a baseline never used.
    let header = |run: &str| {
        let start = html.find(&format!("<h3>{run}")).unwrap();
        let rest = &html[start..];
        rest[..rest.find("</div>").unwrap()].to_owned()
    };
    assert!(header("tree-pingpong").contains("<th>API</th>"));
    let raw = header(name);
    for setting in ["<th>API</th>", "<th>Transport</th>", "<th>Bundling</th>"] {
        assert!(
            !raw.contains(setting),
            "the baseline's header shows {setting}"
        );
    }
    assert!(raw.contains("<th>Mode</th>"));
}

#[test]
fn report_fetches_nothing() {
    let mut dirs = all_valid();
    dirs.push(fixture("hostile"));
    let html = report::render(&dirs).unwrap();
    let lower = html.to_lowercase();
    for banned in [
        "http://", "https://", "<script", "<link", "<img", "<iframe", "url(", "@import",
    ] {
        assert!(!lower.contains(banned), "the page contains {banned:?}");
    }
    assert_eq!(lower.matches("<style").count(), 1);
    assert!(html.contains("<svg class=\"plot\""));
    assert!(html.contains("default-src 'none'"));
}

#[test]
fn report_escapes_hostile_strings() {
    let html = render(&["hostile"]);
    for expected in [
        "trellis bench testfed --name &quot;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot; \
         &amp;&amp; rm -rf / # &amp;amp;",
        "&lt;img src=x onerror=alert(3)&gt; (&lt;/svg&gt;&lt;script&gt;alert(2)&lt;/script&gt;.toml)",
        "0.1.0&quot; onload=&quot;alert(4)",
        "Xeon &amp; &#39;friends&#39;",
        "&lt;iframe src=//evil.example&gt;",
        "&lt;style&gt;body{display:none}&lt;/style&gt;",
        "&lt;script&gt;alert(5)&lt;/script&gt;",
        "INTERRUPTED",
    ] {
        assert!(html.contains(expected), "missing {expected:?}");
    }
    for raw in [
        "<script",
        "<img",
        "<iframe",
        "<b>",
        "<style>body",
        "onload=\"alert",
    ] {
        assert!(!html.contains(raw), "unescaped {raw:?}");
    }
}

#[test]
fn report_on_a_malformed_folder_names_its_file() {
    let err = report::render(&[fixture("matrix"), fixture("malformed-summary")]).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("malformed-summary/summary.json"),
        "{message}"
    );
    assert!(message.contains("malformed"), "{message}");
    assert!(err.is_input_error());

    let message = report::render(&[fixture("missing-meta")])
        .unwrap_err()
        .to_string();
    assert!(message.contains("missing-meta/meta.json"), "{message}");

    let message = report::render(&[fixture("no-such-folder")])
        .unwrap_err()
        .to_string();
    assert!(message.contains("no-such-folder"), "{message}");

    assert!(report::render(&[]).is_err());

    let tmp = TempDir::new("invalid");
    let meta = r#"{"benchmark": "pingpong"}"#;
    let dir = tmp.results(
        "short",
        meta,
        r#"{"pairs": [{"master": "a", "slave": "b", "links": 2}],
            "sizes": [{"size": 64, "pair_means_us": [1.0, 2.0]}]}"#,
    );
    let message = report::render(&[dir]).unwrap_err().to_string();
    assert!(message.contains("short/summary.json"), "{message}");
    assert!(message.contains("2 pair means for 1 pairs"), "{message}");

    let dir = tmp.results("unknown", r#"{"benchmark": "teleport"}"#, "{}");
    let message = report::render(&[dir]).unwrap_err().to_string();
    assert!(message.contains("unknown/meta.json"), "{message}");
}

#[test]
fn report_leaves_out_degenerate_numbers() {
    let tmp = TempDir::new("degenerate");
    let pingpong = tmp.results(
        "odd-pingpong",
        r#"{"benchmark": "pingpong", "topology": {"name": "tree", "summary": null}}"#,
        r#"{"pairs": [{"master": "a", "slave": "b", "links": 2},
                      {"master": "c", "slave": "d", "links": 4}],
            "sizes": [{"size": 0, "mean_us": null, "std_us": null, "pair_means_us": [null, -3.0]},
                      {"size": 64, "mean_us": 0.0, "pair_means_us": [5.0, 0.0],
                       "discarded_us": [null]}],
            "rtt_p50_us": null}"#,
    );
    let mesh = tmp.results(
        "odd-mesh",
        r#"{"benchmark": "pingpong", "topology": {"file": "mesh.toml"}}"#,
        r#"{"pairs": [], "sizes": [{"size": 64, "mean_us": 0.0, "pair_means_us": []}]}"#,
    );
    let empty = tmp.results(
        "empty-matrix",
        r#"{"benchmark": "matrix"}"#,
        r#"{"cases": []}"#,
    );
    let oneway = tmp.results(
        "silent-oneway",
        r#"{"benchmark": "oneway"}"#,
        r#"{"cases": [{"size": 17, "rate_hz": 5, "min_us": null, "max_us": null, "mean_us": null}]}"#,
    );
    let html = report::render(&[pingpong, mesh, empty, oneway]).unwrap();
    assert!(html.contains("not shown"));
    assert!(html.contains("no plottable data"));
    assert!(html.contains("unknown: meta.json does not say whether it finished"));
    assert!(!html.contains("NaN") && !html.contains("inf<"));
    // The means come from the pair means (5 and 0 for the tree; the mesh has none), not
    // from the files' mean_us; a missing mean is no ratio: the row stays, the value a dash.
    let rows = table(&html, "Tree / mesh time ratio");
    assert_eq!(rows[0][..4], ["64", "2.5", "–", "–"]);
}

/// Runs `command`, killing it after `limit`; returns (stdout, stderr, finished in time).
fn run_with_limit(command: &mut Command, limit: Duration) -> (String, String, bool) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start chromium");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + limit;
    let mut finished = false;
    while Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            finished = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    if !finished {
        let _ = child.kill();
    }
    // Reaped by try_wait already when it finished; waiting again returns its status.
    let _ = child.wait();
    (out.join().unwrap(), err.join().unwrap(), finished)
}

#[test]
fn report_renders_in_a_headless_browser() {
    let chromium = Path::new("/usr/bin/chromium");
    assert!(
        chromium.exists(),
        "/usr/bin/chromium is missing: this test opens the report in a real headless browser. \
         CI installs it with `apt-get install -y chromium`; run that here too."
    );
    let tmp = TempDir::new("chromium");
    let page = tmp.0.join("report.html");
    report::write(&all_valid(), &page).unwrap();
    let html = fs::read_to_string(&page).unwrap();
    let (dom, stderr, finished) = run_with_limit(
        Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ])
            .arg(format!(
                "--user-data-dir={}",
                tmp.0.join("profile").display()
            ))
            .arg("--dump-dom")
            .arg(format!("file://{}", page.display()))
            .env("HOME", &tmp.0),
        Duration::from_secs(120),
    );
    assert!(
        finished,
        "chromium did not finish in 2 minutes; stderr:\n{stderr}"
    );
    let charts = html.matches("<svg class=\"plot\"").count();
    assert!(charts >= 15, "{charts} charts");
    assert_eq!(
        dom.matches("<svg class=\"plot\"").count(),
        charts,
        "the browser's DOM lost charts; stderr:\n{stderr}"
    );
    for element in ["<polyline", "<circle", "<rect", "<path"] {
        assert!(dom.contains(element), "no {element} in the DOM");
    }
    assert!(dom.contains("Tree / mesh time ratio against message size"));
    assert!(dom.contains("<table>"));
}

#[test]
fn a_run_with_a_fault_shows_it_beside_its_status_and_keeps_its_figures() {
    let html = render(&["faulted-throughput"]);
    assert!(
        html.contains("INCOMPLETE: receiver-2: resign failed: &lt;link lost&gt;"),
        "the fault, escaped, beside the status"
    );
    // Its measurements are reported as those of the same run without the fault.
    let clean = render(&["throughput-sweep"]).replace("throughput-sweep", "faulted-throughput");
    let figures = |html: &str| html[html.find("</div></div>").unwrap()..].to_owned();
    assert!(figures(&html).contains("<caption>"));
    assert_eq!(figures(&html), figures(&clean));
    // A folder written before the field existed still reads as complete.
    assert!(clean.contains(">complete<"));
}

/// A tree ping-pong run `name` at 64 B: pair i has `means[i]` and crosses `links[i]` links.
fn pingpong_run(tmp: &TempDir, name: &str, means: &[f64], links: &[usize]) -> PathBuf {
    let pairs: Vec<serde_json::Value> = links
        .iter()
        .enumerate()
        .map(|(i, l)| serde_json::json!({"master": format!("m{i}"), "slave": format!("s{i}"), "links": l}))
        .collect();
    // The benchmark's own mean (rtiperf's, two largest always dropped) is deliberately
    // wrong here: the report must take its mean from the pair means.
    let summary = serde_json::json!({
        "pairs": pairs,
        "sizes": [{"size": 64, "mean_us": 1.0, "std_us": 0.0, "pair_means_us": means,
                   "discarded_us": []}],
    });
    tmp.results(
        name,
        r#"{"benchmark": "pingpong", "topology": {"name": "tree"}}"#,
        &summary.to_string(),
    )
}

#[test]
fn a_run_of_four_pairs_keeps_its_farthest_pairs_in_the_mean() {
    let tmp = TempDir::new("four-pairs");
    let run = pingpong_run(&tmp, "four", &[100.0, 110.0, 900.0, 1000.0], &[1, 2, 3, 3]);
    let html = report::render(&[run]).unwrap();
    let rows = table(&html, "four: round-trip time");
    // (100 + 110 + 900 + 1000) / 4; per hop count 100, 110 and 950.
    assert_eq!(rows[0][..6], ["64", "527.5", "424", "100", "110", "950"]);
    assert!(
        html.contains("<th>mean of all 4 pairs</th>"),
        "the mean says how"
    );
    assert!(html.contains("at least 10 pairs are the two largest"));
    assert!(html.contains("1 link (1 pair)") && html.contains("3 links (2 pairs)"));
    assert!(!html.contains("1 pairs") && !html.contains("folder(s)"));
    assert!(!html.contains("(discarded)"));
    let every = table(&html, "four: mean round-trip time of each pair");
    assert_eq!(every[4][..3], ["mean of all 4 pairs", "", "527.5"]);
    assert_eq!(every[6][2], "none");
}

#[test]
fn a_run_of_twelve_pairs_discards_its_two_largest_as_outliers() {
    let tmp = TempDir::new("twelve-pairs");
    let mut means = vec![100.0; 10];
    means.insert(4, 5000.0);
    means.push(900.0);
    let run = pingpong_run(&tmp, "twelve", &means, &[2; 12]);
    let html = report::render(&[run]).unwrap();
    let rows = table(&html, "twelve: round-trip time");
    assert_eq!(rows[0][..3], ["64", "100", "0"]);
    assert!(html.contains("<th>mean of 12 pairs, two largest discarded</th>"));
    let every = table(&html, "twelve: mean round-trip time of each pair");
    assert!(every[4][2].contains("5000 (discarded)"), "{:?}", every[4]);
    assert!(every[11][2].contains("900 (discarded)"));
    assert_eq!(every[14][2], "5000, 900");
}

#[test]
fn the_throughput_table_adds_up_what_every_subscriber_received() {
    let html = render(&["throughput-sweep"]);
    let rows = table(&html, "1 → N throughput per case");
    let four = rows
        .iter()
        .find(|r| r[1] == "64" && r[2] == "4")
        .expect("the 64 B case with four subscribers");
    // 142857.1 + 144285.7 + 145714.3 + 147142.9 messages a second.
    assert_eq!(four[8], "580000");
    assert!(html.contains("Messages delivered per second, all subscribers together"));
}
