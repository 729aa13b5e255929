//! `trellis up` as a child process: its routers are its children, found through /proc and
//! killed with SIGKILL one at a time; its output lines say when it restarted one.

use super::super::BenchError;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// A running `trellis up`; dropping it kills it (its routers die with it).
pub(crate) struct Up {
    child: Child,
    /// Its output lines, stamped with the run's clock when read.
    lines: Receiver<(Duration, String)>,
    /// Every line read so far, for `up.log`.
    log: Vec<String>,
}

impl Up {
    /// Start `trellis up FILE` and wait until it says every router link is connected.
    /// Routers log to `stderr_file`.
    pub(crate) fn start(
        trellis: &Path,
        file: &Path,
        max_restarts_per_minute: usize,
        stderr_file: &Path,
        clock: Instant,
    ) -> Result<Up, BenchError> {
        let mut child = Command::new(trellis)
            .arg("up")
            .arg(file)
            .args([
                "--max-restarts-per-minute",
                &max_restarts_per_minute.to_string(),
            ])
            .env("TRELLIS_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(stderr_file)?)
            .spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| BenchError::Failed("trellis up has no stdout".into()))?;
        let (sender, lines) = std::sync::mpsc::channel();
        // Read to the end, so `trellis up` never writes into a closed pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = sender.send((clock.elapsed(), line));
            }
        });
        let mut up = Up {
            child,
            lines,
            log: Vec::new(),
        };
        up.wait_for("every router link connected", Duration::from_secs(60))?;
        Ok(up)
    }

    /// The next line containing `text` within `bound`, with the time it was read.
    pub(crate) fn wait_for(
        &mut self,
        text: &str,
        bound: Duration,
    ) -> Result<(Duration, String), BenchError> {
        let deadline = Instant::now() + bound;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((at, line)) => {
                    self.log.push(line.clone());
                    if line.contains(text) {
                        return Ok((at, line));
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(BenchError::Failed(format!(
                        "trellis up printed no line with {text:?} within {bound:?}"
                    )))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(BenchError::Failed(format!(
                        "trellis up ended before printing {text:?}"
                    )))
                }
            }
        }
    }

    /// SIGKILL router `name` (a child of `trellis up` whose arguments name it).
    pub(crate) fn kill_router(&self, name: &str) -> Result<(), BenchError> {
        let pid = router_pid(self.child.id(), name)
            .ok_or_else(|| BenchError::Failed(format!("no process for router {name}")))?;
        let status = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()?;
        if !status.success() {
            return Err(BenchError::Failed(format!(
                "kill -KILL {pid} (router {name}) failed: {status}"
            )));
        }
        Ok(())
    }

    /// The lines `trellis up` printed, read so far and still queued.
    pub(crate) fn log(&mut self) -> String {
        while let Ok((_, line)) = self.lines.try_recv() {
            self.log.push(line);
        }
        let mut text = self.log.join("\n");
        text.push('\n');
        text
    }

    /// SIGTERM (it stops its routers), and a kill if it has not exited within a bound.
    pub(crate) fn stop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = Command::new("kill")
                .args(["-TERM", &self.child.id().to_string()])
                .status();
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Up {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The pid of the child of `parent` whose command line has `name` as an argument.
fn router_pid(parent: u32, name: &str) -> Option<u32> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // The command name in parentheses may hold spaces: fields start after the last ')'.
            let ppid: u32 = stat
                .rsplit(')')
                .next()?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let named = cmdline.split(|&b| b == 0).any(|arg| arg == name.as_bytes());
            (ppid == parent && named).then_some(pid)
        })
}
