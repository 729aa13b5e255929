//! The Management Object Model (IEEE 1516.1-2010 §11) over a simulated network with a
//! registry: every federate's local RTI component speaks for its own `HLAfederate`
//! instance, the lowest handle for the `HLAfederation` instance.

use super::retraction::Timed;
use super::*;
use crate::federate::mom::{decode, federate_object, FEDERATION_OBJECT};
use crate::registry::Request;

pub(super) const FEDERATE_CLASS: &str = "HLAmanager.HLAfederate";

/// `fed` subscribes to `class` with the named attributes.
pub(super) fn subscribe(
    fed: &mut Federate,
    class: &str,
    attributes: &[&str],
) -> Vec<AttributeHandle> {
    let class = fed.object_class(class).unwrap();
    let attributes: Vec<_> = attributes
        .iter()
        .map(|a| fed.attribute(class, a).unwrap())
        .collect();
    fed.subscribe_object_class_attributes(class, &attributes, &[])
        .unwrap();
    attributes
}

fn discovered(callbacks: &[Callback]) -> BTreeSet<ObjectId> {
    callbacks
        .iter()
        .filter_map(|c| match c {
            Callback::DiscoverObjectInstance { object, .. } => Some(*object),
            _ => None,
        })
        .collect()
}

/// The latest value of `attribute` reflected for each instance.
pub(super) fn reflected(
    callbacks: &[Callback],
    attribute: AttributeHandle,
) -> BTreeMap<ObjectId, Bytes> {
    let mut latest = BTreeMap::new();
    for callback in callbacks {
        if let Callback::ReflectAttributeValues { object, values, .. } = callback {
            for (a, v) in values {
                if *a == attribute {
                    latest.insert(*object, v.clone());
                }
            }
        }
    }
    latest
}

pub(super) fn unicode(text: &str) -> Vec<u8> {
    let mut out = (text.encode_utf16().count() as u32).to_be_bytes().to_vec();
    for unit in text.encode_utf16() {
        out.extend_from_slice(&unit.to_be_bytes());
    }
    out
}

pub(super) fn handle_value(handle: u32) -> Vec<u8> {
    let mut out = 8u32.to_be_bytes().to_vec();
    out.extend_from_slice(&u64::from(handle).to_be_bytes());
    out
}

#[test]
fn a_subscriber_discovers_every_federates_instance_its_own_included_and_reads_its_time_state() {
    let mut w = Timed::new(3);
    let handles: Vec<u32> = w.feds.iter().map(Federate::handle).collect();
    let attributes = subscribe(
        &mut w.feds[0],
        FEDERATE_CLASS,
        &["HLAfederateName", "HLAfederateHandle", "HLAtimeRegulating"],
    );
    w.pump();
    let expected: BTreeSet<ObjectId> = handles.iter().map(|&h| federate_object(h)).collect();
    assert_eq!(discovered(&w.callbacks(0)), expected);
    w.enable(1, true);
    let class = w.feds[0].object_class(FEDERATE_CLASS).unwrap();
    w.feds[0]
        .request_class_attribute_value_update(class, &attributes, b"")
        .unwrap();
    w.pump();
    let callbacks = w.callbacks(0);
    let names = reflected(&callbacks, attributes[0]);
    let ids = reflected(&callbacks, attributes[1]);
    let regulating = reflected(&callbacks, attributes[2]);
    for (i, &h) in handles.iter().enumerate() {
        let object = federate_object(h);
        assert_eq!(
            names[&object],
            unicode(&format!("f{i}")),
            "federate {h}'s name"
        );
        assert_eq!(ids[&object], handle_value(h));
        let expected = i32::from(i == 1).to_be_bytes();
        assert_eq!(regulating[&object], expected[..], "federate {h} regulating");
    }
}

#[test]
fn the_federation_instance_comes_from_one_federate_and_lists_the_members() {
    let mut w = Timed::new(3);
    let attributes = subscribe(
        &mut w.feds[2],
        "HLAmanager.HLAfederation",
        &["HLAfederatesInFederation", "HLAfederationName"],
    );
    w.pump();
    let callbacks = w.callbacks(2);
    let discoveries = callbacks
        .iter()
        .filter(|c| matches!(c, Callback::DiscoverObjectInstance { object, .. } if *object == FEDERATION_OBJECT))
        .count();
    assert_eq!(discoveries, 1, "one federation instance, discovered once");
    let class = w.feds[2].object_class("HLAmanager.HLAfederation").unwrap();
    w.feds[2]
        .request_object_attribute_value_update(FEDERATION_OBJECT, &attributes, b"")
        .unwrap();
    w.pump();
    let callbacks = w.callbacks(2);
    let reflects: Vec<u32> = callbacks
        .iter()
        .filter_map(|c| match c {
            Callback::ReflectAttributeValues { object, sender, .. }
                if *object == FEDERATION_OBJECT =>
            {
                Some(*sender)
            }
            _ => None,
        })
        .collect();
    let lowest = w.feds.iter().map(Federate::handle).min().unwrap();
    assert_eq!(reflects, vec![lowest], "only the lowest handle answers");
    let members = &reflected(&callbacks, attributes[0])[&FEDERATION_OBJECT];
    let mut expected = 3u32.to_be_bytes().to_vec();
    for fed in &w.feds {
        expected.extend(handle_value(fed.handle()));
    }
    assert_eq!(members[..], expected[..]);
    assert_eq!(
        reflected(&callbacks, attributes[1])[&FEDERATION_OBJECT],
        unicode(FED)
    );
    let _ = class;
}

#[test]
fn a_federate_that_leaves_is_removed_from_every_view() {
    let mut w = Timed::new(3);
    subscribe(&mut w.feds[0], FEDERATE_CLASS, &["HLAfederateName"]);
    w.pump();
    w.callbacks(0);
    let leaving = w.feds[2].handle();
    let resign = Request::Resign {
        federation: FED.into(),
        federate: leaving,
    };
    w.ask(2, &resign);
    w.pump();
    let removed: Vec<ObjectId> = w
        .callbacks(0)
        .into_iter()
        .filter_map(|c| match c {
            Callback::RemoveObjectInstance { object, .. } => Some(object),
            _ => None,
        })
        .collect();
    assert_eq!(removed, vec![federate_object(leaving)]);
}

/// HLAmanager.HLAfederate.HLAadjust.HLAsetTiming addressed to federate `target`.
fn set_timing(fed: &mut Federate, target: u32, seconds: i32) {
    let class = fed
        .interaction_class("HLAmanager.HLAfederate.HLAadjust.HLAsetTiming")
        .unwrap();
    let federate = fed.parameter(class, "HLAfederate").unwrap();
    let period = fed.parameter(class, "HLAreportPeriod").unwrap();
    fed.publish_interaction_class(class).unwrap();
    let values = [
        (federate, handle_value(target)),
        (period, seconds.to_be_bytes().to_vec()),
    ];
    fed.send_interaction(class, &values, b"", 0, None, None)
        .unwrap();
}

/// Messages the federate queued for its node, drained.
fn publishes(fed: &mut Federate) -> usize {
    std::iter::from_fn(|| fed.poll_action())
        .filter(|a| matches!(a, Action::Publish { .. }))
        .count()
}

#[test]
fn set_timing_sends_periodic_updates_only_while_someone_subscribes() {
    let mut w = Timed::new(2);
    let target = w.feds[1].handle();
    set_timing(&mut w.feds[0], target, 2);
    w.pump();
    let second = 1_000_000_000;
    assert_eq!(w.feds[1].poll_mom_timeout(), Some(0), "due at once");
    // Nobody subscribes: the reports fall due and nothing is sent.
    for tick in 1..=3u64 {
        w.feds[1].handle_mom_timeout(tick * 2 * second);
        assert_eq!(
            publishes(&mut w.feds[1]),
            0,
            "tick {tick} with no subscriber"
        );
    }
    let attributes = subscribe(&mut w.feds[0], FEDERATE_CLASS, &["HLAfederateName"]);
    w.pump();
    w.callbacks(0);
    let due = w.feds[1].poll_mom_timeout().unwrap();
    w.feds[1].handle_mom_timeout(due - 1);
    assert_eq!(publishes(&mut w.feds[1]), 0, "not yet due");
    w.feds[1].handle_mom_timeout(due);
    assert_eq!(w.feds[1].poll_mom_timeout(), Some(due + 2 * second));
    w.pump();
    let names = reflected(&w.callbacks(0), attributes[0]);
    assert_eq!(names[&federate_object(target)], unicode("f1"));
    // Zero stops them.
    set_timing(&mut w.feds[0], target, 0);
    w.pump();
    assert_eq!(w.feds[1].poll_mom_timeout(), None);
}

#[test]
fn request_publications_is_answered_with_the_standards_reports() {
    let mut w = Timed::new(2);
    let (vehicle, name, position) = {
        let fed = &w.feds[1];
        let vehicle = fed.object_class("Vehicle").unwrap();
        let name = fed.attribute(vehicle, "Name").unwrap();
        let position = fed.attribute(vehicle, "Position").unwrap();
        (vehicle, name, position)
    };
    w.feds[1]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    let report = w.feds[0]
        .interaction_class("HLAmanager.HLAfederate.HLAreport.HLAreportObjectClassPublication")
        .unwrap();
    w.feds[0].subscribe_interaction_class(report, &[]).unwrap();
    let request = w.feds[0]
        .interaction_class("HLAmanager.HLAfederate.HLArequest.HLArequestPublications")
        .unwrap();
    let federate = w.feds[0].parameter(request, "HLAfederate").unwrap();
    w.feds[0].publish_interaction_class(request).unwrap();
    w.pump();
    let target = w.feds[1].handle();
    w.feds[0]
        .send_interaction(
            request,
            &[(federate, handle_value(target))],
            b"",
            0,
            None,
            None,
        )
        .unwrap();
    w.pump();
    let reports: Vec<Vec<(ParameterHandle, Bytes)>> = w
        .callbacks(0)
        .into_iter()
        .filter_map(|c| match c {
            Callback::ReceiveInteraction {
                class, parameters, ..
            } if class == report => Some(parameters),
            _ => None,
        })
        .collect();
    assert_eq!(reports.len(), 1, "one published class, one report");
    let value = |name: &str| {
        let p = w.feds[0].parameter(report, name).unwrap();
        reports[0].iter().find(|(h, _)| *h == p).unwrap().1.to_vec()
    };
    assert_eq!(value("HLAfederate"), handle_value(target));
    assert_eq!(value("HLAnumberOfClasses"), 1i32.to_be_bytes());
    assert_eq!(value("HLAobjectClass"), handle_value(vehicle.0));
    let mut list = 2u32.to_be_bytes().to_vec();
    for a in [name, position] {
        list.extend(handle_value(a.0));
    }
    assert_eq!(value("HLAattributeList"), list);
}

/// HLAmanager.HLAfederate.HLAservice.HLAresignFederationExecution naming `target`, sent by
/// `fed`.
fn resign_service(fed: &mut Federate, target: u32) {
    let class = fed
        .interaction_class("HLAmanager.HLAfederate.HLAservice.HLAresignFederationExecution")
        .unwrap();
    let federate = fed.parameter(class, "HLAfederate").unwrap();
    let action = fed.parameter(class, "HLAresignAction").unwrap();
    fed.publish_interaction_class(class).unwrap();
    let values = [
        (federate, handle_value(target)),
        (action, 0i32.to_be_bytes().to_vec()),
    ];
    fed.send_interaction(class, &values, b"", 0, None, None)
        .unwrap();
}

#[test]
fn a_manager_resigns_a_federate_that_no_longer_answers() {
    let mut w = Timed::new(3);
    subscribe(&mut w.feds[1], FEDERATE_CLASS, &["HLAfederateName"]);
    w.pump();
    w.callbacks(1);
    let hung = w.feds[2].handle();
    resign_service(&mut w.feds[0], hung);
    // The hung federate takes part in nothing: only the others are pumped... but the
    // simulated network delivers to it anyway; what matters is that it need not act.
    w.pump();
    let removed: Vec<ObjectId> = (w.callbacks(1).into_iter())
        .filter_map(|c| match c {
            Callback::RemoveObjectInstance { object, .. } => Some(object),
            _ => None,
        })
        .collect();
    assert_eq!(removed, vec![federate_object(hung)]);
    let members: Vec<u32> = w.feds[0].federates().map(|(h, _, _)| h).collect();
    assert!(!members.contains(&hung), "{members:?}");
    let told = w.callbacks(2).into_iter().find_map(|c| match c {
        Callback::ConnectionLost { fault } => Some(fault),
        _ => None,
    });
    assert!(
        told.as_deref()
            .is_some_and(|f| f.contains("federation manager")),
        "{told:?}"
    );
}

#[test]
fn a_refused_service_comes_back_as_a_mom_exception() {
    let mut w = Timed::new(2);
    let report = w.feds[0]
        .interaction_class("HLAmanager.HLAfederate.HLAreport.HLAreportMOMexception")
        .unwrap();
    w.feds[0].subscribe_interaction_class(report, &[]).unwrap();
    w.pump();
    resign_service(&mut w.feds[0], 99);
    w.pump();
    let exception = w.feds[0].parameter(report, "HLAexception").unwrap();
    let service = w.feds[0].parameter(report, "HLAservice").unwrap();
    let reported: Vec<Vec<(ParameterHandle, Bytes)>> = (w.callbacks(0).into_iter())
        .filter_map(|c| match c {
            Callback::ReceiveInteraction {
                class, parameters, ..
            } if class == report => Some(parameters),
            _ => None,
        })
        .collect();
    assert_eq!(reported.len(), 1, "one refusal, one report");
    let value = |p| {
        reported[0]
            .iter()
            .find(|(h, _)| *h == p)
            .unwrap()
            .1
            .to_vec()
    };
    assert_eq!(value(service), unicode("HLAresignFederationExecution"));
    let why = value(exception);
    let text = String::from_utf16(
        &why[4..]
            .chunks(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    assert!(text.contains("99"), "the reason names the federate: {text}");
}

/// `manager` asks federate `target`'s MOM with `HLAmanager.HLAfederate.HLArequest.{request}`
/// (with `extra` parameters) and returns the `…HLAreport.{report}` interactions it
/// receives, each as its parameters by name.
fn ask_mom(
    w: &mut Timed,
    manager: usize,
    target: usize,
    request: &str,
    extra: &[(&str, Vec<u8>)],
    report: &str,
) -> Vec<BTreeMap<String, Bytes>> {
    let fed = &mut w.feds[manager];
    let report = fed
        .interaction_class(&format!("HLAmanager.HLAfederate.HLAreport.{report}"))
        .unwrap();
    fed.subscribe_interaction_class(report, &[]).unwrap();
    let request = fed
        .interaction_class(&format!("HLAmanager.HLAfederate.HLArequest.{request}"))
        .unwrap();
    fed.publish_interaction_class(request).unwrap();
    w.pump();
    w.callbacks(manager);
    let target = w.feds[target].handle();
    let fed = &mut w.feds[manager];
    let mut values = vec![(
        fed.parameter(request, "HLAfederate").unwrap(),
        handle_value(target),
    )];
    for (name, value) in extra {
        values.push((fed.parameter(request, name).unwrap(), value.clone()));
    }
    fed.send_interaction(request, &values, b"", 0, None, None)
        .unwrap();
    w.pump();
    let callbacks = w.callbacks(manager);
    let fed = &w.feds[manager];
    let name_of = |p: ParameterHandle| {
        let names = ["HLAfederate", "HLAtransportation", "HLAupdateCounts"];
        let all = names.into_iter().chain([
            "HLAreflectCounts",
            "HLAinteractionCounts",
            "HLAobjectInstanceCounts",
            "HLAobjectInstance",
            "HLAownedInstanceAttributeList",
            "HLAregisteredClass",
            "HLAknownClass",
        ]);
        all.into_iter()
            .find(|n| fed.parameter(report, n).ok() == Some(p))
            .unwrap_or("unknown")
            .to_owned()
    };
    (callbacks.into_iter())
        .filter_map(|c| match c {
            Callback::ReceiveInteraction {
                class, parameters, ..
            } if class == report => Some(parameters),
            _ => None,
        })
        .map(|parameters| {
            (parameters.into_iter())
                .map(|(p, v)| (name_of(p), v))
                .collect()
        })
        .collect()
}

/// The per-class counts of a report, by its HLAtransportation.
fn counts_by_transport(
    reports: &[BTreeMap<String, Bytes>],
    counts: &str,
) -> BTreeMap<String, Vec<(u64, u64)>> {
    (reports.iter())
        .map(|r| {
            let transport = decode::unicode_string(&r["HLAtransportation"]).unwrap();
            (transport, decode::handle_count_list(&r[counts]).unwrap())
        })
        .collect()
}

/// f1 publishes Vehicle's Name and Position, registers two vehicles and updates them three
/// times: the Name of each (reliable), then the Position of the first (best effort).
fn two_vehicles_updated_three_times(w: &mut Timed) -> (ObjectClassHandle, [ObjectId; 2]) {
    let fed = &mut w.feds[1];
    let vehicle = fed.object_class("Vehicle").unwrap();
    let name = fed.attribute(vehicle, "Name").unwrap();
    let position = fed.attribute(vehicle, "Position").unwrap();
    fed.publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    let a = fed.register_object_instance(vehicle, None, 0).unwrap();
    let b = fed.register_object_instance(vehicle, None, 0).unwrap();
    for (object, attribute) in [(a, name), (b, name), (a, position)] {
        fed.update_attribute_values(object, &[(attribute, b"v".to_vec())], b"", 0, None, None)
            .unwrap();
    }
    w.pump();
    (vehicle, [a, b])
}

#[test]
fn updates_sent_are_reported_per_class_and_transportation() {
    let mut w = Timed::new(2);
    let (vehicle, _) = two_vehicles_updated_three_times(&mut w);
    let vehicle = u64::from(vehicle.0);
    let reports = ask_mom(
        &mut w,
        0,
        1,
        "HLArequestUpdatesSent",
        &[],
        "HLAreportUpdatesSent",
    );
    assert_eq!(reports.len(), 2, "one report per transportation type");
    for report in &reports {
        assert_eq!(
            decode::handle(&report["HLAfederate"]),
            Ok(u64::from(w.feds[1].handle()))
        );
    }
    let counts = counts_by_transport(&reports, "HLAupdateCounts");
    assert_eq!(counts["HLAreliable"], vec![(vehicle, 2)]);
    assert_eq!(counts["HLAbestEffort"], vec![(vehicle, 1)]);
    // A federate that updated nothing answers with empty lists (the NULL response).
    let reports = ask_mom(
        &mut w,
        1,
        0,
        "HLArequestUpdatesSent",
        &[],
        "HLAreportUpdatesSent",
    );
    let counts = counts_by_transport(&reports, "HLAupdateCounts");
    assert_eq!(counts.len(), 2);
    assert!(counts.values().all(Vec::is_empty), "{counts:?}");
}

#[test]
fn reflections_and_interactions_received_are_reported_per_class() {
    let mut w = Timed::new(3);
    subscribe(&mut w.feds[2], "Vehicle", &["Name", "Position"]);
    w.pump();
    let (vehicle, _) = two_vehicles_updated_three_times(&mut w);
    let vehicle = u64::from(vehicle.0);
    let reports = ask_mom(
        &mut w,
        0,
        2,
        "HLArequestReflectionsReceived",
        &[],
        "HLAreportReflectionsReceived",
    );
    let counts = counts_by_transport(&reports, "HLAreflectCounts");
    assert_eq!(counts["HLAreliable"], vec![(vehicle, 2)]);
    assert_eq!(counts["HLAbestEffort"], vec![(vehicle, 1)]);
    // Every federate in Timed subscribes Radio: f1's one message reaches f2.
    let radio = w.feds[1].interaction_class("Radio").unwrap();
    w.feds[1]
        .send_interaction::<Vec<u8>>(radio, &[], b"", 0, None, None)
        .unwrap();
    w.pump();
    let reports = ask_mom(
        &mut w,
        0,
        2,
        "HLArequestInteractionsReceived",
        &[],
        "HLAreportInteractionsReceived",
    );
    let counts = counts_by_transport(&reports, "HLAinteractionCounts");
    assert_eq!(counts["HLAreliable"], vec![(u64::from(radio.0), 1)]);
    let reports = ask_mom(
        &mut w,
        0,
        1,
        "HLArequestInteractionsSent",
        &[],
        "HLAreportInteractionsSent",
    );
    let counts = counts_by_transport(&reports, "HLAinteractionCounts");
    assert_eq!(counts["HLAreliable"], vec![(u64::from(radio.0), 1)]);
}

#[test]
fn instances_that_can_be_deleted_are_those_whose_privilege_the_federate_holds() {
    let mut w = Timed::new(3);
    subscribe(&mut w.feds[2], "Vehicle", &["Name"]);
    w.pump();
    let (vehicle, _) = two_vehicles_updated_three_times(&mut w);
    let ask = |w: &mut Timed, target| {
        let reports = ask_mom(
            w,
            0,
            target,
            "HLArequestObjectInstancesThatCanBeDeleted",
            &[],
            "HLAreportObjectInstancesThatCanBeDeleted",
        );
        assert_eq!(reports.len(), 1, "one report");
        decode::handle_count_list(&reports[0]["HLAobjectInstanceCounts"]).unwrap()
    };
    assert_eq!(ask(&mut w, 1), vec![(u64::from(vehicle.0), 2)]);
    // f2 discovered both but holds no privilege: the NULL response, an empty list.
    assert_eq!(ask(&mut w, 2), vec![]);
}

#[test]
fn object_instance_information_gives_owned_attributes_and_both_classes() {
    let mut w = Timed::new(3);
    subscribe(&mut w.feds[2], "Vehicle", &["Name"]);
    w.pump();
    let fed = &mut w.feds[1];
    let ground = fed.object_class("Vehicle.GroundVehicle").unwrap();
    let name = fed.attribute(ground, "Name").unwrap();
    fed.publish_object_class_attributes(ground, &[name])
        .unwrap();
    let object = fed.register_object_instance(ground, None, 0).unwrap();
    fed.update_attribute_values(object, &[(name, b"n".to_vec())], b"", 0, None, None)
        .unwrap();
    w.pump();
    let vehicle = w.feds[2].object_class("Vehicle").unwrap();
    let ask = |w: &mut Timed, target, object: ObjectId| {
        let mut reports = ask_mom(
            w,
            0,
            target,
            "HLArequestObjectInstanceInformation",
            &[("HLAobjectInstance", handle_value_u64(object.0))],
            "HLAreportObjectInstanceInformation",
        );
        assert_eq!(reports.len(), 1, "one report");
        reports.remove(0)
    };
    let at_discoverer = ask(&mut w, 2, object);
    assert_eq!(
        decode::handle(&at_discoverer["HLAobjectInstance"]),
        Ok(object.0)
    );
    assert_eq!(
        decode::handle(&at_discoverer["HLAregisteredClass"]),
        Ok(u64::from(ground.0))
    );
    assert_eq!(
        decode::handle(&at_discoverer["HLAknownClass"]),
        Ok(u64::from(vehicle.0))
    );
    let owned = decode::handle_list(&at_discoverer["HLAownedInstanceAttributeList"]);
    assert_eq!(owned, Ok(vec![]), "the discoverer owns nothing");
    let at_registrar = ask(&mut w, 1, object);
    assert_eq!(
        decode::handle(&at_registrar["HLAknownClass"]),
        Ok(u64::from(ground.0))
    );
    let owned = decode::handle_list(&at_registrar["HLAownedInstanceAttributeList"]).unwrap();
    assert!(owned.contains(&u64::from(name.0)), "{owned:?}");
    // An instance f0 does not know: the NULL response, no classes.
    let unknown = ask(&mut w, 0, object);
    assert_eq!(
        decode::handle_list(&unknown["HLAownedInstanceAttributeList"]),
        Ok(vec![])
    );
    assert!(!unknown.contains_key("HLAregisteredClass"), "{unknown:?}");
    assert!(!unknown.contains_key("HLAknownClass"));
}

pub(super) fn handle_value_u64(handle: u64) -> Vec<u8> {
    let mut out = 8u32.to_be_bytes().to_vec();
    out.extend_from_slice(&handle.to_be_bytes());
    out
}
