//! Interest propagation (DESIGN.md §2): what this router declares toward a block is the
//! union of the interest of every link outside that block. Changes go out as deltas; a link
//! that comes up gets the full set.

use super::event::{Event, PeerInfo};
use super::index::Slot;
use super::link::{BlockId, FedIndex, LinkState};
use super::{Block, Router};
use crate::interest::ranges_of;
use crate::time::Time;
use crate::wire::{InterestFrame, InterestOp, Role};
use roaring::RoaringBitmap;

impl Router {
    /// The far side's hello checked out: place the link in its block and declare our interest.
    pub(super) fn link_up(&mut self, now: Time, slot: Slot, peer: PeerInfo) {
        // Before the link joins a block: the interest withdrawn here must not be taken for
        // what the new block was declared.
        if peer.role == Role::Parent {
            self.left_other_parents(now, slot, peer.node_id);
        }
        let block = match peer.role {
            Role::Peer => match self.cliques.get(&peer.clique) {
                Some(&block) => block,
                None => self.new_block(Some(peer.clique.clone())),
            },
            _ => self.new_block(None),
        };
        self.join_block(slot, block);
        let link = self.link_mut(slot);
        link.state = LinkState::Up;
        let id = link.id;
        // Before any interest: the far side may take our session to resume a suspended link.
        if !self.link(slot).is_app() {
            self.send_session(now, slot, peer.node_id);
        }
        for fed in 0..self.feds.len() as FedIndex {
            if self.feds[fed as usize].is_none() || !self.link(slot).carries(fed) {
                continue;
            }
            let declared = match self.fed(fed).declared.get(&block) {
                Some(set) => set.clone(),
                None => {
                    let set = self.union_outside(fed, block);
                    self.feds[fed as usize]
                        .as_mut()
                        .expect("federation is live")
                        .declared
                        .insert(block, set.clone());
                    set
                }
            };
            // Even an empty set goes to another node: if it kept a suspended link from us,
            // it carries that link's interest over to this one (`Router::adopt`), and only
            // this Replace says what of it still holds.
            if !declared.is_empty() || !self.link(slot).is_app() {
                let federation = self.fed(fed).id;
                let max = self.max_frame_size;
                let ranges = ranges_of(&declared);
                self.send_control(now, slot, |out| {
                    InterestFrame::encode(out, federation, InterestOp::Replace, &ranges, max)
                });
            }
        }
        self.events.push_back(Event::LinkUp { link: id, peer });
        self.update_registry_route(now);
    }

    /// Union of the interest of every up link outside `block` that carries `fed`.
    fn union_outside(&self, fed: FedIndex, block: BlockId) -> RoaringBitmap {
        let mut union = RoaringBitmap::new();
        for link in self.links.iter().flatten() {
            if link.is_up() && link.block != Some(block) && link.carries(fed) {
                if let Some(set) = link.interest(fed) {
                    union |= set;
                }
            }
        }
        union
    }

    /// Blocks that carry `fed` through at least one up, non-application link.
    fn blocks_carrying(&self, fed: FedIndex) -> Vec<BlockId> {
        let mut out = Vec::new();
        for (block, entry) in self.blocks.iter().enumerate() {
            let Some(entry) = entry else { continue };
            let carries = entry.members.iter().any(|&m| {
                let link = self.link(m);
                link.is_up() && !link.is_app() && link.carries(fed)
            });
            if carries {
                out.push(block as BlockId);
            }
        }
        out
    }

    /// `origin` now declares `added` and no longer declares `removed` (its own set is already
    /// updated). Update the index, then every other block's declared set, and tell each block
    /// what changed.
    pub(super) fn propagate(
        &mut self,
        now: Time,
        fed: FedIndex,
        origin: Slot,
        added: &RoaringBitmap,
        removed: &RoaringBitmap,
    ) {
        if added.is_empty() && removed.is_empty() {
            return;
        }
        let origin_block = self.link(origin).block;
        {
            let index = &mut self.feds[fed as usize]
                .as_mut()
                .expect("federation is live")
                .index;
            index.add(added, origin);
            index.remove(removed, origin);
        }
        for block in self.blocks_carrying(fed) {
            if Some(block) == origin_block {
                continue;
            }
            let state = self.feds[fed as usize]
                .as_mut()
                .expect("federation is live");
            let declared = state.declared.entry(block).or_default();
            let grow = added - &*declared;
            let mut shrink = RoaringBitmap::new();
            for id in removed & &*declared {
                let still_covered = state.index.links(id).iter().any(|&l| {
                    self.links[l as usize]
                        .as_ref()
                        .expect("indexed link is live")
                        .block
                        != Some(block)
                });
                if !still_covered {
                    shrink.insert(id);
                }
            }
            *declared |= &grow;
            *declared -= &shrink;
            if grow.is_empty() && shrink.is_empty() {
                continue;
            }
            let federation = state.id;
            let max = self.max_frame_size;
            let frames = self.encode(|out| {
                InterestFrame::encode(out, federation, InterestOp::Add, &ranges_of(&grow), max);
                InterestFrame::encode(
                    out,
                    federation,
                    InterestOp::Remove,
                    &ranges_of(&shrink),
                    max,
                );
            });
            let members = self.blocks[block as usize]
                .as_ref()
                .expect("block is live")
                .members
                .clone();
            for member in members {
                let link = self.link(member);
                if link.is_up() && !link.is_app() && link.carries(fed) {
                    self.queue_control(now, member, frames.clone());
                }
            }
        }
    }

    pub(super) fn new_block(&mut self, clique: Option<String>) -> BlockId {
        let entry = Block {
            members: Vec::new(),
            clique: clique.clone(),
        };
        let block = match self.free_blocks.pop() {
            Some(block) => {
                self.blocks[block as usize] = Some(entry);
                block
            }
            None => {
                self.blocks.push(Some(entry));
                (self.blocks.len() - 1) as BlockId
            }
        };
        if let Some(name) = clique {
            self.cliques.insert(name, block);
        }
        block
    }

    pub(super) fn join_block(&mut self, slot: Slot, block: BlockId) {
        self.blocks[block as usize]
            .as_mut()
            .expect("block is live")
            .members
            .push(slot);
        self.link_mut(slot).block = Some(block);
    }

    /// Take `slot` out of its block, freeing the block (and what was declared to it) when it
    /// was the last member.
    pub(super) fn leave_block(&mut self, slot: Slot) {
        let Some(block) = self.link_mut(slot).block.take() else {
            return;
        };
        let entry = self.blocks[block as usize].as_mut().expect("block is live");
        entry.members.retain(|&m| m != slot);
        if !entry.members.is_empty() {
            return;
        }
        if let Some(name) = self.blocks[block as usize].take().and_then(|b| b.clique) {
            self.cliques.remove(&name);
        }
        self.free_blocks.push(block);
        for fed in self.feds.iter_mut().flatten() {
            fed.declared.remove(&block);
        }
    }
}
