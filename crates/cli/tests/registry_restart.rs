//! The router that hosts the federation registry (the root of a 3-level tree) is killed with
//! kill -9 and restarted by `trellis up`: its registry comes back empty, and the two
//! federates rebuild it by reclaiming their membership. They keep their handles, still
//! exchange updates, a synchronization point registered after the restart reaches both,
//! and resign and destroy work. Real processes, real sockets; prints the time from the kill
//! to a registry service succeeding again.

mod common;

use common::*;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, ObjectId};
use trellis_core::fom::AttributeHandle;
use trellis_core::topology::Topology;
use trellis_net::rti::{ResignAction, RtiAmbassador};

/// Bound on every wait (generous: the machine may be loaded).
const WAIT: Duration = Duration::from_secs(30);

/// Two federates that each publish and subscribe `Vehicle.Name`.
struct Pair {
    feds: [RtiAmbassador; 2],
    objects: [ObjectId; 2],
    attribute: AttributeHandle,
    sent: u64,
    /// Per federate: the highest update number it reflected from the other.
    reflected: [u64; 2],
    announced: [Vec<String>; 2],
    synchronized: [Vec<String>; 2],
}

impl Pair {
    /// One round: an update each way, then what is ready on both sides.
    fn round(&mut self) {
        self.sent += 1;
        for (fed, object) in self.feds.iter_mut().zip(self.objects) {
            let value = self.sent.to_string();
            fed.update_attribute_values(object, &[(self.attribute, value.as_bytes())], b"")
                .unwrap();
        }
        for i in 0..2 {
            let callbacks = self.feds[i]
                .evoke_multiple_callbacks(Duration::from_millis(5), 100)
                .unwrap();
            for callback in callbacks {
                match callback {
                    Callback::ReflectAttributeValues { values, .. } => {
                        let n: u64 = std::str::from_utf8(&values[0].1).unwrap().parse().unwrap();
                        self.reflected[i] = self.reflected[i].max(n);
                    }
                    Callback::AnnounceSynchronizationPoint { label, .. } => {
                        self.announced[i].push(label)
                    }
                    Callback::FederationSynchronized { label, .. } => {
                        self.synchronized[i].push(label)
                    }
                    Callback::ConnectionLost { fault } => panic!("federate {i}: {fault}"),
                    Callback::RemoveObjectInstance { .. } => {
                        panic!("federate {i} lost the other's object")
                    }
                    _ => {}
                }
            }
        }
    }

    /// Exchange until updates sent from now on are reflected both ways.
    fn resume(&mut self) {
        let from = self.sent;
        let deadline = Instant::now() + WAIT;
        while self.reflected.iter().any(|&r| r <= from) {
            assert!(Instant::now() < deadline, "updates stopped crossing");
            self.round();
        }
    }

    /// Exchange until `done` holds.
    fn until(&mut self, what: &str, done: impl Fn(&Pair) -> bool) {
        let deadline = Instant::now() + WAIT;
        while !done(self) {
            assert!(Instant::now() < deadline, "{what}: not in time");
            self.round();
        }
    }
}

fn tree(dir: &TempDir) -> (PathBuf, Topology) {
    gen(
        dir,
        "tree.toml",
        &["tree", "--levels", "3", "--fanout", "2", "--federates", "1"],
        7,
    )
}

#[test]
fn federates_rebuild_the_registry_when_its_router_is_killed_and_restarted() {
    let dir = TempDir::new("registry-restart");
    let (file, topology) = tree(&dir);
    let root = topology.nodes()[topology.registry_host().unwrap()]
        .name
        .clone();
    let mut up = Up::start(&file);

    let model = demo_model();
    let federation = format!("RegistryRestart{}", std::process::id());
    let mut a = connect_as(&topology, &federation, "fed-1", "fed-1");
    a.create_federation_execution(&model).unwrap();
    let a_handle = a
        .join_federation_execution("a", "sim", model.clone())
        .unwrap();
    let mut b = connect_as(&topology, &federation, "fed-2", "fed-2");
    let b_handle = b
        .join_federation_execution("b", "sim", model.clone())
        .unwrap();
    let vehicle = a.object_class_handle("Vehicle").unwrap();
    let attribute = a.attribute_handle(vehicle, "Name").unwrap();
    let mut objects = Vec::new();
    for fed in [&mut a, &mut b] {
        fed.publish_object_class_attributes(vehicle, &[attribute])
            .unwrap();
        fed.subscribe_object_class_attributes(vehicle, &[attribute])
            .unwrap();
        objects.push(fed.register_object_instance(vehicle).unwrap());
    }
    a.reserve_object_instance_name("Tank-1").unwrap();
    let mut pair = Pair {
        feds: [a, b],
        objects: [objects[0], objects[1]],
        attribute,
        sent: 0,
        reflected: [0; 2],
        announced: Default::default(),
        synchronized: Default::default(),
    };
    pair.resume();

    // Kill the registry's router.
    let pid = up.router_pid(&root);
    let killed_at = Instant::now();
    assert!(Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap()
        .success());
    up.wait_for_line(&format!("router {root} exited"));
    up.wait_for_line(&format!("router {root} is back"));
    let back_at = Instant::now();

    // A registry service (a name reservation) fails with a clear error until the registry
    // is reachable again, then succeeds: b reclaims on the refusal and asks again.
    let deadline = Instant::now() + WAIT;
    let mut errors = std::collections::BTreeSet::new();
    let served_at = loop {
        match pair.feds[1].reserve_object_instance_name("Tank-2") {
            Ok(()) => break Instant::now(),
            Err(e) => {
                errors.insert(e.to_string());
            }
        }
        assert!(
            Instant::now() < deadline,
            "no registry service in time: {errors:?}"
        );
        pair.round();
    };
    println!(
        "registry service (name reservation) succeeded again {:?} after the registry's \
         router was killed, {:?} after trellis up reported it back; errors meanwhile: {errors:?}",
        served_at - killed_at,
        served_at.saturating_duration_since(back_at)
    );
    pair.resume();
    println!(
        "updates crossing both ways {:?} after the kill",
        Instant::now() - killed_at
    );

    // A synchronization point registered after the restart reaches both; both achieve it.
    pair.feds[0]
        .register_federation_synchronization_point("AfterRestart", b"", &[])
        .unwrap();
    pair.until("the point announced to both", |p| {
        p.announced
            .iter()
            .all(|a| a.iter().any(|l| l == "AfterRestart"))
    });
    let sync_at = Instant::now();
    println!(
        "a synchronization point registered after the restart reached both {:?} after the kill",
        sync_at - killed_at
    );
    for fed in &mut pair.feds {
        fed.synchronization_point_achieved("AfterRestart", true)
            .unwrap();
    }
    pair.until("the federation synchronized at both", |p| {
        p.synchronized
            .iter()
            .all(|s| s.iter().any(|l| l == "AfterRestart"))
    });

    // Same handles, both members of the rebuilt registry; a's reserved name is still its own.
    assert_eq!(pair.feds[0].federate().unwrap().handle(), a_handle);
    assert_eq!(pair.feds[1].federate().unwrap().handle(), b_handle);
    assert_eq!(pair.feds[0].federate_handle("b").unwrap(), b_handle);
    assert_eq!(pair.feds[1].federate_handle("a").unwrap(), a_handle);
    assert!(pair.feds[1].reserve_object_instance_name("Tank-1").is_err());
    pair.resume();

    let [mut a, mut b] = pair.feds;
    a.resign_federation_execution(ResignAction::default())
        .unwrap();
    b.resign_federation_execution(ResignAction::default())
        .unwrap();
    a.destroy_federation_execution().unwrap();
}
