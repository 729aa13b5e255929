//! The gateway's tables, each bounded: DIS entities it registered in HLA, HLA entities it
//! sends to DIS, and the recent events it sent either way (to drop their echoes).

use crate::pdu::{EntityId, EntityState, EntityType, Marking};
use crate::rpr::Spatial;
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};
use trellis_core::federate::ObjectId;

/// A DIS entity the gateway registered in HLA.
pub struct DisEntity {
    pub object: ObjectId,
    pub name: String,
    pub last_heard: Instant,
    /// The last Entity State, to answer requests for attribute values.
    pub last: EntityState,
}

/// An HLA instance the gateway discovered, and what it knows of it.
#[derive(Default)]
pub struct HlaEntity {
    pub name: String,
    /// From EntityIdentifier, or assigned by the gateway when the first PDU is due.
    pub id: Option<EntityId>,
    pub entity_type: EntityType,
    pub alternative_type: EntityType,
    /// The last Spatial and when it came (dead reckoning starts there).
    pub spatial: Option<(Spatial, Instant)>,
    pub marking: Marking,
    pub force: u8,
    pub appearance: u32,
    pub last_sent: Option<Instant>,
}

/// The most events remembered per direction to recognise echoes.
const RECENT_EVENTS: usize = 4096;

/// A bounded set of recent keys: the oldest leaves when it is full.
pub struct RecentSet<K> {
    order: VecDeque<K>,
    members: HashSet<K>,
}

impl<K: std::hash::Hash + Eq + Clone> RecentSet<K> {
    fn new() -> RecentSet<K> {
        RecentSet {
            order: VecDeque::new(),
            members: HashSet::new(),
        }
    }

    pub fn insert(&mut self, key: K) {
        if self.members.insert(key.clone()) {
            self.order.push_back(key);
            if self.order.len() > RECENT_EVENTS {
                if let Some(oldest) = self.order.pop_front() {
                    self.members.remove(&oldest);
                }
            }
        }
    }

    pub fn contains(&self, key: &K) -> bool {
        self.members.contains(key)
    }
}

pub struct Tables {
    max_entities: usize,
    pub dis: HashMap<EntityId, DisEntity>,
    dis_by_object: HashMap<ObjectId, EntityId>,
    dis_by_name: HashMap<String, EntityId>,
    pub hla: HashMap<ObjectId, HlaEntity>,
    hla_by_id: HashMap<EntityId, ObjectId>,
    hla_by_name: HashMap<String, ObjectId>,
    /// Events (site, application, number) the gateway sent to DIS.
    pub sent_to_dis: RecentSet<EntityId>,
    /// Events (count, issuer) the gateway sent into HLA.
    pub sent_to_hla: RecentSet<(u16, String)>,
    /// Entity numbers for HLA entities without an EntityIdentifier.
    next_entity_number: u16,
}

impl Tables {
    pub fn new(max_entities: usize) -> Tables {
        Tables {
            max_entities,
            dis: HashMap::new(),
            dis_by_object: HashMap::new(),
            dis_by_name: HashMap::new(),
            hla: HashMap::new(),
            hla_by_id: HashMap::new(),
            hla_by_name: HashMap::new(),
            sent_to_dis: RecentSet::new(),
            sent_to_hla: RecentSet::new(),
            next_entity_number: 1,
        }
    }

    pub fn dis_len(&self) -> usize {
        self.dis.len()
    }

    pub fn hla_len(&self) -> usize {
        self.hla.len()
    }

    pub fn dis_full(&self) -> bool {
        self.dis.len() >= self.max_entities
    }

    pub fn hla_full(&self) -> bool {
        self.hla.len() >= self.max_entities
    }

    pub fn add_dis(&mut self, id: EntityId, entity: DisEntity) {
        self.dis_by_object.insert(entity.object, id);
        self.dis_by_name.insert(entity.name.clone(), id);
        self.dis.insert(id, entity);
    }

    pub fn remove_dis(&mut self, id: EntityId) -> Option<DisEntity> {
        let entity = self.dis.remove(&id)?;
        self.dis_by_object.remove(&entity.object);
        self.dis_by_name.remove(&entity.name);
        Some(entity)
    }

    pub fn dis_of_object(&self, object: ObjectId) -> Option<&DisEntity> {
        self.dis.get(self.dis_by_object.get(&object)?)
    }

    pub fn add_hla(&mut self, object: ObjectId, name: String) {
        self.hla_by_name.insert(name.clone(), object);
        self.hla.insert(
            object,
            HlaEntity {
                name,
                ..HlaEntity::default()
            },
        );
    }

    pub fn remove_hla(&mut self, object: ObjectId) -> Option<HlaEntity> {
        let entity = self.hla.remove(&object)?;
        self.hla_by_name.remove(&entity.name);
        if let Some(id) = entity.id {
            self.hla_by_id.remove(&id);
        }
        Some(entity)
    }

    /// Record `object`'s entity id (from its EntityIdentifier, or assigned).
    pub fn set_hla_id(&mut self, object: ObjectId, id: EntityId) {
        if let Some(entity) = self.hla.get_mut(&object) {
            if let Some(old) = entity.id.replace(id) {
                self.hla_by_id.remove(&old);
            }
            self.hla_by_id.insert(id, object);
        }
    }

    /// An entity id for an HLA entity that gave none: the gateway's site and application
    /// and the next number not in use.
    pub fn assign_id(&mut self, site: u16, application: u16) -> EntityId {
        loop {
            let id = EntityId {
                site,
                application,
                entity: self.next_entity_number,
            };
            self.next_entity_number = self.next_entity_number.wrapping_add(1).max(1);
            if !self.hla_by_id.contains_key(&id) && !self.dis.contains_key(&id) {
                return id;
            }
        }
    }

    pub fn is_hla_entity(&self, id: EntityId) -> bool {
        self.hla_by_id.contains_key(&id)
    }

    /// The RTIobjectId of a DIS entity id: the name of the instance that stands for it on
    /// the HLA side; empty when there is none.
    pub fn name_of(&self, id: EntityId) -> String {
        if let Some(entity) = self.dis.get(&id) {
            return entity.name.clone();
        }
        (self.hla_by_id.get(&id))
            .and_then(|object| self.hla.get(object))
            .map(|entity| entity.name.clone())
            .unwrap_or_default()
    }

    /// The DIS entity id of an RTIobjectId; 0:0:0 when unknown.
    pub fn id_of(&self, name: &str) -> EntityId {
        if let Some(id) = self.dis_by_name.get(name) {
            return *id;
        }
        (self.hla_by_name.get(name))
            .and_then(|object| self.hla.get(object))
            .and_then(|entity| entity.id)
            .unwrap_or_default()
    }

    /// DIS entities unheard for `timeout`, taken out of the table: their instances.
    pub fn timed_out(&mut self, now: Instant, timeout: Duration) -> Vec<ObjectId> {
        let stale: Vec<EntityId> = (self.dis.iter())
            .filter(|(_, e)| now.duration_since(e.last_heard) >= timeout)
            .map(|(id, _)| *id)
            .collect();
        (stale.into_iter())
            .filter_map(|id| self.remove_dis(id))
            .map(|e| e.object)
            .collect()
    }

    /// HLA entities sent before and silent for `heartbeat`.
    pub fn heartbeats_due(&self, now: Instant, heartbeat: Duration) -> Vec<ObjectId> {
        (self.hla.iter())
            .filter(|(_, e)| {
                e.last_sent
                    .is_some_and(|t| now.duration_since(t) >= heartbeat)
            })
            .map(|(object, _)| *object)
            .collect()
    }
}

/// A warning at most once a second, with the number held back since the last.
#[derive(Default)]
pub struct RateLimitedLog {
    last: Option<Instant>,
    held_back: u64,
}

impl RateLimitedLog {
    pub fn warn(&mut self, message: &str) {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|t| now.duration_since(t) < Duration::from_secs(1))
        {
            self.held_back += 1;
            return;
        }
        if self.held_back > 0 {
            tracing::warn!(
                "{message} (and {} more since the last warning)",
                self.held_back
            );
        } else {
            tracing::warn!("{message}");
        }
        self.last = Some(now);
        self.held_back = 0;
    }
}
