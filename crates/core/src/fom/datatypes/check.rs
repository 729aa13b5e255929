//! Merge the modules' data types and check them as a set.

use super::layout::{self, MAX_TYPE_NESTING};
use super::predefined::predefined;
use super::{
    ArrayEncoding, Cardinality, DataType, DataTypeDecl, DataTypeKind, DataTypes, Selector,
    PREDEFINED_FILE,
};
use crate::fom::error::FomError;
use crate::fom::parse::{ClassDecl, Module};
use std::collections::BTreeMap;

/// A place outside `<dataTypes>` that names a data type: an attribute, a parameter or a
/// dimension.
pub(crate) struct TypeUse {
    pub data_type: String,
    pub owner: String,
    pub element: &'static str,
    pub file: String,
    pub line: u32,
}

/// Every data type named by the attributes, parameters and dimensions of `modules`.
pub(crate) fn type_uses(modules: &[Module]) -> Vec<TypeUse> {
    fn walk(class: &ClassDecl, parent: &str, member: &'static str, out: &mut Vec<TypeUse>) {
        let qualified = if parent.is_empty() {
            class.name.clone()
        } else {
            format!("{parent}.{}", class.name)
        };
        for m in &class.members {
            out.push(TypeUse {
                data_type: m.data_type.clone(),
                owner: format!("{qualified}.{}", m.name),
                element: member,
                file: m.site.file.clone(),
                line: m.site.line,
            });
        }
        for child in &class.children {
            walk(child, &qualified, member, out);
        }
    }
    let mut uses = Vec::new();
    for module in modules {
        if let Some(root) = &module.objects {
            walk(root, "", "attribute", &mut uses);
        }
        if let Some(root) = &module.interactions {
            walk(root, "", "parameter", &mut uses);
        }
        for d in &module.dimensions {
            uses.push(TypeUse {
                data_type: d.data_type.clone(),
                owner: format!("dimension {}", d.name),
                element: "dimension",
                file: d.site.file.clone(),
                line: d.site.line,
            });
        }
    }
    uses
}

fn error_at(t: &DataType, message: impl Into<String>) -> FomError {
    FomError {
        file: t.file.clone(),
        line: t.line,
        element: t.kind.element().into(),
        message: message.into(),
    }
}

fn place(t: &DataType) -> String {
    if t.is_predefined() {
        format!("{PREDEFINED_FILE} (predefined)")
    } else {
        format!("{}:{}", t.file, t.line)
    }
}

/// Every module's declarations into one map; a name declared twice must mean the same.
fn merge(
    modules: Vec<Vec<DataTypeDecl>>,
    errors: &mut Vec<FomError>,
) -> BTreeMap<String, DataType> {
    let mut types: BTreeMap<String, DataType> = predefined()
        .into_iter()
        .map(|t| (t.name.clone(), t))
        .collect();
    for decl in modules.into_iter().flatten() {
        match types.get(&decl.name) {
            None => {
                types.insert(decl.name.clone(), decl);
            }
            Some(first) if first.kind == decl.kind => {}
            Some(first) => errors.push(error_at(
                &decl,
                format!(
                    "data type {} conflicts with its declaration at {}",
                    decl.name,
                    place(first)
                ),
            )),
        }
    }
    types
}

/// References to undeclared types: kept, not fatal (see the module comment).
fn unresolved(types: &BTreeMap<String, DataType>, uses: &[TypeUse]) -> Vec<FomError> {
    let mut out = Vec::new();
    for t in types.values() {
        for (what, name) in t.kind.references() {
            if !types.contains_key(name) {
                out.push(error_at(
                    t,
                    format!("{}: {what} {name} is not a declared data type", t.name),
                ));
            }
        }
    }
    for u in uses {
        // An empty or "NA" type means the member carries no declared type.
        if u.data_type.is_empty() || u.data_type == "NA" || types.contains_key(&u.data_type) {
            continue;
        }
        out.push(FomError {
            file: u.file.clone(),
            line: u.line,
            element: u.element.into(),
            message: format!("{}: data type {} is not declared", u.owner, u.data_type),
        });
    }
    out
}

/// Checks that need the referenced types: representations are basic, discriminants are
/// enumerated and alternatives name their enumerators.
fn check_kinds(types: &BTreeMap<String, DataType>, errors: &mut Vec<FomError>) {
    for t in types.values() {
        match &t.kind {
            DataTypeKind::Simple { representation }
            | DataTypeKind::Enumerated { representation, .. } => {
                if let Some(r) = types.get(representation) {
                    if !matches!(r.kind, DataTypeKind::Basic(_)) {
                        errors.push(error_at(
                            t,
                            format!(
                                "{}: representation {representation} is a {}, not a basicData",
                                t.name,
                                r.kind.element()
                            ),
                        ));
                    }
                }
            }
            DataTypeKind::VariantRecord {
                discriminant_type,
                alternatives,
                ..
            } => {
                let Some(d) = types.get(discriminant_type) else {
                    continue;
                };
                let DataTypeKind::Enumerated { enumerators, .. } = &d.kind else {
                    errors.push(error_at(
                        t,
                        format!(
                            "{}: discriminant type {discriminant_type} is a {}, not an enumeratedData",
                            t.name,
                            d.kind.element()
                        ),
                    ));
                    continue;
                };
                let known = |name: &str| enumerators.iter().any(|e| e.name == name);
                for a in alternatives {
                    let names: Vec<&str> = a
                        .selectors
                        .iter()
                        .flat_map(|s| match s {
                            Selector::Enumerator(n) => vec![n.as_str()],
                            Selector::Range(first, last) => vec![first.as_str(), last.as_str()],
                            Selector::Other => vec![],
                        })
                        .collect();
                    for name in names.into_iter().filter(|n| !known(n)) {
                        errors.push(error_at(
                            t,
                            format!(
                                "{}: alternative {} names enumerator {name}, which {discriminant_type} does not have",
                                t.name, a.name
                            ),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The types a value of `kind` always contains, so that a cycle of them has no end: record
/// fields, and the elements of arrays that hold at least one. Variable arrays that may be
/// empty and variant alternatives are the indirection that lets a type refer to itself.
fn contained(kind: &DataTypeKind) -> Vec<&str> {
    match kind {
        DataTypeKind::FixedRecord { fields, .. } => {
            fields.iter().map(|f| f.data_type.as_str()).collect()
        }
        DataTypeKind::Array {
            element,
            cardinality,
            encoding,
        } => {
            let at_least_one = match cardinality {
                Cardinality::Fixed(n) => *n > 0,
                Cardinality::Range { min, .. } => *min > 0,
                Cardinality::Dynamic => false,
            };
            let open_ended = matches!(encoding, ArrayEncoding::Other(_));
            if at_least_one && !open_ended {
                vec![element.as_str()]
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Mark {
    OnPath,
    Done,
}

struct CycleFinder<'a> {
    types: &'a BTreeMap<String, DataType>,
    marks: BTreeMap<&'a str, Mark>,
    path: Vec<&'a str>,
    errors: Vec<FomError>,
}

impl<'a> CycleFinder<'a> {
    fn visit(&mut self, name: &'a str) {
        let Some(t) = self.types.get(name) else {
            return;
        };
        match self.marks.get(name) {
            Some(Mark::Done) => return,
            Some(Mark::OnPath) => {
                let start = self.path.iter().position(|&n| n == name).unwrap_or(0);
                let mut cycle: Vec<&str> = self.path[start..].to_vec();
                cycle.push(name);
                self.errors.push(error_at(
                    t,
                    format!(
                        "data type {name} contains itself with no variable-length array in between: {}",
                        cycle.join(" -> ")
                    ),
                ));
                return;
            }
            None => {}
        }
        if self.path.len() > MAX_TYPE_NESTING {
            self.errors.push(error_at(
                t,
                format!("data type {name} nests types deeper than {MAX_TYPE_NESTING} levels"),
            ));
            self.marks.insert(name, Mark::Done);
            return;
        }
        self.marks.insert(name, Mark::OnPath);
        self.path.push(name);
        for inner in contained(&t.kind) {
            self.visit(inner);
        }
        self.path.pop();
        self.marks.insert(name, Mark::Done);
    }
}

fn find_cycles(types: &BTreeMap<String, DataType>) -> Vec<FomError> {
    let mut finder = CycleFinder {
        types,
        marks: BTreeMap::new(),
        path: Vec::new(),
        errors: Vec::new(),
    };
    for name in types.keys() {
        finder.visit(name);
    }
    finder.errors
}

/// Merge and check the data types of every module (in load order) against the types the
/// rest of the model names.
pub(crate) fn build(
    modules: Vec<Vec<DataTypeDecl>>,
    uses: &[TypeUse],
) -> Result<DataTypes, Vec<FomError>> {
    let mut errors = Vec::new();
    let types = merge(modules, &mut errors);
    check_kinds(&types, &mut errors);
    errors.extend(find_cycles(&types));
    if !errors.is_empty() {
        return Err(errors);
    }
    let (layouts, nesting_errors) = layout::plan(&types);
    if !nesting_errors.is_empty() {
        return Err(nesting_errors);
    }
    let unresolved = unresolved(&types, uses);
    Ok(DataTypes {
        types,
        layouts,
        unresolved,
    })
}
