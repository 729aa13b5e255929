//! The checked topology: routers, federates, cliques and the links between them.
//!
//! A [`Topology`] exists only once every check of [`super::validate`] passed, so everything
//! that reads it (analysis, plans) can rely on the block-graph rule and on every dialed
//! node having an address for the pipe it is dialed over.

use super::address::ListenAddress;
use super::failover::Alternate;
use super::file::{CliqueEntry, FederateEntry, RouterEntry, TopologyFile};
use super::link::{LinkOptions, LinkOverrides};
use super::{validate, TopologyError};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Whether a process is a bare router or a federate (a router with a local application).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// A router process with no federate of its own.
    Router,
    /// A federate process, with its own embedded router.
    Federate,
}

impl fmt::Display for NodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NodeKind::Router => "router",
            NodeKind::Federate => "federate",
        })
    }
}

/// One process: a router, or a federate (a router with a local application).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Unique among nodes; group members carry their `-i` suffix.
    pub name: String,
    /// Router or federate.
    pub kind: NodeKind,
    /// Where it accepts links, at most one address per scheme.
    pub listen: Vec<ListenAddress>,
    /// The link to its parent; `None` for a root or a node attached only by cliques.
    pub parent: Option<ParentLink>,
    /// Parents to fail over to, in turn (see [`super::failover`]).
    pub alternates: Vec<Alternate>,
    /// Where the process serves `/metrics` for Prometheus (routers only, for now).
    pub metrics: Option<std::net::SocketAddr>,
    /// Its TLS files (routers only: a federate's program gives its own).
    pub tls: Option<super::TlsFiles>,
}

/// A node's link to its parent, which the node dials.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParentLink {
    /// Index of the parent in [`Topology::nodes`].
    pub node: usize,
    /// As written on the child; [`Link::options`] has them resolved.
    pub link: LinkOverrides,
}

/// A set of nodes all linked to each other (a block of DESIGN.md §2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clique {
    /// Unique among cliques.
    pub name: String,
    /// Indices in [`Topology::nodes`], in the order the file lists them.
    pub members: Vec<usize>,
    /// Link options as written on the clique; [`Link::options`] has them resolved.
    pub link: LinkOverrides,
}

/// Why two nodes are linked.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LinkKind {
    /// The dialer is the child, the listener its parent.
    Parent,
    /// Both ends belong to the clique of this index in [`Topology::cliques`].
    Peer {
        /// Index in [`Topology::cliques`].
        clique: usize,
    },
}

/// One connection between two processes, and which of them opens it: a child dials its
/// parent; of two peers, the one whose name sorts first (byte order) dials.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// Index of the node that opens the connection, in [`Topology::nodes`].
    pub dialer: usize,
    /// Index of the node that accepts it, in [`Topology::nodes`].
    pub listener: usize,
    /// Parent link or clique peer link.
    pub kind: LinkKind,
    /// The options resolved from the link, the file's defaults and the built-in defaults.
    pub options: LinkOptions,
    /// Where the dialer connects.
    pub target: DialTarget,
}

/// The listener's addresses the dialer needs for the link's pipe.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DialTarget {
    /// `tcp://` for the tcp and udp pipes, `mem://` for the memory pipe.
    pub address: ListenAddress,
    /// For the udp pipe: where best-effort datagrams go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp: Option<ListenAddress>,
}

/// A checked topology: built only by [`Topology::from_file`], so every link is dialable and the
/// block-graph rule holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    pub(super) defaults: LinkOverrides,
    /// Routers first, then federates, each in the order the file declares them.
    pub(super) nodes: Vec<Node>,
    pub(super) cliques: Vec<Clique>,
    pub(super) links: Vec<Link>,
    pub(super) by_name: FxHashMap<String, usize>,
}

impl Topology {
    /// Reads and checks the text of a topology file.
    pub fn from_toml(text: &str) -> Result<Topology, TopologyError> {
        Topology::from_file(&TopologyFile::from_toml(text)?)
    }

    /// Checks a topology file, reporting every problem found rather than the first.
    pub fn from_file(file: &TopologyFile) -> Result<Topology, TopologyError> {
        validate::validate(file).map_err(TopologyError::Invalid)
    }

    /// The file that reads back as this topology. Federate groups come back one by one.
    pub fn to_file(&self) -> TopologyFile {
        let name_of = |index: usize| self.nodes[index].name.clone();
        let listen_of = |node: &Node| node.listen.iter().map(ToString::to_string).collect();
        let parent_of = |node: &Node| node.parent.as_ref().map(|parent| name_of(parent.node));
        let alternates_of = |node: &Node| node.alternates.iter().map(|a| name_of(a.node)).collect();
        let link_of = |node: &Node| {
            node.parent
                .as_ref()
                .map(|parent| parent.link.clone())
                .unwrap_or_default()
        };
        TopologyFile {
            defaults: self.defaults.clone(),
            routers: self
                .routers()
                .map(|node| RouterEntry {
                    name: node.name.clone(),
                    listen: listen_of(node),
                    parent: parent_of(node),
                    alternates: alternates_of(node),
                    link: link_of(node),
                    metrics: node.metrics.map(|m| m.to_string()),
                    tls_cert: node.tls.as_ref().and_then(|t| t.cert.clone()),
                    tls_key: node.tls.as_ref().and_then(|t| t.key.clone()),
                    tls_ca: node.tls.as_ref().map(|t| t.ca.clone()),
                    mtls: node.tls.as_ref().is_some_and(|t| t.mtls),
                })
                .collect(),
            federates: self
                .federates()
                .map(|node| FederateEntry {
                    name: node.name.clone(),
                    count: None,
                    listen: listen_of(node),
                    parent: parent_of(node),
                    alternates: alternates_of(node),
                    link: link_of(node),
                })
                .collect(),
            cliques: self
                .cliques
                .iter()
                .map(|clique| CliqueEntry {
                    name: clique.name.clone(),
                    members: clique.members.iter().map(|&m| name_of(m)).collect(),
                    link: clique.link.clone(),
                })
                .collect(),
        }
    }

    /// Writes the topology back as a topology file's TOML.
    pub fn to_toml(&self) -> Result<String, toml::ser::Error> {
        self.to_file().to_toml()
    }

    /// The file's `[defaults]`, as written.
    pub fn defaults(&self) -> &LinkOverrides {
        &self.defaults
    }

    /// Routers first, then federates, each in the order the file declares them.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Cliques in the order the file declares them.
    pub fn cliques(&self) -> &[Clique] {
        &self.cliques
    }

    /// Parent links in the order of their children, then each clique's links.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// Index in [`Topology::nodes`] of the node with this name.
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The node with this name, if one is declared.
    pub fn node(&self, name: &str) -> Option<&Node> {
        self.node_index(name).map(|index| &self.nodes[index])
    }

    /// The router nodes, in declaration order.
    pub fn routers(&self) -> impl Iterator<Item = &Node> {
        self.nodes
            .iter()
            .filter(|node| node.kind == NodeKind::Router)
    }

    /// The federate nodes (groups expanded), in declaration order.
    pub fn federates(&self) -> impl Iterator<Item = &Node> {
        self.nodes
            .iter()
            .filter(|node| node.kind == NodeKind::Federate)
    }
}
