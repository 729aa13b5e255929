//! The classes this federate may publish and subscribe to, as the access policy of the
//! first router its link reaches has them (`crate::policy::classes`). The router enforces
//! them on the wire whatever the federate does; the federate refuses the calls itself so
//! that a refused one fails at once, naming the rules, instead of sending into the void,
//! and leaves out of a subscription's interest the subclasses it may not subscribe to.

use super::{Federate, FederateError};
use crate::fom::{InteractionClassHandle, ObjectClassHandle};
use crate::policy::{describe, ClassGrant, ClassRights};

/// Which right a service needs.
#[derive(Clone, Copy)]
pub(super) enum ClassRight {
    Publish,
    Subscribe,
}

impl Federate {
    /// Take on the rights the first router told at join (`Request::ClassRights`).
    pub fn set_class_rights(&mut self, rights: ClassRights) {
        self.class_rights = rights;
        self.update_interest();
    }

    /// The classes this federate may publish and subscribe to, as its first router told at join.
    pub fn class_rights(&self) -> &ClassRights {
        &self.class_rights
    }

    fn grant(&self, right: ClassRight) -> Option<&ClassGrant> {
        match right {
            ClassRight::Publish => self.class_rights.publish.as_ref(),
            ClassRight::Subscribe => self.class_rights.subscribe.as_ref(),
        }
    }

    /// Whether the policy lets this federate subscribe to object class `class` (checked
    /// per subclass when a subscription's interest is worked out).
    pub(super) fn may_subscribe_object(&self, class: ObjectClassHandle) -> bool {
        self.grant(ClassRight::Subscribe)
            .is_none_or(|g| g.allows(&self.model.object_class(class).qualified_name))
    }

    pub(super) fn may_subscribe_interaction(&self, class: InteractionClassHandle) -> bool {
        self.grant(ClassRight::Subscribe)
            .is_none_or(|g| g.allows(&self.model.interaction_class(class).qualified_name))
    }

    pub(super) fn check_object_right(
        &self,
        right: ClassRight,
        class: ObjectClassHandle,
    ) -> Result<(), FederateError> {
        let name = &self.model.object_class(class).qualified_name;
        self.check_right(right, name)
    }

    pub(super) fn check_interaction_right(
        &self,
        right: ClassRight,
        class: InteractionClassHandle,
    ) -> Result<(), FederateError> {
        let name = &self.model.interaction_class(class).qualified_name;
        self.check_right(right, name)
    }

    fn check_right(&self, right: ClassRight, name: &str) -> Result<(), FederateError> {
        match self.grant(right) {
            Some(grant) if !grant.allows(name) => {
                let verb = match right {
                    ClassRight::Publish => "publish",
                    ClassRight::Subscribe => "subscribe to",
                };
                Err(FederateError::NotPermitted(format!(
                    "the access policy does not let this federate {verb} {name}: it may {}",
                    describe(&self.class_rights)
                )))
            }
            _ => Ok(()),
        }
    }
}
