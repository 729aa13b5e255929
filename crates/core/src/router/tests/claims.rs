//! What a link may claim (`router::claims`): the forged child-router hello and the forged
//! registry requests of issue 33, byte by byte.

use super::*;
use crate::registry::{ErrorKind, Request, Response};
use crate::wire::{Hello, LinkFlags, ManageDirection, ManageFrame, Role};

fn hello(node: u64, role: Role, federation: &str, clique: &str) -> BytesMut {
    let mut out = BytesMut::new();
    Hello {
        node_id: NodeId(node),
        node_name: format!("n{node}"),
        role,
        flags: LinkFlags::source_sink(),
        federation: federation.into(),
        clique: clique.into(),
        udp: None,
    }
    .encode(&mut out);
    out
}

/// Why the router cut or closed `link`, if it did.
fn closed_reason(router: &mut Router, now: Time, link: LinkId) -> Option<CloseReason> {
    events(router, now).into_iter().find_map(|e| match e {
        Event::LinkCut { link: l, reason } | Event::LinkClosed { link: l, reason } if l == link => {
            Some(reason)
        }
        _ => None,
    })
}

fn router_identity(name: &str) -> PeerIdentity {
    PeerIdentity {
        name: name.into(),
        role: IdentityRole::Router,
    }
}

#[test]
fn a_router_link_needs_a_router_certificate_when_the_router_requires_one() {
    let now = Time::ZERO;
    let mut config = RouterConfig::new("r", NodeId(1));
    config.require_router_identity = true;
    let mut router = Router::new(config, now);
    let federate_cert = PeerIdentity {
        name: "tank".into(),
        role: IdentityRole::Federate,
    };
    let cases = [
        (None, Role::Child, "", "presented none"),
        (
            Some(federate_cert.clone()),
            Role::Child,
            "",
            "not a router's",
        ),
        (None, Role::Peer, "", "presented none"),
    ];
    for (identity, role, federation, why) in cases {
        let mut spec = LinkSpec::accepted("attacker");
        spec.identity = identity;
        let link = router.add_link(now, spec);
        router.handle_bytes(now, link, &hello(9, role, federation, "c"));
        let reason = closed_reason(&mut router, now, link).expect("refused");
        assert!(reason.to_string().contains(why), "{reason}");
    }
    let spec = LinkSpec::accepted("router").with_identity(router_identity("r2"));
    let trunk = router.add_link(now, spec);
    router.handle_bytes(now, trunk, &hello(2, Role::Child, "", ""));
    let spec = LinkSpec::accepted("federate").with_identity(federate_cert);
    let federate = router.add_link(now, spec);
    router.handle_bytes(now, federate, &hello(3, Role::Child, FED, ""));
    let up: Vec<_> = events(&mut router, now)
        .into_iter()
        .filter_map(|e| match e {
            Event::LinkUp { link, .. } => Some(link),
            _ => None,
        })
        .collect();
    assert_eq!(
        up,
        [trunk, federate],
        "a router's certificate opens a router link"
    );
}

pub(super) fn request(origin: u64, body: &Request) -> BytesMut {
    let mut out = BytesMut::new();
    ManageFrame {
        direction: ManageDirection::Request,
        origin: NodeId(origin),
        request: 1,
        asker: None,
        body: body.encode(),
    }
    .encode(&mut out);
    out
}

/// The refusal answered on `peer`'s link, if any.
pub(super) fn refusal(peer: &mut Peer, router: &mut Router, now: Time) -> Option<String> {
    peer.receive(router, now).into_iter().find_map(|f| match f {
        Frame::Manage(reply) => match Response::decode(&reply.body) {
            Ok(Response::Error {
                kind: ErrorKind::NotPermitted,
                message,
            }) => Some(message),
            _ => None,
        },
        _ => None,
    })
}

#[test]
fn a_federates_link_speaks_for_its_own_node_only() {
    let now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let certified = PeerIdentity {
        name: "attacker".into(),
        role: IdentityRole::Federate,
    };
    let spec = LinkSpec::accepted("attacker").with_identity(certified);
    let link = router.add_link(now, spec);
    router.handle_bytes(now, link, &hello(5, Role::Child, FED, ""));
    let mut attacker = Peer {
        link,
        inbox: BytesMut::new(),
    };
    attacker.receive(&mut router, now);
    events(&mut router, now);
    let own = router
        .link_info(attacker.link)
        .and_then(|l| l.peer)
        .expect("up")
        .node_id;
    let forged = [
        (
            own.0 + 1,
            Request::Resign {
                federation: FED.into(),
                federate: 1,
            },
        ),
        (
            own.0,
            Request::Vouch {
                nodes: vec![own, NodeId(77)],
            },
        ),
        (
            own.0,
            Request::NodeGone {
                node: NodeId(77),
                how: crate::registry::Departure::Died,
            },
        ),
    ];
    for (origin, body) in &forged {
        attacker.send(&mut router, now, &request(*origin, body));
        let why = refusal(&mut attacker, &mut router, now).expect("refused");
        assert!(why.contains("own node") || why.contains("only"), "{why}");
        let logged = events(&mut router, now)
            .into_iter()
            .any(|e| matches!(e, Event::RequestRefused { link, .. } if link == attacker.link));
        assert!(logged, "the refusal is an event for the log: {body:?}");
    }
    assert_eq!(router.stats().requests_refused, forged.len() as u64);
    // Its own request goes on toward the registry (none here: answered NoRegistry).
    let resign = Request::Resign {
        federation: FED.into(),
        federate: 1,
    };
    attacker.send(&mut router, now, &request(own.0, &resign));
    assert_eq!(refusal(&mut attacker, &mut router, now), None);
}

/// A federate link under `name`'s certificate (or none), up.
pub(super) fn certified(router: &mut Router, now: Time, node: u64, name: Option<&str>) -> Peer {
    let mut spec = LinkSpec::accepted("federate");
    spec.identity = name.map(|name| PeerIdentity {
        name: name.into(),
        role: IdentityRole::Federate,
    });
    let link = router.add_link(now, spec);
    router.handle_bytes(now, link, &hello(node, Role::Child, FED, ""));
    let mut peer = Peer {
        link,
        inbox: BytesMut::new(),
    };
    peer.receive(router, now);
    peer
}

#[test]
fn the_access_policy_is_applied_at_the_federates_first_router_under_its_certificate() {
    let now = Time::ZERO;
    let policy = crate::policy::Policy::from_toml(&format!(
        "[[allow]]\nidentities = [\"tank-*\"]\nfederations = [\"{FED}\"]\nactions = [\"create\", \"join\"]\n\n\
         [[allow]]\nidentities = [\"ops\"]\nfederations = [\"{FED}\"]\nactions = [\"manage\"]\n\n\
         [[allow]]\nidentities = [\"*\"]\nfederations = [\"Sandbox\"]\nactions = [\"join\"]\n"
    ))
    .expect("policy");
    let mut config = RouterConfig::new("r", NodeId(1));
    config.policy = Some(std::sync::Arc::new(policy));
    let mut router = Router::new(config, now);
    let join = |federation: &str| Request::Join {
        federation: federation.into(),
        federate_name: "x".into(),
        federate_type: "sim".into(),
        fingerprint: 1,
        modules: vec![],
    };
    let resign_other = Request::ResignFederate {
        federation: FED.into(),
        manager: 1,
        federate: 2,
    };
    let cases = [
        (Some("spy"), join(FED), true),
        (None, join(FED), true),
        (
            Some("tank-1"),
            Request::Destroy {
                federation: FED.into(),
            },
            true,
        ),
        (Some("tank-1"), join(FED), false),
        (None, join("Sandbox"), false),
        // The MOM's HLAservice resign of another federate: managers only.
        (Some("tank-1"), resign_other.clone(), true),
        (Some("ops"), resign_other, false),
    ];
    for (node, (name, request, refused)) in (10..).zip(cases) {
        let mut peer = certified(&mut router, now, node, name);
        peer.send(&mut router, now, &self::request(node, &request));
        let why = refusal(&mut peer, &mut router, now);
        assert_eq!(why.is_some(), refused, "{name:?} {request:?}: {why:?}");
        if let Some(why) = why {
            assert!(why.contains("access policy"), "{why}");
        }
    }
    assert_eq!(router.stats().requests_refused, 4);
}

#[test]
fn the_first_router_names_the_asker_its_link_proved_over_what_the_peer_wrote() {
    let now = Time::ZERO;
    let mut config = RouterConfig::new("r", NodeId(1));
    config.hosts_registry = true;
    config.registry_limits.federations_per_creator = 1;
    let mut router = Router::new(config, now);
    let create = |name: &str| Request::Create {
        federation: name.into(),
        fingerprint: 1,
        modules: vec![],
        time_representation: "HLAinteger64Time".into(),
    };
    // Two nodes under one certificate; the second writes another name into its frame.
    let mut first = certified(&mut router, now, 10, Some("ops"));
    let mut second = certified(&mut router, now, 11, Some("ops"));
    first.send(&mut router, now, &request(10, &create("A")));
    assert!(matches!(
        answer(&mut first, &mut router, now),
        Some(Response::Created)
    ));
    let mut forged = BytesMut::new();
    ManageFrame {
        direction: ManageDirection::Request,
        origin: NodeId(11),
        request: 2,
        asker: Some("somebody-else".into()),
        body: create("B").encode(),
    }
    .encode(&mut forged);
    second.send(&mut router, now, &forged);
    let Some(Response::Error { kind, message }) = answer(&mut second, &mut router, now) else {
        panic!("refused")
    };
    assert_eq!(kind, ErrorKind::LimitReached);
    assert!(message.contains("\"ops\" already created 1"), "{message}");
}

/// The registry's answer on `peer`'s link, if any.
fn answer(peer: &mut Peer, router: &mut Router, now: Time) -> Option<Response> {
    peer.receive(router, now).into_iter().find_map(|f| match f {
        Frame::Manage(reply) => Response::decode(&reply.body).ok(),
        _ => None,
    })
}
