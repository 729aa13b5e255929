//! A MOM tool inside a benchmark (`trellis bench throughput --mom watched`): a federate
//! that subscribes to every member's `HLAmanager.HLAfederate` instance and asks each for a
//! report every second (`HLAadjust.HLAsetTiming`), as a federation manager watching the run
//! would, so the MOM's cost while someone watches is measured beside its cost when no one
//! does (`--mom idle`) and without it (`--mom off`).

use super::network::{Federation, Network};
use super::BenchError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use trellis_core::federate::mom::encode;
use trellis_core::federate::{federate_object, Callback, ResignAction};
use trellis_net::rti::{Driver, RtiAmbassador};

/// The MOM's part in a benchmark run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum MomLoad {
    /// No federate takes part in the MOM (`RtiConfig::mom` off).
    Off,
    /// Every federate has its MOM, and no one subscribes to it.
    #[default]
    Idle,
    /// Every federate has its MOM, and a tool federate asks each for a report every second.
    Watched,
}

/// The HLAsetTiming period the watcher asks for, in seconds.
const REPORT_PERIOD_SECONDS: i32 = 1;

/// The watching tool federate, on a thread of its own until finished.
pub(crate) struct MomWatcher {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Result<u64, BenchError>>,
}

impl MomWatcher {
    /// Join at `place`, subscribe, and ask every member that appears for periodic reports.
    pub(crate) fn join(
        network: &Network,
        federation: &Federation,
        place: &str,
    ) -> Result<MomWatcher, BenchError> {
        let mut rti = network.federate(federation, place, Driver::Thread, true)?;
        let class = rti.object_class_handle("HLAmanager.HLAfederate")?;
        let attributes = [
            "HLAfederateHandle",
            "HLAupdatesSent",
            "HLAreflectionsReceived",
        ]
        .map(|name| rti.attribute_handle(class, name));
        let attributes = attributes.into_iter().collect::<Result<Vec<_>, _>>()?;
        rti.subscribe_object_class_attributes(class, &attributes)?;
        let timing =
            rti.interaction_class_handle("HLAmanager.HLAfederate.HLAadjust.HLAsetTiming")?;
        rti.publish_interaction_class(timing)?;
        let stop: Arc<AtomicBool> = Arc::default();
        let thread = {
            let stop = stop.clone();
            std::thread::spawn(move || watch(&mut rti, &stop))
        };
        Ok(MomWatcher { stop, thread })
    }

    /// Stop watching and resign; the reports reflected meanwhile.
    pub(crate) fn finish(self) -> Result<u64, BenchError> {
        self.stop.store(true, Ordering::SeqCst);
        self.thread
            .join()
            .map_err(|_| BenchError::Failed("the MOM watcher's thread panicked".into()))?
    }
}

/// Take callbacks until stopped: each member discovered is asked for periodic reports,
/// each report is counted.
fn watch(rti: &mut RtiAmbassador, stop: &AtomicBool) -> Result<u64, BenchError> {
    let timing = rti.interaction_class_handle("HLAmanager.HLAfederate.HLAadjust.HLAsetTiming")?;
    let federate = rti.parameter_handle(timing, "HLAfederate")?;
    let period = rti.parameter_handle(timing, "HLAreportPeriod")?;
    let mut reports = 0u64;
    while !stop.load(Ordering::Relaxed) {
        match rti.evoke_callback(Duration::from_millis(20))? {
            Some(Callback::DiscoverObjectInstance { object, .. })
                if object == federate_object(object.federate()) =>
            {
                let target = encode::handle(u64::from(object.federate()));
                let seconds = REPORT_PERIOD_SECONDS.to_be_bytes().to_vec();
                rti.send_interaction(timing, &[(federate, target), (period, seconds)], b"")?;
            }
            Some(Callback::ReflectAttributeValues { .. }) => reports += 1,
            _ => {}
        }
    }
    rti.resign_federation_execution(ResignAction::default())?;
    Ok(reports)
}
