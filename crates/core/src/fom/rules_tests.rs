//! The standard's rules for object models: the built-in MIM, dimensions without a bound,
//! identical definitions unless scaffolding, update rates, refused old formats, and the
//! support services' names and handles.

use super::tests::MIM;
use super::*;

const DEMO: &str = include_str!("../../../../foms/trellis-demo.xml");
const EXTENSION: &str = include_str!("../../tests/data/fom/demo-extension.xml");

fn errors(sources: &[(&str, &str)]) -> Vec<FomError> {
    match ObjectModel::from_sources(sources) {
        Ok(model) => panic!("expected errors, loaded {}", model.counts()),
        Err(e) => e.0,
    }
}

fn model(sources: &[(&str, &str)]) -> ObjectModel {
    ObjectModel::from_sources(sources).unwrap_or_else(|e| panic!("{e}"))
}

/// A module with object class `Tank` (under the root) holding `body`.
fn tank(body: &str) -> String {
    format!(
        "<objectModel xmlns=\"http://standards.ieee.org/IEEE1516-2010\">\n\
         <objects>\n<objectClass><name>HLAobjectRoot</name>\n\
         <objectClass><name>Tank</name>\n{body}\n</objectClass>\n\
         </objectClass>\n</objects>\n</objectModel>"
    )
}

fn attribute(name: &str, data_type: &str) -> String {
    format!(
        "<attribute><name>{name}</name><dataType>{data_type}</dataType>\
         <transportation>HLAreliable</transportation><order>Receive</order></attribute>"
    )
}

#[test]
fn the_standard_mim_loads_implicitly_with_the_mom() {
    let model = model(&[("trellis-demo.xml", DEMO)]);
    assert_eq!(model.modules(), [STANDARD_MIM_FILE, "trellis-demo.xml"]);
    let federate = model
        .find_object_class("HLAobjectRoot.HLAmanager.HLAfederate")
        .unwrap();
    assert!(model
        .find_attribute(federate, "HLAfederateHandle")
        .is_some());
    let root = model.find_object_class("HLAobjectRoot").unwrap();
    let privilege = model
        .find_attribute(root, "HLAprivilegeToDeleteObject")
        .unwrap();
    let vehicle = model.find_object_class("Vehicle").unwrap();
    assert_eq!(
        model.find_attribute(vehicle, "HLAprivilegeToDeleteObject"),
        Some(privilege)
    );
    let federation = model.find_object_class("HLAmanager.HLAfederation").unwrap();
    assert!(model.find_attribute(federation, "HLAautoProvide").is_some());

    let invocation = model
        .find_interaction_class("HLAmanager.HLAfederate.HLAreport.HLAreportServiceInvocation")
        .unwrap();
    assert!(model
        .find_parameter(invocation, "HLAserialNumber")
        .is_some());
    // Inherited from HLAmanager.HLAfederate.
    assert!(model.find_parameter(invocation, "HLAfederate").is_some());
    let names = |dims: Vec<DimensionHandle>| -> Vec<String> {
        dims.into_iter()
            .map(|d| model.dimension(d).name.clone())
            .collect()
    };
    assert_eq!(
        names(model.interaction_class(invocation).dimensions.clone()),
        ["HLAfederate", "HLAserviceGroup"]
    );
    let resign = model
        .find_interaction_class("HLAservice.HLAresignFederationExecution")
        .or_else(|| {
            model.find_interaction_class(
                "HLAmanager.HLAfederate.HLAservice.HLAresignFederationExecution",
            )
        })
        .unwrap();
    // The standard gives the HLAservice interactions no dimensions (only the HLAreport ones).
    assert!(model.interaction_class(resign).dimensions.is_empty());
    let federate_dimension = model.dimension_handle("HLAfederate").unwrap();
    assert_eq!(
        model.dimension(federate_dimension).upper_bound,
        RTI_CHOSEN_UPPER_BOUND
    );
    let group = model.dimension_handle("HLAserviceGroup").unwrap();
    assert_eq!(model.dimension(group).upper_bound, 7);
    assert!(ServiceGroup::SupportServices.normalize() < 7);
}

#[test]
fn the_standard_mim_given_explicitly_replaces_the_implicit_one() {
    let implicit = model(&[("trellis-demo.xml", DEMO)]);
    // By file name, as a path.
    let by_file = model(&[
        ("foms/HLAstandardMIM.xml", STANDARD_MIM_XML),
        ("trellis-demo.xml", DEMO),
    ]);
    assert_eq!(by_file.modules().len(), 2);
    assert_eq!(by_file.fingerprint(), implicit.fingerprint());
    // By its own model identification name, under another file name.
    let by_name = model(&[
        ("trellis-demo.xml", DEMO),
        ("mim-copy.xml", STANDARD_MIM_XML),
    ]);
    assert_eq!(by_name.modules().len(), 2);
    assert_eq!(by_name.fingerprint(), implicit.fingerprint());
    // Alone, it is the whole model.
    assert_eq!(
        model(&[(STANDARD_MIM_NAME, STANDARD_MIM_XML)]).counts(),
        MIM
    );
    assert!(is_standard_mim_designator("HLAstandardMIM"));
    assert!(is_standard_mim_designator("/opt/foms/HLAstandardMIM.xml"));
    assert!(!is_standard_mim_designator("RPR-Base_v2.0.xml"));
}

#[test]
fn a_mim_of_the_callers_replaces_the_standard_one() {
    let small_mim = "<objectModel><modelIdentification><name>Small MIM</name></modelIdentification>\
        <objects><objectClass><name>HLAobjectRoot</name></objectClass></objects>\
        <interactions><interactionClass><name>HLAinteractionRoot</name></interactionClass></interactions>\
        </objectModel>";
    let model =
        ObjectModel::from_sources_with_mim(("small.xml", small_mim), &[("trellis-demo.xml", DEMO)])
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(model.find_object_class("HLAmanager"), None);
    assert_eq!(model.counts().object_classes, 4);
    assert_eq!(model.modules(), ["small.xml", "trellis-demo.xml"]);
}

#[test]
fn a_dimension_without_an_upper_bound_gets_the_rtis_bound() {
    let dimension = |bound: &str| {
        format!(
            "<objectModel><dimensions><dimension><name>Frequency</name>\
             <dataType>HLAinteger32BE</dataType>{bound}</dimension></dimensions></objectModel>"
        )
    };
    let unbounded = dimension("");
    let model_alone = model(&[("free.xml", &unbounded)]);
    let frequency = model_alone.dimension_handle("Frequency").unwrap();
    assert_eq!(
        model_alone.dimension(frequency).upper_bound,
        RTI_CHOSEN_UPPER_BOUND
    );
    assert_eq!(RTI_CHOSEN_UPPER_BOUND, (1 << 32) - 1);
    // Where another module bounds it, that bound holds, in either order.
    let bounded = dimension("<upperBound>3000</upperBound>");
    for sources in [
        [
            ("free.xml", unbounded.as_str()),
            ("bound.xml", bounded.as_str()),
        ],
        [
            ("bound.xml", bounded.as_str()),
            ("free.xml", unbounded.as_str()),
        ],
    ] {
        let merged = model(&sources);
        let frequency = merged.dimension_handle("Frequency").unwrap();
        assert_eq!(merged.dimension(frequency).upper_bound, 3000);
    }
}

#[test]
fn two_modules_adding_different_attributes_to_one_class_is_inconsistent() {
    let first = tank(&attribute("Speed", "HLAfloat32BE"));
    let second = tank(&attribute("Armour", "HLAinteger32BE"));
    let e = errors(&[("first.xml", &first), ("second.xml", &second)]);
    let shown: Vec<String> = e.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        shown,
        [
            "second.xml:5: <attribute>: HLAobjectRoot.Tank is defined differently at \
             first.xml:4: attribute Armour is defined here but not there",
            "second.xml:4: <objectClass>: HLAobjectRoot.Tank is defined differently at \
             first.xml:4: attribute Speed is defined there (at first.xml:5) but not here",
        ]
    );
    assert!(e.iter().all(|e| e.kind() == FddErrorKind::Inconsistent));
}

#[test]
fn a_class_property_that_differs_is_named() {
    let first = tank(&format!(
        "<sharing>Publish</sharing>{}",
        attribute("Speed", "HLAfloat32BE")
    ));
    let second = tank(&format!(
        "<sharing>Subscribe</sharing>{}",
        attribute("Speed", "HLAfloat32BE")
    ));
    let e = errors(&[("first.xml", &first), ("second.xml", &second)]);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!(
        e[0].to_string(),
        "second.xml:4: <objectClass>: HLAobjectRoot.Tank is defined differently at first.xml:4: \
         sharing is \"Subscribe\" here but \"Publish\" there"
    );

    let radio = |order: &str| {
        format!(
            "<objectModel><interactions><interactionClass><name>HLAinteractionRoot</name>\n\
             <interactionClass><name>Radio</name><order>{order}</order>\
             <parameter><name>Text</name><dataType>HLAunicodeString</dataType></parameter>\
             </interactionClass></interactionClass></interactions></objectModel>"
        )
    };
    let e = errors(&[("a.xml", &radio("Receive")), ("b.xml", &radio("TimeStamp"))]);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!(
        e[0].message,
        "HLAinteractionRoot.Radio is defined differently at a.xml:2: \
         order is \"TimeStamp\" here but \"Receive\" there"
    );
}

#[test]
fn scaffolding_merges_whatever_it_says_about_the_class() {
    // The full definition, and a module that repeats Tank only to hang Heavy under it
    // (with a sharing of its own, which scaffolding may say).
    let full = tank(&format!(
        "<sharing>PublishSubscribe</sharing>{}",
        attribute("Speed", "HLAfloat32BE")
    ));
    let scaffolding = tank(&format!(
        "<sharing>Neither</sharing><objectClass><name>Heavy</name>{}</objectClass>",
        attribute("Armour", "HLAinteger32BE")
    ));
    for sources in [
        [
            ("full.xml", full.as_str()),
            ("scaffolding.xml", scaffolding.as_str()),
        ],
        [
            ("scaffolding.xml", scaffolding.as_str()),
            ("full.xml", full.as_str()),
        ],
    ] {
        let model = model(&sources);
        let heavy = model.find_object_class("Tank.Heavy").unwrap();
        let speed = model.find_attribute(heavy, "Speed").unwrap();
        assert_eq!(model.attribute(speed).data_type, "HLAfloat32BE");
        assert!(model.find_attribute(heavy, "Armour").is_some());
    }
    // The same full definition twice is fine too.
    let twice = model(&[("a.xml", &full), ("b.xml", &full)]);
    assert_eq!(twice.counts().attributes, MIM.attributes + 1);
}

#[test]
fn update_rates_load_merge_and_conflict() {
    let rates =
        |body: &str| format!("<objectModel><updateRates>{body}</updateRates></objectModel>");
    let rate = |name: &str, value: &str| {
        format!("<updateRate><name>{name}</name><rate>{value}</rate></updateRate>")
    };
    let first = rates(&(rate("Slow", "1") + &rate("Fast", "50.5")));
    let second = rates(&(rate("Fast", "50.50") + &rate("Medium", "10")));
    let merged = model(&[("first.xml", &first), ("second.xml", &second)]);
    let listed: Vec<(&str, f64)> = merged
        .update_rates()
        .iter()
        .map(|r| (r.name.as_str(), r.rate))
        .collect();
    assert_eq!(listed, [("Fast", 50.5), ("Medium", 10.0), ("Slow", 1.0)]);
    assert_eq!(merged.update_rate_value("Medium"), Ok(10.0));
    assert_eq!(
        merged.update_rate_value("Never"),
        Err(LookupError::InvalidUpdateRateDesignator("Never".into()))
    );
    assert_ne!(
        merged.fingerprint(),
        model(&[("first.xml", &first)]).fingerprint()
    );

    let conflicting = rates(&rate("Fast", "60"));
    let e = errors(&[("first.xml", &first), ("third.xml", &conflicting)]);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!(
        e[0].to_string(),
        "third.xml:1: <updateRate>: update rate Fast: rate 60 conflicts with 50.5 defined at first.xml:1"
    );
    let bad = rates(&rate("Broken", "-3"));
    let e = errors(&[("bad.xml", &bad)]);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(
        e[0].message
            .contains("rate \"-3\" is not a positive number"),
        "{}",
        e[0]
    );
}

#[test]
fn an_ieee_1516_2000_model_is_refused_as_such() {
    let old = "<?xml version=\"1.0\"?>\n\
        <objectModel DTDversion=\"1516.2\" name=\"Old\" type=\"FOM\" version=\"1.0\">\n\
        <objects><objectClass name=\"HLAobjectRoot\" sharing=\"Neither\">\n\
        <attribute name=\"HLAprivilegeToDeleteObject\" dataType=\"HLAtoken\"/>\n\
        </objectClass></objects></objectModel>";
    let e = errors(&[("old.xml", old)]);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!(
        e[0].to_string(),
        "old.xml:2: <objectModel>: IEEE 1516-2000 object models are not supported; \
         convert to IEEE 1516-2010 (HLA Evolved) format"
    );
    assert_eq!(e[0].kind(), FddErrorKind::ErrorReading);
    // Without the root's attributes, names given as XML attributes give it away.
    let bare =
        "<objectModel><objects><objectClass name=\"HLAobjectRoot\"/></objects></objectModel>";
    let e = errors(&[("bare.xml", bare)]);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(e[0]
        .message
        .starts_with("IEEE 1516-2000 object models are not supported"));
    // An HLA 1.3 FED file.
    let fed = ";; an HLA 1.3 FED file\n(FED\n  (Federation Old)\n  (FEDversion v1.3)\n)\n";
    let e = errors(&[("old.fed", fed)]);
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!(
        e[0].to_string(),
        "old.fed:2: <FED>: HLA 1.3 FED files are not supported; \
         convert to IEEE 1516-2010 (HLA Evolved) format"
    );
}

#[test]
fn transportation_types_have_names_and_stable_handles() {
    let model = model(&[("trellis-demo.xml", DEMO), ("extension.xml", EXTENSION)]);
    let listed: Vec<(u32, &str, bool)> = model
        .transportation_types()
        .iter()
        .map(|t| (t.handle.0, t.name.as_str(), t.reliable))
        .collect();
    assert_eq!(
        listed,
        [
            (0, "HLAreliable", true),
            (1, "HLAbestEffort", false),
            (2, "HLAlowLatency", false)
        ]
    );
    let low = model.transportation_type_handle("HLAlowLatency").unwrap();
    assert_eq!(
        model.transportation_type(low).unwrap().name,
        "HLAlowLatency"
    );
    assert_eq!(
        model.transportation_type_handle("HLAcarrierPigeon"),
        Err(LookupError::InvalidTransportationName(
            "HLAcarrierPigeon".into()
        ))
    );
    assert_eq!(
        model.transportation_type(TransportationTypeHandle(9)),
        Err(LookupError::InvalidTransportationType(9))
    );
    assert_eq!(Order::from_name("TimeStamp"), Ok(Order::TimeStamp));
    assert_eq!(Order::Receive.name(), "Receive");
    assert_eq!(
        Order::from_name("timestamp"),
        Err(LookupError::InvalidOrderName("timestamp".into()))
    );
}

#[test]
fn dimensions_by_name_handle_and_class() {
    let model = model(&[("trellis-demo.xml", DEMO)]);
    let x = model.dimension_handle("X").unwrap();
    let dimension = model.dimension_checked(x).unwrap();
    assert_eq!(
        (dimension.name.as_str(), dimension.upper_bound),
        ("X", 1000)
    );
    assert_eq!(
        model.dimension_handle("Z"),
        Err(LookupError::NameNotFound("Z".into()))
    );
    let beyond = DimensionHandle(model.dimensions().len() as u32);
    assert_eq!(
        model.dimension_checked(beyond).map(|d| d.handle),
        Err(LookupError::InvalidDimensionHandle(beyond.0))
    );

    let vehicle = model.find_object_class("Vehicle").unwrap();
    let aircraft = model.find_object_class("Vehicle.Aircraft").unwrap();
    let position = model.find_attribute(vehicle, "Position").unwrap();
    let y = model.dimension_handle("Y").unwrap();
    // Inherited attributes have their dimensions in subclasses too.
    assert_eq!(
        model.available_dimensions_for_class_attribute(aircraft, position),
        Ok(vec![x, y])
    );
    let altitude = model.find_attribute(aircraft, "Altitude").unwrap();
    assert_eq!(
        model.available_dimensions_for_class_attribute(vehicle, altitude),
        Err(LookupError::AttributeNotDefined {
            class: "HLAobjectRoot.Vehicle".into(),
            attribute: "Altitude".into()
        })
    );
    assert_eq!(
        model.available_dimensions_for_class_attribute(ObjectClassHandle(9999), position),
        Err(LookupError::InvalidObjectClassHandle(9999))
    );
    assert_eq!(
        model.available_dimensions_for_class_attribute(vehicle, AttributeHandle(9999)),
        Err(LookupError::InvalidAttributeHandle(9999))
    );
    let radio = model.find_interaction_class("Radio").unwrap();
    assert_eq!(
        model.available_dimensions_for_interaction_class(radio),
        Ok(vec![x, y])
    );
    assert_eq!(
        model.available_dimensions_for_interaction_class(InteractionClassHandle(9999)),
        Err(LookupError::InvalidInteractionClassHandle(9999))
    );
}

/// The data-type loader resolves every `<dataType>` reference, so the MIM must define
/// each type its own classes, dimensions and types name.
#[test]
fn every_data_type_the_mim_names_it_defines() {
    let doc = roxmltree::Document::parse(STANDARD_MIM_XML).unwrap();
    let defining = [
        "basicData",
        "simpleData",
        "enumeratedData",
        "arrayData",
        "fixedRecordData",
        "variantRecordData",
    ];
    let defined: Vec<&str> = doc
        .descendants()
        .filter(|n| defining.contains(&n.tag_name().name()))
        .filter_map(|n| n.children().find(|c| c.has_tag_name("name")))
        .filter_map(|n| n.text())
        .collect();
    let referenced = doc
        .descendants()
        .filter(|n| n.has_tag_name("dataType") || n.has_tag_name("representation"))
        .filter_map(|n| n.text());
    let mut count = 0;
    for name in referenced {
        assert!(defined.contains(&name), "{name} is named but not defined");
        count += 1;
    }
    assert!(
        count > 150 && defined.len() > 40,
        "{count} references, {} types",
        defined.len()
    );
    // The HLA types RPR FOM 2.0 relies on the MIM for.
    for name in [
        "HLAoctet",
        "HLAfloat32BE",
        "HLAinteger16BE",
        "HLAASCIIchar",
        "HLAunicodeString",
    ] {
        assert!(defined.contains(&name), "{name}");
    }
}
