//! Object models: IEEE 1516-2010 OMT / FDD XML modules, merged into one model.
//!
//! The standard MIM comes first, implicitly (see `mim`), or explicitly: a MIM among the
//! modules is merged first wherever it is listed. Classes of several modules merge by
//! qualified name: a class defined in two modules must be defined identically unless one
//! definition is scaffolding (RPR modules repeat their parents that way), or loading fails
//! with an error naming both places and the property that differs (`definitions`). Every
//! error names the file, line and element.
//!
//! Sloppiness that changes nothing at run time loads with one [`FomWarning`] each (file,
//! line, element, as errors), listed by [`ObjectModel::warnings`] for the caller to log:
//! `xsi:schemaLocation` on a root that does not declare `xmlns:xsi`; an enumerated value
//! (order, sharing, updateType, ownership, the standard transportations, reliable, endian,
//! encodings, cardinality Dynamic) in another letter case, read as the standard spells it;
//! an enumerator repeated with the same value in one enumerated type; a member restated in
//! a subclass with nothing that differs from the one it inherits; a class restated with
//! part of another module's definition and nothing that differs (a module restating the
//! MIM's HLAobjectRoot with HLAprivilegeToDeleteObject). What would change meaning (an
//! enumerator with two values, a restatement that differs in anything it states) is refused.
//!
//! Handles follow declaration order, as the common RTIs number them: object classes,
//! interaction classes, dimensions and transportation types in the order first declared,
//! walking the modules in the order given (the MIM first) and each module's classes depth
//! first as written; attributes and parameters likewise, each class's own in the order
//! declared, so a class's inherited attributes (HLAprivilegeToDeleteObject first) come
//! before its own whenever its parent is declared in the same module or an earlier one. A
//! class, member or dimension met again in a later module keeps its first handle, and
//! what a later module adds comes after everything before it: handles depend only on the
//! ordered list of modules, and loading [A, B, C] gives everything of A and B the handles
//! [A, B] gives it (modules added at join rely on that). The same modules in another order
//! may number differently, and so give another fingerprint (which covers names, properties
//! and handles): federates agree because every one uses the federation's module order.

mod datatypes;
mod definitions;
mod error;
mod extend;
mod format;
mod lines;
mod members;
mod merge;
mod mim;
mod parse;
mod support;
mod update_rates;

pub use datatypes::{
    Alternative, ArrayEncoding, BasicData, BasicKind, Cardinality, DataType, DataTypeKind,
    DataTypes, Endian, Enumerator, Field, LengthRule, Selector, EXTENDED_VARIANT_RECORD,
    LENGTH_RULE_PREFIX, PREDEFINED_FILE,
};
pub use error::{FddErrorKind, FomError, FomErrors, FomWarning};
pub use mim::{
    is_builtin_mim_designator, is_standard_mim_designator, MimError, MimErrorKind, ReadFile,
    MIM_DESIGNATOR_PREFIX, STANDARD_MIM_FILE, STANDARD_MIM_MODEL_NAME, STANDARD_MIM_NAME,
    STANDARD_MIM_XML,
};
pub use support::{
    LookupError, ServiceGroup, TransportationType, TransportationTypeHandle, RTI_CHOSEN_UPPER_BOUND,
};
pub use update_rates::UpdateRate;

use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The most classes a federation's model may have, object and interaction classes
/// together, the MIM's included: the federate library's interest ids number a class in 12
/// bits ([`crate::federate::layout`]). A model with more is refused when it is loaded.
pub const MAX_CLASSES: usize = crate::federate::layout::MAX_CLASSES;

macro_rules! handle {
    ($name:ident) => {
        /// A handle of the merged object model: the item's index in declaration order (see the
        /// module doc), the same in every federate that loads the same modules in the same order.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        pub struct $name(pub u32);
    };
}

handle!(ObjectClassHandle);
handle!(AttributeHandle);
handle!(InteractionClassHandle);
handle!(ParameterHandle);
handle!(DimensionHandle);

/// The order type of an attribute or interaction class (IEEE 1516-2010 OMT): how its messages are
/// delivered.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// Receive order: delivered as they arrive, time stamp or not.
    Receive,
    /// Time-stamp order: delivered in time-stamp order under time management, when both ends allow
    /// it.
    TimeStamp,
}

/// A transportation type as a class or attribute declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transportation {
    /// The type's name, e.g. "HLAreliable" or one a module declares.
    pub name: String,
    /// Whether it is delivered reliably (TCP) rather than best-effort (UDP, may drop).
    pub reliable: bool,
}

/// An object class of the merged model.
#[derive(Clone, Debug)]
pub struct ObjectClass {
    /// Its handle: the index in [`ObjectModel::object_classes`].
    pub handle: ObjectClassHandle,
    /// Its own name, e.g. "BaseEntity".
    pub name: String,
    /// Dotted from the root, e.g. "HLAobjectRoot.BaseEntity".
    pub qualified_name: String,
    /// `None` for HLAobjectRoot.
    pub parent: Option<ObjectClassHandle>,
    /// Declared here, not inherited.
    pub attributes: Vec<AttributeHandle>,
    /// Direct subclasses, in declaration order.
    pub children: Vec<ObjectClassHandle>,
    /// Trellis extension: every attribute of instances of this class and its subclasses is
    /// keep-latest (`<keepLatest>true</keepLatest>` in the class; see `Attribute`).
    pub keep_latest: bool,
}

/// An attribute, declared in one class and inherited by its subclasses.
#[derive(Clone, Debug)]
pub struct Attribute {
    /// Its handle, unique across the whole model.
    pub handle: AttributeHandle,
    /// The class that declares it.
    pub class: ObjectClassHandle,
    /// Its name, unique within the class and its ancestors.
    pub name: String,
    /// The name of its data type in [`ObjectModel::data_types`].
    pub data_type: String,
    /// How its updates travel.
    pub transportation: Transportation,
    /// Receive or time-stamp order.
    pub order: Order,
    /// The dimensions its updates may be sent in (DDM available dimensions).
    pub dimensions: Vec<DimensionHandle>,
    /// Trellis extension: updates are keep-latest (a subscriber that falls behind gets the
    /// newest value instead of a backlog, one that subscribes late gets it at once), from
    /// `<keepLatest>true</keepLatest>` in the attribute's definition. Not part of the
    /// standard's properties; a model without it behaves as IEEE 1516-2010 says.
    pub keep_latest: bool,
}

/// An interaction class of the merged model.
#[derive(Clone, Debug)]
pub struct InteractionClass {
    /// Its handle: the index in [`ObjectModel::interaction_classes`].
    pub handle: InteractionClassHandle,
    /// Its own name, e.g. "WeaponFire".
    pub name: String,
    /// Dotted from the root, e.g. "HLAinteractionRoot.WeaponFire".
    pub qualified_name: String,
    /// `None` for HLAinteractionRoot.
    pub parent: Option<InteractionClassHandle>,
    /// Declared here, not inherited.
    pub parameters: Vec<ParameterHandle>,
    /// How its interactions travel.
    pub transportation: Transportation,
    /// Receive or time-stamp order.
    pub order: Order,
    /// The dimensions its interactions may be sent in (DDM available dimensions).
    pub dimensions: Vec<DimensionHandle>,
    /// Direct subclasses, in declaration order.
    pub children: Vec<InteractionClassHandle>,
}

/// A parameter, declared in one interaction class and inherited by its subclasses.
#[derive(Clone, Debug)]
pub struct Parameter {
    /// Its handle, unique across the whole model.
    pub handle: ParameterHandle,
    /// The class that declares it.
    pub class: InteractionClassHandle,
    /// Its name, unique within the class and its ancestors.
    pub name: String,
    /// The name of its data type in [`ObjectModel::data_types`].
    pub data_type: String,
}

/// A DDM dimension: one axis of the routing space regions are made of.
#[derive(Clone, Debug)]
pub struct Dimension {
    /// Its handle: the index in [`ObjectModel::dimensions`].
    pub handle: DimensionHandle,
    /// Its name, e.g. "HLAfederate".
    pub name: String,
    /// Its upper bound (getDimensionUpperBound): region ranges lie within 0 and it;
    /// [`RTI_CHOSEN_UPPER_BOUND`] when the model gives none.
    pub upper_bound: u64,
    /// The data type its values normalize from; empty when the model names none.
    pub data_type: String,
}

/// What `trellis fom check` prints. Roots count as classes; attributes and parameters
/// count where they are declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Object classes, HLAobjectRoot included.
    pub object_classes: usize,
    /// Interaction classes, HLAinteractionRoot included.
    pub interaction_classes: usize,
    /// Attributes, each counted once where declared.
    pub attributes: usize,
    /// Parameters, each counted once where declared.
    pub parameters: usize,
    /// Dimensions.
    pub dimensions: usize,
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} object classes, {} interaction classes, {} attributes, {} parameters, {} dimensions",
            self.object_classes, self.interaction_classes, self.attributes, self.parameters, self.dimensions
        )
    }
}

/// The modules' XML texts; a model's debug output gives their sizes, not megabytes of XML.
#[derive(Clone, Default)]
struct ModuleTexts(Vec<std::sync::Arc<str>>);

impl std::fmt::Debug for ModuleTexts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sizes: Vec<usize> = self.0.iter().map(|text| text.len()).collect();
        write!(f, "ModuleTexts(bytes: {sizes:?})")
    }
}

/// A merged, checked object model (FOM or SOM plus the MIM): the classes, members, dimensions and
/// data types a federation uses, by handle and by name.
#[derive(Clone, Debug)]
pub struct ObjectModel {
    modules: Vec<String>,
    /// Each module's XML, as `modules` orders them (shared by clones of the model).
    module_texts: ModuleTexts,
    object_classes: Vec<ObjectClass>,
    attributes: Vec<Attribute>,
    interaction_classes: Vec<InteractionClass>,
    parameters: Vec<Parameter>,
    dimensions: Vec<Dimension>,
    transportation_types: Vec<TransportationType>,
    update_rates: Vec<UpdateRate>,
    data_types: DataTypes,
    fingerprint: u64,
    /// Handles by qualified name (classes) or name (dimensions), since handles follow
    /// declaration order, not names.
    object_class_index: BTreeMap<String, u32>,
    interaction_class_index: BTreeMap<String, u32>,
    dimension_index: BTreeMap<String, DimensionHandle>,
    warnings: Vec<FomWarning>,
}

impl ObjectModel {
    /// Load and merge modules from files read by `read` (a host passes `std::fs::read`;
    /// core opens no files), after the standard MIM. A path that does not exist but names
    /// the standard MIM ("HLAstandardMIM", ".../HLAstandardMIM.xml") is the built-in one.
    pub fn load<P: AsRef<Path>>(paths: &[P], read: ReadFile<'_>) -> Result<ObjectModel, FomErrors> {
        let sources = mim::read_modules(paths, read)?;
        let borrowed: Vec<(&str, &str)> = sources
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        ObjectModel::from_sources(&borrowed)
    }

    /// Load and merge modules given as (name for messages, XML text). The standard MIM
    /// is loaded first unless one of them is a MIM (see [`is_standard_mim_designator`]; a
    /// module whose model identification is named HLAstandardMIM counts too), which then
    /// takes its place.
    pub fn from_sources(sources: &[(&str, &str)]) -> Result<ObjectModel, FomErrors> {
        let mut modules = parse_all(sources)?;
        match modules.iter().position(mim::is_mim) {
            // The MIM is numbered first wherever the caller lists it.
            Some(i) => {
                let mim = modules.remove(i);
                modules.insert(0, mim);
            }
            None => {
                let standard =
                    parse::parse_module(STANDARD_MIM_FILE, STANDARD_MIM_XML).map_err(FomErrors)?;
                modules.insert(0, standard);
            }
        }
        ObjectModel::from_modules(modules)
    }

    /// Merge parsed modules, the MIM first, into one model with its data types.
    fn from_modules(mut modules: Vec<parse::Module>) -> Result<ObjectModel, FomErrors> {
        // Data types merge apart from classes; both sets of errors are reported together.
        let uses = datatypes::type_uses(&modules);
        let type_decls = modules
            .iter_mut()
            .map(|m| std::mem::take(&mut m.data_types))
            .collect();
        let data_types = datatypes::build(type_decls, &uses);
        match (merge::merge(modules), data_types) {
            (Ok(mut model), Ok(data_types)) => {
                model.data_types = data_types;
                model.fingerprint = model.compute_fingerprint();
                Ok(model)
            }
            (model, data_types) => {
                let mut errors = model.err().unwrap_or_default();
                errors.extend(data_types.err().unwrap_or_default());
                Err(FomErrors(errors))
            }
        }
    }

    /// createFederationExecutionWithMIM: `mim` replaces the standard MIM, and is merged
    /// first, before `sources`.
    pub fn from_sources_with_mim(
        mim: (&str, &str),
        sources: &[(&str, &str)],
    ) -> Result<ObjectModel, FomErrors> {
        let mut all = vec![mim];
        all.extend_from_slice(sources);
        ObjectModel::from_modules(parse_all(&all)?)
    }

    #[allow(clippy::too_many_arguments)]
    fn new(
        modules: Vec<(String, std::sync::Arc<str>)>,
        object_classes: Vec<ObjectClass>,
        attributes: Vec<Attribute>,
        interaction_classes: Vec<InteractionClass>,
        parameters: Vec<Parameter>,
        dimensions: Vec<Dimension>,
        transportation_types: Vec<TransportationType>,
        update_rates: Vec<UpdateRate>,
        warnings: Vec<FomWarning>,
    ) -> ObjectModel {
        let object_class_index = (object_classes.iter())
            .map(|c| (c.qualified_name.clone(), c.handle.0))
            .collect();
        let interaction_class_index = (interaction_classes.iter())
            .map(|c| (c.qualified_name.clone(), c.handle.0))
            .collect();
        let dimension_index = (dimensions.iter())
            .map(|d| (d.name.clone(), d.handle))
            .collect();
        let (modules, module_texts) = modules.into_iter().unzip();
        let mut model = ObjectModel {
            modules,
            module_texts: ModuleTexts(module_texts),
            object_classes,
            attributes,
            interaction_classes,
            parameters,
            dimensions,
            transportation_types,
            update_rates,
            data_types: DataTypes::default(),
            fingerprint: 0,
            object_class_index,
            interaction_class_index,
            dimension_index,
            warnings,
        };
        model.fingerprint = model.compute_fingerprint();
        model
    }

    /// FNV-1a over a canonical listing of the merged model (not of file names), so
    /// federates can tell whether they loaded the same model. Each entry is hashed as it is
    /// formatted, with a zero byte after it, allocating nothing.
    fn compute_fingerprint(&self) -> u64 {
        let mut hash = Fnv::default();
        for class in &self.object_classes {
            hash.entry(format_args!("{}", class.qualified_name));
            // Only when set, so models without the extension keep their fingerprints.
            if class.keep_latest {
                hash.entry(format_args!("keepLatest"));
            }
            for &a in &class.attributes {
                let a = self.attribute(a);
                hash.entry(format_args!(
                    "{}|{}|{}|{}|{:?}|{:?}",
                    a.name,
                    a.data_type,
                    a.transportation.name,
                    a.transportation.reliable,
                    a.order,
                    a.dimensions
                ));
                // Only when set, so models without the extension keep their fingerprints.
                if a.keep_latest {
                    hash.entry(format_args!("keepLatest"));
                }
            }
        }
        for class in &self.interaction_classes {
            hash.entry(format_args!(
                "{}|{}|{}|{:?}|{:?}",
                class.qualified_name,
                class.transportation.name,
                class.transportation.reliable,
                class.order,
                class.dimensions
            ));
            for &p in &class.parameters {
                let p = self.parameter(p);
                hash.entry(format_args!("{}|{}", p.name, p.data_type));
            }
        }
        for d in &self.dimensions {
            hash.entry(format_args!("{}|{}", d.name, d.upper_bound));
        }
        for t in &self.transportation_types {
            hash.entry(format_args!("{}|{}", t.name, t.reliable));
        }
        for r in &self.update_rates {
            hash.entry(format_args!("{}|{}", r.name, r.rate));
        }
        for listing in self.data_types.canonical() {
            hash.entry(format_args!("{listing}"));
        }
        hash.0
    }

    /// What the modules hold that was read leniently: sloppiness that changes nothing at
    /// run time (see [`FomWarning`]), in module order, for the caller to log. A strict
    /// caller refuses a model that has any.
    pub fn warnings(&self) -> &[FomWarning] {
        &self.warnings
    }

    /// A hash of names, properties and handles: federates compare it at join to be sure they number
    /// the model alike.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The files (or names) the model was loaded from, in the order merged (the MIM first).
    pub fn modules(&self) -> &[String] {
        &self.modules
    }

    /// The XML of the module `designator` names (as [`ObjectModel::modules`] lists it).
    pub fn module_text(&self, designator: &str) -> Option<&str> {
        let index = self.modules.iter().position(|m| m == designator)?;
        self.module_texts.0.get(index).map(|text| &**text)
    }

    /// The merged data types, predefined ones included.
    pub fn data_types(&self) -> &DataTypes {
        &self.data_types
    }

    /// How many classes, members and dimensions, as `trellis fom check` prints them.
    pub fn counts(&self) -> Counts {
        Counts {
            object_classes: self.object_classes.len(),
            interaction_classes: self.interaction_classes.len(),
            attributes: self.attributes.len(),
            parameters: self.parameters.len(),
            dimensions: self.dimensions.len(),
        }
    }

    /// Every object class, indexed by [`ObjectClassHandle`].
    pub fn object_classes(&self) -> &[ObjectClass] {
        &self.object_classes
    }

    /// Every interaction class, indexed by [`InteractionClassHandle`].
    pub fn interaction_classes(&self) -> &[InteractionClass] {
        &self.interaction_classes
    }

    /// Every dimension, indexed by [`DimensionHandle`].
    pub fn dimensions(&self) -> &[Dimension] {
        &self.dimensions
    }

    /// The class of `handle`; panics on a handle not from this model (use
    /// [`ObjectModel::object_class_checked`] for one off the wire).
    pub fn object_class(&self, handle: ObjectClassHandle) -> &ObjectClass {
        &self.object_classes[handle.0 as usize]
    }

    /// The attribute of `handle`; panics on a handle not from this model.
    pub fn attribute(&self, handle: AttributeHandle) -> &Attribute {
        &self.attributes[handle.0 as usize]
    }

    /// The class of `handle`; panics on a handle not from this model (use
    /// [`ObjectModel::interaction_class_checked`] for one off the wire).
    pub fn interaction_class(&self, handle: InteractionClassHandle) -> &InteractionClass {
        &self.interaction_classes[handle.0 as usize]
    }

    /// The parameter of `handle`; panics on a handle not from this model.
    pub fn parameter(&self, handle: ParameterHandle) -> &Parameter {
        &self.parameters[handle.0 as usize]
    }

    /// The dimension of `handle`; panics on a handle not from this model.
    pub fn dimension(&self, handle: DimensionHandle) -> &Dimension {
        &self.dimensions[handle.0 as usize]
    }

    /// A handle that came over the wire, if the model has it.
    pub fn object_class_checked(&self, handle: u32) -> Option<ObjectClassHandle> {
        ((handle as usize) < self.object_classes.len()).then_some(ObjectClassHandle(handle))
    }

    /// A handle that came over the wire, if the model has it.
    pub fn interaction_class_checked(&self, handle: u32) -> Option<InteractionClassHandle> {
        ((handle as usize) < self.interaction_classes.len())
            .then_some(InteractionClassHandle(handle))
    }

    /// By qualified name ("HLAobjectRoot.BaseEntity"), by the name without the root
    /// ("BaseEntity.PhysicalEntity"), or by its own name when that is unambiguous.
    pub fn find_object_class(&self, name: &str) -> Option<ObjectClassHandle> {
        find(
            &self.object_classes,
            &self.object_class_index,
            name,
            "HLAobjectRoot",
            |c| &c.name,
        )
        .map(ObjectClassHandle)
    }

    /// By qualified name ("HLAinteractionRoot.WeaponFire"), by the name without the root, or by its
    /// own name when that is unambiguous.
    pub fn find_interaction_class(&self, name: &str) -> Option<InteractionClassHandle> {
        find(
            &self.interaction_classes,
            &self.interaction_class_index,
            name,
            "HLAinteractionRoot",
            |c| &c.name,
        )
        .map(InteractionClassHandle)
    }

    /// The dimension of that exact name.
    pub fn find_dimension(&self, name: &str) -> Option<DimensionHandle> {
        self.dimension_index.get(name).copied()
    }

    /// The dimensions `attribute` is updated in, each with its upper bound.
    pub fn attribute_dimensions(
        &self,
        attribute: AttributeHandle,
    ) -> impl Iterator<Item = &Dimension> + '_ {
        self.attribute(attribute)
            .dimensions
            .iter()
            .map(|&d| self.dimension(d))
    }

    /// The dimensions `class` is sent in, each with its upper bound.
    pub fn interaction_dimensions(
        &self,
        class: InteractionClassHandle,
    ) -> impl Iterator<Item = &Dimension> + '_ {
        self.interaction_class(class)
            .dimensions
            .iter()
            .map(|&d| self.dimension(d))
    }

    /// An attribute of `class`, declared there or inherited.
    pub fn find_attribute(&self, class: ObjectClassHandle, name: &str) -> Option<AttributeHandle> {
        self.object_ancestry(class)
            .flat_map(|c| self.object_class(c).attributes.iter().copied())
            .find(|&a| self.attribute(a).name == name)
    }

    /// A parameter of `class`, declared there or inherited.
    pub fn find_parameter(
        &self,
        class: InteractionClassHandle,
        name: &str,
    ) -> Option<ParameterHandle> {
        self.interaction_ancestry(class)
            .flat_map(|c| self.interaction_class(c).parameters.iter().copied())
            .find(|&p| self.parameter(p).name == name)
    }

    /// `class`, its parent, and so on up to the root.
    pub fn object_ancestry(
        &self,
        class: ObjectClassHandle,
    ) -> impl Iterator<Item = ObjectClassHandle> + '_ {
        std::iter::successors(Some(class), |&c| self.object_class(c).parent)
    }

    /// `class`, its parent, and so on up to HLAinteractionRoot.
    pub fn interaction_ancestry(
        &self,
        class: InteractionClassHandle,
    ) -> impl Iterator<Item = InteractionClassHandle> + '_ {
        std::iter::successors(Some(class), |&c| self.interaction_class(c).parent)
    }

    /// Whether `class` is `ancestor` or one of its subclasses.
    pub fn is_object_subclass(
        &self,
        class: ObjectClassHandle,
        ancestor: ObjectClassHandle,
    ) -> bool {
        self.object_ancestry(class).any(|c| c == ancestor)
    }

    /// Whether `class` is `ancestor` or one of its subclasses.
    pub fn is_interaction_subclass(
        &self,
        class: InteractionClassHandle,
        ancestor: InteractionClassHandle,
    ) -> bool {
        self.interaction_ancestry(class).any(|c| c == ancestor)
    }

    /// `class` and every class below it.
    pub fn object_descendants(&self, class: ObjectClassHandle) -> Vec<ObjectClassHandle> {
        descendants(class, |c| &self.object_class(c).children)
    }

    /// `class` and every class below it.
    pub fn interaction_descendants(
        &self,
        class: InteractionClassHandle,
    ) -> Vec<InteractionClassHandle> {
        descendants(class, |c| &self.interaction_class(c).children)
    }

    /// Whether any class or attribute is marked keep-latest (most models mark none).
    pub fn marks_keep_latest(&self) -> bool {
        self.object_classes.iter().any(|c| c.keep_latest)
            || self.attributes.iter().any(|a| a.keep_latest)
    }

    /// Whether updates of `attribute` of an instance registered as `class` are keep-latest
    /// by the object model: the attribute says so, or `class` or one of its ancestors does.
    pub fn is_keep_latest(&self, class: ObjectClassHandle, attribute: AttributeHandle) -> bool {
        self.attribute(attribute).keep_latest
            || self
                .object_ancestry(class)
                .any(|c| self.object_class(c).keep_latest)
    }

    /// Every attribute an instance of `class` has: its own and inherited ones.
    pub fn available_attributes(&self, class: ObjectClassHandle) -> Vec<AttributeHandle> {
        let mut out: Vec<AttributeHandle> = self
            .object_ancestry(class)
            .flat_map(|c| self.object_class(c).attributes.iter().copied())
            .collect();
        out.sort();
        out
    }

    /// Whether `parameter` is defined and belongs to `class` (its own or inherited): what
    /// [`ObjectModel::available_parameters`] lists, answered without building the list, once
    /// per parameter sent or received.
    pub fn has_parameter(&self, class: InteractionClassHandle, parameter: ParameterHandle) -> bool {
        (parameter.0 as usize) < self.counts().parameters
            && self.is_interaction_subclass(class, self.parameter(parameter).class)
    }

    /// Every parameter of `class`: its own and inherited ones.
    pub fn available_parameters(&self, class: InteractionClassHandle) -> Vec<ParameterHandle> {
        let mut out: Vec<ParameterHandle> = self
            .interaction_ancestry(class)
            .flat_map(|c| self.interaction_class(c).parameters.iter().copied())
            .collect();
        out.sort();
        out
    }
}

/// FNV-1a, fed through `fmt::Write` so that entries are hashed as they are formatted.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// One entry of the listing, and the zero byte that ends it.
    fn entry(&mut self, text: std::fmt::Arguments<'_>) {
        // Writing to a hash cannot fail.
        let _ = std::fmt::Write::write_fmt(self, text);
        self.bytes(&[0]);
    }
}

impl std::fmt::Write for Fnv {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.bytes(text.as_bytes());
        Ok(())
    }
}

/// Every module parsed, or every error of every module.
fn parse_all(sources: &[(&str, &str)]) -> Result<Vec<parse::Module>, FomErrors> {
    let mut modules = Vec::new();
    let mut errors = Vec::new();
    for (name, text) in sources {
        match parse::parse_module(name, text) {
            Ok(module) => modules.push(module),
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(modules)
    } else {
        Err(FomErrors(errors))
    }
}

/// Index of the class named `name`: qualified, qualified without the root, or its own
/// name if exactly one class has it.
fn find<T>(
    classes: &[T],
    by_qualified_name: &BTreeMap<String, u32>,
    name: &str,
    root: &str,
    own_name: impl Fn(&T) -> &String,
) -> Option<u32> {
    let with_root = if name == root || name.starts_with(&format!("{root}.")) {
        name.to_owned()
    } else {
        format!("{root}.{name}")
    };
    if let Some(&i) = by_qualified_name.get(&with_root) {
        return Some(i);
    }
    let mut matches = classes
        .iter()
        .enumerate()
        .filter(|(_, c)| *own_name(c) == name);
    match (matches.next(), matches.next()) {
        (Some((i, _)), None) => Some(i as u32),
        _ => None,
    }
}

/// `root` and everything below it, breadth first.
fn descendants<'a, H: Copy + 'a>(root: H, children: impl Fn(H) -> &'a [H]) -> Vec<H> {
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        out.extend(children(out[i]).iter().copied());
        i += 1;
    }
    out
}

#[cfg(test)]
mod handle_order_tests;
#[cfg(test)]
mod lenient_tests;
#[cfg(test)]
mod rules_tests;
#[cfg(test)]
mod tests;
