//! Instance names: the default one an id gets (`HLAobject_F_N`), which is never stored and
//! travels as a mark, and the name a discovery hands over.

use super::message::ObjectId;
use std::sync::Arc;

/// An instance's name as a discovery hands it over. Most instances have their id's
/// default name (`HLAobject_F_N`), which is written out only when read: a viewer that
/// discovers a million instances in its first second and never reads their names made
/// and freed a million strings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstanceName {
    /// The default name of this id.
    Default(ObjectId),
    /// A name its registrar reserved.
    Given(Arc<str>),
}

impl InstanceName {
    /// `object`'s name from what a table stores: its given name, or `None` for the default.
    pub fn of(object: ObjectId, given: Option<&Arc<str>>) -> InstanceName {
        match given {
            Some(name) => InstanceName::Given(name.clone()),
            None => InstanceName::Default(object),
        }
    }

    /// What a table stores: the given name, or `None` for a default one.
    pub fn given(&self) -> Option<&Arc<str>> {
        match self {
            InstanceName::Default(_) => None,
            InstanceName::Given(name) => Some(name),
        }
    }

    /// The id whose default name `name` is exactly (`HLAobject_3_17`, not `HLAobject_3_017`),
    /// if it is one: so a table of names needs rows only for given ones.
    pub fn default_id(name: &str) -> Option<ObjectId> {
        let (federate, number) = name.strip_prefix("HLAobject_")?.split_once('_')?;
        let object = ObjectId::new(federate.parse().ok()?, number.parse().ok()?);
        is_default_name(object, name).then_some(object)
    }
}

impl std::fmt::Display for InstanceName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InstanceName::Default(object) => DefaultName(*object).fmt(f),
            InstanceName::Given(name) => f.write_str(name),
        }
    }
}

impl PartialEq<str> for InstanceName {
    fn eq(&self, other: &str) -> bool {
        match self {
            InstanceName::Default(object) => is_default_name(*object, other),
            InstanceName::Given(name) => **name == *other,
        }
    }
}

impl PartialEq<&str> for InstanceName {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

/// The name an instance registered without one gets: `HLAobject_F_N`, from its id.
struct DefaultName(ObjectId);

impl std::fmt::Display for DefaultName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HLAobject_{}_{}", self.0.federate(), self.0.number())
    }
}

/// Whether `name` is `object`'s default name, without allocating.
pub(super) fn is_default_name(object: ObjectId, name: &str) -> bool {
    use std::io::Write;
    let mut buffer = [0u8; 40]; // "HLAobject_" and two u32s with a separator: 31 bytes
    let mut rest = &mut buffer[..];
    let written = write!(rest, "{}", DefaultName(object));
    let unused = rest.len();
    let len = buffer.len() - unused;
    written.is_ok() && name.as_bytes() == &buffer[..len]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_default_name_of_an_id_counts_as_default() {
        let object = ObjectId::new(3, 17);
        assert!(is_default_name(object, "HLAobject_3_17"));
        assert_eq!(DefaultName(object).to_string(), "HLAobject_3_17");
        let discovered = InstanceName::Default(object);
        assert_eq!(discovered.to_string(), "HLAobject_3_17");
        assert!(discovered == "HLAobject_3_17" && discovered != "HLAobject_3_170");
        assert!(InstanceName::Given("car".into()) == "car");
        assert_eq!(InstanceName::default_id("HLAobject_3_17"), Some(object));
        for not_default in [
            "HLAobject_3_017",
            "HLAobject_3",
            "HLAobject_3_17_1",
            "HLAobject_4294967296_1",
            "HLAobject_-3_17",
            "car",
        ] {
            assert_eq!(InstanceName::default_id(not_default), None, "{not_default}");
        }
        for other in [
            "HLAobject_3_017",
            "HLAobject_3_1",
            "HLAobject_17_3",
            "car",
            "",
        ] {
            assert!(!is_default_name(object, other), "{other}");
        }
        let largest = ObjectId::new(u32::MAX, u32::MAX);
        assert!(is_default_name(largest, &DefaultName(largest).to_string()));
    }

    #[test]
    fn a_table_stores_a_given_name_and_nothing_for_a_default_one() {
        let object = ObjectId::new(3, 17);
        let given: Arc<str> = "car".into();
        assert_eq!(
            InstanceName::of(object, None),
            InstanceName::Default(object)
        );
        assert_eq!(InstanceName::Default(object).given(), None);
        let named = InstanceName::of(object, Some(&given));
        assert!(named == "car");
        assert_eq!(named.given(), Some(&given));
    }
}
