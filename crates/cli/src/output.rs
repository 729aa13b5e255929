//! Standard output that the reader may close under us (`trellis topology gen … | head`).
//!
//! `println!` panics (exit 101) when stdout is a closed pipe, because Rust ignores SIGPIPE.
//! Everything the command prints goes through [`out!`] instead: a closed pipe becomes
//! [`OutputClosed`], which ends the command quietly with success, the way `cat` or `grep`
//! stop when `head` has read enough; resources are released on the way out as for any error.

use std::io::{ErrorKind, Write};

/// The reader of our standard output went away; nothing is wrong with the command.
#[derive(Debug)]
pub(crate) struct OutputClosed;

impl std::fmt::Display for OutputClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("standard output closed")
    }
}

impl std::error::Error for OutputClosed {}

/// Write to standard output and flush; a closed pipe is [`OutputClosed`], any other failure
/// an error naming standard output.
pub(crate) fn write_stdout(text: std::fmt::Arguments) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_fmt(text).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Err(OutputClosed.into()),
        Err(e) => Err(anyhow::Error::new(e).context("writing to standard output")),
    }
}

/// `print!` that returns early with [`OutputClosed`] when stdout is closed.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write_stdout(format_args!($($arg)*))?
    };
}

/// `println!` that returns early with [`OutputClosed`] when stdout is closed.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::output::write_stdout(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

pub(crate) use {out, outln};
