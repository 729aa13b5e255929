//! Alternate parents: N+1 failover, as the JESPP paper proposes.
//!
//! A router or federate may list `alternates`: parents it attaches to instead, in turn, when
//! the link to its parent fails. It holds one attachment at a time, so the topology in force
//! at any moment is the file with each node's parent replaced by the one it is attached to
//! now, less the nodes that are down. Removing nodes keeps a block graph a block graph
//! (block graphs are closed under induced subgraphs), so the file is safe exactly when every
//! combination of attachments is a valid topology. That is what this module checks, by
//! building each combination as a file of its own and validating it:
//!
//! - A federate entry that nothing else links to (no listen address, no member in a clique,
//!   parent or alternate of nobody) is a leaf whatever parent it takes: it cannot close a
//!   cycle. Each of its alternates is checked on its own.
//! - Every other entry with alternates (routers, above all) is checked in every combination
//!   with the others: two routers that fail over into each other's subtrees are caught even
//!   though each alternate alone is fine. At most [`MAX_FAILOVER_COMBINATIONS`] are tried;
//!   past that the file is refused rather than half-checked.

use super::file::TopologyFile;
use super::model::{DialTarget, LinkKind, Topology};
use super::problem::Problem;
use rustc_hash::FxHashSet;

/// Most combinations of attachments checked for one file.
pub const MAX_FAILOVER_COMBINATIONS: u64 = 1024;

/// Failing combinations reported at most: the first few say what is wrong.
const MAX_REPORTED: usize = 3;

/// One alternate parent of a node, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternate {
    /// Index in [`Topology::nodes`].
    pub node: usize,
    /// Where the node dials it.
    pub target: DialTarget,
}

/// An entry of the file that lists alternates: (is a router, index among its kind).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
struct Entry {
    router: bool,
    index: usize,
}

impl Entry {
    fn alternates(self, file: &TopologyFile) -> &[String] {
        if self.router {
            &file.routers[self.index].alternates
        } else {
            &file.federates[self.index].alternates
        }
    }

    fn name(self, file: &TopologyFile) -> &str {
        if self.router {
            &file.routers[self.index].name
        } else {
            &file.federates[self.index].name
        }
    }

    fn parent(self, file: &TopologyFile) -> Option<&str> {
        if self.router {
            file.routers[self.index].parent.as_deref()
        } else {
            file.federates[self.index].parent.as_deref()
        }
    }

    fn set_parent(self, file: &mut TopologyFile, parent: &str) {
        let slot = if self.router {
            &mut file.routers[self.index].parent
        } else {
            &mut file.federates[self.index].parent
        };
        *slot = Some(parent.to_owned());
    }

    /// The nodes the entry declares (a federate group declares several).
    fn members(self, file: &TopologyFile) -> Vec<String> {
        if self.router {
            return vec![file.routers[self.index].name.clone()];
        }
        let entry = &file.federates[self.index];
        match entry.count {
            None => vec![entry.name.clone()],
            Some(count) => (1..=count).map(|i| format!("{}-{i}", entry.name)).collect(),
        }
    }
}

/// Check the alternates of a file whose primary topology `primary` is valid; give each node
/// its resolved alternates, in [`Topology::nodes`] order.
pub(super) fn resolve(
    file: &TopologyFile,
    primary: &Topology,
) -> Result<Vec<Vec<Alternate>>, Vec<Problem>> {
    let entries = entries(file);
    let mut problems = names(file, primary, &entries);
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut resolved = vec![Vec::new(); primary.nodes().len()];
    // Each alternate on its own: checks it, and gives the address to dial it at.
    for &entry in &entries {
        for alternate in entry.alternates(file) {
            match attempt(file, &[(entry, alternate)]) {
                Ok(variant) => {
                    for member in entry.members(file) {
                        let node = primary.node_index(&member).expect("members are nodes");
                        resolved[node].push(Alternate {
                            node: primary.node_index(alternate).expect("resolved above"),
                            target: parent_target(&variant, node),
                        });
                    }
                }
                Err(problem) => problems.push(problem),
            }
        }
    }
    let structural: Vec<Entry> = entries
        .iter()
        .copied()
        .filter(|&e| is_structural(file, primary, e))
        .collect();
    if problems.is_empty() && structural.len() > 1 {
        problems = combinations(file, &structural);
    }
    if problems.is_empty() {
        Ok(resolved)
    } else {
        Err(problems)
    }
}

fn entries(file: &TopologyFile) -> Vec<Entry> {
    let routers = (0..file.routers.len()).map(|index| Entry {
        router: true,
        index,
    });
    let federates = (0..file.federates.len()).map(|index| Entry {
        router: false,
        index,
    });
    routers
        .chain(federates)
        .filter(|e| !e.alternates(file).is_empty())
        .collect()
}

/// Every alternate names a node other than the entry itself and its parent, once.
fn names(file: &TopologyFile, primary: &Topology, entries: &[Entry]) -> Vec<Problem> {
    let mut problems = Vec::new();
    for &entry in entries {
        let kind = if entry.router { "router" } else { "federate" };
        let label = format!("{kind} {:?}", entry.name(file));
        if entry.parent(file).is_none() {
            problems.push(Problem::AlternatesWithoutParent { entry: label });
            continue;
        }
        let members: FxHashSet<String> = entry.members(file).into_iter().collect();
        let mut seen = FxHashSet::default();
        for alternate in entry.alternates(file) {
            let why = if primary.node_index(alternate).is_none() {
                Some("is not a declared router or federate")
            } else if members.contains(alternate) {
                Some("is the node itself")
            } else if entry.parent(file) == Some(alternate.as_str()) {
                Some("is already its parent")
            } else if !seen.insert(alternate) {
                Some("is listed twice")
            } else {
                None
            };
            if let Some(why) = why {
                problems.push(Problem::BadAlternate {
                    entry: label.clone(),
                    alternate: alternate.clone(),
                    why,
                });
            }
        }
    }
    problems
}

/// Whether other nodes link to what the entry declares: then its choice of parent can close
/// a cycle through them.
fn is_structural(file: &TopologyFile, primary: &Topology, entry: Entry) -> bool {
    if entry.router {
        return true;
    }
    let members: FxHashSet<String> = entry.members(file).into_iter().collect();
    let linked_to = |name: &String| members.contains(name);
    !file.federates[entry.index].listen.is_empty()
        || file.cliques.iter().any(|c| c.members.iter().any(linked_to))
        || primary.nodes().iter().any(|n| {
            n.parent
                .as_ref()
                .is_some_and(|p| members.contains(&primary.nodes()[p.node].name))
        })
        || file
            .routers
            .iter()
            .flat_map(|r| &r.alternates)
            .chain(file.federates.iter().flat_map(|f| &f.alternates))
            .any(linked_to)
}

/// Every combination of attachments of the structural entries in which two or more of them
/// are on an alternate (one alone was checked already).
fn combinations(file: &TopologyFile, structural: &[Entry]) -> Vec<Problem> {
    let choices: Vec<usize> = structural
        .iter()
        .map(|e| 1 + e.alternates(file).len())
        .collect();
    let total = choices
        .iter()
        .try_fold(1u64, |acc, &c| acc.checked_mul(c as u64))
        .unwrap_or(u64::MAX);
    if total > MAX_FAILOVER_COMBINATIONS {
        return vec![Problem::TooManyFailoverCombinations {
            combinations: total,
            limit: MAX_FAILOVER_COMBINATIONS,
        }];
    }
    let mut problems = Vec::new();
    let mut pick = vec![0usize; structural.len()];
    loop {
        if pick.iter().filter(|&&p| p > 0).count() > 1 {
            let switches: Vec<(Entry, &String)> = structural
                .iter()
                .zip(&pick)
                .filter(|(_, &p)| p > 0)
                .map(|(&e, &p)| (e, &e.alternates(file)[p - 1]))
                .collect();
            if let Err(problem) = attempt(file, &switches) {
                problems.push(problem);
                if problems.len() == MAX_REPORTED {
                    return problems;
                }
            }
        }
        // The next combination, counting in mixed radix.
        let mut digit = 0;
        loop {
            if digit == pick.len() {
                return problems;
            }
            pick[digit] += 1;
            if pick[digit] < choices[digit] {
                break;
            }
            pick[digit] = 0;
            digit += 1;
        }
    }
}

/// The file with these entries attached to these alternates, validated.
fn attempt(file: &TopologyFile, switches: &[(Entry, &String)]) -> Result<Topology, Problem> {
    let mut variant = file.clone();
    for router in &mut variant.routers {
        router.alternates.clear();
    }
    for federate in &mut variant.federates {
        federate.alternates.clear();
    }
    for &(entry, alternate) in switches {
        entry.set_parent(&mut variant, alternate);
    }
    Topology::from_file(&variant).map_err(|error| Problem::FailoverInvalid {
        attachments: switches
            .iter()
            .map(|(e, alternate)| format!("{:?} attached to {alternate:?}", e.name(file)))
            .collect::<Vec<_>>()
            .join(", "),
        problems: error.problems().iter().map(ToString::to_string).collect(),
    })
}

/// Where `node` dials its parent in `topology`.
fn parent_target(topology: &Topology, node: usize) -> DialTarget {
    topology
        .links()
        .iter()
        .find(|l| l.dialer == node && l.kind == LinkKind::Parent)
        .map(|l| l.target.clone())
        .expect("a valid topology has a link to each declared parent")
}
