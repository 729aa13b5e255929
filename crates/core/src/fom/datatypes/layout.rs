//! Octet boundaries (IEEE 1516.2-2010 §4.12.7.1) and lower bounds on encoded lengths,
//! worked out once per model so encoders and decoders only look them up.

use super::{
    Alternative, ArrayEncoding, Cardinality, DataType, DataTypeKind, EXTENDED_VARIANT_RECORD,
};
use crate::fom::error::FomError;
use std::collections::{BTreeMap, BTreeSet};

/// Far deeper than real models nest types (RPR 2.0: a handful of levels).
pub(crate) const MAX_TYPE_NESTING: usize = 64;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Every value of the type starts at a multiple of this many octets.
    pub octet_boundary: usize,
    /// No value of the type encodes in fewer octets.
    pub min_len: usize,
}

/// What a type contributes while its own layout is being worked out (a recursion through
/// a variable array) or when it is missing: nothing to the maximum or to the sum.
const NEUTRAL: Layout = Layout {
    octet_boundary: 1,
    min_len: 0,
};

struct Planner<'a> {
    types: &'a BTreeMap<String, DataType>,
    done: BTreeMap<String, Layout>,
    /// The last pass's results, for types met again while still in progress.
    previous: &'a BTreeMap<String, Layout>,
    in_progress: BTreeSet<&'a str>,
    errors: Vec<FomError>,
}

impl<'a> Planner<'a> {
    fn layout(&mut self, name: &'a str, depth: usize) -> Layout {
        if let Some(&layout) = self.done.get(name) {
            return layout;
        }
        let Some(data_type) = self.types.get(name) else {
            return NEUTRAL;
        };
        if self.in_progress.contains(name) {
            return self.previous.get(name).copied().unwrap_or(NEUTRAL);
        }
        if depth > MAX_TYPE_NESTING {
            self.errors.push(FomError {
                file: data_type.file.clone(),
                line: data_type.line,
                element: data_type.kind.element().into(),
                message: format!(
                    "data type {name} nests types deeper than {MAX_TYPE_NESTING} levels"
                ),
            });
            self.done.insert(name.to_owned(), NEUTRAL);
            return NEUTRAL;
        }
        self.in_progress.insert(name);
        let layout = self.compute(&data_type.kind, depth);
        self.in_progress.remove(name);
        self.done.insert(name.to_owned(), layout);
        layout
    }

    fn compute(&mut self, kind: &'a DataTypeKind, depth: usize) -> Layout {
        match kind {
            DataTypeKind::Basic(basic) => {
                let octets = basic.size_bits.div_ceil(8) as usize;
                Layout {
                    octet_boundary: octets,
                    min_len: octets,
                }
            }
            DataTypeKind::Simple { representation }
            | DataTypeKind::Enumerated { representation, .. } => {
                self.layout(representation, depth + 1)
            }
            DataTypeKind::Array {
                element,
                cardinality,
                encoding,
            } => {
                let element = self.layout(element, depth + 1);
                let min_count = match cardinality {
                    Cardinality::Fixed(n) => *n as usize,
                    Cardinality::Dynamic => 0,
                    Cardinality::Range { min, .. } => *min as usize,
                };
                let elements = min_count.saturating_mul(element.min_len);
                match encoding {
                    ArrayEncoding::Fixed => Layout {
                        octet_boundary: element.octet_boundary,
                        min_len: elements,
                    },
                    ArrayEncoding::Variable => Layout {
                        octet_boundary: element.octet_boundary.max(4),
                        min_len: elements.saturating_add(4),
                    },
                    other if other.padding_boundary().is_some() => NEUTRAL,
                    ArrayEncoding::Other(_) => Layout {
                        octet_boundary: element.octet_boundary,
                        min_len: 0,
                    },
                }
            }
            DataTypeKind::FixedRecord { fields, .. } => {
                fields.iter().fold(NEUTRAL, |total, field| {
                    let field = self.layout(&field.data_type, depth + 1);
                    Layout {
                        octet_boundary: total.octet_boundary.max(field.octet_boundary),
                        min_len: total.min_len.saturating_add(field.min_len),
                    }
                })
            }
            DataTypeKind::VariantRecord {
                discriminant_type,
                alternatives,
                encoding,
                ..
            } => self.variant(discriminant_type, alternatives, encoding, depth),
        }
    }

    /// A variant record: as wide as its widest part, as long as its discriminant at least
    /// (an extended record's HLAinteger32BE extent follows the discriminant).
    fn variant(
        &mut self,
        discriminant_type: &'a str,
        alternatives: &'a [Alternative],
        encoding: &str,
        depth: usize,
    ) -> Layout {
        let discriminant = self.layout(discriminant_type, depth + 1);
        let (extent_boundary, extent_len) = if encoding == EXTENDED_VARIANT_RECORD {
            (4, 4)
        } else {
            (1, 0)
        };
        let octet_boundary = alternatives
            .iter()
            .filter_map(|a| a.data_type.as_deref())
            .map(|t| self.layout(t, depth + 1).octet_boundary)
            .fold(discriminant.octet_boundary.max(extent_boundary), usize::max);
        Layout {
            octet_boundary,
            min_len: discriminant.min_len.saturating_add(extent_len),
        }
    }
}

/// Passes over a model whose types reach themselves through variable arrays: each pass
/// feeds the last one's boundaries back in. Boundaries only grow and are at most 8 in
/// practice, so a few passes settle.
const MAX_PASSES: usize = 8;

/// The layout of every type, or errors for types nested too deep to handle safely.
/// Call only on a model without direct recursion (a record containing itself).
pub(crate) fn plan(
    types: &BTreeMap<String, DataType>,
) -> (BTreeMap<String, Layout>, Vec<FomError>) {
    let mut previous = BTreeMap::new();
    for _ in 0..MAX_PASSES {
        let mut planner = Planner {
            types,
            done: BTreeMap::new(),
            previous: &previous,
            in_progress: BTreeSet::new(),
            errors: Vec::new(),
        };
        for name in types.keys() {
            planner.layout(name, 0);
        }
        if !planner.errors.is_empty() || planner.done == previous {
            return (planner.done, planner.errors);
        }
        previous = planner.done;
    }
    (previous, Vec::new())
}
