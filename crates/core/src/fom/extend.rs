//! Whether one model extends another: additional FOM modules at join (IEEE 1516.1-2010
//! §4.9) may add classes, attributes of new classes, parameters of new interactions and
//! dimensions, and must leave what the federation has exactly as it is, handles included,
//! so that members that joined before keep every handle, interest id and routing space.

use super::{InteractionClassHandle, ObjectClassHandle, ObjectModel};

impl ObjectModel {
    /// `Ok` when this model is `base` with things added and nothing of `base` changed;
    /// else what changed, by name.
    pub fn extension_of(&self, base: &ObjectModel) -> Result<(), String> {
        for (handle, old) in base.dimensions().iter().enumerate() {
            match self.dimensions().get(handle) {
                Some(new) if new.name == old.name && new.upper_bound == old.upper_bound => {}
                _ => return Err(format!("dimension {} changed", old.name)),
            }
        }
        for old in base.object_classes() {
            self.same_object_class(base, old.handle)?;
        }
        for old in base.interaction_classes() {
            self.same_interaction_class(base, old.handle)?;
        }
        Ok(())
    }

    fn same_object_class(
        &self,
        base: &ObjectModel,
        class: ObjectClassHandle,
    ) -> Result<(), String> {
        let old = base.object_class(class);
        let changed = |what: &str| Err(format!("object class {} {what}", old.qualified_name));
        let Some(new) = self.object_classes().get(class.0 as usize) else {
            return changed("is missing");
        };
        if new.qualified_name != old.qualified_name || new.parent != old.parent {
            return changed("moved");
        }
        // Attributes added to a class the federation has would shift the positions its
        // instances' keep-latest masks and its routing space are built on.
        if self.available_attributes(class) != base.available_attributes(class) {
            return changed("has other attributes");
        }
        for &attribute in &old.attributes {
            let (a, b) = (base.attribute(attribute), self.attribute(attribute));
            let same = a.name == b.name
                && a.data_type == b.data_type
                && a.order == b.order
                && a.transportation == b.transportation
                && a.dimensions == b.dimensions
                && a.keep_latest == b.keep_latest;
            if !same {
                return changed(&format!("has attribute {} defined otherwise", a.name));
            }
        }
        Ok(())
    }

    fn same_interaction_class(
        &self,
        base: &ObjectModel,
        class: InteractionClassHandle,
    ) -> Result<(), String> {
        let old = base.interaction_class(class);
        let changed = |what: &str| Err(format!("interaction class {} {what}", old.qualified_name));
        let Some(new) = self.interaction_classes().get(class.0 as usize) else {
            return changed("is missing");
        };
        if new.qualified_name != old.qualified_name || new.parent != old.parent {
            return changed("moved");
        }
        if new.order != old.order
            || new.transportation != old.transportation
            || new.dimensions != old.dimensions
        {
            return changed("is defined otherwise");
        }
        if self.available_parameters(class) != base.available_parameters(class) {
            return changed("has other parameters");
        }
        for &parameter in &old.parameters {
            let (a, b) = (base.parameter(parameter), self.parameter(parameter));
            if a.name != b.name || a.data_type != b.data_type {
                return changed(&format!("has parameter {} defined otherwise", a.name));
            }
        }
        Ok(())
    }
}
