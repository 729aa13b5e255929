//! `trellis fom check`: load and merge object-model modules, print what they hold.

use crate::output::outln;
use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use trellis_core::fom::{FomError, ObjectModel};

#[derive(Subcommand)]
pub(crate) enum FomCommand {
    /// Load and merge modules; print their counts and any warnings, or every error and
    /// exit 1.
    #[command(after_help = "Examples:
  trellis fom check foms/trellis-demo.xml
  trellis fom check MyFom.xml MyModule.xml --strict   # warnings fail too")]
    Check(CheckArgs),
}

#[derive(Args)]
pub(crate) struct CheckArgs {
    /// OMT / FDD XML modules (IEEE 1516-2010). The standard MIM is loaded first unless
    /// one of them is a MIM; "HLAstandardMIM" names the built-in one.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print the counts (with any warnings and data type references left unresolved) as
    /// JSON.
    #[arg(long)]
    json: bool,
    /// Refuse the warnings too: sloppiness that loads (an enumerated value in another
    /// letter case, a repeated enumerator, an undeclared xsi prefix, a restated attribute
    /// or class) exits 1 as errors do.
    #[arg(long)]
    strict: bool,
}

pub(crate) fn run(command: FomCommand) -> Result<()> {
    let FomCommand::Check(args) = command;
    let model = match ObjectModel::load(&args.files, &|path| std::fs::read(path)) {
        Ok(model) => model,
        Err(errors) => {
            for e in &errors.0 {
                eprintln!("{e}");
            }
            return Err(crate::Reported("the object model has errors").into());
        }
    };
    let counts = model.counts();
    let data_types = model.data_types();
    // A checked model is a whole FDD: every type it names must be declared.
    let unresolved = data_types.unresolved();
    let warnings = model.warnings();
    if args.json {
        let mut json = serde_json::to_value(counts)?;
        json["data_types"] = data_types.declared_count().into();
        json["data_type_errors"] = unresolved.iter().map(error_json).collect();
        json["warnings"] = serde_json::to_value(warnings)?;
        outln!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        outln!(
            "{} modules: {counts}, {} data types, {} warnings",
            model.modules().len(),
            data_types.declared_count(),
            warnings.len()
        );
        outln!("modules: {}", model.modules().join(", "));
        outln!("fingerprint {:016x}", model.fingerprint());
    }
    for w in warnings {
        eprintln!("warning: {w}");
    }
    for e in unresolved {
        eprintln!("{e}");
    }
    if !unresolved.is_empty() {
        Err(crate::Reported("the object model names data types it does not declare").into())
    } else if args.strict && !warnings.is_empty() {
        eprintln!("{} warnings, refused by --strict", warnings.len());
        Err(crate::Reported("the object model has warnings, refused by --strict").into())
    } else {
        Ok(())
    }
}

fn error_json(e: &FomError) -> serde_json::Value {
    serde_json::json!({
        "file": e.file,
        "line": e.line,
        "element": e.element,
        "message": e.message,
    })
}
