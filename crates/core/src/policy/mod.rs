//! Who may do what to which federation: a policy file read by the router a federate
//! reaches first, so a refused request never leaves its origin.
//!
//! ```toml
//! # Certificate names (common names) and federation names are patterns: `*` is any run of
//! # characters, `?` any one. Anything no rule allows is refused.
//! [[allow]]
//! identities = ["tank-*", "ops"]
//! federations = ["Exercise*"]
//! actions = ["create", "join", "destroy"]
//!
//! [[allow]]
//! identities = ["ops"]
//! federations = ["Exercise*"]
//! actions = ["manage"]          # the MOM's HLAservice: resign another federate
//!
//! [[allow]]
//! identities = ["*"]            # "*" includes links without a certificate
//! federations = ["Sandbox"]
//! actions = ["join"]
//! ```
//!
//! With no policy every request is allowed, as before; with one, the rules are the whole
//! truth. Rules may also limit the classes an identity publishes and subscribes to
//! (`publish`, `subscribe`, and the `[[model]]` they speak of: see `classes`).

mod classes;
mod pattern;

pub use classes::{describe, ClassGrant, ClassRights, ClassTable, ModelRule, WireRights};

use serde::Deserialize;
use std::fmt;
use thiserror::Error;

pub use pattern::matches;

/// Most `[[allow]]` rules a policy holds.
pub const MAX_RULES: usize = 4096;
/// Most patterns in one rule's list (identities, federations, publish, subscribe) or one model's
/// list.
pub const MAX_PATTERNS: usize = 1024;

/// What a federate asks of the registry that the policy rules on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Create a federation execution (IEEE 1516.1 createFederationExecution).
    Create,
    /// Join a federation execution (joinFederationExecution).
    Join,
    /// Destroy a federation execution (destroyFederationExecution).
    Destroy,
    /// The MOM's HLAservice interactions that act on another federate (resigning it).
    Manage,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Action::Create => "create",
            Action::Join => "join",
            Action::Destroy => "destroy",
            Action::Manage => "manage",
        })
    }
}

/// One `[[allow]]` section: who may do which actions in which federations, and which classes.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Certificate common-name patterns; `*` also matches links without a certificate.
    pub identities: Vec<String>,
    /// Federation-name patterns the rule applies to.
    pub federations: Vec<String>,
    /// The actions granted; may be empty when the rule only limits classes.
    #[serde(default)]
    pub actions: Vec<Action>,
    /// Class patterns: with a list, those who match may publish only what it names.
    pub publish: Option<Vec<String>>,
    /// Class patterns: with a list, those who match may subscribe only to what it names.
    pub subscribe: Option<Vec<String>>,
}

/// A parsed policy file: the `[[allow]]` rules and the `[[model]]` sections they speak of.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// `[[allow]]` rules; a request no rule allows is refused.
    #[serde(default)]
    pub allow: Vec<Rule>,
    /// `[[model]]` sections: the object models whose classes the rules' patterns name.
    #[serde(default)]
    pub model: Vec<ModelRule>,
    /// Some rule limits classes: worked out once, as routers ask at every data frame.
    #[serde(skip)]
    limits_classes: bool,
}

/// Why a policy file was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum PolicyError {
    /// From the TOML parser: names the line, the column and the field.
    #[error("{0}")]
    Toml(String),
    /// A rule leaves a list empty that must name at least one pattern.
    #[error("rule {rule}: `{field}` is empty: a rule must name at least one")]
    Empty {
        /// 1-based number of the `[[allow]]` rule.
        rule: usize,
        /// The empty key, e.g. "identities".
        field: &'static str,
    },
    /// A rule has no `actions`, `publish` or `subscribe`, so it would grant nothing.
    #[error("rule {rule} grants nothing: it needs `actions`, `publish` or `subscribe`")]
    GrantsNothing {
        /// 1-based number of the `[[allow]]` rule.
        rule: usize,
    },
    /// A `[[model]]` section leaves a list empty that must name at least one entry.
    #[error("model {rule}: `{field}` is empty: a model must name at least one")]
    EmptyModel {
        /// 1-based number of the `[[model]]` section.
        rule: usize,
        /// The empty key, e.g. "modules".
        field: &'static str,
    },
    /// More rules than [`MAX_RULES`] or more patterns in one list than [`MAX_PATTERNS`].
    #[error("{what} exceeds its limit of {limit}")]
    TooMany {
        /// What is too many, counted, e.g. "5000 rules".
        what: String,
        /// The limit it exceeds.
        limit: usize,
    },
}

/// Who asks: the certificate's common name, or nobody proven.
pub type Asker<'a> = Option<&'a str>;

impl Policy {
    /// Reads and checks a policy file's text; the `[[model]]` tables still need their modules
    /// loaded by the host.
    pub fn from_toml(text: &str) -> Result<Policy, PolicyError> {
        let mut policy: Policy =
            toml::from_str(text).map_err(|e| PolicyError::Toml(e.to_string()))?;
        if policy.allow.len() > MAX_RULES {
            return Err(PolicyError::TooMany {
                what: format!("{} rules", policy.allow.len()),
                limit: MAX_RULES,
            });
        }
        for (index, rule) in policy.allow.iter().enumerate() {
            rule.check(index + 1)?;
        }
        policy.check_models()?;
        policy.limits_classes =
            (policy.allow.iter()).any(|r| r.publish.is_some() || r.subscribe.is_some());
        Ok(policy)
    }

    /// `None` if `asker` may do `action` to `federation`, else why not (naming what was
    /// asked and that no rule allows it).
    pub fn refuse(&self, asker: Asker<'_>, action: Action, federation: &str) -> Option<String> {
        if self
            .allow
            .iter()
            .any(|rule| rule.allows(asker, action, federation))
        {
            return None;
        }
        let who = match asker {
            Some(name) => format!("{name:?}"),
            None => "a peer without a certificate".into(),
        };
        Some(format!(
            "the access policy allows {who} no {action} of federation {federation:?} (no \
             [[allow]] rule matches)"
        ))
    }
}

impl Rule {
    fn check(&self, rule: usize) -> Result<(), PolicyError> {
        if self.actions.is_empty() && self.publish.is_none() && self.subscribe.is_none() {
            return Err(PolicyError::GrantsNothing { rule });
        }
        let lists = [
            ("identities", self.identities.len()),
            ("federations", self.federations.len()),
            ("actions", self.actions.len()),
            ("publish", self.publish.as_ref().map_or(0, Vec::len)),
            ("subscribe", self.subscribe.as_ref().map_or(0, Vec::len)),
        ];
        for (field, len) in lists {
            if len == 0 && matches!(field, "identities" | "federations") {
                return Err(PolicyError::Empty { rule, field });
            }
            if len > MAX_PATTERNS {
                return Err(PolicyError::TooMany {
                    what: format!("rule {rule}: {len} {field}"),
                    limit: MAX_PATTERNS,
                });
            }
        }
        Ok(())
    }

    fn allows(&self, asker: Asker<'_>, action: Action, federation: &str) -> bool {
        self.actions.contains(&action) && self.applies(asker, federation)
    }

    /// Whether the rule speaks of `asker` in `federation`.
    fn applies(&self, asker: Asker<'_>, federation: &str) -> bool {
        let identity = |pattern: &String| match asker {
            Some(name) => matches(pattern, name),
            None => pattern == "*",
        };
        self.identities.iter().any(identity)
            && self.federations.iter().any(|p| matches(p, federation))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: &str = r#"
[[allow]]
identities = ["tank-*", "ops"]
federations = ["Exercise*"]
actions = ["create", "join", "destroy"]

[[allow]]
identities = ["*"]
federations = ["Sandbox"]
actions = ["join"]
"#;

    #[test]
    fn rules_allow_by_identity_federation_and_action_and_refuse_the_rest_naming_it() {
        let policy = Policy::from_toml(POLICY).expect("policy");
        assert_eq!(
            policy.refuse(Some("tank-7"), Action::Create, "Exercise-2"),
            None
        );
        assert_eq!(
            policy.refuse(Some("ops"), Action::Destroy, "Exercise"),
            None
        );
        assert_eq!(policy.refuse(None, Action::Join, "Sandbox"), None);
        assert_eq!(policy.refuse(Some("spy"), Action::Join, "Sandbox"), None);
        let refused = [
            (Some("spy"), Action::Join, "Exercise"),
            (Some("tank-7"), Action::Create, "Sandbox"),
            (None, Action::Join, "Exercise"),
            (Some("xtank-7"), Action::Join, "Exercise"),
        ];
        for (asker, action, federation) in refused {
            let why = policy.refuse(asker, action, federation).expect("refused");
            assert!(
                why.contains(&action.to_string()) && why.contains(federation),
                "{why}"
            );
        }
    }

    const CLASSES: &str = r#"
[[model]]
federations = ["Exercise*"]
modules = ["rpr.xml"]

[[allow]]
identities = ["*"]
federations = ["Exercise*"]
actions = ["join"]

[[allow]]
identities = ["tank-*"]
federations = ["Exercise*"]
publish = ["BaseEntity.PhysicalEntity.*"]
subscribe = ["WeaponFire"]

[[allow]]
identities = ["tank-7"]
federations = ["Exercise-2"]
publish = ["WeaponFire"]
"#;

    #[test]
    fn class_rights_are_the_union_of_the_rules_that_apply_and_unlimited_where_none_limits() {
        let policy = Policy::from_toml(CLASSES).expect("policy");
        assert!(policy.limits_classes());
        assert_eq!(policy.model[0].bins, crate::federate::DEFAULT_BINS);
        assert!(policy
            .class_rights(Some("ops"), "Exercise")
            .is_unrestricted());
        assert!(policy
            .class_rights(Some("tank-7"), "Sandbox")
            .is_unrestricted());
        let rights = policy.class_rights(Some("tank-7"), "Exercise-2");
        let publish = rights.publish.clone().expect("limited");
        assert_eq!(publish.rules, [2, 3]);
        for (class, allowed) in [
            ("HLAobjectRoot.BaseEntity.PhysicalEntity.Platform", true),
            ("BaseEntity.PhysicalEntity.Platform.Aircraft", true),
            ("HLAinteractionRoot.WeaponFire", true),
            ("HLAobjectRoot.BaseEntity", false),
            ("HLAobjectRoot.EmbeddedSystem", false),
        ] {
            assert_eq!(publish.allows(class), allowed, "{class}");
        }
        let subscribe = rights.subscribe.expect("limited");
        assert!(subscribe.allows("HLAinteractionRoot.WeaponFire"));
        assert!(!subscribe.allows("HLAobjectRoot.BaseEntity"));
        // Without a loaded model the router cannot tell classes apart: nothing passes.
        let wire = policy
            .wire_rights(Some("tank-7"), "Exercise-2")
            .expect("limited");
        assert!(wire.may_declare.is_empty() && wire.may_send.is_empty());
        assert!(wire.summary.contains("[[model]]"), "{}", wire.summary);
        assert_eq!(policy.wire_rights(Some("ops"), "Exercise"), None);
    }

    #[test]
    fn a_rule_that_grants_nothing_or_a_model_without_modules_is_refused() {
        let nothing = "[[allow]]\nidentities = [\"a\"]\nfederations = [\"F\"]\n";
        assert_eq!(
            Policy::from_toml(nothing),
            Err(PolicyError::GrantsNothing { rule: 1 })
        );
        let model = "[[model]]\nfederations = [\"F\"]\nmodules = []\n";
        assert_eq!(
            Policy::from_toml(model),
            Err(PolicyError::EmptyModel {
                rule: 1,
                field: "modules"
            })
        );
        let unknown = "[[model]]\nfederations = [\"F\"]\nmodules = [\"a.xml\"]\nfom = 1\n";
        let PolicyError::Toml(why) = Policy::from_toml(unknown).expect_err("unknown field") else {
            panic!("a parse error")
        };
        assert!(why.contains("line 4") && why.contains("fom"), "{why}");
    }

    #[test]
    fn a_bad_policy_is_refused_naming_the_line_and_field() {
        let unknown = "[[allow]]\nidentities = [\"a\"]\nfederations = [\"F\"]\nactions = [\"join\"]\nrole = \"x\"\n";
        let PolicyError::Toml(why) = Policy::from_toml(unknown).expect_err("unknown field") else {
            panic!("a parse error")
        };
        assert!(why.contains("line 5") && why.contains("role"), "{why}");
        let action =
            "[[allow]]\nidentities = [\"a\"]\nfederations = [\"F\"]\nactions = [\"publish\"]\n";
        let PolicyError::Toml(why) = Policy::from_toml(action).expect_err("unknown action") else {
            panic!("a parse error")
        };
        assert!(why.contains("line 4") && why.contains("publish"), "{why}");
        let empty = "[[allow]]\nidentities = []\nfederations = [\"F\"]\nactions = [\"join\"]\n";
        assert_eq!(
            Policy::from_toml(empty),
            Err(PolicyError::Empty {
                rule: 1,
                field: "identities"
            })
        );
    }
}
