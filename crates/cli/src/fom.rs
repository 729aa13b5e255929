//! `trellis fom check`: load and merge object-model modules, print what they hold.

use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use trellis_core::fom::ObjectModel;

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
    /// Print the counts as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(command: FomCommand) -> Result<()> {
    let FomCommand::Check(args) = command;
    match ObjectModel::load(&args.files) {
        Ok(model) => {
            let counts = model.counts();
            if args.json {
                println!("{}", serde_json::to_string_pretty(&counts)?);
            } else {
                println!("{} modules: {counts}", model.modules().len());
                println!("modules: {}", model.modules().join(", "));
                println!("fingerprint {:016x}", model.fingerprint());
            }
            Ok(())
        }
        Err(errors) => {
            for e in &errors.0 {
                eprintln!("{e}");
            }
            Err(crate::Reported("the object model has errors").into())
        }
    }
}
