//! Who opens which link: the view of one process, which `trellis up` writes out as that
//! process's configuration and a federate reads to find its router(s).
//!
//! A child dials its parent (and redials it after a failure); of two peers in a clique, the
//! one whose name sorts first in byte order dials. Every other link of a process is one it
//! accepts.

use super::address::ListenAddress;
use super::link::LinkOptions;
use super::model::{Link, LinkKind, NodeKind, Topology};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// What the far node of a link is to this one.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkRole {
    /// The far node is this one's parent, which this one dials.
    Parent,
    /// The far node is this one's child, which dials this one.
    Child,
    /// Both are members of one clique.
    Peer,
}

/// Everything one process must open and accept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodePlan {
    /// The process's name in the topology.
    pub name: String,
    /// Router or federate.
    pub kind: NodeKind,
    /// Where it listens.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listen: Vec<ListenAddress>,
    /// Links it opens.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dial: Vec<Dial>,
    /// Links it expects others to open to it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accept: Vec<Accept>,
    /// This process holds the federation registry (see [`Topology::registry_host`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hosts_registry: bool,
    /// Where the process serves `/metrics` for Prometheus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<std::net::SocketAddr>,
    /// Its TLS files, for tls:// listeners and dials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<super::TlsFiles>,
}

/// A link this process opens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dial {
    /// Name of the node dialed.
    pub far: String,
    /// What the far node is to this one.
    pub role: LinkRole,
    /// For a peer link, the clique both ends belong to: routers key split horizon by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clique: Option<String>,
    /// `tcp://` for the tcp and udp pipes, `mem://` for the memory pipe.
    pub address: ListenAddress,
    /// For the udp pipe: where the far node takes best-effort datagrams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp: Option<ListenAddress>,
    /// Options of the link, the same at both ends.
    pub options: LinkOptions,
    /// For a parent link: the parents to attach to instead, in turn, when it fails.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternates: Vec<DialAlternate>,
}

/// An alternate parent and where to dial it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DialAlternate {
    /// Name of the alternate parent.
    pub far: String,
    /// Its `tcp://` or `mem://` address, as for the parent.
    pub address: ListenAddress,
    /// For the udp pipe: where it takes best-effort datagrams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp: Option<ListenAddress>,
}

/// A link the far node opens to this process. Its options apply from this side too.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accept {
    /// Name of the node that dials.
    pub far: String,
    /// What the far node is to this one.
    pub role: LinkRole,
    /// For a peer link, the clique both ends belong to: routers key split horizon by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clique: Option<String>,
    /// Options of the link, the same at both ends.
    pub options: LinkOptions,
    /// The far node attaches here only when it fails over (this is one of its alternate
    /// parents): the link is not expected to be up.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub standby: bool,
}

/// A name that is neither a router nor a federate of the topology.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("the topology has no router or federate named {0:?}")]
pub struct UnknownNode(pub String);

impl Topology {
    /// The plan of every router and federate, in the order of [`Topology::nodes`].
    pub fn plans(&self) -> Vec<NodePlan> {
        let mut links_of = vec![Vec::new(); self.nodes.len()];
        for link in &self.links {
            links_of[link.dialer].push(link);
            links_of[link.listener].push(link);
        }
        let alternate_children = self.alternate_children();
        links_of
            .into_iter()
            .enumerate()
            .map(|(node, links)| {
                let children = alternate_children.get(&node).map_or(&[][..], Vec::as_slice);
                self.plan_of(node, links, children)
            })
            .collect()
    }

    /// For each node some others list as an alternate parent: those others.
    fn alternate_children(&self) -> rustc_hash::FxHashMap<usize, Vec<usize>> {
        let mut children: rustc_hash::FxHashMap<usize, Vec<usize>> = Default::default();
        for (child, node) in self.nodes.iter().enumerate() {
            for alternate in &node.alternates {
                children.entry(alternate.node).or_default().push(child);
            }
        }
        children
    }

    /// The plan of the node named `name`: what it listens on, dials and accepts.
    pub fn plan(&self, name: &str) -> Result<NodePlan, UnknownNode> {
        let node = self
            .node_index(name)
            .ok_or_else(|| UnknownNode(name.to_owned()))?;
        let links = self
            .links
            .iter()
            .filter(|link| link.dialer == node || link.listener == node)
            .collect();
        let children: Vec<usize> = (0..self.nodes.len())
            .filter(|&c| self.nodes[c].alternates.iter().any(|a| a.node == node))
            .collect();
        Ok(self.plan_of(node, links, &children))
    }

    /// The links the named process dials to join the network: for a federate, its router
    /// (or its parent and the peers of its cliques). A clique member may also have links
    /// to accept; [`Topology::plan`] has those.
    pub fn attachment(&self, name: &str) -> Result<Vec<Dial>, UnknownNode> {
        Ok(self.plan(name)?.dial)
    }

    /// The one process that holds the federation registry: of the routers without a
    /// parent, the one whose name sorts first; with no routers, likewise of the federates.
    /// Every process reaches it along its links.
    pub fn registry_host(&self) -> Option<usize> {
        let top = |kind: NodeKind| {
            (0..self.nodes.len())
                .filter(|&i| self.nodes[i].kind == kind && self.nodes[i].parent.is_none())
                .min_by(|&a, &b| self.nodes[a].name.cmp(&self.nodes[b].name))
        };
        top(NodeKind::Router).or_else(|| top(NodeKind::Federate))
    }

    /// `alternate_children`: the nodes that may fail over to this one.
    fn plan_of(&self, node: usize, links: Vec<&Link>, alternate_children: &[usize]) -> NodePlan {
        let mut plan = NodePlan {
            name: self.nodes[node].name.clone(),
            kind: self.nodes[node].kind,
            listen: self.nodes[node].listen.clone(),
            dial: Vec::new(),
            accept: Vec::new(),
            hosts_registry: self.registry_host() == Some(node),
            metrics: self.nodes[node].metrics,
            tls: self.nodes[node].tls.clone(),
        };
        for link in links {
            let dialing = link.dialer == node;
            let (role, clique) = match link.kind {
                LinkKind::Parent if dialing => (LinkRole::Parent, None),
                LinkKind::Parent => (LinkRole::Child, None),
                LinkKind::Peer { clique } => {
                    (LinkRole::Peer, Some(self.cliques[clique].name.clone()))
                }
            };
            if dialing {
                plan.dial.push(Dial {
                    far: self.nodes[link.listener].name.clone(),
                    role,
                    clique,
                    address: link.target.address.clone(),
                    udp: link.target.udp.clone(),
                    options: link.options,
                    alternates: match link.kind {
                        LinkKind::Parent => self.dial_alternates(node),
                        LinkKind::Peer { .. } => Vec::new(),
                    },
                });
            } else {
                plan.accept.push(Accept {
                    far: self.nodes[link.dialer].name.clone(),
                    role,
                    clique,
                    options: link.options,
                    standby: false,
                });
            }
        }
        for &child in alternate_children {
            let options = self
                .links
                .iter()
                .find(|l| l.dialer == child && l.kind == LinkKind::Parent)
                .map(|l| l.options)
                .unwrap_or_default();
            plan.accept.push(Accept {
                far: self.nodes[child].name.clone(),
                role: LinkRole::Child,
                clique: None,
                options,
                standby: true,
            });
        }
        plan
    }

    fn dial_alternates(&self, node: usize) -> Vec<DialAlternate> {
        self.nodes[node]
            .alternates
            .iter()
            .map(|a| DialAlternate {
                far: self.nodes[a.node].name.clone(),
                address: a.target.address.clone(),
                udp: a.target.udp.clone(),
            })
            .collect()
    }
}
