//! Errors in object models: each names the file, the line and the element.

use std::fmt;
use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{file}:{line}: <{element}>: {message}")]
pub struct FomError {
    pub file: String,
    pub line: u32,
    pub element: String,
    pub message: String,
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
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}
