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
//! - Create, join and destroy are checked against the access policy, if the router has one
//!   (`crate::policy`), where the request enters the network: at the router of the
//!   federate's link, under the name its certificate proves.
//!
//! - The same router answers a federate's question about its class rights
//!   (`Request::ClassRights`) from the policy, and refuses the join of a federate whose
//!   class rights are limited and whose object model is not the one the policy's class
//!   rules speak of (`router::rights`).
//!
//! The registry then lets a federate's own node alone act for it (`Request::acts_for`).

use super::index::Slot;
use super::link::Binding;
use super::Router;
use crate::policy::{Action, ClassRights, Policy};
use crate::registry::{Request, Response};
use crate::wire::{ManageFrame, Role};

impl Router {
    /// Why the link on `slot`, whose hello asked for `binding` as `role`, may not be opened.
    pub(super) fn refuse_router_link(
        &self,
        slot: Slot,
        binding: &Binding,
        role: Role,
    ) -> Option<String> {
        if !super::link::is_router_binding(binding, role) || !self.config.require_router_identity {
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

    /// Why a registry request that arrived on `slot` may not go on: a certified federate's
    /// link asking for another node, or what the access policy does not allow.
    pub(super) fn refuse_request(
        &self,
        slot: Slot,
        frame: &ManageFrame,
        request: &Request,
    ) -> Option<String> {
        let link = self.link(slot);
        let role = link.identity.as_ref().map(|i| i.role);
        if role == Some(super::IdentityRole::Federate) {
            if let Some(why) = Self::refuse_forged(link, frame, request) {
                return Some(why);
            }
        }
        // The policy is applied where a federate's request enters the network: requests
        // from routers were checked at their own first router.
        if link.is_from_router() {
            return None;
        }
        let policy = self.config.policy.as_ref()?;
        let asker = link.identity.as_ref().map(|i| i.name.as_str());
        let (action, federation) = match request {
            Request::Create { federation, .. } => (Action::Create, federation),
            Request::Join {
                federation,
                fingerprint,
                ..
            } => {
                if let Some(why) = Self::refuse_model(policy, asker, federation, *fingerprint) {
                    return Some(why);
                }
                (Action::Join, federation)
            }
            Request::Destroy { federation } => (Action::Destroy, federation),
            Request::ResignFederate { federation, .. } => (Action::Manage, federation),
            _ => return None,
        };
        policy.refuse(asker, action, federation)
    }

    /// A federate whose class rights are limited joins only with the object model the
    /// policy names for the federation: the router reads the ids of its frames by that
    /// model, and a federate with another would be refused what it was told it may do.
    fn refuse_model(
        policy: &Policy,
        asker: Option<&str>,
        federation: &str,
        fingerprint: u64,
    ) -> Option<String> {
        if policy.class_rights(asker, federation).is_unrestricted() {
            return None;
        }
        let model = policy.model_of(federation)?.table.as_ref()?;
        (model.fingerprint != fingerprint).then(|| {
            format!(
                "the access policy's class rules for federation {federation:?} speak of its \
                 [[model]], and this federate's object model is another (other modules, \
                 modules added at join, or other routing bins)"
            )
        })
    }

    /// The answer to a `Request::ClassRights` that came on a federate's link (from the
    /// local application it goes on toward the next router, and at the registry's
    /// process means that application, which no policy limits).
    pub(super) fn answer_class_rights(&self, slot: Slot, request: &Request) -> Option<Response> {
        let link = self.link(slot);
        if link.is_app() {
            return None;
        }
        let Request::ClassRights { federation } = request else {
            return None;
        };
        let rights = match &self.config.policy {
            Some(policy) if !link.is_from_router() => {
                let asker = link.identity.as_ref().map(|i| i.name.as_str());
                policy.class_rights(asker, federation)
            }
            _ => ClassRights::default(),
        };
        Some(Response::ClassRights(rights))
    }

    /// A certified federate's link speaks for its own node only.
    fn refuse_forged(
        link: &super::link::Link,
        frame: &ManageFrame,
        request: &Request,
    ) -> Option<String> {
        let node = link.peer.as_ref()?.node_id;
        if frame.origin != node {
            return Some(format!(
                "a request from node {} arrived on the link of node {node}: a federate's link \
                 speaks for its own node only",
                frame.origin
            ));
        }
        match request {
            Request::Vouch { nodes } if nodes.iter().any(|n| *n != node) => Some(format!(
                "node {node} vouched for other nodes: only routers vouch for the nodes linked \
                 to them"
            )),
            Request::NodeGone { node: gone, .. } if *gone != node => Some(format!(
                "node {node} reported node {gone} gone: only its router may"
            )),
            _ => None,
        }
    }
}
