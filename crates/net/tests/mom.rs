//! The Management Object Model (IEEE 1516.1-2010 §11) over real sockets: a tool federate
//! discovers every member's `HLAmanager.HLAfederate` instance, reads what only the host
//! knows (host name, RTI version), and asks one member for periodic updates
//! (`HLAadjust.HLAsetTiming`), which its ambassador sends by the wall clock while it waits
//! for callbacks.

mod common;

use common::*;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use trellis_core::federate::{federate_object, Callback, Interval};
use trellis_core::fom::AttributeHandle;
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
    let value = |values: &[(AttributeHandle, bytes::Bytes)], a| {
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
