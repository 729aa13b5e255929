//! Python values to and from the object model's data types (IEEE 1516.2-2010 §4.12):
//! ints and floats for basic and simple types, enumerator names (or numbers) for
//! enumerated types and `bool` for HLAboolean, `str` for arrays of characters, `bytes` for
//! arrays of octets, lists or tuples for other arrays, dicts (or tuples, positionally) for
//! fixed records, and for variant records a dict of the discriminant and the alternative.
//!
//! Python values become a `DataValue` walking the declared type, so each mismatch is
//! reported with the type (and field) it broke; `trellis_core::encoding::value` does the
//! bytes.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use trellis_core::encoding::{decode_value, encode_value, DataValue};
use trellis_core::fom::{
    Alternative, ArrayEncoding, BasicKind, DataTypeKind, DataTypes, Enumerator, Field,
};

/// Deeper than any object model nests; self-referring types stop here.
const MAX_DEPTH: usize = 64;

/// Why a Python value does not fit its data type: the message names the type and, inside
/// records, the field.
pub struct Mismatch(pub String);

type Fit<T> = Result<T, Mismatch>;

fn mismatch(type_name: &str, what: impl std::fmt::Display) -> Mismatch {
    Mismatch(format!("data type {type_name}: {what}"))
}

fn type_name_of(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned())
}

/// Encode `value` as `type_name` of `types`.
pub fn encode(types: &DataTypes, type_name: &str, value: &Bound<'_, PyAny>) -> Fit<Vec<u8>> {
    let data = Shape { types }.to_data(type_name, value, 0)?;
    encode_value(types, type_name, &data).map_err(|e| Mismatch(e.to_string()))
}

/// Decode `bytes` as `type_name` of `types` into a Python value.
pub fn decode<'py>(
    py: Python<'py>,
    types: &DataTypes,
    type_name: &str,
    bytes: &[u8],
) -> Result<Bound<'py, PyAny>, Mismatch> {
    let data = decode_value(types, type_name, bytes).map_err(|e| {
        mismatch(
            type_name,
            format!("cannot decode {} bytes: {e}", bytes.len()),
        )
    })?;
    Shape { types }
        .to_python(py, type_name, &data, 0)
        .map_err(|e| mismatch(type_name, e))
}

/// HLAboolean, and any enumeration of exactly HLAfalse and HLAtrue: a Python bool.
fn is_boolean(enumerators: &[Enumerator]) -> bool {
    enumerators.len() == 2
        && enumerators.iter().any(|e| e.name == "HLAtrue")
        && enumerators.iter().any(|e| e.name == "HLAfalse")
}

/// RPR's padding arrays carry no value: records leave them out of their dicts.
fn is_padding(types: &DataTypes, type_name: &str) -> bool {
    matches!(
        types.get(type_name).map(|t| &t.kind),
        Some(DataTypeKind::Array { encoding, .. }) if encoding.padding_boundary().is_some()
    )
}

#[derive(PartialEq)]
enum Elements {
    Chars,
    Octets,
    Values,
}

struct Shape<'a> {
    types: &'a DataTypes,
}

impl Shape<'_> {
    /// How an array of `element` reads as one Python value (as the decoder makes it).
    fn elements(&self, element: &str) -> Elements {
        if element == "HLAASCIIchar" || element == "HLAunicodeChar" {
            return Elements::Chars;
        }
        let mut name = element;
        for _ in 0..8 {
            match self.types.get(name).map(|t| &t.kind) {
                Some(DataTypeKind::Simple { representation }) => name = representation,
                Some(DataTypeKind::Basic(b))
                    if b.size_bits == 8 && b.kind == BasicKind::Unsigned =>
                {
                    return Elements::Octets
                }
                _ => return Elements::Values,
            }
        }
        Elements::Values
    }

    fn to_data(&self, name: &str, value: &Bound<'_, PyAny>, depth: usize) -> Fit<DataValue> {
        if depth > MAX_DEPTH {
            return Err(mismatch(
                name,
                format!("nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        let kind = &self
            .types
            .get(name)
            .ok_or_else(|| mismatch(name, "is not defined in the object model"))?
            .kind;
        match kind {
            DataTypeKind::Basic(basic) => basic_data(name, basic.kind, value),
            DataTypeKind::Simple { representation } => {
                self.to_data(representation, value, depth + 1)
            }
            DataTypeKind::Enumerated { enumerators, .. } => {
                enumerated_data(name, enumerators, value)
            }
            DataTypeKind::Array {
                element, encoding, ..
            } => self.array_data(name, element, encoding, value, depth),
            DataTypeKind::FixedRecord { fields, .. } => {
                self.record_data(name, fields, value, depth)
            }
            DataTypeKind::VariantRecord {
                discriminant,
                discriminant_type,
                alternatives,
                ..
            } => self.variant_data(
                name,
                discriminant,
                discriminant_type,
                alternatives,
                value,
                depth,
            ),
        }
    }

    fn array_data(
        &self,
        name: &str,
        element: &str,
        encoding: &ArrayEncoding,
        value: &Bound<'_, PyAny>,
        depth: usize,
    ) -> Fit<DataValue> {
        if encoding.padding_boundary().is_some() {
            return Ok(DataValue::Array(Vec::new()));
        }
        let text = self.elements(element);
        if let Ok(s) = value.cast::<PyString>() {
            if text == Elements::Chars {
                return Ok(DataValue::Text(s.to_string()));
            }
            return Err(mismatch(
                name,
                format!("expects an array of {element}, not a str"),
            ));
        }
        if let Ok(b) = value.cast::<PyBytes>() {
            if text != Elements::Values {
                return Ok(DataValue::Bytes(b.as_bytes().to_vec()));
            }
        }
        if !(value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>()) {
            return Err(mismatch(
                name,
                format!("expects a list of {element}, not {}", type_name_of(value)),
            ));
        }
        let mut elements = Vec::new();
        for (index, item) in value.try_iter().map_err(|e| mismatch(name, e))?.enumerate() {
            let item = item.map_err(|e| mismatch(name, e))?;
            let data = self
                .to_data(element, &item, depth + 1)
                .map_err(|Mismatch(m)| Mismatch(format!("{m} (element {index} of {name})")))?;
            elements.push(data);
        }
        Ok(DataValue::Array(elements))
    }

    fn record_data(
        &self,
        name: &str,
        fields: &[Field],
        value: &Bound<'_, PyAny>,
        depth: usize,
    ) -> Fit<DataValue> {
        let valued: Vec<&Field> = fields
            .iter()
            .filter(|f| !is_padding(self.types, &f.data_type))
            .collect();
        let items: Vec<Option<Bound<'_, PyAny>>> = if let Ok(dict) = value.cast::<PyDict>() {
            record_items_from_dict(name, &valued, dict)?
        } else if value.is_instance_of::<PyTuple>() || value.is_instance_of::<PyList>() {
            let seq: Vec<Bound<'_, PyAny>> = value
                .try_iter()
                .and_then(|it| it.collect::<PyResult<Vec<_>>>())
                .map_err(|e| mismatch(name, e))?;
            if seq.len() != valued.len() {
                return Err(mismatch(
                    name,
                    format!(
                        "a record of {} fields ({}), the value has {}",
                        valued.len(),
                        valued
                            .iter()
                            .map(|f| f.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                        seq.len()
                    ),
                ));
            }
            seq.into_iter().map(Some).collect()
        } else {
            return Err(mismatch(
                name,
                format!("expects a dict or tuple, not {}", type_name_of(value)),
            ));
        };
        let mut items = items.into_iter();
        let mut out = Vec::with_capacity(fields.len());
        for field in fields {
            let data = if is_padding(self.types, &field.data_type) {
                DataValue::Array(Vec::new())
            } else {
                let item = items
                    .next()
                    .flatten()
                    .ok_or_else(|| mismatch(name, format!("field {} is missing", field.name)))?;
                self.to_data(&field.data_type, &item, depth + 1)
                    .map_err(|Mismatch(m)| {
                        Mismatch(format!("{m} (field {} of {name})", field.name))
                    })?
            };
            out.push((field.name.clone(), data));
        }
        Ok(DataValue::Record(out))
    }

    #[allow(clippy::too_many_arguments)]
    fn variant_data(
        &self,
        name: &str,
        discriminant: &str,
        discriminant_type: &str,
        alternatives: &[Alternative],
        value: &Bound<'_, PyAny>,
        depth: usize,
    ) -> Fit<DataValue> {
        let dict = value.cast::<PyDict>().map_err(|_| {
            mismatch(
                name,
                format!(
                    "expects a dict of {discriminant} and an alternative, not {}",
                    type_name_of(value)
                ),
            )
        })?;
        let chosen = dict
            .get_item(discriminant)
            .map_err(|e| mismatch(name, e))?
            .ok_or_else(|| mismatch(name, format!("the discriminant {discriminant} is missing")))?;
        let chosen = self.to_data(discriminant_type, &chosen, depth + 1)?;
        let mut alternative = None;
        for (key, item) in dict.iter() {
            let key: String = key
                .extract()
                .map_err(|_| mismatch(name, "keys must be str"))?;
            if key == discriminant {
                continue;
            }
            let alt = alternatives
                .iter()
                .find(|a| a.name == key)
                .ok_or_else(|| mismatch(name, format!("has no alternative {key}")))?;
            let Some(alt_type) = &alt.data_type else {
                return Err(mismatch(name, format!("alternative {key} carries no data")));
            };
            let data = self.to_data(alt_type, &item, depth + 1)?;
            alternative = Some((key, Box::new(data)));
        }
        Ok(DataValue::Variant {
            discriminant_name: discriminant.to_owned(),
            discriminant: Box::new(chosen),
            alternative,
        })
    }
}

/// The values of `fields` from a dict by field name, refusing names the record lacks.
fn record_items_from_dict<'py>(
    name: &str,
    fields: &[&Field],
    dict: &Bound<'py, PyDict>,
) -> Fit<Vec<Option<Bound<'py, PyAny>>>> {
    for key in dict.keys() {
        let key: String = key
            .extract()
            .map_err(|_| mismatch(name, "field names must be str"))?;
        if !fields.iter().any(|f| f.name == key) {
            let known: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
            return Err(mismatch(
                name,
                format!("has no field {key} (fields: {})", known.join(", ")),
            ));
        }
    }
    fields
        .iter()
        .map(|f| dict.get_item(&f.name).map_err(|e| mismatch(name, e)))
        .collect()
}

fn basic_data(name: &str, kind: BasicKind, value: &Bound<'_, PyAny>) -> Fit<DataValue> {
    let wrong = || {
        mismatch(
            name,
            format!(
                "expects {}, not {}",
                if kind == BasicKind::Float {
                    "a float"
                } else {
                    "an int"
                },
                type_name_of(value)
            ),
        )
    };
    match kind {
        BasicKind::Float => {
            if !(value.is_instance_of::<PyFloat>() || value.is_instance_of::<PyInt>()) {
                return Err(wrong());
            }
            value
                .extract::<f64>()
                .map(DataValue::Float)
                .map_err(|_| wrong())
        }
        BasicKind::Signed | BasicKind::Unsigned => {
            if !value.is_instance_of::<PyInt>() {
                return Err(wrong());
            }
            if let Ok(v) = value.extract::<i64>() {
                return Ok(DataValue::Signed(v));
            }
            value
                .extract::<u64>()
                .map(DataValue::Unsigned)
                .map_err(|_| mismatch(name, format!("{value} does not fit in 64 bits")))
        }
    }
}

fn enumerated_data(
    name: &str,
    enumerators: &[Enumerator],
    value: &Bound<'_, PyAny>,
) -> Fit<DataValue> {
    if let Ok(flag) = value.cast::<PyBool>() {
        let wanted = if flag.is_true() {
            "HLAtrue"
        } else {
            "HLAfalse"
        };
        if is_boolean(enumerators) {
            return Ok(DataValue::Enumerator {
                name: Some(wanted.to_owned()),
                value: 0,
            });
        }
        return Err(mismatch(name, "expects an enumerator name, not a bool"));
    }
    if let Ok(text) = value.cast::<PyString>() {
        let text = text.to_string();
        if !enumerators.iter().any(|e| e.name == text) {
            let known: Vec<&str> = enumerators
                .iter()
                .take(12)
                .map(|e| e.name.as_str())
                .collect();
            return Err(mismatch(
                name,
                format!(
                    "has no enumerator {text:?} (it has {}{})",
                    known.join(", "),
                    if enumerators.len() > 12 { ", ..." } else { "" }
                ),
            ));
        }
        return Ok(DataValue::Enumerator {
            name: Some(text),
            value: 0,
        });
    }
    if value.is_instance_of::<PyInt>() {
        let number = value
            .extract::<i64>()
            .map_err(|_| mismatch(name, format!("{value} is out of range")))?;
        return Ok(DataValue::Signed(number));
    }
    Err(mismatch(
        name,
        format!(
            "expects an enumerator name or number, not {}",
            type_name_of(value)
        ),
    ))
}

impl Shape<'_> {
    fn to_python<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        data: &DataValue,
        depth: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        if depth > MAX_DEPTH {
            return Err(PyTypeError::new_err("values nest too deep"));
        }
        let kind = self.types.get(name).map(|t| &t.kind);
        Ok(match (data, kind) {
            (_, Some(DataTypeKind::Simple { representation })) => {
                return self.to_python(py, representation, data, depth + 1)
            }
            (DataValue::Signed(v), _) => v.into_pyobject(py)?.into_any(),
            (DataValue::Unsigned(v), _) => v.into_pyobject(py)?.into_any(),
            (DataValue::Float(v), _) => v.into_pyobject(py)?.into_any(),
            (
                DataValue::Enumerator { name: Some(n), .. },
                Some(DataTypeKind::Enumerated { enumerators, .. }),
            ) if is_boolean(enumerators) => PyBool::new(py, n == "HLAtrue").to_owned().into_any(),
            (DataValue::Enumerator { name: Some(n), .. }, _) => PyString::new(py, n).into_any(),
            (DataValue::Enumerator { name: None, value }, _) => value.into_pyobject(py)?.into_any(),
            (DataValue::Text(s), _) => PyString::new(py, s).into_any(),
            (DataValue::Bytes(b), _) => PyBytes::new(py, b).into_any(),
            (DataValue::Array(items), Some(DataTypeKind::Array { element, .. })) => {
                let list = PyList::empty(py);
                for item in items {
                    list.append(self.to_python(py, element, item, depth + 1)?)?;
                }
                list.into_any()
            }
            (
                DataValue::Record(fields),
                Some(DataTypeKind::FixedRecord {
                    fields: declared, ..
                }),
            ) => self.record_to_python(py, fields, declared, depth)?,
            (
                variant @ DataValue::Variant { .. },
                Some(DataTypeKind::VariantRecord {
                    discriminant_type,
                    alternatives,
                    ..
                }),
            ) => self.variant_to_python(py, variant, discriminant_type, alternatives, depth)?,
            (other, _) => {
                return Err(PyTypeError::new_err(format!(
                    "{name}: unexpected value {other}"
                )))
            }
        })
    }
}

impl Shape<'_> {
    fn record_to_python<'py>(
        &self,
        py: Python<'py>,
        fields: &[(String, DataValue)],
        declared: &[Field],
        depth: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let dict = PyDict::new(py);
        for ((field, value), decl) in fields.iter().zip(declared) {
            if !is_padding(self.types, &decl.data_type) {
                dict.set_item(
                    field,
                    self.to_python(py, &decl.data_type, value, depth + 1)?,
                )?;
            }
        }
        Ok(dict.into_any())
    }

    /// {discriminant name: enumerator, alternative name: value} (no alternative: only the
    /// discriminant).
    fn variant_to_python<'py>(
        &self,
        py: Python<'py>,
        variant: &DataValue,
        discriminant_type: &str,
        alternatives: &[Alternative],
        depth: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let DataValue::Variant {
            discriminant_name,
            discriminant,
            alternative,
        } = variant
        else {
            return Err(PyTypeError::new_err("not a variant record value"));
        };
        let dict = PyDict::new(py);
        let chosen = self.to_python(py, discriminant_type, discriminant, depth + 1)?;
        dict.set_item(discriminant_name, chosen)?;
        if let Some((alt_name, value)) = alternative {
            let alt_type = alternatives
                .iter()
                .find(|a| &a.name == alt_name)
                .and_then(|a| a.data_type.as_deref())
                .unwrap_or("");
            dict.set_item(alt_name, self.to_python(py, alt_type, value, depth + 1)?)?;
        }
        Ok(dict.into_any())
    }
}
