//! Random block graphs: cliques of random sizes and parent links, grown from one node so
//! blocks meet only at shared nodes. Every such graph must validate, read back from its
//! TOML, and have the links histogram a brute-force search finds. Linking two of its nodes
//! that are not neighbours closes a cycle through several blocks, which must be refused.

use proptest::prelude::*;
use proptest::sample::Index;
use std::collections::{BTreeMap, VecDeque};
use trellis_core::topology::{
    CliqueEntry, FederateEntry, Problem, RouterEntry, Topology, TopologyError, TopologyFile,
};

#[derive(Clone, Debug)]
enum Step {
    /// A new node becomes the child of an existing one.
    Child { at: Index, router: bool },
    /// A new node becomes the parent of an existing one that has none yet.
    Parent { at: Index, router: bool },
    /// An existing node and `new` new nodes form a clique.
    Clique { at: Index, new: usize, routers: u8 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (any::<Index>(), any::<bool>()).prop_map(|(at, router)| Step::Child { at, router }),
        (any::<Index>(), any::<bool>()).prop_map(|(at, router)| Step::Parent { at, router }),
        (any::<Index>(), 1..=4usize, any::<u8>()).prop_map(|(at, new, routers)| Step::Clique {
            at,
            new,
            routers
        }),
    ]
}

struct Graph {
    names: Vec<String>,
    router: Vec<bool>,
    parent: Vec<Option<usize>>,
    cliques: Vec<Vec<usize>>,
}

impl Graph {
    fn grow(first_is_router: bool, steps: &[Step]) -> Graph {
        let mut graph = Graph {
            names: Vec::new(),
            router: Vec::new(),
            parent: Vec::new(),
            cliques: Vec::new(),
        };
        graph.add(first_is_router);
        for step in steps {
            match step {
                Step::Child { at, router } => {
                    let at = at.index(graph.names.len());
                    let child = graph.add(*router);
                    graph.parent[child] = Some(at);
                }
                Step::Parent { at, router } => {
                    let at = at.index(graph.names.len());
                    let new = graph.add(*router);
                    if graph.parent[at].is_none() {
                        graph.parent[at] = Some(new);
                    } else {
                        graph.parent[new] = Some(at);
                    }
                }
                Step::Clique { at, new, routers } => {
                    let mut members = vec![at.index(graph.names.len())];
                    for bit in 0..*new {
                        members.push(graph.add(routers & (1 << bit) != 0));
                    }
                    graph.cliques.push(members);
                }
            }
        }
        graph
    }

    fn add(&mut self, router: bool) -> usize {
        self.names.push(format!("n{}", self.names.len()));
        self.router.push(router);
        self.parent.push(None);
        self.names.len() - 1
    }

    fn adjacency(&self) -> Vec<Vec<usize>> {
        let mut adjacent = vec![Vec::new(); self.names.len()];
        for (child, parent) in self.parent.iter().enumerate() {
            if let Some(parent) = *parent {
                adjacent[child].push(parent);
                adjacent[parent].push(child);
            }
        }
        for clique in &self.cliques {
            for &a in clique {
                adjacent[a].extend(clique.iter().copied().filter(|&b| b != a));
            }
        }
        adjacent
    }

    fn distances_from(&self, adjacent: &[Vec<usize>], source: usize) -> Vec<usize> {
        let mut distance = vec![usize::MAX; adjacent.len()];
        distance[source] = 0;
        let mut queue = VecDeque::from([source]);
        while let Some(node) = queue.pop_front() {
            for &far in &adjacent[node] {
                if distance[far] == usize::MAX {
                    distance[far] = distance[node] + 1;
                    queue.push_back(far);
                }
            }
        }
        distance
    }

    fn file(&self) -> TopologyFile {
        let mut file = TopologyFile::default();
        for (index, name) in self.names.iter().enumerate() {
            let listen = vec![format!("tcp://127.0.0.1:{}", 10_000 + index)];
            let parent = self.parent[index].map(|p| self.names[p].clone());
            if self.router[index] {
                file.routers.push(RouterEntry {
                    name: name.clone(),
                    listen,
                    parent,
                    ..RouterEntry::default()
                });
            } else {
                file.federates.push(FederateEntry {
                    name: name.clone(),
                    listen,
                    parent,
                    ..FederateEntry::default()
                });
            }
        }
        for (index, members) in self.cliques.iter().enumerate() {
            file.cliques.push(CliqueEntry {
                name: format!("c{index}"),
                members: members.iter().map(|&m| self.names[m].clone()).collect(),
                ..CliqueEntry::default()
            });
        }
        file
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn grown_block_graphs_are_valid(
        first_is_router in any::<bool>(),
        steps in prop::collection::vec(step(), 1..30),
    ) {
        let graph = Graph::grow(first_is_router, &steps);
        let topology = Topology::from_file(&graph.file());
        let topology = match topology {
            Ok(topology) => topology,
            Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
        };
        let back = Topology::from_toml(&topology.to_toml().unwrap()).unwrap();
        prop_assert_eq!(&back, &topology);

        // Brute force: every pair of federates, breadth-first over every link.
        let adjacent = graph.adjacency();
        let federates: Vec<usize> = (0..graph.names.len()).filter(|&n| !graph.router[n]).collect();
        let mut expected = BTreeMap::new();
        for (i, &source) in federates.iter().enumerate() {
            let distance = graph.distances_from(&adjacent, source);
            for &target in &federates[i + 1..] {
                *expected.entry(distance[target]).or_insert(0u64) += 1;
            }
        }
        prop_assert_eq!(topology.summary().links_histogram, expected);
    }

    #[test]
    fn a_link_across_blocks_is_refused(
        first_is_router in any::<bool>(),
        steps in prop::collection::vec(step(), 1..30),
        pick in any::<Index>(),
    ) {
        let mut graph = Graph::grow(first_is_router, &steps);
        let adjacent = graph.adjacency();
        let mut far_pairs = Vec::new();
        for a in 0..graph.names.len() {
            let distance = graph.distances_from(&adjacent, a);
            for (b, &apart) in distance.iter().enumerate().skip(a + 1) {
                if apart >= 2 {
                    far_pairs.push((a, b, apart));
                }
            }
        }
        prop_assume!(!far_pairs.is_empty());
        let (a, b, apart) = far_pairs[pick.index(far_pairs.len())];
        graph.cliques.push(vec![a, b]);
        let (name_a, name_b) = (&graph.names[a], &graph.names[b]);

        let problems = match Topology::from_file(&graph.file()) {
            Ok(_) => return Err(TestCaseError::fail(format!("{name_a}-{name_b} accepted"))),
            Err(TopologyError::Invalid(problems)) => problems,
            Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
        };
        prop_assert_eq!(problems.len(), 1, "{:?}", problems);
        let adjacent = graph.adjacency();
        match &problems[0] {
            Problem::NotAClique { component, missing } => {
                prop_assert!(component.contains(name_a) && component.contains(name_b));
                prop_assert!(component.contains(&missing.0) && component.contains(&missing.1));
                let index = |name: &String| graph.names.iter().position(|n| n == name).unwrap();
                prop_assert!(!adjacent[index(&missing.0)].contains(&index(&missing.1)));
            }
            // Two links of two-node blocks plus the new one: a triangle of three declarations.
            Problem::SplitClique { component, declarations } => {
                prop_assert_eq!(apart, 2);
                prop_assert_eq!(component.len(), 3);
                prop_assert_eq!(declarations.len(), 3);
                prop_assert!(component.contains(name_a) && component.contains(name_b));
            }
            other => return Err(TestCaseError::fail(format!("{other}"))),
        }
    }
}
