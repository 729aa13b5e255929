//! The topology as the page draws it: nodes (routers, federates), the links of the file, its
//! cliques, and what each node's failure cuts off.
//!
//! # What a failure cuts off
//!
//! Remove the failed node from the graph of the topology file's links. The surviving nodes
//! fall into connected parts; the part holding the most federates (ties: the most nodes,
//! then the first declared) is "the rest of the federation". A failure cuts off every
//! federate outside that part, plus the failed node itself when it is a federate: for a
//! leaf router, the federates attached below it; for an inner router, the federates of the
//! subtrees it isolated from the biggest one; for a federate, itself. Objects cut off are
//! the objects those federates own, as their own figures report them (see
//! `board::Board::cut_off_objects`); without federate figures the page says "unknown"
//! rather than guess. Failover alternates are not counted: the rule shows what the file's
//! primary links lose.

use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use trellis_core::topology::{LinkKind, NodeKind, Topology};

#[derive(Clone, Debug, Serialize)]
pub struct GraphNode {
    pub name: String,
    pub kind: NodeKind,
}

/// A link of the file between nodes `a` and `b` (indices into [`Graph::nodes`]; `a` dials).
#[derive(Clone, Debug, Serialize)]
pub struct GraphLink {
    pub a: usize,
    pub b: usize,
    /// The clique it belongs to, or none for a parent link.
    pub clique: Option<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct GraphClique {
    pub name: String,
    pub members: Vec<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Graph {
    pub nodes: Vec<GraphNode>,
    pub links: Vec<GraphLink>,
    pub cliques: Vec<GraphClique>,
    /// Per node, the federates its failure cuts off (see the module docs).
    #[serde(skip)]
    pub cut_off: Vec<Vec<usize>>,
    /// Per node, the nodes it links to.
    #[serde(skip)]
    pub neighbours: Vec<Vec<usize>>,
    #[serde(skip)]
    by_name: HashMap<String, usize>,
    #[serde(skip)]
    by_pair: HashMap<(usize, usize), usize>,
}

impl Graph {
    pub fn from_topology(topology: &Topology) -> Graph {
        let nodes: Vec<GraphNode> = topology
            .nodes()
            .iter()
            .map(|node| GraphNode {
                name: node.name.clone(),
                kind: node.kind,
            })
            .collect();
        let links: Vec<GraphLink> = topology
            .links()
            .iter()
            .map(|link| GraphLink {
                a: link.dialer,
                b: link.listener,
                clique: match link.kind {
                    LinkKind::Parent => None,
                    LinkKind::Peer { clique } => Some(clique),
                },
            })
            .collect();
        let cliques = topology
            .cliques()
            .iter()
            .map(|clique| GraphClique {
                name: clique.name.clone(),
                members: clique.members.clone(),
            })
            .collect();
        let by_name = nodes
            .iter()
            .enumerate()
            .map(|(index, node)| (node.name.clone(), index))
            .collect();
        let mut by_pair = HashMap::new();
        for (index, link) in links.iter().enumerate() {
            by_pair.insert((link.a.min(link.b), link.a.max(link.b)), index);
        }
        let mut graph = Graph {
            nodes,
            links,
            cliques,
            cut_off: Vec::new(),
            neighbours: Vec::new(),
            by_name,
            by_pair,
        };
        graph.neighbours = graph.compute_neighbours();
        graph.cut_off = (0..graph.nodes.len())
            .map(|node| graph.compute_cut_off(node))
            .collect();
        graph
    }

    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The link between nodes `a` and `b`, either way round.
    pub fn link_between(&self, a: usize, b: usize) -> Option<usize> {
        self.by_pair.get(&(a.min(b), a.max(b))).copied()
    }

    pub fn is_federate(&self, node: usize) -> bool {
        self.nodes[node].kind == NodeKind::Federate
    }

    fn compute_neighbours(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.nodes.len()];
        for link in &self.links {
            out[link.a].push(link.b);
            out[link.b].push(link.a);
        }
        out
    }

    /// The federates `failed`'s failure cuts off (module docs), in index order.
    fn compute_cut_off(&self, failed: usize) -> Vec<usize> {
        let neighbours = &self.neighbours;
        let mut part_of = vec![usize::MAX; self.nodes.len()];
        let mut parts: Vec<(usize, usize)> = Vec::new(); // (federates, nodes)
        for start in 0..self.nodes.len() {
            if start == failed || part_of[start] != usize::MAX {
                continue;
            }
            let part = parts.len();
            parts.push((0, 0));
            let mut queue = VecDeque::from([start]);
            part_of[start] = part;
            while let Some(node) = queue.pop_front() {
                parts[part].1 += 1;
                parts[part].0 += usize::from(self.is_federate(node));
                for &next in &neighbours[node] {
                    if next != failed && part_of[next] == usize::MAX {
                        part_of[next] = part;
                        queue.push_back(next);
                    }
                }
            }
        }
        // The first of the biggest parts: max_by_key keeps the last, so search reversed.
        let rest = (0..parts.len()).rev().max_by_key(|&p| parts[p]);
        (0..self.nodes.len())
            .filter(|&node| self.is_federate(node))
            .filter(|&node| node == failed || Some(part_of[node]) != rest)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> Graph {
        // root — a — {fa-1, fa-2}; root — b — {fb-1, fb-2, fb-3}; fr directly under root.
        let text = r#"
            [[router]]
            name = "root"
            listen = ["tcp://127.0.0.1:7000"]
            [[router]]
            name = "a"
            listen = ["tcp://127.0.0.1:7001"]
            parent = "root"
            [[router]]
            name = "b"
            listen = ["tcp://127.0.0.1:7002"]
            parent = "root"
            [[federate]]
            name = "fa"
            count = 2
            parent = "a"
            [[federate]]
            name = "fb"
            count = 3
            parent = "b"
            [[federate]]
            name = "fr"
            parent = "root"
        "#;
        Graph::from_topology(&Topology::from_toml(text).unwrap())
    }

    fn names(graph: &Graph, nodes: &[usize]) -> Vec<String> {
        nodes.iter().map(|&n| graph.nodes[n].name.clone()).collect()
    }

    #[test]
    fn a_leaf_router_cuts_off_the_federates_below_it() {
        let graph = tree();
        let a = graph.node_index("a").unwrap();
        assert_eq!(names(&graph, &graph.cut_off[a]), ["fa-1", "fa-2"]);
    }

    #[test]
    fn the_root_cuts_off_everything_but_the_biggest_part() {
        let graph = tree();
        let root = graph.node_index("root").unwrap();
        // b's part (3 federates) is the rest; a's two and fr are cut off from it.
        assert_eq!(names(&graph, &graph.cut_off[root]), ["fa-1", "fa-2", "fr"]);
    }

    #[test]
    fn a_federate_cuts_off_itself() {
        let graph = tree();
        let fed = graph.node_index("fb-2").unwrap();
        assert_eq!(names(&graph, &graph.cut_off[fed]), ["fb-2"]);
    }

    #[test]
    fn a_clique_member_cuts_off_only_what_hangs_below_it() {
        let text = r#"
            [[router]]
            name = "m1"
            listen = ["tcp://127.0.0.1:7000"]
            [[router]]
            name = "m2"
            listen = ["tcp://127.0.0.1:7001"]
            [[router]]
            name = "m3"
            listen = ["tcp://127.0.0.1:7002"]
            [[clique]]
            name = "mesh"
            members = ["m1", "m2", "m3"]
            [[federate]]
            name = "f"
            count = 2
            parent = "m2"
            [[federate]]
            name = "g"
            parent = "m3"
        "#;
        let graph = Graph::from_topology(&Topology::from_toml(text).unwrap());
        assert_eq!(graph.links.len(), 6);
        let m1 = graph.node_index("m1").unwrap();
        let m2 = graph.node_index("m2").unwrap();
        assert!(graph.cut_off[m1].is_empty());
        assert_eq!(names(&graph, &graph.cut_off[m2]), ["f-1", "f-2"]);
        let clique_links = graph.links.iter().filter(|l| l.clique.is_some()).count();
        assert_eq!(clique_links, 3);
        assert!(graph.link_between(m2, m1).is_some());
    }
}
