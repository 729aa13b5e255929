//! The values of the MOM's object instances: `HLAmanager.HLAfederate` from this federate's
//! own state, `HLAmanager.HLAfederation` from the federation as this federate sees it.
//! Attributes the MOM cannot give truthfully yet are left out of updates (see the README's
//! departures), never sent with made-up values.

use super::encode;
use super::{Federate, ObjectId, FEDERATION_OBJECT};
use crate::federate::logical_time::{Interval, LogicalTime, TimeRepresentation};
use crate::fom::{AttributeHandle, ObjectClassHandle};

/// HLAfederateState: ActiveFederate, FederateSaveInProgress, FederateRestoreInProgress.
const ACTIVE_FEDERATE: i32 = 1;
const FEDERATE_SAVE_IN_PROGRESS: i32 = 3;
const FEDERATE_RESTORE_IN_PROGRESS: i32 = 5;
/// HLAtimeState: TimeGranted, TimeAdvancing.
const TIME_GRANTED: i32 = 0;
const TIME_ADVANCING: i32 = 1;

impl Federate {
    /// The values of `attributes` (all the class's, when empty) of MOM instance `object`.
    pub(super) fn mom_values(
        &self,
        class: ObjectClassHandle,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Vec<(u32, Vec<u8>)> {
        let all;
        let attributes = if attributes.is_empty() {
            all = self.model.available_attributes(class);
            &all
        } else {
            attributes
        };
        attributes
            .iter()
            .filter_map(|&a| {
                let name = self.model.attribute(a).name.as_str();
                let value = if object == FEDERATION_OBJECT {
                    self.federation_value(name)
                } else {
                    self.federate_value(name)
                };
                value.map(|v| (a.0, v))
            })
            .collect()
    }

    /// One attribute of this federate's `HLAmanager.HLAfederate` instance, by name.
    fn federate_value(&self, name: &str) -> Option<Vec<u8>> {
        let mom = self.mom.as_ref()?;
        let (federate_name, federate_type) = self.view.federates.get(&self.handle)?;
        let stats = &self.stats;
        let value = match name {
            "HLAfederateHandle" => encode::handle(u64::from(self.handle)),
            "HLAfederateName" => encode::unicode_string(federate_name),
            "HLAfederateType" => encode::unicode_string(federate_type),
            "HLAfederateHost" => encode::unicode_string(&mom.identity.host),
            "HLARTIversion" => encode::unicode_string(&mom.identity.rti_version),
            "HLAFOMmoduleDesignatorList" => {
                encode::string_list(mom.identity.joined_modules.iter().map(String::as_str))
            }
            "HLAtimeConstrained" => encode::boolean(self.time.is_constrained()),
            "HLAtimeRegulating" => encode::boolean(self.time.is_regulating()),
            "HLAasynchronousDelivery" => encode::boolean(self.is_asynchronous_delivery_enabled()),
            "HLAfederateState" => encode::int32(match self.check_not_saving() {
                Ok(()) => ACTIVE_FEDERATE,
                Err(super::super::FederateError::RestoreInProgress(_)) => {
                    FEDERATE_RESTORE_IN_PROGRESS
                }
                Err(_) => FEDERATE_SAVE_IN_PROGRESS,
            }),
            "HLAtimeManagerState" => encode::int32(if self.time.is_advancing() {
                TIME_ADVANCING
            } else {
                TIME_GRANTED
            }),
            "HLAlogicalTime" => self.encoded_time(Some(self.time.logical_time())),
            "HLAlookahead" => {
                encode::opaque_time((self.time.lookahead().ok()).map(encoded_interval))
            }
            "HLAGALT" => self.encoded_time(self.time.galt()),
            "HLALITS" => self.encoded_time(self.time.lits()),
            "HLAROlength" => encode::count(self.callbacks_pending() as u64),
            "HLATSOlength" => encode::count(self.time.held_time_stamped() as u64),
            "HLAreflectionsReceived" => encode::count(stats.reflections),
            "HLAupdatesSent" => encode::count(stats.updates_sent),
            "HLAinteractionsReceived" => encode::count(stats.interactions),
            "HLAinteractionsSent" => encode::count(stats.interactions_sent),
            "HLAobjectInstancesThatCanBeDeleted" => encode::count(self.deletable_instances()),
            "HLAobjectInstancesRegistered" => encode::count(u64::from(self.next_local - 1)),
            "HLAobjectInstancesDiscovered" => encode::count(stats.discoveries),
            "HLAconveyRegionDesignatorSets" => encode::boolean(mom.convey_regions),
            "HLAconveyProducingFederate" => encode::boolean(mom.convey_producer),
            // Not kept yet: instances deleted, removed; wall-clock time spent granted and
            // advancing.
            _ => return None,
        };
        Some(value)
    }

    /// One attribute of the federation's `HLAmanager.HLAfederation` instance, by name.
    fn federation_value(&self, name: &str) -> Option<Vec<u8>> {
        let mom = self.mom.as_ref()?;
        let value = match name {
            "HLAfederationName" => encode::unicode_string(&self.view.name),
            "HLAfederatesInFederation" => {
                encode::handle_list(self.view.federates.keys().map(|&h| u64::from(h)))
            }
            "HLARTIversion" => encode::unicode_string(&mom.identity.rti_version),
            "HLAMIMdesignator" => encode::unicode_string(&mom.identity.mim_designator),
            "HLAFOMmoduleDesignatorList" => {
                encode::string_list(mom.identity.federation_modules.iter().map(String::as_str))
            }
            "HLAtimeImplementationName" => {
                encode::unicode_string(&mom.identity.time_implementation)
            }
            // HLAautoProvide is off: Trellis never calls provideAttributeValueUpdate unasked.
            "HLAautoProvide" => encode::boolean(false),
            // The last save this member took part in, and a timed save ordered and not
            // begun (empty when none).
            "HLAlastSaveName" => encode::unicode_string(self.saved_labels().last().unwrap_or("")),
            "HLAnextSaveName" => {
                encode::unicode_string(self.scheduled_save().map_or("", |(label, _)| label))
            }
            "HLAnextSaveTime" => self.encoded_time(self.scheduled_save().map(|(_, time)| time)),
            // Not kept: the merged FDD's text; the logical time of the last save.
            _ => return None,
        };
        Some(value)
    }

    /// A logical time as the federation's time implementation encodes it, or empty.
    fn encoded_time(&self, time: Option<LogicalTime>) -> Vec<u8> {
        let representation = self.time.representation();
        encode::opaque_time(time.map(|t| match representation {
            TimeRepresentation::Integer64 => t.as_i64().to_be_bytes(),
            TimeRepresentation::Float64 => t.as_f64().to_be_bytes(),
        }))
    }

    /// Instances whose privilege to delete this federate holds.
    fn deletable_instances(&self) -> u64 {
        let deletable = self
            .instances
            .keys()
            .filter(|o| self.check_delete_privilege(*o).is_ok());
        deletable.count() as u64
    }
}

fn encoded_interval(interval: Interval) -> [u8; 8] {
    match interval {
        Interval::Integer(v) => v.to_be_bytes(),
        Interval::Float(v) => v.to_be_bytes(),
    }
}
