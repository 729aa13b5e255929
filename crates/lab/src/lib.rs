//! The site lab: a multi-site network on one machine, so WAN behaviour can be measured here.
//!
//! Each site is a Linux network namespace; a central `wan` namespace joins them in a star, one
//! veth pair per site. Traffic between sites is routed in the `wan` namespace through a TUN
//! device whose reader, the [`relay`], holds each packet for its site link's one-way delay and
//! drops it with the link's loss probability; bandwidth is a `tbf` on the veth toward the
//! destination site. Why a relay of our own: this kernel has no `sch_netem`, and a TCP proxy
//! such as toxiproxy forwards one port's TCP streams, not UDP or whatever ports a topology
//! uses; a TUN relay sees every IP packet between sites.
//!
//! A [`Lab`] is a guard: dropping it (normal exit, error, or after a signal the caller
//! catches) stops the relay, ends every process left in its namespaces and deletes them, which
//! takes their veths with them. Namespaces are named `tlab-PID-RUN-…`, unique per run;
//! [`clean::remove_leftovers`] deletes those of processes that no longer run.

// Input from a file, the network or a pipe never panics here: no unwrap outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]
// The lab exists to make system calls (namespaces, TUN devices, eventfd, ppoll) that have
// no safe wrapper; every unsafe block argues its soundness (clippy::undocumented_unsafe_blocks).
#![allow(unsafe_code)]

pub mod clean;
pub mod config;
mod ip;
mod lab;
pub mod netns;
pub mod placement;
pub mod probe;
pub mod realtime;
pub mod relay;
mod tun;

pub use config::{LabSpec, RelayLimits, SiteLink};
pub use lab::{Lab, NAMESPACE_PREFIX};
pub use relay::RelayStats;

/// What can go wrong building or running a lab.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    #[error("{file}: {}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
    Config {
        file: String,
        line: Option<usize>,
        message: String,
    },
    #[error("no site named {name:?} (sites: {known})")]
    NoSuchSite { name: String, known: String },
    #[error("the site lab needs root (network namespaces, veths, TUN devices); run it as root")]
    NotRoot,
    #[error("`{command}` failed: {stderr}")]
    Command { command: String, stderr: String },
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

impl LabError {
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> LabError {
        let what = what.into();
        move |source| LabError::Io { what, source }
    }
}

/// Whether this process may build labs.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}
