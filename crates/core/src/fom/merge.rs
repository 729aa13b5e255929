//! Several modules into one model: classes merge by qualified name, members by name, and
//! anything declared twice must be declared the same way.

use super::error::{FomError, Site};
use super::parse::{ClassDecl, MemberDecl, Module};
use super::{
    Attribute, AttributeHandle, Dimension, DimensionHandle, InteractionClass,
    InteractionClassHandle, ObjectClass, ObjectClassHandle, ObjectModel, Order, Parameter,
    ParameterHandle, Transportation,
};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

const OBJECT_ROOT: &str = "HLAobjectRoot";
const INTERACTION_ROOT: &str = "HLAinteractionRoot";

/// A member (attribute or parameter) as merged, with where it was first declared.
struct Member {
    data_type: String,
    transportation: Option<String>,
    order: Option<String>,
    dimensions: Vec<(String, Site)>,
    site: Site,
}

impl Member {
    fn same_as(&self, other: &MemberDecl) -> bool {
        let names = |d: &[(String, Site)]| {
            let mut n: Vec<&str> = d.iter().map(|(n, _)| n.as_str()).collect();
            n.sort_unstable();
            n.dedup();
            n.into_iter().map(str::to_owned).collect::<Vec<_>>()
        };
        self.data_type == other.data_type
            && self.transportation == other.transportation
            && self.order == other.order
            && names(&self.dimensions) == names(&other.dimensions)
    }
}

struct Class {
    name: String,
    parent: Option<String>,
    site: Site,
    members: BTreeMap<String, Member>,
    transportation: Option<(String, Site)>,
    order: Option<(String, Site)>,
    dimensions: Option<(Vec<(String, Site)>, Site)>,
}

struct Tree {
    kind: &'static str,
    member_kind: &'static str,
    classes: BTreeMap<String, Class>,
    /// Each class name's first qualified name and place, to catch a module that repeats a
    /// class under another parent: merging by qualified name would silently fork it.
    first_by_name: FxHashMap<String, (String, Site)>,
}

/// Merge `value` declared at `site` into `slot`, or report a conflict with the first.
fn merge_setting(
    slot: &mut Option<(String, Site)>,
    value: &Option<String>,
    site: &Site,
    what: &str,
    qualified: &str,
    errors: &mut Vec<FomError>,
) {
    let Some(value) = value else { return };
    match slot {
        None => *slot = Some((value.clone(), site.clone())),
        Some((first, first_site)) if first != value => errors.push(site.error(
            what,
            format!("{qualified}: {what} {value} conflicts with {first} declared at {first_site}"),
        )),
        Some(_) => {}
    }
}

impl Tree {
    fn new(kind: &'static str, member_kind: &'static str) -> Tree {
        Tree {
            kind,
            member_kind,
            classes: BTreeMap::new(),
            first_by_name: FxHashMap::default(),
        }
    }

    fn add(&mut self, decl: &ClassDecl, parent: Option<&str>, errors: &mut Vec<FomError>) {
        let qualified = match parent {
            Some(p) => format!("{p}.{}", decl.name),
            None => decl.name.clone(),
        };
        match self.first_by_name.get(&decl.name) {
            Some((first, first_site))
                if *first != qualified && first_site.file != decl.site.file =>
            {
                let first_parent = first.rsplit_once('.').map_or("none", |(p, _)| p);
                errors.push(decl.site.error(
                    self.kind,
                    format!(
                        "{} has parent {} here but parent {} at {first_site}",
                        decl.name,
                        parent.unwrap_or("none"),
                        first_parent,
                    ),
                ));
            }
            Some(_) => {}
            None => {
                self.first_by_name
                    .insert(decl.name.clone(), (qualified.clone(), decl.site.clone()));
            }
        }
        let class = self
            .classes
            .entry(qualified.clone())
            .or_insert_with(|| Class {
                name: decl.name.clone(),
                parent: parent.map(str::to_owned),
                site: decl.site.clone(),
                members: BTreeMap::new(),
                transportation: None,
                order: None,
                dimensions: None,
            });
        merge_setting(
            &mut class.transportation,
            &decl.transportation,
            &decl.site,
            "transportation",
            &qualified,
            errors,
        );
        merge_setting(
            &mut class.order,
            &decl.order,
            &decl.site,
            "order",
            &qualified,
            errors,
        );
        if let Some(dims) = &decl.dimensions {
            match &class.dimensions {
                None => class.dimensions = Some((dims.clone(), decl.site.clone())),
                Some((first, first_site)) => {
                    let names = |d: &[(String, Site)]| {
                        let mut n: Vec<String> = d.iter().map(|(n, _)| n.clone()).collect();
                        n.sort();
                        n
                    };
                    // Scaffolding repeats of a class often leave <dimensions/> empty.
                    if !dims.is_empty() && !first.is_empty() && names(first) != names(dims) {
                        errors.push(decl.site.error(
                            "dimensions",
                            format!("{qualified}: dimensions differ from those declared at {first_site}"),
                        ));
                    } else if first.is_empty() {
                        class.dimensions = Some((dims.clone(), decl.site.clone()));
                    }
                }
            }
        }
        let mut seen_here = BTreeMap::new();
        for member in &decl.members {
            if let Some(first) = seen_here.insert(member.name.clone(), member.site.clone()) {
                errors.push(member.site.error(
                    self.member_kind,
                    format!(
                        "{qualified}: {} {} is declared twice in this module (first at {first})",
                        self.member_kind, member.name
                    ),
                ));
                continue;
            }
            match class.members.get(&member.name) {
                None => {
                    class.members.insert(
                        member.name.clone(),
                        Member {
                            data_type: member.data_type.clone(),
                            transportation: member.transportation.clone(),
                            order: member.order.clone(),
                            dimensions: member.dimensions.clone(),
                            site: member.site.clone(),
                        },
                    );
                }
                Some(first) if !first.same_as(member) => errors.push(member.site.error(
                    self.member_kind,
                    format!(
                        "{qualified}: {} {} conflicts with its declaration at {}",
                        self.member_kind, member.name, first.site
                    ),
                )),
                Some(_) => {}
            }
        }
        for child in &decl.children {
            self.add(child, Some(&qualified), errors);
        }
    }

    /// Members declared in `qualified` that an ancestor already declares.
    fn check_shadowing(&self, errors: &mut Vec<FomError>) {
        for (qualified, class) in &self.classes {
            let mut ancestor = class.parent.as_deref();
            while let Some(name) = ancestor {
                let Some(up) = self.classes.get(name) else {
                    break;
                };
                for (member, decl) in &class.members {
                    if let Some(inherited) = up.members.get(member) {
                        errors.push(decl.site.error(
                            self.member_kind,
                            format!(
                                "{qualified}: {} {member} is already inherited from {name} (declared at {})",
                                self.member_kind, inherited.site
                            ),
                        ));
                    }
                }
                ancestor = up.parent.as_deref();
            }
        }
    }
}

/// Resolves names of transportations, orders and dimensions, collecting errors.
struct Resolver<'a> {
    transportations: &'a BTreeMap<String, (bool, Site)>,
    dimensions: &'a BTreeMap<String, DimensionHandle>,
    errors: Vec<FomError>,
}

impl Resolver<'_> {
    fn transportation(&mut self, name: Option<&str>, site: &Site, owner: &str) -> Transportation {
        let name = name.unwrap_or("HLAreliable");
        match self.transportations.get(name) {
            Some((reliable, _)) => Transportation {
                name: name.to_owned(),
                reliable: *reliable,
            },
            None => {
                self.errors.push(site.error(
                    "transportation",
                    format!("{owner}: transportation {name} is not declared (HLAreliable, HLAbestEffort or a <transportation> of the model)"),
                ));
                Transportation {
                    name: name.to_owned(),
                    reliable: true,
                }
            }
        }
    }

    fn order(&mut self, name: Option<&str>, site: &Site, owner: &str) -> Order {
        match name {
            None | Some("Receive") => Order::Receive,
            Some("TimeStamp") => Order::TimeStamp,
            Some(other) => {
                self.errors.push(site.error(
                    "order",
                    format!("{owner}: order {other} is neither Receive nor TimeStamp"),
                ));
                Order::Receive
            }
        }
    }

    fn dimensions(&mut self, refs: &[(String, Site)], owner: &str) -> Vec<DimensionHandle> {
        let mut out = Vec::new();
        for (name, site) in refs {
            match self.dimensions.get(name) {
                Some(&handle) => out.push(handle),
                None => self.errors.push(site.error(
                    "dimension",
                    format!("{owner}: dimension {name} is not declared"),
                )),
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

fn check_root(tree: &Tree, expected: &str, errors: &mut Vec<FomError>) {
    for (qualified, class) in &tree.classes {
        if class.parent.is_none() && qualified != expected {
            errors.push(class.site.error(
                tree.kind,
                format!(
                    "the root {} must be named {expected}, not {qualified}",
                    tree.kind
                ),
            ));
        }
    }
}

pub(crate) fn merge(modules: Vec<Module>) -> Result<ObjectModel, Vec<FomError>> {
    let mut errors = Vec::new();
    let mut objects = Tree::new("objectClass", "attribute");
    let mut interactions = Tree::new("interactionClass", "parameter");
    let mut transportations: BTreeMap<String, (bool, Site)> = BTreeMap::new();
    let builtin = Site {
        file: "IEEE 1516-2010".into(),
        line: 0,
    };
    transportations.insert("HLAreliable".into(), (true, builtin.clone()));
    transportations.insert("HLAbestEffort".into(), (false, builtin));
    let mut dimension_decls: BTreeMap<String, (Option<u64>, String, Site)> = BTreeMap::new();
    for module in &modules {
        if let Some(root) = &module.objects {
            objects.add(root, None, &mut errors);
        }
        if let Some(root) = &module.interactions {
            interactions.add(root, None, &mut errors);
        }
        for t in &module.transportations {
            match transportations.get(&t.name) {
                Some((reliable, site)) if *reliable != t.reliable => errors.push(t.site.error(
                    "transportation",
                    format!(
                        "transportation {}: reliability conflicts with its declaration at {site}",
                        t.name
                    ),
                )),
                Some(_) => {}
                None => {
                    transportations.insert(t.name.clone(), (t.reliable, t.site.clone()));
                }
            }
        }
        for d in &module.dimensions {
            match dimension_decls.get_mut(&d.name) {
                None => {
                    dimension_decls.insert(
                        d.name.clone(),
                        (d.upper_bound, d.data_type.clone(), d.site.clone()),
                    );
                }
                Some((bound, data_type, site)) => {
                    match (*bound, d.upper_bound) {
                        (Some(a), Some(b)) if a != b => errors.push(d.site.error(
                            "dimension",
                            format!(
                                "dimension {}: upper bound {b} conflicts with {a} declared at {site}",
                                d.name
                            ),
                        )),
                        (None, Some(b)) => *bound = Some(b),
                        _ => {}
                    }
                    if data_type.is_empty() {
                        data_type.clone_from(&d.data_type);
                    } else if !d.data_type.is_empty() && *data_type != d.data_type {
                        errors.push(d.site.error(
                            "dimension",
                            format!(
                                "dimension {}: data type {} conflicts with {data_type} declared at {site}",
                                d.name, d.data_type
                            ),
                        ));
                    }
                }
            }
        }
    }
    check_root(&objects, OBJECT_ROOT, &mut errors);
    check_root(&interactions, INTERACTION_ROOT, &mut errors);
    objects.check_shadowing(&mut errors);
    interactions.check_shadowing(&mut errors);

    let mut dimensions = Vec::new();
    let mut dimension_handles = BTreeMap::new();
    for (name, (bound, data_type, site)) in &dimension_decls {
        let Some(upper_bound) = *bound else {
            errors.push(site.error("dimension", format!("dimension {name} has no <upperBound>")));
            continue;
        };
        let handle = DimensionHandle(dimensions.len() as u32);
        dimension_handles.insert(name.clone(), handle);
        dimensions.push(Dimension {
            handle,
            name: name.clone(),
            upper_bound,
            data_type: data_type.clone(),
        });
    }
    let mut resolver = Resolver {
        transportations: &transportations,
        dimensions: &dimension_handles,
        errors: Vec::new(),
    };

    // Handles follow qualified names, so every process that loads the same modules, in any
    // order, numbers everything alike.
    let object_index: BTreeMap<&str, ObjectClassHandle> = objects
        .classes
        .keys()
        .enumerate()
        .map(|(i, q)| (q.as_str(), ObjectClassHandle(i as u32)))
        .collect();
    let mut object_classes = Vec::new();
    let mut attributes = Vec::new();
    for (qualified, class) in &objects.classes {
        let handle = object_index[qualified.as_str()];
        let mut declared = Vec::new();
        for (name, member) in &class.members {
            let owner = format!("{qualified}.{name}");
            let attribute = Attribute {
                handle: AttributeHandle(attributes.len() as u32),
                class: handle,
                name: name.clone(),
                data_type: member.data_type.clone(),
                transportation: resolver.transportation(
                    member.transportation.as_deref(),
                    &member.site,
                    &owner,
                ),
                order: resolver.order(member.order.as_deref(), &member.site, &owner),
                dimensions: resolver.dimensions(&member.dimensions, &owner),
            };
            declared.push(attribute.handle);
            attributes.push(attribute);
        }
        object_classes.push(ObjectClass {
            handle,
            name: class.name.clone(),
            qualified_name: qualified.clone(),
            parent: class.parent.as_deref().map(|p| object_index[p]),
            attributes: declared,
            children: Vec::new(),
        });
    }
    for i in 0..object_classes.len() {
        if let Some(parent) = object_classes[i].parent {
            let child = object_classes[i].handle;
            object_classes[parent.0 as usize].children.push(child);
        }
    }

    let interaction_index: BTreeMap<&str, InteractionClassHandle> = interactions
        .classes
        .keys()
        .enumerate()
        .map(|(i, q)| (q.as_str(), InteractionClassHandle(i as u32)))
        .collect();
    let mut interaction_classes: Vec<InteractionClass> = Vec::new();
    let mut parameters = Vec::new();
    for (qualified, class) in &interactions.classes {
        let handle = interaction_index[qualified.as_str()];
        let parent = class.parent.as_deref().map(|p| interaction_index[p]);
        // Settings a class leaves out come from its parent (already built: a parent's
        // qualified name sorts before its children's).
        let inherited = parent.map(|p| &interaction_classes[p.0 as usize]);
        let transportation = match &class.transportation {
            Some((name, site)) => resolver.transportation(Some(name), site, qualified),
            None => inherited.map_or_else(
                || Transportation {
                    name: "HLAreliable".into(),
                    reliable: true,
                },
                |p| p.transportation.clone(),
            ),
        };
        let order = match &class.order {
            Some((name, site)) => resolver.order(Some(name), site, qualified),
            None => inherited.map_or(Order::Receive, |p| p.order),
        };
        let dimensions = match &class.dimensions {
            Some((refs, _)) => resolver.dimensions(refs, qualified),
            None => inherited.map(|p| p.dimensions.clone()).unwrap_or_default(),
        };
        let mut declared = Vec::new();
        for (name, member) in &class.members {
            let parameter = Parameter {
                handle: ParameterHandle(parameters.len() as u32),
                class: handle,
                name: name.clone(),
                data_type: member.data_type.clone(),
            };
            declared.push(parameter.handle);
            parameters.push(parameter);
        }
        interaction_classes.push(InteractionClass {
            handle,
            name: class.name.clone(),
            qualified_name: qualified.clone(),
            parent,
            parameters: declared,
            transportation,
            order,
            dimensions,
            children: Vec::new(),
        });
    }
    for i in 0..interaction_classes.len() {
        if let Some(parent) = interaction_classes[i].parent {
            let child = interaction_classes[i].handle;
            interaction_classes[parent.0 as usize].children.push(child);
        }
    }
    errors.extend(resolver.errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut files: Vec<String> = modules.iter().map(|m| m.file.clone()).collect();
    files.sort();
    Ok(ObjectModel::new(
        files,
        object_classes,
        attributes,
        interaction_classes,
        parameters,
        dimensions,
    ))
}
