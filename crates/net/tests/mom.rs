//! The Management Object Model (IEEE 1516.1-2010 §11) over real sockets: a tool federate
//! discovers every member's `HLAmanager.HLAfederate` instance, reads what only the host
//! knows (host name, RTI version), and asks one member for periodic updates
//! (`HLAadjust.HLAsetTiming`), which its ambassador sends by the wall clock while it waits
//! for callbacks.

mod common;

use common::*;

use bytes::Bytes;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use trellis_core::federate::{federate_object, Callback, Interval, LogicalTime};
use trellis_core::fom::{AttributeHandle, InteractionClassHandle, ParameterHandle};
use trellis_net::rti::{LocalSettings, RtiError, Session};
use trellis_net::Endpoint;

const DEMO_FOM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../foms/trellis-demo.xml");

fn joined(at: &Endpoint, name: &str) -> (Session, u32) {
    let settings = LocalSettings::parse(Some(&at.to_string())).unwrap();
    let mut session = Session::connect(settings).unwrap();
    match session.create_federation_execution("Managed", &[DEMO_FOM], None, None) {
        Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
        Err(e) => panic!("create: {e}"),
    }
    let no_modules: [&str; 0] = [];
    let handle =
        (session.join_federation_execution(Some(name), "sim", "Managed", &no_modules)).unwrap();
    (session, handle)
}

fn unicode(text: &str) -> Vec<u8> {
    let mut out = (text.encode_utf16().count() as u32).to_be_bytes().to_vec();
    for unit in text.encode_utf16() {
        out.extend_from_slice(&unit.to_be_bytes());
    }
    out
}

/// Evoke `tool` until `done` says so, driving `member` between looks, within the bound.
fn drive_until(tool: &mut Session, member: &mut Session, mut done: impl FnMut(Callback) -> bool) {
    let deadline = Instant::now() + WAIT;
    let slice = Duration::from_millis(5);
    while Instant::now() < deadline {
        member.evoke_callback(slice).unwrap();
        if let Some(callback) = tool.evoke_callback(slice).unwrap() {
            if done(callback) {
                return;
            }
        }
    }
    panic!("not done within {WAIT:?}");
}

#[test]
fn a_tool_discovers_the_members_reads_their_host_and_hears_periodic_updates() {
    let (_router, at) = registry_router();
    let (mut tool, tool_handle) = joined(&at, "tool");
    let (mut member, member_handle) = joined(&at, "member");
    let rti = tool.joined().unwrap();
    let class = rti.object_class_handle("HLAmanager.HLAfederate").unwrap();
    let attribute = |name| rti.attribute_handle(class, name).unwrap();
    let (host, version, regulating) = (
        attribute("HLAfederateHost"),
        attribute("HLARTIversion"),
        attribute("HLAtimeRegulating"),
    );
    rti.subscribe_object_class_attributes(class, &[host, version, regulating])
        .unwrap();
    let mut discovered = BTreeSet::new();
    let everyone = BTreeSet::from([federate_object(tool_handle), federate_object(member_handle)]);
    drive_until(&mut tool, &mut member, |c| {
        if let Callback::DiscoverObjectInstance { object, .. } = c {
            discovered.insert(object);
        }
        discovered == everyone
    });

    // HLAsetTiming: the member reports every second, by its own clock, while it evokes.
    let rti = tool.joined().unwrap();
    let timing = rti
        .interaction_class_handle("HLAmanager.HLAfederate.HLAadjust.HLAsetTiming")
        .unwrap();
    let federate = rti.parameter_handle(timing, "HLAfederate").unwrap();
    let period = rti.parameter_handle(timing, "HLAreportPeriod").unwrap();
    rti.publish_interaction_class(timing).unwrap();
    let mut target = 8u32.to_be_bytes().to_vec();
    target.extend_from_slice(&u64::from(member_handle).to_be_bytes());
    let parameters = [(federate, target), (period, 1i32.to_be_bytes().to_vec())];
    rti.send_interaction(timing, &parameters, b"").unwrap();
    member
        .joined()
        .unwrap()
        .enable_time_regulation(Interval::Integer(1))
        .unwrap();
    let value = |values: &[(AttributeHandle, Bytes)], a| {
        values
            .iter()
            .find(|(h, _)| *h == a)
            .map(|(_, v)| v.to_vec())
    };
    let mut reports = Vec::new();
    drive_until(&mut tool, &mut member, |c| {
        if let Callback::ReflectAttributeValues { object, values, .. } = c {
            if object == federate_object(member_handle) {
                reports.push((Instant::now(), values));
            }
        }
        // Regulation is on once the registry has answered: look for it in a later report.
        reports.len() >= 2
            && value(&reports[reports.len() - 1].1, regulating) == Some(vec![0, 0, 0, 1])
    });
    let (first, last) = (&reports[0], &reports[reports.len() - 1]);
    assert!(
        last.0 - first.0 >= Duration::from_millis(900),
        "reports a period apart, not at once: {:?}",
        last.0 - first.0
    );
    let host_name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    assert_eq!(value(&first.1, host), Some(unicode(host_name.trim())));
    let version = value(&first.1, version).unwrap();
    let expected = unicode(concat!("Trellis ", env!("CARGO_PKG_VERSION")));
    assert_eq!(version, expected);
}

/// One HLAreportServiceInvocation as a tool reads it.
#[derive(Debug)]
struct ServiceReport {
    service: String,
    success: bool,
    supplied: Vec<String>,
    returned: Vec<String>,
    exception: String,
    serial: u64,
}

/// HLAsetServiceReporting and HLAsetExceptionReporting (§11): once a manager turns them on
/// for a member, every service the member calls and every callback it is handed comes to
/// the manager as HLAreportServiceInvocation, numbered in order, and a failed service as
/// HLAreportException too; the member may not subscribe to the report itself.
#[test]
fn service_and_exception_reports_match_the_calls_a_member_makes() {
    use trellis_core::federate::mom::decode;
    let (_router, at) = registry_router();
    let (mut tool, _) = joined(&at, "tool");
    let (mut member, member_handle) = joined(&at, "member");
    let rti = tool.joined().unwrap();
    let report_class = |rti: &mut trellis_net::rti::RtiAmbassador, name: &str| {
        let qualified = format!("HLAmanager.HLAfederate.HLAreport.{name}");
        rti.interaction_class_handle(&qualified).unwrap()
    };
    let invocations = report_class(rti, "HLAreportServiceInvocation");
    let exceptions = report_class(rti, "HLAreportException");
    rti.subscribe_interaction_class(invocations).unwrap();
    rti.subscribe_interaction_class(exceptions).unwrap();
    let radio = rti.interaction_class_handle("Radio").unwrap();
    rti.publish_interaction_class(radio).unwrap();
    let mut target = 8u32.to_be_bytes().to_vec();
    target.extend_from_slice(&u64::from(member_handle).to_be_bytes());
    let mut switches = Vec::new();
    for adjust in ["HLAsetExceptionReporting", "HLAsetServiceReporting"] {
        let qualified = format!("HLAmanager.HLAfederate.HLAadjust.{adjust}");
        let class = rti.interaction_class_handle(&qualified).unwrap();
        let federate = rti.parameter_handle(class, "HLAfederate").unwrap();
        let state = rti.parameter_handle(class, "HLAreportingState").unwrap();
        rti.publish_interaction_class(class).unwrap();
        let on = 1i32.to_be_bytes().to_vec();
        switches.push((class, [(federate, target.clone()), (state, on)]));
    }
    // Sent until the member acts on them: an interaction sent before the member's interest
    // reached the tool's node goes nowhere, as the standard has it.
    let deadline = Instant::now() + WAIT;
    let both_on = |m: &mut Session| {
        let federate = m.joined().unwrap().federate().unwrap();
        federate.reports_services() && federate.reports_exceptions()
    };
    while !both_on(&mut member) {
        assert!(
            Instant::now() < deadline,
            "reporting not on within {WAIT:?}"
        );
        for (class, parameters) in &switches {
            tool.joined()
                .unwrap()
                .send_interaction(*class, parameters, b"")
                .unwrap();
        }
        member.evoke_callback(Duration::from_millis(5)).unwrap();
    }

    // The member's calls: two that succeed, one refused by the standard's rules, one by the
    // reporting rule, a subscription, then a callback.
    let rti = member.joined().unwrap();
    let vehicle = rti.object_class_handle("Vehicle").unwrap();
    let (name, position) = (
        rti.attribute_handle(vehicle, "Name").unwrap(),
        rti.attribute_handle(vehicle, "Position").unwrap(),
    );
    rti.publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    let object = rti.register_object_instance(vehicle).unwrap();
    let unpublished = rti.update_attribute_values(object, &[(position, vec![0u8; 16])], b"");
    assert!(unpublished.is_err());
    let own_reports = rti.subscribe_interaction_class(invocations);
    assert!(
        matches!(own_reports, Err(RtiError::Federate(ref e))
            if e.exception_name() == "FederateServiceInvocationsAreBeingReportedViaMOM"),
        "{own_reports:?}"
    );
    rti.subscribe_interaction_class(radio).unwrap();
    let radio_text = tool
        .joined()
        .unwrap()
        .parameter_handle(radio, "Text")
        .unwrap();

    // Every report the tool hears, until the callback's.
    let rti = tool.joined().unwrap();
    let parameter = |name: &str| rti.parameter_handle(invocations, name).unwrap();
    let [service, success, supplied, returned, exception, serial] = [
        "HLAservice",
        "HLAsuccessIndicator",
        "HLAsuppliedArguments",
        "HLAreturnedArguments",
        "HLAexception",
        "HLAserialNumber",
    ]
    .map(parameter);
    let raised_service = rti.parameter_handle(exceptions, "HLAservice").unwrap();
    let raised_exception = rti.parameter_handle(exceptions, "HLAexception").unwrap();
    let mut reports: Vec<ServiceReport> = Vec::new();
    let mut raised: Vec<(String, String)> = Vec::new();
    // The tool says "over" until the member's receiveInteraction comes back reported (sent
    // before the member's interest reached the tool's node, it goes nowhere).
    let deadline = Instant::now() + WAIT;
    let slice = Duration::from_millis(5);
    while !reports.iter().any(|r| r.service == "receiveInteraction") {
        assert!(
            Instant::now() < deadline,
            "no receiveInteraction report: {reports:#?}"
        );
        let over = [(radio_text, unicode("over"))];
        tool.joined()
            .unwrap()
            .send_interaction(radio, &over, b"")
            .unwrap();
        member.evoke_callback(slice).unwrap();
        let Some(Callback::ReceiveInteraction {
            class,
            parameters: values,
            ..
        }) = tool.evoke_callback(slice).unwrap()
        else {
            continue;
        };
        let value = |p| {
            values
                .iter()
                .find(|(h, _)| *h == p)
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        let text = |p| decode::unicode_string(&value(p)).unwrap();
        let list = |p| decode::string_list(&value(p)).unwrap();
        if class == exceptions {
            raised.push((text(raised_service), text(raised_exception)));
        } else if class == invocations {
            reports.push(ServiceReport {
                service: text(service),
                success: decode::boolean(&value(success)).unwrap(),
                supplied: list(supplied),
                returned: list(returned),
                exception: text(exception),
                serial: decode::count(&value(serial)).unwrap(),
            });
        }
    }

    let services: Vec<(&str, bool)> = (reports.iter().take(6))
        .map(|r| (r.service.as_str(), r.success))
        .collect();
    assert_eq!(
        services,
        [
            ("publishObjectClassAttributes", true),
            ("registerObjectInstance", true),
            ("updateAttributeValues", false),
            ("subscribeInteractionClass", false),
            ("subscribeInteractionClass", true),
            ("receiveInteraction", true),
        ],
        "{reports:#?}"
    );
    let serials: Vec<u64> = reports.iter().map(|r| r.serial).collect();
    assert_eq!(
        serials,
        [1, 2, 3, 4, 5, 6],
        "numbered in order from the first"
    );
    assert_eq!(
        reports[0].supplied,
        [format!("{vehicle:?}"), format!("{:?}", [name])]
    );
    assert_eq!(
        reports[1].returned,
        [format!("{object:?}")],
        "what the service returned"
    );
    assert!(
        reports[2].exception.starts_with("AttributeNotPublished: "),
        "{:?}",
        reports[2]
    );
    assert!(
        reports[2].supplied.iter().any(|a| a.contains("16 bytes")),
        "values are described by size: {:?}",
        reports[2].supplied
    );
    assert!(reports[3]
        .exception
        .starts_with("FederateServiceInvocationsAreBeingReportedViaMOM"));
    assert!(reports[0].exception.is_empty() && reports[0].returned.is_empty());
    assert!(
        reports[5].supplied[0].starts_with("ReceiveInteraction {"),
        "{:?}",
        reports[5]
    );
    // HLAreportException: the two failures, by service name.
    let failed: Vec<&str> = raised.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        failed,
        ["updateAttributeValues", "subscribeInteractionClass"]
    );
    assert_eq!(raised[0].1, reports[2].exception);
}

/// The next interaction `tool` receives within `slice`, if the next callback is one.
fn next_interaction(
    tool: &mut Session,
    slice: Duration,
) -> Option<(InteractionClassHandle, Vec<(ParameterHandle, Bytes)>)> {
    match tool.evoke_callback(slice).unwrap() {
        Some(Callback::ReceiveInteraction {
            class, parameters, ..
        }) => Some((class, parameters)),
        _ => None,
    }
}

fn value_of(
    parameters: &[(ParameterHandle, Bytes)],
    parameter: ParameterHandle,
) -> Option<Vec<u8>> {
    (parameters.iter())
        .find(|(h, _)| *h == parameter)
        .map(|(_, v)| v.to_vec())
}

/// An HLAunicodeString's text.
fn from_unicode(encoded: &[u8]) -> String {
    let units: Vec<u16> = (encoded[4..].chunks(2))
        .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
        .collect();
    String::from_utf16(&units).unwrap()
}

/// An HLAhandle as the MOM encodes it (8 big-endian bytes in a byte array), then `status`.
fn sync_point_federate(handle: u32, status: i32) -> Vec<u8> {
    let mut out = 8u32.to_be_bytes().to_vec();
    out.extend_from_slice(&u64::from(handle).to_be_bytes());
    out.extend_from_slice(&status.to_be_bytes());
    out
}

/// HLAmanager.HLAfederation.HLArequest.HLArequestSynchronizationPoints and …PointStatus:
/// the member that speaks for the federation (the lowest handle) asks the registry, which
/// alone knows who achieved, and reports each pending point's members as
/// WaitingForRestOfFederation (3) or MovingToSynchPoint (2).
#[test]
fn the_federation_reports_its_synchronization_points_and_who_achieved_them() {
    let (_router, at) = registry_router();
    let (mut speaker, speaker_handle) = joined(&at, "speaker");
    let (mut tool, _) = joined(&at, "tool");
    let (mut laggard, laggard_handle) = joined(&at, "laggard");
    let members = [speaker_handle, laggard_handle];
    (speaker.joined().unwrap())
        .register_federation_synchronization_point("Checkpoint", b"", &members)
        .unwrap();
    let rti = tool.joined().unwrap();
    let class = |name: &str| rti.interaction_class_handle(name).unwrap();
    let request_points =
        class("HLAmanager.HLAfederation.HLArequest.HLArequestSynchronizationPoints");
    let request_status =
        class("HLAmanager.HLAfederation.HLArequest.HLArequestSynchronizationPointStatus");
    let points = class("HLAmanager.HLAfederation.HLAreport.HLAreportSynchronizationPoints");
    let status = class("HLAmanager.HLAfederation.HLAreport.HLAreportSynchronizationPointStatus");
    let point_list = rti.parameter_handle(points, "HLAsyncPoints").unwrap();
    let point_federates = rti
        .parameter_handle(status, "HLAsyncPointFederates")
        .unwrap();
    for request in [request_points, request_status] {
        rti.publish_interaction_class(request).unwrap();
    }
    for report in [points, status] {
        rti.subscribe_interaction_class(report).unwrap();
    }

    // The speaker achieves, the laggard does not; each drives its own callbacks meanwhile.
    let mut achieved = false;
    let (mut labels, mut statuses) = (None, None);
    let deadline = Instant::now() + WAIT;
    let mut next_ask = Instant::now();
    let no_parameters: [(ParameterHandle, Vec<u8>); 0] = [];
    while labels.is_none() || statuses.is_none() {
        assert!(Instant::now() < deadline, "no reports within {WAIT:?}");
        let slice = Duration::from_millis(5);
        if let Some(Callback::AnnounceSynchronizationPoint { .. }) =
            speaker.evoke_callback(slice).unwrap()
        {
            (speaker.joined().unwrap())
                .synchronization_point_achieved("Checkpoint", true)
                .unwrap();
            achieved = true;
        }
        laggard.evoke_callback(slice).unwrap();
        // Requests sent before the speaker's interest reached the tool reach no one: ask
        // again until answered (once the achievement is in, so the status shows it).
        if achieved && Instant::now() >= next_ask {
            let rti = tool.joined().unwrap();
            for request in [request_points, request_status] {
                rti.send_interaction(request, &no_parameters, b"").unwrap();
            }
            next_ask = Instant::now() + Duration::from_millis(200);
        }
        if let Some((class, parameters)) = next_interaction(&mut tool, slice) {
            let value = |p| value_of(&parameters, p);
            if class == points {
                labels = value(point_list);
            } else if class == status {
                statuses = value(point_federates);
            }
        }
    }
    let mut expected_labels = 1u32.to_be_bytes().to_vec();
    expected_labels.extend_from_slice(&unicode("Checkpoint"));
    assert_eq!(labels, Some(expected_labels), "HLAsyncPoints");
    let mut expected = 2u32.to_be_bytes().to_vec();
    expected.extend_from_slice(&sync_point_federate(speaker_handle, 3));
    expected.extend_from_slice(&sync_point_federate(laggard_handle, 2));
    assert_eq!(statuses, Some(expected), "HLAsyncPointFederates");
}

/// HLArequestFOMmoduleData and HLArequestMIMdata of the federation: the speaker answers with
/// each module's XML as it was read; a federate's own request for a module it did not join
/// with is refused with HLAreportMOMexception naming the indicator.
#[test]
fn the_federation_reports_its_modules_and_its_mim_as_read() {
    let (_router, at) = registry_router();
    let (mut speaker, _) = joined(&at, "speaker");
    let (mut tool, _) = joined(&at, "tool");
    let (mut member, member_handle) = joined(&at, "member");
    let rti = tool.joined().unwrap();
    let class = |name: &str| rti.interaction_class_handle(name).unwrap();
    let request_module = class("HLAmanager.HLAfederation.HLArequest.HLArequestFOMmoduleData");
    let request_mim = class("HLAmanager.HLAfederation.HLArequest.HLArequestMIMdata");
    let request_own = class("HLAmanager.HLAfederate.HLArequest.HLArequestFOMmoduleData");
    let module = class("HLAmanager.HLAfederation.HLAreport.HLAreportFOMmoduleData");
    let mim = class("HLAmanager.HLAfederation.HLAreport.HLAreportMIMdata");
    let exception = class("HLAmanager.HLAfederate.HLAreport.HLAreportMOMexception");
    let parameter = |class, name| rti.parameter_handle(class, name).unwrap();
    let (module_data, mim_data) = (
        parameter(module, "HLAFOMmoduleData"),
        parameter(mim, "HLAMIMdata"),
    );
    let why = parameter(exception, "HLAexception");
    let indicator = |class| {
        (
            parameter(class, "HLAFOMmoduleIndicator"),
            0i32.to_be_bytes().to_vec(),
        )
    };
    let first_module = [indicator(request_module)];
    let mut own_request = vec![indicator(request_own)];
    let mut target = 8u32.to_be_bytes().to_vec();
    target.extend_from_slice(&u64::from(member_handle).to_be_bytes());
    own_request.push((parameter(request_own, "HLAfederate"), target));
    for request in [request_module, request_mim, request_own] {
        rti.publish_interaction_class(request).unwrap();
    }
    for report in [module, mim, exception] {
        rti.subscribe_interaction_class(report).unwrap();
    }

    let (mut module_text, mut mim_text, mut refusal) = (None, None, None);
    let deadline = Instant::now() + WAIT;
    let mut next_ask = Instant::now();
    let no_parameters: [(ParameterHandle, Vec<u8>); 0] = [];
    while module_text.is_none() || mim_text.is_none() || refusal.is_none() {
        assert!(Instant::now() < deadline, "no reports within {WAIT:?}");
        let slice = Duration::from_millis(5);
        speaker.evoke_callback(slice).unwrap();
        member.evoke_callback(slice).unwrap();
        // Requests sent before the members' interest reached the tool reach no one.
        if Instant::now() >= next_ask {
            let rti = tool.joined().unwrap();
            rti.send_interaction(request_module, &first_module, b"")
                .unwrap();
            rti.send_interaction(request_mim, &no_parameters, b"")
                .unwrap();
            rti.send_interaction(request_own, &own_request, b"")
                .unwrap();
            next_ask = Instant::now() + Duration::from_millis(200);
        }
        if let Some((class, parameters)) = next_interaction(&mut tool, slice) {
            let value = |p| value_of(&parameters, p);
            if class == module {
                module_text = value(module_data);
            } else if class == mim {
                mim_text = value(mim_data);
            } else if class == exception {
                refusal = value(why);
            }
        }
    }
    let demo = std::fs::read_to_string(DEMO_FOM).unwrap();
    assert!(
        module_text == Some(unicode(&demo)),
        "the demo FOM's text as read"
    );
    let standard = concat!(env!("CARGO_MANIFEST_DIR"), "/../../foms/HLAstandardMIM.xml");
    let standard = std::fs::read_to_string(standard).unwrap();
    assert!(
        mim_text == Some(unicode(&standard)),
        "the standard MIM's text"
    );
    let refusal = from_unicode(&refusal.unwrap());
    assert!(
        refusal.contains("HLAFOMmoduleIndicator 0 names no module: the list has 0"),
        "{refusal}"
    );
}

/// HLAmanager.HLAfederation's HLAnextSaveName and HLAnextSaveTime: a timed save ordered
/// and not begun, as the federation's speaker knows it.
#[test]
fn the_federation_object_names_a_timed_save_not_begun() {
    let (_router, at) = registry_router();
    let (mut speaker, _) = joined(&at, "speaker");
    let (mut tool, _) = joined(&at, "tool");
    // Constrained at time 0, both wait for time 100 to save (unconstrained ones save at
    // once); the tool takes receive-order values while not advancing (asynchronous delivery).
    tool.joined()
        .unwrap()
        .enable_asynchronous_delivery()
        .unwrap();
    for session in [&mut speaker, &mut tool] {
        session.joined().unwrap().enable_time_constrained().unwrap();
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(Instant::now() < deadline, "not constrained within {WAIT:?}");
            let callback = session.evoke_callback(Duration::from_millis(5)).unwrap();
            if let Some(Callback::TimeConstrainedEnabled { .. }) = callback {
                break;
            }
        }
    }
    (speaker.joined().unwrap())
        .request_federation_save("Later", Some(LogicalTime::from_i64(100)))
        .unwrap();
    let rti = tool.joined().unwrap();
    let class = rti.object_class_handle("HLAmanager.HLAfederation").unwrap();
    let attribute = |name| rti.attribute_handle(class, name).unwrap();
    let (next_name, next_time) = (attribute("HLAnextSaveName"), attribute("HLAnextSaveTime"));
    rti.subscribe_object_class_attributes(class, &[next_name, next_time])
        .unwrap();
    let (mut object, mut values) = (None, None);
    let mut ask_at = Instant::now();
    let deadline = Instant::now() + WAIT;
    while values.is_none() {
        assert!(
            Instant::now() < deadline,
            "no timed save named within {WAIT:?}"
        );
        let slice = Duration::from_millis(5);
        speaker.evoke_callback(slice).unwrap();
        match tool.evoke_callback(slice).unwrap() {
            Some(Callback::DiscoverObjectInstance { object: o, .. }) => object = Some(o),
            Some(Callback::ReflectAttributeValues {
                values: reflected, ..
            }) => {
                let value = |a| {
                    reflected
                        .iter()
                        .find(|(h, _)| *h == a)
                        .map(|(_, v)| v.to_vec())
                };
                values = (value(next_name).filter(|name| from_unicode(name) == "Later"))
                    .zip(value(next_time));
            }
            _ => {}
        }
        // Asked again until right: the speaker may answer before the save's order reaches it.
        if let Some(object) = object.filter(|_| Instant::now() >= ask_at) {
            let rti = tool.joined().unwrap();
            rti.request_attribute_value_update(object, &[next_name, next_time], b"")
                .unwrap();
            ask_at = Instant::now() + Duration::from_millis(100);
        }
    }
    let (name, time) = values.unwrap();
    assert_eq!(from_unicode(&name), "Later");
    let mut expected_time = 8u32.to_be_bytes().to_vec();
    expected_time.extend_from_slice(&100i64.to_be_bytes());
    assert_eq!(
        time, expected_time,
        "HLAnextSaveTime 100 as HLAinteger64Time"
    );
}
