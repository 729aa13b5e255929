//! The federate library's own cost per update sent and per reflect delivered, without
//! sockets, nodes or threads: the part of `scripts/federate-cost` that is the HLA layer's
//! (encoding and the update's checks; decoding, the subscription's checks, the callback and
//! handing it back).
//!
//!   cargo run --release -p trellis-core --example update_reflect_cost
//!
//! One federate updates one attribute of one instance (64 bytes, receive order, no region)
//! and another reflects it. Prints nanoseconds per update (`update_attribute_values` and
//! taking its frame) and per reflect (`handle_data`, `poll_callback`, `recycle_values_of`):
//! wall time of a single thread, the fastest of 9 runs, as other processes only ever slow a
//! run down. `UPDATE_REFLECT_ROUNDS` and `UPDATE_REFLECT_RUNS` shrink it, and
//! `UPDATE_REFLECT_ONLY=update` (or `reflect`) runs one path, e.g. to count one path's
//! instructions under valgrind, which does not care how loaded the machine is (subtract a
//! run of half the rounds to leave the setup out):
//!
//!   UPDATE_REFLECT_ONLY=reflect UPDATE_REFLECT_ROUNDS=20000 UPDATE_REFLECT_RUNS=1 \
//!     valgrind --tool=cachegrind --cache-sim=no target/release/examples/update_reflect_cost
//!
//! A guide, not the verdict: the federate's calls inline into the network layer's in the
//! real binary, and stalls on values moved right after they were written (a store read back
//! by a wider load) come and go with that inlining. A change that saved 5 % of this
//! program's update instructions cost the real sending thread 15 % (stop 53): decide by
//! `scripts/federate-cost`.

use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::{Action, Callback, Federate, ObjectId, DEFAULT_BINS};
use trellis_core::fom::{AttributeHandle, ObjectModel};
use trellis_core::wire::{DataFrame, FederationId, NodeId};

const FOM: &str = include_str!("../../../foms/trellis-demo.xml");
const VALUE: [u8; 64] = [0xA5; 64];

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The frames `federate` queued, stamped as its node would stamp them.
fn frames(federate: &mut Federate, seq: &mut u64) -> Vec<DataFrame> {
    let mut out = Vec::new();
    while let Some(action) = federate.poll_action() {
        if let Action::PublishFrame(mut frame) = action {
            frame.set_federation(FederationId::of("Cost"));
            *seq += 1;
            let stamped = DataFrame::from_encoded(frame.into_bytes(), NodeId(2), *seq, |_| 1);
            out.push(stamped.expect("the federate's frame is a valid data frame"));
        }
    }
    out
}

/// A publisher with a registered instance, a subscriber that discovered it, and one update's
/// frame as the subscriber receives it.
fn pair() -> (Federate, ObjectId, AttributeHandle, Federate, DataFrame) {
    let model = Arc::new(ObjectModel::from_sources(&[("trellis-demo.xml", FOM)]).expect("model"));
    let mut publisher = Federate::new(model.clone(), 1, DEFAULT_BINS).expect("publisher");
    let mut subscriber = Federate::new(model, 2, DEFAULT_BINS).expect("subscriber");
    let vehicle = publisher.object_class("Vehicle").expect("Vehicle");
    let position = publisher.attribute(vehicle, "Position").expect("Position");
    (publisher.publish_object_class_attributes(vehicle, &[position])).expect("publish");
    (subscriber.subscribe_object_class_attributes(vehicle, &[position], &[])).expect("subscribe");
    let tank = (publisher.register_object_instance(vehicle, None, 1)).expect("register");
    let mut seq = 0;
    for frame in frames(&mut publisher, &mut seq) {
        subscriber.handle_data(frame);
    }
    while subscriber.poll_callback().is_some() {}
    (publisher.update_attribute_values(tank, &[(position, VALUE)], b"", 2, None, None))
        .expect("update");
    let update = frames(&mut publisher, &mut seq)
        .pop()
        .expect("the update's frame");
    (publisher, tank, position, subscriber, update)
}

fn fastest(runs: u64, rounds: u64, mut run: impl FnMut(u64) -> u64) -> f64 {
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let start = Instant::now();
        let done = run(rounds);
        assert_eq!(done, rounds, "every round did its work");
        best = best.min(start.elapsed());
    }
    best.as_nanos() as f64 / rounds as f64
}

fn main() {
    let rounds = env_or("UPDATE_REFLECT_ROUNDS", 2_000_000);
    let runs = env_or("UPDATE_REFLECT_RUNS", 9);
    let only = std::env::var("UPDATE_REFLECT_ONLY").unwrap_or_default();
    let (mut publisher, tank, position, mut subscriber, update) = pair();
    if only != "reflect" {
        let update_ns = fastest(runs, rounds, |n| {
            let mut sent = 0;
            for _ in 0..n {
                (publisher.update_attribute_values(tank, &[(position, VALUE)], b"", 2, None, None))
                    .expect("update");
                while let Some(action) = publisher.poll_action() {
                    sent += u64::from(matches!(action, Action::PublishFrame(_)));
                }
            }
            sent
        });
        println!("update (64 B, one attribute): {update_ns:.1} ns");
    }
    if only != "update" {
        let reflect_ns = fastest(runs, rounds, |n| {
            let mut reflected = 0;
            for _ in 0..n {
                subscriber.handle_data(update.clone());
                while let Some(mut callback) = subscriber.poll_callback() {
                    if let Callback::ReflectAttributeValues { values, .. } = &callback {
                        reflected += u64::from(values.len() == 1 && values[0].1[..] == VALUE);
                    }
                    subscriber.recycle_values_of(&mut callback);
                }
            }
            reflected
        });
        println!("reflect (64 B, one attribute): {reflect_ns:.1} ns");
    }
}
