//! The access policy's class rights, as the federate keeps them (`class_rights.rs`): a
//! refused call fails at once naming the rules, and a subscription leaves out of its
//! interest the subclasses the federate may not subscribe to.

use super::*;
use crate::policy::{ClassGrant, ClassRights};

fn grant(patterns: &[&str], rule: usize) -> Option<ClassGrant> {
    Some(ClassGrant {
        patterns: patterns.iter().map(|p| p.to_string()).collect(),
        rules: vec![rule],
    })
}

#[test]
fn a_call_the_policy_refuses_fails_naming_the_rule_and_changes_nothing() {
    let mut w = World::new(41, 1);
    let (vehicle, ground, name, _, _) = handles(&w.feds[0]);
    let radio = w.feds[0].interaction_class("Radio").unwrap();
    w.feds[0].set_class_rights(ClassRights {
        publish: grant(&["Vehicle.*"], 3),
        subscribe: grant(&["Radio"], 4),
    });
    let fed = &mut w.feds[0];
    let refused = [
        fed.publish_object_class_attributes(vehicle, &[name]),
        fed.subscribe_object_class_attributes(vehicle, &[name], &[]),
        fed.publish_interaction_class(radio),
    ];
    for result in refused {
        let Err(FederateError::NotPermitted(why)) = result else {
            panic!("refused: {result:?}")
        };
        assert!(
            why.contains("access policy") && why.contains("rule 3"),
            "{why}"
        );
    }
    assert_eq!(fed.published_attributes(vehicle), vec![]);
    fed.publish_object_class_attributes(ground, &[name])
        .unwrap();
    fed.subscribe_interaction_class(radio, &[]).unwrap();
}

#[test]
fn a_subscription_leaves_out_the_subclasses_the_federate_may_not_subscribe_to() {
    let mut w = World::new(42, 2);
    let (vehicle, ground, name, position, _) = handles(&w.feds[0]);
    w.feds[1].set_class_rights(ClassRights {
        publish: None,
        subscribe: grant(&["Vehicle"], 1),
    });
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    w.feds[0]
        .publish_object_class_attributes(ground, &[name, position])
        .unwrap();
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    w.pump();
    let car = w.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    let _tank = w.feds[0].register_object_instance(ground, None, 0).unwrap();
    w.pump();
    let discovered: Vec<_> = (w.callbacks(1).into_iter())
        .filter_map(|c| match c {
            Callback::DiscoverObjectInstance { object, .. } => Some(object),
            _ => None,
        })
        .collect();
    assert_eq!(
        discovered,
        vec![car],
        "the ground vehicle is not its to see"
    );
}
