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

#[path = "../tests/common/federate_pair.rs"]
mod federate_pair;
use federate_pair::{pair, stamped, Pair};

use std::time::{Duration, Instant};
use trellis_core::federate::{Action, Callback};

const VALUE: [u8; 64] = [0xA5; 64];

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
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
    let Pair {
        mut publisher,
        mut subscriber,
        tank,
        position,
    } = pair();
    // One update's frame as the subscriber receives it (the last queued: the registration's
    // comes first), reflected once so that the instance is discovered before the measured
    // reflects.
    (publisher.update_attribute_values(tank, &[(position, VALUE)], b"", 2, None, None))
        .expect("update");
    let frame = std::iter::from_fn(|| publisher.poll_action())
        .filter_map(|action| match action {
            Action::PublishFrame(frame) => Some(frame),
            _ => None,
        })
        .last()
        .expect("the update's frame");
    let update = stamped(frame, 1);
    subscriber.handle_data(update.clone());
    while subscriber.poll_callback().is_some() {}
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
