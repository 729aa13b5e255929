//! DIS → HLA: Entity State to registered instances and their updates, Fire and
//! Detonation to interactions, Remove Entity and deactivation to deletions.

use super::handles::Attr;
use super::state::DisEntity;
use super::Gateway;
use crate::pdu::{Body, Detonation, EntityId, EntityState, Fire, Pdu};
use crate::rpr::{self, Spatial, APPEARANCE_DEACTIVATED, APPEARANCE_FIELDS, APPEARANCE_FROZEN};
use std::time::Instant;
use trellis_core::federate::{FederateError, ObjectId};
use trellis_net::rti::RtiError;

/// The tag of every update and interaction the gateway sends into HLA.
pub const TAG: &[u8] = b"DIS";

impl Gateway {
    pub(super) fn pdu_to_hla(&mut self, pdu: Pdu) -> Result<(), RtiError> {
        match pdu.body {
            Body::EntityState(es) => {
                self.counts.entity_state_in += 1;
                self.entity_state_to_hla(es)
            }
            Body::Fire(fire) => {
                self.counts.fire_in += 1;
                self.fire_to_hla(&fire)
            }
            Body::Detonation(det) => {
                self.counts.detonation_in += 1;
                self.detonation_to_hla(&det)
            }
            Body::RemoveEntity(remove) => {
                self.counts.remove_in += 1;
                self.delete_dis_entity(remove.receiving)
            }
        }
    }

    fn entity_state_to_hla(&mut self, es: EntityState) -> Result<(), RtiError> {
        if self.tables.is_hla_entity(es.id) {
            self.counts.echoes += 1;
            return Ok(());
        }
        if es.appearance & APPEARANCE_DEACTIVATED != 0 {
            return self.delete_dis_entity(es.id);
        }
        let full = self.tables.dis_full();
        let object = match self.tables.dis.get_mut(&es.id) {
            Some(known) => {
                known.last_heard = Instant::now();
                known.object
            }
            None if full => {
                self.counts.table_full += 1;
                self.bad_value_log
                    .warn(&format!("DIS entity {} left out: the table is full", es.id));
                return Ok(());
            }
            None => self.register_dis_entity(&es)?,
        };
        let values = entity_state_values(&es, &self.handles.attributes);
        self.rti.update_attribute_values(object, &values, TAG)?;
        if let Some(known) = self.tables.dis.get_mut(&es.id) {
            known.last = es;
        }
        Ok(())
    }

    fn register_dis_entity(&mut self, es: &EntityState) -> Result<ObjectId, RtiError> {
        let class_name = rpr::class_for(es.entity_type);
        // Every class class_for names was looked up at the start; PhysicalEntity if not.
        let class = (self.handles.classes.get(class_name))
            .or_else(|| self.handles.classes.get(rpr::ENTITY_CLASSES[0]))
            .copied()
            .ok_or_else(|| FederateError::ObjectClassNotPublished(class_name.to_owned()))?;
        let object = self.rti.register_object_instance(class)?;
        let name = self.rti.object_instance_name(object)?.to_string();
        self.tables.add_dis(
            es.id,
            DisEntity {
                object,
                name,
                last_heard: Instant::now(),
                last: es.clone(),
            },
        );
        Ok(object)
    }

    /// Answer a request for the values of an instance standing for a DIS entity.
    pub(super) fn provide_dis_entity(&mut self, object: ObjectId) -> Result<(), RtiError> {
        let Some(entity) = self.tables.dis_of_object(object) else {
            return Ok(());
        };
        let values = entity_state_values(&entity.last, &self.handles.attributes);
        self.rti.update_attribute_values(object, &values, TAG)
    }

    fn delete_dis_entity(&mut self, id: EntityId) -> Result<(), RtiError> {
        match self.tables.remove_dis(id) {
            Some(entity) => self.rti.delete_object_instance(entity.object, TAG),
            None => Ok(()),
        }
    }

    fn fire_to_hla(&mut self, fire: &Fire) -> Result<(), RtiError> {
        if self.tables.sent_to_dis.contains(&fire.event) {
            self.counts.echoes += 1;
            return Ok(());
        }
        let firing = self.tables.name_of(fire.firing);
        let values: Vec<(&str, Vec<u8>)> = vec![
            (
                "EventIdentifier",
                rpr::encode_event_id(fire.event.entity, &firing),
            ),
            (
                "FireControlSolutionRange",
                fire.range.to_be_bytes().to_vec(),
            ),
            (
                "FireMissionIndex",
                fire.fire_mission_index.to_be_bytes().to_vec(),
            ),
            ("FiringLocation", rpr::encode_location(fire.location)),
            ("FiringObjectIdentifier", rpr::encode_object_id(&firing)),
            ("FuseType", fire.burst.fuse.to_be_bytes().to_vec()),
            ("InitialVelocityVector", rpr::encode_f32x3(fire.velocity)),
            ("MunitionObjectIdentifier", self.object_id_of(fire.munition)),
            ("MunitionType", rpr::encode_entity_type(fire.burst.munition)),
            ("QuantityFired", fire.burst.quantity.to_be_bytes().to_vec()),
            ("RateOfFire", fire.burst.rate.to_be_bytes().to_vec()),
            ("TargetObjectIdentifier", self.object_id_of(fire.target)),
            ("WarheadType", fire.burst.warhead.to_be_bytes().to_vec()),
        ];
        self.tables.sent_to_hla.insert((fire.event.entity, firing));
        self.send_interaction(true, &values)
    }

    fn detonation_to_hla(&mut self, det: &Detonation) -> Result<(), RtiError> {
        if self.tables.sent_to_dis.contains(&det.event) {
            self.counts.echoes += 1;
            return Ok(());
        }
        let firing = self.tables.name_of(det.firing);
        let values: Vec<(&str, Vec<u8>)> = vec![
            ("DetonationLocation", rpr::encode_location(det.location)),
            ("DetonationResultCode", vec![det.result]),
            (
                "EventIdentifier",
                rpr::encode_event_id(det.event.entity, &firing),
            ),
            ("FiringObjectIdentifier", rpr::encode_object_id(&firing)),
            ("FinalVelocityVector", rpr::encode_f32x3(det.velocity)),
            ("FuseType", det.burst.fuse.to_be_bytes().to_vec()),
            ("MunitionObjectIdentifier", self.object_id_of(det.munition)),
            ("MunitionType", rpr::encode_entity_type(det.burst.munition)),
            ("QuantityFired", det.burst.quantity.to_be_bytes().to_vec()),
            ("RateOfFire", det.burst.rate.to_be_bytes().to_vec()),
            (
                "RelativeDetonationLocation",
                rpr::encode_f32x3(det.location_in_entity),
            ),
            ("TargetObjectIdentifier", self.object_id_of(det.target)),
            ("WarheadType", det.burst.warhead.to_be_bytes().to_vec()),
        ];
        self.tables.sent_to_hla.insert((det.event.entity, firing));
        self.send_interaction(false, &values)
    }

    fn object_id_of(&self, id: EntityId) -> Vec<u8> {
        rpr::encode_object_id(&self.tables.name_of(id))
    }

    fn send_interaction(&mut self, fire: bool, values: &[(&str, Vec<u8>)]) -> Result<(), RtiError> {
        let handles = if fire {
            &self.handles.fire
        } else {
            &self.handles.detonation
        };
        let parameters: Vec<_> = (values.iter())
            .filter_map(|(name, value)| Some((handles.parameter(name)?, value.as_slice())))
            .collect();
        let class = handles.class;
        self.rti.send_interaction(class, &parameters, TAG)
    }
}

/// Every mapped attribute's value from an Entity State PDU.
fn entity_state_values(
    es: &EntityState,
    attributes: &[(trellis_core::fom::AttributeHandle, Attr)],
) -> Vec<(trellis_core::fom::AttributeHandle, Vec<u8>)> {
    let spatial = Spatial {
        algorithm: es.dead_reckoning.algorithm,
        location: es.location,
        frozen: es.appearance & APPEARANCE_FROZEN != 0,
        orientation: es.orientation,
        velocity: es.velocity,
        acceleration: es.dead_reckoning.acceleration,
        angular_velocity: es.dead_reckoning.angular_velocity,
    };
    (attributes.iter())
        .map(|&(handle, attr)| {
            let value = match attr {
                Attr::EntityType => rpr::encode_entity_type(es.entity_type),
                Attr::EntityIdentifier => rpr::encode_entity_id(es.id),
                Attr::Spatial => spatial.encode(),
                Attr::AlternateEntityType => rpr::encode_entity_type(es.alternative_type),
                Attr::Marking => rpr::encode_marking(es.marking),
                Attr::ForceIdentifier => vec![es.force],
                Attr::Appearance(index) => {
                    let (_, low, width) = APPEARANCE_FIELDS[index];
                    rpr::encode_appearance_field(es.appearance, low, width)
                }
            };
            (handle, value)
        })
        .collect()
}
