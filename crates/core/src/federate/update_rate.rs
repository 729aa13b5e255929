//! Update rates enforced (IEEE 1516.1-2010 §5.6: the update rate designator of
//! subscribeObjectClassAttributes): reflections of an instance of a class subscribed with a
//! rate reach the application at most that often.
//!
//! What arrives sooner is held, one reflection per instance, the newest value of each
//! attribute replacing an older one (and the newest tag, sender, region and transport
//! standing for them all): no attribute's latest value is lost, it only waits until the
//! instance's interval since its last reflection has passed. Only receive-order
//! reflections are thinned: a time-stamp-order one is a time-stamped event that time
//! management delivers in its order, and dropping or merging it would change the
//! simulation's outcome.
//!
//! The library is sans-IO: the node hands it the time with [`Federate::set_now`] whenever
//! [`Federate::needs_clock`] says it matters, and waits no longer than
//! [`Federate::next_release`].

use super::{Callback, Federate, FederateError, ObjectId};
use crate::fom::ObjectClassHandle;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

#[derive(Default)]
pub(super) struct UpdateRates {
    /// The designator, and the shortest time between two reflections of one instance, by
    /// known class.
    intervals: BTreeMap<ObjectClassHandle, (String, Duration)>,
    now: Duration,
    instances: FxHashMap<ObjectId, Thinned>,
    /// Held reflections by when they are due.
    due: BTreeSet<(Duration, ObjectId)>,
}

struct Thinned {
    /// When the last reflection was delivered.
    last: Duration,
    interval: Duration,
    held: Option<Callback>,
}

impl UpdateRates {
    fn is_due(&self) -> bool {
        self.due.first().is_some_and(|(at, _)| *at <= self.now)
    }
}

impl Federate {
    /// The update rate designator of `class`'s subscription (`None`: every reflection).
    /// Every subscribe of the class clears it, as a later subscription replaces an earlier
    /// one: set it after subscribing.
    pub fn set_object_class_update_rate(
        &mut self,
        class: ObjectClassHandle,
        rate: Option<&str>,
    ) -> Result<(), FederateError> {
        let Some(rate) = rate else {
            self.update_rates.intervals.remove(&class);
            return Ok(());
        };
        let Some(found) = self.model.update_rates().iter().find(|r| r.name == rate) else {
            return Err(FederateError::InvalidUpdateRateDesignator(rate.to_owned()));
        };
        // The object model checked the rate is finite and above zero.
        let interval = Duration::from_secs_f64(1.0 / found.rate);
        (self.update_rates.intervals).insert(class, (found.name.clone(), interval));
        Ok(())
    }

    /// The update rate designator of `class`'s subscription, and the interval its
    /// reflections are thinned to, if any.
    pub fn object_class_update_rate(&self, class: ObjectClassHandle) -> Option<(&str, Duration)> {
        let (name, interval) = self.update_rates.intervals.get(&class)?;
        Some((name, *interval))
    }

    pub(super) fn update_rates_empty(&self) -> bool {
        self.update_rates.intervals.is_empty()
    }

    /// Whether the time matters: some subscription has a rate, or a reflection is held.
    pub fn needs_clock(&self) -> bool {
        !self.update_rates.intervals.is_empty() || !self.update_rates.due.is_empty()
    }

    /// The node's clock (any fixed origin, never going back).
    pub fn set_now(&mut self, now: Duration) {
        self.update_rates.now = self.update_rates.now.max(now);
    }

    /// When the next held reflection is due, on the clock of [`Federate::set_now`].
    pub fn next_release(&self) -> Option<Duration> {
        self.update_rates.due.first().map(|(at, _)| *at)
    }

    /// A subscribe or unsubscribe of `class`: its rate is gone until set again.
    pub(super) fn update_rate_cleared(&mut self, class: ObjectClassHandle) {
        self.update_rates.intervals.remove(&class);
    }

    pub(super) fn update_rate_due(&self) -> bool {
        self.update_rates.is_due()
    }

    /// The instance is no longer known: what was held of it goes too.
    pub(super) fn update_rate_forget(&mut self, object: ObjectId) {
        let rates = &mut self.update_rates;
        if let Some(thinned) = rates.instances.remove(&object) {
            if thinned.held.is_some() {
                rates.due.remove(&(thinned.last + thinned.interval, object));
            }
        }
    }

    /// A receive-order reflection of `object`, known as `class`: handed on, held, or
    /// merged into the one held. Whether it was taken (else the caller delivers it).
    pub(super) fn thin_reflection(
        &mut self,
        object: ObjectId,
        class: ObjectClassHandle,
        reflection: Callback,
    ) -> Option<Callback> {
        let Some(&(_, interval)) = self.update_rates.intervals.get(&class) else {
            return Some(reflection);
        };
        let rates = &mut self.update_rates;
        let now = rates.now;
        let Some(thinned) = rates.instances.get_mut(&object) else {
            let thinned = Thinned {
                last: now,
                interval,
                held: None,
            };
            rates.instances.insert(object, thinned);
            return Some(reflection);
        };
        if thinned.held.is_none() && now >= thinned.last + thinned.interval {
            thinned.last = now;
            thinned.interval = interval;
            return Some(reflection);
        }
        match &mut thinned.held {
            Some(held) => merge(held, reflection),
            None => {
                thinned.held = Some(reflection);
                rates.due.insert((thinned.last + thinned.interval, object));
            }
        }
        None
    }

    /// Deliver the held reflections that are due.
    pub(super) fn release_due_reflections(&mut self) {
        while self.update_rates.is_due() {
            let Some((_, object)) = self.update_rates.due.pop_first() else {
                return;
            };
            let now = self.update_rates.now;
            let thinned = self.update_rates.instances.get_mut(&object);
            let held = thinned.and_then(|t| {
                t.last = now;
                t.held.take()
            });
            if let Some(reflection) = held {
                self.deliver_receive_order(reflection);
            }
        }
    }
}

/// `newer` arrived after `held`: its values replace those of the same attributes, the
/// others stay, and its other fields stand for the merged reflection.
fn merge(held: &mut Callback, newer: Callback) {
    let Callback::ReflectAttributeValues {
        values: held_values,
        ..
    } = held
    else {
        *held = newer;
        return;
    };
    let mut values = std::mem::take(held_values);
    let mut newer = newer;
    if let Callback::ReflectAttributeValues {
        values: newer_values,
        ..
    } = &mut newer
    {
        values.retain(|(a, _)| !newer_values.iter().any(|(n, _)| n == a));
        values.append(newer_values);
        values.sort_by_key(|(a, _)| *a);
        *newer_values = values;
    }
    *held = newer;
}
