//! Allocations per update → reflect and interaction → receipt on the whole Rust path, with
//! and without a region (DDM: the instance's associated region, the interaction's regions):
//! a publishing federate, its node, a router over loopback TCP, the subscribing federate's
//! node and its callback, all in this process. A counting global allocator counts every
//! thread (the router's too); the file holds one test so nothing else runs beside it.

mod common;

use common::*;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, Range, RegionHandle};
use trellis_core::fom::{InteractionClassHandle, ParameterHandle};
use trellis_net::rti::{Driver, RtiAmbassador};

#[path = "../../core/tests/common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::ALLOCATIONS;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

/// With callbacks handed back (`RtiAmbassador::recycle`): nothing per update (0.006 measured
/// here). What is allowed is the rare allocation of housekeeping (heartbeats, once a second)
/// while the test runs, however slowly a loaded machine runs it: one in ten updates would be
/// a per-message cost, and fails.
const ALLOWED_RECYCLED: f64 = 0.1;
/// With callbacks kept: the list of values, and the region's box when there is one.
const ALLOWED_KEPT: f64 = 1.05;
const ALLOWED_KEPT_IN_REGIONS: f64 = 2.05;

struct Pair {
    publisher: RtiAmbassador,
    subscriber: RtiAmbassador,
    tank: trellis_core::federate::ObjectId,
    position: trellis_core::fom::AttributeHandle,
    radio: InteractionClassHandle,
    sender: ParameterHandle,
    /// The region updates and interactions are sent in (DDM), which the reflect or
    /// interaction then holds; `None`: none.
    sent_in: Option<RegionHandle>,
}

/// A region of `rti` on the model's X dimension.
fn region(rti: &mut RtiAmbassador, lower: u64, upper: u64) -> RegionHandle {
    let x = rti.dimension_handle("X").unwrap();
    let r = rti.create_region(&[x]).unwrap();
    rti.set_range_bounds(r, x, Range::new(lower, upper))
        .unwrap();
    rti.commit_region_modifications(&[r]).unwrap();
    r
}

fn pair(at: &trellis_net::Endpoint, in_regions: bool) -> Pair {
    let model = model();
    let federation = if in_regions { "AllocRegions" } else { "Alloc" };
    let mut publisher = connect(at, federation, "pub", Driver::Direct);
    publisher.create_federation_execution(&model).unwrap();
    (publisher.join_federation_execution("pub", "sim", model.clone())).unwrap();
    let mut subscriber = connect(at, federation, "sub", Driver::Direct);
    subscriber
        .join_federation_execution("sub", "sim", model)
        .unwrap();
    let vehicle = publisher.object_class_handle("Vehicle").unwrap();
    let position = publisher.attribute_handle(vehicle, "Position").unwrap();
    (publisher.publish_object_class_attributes(vehicle, &[position])).unwrap();
    let radio = publisher.interaction_class_handle("Radio").unwrap();
    let sender = publisher.parameter_handle(radio, "Sender").unwrap();
    publisher.publish_interaction_class(radio).unwrap();
    let (tank, sent_in) = if in_regions {
        let view = region(&mut subscriber, 0, 500);
        (subscriber.subscribe_object_class_attributes_with_region_handles(
            vehicle,
            &[(vec![position], vec![view])],
        ))
        .unwrap();
        (subscriber.subscribe_interaction_class_with_region_handles(radio, &[view])).unwrap();
        let at = region(&mut publisher, 100, 101);
        let pairs = [(vec![position], vec![at])];
        let tank = (publisher.register_object_instance_with_regions(vehicle, &pairs)).unwrap();
        (tank, Some(at))
    } else {
        (subscriber.subscribe_object_class_attributes(vehicle, &[position])).unwrap();
        subscriber.subscribe_interaction_class(radio).unwrap();
        (publisher.register_object_instance(vehicle).unwrap(), None)
    };
    Pair {
        publisher,
        subscriber,
        tank,
        position,
        radio,
        sender,
        sent_in,
    }
}

/// What a round sends: an attribute update, or an interaction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sent {
    Update,
    Interaction,
}

impl Pair {
    fn update(&mut self) {
        let value = [7u8; 64];
        let values = [(self.position, &value[..])];
        (self
            .publisher
            .update_attribute_values(self.tank, &values, b""))
        .unwrap();
    }

    fn send(&mut self, sent: Sent) {
        let value = [7u8; 64];
        let parameters = [(self.sender, &value[..])];
        match (sent, self.sent_in) {
            (Sent::Update, _) => self.update(),
            (Sent::Interaction, None) => (self.publisher)
                .send_interaction(self.radio, &parameters, b"")
                .unwrap(),
            (Sent::Interaction, Some(at)) => (self.publisher)
                .send_interaction_with_regions(self.radio, &parameters, &[at], b"", None)
                .unwrap(),
        }
    }

    /// Until the subscription has reached the router, updates go nowhere: send until one
    /// is reflected.
    fn first_reflect(&mut self) {
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(Instant::now() < deadline, "nothing reflected in time");
            self.update();
            let wait = Duration::from_millis(1);
            while let Some(callback) = self.subscriber.evoke_callback(wait).unwrap() {
                if matches!(callback, Callback::ReflectAttributeValues { .. }) {
                    return;
                }
            }
        }
    }

    /// One update or interaction, evoked until it arrives (the publisher driven meanwhile).
    fn round(&mut self, sent: Sent, recycle: bool) {
        self.send(sent);
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(
                Instant::now() < deadline,
                "the {sent:?} did not arrive in time"
            );
            self.publisher.evoke_callback(Duration::ZERO).unwrap();
            let wait = Duration::from_millis(1);
            let Some(callback) = self.subscriber.evoke_callback(wait).unwrap() else {
                continue;
            };
            let in_regions = self.sent_in.is_some();
            let arrived = match (&callback, sent) {
                (Callback::ReflectAttributeValues { region, .. }, Sent::Update)
                | (Callback::ReceiveInteraction { region, .. }, Sent::Interaction) => {
                    assert_eq!(region.is_some(), in_regions, "the {sent:?}'s region");
                    true
                }
                _ => false,
            };
            if recycle {
                self.subscriber.recycle(callback);
            }
            if arrived {
                return;
            }
        }
    }
}

#[test]
fn updates_and_interactions_allocate_nothing_through_a_router_once_callbacks_are_handed_back() {
    let (_router, at) = registry_router();
    for in_regions in [false, true] {
        let mut pair = pair(&at, in_regions);
        pair.first_reflect();
        for sent in [Sent::Update, Sent::Interaction] {
            measure(&mut pair, sent);
        }
    }
}

/// Allocations per update and reflect (or interaction and receipt), callbacks kept and then
/// handed back.
fn measure(pair: &mut Pair, sent: Sent) {
    let in_regions = pair.sent_in.is_some();
    let kept = if in_regions {
        ALLOWED_KEPT_IN_REGIONS
    } else {
        ALLOWED_KEPT
    };
    for (recycle, allowed) in [(false, kept), (true, ALLOWED_RECYCLED)] {
        for _ in 0..2000 {
            pair.round(sent, recycle); // warm up: queues and buffers reach their working size
        }
        let before = ALLOCATIONS.load(Ordering::SeqCst);
        let rounds = 5000;
        for _ in 0..rounds {
            pair.round(sent, recycle);
        }
        let per_message = (ALLOCATIONS.load(Ordering::SeqCst) - before) as f64 / rounds as f64;
        println!(
            "{sent:?}, in regions: {in_regions}; callbacks handed back: {recycle}; \
             {per_message:.3} allocations per message"
        );
        assert!(
            per_message <= allowed,
            "{sent:?}, in regions: {in_regions}; callbacks handed back: {recycle}; \
             {per_message:.3} allocations per message and its callback, every thread \
             counted: at most {allowed}"
        );
    }
}
