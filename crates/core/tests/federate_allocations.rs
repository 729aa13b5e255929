//! What one update costs in allocations on the federate state machines, from the
//! publisher's update call to the subscriber's reflect callback, once both are warmed up.
//! A counting global allocator measures it: the whole file is one test so nothing else
//! runs beside it. The node and the router between them are not here: the router's own
//! test (`allocations.rs`) shows it forwards without allocating, and
//! `crates/net/tests/federate_allocations.rs` measures the whole path.

use bytes::Bytes;
use std::sync::atomic::Ordering;
use trellis_core::federate::{Action, Callback};

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::ALLOCATIONS;

#[path = "common/federate_pair.rs"]
mod federate_pair;
use federate_pair::{pair, stamped, Pair};

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

/// A reflect's list of values, when the application keeps its callbacks: the values are
/// slices of the received payload (no copy), the list is the one allocation. Handed back
/// (`Federate::recycle_callback`), the list serves the next reflect: nothing is allocated.
const ALLOWED_KEPT: u64 = 1;
const ALLOWED_RECYCLED: u64 = 0;

fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::SeqCst)
}

impl Pair {
    /// One update and its reflect: allocations sending, allocations receiving, and
    /// whether the value arrived.
    fn round(&mut self, time: u64, recycle: bool) -> (u64, u64, bool) {
        let value = [7u8; 64];
        let start = allocations();
        let values = [(self.position, &value[..])];
        let publisher = &mut self.publisher;
        (publisher.update_attribute_values(self.tank, &values, b"", time, None, None)).unwrap();
        let mut frame = None;
        while let Some(action) = publisher.poll_action() {
            match action {
                Action::PublishFrame(f) => frame = Some(f),
                other => publisher.recycle(other),
            }
        }
        let sent = allocations();
        let mut reflected = false;
        if let Some(frame) = frame {
            // Stamped as the node's event loop stamps it, and received as the frame itself.
            self.subscriber.handle_data(stamped(frame, time));
        }
        while let Some(callback) = self.subscriber.poll_callback() {
            if let Callback::ReflectAttributeValues { values, .. } = &callback {
                reflected = values[0].1 == Bytes::from_static(&[7u8; 64]);
            }
            if recycle {
                self.subscriber.recycle_callback(callback);
            }
        }
        (sent - start, allocations() - sent, reflected)
    }
}

#[test]
fn an_update_and_its_reflect_allocate_nothing_once_callbacks_are_handed_back() {
    let mut pair = pair();
    for (recycle, allowed) in [(false, ALLOWED_KEPT), (true, ALLOWED_RECYCLED)] {
        for time in 0..1000 {
            pair.round(time, recycle); // warm up: queues and buffers reach their size
        }
        let rounds = 10_000;
        let (mut sending, mut receiving) = (0, 0);
        for time in 0..rounds {
            let (sent, received, reflected) = pair.round(time, recycle);
            assert!(reflected, "update {time} was reflected with its value");
            sending += sent;
            receiving += received;
        }
        println!(
            "callbacks handed back: {recycle}; per update: {:.2} allocations sending, {:.2} \
             receiving and reflecting",
            sending as f64 / rounds as f64,
            receiving as f64 / rounds as f64
        );
        assert!(
            sending + receiving <= allowed * rounds,
            "callbacks handed back: {recycle}; {sending} allocations sending and {receiving} \
             receiving in {rounds} updates: at most {allowed} per update"
        );
    }
}
