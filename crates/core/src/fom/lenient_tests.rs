//! Object models as people write them (issue 31, item 5): sloppiness that changes nothing
//! at run time loads with exactly one warning naming the file and line; the variants that
//! would change meaning are still refused.

use super::*;

macro_rules! fixture {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../tests/data/fom/lenient/", $name)),
        )
    };
}

const UNDECLARED_XSI: (&str, &str) = fixture!("undeclared-xsi.xml");
const ORDER_CASE: (&str, &str) = fixture!("order-case.xml");
const REPEATED_ENUMERATOR: (&str, &str) = fixture!("repeated-enumerator.xml");
const RESTATED_INHERITED: (&str, &str) = fixture!("restated-inherited-attribute.xml");
const RESTATED_MIM: (&str, &str) = fixture!("restated-mim.xml");

fn model(sources: &[(&str, &str)]) -> ObjectModel {
    ObjectModel::from_sources(sources).unwrap_or_else(|e| panic!("{e}"))
}

fn errors(sources: &[(&str, &str)]) -> Vec<FomError> {
    match ObjectModel::from_sources(sources) {
        Ok(model) => panic!("expected errors, loaded with {:#?}", model.warnings()),
        Err(e) => e.0,
    }
}

/// The one warning of `source` loaded alone, checked to be at `line` of its file.
fn only_warning(source: (&str, &str), line: u32, element: &str) -> (ObjectModel, FomWarning) {
    let model = model(&[source]);
    let [warning] = model.warnings() else {
        panic!("expected one warning: {:#?}", model.warnings());
    };
    let warning = warning.clone();
    assert_eq!(
        (
            warning.file.as_str(),
            warning.line,
            warning.element.as_str()
        ),
        (source.0, line, element),
        "{warning}"
    );
    (model, warning)
}

#[test]
fn a_root_using_xsi_without_declaring_it_loads_with_its_lines_kept() {
    let (model, warning) = only_warning(UNDECLARED_XSI, 3, "objectModel");
    assert!(warning.message.contains("xmlns:xsi"), "{warning}");
    assert!(model.find_object_class("Buoy").is_some());
    // Declared on the root's own line, the namespace moves no line: an error further down
    // is reported where it is in the file.
    let broken = UNDECLARED_XSI
        .1
        .replace("<dataType>HLAboolean</dataType>", "<order>Whenever</order>");
    let e = errors(&[("broken.xml", &broken)]);
    assert_eq!((e.len(), e[0].line), (1, 10), "{e:#?}");
    // Another undeclared prefix is still not well-formed XML.
    let other = UNDECLARED_XSI
        .1
        .replace("xsi:schemaLocation", "foo:schemaLocation");
    let e = errors(&[("other.xml", &other)]);
    assert_eq!(e[0].element, "xml", "{e:#?}");
}

#[test]
fn the_xsi_prefix_declared_is_no_warning() {
    let declared = UNDECLARED_XSI.1.replace(
        "<objectModel ",
        "<objectModel xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" ",
    );
    assert!(model(&[("declared.xml", &declared)]).warnings().is_empty());
}

#[test]
fn an_order_in_another_letter_case_is_read_as_the_standard_spells_it() {
    let (model, warning) = only_warning(ORDER_CASE, 12, "order");
    assert!(
        warning.message.contains("Timestamp is spelled TimeStamp"),
        "{warning}"
    );
    let buoy = model.find_object_class("Buoy").unwrap();
    let light = model.find_attribute(buoy, "Light").unwrap();
    assert_eq!(model.attribute(light).order, Order::TimeStamp);
    // A value that is no spelling of Receive or TimeStamp is still refused.
    let wrong = ORDER_CASE.1.replace("Timestamp", "Timely");
    let e = errors(&[("wrong.xml", &wrong)]);
    assert!(e[0].message.contains("order Timely is neither"), "{e:#?}");
}

#[test]
fn every_enumerated_value_the_omt_spells_is_read_in_any_case() {
    let text = r#"<objectModel>
<objects><objectClass><name>HLAobjectRoot</name>
<objectClass><name>Buoy</name><sharing>publishsubscribe</sharing>
<attribute><name>Light</name><dataType>Flash</dataType><updateType>CONDITIONAL</updateType>
<ownership>divestacquire</ownership><sharing>publishSubscribe</sharing>
<transportation>HLAReliable</transportation><order>receive</order></attribute>
</objectClass></objectClass></objects>
<interactions><interactionClass><name>HLAinteractionRoot</name>
<interactionClass><name>Horn</name><transportation>hlabesteffort</transportation>
<order>TIMESTAMP</order></interactionClass></interactionClass></interactions>
<transportations><transportation><name>Fog</name><reliable>yes</reliable></transportation>
</transportations>
<dataTypes>
<basicDataRepresentations><basicData><name>Raw16</name><size>16</size><endian>big</endian>
</basicData></basicDataRepresentations>
<arrayDataTypes><arrayData><name>Flash</name><dataType>Raw16</dataType>
<cardinality>dynamic</cardinality><encoding>HLAVariableArray</encoding></arrayData>
</arrayDataTypes>
<fixedRecordDataTypes><fixedRecordData><name>Pair</name><encoding>HLAFixedRecord</encoding>
<field><name>A</name><dataType>Raw16</dataType></field></fixedRecordData>
</fixedRecordDataTypes>
</dataTypes>
</objectModel>"#;
    let model = model(&[("cases.xml", text)]);
    let respelled: Vec<&str> = model
        .warnings()
        .iter()
        .map(|w| w.element.as_str())
        .collect();
    assert_eq!(
        respelled,
        [
            "sharing",
            "updateType",
            "ownership",
            "sharing",
            "transportation",
            "order",
            "transportation",
            "order",
            "reliable",
            "endian",
            "cardinality",
            "encoding",
            "encoding"
        ],
        "{:#?}",
        model.warnings()
    );
    let horn = model.find_interaction_class("Horn").unwrap();
    let horn = model.interaction_class(horn);
    assert_eq!(
        (horn.order, horn.transportation.reliable),
        (Order::TimeStamp, false)
    );
    let fog = model.transportation_type_handle("Fog").unwrap();
    assert!(model.transportation_type(fog).unwrap().reliable);
    assert_eq!(
        model.data_types().get("Flash").map(|t| &t.kind),
        Some(&DataTypeKind::Array {
            element: "Raw16".into(),
            cardinality: Cardinality::Dynamic,
            encoding: ArrayEncoding::Variable,
        })
    );
}

#[test]
fn values_respelled_alike_merge_with_values_spelled_right() {
    let right = ORDER_CASE.1.replace("Timestamp", "TimeStamp");
    let model = model(&[ORDER_CASE, ("right.xml", &right)]);
    assert_eq!(model.warnings().len(), 1, "{:#?}", model.warnings());
}

#[test]
fn an_enumerator_repeated_with_the_same_value_is_ignored() {
    let (model, warning) = only_warning(REPEATED_ENUMERATOR, 18, "enumerator");
    assert!(
        warning.message.contains("LightColour: enumerator Red"),
        "{warning}"
    );
    let Some(DataTypeKind::Enumerated { enumerators, .. }) =
        model.data_types().get("LightColour").map(|t| &t.kind)
    else {
        panic!("LightColour is an enumeration");
    };
    let names: Vec<&str> = enumerators.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["Red", "Green"]);
}

#[test]
fn an_enumerator_repeated_with_another_value_is_refused() {
    let text = REPEATED_ENUMERATOR.1.replacen(
        "<name>Red</name>\n                    <value>1</value>",
        "<name>Red</name>\n                    <value>3</value>",
        2,
    );
    let text = text.replacen("<value>3</value>", "<value>1</value>", 1);
    let e = errors(&[("two-reds.xml", &text)]);
    assert_eq!((e.len(), e[0].line), (1, 18), "{e:#?}");
    assert!(e[0].message.contains("different values"), "{}", e[0]);
}

#[test]
fn an_inherited_attribute_restated_alike_is_the_inherited_one() {
    let (model, warning) = only_warning(RESTATED_INHERITED, 18, "attribute");
    assert!(
        warning
            .message
            .contains("already inherited from HLAobjectRoot.Buoy"),
        "{warning}"
    );
    let buoy = model.find_object_class("Buoy").unwrap();
    let lighthouse = model.find_object_class("Buoy.Lighthouse").unwrap();
    let light = model.find_attribute(buoy, "Light").unwrap();
    assert_eq!(model.find_attribute(lighthouse, "Light"), Some(light));
    let keeper = model.find_attribute(lighthouse, "Keeper").unwrap();
    assert_eq!(model.object_class(lighthouse).attributes, [keeper]);
    // Restated by name only, it is the inherited one too.
    let by_name = RESTATED_INHERITED.1.replacen(
        "<dataType>HLAboolean</dataType>\n                        <transportation>HLAreliable</transportation>\n                        <order>Receive</order>\n",
        "",
        1,
    );
    assert_ne!(by_name, RESTATED_INHERITED.1);
    assert_eq!(model_warnings(&by_name), 1);
}

fn model_warnings(text: &str) -> usize {
    model(&[("restated.xml", text)]).warnings().len()
}

#[test]
fn an_inherited_attribute_restated_differently_is_refused() {
    for (from, to) in [
        ("<dataType>HLAboolean</dataType>\n                        <transportation>", "<dataType>HLAoctet</dataType>\n                        <transportation>"),
        ("<transportation>HLAreliable</transportation>\n                        <order>Receive</order>\n                    </attribute>\n                    <attribute>", "<transportation>HLAbestEffort</transportation>\n                        <order>Receive</order>\n                    </attribute>\n                    <attribute>"),
        ("<order>Receive</order>\n                    </attribute>\n                    <attribute>", "<order>TimeStamp</order>\n                    </attribute>\n                    <attribute>"),
    ] {
        let text = RESTATED_INHERITED.1.replacen(from, to, 1);
        assert_ne!(text, RESTATED_INHERITED.1, "{from}");
        let e = errors(&[("differs.xml", &text)]);
        assert_eq!((e.len(), e[0].line), (1, 18), "{e:#?}");
        assert!(e[0].message.contains("declared here differently"), "{}", e[0]);
    }
}

#[test]
fn a_mim_class_restated_in_part_reads_as_the_mims() {
    let (model, warning) = only_warning(RESTATED_MIM, 6, "objectClass");
    assert!(
        warning
            .message
            .contains("HLAobjectRoot is restated here with 1 of the"),
        "{warning}"
    );
    assert!(warning.message.contains(STANDARD_MIM_FILE), "{warning}");
    let buoy = model.find_object_class("Buoy").unwrap();
    let privilege = model
        .find_attribute(buoy, "HLAprivilegeToDeleteObject")
        .unwrap();
    assert_eq!(privilege, AttributeHandle(0));
    assert_eq!(model.counts().object_classes, tests::MIM.object_classes + 1);
    // Restated by name only, HLAmanager is plain scaffolding: no warning for it.
    let scaffolding_only = RESTATED_MIM.1.replacen(
        "<attribute>\n                <name>HLAprivilegeToDeleteObject</name>\n                <dataType>HLAtoken</dataType>\n            </attribute>",
        "",
        1,
    );
    assert_ne!(scaffolding_only, RESTATED_MIM.1);
    assert_eq!(model_warnings(&scaffolding_only), 0);
}

#[test]
fn a_mim_class_restated_differently_is_refused() {
    let text = RESTATED_MIM.1.replacen(
        "<dataType>HLAtoken</dataType>",
        "<dataType>HLAboolean</dataType>",
        1,
    );
    let e = errors(&[("differs.xml", &text)]);
    assert!(
        e.iter().any(|e| e.line == 8
            && e.message
                .contains("attribute HLAprivilegeToDeleteObject is defined differently")),
        "{e:#?}"
    );
    // A class property that differs from the MIM's is refused as well.
    let text = RESTATED_MIM.1.replacen(
        "<name>HLAobjectRoot</name>",
        "<name>HLAobjectRoot</name><sharing>Publish</sharing>",
        1,
    );
    let e = errors(&[("sharing.xml", &text)]);
    assert!(
        e.iter()
            .any(|e| e.line == 6 && e.message.contains("sharing is \"Publish\" here")),
        "{e:#?}"
    );
}

#[test]
fn a_partial_restatement_before_the_full_definition_reads_as_it_too() {
    let full = RESTATED_INHERITED;
    let partial = "<objectModel><objects><objectClass><name>HLAobjectRoot</name>\n\
        <objectClass><name>Buoy</name>\n<attribute><name>Light</name></attribute>\n\
        </objectClass></objectClass></objects></objectModel>";
    let model = model(&[("partial.xml", partial), full]);
    let lines: Vec<(&str, u32)> = (model.warnings().iter())
        .map(|w| (w.file.as_str(), w.line))
        .collect();
    // The partial Buoy (line 2), and Lighthouse's restated Light.
    assert_eq!(
        lines,
        [("partial.xml", 2), (full.0, 18)],
        "{:#?}",
        model.warnings()
    );
    let buoy = model.find_object_class("Buoy").unwrap();
    let light = model.find_attribute(buoy, "Light").unwrap();
    assert_eq!(model.attribute(light).data_type, "HLAboolean");
}

#[test]
fn the_rpr_fom_loads_with_no_warnings() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fom/rpr-2.0");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let model =
        ObjectModel::load(&files, &|path| std::fs::read(path)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        model.warnings(),
        [],
        "RPR FOM 2.0 is written as the standard says"
    );
}
