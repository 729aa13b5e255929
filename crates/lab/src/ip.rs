//! Running iproute2 (`ip`, `tc`) and `sysctl`: one call, its failure named with its stderr.

use crate::LabError;
use std::process::{Command, Stdio};

/// Run `program args…` to completion; a non-zero exit is an error carrying what it printed.
pub(crate) fn run(program: &str, args: &[&str]) -> Result<String, LabError> {
    let command = format!("{program} {}", args.join(" "));
    tracing::debug!("{command}");
    let output = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(LabError::io(format!("starting `{command}`")))?;
    if !output.status.success() {
        return Err(LabError::Command {
            command,
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// `ip -n NAMESPACE args…`
pub(crate) fn ip_in(namespace: &str, args: &[&str]) -> Result<String, LabError> {
    let mut all = vec!["-n", namespace];
    all.extend_from_slice(args);
    run("ip", &all)
}

/// `tc -n NAMESPACE args…`
pub(crate) fn tc_in(namespace: &str, args: &[&str]) -> Result<String, LabError> {
    let mut all = vec!["-n", namespace];
    all.extend_from_slice(args);
    run("tc", &all)
}

/// Set a sysctl inside a namespace (the net.* ones are per namespace).
pub(crate) fn sysctl_in(namespace: &str, setting: &str) -> Result<(), LabError> {
    run(
        "ip",
        &["netns", "exec", namespace, "sysctl", "-qw", setting],
    )
    .map(drop)
}

/// Every network namespace name `ip netns list` shows.
pub(crate) fn namespaces() -> Result<Vec<String>, LabError> {
    let listing = run("ip", &["netns", "list"])?;
    // Lines read "NAME" or "NAME (id: N)".
    Ok(listing
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect())
}

/// The processes whose network namespace is `namespace`.
pub(crate) fn pids_in(namespace: &str) -> Result<Vec<i32>, LabError> {
    let listing = run("ip", &["netns", "pids", namespace])?;
    Ok(listing
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect())
}
