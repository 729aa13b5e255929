//! The standard MIM (IEEE 1516.1-2010 clause 11, 1516.2-2010): HLAobjectRoot with
//! HLAprivilegeToDeleteObject, the MOM classes under HLAmanager, the HLAreliable and
//! HLAbestEffort transportations, the HLAfederate and HLAserviceGroup dimensions and the
//! HLA data types. Every federation's model starts with it: loaded first, implicitly,
//! unless the caller names it (or gives another MIM in its place).
//!
//! A federation may also be created with a MIM of its own (createFederationExecutionWithMIM):
//! [`ObjectModel::load_with_mim`] opens it, checks that it holds every class, attribute
//! and parameter of the standard MIM (it may add to them), and merges it first.

use super::parse::{self, Module};
use super::{FddErrorKind, FomError, FomErrors, ObjectModel};
use std::path::Path;
use thiserror::Error;

/// The designator and `<modelIdentification><name>` of the standard MIM.
pub const STANDARD_MIM_NAME: &str = "HLAstandardMIM";

/// The `<modelIdentification><name>` of the standard's own HLAstandardMIM.xml.
pub const STANDARD_MIM_MODEL_NAME: &str =
    "Standard MOM and Initialization Module (MIM) for HLA IEEE 1516-2010";

/// The name the built-in MIM goes by in messages: the file it ships as, whose lines the
/// messages' line numbers refer to.
pub const STANDARD_MIM_FILE: &str = "HLAstandardMIM.xml";

/// The standard MIM as published with IEEE 1516.1-2010 (`foms/HLAstandardMIM.xml`, the
/// standard's file unchanged), built in so that core reads no files.
pub const STANDARD_MIM_XML: &str = include_str!("../../../../foms/HLAstandardMIM.xml");

/// Whether a FOM module designator names the standard MIM itself: "HLAstandardMIM", or a
/// path whose file name is HLAstandardMIM.xml. In a module list such a path stands for the
/// built-in MIM when the file does not exist (federates written for other RTIs name it
/// without shipping it). The MIM argument of createFederationExecutionWithMIM is stricter:
/// see [`is_builtin_mim_designator`].
pub fn is_standard_mim_designator(designator: &str) -> bool {
    let file_name = designator.rsplit(['/', '\\']).next().unwrap_or(designator);
    file_name == STANDARD_MIM_NAME || file_name == STANDARD_MIM_FILE
}

/// Whether the MIM designator of createFederationExecutionWithMIM means the built-in
/// standard MIM: exactly "HLAstandardMIM" (the designator 1516.1-2010 gives the MIM the
/// RTI supplies). Anything else is a file to open.
pub fn is_builtin_mim_designator(designator: &str) -> bool {
    designator == STANDARD_MIM_NAME
}

/// Whether a module the caller gave is a MIM standing in for the built-in one: named so by
/// its file or by its model identification.
pub(crate) fn is_mim(module: &Module) -> bool {
    is_standard_mim_designator(&module.file)
        || matches!(
            module.model_name.as_deref(),
            Some(STANDARD_MIM_NAME | STANDARD_MIM_MODEL_NAME)
        )
}

/// Which IEEE 1516.1-2010 exception of createFederationExecutionWithMIM a [`MimError`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MimErrorKind {
    /// CouldNotOpenMIM: the MIM file could not be read.
    CouldNotOpenMim,
    /// ErrorReadingMIM: the MIM is not a valid object model, or lacks some of the standard
    /// MIM's classes, attributes or parameters.
    ErrorReadingMim,
    /// A FOM module's problem (CouldNotOpenFDD, ErrorReadingFDD or InconsistentFDD).
    Fdd(FddErrorKind),
}

/// Why a federation's model could not be made from a MIM and FOM modules.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MimError {
    /// The MIM could not be read (CouldNotOpenMIM).
    #[error("could not open MIM {designator}: {reason}")]
    CouldNotOpen {
        /// The MIM's path or name as the federate gave it.
        designator: String,
        /// What the read reported.
        reason: String,
    },
    /// The MIM is not a valid object model (ErrorReadingMIM).
    #[error("error reading MIM {designator}: {errors}")]
    Invalid {
        /// The MIM's path or name as the federate gave it.
        designator: String,
        /// Every problem found in it.
        errors: FomErrors,
    },
    /// The MIM is valid but lacks definitions of the standard MIM (ErrorReadingMIM).
    #[error(
        "error reading MIM {designator}: it lacks {} of the standard MIM's definitions: {}",
        missing.len(),
        summarize(missing)
    )]
    NotStandard {
        /// The MIM's path or name as the federate gave it.
        designator: String,
        /// Each missing definition, as "object class X", "attribute X.a", ...
        missing: Vec<String>,
    },
    /// The FOM modules merged with the MIM failed; holds their errors.
    #[error("{0}")]
    Modules(FomErrors),
}

impl MimError {
    /// Which IEEE 1516.1-2010 exception the error is.
    pub fn kind(&self) -> MimErrorKind {
        match self {
            MimError::CouldNotOpen { .. } => MimErrorKind::CouldNotOpenMim,
            MimError::Invalid { .. } | MimError::NotStandard { .. } => {
                MimErrorKind::ErrorReadingMim
            }
            MimError::Modules(errors) => MimErrorKind::Fdd(errors.kind()),
        }
    }
}

/// The first few of `missing`, and how many more there are.
fn summarize(missing: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut text = missing
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if missing.len() > SHOWN {
        text.push_str(&format!(" and {} more", missing.len() - SHOWN));
    }
    text
}

/// How a federation's module list, as the registry keeps it for joiners, names a MIM of its
/// own: its first entry is the MIM's path behind this prefix.
pub const MIM_DESIGNATOR_PREFIX: &str = "mim:";

impl ObjectModel {
    /// The module list a federation created with `mim` (a path; `None` for the built-in
    /// standard MIM) and the FOM modules at `modules` is known by: what
    /// [`ObjectModel::load_federation`] loads again.
    pub fn federation_designators(mim: Option<&str>, modules: &[String]) -> Vec<String> {
        mim.map(|mim| format!("{MIM_DESIGNATOR_PREFIX}{mim}"))
            .into_iter()
            .chain(modules.iter().cloned())
            .collect()
    }

    /// The model of a federation's module list ([`ObjectModel::federation_designators`]):
    /// FOM module paths after the standard MIM, or after the MIM its first entry names.
    /// `read` reads a file (a host passes `std::fs::read`; core opens none).
    pub fn load_federation(
        designators: &[String],
        read: ReadFile<'_>,
    ) -> Result<ObjectModel, MimError> {
        if let Some((first, modules)) = designators.split_first() {
            if let Some(mim) = first.strip_prefix(MIM_DESIGNATOR_PREFIX) {
                return ObjectModel::load_with_mim(mim, modules, read);
            }
        }
        ObjectModel::load(designators, read).map_err(MimError::Modules)
    }

    /// createFederationExecutionWithMIM: the model of the MIM `mim_designator` and the FOM
    /// modules at `modules`. "HLAstandardMIM" is the built-in standard MIM; any other
    /// designator is a file, which must exist, be an object model, and hold every class,
    /// attribute and parameter of the standard MIM. It is merged first, in the standard
    /// MIM's place; modules that are the standard MIM are left out then (the MIM holds
    /// them), so that federates listing HLAstandardMIM.xml among their modules still work.
    /// `read` reads a file.
    pub fn load_with_mim<P: AsRef<Path>>(
        mim_designator: &str,
        modules: &[P],
        read: ReadFile<'_>,
    ) -> Result<ObjectModel, MimError> {
        if is_builtin_mim_designator(mim_designator) {
            return ObjectModel::load(modules, read).map_err(MimError::Modules);
        }
        let mim_text = match read_module(Path::new(mim_designator), read) {
            Ok(text) => text,
            Err(Unreadable::Open(e)) => {
                return Err(MimError::CouldNotOpen {
                    designator: mim_designator.to_owned(),
                    reason: e.to_string(),
                })
            }
            Err(Unreadable::NotUtf8(error)) => {
                return Err(MimError::Invalid {
                    designator: mim_designator.to_owned(),
                    errors: FomErrors(vec![error]),
                })
            }
        };
        let sources = read_modules(modules, read).map_err(MimError::Modules)?;
        let borrowed: Vec<(&str, &str)> = sources
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        ObjectModel::from_sources_with_custom_mim((mim_designator, &mim_text), &borrowed)
    }

    /// [`ObjectModel::load_with_mim`] on texts: `mim` (name for messages, XML) must be an
    /// object model holding the standard MIM's classes; it is merged first, then `sources`
    /// without those that are the standard MIM.
    pub fn from_sources_with_custom_mim(
        mim: (&str, &str),
        sources: &[(&str, &str)],
    ) -> Result<ObjectModel, MimError> {
        let (designator, _) = mim;
        let alone =
            ObjectModel::from_sources_with_mim(mim, &[]).map_err(|errors| MimError::Invalid {
                designator: designator.to_owned(),
                errors,
            })?;
        let missing = missing_standard_definitions(&alone);
        if !missing.is_empty() {
            return Err(MimError::NotStandard {
                designator: designator.to_owned(),
                missing,
            });
        }
        let modules: Vec<(&str, &str)> = sources
            .iter()
            .copied()
            .filter(|&(name, text)| !is_standard_mim_source(name, text))
            .collect();
        ObjectModel::from_sources_with_mim(mim, &modules).map_err(MimError::Modules)
    }
}

/// Whether a module source is the standard MIM, by its designator or its model name. One
/// that does not parse is not (its errors come when it is merged).
fn is_standard_mim_source(name: &str, text: &str) -> bool {
    is_standard_mim_designator(name)
        || parse::parse_module(name, text).is_ok_and(|module| is_mim(&module))
}

/// Each class, attribute and parameter of the standard MIM that `model` lacks (by
/// qualified name; attributes and parameters declared on the class or inherited).
fn missing_standard_definitions(model: &ObjectModel) -> Vec<String> {
    let Ok(standard) = ObjectModel::from_sources(&[(STANDARD_MIM_FILE, STANDARD_MIM_XML)]) else {
        // The built-in MIM loads (tested); were it not to, there is nothing to hold to.
        return Vec::new();
    };
    let mut missing = Vec::new();
    for class in standard.object_classes() {
        let Some(own) = model.find_object_class(&class.qualified_name) else {
            missing.push(format!("object class {}", class.qualified_name));
            continue;
        };
        for &a in &class.attributes {
            let name = &standard.attribute(a).name;
            if model.find_attribute(own, name).is_none() {
                missing.push(format!("attribute {}.{name}", class.qualified_name));
            }
        }
    }
    for class in standard.interaction_classes() {
        let Some(own) = model.find_interaction_class(&class.qualified_name) else {
            missing.push(format!("interaction class {}", class.qualified_name));
            continue;
        };
        for &p in &class.parameters {
            let name = &standard.parameter(p).name;
            if model.find_parameter(own, name).is_none() {
                missing.push(format!("parameter {}.{name}", class.qualified_name));
            }
        }
    }
    missing
}

/// The text of each module, named by its path; one that does not exist but names the
/// standard MIM is the built-in one (as [`ObjectModel::load`] does).
pub(super) fn read_modules<P: AsRef<Path>>(
    paths: &[P],
    read: ReadFile<'_>,
) -> Result<Vec<(String, String)>, FomErrors> {
    let mut sources = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        let name = path.as_ref().display().to_string();
        match read_module(path.as_ref(), read) {
            Ok(text) => sources.push((name, text)),
            Err(Unreadable::Open(e))
                if e.kind() == std::io::ErrorKind::NotFound
                    && is_standard_mim_designator(&name) =>
            {
                sources.push((STANDARD_MIM_FILE.to_owned(), STANDARD_MIM_XML.to_owned()));
            }
            Err(Unreadable::Open(e)) => errors.push(FomError {
                file: name,
                line: 0,
                element: "file".into(),
                message: format!("cannot read: {e}"),
            }),
            Err(Unreadable::NotUtf8(error)) => errors.push(error),
        }
    }
    if errors.is_empty() {
        Ok(sources)
    } else {
        Err(FomErrors(errors))
    }
}

/// Why a module's text could not be had.
enum Unreadable {
    /// The file could not be read (CouldNotOpenFDD / CouldNotOpenMIM).
    Open(std::io::Error),
    /// It was read, but is not UTF-8 (ErrorReadingFDD / ErrorReadingMIM): the error names
    /// the byte offset and line of the first byte that is not.
    NotUtf8(FomError),
}

/// How core reads a module file: the caller's function (a host passes `std::fs::read`), so
/// that core itself opens no files.
pub type ReadFile<'a> = &'a dyn Fn(&Path) -> std::io::Result<Vec<u8>>;

/// The text of the module at `path`.
fn read_module(path: &Path, read: ReadFile<'_>) -> Result<String, Unreadable> {
    let bytes = read(path).map_err(Unreadable::Open)?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        Unreadable::NotUtf8(not_utf8(&path.display().to_string(), e.as_bytes(), offset))
    })
}

/// The error of module `file`, whose `bytes` are UTF-8 up to `offset` only: its line is
/// one more than the newlines before it; a module that declares another encoding is told
/// so (Trellis reads UTF-8 modules only, as the standard's schema examples are written).
fn not_utf8(file: &str, bytes: &[u8], offset: usize) -> FomError {
    let line = bytes[..offset].iter().filter(|&&b| b == b'\n').count() + 1;
    let declared = declared_encoding(&bytes[..offset])
        .filter(|encoding| !encoding.eq_ignore_ascii_case("UTF-8"))
        .map(|encoding| format!(" (it declares encoding {encoding:?}; convert it to UTF-8)"))
        .unwrap_or_default();
    FomError {
        file: file.to_owned(),
        line: u32::try_from(line).unwrap_or(u32::MAX),
        element: "xml".into(),
        message: format!(
            "not valid UTF-8 at byte offset {offset} (byte 0x{:02X}){declared}",
            bytes.get(offset).copied().unwrap_or_default()
        ),
    }
}

/// The `encoding` of an XML declaration at the start of `bytes` (valid UTF-8), if any.
fn declared_encoding(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(bytes).ok()?;
    let declaration = text.trim_start_matches('\u{feff}').strip_prefix("<?xml")?;
    let declaration = &declaration[..declaration.find("?>")?];
    let value = declaration.split("encoding").nth(1)?.trim_start();
    let value = value.strip_prefix('=')?.trim_start();
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &value[1..];
    Some(&value[..value.find(quote)?])
}
