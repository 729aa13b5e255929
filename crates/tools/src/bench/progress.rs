//! Progress bars for anything longer than a few seconds (drawn on a terminal only).

use indicatif::{ProgressBar, ProgressStyle};

pub(crate) fn bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    let style = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({elapsed})")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style.progress_chars("=> "));
    bar.set_message(what.to_owned());
    bar
}
