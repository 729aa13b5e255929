//! The library's log for C and C++ federates: what the federate library warns about (an
//! object model loaded with sloppiness, a link cut, messages lost) goes to stderr as the
//! `trellis` binary logs it. `TRELLIS_LOG` sets the level (`warn` unless it says otherwise;
//! `off` silences it). A program that installed a tracing subscriber of its own keeps it.

use std::sync::Once;
use tracing_subscriber::EnvFilter;

/// Install the log, once per process (at the first connect).
pub(crate) fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let filter =
            EnvFilter::try_from_env("TRELLIS_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
        // Err: the program has a subscriber already, which then gets the events.
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .try_init();
    });
}
