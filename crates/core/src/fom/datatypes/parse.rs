//! One module's `<dataTypes>` section into declarations, each with its file and line.

use super::predefined::basic_kind;
use super::{
    Alternative, ArrayEncoding, BasicData, BasicKind, Cardinality, DataType, DataTypeKind, Endian,
    Enumerator, Field, LengthRule, Selector, LENGTH_RULE_PREFIX,
};
use crate::fom::error::{respelled, spellings, FomError, FomWarning};
use crate::fom::lines::Lines;
use roxmltree::Node;
use rustc_hash::FxHashMap;

/// A declaration as parsed: the same shape as a merged type.
pub(crate) type DataTypeDecl = DataType;

/// (section, element) pairs of the OMT `<dataTypes>` section.
const SECTIONS: [(&str, &str); 6] = [
    ("basicDataRepresentations", "basicData"),
    ("simpleDataTypes", "simpleData"),
    ("enumeratedDataTypes", "enumeratedData"),
    ("arrayDataTypes", "arrayData"),
    ("fixedRecordDataTypes", "fixedRecordData"),
    ("variantRecordDataTypes", "variantRecordData"),
];

fn elements<'a, 'i>(node: Node<'a, 'i>, tag: &'a str) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == tag)
}

/// The trimmed text of a child element, if present and not blank.
fn text(node: Node<'_, '_>, tag: &str) -> Option<String> {
    let value = elements(node, tag).next()?.text()?.trim();
    (!value.is_empty()).then(|| value.to_owned())
}

struct Parser<'a> {
    file: &'a str,
    lines: &'a Lines,
    /// The module's `<notes>`: each note's semantics by its label.
    notes: FxHashMap<String, String>,
    errors: Vec<FomError>,
    warnings: Vec<FomWarning>,
}

impl Parser<'_> {
    fn line(&self, node: Node<'_, '_>) -> u32 {
        self.lines.of(node)
    }

    fn error(&mut self, node: Node<'_, '_>, message: impl Into<String>) {
        self.errors.push(FomError {
            file: self.file.to_owned(),
            line: self.line(node),
            element: node.tag_name().name().to_owned(),
            message: message.into(),
        });
    }

    fn warning(&mut self, node: Node<'_, '_>, message: impl Into<String>) {
        self.warnings.push(FomWarning {
            file: self.file.to_owned(),
            line: self.line(node),
            element: node.tag_name().name().to_owned(),
            message: message.into(),
        });
    }

    /// A required child's text, or an error naming the type and the missing element.
    fn required(&mut self, node: Node<'_, '_>, type_name: &str, tag: &str) -> Option<String> {
        let value = text(node, tag);
        if value.is_none() {
            self.error(node, format!("data type {type_name} has no <{tag}>"));
        }
        value
    }

    /// `value` of the child `tag` in the standard's spelling: one of `allowed` written in
    /// another letter case is read as the standard writes it, with a warning.
    fn respell(
        &mut self,
        node: Node<'_, '_>,
        tag: &str,
        value: String,
        allowed: &[&'static str],
    ) -> String {
        let Some(standard) = respelled(&value, allowed) else {
            return value;
        };
        let at = elements(node, tag).next().unwrap_or(node);
        self.warning(
            at,
            format!("{value} is spelled {standard} by IEEE 1516.2-2010; read as {standard}"),
        );
        standard.to_owned()
    }

    fn declaration(&mut self, node: Node<'_, '_>) -> Option<DataTypeDecl> {
        let Some(name) = text(node, "name") else {
            self.error(node, "has no <name>");
            return None;
        };
        let kind = match node.tag_name().name() {
            "basicData" => self.basic(node, &name),
            "simpleData" => Some(DataTypeKind::Simple {
                representation: self.required(node, &name, "representation")?,
            }),
            "enumeratedData" => self.enumerated(node, &name),
            "arrayData" => self.array(node, &name),
            "fixedRecordData" => self.fixed_record(node, &name),
            _ => self.variant_record(node, &name),
        }?;
        Some(DataType {
            name,
            kind,
            file: self.file.to_owned(),
            line: self.line(node),
        })
    }

    fn basic(&mut self, node: Node<'_, '_>, name: &str) -> Option<DataTypeKind> {
        let size = self.required(node, name, "size")?;
        let Some(size_bits) = size.parse::<u32>().ok().filter(|&s| s > 0) else {
            self.error(
                node,
                format!("data type {name}: size {size:?} is not a positive number of bits"),
            );
            return None;
        };
        let endian = self.required(node, name, "endian")?;
        let endian = match self
            .respell(node, "endian", endian, spellings::ENDIAN)
            .as_str()
        {
            "Big" => Endian::Big,
            "Little" => Endian::Little,
            other => {
                self.error(
                    node,
                    format!("data type {name}: <endian> must be Big or Little, not {other:?}"),
                );
                return None;
            }
        };
        let interpretation = text(node, "interpretation").unwrap_or_default();
        let kind = basic_kind(name).unwrap_or_else(|| {
            if interpretation.to_ascii_lowercase().contains("float") {
                BasicKind::Float
            } else {
                BasicKind::Unsigned
            }
        });
        Some(DataTypeKind::Basic(BasicData {
            size_bits,
            endian,
            kind,
        }))
    }

    fn enumerated(&mut self, node: Node<'_, '_>, name: &str) -> Option<DataTypeKind> {
        let representation = self.required(node, name, "representation")?;
        let mut enumerators = Vec::new();
        let mut lines_by_name: FxHashMap<String, u32> = FxHashMap::default();
        for item in elements(node, "enumerator") {
            let Some(enumerator) = text(item, "name") else {
                self.error(item, format!("an enumerator of {name} has no <name>"));
                continue;
            };
            let mut values = Vec::new();
            for value in elements(item, "value") {
                let raw = value.text().unwrap_or_default().trim();
                match raw.parse::<i64>() {
                    Ok(v) => values.push(v),
                    Err(_) => self.error(
                        value,
                        format!("{name}.{enumerator}: value {raw:?} is not an integer"),
                    ),
                }
            }
            if values.is_empty() {
                self.error(item, format!("{name}.{enumerator} has no <value>"));
                continue;
            }
            let line = self.line(item);
            if let Some(&first) = lines_by_name.get(&enumerator) {
                self.repeated_enumerator(item, name, &enumerator, &values, first, &enumerators);
                continue;
            }
            lines_by_name.insert(enumerator.clone(), line);
            enumerators.push(Enumerator {
                name: enumerator,
                values,
            });
        }
        Some(DataTypeKind::Enumerated {
            representation,
            enumerators,
        })
    }

    /// An enumerator named twice in one type: with the same values it says nothing new
    /// (the RPR FOM's drafts do this) and is dropped with a warning; with other values the
    /// name would mean two things, which is refused.
    fn repeated_enumerator(
        &mut self,
        item: Node<'_, '_>,
        type_name: &str,
        enumerator: &str,
        values: &[i64],
        first_line: u32,
        declared: &[Enumerator],
    ) {
        let first = declared.iter().find(|e| e.name == enumerator);
        match first {
            Some(first) if first.values == values => self.warning(
                item,
                format!(
                    "{type_name}: enumerator {enumerator} is declared again with the same value \
                     (first at line {first_line}); the repetition is ignored"
                ),
            ),
            _ => self.error(
                item,
                format!(
                    "{type_name}: enumerator {enumerator} is declared twice with different \
                     values: {values:?} here, {:?} at line {first_line}",
                    first.map(|e| e.values.as_slice()).unwrap_or_default()
                ),
            ),
        }
    }

    fn array(&mut self, node: Node<'_, '_>, name: &str) -> Option<DataTypeKind> {
        let element = self.required(node, name, "dataType")?;
        let raw = self.required(node, name, "cardinality")?;
        let raw = self.respell(node, "cardinality", raw, spellings::CARDINALITY);
        let Some(cardinality) = parse_cardinality(&raw) else {
            self.error(
                node,
                format!(
                    "data type {name}: cardinality {raw:?} is not a count, Dynamic or [min..max]"
                ),
            );
            return None;
        };
        let encoding = self.required(node, name, "encoding")?;
        let encoding =
            match (self.respell(node, "encoding", encoding, spellings::ARRAY_ENCODING)).as_str() {
                "HLAfixedArray" => ArrayEncoding::Fixed,
                "HLAvariableArray" => ArrayEncoding::Variable,
                other => ArrayEncoding::Other(other.to_owned()),
            };
        if encoding == ArrayEncoding::Fixed && !matches!(cardinality, Cardinality::Fixed(_)) {
            self.error(
                node,
                format!("data type {name}: an HLAfixedArray needs a fixed cardinality, not {raw}"),
            );
            return None;
        }
        Some(DataTypeKind::Array {
            element,
            cardinality,
            encoding,
        })
    }

    fn fixed_record(&mut self, node: Node<'_, '_>, name: &str) -> Option<DataTypeKind> {
        let mut fields: Vec<Field> = Vec::new();
        for field in elements(node, "field") {
            let Some(field_name) = text(field, "name") else {
                self.error(field, format!("a field of {name} has no <name>"));
                continue;
            };
            let Some(data_type) = text(field, "dataType") else {
                self.error(field, format!("{name}.{field_name} has no <dataType>"));
                continue;
            };
            if fields.iter().any(|f| f.name == field_name) {
                self.error(
                    field,
                    format!("{name}: field {field_name} is declared twice"),
                );
                continue;
            }
            let length = self.length_rule(field, name, &field_name, &fields);
            fields.push(Field {
                name: field_name,
                data_type,
                length,
            });
        }
        // The schema requires <encoding>; a module that leaves it out means the standard one.
        let encoding = text(node, "encoding").unwrap_or_else(|| "HLAfixedRecord".into());
        let encoding = self.respell(node, "encoding", encoding, spellings::FIXED_RECORD_ENCODING);
        Some(DataTypeKind::FixedRecord { fields, encoding })
    }

    /// The field's RPR length rule, from a note it refers to. A rule that cannot be read, or
    /// that reads fields not before this one, is left out with a warning: the object model
    /// still loads (an RTI does not decode values), and only tools that decode the field
    /// cannot tell where it ends.
    fn length_rule(
        &mut self,
        node: Node<'_, '_>,
        record: &str,
        field: &str,
        earlier: &[Field],
    ) -> Option<LengthRule> {
        let labels = node.attribute("notes")?;
        let rules: Vec<(String, String)> = labels
            .split_whitespace()
            .filter_map(|label| {
                let text = self
                    .notes
                    .get(label)?
                    .trim()
                    .strip_prefix(LENGTH_RULE_PREFIX)?;
                Some((label.to_owned(), text.to_owned()))
            })
            .collect();
        let (label, text) = rules.into_iter().next()?;
        let problem = match LengthRule::parse(&text) {
            Err(why) => why,
            Ok(rule) => match rule
                .fields()
                .into_iter()
                .find(|f| !earlier.iter().any(|e| e.name == *f))
            {
                None => return Some(rule),
                Some(unknown) => format!("{unknown} is not a field before {field}"),
            },
        };
        self.warning(
            node,
            format!(
                "{record}.{field}: note {label}'s {LENGTH_RULE_PREFIX}{text} is ignored ({problem}); \
                 tools decode the field to the end of the value"
            ),
        );
        None
    }

    fn variant_record(&mut self, node: Node<'_, '_>, name: &str) -> Option<DataTypeKind> {
        let discriminant = self.required(node, name, "discriminant")?;
        let discriminant_type = self.required(node, name, "dataType")?;
        let mut alternatives = Vec::new();
        for item in elements(node, "alternative") {
            let Some(selectors) = text(item, "enumerator") else {
                self.error(
                    item,
                    format!("an alternative of {name} has no <enumerator>"),
                );
                continue;
            };
            let Some(selectors) = parse_selectors(&selectors) else {
                self.error(
                    item,
                    format!("{name}: enumerator {selectors:?} is not a list of names or [first..last] ranges"),
                );
                continue;
            };
            let alternative_name = text(item, "name").unwrap_or_default();
            let data_type = text(item, "dataType").filter(|t| t != "NA");
            alternatives.push(Alternative {
                selectors,
                name: alternative_name,
                data_type,
            });
        }
        let encoding = text(node, "encoding").unwrap_or_else(|| "HLAvariantRecord".into());
        let encoding = self.respell(
            node,
            "encoding",
            encoding,
            spellings::VARIANT_RECORD_ENCODING,
        );
        Some(DataTypeKind::VariantRecord {
            discriminant,
            discriminant_type,
            alternatives,
            encoding,
        })
    }
}

/// "8", "Dynamic", "[1..2147483647]", or a comma list of fixed counts for a
/// multi-dimensional array (laid out as one array of their product).
fn parse_cardinality(raw: &str) -> Option<Cardinality> {
    if raw == "Dynamic" {
        return Some(Cardinality::Dynamic);
    }
    if let Some(range) = raw.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let (min, max) = range.split_once("..")?;
        let (min, max) = (min.trim().parse().ok()?, max.trim().parse().ok()?);
        return (min <= max).then_some(Cardinality::Range { min, max });
    }
    let mut product: u32 = 1;
    for dimension in raw.split(',') {
        product = product.checked_mul(dimension.trim().parse().ok()?)?;
    }
    Some(Cardinality::Fixed(product))
}

/// "A", "A, B", "[A..C]", "HLAother", or a comma list of them.
fn parse_selectors(raw: &str) -> Option<Vec<Selector>> {
    raw.split(',')
        .map(str::trim)
        .map(|item| {
            if item == "HLAother" {
                Some(Selector::Other)
            } else if let Some(range) = item.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                let (first, last) = range.split_once("..")?;
                Some(Selector::Range(
                    first.trim().to_owned(),
                    last.trim().to_owned(),
                ))
            } else if !item.is_empty() && !item.contains(['[', ']', ' ']) {
                Some(Selector::Enumerator(item.to_owned()))
            } else {
                None
            }
        })
        .collect()
}

/// The module's `<notes>`, by label. A label given twice keeps its first semantics.
fn module_notes(root: Node<'_, '_>) -> FxHashMap<String, String> {
    let mut notes = FxHashMap::default();
    for note in elements(root, "notes").flat_map(|n| elements(n, "note")) {
        if let (Some(label), Some(semantics)) = (text(note, "label"), text(note, "semantics")) {
            notes.entry(label).or_insert(semantics);
        }
    }
    notes
}

/// Parse `<dataTypes>` under a module's root element, if there is one. A type declared
/// twice in one module is an error at the second, naming the line of the first.
pub(crate) fn parse_data_types(
    file: &str,
    lines: &Lines,
    root: Node<'_, '_>,
) -> (Vec<DataTypeDecl>, Vec<FomError>, Vec<FomWarning>) {
    let mut parser = Parser {
        file,
        lines,
        notes: module_notes(root),
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    let mut decls: Vec<DataTypeDecl> = Vec::new();
    let mut lines_by_name: FxHashMap<String, u32> = FxHashMap::default();
    for data_types in elements(root, "dataTypes") {
        for (section, tag) in SECTIONS {
            for section in elements(data_types, section) {
                for node in elements(section, tag) {
                    let Some(decl) = parser.declaration(node) else {
                        continue;
                    };
                    if let Some(first) = lines_by_name.insert(decl.name.clone(), decl.line) {
                        parser.error(
                            node,
                            format!(
                                "data type {} is declared twice in this module (first at line {first})",
                                decl.name
                            ),
                        );
                        continue;
                    }
                    decls.push(decl);
                }
            }
        }
    }
    (decls, parser.errors, parser.warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cardinalities() {
        assert_eq!(parse_cardinality("Dynamic"), Some(Cardinality::Dynamic));
        assert_eq!(parse_cardinality("11"), Some(Cardinality::Fixed(11)));
        assert_eq!(parse_cardinality("3,4"), Some(Cardinality::Fixed(12)));
        assert_eq!(
            parse_cardinality("[1..2147483647]"),
            Some(Cardinality::Range {
                min: 1,
                max: 2_147_483_647
            })
        );
        for bad in [
            "",
            "x",
            "[2..1]",
            "[1..]",
            "-1",
            "99999999999",
            "70000,70000",
        ] {
            assert_eq!(parse_cardinality(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn selectors() {
        assert_eq!(
            parse_selectors("A, [B..C], HLAother"),
            Some(vec![
                Selector::Enumerator("A".into()),
                Selector::Range("B".into(), "C".into()),
                Selector::Other
            ])
        );
        assert_eq!(parse_selectors("A B"), None);
        assert_eq!(parse_selectors("A,,B"), None);
    }
}
