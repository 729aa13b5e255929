//! Class definitions of several modules merged by the IEEE 1516-2010 rule: a class (object
//! or interaction) defined in two modules must be defined identically, same attributes or
//! parameters with the same properties and the same class properties, unless one of the
//! two is scaffolding. Scaffolding is a definition that declares no attributes
//! (parameters) of its own: a module repeats its superclasses that way to hang its own
//! classes under them (every RPR module does), and scaffolding says nothing about the class.
//!
//! Two liberties, each with a warning, for what changes nothing: a definition whose every
//! stated property and member agrees with a fuller one, leaving some out (a module that
//! restates the MIM's HLAobjectRoot with HLAprivilegeToDeleteObject by name), is read as a
//! reference to the fuller one; and a member restated in a subclass with nothing that
//! differs from the one it inherits is the inherited one. Anything that differs is refused.

use super::error::{FomError, FomWarning, Site};
use super::members::Members;
use super::parse::{ClassDecl, MemberDecl, MemberProperties};
use rustc_hash::FxHashMap;
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

/// A member (attribute or parameter) as defined, with where.
#[derive(Clone)]
pub(crate) struct Member {
    pub data_type: String,
    pub transportation: Option<String>,
    pub order: Option<String>,
    pub dimensions: Vec<(String, Site)>,
    pub properties: MemberProperties,
    pub site: Site,
}

fn sorted_names(refs: &[(String, Site)]) -> String {
    let mut names: Vec<&str> = refs.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names.join(", ")
}

fn shown(value: Option<&str>) -> String {
    value.map_or_else(|| "not given".to_owned(), |v| format!("{v:?}"))
}

impl Member {
    /// A declaration's name, and the member it declares.
    fn from_decl(decl: MemberDecl) -> (String, Member) {
        let member = Member {
            data_type: decl.data_type,
            transportation: decl.transportation,
            order: decl.order,
            dimensions: decl.dimensions,
            properties: decl.properties,
            site: decl.site,
        };
        (decl.name, member)
    }

    /// Every property the standard compares, by its OMT element name.
    fn properties(&self) -> [(&'static str, Option<String>); 9] {
        let p = &self.properties;
        [
            (
                "dataType",
                Some(self.data_type.clone()).filter(|t| !t.is_empty()),
            ),
            ("updateType", p.update_type.clone()),
            ("updateCondition", p.update_condition.clone()),
            ("ownership", p.ownership.clone()),
            ("sharing", p.sharing.clone()),
            ("transportation", self.transportation.clone()),
            ("order", self.order.clone()),
            ("dimensions", Some(sorted_names(&self.dimensions))),
            ("keepLatest", p.keep_latest.clone()),
        ]
    }

    /// "dataType is X here but Y there; ..." for each property that differs, if any.
    fn differences(&self, first: &Member) -> Option<String> {
        self.differing(first, |_, _| true)
    }

    /// Likewise for each property this member states that differs from `reference`'s:
    /// leaving a property out (or the dimensions empty) agrees with anything, as a
    /// restatement that refers to `reference` does.
    fn disagreements(&self, reference: &Member) -> Option<String> {
        self.differing(reference, |property, here| match property {
            "dimensions" => here.is_some_and(|d| !d.is_empty()),
            _ => here.is_some(),
        })
    }

    /// The differences from `other` in the properties `compared` keeps, given the name and
    /// this member's value of each.
    fn differing(
        &self,
        other: &Member,
        compared: impl Fn(&str, Option<&str>) -> bool,
    ) -> Option<String> {
        let differing: Vec<String> = self
            .properties()
            .into_iter()
            .zip(other.properties())
            .filter(|((property, here), (_, there))| {
                here != there && compared(property, here.as_deref())
            })
            .map(|((property, here), (_, there))| {
                format!(
                    "{property} is {} here but {} there",
                    shown(here.as_deref()),
                    shown(there.as_deref())
                )
            })
            .collect();
        (!differing.is_empty()).then(|| differing.join("; "))
    }
}

/// One module's definition of a class.
pub(crate) struct Definition {
    pub site: Site,
    pub sharing: Option<String>,
    pub transportation: Option<String>,
    pub order: Option<String>,
    pub dimensions: Option<Vec<(String, Site)>>,
    pub members: Members,
    /// Trellis extension; any definition may state it (a small module can mark a class of
    /// another by repeating it as scaffolding), and those that do must agree.
    pub keep_latest: Option<String>,
}

impl Definition {
    fn is_scaffolding(&self) -> bool {
        self.members.is_empty()
    }

    /// Whether every class property and member this definition states agrees with
    /// `reference`, which declares every member this one does (see
    /// [`Member::disagreements`]).
    fn restates(&self, reference: &Definition) -> bool {
        let properties_agree = (self.class_properties().into_iter())
            .zip(reference.class_properties())
            .all(|((property, here), (_, there))| match property {
                "dimensions" => here.as_deref().is_none_or(str::is_empty) || here == there,
                _ => here.is_none() || here == there,
            });
        properties_agree
            && self.members.iter().all(|(name, member)| {
                (reference.members.get(name)).is_some_and(|r| member.disagreements(r).is_none())
            })
    }

    fn class_properties(&self) -> [(&'static str, Option<String>); 4] {
        [
            ("sharing", self.sharing.clone()),
            ("transportation", self.transportation.clone()),
            ("order", self.order.clone()),
            ("dimensions", self.dimensions.as_deref().map(sorted_names)),
        ]
    }
}

/// A class as merged. The settings are filled in by [`Tree::settle`].
pub(crate) struct Class {
    pub name: String,
    pub parent: Option<String>,
    pub site: Site,
    /// Its place in [`Tree::declaration_order`].
    pub place: usize,
    /// The definitions with members of their own, in the order met; all must match the
    /// fullest (or restate it, see [`Definition::restates`]).
    full: Vec<Definition>,
    scaffolding: Vec<Definition>,
    pub members: Members,
    pub transportation: Option<(String, Site)>,
    pub order: Option<(String, Site)>,
    pub dimensions: Option<(Vec<(String, Site)>, Site)>,
    pub keep_latest: Option<(String, Site)>,
}

pub(crate) struct Tree {
    pub kind: &'static str,
    member_kind: &'static str,
    pub classes: BTreeMap<String, Class>,
    /// Qualified names in the order first met: modules in the order given, each module's
    /// classes depth first as written. Handles are numbered in this order.
    pub declaration_order: Vec<String>,
    /// (the class's place in `declaration_order`, member name) in the order first met,
    /// likewise; a member restated by a later module keeps its first place.
    pub member_order: Vec<(usize, String)>,
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
    pub(crate) fn new(kind: &'static str, member_kind: &'static str) -> Tree {
        Tree {
            kind,
            member_kind,
            classes: BTreeMap::new(),
            declaration_order: Vec::new(),
            member_order: Vec::new(),
            first_by_name: FxHashMap::default(),
        }
    }

    /// One module's class `decl` (and its subclasses) under `parent`.
    pub(crate) fn add(
        &mut self,
        mut decl: ClassDecl,
        parent: Option<&str>,
        errors: &mut Vec<FomError>,
    ) {
        let qualified = match parent {
            Some(p) => format!("{p}.{}", decl.name),
            None => decl.name.clone(),
        };
        self.check_parent(&decl, parent, &qualified, errors);
        let children = std::mem::take(&mut decl.children);
        let class = match self.classes.entry(qualified.clone()) {
            Entry::Occupied(class) => class.into_mut(),
            Entry::Vacant(vacant) => {
                self.declaration_order.push(qualified.clone());
                vacant.insert(Class {
                    name: decl.name.clone(),
                    parent: parent.map(str::to_owned),
                    site: decl.site.clone(),
                    place: self.declaration_order.len() - 1,
                    full: Vec::new(),
                    scaffolding: Vec::new(),
                    members: Members::default(),
                    transportation: None,
                    order: None,
                    dimensions: None,
                    keep_latest: None,
                })
            }
        };
        // Duplicates are dropped where handles are numbered.
        let place = class.place;
        self.member_order
            .extend((decl.members.iter()).map(|m| (place, m.name.clone())));
        let definition = definition(decl, &qualified, self.member_kind, errors);
        // Most classes have one definition: no room for more until a second comes.
        let definitions = if definition.is_scaffolding() {
            &mut class.scaffolding
        } else {
            &mut class.full
        };
        definitions.reserve_exact(1);
        definitions.push(definition);
        for child in children {
            self.add(child, Some(&qualified), errors);
        }
    }

    fn check_parent(
        &mut self,
        decl: &ClassDecl,
        parent: Option<&str>,
        qualified: &str,
        errors: &mut Vec<FomError>,
    ) {
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
                    .insert(decl.name.clone(), (qualified.to_owned(), decl.site.clone()));
            }
        }
    }

    /// Fix each class's members and settings: from its fullest definition if it has one,
    /// otherwise from what its scaffolding definitions state (which must then agree).
    pub(crate) fn settle(&mut self, errors: &mut Vec<FomError>, warnings: &mut Vec<FomWarning>) {
        let (kind, member_kind) = (self.kind, self.member_kind);
        for (qualified, class) in &mut self.classes {
            for definition in class.full.iter().chain(&class.scaffolding) {
                merge_setting(
                    &mut class.keep_latest,
                    &definition.keep_latest,
                    &definition.site,
                    "keepLatest",
                    qualified,
                    errors,
                );
            }
            let full = std::mem::take(&mut class.full);
            let kinds = (kind, member_kind);
            if let Some(reference) = fullest(full, qualified, kinds, errors, warnings) {
                let site = reference.site;
                class.transportation = reference.transportation.map(|t| (t, site.clone()));
                class.order = reference.order.map(|o| (o, site.clone()));
                class.dimensions = reference.dimensions.map(|d| (d, site.clone()));
                class.members = reference.members;
                continue;
            }
            for definition in std::mem::take(&mut class.scaffolding) {
                settle_scaffolding(class, definition, qualified, errors);
            }
        }
    }

    /// Members declared in a class that an ancestor already declares: stating nothing that
    /// differs from the inherited one, the restatement is dropped with a warning (the
    /// class has the inherited member); otherwise it is refused.
    pub(crate) fn check_shadowing(
        &mut self,
        errors: &mut Vec<FomError>,
        warnings: &mut Vec<FomWarning>,
    ) {
        // In name order a parent comes before its subclasses, so a restatement in the
        // parent is gone by the time a subclass is compared with what it inherits.
        let names: Vec<String> = self.classes.keys().cloned().collect();
        for qualified in names {
            let Some(class) = self.classes.get(&qualified) else {
                continue;
            };
            let mut restated = Vec::new();
            for (member, decl) in class.members.iter() {
                let Some((ancestor, inherited)) = self.inherited(class, member) else {
                    continue;
                };
                let message = format!(
                    "{qualified}: {} {member} is already inherited from {ancestor} (declared at {})",
                    self.member_kind, inherited.site
                );
                match decl.disagreements(inherited) {
                    None => {
                        warnings.push(decl.site.warning(
                            self.member_kind,
                            format!("{message}; restated with nothing that differs, it is the inherited one"),
                        ));
                        restated.push(member.clone());
                    }
                    Some(differences) => errors.push(decl.site.error(
                        self.member_kind,
                        format!("{message} and is declared here differently: {differences}"),
                    )),
                }
            }
            if let Some(class) = self.classes.get_mut(&qualified) {
                class.members.remove_all(restated);
            }
        }
    }

    /// The nearest ancestor of `class` that declares `member`, with its declaration.
    fn inherited<'t>(&'t self, class: &'t Class, member: &str) -> Option<(&'t str, &'t Member)> {
        let mut ancestor = class.parent.as_deref();
        while let Some(name) = ancestor {
            let up = self.classes.get(name)?;
            if let Some(declared) = up.members.get(member) {
                return Some((name, declared));
            }
            ancestor = up.parent.as_deref();
        }
        None
    }
}

/// One module's definition of the class `qualified`, whose members are `member_kind`s.
fn definition(
    decl: ClassDecl,
    qualified: &str,
    member_kind: &str,
    errors: &mut Vec<FomError>,
) -> Definition {
    let declared = decl.members.into_iter().map(Member::from_decl).collect();
    let (members, duplicates) = Members::new(declared);
    for duplicate in duplicates {
        errors.push(duplicate.site.error(
            member_kind,
            format!(
                "{qualified}: {member_kind} {} is declared twice in this module (first at {})",
                duplicate.name, duplicate.first
            ),
        ));
    }
    Definition {
        site: decl.site,
        sharing: decl.sharing,
        transportation: decl.transportation,
        order: decl.order,
        dimensions: decl.dimensions,
        members,
        keep_latest: decl.keep_latest,
    }
}

/// The definition of class `qualified` the others must match: the first, unless it only
/// restates a later one (see [`Definition::restates`]), which then takes its place. Each
/// other one is identical, or restates it (a warning), or is refused for every difference
/// (at the later of the two). `kinds` is (class element, member element).
fn fullest(
    full: Vec<Definition>,
    qualified: &str,
    kinds: (&str, &str),
    errors: &mut Vec<FomError>,
    warnings: &mut Vec<FomWarning>,
) -> Option<Definition> {
    let (kind, member_kind) = kinds;
    let restated = |partial: &Definition, reference: &Definition| {
        partial.site.warning(
            kind,
            format!(
                "{qualified} is restated here with {} of the {} {member_kind}s defined at {} \
                 and nothing that differs; read as that definition",
                partial.members.len(),
                reference.members.len(),
                reference.site
            ),
        )
    };
    let mut definitions = full.into_iter();
    let mut reference = definitions.next()?;
    for other in definitions {
        let mut differences = Vec::new();
        compare(
            &reference,
            &other,
            kind,
            member_kind,
            qualified,
            &mut differences,
        );
        if differences.is_empty() {
            continue;
        }
        if other.restates(&reference) {
            warnings.push(restated(&other, &reference));
        } else if reference.restates(&other) {
            warnings.push(restated(&reference, &other));
            reference = other;
        } else {
            errors.extend(differences);
        }
    }
    Some(reference)
}

/// What one scaffolding definition of a class with no full one states of its settings.
fn settle_scaffolding(
    class: &mut Class,
    definition: Definition,
    qualified: &str,
    errors: &mut Vec<FomError>,
) {
    let site = &definition.site;
    let t = &definition.transportation;
    merge_setting(
        &mut class.transportation,
        t,
        site,
        "transportation",
        qualified,
        errors,
    );
    merge_setting(
        &mut class.order,
        &definition.order,
        site,
        "order",
        qualified,
        errors,
    );
    let Some(dims) = definition.dimensions else {
        return;
    };
    match &class.dimensions {
        // Scaffolding repeats of a class often leave <dimensions/> empty.
        None => class.dimensions = Some((dims, site.clone())),
        Some((first, _)) if first.is_empty() => {
            class.dimensions = Some((dims, site.clone()));
        }
        Some((first, first_site)) => {
            if !dims.is_empty() && sorted_names(first) != sorted_names(&dims) {
                errors.push(site.error(
                    "dimensions",
                    format!("{qualified}: dimensions differ from those declared at {first_site}"),
                ));
            }
        }
    }
}

/// Two full definitions of the class `qualified`: every difference is an error at `here`,
/// naming the place of `first`.
fn compare(
    first: &Definition,
    here: &Definition,
    kind: &str,
    member_kind: &str,
    qualified: &str,
    errors: &mut Vec<FomError>,
) {
    let prefix = format!("{qualified} is defined differently at {}", first.site);
    for ((property, mine), (_, theirs)) in here
        .class_properties()
        .into_iter()
        .zip(first.class_properties())
    {
        if mine != theirs {
            errors.push(here.site.error(
                kind,
                format!(
                    "{prefix}: {property} is {} here but {} there",
                    shown(mine.as_deref()),
                    shown(theirs.as_deref())
                ),
            ));
        }
    }
    for (name, member) in here.members.iter() {
        match first.members.get(name) {
            None => errors.push(member.site.error(
                member_kind,
                format!("{prefix}: {member_kind} {name} is defined here but not there"),
            )),
            Some(theirs) => {
                if let Some(differences) = member.differences(theirs) {
                    errors.push(member.site.error(
                        member_kind,
                        format!(
                            "{qualified}: {member_kind} {name} is defined differently at {}: {differences}",
                            theirs.site
                        ),
                    ));
                }
            }
        }
    }
    for (name, theirs) in first.members.iter() {
        if !here.members.contains_key(name) {
            errors.push(here.site.error(
                kind,
                format!(
                    "{prefix}: {member_kind} {name} is defined there (at {}) but not here",
                    theirs.site
                ),
            ));
        }
    }
}
