//! The report's WAN sections drawn from real, short site-lab runs (needs root): the RTI-NG
//! study (the wan_rting example, which `cargo test` builds beside the trellis binary) and a
//! JESPP tree / mesh pair through `trellis lab --bench '... --out DIR'`.

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
        .args(["--delay-ms", "2", "--mbit", "50", "--out"])
        .arg(&rting)
        .env("TRELLIS_LOG", "warn"));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(rting.join("summary.json")).unwrap())
            .unwrap();
    let bytes = |topology: &str, receivers: u64| {
        summary["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["topology"] == topology && c["receivers"] == receivers)
            .unwrap()["bytes_per_update"]
            .as_f64()
            .unwrap()
    };
    // What the study is for: the hierarchy's one copy against the collocated router's two.
    assert!(bytes("hierarchical", 2) < 1.5 * 1000.0);
    assert!(bytes("collocated", 2) > 1.8 * 1000.0);

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
    for topology in ["collocated", "centralized", "hierarchical"] {
        assert!(
            html.contains(&format!("<td>{topology}</td>")),
            "{topology} row"
        );
    }
    assert!(html.contains("id=\"wan-jespp\"") && html.contains("Figure 19"));
    assert!(html.contains("fed-1 ↔ fed-2"));
    assert!(html.contains("site links of 1 ms one way"));
    let _ = std::fs::remove_dir_all(&dir);
}
