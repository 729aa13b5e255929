//! The demo's lines on standard output. The reader may close it (`trellis demo | head -2`):
//! then the demo stops as if interrupted, quietly, instead of failing on the next line, and
//! says nothing more.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub(super) struct Say {
    closed: AtomicBool,
    /// The demo's stop flag, set when the output closes.
    stop: Arc<AtomicBool>,
}

impl Say {
    pub(super) fn new(stop: Arc<AtomicBool>) -> Say {
        Say {
            closed: AtomicBool::new(false),
            stop,
        }
    }

    /// One line, flushed at once (a reader sees each second as it passes).
    pub(super) fn line(&self, text: std::fmt::Arguments) {
        if self.closed.load(Ordering::SeqCst) {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        let written = stdout
            .write_fmt(format_args!("{text}\n"))
            .and_then(|()| stdout.flush());
        if written.is_err() {
            // A closed pipe, or a full disk: nobody reads what follows either way.
            self.closed.store(true, Ordering::SeqCst);
            self.stop.store(true, Ordering::SeqCst);
        }
    }

    pub(super) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }
}

/// `println!` through a [`Say`].
macro_rules! say {
    ($say:expr, $($arg:tt)*) => {
        $say.line(format_args!($($arg)*))
    };
}

pub(super) use say;
