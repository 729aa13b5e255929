//! Checks of the routing invariants over a simulated network, used by the simulation tests:
//! the union rule at every link, exactly-once delivery to exactly the interested, and no
//! silent reliable loss (see the module notes of `sim`).

use super::{NodeIndex, Sim, StreamMark};
use crate::router::Event;
use crate::wire::{NodeId, TransportClass};
use crate::InterestId;
use roaring::RoaringBitmap;
use rustc_hash::{FxHashMap, FxHashSet};
use std::time::Duration;

impl Sim {
    /// DESIGN.md §2's rule, at every node and link: what a node declared toward a link equals
    /// the union of what its links outside that link's block declared to it (plus its own
    /// application's interest), and the far end received exactly that.
    pub fn check_interest(&self, federations: &[&str]) -> Result<(), String> {
        for node in &self.nodes {
            let router = &node.router;
            let links: Vec<_> = router
                .link_ids()
                .into_iter()
                .filter_map(|id| router.link_info(id))
                .filter(|info| info.up)
                .collect();
            let app = router.application_link();
            for federation in federations {
                for link in links.iter().filter(|l| Some(l.id) != app) {
                    let mut expected = RoaringBitmap::new();
                    for other in &links {
                        if other.block != link.block {
                            if Some(other.id) == app {
                                if router
                                    .config()
                                    .application
                                    .as_ref()
                                    .is_some_and(|a| a.federation == *federation)
                                {
                                    expected |= router.interest();
                                }
                            } else {
                                expected |= router.received_interest(other.id, federation);
                            }
                        }
                    }
                    let carries = link
                        .peer
                        .as_ref()
                        .is_some_and(|p| p.federation.is_empty() || p.federation == *federation);
                    if !carries {
                        expected.clear();
                    }
                    let declared = router.declared_interest(link.id, federation);
                    if declared != expected {
                        return Err(format!(
                            "seed {}: {} declares {:?} toward {} in {federation:?}, the union rule gives {:?}",
                            self.seed, node.name, declared, link.label, expected
                        ));
                    }
                    if let Some(&(pipe, end)) = node.links.get(&link.id) {
                        let (far_node, far_link) = self.pipes[pipe].ends[1 - end];
                        let received = self.nodes[far_node]
                            .router
                            .received_interest(far_link, federation);
                        if received != declared {
                            return Err(format!(
                                "seed {}: {} declared {:?} toward {} in {federation:?} but it holds {:?}",
                                self.seed, node.name, declared, self.nodes[far_node].name, received
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The nodes other than `source` whose application shares its federation and declared
    /// at least one of `ids`.
    pub fn interested_nodes(&self, source: NodeIndex, ids: &[InterestId]) -> Vec<NodeIndex> {
        let federation = |n: NodeIndex| {
            self.nodes[n]
                .router
                .config()
                .application
                .as_ref()
                .map(|a| a.federation.clone())
        };
        let source_federation = federation(source);
        (0..self.nodes.len())
            .filter(|&n| {
                n != source && federation(n).is_some() && federation(n) == source_federation
            })
            .filter(|&n| {
                let interest = self.nodes[n].router.interest();
                ids.iter().any(|id| interest.contains(*id))
            })
            .collect()
    }

    /// How many times `node`'s application received (source, seq).
    pub fn times_received(&self, node: NodeIndex, source: NodeId, seq: u64) -> usize {
        self.nodes[node]
            .received
            .iter()
            .filter(|r| r.source == source && r.seq == seq)
            .count()
    }

    /// Publish a reliable message from each `(source, ids)`, let the network go quiet within
    /// `settle`, and check that each reached exactly the nodes among `receivers` that were
    /// interested when it was published, once each.
    pub fn check_exactly_once(
        &mut self,
        publications: &[(NodeIndex, Vec<InterestId>)],
        receivers: &[NodeIndex],
        settle: Duration,
    ) -> Result<(), String> {
        let mut published = Vec::new();
        for (source, ids) in publications {
            let expected = self.interested_nodes(*source, ids);
            let seq = self
                .publish(*source, ids, TransportClass::Reliable, b"verify")
                .map_err(|e| format!("seed {}: publish failed: {e}", self.seed))?;
            published.push((*source, seq, ids, expected));
        }
        self.run_until_quiet(settle)?;
        for (source, seq, ids, expected) in published {
            let source_id = self.node_id(source);
            for &node in receivers {
                let times = self.times_received(node, source_id, seq);
                let want = usize::from(expected.contains(&node));
                if times != want {
                    return Err(format!(
                        "seed {}: {} received message {seq} from {} (ids {ids:?}) {times} times, expected {want}",
                        self.seed, self.nodes[node].name, self.nodes[source].name
                    ));
                }
            }
        }
        self.check_no_duplicates()
    }

    /// No reliable loss passed in silence: at every node, for every source, the messages
    /// missing from the middle of each stream the node received (same id, same epoch)
    /// add up to exactly what the node's router reported lost (`Event::ReliableLost`).
    pub fn check_losses_reported(&self) -> Result<(), String> {
        for node in &self.nodes {
            let mut streams: FxHashMap<(NodeId, StreamMark), Vec<u32>> = FxHashMap::default();
            for r in &node.received {
                for mark in &r.streams {
                    let key = StreamMark { number: 0, ..*mark };
                    streams
                        .entry((r.source, key))
                        .or_default()
                        .push(mark.number);
                }
            }
            let mut missing: FxHashMap<NodeId, u64> = FxHashMap::default();
            for ((source, _), mut numbers) in streams {
                numbers.sort_unstable();
                let span = u64::from(numbers[numbers.len() - 1] - numbers[0]) + 1;
                *missing.entry(source).or_default() += span - numbers.len() as u64;
            }
            missing.retain(|_, n| *n > 0);
            let mut reported: FxHashMap<NodeId, u64> = FxHashMap::default();
            for event in &node.events {
                if let Event::ReliableLost { source, count } = event {
                    *reported.entry(*source).or_default() += count;
                }
            }
            if missing != reported {
                return Err(format!(
                    "seed {}: {} missed reliable messages {missing:?} (by source) but was told \
                     of {reported:?}",
                    self.seed, node.name
                ));
            }
        }
        Ok(())
    }

    /// Every node's application received every message at most once.
    pub fn check_no_duplicates(&self) -> Result<(), String> {
        for node in &self.nodes {
            let mut seen = FxHashSet::default();
            for r in &node.received {
                if !seen.insert((r.source, r.seq)) {
                    return Err(format!(
                        "seed {}: {} received message {} of source {} twice",
                        self.seed, node.name, r.seq, r.source
                    ));
                }
            }
        }
        Ok(())
    }
}
