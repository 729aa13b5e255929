//! Topologies: which processes exist, how they link, and who dials whom (DESIGN.md §2).
//!
//! A topology is a graph whose vertices are processes, routers and federates alike, and
//! whose edges are links. Links come from two declarations: a *parent link* (a child dials
//! its parent) and a *clique* (every member linked to every other). The graph must be a
//! block graph, every biconnected component a clique, and each such component declared
//! as one clique or one parent link: routers keep split horizon per declared clique, so that
//! is what makes every message cross each block once and never loop.
//!
//! # The file
//!
//! TOML; every table refuses keys it does not know.
//!
//! ```toml
//! # Options of every link that does not set its own. All optional; built-in defaults are
//! # pipe "tcp", no bundling delay, and the router's default queue limit (4 MiB).
//! [defaults]
//! pipe = "tcp"               # "tcp", "udp" (TCP + UDP for best effort) or "memory"
//! bundling_delay_ms = 0      # 0 to 10000
//! queue_limit_bytes = 4194304
//!
//! # Two routers in a mesh, each with federates below it.
//! [[router]]
//! name = "east"
//! listen = ["tcp://127.0.0.1:7001", "udp://127.0.0.1:7001"]   # at most one per scheme
//!
//! [[router]]
//! name = "west"
//! listen = ["tcp://127.0.0.1:7002"]
//!
//! [[clique]]
//! name = "core"
//! members = ["east", "west"]
//! link = { bundling_delay_ms = 5 }        # options of every link inside the clique
//!
//! [[federate]]
//! name = "radar"
//! parent = "east"
//! link = { pipe = "udp" }                 # options of the link to the parent
//!
//! [[federate]]
//! name = "tank"
//! count = 3                               # tank-1, tank-2, tank-3, each a child of west
//! parent = "west"
//! ```
//!
//! - `[[router]]`: `name`, `listen` (addresses, `tcp://host:port`, `udp://host:port`,
//!   `mem://name`), optional `parent` (a router or federate), `alternates` (parents to
//!   fail over to, in turn, when the link to the parent fails: one attachment is live at a
//!   time, and every combination of attachments must be a valid topology, see
//!   [`failover`]), `link` (options of the link to the parent) and `metrics` (`IP:PORT`
//!   where the router serves `/metrics` for Prometheus; a port no other router's metrics
//!   or `tcp://` listen address of the file takes).
//! - `[[federate]]`: as a router, plus `count` to declare `name-1` … `name-count` at once
//!   (not with `listen`). A federate needs `listen` only if something dials it: children,
//!   or clique peers whose names sort before its own.
//! - `[[clique]]`: `name`, `members` (two or more routers and/or federates), `link`.
//!   Cliques may share members; that is how blocks meet.
//!
//! Names use letters, digits, `-`, `_` and `.`. A child dials its parent; of two clique
//! peers the one whose name sorts first (byte order) dials the other, which must listen on
//! the pipe's scheme (`tcp://`, plus `udp://` for the udp pipe, or `mem://`).
//!
//! Reading a file ([`Topology::from_toml`]) reports every problem found, each naming what it
//! concerns: unknown or duplicate names, cycles of parent links, a biconnected component
//! that is not a clique (with a pair of its nodes that is not linked), a federate with no
//! attachment, a topology in pieces, bad addresses and out-of-range options.
//!
//! [`generate`] builds the papers' shapes; [`Topology::summary`] gives what
//! `trellis topology check` prints (including the JESPP Table 1 link counts);
//! [`Topology::plans`] and [`Topology::attachment`] give each process its links.

mod address;
mod analyze;
mod blocks;
pub mod failover;
mod file;
mod generate;
mod link;
mod metrics;
mod model;
mod plan;
mod problem;
mod tls;
mod validate;

pub use address::{AddressError, ListenAddress, Scheme};
pub use analyze::Summary;
pub use failover::{Alternate, MAX_FAILOVER_COMBINATIONS};
pub use file::{CliqueEntry, FederateEntry, RouterEntry, TopologyFile};
pub use generate::{generate, GenerateError, GenerateOptions, Shape};
pub use link::{LinkOptions, LinkOverrides, Pipe, MAX_BUNDLING_DELAY_MS, MAX_QUEUE_LIMIT_BYTES};
pub use model::{Clique, DialTarget, Link, LinkKind, Node, NodeKind, ParentLink, Topology};
pub use plan::{Accept, Dial, DialAlternate, LinkRole, NodePlan, UnknownNode};
pub use problem::Problem;
pub use tls::TlsFiles;
pub use validate::{MAX_LINKS, MAX_NODES};

use thiserror::Error;

/// Why a topology file could not become a [`Topology`].
#[derive(Debug, Error)]
pub enum TopologyError {
    /// Not a topology file at all: TOML syntax, a wrong type or an unknown key. The
    /// message gives the line and column.
    #[error("{0}")]
    Parse(#[from] toml::de::Error),
    /// A well-formed file describing a topology that cannot run.
    #[error("invalid topology:{}", problem::list_text(.0))]
    Invalid(Vec<Problem>),
}

impl TopologyError {
    /// The problems of an invalid topology; none for a file that did not parse.
    pub fn problems(&self) -> &[Problem] {
        match self {
            TopologyError::Parse(_) => &[],
            TopologyError::Invalid(problems) => problems,
        }
    }
}
