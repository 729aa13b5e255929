//! Handles follow declaration order (issue 31, item 6): attributes and parameters in the
//! order written, inherited ones first, classes in the merged model's declaration order;
//! the same ordered modules always number alike, and appending modules renumbers nothing.

use super::*;
use proptest::prelude::*;
use std::fmt::Write as _;

fn model(sources: &[(&str, &str)]) -> ObjectModel {
    ObjectModel::from_sources(sources).unwrap_or_else(|e| panic!("{e}"))
}

/// Attributes named out of alphabetical order, in classes declared out of it, and an
/// interaction whose parameters are too.
const SHIPS: &str = r#"<objectModel xmlns="http://standards.ieee.org/IEEE1516-2010">
<objects>
<objectClass><name>HLAobjectRoot</name>
<objectClass><name>Ship</name>
<attribute><name>FederateName</name><dataType>HLAunicodeString</dataType></attribute>
<attribute><name>ShipTeam</name><dataType>HLAunicodeString</dataType></attribute>
<attribute><name>Position</name><dataType>HLAunicodeString</dataType></attribute>
<objectClass><name>Frigate</name>
<attribute><name>Armament</name><dataType>HLAunicodeString</dataType></attribute>
</objectClass>
</objectClass>
<objectClass><name>Buoy</name>
<attribute><name>Light</name><dataType>HLAunicodeString</dataType></attribute>
</objectClass>
</objectClass>
</objects>
<interactions>
<interactionClass><name>HLAinteractionRoot</name>
<interactionClass><name>Signal</name>
<parameter><name>Text</name><dataType>HLAunicodeString</dataType></parameter>
<parameter><name>From</name><dataType>HLAunicodeString</dataType></parameter>
</interactionClass>
<interactionClass><name>Alarm</name></interactionClass>
</interactionClass>
</interactions>
<dimensions>
<dimension><name>Zone</name><upperBound>10</upperBound></dimension>
<dimension><name>Area</name><upperBound>10</upperBound></dimension>
</dimensions>
</objectModel>"#;

/// A later module that adds attributes and a subclass to Ship, restated as scaffolding.
const REFIT: &str = r#"<objectModel xmlns="http://standards.ieee.org/IEEE1516-2010">
<objects>
<objectClass><name>HLAobjectRoot</name>
<objectClass><name>Ship</name>
<objectClass><name>Carrier</name>
<attribute><name>Deck</name><dataType>HLAunicodeString</dataType></attribute>
<attribute><name>Aircraft</name><dataType>HLAunicodeString</dataType></attribute>
</objectClass>
</objectClass>
</objectClass>
</objects>
</objectModel>"#;

#[test]
fn attributes_parameters_and_classes_are_numbered_as_declared() {
    let model = model(&[("ships.xml", SHIPS)]);
    let ship = model.find_object_class("Ship").unwrap();
    let handle = |class, name| model.find_attribute(class, name).unwrap();
    let own: Vec<AttributeHandle> = ["FederateName", "ShipTeam", "Position"]
        .into_iter()
        .map(|name| handle(ship, name))
        .collect();
    assert!(own[0] < own[1] && own[1] < own[2], "{own:?}");
    assert_eq!(model.object_class(ship).attributes, own);
    let privilege = handle(ship, "HLAprivilegeToDeleteObject");
    assert_eq!(privilege, AttributeHandle(0));
    assert_eq!(model.available_attributes(ship)[0], privilege);
    // Every attribute a subclass inherits has a lower handle than its own.
    let frigate = model.find_object_class("Ship.Frigate").unwrap();
    let armament = handle(frigate, "Armament");
    assert!(model
        .available_attributes(frigate)
        .iter()
        .all(|&a| a <= armament));
    // Classes in document order: Ship, Ship.Frigate, then Buoy, after the MIM's.
    let buoy = model.find_object_class("Buoy").unwrap();
    assert!(
        ship < frigate && frigate < buoy,
        "{ship:?} {frigate:?} {buoy:?}"
    );
    let manager = model.find_object_class("HLAmanager").unwrap();
    assert!(manager < ship);
    assert!(handle(buoy, "Light") > armament);

    let signal = model.find_interaction_class("Signal").unwrap();
    let alarm = model.find_interaction_class("Alarm").unwrap();
    assert!(signal < alarm);
    let text = model.find_parameter(signal, "Text").unwrap();
    let from = model.find_parameter(signal, "From").unwrap();
    assert!(text < from);
    let zone = model.dimension_handle("Zone").unwrap();
    let area = model.dimension_handle("Area").unwrap();
    // The MIM's two dimensions first, then this module's as written.
    assert_eq!((zone, area), (DimensionHandle(2), DimensionHandle(3)));
}

#[test]
fn what_a_later_module_adds_comes_after_everything_before_it() {
    let both = model(&[("ships.xml", SHIPS), ("refit.xml", REFIT)]);
    let carrier = both.find_object_class("Ship.Carrier").unwrap();
    let deck = both.find_attribute(carrier, "Deck").unwrap();
    let aircraft = both.find_attribute(carrier, "Aircraft").unwrap();
    assert!(deck < aircraft);
    assert_eq!(aircraft.0 as usize + 1, both.counts().attributes);
    let buoy = both.find_object_class("Buoy").unwrap();
    assert!(carrier > buoy, "Carrier comes from the later module");
    assert_eq!(
        both.modules(),
        [STANDARD_MIM_FILE, "ships.xml", "refit.xml"]
    );
}

#[test]
fn the_same_modules_in_the_same_order_number_alike_and_a_listed_mim_comes_first() {
    let once = model(&[("ships.xml", SHIPS), ("refit.xml", REFIT)]);
    let again = model(&[("ships.xml", SHIPS), ("refit.xml", REFIT)]);
    assert_eq!(once.fingerprint(), again.fingerprint());
    // Another order is another numbering, and so another fingerprint.
    let swapped = model(&[("refit.xml", REFIT), ("ships.xml", SHIPS)]);
    assert_ne!(once.fingerprint(), swapped.fingerprint());
    // The standard MIM listed last is still merged, and numbered, first.
    let mim_last = model(&[
        ("ships.xml", SHIPS),
        ("refit.xml", REFIT),
        (STANDARD_MIM_FILE, STANDARD_MIM_XML),
    ]);
    assert_eq!(mim_last.fingerprint(), once.fingerprint());
    assert_eq!(mim_last.modules()[0], STANDARD_MIM_FILE);
}

/// A random model to cut into modules: classes (each under an earlier one or the root) with
/// members, dimensions and transportations; and per module, what it says of each.
#[derive(Clone, Debug)]
struct Plan {
    /// Parent of class i: None for the root, Some(j) with j < i otherwise.
    parents: Vec<Option<usize>>,
    member_counts: Vec<usize>,
    /// Per module, per class: 0 absent, 1 scaffolding (name only), 2 full definition.
    modules: Vec<Vec<u8>>,
    /// Per module, per dimension and per transportation: declared there or not.
    dimensions: Vec<Vec<bool>>,
    transportations: Vec<Vec<bool>>,
}

const CLASSES: usize = 7;
const DIMENSIONS: usize = 4;
const TRANSPORTATIONS: usize = 3;

fn plan() -> impl Strategy<Value = Plan> {
    let parents = (0..CLASSES)
        .map(|i| prop::option::weighted(0.7, 0..i.max(1)).prop_map(move |p| p.filter(|_| i > 0)))
        .collect::<Vec<_>>();
    let modules = 1..5usize;
    (parents, prop::collection::vec(0..4usize, CLASSES), modules)
        .prop_flat_map(|(parents, member_counts, n)| {
            (
                Just(parents),
                Just(member_counts),
                prop::collection::vec(prop::collection::vec(0..3u8, CLASSES), n),
                prop::collection::vec(prop::collection::vec(any::<bool>(), DIMENSIONS), n),
                prop::collection::vec(prop::collection::vec(any::<bool>(), TRANSPORTATIONS), n),
            )
        })
        .prop_map(
            |(parents, member_counts, modules, dimensions, transportations)| Plan {
                parents,
                member_counts,
                modules,
                dimensions,
                transportations,
            },
        )
}

/// Names that sort differently from the order they are generated in.
fn class_name(i: usize) -> String {
    format!("{}Class{i}", ["Z", "B", "M", "A", "Q", "C", "K"][i % 7])
}

fn member_name(class: usize, k: usize) -> String {
    format!("{}m{class}_{k}", ["y", "c", "p", "a"][k % 4])
}

impl Plan {
    /// What module `m` says of class `i`, raised to scaffolding when a subclass it states
    /// needs it as a parent.
    fn stated(&self, m: usize) -> Vec<u8> {
        let mut stated = self.modules[m].clone();
        for i in (0..CLASSES).rev() {
            if let (true, Some(p)) = (stated[i] > 0, self.parents[i]) {
                stated[p] = stated[p].max(1);
            }
        }
        stated
    }

    fn class_xml(&self, out: &mut String, i: usize, stated: &[u8], section: (&str, &str)) {
        let (tag, member) = section;
        let _ = write!(out, "<{tag}><name>{}</name>", class_name(i));
        if stated[i] == 2 {
            for k in 0..self.member_counts[i] {
                let _ = write!(
                    out,
                    "<{member}><name>{}</name><dataType>HLAinteger32BE</dataType></{member}>",
                    member_name(i, k)
                );
            }
        }
        for child in (0..CLASSES).filter(|&c| self.parents[c] == Some(i) && stated[c] > 0) {
            self.class_xml(out, child, stated, section);
        }
        let _ = write!(out, "</{tag}>");
    }

    /// Module `m`: the same class plan in both hierarchies, below the two roots.
    fn module(&self, m: usize) -> String {
        let stated = self.stated(m);
        let mut out = String::from("<objectModel>");
        for (section, tag, member, root) in [
            ("objects", "objectClass", "attribute", "HLAobjectRoot"),
            (
                "interactions",
                "interactionClass",
                "parameter",
                "HLAinteractionRoot",
            ),
        ] {
            let _ = write!(out, "<{section}><{tag}><name>{root}</name>");
            for top in (0..CLASSES).filter(|&c| self.parents[c].is_none() && stated[c] > 0) {
                self.class_xml(&mut out, top, &stated, (tag, member));
            }
            let _ = write!(out, "</{tag}></{section}>");
        }
        out.push_str("<dimensions>");
        for (d, _) in self.dimensions[m].iter().enumerate().filter(|(_, on)| **on) {
            let _ = write!(
                out,
                "<dimension><name>{}Dim{d}</name><upperBound>{}</upperBound></dimension>",
                ["W", "D", "T", "A"][d],
                d + 5
            );
        }
        out.push_str("</dimensions><transportations>");
        for (t, _) in self.transportations[m]
            .iter()
            .enumerate()
            .filter(|(_, on)| **on)
        {
            let _ = write!(
                out,
                "<transportation><name>{}Way{t}</name><reliable>Yes</reliable></transportation>",
                ["S", "F", "B"][t]
            );
        }
        out.push_str("</transportations></objectModel>");
        out
    }

    fn load(&self, modules: usize) -> ObjectModel {
        let texts: Vec<(String, String)> = (0..modules)
            .map(|m| (format!("m{m}.xml"), self.module(m)))
            .collect();
        let sources: Vec<(&str, &str)> = texts
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        ObjectModel::from_sources(&sources).unwrap_or_else(|e| panic!("{e}\n{:#?}", texts))
    }
}

/// Every handle of `before` is the same in `after`, found by name.
fn assert_kept(before: &ObjectModel, after: &ObjectModel) {
    for class in before.object_classes() {
        let again = after.find_object_class(&class.qualified_name);
        assert_eq!(again, Some(class.handle), "{}", class.qualified_name);
        for &a in &class.attributes {
            let name = &before.attribute(a).name;
            assert_eq!(after.find_attribute(class.handle, name), Some(a), "{name}");
        }
    }
    for class in before.interaction_classes() {
        let again = after.find_interaction_class(&class.qualified_name);
        assert_eq!(again, Some(class.handle), "{}", class.qualified_name);
        for &p in &class.parameters {
            let name = &before.parameter(p).name;
            assert_eq!(after.find_parameter(class.handle, name), Some(p), "{name}");
        }
    }
    for d in before.dimensions() {
        assert_eq!(after.find_dimension(&d.name), Some(d.handle), "{}", d.name);
    }
    for t in before.transportation_types() {
        assert_eq!(
            after.transportation_type_handle(&t.name),
            Ok(t.handle),
            "{}",
            t.name
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Loading [A, B] and then [A, B, C]: everything of A and B keeps its handle.
    #[test]
    fn appending_modules_renumbers_nothing(plan in plan()) {
        let all = plan.modules.len();
        let full = plan.load(all);
        for prefix in 1..all {
            assert_kept(&plan.load(prefix), &full);
        }
        // And the same ordered modules always give the same model.
        prop_assert_eq!(plan.load(all).fingerprint(), full.fingerprint());
    }
}
