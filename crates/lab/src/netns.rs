//! Putting a thread into a lab namespace: the relay lives in the `wan` namespace, and probes
//! and tests talk from inside sites without starting processes.

use crate::LabError;
use std::os::fd::AsRawFd;

/// Move the calling thread (only it) into the named network namespace.
pub fn enter(namespace: &str) -> Result<(), LabError> {
    let path = format!("/run/netns/{namespace}");
    let file = std::fs::File::open(&path).map_err(LabError::io(format!("opening {path}")))?;
    // SAFETY: a valid namespace fd; setns(CLONE_NEWNET) affects only the calling thread.
    if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(LabError::Io {
            what: format!("entering network namespace {namespace}"),
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(())
}

/// Run `work` on a new thread inside the named namespace.
pub fn spawn_in<T: Send + 'static>(
    namespace: &str,
    thread_name: &str,
    work: impl FnOnce() -> Result<T, LabError> + Send + 'static,
) -> Result<std::thread::JoinHandle<Result<T, LabError>>, LabError> {
    let namespace = namespace.to_owned();
    std::thread::Builder::new()
        .name(thread_name.into())
        .spawn(move || {
            enter(&namespace)?;
            work()
        })
        .map_err(LabError::io("starting a thread"))
}
