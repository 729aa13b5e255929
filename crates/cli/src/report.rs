//! `trellis report`: one self-contained HTML page summarising benchmark results folders.

use crate::UsageError;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct ReportArgs {
    /// Results folders written by `trellis bench <name> --out DIR`.
    #[arg(required = true, value_name = "RESULTS")]
    dirs: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(short = 'o', long = "output", value_name = "REPORT.html")]
    output: PathBuf,
}

pub(crate) fn run(args: ReportArgs) -> Result<()> {
    match trellis_tools::report::write(&args.dirs, &args.output) {
        Ok(()) => {
            eprintln!("wrote {}", args.output.display());
            Ok(())
        }
        Err(e) if e.is_input_error() => Err(UsageError(e.to_string()).into()),
        Err(e) => Err(e.into()),
    }
}
