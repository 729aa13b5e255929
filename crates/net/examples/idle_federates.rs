//! What an idle federate costs: N federates joined to one federation through one router in
//! this process, each on a thread of its own that waits for callbacks (`evoke_callback`,
//! by default with a one-second timeout, `IDLE_EVOKE_MS`) while nothing is sent. Over the
//! window, the CPU and wake-ups of each kind of thread (the router's, the federates' nodes',
//! the federates' own) are divided by N and the window: what an idle federate costs.
//!
//! `IDLE_HEARTBEAT_MS` sets the heartbeat interval of every link (both ends; default 1,000,
//! the product's): the cost at 1 s against the cost at 10 s says how much of it is
//! heartbeats and how much anything else.
//!
//! `IDLE_FEDERATES=200 IDLE_SECONDS=10 IDLE_DRIVER=thread|direct IDLE_HEARTBEAT_MS=1000 cargo
//! run --release -p trellis-net --example idle_federates`

mod common;

use common::setting;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use trellis_core::fom::ObjectModel;
use trellis_core::router::{LinkConfig, RouterConfig};
use trellis_core::wire::NodeId;
use trellis_net::rti::{Driver, RtiAmbassador, RtiConfig};
use trellis_net::{Endpoint, HostConfig, NodeConfig, Runtime};

const DEMO: &str = include_str!("../../../foms/trellis-demo.xml");
const FEDERATION: &str = "Idle";
/// The router runtime's thread is named `trellis-` and this; federates' nodes `trellis-idle-N`.
const ROUTER_THREAD: &str = "trellis-router";
/// The threads that wait in `evoke_callback` for each federate.
const APP_THREAD: &str = "app-";

/// What the scheduler has counted for one thread: its name (as the kernel keeps it, at
/// most 15 bytes), the nanoseconds it has run and how often it went to sleep by itself.
struct ThreadTimes {
    name: String,
    ran_ns: u64,
    sleeps: u64,
}

/// Every live thread of this process, from /proc/self/task/*/. The scheduler's
/// nanoseconds, not the tick-sampled utime and stime of /proc/self/stat, which charge a
/// whole 10 ms tick to whichever thread it lands on and so misjudge a thousand threads that
/// each wake for a few microseconds.
fn thread_times() -> std::collections::HashMap<String, ThreadTimes> {
    let tasks = std::fs::read_dir("/proc/self/task").expect("/proc/self/task");
    tasks
        .flatten()
        .filter_map(|task| {
            let read = |file: &str| std::fs::read_to_string(task.path().join(file)).ok();
            let ran_ns = read("schedstat")?.split(' ').next()?.parse().ok()?;
            let status = read("status")?;
            let sleeps = status
                .lines()
                .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))?
                .trim()
                .parse()
                .ok()?;
            let name = read("comm")?.trim().to_string();
            let times = ThreadTimes {
                name,
                ran_ns,
                sleeps,
            };
            Some((task.file_name().to_string_lossy().into_owned(), times))
        })
        .collect()
}

/// The kind of thread a name says: the router's, a federate's node, a federate's own.
fn kind_of(name: &str) -> &'static str {
    if name.starts_with(ROUTER_THREAD) {
        "router"
    } else if name.starts_with("trellis-") {
        "federate node"
    } else if name.starts_with(APP_THREAD) {
        "federate (evoke loop)"
    } else {
        "other"
    }
}

/// Per kind of thread over `window`: threads, CPU in total, and sleeps in total.
fn cost_over(window: Duration) -> std::collections::BTreeMap<&'static str, (u64, Duration, u64)> {
    let before = thread_times();
    std::thread::sleep(window);
    let mut kinds = std::collections::BTreeMap::new();
    for (task, after) in thread_times() {
        let Some(before) = before.get(&task) else {
            continue;
        };
        let kind: &mut (u64, Duration, u64) = kinds.entry(kind_of(&after.name)).or_default();
        kind.0 += 1;
        kind.1 += Duration::from_nanos(after.ran_ns - before.ran_ns);
        kind.2 += after.sleeps - before.sleeps;
    }
    kinds
}

/// The product's link settings with heartbeats every `interval`, and the silence after which
/// a link is dropped kept at the product's ten intervals.
fn heartbeats_every(interval: Duration) -> LinkConfig {
    LinkConfig {
        heartbeat_interval: interval,
        heartbeat_timeout: interval * 10,
        ..LinkConfig::default()
    }
}

fn main() {
    let count = setting("IDLE_FEDERATES", 200) as usize;
    let window = Duration::from_secs(setting("IDLE_SECONDS", 10));
    let driver = match std::env::var("IDLE_DRIVER").as_deref() {
        Ok("direct") => Driver::Direct,
        _ => Driver::Thread,
    };
    let evoke_timeout = Duration::from_millis(setting("IDLE_EVOKE_MS", 1000));
    let link = heartbeats_every(Duration::from_millis(setting("IDLE_HEARTBEAT_MS", 1000)));
    let runtime = Runtime::start("router").expect("runtime");
    let mut router = RouterConfig::new("router", NodeId(1));
    router.hosts_registry = true;
    router.link_defaults = link.clone();
    let mut config = HostConfig::new(router);
    // Every federate connects from loopback; the per-address budget would cap N at 256.
    config.max_links_per_address = config.max_links;
    config
        .listen
        .push("tcp://127.0.0.1:0".parse().expect("address"));
    let at: Endpoint = runtime.add_host(config).expect("router").listening()[0].clone();
    let model = Arc::new(ObjectModel::from_sources(&[("trellis-demo.xml", DEMO)]).expect("model"));

    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for i in 0..count {
        let mut config = RtiConfig::new(NodeConfig::child_of(
            format!("idle-{i}"),
            FEDERATION,
            at.clone(),
        ));
        config.driver = driver;
        config.node.link = link.clone();
        let mut rti = RtiAmbassador::connect(config).expect("connect");
        if i == 0 {
            rti.create_federation_execution(&model).expect("create");
        }
        let name = format!("idle-{i}");
        rti.join_federation_execution(&name, "idle", model.clone())
            .expect("join");
        let stop = stop.clone();
        let app = std::thread::Builder::new().name(format!("{APP_THREAD}{i}"));
        let thread = app.spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let _ = rti.evoke_callback(evoke_timeout);
            }
            let _ = rti.resign_federation_execution(trellis_net::rti::ResignAction::NoAction);
        });
        threads.push(thread.expect("spawn"));
    }
    // Let joins and their announcements settle before measuring.
    std::thread::sleep(Duration::from_secs(2));
    let kinds = cost_over(window);
    println!(
        "{count} idle federates ({driver:?} driver, heartbeats every {:?}, evoke_callback \
         waiting {evoke_timeout:?}) for {window:?}, per federate and second:",
        link.heartbeat_interval,
    );
    let per_federate_second =
        |cpu: Duration| cpu.as_secs_f64() / count as f64 / window.as_secs_f64();
    let mut total = 0.0;
    for (kind, (threads, cpu, sleeps)) in &kinds {
        let cpu = per_federate_second(*cpu);
        total += cpu;
        println!(
            "  {kind:<22} {threads:>5} threads  {:>7.1} µs CPU  {:>5.2} wake-ups",
            cpu * 1e6,
            *sleeps as f64 / count as f64 / window.as_secs_f64()
        );
    }
    println!(
        "  all                                  {:>7.1} µs CPU ({:.3} % of a core)",
        total * 1e6,
        total * 100.0
    );
    stop.store(true, Ordering::Relaxed);
    for thread in threads {
        let _ = thread.join();
    }
}
