//! The README's first command: the demo runs, reports every second, and stops by itself.

use std::process::Command;

#[test]
fn the_demo_runs_and_the_region_subscriber_sees_only_its_region() {
    let out = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(["demo", "--seconds", "2", "--vehicles", "4"])
        .env("TRELLIS_LOG", "error")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seconds = stdout.lines().filter(|l| l.starts_with('[')).count();
    assert!(seconds >= 1, "per-second lines: {stdout}");
    assert!(
        stdout.contains("viewer:") && stdout.contains("sw-watcher:"),
        "{stdout}"
    );
    let done = stdout
        .lines()
        .find(|l| l.starts_with("done:"))
        .expect("a summary line");
    assert!(done.contains("(0 outside its quarter"), "{done}");
    let viewer: u64 = done
        .split("viewer reflected ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("viewer count");
    assert!(viewer > 0, "{done}");
}
