//! HLA → DIS: discovered `PhysicalEntity` instances to Entity State PDUs (on each reflect,
//! and dead-reckoned at the heartbeat), WeaponFire and MunitionDetonation to Fire and
//! Detonation PDUs, deletions to a deactivated Entity State and a Remove Entity PDU.

use super::handles::Attr;
use super::state::HlaEntity;
use super::Gateway;
use crate::pdu::{Body, DeadReckoning, Detonation, EntityId, EntityState, Fire, Pdu, RemoveEntity};
use crate::rpr::{
    self, RprError, Spatial, APPEARANCE_DEACTIVATED, APPEARANCE_FIELDS, APPEARANCE_FROZEN,
};
use bytes_view::Parameters;
use std::time::Instant;
use thiserror::Error;
use trellis_core::federate::{Callback, ObjectId};
use trellis_core::fom::AttributeHandle;
use trellis_net::rti::RtiError;

/// Why a callback could not be passed on.
#[derive(Debug, Error)]
pub enum ValueError {
    #[error(transparent)]
    Rpr(#[from] RprError),
    #[error(transparent)]
    Rti(#[from] RtiError),
}

impl Gateway {
    pub(super) fn callback_to_dis(&mut self, callback: &Callback) -> Result<(), ValueError> {
        match callback {
            Callback::DiscoverObjectInstance { object, name, .. } => {
                if self.tables.hla_full() {
                    self.counts.table_full += 1;
                    return Ok(());
                }
                self.tables.add_hla(*object, name.to_string());
                let all = self.handles.attribute_handles();
                self.rti
                    .request_attribute_value_update(*object, &all, b"")?;
            }
            Callback::ReflectAttributeValues { object, values, .. } => {
                self.reflect(*object, values)?;
            }
            Callback::RemoveObjectInstance { object, .. } => self.hla_entity_removed(*object),
            Callback::ReceiveInteraction {
                class, parameters, ..
            } => {
                if *class == self.handles.fire.class {
                    self.fire_to_dis(&Parameters::new(&self.handles.fire, parameters))?;
                } else if *class == self.handles.detonation.class {
                    let view = Parameters::new(&self.handles.detonation, parameters);
                    self.detonation_to_dis(&view)?;
                }
            }
            Callback::ProvideAttributeValueUpdate { object, .. } => {
                self.provide_dis_entity(*object)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn reflect(
        &mut self,
        object: ObjectId,
        values: &[(AttributeHandle, bytes::Bytes)],
    ) -> Result<(), ValueError> {
        let Some(entity) = self.tables.hla.get_mut(&object) else {
            return Ok(());
        };
        let mut given_id = None;
        let mut first_error = None;
        for (handle, bytes) in values {
            let Some(attr) = self.handles.attr(*handle) else {
                continue;
            };
            match apply(entity, attr, bytes) {
                Ok(Some(id)) => given_id = Some(id),
                Ok(None) => {}
                Err(e) => first_error = first_error.or(Some(e)),
            }
        }
        if let Some(id) = given_id {
            self.tables.set_hla_id(object, id);
        }
        if self
            .tables
            .hla
            .get(&object)
            .is_some_and(|e| e.spatial.is_some())
        {
            self.send_hla_entity(object, Instant::now(), 0);
        }
        match first_error {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }

    /// Send `object`'s Entity State, its position dead-reckoned to `now`, with `extra`
    /// appearance bits. Nothing before its Spatial is known.
    pub(super) fn send_hla_entity(&mut self, object: ObjectId, now: Instant, extra: u32) {
        let Some(entity) = self.tables.hla.get(&object) else {
            return;
        };
        let Some((spatial, at)) = entity.spatial else {
            return;
        };
        let id = match entity.id {
            Some(id) => id,
            None => {
                let id = (self.tables).assign_id(self.config.site, self.config.application);
                self.tables.set_hla_id(object, id);
                id
            }
        };
        let Some(entity) = self.tables.hla.get_mut(&object) else {
            return;
        };
        let spatial = spatial.extrapolated(now.saturating_duration_since(at).as_secs_f64());
        let es = entity_state(entity, id, &spatial, extra);
        entity.last_sent = Some(now);
        let pdu = Pdu::new(
            self.config.exercise,
            self.timestamp(),
            Body::EntityState(es),
        );
        self.send(&pdu);
        self.counts.entity_state_out += 1;
    }

    fn hla_entity_removed(&mut self, object: ObjectId) {
        let sent = self
            .tables
            .hla
            .get(&object)
            .is_some_and(|e| e.last_sent.is_some());
        if sent {
            self.send_hla_entity(object, Instant::now(), APPEARANCE_DEACTIVATED);
        }
        let Some(entity) = self.tables.remove_hla(object) else {
            return;
        };
        if let (true, Some(id)) = (sent, entity.id) {
            let remove = RemoveEntity {
                originating: EntityId {
                    site: self.config.site,
                    application: self.config.application,
                    entity: 0,
                },
                receiving: id,
                request_id: 0,
            };
            let pdu = Pdu::new(
                self.config.exercise,
                self.timestamp(),
                Body::RemoveEntity(remove),
            );
            self.send(&pdu);
            self.counts.remove_out += 1;
        }
    }

    /// The DIS event id of an HLA event: the firing entity's site and application (the
    /// gateway's when unknown) and the event count.
    fn event_id(&self, firing: EntityId, count: u16) -> EntityId {
        let (site, application) = if firing == EntityId::default() {
            (self.config.site, self.config.application)
        } else {
            (firing.site, firing.application)
        };
        EntityId {
            site,
            application,
            entity: count,
        }
    }

    fn fire_to_dis(&mut self, p: &Parameters<'_>) -> Result<(), ValueError> {
        let (count, issuer) = p.event()?;
        if self.tables.sent_to_hla.contains(&(count, issuer)) {
            self.counts.echoes += 1;
            return Ok(());
        }
        let firing = self.tables.id_of(&p.object_id("FiringObjectIdentifier")?);
        let fire = Fire {
            firing,
            target: self.tables.id_of(&p.object_id("TargetObjectIdentifier")?),
            munition: self.tables.id_of(&p.object_id("MunitionObjectIdentifier")?),
            event: self.event_id(firing, count),
            fire_mission_index: p.u32("FireMissionIndex")?,
            location: p.location("FiringLocation")?,
            burst: p.burst()?,
            velocity: p.f32x3("InitialVelocityVector")?,
            range: p.f32("FireControlSolutionRange")?,
        };
        self.tables.sent_to_dis.insert(fire.event);
        let pdu = Pdu::new(self.config.exercise, self.timestamp(), Body::Fire(fire));
        self.send(&pdu);
        self.counts.fire_out += 1;
        Ok(())
    }

    fn detonation_to_dis(&mut self, p: &Parameters<'_>) -> Result<(), ValueError> {
        let (count, issuer) = p.event()?;
        if self.tables.sent_to_hla.contains(&(count, issuer)) {
            self.counts.echoes += 1;
            return Ok(());
        }
        let firing = self.tables.id_of(&p.object_id("FiringObjectIdentifier")?);
        let det = Detonation {
            firing,
            target: self.tables.id_of(&p.object_id("TargetObjectIdentifier")?),
            munition: self.tables.id_of(&p.object_id("MunitionObjectIdentifier")?),
            event: self.event_id(firing, count),
            velocity: p.f32x3("FinalVelocityVector")?,
            location: p.location("DetonationLocation")?,
            burst: p.burst()?,
            location_in_entity: p.f32x3("RelativeDetonationLocation")?,
            result: p.u8("DetonationResultCode")?,
            variable_parameters: Vec::new(),
        };
        self.tables.sent_to_dis.insert(det.event);
        let pdu = Pdu::new(
            self.config.exercise,
            self.timestamp(),
            Body::Detonation(det),
        );
        self.send(&pdu);
        self.counts.detonation_out += 1;
        Ok(())
    }
}

/// Take one attribute's value into `entity`; the entity id when it is EntityIdentifier.
fn apply(entity: &mut HlaEntity, attr: Attr, bytes: &[u8]) -> Result<Option<EntityId>, RprError> {
    match attr {
        Attr::EntityType => entity.entity_type = rpr::decode_entity_type(bytes)?,
        Attr::EntityIdentifier => return Ok(Some(rpr::decode_entity_id(bytes)?)),
        Attr::Spatial => entity.spatial = Some((Spatial::decode(bytes)?, Instant::now())),
        Attr::AlternateEntityType => entity.alternative_type = rpr::decode_entity_type(bytes)?,
        Attr::Marking => entity.marking = rpr::decode_marking(bytes)?,
        Attr::ForceIdentifier => entity.force = rpr::decode_u8("ForceIdentifierEnum8", bytes)?,
        Attr::Appearance(index) => {
            let (_, low, width) = APPEARANCE_FIELDS[index];
            entity.appearance = rpr::apply_appearance_field(entity.appearance, low, width, bytes)?;
        }
    }
    Ok(None)
}

fn entity_state(entity: &HlaEntity, id: EntityId, spatial: &Spatial, extra: u32) -> EntityState {
    let mut appearance = entity.appearance | extra;
    if spatial.frozen {
        appearance |= APPEARANCE_FROZEN;
    }
    EntityState {
        id,
        force: entity.force,
        entity_type: entity.entity_type,
        alternative_type: entity.alternative_type,
        velocity: spatial.velocity,
        location: spatial.location,
        orientation: spatial.orientation,
        appearance,
        dead_reckoning: DeadReckoning {
            algorithm: spatial.algorithm,
            other: [0; 15],
            acceleration: spatial.acceleration,
            angular_velocity: spatial.angular_velocity,
        },
        marking: entity.marking,
        capabilities: 0,
        variable_parameters: Vec::new(),
    }
}

/// An interaction's parameters by name; a parameter that is missing reads as zero (or
/// empty), one that is present but malformed is an error.
mod bytes_view {
    use super::super::handles::InteractionHandles;
    use crate::pdu::Burst;
    use crate::rpr::{self, RprError};
    use trellis_core::fom::ParameterHandle;

    pub struct Parameters<'a> {
        values: Vec<(&'static str, &'a [u8])>,
    }

    impl<'a> Parameters<'a> {
        pub fn new(
            handles: &InteractionHandles,
            parameters: &'a [(ParameterHandle, bytes::Bytes)],
        ) -> Parameters<'a> {
            let values = (parameters.iter())
                .filter_map(|(h, v)| Some((handles.name_of(*h)?, v.as_ref())))
                .collect();
            Parameters { values }
        }

        fn get(&self, name: &str) -> Option<&'a [u8]> {
            self.values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| *v)
        }

        pub fn event(&self) -> Result<(u16, String), RprError> {
            match self.get("EventIdentifier") {
                Some(bytes) => rpr::decode_event_id(bytes),
                None => Ok((0, String::new())),
            }
        }

        pub fn object_id(&self, name: &str) -> Result<String, RprError> {
            self.get(name)
                .map_or(Ok(String::new()), rpr::decode_object_id)
        }

        pub fn location(&self, name: &'static str) -> Result<[f64; 3], RprError> {
            self.get(name).map_or(Ok([0.0; 3]), rpr::decode_location)
        }

        pub fn f32x3(&self, name: &'static str) -> Result<[f32; 3], RprError> {
            (self.get(name)).map_or(Ok([0.0; 3]), |b| rpr::decode_f32x3(name, b))
        }

        pub fn f32(&self, name: &'static str) -> Result<f32, RprError> {
            (self.get(name)).map_or(Ok(0.0), |b| rpr::decode_f32(name, b))
        }

        pub fn u32(&self, name: &'static str) -> Result<u32, RprError> {
            (self.get(name)).map_or(Ok(0), |b| rpr::decode_u32(name, b))
        }

        pub fn u16(&self, name: &'static str) -> Result<u16, RprError> {
            (self.get(name)).map_or(Ok(0), |b| rpr::decode_u16(name, b))
        }

        pub fn u8(&self, name: &'static str) -> Result<u8, RprError> {
            (self.get(name)).map_or(Ok(0), |b| rpr::decode_u8(name, b))
        }

        pub fn burst(&self) -> Result<Burst, RprError> {
            let munition = match self.get("MunitionType") {
                Some(bytes) => rpr::decode_entity_type(bytes)?,
                None => Default::default(),
            };
            Ok(Burst {
                munition,
                warhead: self.u16("WarheadType")?,
                fuse: self.u16("FuseType")?,
                quantity: self.u16("QuantityFired")?,
                rate: self.u16("RateOfFire")?,
            })
        }
    }
}
