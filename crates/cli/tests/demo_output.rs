//! `trellis demo | head -2`: the reader closes the demo's output after two lines; the demo
//! stops quietly (exit 0, no panic, no "Broken pipe"), with its web page or without. Its
//! logs stay at `warn` unless asked, and carry no colour escapes into a pipe.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far longer than the demo needs to notice (it prints every second), far shorter than
/// the 60 s it is asked to run: an exit within it was caused by the closed output.
const EXIT_BOUND: Duration = Duration::from_secs(30);

fn closed_after_two_lines(extra: &[&str]) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(["demo", "--seconds", "60", "--web", "127.0.0.1:0"])
        .args(extra)
        .env_remove("TRELLIS_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..2 {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "the demo printed less than two lines"
        );
    }
    drop(stdout); // what `head -2` does once it has its lines
    let deadline = Instant::now() + EXIT_BOUND;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the demo kept running {EXIT_BOUND:?} after its output closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "{status}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        !stderr.contains("INFO"),
        "the demo logs at warn by default: {stderr}"
    );
    assert!(!stderr.to_lowercase().contains("broken pipe"), "{stderr}");
}

#[test]
fn the_demo_stops_quietly_when_its_reader_has_read_enough() {
    closed_after_two_lines(&[]);
}

#[test]
fn the_text_only_demo_stops_quietly_when_its_reader_has_read_enough() {
    closed_after_two_lines(&["--no-web"]);
}

#[test]
fn the_demo_logs_without_colour_escapes_to_a_pipe() {
    let out = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(["demo", "--seconds", "1", "--no-web"])
        .env("TRELLIS_LOG", "info")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("INFO"), "logs at the level asked: {stderr}");
    assert!(!stderr.contains('\u{1b}'), "colour escapes in {stderr}");
}
