//! Data types from small modules written here: merging, resolution and the checks.

use crate::fom::{Cardinality, DataTypeKind, FomError, ObjectModel, Selector};

fn module(data_types: &str) -> String {
    format!("<objectModel>\n<dataTypes>\n{data_types}\n</dataTypes>\n</objectModel>\n")
}

fn errors(sources: &[(&str, &str)]) -> Vec<FomError> {
    match ObjectModel::from_sources(sources) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e.0,
    }
}

const RECORD: &str = "<fixedRecordDataTypes>
<fixedRecordData><name>Pair</name>
<field><name>A</name><dataType>HLAoctet</dataType></field>
<field><name>B</name><dataType>HLAinteger32BE</dataType></field>
<encoding>HLAfixedRecord</encoding></fixedRecordData>
</fixedRecordDataTypes>";

/// Data types the built-in HLAstandardMIM declares beyond the predefined ones.
const MIM_TYPES: usize = 33;

#[test]
fn predefined_types_are_there_without_declaring_them() {
    let model = ObjectModel::from_sources(&[("empty.xml", &module(""))]).unwrap();
    let types = model.data_types();
    // Only the standard MIM's own types are declared; the 20 predefined come on top.
    assert_eq!(types.declared_count(), MIM_TYPES);
    assert_eq!(types.iter().count(), 20 + MIM_TYPES);
    assert_eq!(types.octet_boundary("HLAinteger64LE"), 8);
    assert_eq!(types.octet_boundary("HLAunicodeString"), 4);
    assert_eq!(types.octet_boundary("HLAASCIIchar"), 1);
    assert!(matches!(
        types.get("HLAopaqueData").unwrap().kind,
        DataTypeKind::Array {
            cardinality: Cardinality::Dynamic,
            ..
        }
    ));
    assert!(types.unresolved().is_empty());
}

#[test]
fn a_record_has_the_boundary_of_its_widest_field() {
    let model = ObjectModel::from_sources(&[("pair.xml", &module(RECORD))]).unwrap();
    let types = model.data_types();
    assert_eq!(types.declared_count(), MIM_TYPES + 1);
    assert_eq!(types.octet_boundary("Pair"), 4);
    assert_eq!(types.min_encoded_len("Pair"), 5);
    let pair = types.get("Pair").unwrap();
    assert_eq!((pair.file.as_str(), pair.line), ("pair.xml", 4));
}

#[test]
fn the_same_type_in_two_modules_merges_and_a_different_one_names_both_places() {
    let same = module(RECORD);
    let model = ObjectModel::from_sources(&[("a.xml", &same), ("b.xml", &same)]).unwrap();
    assert_eq!(model.data_types().declared_count(), MIM_TYPES + 1);

    let different = module(&RECORD.replace("HLAinteger32BE", "HLAinteger64BE"));
    let errors = errors(&[("a.xml", &same), ("b.xml", &different)]);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(
        errors[0].to_string(),
        "b.xml:4: <fixedRecordData>: data type Pair conflicts with its declaration at a.xml:4"
    );
}

#[test]
fn redeclaring_a_predefined_type_differently_is_an_error() {
    let text = module(
        "<simpleDataTypes><simpleData><name>HLAbyte</name>\
         <representation>HLAinteger16BE</representation></simpleData></simpleDataTypes>",
    );
    let errors = errors(&[("mim.xml", &text)]);
    assert_eq!(
        errors[0].message,
        "data type HLAbyte conflicts with its declaration at IEEE 1516.2-2010 (predefined)"
    );
}

#[test]
fn unknown_references_are_kept_apart_with_their_places() {
    let text = "<objectModel>\n<objects><objectClass><name>HLAobjectRoot</name>\n\
        <objectClass><name>Thing</name><attribute><name>Where</name>\
        <dataType>Location</dataType></attribute></objectClass>\n\
        </objectClass></objects>\n<dataTypes><arrayDataTypes>\n\
        <arrayData><name>Path</name><dataType>Point</dataType>\
        <cardinality>Dynamic</cardinality><encoding>HLAvariableArray</encoding></arrayData>\n\
        </arrayDataTypes></dataTypes></objectModel>";
    let model = ObjectModel::from_sources(&[("refs.xml", text)]).unwrap();
    let unresolved: Vec<String> = model
        .data_types()
        .unresolved()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        unresolved,
        [
            "refs.xml:6: <arrayData>: Path: dataType Point is not a declared data type",
            "refs.xml:3: <attribute>: HLAobjectRoot.Thing.Where: data type Location is not declared",
        ]
    );
}

#[test]
fn a_record_containing_itself_is_an_error_but_through_a_variable_array_is_fine() {
    let text = module(
        "<arrayDataTypes>\n\
         <arrayData><name>Twins</name><dataType>Node</dataType>\
         <cardinality>2</cardinality><encoding>HLAfixedArray</encoding></arrayData>\n\
         <arrayData><name>Children</name><dataType>Tree</dataType>\
         <cardinality>Dynamic</cardinality><encoding>HLAvariableArray</encoding></arrayData>\n\
         </arrayDataTypes><fixedRecordDataTypes>\n\
         <fixedRecordData><name>Node</name>\
         <field><name>Next</name><dataType>Twins</dataType></field></fixedRecordData>\n\
         <fixedRecordData><name>Tree</name>\
         <field><name>Value</name><dataType>HLAfloat64BE</dataType></field>\
         <field><name>Kids</name><dataType>Children</dataType></field></fixedRecordData>\n\
         </fixedRecordDataTypes>",
    );
    let errors = errors(&[("loop.xml", &text)]);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(
        errors[0].to_string(),
        "loop.xml:7: <fixedRecordData>: data type Node contains itself with no \
         variable-length array in between: Node -> Twins -> Node"
    );

    let fine = text.replace(
        "<cardinality>2</cardinality><encoding>HLAfixedArray",
        "<cardinality>Dynamic</cardinality><encoding>HLAvariableArray",
    );
    let model = ObjectModel::from_sources(&[("tree.xml", &fine)]).unwrap();
    // Tree holds an 8-octet float, so Children (an array of Trees) is 8-aligned too.
    assert_eq!(model.data_types().octet_boundary("Children"), 8);
    assert_eq!(model.data_types().octet_boundary("Tree"), 8);
}

#[test]
fn an_alternative_must_name_enumerators_of_its_discriminant() {
    let text = module(
        "<enumeratedDataTypes>\n\
         <enumeratedData><name>Shape</name><representation>HLAoctet</representation>\
         <enumerator><name>Circle</name><value>1</value></enumerator>\
         <enumerator><name>Square</name><value>2</value></enumerator></enumeratedData>\n\
         </enumeratedDataTypes><variantRecordDataTypes>\n\
         <variantRecordData><name>Figure</name><discriminant>Kind</discriminant>\
         <dataType>Shape</dataType>\
         <alternative><enumerator>Circle</enumerator><name>Radius</name><dataType>HLAfloat32BE</dataType></alternative>\
         <alternative><enumerator>Triangle, HLAother</enumerator><name>Rest</name><dataType>NA</dataType></alternative>\
         <encoding>HLAvariantRecord</encoding></variantRecordData>\n\
         </variantRecordDataTypes>",
    );
    let errors = errors(&[("figure.xml", &text)]);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(
        errors[0].to_string(),
        "figure.xml:6: <variantRecordData>: Figure: alternative Rest names enumerator \
         Triangle, which Shape does not have"
    );
    let model =
        ObjectModel::from_sources(&[("figure.xml", &text.replace("Triangle, ", ""))]).unwrap();
    let DataTypeKind::VariantRecord { alternatives, .. } =
        &model.data_types().get("Figure").unwrap().kind
    else {
        panic!("Figure is a variant record")
    };
    assert_eq!(alternatives[1].selectors, [Selector::Other]);
    assert_eq!(alternatives[1].data_type, None);
    assert_eq!(model.data_types().octet_boundary("Figure"), 4);
}

#[test]
fn malformed_declarations_name_their_line() {
    let text = module(
        "<basicDataRepresentations>\n\
         <basicData><name>Odd</name><size>zero</size><endian>Big</endian></basicData>\n\
         <basicData><name>Mixed</name><size>16</size><endian>Middle</endian></basicData>\n\
         </basicDataRepresentations><arrayDataTypes>\n\
         <arrayData><name>Bad</name><dataType>HLAoctet</dataType><cardinality>Dynamic</cardinality>\
         <encoding>HLAfixedArray</encoding></arrayData>\n\
         <arrayData><name>Bad</name><dataType>HLAoctet</dataType><cardinality>4</cardinality>\
         <encoding>HLAfixedArray</encoding></arrayData>\n\
         </arrayDataTypes><enumeratedDataTypes>\n\
         <enumeratedData><name>E</name><representation>HLAoctet</representation>\
         <enumerator><name>A</name><value>one</value></enumerator></enumeratedData>\n\
         </enumeratedDataTypes>",
    );
    let errors = errors(&[("bad.xml", &text)]);
    let mut lines: Vec<(u32, &str)> = errors
        .iter()
        .map(|e| (e.line, e.element.as_str()))
        .collect();
    lines.sort();
    // The second Bad (line 8) is fine: the first did not parse, so it is not a repeat.
    assert_eq!(
        lines,
        [
            (4, "basicData"),
            (5, "basicData"),
            (7, "arrayData"),
            (10, "enumerator"),
            (10, "value"),
        ],
        "{errors:#?}"
    );
    let message = |line| &errors.iter().find(|e| e.line == line).unwrap().message;
    assert!(
        message(7).contains("needs a fixed cardinality"),
        "{}",
        message(7)
    );
    assert!(message(5).contains("Big or Little"), "{}", message(5));
}

#[test]
fn the_fingerprint_covers_data_types() {
    let a = ObjectModel::from_sources(&[("a.xml", &module(RECORD))]).unwrap();
    let b = ObjectModel::from_sources(&[(
        "b.xml",
        &module(&RECORD.replace("HLAinteger32BE", "HLAinteger32LE")),
    )])
    .unwrap();
    let a_again = ObjectModel::from_sources(&[("elsewhere.xml", &module(RECORD))]).unwrap();
    assert_ne!(a.fingerprint(), b.fingerprint());
    assert_eq!(a.fingerprint(), a_again.fingerprint());
}

/// A record whose lengthless array's count a note gives, in RPR's words.
fn counted_module(rule: &str) -> String {
    format!(
        "<objectModel>
<dataTypes>
<arrayDataTypes>
<arrayData><name>Codes</name><dataType>HLAoctet</dataType><cardinality>Dynamic</cardinality>
<encoding>RPRlengthlessArray</encoding></arrayData>
</arrayDataTypes>
<fixedRecordDataTypes>
<fixedRecordData><name>Counted</name>
<field><name>N</name><dataType>HLAoctet</dataType></field>
<field notes=\"other rule\"><name>Codes</name><dataType>Codes</dataType></field>
<field><name>Tail</name><dataType>HLAoctet</dataType></field>
<encoding>HLAfixedRecord</encoding></fixedRecordData>
</fixedRecordDataTypes>
</dataTypes>
<notes>
<note><label>other</label><semantics>Free text about the codes.</semantics></note>
<note><label>rule</label><semantics>{rule}</semantics></note>
</notes>
</objectModel>
"
    )
}

#[test]
fn a_length_rule_in_a_fields_note_is_read_and_a_bad_one_loads_with_a_warning() {
    let model = ObjectModel::from_sources(&[(
        "counted.xml",
        &counted_module("RPRlengthlessArrayLength=2*N"),
    )])
    .unwrap();
    assert!(model.warnings().is_empty(), "{:?}", model.warnings());
    let Some(DataTypeKind::FixedRecord { fields, .. }) =
        model.data_types().get("Counted").map(|t| &t.kind)
    else {
        panic!("Counted is a record");
    };
    let rules: Vec<Option<String>> = fields
        .iter()
        .map(|f| f.length.as_ref().map(ToString::to_string))
        .collect();
    assert_eq!(
        rules,
        [None, Some("RPRlengthlessArrayLength=2*N".into()), None]
    );
    let bytes = [2, 9, 8, 7, 6, 5];
    let value = crate::encoding::decode_value(model.data_types(), "Counted", &bytes).unwrap();
    assert_eq!(value.to_string(), "{N: 2, Codes: 0x09080706, Tail: 5}");

    for (rule, problem) in [
        (
            "RPRlengthlessArrayLength=2*Tail",
            "Tail is not a field before Codes",
        ),
        ("RPRlengthlessArrayLength=N/2", "unexpected character '/'"),
    ] {
        let model = ObjectModel::from_sources(&[("counted.xml", &counted_module(rule))]).unwrap();
        let warnings: Vec<String> = model.warnings().iter().map(|w| w.to_string()).collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("counted.xml:10")
                && warnings[0].contains("Counted.Codes: note rule's")
                && warnings[0].contains(problem),
            "{warnings:?}"
        );
    }
}
