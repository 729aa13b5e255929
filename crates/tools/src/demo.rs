//! The demo: a router and a few federates on this machine. Vehicles drive and fly around a
//! 1000 × 1000 map publishing positions; a viewer sees all of them, a watcher subscribes to
//! the south-west quarter only, and each prints every second what it received.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use thiserror::Error;
use trellis_core::federate::{Callback, Range, Region};
use trellis_core::fom::{FomErrors, ObjectModel};
use trellis_core::router::RouterConfig;
use trellis_core::wire::NodeId;
use trellis_net::rti::{RtiAmbassador, RtiConfig, RtiError, SendOptions};
use trellis_net::{Endpoint, HostConfig, NetError, NodeConfig, Runtime};

/// The object model the demo runs on, built into the binary.
pub const DEMO_FOM: &str = include_str!("../../../foms/trellis-demo.xml");
const FEDERATION: &str = "TrellisDemo";
/// The watcher's quarter of the map.
const QUARTER: u64 = 500;

#[derive(Debug, Error)]
pub enum DemoError {
    #[error(transparent)]
    Rti(#[from] RtiError),
    #[error(transparent)]
    Net(#[from] NetError),
    #[error("the demo object model: {0}")]
    Fom(#[from] FomErrors),
    #[error("{0}")]
    Failed(String),
}

#[derive(Clone, Debug)]
pub struct DemoOptions {
    pub seconds: u64,
    pub vehicles: usize,
    /// Position updates per vehicle per second.
    pub rate_hz: u64,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            seconds: 5,
            vehicles: 6,
            rate_hz: 10,
        }
    }
}

/// What one receiving federate counted in the last second and overall.
#[derive(Default, Clone)]
struct Tally {
    reflections: u64,
    vehicles: std::collections::BTreeSet<String>,
    interactions: u64,
    total_reflections: u64,
    outside_region: u64,
    /// What routers' cells delivered but the region check discarded.
    over_delivered: u64,
}

/// A point on the map, encoded as two little-endian u32.
fn encode_position(x: u64, y: u64) -> [u8; 8] {
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&(x as u32).to_le_bytes());
    out[4..].copy_from_slice(&(y as u32).to_le_bytes());
    out
}

fn decode_position(bytes: &[u8]) -> Option<(u64, u64)> {
    let x = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?);
    let y = u32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?);
    Some((u64::from(x), u64::from(y)))
}

fn connect(
    at: &Endpoint,
    name: &str,
    model: &Arc<ObjectModel>,
) -> Result<RtiAmbassador, DemoError> {
    let mut rti = RtiAmbassador::connect(RtiConfig::new(NodeConfig::child_of(
        name,
        FEDERATION,
        at.clone(),
    )))?;
    rti.join_federation_execution(name, name, model.clone())?;
    Ok(rti)
}

/// Run the demo, printing to stdout, until `options.seconds` pass or `stop` is set.
pub fn run(options: &DemoOptions, stop: Arc<AtomicBool>) -> Result<(), DemoError> {
    let model = Arc::new(ObjectModel::from_sources(&[(
        "trellis-demo.xml",
        DEMO_FOM,
    )])?);
    let runtime = Runtime::start("demo-router")?;
    let mut router = RouterConfig::new("demo-router", NodeId(1));
    router.hosts_registry = true;
    let mut host = HostConfig::new(router);
    host.listen
        .push("tcp://127.0.0.1:0".parse().expect("valid endpoint"));
    let at = runtime.add_host(host)?.listening()[0].clone();
    println!("router listening on {at}, holding the federation registry");

    let mut creator = RtiAmbassador::connect(RtiConfig::new(NodeConfig::child_of(
        "creator",
        FEDERATION,
        at.clone(),
    )))?;
    creator.create_federation_execution(&model)?;
    println!(
        "federation {FEDERATION} created with {} ({})",
        model.modules().join(", "),
        model.counts()
    );

    let tallies: Vec<(String, Arc<Mutex<Tally>>)> = ["viewer", "sw-watcher"]
        .iter()
        .map(|n| (n.to_string(), Arc::new(Mutex::new(Tally::default()))))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(options.seconds);
    let mut threads = Vec::new();
    for (i, (name, tally)) in tallies.iter().enumerate() {
        let region = (i == 1).then_some(QUARTER);
        let (at, model, tally, stop, name) = (
            at.clone(),
            model.clone(),
            tally.clone(),
            stop.clone(),
            name.clone(),
        );
        let mut rti = connect(&at, &name, &model)?;
        threads.push(std::thread::spawn(move || {
            receive(&mut rti, region, &tally, &stop, deadline)
        }));
    }
    let half = options.vehicles.div_ceil(2);
    for (name, count) in [("ground-sim", half), ("air-sim", options.vehicles - half)] {
        let mut rti = connect(&at, name, &model)?;
        let (stop, rate) = (stop.clone(), options.rate_hz);
        threads.push(std::thread::spawn(move || {
            drive(&mut rti, name, count, rate, &stop, deadline)
        }));
    }

    let started = Instant::now();
    let mut second = 0;
    while Instant::now() < deadline && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
        if started.elapsed().as_secs() > second {
            second = started.elapsed().as_secs();
            let line: Vec<String> = tallies
                .iter()
                .map(|(name, tally)| {
                    let mut t = tally.lock().expect("tally lock");
                    let text = format!(
                        "{name}: {} updates from {} vehicles, {} radio messages",
                        t.reflections,
                        t.vehicles.len(),
                        t.interactions
                    );
                    t.reflections = 0;
                    t.interactions = 0;
                    t.vehicles.clear();
                    text
                })
                .collect();
            println!("[{second:>2} s] {}", line.join(" | "));
        }
    }
    stop.store(true, Ordering::SeqCst);
    for thread in threads {
        thread
            .join()
            .map_err(|_| DemoError::Failed("a federate thread panicked".into()))??;
    }
    let watcher = tallies[1].1.lock().expect("tally lock").clone();
    let viewer = tallies[0].1.lock().expect("tally lock").clone();
    println!(
        "done: the viewer reflected {} updates; the south-west watcher {} ({} outside its quarter; \
         {} more arrived in its routing cells but outside the region and were discarded)",
        viewer.total_reflections, watcher.total_reflections, watcher.outside_region, watcher.over_delivered
    );
    if watcher.outside_region > 0 {
        return Err(DemoError::Failed(
            "the watcher saw updates outside its region".into(),
        ));
    }
    creator.destroy_federation_execution().ok();
    drop(runtime);
    Ok(())
}

/// A subscriber: everything, or the south-west quarter below `region`.
fn receive(
    rti: &mut RtiAmbassador,
    region: Option<u64>,
    tally: &Mutex<Tally>,
    stop: &AtomicBool,
    deadline: Instant,
) -> Result<(), DemoError> {
    let vehicle = rti.object_class_handle("Vehicle")?;
    let name = rti.attribute_handle(vehicle, "Name")?;
    let position = rti.attribute_handle(vehicle, "Position")?;
    let radio = rti.interaction_class_handle("Radio")?;
    let regions: Vec<Region> = match region {
        Some(edge) => {
            let x = rti.dimension_handle("X")?.0;
            let y = rti.dimension_handle("Y")?.0;
            vec![Region::new()
                .with(x, Range::new(0, edge))
                .with(y, Range::new(0, edge))]
        }
        None => Vec::new(),
    };
    rti.subscribe_object_class_attributes_with_regions(vehicle, &[name, position], &regions)?;
    rti.subscribe_interaction_class(radio)?;
    let mut names = std::collections::BTreeMap::new();
    while Instant::now() < deadline && !stop.load(Ordering::SeqCst) {
        let Some(callback) = rti.evoke_callback(Duration::from_millis(50))? else {
            continue;
        };
        let mut t = tally.lock().expect("tally lock");
        match callback {
            Callback::DiscoverObjectInstance { object, name, .. } => {
                names.insert(object, name);
            }
            Callback::ReflectAttributeValues { object, values, .. } => {
                t.reflections += 1;
                t.total_reflections += 1;
                t.vehicles
                    .insert(names.get(&object).cloned().unwrap_or_default());
                for (attribute, value) in &values {
                    if *attribute == position {
                        if let (Some(edge), Some((x, y))) = (region, decode_position(value)) {
                            if x >= edge || y >= edge {
                                t.outside_region += 1;
                            }
                        }
                    }
                }
            }
            Callback::ReceiveInteraction { .. } => t.interactions += 1,
            _ => {}
        }
    }
    tally.lock().expect("tally lock").over_delivered = rti.stats()?.over_delivered;
    rti.resign_federation_execution(trellis_net::rti::ResignAction::default())?;
    Ok(())
}

/// A publisher of `count` vehicles moving on circles, each updating `rate` times a second
/// with its position as update region, and a radio call every second.
fn drive(
    rti: &mut RtiAmbassador,
    kind: &str,
    count: usize,
    rate: u64,
    stop: &AtomicBool,
    deadline: Instant,
) -> Result<(), DemoError> {
    let class_name = if kind == "ground-sim" {
        "GroundVehicle"
    } else {
        "Aircraft"
    };
    let class = rti.object_class_handle(class_name)?;
    let name = rti.attribute_handle(class, "Name")?;
    let position = rti.attribute_handle(class, "Position")?;
    let x = rti.dimension_handle("X")?.0;
    let y = rti.dimension_handle("Y")?.0;
    let radio = rti.interaction_class_handle("Radio")?;
    let text = rti.parameter_handle(radio, "Text")?;
    rti.publish_object_class_attributes(class, &[name, position])?;
    rti.publish_interaction_class(radio)?;
    let mut vehicles = Vec::new();
    for i in 0..count {
        let label = format!("{class_name}-{i}");
        rti.reserve_object_instance_name(&label)?;
        let object = rti.register_object_instance_with_name(class, &label)?;
        rti.update_attribute_values(object, &[(name, label.as_bytes())], b"")?;
        vehicles.push(object);
    }
    let period = Duration::from_millis(1000 / rate.max(1));
    let started = Instant::now();
    let mut tick = 0u64;
    while Instant::now() < deadline && !stop.load(Ordering::SeqCst) {
        let t = started.elapsed().as_secs_f64();
        for (i, &object) in vehicles.iter().enumerate() {
            // Circles of different radii around different centres, some crossing the
            // watcher's quarter.
            let phase = t * (0.3 + 0.1 * i as f64) + i as f64;
            let cx = 250.0 + 500.0 * ((i % 2) as f64);
            let cy = 250.0 + 500.0 * (((i / 2) % 2) as f64);
            let px = (cx + 200.0 * phase.cos()).clamp(0.0, 999.0) as u64;
            let py = (cy + 200.0 * phase.sin()).clamp(0.0, 999.0) as u64;
            let region = Region::new()
                .with(x, Range::new(px, px + 1))
                .with(y, Range::new(py, py + 1));
            let options = SendOptions {
                region: Some(&region),
                ..Default::default()
            };
            rti.update_attribute_values_with(
                object,
                &[(position, encode_position(px, py))],
                b"",
                &options,
            )?;
        }
        if tick % rate.max(1) == 0 {
            let call = format!("{kind}: all {count} vehicles report in");
            rti.send_interaction(radio, &[(text, call.as_bytes())], b"")?;
        }
        tick += 1;
        // Answer anything addressed to us (update requests) while keeping the pace.
        let next = started + period * tick as u32;
        while let Some(left) = next.checked_duration_since(Instant::now()) {
            if rti.evoke_callback(left)?.is_none() {
                break;
            }
        }
    }
    rti.resign_federation_execution(trellis_net::rti::ResignAction::default())?;
    Ok(())
}
