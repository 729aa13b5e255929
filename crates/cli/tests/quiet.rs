//! `--quiet` and `--verbose` on every command: the real `trellis router` binary, with no
//! TRELLIS_LOG set, logs its INFO lines by default, none with `--quiet` (its own
//! "listening on" line still prints); the demo, quiet by default, logs its hosts' INFO
//! with `-v`.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

/// Start `trellis ARGS router --listen tcp://127.0.0.1:0`, wait for its listening line,
/// stop it with SIGTERM, and return what it logged on stderr.
fn router_log(global: &[&str]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(global)
        .args(["router", "--listen", "tcp://127.0.0.1:0"])
        .env_remove("TRELLIS_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("trellis runs");
    let stdout = child.stdout.take().expect("stdout is piped");
    let first = BufReader::new(stdout)
        .lines()
        .next()
        .expect("the router prints a line")
        .expect("utf-8");
    assert!(
        first.starts_with("listening on tcp://127.0.0.1:"),
        "the router's own line prints whatever the log level: {first:?}"
    );
    let status = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .expect("kill runs");
    assert!(status.success());
    let mut log = String::new();
    child
        .stderr
        .take()
        .expect("stderr is piped")
        .read_to_string(&mut log)
        .expect("utf-8");
    assert!(child.wait().expect("the router exits").success(), "{log}");
    log
}

#[test]
fn quiet_silences_the_router_info_lines_and_keeps_its_own() {
    let default = router_log(&[]);
    assert!(
        default.contains(" INFO ") && default.contains("host started"),
        "a router logs its start at INFO by default: {default}"
    );
    let quiet = router_log(&["--quiet"]);
    assert!(quiet.trim().is_empty(), "--quiet logs errors only: {quiet}");
    let short = router_log(&["-q"]);
    assert!(short.trim().is_empty(), "-q is --quiet: {short}");
}

#[test]
fn verbose_and_quiet_cannot_both_be_given() {
    let output = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(["--quiet", "-v", "topology", "check", "nosuch.toml"])
        .output()
        .expect("trellis runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--quiet") && stderr.contains("--verbose"),
        "the refusal names both flags: {stderr}"
    );
}

/// What `trellis ARGS demo --no-web --seconds 1` logged on stderr, with no TRELLIS_LOG set.
fn demo_log(global: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(global)
        .args(["demo", "--no-web", "--seconds", "1", "--vehicles", "2"])
        .env_remove("TRELLIS_LOG")
        .output()
        .expect("trellis runs");
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{log}");
    log
}

#[test]
fn verbose_brings_back_the_info_a_quiet_command_leaves_out() {
    let default = demo_log(&[]);
    assert!(
        !default.contains(" INFO "),
        "the demo logs warnings only by default: {default}"
    );
    let verbose = demo_log(&["-v"]);
    assert!(
        verbose.contains(" INFO ") && verbose.contains("host started"),
        "-v logs the demo's hosts starting: {verbose}"
    );
}
