//! Building a lab from its spec, placing commands and threads in its sites, tearing it down.

use crate::relay::{site_octet, Relay, RelayStats, TUN_NAME};
use crate::{clean, ip, netns, LabError, LabSpec};
use std::ffi::OsStr;
use std::net::Ipv4Addr;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// Every lab namespace is named `tlab-PID-N-RAND-SITE` (or `…-wan`).
pub const NAMESPACE_PREFIX: &str = "tlab-";
/// The routing table in the `wan` namespace that sends site traffic into the relay.
const RELAY_TABLE: &str = "100";
/// Name of each site's veth inside the site.
const SITE_VETH: &str = "wan";

static LABS_MADE: AtomicU32 = AtomicU32::new(0);

/// A running lab. Dropping it removes everything it made.
pub struct Lab {
    spec: LabSpec,
    run: String,
    /// Namespaces made so far, so a half-built lab is removed too.
    made: Vec<String>,
    relay: Option<Relay>,
}

impl Lab {
    /// Make the sites, the `wan` namespace, the veths, the relay and the rate limits.
    pub fn build(spec: LabSpec) -> Result<Lab, LabError> {
        if !crate::is_root() {
            return Err(LabError::NotRoot);
        }
        let run = format!(
            "{NAMESPACE_PREFIX}{}-{}-{:04x}",
            std::process::id(),
            LABS_MADE.fetch_add(1, Ordering::Relaxed),
            fastrand::u16(..)
        );
        let mut lab = Lab {
            spec,
            run,
            made: Vec::new(),
            relay: None,
        };
        lab.make_namespaces()?;
        lab.make_site_veths()?;
        lab.start_relay()?;
        lab.limit_bandwidth()?;
        Ok(lab)
    }

    pub fn spec(&self) -> &LabSpec {
        &self.spec
    }

    /// The run's namespace prefix, `tlab-PID-N-RAND`.
    pub fn run_name(&self) -> &str {
        &self.run
    }

    pub fn wan_namespace(&self) -> String {
        format!("{}-wan", self.run)
    }

    pub fn namespace(&self, site: usize) -> String {
        format!("{}-{}", self.run, self.spec.sites[site])
    }

    /// Every namespace of the lab, the sites then `wan`.
    pub fn namespaces(&self) -> Vec<String> {
        let mut all: Vec<String> = (0..self.spec.sites.len())
            .map(|s| self.namespace(s))
            .collect();
        all.push(self.wan_namespace());
        all
    }

    /// The address of a site's host, on its veth toward the WAN.
    pub fn site_address(&self, site: usize) -> Ipv4Addr {
        Ipv4Addr::new(10, 200, site_octet(site), 2)
    }

    /// The name of a site's veth in the `wan` namespace (count bytes across its link there).
    pub fn wan_veth(&self, site: usize) -> String {
        format!("to-{}", self.spec.sites[site])
    }

    /// Bytes the `wan` namespace has sent down the veth toward `site`: what crossed the site
    /// links into it (count before and after to measure a run).
    pub fn bytes_toward(&self, site: usize) -> Result<u64, LabError> {
        let veth = self.wan_veth(site);
        let counter = netns::spawn_in(&self.wan_namespace(), "lab-counter", move || {
            // thread-self: this thread's network namespace, not the process's.
            let table = std::fs::read_to_string("/proc/thread-self/net/dev")
                .map_err(LabError::io("reading /proc/thread-self/net/dev"))?;
            transmitted_bytes(&table, &veth).ok_or_else(|| LabError::Io {
                what: format!("no counters for {veth} in /proc/net/dev"),
                source: std::io::ErrorKind::NotFound.into(),
            })
        })?;
        counter.join().unwrap_or_else(|_| {
            Err(LabError::Io {
                what: "the byte counter thread panicked".into(),
                source: std::io::ErrorKind::Other.into(),
            })
        })
    }

    /// `program` to be run in `site` (`ip netns exec`); `TRELLIS_LAB_SITES` tells it every
    /// site's address as `name=ip,…`.
    pub fn command(&self, site: usize, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new("ip");
        command
            .args(["netns", "exec", &self.namespace(site)])
            .arg(program)
            .env("TRELLIS_LAB_SITES", self.sites_variable());
        command
    }

    fn sites_variable(&self) -> String {
        let pairs: Vec<String> = (0..self.spec.sites.len())
            .map(|s| format!("{}={}", self.spec.sites[s], self.site_address(s)))
            .collect();
        pairs.join(",")
    }

    /// Run `work` on a thread inside `site`.
    pub fn spawn_in_site<T: Send + 'static>(
        &self,
        site: usize,
        work: impl FnOnce() -> Result<T, LabError> + Send + 'static,
    ) -> Result<std::thread::JoinHandle<Result<T, LabError>>, LabError> {
        netns::spawn_in(&self.namespace(site), "lab-site", work)
    }

    /// Tear down now, returning the relay's counts and the first failure.
    pub fn stop(mut self) -> Result<RelayStats, LabError> {
        self.teardown()
    }

    fn teardown(&mut self) -> Result<RelayStats, LabError> {
        let stats = match self.relay.take() {
            Some(relay) => relay.stop(),
            None => Ok(RelayStats::default()),
        };
        let made = std::mem::take(&mut self.made);
        clean::remove_namespaces(&made)?;
        stats
    }

    fn add_namespace(&mut self, name: String) -> Result<(), LabError> {
        ip::run("ip", &["netns", "add", &name])?;
        self.made.push(name.clone());
        ip::ip_in(&name, &["link", "set", "lo", "up"]).map(drop)
    }

    fn make_namespaces(&mut self) -> Result<(), LabError> {
        let wan = self.wan_namespace();
        self.add_namespace(wan.clone())?;
        // The wan namespace routes between sites; packets come back from the relay's TUN
        // with a source the main table reaches by a veth, which strict rp_filter drops.
        for setting in [
            "net.ipv4.ip_forward=1",
            "net.ipv4.conf.all.rp_filter=0",
            "net.ipv4.conf.default.rp_filter=0",
        ] {
            ip::sysctl_in(&wan, setting)?;
        }
        for site in 0..self.spec.sites.len() {
            let namespace = self.namespace(site);
            self.add_namespace(namespace.clone())?;
            // A datagram that lost a fragment on an overloaded link holds reassembly memory
            // for ipfrag_time (30 s by default). Benchmark cases run back to back, so after
            // an overloaded case with large datagrams the memory stayed full and every
            // fragmented datagram of the next cases was dropped. A second is still far
            // longer than any fragment train takes to cross a site link.
            ip::sysctl_in(&namespace, "net.ipv4.ipfrag_time=1")?;
        }
        Ok(())
    }

    fn make_site_veths(&self) -> Result<(), LabError> {
        let wan = self.wan_namespace();
        for site in 0..self.spec.sites.len() {
            let (site_ns, wan_veth) = (self.namespace(site), self.wan_veth(site));
            let octet = site_octet(site);
            ip::ip_in(
                &wan,
                &[
                    "link", "add", &wan_veth, "type", "veth", "peer", "name", SITE_VETH, "netns",
                    &site_ns,
                ],
            )?;
            let wan_side = format!("10.200.{octet}.1");
            ip::ip_in(
                &wan,
                &["addr", "add", &format!("{wan_side}/24"), "dev", &wan_veth],
            )?;
            ip::ip_in(&wan, &["link", "set", &wan_veth, "up"])?;
            let site_side = format!("{}/24", self.site_address(site));
            ip::ip_in(&site_ns, &["addr", "add", &site_side, "dev", SITE_VETH])?;
            ip::ip_in(&site_ns, &["link", "set", SITE_VETH, "up"])?;
            ip::ip_in(&site_ns, &["route", "add", "default", "via", &wan_side])?;
        }
        Ok(())
    }

    /// Traffic arriving from any site veth is routed into the relay's TUN; what the relay
    /// writes back arrives on the TUN and is routed by the main table to the destination veth.
    fn start_relay(&mut self) -> Result<(), LabError> {
        let wan = self.wan_namespace();
        self.relay = Some(Relay::start(&wan, &self.spec)?);
        ip::ip_in(&wan, &["link", "set", TUN_NAME, "up"])?;
        ip::ip_in(
            &wan,
            &[
                "route",
                "add",
                "default",
                "dev",
                TUN_NAME,
                "table",
                RELAY_TABLE,
            ],
        )?;
        for site in 0..self.spec.sites.len() {
            ip::ip_in(
                &wan,
                &[
                    "rule",
                    "add",
                    "iif",
                    &self.wan_veth(site),
                    "lookup",
                    RELAY_TABLE,
                    "priority",
                    "100",
                ],
            )?;
        }
        Ok(())
    }

    /// Each link's rate, each way, as a tbf on the veth toward the receiving site, under an
    /// HTB class that picks the sending site by its source subnet.
    fn limit_bandwidth(&self) -> Result<(), LabError> {
        let wan = self.wan_namespace();
        let mut rooted = std::collections::HashSet::new();
        for link in &self.spec.links {
            let Some(bps) = link.bandwidth_bps else {
                continue;
            };
            let (a, b) = link.sites;
            for (from, to) in [(a, b), (b, a)] {
                let veth = self.wan_veth(to);
                if rooted.insert(to) {
                    ip::tc_in(
                        &wan,
                        &["qdisc", "add", "dev", &veth, "root", "handle", "1:", "htb"],
                    )?;
                }
                shape(&wan, &veth, site_octet(from), bps)?;
            }
        }
        Ok(())
    }
}

/// On `veth`, packets from site `octet` go through a tbf of `bps`.
fn shape(namespace: &str, veth: &str, octet: u8, bps: u64) -> Result<(), LabError> {
    let class = format!("1:{octet:x}");
    let rate = format!("{bps}bit");
    let bytes_per_second = bps / 8;
    // 10 ms of tokens at once (at least a few full packets), 100 ms of queue behind them.
    let burst = (bytes_per_second / 100).max(16_384).to_string();
    let limit = (bytes_per_second / 10).max(65_536).to_string();
    let tc = |args: &[&str]| ip::tc_in(namespace, args).map(drop);
    tc(&[
        "class", "add", "dev", veth, "parent", "1:", "classid", &class, "htb", "rate", &rate,
        "ceil", &rate,
    ])?;
    let leaf = format!("{:x}:", 0x100 + u32::from(octet));
    tc(&[
        "qdisc", "add", "dev", veth, "parent", &class, "handle", &leaf, "tbf", "rate", &rate,
        "burst", &burst, "limit", &limit,
    ])?;
    let source = format!("10.200.{octet}.0/24");
    tc(&[
        "filter", "add", "dev", veth, "parent", "1:", "protocol", "ip", "prio", "1", "u32",
        "match", "ip", "src", &source, "flowid", &class,
    ])
}

/// The transmitted bytes of `interface` in a /proc/net/dev table, whose lines read
/// `NAME: rx-bytes packets errs drop fifo frame compressed multicast tx-bytes …`.
fn transmitted_bytes(table: &str, interface: &str) -> Option<u64> {
    table.lines().find_map(|line| {
        let (name, counters) = line.split_once(':')?;
        (name.trim() == interface).then_some(())?;
        counters.split_whitespace().nth(8)?.parse().ok()
    })
}

impl Drop for Lab {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            tracing::warn!("removing lab {}: {e}", self.run);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn transmitted_bytes_are_the_ninth_counter() {
        let table = "Inter-|   Receive  |  Transmit\n face |bytes packets|bytes\n    lo: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\nto-east: 1500 10 0 0 0 0 0 0 98765 70 0 0 0 0 0 0\n";
        assert_eq!(super::transmitted_bytes(table, "to-east"), Some(98765));
        assert_eq!(super::transmitted_bytes(table, "to-west"), None);
    }
}
