//! Who may take a link slot. A router serves at most `HostConfig::max_links` links; without
//! more than that, whoever opens connections fastest takes them all and no federate joins.
//! So, besides the total:
//!
//! - one source address may hold at most `max_links_per_address` accepted links (refused at
//!   accept, before a byte is read);
//! - one certificate name may hold at most `max_links_per_identity` accepted links that
//!   are not routers (closed at their hello, once the name is proven and known);
//! - the last `reserved_router_slots` of the slots are kept for routers: links we dialed,
//!   and accepted links whose hello says router (a peer, or a trunk carrying every
//!   federation, not contradicted by an authenticated identity). Whether an accepted link
//!   is a router is known only at its hello, so one that is not, arriving when only the
//!   reserved slots are left, is closed then.
//!
//! Every refusal is counted ([`AcceptRefusals`], shown by `/metrics`) and logged within the
//! host's WARN rate limit.

use crate::runtime::AcceptRefusals;
use rustc_hash::{FxHashMap, FxHashSet};
use std::net::IpAddr;
use trellis_core::router::{IdentityRole, LinkId, LinkInfo, PeerInfo};
use trellis_core::wire::Role;

pub(super) struct Admission {
    max_links: usize,
    max_per_address: usize,
    max_per_identity: usize,
    reserved_for_routers: usize,
    /// Accepted links held per source address.
    per_address: FxHashMap<IpAddr, usize>,
    /// Every accepted TCP link, with its source address.
    accepted: FxHashMap<LinkId, IpAddr>,
    /// Accepted links that are up and not routers: they may use only the unreserved slots.
    non_routers: FxHashSet<LinkId>,
    /// Accepted links up and not routers, per proven certificate name, and each link's name.
    per_identity: FxHashMap<String, usize>,
    identity_of: FxHashMap<LinkId, String>,
    pub(super) refusals: AcceptRefusals,
}

impl Admission {
    pub(super) fn new(config: &crate::HostConfig) -> Admission {
        Admission {
            max_links: config.max_links,
            max_per_address: config.max_links_per_address,
            max_per_identity: config.max_links_per_identity,
            // At most half the slots are kept: a small router must still serve federates.
            reserved_for_routers: config.reserved_router_slots.min(config.max_links / 2),
            per_address: FxHashMap::default(),
            accepted: FxHashMap::default(),
            non_routers: FxHashSet::default(),
            per_identity: FxHashMap::default(),
            identity_of: FxHashMap::default(),
            refusals: AcceptRefusals::default(),
        }
    }

    /// Whether a connection from `source` may be accepted while the host holds `links`
    /// links; counts and explains a refusal.
    pub(super) fn admit(&mut self, links: usize, source: IpAddr) -> Result<(), String> {
        if links >= self.max_links {
            self.refusals.full += 1;
            return Err(format!(
                "refused: this router serves at most {} links",
                self.max_links
            ));
        }
        let held = self.per_address.get(&source).copied().unwrap_or(0);
        if held >= self.max_per_address {
            self.refusals.per_address += 1;
            return Err(format!(
                "refused: {source} already holds {held} links to this router (its limit per \
                 source address, --max-links-per-address)"
            ));
        }
        Ok(())
    }

    /// A connection from `source` was accepted as `link`.
    pub(super) fn accepted(&mut self, link: LinkId, source: IpAddr) {
        *self.per_address.entry(source).or_default() += 1;
        self.accepted.insert(link, source);
    }

    /// `link` finished its hello as `peer`. Returns why it must be closed, when it was
    /// accepted, is not a router, and only the slots kept for routers are left.
    pub(super) fn link_up(
        &mut self,
        link: LinkId,
        peer: &PeerInfo,
        info: Option<&LinkInfo>,
    ) -> Option<String> {
        if !self.accepted.contains_key(&link) || is_router(peer, info) {
            return None;
        }
        let identity = info
            .and_then(|l| l.identity.as_ref())
            .map(|i| i.name.clone());
        if let Some(name) = &identity {
            let held = self.per_identity.get(name).copied().unwrap_or(0);
            if held >= self.max_per_identity {
                self.refusals.per_identity += 1;
                return Some(format!(
                    "refused: {name:?} already holds {held} links to this router (its limit \
                     per certificate name, --max-links-per-identity)"
                ));
            }
        }
        let unreserved = self.max_links - self.reserved_for_routers;
        if self.non_routers.len() >= unreserved {
            self.refusals.reserved_for_routers += 1;
            return Some(format!(
                "refused: the {} link slots this router gives federates are taken (the last {} \
                 of its {} are kept for routers)",
                unreserved, self.reserved_for_routers, self.max_links
            ));
        }
        self.non_routers.insert(link);
        if let Some(name) = identity {
            *self.per_identity.entry(name.clone()).or_default() += 1;
            self.identity_of.insert(link, name);
        }
        None
    }

    /// `link` closed: its slot and its address's are free.
    pub(super) fn closed(&mut self, link: LinkId) {
        self.non_routers.remove(&link);
        if let Some(name) = self.identity_of.remove(&link) {
            if let Some(held) = self.per_identity.get_mut(&name) {
                *held -= 1;
                if *held == 0 {
                    self.per_identity.remove(&name);
                }
            }
        }
        let Some(source) = self.accepted.remove(&link) else {
            return;
        };
        if let Some(held) = self.per_address.get_mut(&source) {
            *held -= 1;
            if *held == 0 {
                self.per_address.remove(&source);
            }
        }
    }
}

/// Whether the far side of an accepted link is a router: its hello says so (a peer of a
/// clique, or a trunk carrying every federation), and an identity the transport proved
/// does not say otherwise.
fn is_router(peer: &PeerInfo, info: Option<&LinkInfo>) -> bool {
    let claims_router = peer.role == Role::Peer || peer.federation.is_empty();
    let proven_federate = info
        .and_then(|l| l.identity.as_ref())
        .is_some_and(|id| id.role == IdentityRole::Federate);
    claims_router && !proven_federate
}

#[cfg(test)]
mod tests {
    use super::*;
    use trellis_core::router::RouterConfig;
    use trellis_core::wire::{LinkFlags, NodeId};

    fn peer(role: Role, federation: &str) -> PeerInfo {
        PeerInfo {
            node_name: "n".into(),
            node_id: NodeId(7),
            role,
            flags: LinkFlags::source_sink(),
            federation: federation.into(),
            clique: String::new(),
        }
    }

    fn link(n: u32) -> LinkId {
        // Ids come from a router; any distinct ones do here.
        let mut router = trellis_core::router::Router::new(
            RouterConfig::new("r", NodeId(1)),
            trellis_core::Time::ZERO,
        );
        let mut id = None;
        for _ in 0..=n {
            id = Some(router.add_link(
                trellis_core::Time::ZERO,
                trellis_core::router::LinkSpec::accepted("x"),
            ));
        }
        id.expect("a link")
    }

    fn admission(max_links: usize, per_address: usize, reserved: usize) -> Admission {
        let mut config = crate::HostConfig::new(RouterConfig::new("r", NodeId(1)));
        config.max_links_per_identity = 2;
        config.max_links = max_links;
        config.max_links_per_address = per_address;
        config.reserved_router_slots = reserved;
        Admission::new(&config)
    }

    #[test]
    fn one_address_holds_at_most_its_share_and_gets_it_back_as_links_close() {
        let mut admission = admission(100, 2, 0);
        let hostile: IpAddr = "127.0.0.2".parse().unwrap();
        let other: IpAddr = "127.0.0.3".parse().unwrap();
        for n in 0..2 {
            admission.admit(n, hostile).unwrap();
            admission.accepted(link(n as u32), hostile);
        }
        let refused = admission.admit(2, hostile).unwrap_err();
        assert!(
            refused.contains("127.0.0.2 already holds 2 links"),
            "{refused}"
        );
        assert_eq!(admission.refusals.per_address, 1);
        admission.admit(2, other).unwrap();
        admission.closed(link(0));
        admission.admit(1, hostile).unwrap();
    }

    #[test]
    fn the_reserved_slots_take_routers_only() {
        let mut admission = admission(4, 100, 2);
        let source: IpAddr = "127.0.0.1".parse().unwrap();
        for n in 0..4 {
            admission.accepted(link(n), source);
        }
        let federate = peer(Role::Child, "Exercise");
        assert_eq!(admission.link_up(link(0), &federate, None), None);
        assert_eq!(admission.link_up(link(1), &federate, None), None);
        let refused = admission
            .link_up(link(2), &federate, None)
            .expect("refused");
        assert!(
            refused.contains("the last 2 of its 4 are kept for routers"),
            "{refused}"
        );
        assert_eq!(admission.refusals.reserved_for_routers, 1);
        assert_eq!(
            admission.link_up(link(3), &peer(Role::Child, ""), None),
            None
        );
        // A federate's slot freed is a federate's again.
        admission.closed(link(0));
        assert_eq!(admission.link_up(link(2), &federate, None), None);
        let refused = admission.admit(4, source).unwrap_err();
        assert!(refused.contains("at most 4 links"), "{refused}");
    }

    #[test]
    fn one_certificate_name_holds_at_most_its_share_of_federate_links() {
        let mut admission = admission(100, 100, 0);
        let source: IpAddr = "127.0.0.1".parse().unwrap();
        let now = trellis_core::Time::ZERO;
        let mut router = trellis_core::router::Router::new(RouterConfig::new("r", NodeId(1)), now);
        let mut certified = |name: &str| {
            let identity = trellis_core::router::PeerIdentity {
                name: name.into(),
                role: IdentityRole::Federate,
            };
            let spec = trellis_core::router::LinkSpec::accepted("x").with_identity(identity);
            let id = router.add_link(now, spec);
            admission.accepted(id, source);
            router.link_info(id).expect("a link")
        };
        let links = [
            certified("tank"),
            certified("tank"),
            certified("tank"),
            certified("ops"),
        ];
        let federate = peer(Role::Child, "Exercise");
        let up = |admission: &mut Admission, i: usize| {
            admission.link_up(links[i].id, &federate, Some(&links[i]))
        };
        assert_eq!(up(&mut admission, 0), None);
        assert_eq!(up(&mut admission, 1), None);
        let refused = up(&mut admission, 2).expect("refused");
        assert!(
            refused.contains("\"tank\" already holds 2 links"),
            "{refused}"
        );
        assert_eq!(admission.refusals.per_identity, 1);
        assert_eq!(
            up(&mut admission, 3),
            None,
            "another name has its own share"
        );
        admission.closed(links[0].id);
        assert_eq!(up(&mut admission, 2), None);
    }
}
