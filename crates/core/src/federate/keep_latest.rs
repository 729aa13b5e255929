//! Which updates travel keep-latest: the object model's marks, and the switches a federate
//! sets at run time over them (see the module notes of `federate`).

use super::{Federate, FederateError};
use crate::fom::{AttributeHandle, ObjectClassHandle};

impl Federate {
    /// Trellis extension: mark `attributes` of instances registered as `class` (all its
    /// available attributes when empty) keep-latest, or not, for this federate's updates,
    /// over what the object model says.
    pub fn set_keep_latest(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        keep_latest: bool,
    ) -> Result<(), FederateError> {
        self.check_attributes(class, attributes)?;
        let all;
        let attributes = if attributes.is_empty() {
            all = self.model.available_attributes(class);
            &all
        } else {
            attributes
        };
        for &a in attributes {
            self.keep_latest.insert((class, a), keep_latest);
        }
        Ok(())
    }

    /// Whether updates of `attribute` of an instance registered as `class` are keep-latest.
    pub fn is_keep_latest(&self, class: ObjectClassHandle, attribute: AttributeHandle) -> bool {
        self.keep_latest
            .get(&(class, attribute))
            .copied()
            .unwrap_or_else(|| self.model.is_keep_latest(class, attribute))
    }

    /// Whether any update may be keep-latest: something is marked or switched on.
    pub(super) fn may_keep_latest(&self) -> bool {
        self.model_keeps_latest || !self.keep_latest.is_empty()
    }

    pub(super) fn class_keeps_latest(&self, class: ObjectClassHandle) -> bool {
        self.may_keep_latest()
            && self
                .model
                .available_attributes(class)
                .into_iter()
                .any(|a| self.is_keep_latest(class, a))
    }
}
