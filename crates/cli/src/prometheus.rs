//! The Prometheus scrape configuration `trellis plan` writes beside the launch scripts:
//! job `trellis`, every planned process with a `metrics` address scraped every second,
//! a `process` label per target.

use anyhow::{Context, Result};
use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use trellis_core::topology::Topology;

pub(crate) const FILE_NAME: &str = "prometheus.yml";

/// Write `DIR/prometheus.yml` for the processes of `topology` that serve metrics;
/// `host_of` names the host a process runs on (for an address bound to every interface).
/// Says what it wrote; writes nothing when no process has a metrics address.
pub(crate) fn write(
    topology: &Topology,
    source: &Path,
    host_of: impl Fn(&str) -> Option<String>,
    dir: &Path,
) -> Result<()> {
    let targets: Vec<(String, String)> = topology
        .routers()
        .filter_map(|r| Some((r.name.clone(), target(r.metrics?, host_of(&r.name)))))
        .collect();
    let mut stdout = std::io::stdout();
    if targets.is_empty() {
        let _ = writeln!(
            stdout,
            "no router has a metrics address: no {FILE_NAME} written"
        );
        return Ok(());
    }
    let path = dir.join(FILE_NAME);
    std::fs::write(&path, config(&source.display().to_string(), &targets))
        .with_context(|| format!("cannot write {}", path.display()))?;
    let _ = writeln!(
        stdout,
        "wrote {}: Prometheus scrapes {} processes every second",
        path.display(),
        targets.len()
    );
    Ok(())
}

/// What Prometheus dials: the address as written, or the process's host when it listens on
/// every interface (0.0.0.0 or ::).
fn target(address: SocketAddr, host: Option<String>) -> String {
    match host {
        Some(host) if address.ip().is_unspecified() => format!("{host}:{}", address.port()),
        _ => address.to_string(),
    }
}

/// YAML double-quoted strings are JSON strings.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}

fn config(source: &str, targets: &[(String, String)]) -> String {
    let mut text = format!(
        "# Prometheus scrape configuration for the processes of {}, written by `trellis plan`.\n\
         # Run: prometheus --config.file={FILE_NAME}\n\
         global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n\
         scrape_configs:\n  - job_name: trellis\n    scrape_interval: 1s\n    scrape_timeout: 1s\n\
         \x20   metrics_path: /metrics\n\
         \x20   # Every series carries process=\"NAME\" already: keep it, not exported_process.\n\
         \x20   honor_labels: true\n    static_configs:\n",
        source.replace('\n', " ")
    );
    for (process, target) in targets {
        text.push_str(&format!(
            "      - targets: [{}]\n        labels:\n          process: {}\n",
            quoted(target),
            quoted(process)
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wildcard_address_is_scraped_at_the_process_host() {
        let any: SocketAddr = "0.0.0.0:9100".parse().unwrap();
        let local: SocketAddr = "127.0.0.1:9100".parse().unwrap();
        assert_eq!(target(any, Some("node7".into())), "node7:9100");
        assert_eq!(target(local, Some("node7".into())), "127.0.0.1:9100");
    }

    #[test]
    fn every_target_has_its_process_label() {
        let text = config("t.toml", &[("hub".into(), "127.0.0.1:9100".into())]);
        assert!(text.contains("job_name: trellis"), "{text}");
        assert!(text.contains("scrape_interval: 1s"), "{text}");
        assert!(
            text.contains(
                "- targets: [\"127.0.0.1:9100\"]\n        labels:\n          process: \"hub\"\n"
            ),
            "{text}"
        );
    }
}
