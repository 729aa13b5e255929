//! `trellis bench clutter` end to end, small: a few thousand entities on a four-router mesh
//! (routers in the benchmark's process) and on a three-level tree under `trellis up`
//! (routers as processes, `--routers-running`), simulators and viewers in worker processes.
//! Every receiver must reflect exactly what its interest says (nothing unexpected,
//! duplicated or corrupt) and all of it (reliable: nothing missing). Speed is not checked:
//! the machine may be loaded.

mod common;

use common::{gen, read_json, trellis_within, TempDir, Up};
use std::path::Path;
use std::time::Duration;

/// Bound on one run: joins, registration, 3 s of sending and the drain take seconds.
const RUN_BOUND: Duration = Duration::from_secs(180);

/// A small clutter run on `topology`; its one case, checked for exactness and
/// completeness.
fn small_run(topology: &Path, extra: &[&str], out: &Path) -> serde_json::Value {
    let mut args = vec![
        "bench",
        "clutter",
        "--topology",
        topology.to_str().unwrap(),
        "--entities",
        "3000",
        "--simulators",
        "6",
        "--viewers",
        "2",
        "--processes",
        "2",
        "--seconds",
        "3",
        "--rate",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (ok, stdout, stderr) = trellis_within(&args, RUN_BOUND);
    println!("{stdout}");
    assert!(ok, "clutter failed:\n{stdout}\n{stderr}");
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["passed"], true, "{summary}");
    let case = summary["cases"][0].clone();
    assert_eq!(case["entities"], 3000);
    let expected = case["expected"].as_u64().unwrap();
    assert!(expected > 0, "nothing was expected: {case}");
    // Completeness: everything the interest calls for arrived.
    assert_eq!(case["missing"], 0, "{case}");
    assert_eq!(case["delivery_ratio"], 1.0, "{case}");
    // Exactness: nothing outside it, nothing twice, nothing garbled.
    assert_eq!(case["unexpected"], 0, "{case}");
    assert_eq!(case["duplicates"], 0, "{case}");
    assert_eq!(case["corrupt"], 0, "{case}");
    assert_eq!(case["reflects"].as_u64().unwrap(), expected, "{case}");
    assert_eq!(case["exact"], true);
    assert_eq!(case["complete"], true);
    // Viewers came to know entities; every simulator sent.
    assert!(
        case["viewer_entities_known"].as_u64().unwrap() > 0,
        "{case}"
    );
    let rates = case["federates"].as_array().unwrap();
    assert_eq!(rates.len(), 8);
    for federate in rates.iter().filter(|f| f["role"] == "simulator") {
        assert!(
            federate["out_per_second"].as_f64().unwrap() > 0.0,
            "{federate}"
        );
        assert!(
            federate["expected_per_second"].as_f64().unwrap() > 0.0,
            "{federate}"
        );
    }
    let meta = read_json(&out.join("meta.json"));
    assert_eq!(meta["benchmark"], "clutter");
    assert_eq!(meta["complete"], true, "{meta}");
    assert!(out.join("case-0-3000-seconds.csv").exists());
    let joins = read_json(&out.join("case-0-joins.json"));
    assert_eq!(joins["federates"], 8, "{joins}");
    assert!(joins["join_max_us"].as_u64().unwrap() > 0, "{joins}");
    assert!(out.join("case-0-3000-processes.csv").exists());
    case
}

#[test]
fn clutter_on_a_four_router_mesh_is_exact_and_complete() {
    let dir = TempDir::new("clutter-mesh");
    let (file, _) = gen(
        &dir,
        "mesh.toml",
        &["mesh", "--routers", "4", "--federates", "3"],
        16,
    );
    // Nodes on threads of their own, the default, here (the tree test drives them directly).
    let case = small_run(&file, &[], &dir.path("results"));
    // The routers ran in the benchmark's process: their counters were read.
    assert!(
        case["router_forwards_per_second"].as_f64().unwrap() > 0.0,
        "{case}"
    );
    let processes = case["process_rows"].as_array().unwrap();
    let routers = processes
        .iter()
        .filter(|p| p["process"].as_str().unwrap().starts_with("router "))
        .count();
    assert_eq!(routers, 4, "{processes:?}");
    // The folder feeds the report.
    let page = dir.path("report.html");
    let results = dir.path("results");
    let (ok, _, stderr) = trellis_within(
        &[
            "report",
            results.to_str().unwrap(),
            "-o",
            page.to_str().unwrap(),
        ],
        Duration::from_secs(60),
    );
    assert!(ok, "{stderr}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<section id=\"clutter\">"),
        "no clutter section"
    );
    assert!(html.contains("<caption>Rate and delivery against interest</caption>"));
}

#[test]
fn clutter_on_a_tree_of_router_processes_is_exact_and_complete() {
    let dir = TempDir::new("clutter-tree");
    let (file, _) = gen(
        &dir,
        "tree.toml",
        &["tree", "--levels", "3", "--fanout", "2", "--federates", "3"],
        16,
    );
    let up = Up::start(&file);
    // Simulators send in frames here (the mesh test sends each update when due), from
    // directly driven nodes.
    let case = small_run(
        &file,
        &[
            "--routers-running",
            "--frame-ms",
            "50",
            "--driver",
            "direct",
        ],
        &dir.path("results"),
    );
    // Router processes are measured from outside; their counters are not reachable.
    assert!(case["router_forwards_per_second"].is_null(), "{case}");
    let processes = case["process_rows"].as_array().unwrap();
    let routers = processes
        .iter()
        .filter(|p| p["process"].as_str().unwrap().starts_with("router "))
        .count();
    assert_eq!(routers, 7, "{processes:?}");
    up.stop();
}

#[test]
fn bad_options_are_refused_naming_the_option() {
    for (args, named) in [
        (vec!["--area-units", "0"], "--area-units"),
        (vec!["--rate", "0"], "--rate"),
        (
            vec!["--simulators", "50", "--entities", "10"],
            "every simulator needs",
        ),
        (vec!["--simulators", "3000"], "--area-units"),
        (vec!["--processes", "0"], "--processes"),
        (vec!["--frame-ms", "5000"], "--frame-ms"),
    ] {
        let mut all = vec!["bench", "clutter"];
        all.extend_from_slice(&args);
        let (ok, _, stderr) = trellis_within(&all, Duration::from_secs(30));
        assert!(!ok, "{args:?} was accepted");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
    }
}
