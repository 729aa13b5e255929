//! Per-link options: what a topology file may set on a link, and what a link ends up with
//! once file-wide defaults and built-in defaults fill the gaps.

use crate::router::LinkConfig;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How the two processes of a link talk.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pipe {
    /// One TCP connection carries everything.
    Tcp,
    /// TCP for control and reliable frames, UDP datagrams for best-effort frames.
    Udp,
    /// Both ends run in one process and one runtime (`mem://` addresses).
    Memory,
}

impl fmt::Display for Pipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Pipe::Tcp => "tcp",
            Pipe::Udp => "udp",
            Pipe::Memory => "memory",
        })
    }
}

/// Longest bundling delay a file may ask for. The papers used 5 and 20 ms; a delay of
/// seconds is a typo, not a tuning choice.
pub const MAX_BUNDLING_DELAY_MS: u64 = 10_000;

/// Largest per-link queue a file may ask for. Every queue has a bound (DESIGN.md §4), and
/// this one keeps a misplaced digit from letting one slow link eat the host's memory.
pub const MAX_QUEUE_LIMIT_BYTES: u64 = 1 << 30;

/// Options a file sets on some links, each left to the next level down when absent:
/// a link's own options, then the file's `[defaults]`, then the built-in defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkOverrides {
    /// How the link's two processes talk; absent leaves it to the next level down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipe: Option<Pipe>,
    /// Hold frames this long to bundle them; 0 sends as soon as the link is writable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundling_delay_ms: Option<u64>,
    /// Bytes queued toward the link before senders are pushed back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_limit_bytes: Option<u64>,
}

impl LinkOverrides {
    /// True when the link sets no option of its own.
    pub fn is_empty(&self) -> bool {
        *self == LinkOverrides::default()
    }

    /// The options of a link that sets `self`, in a file whose defaults are `defaults`.
    pub fn resolve(&self, defaults: &LinkOverrides) -> LinkOptions {
        let built_in = LinkOptions::default();
        LinkOptions {
            pipe: self.pipe.or(defaults.pipe).unwrap_or(built_in.pipe),
            bundling_delay_ms: self
                .bundling_delay_ms
                .or(defaults.bundling_delay_ms)
                .unwrap_or(built_in.bundling_delay_ms),
            queue_limit_bytes: self
                .queue_limit_bytes
                .or(defaults.queue_limit_bytes)
                .unwrap_or(built_in.queue_limit_bytes),
        }
    }
}

/// Everything a process needs to know to set up one link.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkOptions {
    /// How the two processes talk.
    pub pipe: Pipe,
    /// How long frames are held to bundle them, in milliseconds; 0 sends at once.
    pub bundling_delay_ms: u64,
    /// Bytes queued toward the link before senders are pushed back.
    pub queue_limit_bytes: u64,
}

impl Default for LinkOptions {
    /// The router's own link defaults, so a file that says nothing changes nothing.
    fn default() -> Self {
        let router = LinkConfig::default();
        LinkOptions {
            pipe: Pipe::Tcp,
            bundling_delay_ms: u64::try_from(router.bundling_delay.as_millis())
                .unwrap_or(MAX_BUNDLING_DELAY_MS),
            queue_limit_bytes: u64::try_from(router.queue_limit_bytes)
                .unwrap_or(MAX_QUEUE_LIMIT_BYTES),
        }
    }
}
