//! Allocations per update → reflect on the whole Rust path, with and without a region (DDM,
//! the instance's associated region): a publishing federate, its node, a router over
//! loopback TCP, the subscribing federate's node and its reflect, all in this process. A counting global allocator counts every thread (the router's too); the
//! file holds one test so nothing else runs beside it.

mod common;

use common::*;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, Range, RegionHandle};
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
/// With callbacks kept: the reflect's list of values, and its region's box when it has one.
const ALLOWED_KEPT: f64 = 1.05;
const ALLOWED_KEPT_IN_REGIONS: f64 = 2.05;

struct Pair {
    publisher: RtiAmbassador,
    subscriber: RtiAmbassador,
    tank: trellis_core::federate::ObjectId,
    position: trellis_core::fom::AttributeHandle,
    /// Whether the updates carry a region (DDM), which the reflect then holds.
    in_regions: bool,
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
    let tank = if in_regions {
        let view = region(&mut subscriber, 0, 500);
        (subscriber.subscribe_object_class_attributes_with_region_handles(
            vehicle,
            &[(vec![position], vec![view])],
        ))
        .unwrap();
        let at = region(&mut publisher, 100, 101);
        (publisher.register_object_instance_with_regions(vehicle, &[(vec![position], vec![at])]))
            .unwrap()
    } else {
        (subscriber.subscribe_object_class_attributes(vehicle, &[position])).unwrap();
        publisher.register_object_instance(vehicle).unwrap()
    };
    Pair {
        publisher,
        subscriber,
        tank,
        position,
        in_regions,
    }
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

    /// One update, evoked until its reflect (the publisher driven meanwhile).
    fn round(&mut self, recycle: bool) {
        self.update();
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(Instant::now() < deadline, "no reflect in time");
            self.publisher.evoke_callback(Duration::ZERO).unwrap();
            let wait = Duration::from_millis(1);
            let Some(callback) = self.subscriber.evoke_callback(wait).unwrap() else {
                continue;
            };
            let reflected = match &callback {
                Callback::ReflectAttributeValues { region, .. } => {
                    assert_eq!(region.is_some(), self.in_regions, "the reflect's region");
                    true
                }
                _ => false,
            };
            if recycle {
                self.subscriber.recycle(callback);
            }
            if reflected {
                return;
            }
        }
    }
}

#[test]
fn an_update_and_its_reflect_allocate_nothing_through_a_router_once_callbacks_are_handed_back() {
    let (_router, at) = registry_router();
    for in_regions in [false, true] {
        let mut pair = pair(&at, in_regions);
        pair.first_reflect();
        measure(&mut pair);
    }
}

/// Allocations per update and reflect, callbacks kept and then handed back.
fn measure(pair: &mut Pair) {
    let in_regions = pair.in_regions;
    let kept = if in_regions {
        ALLOWED_KEPT_IN_REGIONS
    } else {
        ALLOWED_KEPT
    };
    for (recycle, allowed) in [(false, kept), (true, ALLOWED_RECYCLED)] {
        for _ in 0..2000 {
            pair.round(recycle); // warm up: queues and buffers reach their working size
        }
        let before = ALLOCATIONS.load(Ordering::SeqCst);
        let rounds = 5000;
        for _ in 0..rounds {
            pair.round(recycle);
        }
        let per_update = (ALLOCATIONS.load(Ordering::SeqCst) - before) as f64 / rounds as f64;
        println!(
            "in regions: {in_regions}; callbacks handed back: {recycle}; \
             {per_update:.3} allocations per update"
        );
        assert!(
            per_update <= allowed,
            "in regions: {in_regions}; callbacks handed back: {recycle}; {per_update:.3} \
             allocations per update and reflect, every thread counted: at most {allowed}"
        );
    }
}
