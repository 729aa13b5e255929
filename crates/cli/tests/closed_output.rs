//! Every command that prints stops quietly when its standard output is closed, as
//! `trellis … | head` does to it: no panic, no "Broken pipe" message, exit status 0.

mod common;

use common::TempDir;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};

/// A pipe whose read end is closed already: the first write to it fails with EPIPE, so the
/// test does not depend on how much the command writes or how fast a reader would go.
#[allow(unsafe_code)] // std::io::pipe is newer than the workspace's rust-version
fn closed_pipe() -> Stdio {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe(2) failed");
    // SAFETY: both descriptors were just created and are owned by nobody else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    Stdio::from(write)
}

fn assert_quiet_on_closed_output(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(args)
        .env("TRELLIS_LOG", "warn")
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.is_empty(),
        "trellis {}: status {:?}, stderr: {stderr}",
        args.join(" "),
        out.status
    );
}

#[test]
fn printing_commands_stop_quietly_when_their_output_is_closed() {
    let dir = TempDir::new("closed-output");
    let mesh = dir.path("mesh.toml");
    let mesh = mesh.to_str().unwrap();
    let fom = concat!(env!("CARGO_MANIFEST_DIR"), "/../../foms/trellis-demo.xml");
    assert_quiet_on_closed_output(&[
        "topology",
        "gen",
        "mesh",
        "--routers",
        "4",
        "--federates",
        "8",
        "-o",
        mesh,
    ]);
    assert_quiet_on_closed_output(&["topology", "check", mesh]);
    assert_quiet_on_closed_output(&["topology", "check", "--json", mesh]);
    assert_quiet_on_closed_output(&["fom", "check", fom]);
    assert_quiet_on_closed_output(&["fom", "check", "--json", fom]);
}
