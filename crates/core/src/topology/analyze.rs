//! What `trellis topology check` reports: sizes, depth, and how many links a message
//! crosses between two federates.
//!
//! In a valid block graph a message from one federate to another follows the unique
//! shortest path and crosses each block on it once (DESIGN.md §2), so the links it crosses
//! are the length of that path, counting one link to cross a whole clique.

use super::model::{NodeKind, Topology};
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

/// The sizes and shape `trellis topology check` reports for a valid topology.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Router processes declared.
    pub routers: usize,
    /// Federate processes declared, groups counted member by member.
    pub federates: usize,
    /// Cliques declared.
    pub cliques: usize,
    /// Connections between processes: one per parent link, one per pair of clique members.
    pub links: usize,
    /// The most routers on one chain of parent links from router to parent router: 1 for a
    /// single router or a mesh, `levels` for a tree of that many router levels, 0 without
    /// routers. Cliques add nothing to it.
    pub depth: usize,
    /// For each number of links a message crosses between two distinct federates, how many
    /// unordered pairs of federates are that far apart.
    #[serde(serialize_with = "string_keys")]
    pub links_histogram: BTreeMap<usize, u64>,
}

/// JSON and TOML want string keys; the map stays ordered by number, so "10" follows "9".
fn string_keys<S: Serializer>(
    map: &BTreeMap<usize, u64>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(map.iter().map(|(links, pairs)| (links.to_string(), pairs)))
}

impl Topology {
    /// Counts, depth and the histogram of links crossed between federate pairs.
    pub fn summary(&self) -> Summary {
        Summary {
            routers: self.routers().count(),
            federates: self.federates().count(),
            cliques: self.cliques.len(),
            links: self.links.len(),
            depth: self.depth(),
            links_histogram: self.links_histogram(),
        }
    }

    fn depth(&self) -> usize {
        let router_parent = |node: usize| {
            let parent = self.nodes[node].parent.as_ref()?.node;
            (self.nodes[parent].kind == NodeKind::Router).then_some(parent)
        };
        // Routers on the chain up from each router, itself included; 0 = not yet known.
        let mut chain = vec![0usize; self.nodes.len()];
        let mut deepest = 0;
        for start in (0..self.nodes.len()).filter(|&n| self.nodes[n].kind == NodeKind::Router) {
            if chain[start] > 0 {
                // Already climbed through from a router below it, which is deeper.
                continue;
            }
            let mut climb = vec![start];
            let mut above = 0;
            while let Some(parent) = climb.last().and_then(|&node| router_parent(node)) {
                if chain[parent] > 0 {
                    above = chain[parent];
                    break;
                }
                climb.push(parent);
            }
            for node in climb.into_iter().rev() {
                above += 1;
                chain[node] = above;
            }
            deepest = deepest.max(chain[start]);
        }
        deepest
    }

    /// One breadth-first search per anchor rather than per federate: a federate whose only
    /// link is to its parent (the common case) never lies on anyone else's path, so it is
    /// counted as one more link beyond its parent.
    fn links_histogram(&self) -> BTreeMap<usize, u64> {
        let graph = self.fold_leaves();
        // An anchor stands for its leaves, and for itself when it is a federate.
        let itself = |node: usize| self.federates_in(node);
        let mut histogram = BTreeMap::new();
        let mut add = |links: usize, pairs: u64| {
            if pairs > 0 {
                *histogram.entry(links).or_insert(0) += pairs;
            }
        };
        let mut search = Search::new(self.nodes.len(), self.cliques.len());
        for (round, &source) in graph.anchors.iter().enumerate() {
            let leaves = graph.leaves_under[source];
            add(2, leaves * leaves.saturating_sub(1) / 2);
            add(1, leaves * itself(source));
            search.run(self, &graph, source, round);
            for &target in graph.anchors.iter().filter(|&&target| target > source) {
                let between = search.distance[target];
                let (source_self, target_self) = (itself(source), itself(target));
                let target_leaves = graph.leaves_under[target];
                add(between, source_self * target_self);
                add(
                    between + 1,
                    source_self * target_leaves + leaves * target_self,
                );
                add(between + 2, leaves * target_leaves);
            }
        }
        histogram
    }

    /// 1 for a federate, 0 for a router.
    fn federates_in(&self, node: usize) -> u64 {
        u64::from(self.nodes[node].kind == NodeKind::Federate)
    }

    /// The graph `links_histogram` searches: each leaf federate folded into the node it
    /// hangs from.
    fn fold_leaves(&self) -> FoldedGraph {
        let count = self.nodes.len();
        let mut has_child = vec![false; count];
        let mut cliques_of = vec![Vec::new(); count];
        for (index, clique) in self.cliques.iter().enumerate() {
            for &member in &clique.members {
                cliques_of[member].push(index);
            }
        }
        for node in &self.nodes {
            if let Some(parent) = &node.parent {
                has_child[parent.node] = true;
            }
        }
        // Where each leaf federate hangs; everything else is on the searched graph.
        let leaf_parent = |node: usize| {
            let n = &self.nodes[node];
            let parent = n.parent.as_ref()?.node;
            let leaf =
                n.kind == NodeKind::Federate && !has_child[node] && cliques_of[node].is_empty();
            leaf.then_some(parent)
        };
        let mut leaves_under = vec![0u64; count];
        let mut on_graph = vec![true; count];
        let mut tree_neighbours = vec![Vec::new(); count];
        for node in 0..count {
            match leaf_parent(node) {
                Some(parent) => {
                    leaves_under[parent] += 1;
                    on_graph[node] = false;
                }
                None => {
                    if let Some(parent) = &self.nodes[node].parent {
                        tree_neighbours[node].push(parent.node);
                        tree_neighbours[parent.node].push(node);
                    }
                }
            }
        }
        let anchors: Vec<usize> = (0..count)
            .filter(|&n| on_graph[n] && leaves_under[n] + self.federates_in(n) > 0)
            .collect();
        FoldedGraph {
            cliques_of,
            tree_neighbours,
            leaves_under,
            anchors,
        }
    }
}

/// A topology with its leaf federates folded away (`Topology::fold_leaves`).
struct FoldedGraph {
    /// The cliques each node is a member of.
    cliques_of: Vec<Vec<usize>>,
    /// Parent and child links between nodes left on the graph.
    tree_neighbours: Vec<Vec<usize>>,
    /// How many leaf federates hang from each node.
    leaves_under: Vec<u64>,
    /// The nodes left on the graph that stand for at least one federate.
    anchors: Vec<usize>,
}

/// A breadth-first search's state, kept from one search to the next so each costs only
/// the nodes it reached.
struct Search {
    distance: Vec<usize>,
    /// The round in which each clique was last crossed.
    clique_seen: Vec<usize>,
    reached: Vec<usize>,
}

impl Search {
    fn new(nodes: usize, cliques: usize) -> Search {
        Search {
            distance: vec![usize::MAX; nodes],
            clique_seen: vec![usize::MAX; cliques],
            reached: Vec::new(),
        }
    }

    /// Links from `source` to every node of `graph` (search number `round`) into `distance`.
    fn run(&mut self, topology: &Topology, graph: &FoldedGraph, source: usize, round: usize) {
        let Search {
            distance,
            clique_seen,
            reached,
        } = self;
        for node in reached.drain(..) {
            distance[node] = usize::MAX;
        }
        distance[source] = 0;
        reached.push(source);
        let mut next = 0;
        while let Some(&node) = reached.get(next) {
            next += 1;
            let far_distance = distance[node] + 1;
            let mut visit = |far: usize, reached: &mut Vec<usize>| {
                if distance[far] == usize::MAX {
                    distance[far] = far_distance;
                    reached.push(far);
                }
            };
            for &far in &graph.tree_neighbours[node] {
                visit(far, reached);
            }
            for &clique in &graph.cliques_of[node] {
                // A clique is crossed in one link; its members are all as far as each other.
                if clique_seen[clique] != round {
                    clique_seen[clique] = round;
                    for &far in &topology.cliques[clique].members {
                        visit(far, reached);
                    }
                }
            }
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "routers    {}", self.routers)?;
        writeln!(f, "federates  {}", self.federates)?;
        writeln!(f, "cliques    {}", self.cliques)?;
        writeln!(f, "links      {}", self.links)?;
        writeln!(
            f,
            "depth      {} (routers on the longest chain of parent links)",
            self.depth
        )?;
        if self.links_histogram.is_empty() {
            return writeln!(f, "no two federates to send between");
        }
        writeln!(f, "links a message crosses between two federates:")?;
        for (links, pairs) in &self.links_histogram {
            let link_noun = if *links == 1 { "link " } else { "links" };
            let pair_noun = if *pairs == 1 { "pair" } else { "pairs" };
            writeln!(f, "  {links:>3} {link_noun}  {pairs:>8} {pair_noun}")?;
        }
        Ok(())
    }
}
