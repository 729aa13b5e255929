//! The object-model loader on files: the project's own models, the broken test modules in
//! `tests/data/fom`, the 14 RPR FOM 2.0 modules from `../shared`, and mangled input.

use std::path::{Path, PathBuf};
use trellis_core::fom::{Counts, FomError, ObjectModel, Order};

const RPR_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fom/rpr-2.0");
const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../foms/trellis-demo.xml");

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fom")
        .join(name)
}

fn rpr_module(name: &str) -> PathBuf {
    let dir = Path::new(RPR_DIR);
    assert!(
        dir.is_dir(),
        "the RPR FOM 2.0 modules must be in {} (the shared folder beside the project root)",
        dir.display()
    );
    dir.join(format!("RPR-{name}_v2.0.xml"))
}

/// The standard MIM's own counts, counted over foms/HLAstandardMIM.xml with a Python script
/// (ElementTree), roots included.
const MIM: Counts = Counts {
    object_classes: 4,
    interaction_classes: 85,
    attributes: 45,
    parameters: 101,
    dimensions: 2,
};

/// `own` merged after the implicitly loaded MIM: a root both declare counts once.
fn after_mim(own: Counts) -> Counts {
    let shared = |own: usize| usize::from(own > 0);
    Counts {
        object_classes: own.object_classes + MIM.object_classes - shared(own.object_classes),
        interaction_classes: own.interaction_classes + MIM.interaction_classes
            - shared(own.interaction_classes),
        attributes: own.attributes + MIM.attributes,
        parameters: own.parameters + MIM.parameters,
        dimensions: own.dimensions + MIM.dimensions,
    }
}

fn load_errors(paths: &[PathBuf]) -> Vec<FomError> {
    match ObjectModel::load(paths, &|path| std::fs::read(path)) {
        Ok(model) => panic!("expected errors, loaded {}", model.counts()),
        Err(errors) => errors.0,
    }
}

/// (line, element) of each error, in line order, after checking they all name `file`.
fn places(errors: &[FomError], file: &Path) -> Vec<(u32, String)> {
    let mut places: Vec<(u32, String)> = errors
        .iter()
        .map(|e| {
            assert_eq!(e.file, file.display().to_string(), "{e}");
            (e.line, e.element.clone())
        })
        .collect();
    places.sort();
    places
}

fn place(line: u32, element: &str) -> (u32, String) {
    (line, element.to_owned())
}

#[test]
fn malformed_xml_is_one_error_at_its_line() {
    let file = data("malformed.xml");
    let errors = load_errors(std::slice::from_ref(&file));
    assert_eq!(places(&errors, &file), [place(9, "xml")]);
    assert!(
        errors[0].message.contains("not well-formed"),
        "{}",
        errors[0]
    );
}

#[test]
fn every_missing_name_is_reported() {
    let file = data("missing-name.xml");
    let errors = load_errors(std::slice::from_ref(&file));
    assert_eq!(
        places(&errors, &file),
        [
            place(8, "objectClass"),
            place(22, "parameter"),
            place(29, "dimension")
        ]
    );
    assert!(errors.iter().all(|e| e.message == "has no <name>"));
    assert_eq!(
        errors[0].to_string(),
        format!("{}:8: <objectClass>: has no <name>", file.display())
    );
}

#[test]
fn undeclared_transportation_and_dimension_are_reported_together() {
    let file = data("unknown-transportation.xml");
    let errors = load_errors(std::slice::from_ref(&file));
    assert_eq!(
        places(&errors, &file),
        [place(19, "transportation"), place(31, "dimension")]
    );
    let message = |line| {
        &errors
            .iter()
            .find(|e| e.line == line)
            .expect("an error on that line")
            .message
    };
    assert!(
        message(19).starts_with(
            "HLAobjectRoot.Pigeon.Message: transportation HLAcarrierPigeon is not declared"
        ),
        "{}",
        message(19)
    );
    assert_eq!(
        message(31),
        "HLAobjectRoot.Pigeon.Altitude: dimension Z is not declared"
    );
}

#[test]
fn a_conflicting_module_names_both_places_in_either_order() {
    let demo = PathBuf::from(DEMO);
    let conflicting = data("conflicting-demo.xml");
    let errors = load_errors(&[demo.clone(), conflicting.clone()]);
    // Vehicle's definition differs in its sharing and in two missing attributes (line 9)
    // and in Position's properties (line 11).
    assert_eq!(
        places(&errors, &conflicting),
        [
            place(9, "objectClass"),
            place(9, "objectClass"),
            place(9, "objectClass"),
            place(11, "attribute"),
            place(22, "objectClass"),
            place(28, "dimension")
        ]
    );
    let at = |line: u32| format!("{}:{line}", demo.display());
    let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
    for expected in [
        format!(
            "HLAobjectRoot.Vehicle: attribute Position is defined differently at {}: \
             updateType is not given here but \"Periodic\" there; \
             sharing is not given here but \"PublishSubscribe\" there; \
             transportation is \"HLAreliable\" here but \"HLAbestEffort\" there",
            at(24)
        ),
        format!(
            "HLAobjectRoot.Vehicle is defined differently at {}: \
             attribute Name is defined there (at {}) but not here",
            at(12),
            at(15)
        ),
        format!(
            "HLAobjectRoot.Vehicle is defined differently at {}: \
             sharing is not given here but \"PublishSubscribe\" there",
            at(12)
        ),
        format!(
            "Aircraft has parent HLAobjectRoot here but parent HLAobjectRoot.Vehicle at {}",
            at(61)
        ),
        format!(
            "dimension X: upper bound 500 conflicts with 1000 declared at {}",
            at(104)
        ),
    ] {
        assert!(
            messages.contains(&expected.as_str()),
            "{expected}\n{messages:#?}"
        );
    }

    // Loaded the other way round, the same conflicts are reported from the demo's side.
    let errors = load_errors(&[conflicting.clone(), demo.clone()]);
    assert_eq!(
        places(&errors, &demo),
        [
            place(12, "objectClass"),
            place(15, "attribute"),
            place(24, "attribute"),
            place(36, "attribute"),
            place(61, "objectClass"),
            place(104, "dimension")
        ]
    );
    let conflicting = conflicting.display().to_string();
    assert!(
        errors.iter().all(|e| e.message.contains(&conflicting)),
        "{errors:#?}"
    );
}

#[test]
fn an_unreadable_file_is_an_error_naming_it() {
    let missing = data("no-such-module.xml");
    let errors = load_errors(std::slice::from_ref(&missing));
    assert_eq!(places(&errors, &missing), [place(0, "file")]);
    assert!(
        errors[0].message.starts_with("cannot read"),
        "{}",
        errors[0]
    );
    // Shown as the path and why, without a line or element it has none of.
    let shown = errors[0].to_string();
    assert!(
        shown.starts_with(&format!("{}: cannot read: ", missing.display())),
        "{shown}"
    );
}

#[test]
fn the_demo_model_answers_lookups() {
    let model =
        ObjectModel::load(&[DEMO], &|path| std::fs::read(path)).unwrap_or_else(|e| panic!("{e}"));
    let vehicle = model.find_object_class("HLAobjectRoot.Vehicle").unwrap();
    assert_eq!(model.find_object_class("Vehicle"), Some(vehicle));
    let aircraft = model.find_object_class("Aircraft").unwrap();
    assert_eq!(model.find_object_class("Vehicle.Aircraft"), Some(aircraft));
    assert_eq!(model.find_object_class("Boat"), None);
    let root = model.find_object_class("HLAobjectRoot").unwrap();
    assert_eq!(
        model.object_ancestry(aircraft).collect::<Vec<_>>(),
        [aircraft, vehicle, root]
    );
    assert!(model.is_object_subclass(aircraft, vehicle));
    assert!(!model.is_object_subclass(vehicle, aircraft));

    let names = |handles: Vec<_>| -> Vec<String> {
        handles
            .into_iter()
            .map(|a| model.attribute(a).name.clone())
            .collect()
    };
    // HLAprivilegeToDeleteObject comes from the standard MIM's HLAobjectRoot.
    assert_eq!(
        names(model.available_attributes(aircraft)),
        [
            "HLAprivilegeToDeleteObject",
            "Name",
            "Position",
            "Velocity",
            "Altitude"
        ]
    );
    let position = model.find_attribute(aircraft, "Position").unwrap();
    let position = model.attribute(position);
    assert_eq!(position.class, vehicle);
    assert_eq!(position.transportation.name, "HLAbestEffort");
    assert!(!position.transportation.reliable);
    assert_eq!(position.order, Order::Receive);
    let bounds: Vec<(&str, u64)> = model
        .attribute_dimensions(position.handle)
        .map(|d| (d.name.as_str(), d.upper_bound))
        .collect();
    assert_eq!(bounds, [("X", 1000), ("Y", 1000)]);
    let name = model.find_attribute(vehicle, "Name").unwrap();
    assert!(model.attribute(name).transportation.reliable);
    assert_eq!(model.attribute_dimensions(name).count(), 0);

    let radio = model.find_interaction_class("Radio").unwrap();
    assert_eq!(
        model.find_interaction_class("HLAinteractionRoot.Radio"),
        Some(radio)
    );
    assert!(model.interaction_class(radio).transportation.reliable);
    assert_eq!(model.interaction_dimensions(radio).count(), 2);
    assert!(model.find_parameter(radio, "Sender").is_some());
    assert_eq!(model.find_parameter(radio, "Altitude"), None);
}

#[test]
fn a_scaffolding_module_merges_in_either_order_and_appended_renumbers_nothing() {
    let demo = PathBuf::from(DEMO);
    let extension = data("demo-extension.xml");
    let forward = ObjectModel::load(&[demo.clone(), extension.clone()], &|path| {
        std::fs::read(path)
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let backward = ObjectModel::load(&[extension, demo.clone()], &|path| std::fs::read(path))
        .unwrap_or_else(|e| panic!("{e}"));
    // Vehicle and the roots are declared in both modules and count once.
    assert_eq!(
        forward.counts(),
        after_mim(Counts {
            object_classes: 5,
            interaction_classes: 3,
            attributes: 6,
            parameters: 3,
            dimensions: 2,
        })
    );
    assert_eq!(backward.counts(), forward.counts());
    // Handles follow the order of the modules: another order numbers the same classes
    // differently, and so gives another fingerprint.
    assert_ne!(forward.fingerprint(), backward.fingerprint());
    let alone = ObjectModel::load(&[demo], &|path| std::fs::read(path)).unwrap();
    assert_ne!(forward.fingerprint(), alone.fingerprint());
    // Appended after the demo model, the extension leaves every handle of it as it was.
    for class in alone.object_classes() {
        assert_eq!(
            forward.find_object_class(&class.qualified_name),
            Some(class.handle)
        );
        assert_eq!(
            forward.object_class(class.handle).attributes,
            class.attributes
        );
    }
    for class in alone.interaction_classes() {
        assert_eq!(
            forward.find_interaction_class(&class.qualified_name),
            Some(class.handle)
        );
        assert_eq!(
            forward.interaction_class(class.handle).parameters,
            class.parameters
        );
    }
    for name in ["Boat", "Vehicle", "GroundVehicle", "HLAobjectRoot"] {
        assert!(backward.find_object_class(name).is_some(), "{name}");
    }

    let boat = forward.find_object_class("Vehicle.Boat").unwrap();
    let draft = forward.attribute(forward.find_attribute(boat, "Draft").unwrap());
    assert_eq!(draft.transportation.name, "HLAlowLatency");
    assert!(!draft.transportation.reliable);
    assert_eq!(draft.order, Order::TimeStamp);
    let distress = forward.find_interaction_class("Radio.Distress").unwrap();
    let radio = forward.find_interaction_class("Radio").unwrap();
    assert_eq!(forward.interaction_class(distress).parent, Some(radio));
    assert_eq!(forward.interaction_class(distress).order, Order::TimeStamp);
    assert_eq!(forward.available_parameters(distress).len(), 3);
}

/// Per module, counted over the XML with a Python script (ElementTree): every
/// objectClass / attribute / interactionClass / parameter element, roots included.
const RPR_MODULES: [(&str, Counts); 14] = [
    ("Aggregate", counts(3, 12, 0, 0)),
    ("Base", counts(3, 8, 0, 0)),
    ("Communication", counts(4, 21, 6, 20)),
    ("DER", counts(15, 114, 0, 0)),
    ("Enumerations", counts(0, 0, 0, 0)),
    ("Foundation", counts(0, 0, 0, 0)),
    ("Logistics", counts(0, 0, 7, 18)),
    ("Minefield", counts(9, 33, 9, 46)),
    ("Physical", counts(20, 55, 3, 15)),
    ("SE", counts(20, 48, 16, 32)),
    ("SIMAN", counts(0, 0, 43, 115)),
    ("Switches", counts(0, 0, 0, 0)),
    ("UA", counts(7, 20, 2, 4)),
    ("Warfare", counts(0, 0, 3, 27)),
];

const fn counts(
    object_classes: usize,
    attributes: usize,
    interaction_classes: usize,
    parameters: usize,
) -> Counts {
    Counts {
        object_classes,
        interaction_classes,
        attributes,
        parameters,
        dimensions: 0,
    }
}

#[test]
fn each_rpr_module_loads_alone_with_its_counts() {
    for (name, expected) in RPR_MODULES {
        let model = ObjectModel::load(&[rpr_module(name)], &|path| std::fs::read(path))
            .unwrap_or_else(|e| panic!("RPR {name} alone:\n{e}"));
        assert_eq!(model.counts(), after_mim(expected), "RPR {name}");
    }
    // The facts published with the modules (shared/fom/README.md).
    let declaring = |pick: fn(&Counts) -> usize| -> Vec<&str> {
        RPR_MODULES
            .iter()
            .filter(|(_, c)| pick(c) > 0)
            .map(|(name, _)| *name)
            .collect()
    };
    assert_eq!(
        declaring(|c| c.object_classes),
        [
            "Aggregate",
            "Base",
            "Communication",
            "DER",
            "Minefield",
            "Physical",
            "SE",
            "UA"
        ]
    );
    assert_eq!(
        declaring(|c| c.interaction_classes),
        [
            "Communication",
            "Logistics",
            "Minefield",
            "Physical",
            "SE",
            "SIMAN",
            "UA",
            "Warfare"
        ]
    );
}

#[test]
fn the_merged_rpr_fom_hangs_every_module_under_the_shared_roots() {
    let paths: Vec<PathBuf> = RPR_MODULES
        .iter()
        .map(|(name, _)| rpr_module(name))
        .collect();
    let model =
        ObjectModel::load(&paths, &|path| std::fs::read(path)).unwrap_or_else(|e| panic!("{e}"));
    // Merged by qualified name, from the same script: scaffolding repeats count once.
    assert_eq!(
        model.counts(),
        after_mim(Counts {
            object_classes: 64,
            interaction_classes: 79,
            attributes: 311,
            parameters: 277,
            dimensions: 0,
        })
    );
    let object_roots: Vec<&str> = model
        .object_classes()
        .iter()
        .filter(|c| c.parent.is_none())
        .map(|c| c.qualified_name.as_str())
        .collect();
    assert_eq!(object_roots, ["HLAobjectRoot"]);
    let interaction_roots: Vec<&str> = model
        .interaction_classes()
        .iter()
        .filter(|c| c.parent.is_none())
        .map(|c| c.qualified_name.as_str())
        .collect();
    assert_eq!(interaction_roots, ["HLAinteractionRoot"]);

    // BaseEntity is declared in Base and repeated as scaffolding in three other modules.
    let base = model.find_object_class("BaseEntity").unwrap();
    let aircraft = model
        .find_object_class("HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.Aircraft")
        .unwrap();
    assert_eq!(model.find_object_class("Aircraft"), Some(aircraft));
    assert!(model.is_object_subclass(aircraft, base));
    assert_eq!(model.object_class(base).attributes.len(), 5);
    let spatial = model.find_attribute(aircraft, "Spatial").unwrap();
    let spatial = model.attribute(spatial);
    assert_eq!(spatial.class, base);
    assert_eq!(spatial.data_type, "SpatialVariantStruct");
    assert_eq!(spatial.transportation.name, "HLAbestEffort");
    assert_eq!(spatial.order, Order::Receive);
}

/// Every prefix of a valid module and every one-line deletion from it: loading returns
/// errors that name the file and a line inside it, and never panics.
#[test]
fn mangled_modules_give_errors_not_panics() {
    let text = std::fs::read_to_string(DEMO).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let last_line = lines.len() as u32 + 1;
    // Whether the variant loaded; if not, its errors must point into it.
    let loads = |variant: &str| match ObjectModel::from_sources(&[("mangled.xml", variant)]) {
        Ok(_) => true,
        Err(errors) => {
            assert!(!errors.0.is_empty());
            for e in &errors.0 {
                assert_eq!(e.file, "mangled.xml");
                assert!((1..=last_line).contains(&e.line), "{e}");
            }
            false
        }
    };
    assert!(text.is_ascii());
    let complete = text.trim_end().len();
    for end in 0..text.len() {
        assert_eq!(
            loads(&text[..end]),
            end >= complete,
            "prefix of {end} bytes"
        );
    }
    for skip in 0..lines.len() {
        let variant: Vec<&str> = lines
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != skip)
            .map(|(_, l)| *l)
            .collect();
        loads(&variant.join("\n"));
    }
}

#[test]
fn absurdly_deep_classes_are_an_error_not_a_stack_overflow() {
    let depth = 20_000;
    let mut text = String::from("<objectModel><objects><objectClass><name>HLAobjectRoot</name>\n");
    for _ in 0..depth {
        text.push_str("<objectClass><name>C</name>\n");
    }
    text.push_str(&"</objectClass>".repeat(depth + 1));
    text.push_str("</objects></objectModel>");
    let errors = ObjectModel::from_sources(&[("deep.xml", &text)])
        .unwrap_err()
        .0;
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(
        (errors[0].line, errors[0].element.as_str()),
        (66, "objectClass")
    );
    assert!(
        errors[0].message.contains("nest deeper than 64"),
        "{}",
        errors[0]
    );
}

#[test]
fn the_same_name_under_two_parents_is_fine_within_one_module_but_not_ambiguous() {
    let text = "<objectModel><objects><objectClass><name>HLAobjectRoot</name>\
        <objectClass><name>Car</name><objectClass><name>Engine</name></objectClass></objectClass>\
        <objectClass><name>Ship</name><objectClass><name>Engine</name></objectClass></objectClass>\
        </objectClass></objects></objectModel>";
    let model = ObjectModel::from_sources(&[("engines.xml", text)]).unwrap();
    assert_eq!(model.find_object_class("Engine"), None);
    let car_engine = model.find_object_class("Car.Engine").unwrap();
    let ship_engine = model.find_object_class("Ship.Engine").unwrap();
    assert_ne!(car_engine, ship_engine);
}
