//! Figures of the process and its host: CPU time by mode, resident memory, start time and
//! uptime, CPUs, and the host's network traffic. sysinfo reads most of them; the split of
//! CPU time into user and system comes from `/proc/self/stat`, which sysinfo sums.

use super::render::{Exposition, Kind};
use std::time::{SystemTime, UNIX_EPOCH};
use sysinfo::{Networks, Pid, ProcessRefreshKind, ProcessesToUpdate, System};

/// What kind of Trellis process serves the figures.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProcessKind {
    Router,
    Federate,
}

impl ProcessKind {
    pub fn name(self) -> &'static str {
        match self {
            ProcessKind::Router => "router",
            ProcessKind::Federate => "federate",
        }
    }
}

/// Reads this process's figures once per scrape; keeps sysinfo's state between scrapes.
pub struct ProcessProbe {
    system: System,
    networks: Networks,
    pid: Pid,
    cpu_count: usize,
}

impl Default for ProcessProbe {
    fn default() -> Self {
        ProcessProbe::new()
    }
}

impl ProcessProbe {
    pub fn new() -> ProcessProbe {
        ProcessProbe {
            system: System::new(),
            networks: Networks::new_with_refreshed_list(),
            pid: Pid::from_u32(std::process::id()),
            cpu_count: std::thread::available_parallelism().map_or(1, usize::from),
        }
    }

    /// Add the process and host families to `out`.
    pub fn write(&mut self, out: &mut Exposition, kind: ProcessKind) {
        out.sample(
            "trellis_process_info",
            Kind::Gauge,
            "A Trellis process: what kind and which version.",
            &[
                ("kind", kind.name()),
                ("version", env!("CARGO_PKG_VERSION")),
            ],
            1.0,
        );
        self.write_cpu_and_memory(out);
        self.write_network(out);
        out.sample(
            "trellis_host_cpu_count",
            Kind::Gauge,
            "CPUs this process may run on.",
            &[],
            self.cpu_count as f64,
        );
    }

    fn write_cpu_and_memory(&mut self, out: &mut Exposition) {
        if let Some((user, system)) = cpu_seconds() {
            let help = "CPU time this process spent, by mode.";
            let kind = Kind::Counter;
            out.sample(
                "trellis_process_cpu_seconds_total",
                kind,
                help,
                &[("mode", "user")],
                user,
            );
            out.sample(
                "trellis_process_cpu_seconds_total",
                kind,
                help,
                &[("mode", "system")],
                system,
            );
        }
        self.system.refresh_processes_specifics(
            ProcessesToUpdate::Some(&[self.pid]),
            false,
            ProcessRefreshKind::nothing().with_memory(),
        );
        let Some(process) = self.system.process(self.pid) else {
            return;
        };
        out.sample(
            "trellis_process_resident_memory_bytes",
            Kind::Gauge,
            "Resident memory of this process.",
            &[],
            process.memory() as f64,
        );
        let start = process.start_time();
        out.sample(
            "trellis_process_start_time_seconds",
            Kind::Gauge,
            "When this process started, in seconds since 1970.",
            &[],
            start as f64,
        );
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        out.sample(
            "trellis_process_uptime_seconds",
            Kind::Gauge,
            "How long this process has been running.",
            &[],
            (now - start as f64).max(0.0),
        );
    }

    /// Traffic in and out of the host, loopback left out: it never leaves the machine.
    fn write_network(&mut self, out: &mut Exposition) {
        self.networks.refresh(true);
        let (mut bytes_in, mut bytes_out, mut packets_in, mut packets_out) = (0, 0, 0, 0);
        for (name, data) in &self.networks {
            if name == "lo" {
                continue;
            }
            bytes_in += data.total_received();
            bytes_out += data.total_transmitted();
            packets_in += data.total_packets_received();
            packets_out += data.total_packets_transmitted();
        }
        let help = "Bytes through the host's network interfaces (not loopback), by direction.";
        let name = "trellis_host_network_bytes_total";
        out.sample(
            name,
            Kind::Counter,
            help,
            &[("direction", "in")],
            bytes_in as f64,
        );
        out.sample(
            name,
            Kind::Counter,
            help,
            &[("direction", "out")],
            bytes_out as f64,
        );
        let help = "Packets through the host's network interfaces (not loopback), by direction.";
        let name = "trellis_host_network_packets_total";
        out.sample(
            name,
            Kind::Counter,
            help,
            &[("direction", "in")],
            packets_in as f64,
        );
        out.sample(
            name,
            Kind::Counter,
            help,
            &[("direction", "out")],
            packets_out as f64,
        );
    }
}

/// Linux reports CPU time in `/proc` in USER_HZ ticks, fixed at 100 a second for the
/// `/proc` interface on every architecture Linux supports today.
const TICKS_PER_SECOND: f64 = 100.0;

/// User and system CPU seconds of this process, from `/proc/self/stat` (fields 14 and 15);
/// `None` where there is no such file.
fn cpu_seconds() -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse_cpu_seconds(&stat)
}

fn parse_cpu_seconds(stat: &str) -> Option<(f64, f64)> {
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11); // fields 3..=13
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some((
        user as f64 / TICKS_PER_SECOND,
        system as f64 / TICKS_PER_SECOND,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_times_are_read_after_a_command_name_with_spaces() {
        let stat = "4242 (trellis (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0";
        assert_eq!(parse_cpu_seconds(stat), Some((2.5, 0.75)));
    }

    #[test]
    fn this_process_reports_memory_and_cpu() {
        let mut out = Exposition::new("me");
        ProcessProbe::new().write(&mut out, ProcessKind::Router);
        let text = out.render();
        for name in [
            "trellis_process_info{process=\"me\",kind=\"router\"",
            "trellis_process_cpu_seconds_total{process=\"me\",mode=\"user\"}",
            "trellis_process_resident_memory_bytes{process=\"me\"}",
            "trellis_process_uptime_seconds{process=\"me\"}",
            "trellis_host_network_bytes_total{process=\"me\",direction=\"in\"}",
            "trellis_host_cpu_count{process=\"me\"}",
        ] {
            assert!(text.contains(name), "{name} missing from\n{text}");
        }
        let memory_line = text
            .lines()
            .find(|l| l.starts_with("trellis_process_resident_memory_bytes{"))
            .unwrap();
        let memory: f64 = memory_line.rsplit(' ').next().unwrap().parse().unwrap();
        assert!(memory > 1e6, "{memory_line}");
    }
}
