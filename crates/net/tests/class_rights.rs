//! The access policy's class rights on real sockets over mutual TLS, on a tree (one
//! router) and a mesh (two peer routers): a federate is refused the classes its rules do
//! not give it, naming the rule; what it may do flows; and a node under the same
//! certificate that bypasses the federate library (declaring and sending raw ids) receives
//! nothing of a class it may not subscribe to and gets nothing of a class it may not
//! publish past its first router.

mod common;

use common::pki::{Pki, Subject};
use common::WAIT;
use roaring::RoaringBitmap;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;
use trellis_core::federate::layout::{interaction_slot_ids, object_slot_ids};
use trellis_core::federate::{Callback, FederateError};
use trellis_core::fom::ObjectModel;
use trellis_core::policy::{ClassTable, Policy};
use trellis_core::router::RouterConfig;
use trellis_core::wire::{NodeId, TransportClass};
use trellis_net::rti::{Driver, RtiAmbassador, RtiConfig, RtiError};
use trellis_net::{DialConfig, Endpoint, Host, HostConfig, Node, NodeConfig, Runtime};

const FED: &str = "Guarded";

/// Tanks publish vehicles and hear the radio; spies may only talk on the radio; anyone
/// else (the watcher) is unrestricted.
fn policy(model: &ObjectModel) -> Arc<Policy> {
    let text = format!(
        "[[model]]\nfederations = [\"{FED}\"]\nmodules = [\"trellis-demo.xml\"]\n\n\
         [[allow]]\nidentities = [\"*\"]\nfederations = [\"{FED}\"]\n\
         actions = [\"create\", \"join\", \"destroy\"]\n\n\
         [[allow]]\nidentities = [\"tank-*\"]\nfederations = [\"{FED}\"]\n\
         publish = [\"Vehicle\", \"Vehicle.*\"]\nsubscribe = [\"Radio\"]\n\n\
         [[allow]]\nidentities = [\"spy\"]\nfederations = [\"{FED}\"]\n\
         publish = [\"Radio\"]\nsubscribe = [\"Radio\"]\n"
    );
    let mut policy = Policy::from_toml(&text).unwrap();
    let bins = policy.model[0].bins;
    policy.model[0].table = Some(Arc::new(ClassTable::of(model, bins)));
    Arc::new(policy)
}

/// A router under mutual TLS with the policy; `peer`: the router it meshes with.
fn router(
    pki: &Pki,
    name: &str,
    id: u64,
    policy: &Arc<Policy>,
    peer: Option<&Endpoint>,
) -> (Runtime, Host, Endpoint) {
    let runtime = Runtime::start(name).unwrap();
    let mut router = RouterConfig::new(name, NodeId(id));
    router.hosts_registry = peer.is_none();
    router.policy = Some(policy.clone());
    let mut config = HostConfig::new(router);
    config.listen.push("tls://127.0.0.1:0".parse().unwrap());
    if let Some(peer) = peer {
        config.dial.push(DialConfig::peer(peer.clone(), "", "mesh"));
    }
    let mut tls = pki.config(&Subject::router(name));
    tls.require_client_cert = true;
    config.tls = Some(tls);
    let host = runtime.add_host(config).unwrap();
    if peer.is_some() {
        host.wait_for_links(1, WAIT).unwrap();
    }
    let at = host.listening()[0].clone();
    (runtime, host, at)
}

fn node_config(pki: &Pki, name: &str, at: &Endpoint) -> NodeConfig {
    let mut config = NodeConfig::child_of(name, FED, at.clone());
    config.tls = Some(pki.config(&Subject::federate(name)));
    config
}

fn federate(pki: &Pki, name: &str, at: &Endpoint) -> RtiAmbassador {
    let mut config = RtiConfig::new(node_config(pki, name, at));
    config.driver = Driver::Direct;
    RtiAmbassador::connect(config).unwrap()
}

fn assert_refused(result: Result<(), RtiError>, rule: &str) {
    let Err(RtiError::Federate(FederateError::NotPermitted(why))) = &result else {
        panic!("refused by the policy: {result:?}")
    };
    assert!(why.contains("access policy") && why.contains(rule), "{why}");
}

/// The node's next data message, within the bound. (`recv_timeout` may return early
/// without one, woken for a link notice.)
fn next_message(node: &Node) -> trellis_net::Message {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "no message arrived in time");
        if let Some(message) = node.recv_timeout(left).unwrap() {
            return message;
        }
    }
}

/// Whether `message` is a radio message saying `word`.
fn says(message: &trellis_net::Message, radio_ids: &RoaringBitmap, word: &[u8]) -> bool {
    message.ids().all(|id| radio_ids.contains(id))
        && message.payload().windows(word.len()).any(|w| w == word)
}

/// The watcher talks on the radio until the spy hears it: before that, the watcher's node
/// may not know yet that anyone wants the radio, and drops what it sends.
fn until_the_spy_hears_the_radio(
    watcher: &mut RtiAmbassador,
    spy: &Node,
    radio_ids: &RoaringBitmap,
) {
    let radio = watcher.interaction_class_handle("Radio").unwrap();
    let text = watcher.parameter_handle(radio, "Text").unwrap();
    let deadline = Instant::now() + WAIT;
    loop {
        assert!(Instant::now() < deadline, "the spy never heard the radio");
        watcher
            .send_interaction(radio, &[(text, b"hello".as_slice())], b"")
            .unwrap();
        let heard = spy.recv_timeout(Duration::from_millis(50)).unwrap();
        if heard.is_some_and(|m| says(&m, radio_ids, b"hello")) {
            return;
        }
    }
}

/// The watcher says `word` on the radio and waits until the spy has it: whatever the
/// network routed to the spy before is in front of it. Returns the messages before it that
/// are not radio messages.
fn sentinel(
    watcher: &mut RtiAmbassador,
    spy: &Node,
    radio_ids: &RoaringBitmap,
    word: &[u8],
) -> Vec<trellis_net::Message> {
    let radio = watcher.interaction_class_handle("Radio").unwrap();
    let text = watcher.parameter_handle(radio, "Text").unwrap();
    watcher
        .send_interaction(radio, &[(text, word)], b"")
        .unwrap();
    let mut before = Vec::new();
    loop {
        let message = next_message(spy);
        if says(&message, radio_ids, word) {
            return before;
        }
        if !message.ids().all(|id| radio_ids.contains(id)) {
            before.push(message);
        }
    }
}

/// `tank_at`, `spy_at`: where the tank and the spy's raw node attach; the watcher is at
/// `watcher_at`, with the registry.
fn rights_hold(pki: &Pki, watcher_at: &Endpoint, tank_at: &Endpoint, tank_host: &Host) {
    let model = common::model();
    let mut watcher = federate(pki, "watcher", watcher_at);
    watcher.create_federation_execution(&model).unwrap();
    watcher
        .join_federation_execution("watcher", "sim", model.clone())
        .unwrap();
    let mut tank = federate(pki, "tank-1", tank_at);
    tank.join_federation_execution("tank-1", "sim", model.clone())
        .unwrap();
    let vehicle = tank.object_class_handle("Vehicle").unwrap();
    let ground = tank.object_class_handle("Vehicle.GroundVehicle").unwrap();
    let name = tank.attribute_handle(vehicle, "Name").unwrap();
    let radio = tank.interaction_class_handle("Radio").unwrap();

    // What the rules do not give the tank fails at the call, naming the rule.
    assert_refused(
        tank.subscribe_object_class_attributes(vehicle, &[name]),
        "rule 2",
    );
    assert_refused(tank.publish_interaction_class(radio), "rule 2");
    tank.publish_object_class_attributes(ground, &[name])
        .unwrap();
    tank.subscribe_interaction_class(radio).unwrap();

    // A raw node under the spy's certificate asks for every vehicle and radio id.
    let spy = Node::connect(node_config(pki, "spy", tank_at)).unwrap();
    let ground_ids: RoaringBitmap = object_slot_ids(ground.0).collect();
    let radio_ids: RoaringBitmap = interaction_slot_ids(radio.0).collect();
    spy.subscribe(&(&ground_ids | &radio_ids)).unwrap();
    watcher.publish_interaction_class(radio).unwrap();
    watcher
        .subscribe_object_class_attributes(vehicle, &[name])
        .unwrap();
    // The spy's interest is in place once a radio message reaches it.
    until_the_spy_hears_the_radio(&mut watcher, &spy, &radio_ids);

    // The tank's updates reach the watcher, and not the spy.
    let tank_1 = tank.register_object_instance(ground).unwrap();
    let deadline = Instant::now() + WAIT;
    'reflected: loop {
        assert!(
            Instant::now() < deadline,
            "the watcher never reflected the tank"
        );
        tank.update_attribute_values(tank_1, &[(name, b"T-1".as_slice())], b"")
            .unwrap();
        tank.evoke_multiple_callbacks(Duration::ZERO, 100).unwrap();
        for callback in watcher
            .evoke_multiple_callbacks(Duration::from_millis(50), 100)
            .unwrap()
        {
            if matches!(callback, Callback::ReflectAttributeValues { .. }) {
                break 'reflected;
            }
        }
    }
    let leaked = sentinel(&mut watcher, &spy, &radio_ids, b"over-and-out");
    assert!(
        leaked.is_empty(),
        "the spy received {} vehicle frames",
        leaked.len()
    );

    // The spy's forged vehicle data goes no further than its first router: an
    // unrestricted listener by the watcher gets the radio message sent after it, alone.
    let listener = Node::connect(node_config(pki, "listener", watcher_at)).unwrap();
    listener.subscribe(&(&ground_ids | &radio_ids)).unwrap();
    let radio_id = *interaction_slot_ids(radio.0).start();
    let deadline = Instant::now() + WAIT;
    loop {
        assert!(
            Instant::now() < deadline,
            "the listener never heard the spy"
        );
        spy.publish(&[radio_id], TransportClass::Reliable, b"ping")
            .unwrap();
        let heard = listener.recv_timeout(Duration::from_millis(50)).unwrap();
        if heard.is_some_and(|m| m.payload() == b"ping") {
            break;
        }
    }
    let before = tank_host.stats().unwrap().router;
    let forged_id = *object_slot_ids(ground.0).start();
    for _ in 0..5 {
        spy.publish(&[forged_id], TransportClass::Reliable, b"forged")
            .unwrap();
    }
    spy.publish(&[radio_id], TransportClass::Reliable, b"end")
        .unwrap();
    loop {
        let message = next_message(&listener);
        assert_ne!(
            message.payload(),
            b"forged",
            "forged data crossed the network"
        );
        if message.payload() == b"end" {
            break;
        }
    }
    let after = tank_host.stats().unwrap().router;
    assert_eq!(after.drops.not_permitted, before.drops.not_permitted + 5);
    assert!(
        after.declarations_refused >= 1,
        "the spy's declaration was cut"
    );
}

#[test]
fn class_rights_hold_on_a_tree() {
    let pki = Pki::new("rights-tree");
    let model = common::model();
    let (_rt, host, at) = router(&pki, "root", 1, &policy(&model), None);
    rights_hold(&pki, &at, &at, &host);
}

#[test]
fn class_rights_hold_on_a_mesh_where_the_federate_enters_it() {
    let pki = Pki::new("rights-mesh");
    let model = common::model();
    let policy = policy(&model);
    let (_rt1, _r1, r1_at) = router(&pki, "r1", 1, &policy, None);
    let (_rt2, r2, r2_at) = router(&pki, "r2", 2, &policy, Some(&r1_at));
    rights_hold(&pki, &r1_at, &r2_at, &r2);
}
