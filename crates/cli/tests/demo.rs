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
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.starts_with("federation synchronized at \"ReadyToRun\""))
            .count(),
        1,
        "one line for the synchronization point: {stdout}"
    );
    assert!(
        !stdout.contains("granted time"),
        "not time-stepped: {stdout}"
    );
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

/// The granted logical time (min, max) printed on a per-second line.
fn granted_time(line: &str) -> Option<(i64, i64)> {
    let range = line.split("granted time ").nth(1)?.split(' ').next()?;
    let (min, max) = range.split_once("..")?;
    Some((min.parse().ok()?, max.parse().ok()?))
}

#[test]
fn the_time_stepped_demo_prints_granted_time_advancing_after_the_synchronization() {
    let out = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args([
            "demo",
            "--seconds",
            "3",
            "--vehicles",
            "2",
            "--time-stepped",
        ])
        .env("TRELLIS_LOG", "error")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    let synchronized = lines
        .iter()
        .position(|l| l.starts_with("federation synchronized at \"ReadyToRun\""))
        .expect("the synchronization line");
    // Nobody advances before the synchronization (a loaded machine may print a second
    // before it).
    assert!(
        lines[..synchronized]
            .iter()
            .filter(|l| l.starts_with('['))
            .all(|l| granted_time(l) == Some((0, 0))),
        "{stdout}"
    );
    let times: Vec<(i64, i64)> = lines
        .iter()
        .filter(|l| l.starts_with('['))
        .map(|l| granted_time(l).unwrap_or_else(|| panic!("no granted time in {l:?}")))
        .collect();
    assert!(times.len() >= 2, "{stdout}");
    assert!(times.iter().all(|(min, max)| min <= max), "{stdout}");
    assert!(
        times.windows(2).all(|w| w[0].0 <= w[1].0),
        "granted time never goes back: {stdout}"
    );
    assert!(
        times.last().unwrap().0 > times[0].0,
        "granted time advances: {stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("time-stepped:") && l.contains(", 0 of them late")),
        "{stdout}"
    );
}
