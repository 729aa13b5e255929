//! The RTI-NG study's folder, written by `wan::write_study` and read by the report.

use super::folder;
use crate::report::load::{load_all, Summary};
use crate::results::rting::{LinkModel, RtingCase, RtingSummary, RTING_BENCHMARK};
use crate::wan::{write_study, StudyMeta};

#[test]
fn an_rting_study_reads_back_as_written() {
    let written = RtingSummary {
        link: LinkModel {
            delay_ms: 10.0,
            bandwidth_mbit: Some(100.0),
        },
        payload: 100,
        updates: 5000,
        latency_updates: 50,
        cases: vec![RtingCase {
            topology: "hierarchical".into(),
            routers: "one per site".into(),
            bundling: "5ms".into(),
            receivers: 4,
            site_link_bytes: 123_456,
            bytes_per_update: 24.7,
            receiver_rate_mean: 900.0,
            receiver_rate_min: 850.0,
            received: 5000,
            latency_mean_us: Some(10_400.0),
            latency_max_us: None,
        }],
    };
    let meta = StudyMeta {
        benchmark: RTING_BENCHMARK.into(),
        command: "scripts/wan-results".into(),
        version: "0.1.0".into(),
        started_unix: 1,
        finished_unix: 2,
        complete: true,
    };
    let dir = folder("rting");
    write_study(&dir, &meta, &written).unwrap();
    let loaded = load_all(std::slice::from_ref(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
    let run = loaded.unwrap().remove(0);
    assert_eq!(run.meta.benchmark, RTING_BENCHMARK);
    assert_eq!(
        (run.meta.complete, run.meta.started_unix),
        (Some(true), Some(1))
    );
    let Summary::WanRting(read) = run.summary else {
        panic!("not an RTI-NG summary");
    };
    assert_eq!(read.link, written.link);
    assert_eq!(
        (read.payload, read.updates, read.latency_updates),
        (100, 5000, 50)
    );
    let (c, w) = (&read.cases[0], &written.cases[0]);
    assert_eq!(
        (c.topology.as_str(), c.routers.as_str(), c.bundling.as_str()),
        ("hierarchical", "one per site", "5ms")
    );
    assert_eq!(
        (c.receivers, c.site_link_bytes, c.received),
        (w.receivers, w.site_link_bytes, w.received)
    );
    assert_eq!(
        (
            c.bytes_per_update,
            c.receiver_rate_mean,
            c.receiver_rate_min
        ),
        (24.7, 900.0, 850.0)
    );
    assert_eq!(
        (c.latency_mean_us, c.latency_max_us),
        (Some(10_400.0), None)
    );
}
