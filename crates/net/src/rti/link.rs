//! The node under an ambassador, driven on the caller's thread or on its own: one set of
//! calls for both.

use crate::error::NetError;
use crate::node::{Arrived, DirectNode, LinkEvent, Message, Node, WaitBreaker};
use roaring::RoaringBitmap;
use std::time::Duration;
use trellis_core::registry::{Request, Response};
use trellis_core::wire::{NodeId, TransportClass};

pub(super) enum Link {
    Direct(Box<DirectNode>),
    Thread(Box<Node>),
}

impl Link {
    pub(super) fn set_interest(&mut self, ids: &RoaringBitmap) -> Result<(), NetError> {
        match self {
            Link::Direct(n) => n.set_interest(ids),
            Link::Thread(n) => n.set_interest(ids),
        }
    }

    pub(super) fn publish(
        &mut self,
        ids: &[u32],
        class: TransportClass,
        payload: &[u8],
    ) -> Result<(), NetError> {
        match self {
            Link::Direct(n) => n.publish(ids, class, payload),
            Link::Thread(n) => n.publish(ids, class, payload),
        }
    }

    pub(super) fn publish_latest(
        &mut self,
        ids: &[u32],
        class: TransportClass,
        latest: trellis_core::wire::LatestKey,
        payload: &[u8],
    ) -> Result<(), NetError> {
        match self {
            Link::Direct(n) => n.publish_latest(ids, class, latest, payload),
            Link::Thread(n) => n.publish_latest(ids, class, latest, payload),
        }
    }

    pub(super) fn publish_unstamped(
        &mut self,
        frame: trellis_core::wire::UnstampedFrame,
    ) -> Result<(), NetError> {
        match self {
            Link::Direct(n) => n.publish_unstamped(frame),
            Link::Thread(n) => n.publish_unstamped(frame),
        }
    }

    /// Whether a reply is expected soon: a node driven on this thread then polls longer
    /// before it sleeps. A node on its own thread keeps its own policy.
    pub(super) fn expect_reply(&mut self, expected: bool) {
        if let Link::Direct(n) = self {
            n.expect_reply(expected);
        }
    }

    /// A message within `timeout`, or `None` early when the node posts a notice: the
    /// ambassador then looks at its links and the network's interest (it does not poll).
    /// What `arrived` keeps comes first, and a thread-driven node's waiting batch is kept
    /// there too (the C ABI's evokeMultipleCallbacks takes every callback after the first
    /// this way).
    pub(super) fn recv_or_wake(
        &mut self,
        arrived: &mut Arrived,
        timeout: Duration,
    ) -> Result<Option<Message>, NetError> {
        if let Some(message) = arrived.pop() {
            return Ok(Some(message));
        }
        match self {
            // Reads the sockets even for a zero timeout: that is the caller's ask.
            Link::Direct(n) => n.recv_or_wake(timeout),
            Link::Thread(n) => match n.try_recv_keeping(arrived)? {
                None if !timeout.is_zero() => n.recv_or_wake(timeout),
                taken => Ok(taken),
            },
        }
    }

    /// A message the node has taken in already, without reading the sockets; the rest of
    /// its batch is kept in `arrived`, and what `arrived` keeps comes first.
    pub(super) fn try_recv(&mut self, arrived: &mut Arrived) -> Result<Option<Message>, NetError> {
        if let Some(message) = arrived.pop() {
            return Ok(Some(message));
        }
        match self {
            Link::Direct(n) => n.try_recv_keeping(arrived),
            Link::Thread(n) => n.try_recv_keeping(arrived),
        }
    }

    /// A message, awaited: what `arrived` keeps first, then the node's waiting batch (its
    /// rest kept in `arrived`, as `try_recv` does), then the next delivery. `None` for a
    /// node driven on the caller's thread, which cannot be awaited.
    pub(super) async fn recv_async(
        &mut self,
        arrived: &mut Arrived,
    ) -> Option<Result<Message, NetError>> {
        if let Some(message) = arrived.pop() {
            return Some(Ok(message));
        }
        let Link::Thread(n) = self else {
            return None;
        };
        Some(match n.try_recv_keeping(arrived) {
            Ok(Some(message)) => Ok(message),
            Ok(None) => n.recv_async().await,
            Err(e) => Err(e),
        })
    }

    /// A breaker for this node's waits (see [`crate::node::WaitBreaker`]).
    pub(super) fn wait_breaker(&self) -> WaitBreaker {
        match self {
            Link::Direct(n) => n.wait_breaker(),
            Link::Thread(n) => n.wait_breaker(),
        }
    }

    /// Whether a wait breaker was used since the last look (clears the mark).
    pub(super) fn take_wait_broken(&self) -> bool {
        match self {
            Link::Direct(n) => n.take_wait_broken(),
            Link::Thread(n) => n.take_wait_broken(),
        }
    }

    pub(super) fn manage(
        &mut self,
        request: Request,
        timeout: Duration,
    ) -> Result<Response, NetError> {
        match self {
            Link::Direct(n) => n.manage(request, timeout),
            Link::Thread(n) => n.manage(request, timeout),
        }
    }

    pub(super) fn take_link_event(&self) -> Option<LinkEvent> {
        match self {
            Link::Direct(n) => n.take_link_event(),
            Link::Thread(n) => n.take_link_event(),
        }
    }

    pub(super) fn network_interest(&mut self) -> Result<RoaringBitmap, NetError> {
        match self {
            Link::Direct(n) => n.network_interest(),
            Link::Thread(n) => n.network_interest(),
        }
    }

    pub(super) fn network_interest_changes(&self) -> u64 {
        match self {
            Link::Direct(n) => n.network_interest_changes(),
            Link::Thread(n) => n.network_interest_changes(),
        }
    }

    pub(super) fn reliable_loss_reports(&self) -> u64 {
        match self {
            Link::Direct(n) => n.reliable_loss_reports(),
            Link::Thread(n) => n.reliable_loss_reports(),
        }
    }

    pub(super) fn take_reliable_losses(&self) -> Vec<(NodeId, u64)> {
        match self {
            Link::Direct(n) => n.take_reliable_losses(),
            Link::Thread(n) => n.take_reliable_losses(),
        }
    }
}
