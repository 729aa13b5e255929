use super::*;

const DEMO: &str = include_str!("../../../../foms/trellis-demo.xml");

fn rpr_dir() -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fom/rpr-2.0");
    assert!(
        dir.is_dir(),
        "the RPR FOM 2.0 modules are expected in {} (../shared beside the project)",
        dir.display()
    );
    dir
}

fn rpr_files() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(rpr_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 14, "RPR FOM 2.0 has 14 modules");
    files
}

/// The standard MIM's own counts, counted over foms/HLAstandardMIM.xml with a Python script
/// (ElementTree: every objectClass / interactionClass / attribute / parameter element).
pub(super) const MIM: Counts = Counts {
    object_classes: 4,
    interaction_classes: 85,
    attributes: 45,
    parameters: 101,
    dimensions: 2,
};

/// `own` (the counts of modules that declare both roots) merged after the MIM: the roots
/// count once.
pub(super) fn with_mim(own: Counts) -> Counts {
    Counts {
        object_classes: own.object_classes + MIM.object_classes - 1,
        interaction_classes: own.interaction_classes + MIM.interaction_classes - 1,
        attributes: own.attributes + MIM.attributes,
        parameters: own.parameters + MIM.parameters,
        dimensions: own.dimensions + MIM.dimensions,
    }
}

fn demo() -> ObjectModel {
    ObjectModel::from_sources(&[("trellis-demo.xml", DEMO)]).unwrap()
}

/// A module with one object class under the root, from a snippet of attributes.
fn module(class: &str, attributes: &str) -> String {
    format!(
        r#"<objectModel xmlns="http://standards.ieee.org/IEEE1516-2010">
<objects>
<objectClass>
<name>HLAobjectRoot</name>
<objectClass>
<name>{class}</name>
{attributes}
</objectClass>
</objectClass>
</objects>
</objectModel>"#
    )
}

fn errors(sources: &[(&str, &str)]) -> Vec<FomError> {
    ObjectModel::from_sources(sources).unwrap_err().0
}

#[test]
fn the_merged_rpr_fom_loads_with_its_counts() {
    let model = ObjectModel::load(&rpr_files(), &|path| std::fs::read(path))
        .unwrap_or_else(|e| panic!("{e}"));
    // Counted independently over the XML (classes by qualified name, members by class and
    // name; see the closing note of the federate-services issue).
    assert_eq!(
        model.counts(),
        with_mim(Counts {
            object_classes: 64,
            interaction_classes: 79,
            attributes: 311,
            parameters: 277,
            dimensions: 0,
        })
    );
    let entity = model
        .find_object_class("BaseEntity.PhysicalEntity.Platform.Aircraft")
        .unwrap();
    assert_eq!(
        model.object_class(entity).qualified_name,
        "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.Aircraft"
    );
    let base = model.find_object_class("BaseEntity").unwrap();
    assert!(model.is_object_subclass(entity, base));
    let location = model
        .find_attribute(entity, "Spatial")
        .expect("inherited from BaseEntity");
    assert_eq!(model.attribute(location).class, base);
    assert!(model.find_interaction_class("WeaponFire").is_some());
}

#[test]
fn the_rpr_fom_numbers_alike_in_the_same_order_and_loads_in_any() {
    let mut files = rpr_files();
    let forward = ObjectModel::load(&files, &|path| std::fs::read(path)).unwrap();
    let again = ObjectModel::load(&files, &|path| std::fs::read(path)).unwrap();
    assert_eq!(forward.fingerprint(), again.fingerprint());
    let name = "BaseEntity.PhysicalEntity.Lifeform.Human";
    assert_eq!(
        forward.find_object_class(name),
        again.find_object_class(name)
    );
    // HLAprivilegeToDeleteObject, the MIM's first attribute, is numbered first.
    let human = forward.find_object_class(name).unwrap();
    let privilege = forward
        .find_attribute(human, "HLAprivilegeToDeleteObject")
        .unwrap();
    assert_eq!(privilege, AttributeHandle(0));
    // Handles follow the order of the modules, so another order is another numbering
    // of the same classes.
    files.reverse();
    let backward = ObjectModel::load(&files, &|path| std::fs::read(path)).unwrap();
    assert_eq!(backward.counts(), forward.counts());
    assert!(backward.find_object_class(name).is_some());
    assert_ne!(forward.fingerprint(), backward.fingerprint());
    assert_ne!(forward.fingerprint(), demo().fingerprint());
}

#[test]
fn the_demo_model_has_classes_dimensions_and_transports() {
    let model = demo();
    assert_eq!(
        model.counts(),
        with_mim(Counts {
            object_classes: 4,
            interaction_classes: 2,
            attributes: 5,
            parameters: 2,
            dimensions: 2,
        })
    );
    let vehicle = model.find_object_class("Vehicle").unwrap();
    let aircraft = model.find_object_class("Vehicle.Aircraft").unwrap();
    assert_eq!(model.find_object_class("Aircraft"), Some(aircraft));
    assert_eq!(model.object_descendants(vehicle).len(), 3);
    let position = model.find_attribute(aircraft, "Position").unwrap();
    let position = model.attribute(position);
    assert!(!position.transportation.reliable);
    assert_eq!(position.dimensions.len(), 2);
    let name = model.find_attribute(vehicle, "Name").unwrap();
    assert!(model.attribute(name).transportation.reliable);
    // Its own four and HLAprivilegeToDeleteObject from the MIM's HLAobjectRoot.
    assert_eq!(model.available_attributes(aircraft).len(), 5);
    let x = model.find_dimension("X").unwrap();
    assert_eq!(model.dimension(x).upper_bound, 1000);
    let radio = model.find_interaction_class("Radio").unwrap();
    assert!(model.find_parameter(radio, "Text").is_some());
    assert_eq!(model.interaction_class(radio).dimensions.len(), 2);
}

#[test]
fn malformed_xml_names_the_file_and_line() {
    let broken = "<objectModel>\n<objects>\n<objectClass>\n</objects>\n";
    let e = errors(&[("broken.xml", broken)]);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].file, "broken.xml");
    assert_eq!(e[0].line, 4);
    assert!(e[0].message.contains("not well-formed"), "{}", e[0]);
}

#[test]
fn a_class_without_a_name_is_refused_where_it_is() {
    let text = module(
        "Tank",
        "<objectClass>\n<attribute><name>A</name></attribute>\n</objectClass>",
    );
    let e = errors(&[("noname.xml", &text)]);
    assert_eq!(e.len(), 1);
    assert_eq!((e[0].line, e[0].element.as_str()), (7, "objectClass"));
    assert!(e[0].message.contains("no <name>"));
}

#[test]
fn unknown_transportation_order_and_dimension_are_errors() {
    let text = module(
        "Tank",
        "<attribute><name>A</name><transportation>Carrier pigeon</transportation></attribute>\n\
         <attribute><name>B</name><order>Whenever</order></attribute>\n\
         <attribute><name>C</name><dimensions><dimension>Z</dimension></dimensions></attribute>",
    );
    let e = errors(&[("bad.xml", &text)]);
    let messages: Vec<String> = e.iter().map(|e| e.to_string()).collect();
    assert_eq!(e.len(), 3, "{messages:#?}");
    assert!(messages[0].starts_with(
        "bad.xml:7: <transportation>: HLAobjectRoot.Tank.A: transportation Carrier pigeon"
    ));
    assert!(messages[1].starts_with("bad.xml:8: <order>: HLAobjectRoot.Tank.B: order Whenever"));
    assert!(messages[2].contains("dimension Z is not declared"));
}

#[test]
fn a_conflicting_second_module_names_both_places() {
    let first = module(
        "Tank",
        "<attribute><name>Speed</name><dataType>HLAfloat32BE</dataType></attribute>",
    );
    let second = module(
        "Tank",
        "<attribute><name>Speed</name><dataType>HLAinteger32BE</dataType></attribute>",
    );
    let e = errors(&[("first.xml", &first), ("second.xml", &second)]);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].file, "second.xml");
    assert_eq!(
        e[0].message,
        "HLAobjectRoot.Tank: attribute Speed is defined differently at first.xml:7: \
         dataType is \"HLAinteger32BE\" here but \"HLAfloat32BE\" there",
    );
    // Declared alike, the same attribute merges.
    let model = ObjectModel::from_sources(&[("first.xml", &first), ("again.xml", &first)]).unwrap();
    assert_eq!(model.counts().attributes, MIM.attributes + 1);
}

#[test]
fn duplicate_and_shadowing_members_are_errors() {
    let text = module(
        "Tank",
        "<attribute><name>A</name></attribute>\n<attribute><name>A</name></attribute>\n\
         <objectClass><name>Heavy</name><attribute><name>A</name><dataType>HLAoctet</dataType></attribute></objectClass>",
    );
    let e = errors(&[("dup.xml", &text)]);
    let messages: Vec<String> = e.iter().map(|e| e.to_string()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("declared twice in this module")),
        "{messages:#?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("already inherited from HLAobjectRoot.Tank")),
        "{messages:#?}"
    );
}

#[test]
fn conflicting_dimensions_and_a_wrong_root_are_errors() {
    let dims = |bound: u32| {
        format!(
            "<objectModel><dimensions><dimension><name>X</name><upperBound>{bound}</upperBound></dimension></dimensions></objectModel>"
        )
    };
    let e = errors(&[("a.xml", &dims(10)), ("b.xml", &dims(20))]);
    assert!(
        e[0].message
            .contains("upper bound 20 conflicts with 10 declared at a.xml:1"),
        "{}",
        e[0]
    );
    let wrong = "<objectModel><objects><objectClass><name>Root</name></objectClass></objects></objectModel>";
    let e = errors(&[("root.xml", wrong)]);
    assert!(
        e[0].message.contains("must be named HLAobjectRoot"),
        "{}",
        e[0]
    );
}

#[test]
fn dotted_names_twin_subclasses_and_blank_dimension_references_are_errors() {
    let text = module(
        "Tank",
        "<attribute><name>A.B</name></attribute>\n\
         <objectClass><name>Heavy</name></objectClass>\n\
         <objectClass><name>Heavy</name></objectClass>\n\
         <attribute><name>C</name><dimensions><dimension> </dimension></dimensions></attribute>",
    );
    let mut e = errors(&[("names.xml", &text)]);
    e.sort_by_key(|e| e.line);
    let places: Vec<(u32, &str)> = e.iter().map(|e| (e.line, e.element.as_str())).collect();
    assert_eq!(
        places,
        [(7, "attribute"), (9, "objectClass"), (10, "dimension")],
        "{e:#?}"
    );
    assert!(e[0].message.contains("contains a dot"), "{}", e[0]);
    assert_eq!(
        e[1].message,
        "Heavy is declared twice under Tank in this module (first at line 8)"
    );
}

#[test]
fn a_dimension_with_two_data_types_is_a_conflict() {
    let dims = |data_type: &str| {
        format!(
            "<objectModel><dimensions><dimension><name>X</name><dataType>{data_type}</dataType>\
             <upperBound>10</upperBound></dimension></dimensions></objectModel>"
        )
    };
    let e = errors(&[
        ("a.xml", &dims("HLAinteger32BE")),
        ("b.xml", &dims("HLAinteger64BE")),
    ]);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!(
        e[0].to_string(),
        "b.xml:1: <dimension>: dimension X: data type HLAinteger64BE conflicts with \
         HLAinteger32BE declared at a.xml:1"
    );
}
