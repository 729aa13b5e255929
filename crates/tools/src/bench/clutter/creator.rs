//! The coordinator's own federate: it creates the federation and, before anyone
//! subscribes, hears every simulator's "registered" marker. A simulator sends the marker
//! after its registrations and frames from one node travel in order, so once the creator
//! heard it, every registration of that simulator has been routed (with no object interest
//! anywhere, to no one): subscribing then cannot pull registrations still in flight.

use crate::bench::BenchError;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_core::fom::ObjectModel;
use trellis_net::rti::{RtiAmbassador, RtiConfig};

/// The tag of the marker a simulator sends after registering.
pub const REGISTERED_TAG: &[u8] = b"registered";
const POLL: Duration = Duration::from_millis(10);

pub struct Creator {
    rti: RtiAmbassador,
}

impl Creator {
    /// Create the federation, join it and listen for Radio interactions (every region).
    pub fn start(
        config: RtiConfig,
        model: &Arc<ObjectModel>,
        name: &str,
    ) -> Result<Creator, BenchError> {
        let mut rti = RtiAmbassador::connect(config)?;
        rti.create_federation_execution(model)?;
        rti.join_federation_execution(name, "clutter-coordinator", model.clone())?;
        let radio = rti.interaction_class_handle("Radio")?;
        rti.subscribe_interaction_class(radio)?;
        Ok(Creator { rti })
    }

    /// Take callbacks until every simulator's marker came, within `bound`; then stop
    /// listening (nothing reads the creator's callbacks after this).
    pub fn wait_registered(&mut self, simulators: u32, bound: Duration) -> Result<(), BenchError> {
        let radio = self.rti.interaction_class_handle("Radio")?;
        let sender = self.rti.parameter_handle(radio, "Sender")?;
        let deadline = Instant::now() + bound;
        let mut heard = BTreeSet::new();
        while (heard.len() as u32) < simulators {
            if Instant::now() > deadline {
                return Err(BenchError::Failed(format!(
                    "{} of {simulators} simulators said they registered within {bound:?}",
                    heard.len()
                )));
            }
            if let Some(Callback::ReceiveInteraction {
                parameters, tag, ..
            }) = self.rti.evoke_callback(POLL)?
            {
                let marker = (tag.as_ref() == REGISTERED_TAG)
                    .then(|| parameters.iter().find(|(p, _)| *p == sender))
                    .flatten()
                    .and_then(|(_, v)| std::str::from_utf8(v).ok()?.parse::<u32>().ok());
                heard.extend(marker);
            }
        }
        self.rti.unsubscribe_interaction_class(radio)?;
        // Whatever came meanwhile is dropped with the callbacks still queued.
        while self.rti.evoke_callback(Duration::ZERO)?.is_some() {}
        Ok(())
    }

    /// Resign and destroy the federation (best effort: a federate still leaving keeps it
    /// alive; the registry drops it later).
    pub fn finish(mut self) {
        let _ = self.rti.resign_federation_execution(Default::default());
        let _ = self.rti.destroy_federation_execution();
    }
}
