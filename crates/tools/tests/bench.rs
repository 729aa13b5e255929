//! Short runs of the benchmarks (seconds each): their output must be sane and measured,
//! not canned.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;
use trellis_core::topology::{generate, GenerateOptions, Shape};
use trellis_net::rti::Driver;
use trellis_tools::bench::mom_watcher::MomLoad;
use trellis_tools::bench::results::{Meta, Results};
use trellis_tools::bench::{
    latency, pingpong, symmetric, throughput, Api, Mode, Raw, Setup, Transport,
};

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!("trellis-bench-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Dir(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn results(dir: &Dir, benchmark: &str, setup: &Setup) -> Results {
    Results::create(
        Some(&dir.0),
        Meta::new(benchmark, "test", setup, Mode::Trellis),
    )
    .unwrap()
}

/// A tree topology file on free ports: 2 levels, 2 leaves, 4 federates each.
fn tree(dir: &Dir) -> PathBuf {
    let base = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let options = GenerateOptions {
        base_port: base,
        ..GenerateOptions::default()
    };
    let topology = generate(
        &Shape::Tree {
            fanout: 2,
            levels: 2,
            federates: 4,
        },
        &options,
    )
    .unwrap();
    std::fs::create_dir_all(&dir.0).unwrap();
    let file = dir.0.join("tree.toml");
    std::fs::write(&file, topology.to_toml().unwrap()).unwrap();
    file
}

#[test]
fn pingpong_pairs_on_a_tree_discard_exactly_the_two_largest_means() {
    let dir = Dir::new("pingpong");
    let setup = Setup {
        topology: Some(tree(&dir)),
        ..Setup::default()
    };
    let out = Dir::new("pingpong-out");
    let mut results = results(&out, "pingpong", &setup);
    let options = pingpong::PingpongOptions {
        setup: setup.clone(),
        raw: None,
        relayed: false,
        raw_via: None,
        pairs: 4,
        placement: Vec::new(),
        sizes: vec![64, 2048],
        exchanges: 10,
    };
    let summary = pingpong::run(&options, &results).unwrap();
    results.finish(true).unwrap();
    assert_eq!(summary.pairs.len(), 4);
    let links: Vec<usize> = summary.pairs.iter().map(|p| p.links).collect();
    assert!(
        links.contains(&2) && links.contains(&4),
        "pairs cover both hop counts: {links:?}"
    );
    assert_eq!(summary.sizes.len(), 2);
    for size in &summary.sizes {
        assert_eq!(size.pair_means_us.len(), 4);
        assert_eq!(
            size.discarded_us.len(),
            2,
            "exactly two pair means discarded"
        );
        let mut sorted = size.pair_means_us.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        assert_eq!(size.discarded_us, sorted[2..].to_vec(), "the two largest");
        let kept = (sorted[0] + sorted[1]) / 2.0;
        assert!((size.mean_us - kept).abs() < 1e-6, "mean of the rest");
        assert!(size.pair_means_us.iter().all(|m| m.is_finite() && *m > 0.0));
        assert_eq!(size.lost, 0);
    }
    assert_eq!(summary.count, 4 * 2 * 10);
    assert!(summary.rtt_p50_us > 0.0 && summary.rtt_p50_us <= summary.rtt_p99_us);
    for file in ["meta.json", "summary.json", "pingpong.csv"] {
        assert!(out.0.join(file).exists(), "{file} written");
    }
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.0.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["complete"], true);
    assert_eq!(meta["topology"]["summary"]["routers"], 3);
}

#[test]
fn raw_baselines_answer_every_ping_directly_and_through_a_forwarder() {
    for (raw, relayed) in [
        (Raw::Tcp, false),
        (Raw::Udp, false),
        (Raw::Tcp, true),
        (Raw::Udp, true),
    ] {
        let case = format!("{raw:?}, relayed {relayed}");
        let out = Dir::new(&format!("raw-{raw:?}-{relayed}"));
        let setup = Setup::default();
        let results = results(&out, "pingpong", &setup);
        let options = pingpong::PingpongOptions {
            setup,
            raw: Some(raw),
            relayed,
            raw_via: None,
            pairs: 3,
            placement: Vec::new(),
            sizes: vec![64, 1000],
            exchanges: 20,
        };
        let summary = pingpong::run(&options, &results).unwrap();
        assert_eq!(summary.count + summary.lost, 3 * 2 * 20, "{case}");
        // TCP loses nothing, through a forwarder or not.
        if raw == Raw::Tcp {
            assert_eq!(summary.lost, 0, "{case}");
        }
        assert!(summary.count > 0, "{case}");
        let links = if relayed { 2 } else { 0 };
        assert!(summary.pairs.iter().all(|p| p.links == links), "{case}");
    }
}

#[test]
fn throughput_receivers_get_everything_sent_reliably() {
    // Federates on threads of their own, federates driven by their callers with publishes
    // bundled (the tail of the run is written when the sender next ticks), and nodes.
    let bundled = Duration::from_micros(50);
    for (api, driver, bundle_hold, mom) in [
        (Api::Federate, Driver::Thread, Duration::ZERO, MomLoad::Idle),
        (Api::Federate, Driver::Direct, bundled, MomLoad::Watched),
        (Api::Federate, Driver::Thread, Duration::ZERO, MomLoad::Off),
        (Api::Node, Driver::Thread, Duration::ZERO, MomLoad::Idle),
    ] {
        let out = Dir::new(&format!("throughput-{api:?}-{driver:?}-{mom:?}"));
        let setup = Setup {
            api,
            bundle_hold,
            ..Setup::default()
        };
        let results = results(&out, "throughput", &setup);
        let options = throughput::ThroughputOptions {
            setup,
            raw: None,
            raw_via: None,
            size: 128,
            seconds: 0.3,
            subscribers: vec![1, 2],
            driver,
            mom,
        };
        let summary = throughput::run(&options, &results).unwrap();
        // Watched: the MOM watcher got reports (a run it did not watch is a fault).
        assert_eq!(results.faults(), None, "{api:?} {mom:?}");
        assert_eq!(summary.cases.len(), 2);
        for case in &summary.cases {
            assert!(case.sent > 0);
            assert_eq!(
                case.received,
                case.sent * case.subscribers as u64,
                "{api:?}"
            );
            assert_eq!(case.lost, 0);
            assert!(
                case.msgs_per_sec > 0.0
                    && case.per_subscriber_msgs_per_sec.len() == case.subscribers
            );
        }
        assert_eq!(
            summary.msgs_per_sec, summary.cases[0].msgs_per_sec,
            "top-level fields are the first case"
        );
    }
}

#[test]
fn raw_tcp_throughput_counts_every_frame() {
    let out = Dir::new("raw-throughput");
    let setup = Setup::default();
    let results = results(&out, "throughput", &setup);
    let options = throughput::ThroughputOptions {
        setup,
        raw: Some(Raw::Tcp),
        raw_via: None,
        size: 64,
        seconds: 0.2,
        subscribers: vec![2],
        driver: Driver::Thread,
        mom: MomLoad::Idle,
    };
    let summary = throughput::run(&options, &results).unwrap();
    assert_eq!(summary.received, summary.sent * 2);
}

#[test]
fn symmetric_federates_hear_every_other_one() {
    let out = Dir::new("symmetric");
    let setup = Setup::default();
    let results = results(&out, "symmetric", &setup);
    let options = symmetric::SymmetricOptions {
        setup,
        size: 64,
        seconds: 0.3,
        federates: vec![2, 3],
    };
    let summary = symmetric::run(&options, &results).unwrap();
    for case in &summary.cases {
        assert!(case.sent > 0);
        assert_eq!(case.received, case.sent * (case.federates as u64 - 1));
        assert_eq!(case.lost, 0);
    }
}

#[test]
fn latency_counts_one_answer_per_exchange() {
    let out = Dir::new("latency");
    let setup = Setup {
        transport: Transport::Reliable,
        ..Setup::default()
    };
    let results = results(&out, "latency", &setup);
    let options = latency::LatencyOptions {
        setup,
        size: 64,
        receivers: vec![1, 3],
        exchanges: 30,
    };
    let summary = latency::run(&options, &results).unwrap();
    for case in &summary.cases {
        assert_eq!(case.count, 30);
        assert_eq!(case.lost, 0);
        assert!(case.mean_us > 0.0 && case.std_us.is_finite());
    }
}

#[test]
fn an_interrupted_run_keeps_what_finished_and_says_so() {
    let out = Dir::new("interrupted");
    let setup = Setup::default();
    setup.stop.store(true, Ordering::SeqCst);
    let mut results = results(&out, "throughput", &setup);
    let options = throughput::ThroughputOptions {
        setup,
        raw: None,
        raw_via: None,
        size: 64,
        seconds: 0.2,
        subscribers: vec![1, 2],
        driver: Driver::Thread,
        mom: MomLoad::Idle,
    };
    let summary = throughput::run(&options, &results).unwrap();
    results.finish(false).unwrap();
    assert!(summary.cases.is_empty(), "stopped before the first case");
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.0.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["complete"], false);
}
