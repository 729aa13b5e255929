//! `trellis.ObjectModel`: a loaded object model (FOM modules merged after the standard
//! MIM), its classes and data types, and value encoding by those types.

use crate::errors::raise;
use crate::values::{self, Mismatch};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::Arc;
use trellis_core::fom::{
    Alternative, ArrayEncoding, BasicKind, Cardinality, DataTypeKind, Selector,
};
use trellis_core::fom::{AttributeHandle, ObjectModel, ParameterHandle};
use trellis_net::rti::fdd_exception_name;

#[pyclass(name = "ObjectModel", module = "trellis", frozen)]
pub struct PyObjectModel {
    pub model: Arc<ObjectModel>,
}

pub fn encoder_error(Mismatch(message): Mismatch) -> PyErr {
    raise("EncoderException", message)
}

/// A class's name as federates write it: its qualified name without HLAobjectRoot or
/// HLAinteractionRoot.
pub fn short_name(qualified: &str) -> &str {
    qualified
        .strip_prefix("HLAobjectRoot.")
        .or_else(|| qualified.strip_prefix("HLAinteractionRoot."))
        .unwrap_or(qualified)
}

/// Look a class's attribute up, raising the standard exception that names both.
pub fn attribute(model: &ObjectModel, class: &str, name: &str) -> PyResult<AttributeHandle> {
    let handle = model.find_object_class(class).ok_or_else(|| {
        raise(
            "ObjectClassNotDefined",
            format!("object class {class:?} is not defined in the object model"),
        )
    })?;
    model.find_attribute(handle, name).ok_or_else(|| {
        raise(
            "AttributeNotDefined",
            format!("attribute {name:?} is not defined for object class {class}"),
        )
    })
}

pub fn parameter(model: &ObjectModel, class: &str, name: &str) -> PyResult<ParameterHandle> {
    let handle = model.find_interaction_class(class).ok_or_else(|| {
        raise(
            "InteractionClassNotDefined",
            format!("interaction class {class:?} is not defined in the object model"),
        )
    })?;
    model.find_parameter(handle, name).ok_or_else(|| {
        raise(
            "InteractionParameterNotDefined",
            format!("parameter {name:?} is not defined for interaction class {class}"),
        )
    })
}

pub fn load(paths: &[String]) -> PyResult<ObjectModel> {
    ObjectModel::load(paths, &|path| std::fs::read(path))
        .map_err(|errors| raise(fdd_exception_name(errors.kind()), errors.to_string()))
}

#[pymethods]
impl PyObjectModel {
    /// Load and merge FOM modules (paths), after the standard MIM.
    #[new]
    fn new(py: Python<'_>, modules: Vec<String>) -> PyResult<Self> {
        let model = py.detach(|| load(&modules))?;
        Ok(PyObjectModel {
            model: Arc::new(model),
        })
    }

    #[getter]
    fn modules(&self) -> Vec<String> {
        self.model.modules().to_vec()
    }

    /// Object class names (qualified, without HLAobjectRoot).
    fn object_class_names(&self) -> Vec<String> {
        self.model
            .object_classes()
            .iter()
            .map(|c| short_name(&c.qualified_name).to_owned())
            .collect()
    }

    fn interaction_class_names(&self) -> Vec<String> {
        self.model
            .interaction_classes()
            .iter()
            .map(|c| short_name(&c.qualified_name).to_owned())
            .collect()
    }

    fn data_type_names(&self) -> Vec<String> {
        self.model
            .data_types()
            .iter()
            .map(|t| t.name.clone())
            .collect()
    }

    /// The declared data type of an object class's attribute.
    fn attribute_type(&self, object_class: &str, attribute_name: &str) -> PyResult<String> {
        let handle = attribute(&self.model, object_class, attribute_name)?;
        Ok(self.model.attribute(handle).data_type.clone())
    }

    fn parameter_type(&self, interaction_class: &str, parameter_name: &str) -> PyResult<String> {
        let handle = parameter(&self.model, interaction_class, parameter_name)?;
        Ok(self.model.parameter(handle).data_type.clone())
    }

    /// The HLA encoding of `value` as data type `type_name`.
    fn encode<'py>(
        &self,
        py: Python<'py>,
        type_name: &str,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let bytes =
            values::encode(self.model.data_types(), type_name, value).map_err(encoder_error)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The Python value of `data`, decoded as data type `type_name`.
    fn decode<'py>(
        &self,
        py: Python<'py>,
        type_name: &str,
        data: &[u8],
    ) -> PyResult<Bound<'py, PyAny>> {
        values::decode(py, self.model.data_types(), type_name, data).map_err(encoder_error)
    }

    /// A data type's declaration as a dict: `kind` (basic, simple, enumerated, array,
    /// fixed_record, variant_record) and what that kind declares.
    fn describe_type<'py>(&self, py: Python<'py>, type_name: &str) -> PyResult<Bound<'py, PyDict>> {
        let data_type = self.model.data_types().get(type_name).ok_or_else(|| {
            raise(
                "EncoderException",
                format!("data type {type_name} is not defined in the object model"),
            )
        })?;
        describe(py, &data_type.kind)
    }

    fn __repr__(&self) -> String {
        format!(
            "ObjectModel({:?}: {})",
            self.model.modules(),
            self.model.counts()
        )
    }
}

fn describe<'py>(py: Python<'py>, kind: &DataTypeKind) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match kind {
        DataTypeKind::Basic(basic) => {
            d.set_item("kind", "basic")?;
            d.set_item("bits", basic.size_bits)?;
            let number = match basic.kind {
                BasicKind::Signed => "signed",
                BasicKind::Unsigned => "unsigned",
                BasicKind::Float => "float",
            };
            d.set_item("number", number)?;
        }
        DataTypeKind::Simple { representation } => {
            d.set_item("kind", "simple")?;
            d.set_item("representation", representation)?;
        }
        DataTypeKind::Enumerated {
            representation,
            enumerators,
        } => {
            d.set_item("kind", "enumerated")?;
            d.set_item("representation", representation)?;
            let list: Vec<(String, Vec<i64>)> = enumerators
                .iter()
                .map(|e| (e.name.clone(), e.values.clone()))
                .collect();
            d.set_item("enumerators", list)?;
        }
        DataTypeKind::Array {
            element,
            cardinality,
            encoding,
        } => describe_array(&d, element, *cardinality, encoding)?,
        DataTypeKind::FixedRecord { fields, encoding } => {
            d.set_item("kind", "fixed_record")?;
            d.set_item("encoding", encoding)?;
            let list: Vec<(String, String)> = fields
                .iter()
                .map(|f| (f.name.clone(), f.data_type.clone()))
                .collect();
            d.set_item("fields", list)?;
            // RPR's length rules: field name to the expression over earlier fields that
            // counts its lengthless array.
            let rules = PyDict::new(d.py());
            for field in fields {
                if let Some(rule) = &field.length {
                    rules.set_item(&field.name, rule.expression())?;
                }
            }
            d.set_item("length_rules", rules)?;
        }
        DataTypeKind::VariantRecord {
            discriminant,
            discriminant_type,
            alternatives,
            encoding,
        } => {
            d.set_item("kind", "variant_record")?;
            d.set_item("encoding", encoding)?;
            d.set_item("discriminant", discriminant)?;
            d.set_item("discriminant_type", discriminant_type)?;
            d.set_item("alternatives", describe_alternatives(alternatives))?;
        }
    }
    Ok(d)
}

fn describe_array(
    d: &Bound<'_, PyDict>,
    element: &str,
    cardinality: Cardinality,
    encoding: &ArrayEncoding,
) -> PyResult<()> {
    d.set_item("kind", "array")?;
    d.set_item("element", element)?;
    let (min, max) = match cardinality {
        Cardinality::Fixed(n) => (Some(n), Some(n)),
        Cardinality::Dynamic => (None, None),
        Cardinality::Range { min, max } => (Some(min), Some(max)),
    };
    d.set_item("min", min)?;
    d.set_item("max", max)?;
    d.set_item("fixed", matches!(cardinality, Cardinality::Fixed(_)))?;
    let encoding = match encoding {
        ArrayEncoding::Fixed => "HLAfixedArray",
        ArrayEncoding::Variable => "HLAvariableArray",
        ArrayEncoding::Other(name) => name.as_str(),
    };
    d.set_item("encoding", encoding)
}

/// (name, data type or None, selectors) of each alternative; a selector is an enumerator
/// name, "[First..Last]" or "HLAother".
fn describe_alternatives(
    alternatives: &[Alternative],
) -> Vec<(String, Option<String>, Vec<String>)> {
    alternatives
        .iter()
        .map(|a| {
            let selectors = a
                .selectors
                .iter()
                .map(|s| match s {
                    Selector::Enumerator(name) => name.clone(),
                    Selector::Range(first, last) => format!("[{first}..{last}]"),
                    Selector::Other => "HLAother".to_owned(),
                })
                .collect();
            (a.name.clone(), a.data_type.clone(), selectors)
        })
        .collect()
}
