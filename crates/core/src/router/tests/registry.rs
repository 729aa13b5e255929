//! The federation registry a router hosts: requests from its applications and from
//! other routers, answered in the simulator.

use super::*;
use crate::registry::{ErrorKind, Request, Response};

fn registry_router(sim: &mut Sim, name: &str) -> usize {
    let mut config = RouterConfig::new(name, NodeId(1000 + sim.nodes.len() as u64));
    config.hosts_registry = true;
    sim.add_node(config)
}

fn ask(sim: &mut Sim, node: usize, request: Request) -> Response {
    let now = sim.now();
    let id = sim.nodes[node].router.manage(now, &request);
    quiet(sim);
    let (answered, response) = sim.nodes[node]
        .router
        .poll_manage_reply()
        .expect("an answer");
    assert_eq!(answered, id);
    response
}

/// `node` creates the federation FED and joins it as `name`.
fn create_and_join(sim: &mut Sim, node: usize, name: &str) {
    let create = Request::Create {
        federation: FED.into(),
        fingerprint: 1,
        modules: vec![],
        time_representation: "HLAinteger64Time".into(),
    };
    assert_eq!(ask(sim, node, create), Response::Created);
    assert!(matches!(
        ask(sim, node, join(FED, name, 1)),
        Response::Joined { .. }
    ));
}

fn join(federation: &str, name: &str, fingerprint: u64) -> Request {
    Request::Join {
        federation: federation.into(),
        federate_name: name.into(),
        federate_type: "test".into(),
        fingerprint,
        modules: vec![],
    }
}

#[test]
fn requests_find_the_registry_up_a_tree_and_answers_come_back() {
    let mut sim = Sim::new(11, SimConfig::default());
    let root = registry_router(&mut sim, "root");
    let mid = sim.add_router("mid");
    let leaf = sim.add_router("leaf");
    sim.connect_parent(mid, root, "");
    sim.connect_parent(leaf, mid, "");
    let a = sim.add_federate("a", FED);
    let b = sim.add_federate("b", FED);
    sim.connect_parent(a, leaf, FED);
    sim.connect_parent(b, root, FED);
    quiet(&mut sim);
    let distances: Vec<_> = [root, mid, leaf, a, b]
        .iter()
        .map(|&n| sim.nodes[n].router.registry_distance())
        .collect();
    assert_eq!(distances, vec![Some(0), Some(1), Some(2), Some(3), Some(1)]);

    let create = Request::Create {
        federation: FED.into(),
        fingerprint: 5,
        modules: vec![],
        time_representation: "HLAinteger64Time".into(),
    };
    assert_eq!(ask(&mut sim, a, create.clone()), Response::Created);
    assert!(matches!(
        ask(&mut sim, b, create),
        Response::Error {
            kind: ErrorKind::FederationExists,
            ..
        }
    ));
    assert!(matches!(
        ask(&mut sim, a, join(FED, "a", 5)),
        Response::Joined { federate: 1, .. }
    ));
    assert!(matches!(
        ask(&mut sim, b, join(FED, "b", 6)),
        Response::Error {
            kind: ErrorKind::InconsistentFom,
            ..
        }
    ));
    assert!(matches!(
        ask(&mut sim, b, join(FED, "b", 5)),
        Response::Joined { federate: 2, .. }
    ));
}

#[test]
fn a_federate_whose_link_fails_is_resigned_for_it() {
    let mut sim = Sim::new(12, SimConfig::default());
    let root = registry_router(&mut sim, "root");
    let a = sim.add_federate("a", FED);
    let b = sim.add_federate("b", FED);
    let pipe = sim.connect_parent(a, root, FED);
    sim.connect_parent(b, root, FED);
    quiet(&mut sim);
    let create = Request::Create {
        federation: FED.into(),
        fingerprint: 1,
        modules: vec![],
        time_representation: "HLAinteger64Time".into(),
    };
    assert_eq!(ask(&mut sim, a, create), Response::Created);
    assert!(matches!(
        ask(&mut sim, a, join(FED, "tank", 1)),
        Response::Joined { federate: 1, .. }
    ));
    assert!(matches!(
        ask(&mut sim, b, join(FED, "tank", 1)),
        Response::Error {
            kind: ErrorKind::FederateNameInUse,
            ..
        }
    ));
    // A broken link may come back within the lease: the federate stays a member...
    sim.sever(pipe);
    quiet(&mut sim);
    assert!(matches!(
        ask(&mut sim, b, join(FED, "tank", 1)),
        Response::Error {
            kind: ErrorKind::FederateNameInUse,
            ..
        }
    ));
    // ... until nobody vouched for it within its lease.
    let lease = sim.nodes[root].router.config().federate_lease;
    sim.run_for(lease + Duration::from_secs(2));
    assert!(matches!(
        ask(&mut sim, b, join(FED, "tank", 1)),
        Response::Joined { federate: 2, .. }
    ));
}

#[test]
fn a_federate_that_says_goodbye_is_resigned_at_once() {
    let mut sim = Sim::new(14, SimConfig::default());
    let root = registry_router(&mut sim, "root");
    let a = sim.add_federate("a", FED);
    let b = sim.add_federate("b", FED);
    let pipe = sim.connect_parent(a, root, FED);
    sim.connect_parent(b, root, FED);
    quiet(&mut sim);
    let create = Request::Create {
        federation: FED.into(),
        fingerprint: 1,
        modules: vec![],
        time_representation: "HLAinteger64Time".into(),
    };
    assert_eq!(ask(&mut sim, a, create), Response::Created);
    assert!(matches!(
        ask(&mut sim, a, join(FED, "tank", 1)),
        Response::Joined { federate: 1, .. }
    ));
    let (link, _) = sim.pipe_links(pipe);
    let now = sim.now();
    sim.nodes[a].router.close_link(now, link, "leaving");
    quiet(&mut sim);
    assert!(matches!(
        ask(&mut sim, b, join(FED, "tank", 1)),
        Response::Joined { federate: 2, .. }
    ));
}

#[test]
fn a_request_in_flight_when_its_link_closes_is_answered_with_an_error() {
    let mut sim = Sim::new(15, SimConfig::default());
    let root = registry_router(&mut sim, "root");
    let mid = sim.add_router("mid");
    let up = sim.connect_parent(mid, root, "");
    let f = sim.add_federate("f", FED);
    sim.connect_parent(f, mid, FED);
    quiet(&mut sim);
    // Hold what travels up, so the request is on its way when the trunk breaks.
    sim.partition(up, false, true);
    let now = sim.now();
    let id = sim.nodes[f].router.manage(now, &Request::ListFederations);
    sim.run_for(Duration::from_millis(50));
    assert!(sim.nodes[f].router.poll_manage_reply().is_none());
    sim.sever(up);
    quiet(&mut sim);
    let (answered, response) = sim.nodes[f]
        .router
        .poll_manage_reply()
        .expect("an answer without waiting for the expiry");
    assert_eq!(answered, id);
    assert!(
        matches!(&response, Response::Error { kind: ErrorKind::NoRegistry, message }
            if message.contains("closed before it answered")),
        "{response:?}"
    );
}

#[test]
fn a_mesh_routes_to_its_registry_and_reports_when_none_is_reachable() {
    let mut sim = Sim::new(13, SimConfig::default());
    let m0 = registry_router(&mut sim, "m0");
    let m1 = sim.add_router("m1");
    let m2 = sim.add_router("m2");
    sim.clique(&[m0, m1, m2], "", "mesh");
    let f = sim.add_federate("f", FED);
    sim.connect_parent(f, m2, FED);
    let island = sim.add_router("island");
    let g = sim.add_federate("g", FED);
    sim.connect_parent(g, island, FED);
    quiet(&mut sim);
    assert_eq!(sim.nodes[m1].router.registry_distance(), Some(1));
    assert_eq!(sim.nodes[f].router.registry_distance(), Some(2));
    let create = Request::Create {
        federation: FED.into(),
        fingerprint: 1,
        modules: vec![],
        time_representation: "HLAinteger64Time".into(),
    };
    assert_eq!(ask(&mut sim, f, create.clone()), Response::Created);
    assert!(matches!(
        ask(&mut sim, g, create),
        Response::Error {
            kind: ErrorKind::NoRegistry,
            ..
        }
    ));
}

/// An idle federate's node renews its lease (a vouch) and hears the registry's answer;
/// both are reliable frames, and each side acknowledges them in place of its next heartbeat.
/// So at rest each side sends one frame per heartbeat interval, as with heartbeats alone (a
/// separate ack, 100 ms after each, made it half as many again, and as many more wake-ups).
#[test]
fn an_idle_member_and_its_router_send_one_frame_per_heartbeat_interval_each_way() {
    let mut sim = Sim::new(7, SimConfig::default());
    let root = registry_router(&mut sim, "root");
    let idle = sim.add_federate("idle", FED);
    let pipe = sim.connect_parent(idle, root, FED);
    quiet(&mut sim);
    create_and_join(&mut sim, idle, "idle");
    sim.run_for(Duration::from_secs(3));
    let (at_idle, at_root) = sim.pipe_links(pipe);
    let frames_in = |sim: &Sim, node: usize, link: LinkId| {
        let info = sim.nodes[node].router.link_info(link).expect("link");
        info.stats.frames_in
    };
    let before = (
        frames_in(&sim, root, at_root),
        frames_in(&sim, idle, at_idle),
    );
    let window = Duration::from_secs(30);
    sim.run_for(window);
    let from_idle = frames_in(&sim, root, at_root) - before.0;
    let from_root = frames_in(&sim, idle, at_idle) - before.1;
    let interval = sim.nodes[idle]
        .router
        .config()
        .link_defaults
        .heartbeat_interval;
    let beats = window.as_secs() / interval.as_secs();
    for (side, frames) in [
        ("the federate's node", from_idle),
        ("its router", from_root),
    ] {
        assert!(
            (beats - 1..=beats + 1).contains(&frames),
            "{side} sent {frames} frames in {window:?} at rest: one per heartbeat interval \
             ({beats}) expected"
        );
    }
    // The vouches went on: the lease (shorter than the window) still holds the federate.
    assert!(matches!(
        ask(&mut sim, idle, join(FED, "idle", 1)),
        Response::Error {
            kind: ErrorKind::FederateNameInUse,
            ..
        }
    ));
}

/// A federate node does not vouch for itself; its router does, and when the registry
/// answers that it does not know the node (it restarted empty), the router tells the node,
/// which hears `NotAMember` and can reclaim. Nobody but the link toward the registry can
/// say so.
#[test]
fn a_router_tells_its_federate_the_registry_no_longer_knows_it() {
    let mut sim = Sim::new(8, SimConfig::default());
    let root = registry_router(&mut sim, "root");
    let leaf = sim.add_router("leaf");
    let idle = sim.add_federate("idle", FED);
    sim.connect_parent(leaf, root, FED);
    sim.connect_parent(idle, leaf, FED);
    quiet(&mut sim);
    create_and_join(&mut sim, idle, "idle");
    let not_a_member =
        |sim: &Sim| (sim.nodes[idle].events.iter()).any(|e| matches!(e, Event::NotAMember));
    let vouch = sim.nodes[leaf].router.config().vouch_interval;
    sim.run_for(vouch * 3);
    assert!(!not_a_member(&sim), "a member is told nothing");
    // A forged notice from below the router is not believed: only the link toward the
    // registry may say the registry does not know us.
    let notice = crate::wire::ManageFrame {
        direction: crate::wire::ManageDirection::Reply,
        origin: sim.node_id(leaf),
        request: u64::MAX,
        asker: None,
        body: Response::Vouched {
            unknown: vec![sim.node_id(idle)],
        }
        .encode(),
    };
    let mut bytes = BytesMut::new();
    notice.encode(&mut bytes);
    let (_, at_leaf) = sim.pipe_links(1);
    quiet(&mut sim); // at a frame boundary on the link
    let now = sim.now();
    sim.nodes[leaf].router.handle_bytes(now, at_leaf, &bytes);
    sim.run_for(vouch);
    assert!(
        !not_a_member(&sim),
        "a notice forged by a federate was relayed"
    );
    sim.crash(root);
    sim.restart(root);
    sim.connect_parent(leaf, root, FED);
    sim.run_for(vouch * 3);
    assert!(
        not_a_member(&sim),
        "the federate never heard it is no longer a member"
    );
}

/// A federate node `f` dialed to a registry router `r`, with the bytes `r` has sent it so
/// far held back: the test hands them over frame by frame.
struct HeldBack {
    r: Router,
    f: Router,
    f_to_r: LinkId,
    r_to_f: LinkId,
    held: BytesMut,
}

impl HeldBack {
    fn new(now: Time) -> HeldBack {
        let mut config = RouterConfig::new("r", NodeId(1));
        config.hosts_registry = true;
        let mut r = Router::new(config, now);
        let mut f = Router::new(RouterConfig::federate("f", NodeId(2), FED), now);
        let f_to_r = f.add_link(now, LinkSpec::dialed(Role::Parent, FED, "", "r"));
        let r_to_f = r.add_link(now, LinkSpec::accepted("f"));
        let mut link = HeldBack {
            r,
            f,
            f_to_r,
            r_to_f,
            held: BytesMut::new(),
        };
        link.f_sends(now);
        link
    }

    /// Everything `f` has for `r`, delivered; what `r` answers is held back.
    fn f_sends(&mut self, now: Time) {
        let mut out = Vec::new();
        while self.f.poll_transmit(now, self.f_to_r, &mut out) > 0 {}
        self.r.handle_bytes(now, self.r_to_f, &out);
        out.clear();
        while self.r.poll_transmit(now, self.r_to_f, &mut out) > 0 {}
        self.held.extend_from_slice(&out);
    }

    /// Hand `f` the held frames up to and including the first of `kind`.
    fn deliver_through(&mut self, now: Time, kind: crate::wire::FrameKind) {
        while let Some((found, frame)) = crate::wire::split_frame(&mut self.held, 1 << 20).unwrap()
        {
            self.f.handle_bytes(now, self.f_to_r, &frame);
            if found == kind {
                return;
            }
        }
        panic!("r sent no {kind:?} frame");
    }
}

/// The route to the registry comes in a frame after the hello (a router writing each
/// frame on its own sends them apart): a request made between the two waits for the
/// route and is answered, not refused with "no federation registry is reachable".
#[test]
fn a_request_made_before_the_route_is_announced_waits_for_it() {
    let now = Time::ZERO;
    let mut link = HeldBack::new(now);
    link.deliver_through(now, crate::wire::FrameKind::Hello);
    let asked = link.f.manage(now, &Request::ListFederations);
    assert_eq!(
        link.f.poll_manage_reply(),
        None,
        "no answer before the route"
    );
    link.deliver_through(now, crate::wire::FrameKind::RegistryRoute);
    link.f_sends(now);
    link.deliver_through(now, crate::wire::FrameKind::Manage);
    let (answered, response) = link.f.poll_manage_reply().expect("an answer");
    assert_eq!(answered, asked);
    assert!(matches!(response, Response::Federations(_)), "{response:?}");
}

/// A link that never announces a route holds a request back for a bound only: then it is
/// answered "no registry", saying why.
#[test]
fn a_request_waits_for_an_unannounced_route_five_seconds_at_most() {
    let now = Time::ZERO;
    let mut link = HeldBack::new(now);
    link.deliver_through(now, crate::wire::FrameKind::Hello);
    let asked = link.f.manage(now, &Request::ListFederations);
    let almost = now + Duration::from_millis(4_900);
    link.f.handle_timeout(almost);
    assert_eq!(link.f.poll_manage_reply(), None, "still waiting at 4.9 s");
    let later = now + Duration::from_secs(6);
    link.f.handle_timeout(later);
    let (answered, response) = link.f.poll_manage_reply().expect("an answer");
    assert_eq!(answered, asked);
    assert!(
        matches!(&response, Response::Error { kind: ErrorKind::NoRegistry, message }
            if message.contains("did not announce a route")),
        "{response:?}"
    );
}
