//! The benchmarks' command-line contract: options and JSON fields that earlier issues
//! defined keep working, and every run leaves a results folder.

mod common;

use common::bench;
use std::process::Command;

#[test]
fn throughput_and_pingpong_keep_their_json_fields() {
    let dir = std::env::temp_dir().join(format!("trellis-bench-cli-{}", std::process::id()));
    let throughput = bench(
        &[
            "throughput",
            "--seconds",
            "0.3",
            "--subscribers",
            "1",
            "--size",
            "64",
        ],
        &dir.join("t"),
    );
    for key in ["msgs_per_sec", "sent", "received", "lost"] {
        assert!(throughput[key].is_number(), "{key} in {throughput}");
    }
    assert_eq!(throughput["lost"], 0);
    let raw = bench(
        &[
            "throughput",
            "--raw",
            "--seconds",
            "0.3",
            "--subscribers",
            "1",
        ],
        &dir.join("r"),
    );
    assert_eq!(raw["mode"], "raw-tcp");
    let pingpong = bench(
        &["pingpong", "--count", "20", "--size", "64", "--api", "node"],
        &dir.join("p"),
    );
    for key in ["rtt_p50_us", "rtt_p99_us", "rtt_mean_us", "count"] {
        assert!(pingpong[key].is_number(), "{key} in {pingpong}");
    }
    assert_eq!(pingpong["count"], 20);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("p/meta.json")).unwrap()).unwrap();
    assert!(meta["command"]
        .as_str()
        .unwrap()
        .contains("pingpong --count 20"));
    assert!(meta["machine"]["cores"].as_u64().unwrap() >= 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Poll `done` every 10 ms until it holds, for at most `limit`.
fn wait_until(limit: std::time::Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    false
}

#[test]
fn a_router_lost_mid_run_leaves_the_measured_cases_and_names_the_fault() {
    use std::io::BufRead;
    use std::process::Stdio;
    let out = std::env::temp_dir().join(format!("trellis-bench-lost-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut router = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(["router", "--listen", "tcp://127.0.0.1:0"])
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(router.stdout.take().unwrap()).lines();
    let line = lines.next().unwrap().unwrap();
    let url = line.strip_prefix("listening on ").unwrap().to_owned();
    let mut bench = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(["bench", "throughput", "--router", &url, "--seconds", "0.3"])
        .args(["--subscribers", "1,1,1,1", "--out", out.to_str().unwrap()])
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first case is measured once its summary is written; then the router goes.
    let first = wait_until(std::time::Duration::from_secs(60), || {
        out.join("summary.json").exists()
    });
    router.kill().unwrap();
    router.wait().unwrap();
    let mut status = None;
    let finished = wait_until(std::time::Duration::from_secs(120), || {
        status = bench.try_wait().unwrap();
        status.is_some()
    });
    if !finished {
        let _ = bench.kill();
    }
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut bench.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(
        first && finished,
        "first case {first}, finished {finished}: {stderr}"
    );
    assert_eq!(status.unwrap().code(), Some(1), "{stderr}");
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(out.join(name)).unwrap()).unwrap()
    };
    let meta = read("meta.json");
    assert_eq!(meta["complete"], false);
    let fault = meta["fault"].as_str().expect("meta.json names the fault");
    assert!(
        !fault.is_empty() && stderr.contains(fault),
        "{fault} / {stderr}"
    );
    let summary = read("summary.json");
    let cases = summary["cases"].as_array().unwrap();
    assert!(!cases.is_empty() && cases.len() < 4, "{summary}");
    assert!(cases[0]["sent"].as_u64().unwrap() > 0);
    assert_eq!(cases[0]["received"], cases[0]["sent"]);
    assert!(std::fs::read_to_string(out.join("throughput.csv"))
        .unwrap()
        .lines()
        .nth(1)
        .is_some());
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_topology_whose_ports_are_taken_says_so_and_names_routers_running() {
    // Another process holds the router's port, as `trellis up` would.
    let holder = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = holder.local_addr().expect("bound").port();
    let dir = std::env::temp_dir().join(format!("trellis-bench-taken-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("topology.toml");
    let topology = format!(
        "[[router]]\nname = \"hub\"\nlisten = [\"tcp://127.0.0.1:{port}\"]\n\n\
         [[federate]]\nname = \"a\"\nparent = \"hub\"\n\n\
         [[federate]]\nname = \"b\"\nparent = \"hub\"\n"
    );
    std::fs::write(&file, topology).expect("topology written");
    let out = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(["bench", "throughput", "--seconds", "0.3", "--topology"])
        .arg(&file)
        .arg("--out")
        .arg(dir.join("out"))
        .env("TRELLIS_LOG", "error")
        .output()
        .expect("trellis runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("cannot listen on tcp://127.0.0.1:{port}"))
            && stderr.contains("another process is listening there")
            && stderr.contains("--routers-running"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("Address already in use").count(),
        1,
        "{stderr}"
    );
    drop(holder);
    std::fs::remove_dir_all(&dir).expect("the test's folder removed");
}
