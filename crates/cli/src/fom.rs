//! `trellis fom check`: load and merge object-model modules, print what they hold.

use crate::output::outln;
use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use trellis_core::fom::{FomError, ObjectModel};

#[derive(Subcommand)]
pub(crate) enum FomCommand {
    /// Load and merge modules; print their counts, or every error and exit 1.
    Check(CheckArgs),
}

#[derive(Args)]
pub(crate) struct CheckArgs {
    /// OMT / FDD XML modules (IEEE 1516-2010). The standard MIM is loaded first unless
    /// one of them is a MIM; "HLAstandardMIM" names the built-in one.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print the counts (and any data type references left unresolved) as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(command: FomCommand) -> Result<()> {
    let FomCommand::Check(args) = command;
    match ObjectModel::load(&args.files) {
        Ok(model) => {
            let counts = model.counts();
            let data_types = model.data_types();
            // A checked model is a whole FDD: every type it names must be declared.
            let unresolved = data_types.unresolved();
            if args.json {
                let mut json = serde_json::to_value(counts)?;
                json["data_types"] = data_types.declared_count().into();
                json["data_type_errors"] = unresolved.iter().map(error_json).collect();
                outln!("{}", serde_json::to_string_pretty(&json)?);
            } else {
                outln!(
                    "{} modules: {counts}, {} data types",
                    model.modules().len(),
                    data_types.declared_count()
                );
                outln!("modules: {}", model.modules().join(", "));
                outln!("fingerprint {:016x}", model.fingerprint());
            }
            for e in unresolved {
                eprintln!("{e}");
            }
            if unresolved.is_empty() {
                Ok(())
            } else {
                Err(crate::Reported("the object model names data types it does not declare").into())
            }
        }
        Err(errors) => {
            for e in &errors.0 {
                eprintln!("{e}");
            }
            Err(crate::Reported("the object model has errors").into())
        }
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
