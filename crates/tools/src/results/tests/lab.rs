//! `lab.json`, written as `trellis lab --bench` writes it and read by the report's loader.

use super::folder;
use crate::report::load::load_all;
use crate::results::lab::{LabLink, LabRecord};

fn record() -> LabRecord {
    LabRecord {
        federate_site: "west".into(),
        lab_file: Some("labs/two-sites.toml".into()),
        links: vec![LabLink {
            bandwidth_mbit: None,
            delay_ms: 20.0,
            loss_percent: 0.5,
            sites: vec!["west".into(), "east".into()],
        }],
        placement: [("r1".to_owned(), "east".to_owned())].into(),
        raw_via: None,
        router_site: "east".into(),
        site_link_bytes_in: [("east".to_owned(), 1200), ("west".to_owned(), 900)].into(),
        topology_file: None,
    }
}

/// What the lab wrote before the record had a type: a `serde_json` map, so keys in
/// alphabetical order, absent files as null and no `raw_via` unless there was one.
const AS_FIRST_WRITTEN: &str = r#"{
  "federate_site": "west",
  "lab_file": "labs/two-sites.toml",
  "links": [
    {
      "bandwidth_mbit": null,
      "delay_ms": 20.0,
      "loss_percent": 0.5,
      "sites": [
        "west",
        "east"
      ]
    }
  ],
  "placement": {
    "r1": "east"
  },
  "router_site": "east",
  "site_link_bytes_in": {
    "east": 1200,
    "west": 900
  },
  "topology_file": null
}"#;

#[test]
fn a_lab_record_is_written_as_before_and_read_back_by_the_report() {
    let written = record();
    let text = serde_json::to_string_pretty(&written).expect("a record encodes");
    assert_eq!(text, AS_FIRST_WRITTEN);
    let dir = folder("lab");
    super::write(&dir, r#"{"benchmark": "matrix"}"#, r#"{"cases": []}"#);
    std::fs::write(dir.join("lab.json"), text + "\n").unwrap();
    let loaded = load_all(std::slice::from_ref(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
    let run = loaded.unwrap().remove(0);
    assert_eq!(run.lab, Some(written));
}

#[test]
fn a_raw_baseline_says_its_forwarder() {
    let mut written = record();
    written.raw_via = Some("10.1.0.2:7100".into());
    let text = serde_json::to_string(&written).expect("a record encodes");
    assert!(text.contains(r#""raw_via":"10.1.0.2:7100""#), "{text}");
    let read: LabRecord = serde_json::from_str(&text).expect("the record decodes");
    assert_eq!(read, written);
}

/// The report's WAN tests write only the links' delay, rate and loss.
#[test]
fn a_hand_written_lab_record_loads() {
    let read: LabRecord = serde_json::from_str(r#"{"links": [{"delay_ms": 2.0}]}"#)
        .expect("a hand-written record decodes");
    let link = &read.links[0];
    assert_eq!(
        (link.delay_ms, link.bandwidth_mbit, link.loss_percent),
        (2.0, None, 0.0)
    );
    assert!(read.federate_site.is_empty() && read.placement.is_empty());
}
