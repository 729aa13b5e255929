//! The coordinator's own federate: it creates the federation for a case, stays joined
//! (its own thread keeps its link alive; it subscribes to nothing) and destroys the
//! federation at the end.

use crate::bench::BenchError;
use std::sync::Arc;
use trellis_core::fom::ObjectModel;
use trellis_net::rti::{RtiAmbassador, RtiConfig};

pub struct Creator {
    rti: RtiAmbassador,
}

impl Creator {
    pub fn start(
        config: RtiConfig,
        model: &Arc<ObjectModel>,
        name: &str,
    ) -> Result<Creator, BenchError> {
        let mut rti = RtiAmbassador::connect(config)?;
        rti.create_federation_execution(model)?;
        rti.join_federation_execution(name, "clutter-coordinator", model.clone())?;
        Ok(Creator { rti })
    }

    /// Resign and destroy the federation (best effort: a federate still leaving keeps it
    /// alive; the registry drops it later).
    pub fn finish(mut self) {
        let _ = self.rti.resign_federation_execution(Default::default());
        let _ = self.rti.destroy_federation_execution();
    }
}
