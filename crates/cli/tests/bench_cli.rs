//! The benchmarks' command-line contract: options and JSON fields that earlier issues
//! defined keep working, and every run leaves a results folder.

use std::process::Command;

fn bench(args: &[&str], out: &std::path::Path) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .arg("bench")
        .args(args)
        .args(["--json", "--out", out.to_str().unwrap()])
        .env("TRELLIS_LOG", "error")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

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
