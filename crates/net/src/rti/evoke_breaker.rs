//! [`EvokeBreaker`]: lets a service called on one thread end an evoke waiting on another.
//!
//! An evoke holds its federate while it waits for callbacks (the wait drives the federate's
//! node). A program calling services from another thread at the same time (an
//! `HLA_IMMEDIATE` federate's simulation loop while the library's thread waits, or any
//! program that evokes on a thread of its own) would wait for the evoke to end: up to its
//! whole timeout, and a node left undriven that long loses its router link. So the caller
//! breaks the wait instead, and the evoke gives the federate up and goes on waiting after
//! the service.

use crate::node::WaitBreaker;
use std::sync::{Arc, Mutex};

/// Breaks the wait of the session's evoke, whichever federation's node it waits on (the
/// session binds a node per federation named). Cheap to clone; harmless when no evoke
/// waits (the next wait then returns at once, once).
#[derive(Clone, Debug, Default)]
pub struct EvokeBreaker {
    /// The bound node's breaker; `None` while no node is bound.
    node: Arc<Mutex<Option<WaitBreaker>>>,
}

impl EvokeBreaker {
    /// End the evoke's wait now (or its next one): it returns no callback.
    pub fn interrupt(&self) {
        if let Some(node) = self.node.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            node.interrupt();
        }
    }

    /// Break the waits of this node from now on (`None`: the session has none).
    pub(super) fn bind(&self, node: Option<WaitBreaker>) {
        *self.node.lock().unwrap_or_else(|e| e.into_inner()) = node;
    }
}
