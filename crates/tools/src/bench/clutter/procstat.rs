//! CPU time and resident memory of a process (or one thread), read from /proc.

use serde::{Deserialize, Serialize};

/// Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux ABI).
const TICKS_PER_SECOND: f64 = 100.0;

/// One reading of a process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// User and system CPU time so far.
    pub cpu_seconds: f64,
    pub rss_kb: u64,
}

/// CPU seconds from a `stat` file's text (utime + stime, fields 14 and 15).
fn cpu_seconds(stat: &str) -> Option<f64> {
    // The command name in parentheses may hold spaces: fields start after the last ')'.
    let mut fields = stat.rsplit(')').next()?.split_whitespace();
    // After ')' come state (3), ppid (4), …; utime is field 14: the 12th from here.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((utime + stime) as f64 / TICKS_PER_SECOND)
}

fn rss_kb(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// `pid`'s usage now ("self" for this process); `None` when it is gone.
pub fn usage(pid: &str) -> Option<Usage> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    Some(Usage {
        cpu_seconds: cpu_seconds(&stat)?,
        rss_kb: rss_kb(&status)?,
    })
}

pub fn own() -> Usage {
    usage("self").unwrap_or_default()
}

/// CPU seconds of this process's threads whose name is `name`.
pub fn thread_cpu_seconds(name: &str) -> Option<f64> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    tasks.flatten().find_map(|task| {
        let comm = std::fs::read_to_string(task.path().join("comm")).ok()?;
        if comm.trim_end() != name {
            return None;
        }
        cpu_seconds(&std::fs::read_to_string(task.path().join("stat")).ok()?)
    })
}

/// Processes whose command line holds every one of `words` as an argument (or an
/// argument ending in it, for file paths).
pub fn find_processes(words: &[&str]) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
            words
                .iter()
                .all(|w| args.iter().any(|a| a.ends_with(w.as_bytes())))
                .then_some(pid)
        })
        .collect();
    pids.sort_unstable();
    pids
}

/// The command-line argument after `flag` of process `pid`.
pub fn argument_after(pid: u32, flag: &str) -> Option<String> {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
    let at = args.iter().position(|a| *a == flag.as_bytes())?;
    Some(String::from_utf8_lossy(args.get(at + 1)?).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_reads_back() {
        let usage = own();
        assert!(usage.rss_kb > 0);
        assert!(usage.cpu_seconds >= 0.0);
        let stat = "12 (a b) S 1 12 12 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0";
        assert_eq!(cpu_seconds(stat), Some(3.0));
    }
}
