//! One instance this federate registered or discovered, in one small hash-map entry.
//!
//! An update must reach the class, the name and whether this federate owns each attribute
//! it sends: all three sit in the entry. Most instances never see an ownership exchange,
//! so the registrar's tokens are a bit mask over the positions of the class's instance
//! attributes ([`Federate::instance_attributes`], sorted), and the maps of a negotiation
//! (tokens with their queues, keepers, forwards, acquisitions) are allocated only when
//! one happens. Either form answers every question the same way: turning the mask into
//! maps ([`Instance::exchange`]) writes down exactly what the mask implied.

use super::{Acquiring, Keeper, Token};
use crate::federate::ObjectId;
use crate::fom::{AttributeHandle, ObjectClassHandle};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Instance attributes a mask covers; a class with more starts with maps.
const MASK_BITS: usize = 64;

/// The state of a negotiation, as maps.
#[derive(Clone, Default)]
pub(in crate::federate) struct Exchange {
    /// Announced keepers; an attribute not here is kept, owned, by the registrar.
    pub(super) keepers: BTreeMap<AttributeHandle, Keeper>,
    pub(super) tokens: BTreeMap<AttributeHandle, Token>,
    /// Where this federate last sent a token: requests that arrive late follow it.
    pub(super) forwarded: BTreeMap<AttributeHandle, u32>,
    pub(super) acquiring: BTreeMap<AttributeHandle, Acquiring>,
}

impl Exchange {
    /// The registrar's maps: every token here at generation 0, owned where `owns` says.
    fn registered(
        object: ObjectId,
        attributes: &[AttributeHandle],
        owns: impl Fn(usize) -> bool,
    ) -> Exchange {
        let mut exchange = Exchange::default();
        for (position, &a) in attributes.iter().enumerate() {
            let owned = owns(position);
            let keeper = Keeper {
                federate: object.federate(),
                owned,
                generation: 0,
            };
            exchange.keepers.insert(a, keeper);
            let token = Token {
                owned,
                ..Token::default()
            };
            exchange.tokens.insert(a, token);
        }
        exchange
    }

    pub(super) fn keeper(&self, object: ObjectId, attribute: AttributeHandle) -> Keeper {
        self.keepers
            .get(&attribute)
            .copied()
            .unwrap_or(Keeper::registrar(object))
    }

    /// Note an announcement unless a newer one was heard already.
    pub(super) fn announce(
        &mut self,
        object: ObjectId,
        attribute: AttributeHandle,
        keeper: Keeper,
    ) {
        let known = self.keeper(object, attribute);
        if keeper.generation > known.generation || !self.keepers.contains_key(&attribute) {
            self.keepers.insert(attribute, keeper);
        }
    }
}

impl Keeper {
    /// The keeper of an attribute no one has announced: the registrar, owning it.
    fn registrar(object: ObjectId) -> Keeper {
        Keeper {
            federate: object.federate(),
            owned: true,
            generation: 0,
        }
    }
}

/// Which tokens of an instance this federate holds.
#[derive(Clone)]
enum Held {
    /// Registered here, no exchange since: the token of every instance attribute is here
    /// at generation 0 and announced as kept here; owned where its position's bit is set.
    Registered(u64),
    /// Discovered, no exchange since: no token here, every keeper the registrar, owning.
    Discovered,
    Exchanged(Box<Exchange>),
}

#[derive(Clone)]
pub(in crate::federate) struct Instance {
    /// The class it was registered as (the messages' class).
    pub(in crate::federate) class: ObjectClassHandle,
    /// The class it was discovered as: set while it is among the known objects.
    pub(in crate::federate) known: Option<ObjectClassHandle>,
    /// Among the owned objects: this federate holds one of its tokens (kept in step by
    /// `Federate::sync_owned`).
    pub(in crate::federate) kept: bool,
    /// Shared with the names in use, so a registered name is stored once. `None`: the
    /// default name of its id (`InstanceName::Default`), not stored, and sent as a mark; most
    /// instances have it, and a viewer that knows a million instances kept a million
    /// copies.
    pub(in crate::federate) name: Option<Arc<str>>,
    held: Held,
}

fn position(attributes: &[AttributeHandle], attribute: AttributeHandle) -> Option<usize> {
    attributes.binary_search(&attribute).ok()
}

impl Instance {
    /// Registered here: `attributes` are the class's instance attributes, and `owns` says
    /// which of them this federate owns.
    pub(in crate::federate) fn registered(
        object: ObjectId,
        class: ObjectClassHandle,
        name: Option<Arc<str>>,
        attributes: &[AttributeHandle],
        owns: impl Fn(AttributeHandle) -> bool,
    ) -> Instance {
        let held = if attributes.len() <= MASK_BITS {
            let mask = (attributes.iter().enumerate())
                .filter(|(_, a)| owns(**a))
                .fold(0u64, |mask, (p, _)| mask | 1 << p);
            Held::Registered(mask)
        } else {
            let exchange = Exchange::registered(object, attributes, |p| owns(attributes[p]));
            Held::Exchanged(Box::new(exchange))
        };
        let instance = Instance {
            class,
            known: None,
            kept: true,
            name,
            held,
        };
        instance.check(attributes);
        instance
    }

    /// Discovered here under `name` (`None`: its id's default name).
    pub(in crate::federate) fn discovered(
        class: ObjectClassHandle,
        name: Option<Arc<str>>,
    ) -> Instance {
        Instance {
            class,
            known: None,
            kept: false,
            name,
            held: Held::Discovered,
        }
    }

    /// The invariants of the compact forms, against the class's instance attributes.
    fn check(&self, attributes: &[AttributeHandle]) {
        if let Held::Registered(mask) = self.held {
            debug_assert!(
                attributes.len() <= MASK_BITS,
                "a mask covers every position"
            );
            debug_assert!(
                attributes.len() == MASK_BITS || mask >> attributes.len() == 0,
                "no bit past the last position"
            );
        }
        debug_assert!(
            self.kept == self.holds_any() || matches!(self.held, Held::Exchanged(_)),
            "compact forms are kept exactly when registered here"
        );
    }

    /// The maps, written down from the compact form the first time they are needed.
    pub(super) fn exchange(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> &mut Exchange {
        self.check(attributes);
        let maps = match self.held {
            Held::Registered(mask) => {
                Exchange::registered(object, attributes, |p| mask & 1 << p != 0)
            }
            Held::Discovered => Exchange::default(),
            Held::Exchanged(ref mut exchange) => return exchange,
        };
        self.held = Held::Exchanged(Box::new(maps));
        match self.held {
            Held::Exchanged(ref mut exchange) => exchange,
            _ => unreachable!("just written"),
        }
    }

    /// Whether this federate holds the token of `attribute`, and if so whether it owns it.
    pub(super) fn token(
        &self,
        attributes: &[AttributeHandle],
        attribute: AttributeHandle,
    ) -> Option<bool> {
        match &self.held {
            Held::Registered(mask) => position(attributes, attribute).map(|p| mask & 1 << p != 0),
            Held::Discovered => None,
            Held::Exchanged(e) => e.tokens.get(&attribute).map(|t| t.owned),
        }
    }

    pub(in crate::federate) fn owns(
        &self,
        attributes: &[AttributeHandle],
        attribute: AttributeHandle,
    ) -> bool {
        self.token(attributes, attribute) == Some(true)
    }

    /// The tokens held here, in attribute order, each with whether it is owned.
    pub(super) fn tokens(&self, attributes: &[AttributeHandle]) -> Vec<(AttributeHandle, bool)> {
        match &self.held {
            Held::Registered(mask) => (attributes.iter().enumerate())
                .map(|(p, a)| (*a, mask & 1 << p != 0))
                .collect(),
            Held::Discovered => Vec::new(),
            Held::Exchanged(e) => e.tokens.iter().map(|(a, t)| (*a, t.owned)).collect(),
        }
    }

    pub(super) fn holds_any(&self) -> bool {
        match &self.held {
            Held::Registered(_) => true,
            Held::Discovered => false,
            Held::Exchanged(e) => !e.tokens.is_empty(),
        }
    }

    pub(super) fn keeper(
        &self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        attribute: AttributeHandle,
    ) -> Keeper {
        match &self.held {
            Held::Registered(_) => match self.token(attributes, attribute) {
                Some(owned) => Keeper {
                    owned,
                    ..Keeper::registrar(object)
                },
                None => Keeper::registrar(object),
            },
            Held::Discovered => Keeper::registrar(object),
            Held::Exchanged(e) => e.keeper(object, attribute),
        }
    }

    /// This federate's pending acquisitions (none before an exchange).
    pub(super) fn acquiring(&self) -> Option<&BTreeMap<AttributeHandle, Acquiring>> {
        match &self.held {
            Held::Exchanged(e) => Some(&e.acquiring),
            _ => None,
        }
    }
}

/// How many instances are among the owned objects and the known objects, kept as the
/// entries change so the counts cost no walk.
#[derive(Clone, Default)]
pub(in crate::federate) struct Counts {
    pub(in crate::federate) owned: usize,
    pub(in crate::federate) known: usize,
}

impl Counts {
    /// `instance` left the map.
    pub(in crate::federate) fn forget(&mut self, instance: &Instance) {
        self.owned -= usize::from(instance.kept);
        self.known -= usize::from(instance.known.is_some());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What an instance answers about every attribute of `attributes`, and one beyond.
    fn answers(
        instance: &Instance,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Vec<(Option<bool>, Keeper)> {
        let stranger = AttributeHandle(1000);
        (attributes.iter().chain([&stranger]))
            .map(|&a| {
                let keeper = instance.keeper(object, attributes, a);
                (instance.token(attributes, a), keeper)
            })
            .collect()
    }

    /// The maps written down at the first exchange answer exactly as the mask did.
    #[test]
    fn the_maps_answer_as_the_mask_did() {
        let object = ObjectId::new(3, 7);
        let attributes = [2, 5, 9, u32::MAX].map(AttributeHandle);
        let owns = |a: AttributeHandle| a.0 != 5;
        let mut instance = Instance::registered(
            object,
            ObjectClassHandle(1),
            Some("car".into()),
            &attributes,
            owns,
        );
        assert!(matches!(instance.held, Held::Registered(0b1101)));
        let compact = answers(&instance, object, &attributes);
        let tokens = instance.tokens(&attributes);
        instance.exchange(object, &attributes);
        assert!(matches!(instance.held, Held::Exchanged(_)));
        assert_eq!(answers(&instance, object, &attributes), compact);
        assert_eq!(instance.tokens(&attributes), tokens);
        assert_eq!(
            compact[1],
            (
                Some(false),
                Keeper {
                    owned: false,
                    ..Keeper::registrar(object)
                }
            )
        );
        assert_eq!(compact[4], (None, Keeper::registrar(object)));
    }

    /// A discovered instance holds nothing, and its maps start empty.
    #[test]
    fn a_discovered_instance_holds_nothing() {
        let object = ObjectId::new(3, 7);
        let attributes = [2, 5].map(AttributeHandle);
        let mut instance = Instance::discovered(ObjectClassHandle(1), Some("car".into()));
        let compact = answers(&instance, object, &attributes);
        assert!(compact
            .iter()
            .all(|a| *a == (None, Keeper::registrar(object))));
        assert!(!instance.holds_any() && instance.acquiring().is_none());
        instance.exchange(object, &attributes);
        assert_eq!(answers(&instance, object, &attributes), compact);
        assert!(!instance.holds_any());
    }

    /// A class past the mask's width starts with maps, owning what it was told to.
    #[test]
    fn a_wide_class_starts_with_maps() {
        let object = ObjectId::new(3, 7);
        let attributes: Vec<AttributeHandle> = (0..70).map(AttributeHandle).collect();
        let owns = |a: AttributeHandle| a.0 % 2 == 0;
        let instance = Instance::registered(
            object,
            ObjectClassHandle(1),
            Some("car".into()),
            &attributes,
            owns,
        );
        assert!(matches!(instance.held, Held::Exchanged(_)));
        assert!(instance.owns(&attributes, AttributeHandle(68)));
        assert!(!instance.owns(&attributes, AttributeHandle(69)));
        assert_eq!(instance.tokens(&attributes).len(), 70);
    }
}
