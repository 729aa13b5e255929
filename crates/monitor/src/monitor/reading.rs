//! One scrape of one process, read out of its exposition: the counters and gauges of the
//! metrics contract the page draws (CPU, memory, per link and per federate figures).
//! Counters stay raw here; [`super::rates`] turns two readings into per-second rates.

use super::prom::{Exposition, Sample};
use std::collections::BTreeMap;

/// One link of the process as its series describe it (grouped by the `link` label).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkReading {
    /// The peer's node name ("" while in handshake).
    pub peer: String,
    pub messages_in: f64,
    pub messages_out: f64,
    /// Frames queued toward the peer, reliable and best effort together.
    pub queue: f64,
    /// `trellis_link_up`; a link without the series counts as up while it is listed.
    pub up: bool,
}

/// One federate inside the process (grouped by the `federate` label).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FederateReading {
    pub owned: f64,
    pub known: f64,
    pub updates: f64,
    pub reflects: f64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    /// `process` label of `trellis_process_info`, if served.
    pub process: Option<String>,
    pub cpu_user_seconds: Option<f64>,
    pub cpu_system_seconds: Option<f64>,
    pub host_cpus: Option<f64>,
    pub memory_bytes: Option<f64>,
    /// The host's network interfaces (not the process's), bytes in and out.
    pub network_in_bytes: Option<f64>,
    pub network_out_bytes: Option<f64>,
    /// By local link id.
    pub links: BTreeMap<String, LinkReading>,
    /// By federate name.
    pub federates: BTreeMap<String, FederateReading>,
}

impl Reading {
    pub fn from_exposition(exposition: &Exposition) -> Reading {
        let mut reading = Reading::default();
        for sample in &exposition.samples {
            reading.take(sample);
        }
        reading
    }

    fn take(&mut self, sample: &Sample) {
        let value = sample.value;
        match sample.name.as_str() {
            "trellis_process_info" => self.process = sample.label("process").map(str::to_owned),
            "trellis_process_cpu_seconds_total" => match sample.label("mode") {
                Some("user") => self.cpu_user_seconds = Some(value),
                Some("system") => self.cpu_system_seconds = Some(value),
                _ => {}
            },
            "trellis_host_cpu_count" => self.host_cpus = Some(value),
            "trellis_process_resident_memory_bytes" => self.memory_bytes = Some(value),
            "trellis_host_network_bytes_total" => match sample.label("direction") {
                Some("in") => self.network_in_bytes = Some(value),
                Some("out") => self.network_out_bytes = Some(value),
                _ => {}
            },
            name if name.starts_with("trellis_link_") => self.take_link(sample),
            name if name.starts_with("trellis_federate_") => self.take_federate(sample),
            _ => {}
        }
    }

    fn take_link(&mut self, sample: &Sample) {
        let Some(id) = sample.label("link") else {
            return;
        };
        let link = self
            .links
            .entry(id.to_owned())
            .or_insert_with(|| LinkReading {
                up: true,
                ..LinkReading::default()
            });
        if let Some(peer) = sample.label("peer") {
            if !peer.is_empty() {
                link.peer = peer.to_owned();
            }
        }
        let value = sample.value;
        match (sample.name.as_str(), sample.label("direction")) {
            ("trellis_link_messages_total", Some("in")) => link.messages_in = value,
            ("trellis_link_messages_total", Some("out")) => link.messages_out = value,
            ("trellis_link_queue_depth", _) if value.is_finite() => link.queue += value,
            ("trellis_link_up", _) => link.up = value > 0.0,
            _ => {}
        }
    }

    fn take_federate(&mut self, sample: &Sample) {
        let Some(name) = sample.label("federate") else {
            return;
        };
        let federate = self.federates.entry(name.to_owned()).or_default();
        let value = sample.value;
        match (sample.name.as_str(), sample.label("kind")) {
            ("trellis_federate_objects", Some("owned")) => federate.owned = value,
            ("trellis_federate_objects", Some("known")) => federate.known = value,
            ("trellis_federate_updates_total", _) => federate.updates = value,
            ("trellis_federate_reflects_total", _) => federate.reflects = value,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::prom::parse;

    const TEXT: &str = r#"
trellis_process_info{process="r1",kind="router",version="0.1.0"} 1
trellis_process_cpu_seconds_total{process="r1",mode="user"} 1.5
trellis_process_cpu_seconds_total{process="r1",mode="system"} 0.5
trellis_process_resident_memory_bytes{process="r1"} 2048
trellis_host_cpu_count{process="r1"} 4
trellis_host_network_bytes_total{process="r1",direction="in"} 100
trellis_host_network_bytes_total{process="r1",direction="out"} 200
trellis_link_messages_total{process="r1",link="3",peer="f1",role="federate",federation="X",direction="in"} 10
trellis_link_messages_total{process="r1",link="3",peer="f1",role="federate",federation="X",direction="out"} 20
trellis_link_queue_depth{process="r1",link="3",peer="f1",role="federate",federation="X",class="reliable"} 2
trellis_link_queue_depth{process="r1",link="3",peer="f1",role="federate",federation="X",class="best_effort"} 1
trellis_link_up{process="r1",link="3",peer="f1",role="federate",federation="X"} 1
trellis_link_up{process="r1",link="4",peer="",role="child",federation=""} 0
trellis_federate_objects{process="p",federate="f1",federation="X",kind="owned"} 7
trellis_federate_updates_total{process="p",federate="f1",federation="X"} 70
"#;

    #[test]
    fn reads_process_link_and_federate_figures() {
        let reading = Reading::from_exposition(&parse(TEXT));
        assert_eq!(reading.process.as_deref(), Some("r1"));
        assert_eq!(reading.cpu_user_seconds, Some(1.5));
        assert_eq!(reading.cpu_system_seconds, Some(0.5));
        assert_eq!(reading.host_cpus, Some(4.0));
        assert_eq!(reading.memory_bytes, Some(2048.0));
        assert_eq!(reading.network_in_bytes, Some(100.0));
        assert_eq!(reading.network_out_bytes, Some(200.0));
        let link = &reading.links["3"];
        assert_eq!(link.peer, "f1");
        assert_eq!((link.messages_in, link.messages_out), (10.0, 20.0));
        assert_eq!(link.queue, 3.0);
        assert!(link.up);
        assert!(!reading.links["4"].up);
        assert_eq!(reading.links["4"].peer, "");
        assert_eq!(reading.federates["f1"].owned, 7.0);
        assert_eq!(reading.federates["f1"].updates, 70.0);
    }
}
