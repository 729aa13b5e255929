//! Discovery when a subscription and a registration cross in the network (IEEE 1516.1-2010
//! §6.9: a subscriber discovers every instance of its classes, whenever it subscribed).
//!
//! A node forwards a message only to where the rest of the network declared interest in
//! its ids. A registration announced before a new subscriber's interest reached the
//! registrant's node is dropped there; the subscriber's discovery request
//! (`request_registrations`) is dropped at its own node when no publisher's interest had
//! reached it yet. When both happen, neither side would try again. So each side watches
//! what its node learns: a registrant announces its instances again when interest in
//! their class's discovery id first appears, and a subscriber asks again when a
//! publisher's request id for a class it discovers first appears. Only first appearances
//! count (a second subscriber changes nothing in the union), so this costs one
//! announcement per instance per class that gains its first remote subscriber, and one
//! request per class that gains its first remote publisher.

use super::layout::{DISCOVERY_CELL, REQUEST_CELL};
use super::Federate;
use crate::fom::ObjectClassHandle;
use roaring::RoaringBitmap;
use std::collections::BTreeSet;

impl Federate {
    /// `appeared`: ids the network declared that it had not declared before.
    pub(super) fn rediscover(&mut self, appeared: &RoaringBitmap) {
        let mut subscribed: BTreeSet<ObjectClassHandle> = BTreeSet::new();
        let mut published: Vec<ObjectClassHandle> = Vec::new();
        for id in appeared {
            if let Some(class) = self.layouts.object_class_at(id, DISCOVERY_CELL) {
                subscribed.insert(class);
            } else if let Some(class) = self.layouts.object_class_at(id, REQUEST_CELL) {
                if self
                    .interest
                    .contains(self.layouts.object_id(class, DISCOVERY_CELL))
                {
                    published.push(class);
                }
            }
        }
        if !subscribed.is_empty() {
            self.announce_again(&subscribed);
        }
        for class in published {
            self.request_registrations_of(class);
        }
    }

    /// Announce every instance of `classes` this federate holds attributes of, as it does
    /// when asked (`on_request`).
    fn announce_again(&mut self, classes: &BTreeSet<ObjectClassHandle>) {
        let mine: Vec<_> = (self.instances.iter())
            .filter(|(_, o)| o.kept && classes.contains(&o.class))
            .map(|(id, o)| (id, o.class, o.name.clone()))
            .collect();
        for (object, class, name) in mine {
            self.announce_registration(object, class, name.as_deref(), 0);
        }
    }
}
