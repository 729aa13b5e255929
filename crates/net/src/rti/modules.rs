//! FOM modules named as the standard names them (IEEE 1516.1-2010 §4.5, §4.9): paths
//! relative to the working directory or `file://` URLs, a MIM of the federation's own, and the
//! additional modules a joiner brings.

use super::{RtiAmbassador, RtiError};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use trellis_core::fom::{is_builtin_mim_designator, ObjectModel};

/// A module designator as a path: "file://" URLs and relative paths (against the working
/// directory) become absolute, so a joiner elsewhere on this host finds the same file.
pub(super) fn module_path(designator: &str) -> PathBuf {
    let path = Path::new(designator.strip_prefix("file://").unwrap_or(designator));
    if path.is_absolute() {
        return path.to_owned();
    }
    std::env::current_dir()
        .map(|dir| dir.join(path))
        .unwrap_or_else(|_| path.to_owned())
}

fn module_paths<S: AsRef<str>>(designators: &[S]) -> Vec<String> {
    (designators.iter())
        .map(|d| module_path(d.as_ref()).display().to_string())
        .collect()
}

/// Load a federation's model from its designators (`ObjectModel::federation_designators`),
/// reading the files: RtiError::ObjectModel says which of the standard's FDD and MIM errors
/// it is, naming file, line and element.
pub(super) fn load_model(designators: &[String]) -> Result<ObjectModel, RtiError> {
    Ok(ObjectModel::load_federation(designators, &|path| {
        std::fs::read(path)
    })?)
}

/// The designators a federation is created with: its FOM modules, and a MIM of its own
/// (none: the standard MIM; "HLAstandardMIM" is refused, as the standard says).
pub(super) fn federation_designators<S: AsRef<str>>(
    fom_modules: &[S],
    mim: Option<&str>,
) -> Result<Vec<String>, RtiError> {
    let mim = match mim {
        Some(mim) if is_builtin_mim_designator(mim) => {
            return Err(RtiError::DesignatorIsHlaStandardMim)
        }
        mim => mim.map(|m| module_path(m).display().to_string()),
    };
    Ok(ObjectModel::federation_designators(
        mim.as_deref(),
        &module_paths(fom_modules),
    ))
}

/// The model a federate joins with, and the modules it claims (empty: the federation's).
pub(super) struct Joining {
    pub model: Arc<ObjectModel>,
    pub modules: Vec<String>,
}

/// The federation's model, as its registry lists its modules, extended by `additional`
/// modules (§4.9): InconsistentFDD, naming them, when they would change what the
/// federation has rather than add to it.
pub(super) fn joining_model<S: AsRef<str>>(
    rti: &mut RtiAmbassador,
    additional: &[S],
) -> Result<Joining, RtiError> {
    let base_modules = rti.federation_modules()?;
    let base = load_model(&base_modules)?;
    let mut modules = base_modules.clone();
    for path in module_paths(additional) {
        if !modules.contains(&path) {
            modules.push(path);
        }
    }
    let extended = if modules.len() > base_modules.len() {
        Some(load_model(&modules)?)
    } else {
        None
    };
    let Some(extended) = extended.filter(|e| e.fingerprint() != base.fingerprint()) else {
        return Ok(Joining {
            model: Arc::new(base),
            modules: Vec::new(),
        });
    };
    extended.extension_of(&base).map_err(|why| {
        RtiError::InconsistentFdd(format!(
            "the additional FOM modules {} change federation {:?}'s object model ({}) instead \
             of adding to it: {why}",
            modules[base_modules.len()..].join(", "),
            rti.federation(),
            base_modules.join(", ")
        ))
    })?;
    Ok(Joining {
        model: Arc::new(extended),
        modules,
    })
}
