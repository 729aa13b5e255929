//! Receive-order messages to a time-constrained federate (IEEE 1516.1-2010 §8.1.1, §8.23,
//! §8.24): with asynchronous delivery disabled, the standard's default, they are delivered
//! only while the federate is in the time-advancing state (a time advance, next message or
//! flush queue request pending). Until then they are held here, in the order they came;
//! with asynchronous delivery enabled, or to a federate that is not constrained, they are
//! delivered as they come.

use super::{Callback, Federate, FederateError, TimeError};
use std::collections::VecDeque;

/// The most receive-order messages held for a constrained federate that does not advance.
/// Past it the federate has stopped consuming: it loses its connection, as a slow consumer
/// does, rather than hold without bound or deliver out of the standard's order.
pub const MAX_HELD_RECEIVE_ORDER: usize = 1 << 20;

#[derive(Default)]
pub(super) struct ReceiveOrderGate {
    asynchronous: bool,
    held: VecDeque<Callback>,
    /// The hold passed its limit and the connection was reported lost.
    overflowed: bool,
}

impl Federate {
    /// enableAsynchronousDelivery (§8.23).
    pub fn enable_asynchronous_delivery(&mut self) -> Result<(), FederateError> {
        if self.receive_order.asynchronous {
            return Err(TimeError::AsynchronousDeliveryAlreadyEnabled.into());
        }
        self.receive_order.asynchronous = true;
        Ok(())
    }

    /// disableAsynchronousDelivery (§8.24).
    pub fn disable_asynchronous_delivery(&mut self) -> Result<(), FederateError> {
        if !self.receive_order.asynchronous {
            return Err(TimeError::AsynchronousDeliveryAlreadyDisabled.into());
        }
        self.receive_order.asynchronous = false;
        Ok(())
    }

    /// Whether asynchronous delivery is on: receive-order messages are delivered while not advancing.
    pub fn is_asynchronous_delivery_enabled(&self) -> bool {
        self.receive_order.asynchronous
    }

    /// Receive-order messages held until the federate advances.
    pub fn held_receive_order(&self) -> usize {
        self.receive_order.held.len()
    }

    /// Whether receive-order messages wait: constrained, not advancing, not asynchronous.
    fn holds_receive_order(&self) -> bool {
        !self.receive_order.asynchronous && self.time.is_constrained() && !self.time.is_advancing()
    }

    /// A receive-order message for the application: now, or held until it may be delivered.
    /// Inlined: the callback is then written into the queue where it was built,
    /// not copied into an argument first, on the path every reflect takes.
    #[inline]
    pub(super) fn deliver_receive_order(&mut self, callback: Callback) {
        if !self.holds_receive_order() && self.receive_order.held.is_empty() {
            self.callbacks.push_back(callback);
        } else {
            self.hold_receive_order(callback);
        }
    }

    /// A receive-order message held until it may be delivered, within a bound.
    fn hold_receive_order(&mut self, callback: Callback) {
        if self.receive_order.held.len() < MAX_HELD_RECEIVE_ORDER {
            self.receive_order.held.push_back(callback);
            return;
        }
        if !std::mem::replace(&mut self.receive_order.overflowed, true) {
            self.callbacks.push_back(Callback::ConnectionLost {
                fault: format!(
                    "{MAX_HELD_RECEIVE_ORDER} receive-order messages are held for this \
                     time-constrained federate, which has not requested a time advance: \
                     advance time, or enable asynchronous delivery to receive them at once"
                ),
            });
        }
    }

    /// The next held receive-order message, if it may be delivered now.
    pub(super) fn release_receive_order(&mut self) -> Option<Callback> {
        if self.holds_receive_order() {
            return None;
        }
        self.receive_order.held.pop_front()
    }

    /// Queue every held receive-order message for delivery (the federate entered the
    /// time-advancing state).
    pub(super) fn release_all_receive_order(&mut self) {
        let held = std::mem::take(&mut self.receive_order.held);
        self.callbacks.extend(held);
    }

    /// Drop the held receive-order messages `forget` picks (an instance deleted locally).
    pub(super) fn forget_held_receive_order(&mut self, forget: impl Fn(&Callback) -> bool) {
        self.receive_order.held.retain(|c| !forget(c));
    }

    /// Whether a held receive-order message may be delivered now.
    pub(super) fn has_released_receive_order(&self) -> bool {
        !self.receive_order.held.is_empty() && !self.holds_receive_order()
    }
}
