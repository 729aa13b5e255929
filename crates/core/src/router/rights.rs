//! Class rights on the wire (`crate::policy::classes`): where a federate's link enters the
//! network, its interest keeps only the classes it may subscribe to and its data only the
//! classes it may publish, so refused data never leaves its origin and a refused
//! subscription never receives a frame. Links of routers were checked at their own first
//! router; the local application is this process. A certified federate's link never
//! brings a registry event, policy or not.

use super::event::Event;
use super::index::Slot;
use super::link::FedIndex;
use super::{IdentityRole, Router};
use crate::interest::BROADCAST_IDS;
use crate::policy::WireRights;
use crate::registry::FEDERATION_CONTROL_ID;
use crate::time::Time;
use crate::wire::DataFrame;
use roaring::RoaringBitmap;
use std::sync::Arc;

impl Router {
    /// The rights of the link on `slot` in `fed`, if its class rights are limited: worked
    /// out at its first interest or data frame there, then kept for the link's life.
    fn wire_rights(&mut self, slot: Slot, fed: FedIndex) -> Option<Arc<WireRights>> {
        let policy = self.config.policy.as_ref().filter(|p| p.limits_classes())?;
        let link = self.link(slot);
        if link.is_app() || link.is_from_router() {
            return None;
        }
        if let Some((_, rights)) = link.rights.iter().find(|(f, _)| *f == fed) {
            return rights.clone();
        }
        let asker = link.identity.as_ref().map(|i| i.name.as_str());
        let federation = self.fed(fed).name.as_deref().unwrap_or_default();
        let rights = policy.wire_rights(asker, federation).map(|mut rights| {
            // Time management travels on broadcast ids; the registry's events only ever
            // come from the registry's router.
            rights.may_send.insert_range(BROADCAST_IDS);
            rights.may_send.remove(FEDERATION_CONTROL_ID);
            Arc::new(rights)
        });
        self.link_mut(slot).rights.push((fed, rights.clone()));
        rights
    }

    /// Keep of `ids`, which the link on `slot` declares in `fed`, what it may declare;
    /// the rest is counted and told (`Event::ClassRefused`).
    pub(super) fn keep_permitted_interest(
        &mut self,
        slot: Slot,
        fed: FedIndex,
        ids: &mut RoaringBitmap,
    ) {
        let Some(rights) = self.wire_rights(slot, fed) else {
            return;
        };
        let refused = ids.len() - ids.intersection_len(&rights.may_declare);
        if refused == 0 {
            return;
        }
        *ids &= &rights.may_declare;
        self.stats.declarations_refused += 1;
        let link = self.link(slot).id;
        self.events.push_back(Event::ClassRefused {
            link,
            why: format!(
                "{refused} interest ids of classes it may not subscribe to left out: {}",
                rights.summary
            ),
        });
    }

    /// Whether the data frame that arrived on `slot` in `fed` carries an id of a class the
    /// link may not publish, or is a registry event from a certified federate (they come
    /// from the registry's router alone: a forged one could tell members that others
    /// resigned): then it goes no further (counted and told), though a reliable one still
    /// counts as received for the link's session.
    pub(super) fn refuse_data(
        &mut self,
        now: Time,
        slot: Slot,
        fed: FedIndex,
        frame: &DataFrame,
    ) -> bool {
        let federate = self.link(slot).identity.as_ref().map(|i| i.role);
        let why = if federate == Some(IdentityRole::Federate)
            && frame.ids().any(|id| id == FEDERATION_CONTROL_ID)
        {
            "a registry event from a federate's link, dropped: only the registry's router \
             sends them"
                .to_owned()
        } else {
            let Some(rights) = self.wire_rights(slot, fed) else {
                return false;
            };
            let Some(id) = frame.ids().find(|id| !rights.may_send.contains(*id)) else {
                return false;
            };
            format!(
                "data on id {id:#x}, of a class it may not publish, dropped: {}",
                rights.summary
            )
        };
        self.stats.drops.not_permitted += 1;
        let link = self.link(slot).id;
        self.events.push_back(Event::ClassRefused { link, why });
        if frame.class() == crate::wire::TransportClass::Reliable {
            self.received_reliable(now, slot);
        }
        true
    }
}
