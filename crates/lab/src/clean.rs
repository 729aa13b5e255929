//! Removing lab namespaces: the processes inside them first, then the namespaces (which takes
//! their veths along; the TUN device went with the relay's file). Used by a lab's own
//! teardown and by `trellis lab --clean` for the leftovers of runs that crashed.

use crate::{ip, LabError, NAMESPACE_PREFIX};
use std::time::{Duration, Instant};

/// How long processes get to exit after SIGTERM before SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(2);
const KILL_WAIT: Duration = Duration::from_secs(2);

/// End every process in `namespaces` (never this one) and delete the namespaces. Goes on
/// past failures and returns the first.
pub(crate) fn remove_namespaces(namespaces: &[String]) -> Result<(), LabError> {
    let mut first_error = None;
    let mut pids = Vec::new();
    for namespace in namespaces {
        match ip::pids_in(namespace) {
            Ok(found) => pids.extend(found),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    pids.retain(|&pid| pid != std::process::id() as i32);
    end_processes(&pids);
    for namespace in namespaces.iter().rev() {
        if let Err(e) = ip::run("ip", &["netns", "del", namespace]) {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// SIGTERM, a grace period, then SIGKILL for the stubborn.
fn end_processes(pids: &[i32]) {
    signal_all(pids, libc::SIGTERM);
    if wait_gone(pids, TERM_GRACE) {
        return;
    }
    signal_all(pids, libc::SIGKILL);
    if !wait_gone(pids, KILL_WAIT) {
        tracing::warn!("lab processes still alive after SIGKILL: {pids:?}");
    }
}

fn signal_all(pids: &[i32], signal: libc::c_int) {
    for &pid in pids {
        // SAFETY: kill has no memory effects; a pid that is gone gives ESRCH, which is fine.
        unsafe { libc::kill(pid, signal) };
    }
}

/// Wait (bounded) until no pid runs: gone, or a zombie its parent has yet to reap.
fn wait_gone(pids: &[i32], bound: Duration) -> bool {
    let deadline = Instant::now() + bound;
    loop {
        if pids.iter().all(|&pid| !is_running(pid)) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether `pid` is a live process (not gone, not a zombie).
pub fn is_running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses, which may hold spaces.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            .is_some_and(|state| state != 'Z' && state != 'X'),
        Err(_) => false,
    }
}

/// The process that made a lab namespace, from its name `tlab-PID-…`.
pub fn owner_of(namespace: &str) -> Option<i32> {
    namespace
        .strip_prefix(NAMESPACE_PREFIX)?
        .split('-')
        .next()?
        .parse()
        .ok()
}

/// Delete the lab namespaces whose owner no longer runs (with `even_live_owners`, all but
/// this process's own) and the processes inside them. Returns the namespaces removed.
pub fn remove_leftovers(even_live_owners: bool) -> Result<Vec<String>, LabError> {
    if !crate::is_root() {
        return Err(LabError::NotRoot);
    }
    let me = std::process::id() as i32;
    let leftovers: Vec<String> = ip::namespaces()?
        .into_iter()
        .filter(|name| match owner_of(name) {
            Some(owner) => owner != me && (even_live_owners || !is_running(owner)),
            None => false,
        })
        .collect();
    remove_namespaces(&leftovers)?;
    Ok(leftovers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_is_read_from_the_name() {
        assert_eq!(owner_of("tlab-4242-3-00af-east"), Some(4242));
        assert_eq!(owner_of("tlab-x-east"), None);
        assert_eq!(owner_of("other-4242"), None);
    }

    #[test]
    fn this_process_runs_and_a_free_pid_does_not() {
        assert!(is_running(std::process::id() as i32));
        assert!(!is_running(i32::MAX));
    }
}
