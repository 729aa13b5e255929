//! Any data type of a loaded object model to and from a [`DataValue`], so tools print
//! values, not bytes.

use super::{padding, DecodeError, Decoder, Encoder};
use crate::fom::{
    Alternative, ArrayEncoding, BasicData, BasicKind, Cardinality, DataType, DataTypeKind,
    DataTypes, Endian, Enumerator, Field, LengthRule, Selector, EXTENDED_VARIANT_RECORD,
};
use std::fmt;
use thiserror::Error;

/// Deeper than any real value nests; types may refer to themselves through variable
/// arrays, so the data decides the depth and this bounds it.
pub const MAX_VALUE_DEPTH: usize = 64;

/// A decoded value, shaped by its data type.
#[derive(Clone, Debug, PartialEq)]
pub enum DataValue {
    /// A value of a signed basic type (e.g. HLAinteger32BE), sign-extended to 64 bits.
    Signed(i64),
    /// A value of an unsigned basic type (e.g. HLAoctetPairBE), widened to 64 bits.
    Unsigned(u64),
    /// A value of a floating-point basic type (HLAfloat32BE, HLAfloat64LE, …), widened to f64.
    Float(f64),
    /// An enumerated value: its enumerator's name, or none for a value the type lacks.
    Enumerator {
        /// The enumerator's name in the object model; `None` for a value the type does not list.
        name: Option<String>,
        /// The representation's value.
        value: i64,
    },
    /// An array of HLAASCIIchar (as Latin-1) or of HLAunicodeChar.
    Text(String),
    /// An array of octets (HLAbyte, HLAoctet and simple types on HLAoctet).
    Bytes(Vec<u8>),
    /// The elements of a fixed or variable array of anything but characters and octets.
    Array(Vec<DataValue>),
    /// Fields in declaration order, by name.
    Record(Vec<(String, DataValue)>),
    /// An HLAvariantRecord: the discriminant and the alternative it selects.
    Variant {
        /// The name of the discriminant field.
        discriminant_name: String,
        /// The discriminant's value, usually an enumerator.
        discriminant: Box<DataValue>,
        /// The chosen alternative's name and value; none when it carries no data.
        alternative: Option<(String, Box<DataValue>)>,
    },
}

impl fmt::Display for DataValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataValue::Signed(v) => write!(f, "{v}"),
            DataValue::Unsigned(v) => write!(f, "{v}"),
            DataValue::Float(v) => write!(f, "{v}"),
            DataValue::Enumerator {
                name: Some(name), ..
            } => write!(f, "{name}"),
            DataValue::Enumerator { name: None, value } => write!(f, "{value}"),
            DataValue::Text(text) => write!(f, "{text:?}"),
            DataValue::Bytes(bytes) => {
                write!(f, "0x")?;
                bytes.iter().try_for_each(|b| write!(f, "{b:02x}"))
            }
            DataValue::Array(elements) => {
                write!(f, "[")?;
                for (i, e) in elements.iter().enumerate() {
                    write!(f, "{}{e}", if i > 0 { ", " } else { "" })?;
                }
                write!(f, "]")
            }
            DataValue::Record(fields) => {
                write!(f, "{{")?;
                for (i, (name, value)) in fields.iter().enumerate() {
                    write!(f, "{}{name}: {value}", if i > 0 { ", " } else { "" })?;
                }
                write!(f, "}}")
            }
            DataValue::Variant {
                discriminant_name,
                discriminant,
                alternative,
            } => {
                write!(f, "{{{discriminant_name}: {discriminant}")?;
                if let Some((name, value)) = alternative {
                    write!(f, ", {name}: {value}")?;
                }
                write!(f, "}}")
            }
        }
    }
}

/// Why a value did not encode as its type.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("data type {type_name}: {message}")]
pub struct EncodeError {
    /// The data type the value was meant to encode as.
    pub type_name: String,
    /// Why the value does not fit it.
    pub message: String,
}

/// Decode a whole buffer as one value of `type_name`.
pub fn decode_value(
    types: &DataTypes,
    type_name: &str,
    bytes: &[u8],
) -> Result<DataValue, DecodeError> {
    let mut decoder = Decoder::new(bytes);
    let value = Walk { types }.decode(type_name, &mut decoder, 0)?;
    decoder.finish()?;
    Ok(value)
}

/// Encode `value` as `type_name`.
pub fn encode_value(
    types: &DataTypes,
    type_name: &str,
    value: &DataValue,
) -> Result<Vec<u8>, EncodeError> {
    let mut encoder = Encoder::new();
    Walk { types }.encode(type_name, value, &mut encoder, 0)?;
    Ok(encoder.into_bytes())
}

/// How an array's elements read as one value.
#[derive(Copy, Clone, PartialEq, Eq)]
enum ElementText {
    Latin1,
    Utf16,
    Octets,
    None,
}

const NULL_TERMINATED: &str = "RPRnullTerminatedArray";
const LENGTHLESS: &str = "RPRlengthlessArray";

/// The count a field of an earlier-decoded record gives a length rule: an integer or an
/// enumerator's value, not negative.
fn count_of(earlier: &[(String, DataValue)], name: &str) -> Option<u64> {
    match &earlier.iter().find(|(n, _)| n == name)?.1 {
        DataValue::Unsigned(v) => Some(*v),
        DataValue::Signed(value) | DataValue::Enumerator { value, .. } => {
            u64::try_from(*value).ok()
        }
        _ => None,
    }
}

/// The enumerator with `value`.
fn enumerator_of(enumerators: &[Enumerator], value: i64) -> Option<&Enumerator> {
    enumerators.iter().find(|e| e.values.contains(&value))
}

fn first_value(enumerators: &[Enumerator], name: &str) -> Option<i64> {
    enumerators
        .iter()
        .find(|e| e.name == name)
        .and_then(|e| e.values.first().copied())
}

/// The index of the alternative `value` of the discriminant chooses.
fn choose(alternatives: &[Alternative], enumerators: &[Enumerator], value: i64) -> Option<usize> {
    let named = enumerator_of(enumerators, value).map(|e| e.name.as_str());
    let selects = |s: &Selector| match s {
        Selector::Enumerator(n) => named == Some(n.as_str()),
        Selector::Range(first, last) => {
            match (
                first_value(enumerators, first),
                first_value(enumerators, last),
            ) {
                (Some(lo), Some(hi)) => (lo..=hi).contains(&value),
                _ => false,
            }
        }
        Selector::Other => false,
    };
    alternatives
        .iter()
        .position(|a| a.selectors.iter().any(selects))
        .or_else(|| {
            alternatives
                .iter()
                .position(|a| a.selectors.contains(&Selector::Other))
        })
}

struct Walk<'a> {
    types: &'a DataTypes,
}

/// A variant record type, as encoding and decoding read it.
pub(super) struct Variant<'t> {
    name: &'t str,
    discriminant: &'t str,
    discriminant_type: &'t str,
    alternatives: &'t [Alternative],
    /// RPRextendedVariantRecord: the alternative's extent in octets follows the
    /// discriminant.
    extended: bool,
}

impl<'t> Variant<'t> {
    /// The variant type as declared, or what of it this layer does not read.
    fn new(
        name: &'t str,
        discriminant: &'t str,
        discriminant_type: &'t str,
        alternatives: &'t [Alternative],
        encoding: &str,
    ) -> Result<Variant<'t>, String> {
        let extended = match encoding {
            "HLAvariantRecord" => false,
            EXTENDED_VARIANT_RECORD => true,
            other => return Err(format!("variant encoding {other}")),
        };
        Ok(Variant {
            name,
            discriminant,
            discriminant_type,
            alternatives,
            extended,
        })
    }
}

impl<'a> Walk<'a> {
    fn lookup(&self, name: &str) -> Result<&'a DataType, DecodeError> {
        self.types
            .get(name)
            .ok_or_else(|| DecodeError::UnknownType(name.to_owned()))
    }

    fn unsupported(name: &str, what: impl Into<String>) -> DecodeError {
        DecodeError::Unsupported {
            type_name: name.to_owned(),
            what: what.into(),
        }
    }

    /// How elements of `element` read together: by name for the standard's chars, by
    /// representation for octets.
    fn element_text(&self, element: &str) -> ElementText {
        match element {
            "HLAASCIIchar" => return ElementText::Latin1,
            "HLAunicodeChar" => return ElementText::Utf16,
            _ => {}
        }
        let mut name = element;
        for _ in 0..8 {
            match self.types.get(name).map(|t| &t.kind) {
                Some(DataTypeKind::Simple { representation }) => name = representation,
                Some(DataTypeKind::Basic(BasicData {
                    size_bits: 8,
                    kind: BasicKind::Unsigned,
                    ..
                })) => return ElementText::Octets,
                _ => return ElementText::None,
            }
        }
        ElementText::None
    }

    fn decode(
        &self,
        name: &str,
        decoder: &mut Decoder<'_>,
        depth: usize,
    ) -> Result<DataValue, DecodeError> {
        if depth > MAX_VALUE_DEPTH {
            return Err(DecodeError::TooDeep(MAX_VALUE_DEPTH));
        }
        let data_type = self.lookup(name)?;
        decoder.align(self.types.octet_boundary(name))?;
        match &data_type.kind {
            DataTypeKind::Basic(basic) => decode_basic(name, basic, decoder),
            DataTypeKind::Simple { representation } => {
                self.decode(representation, decoder, depth + 1)
            }
            DataTypeKind::Enumerated {
                representation,
                enumerators,
            } => self.decode_enumerated(name, representation, enumerators, decoder, depth),
            DataTypeKind::Array {
                element,
                cardinality,
                encoding,
            } => self.decode_array(name, element, *cardinality, encoding, decoder, depth),
            DataTypeKind::FixedRecord { fields, encoding } => {
                self.decode_fixed_record(name, fields, encoding, decoder, depth)
            }
            DataTypeKind::VariantRecord {
                discriminant,
                discriminant_type,
                alternatives,
                encoding,
            } => {
                let variant = Variant::new(
                    name,
                    discriminant,
                    discriminant_type,
                    alternatives,
                    encoding,
                )
                .map_err(|what| Self::unsupported(name, what))?;
                self.decode_variant(&variant, decoder, depth)
            }
        }
    }

    fn decode_enumerated(
        &self,
        name: &str,
        representation: &str,
        enumerators: &[Enumerator],
        decoder: &mut Decoder<'_>,
        depth: usize,
    ) -> Result<DataValue, DecodeError> {
        let at = decoder.position();
        let value = match self.decode(representation, decoder, depth + 1)? {
            DataValue::Signed(v) => v,
            DataValue::Unsigned(v) => i64::try_from(v).map_err(|_| DecodeError::Invalid {
                at,
                message: format!("{name}: value {v} is out of range"),
            })?,
            _ => {
                return Err(Self::unsupported(
                    name,
                    "a representation that is not an integer",
                ))
            }
        };
        Ok(DataValue::Enumerator {
            name: enumerator_of(enumerators, value).map(|e| e.name.clone()),
            value,
        })
    }

    fn decode_fixed_record(
        &self,
        name: &str,
        fields: &[Field],
        encoding: &str,
        decoder: &mut Decoder<'_>,
        depth: usize,
    ) -> Result<DataValue, DecodeError> {
        if encoding != "HLAfixedRecord" {
            return Err(Self::unsupported(
                name,
                format!("record encoding {encoding}"),
            ));
        }
        let mut values = Vec::with_capacity(fields.len());
        for field in fields {
            let value = match &field.length {
                Some(rule) => self.decode_counted(field, rule, &values, decoder, depth + 1)?,
                None => self.decode(&field.data_type, decoder, depth + 1)?,
            };
            values.push((field.name.clone(), value));
        }
        Ok(DataValue::Record(values))
    }

    /// The element type of `name` when it is (through simple types) an RPRlengthlessArray:
    /// the arrays a length rule counts.
    pub(super) fn lengthless_element(&self, name: &str) -> Option<&'a str> {
        let mut name = name;
        for _ in 0..8 {
            match &self.types.get(name)?.kind {
                DataTypeKind::Simple { representation } => name = representation,
                DataTypeKind::Array {
                    element,
                    encoding: ArrayEncoding::Other(e),
                    ..
                } if e == LENGTHLESS => return Some(element),
                _ => return None,
            }
        }
        None
    }

    /// The count `rule` gives `field` from the record's `earlier` fields.
    pub(super) fn rule_count(
        field: &Field,
        rule: &LengthRule,
        earlier: &[(String, DataValue)],
    ) -> Result<u64, String> {
        rule.eval(&|name| count_of(earlier, name))
            .map_err(|why| format!("field {}: {rule}: {why}", field.name))
    }

    /// A lengthless array field of as many elements as its length rule says.
    fn decode_counted(
        &self,
        field: &Field,
        rule: &LengthRule,
        earlier: &[(String, DataValue)],
        decoder: &mut Decoder<'_>,
        depth: usize,
    ) -> Result<DataValue, DecodeError> {
        let Some(element) = self.lengthless_element(&field.data_type) else {
            return self.decode(&field.data_type, decoder, depth);
        };
        let at = decoder.position();
        let count = Self::rule_count(field, rule, earlier)
            .map_err(|message| DecodeError::Invalid { at, message })?;
        decoder.align(self.types.octet_boundary(&field.data_type))?;
        let count = decoder.check_count(
            at,
            i64::try_from(count).unwrap_or(i64::MAX),
            self.types.min_encoded_len(element),
        )?;
        let mut elements = Vec::with_capacity(count);
        for _ in 0..count {
            elements.push(self.decode(element, decoder, depth + 1)?);
        }
        as_text(self.element_text(element), elements).map_err(|message| DecodeError::Invalid {
            at: decoder.position(),
            message: format!("{}: {message}", field.data_type),
        })
    }

    /// The discriminant, then the alternative it chooses (none: no value follows). An
    /// extended record's alternative is read within the extent its length gives, and the
    /// extent is skipped whole: an alternative this model does not know is passed over.
    fn decode_variant(
        &self,
        variant: &Variant<'_>,
        decoder: &mut Decoder<'_>,
        depth: usize,
    ) -> Result<DataValue, DecodeError> {
        let at = decoder.position();
        let chosen = self.decode(variant.discriminant_type, decoder, depth + 1)?;
        let (DataValue::Enumerator { value, .. }, DataTypeKind::Enumerated { enumerators, .. }) =
            (&chosen, &self.lookup(variant.discriminant_type)?.kind)
        else {
            return Err(DecodeError::Invalid {
                at,
                message: format!("{}: the discriminant is not enumerated", variant.name),
            });
        };
        let extent = if variant.extended {
            decoder.align(4)?;
            Some(decoder.get_u32_be()? as usize)
        } else {
            None
        };
        let mut within = match extent {
            Some(len) => decoder.bounded(len)?,
            None => decoder.clone(),
        };
        let alternatives = variant.alternatives;
        let alternative = match choose(alternatives, enumerators, *value) {
            Some(i) => match &alternatives[i].data_type {
                Some(t) => Some((
                    alternatives[i].name.clone(),
                    Box::new(self.decode(t, &mut within, depth + 1)?),
                )),
                None => None,
            },
            None => None,
        };
        match extent {
            Some(len) => {
                decoder.get_bytes(len)?;
            }
            None => *decoder = within,
        }
        Ok(DataValue::Variant {
            discriminant_name: variant.discriminant.to_owned(),
            discriminant: Box::new(chosen),
            alternative,
        })
    }

    fn decode_array(
        &self,
        name: &str,
        element: &str,
        cardinality: Cardinality,
        encoding: &ArrayEncoding,
        decoder: &mut Decoder<'_>,
        depth: usize,
    ) -> Result<DataValue, DecodeError> {
        let min_len = self.types.min_encoded_len(element);
        let mut elements = Vec::new();
        let next = |decoder: &mut Decoder<'_>| self.decode(element, decoder, depth + 1);
        match encoding {
            ArrayEncoding::Fixed | ArrayEncoding::Variable => {
                let count = if *encoding == ArrayEncoding::Variable {
                    decoder.get_count(min_len)?
                } else {
                    let Cardinality::Fixed(n) = cardinality else {
                        return Err(Self::unsupported(
                            name,
                            "a fixed array without a fixed count",
                        ));
                    };
                    decoder.check_count(decoder.position(), i64::from(n), min_len)?
                };
                for _ in 0..count {
                    elements.push(next(decoder)?);
                }
            }
            ArrayEncoding::Other(e) if e == LENGTHLESS => {
                // No count: the elements run to the end of the buffer.
                while decoder.remaining() > 0 {
                    let start = decoder.position();
                    elements.push(next(decoder)?);
                    if decoder.position() == start {
                        return Err(Self::unsupported(
                            name,
                            "a lengthless array of empty elements",
                        ));
                    }
                }
            }
            ArrayEncoding::Other(e) if e == NULL_TERMINATED => {
                if min_len == 0 {
                    return Err(Self::unsupported(
                        name,
                        "a null-terminated array of elements that may be empty",
                    ));
                }
                loop {
                    decoder.align(self.types.octet_boundary(element))?;
                    let start = decoder.position();
                    let value = next(decoder)?;
                    if decoder.read_since(start).iter().all(|&b| b == 0) {
                        break;
                    }
                    elements.push(value);
                }
            }
            ArrayEncoding::Other(e) => match encoding.padding_boundary() {
                Some(boundary) => {
                    let pad = padding(decoder.position(), boundary);
                    return decoder.get_bytes(pad).map(|b| DataValue::Bytes(b.to_vec()));
                }
                None => return Err(Self::unsupported(name, format!("array encoding {e}"))),
            },
        }
        as_text(self.element_text(element), elements).map_err(|message| DecodeError::Invalid {
            at: decoder.position(),
            message: format!("{name}: {message}"),
        })
    }
}

/// Char and octet arrays as one value; other arrays as they are.
fn as_text(text: ElementText, elements: Vec<DataValue>) -> Result<DataValue, String> {
    let units = || {
        elements
            .iter()
            .map(|e| match e {
                DataValue::Unsigned(v) => Ok(*v),
                _ => Err("an element is not a number".to_owned()),
            })
            .collect::<Result<Vec<u64>, String>>()
    };
    Ok(match text {
        ElementText::None => DataValue::Array(elements),
        ElementText::Latin1 => {
            DataValue::Text(units()?.into_iter().map(|u| char::from(u as u8)).collect())
        }
        ElementText::Octets => DataValue::Bytes(units()?.into_iter().map(|u| u as u8).collect()),
        ElementText::Utf16 => {
            let units: Vec<u16> = units()?.into_iter().map(|u| u as u16).collect();
            DataValue::Text(
                String::from_utf16(&units)
                    .map_err(|_| "an unpaired UTF-16 surrogate".to_owned())?,
            )
        }
    })
}

fn decode_basic(
    name: &str,
    basic: &BasicData,
    decoder: &mut Decoder<'_>,
) -> Result<DataValue, DecodeError> {
    let size = match basic.size_bits {
        8 | 16 | 32 | 64 => basic.size_bits as usize / 8,
        other => {
            return Err(Walk::unsupported(
                name,
                format!("a basic type of {other} bits"),
            ))
        }
    };
    let bytes = decoder.get_bytes(size)?;
    let mut raw: u64 = 0;
    let mut push = |b: &u8| raw = (raw << 8) | u64::from(*b);
    match basic.endian {
        Endian::Big => bytes.iter().for_each(&mut push),
        Endian::Little => bytes.iter().rev().for_each(&mut push),
    }
    let bits = basic.size_bits;
    Ok(match basic.kind {
        BasicKind::Unsigned => DataValue::Unsigned(raw),
        // Sign-extend from the type's width.
        BasicKind::Signed => DataValue::Signed(((raw << (64 - bits)) as i64) >> (64 - bits)),
        BasicKind::Float if bits == 32 => DataValue::Float(f64::from(f32::from_bits(raw as u32))),
        BasicKind::Float if bits == 64 => DataValue::Float(f64::from_bits(raw)),
        BasicKind::Float => return Err(Walk::unsupported(name, format!("a float of {bits} bits"))),
    })
}

mod encode;
#[cfg(test)]
mod tests;
