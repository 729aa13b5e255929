//! `HLAmanager.HLAfederate.HLAservice` over a simulated network with a registry: a manager
//! has a federate's own RTI component invoke services for it (time, declarations, save),
//! and what cannot be done comes back as `HLAreportMOMexception` with its reason.

use super::mom::{handle_value, handle_value_u64, reflected, subscribe, FEDERATE_CLASS};
use super::retraction::Timed;
use super::*;
use crate::federate::mom::{decode, federate_object};

/// `manager` sends `HLAmanager.HLAfederate.HLAservice.{service}` to federate `target` with
/// `parameters` (by name), then the network carries it.
fn service(
    w: &mut Timed,
    manager: usize,
    target: usize,
    service: &str,
    parameters: &[(&str, Vec<u8>)],
) {
    let target = w.feds[target].handle();
    let fed = &mut w.feds[manager];
    let class = fed
        .interaction_class(&format!("HLAmanager.HLAfederate.HLAservice.{service}"))
        .unwrap();
    fed.publish_interaction_class(class).unwrap();
    let mut values = vec![(
        fed.parameter(class, "HLAfederate").unwrap(),
        handle_value(target),
    )];
    for (name, value) in parameters {
        values.push((fed.parameter(class, name).unwrap(), value.clone()));
    }
    fed.send_interaction(class, &values, b"", 0, None, None)
        .unwrap();
    w.pump();
}

/// An HLAlogicalTime or HLAtimeInterval of HLAinteger64Time.
fn opaque_time(value: i64) -> Vec<u8> {
    let mut out = 8u32.to_be_bytes().to_vec();
    out.extend_from_slice(&value.to_be_bytes());
    out
}

/// The HLAreportMOMexception interactions `manager` received: (service, exception text,
/// parameter error). It must have subscribed before.
fn mom_exceptions(w: &mut Timed, manager: usize) -> Vec<(String, String, bool)> {
    let fed = &w.feds[manager];
    let report = fed
        .interaction_class("HLAmanager.HLAfederate.HLAreport.HLAreportMOMexception")
        .unwrap();
    let [service, exception, parameter_error] = ["HLAservice", "HLAexception", "HLAparameterError"]
        .map(|n| fed.parameter(report, n).unwrap());
    (w.callbacks(manager).into_iter())
        .filter_map(|c| match c {
            Callback::ReceiveInteraction {
                class, parameters, ..
            } if class == report => {
                let value = |p| parameters.iter().find(|(h, _)| *h == p).unwrap().1.clone();
                Some((
                    decode::unicode_string(&value(service)).unwrap(),
                    decode::unicode_string(&value(exception)).unwrap(),
                    decode::boolean(&value(parameter_error)).unwrap(),
                ))
            }
            _ => None,
        })
        .collect()
}

fn subscribe_to_mom_exceptions(w: &mut Timed, manager: usize) {
    let fed = &mut w.feds[manager];
    let report = fed
        .interaction_class("HLAmanager.HLAfederate.HLAreport.HLAreportMOMexception")
        .unwrap();
    fed.subscribe_interaction_class(report, &[]).unwrap();
    w.pump();
}

#[test]
fn a_manager_makes_a_federate_regulating_and_advances_it() {
    let mut w = Timed::new(2);
    subscribe_to_mom_exceptions(&mut w, 0);
    service(
        &mut w,
        0,
        1,
        "HLAenableTimeRegulation",
        &[("HLAlookahead", opaque_time(3))],
    );
    let callbacks = w.callbacks(1);
    assert!(
        callbacks
            .iter()
            .any(|c| matches!(c, Callback::TimeRegulationEnabled { .. })),
        "the federate hears timeRegulationEnabled as if it had asked: {callbacks:?}"
    );
    assert_eq!(w.feds[1].query_lookahead().unwrap(), Interval::Integer(3));
    service(
        &mut w,
        0,
        1,
        "HLAtimeAdvanceRequest",
        &[("HLAtimeStamp", opaque_time(5))],
    );
    let granted = (w.callbacks(1).into_iter()).find_map(|c| match c {
        Callback::TimeAdvanceGrant { time } => Some(time),
        _ => None,
    });
    assert_eq!(granted, Some(LogicalTime::from_i64(5)));
    assert_eq!(mom_exceptions(&mut w, 0), vec![], "nothing was refused");
}

#[test]
fn a_manager_subscribes_a_federate_which_then_receives_and_reports_it() {
    let mut w = Timed::new(3);
    let radio = w.feds[2].interaction_class("Radio").unwrap();
    let handle = u64::from(radio.0);
    service(
        &mut w,
        0,
        1,
        "HLAsubscribeInteractionClass",
        &[("HLAinteractionClass", handle_value_u64(handle))],
    );
    assert!(
        w.feds[1].interaction_subscriptions.contains_key(&radio),
        "subscribed by the manager"
    );
    let fed = &mut w.feds[2];
    fed.publish_interaction_class(radio).unwrap();
    w.pump();
    let values: [(ParameterHandle, Vec<u8>); 0] = [];
    w.feds[2]
        .send_interaction(radio, &values, b"", 0, None, None)
        .unwrap();
    w.pump();
    let received = (w.callbacks(1).into_iter())
        .filter(|c| matches!(c, Callback::ReceiveInteraction { class, .. } if *class == radio))
        .count();
    assert_eq!(
        received, 1,
        "the federate receives what the manager subscribed it to"
    );
    service(
        &mut w,
        0,
        1,
        "HLAunsubscribeInteractionClass",
        &[("HLAinteractionClass", handle_value_u64(handle))],
    );
    assert!(!w.feds[1].interaction_subscriptions.contains_key(&radio));
}

#[test]
fn a_service_that_cannot_be_carried_out_is_reported_with_its_reason() {
    let mut w = Timed::new(2);
    subscribe_to_mom_exceptions(&mut w, 0);
    service(
        &mut w,
        0,
        1,
        "HLAsubscribeObjectClassAttributes",
        &[
            ("HLAobjectClass", handle_value_u64(9999)),
            ("HLAattributeList", 0u32.to_be_bytes().to_vec()),
        ],
    );
    service(&mut w, 0, 1, "HLAdisableTimeRegulation", &[]);
    service(
        &mut w,
        0,
        1,
        "HLAtimeAdvanceRequest",
        &[("HLAtimeStamp", vec![0, 0, 0, 3, 1])],
    );
    service(&mut w, 0, 1, "HLAfederateSaveBegun", &[]);
    let reports = mom_exceptions(&mut w, 0);
    assert_eq!(reports.len(), 4, "{reports:?}");
    let (service_name, why, parameter_error) = &reports[0];
    assert_eq!(service_name, "HLAsubscribeObjectClassAttributes");
    assert!(
        why.contains("HLAobjectClass") && why.contains("9999"),
        "{why}"
    );
    assert!(
        *parameter_error,
        "a handle of no class is the parameter's fault"
    );
    let (service_name, why, parameter_error) = &reports[1];
    assert_eq!(service_name, "HLAdisableTimeRegulation");
    assert!(
        !why.is_empty() && !*parameter_error,
        "refused by the service itself: {why}"
    );
    let (service_name, why, parameter_error) = &reports[2];
    assert_eq!(service_name, "HLAtimeAdvanceRequest");
    assert!(why.contains("HLAtimeStamp") && *parameter_error, "{why}");
    let (service_name, why, parameter_error) = &reports[3];
    assert_eq!(service_name, "HLAfederateSaveBegun");
    assert!(
        why.contains("SaveNotInitiated") && !*parameter_error,
        "no save: {why}"
    );
    assert!(!w.feds[1].is_time_regulating(), "nothing changed");
}

#[test]
fn a_manager_completes_a_hung_federates_part_of_a_save_and_the_federation_saves() {
    use crate::federate::save::SaveCallback;
    let mut w = Timed::new(2);
    subscribe_to_mom_exceptions(&mut w, 0);
    w.feds[0]
        .request_federation_save("checkpoint", None)
        .unwrap();
    w.pump();
    let initiated = |callbacks: Vec<Callback>| {
        callbacks.into_iter().any(|c| {
            matches!(c, Callback::Save(SaveCallback::InitiateFederateSave { ref label, .. }) if label == "checkpoint")
        })
    };
    assert!(initiated(w.callbacks(1)), "federate 1 is told to save");
    assert!(initiated(w.callbacks(0)), "and federate 0");
    // While it saves, services other than the save's own are refused through the MOM too.
    service(&mut w, 0, 1, "HLAenableTimeConstrained", &[]);
    // The manager begins and completes federate 1's part; federate 0 does its own.
    service(&mut w, 0, 1, "HLAfederateSaveBegun", &[]);
    let success = 1i32.to_be_bytes().to_vec();
    service(
        &mut w,
        0,
        1,
        "HLAfederateSaveComplete",
        &[("HLAsuccessIndicator", success)],
    );
    let reports = mom_exceptions(&mut w, 0);
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].0, "HLAenableTimeConstrained");
    assert!(reports[0].1.contains("SaveInProgress"), "{reports:?}");
    // The MOM says so: HLAfederateState is FederateSaveInProgress (3).
    let state = subscribe(&mut w.feds[0], FEDERATE_CLASS, &["HLAfederateState"]);
    w.pump();
    let saving = federate_object(w.feds[1].handle());
    (w.feds[0].request_object_attribute_value_update(saving, &state, b"")).unwrap();
    w.pump();
    let states = reflected(&w.callbacks(0), state[0]);
    assert_eq!(states[&saving][..], 3i32.to_be_bytes());
    w.feds[0].federate_save_begun().unwrap();
    w.feds[0].federate_save_complete(true).unwrap();
    w.pump();
    for i in 0..2 {
        let saved = (w.callbacks(i).into_iter())
            .any(|c| matches!(c, Callback::Save(SaveCallback::FederationSaved)));
        assert!(saved, "federate {i} hears federationSaved");
    }
    assert!(!w.feds[1].is_time_constrained(), "refused during the save");
}
