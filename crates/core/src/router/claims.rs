//! What a link may claim. A hello and a request's origin are bytes the peer writes: the
//! router holds a link to them only as far as the link proves them.
//!
//! - A router link (one that carries every federation, or a peer link of a clique) is
//!   opened only by a peer whose certificate says it is a router, when the router requires
//!   it (`RouterConfig::require_router_identity`, on whenever links are mutually
//!   authenticated). Otherwise anyone reaching the port could claim to be a child router
//!   and receive every federation's traffic.
//! - A link whose certificate is a federate's speaks for its own node only: the registry
//!   requests it brings must come from the node its hello named, and a vouch or a
//!   departure it brings may name that node alone. Routers forward requests for the nodes
//!   behind them, and so do federate nodes that other federates attach to in a planned
//!   topology; on a plain link nothing tells the two apart, so the check needs the
//!   certificate (a federate that routes for others gets a router's).
//!
//! The registry then lets a federate's own node alone act for it (`Request::acts_for`).

use super::index::Slot;
use super::link::Binding;
use super::Router;
use crate::registry::Request;
use crate::wire::{ManageFrame, Role};

impl Router {
    /// Why the link on `slot`, whose hello asked for `binding` as `role`, may not be opened.
    pub(super) fn refuse_router_link(
        &self,
        slot: Slot,
        binding: &Binding,
        role: Role,
    ) -> Option<String> {
        let router_link = matches!(binding, Binding::Trunk) || role == Role::Peer;
        if !router_link || !self.config.require_router_identity {
            return None;
        }
        match &self.link(slot).identity {
            Some(identity) if identity.role == super::IdentityRole::Router => None,
            Some(identity) => Some(format!(
                "{:?} asked for a router link, but its certificate is not a router's (it \
                 is a federate's): only routers may open links that carry every federation",
                identity.name
            )),
            None => Some(
                "a router link needs a router certificate, and this peer presented none".into(),
            ),
        }
    }

    /// Why a registry request that arrived on `slot` is not that link's to send: a
    /// federate's link asking for another node.
    pub(super) fn refuse_forged_request(&self, slot: Slot, frame: &ManageFrame) -> Option<String> {
        let link = self.link(slot);
        let federate = super::IdentityRole::Federate;
        if link.identity.as_ref().map(|i| i.role) != Some(federate) {
            return None;
        }
        let node = link.peer.as_ref()?.node_id;
        if frame.origin != node {
            return Some(format!(
                "a request from node {} arrived on the link of node {node}: a federate's link \
                 speaks for its own node only",
                frame.origin
            ));
        }
        match Request::decode(&frame.body) {
            Ok(Request::Vouch { nodes }) if nodes.iter().any(|n| *n != node) => Some(format!(
                "node {node} vouched for other nodes: only routers vouch for the nodes linked \
                 to them"
            )),
            Ok(Request::NodeGone { node: gone, .. }) if gone != node => Some(format!(
                "node {node} reported node {gone} gone: only its router may"
            )),
            _ => None,
        }
    }
}
