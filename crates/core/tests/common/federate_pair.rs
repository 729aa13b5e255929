//! A publishing and a subscribing federate on the demo object model with no node between
//! them: the publisher has registered a Vehicle and updates its Position, the subscriber
//! subscribes to it. What the tests and examples that measure one update → reflect on the
//! federate state machines start from.

use std::sync::Arc;
use trellis_core::federate::{Federate, ObjectId, DEFAULT_BINS};
use trellis_core::fom::{AttributeHandle, ObjectModel};
use trellis_core::wire::{DataFrame, NodeId, UnstampedFrame};

const DEMO: &str = include_str!("../../../../foms/trellis-demo.xml");

pub struct Pair {
    pub publisher: Federate,
    pub subscriber: Federate,
    pub tank: ObjectId,
    pub position: AttributeHandle,
}

/// The pair, the instance registered; the subscriber discovers it with its first update.
pub fn pair() -> Pair {
    let model = ObjectModel::from_sources(&[("trellis-demo.xml", DEMO)]).expect("demo model");
    let model = Arc::new(model);
    let mut publisher = Federate::new(model.clone(), 1, DEFAULT_BINS).expect("publisher");
    let mut subscriber = Federate::new(model, 2, DEFAULT_BINS).expect("subscriber");
    let vehicle = publisher.object_class("Vehicle").expect("Vehicle");
    let position = publisher.attribute(vehicle, "Position").expect("Position");
    (publisher.publish_object_class_attributes(vehicle, &[position])).expect("publish");
    (subscriber.subscribe_object_class_attributes(vehicle, &[position], &[])).expect("subscribe");
    let tank = (publisher.register_object_instance(vehicle, None, 0)).expect("register");
    while subscriber.poll_action().is_some() {}
    Pair {
        publisher,
        subscriber,
        tank,
        position,
    }
}

/// A frame the publisher encoded, stamped as the node's event loop stamps it (source and
/// sequence number): the frame the subscriber receives.
pub fn stamped(frame: UnstampedFrame, seq: u64) -> DataFrame {
    let stamped = DataFrame::from_encoded(frame.into_bytes(), NodeId(1), seq, |_| 1);
    stamped.expect("the federate's frame is a valid data frame")
}
