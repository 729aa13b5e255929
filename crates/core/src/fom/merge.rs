//! Several modules into one model: classes merge by qualified name (by the rules in
//! `definitions`), dimensions, transportations and update rates by name, and anything
//! defined twice must be defined the same way.

use super::definitions::{Class, Member, Tree};
use super::error::{FomError, FomWarning, Site};
use super::parse::Module;
use super::support::{transportation_types, RTI_CHOSEN_UPPER_BOUND};
use super::update_rates;
use super::{
    Attribute, AttributeHandle, Dimension, DimensionHandle, InteractionClass,
    InteractionClassHandle, ObjectClass, ObjectClassHandle, ObjectModel, Order, Parameter,
    ParameterHandle, Transportation, MAX_CLASSES,
};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

const OBJECT_ROOT: &str = "HLAobjectRoot";
const INTERACTION_ROOT: &str = "HLAinteractionRoot";

/// An attribute or parameter in messages: its class's qualified name and its own, joined
/// only when a message needs them.
struct MemberName<'a>(&'a str, &'a str);

impl fmt::Display for MemberName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// Resolves names of transportations, orders and dimensions, collecting errors. The owner
/// each takes names what is resolved in messages.
struct Resolver<'a> {
    transportations: &'a Transportations,
    dimensions: &'a BTreeMap<String, DimensionHandle>,
    errors: Vec<FomError>,
}

impl Resolver<'_> {
    fn transportation(
        &mut self,
        name: Option<&str>,
        site: &Site,
        owner: &dyn fmt::Display,
    ) -> Transportation {
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

    fn order(&mut self, name: Option<&str>, site: &Site, owner: &dyn fmt::Display) -> Order {
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

    /// The Trellis `keepLatest` extension of an attribute: absent is off.
    fn keep_latest(&mut self, value: Option<&str>, site: &Site, owner: &dyn fmt::Display) -> bool {
        match value.map(str::to_ascii_lowercase).as_deref() {
            None | Some("false") | Some("no") => false,
            Some("true") | Some("yes") => true,
            Some(other) => {
                self.errors.push(site.error(
                    "keepLatest",
                    format!("{owner}: keepLatest {other} is neither true nor false"),
                ));
                false
            }
        }
    }

    fn dimensions(
        &mut self,
        refs: &[(String, Site)],
        owner: &dyn fmt::Display,
    ) -> Vec<DimensionHandle> {
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

/// Declared transportation types by name: reliable or not, and where.
type Transportations = BTreeMap<String, (bool, Site)>;

/// Declared dimensions by name: upper bound (if any module gave one), data type, where;
/// and their names in the order first declared, which their handles follow.
#[derive(Default)]
struct DimensionDecls {
    by_name: BTreeMap<String, (Option<u64>, String, Site)>,
    order: Vec<String>,
}

pub(crate) fn merge(mut modules: Vec<Module>) -> Result<ObjectModel, Vec<FomError>> {
    let mut errors = Vec::new();
    let mut warnings: Vec<FomWarning> = modules.iter().flat_map(|m| m.warnings.clone()).collect();
    let mut objects = Tree::new("objectClass", "attribute");
    let mut interactions = Tree::new("interactionClass", "parameter");
    let builtin = Site {
        file: "IEEE 1516-2010".into(),
        line: 0,
    };
    let mut transportations = Transportations::new();
    transportations.insert("HLAreliable".into(), (true, builtin.clone()));
    transportations.insert("HLAbestEffort".into(), (false, builtin));
    let mut transportation_order = Vec::new();
    let mut dimension_decls = DimensionDecls::default();
    // One pass, module by module, so errors come in the order of the files.
    for module in &mut modules {
        if let Some(root) = module.objects.take() {
            objects.add(root, None, &mut errors);
        }
        if let Some(root) = module.interactions.take() {
            interactions.add(root, None, &mut errors);
        }
        add_transportations(
            module,
            &mut transportations,
            &mut transportation_order,
            &mut errors,
        );
        add_dimensions(module, &mut dimension_decls, &mut errors);
    }
    objects.settle(&mut errors, &mut warnings);
    interactions.settle(&mut errors, &mut warnings);
    let update_rates = update_rates::merge(&modules, &mut errors);
    check_root(&objects, OBJECT_ROOT, &mut errors);
    check_root(&interactions, INTERACTION_ROOT, &mut errors);
    objects.check_shadowing(&mut errors, &mut warnings);
    interactions.check_shadowing(&mut errors, &mut warnings);

    let (dimensions, dimension_handles) = number_dimensions(&dimension_decls);
    let mut resolver = Resolver {
        transportations: &transportations,
        dimensions: &dimension_handles,
        errors: Vec::new(),
    };
    let (object_classes, attributes) = object_classes(&objects, &mut resolver);
    let (interaction_classes, parameters) = interaction_classes(&interactions, &mut resolver);
    errors.extend(resolver.errors);
    errors.extend(class_limit_exceeded(&modules, &objects, &interactions));
    if !errors.is_empty() {
        return Err(errors);
    }
    // In the order merged, which the handles depend on.
    let files: Vec<(String, Arc<str>)> = (modules.iter())
        .map(|m| (m.file.clone(), m.text.clone()))
        .collect();
    Ok(ObjectModel::new(
        files,
        object_classes,
        attributes,
        interaction_classes,
        parameters,
        dimensions,
        transportation_types(&transportations, &transportation_order),
        update_rates,
        warnings,
    ))
}

/// The error of a model with more classes than a federation can hold ([`MAX_CLASSES`]),
/// at the module whose classes pass the limit: such a model would load, and be created,
/// and then no federate could join it. Refused as unreadable (ErrorReadingFDD at create
/// and join) rather than inconsistent: nothing in it contradicts anything else.
fn class_limit_exceeded(
    modules: &[Module],
    objects: &Tree,
    interactions: &Tree,
) -> Option<FomError> {
    let (object_count, interaction_count) = (objects.classes.len(), interactions.classes.len());
    let total = object_count + interaction_count;
    if total <= MAX_CLASSES {
        return None;
    }
    // Classes each file declared first, to find the module that passes the limit.
    let mut added: FxHashMap<&str, usize> = FxHashMap::default();
    for class in objects
        .classes
        .values()
        .chain(interactions.classes.values())
    {
        *added.entry(&class.site.file).or_default() += 1;
    }
    let mut so_far = 0;
    let module = modules.iter().find(|module| {
        so_far += added.get(module.file.as_str()).copied().unwrap_or(0);
        so_far > MAX_CLASSES
    })?;
    let site = Site {
        file: module.file.clone(),
        line: module.line,
    };
    Some(site.error(
        "objectModel",
        format!(
            "the model has {total} classes ({object_count} object classes and \
             {interaction_count} interaction classes, the MIM's included), more than the \
             {MAX_CLASSES} a federation can hold (object and interaction classes together); \
             this module's {} classes pass the limit",
            added.get(module.file.as_str()).copied().unwrap_or(0)
        ),
    ))
}

/// A module's transportation types; one declared again must agree on reliability. `order`
/// gets the names in the order first declared.
fn add_transportations(
    module: &Module,
    known: &mut Transportations,
    order: &mut Vec<String>,
    errors: &mut Vec<FomError>,
) {
    for t in &module.transportations {
        match known.get(&t.name) {
            Some((reliable, site)) if *reliable != t.reliable => errors.push(t.site.error(
                "transportation",
                format!(
                    "transportation {}: reliability conflicts with its declaration at {site}",
                    t.name
                ),
            )),
            Some(_) => {}
            None => {
                known.insert(t.name.clone(), (t.reliable, t.site.clone()));
                order.push(t.name.clone());
            }
        }
    }
}

/// A module's dimensions; one declared again must agree on what both give (a bound or a
/// data type one module leaves out, another may give).
fn add_dimensions(module: &Module, known: &mut DimensionDecls, errors: &mut Vec<FomError>) {
    for d in &module.dimensions {
        let Some((bound, data_type, site)) = known.by_name.get_mut(&d.name) else {
            known.by_name.insert(
                d.name.clone(),
                (d.upper_bound, d.data_type.clone(), d.site.clone()),
            );
            known.order.push(d.name.clone());
            continue;
        };
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

/// Dimensions numbered in the order first declared (so appending a module renumbers none),
/// and the handle of each name.
fn number_dimensions(
    decls: &DimensionDecls,
) -> (Vec<Dimension>, BTreeMap<String, DimensionHandle>) {
    let mut dimensions = Vec::new();
    let mut handles = BTreeMap::new();
    for name in &decls.order {
        let Some((bound, data_type, _)) = decls.by_name.get(name) else {
            continue;
        };
        // The standard's HLAfederate dimension has no bound: the RTI chooses it.
        let upper_bound = bound.unwrap_or(RTI_CHOSEN_UPPER_BOUND);
        let handle = DimensionHandle(dimensions.len() as u32);
        handles.insert(name.clone(), handle);
        dimensions.push(Dimension {
            handle,
            name: name.clone(),
            upper_bound,
            data_type: data_type.clone(),
        });
    }
    (dimensions, handles)
}

/// Each class's handle by qualified name: its place in declaration order (modules in the
/// order given, each module's classes depth first as written). A class met again in a later
/// module keeps its first place, so appending modules never renumbers a class.
fn handles_in_declaration_order<H>(tree: &Tree, handle: impl Fn(u32) -> H) -> FxHashMap<&str, H> {
    (tree.declaration_order.iter().enumerate())
        .map(|(i, qualified)| (qualified.as_str(), handle(i as u32)))
        .collect()
}

/// The classes of `tree` in handle order, each with its qualified name.
fn in_declaration_order(tree: &Tree) -> impl Iterator<Item = (&String, &Class)> {
    (tree.declaration_order.iter()).filter_map(|q| tree.classes.get(q).map(|class| (q, class)))
}

/// The members of `tree` in the order first declared, each once, with the handle of its
/// class: a parent's members come before its subclasses' when the parent is declared in
/// the same module or an earlier one (document order is depth first), and members a later
/// module adds come after everything earlier modules declared.
fn members_in_declaration_order<'t, H: Copy>(
    tree: &'t Tree,
    class_handles: &FxHashMap<&str, H>,
) -> Vec<(H, &'t String, &'t Member)> {
    let mut seen: FxHashSet<(usize, &str)> = FxHashSet::default();
    let mut out = Vec::new();
    for (place, name) in &tree.member_order {
        let Some(qualified) = tree.declaration_order.get(*place) else {
            continue;
        };
        let Some(member) = tree
            .classes
            .get(qualified)
            .and_then(|c| c.members.get(name))
        else {
            continue;
        };
        if seen.insert((*place, name.as_str())) {
            out.push((class_handles[qualified.as_str()], name, member));
        }
    }
    out
}

/// The object classes and their attributes, both numbered in declaration order (see
/// [`handles_in_declaration_order`], [`members_in_declaration_order`]), so handles depend
/// only on the ordered list of modules and appending one renumbers nothing.
fn object_classes(
    objects: &Tree,
    resolver: &mut Resolver<'_>,
) -> (Vec<ObjectClass>, Vec<Attribute>) {
    let index = handles_in_declaration_order(objects, ObjectClassHandle);
    let mut classes = Vec::new();
    for (qualified, class) in in_declaration_order(objects) {
        let keep_latest = match &class.keep_latest {
            Some((value, site)) => resolver.keep_latest(Some(value), site, qualified),
            None => false,
        };
        classes.push(ObjectClass {
            handle: index[qualified.as_str()],
            name: class.name.clone(),
            qualified_name: qualified.clone(),
            parent: class.parent.as_deref().map(|p| index[p]),
            attributes: Vec::new(),
            children: Vec::new(),
            keep_latest,
        });
    }
    let mut attributes = Vec::new();
    for (class, name, member) in members_in_declaration_order(objects, &index) {
        let owner = &MemberName(&classes[class.0 as usize].qualified_name, name);
        let attribute = Attribute {
            handle: AttributeHandle(attributes.len() as u32),
            class,
            name: name.clone(),
            data_type: member.data_type.clone(),
            transportation: resolver.transportation(
                member.transportation.as_deref(),
                &member.site,
                owner,
            ),
            order: resolver.order(member.order.as_deref(), &member.site, owner),
            dimensions: resolver.dimensions(&member.dimensions, owner),
            keep_latest: resolver.keep_latest(
                member.properties.keep_latest.as_deref(),
                &member.site,
                owner,
            ),
        };
        classes[class.0 as usize].attributes.push(attribute.handle);
        attributes.push(attribute);
    }
    for i in 0..classes.len() {
        if let Some(parent) = classes[i].parent {
            let child = classes[i].handle;
            classes[parent.0 as usize].children.push(child);
        }
    }
    (classes, attributes)
}

/// The interaction classes and their parameters, numbered as object classes are.
fn interaction_classes(
    interactions: &Tree,
    resolver: &mut Resolver<'_>,
) -> (Vec<InteractionClass>, Vec<Parameter>) {
    let index = handles_in_declaration_order(interactions, InteractionClassHandle);
    let mut classes: Vec<InteractionClass> = Vec::new();
    for (qualified, class) in in_declaration_order(interactions) {
        let parent = class.parent.as_deref().map(|p| index[p]);
        // Settings a class leaves out come from its parent, already built: a class is
        // declared after its parent, whose qualified name its own contains.
        let inherited = parent.map(|p| &classes[p.0 as usize]);
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
        classes.push(InteractionClass {
            handle: index[qualified.as_str()],
            name: class.name.clone(),
            qualified_name: qualified.clone(),
            parent,
            parameters: Vec::new(),
            transportation,
            order,
            dimensions,
            children: Vec::new(),
        });
    }
    let mut parameters = Vec::new();
    for (class, name, member) in members_in_declaration_order(interactions, &index) {
        let parameter = Parameter {
            handle: ParameterHandle(parameters.len() as u32),
            class,
            name: name.clone(),
            data_type: member.data_type.clone(),
        };
        classes[class.0 as usize].parameters.push(parameter.handle);
        parameters.push(parameter);
    }
    for i in 0..classes.len() {
        if let Some(parent) = classes[i].parent {
            let child = classes[i].handle;
            classes[parent.0 as usize].children.push(child);
        }
    }
    (classes, parameters)
}
