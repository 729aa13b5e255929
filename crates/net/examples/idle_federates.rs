//! What an idle federate costs: N federates joined to one federation through one router in
//! this process, each on a thread of its own that waits for callbacks (`evoke_callback` with
//! a one-second timeout) while nothing is sent. The process's CPU time over the window, less
//! that of the router alone over the same window, divided by N and the window, is the CPU an
//! idle federate costs (its node's heartbeats and timers, its thread's waits).
//!
//! `IDLE_FEDERATES=200 IDLE_SECONDS=10 IDLE_DRIVER=thread|direct cargo run --release -p
//! trellis-net --example idle_federates`

mod common;

use common::setting;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::fom::ObjectModel;
use trellis_core::router::RouterConfig;
use trellis_core::wire::NodeId;
use trellis_net::rti::{Driver, RtiAmbassador, RtiConfig};
use trellis_net::{Endpoint, HostConfig, NodeConfig, Runtime};

const DEMO: &str = include_str!("../../../foms/trellis-demo.xml");
const FEDERATION: &str = "Idle";

/// This process's CPU time so far (user + system), from /proc/self/stat.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let fields: Vec<&str> = stat[stat.rfind(')').expect("stat") + 2..]
        .split(' ')
        .collect();
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    Duration::from_millis(ticks * 10) // USER_HZ is 100 on Linux
}

fn cpu_over(window: Duration) -> Duration {
    let before = cpu_time();
    std::thread::sleep(window);
    cpu_time() - before
}

fn main() {
    let count = setting("IDLE_FEDERATES", 200) as usize;
    let window = Duration::from_secs(setting("IDLE_SECONDS", 10));
    let driver = match std::env::var("IDLE_DRIVER").as_deref() {
        Ok("direct") => Driver::Direct,
        _ => Driver::Thread,
    };
    let runtime = Runtime::start("idle-router").expect("runtime");
    let mut router = RouterConfig::new("router", NodeId(1));
    router.hosts_registry = true;
    let mut config = HostConfig::new(router);
    // Every federate connects from loopback; the per-address budget would cap N at 256.
    config.max_links_per_address = config.max_links;
    config
        .listen
        .push("tcp://127.0.0.1:0".parse().expect("address"));
    let at: Endpoint = runtime.add_host(config).expect("router").listening()[0].clone();
    let model = Arc::new(ObjectModel::from_sources(&[("trellis-demo.xml", DEMO)]).expect("model"));
    let router_alone = cpu_over(window);

    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for i in 0..count {
        let mut config = RtiConfig::new(NodeConfig::child_of(
            format!("idle-{i}"),
            FEDERATION,
            at.clone(),
        ));
        config.driver = driver;
        let mut rti = RtiAmbassador::connect(config).expect("connect");
        if i == 0 {
            rti.create_federation_execution(&model).expect("create");
        }
        let name = format!("idle-{i}");
        rti.join_federation_execution(&name, "idle", model.clone())
            .expect("join");
        let stop = stop.clone();
        threads.push(std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let _ = rti.evoke_callback(Duration::from_secs(1));
            }
            let _ = rti.resign_federation_execution(trellis_net::rti::ResignAction::NoAction);
        }));
    }
    // Let joins and their announcements settle before measuring.
    std::thread::sleep(Duration::from_secs(2));
    let started = Instant::now();
    let with_federates = cpu_over(window);
    let per_federate = with_federates.saturating_sub(router_alone).as_secs_f64()
        / count as f64
        / started.elapsed().as_secs_f64();
    println!(
        "{count} idle federates ({driver:?} driver) for {:.0} s: process CPU {:.2} s (router alone \
         {:.2} s); {:.3} ms of CPU per idle federate per second ({:.2} % of a core)",
        window.as_secs_f64(),
        with_federates.as_secs_f64(),
        router_alone.as_secs_f64(),
        per_federate * 1e3,
        per_federate * 100.0
    );
    stop.store(true, Ordering::Relaxed);
    for thread in threads {
        let _ = thread.join();
    }
}
