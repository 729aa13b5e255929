//! Class rights: which object and interaction classes an identity may publish and
//! subscribe to in a federation.
//!
//! ```toml
//! # What the ids on the wire mean in these federations: the router reads this object
//! # model at start (paths relative to the policy file; the standard MIM comes first, as
//! # in every federation).
//! [[model]]
//! federations = ["Exercise*"]
//! modules = ["RPR_FOM_v2.0.xml"]
//!
//! [[allow]]
//! identities = ["tank-*"]
//! federations = ["Exercise*"]
//! actions = ["join"]
//! publish = ["BaseEntity.PhysicalEntity.*", "WeaponFire"]
//! subscribe = ["*"]
//! ```
//!
//! Class patterns match a class's name with or without its root (`HLAobjectRoot.`,
//! `HLAinteractionRoot.`); `*` crosses dots, so `BaseEntity.*` is every subclass of
//! BaseEntity but not BaseEntity itself. As with NATS permissions, an identity is
//! restricted in what it publishes only if a rule that applies to it (identity and
//! federation match) has a `publish` list, and then to the union of those lists; the same
//! for `subscribe`.
//!
//! The router enforces the rights on ids (`WireRights`): an interest declaration keeps
//! only ids of classes the link may subscribe to (and the request ids of those it may
//! publish), and a data frame with an id of a class it may not publish is dropped where it
//! entered the network. Update requests and ownership negotiation may go to any class's
//! request id: they ask, and what answers them is data the rules govern. The federate learns its rights at join (`Request::ClassRights`)
//! and refuses the calls itself, naming the rules.

use super::{matches, Asker, Policy, PolicyError, MAX_PATTERNS};
use crate::federate::layout::{interaction_slot_ids, object_slot_ids, REQUEST_CELL};
use crate::fom::ObjectModel;
use roaring::RoaringBitmap;
use serde::Deserialize;
use std::sync::Arc;

/// A `[[model]]` section: the object model of the federations its patterns name.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelRule {
    /// Federation-name patterns whose federations use this model.
    pub federations: Vec<String>,
    /// FOM module files, relative to the policy file.
    pub modules: Vec<String>,
    /// Routing-space bins per dimension the federates use (`NodeConfig`'s), which their
    /// model fingerprint includes. Default: the federates' default.
    #[serde(default = "default_bins")]
    pub bins: u32,
    /// The classes of the loaded model, set by the host that read the modules.
    #[serde(skip)]
    pub table: Option<Arc<ClassTable>>,
}

fn default_bins() -> u32 {
    crate::federate::DEFAULT_BINS
}

/// The classes of an object model in handle order: what an id's class slot means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassTable {
    /// Qualified object class names; index = class slot of an interest id.
    pub objects: Vec<String>,
    /// Qualified interaction class names; index = class slot of an interest id.
    pub interactions: Vec<String>,
    /// The fingerprint a federate's join carries when its model and bins are these.
    pub fingerprint: u64,
}

impl ClassTable {
    /// The table of `model` as federates using `bins` routing-space bins see it.
    pub fn of(model: &ObjectModel, bins: u32) -> ClassTable {
        ClassTable {
            objects: (model.object_classes().iter())
                .map(|c| c.qualified_name.clone())
                .collect(),
            interactions: (model.interaction_classes().iter())
                .map(|c| c.qualified_name.clone())
                .collect(),
            fingerprint: crate::federate::Federate::fingerprint(model, bins),
        }
    }
}

/// The class patterns one kind of right is limited to, and the rules that grant them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassGrant {
    /// Class patterns, qualified or without the `HLAobjectRoot.`/`HLAinteractionRoot.` prefix.
    pub patterns: Vec<String>,
    /// 1-based numbers of the `[[allow]]` rules the patterns come from.
    pub rules: Vec<usize>,
}

impl ClassGrant {
    /// Whether the class of qualified name `qualified` is granted.
    pub fn allows(&self, qualified: &str) -> bool {
        let short = ["HLAobjectRoot.", "HLAinteractionRoot."]
            .iter()
            .find_map(|root| qualified.strip_prefix(root));
        self.patterns
            .iter()
            .any(|p| matches(p, qualified) || short.is_some_and(|s| matches(p, s)))
    }

    fn add(&mut self, rule: usize, patterns: &[String]) {
        self.rules.push(rule);
        for pattern in patterns {
            if !self.patterns.contains(pattern) {
                self.patterns.push(pattern.clone());
            }
        }
    }
}

/// What an identity may publish and subscribe to in one federation: `None` is anything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassRights {
    /// Classes it may publish (IEEE 1516 publishObjectClassAttributes, publishInteractionClass);
    /// `None` is any.
    pub publish: Option<ClassGrant>,
    /// Classes it may subscribe to; `None` is any.
    pub subscribe: Option<ClassGrant>,
}

impl ClassRights {
    /// True when no rule limits its classes.
    pub fn is_unrestricted(&self) -> bool {
        self.publish.is_none() && self.subscribe.is_none()
    }
}

/// A restricted link's rights in one federation, as the ids it may put on the wire.
#[derive(Clone, Debug, PartialEq)]
pub struct WireRights {
    /// Interest it may declare: every id of classes it may subscribe to, and the request
    /// id of classes it may publish (where update requests for them reach it).
    pub may_declare: RoaringBitmap,
    /// Data it may send: every id of classes it may publish, and the request id of every
    /// class (update requests and ownership negotiation travel there: asking, never values).
    pub may_send: RoaringBitmap,
    /// For the log: what the rights are and which rules grant them.
    pub summary: String,
}

impl Policy {
    /// The rights `asker` has in `federation`: the union of what every rule that applies
    /// grants, per kind; a kind no applying rule limits is unrestricted.
    pub fn class_rights(&self, asker: Asker<'_>, federation: &str) -> ClassRights {
        let mut rights = ClassRights::default();
        for (index, rule) in self.allow.iter().enumerate() {
            if !rule.applies(asker, federation) {
                continue;
            }
            if let Some(patterns) = &rule.publish {
                rights
                    .publish
                    .get_or_insert_with(Default::default)
                    .add(index + 1, patterns);
            }
            if let Some(patterns) = &rule.subscribe {
                let grant = rights.subscribe.get_or_insert_with(Default::default);
                grant.add(index + 1, patterns);
            }
        }
        rights
    }

    /// Whether any rule limits classes: without one, nothing is checked per frame.
    pub fn limits_classes(&self) -> bool {
        self.limits_classes
    }

    /// The model the class rules of `federation` speak of, if a `[[model]]` names it.
    pub fn model_of(&self, federation: &str) -> Option<&ModelRule> {
        self.model
            .iter()
            .find(|m| m.federations.iter().any(|p| matches(p, federation)))
    }

    /// `asker`'s rights in `federation` as ids, or `None` when it is unrestricted. Without
    /// a loaded model for the federation nothing can be told apart, so a restricted link
    /// may declare and send nothing.
    pub fn wire_rights(&self, asker: Asker<'_>, federation: &str) -> Option<WireRights> {
        let rights = self.class_rights(asker, federation);
        if rights.is_unrestricted() {
            return None;
        }
        let who = match asker {
            Some(name) => format!("{name:?}"),
            None => "a peer without a certificate".into(),
        };
        let mut wire = WireRights {
            may_declare: RoaringBitmap::new(),
            may_send: RoaringBitmap::new(),
            summary: format!(
                "{who} in federation {federation:?} may {}",
                describe(&rights)
            ),
        };
        let Some(table) = self.model_of(federation).and_then(|m| m.table.as_ref()) else {
            wire.summary.push_str(
                ", but no [[model]] of the policy names this federation's object model, so \
                 the router cannot tell its classes apart and refuses them all",
            );
            return Some(wire);
        };
        let grants =
            |grant: &Option<ClassGrant>, name: &str| grant.as_ref().is_none_or(|g| g.allows(name));
        let slots = (table.objects.iter().enumerate())
            .map(|(i, name)| (object_slot_ids(i as u32), name))
            .chain(
                (table.interactions.iter().enumerate())
                    .map(|(i, name)| (interaction_slot_ids(i as u32), name)),
            );
        for (ids, name) in slots {
            let request = ids.start() | REQUEST_CELL;
            wire.may_send.insert(request);
            if grants(&rights.subscribe, name) {
                wire.may_declare.insert_range(ids.clone());
            }
            if grants(&rights.publish, name) {
                wire.may_send.insert_range(ids);
                wire.may_declare.insert(request);
            }
        }
        Some(wire)
    }

    pub(super) fn check_models(&self) -> Result<(), PolicyError> {
        for (index, model) in self.model.iter().enumerate() {
            let rule = index + 1;
            for (field, len) in [
                ("federations", model.federations.len()),
                ("modules", model.modules.len()),
            ] {
                if len == 0 {
                    return Err(PolicyError::EmptyModel { rule, field });
                }
                if len > MAX_PATTERNS {
                    return Err(PolicyError::TooMany {
                        what: format!("model {rule}: {len} {field}"),
                        limit: MAX_PATTERNS,
                    });
                }
            }
        }
        Ok(())
    }
}

/// "publish X, Y (rule 2) and subscribe to anything".
pub fn describe(rights: &ClassRights) -> String {
    let one = |grant: &Option<ClassGrant>| match grant {
        None => "anything".to_owned(),
        Some(g) if g.patterns.is_empty() => "nothing".to_owned(),
        Some(g) => {
            let rules: Vec<String> = g.rules.iter().map(usize::to_string).collect();
            format!("only {} (rule {})", g.patterns.join(", "), rules.join(", "))
        }
    };
    format!(
        "publish {} and subscribe to {}",
        one(&rights.publish),
        one(&rights.subscribe)
    )
}
