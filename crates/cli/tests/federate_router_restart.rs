//! A federate whose own router is killed (kill -9) and restarted under `trellis up` keeps its
//! membership, handles, objects and subscriptions: its node redials and declares its
//! interest again on the new link, the restarted router vouches for it, and it catches up on
//! the registry events it missed meanwhile. Real processes, real sockets.

mod common;

use common::*;
use std::process::Command;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_core::registry::{DEFAULT_LEASE, DEFAULT_VOUCH_INTERVAL};
use trellis_net::rti::{ResignAction, RtiAmbassador, RtiError};

/// Bound on every wait (generous: the machine may be loaded).
const WAIT: Duration = Duration::from_secs(30);

/// What the exchange saw on both sides.
#[derive(Default)]
struct Seen {
    /// The sender's update values the receiver reflected, in order.
    reflected: Vec<u64>,
    /// The receiver's update values the sender reflected: its subscription, re-declared by
    /// its node on the new link, draws them again after the restart.
    sender_reflected: Vec<u64>,
    /// Synchronization points announced to the sender.
    sender_announced: Vec<String>,
    faults: Vec<String>,
}

/// Both federates publish and subscribe `Vehicle.Name`; the values say who sent them
/// ("s12", "r12").
struct Exchange {
    sender: RtiAmbassador,
    receiver: RtiAmbassador,
    object: trellis_core::federate::ObjectId,
    receiver_object: trellis_core::federate::ObjectId,
    attribute: trellis_core::fom::AttributeHandle,
    sent: u64,
    seen: Seen,
}

impl Exchange {
    /// One round: an update each way, then what is ready on both sides. Returns whether
    /// updates sent after `from` were reflected both ways.
    fn round(&mut self, from: u64) -> bool {
        self.sent += 1;
        let value = format!("s{}", self.sent);
        self.sender
            .update_attribute_values(self.object, &[(self.attribute, value.as_bytes())], b"")
            .unwrap();
        let value = format!("r{}", self.sent);
        self.receiver
            .update_attribute_values(
                self.receiver_object,
                &[(self.attribute, value.as_bytes())],
                b"",
            )
            .unwrap();
        let (mut arrived, mut came_back) = (false, false);
        for callback in self
            .receiver
            .evoke_multiple_callbacks(Duration::from_millis(10), 100)
            .unwrap()
        {
            match callback {
                Callback::ReflectAttributeValues { values, .. } => {
                    let n = number(&values[0].1, 's');
                    self.seen.reflected.push(n);
                    arrived |= n > from;
                }
                Callback::RemoveObjectInstance { .. } => self
                    .seen
                    .faults
                    .push("the receiver lost the sender's object".into()),
                Callback::ConnectionLost { fault } => {
                    self.seen.faults.push(format!("receiver: {fault}"))
                }
                _ => {}
            }
        }
        for callback in self
            .sender
            .evoke_multiple_callbacks(Duration::ZERO, 100)
            .unwrap()
        {
            match callback {
                Callback::AnnounceSynchronizationPoint { label, .. } => {
                    self.seen.sender_announced.push(label)
                }
                Callback::ReflectAttributeValues { values, .. } => {
                    let n = number(&values[0].1, 'r');
                    self.seen.sender_reflected.push(n);
                    came_back |= n > from;
                }
                Callback::RemoveObjectInstance { .. } => self
                    .seen
                    .faults
                    .push("the sender lost the receiver's object".into()),
                Callback::ConnectionLost { fault } => {
                    self.seen.faults.push(format!("sender: {fault}"))
                }
                _ => {}
            }
        }
        assert!(self.seen.faults.is_empty(), "{:?}", self.seen.faults);
        arrived && came_back
    }

    /// Exchange until an update sent after the ones so far is reflected; when it was.
    fn resume(&mut self) -> Instant {
        let from = self.sent;
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(
                Instant::now() < deadline,
                "no update sent after {from} was reflected in time"
            );
            if self.round(from) {
                return Instant::now();
            }
        }
    }
}

/// The number in an update value sent by `who`.
fn number(value: &[u8], who: char) -> u64 {
    let text = std::str::from_utf8(value).unwrap();
    let rest = text
        .strip_prefix(who)
        .unwrap_or_else(|| panic!("{text:?} not from {who}"));
    rest.parse().unwrap()
}

#[test]
fn a_federate_whose_router_is_killed_and_restarted_keeps_its_membership() {
    let dir = TempDir::new("fed-router-restart");
    let (file, topology) = gen(
        &dir,
        "tree.toml",
        &["tree", "--levels", "2", "--fanout", "2", "--federates", "1"],
        3,
    );
    let leaf = topology.plan("fed-1").unwrap().dial[0].far.clone();
    assert_ne!(leaf, topology.plan("fed-2").unwrap().dial[0].far);
    let mut up = Up::start(&file);

    let model = demo_model();
    let federation = format!("Restart{}", std::process::id());
    let mut sender = connect_as(&topology, &federation, "fed-1", "fed-1");
    sender.create_federation_execution(&model).unwrap();
    let sender_handle = sender
        .join_federation_execution("sender", "sim", model.clone())
        .unwrap();
    let mut receiver = connect_as(&topology, &federation, "fed-2", "fed-2");
    receiver
        .join_federation_execution("receiver", "sim", model.clone())
        .unwrap();
    let vehicle = sender.object_class_handle("Vehicle").unwrap();
    let attribute = sender.attribute_handle(vehicle, "Name").unwrap();
    for federate in [&mut sender, &mut receiver] {
        federate
            .publish_object_class_attributes(vehicle, &[attribute])
            .unwrap();
        federate
            .subscribe_object_class_attributes(vehicle, &[attribute])
            .unwrap();
    }
    let object = sender.register_object_instance(vehicle).unwrap();
    let receiver_object = receiver.register_object_instance(vehicle).unwrap();
    let mut x = Exchange {
        sender,
        receiver,
        object,
        receiver_object,
        attribute,
        sent: 0,
        seen: Seen::default(),
    };
    x.resume();

    // Kill the sender's own router. While it is down the registry speaks (a synchronization
    // point for the whole federation): the sender misses that event and must catch up.
    let pid = up.router_pid(&leaf);
    let killed_at = Instant::now();
    assert!(Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap()
        .success());
    x.receiver
        .register_federation_synchronization_point("DuringOutage", b"", &[])
        .unwrap();
    up.wait_for_line(&format!("router {leaf} exited"));
    up.wait_for_line(&format!("router {leaf} is back"));
    let back_at = Instant::now();
    let resumed_at = x.resume();
    println!(
        "updates crossed both ways again {:?} after the federate's router was killed, {:?} \
         after trellis up reported it back",
        resumed_at - killed_at,
        resumed_at.saturating_duration_since(back_at)
    );

    // Past the lease from the kill, exchanging all along: the restarted router vouches for
    // the sender, so the registry never resigns it, and the missed announcement arrives.
    let lease_over = killed_at + DEFAULT_LEASE + 2 * DEFAULT_VOUCH_INTERVAL;
    while Instant::now() < lease_over || x.seen.sender_announced.is_empty() {
        assert!(
            Instant::now() < lease_over + WAIT,
            "the sender never heard of the synchronization point registered while its router \
             was down"
        );
        let from = x.sent;
        x.round(from);
    }
    assert_eq!(x.seen.sender_announced, ["DuringOutage"]);
    let resumed = x.resume();
    assert!(resumed > lease_over, "traffic still flows after the lease");

    // Still joined, under the same handle, in the registry too.
    assert_eq!(x.sender.federate().unwrap().handle(), sender_handle);
    assert_eq!(x.receiver.federate_handle("sender").unwrap(), sender_handle);
    let mut probe = connect_as(&topology, &federation, "fed-2", "probe");
    assert!(
        matches!(
            probe.join_federation_execution("sender", "sim", model),
            Err(RtiError::FederateNameAlreadyInUse(_))
        ),
        "the registry still has the sender as a member"
    );
    let distinct: std::collections::BTreeSet<u64> = x.seen.reflected.iter().copied().collect();
    assert_eq!(distinct.len(), x.seen.reflected.len(), "no update twice");
    let back: std::collections::BTreeSet<u64> = x.seen.sender_reflected.iter().copied().collect();
    assert_eq!(back.len(), x.seen.sender_reflected.len(), "no update twice");
    println!(
        "{} updates sent, {} reflected (those sent while the router was down are lost)",
        x.sent,
        distinct.len()
    );
    x.sender
        .resign_federation_execution(ResignAction::default())
        .unwrap();
    x.receiver
        .resign_federation_execution(ResignAction::default())
        .unwrap();
    x.sender.destroy_federation_execution().unwrap();
}
