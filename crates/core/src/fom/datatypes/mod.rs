//! Data types of an object model (IEEE 1516.2-2010 §4.12): the `<dataTypes>` of every
//! module, merged, with the types the standard predefines, and checked as a set.
//!
//! A type declared in two modules must be declared alike. References to types no loaded
//! module declares are kept apart (`unresolved`): a module may lean on another one
//! (RPR Base on RPR Enumerations), so only the caller knows whether the set is complete.
//! Everything else wrong (a record containing itself, an alternative naming an enumerator
//! its discriminant lacks, a malformed declaration) fails the load.

mod check;
mod layout;
mod length_rule;
mod parse;
mod predefined;

pub(crate) use check::{build, type_uses};
pub(crate) use parse::{parse_data_types, DataTypeDecl};

use super::error::FomError;
pub use length_rule::{LengthRule, LENGTH_RULE_PREFIX};

use std::collections::BTreeMap;

/// Where the predefined types are "declared", for messages.
pub const PREDEFINED_FILE: &str = "IEEE 1516.2-2010";

/// The byte order of a basic type (`<endian>` in the OMT).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Most significant octet first.
    Big,
    /// Least significant octet first.
    Little,
}

/// How the bits of a basic type read. The OMT has no field for it: the predefined types
/// are known; a module's own basic types are taken as unsigned integers (RPR's are), or
/// as floats when their interpretation says so.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BasicKind {
    /// Two's-complement integer.
    Signed,
    /// Unsigned integer.
    Unsigned,
    /// IEEE 754 floating point (32 or 64 bits).
    Float,
}

/// A `<basicData>` type: how one number is laid out in octets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BasicData {
    /// Width in bits (8, 16, 32 or 64 are encodable).
    pub size_bits: u32,
    /// Byte order.
    pub endian: Endian,
    /// Signed, unsigned or float.
    pub kind: BasicKind,
}

/// One enumerator of an `<enumeratedData>` type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Enumerator {
    /// Its name, e.g. "HLAtrue".
    pub name: String,
    /// The representation values it stands for (the OMT allows several).
    pub values: Vec<i64>,
}

/// How many elements an `<arrayData>` type holds (`<cardinality>`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cardinality {
    /// Exactly this many.
    Fixed(u32),
    /// Any number (`Dynamic`).
    Dynamic,
    /// Between `min` and `max` elements (OMT `[min..max]`).
    Range {
        /// Fewest elements allowed.
        min: u32,
        /// Most elements allowed.
        max: u32,
    },
}

/// The `<encoding>` of an `<arrayData>` type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArrayEncoding {
    /// HLAfixedArray: the elements only.
    Fixed,
    /// HLAvariableArray: an HLAinteger32BE count, then the elements.
    Variable,
    /// Any other name (RPR's RPRlengthlessArray, RPRnullTerminatedArray, ...).
    Other(String),
}

impl ArrayEncoding {
    /// RPR's padding arrays (RPRpaddingTo32Array, RPRpaddingTo64Array) hold no count and
    /// no data: zero octets up to the next 4- or 8-octet boundary.
    pub fn padding_boundary(&self) -> Option<usize> {
        match self {
            ArrayEncoding::Other(name) if name == "RPRpaddingTo32Array" => Some(4),
            ArrayEncoding::Other(name) if name == "RPRpaddingTo64Array" => Some(8),
            _ => None,
        }
    }
}

/// RPR's variant record that decoders can skip: after the discriminant, an HLAinteger32BE
/// count of the octets that follow up to the alternative's end (its alignment padding
/// included), so one that does not know the discriminant's value passes over them. As the
/// TNO OOencoder and other RPR codecs write it.
pub const EXTENDED_VARIANT_RECORD: &str = "RPRextendedVariantRecord";

/// One `<field>` of a `<fixedRecordData>` type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    /// Its name, unique within the record.
    pub name: String,
    /// The name of its data type.
    pub data_type: String,
    /// For an RPRlengthlessArray field that more data follows: its element count, from
    /// earlier fields (RPR's `RPRlengthlessArrayLength=` note on the field).
    pub length: Option<LengthRule>,
}

/// Which discriminant values choose an alternative.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Selector {
    /// One enumerator, by name.
    Enumerator(String),
    /// `[First..Last]`: every value from First's to Last's.
    Range(String, String),
    /// HLAother: every value no other alternative names.
    Other,
}

/// One `<alternative>` of a `<variantRecordData>` type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Alternative {
    /// The discriminant values that choose it.
    pub selectors: Vec<Selector>,
    /// Its name, unique within the record.
    pub name: String,
    /// None for an alternative that carries no data ("NA").
    pub data_type: Option<String>,
}

/// What kind of `<dataTypes>` entry a type is, with that kind's properties.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DataTypeKind {
    /// `<basicData>`: a number's layout.
    Basic(BasicData),
    /// `<simpleData>`: a basic type under another name (and units, resolution).
    Simple {
        /// The basic type it is encoded as.
        representation: String,
    },
    /// `<enumeratedData>`: named values of an integer type.
    Enumerated {
        /// The basic type the values are encoded as.
        representation: String,
        /// The enumerators, in declaration order.
        enumerators: Vec<Enumerator>,
    },
    /// `<arrayData>`: elements of one type.
    Array {
        /// The elements' data type.
        element: String,
        /// How many elements.
        cardinality: Cardinality,
        /// How the elements are framed on the wire.
        encoding: ArrayEncoding,
    },
    /// `<fixedRecordData>`: fields in order.
    FixedRecord {
        /// The fields, in declaration order.
        fields: Vec<Field>,
        /// The `<encoding>`, normally HLAfixedRecord.
        encoding: String,
    },
    /// `<variantRecordData>`: a discriminant and the alternative it selects.
    VariantRecord {
        /// The discriminant's name.
        discriminant: String,
        /// The discriminant's data type, usually enumerated.
        discriminant_type: String,
        /// The alternatives, in declaration order.
        alternatives: Vec<Alternative>,
        /// The `<encoding>`, normally HLAvariantRecord.
        encoding: String,
    },
}

impl DataTypeKind {
    /// The element name in the OMT, for messages.
    pub fn element(&self) -> &'static str {
        match self {
            DataTypeKind::Basic(_) => "basicData",
            DataTypeKind::Simple { .. } => "simpleData",
            DataTypeKind::Enumerated { .. } => "enumeratedData",
            DataTypeKind::Array { .. } => "arrayData",
            DataTypeKind::FixedRecord { .. } => "fixedRecordData",
            DataTypeKind::VariantRecord { .. } => "variantRecordData",
        }
    }

    /// Every type this one names, with the OMT element that names it.
    pub fn references(&self) -> Vec<(&'static str, &str)> {
        match self {
            DataTypeKind::Basic(_) => Vec::new(),
            DataTypeKind::Simple { representation }
            | DataTypeKind::Enumerated { representation, .. } => {
                vec![("representation", representation.as_str())]
            }
            DataTypeKind::Array { element, .. } => vec![("dataType", element.as_str())],
            DataTypeKind::FixedRecord { fields, .. } => fields
                .iter()
                .map(|f| ("field", f.data_type.as_str()))
                .collect(),
            DataTypeKind::VariantRecord {
                discriminant_type,
                alternatives,
                ..
            } => std::iter::once(("dataType", discriminant_type.as_str()))
                .chain(
                    alternatives
                        .iter()
                        .filter_map(|a| Some(("alternative", a.data_type.as_deref()?))),
                )
                .collect(),
        }
    }
}

/// A named data type of the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataType {
    /// Its name, unique in the model, e.g. "HLAinteger32BE".
    pub name: String,
    /// What kind it is, with its properties.
    pub kind: DataTypeKind,
    /// Where it was first declared; [`PREDEFINED_FILE`] and line 0 for the standard's own.
    pub file: String,
    /// 1-based line of its first declaration; 0 for a predefined type.
    pub line: u32,
}

impl DataType {
    /// Whether IEEE 1516.2 predefines it rather than a module.
    pub fn is_predefined(&self) -> bool {
        self.file == PREDEFINED_FILE
    }
}

/// The merged data types of a model, with each type's octet boundary worked out.
#[derive(Clone, Debug, Default)]
pub struct DataTypes {
    types: BTreeMap<String, DataType>,
    layouts: BTreeMap<String, layout::Layout>,
    unresolved: Vec<FomError>,
}

impl DataTypes {
    /// The type named `name`, if the model declares or predefines it.
    pub fn get(&self, name: &str) -> Option<&DataType> {
        self.types.get(name)
    }

    /// Every type, predefined ones included, in name order.
    pub fn iter(&self) -> impl Iterator<Item = &DataType> + '_ {
        self.types.values()
    }

    /// How many types the modules declared (the predefined ones not counted).
    pub fn declared_count(&self) -> usize {
        self.types.values().filter(|t| !t.is_predefined()).count()
    }

    /// References to types no loaded module declares, each at the place that names it.
    /// Empty for a complete model (an FDD); a single module may rely on others.
    pub fn unresolved(&self) -> &[FomError] {
        &self.unresolved
    }

    /// The octet boundary (§4.12.7) of a type: its encoding starts at a multiple of it.
    /// 1 for a type the model lacks.
    pub fn octet_boundary(&self, name: &str) -> usize {
        self.layouts.get(name).map_or(1, |l| l.octet_boundary)
    }

    /// A lower bound on the encoded length of any value of the type, used to cap counts
    /// read from the network by the bytes left.
    pub fn min_encoded_len(&self, name: &str) -> usize {
        self.layouts.get(name).map_or(0, |l| l.min_len)
    }

    /// A canonical listing for the model's fingerprint: names and structure, not places.
    pub(crate) fn canonical(&self) -> impl Iterator<Item = String> + '_ {
        self.types
            .values()
            .map(|t| format!("{}|{:?}", t.name, t.kind))
    }
}

#[cfg(test)]
mod tests;
