//! Reliable losses, as the federate hears them: the node counts gaps in each source's
//! numbered streams (see `trellis_core::router`'s `streams`); here they become
//! `Callback::ReliableMessagesLost`, naming the sending federate when this one has heard
//! from it.

use super::RtiAmbassador;
use rustc_hash::FxHashMap;
use trellis_core::federate::message::sender_of;
use trellis_core::federate::Callback;
use trellis_core::wire::NodeId;

/// Which federate sends from which node, learned from the messages that arrive. One entry
/// per sending node of the federation, so bounded by its size.
#[derive(Default)]
pub(super) struct Senders {
    by_node: FxHashMap<NodeId, u32>,
    /// The last (node, federate) seen: most messages come from the sender of the one before.
    last: Option<(NodeId, u32)>,
}

impl Senders {
    pub(super) fn learn(&mut self, node: NodeId, payload: &[u8]) {
        let Some(federate) = sender_of(payload) else {
            return;
        };
        if self.last != Some((node, federate)) {
            self.last = Some((node, federate));
            self.by_node.insert(node, federate);
        }
    }

    fn federate(&self, node: NodeId) -> Option<u32> {
        self.by_node.get(&node).copied()
    }
}

impl RtiAmbassador {
    /// Reliable messages this federate was told it lost so far: the sum of the counts of
    /// the `ReliableMessagesLost` callbacks handed out.
    pub fn reliable_messages_lost(&self) -> u64 {
        self.lost_total
    }

    /// The next reliable-loss callback, if the node counted losses since the last look.
    /// Runs once per callback: the node's report counter is read, and the losses taken only
    /// when it moved.
    pub(super) fn watch_reliable_losses(&mut self) -> Option<Callback> {
        self.joined.as_ref()?;
        if self.lost_pending.is_empty() {
            let reports = self.link.reliable_loss_reports();
            if self.lost_reports_seen == reports {
                return None;
            }
            self.lost_reports_seen = reports;
            self.lost_pending.extend(self.link.take_reliable_losses());
        }
        let (node, count) = self.lost_pending.pop_front()?;
        self.lost_total += count;
        let sender = self.senders.federate(node);
        tracing::warn!(
            federation = %self.federation, ?sender, %node, count,
            "reliable messages lost"
        );
        Some(Callback::ReliableMessagesLost {
            sender,
            sender_node: node,
            count,
        })
    }
}
