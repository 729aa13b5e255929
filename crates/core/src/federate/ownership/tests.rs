//! Ownership among two or three federate state machines, wired by a FIFO bus that hands
//! each published payload to every other federate whose interest holds one of its ids.

use super::*;
use crate::federate::{Action, DEFAULT_BINS};
use crate::fom::ObjectModel;
use crate::interest::is_broadcast;
use roaring::RoaringBitmap;
use std::collections::VecDeque;
use std::sync::Arc;

const FOM: &str = include_str!("../../../../../foms/trellis-demo.xml");

/// The demo model: the standard MIM, merged in, gives HLAobjectRoot its
/// HLAprivilegeToDeleteObject attribute.
fn model_with_privilege() -> Arc<ObjectModel> {
    Arc::new(ObjectModel::from_sources(&[("trellis-demo.xml", FOM)]).unwrap())
}

/// The demo model under a MIM of the caller's without the privilege attribute.
fn model_without_privilege() -> Arc<ObjectModel> {
    let mim = "<objectModel>
        <objects><objectClass><name>HLAobjectRoot</name></objectClass></objects>
        <interactions><interactionClass><name>HLAinteractionRoot</name></interactionClass></interactions>
    </objectModel>";
    Arc::new(
        ObjectModel::from_sources_with_mim(("bare-mim.xml", mim), &[("trellis-demo.xml", FOM)])
            .unwrap(),
    )
}

struct Bus {
    feds: Vec<Federate>,
    interest: Vec<RoaringBitmap>,
    queue: VecDeque<(usize, Vec<u32>, Bytes)>,
}

impl Bus {
    fn new(count: usize, model: Arc<ObjectModel>) -> Bus {
        Bus {
            feds: (1..=count as u32)
                .map(|h| Federate::new(model.clone(), h, DEFAULT_BINS).unwrap())
                .collect(),
            interest: vec![RoaringBitmap::new(); count],
            queue: VecDeque::new(),
        }
    }

    fn collect(&mut self) {
        for (i, fed) in self.feds.iter_mut().enumerate() {
            while let Some(action) = fed.poll_action() {
                match action {
                    Action::SetInterest(ids) => self.interest[i] = ids,
                    Action::Publish { ids, payload, .. } => self.queue.push_back((i, ids, payload)),
                    Action::PublishFrame(frame) => {
                        let payload = Bytes::copy_from_slice(frame.payload());
                        self.queue.push_back((i, frame.ids().collect(), payload))
                    }
                    Action::Ask(request) => {
                        panic!("ownership makes no registry requests, got {request:?}")
                    }
                    Action::ExtendModel { modules, .. } => {
                        panic!("ownership adds no modules, got {modules:?}")
                    }
                }
            }
        }
    }

    /// Deliver one message at a time until nothing is left (bounded).
    fn pump(&mut self) {
        for _ in 0..10_000 {
            self.collect();
            let Some((sender, ids, payload)) = self.queue.pop_front() else {
                return;
            };
            for (i, fed) in self.feds.iter_mut().enumerate() {
                let wanted = |id: &u32| is_broadcast(*id) || self.interest[i].contains(*id);
                if i != sender && ids.iter().any(wanted) {
                    fed.handle_message(&payload, TransportClass::Reliable);
                }
            }
        }
        panic!("the bus never went quiet");
    }

    fn callbacks(&mut self, fed: usize) -> Vec<Callback> {
        std::iter::from_fn(|| self.feds[fed].poll_callback()).collect()
    }

    fn ownership(&mut self, fed: usize) -> Vec<OwnershipCallback> {
        self.callbacks(fed)
            .into_iter()
            .filter_map(|c| match c {
                Callback::Ownership(o) => Some(o),
                _ => None,
            })
            .collect()
    }

    fn update(&mut self, fed: usize, object: ObjectId, a: AttributeHandle) -> Result<()> {
        self.feds[fed].update_attribute_values(object, &[(a, b"v".as_slice())], b"", 0, None, None)
    }
}

struct Handles {
    vehicle: ObjectClassHandle,
    name: AttributeHandle,
    position: AttributeHandle,
    privilege: AttributeHandle,
}

/// Federate 0 registers a Vehicle; every federate publishes and subscribes Name and
/// Position (and the privilege to delete is implicitly published).
fn world(count: usize) -> (Bus, Handles, ObjectId) {
    let mut bus = Bus::new(count, model_with_privilege());
    let f = &bus.feds[0];
    let vehicle = f.object_class("Vehicle").unwrap();
    let h = Handles {
        vehicle,
        name: f.attribute(vehicle, "Name").unwrap(),
        position: f.attribute(vehicle, "Position").unwrap(),
        privilege: f.privilege_to_delete().unwrap(),
    };
    for fed in &mut bus.feds {
        fed.publish_object_class_attributes(vehicle, &[h.name, h.position])
            .unwrap();
        fed.subscribe_object_class_attributes(vehicle, &[h.name, h.position], &[])
            .unwrap();
    }
    bus.pump();
    let car = bus.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    bus.pump();
    for i in 1..count {
        assert!(
            matches!(&bus.callbacks(i)[..], [Callback::DiscoverObjectInstance { object, .. }] if *object == car)
        );
    }
    (bus, h, car)
}

fn notified(callbacks: &[OwnershipCallback], object: ObjectId) -> Vec<AttributeHandle> {
    callbacks
        .iter()
        .filter_map(|c| match c {
            OwnershipCallback::AttributeOwnershipAcquisitionNotification {
                object: o,
                attributes,
                ..
            } if *o == object => Some(attributes.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn the_registrar_owns_what_it_publishes_and_only_owners_may_update() {
    let (mut bus, h, car) = world(2);
    assert!(bus.feds[0]
        .is_attribute_owned_by_federate(car, h.position)
        .unwrap());
    assert!(bus.feds[0]
        .is_attribute_owned_by_federate(car, h.privilege)
        .unwrap());
    assert!(!bus.feds[1]
        .is_attribute_owned_by_federate(car, h.position)
        .unwrap());
    assert!(matches!(
        bus.update(1, car, h.position),
        Err(FederateError::AttributeNotOwned { .. })
    ));
    bus.update(0, car, h.position).unwrap();
    // A subscriber learns the owner by asking the keeper.
    bus.feds[1]
        .query_attribute_ownership(car, h.position)
        .unwrap();
    bus.pump();
    assert_eq!(
        bus.ownership(1),
        vec![OwnershipCallback::InformAttributeOwnership {
            object: car,
            attribute: h.position,
            owner: 1
        }]
    );
    assert_eq!(bus.feds[1].delete_privilege_holder(car), Some(1));
}

#[test]
fn unconditional_divestiture_leaves_the_attribute_unowned_until_acquired_if_available() {
    let (mut bus, h, car) = world(3);
    bus.feds[0]
        .unconditional_attribute_ownership_divestiture(car, &[h.position])
        .unwrap();
    bus.pump();
    assert!(matches!(
        bus.update(0, car, h.position),
        Err(FederateError::AttributeNotOwned { .. })
    ));
    assert_eq!(
        bus.feds[2].attribute_keeper(car, h.position),
        Some((1, false))
    );
    bus.feds[2]
        .query_attribute_ownership(car, h.position)
        .unwrap();
    bus.pump();
    bus.feds[1]
        .attribute_ownership_acquisition_if_available(car, &[h.position])
        .unwrap();
    bus.pump();
    assert_eq!(
        bus.ownership(2),
        vec![OwnershipCallback::AttributeIsNotOwned {
            object: car,
            attribute: h.position
        }]
    );
    assert_eq!(notified(&bus.ownership(1), car), vec![h.position]);
    bus.update(1, car, h.position).unwrap();
    bus.pump();
    let reflected = bus.callbacks(2);
    assert!(matches!(
        &reflected[..],
        [Callback::ReflectAttributeValues { sender: 2, .. }]
    ));
    assert_eq!(
        bus.feds[2].attribute_keeper(car, h.position),
        Some((2, true))
    );
    // Name stayed with the registrar.
    bus.update(0, car, h.name).unwrap();
}

#[test]
fn concurrent_acquisitions_of_an_unowned_attribute_have_exactly_one_winner() {
    let (mut bus, h, car) = world(3);
    bus.feds[0]
        .unconditional_attribute_ownership_divestiture(car, &[h.position])
        .unwrap();
    bus.pump();
    // Both ask before either hears of the other.
    bus.feds[1]
        .attribute_ownership_acquisition(car, &[h.position], b"b")
        .unwrap();
    bus.feds[2]
        .attribute_ownership_acquisition(car, &[h.position], b"c")
        .unwrap();
    bus.pump();
    let owners: Vec<usize> = (0..3)
        .filter(|i| {
            bus.feds[*i]
                .is_attribute_owned_by_federate(car, h.position)
                .unwrap()
        })
        .collect();
    assert_eq!(
        owners,
        vec![1],
        "the keeper read federate 2's request first"
    );
    // The loser's request followed the grant to the winner, who is asked to release.
    assert_eq!(notified(&bus.ownership(1), car), vec![h.position]);
    assert!(bus.ownership(2).is_empty(), "still waiting");
    let divested = bus.feds[1]
        .attribute_ownership_divestiture_if_wanted(car, &[h.position])
        .unwrap();
    assert_eq!(divested, vec![h.position]);
    bus.pump();
    assert_eq!(notified(&bus.ownership(2), car), vec![h.position]);
    assert!(bus.update(1, car, h.position).is_err());
    bus.update(2, car, h.position).unwrap();
}

#[test]
fn concurrent_acquisitions_if_available_one_gets_it_one_hears_unavailable() {
    let (mut bus, h, car) = world(3);
    bus.feds[0]
        .unconditional_attribute_ownership_divestiture(car, &[h.position])
        .unwrap();
    bus.pump();
    bus.feds[2]
        .attribute_ownership_acquisition_if_available(car, &[h.position])
        .unwrap();
    bus.feds[1]
        .attribute_ownership_acquisition_if_available(car, &[h.position])
        .unwrap();
    bus.pump();
    let answers = [bus.ownership(1), bus.ownership(2)];
    let won: Vec<bool> = answers
        .iter()
        .map(|a| notified(a, car) == vec![h.position])
        .collect();
    assert_eq!(won.iter().filter(|w| **w).count(), 1, "{answers:?}");
    let loser = if won[0] { 2 } else { 1 };
    assert_eq!(
        answers[loser - 1],
        vec![OwnershipCallback::AttributeOwnershipUnavailable {
            object: car,
            attributes: vec![h.position]
        }]
    );
    let owners = (0..3)
        .filter(|i| {
            bus.feds[*i]
                .is_attribute_owned_by_federate(car, h.position)
                .unwrap()
        })
        .count();
    assert_eq!(owners, 1);
}

#[test]
fn negotiated_divestiture_is_confirmed_to_the_acquirer() {
    let (mut bus, h, car) = world(2);
    bus.feds[0]
        .negotiated_attribute_ownership_divestiture(car, &[h.position], b"take it")
        .unwrap();
    bus.pump();
    assert_eq!(
        bus.ownership(1),
        vec![OwnershipCallback::RequestAttributeOwnershipAssumption {
            object: car,
            attributes: vec![h.position],
            tag: Bytes::from_static(b"take it")
        }]
    );
    assert!(matches!(
        bus.feds[0].confirm_divestiture(car, &[h.position], b""),
        Err(FederateError::NoAcquisitionPending { .. })
    ));
    bus.feds[1]
        .attribute_ownership_acquisition(car, &[h.position], b"mine")
        .unwrap();
    bus.pump();
    assert_eq!(
        bus.ownership(0),
        vec![OwnershipCallback::RequestDivestitureConfirmation {
            object: car,
            attributes: vec![h.position]
        }]
    );
    // Still the owner until it confirms.
    bus.update(0, car, h.position).unwrap();
    bus.feds[0]
        .confirm_divestiture(car, &[h.position], b"yours")
        .unwrap();
    assert!(bus.update(0, car, h.position).is_err());
    bus.pump();
    assert_eq!(
        bus.ownership(1),
        vec![
            OwnershipCallback::AttributeOwnershipAcquisitionNotification {
                object: car,
                attributes: vec![h.position],
                tag: Bytes::from_static(b"yours")
            }
        ]
    );
    bus.update(1, car, h.position).unwrap();
}

#[test]
fn a_release_request_can_be_denied_and_later_granted() {
    let (mut bus, h, car) = world(2);
    bus.feds[1]
        .attribute_ownership_acquisition(car, &[h.position], b"please")
        .unwrap();
    bus.pump();
    assert_eq!(
        bus.ownership(0),
        vec![OwnershipCallback::RequestAttributeOwnershipRelease {
            object: car,
            attributes: vec![h.position],
            tag: Bytes::from_static(b"please")
        }]
    );
    bus.feds[0]
        .attribute_ownership_release_denied(car, &[h.position])
        .unwrap();
    bus.pump();
    assert!(bus.ownership(1).is_empty());
    bus.update(0, car, h.position).unwrap();
    // The acquirer is still waiting: a later divestiture serves it.
    assert_eq!(
        bus.feds[0]
            .attribute_ownership_divestiture_if_wanted(car, &[h.position, h.name])
            .unwrap(),
        vec![h.position]
    );
    bus.pump();
    assert_eq!(notified(&bus.ownership(1), car), vec![h.position]);
}

#[test]
fn a_cancelled_acquisition_is_confirmed_and_forgotten_by_the_owner() {
    let (mut bus, h, car) = world(2);
    bus.feds[1]
        .attribute_ownership_acquisition(car, &[h.position], b"")
        .unwrap();
    bus.pump();
    bus.ownership(0);
    bus.feds[1]
        .cancel_attribute_ownership_acquisition(car, &[h.position])
        .unwrap();
    bus.pump();
    assert_eq!(
        bus.ownership(1),
        vec![
            OwnershipCallback::ConfirmAttributeOwnershipAcquisitionCancellation {
                object: car,
                attributes: vec![h.position]
            }
        ]
    );
    assert!(bus.feds[0]
        .attribute_ownership_divestiture_if_wanted(car, &[h.position])
        .unwrap()
        .is_empty());
    assert!(matches!(
        bus.feds[1].cancel_attribute_ownership_acquisition(car, &[h.position]),
        Err(FederateError::AttributeAcquisitionWasNotRequested { .. })
    ));
}

#[test]
fn every_ownership_service_refuses_with_its_own_error() {
    let (mut bus, h, car) = world(2);
    let nowhere = ObjectId::new(9, 9);
    let f0 = &mut bus.feds[0];
    assert!(matches!(
        f0.unconditional_attribute_ownership_divestiture(nowhere, &[h.name]),
        Err(FederateError::ObjectInstanceNotKnown(_))
    ));
    let ground = f0.object_class("Vehicle.GroundVehicle").unwrap();
    let fuel = f0.attribute(ground, "Fuel").unwrap();
    assert!(matches!(
        f0.unconditional_attribute_ownership_divestiture(car, &[fuel]),
        Err(FederateError::AttributeNotDefined { .. })
    ));
    f0.negotiated_attribute_ownership_divestiture(car, &[h.name], b"")
        .unwrap();
    assert!(matches!(
        f0.negotiated_attribute_ownership_divestiture(car, &[h.name], b""),
        Err(FederateError::AttributeAlreadyBeingDivested { .. })
    ));
    assert!(matches!(
        f0.confirm_divestiture(car, &[h.position], b""),
        Err(FederateError::AttributeDivestitureWasNotRequested { .. })
    ));
    assert!(matches!(
        f0.cancel_negotiated_attribute_ownership_divestiture(car, &[h.position]),
        Err(FederateError::AttributeDivestitureWasNotRequested { .. })
    ));
    f0.cancel_negotiated_attribute_ownership_divestiture(car, &[h.name])
        .unwrap();
    assert!(matches!(
        f0.attribute_ownership_acquisition(car, &[h.name], b""),
        Err(FederateError::AttributeAlreadyOwned { .. })
    ));
    let f1 = &mut bus.feds[1];
    for result in [
        f1.unconditional_attribute_ownership_divestiture(car, &[h.name]),
        f1.negotiated_attribute_ownership_divestiture(car, &[h.name], b""),
        f1.confirm_divestiture(car, &[h.name], b""),
        f1.attribute_ownership_release_denied(car, &[h.name]),
        f1.attribute_ownership_divestiture_if_wanted(car, &[h.name])
            .map(drop),
        f1.cancel_negotiated_attribute_ownership_divestiture(car, &[h.name]),
    ] {
        assert!(
            matches!(result, Err(FederateError::AttributeNotOwned { .. })),
            "{result:?}"
        );
    }
    assert!(matches!(
        f1.delete_object_instance(car, b"", 0),
        Err(FederateError::DeletePrivilegeNotHeld(_))
    ));
    f1.attribute_ownership_acquisition_if_available(car, &[h.name])
        .unwrap();
    assert!(matches!(
        f1.attribute_ownership_acquisition_if_available(car, &[h.name]),
        Err(FederateError::AttributeAlreadyBeingAcquired { .. })
    ));
    // Unavailable is still in flight: cancellation is only for attributeOwnershipAcquisition.
    assert!(matches!(
        f1.cancel_attribute_ownership_acquisition(car, &[h.name]),
        Err(FederateError::AttributeAcquisitionWasNotRequested { .. })
    ));
    f1.unpublish_object_class(h.vehicle);
    assert!(matches!(
        f1.attribute_ownership_acquisition(car, &[h.position], b""),
        Err(FederateError::ObjectClassNotPublished(_))
    ));
    f1.publish_object_class_attributes(h.vehicle, &[h.name])
        .unwrap();
    assert!(matches!(
        f1.attribute_ownership_acquisition(car, &[h.position], b""),
        Err(FederateError::AttributeNotPublished { .. })
    ));
    assert!(matches!(
        f1.is_attribute_owned_by_federate(nowhere, h.name),
        Err(FederateError::ObjectInstanceNotKnown(_))
    ));
    bus.pump();
    let answers = bus.ownership(1);
    assert!(
        answers.contains(&OwnershipCallback::AttributeOwnershipUnavailable {
            object: car,
            attributes: vec![h.name]
        })
    );
    // The negotiated divestiture of Name offered it to the other publisher, too.
    assert!(answers.iter().any(|c| matches!(
        c,
        OwnershipCallback::RequestAttributeOwnershipAssumption { attributes, .. }
            if attributes == &vec![h.name]
    )));
}

#[test]
fn the_privilege_to_delete_moves_with_its_attribute() {
    let (mut bus, h, car) = world(3);
    bus.feds[1]
        .attribute_ownership_acquisition(car, &[h.privilege], b"")
        .unwrap();
    bus.pump();
    bus.feds[0]
        .attribute_ownership_divestiture_if_wanted(car, &[h.privilege])
        .unwrap();
    bus.pump();
    assert_eq!(bus.feds[2].delete_privilege_holder(car), Some(2));
    assert!(matches!(
        bus.feds[0].delete_object_instance(car, b"", 0),
        Err(FederateError::DeletePrivilegeNotHeld(_))
    ));
    // The registrar still owns the rest and may update it.
    bus.update(0, car, h.position).unwrap();
    bus.pump();
    bus.callbacks(2);
    bus.feds[1].delete_object_instance(car, b"gone", 0).unwrap();
    bus.pump();
    assert!(
        matches!(&bus.callbacks(2)[..], [Callback::RemoveObjectInstance { object, sender: 2, .. }] if *object == car)
    );
    assert!(bus.feds[0].owned_objects().next().is_none());
}

#[test]
fn a_gone_federate_takes_exactly_the_instances_whose_privilege_it_kept() {
    let (mut bus, h, car) = world(3);
    let truck = bus.feds[0]
        .register_object_instance(h.vehicle, None, 0)
        .unwrap();
    bus.pump();
    bus.callbacks(1);
    bus.callbacks(2);
    // Federate 2 takes the truck's privilege to delete; federate 1 keeps its Position.
    bus.feds[1]
        .attribute_ownership_acquisition(truck, &[h.privilege], b"")
        .unwrap();
    bus.pump();
    bus.feds[0]
        .attribute_ownership_divestiture_if_wanted(truck, &[h.privilege])
        .unwrap();
    bus.pump();
    bus.ownership(1);
    for fed in 1..3 {
        bus.feds[fed].federate_gone(1);
    }
    bus.pump();
    for fed in 1..3 {
        let removed: Vec<ObjectId> = bus
            .callbacks(fed)
            .into_iter()
            .filter_map(|c| match c {
                Callback::RemoveObjectInstance {
                    object, sender: 1, ..
                } => Some(object),
                _ => None,
            })
            .collect();
        assert_eq!(removed, vec![car], "federate {}", fed + 1);
        assert_eq!(bus.feds[fed].known_objects().count(), 1);
    }
    // What the gone federate owned of the truck is unowned, kept by the privilege holder,
    // which can acquire it at once.
    assert_eq!(
        bus.feds[2].attribute_keeper(truck, h.position),
        Some((2, false))
    );
    bus.feds[1]
        .attribute_ownership_acquisition(truck, &[h.position], b"")
        .unwrap();
    assert_eq!(notified(&bus.ownership(1), truck), vec![h.position]);
    bus.update(1, truck, h.position).unwrap();
    bus.feds[2]
        .attribute_ownership_acquisition_if_available(truck, &[h.name])
        .unwrap();
    bus.pump();
    assert_eq!(notified(&bus.ownership(2), truck), vec![h.name]);
}

#[test]
fn resign_actions_do_what_they_name_or_refuse() {
    let (mut bus, h, car) = world(3);
    bus.feds[1]
        .attribute_ownership_acquisition(car, &[h.position], b"")
        .unwrap();
    bus.pump();
    bus.feds[0]
        .attribute_ownership_divestiture_if_wanted(car, &[h.position])
        .unwrap();
    bus.pump();
    bus.feds[2]
        .attribute_ownership_acquisition(car, &[h.name], b"")
        .unwrap();
    bus.pump();
    for i in 0..3 {
        bus.callbacks(i);
    }
    assert!(matches!(
        bus.feds[0].resign(ResignAction::NoAction, 0),
        Err(FederateError::FederateOwnsAttributes { .. })
    ));
    assert!(matches!(
        bus.feds[2].resign(ResignAction::DeleteObjects, 0),
        Err(FederateError::OwnershipAcquisitionPending { .. })
    ));
    // Federate 2 owns Position but not the privilege: deleting cannot take care of it.
    assert!(matches!(
        bus.feds[1].resign(ResignAction::DeleteObjects, 0),
        Err(FederateError::FederateOwnsAttributes { .. })
    ));
    bus.feds[1]
        .resign(ResignAction::UnconditionallyDivestAttributes, 0)
        .unwrap();
    bus.pump();
    assert_eq!(
        bus.feds[2].attribute_keeper(car, h.position),
        Some((1, false))
    );
    // The registrar keeps Position in trust now, so it takes it back without asking.
    assert_eq!(
        bus.feds[0].attribute_keeper(car, h.position),
        Some((1, false))
    );
    bus.feds[0]
        .attribute_ownership_acquisition(car, &[h.position], b"")
        .unwrap();
    assert_eq!(notified(&bus.ownership(0), car), vec![h.position]);
    bus.feds[2]
        .resign(ResignAction::CancelPendingOwnershipAcquisitions, 0)
        .unwrap();
    bus.pump();
    assert!(bus.feds[0]
        .attribute_ownership_divestiture_if_wanted(car, &[h.name])
        .unwrap()
        .is_empty());
    bus.feds[0].resign(ResignAction::DeleteObjects, 0).unwrap();
    bus.pump();
    for i in 1..3 {
        assert!(
            matches!(&bus.callbacks(i)[..], [Callback::RemoveObjectInstance { object, .. }] if *object == car)
        );
    }
}

#[test]
fn the_default_resign_action_deletes_what_the_federate_registered() {
    let (mut bus, _, car) = world(2);
    bus.feds[0].resign(ResignAction::default(), 0).unwrap();
    bus.pump();
    assert!(
        matches!(&bus.callbacks(1)[..], [Callback::RemoveObjectInstance { object, .. }] if *object == car)
    );
}

#[test]
fn without_the_mim_attribute_the_registrar_keeps_an_implicit_privilege() {
    let mut bus = Bus::new(2, model_without_privilege());
    assert_eq!(bus.feds[0].privilege_to_delete(), None);
    let vehicle = bus.feds[0].object_class("Vehicle").unwrap();
    let position = bus.feds[0].attribute(vehicle, "Position").unwrap();
    for fed in &mut bus.feds {
        fed.publish_object_class_attributes(vehicle, &[position])
            .unwrap();
        fed.subscribe_object_class_attributes(vehicle, &[position], &[])
            .unwrap();
    }
    bus.pump();
    let car = bus.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    bus.pump();
    bus.callbacks(1);
    bus.feds[0]
        .unconditional_attribute_ownership_divestiture(car, &[position])
        .unwrap();
    bus.feds[1]
        .attribute_ownership_acquisition_if_available(car, &[position])
        .unwrap();
    bus.pump();
    assert_eq!(notified(&bus.ownership(1), car), vec![position]);
    assert!(matches!(
        bus.feds[1].delete_object_instance(car, b"", 0),
        Err(FederateError::DeletePrivilegeNotHeld(_))
    ));
    bus.feds[1].federate_gone(1);
    assert!(
        matches!(&bus.callbacks(1)[..], [Callback::RemoveObjectInstance { object, .. }] if *object == car)
    );
}

#[test]
fn a_default_name_is_stored_by_no_one_not_even_an_acquirer() {
    let (mut bus, h, car) = world(3);
    assert_eq!(car, ObjectId::new(1, 1));
    let stored = |bus: &Bus, fed: usize| bus.feds[fed].instances[car].name.clone();
    assert_eq!(
        stored(&bus, 0),
        None,
        "the registrar derives it from the id"
    );
    assert_eq!(stored(&bus, 1), None, "so does a discoverer");
    bus.feds[0]
        .unconditional_attribute_ownership_divestiture(car, &[h.position])
        .unwrap();
    bus.pump();
    bus.feds[1]
        .attribute_ownership_acquisition_if_available(car, &[h.position])
        .unwrap();
    bus.pump();
    assert_eq!(notified(&bus.ownership(1), car), vec![h.position]);
    assert_eq!(
        stored(&bus, 1),
        None,
        "an acquirer's updates carry the mark"
    );
    assert_eq!(stored(&bus, 2), None);
}

/// Every federate of the bus joined at event 5 of the federation, so it takes events.
fn join_all(bus: &mut Bus) {
    let count = bus.feds.len() as u32;
    let snapshot = crate::registry::Snapshot {
        epoch: 0,
        seq: 5,
        time_representation: "HLAinteger64Time".into(),
        federates: (1..=count)
            .map(|h| (h, format!("f{h}"), "sim".into()))
            .collect(),
        regulating: Vec::new(),
        constrained: Vec::new(),
        sync_points: Vec::new(),
    };
    for fed in &mut bus.feds {
        fed.apply_join("F", &snapshot);
    }
}

/// The registry's report that federate 1 resigned, as event 6.
fn resigned_event() -> Bytes {
    use crate::registry::{Departure, FederationEvent};
    let left = FederationEvent::FederateLeft {
        federate: 1,
        how: Departure::Resigned,
    };
    left.encode(0, 6)
}

/// The registry's event travels apart from a resigner's last messages (at a higher
/// priority, through the registry's router) and may come first. The resigner's hand-over of
/// the privilege it divested, which it sent before its `Departing`, must still be applied:
/// the instance stays, kept by the federate that owns its other attribute.
#[test]
fn a_resigners_hand_over_holds_though_its_departure_is_reported_first() {
    let (mut bus, h, car) = world(2);
    join_all(&mut bus);
    bus.feds[0]
        .unconditional_attribute_ownership_divestiture(car, &[h.position])
        .unwrap();
    bus.feds[1]
        .attribute_ownership_acquisition_if_available(car, &[h.position])
        .unwrap();
    bus.pump();
    assert_eq!(notified(&bus.ownership(1), car), vec![h.position]);
    bus.feds[0]
        .resign(ResignAction::UnconditionallyDivestAttributes, 0)
        .unwrap();
    bus.feds[0].depart();
    bus.feds[1].handle_message(&resigned_event(), TransportClass::Reliable);
    assert!(
        bus.callbacks(1).is_empty(),
        "nothing is removed before the resigner's last messages"
    );
    bus.pump();
    assert!(bus.callbacks(1).is_empty(), "the instance stays");
    assert_eq!(
        bus.feds[1].attribute_keeper(car, h.privilege),
        Some((2, false))
    );
    bus.feds[1]
        .attribute_ownership_acquisition_if_available(car, &[h.name])
        .unwrap();
    assert_eq!(notified(&bus.ownership(1), car), vec![h.name]);
}

/// The same departure in the order it was sent: the instance goes when the resigner kept
/// its privilege (here it deleted nothing and handed nothing over).
#[test]
fn a_resigner_that_kept_the_privilege_takes_its_instance_once_both_reports_are_in() {
    let (mut bus, _, car) = world(2);
    join_all(&mut bus);
    bus.feds[0]
        .resign(ResignAction::UnconditionallyDivestAttributes, 0)
        .unwrap();
    bus.feds[0].depart();
    bus.pump();
    assert!(
        bus.callbacks(1).is_empty(),
        "Departing alone removes nothing"
    );
    bus.feds[1].handle_message(&resigned_event(), TransportClass::Reliable);
    assert!(
        matches!(&bus.callbacks(1)[..], [Callback::RemoveObjectInstance { object, .. }] if *object == car)
    );
}
