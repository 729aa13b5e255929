//! The report's WAN sections drawn from real, short site-lab runs (needs root): the RTI-NG
//! study (the wan_rting example, which `cargo test` builds beside the trellis binary) and a
//! JESPP tree / mesh pair through `trellis lab --bench '... --out DIR'`; and from small
//! hand-made results folders (no root), whose numbers the report's tables must show.

use std::path::{Path, PathBuf};
use std::process::Command;

const TRELLIS: &str = env!("CARGO_BIN_EXE_trellis");

fn run(command: &mut Command) {
    let status = command.status().unwrap();
    assert!(status.success(), "{command:?}: {status}");
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trellis-report-wan-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A lab file giving each router of `topology` a site, the federates site `feds`, and every
/// link of the topology a site link of 1 ms, as scripts/wan-results does.
fn lab_for(routers: &[(&str, Option<&str>)], federates: &[(&str, &str)], mesh: bool) -> String {
    let site = |router: &str| format!("r{}", routers.iter().position(|r| r.0 == router).unwrap());
    let mut text = String::from("[[site]]\nname = \"feds\"\n");
    for (name, _) in routers {
        text.push_str(&format!("[[site]]\nname = \"{}\"\n", site(name)));
    }
    let mut links: Vec<(String, String)> = routers
        .iter()
        .filter_map(|(name, parent)| parent.map(|p| (site(name), site(p))))
        .collect();
    links.extend(federates.iter().map(|(_, r)| ("feds".to_owned(), site(r))));
    if mesh {
        for (i, (a, _)) in routers.iter().enumerate() {
            for (b, _) in &routers[i + 1..] {
                links.push((site(a), site(b)));
            }
        }
    }
    for (a, b) in links {
        text.push_str(&format!(
            "[[link]]\nsites = [\"{a}\", \"{b}\"]\ndelay_ms = 1\n"
        ));
    }
    text.push_str("[bench]\nrouter_site = \"r0\"\nfederate_site = \"feds\"\n[place]\n");
    for (name, _) in routers {
        text.push_str(&format!("\"{name}\" = \"{}\"\n", site(name)));
    }
    text
}

fn pingpong_in_lab(dir: &Path, shape: &str, lab: &str) -> PathBuf {
    let topology = dir.join(format!("{shape}.toml"));
    let mut gen = Command::new(TRELLIS);
    gen.args(["topology", "gen", shape, "--federates", "1", "-o"])
        .arg(&topology);
    match shape {
        "tree" => gen.args(["--levels", "2", "--fanout", "2"]),
        _ => gen.args(["--routers", "2"]),
    };
    run(&mut gen);
    let lab_file = dir.join(format!("{shape}-lab.toml"));
    std::fs::write(&lab_file, lab).unwrap();
    let out = dir.join(format!("jespp-{shape}"));
    run(Command::new(TRELLIS)
        .arg("lab")
        .arg(&lab_file)
        .arg("--topology")
        .arg(&topology)
        .arg("--no-verify")
        .arg("--bench")
        .arg(format!(
            "pingpong --pair fed-1:fed-2 --sizes 1024 --exchanges 3 --out {}",
            out.display()
        )));
    out
}

#[test]
fn the_report_draws_the_wan_studies_from_real_lab_runs() {
    assert!(
        trellis_lab::is_root(),
        "this test builds network namespaces and must run as root"
    );
    let dir = temp_dir();
    let example = Path::new(TRELLIS)
        .parent()
        .unwrap()
        .join("examples/wan_rting");
    assert!(example.exists(), "{} not built", example.display());
    let rting = dir.join("rting");
    run(Command::new(&example)
        .args([
            "--trellis",
            TRELLIS,
            "--receivers",
            "1,2",
            "--updates",
            "20",
        ])
        .args([
            "--delay-ms",
            "2",
            "--mbit",
            "50",
            "--bundling",
            "off,20",
            "--out",
        ])
        .arg(&rting)
        .env("TRELLIS_LOG", "warn"));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(rting.join("summary.json")).unwrap())
            .unwrap();
    let bytes = |topology: &str, receivers: u64, bundling: &str| {
        summary["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| {
                c["topology"] == topology
                    && c["receivers"] == receivers
                    && c["bundling"] == bundling
            })
            .unwrap()["bytes_per_update"]
            .as_f64()
            .unwrap()
    };
    // What the study is for: the hierarchy's one copy against the collocated router's two,
    // bundled or not.
    for bundling in ["off", "20ms"] {
        assert!(bytes("hierarchical", 2, bundling) < 1.5 * 1000.0);
        assert!(bytes("collocated", 2, bundling) > 1.8 * 1000.0);
    }

    let tree = pingpong_in_lab(
        &dir,
        "tree",
        &lab_for(
            &[
                ("root", None),
                ("root.1", Some("root")),
                ("root.2", Some("root")),
            ],
            &[("fed-1", "root.1"), ("fed-2", "root.2")],
            false,
        ),
    );
    let mesh = pingpong_in_lab(
        &dir,
        "mesh",
        &lab_for(
            &[("r1", None), ("r2", None)],
            &[("fed-1", "r1"), ("fed-2", "r2")],
            true,
        ),
    );
    assert!(tree.join("lab.json").exists() && mesh.join("lab.json").exists());

    let report = dir.join("report.html");
    run(Command::new(TRELLIS)
        .arg("report")
        .args([&rting, &tree, &mesh])
        .arg("-o")
        .arg(&report));
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("id=\"wan-rting\"") && html.contains("Table 4"));
    assert!(html.contains("<th>no bundling</th>") && html.contains("<th>20 ms bundling</th>"));
    for topology in ["collocated", "centralized", "hierarchical"] {
        assert!(
            html.contains(&format!("<td>{topology}</td>")),
            "{topology} row"
        );
    }
    assert!(html.contains("id=\"wan-jespp\"") && html.contains("Figures 19 and 20"));
    // fed-1 and fed-2 meet at the root of the two-level tree: 4 links; 3 on the mesh.
    assert!(html.contains("1-Hop (4 tree links, 3 mesh)"));
    assert!(html.contains("site links of 1 ms one way"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A results folder `name` under `dir` holding these files.
fn folder(dir: &Path, name: &str, files: &[(&str, String)]) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(&path).unwrap();
    for (file, text) in files {
        std::fs::write(path.join(file), text).unwrap();
    }
    path
}

/// A ping-pong run in the lab: `pairs` as (master, slave, links), `sizes` as (size, pair
/// means, the benchmark's two-discarded mean).
fn pingpong_folder(
    dir: &Path,
    name: &str,
    tree: bool,
    pairs: &[(&str, &str, u64)],
    sizes: &[(u64, Vec<f64>, f64)],
) -> PathBuf {
    let (cliques, depth) = if tree { (0, 4) } else { (1, 1) };
    let meta = format!(
        r#"{{"benchmark": "pingpong", "command": "trellis bench pingpong", "version": "0",
            "topology": {{"summary": {{"routers": 8, "cliques": {cliques}, "depth": {depth}}}}},
            "mode": "trellis", "complete": true}}"#
    );
    let pairs: Vec<String> = pairs
        .iter()
        .map(|(m, s, l)| format!(r#"{{"master": "{m}", "slave": "{s}", "links": {l}}}"#))
        .collect();
    let sizes: Vec<String> = sizes
        .iter()
        .map(|(size, means, mean)| {
            format!(r#"{{"size": {size}, "mean_us": {mean}, "pair_means_us": {means:?}}}"#)
        })
        .collect();
    let summary = format!(
        r#"{{"pairs": [{}], "sizes": [{}]}}"#,
        pairs.join(","),
        sizes.join(",")
    );
    let lab = r#"{"links": [{"delay_ms": 2.0, "bandwidth_mbit": 100.0, "loss_percent": 0.0}]}"#;
    folder(
        dir,
        name,
        &[
            ("meta.json", meta),
            ("summary.json", summary),
            ("lab.json", lab.to_owned()),
        ],
    )
}

/// The rows (cells as text) of the first table whose caption starts with `caption`.
fn table(html: &str, caption: &str) -> Vec<Vec<String>> {
    let start = html
        .find(&format!("<caption>{caption}"))
        .unwrap_or_else(|| panic!("no table captioned {caption:?}"));
    let body = &html[start..];
    let head =
        &body[body.find("<thead>").unwrap() + "<thead>".len()..body.find("</thead>").unwrap()];
    let body = &body[body.find("<tbody>").unwrap()..body.find("</tbody>").unwrap()];
    let cells = |row: &str, tag: &str| -> Vec<String> {
        row.split(&format!("<{tag}"))
            .skip(1)
            .map(|cell| {
                let text = &cell[cell.find('>').unwrap() + 1..];
                text[..text.find(&format!("</{tag}>")).unwrap()].to_owned()
            })
            .collect()
    };
    std::iter::once(cells(head, "th"))
        .chain(body.split("<tr>").skip(1).map(|row| cells(row, "td")))
        .collect()
}

/// The report's drawing of the studies from small hand-made folders (no lab, no root): the
/// RTI-NG figures per bundling delay, and JESPP's hop classes (each a run of its own)
/// matched tree to mesh by their pairs, with the ratio and the pair-means distributions.
#[test]
fn the_report_draws_bundling_delays_and_hop_classes_from_small_folders() {
    let dir = std::env::temp_dir().join(format!("trellis-report-wan-small-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let case = |topology: &str, bundling: &str, receivers: u64, bytes: f64, latency_ms: f64| {
        format!(
            r#"{{"topology": "{topology}", "routers": "r", "bundling": "{bundling}",
                "receivers": {receivers}, "site_link_bytes": {}, "bytes_per_update": {bytes},
                "receiver_rate_mean": 900.0, "receiver_rate_min": 800.0,
                "received": {}, "latency_mean_us": {}, "latency_max_us": {}}}"#,
            bytes as u64 * 100,
            receivers * 100,
            latency_ms * 1e3,
            latency_ms * 1e3 + 500.0
        )
    };
    let cases = [
        case("collocated", "off", 1, 1150.0, 20.5),
        case("collocated", "off", 6, 6900.0, 21.5),
        case("hierarchical", "off", 6, 1150.0, 21.0),
        case("collocated", "20ms", 1, 1100.0, 60.5),
        case("collocated", "20ms", 6, 6600.0, 61.0),
        case("hierarchical", "20ms", 6, 1100.0, 81.0),
    ];
    let rting = folder(
        &dir,
        "rting",
        &[
            (
                "meta.json",
                r#"{"benchmark": "wan-rting", "command": "wan_rting", "version": "0",
                    "started_unix": 0, "finished_unix": 1, "complete": true}"#
                    .to_owned(),
            ),
            (
                "summary.json",
                format!(
                    r#"{{"link": {{"delay_ms": 20.0, "bandwidth_mbit": 10.0}}, "payload": 1000,
                        "updates": 100, "latency_updates": 20, "cases": [{}]}}"#,
                    cases.join(",")
                ),
            ),
        ],
    );
    // 0-Hop pairs share a leaf; 3-Hop pairs meet at the root of the tree, 3 links apart on
    // the mesh. One of the tree's 3-Hop pairs waited behind the others (the plateau).
    let near = [("a", "b", 2), ("c", "d", 2)];
    let near_mesh = near;
    let far = [("a", "e", 8), ("c", "g", 8), ("b", "f", 8), ("d", "h", 8)];
    let far_mesh = [("a", "e", 3), ("c", "g", 3), ("b", "f", 3), ("d", "h", 3)];
    let runs = [
        pingpong_folder(
            &dir,
            "jespp-tree-0hop",
            true,
            &near,
            &[(8192, vec![10e3, 10e3], 10e3)],
        ),
        pingpong_folder(
            &dir,
            "jespp-mesh-0hop",
            false,
            &near_mesh,
            &[(8192, vec![10e3, 10e3], 10e3)],
        ),
        pingpong_folder(
            &dir,
            "jespp-tree-3hop",
            true,
            &far,
            &[
                (1024, vec![30e3, 30e3, 30e3, 30e3], 30e3),
                (8192, vec![40e3, 40e3, 40e3, 80e3], 40e3),
            ],
        ),
        pingpong_folder(
            &dir,
            "jespp-mesh-3hop",
            false,
            &far_mesh,
            &[
                (1024, vec![15e3, 15e3, 15e3, 15e3], 15e3),
                (8192, vec![20e3, 20e3, 20e3, 20e3], 20e3),
            ],
        ),
    ];
    let report = dir.join("report.html");
    run(Command::new(TRELLIS)
        .arg("report")
        .arg(&rting)
        .args(&runs)
        .arg("-o")
        .arg(&report));
    let html = std::fs::read_to_string(&report).unwrap();

    // RTI-NG: the figures it answers, a column per bundling delay.
    for named in ["Table 4", "Graphs 2 and 5", "Graphs 11 and 12"] {
        assert!(html.contains(named), "{named}");
    }
    let bytes = table(&html, "Site-link bytes per update");
    assert_eq!(
        bytes[0],
        ["interconnect", "receivers", "no bundling", "20 ms bundling"]
    );
    assert_eq!(bytes[2], ["collocated", "6", "6900 (6.9)", "6600 (6.6)"]);
    assert_eq!(bytes[3], ["hierarchical", "6", "1150 (1.15)", "1100 (1.1)"]);
    let latency = table(&html, "One-way latency (ms)");
    assert_eq!(latency[3], ["hierarchical", "6", "21 (21.5)", "81 (81.5)"]);

    // JESPP: one class per couple of runs with the same pairs, never 0-Hop against 3-Hop.
    for named in ["Figures 19 and 20", "Figure 22", "Table 1"] {
        assert!(html.contains(named), "{named}");
    }
    let ratios = table(&html, "Per message size and hop class");
    let rows: Vec<Vec<&str>> = ratios[1..]
        .iter()
        .map(|r| r[..7].iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        rows,
        [
            vec![
                "1024",
                "3-Hop (8 tree links, 3 mesh)",
                "4",
                "30",
                "15",
                "2",
                "2"
            ],
            vec![
                "8192",
                "0-Hop (2 tree links, 2 mesh)",
                "2",
                "10",
                "10",
                "1",
                "1"
            ],
            // Plain means: (40 + 40 + 40 + 80) / 4 = 50 against 20; the benchmark's mean
            // with the two largest discarded, 40 against 20.
            vec![
                "8192",
                "3-Hop (8 tree links, 3 mesh)",
                "4",
                "50",
                "20",
                "2.5",
                "2"
            ],
        ]
    );
    assert!(html.contains("Cumulative distribution of pair mean times at 8192 B"));
    assert!(html.contains("tree, 3-Hop (8 tree links, 3 mesh)"));
    // The general ping-pong ratio compares only runs sharing pairs: two couples, not four.
    assert_eq!(html.matches("<caption>Tree / mesh time ratio: ").count(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}
