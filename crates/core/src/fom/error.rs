//! Errors in object models: each names the file, the line and the element.

use serde::Serialize;
use std::fmt;
use thiserror::Error;

/// One problem of a module: at a line and element of it, or (line 0) of the file as a
/// whole, such as a file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct FomError {
    /// The module's path or designator as given.
    pub file: String,
    /// 1-based line; 0 for the file as a whole.
    pub line: u32,
    /// The XML element at fault, or a pseudo-element ("file", "xml") for the file as a whole.
    pub element: String,
    /// What is wrong, worded for the model's author.
    pub message: String,
}

impl fmt::Display for FomError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.file, self.message),
            line => write!(
                f,
                "{}:{line}: <{}>: {}",
                self.file, self.element, self.message
            ),
        }
    }
}

/// Sloppiness in a module that changes nothing at run time (an enumerated value in another
/// letter case, a repeated enumerator, an undeclared `xsi` prefix, an inherited attribute
/// restated): the model loads, and the caller may log these. Named like [`FomError`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FomWarning {
    /// The module's path or designator as given.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// The XML element concerned.
    pub element: String,
    /// What is sloppy, and how it was read.
    pub message: String,
}

impl fmt::Display for FomWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: <{}>: {}",
            self.file, self.line, self.element, self.message
        )
    }
}

/// Which IEEE 1516.1-2010 exception of createFederationExecution / joinFederationExecution
/// an error is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FddErrorKind {
    /// CouldNotOpenFDD: the module could not be read.
    CouldNotOpen,
    /// ErrorReadingFDD: not well-formed XML, or not an IEEE 1516-2010 object model.
    ErrorReading,
    /// InconsistentFDD: the modules do not make one consistent model (conflicting or
    /// missing definitions, unknown references).
    Inconsistent,
}

impl FomError {
    /// Which IEEE 1516.1-2010 exception the error is (from its element: "file" cannot be opened,
    /// "xml" cannot be read, anything else is inconsistent).
    pub fn kind(&self) -> FddErrorKind {
        match self.element.as_str() {
            "file" => FddErrorKind::CouldNotOpen,
            "xml" | "FED" | "objectModel" => FddErrorKind::ErrorReading,
            _ => FddErrorKind::Inconsistent,
        }
    }
}

/// Every problem found while loading a set of modules.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct FomErrors(pub Vec<FomError>);

impl FomErrors {
    /// The exception of the whole load: what stops reading decides (an unreadable module
    /// before a malformed one), else the modules are inconsistent.
    pub fn kind(&self) -> FddErrorKind {
        let kinds = || self.0.iter().map(FomError::kind);
        if kinds().any(|kind| kind == FddErrorKind::CouldNotOpen) {
            FddErrorKind::CouldNotOpen
        } else if kinds().any(|kind| kind == FddErrorKind::ErrorReading) {
            FddErrorKind::ErrorReading
        } else {
            FddErrorKind::Inconsistent
        }
    }
}

impl fmt::Display for FomErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

/// Where something was declared, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Site {
    pub file: String,
    pub line: u32,
}

impl Site {
    pub(crate) fn error(&self, element: &str, message: impl Into<String>) -> FomError {
        FomError {
            file: self.file.clone(),
            line: self.line,
            element: element.to_owned(),
            message: message.into(),
        }
    }

    pub(crate) fn warning(&self, element: &str, message: impl Into<String>) -> FomWarning {
        FomWarning {
            file: self.file.clone(),
            line: self.line,
            element: element.to_owned(),
            message: message.into(),
        }
    }
}

/// The IEEE 1516.2-2010 spelling of `raw` among `allowed` when `raw` is one of them written
/// in another letter case (`Timestamp` for `TimeStamp`); None when it is spelled right or
/// is none of them (left for the caller to accept or refuse as before).
pub(crate) fn respelled(raw: &str, allowed: &[&'static str]) -> Option<&'static str> {
    if allowed.contains(&raw) {
        return None;
    }
    allowed
        .iter()
        .copied()
        .find(|value| value.eq_ignore_ascii_case(raw))
}

/// The values of the OMT's enumerated elements that Trellis reads or compares.
pub(crate) mod spellings {
    pub const ORDER: &[&str] = &["Receive", "TimeStamp"];
    pub const SHARING: &[&str] = &["Publish", "Subscribe", "PublishSubscribe", "Neither"];
    pub const UPDATE_TYPE: &[&str] = &["Static", "Periodic", "Conditional", "NA"];
    pub const OWNERSHIP: &[&str] = &["Divest", "Acquire", "DivestAcquire", "NoTransfer", "NA"];
    /// References to the two transportations every model has.
    pub const TRANSPORTATION: &[&str] = &["HLAreliable", "HLAbestEffort"];
    pub const RELIABLE: &[&str] = &["Yes", "No"];
    pub const ENDIAN: &[&str] = &["Big", "Little"];
    pub const ARRAY_ENCODING: &[&str] = &["HLAfixedArray", "HLAvariableArray"];
    pub const FIXED_RECORD_ENCODING: &[&str] = &["HLAfixedRecord"];
    pub const VARIANT_RECORD_ENCODING: &[&str] = &["HLAvariantRecord"];
    pub const CARDINALITY: &[&str] = &["Dynamic"];
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}
