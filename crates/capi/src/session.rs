//! What the C ABI's lock guards: the federate's ambassador (`trellis_net::rti::Session`,
//! which holds all of its state) and the callbacks taken from it a batch at a time, so the
//! lock is taken once per batch and each callback is delivered after it is released.

use std::collections::VecDeque;
use std::sync::Arc;
use trellis_core::federate::{Callback, TimeRepresentation};
use trellis_core::fom::ObjectModel;
use trellis_net::rti::Session;

use crate::status::Failure;

pub(crate) struct Held {
    pub session: Session,
    /// Callbacks taken and not yet delivered. They are taken only into an empty stash, so
    /// all come from one federation.
    pub stash: VecDeque<Callback>,
    /// The logical time representation of that federation, taken with them (the session
    /// may have lost it since).
    pub stash_time: TimeRepresentation,
}

/// The joined federation's logical time representation (HLAinteger64Time until joined).
pub(crate) fn time(session: &Session) -> TimeRepresentation {
    session
        .time_representation()
        .unwrap_or(TimeRepresentation::Integer64)
}

/// The joined federate's object model (extended when a joiner adds modules).
pub(crate) fn model(session: &mut Session) -> Result<Arc<ObjectModel>, Failure> {
    Ok(session.joined()?.federate()?.model().clone())
}
