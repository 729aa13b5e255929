//! Class rights on the wire (`router::rights`): a federate's first router keeps out of
//! its interest the classes it may not subscribe to, drops its data of classes it may not
//! publish, tells it its rights, and refuses its join with another object model.

use super::claims::{certified, refusal, request};
use super::*;
use crate::federate::layout::{interaction_slot_ids, object_slot_ids, REQUEST_CELL};
use crate::fom::ObjectModel;
use crate::policy::{ClassTable, Policy};
use crate::registry::{Request, Response};
use std::sync::Arc;

const DEMO: &str = include_str!("../../../../../foms/trellis-demo.xml");

/// Tanks publish vehicles and hear only the radio; anyone else is unrestricted.
fn policy_router(now: Time) -> (Router, ClassTable) {
    let text = format!(
        "[[model]]\nfederations = [\"{FED}\"]\nmodules = [\"trellis-demo.xml\"]\n\n\
         [[allow]]\nidentities = [\"*\"]\nfederations = [\"{FED}\"]\nactions = [\"join\"]\n\n\
         [[allow]]\nidentities = [\"tank-*\"]\nfederations = [\"{FED}\"]\n\
         publish = [\"Vehicle\", \"Vehicle.*\"]\nsubscribe = [\"Radio\"]\n"
    );
    let mut policy = Policy::from_toml(&text).expect("policy");
    let model = ObjectModel::from_sources(&[("trellis-demo.xml", DEMO)]).expect("model");
    let table = ClassTable::of(&model, policy.model[0].bins);
    policy.model[0].table = Some(Arc::new(table.clone()));
    let mut config = RouterConfig::new("r", NodeId(1));
    config.policy = Some(Arc::new(policy));
    (Router::new(config, now), table)
}

fn slot(table: &ClassTable, qualified: &str) -> std::ops::RangeInclusive<u32> {
    if let Some(i) = table.objects.iter().position(|n| n == qualified) {
        return object_slot_ids(i as u32);
    }
    let i = (table.interactions.iter().position(|n| n == qualified)).expect("a class");
    interaction_slot_ids(i as u32)
}

fn range(ids: &std::ops::RangeInclusive<u32>) -> (u32, u32) {
    (*ids.start(), *ids.end())
}

#[test]
fn a_restricted_link_declares_and_sends_only_what_its_rights_allow() {
    let now = Time::ZERO;
    let (mut router, table) = policy_router(now);
    let ground = slot(&table, "HLAobjectRoot.Vehicle.GroundVehicle");
    let radio = slot(&table, "HLAinteractionRoot.Radio");
    let tank = certified(&mut router, now, 10, Some("tank-1"));
    let watcher = certified(&mut router, now, 11, Some("watcher"));
    // The tank asks for everything of both classes: it keeps the radio, and the request
    // id of the vehicles it publishes.
    tank.declare(
        &mut router,
        now,
        FED,
        InterestOp::Add,
        &[range(&ground), range(&radio)],
    );
    let kept = router.received_interest(tank.link, FED);
    let mut expected: RoaringBitmap = radio.clone().collect();
    expected.insert(ground.start() | REQUEST_CELL);
    assert_eq!(kept, expected);
    assert_eq!(router.stats().declarations_refused, 1);
    // The watcher is unrestricted: its declaration stands whole.
    watcher.declare(
        &mut router,
        now,
        FED,
        InterestOp::Add,
        &[range(&ground), range(&radio)],
    );
    assert_eq!(router.received_interest(watcher.link, FED).len(), 2 << 20);
    assert_eq!(router.stats().declarations_refused, 1);
    let refusals = events(&mut router, now)
        .into_iter()
        .filter_map(|e| match e {
            Event::ClassRefused { link, why } if link == tank.link => Some(why),
            _ => None,
        })
        .collect::<Vec<_>>();
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert!(
        refusals[0].contains("tank-1") && refusals[0].contains("rule 2"),
        "{refusals:?}"
    );

    // A vehicle update goes out; a radio message from the tank does not leave its router.
    let mut watcher = watcher;
    let (update, chatter) = (*ground.start(), *radio.start());
    tank.publish(
        &mut router,
        now,
        1,
        TransportClass::Reliable,
        0,
        &[update],
        8,
    );
    tank.publish(
        &mut router,
        now,
        2,
        TransportClass::Reliable,
        0,
        &[chatter],
        8,
    );
    tank.publish(
        &mut router,
        now,
        3,
        TransportClass::BestEffort,
        0,
        &[update, chatter],
        8,
    );
    assert_eq!(watcher.data_seqs(&mut router, now), vec![1]);
    assert_eq!(router.stats().drops.not_permitted, 2);
    // Asking for update values of any class is not publishing it.
    let ask = *radio.start() | REQUEST_CELL;
    tank.publish(&mut router, now, 4, TransportClass::Reliable, 0, &[ask], 8);
    assert_eq!(router.stats().drops.not_permitted, 2);
}

#[test]
fn the_first_router_tells_a_federate_its_rights_and_refuses_it_another_model() {
    let now = Time::ZERO;
    let (mut router, table) = policy_router(now);
    let mut tank = certified(&mut router, now, 10, Some("tank-1"));
    let ask = Request::ClassRights {
        federation: FED.into(),
    };
    tank.send(&mut router, now, &request(10, &ask));
    let rights = tank
        .receive(&mut router, now)
        .into_iter()
        .find_map(|f| match f {
            Frame::Manage(reply) => match Response::decode(&reply.body) {
                Ok(Response::ClassRights(rights)) => Some(rights),
                _ => None,
            },
            _ => None,
        });
    let rights = rights.expect("the router answers itself");
    let publish = rights.publish.expect("publishing is limited");
    assert_eq!(publish.patterns, ["Vehicle", "Vehicle.*"]);
    assert_eq!(publish.rules, [2]);
    assert_eq!(rights.subscribe.expect("limited").patterns, ["Radio"]);

    let join = |fingerprint| Request::Join {
        federation: FED.into(),
        federate_name: "tank-1".into(),
        federate_type: "sim".into(),
        fingerprint,
        modules: vec![],
    };
    tank.send(&mut router, now, &request(10, &join(table.fingerprint ^ 1)));
    let why = refusal(&mut tank, &mut router, now).expect("another model is refused");
    assert!(why.contains("[[model]]"), "{why}");
    tank.send(&mut router, now, &request(10, &join(table.fingerprint)));
    assert_eq!(refusal(&mut tank, &mut router, now), None);
}

#[test]
fn a_certified_federate_cannot_forge_registry_events_policy_or_not() {
    let now = Time::ZERO;
    let mut router = Router::new(RouterConfig::new("r", NodeId(1)), now);
    let forger = certified(&mut router, now, 10, Some("forger"));
    let mut victim = certified(&mut router, now, 11, Some("victim"));
    let plain = certified(&mut router, now, 12, None);
    let control = crate::registry::FEDERATION_CONTROL_ID;
    forger.publish(
        &mut router,
        now,
        1,
        TransportClass::Reliable,
        0,
        &[control],
        8,
    );
    assert_eq!(victim.data_seqs(&mut router, now), Vec::<u64>::new());
    assert_eq!(router.stats().drops.not_permitted, 1);
    let told = events(&mut router, now).into_iter().any(
        |e| matches!(e, Event::ClassRefused { link, why } if link == forger.link && why.contains("registry event")),
    );
    assert!(told);
    // Without a certificate nothing tells a federate from a router that routes for others
    // (the claims' rule): such links are for trusted networks.
    plain.publish(
        &mut router,
        now,
        1,
        TransportClass::Reliable,
        0,
        &[control],
        8,
    );
    assert_eq!(victim.data_seqs(&mut router, now), vec![1]);
}
