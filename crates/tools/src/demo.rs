//! The demo: a router and a few federates on this machine. Vehicles drive and fly around a
//! 1000 × 1000 map publishing positions; a viewer sees all of them, a watcher subscribes to
//! the south-west quarter only, and each prints every second what it received.
//!
//! Every run starts with the synchronization point "ReadyToRun" (see `start`). Time-stepped
//! (`DemoOptions::time_stepped`), the vehicle simulators are time-regulating and constrained
//! and move one logical step per grant, and the viewer is constrained (see `step`).

mod fleet;
mod monitored;
mod plan_view;
mod progress;
mod say;
mod start;
mod step;

pub use progress::GrantedTime;
pub use start::READY_TO_RUN;

use fleet::Fleet;
use plan_view::PlanView;
use progress::Board;
use say::{say, Say};
use start::{Start, TimeRole};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use step::Stepper;
use thiserror::Error;
use trellis_core::federate::{Callback, LogicalTime, ObjectId, Range, Region};
use trellis_core::fom::{AttributeHandle, Order};
use trellis_core::fom::{FomErrors, ObjectModel};
use trellis_core::router::RouterConfig;
use trellis_core::wire::NodeId;
use trellis_monitor::metrics::FederateBoard;
use trellis_monitor::monitor::MonitorError;
use trellis_net::rti::{ResignAction, RtiAmbassador, RtiConfig, RtiError};
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
    #[error("the demo's web page: {0}")]
    Web(#[from] MonitorError),
    #[error("{0}")]
    Failed(String),
}

#[derive(Clone, Debug)]
pub struct DemoOptions {
    pub seconds: u64,
    pub vehicles: usize,
    /// Position updates per vehicle per second (time-stepped: steps per second).
    pub rate_hz: u64,
    /// Vehicles regulating and constrained, one logical time step per update.
    pub time_stepped: bool,
    /// Serve the plan view and the monitor of the demo here (port taken: any free one).
    pub web: Option<SocketAddr>,
    /// Attach the federates to this running router (`trellis up`, `trellis router`) instead
    /// of starting one in this process; then no web page (its monitor watches the demo's
    /// own router: watch others with `trellis monitor` and `trellis federation`).
    pub rti: Option<Endpoint>,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            seconds: 5,
            vehicles: 6,
            rate_hz: 10,
            time_stepped: false,
            web: None,
            rti: None,
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
    /// Reflections received in time-stamp order.
    time_stamped: u64,
    /// Time-stamp-ordered reflections stamped at or before the time already granted:
    /// time-stamp order broken.
    late: u64,
}

/// What a demo run saw, for its callers and tests.
#[derive(Clone, Debug, Default)]
pub struct DemoReport {
    /// Federates that joined: the viewer, the watcher and the two vehicle simulators.
    pub federates: usize,
    /// Federates told FederationSynchronized for [`READY_TO_RUN`].
    pub synchronized: usize,
    /// Time-stepped runs: the granted logical time across federates at the end.
    pub granted: Option<GrantedTime>,
    pub viewer_reflections: u64,
    /// The viewer's reflections in time-stamp order (time-stepped runs).
    pub viewer_time_stamped: u64,
    pub watcher_reflections: u64,
    pub watcher_outside_region: u64,
    /// The reader of standard output went away, which stopped the demo early.
    pub output_closed: bool,
}

/// What each federate thread works with besides its ambassador.
struct Member {
    name: String,
    role: TimeRole,
    board: Arc<Board>,
    stop: Arc<AtomicBool>,
    deadline: Instant,
    /// Where it publishes its figures for the monitor.
    figures: FederateBoard,
    /// The viewer's reflections go to the plan view.
    plan: Option<Arc<PlanView>>,
}

impl Member {
    fn running(&self) -> bool {
        Instant::now() < self.deadline && !self.stop.load(Ordering::SeqCst)
    }

    /// A stepper from `start`'s time on this federate's clock on the board.
    fn stepper(&self, start: &Start) -> Result<Stepper<'_>, DemoError> {
        let clock = self.board.clock(&self.name).ok_or_else(|| {
            DemoError::Failed(format!("{} is time-managed but has no clock", self.name))
        })?;
        Ok(Stepper::new(start.time(), clock))
    }
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

/// The demo's federates: two receivers (all of the map; its south-west quarter) and two
/// vehicle simulators.
const VIEWER: &str = "viewer";
const WATCHER: &str = "sw-watcher";
const SIMULATORS: [&str; 2] = ["ground-sim", "air-sim"];

/// Run the demo, printing to stdout, until `options.seconds` pass or `stop` is set.
pub fn run(options: &DemoOptions, stop: Arc<AtomicBool>) -> Result<DemoReport, DemoError> {
    let model = Arc::new(ObjectModel::from_sources(&[(
        "trellis-demo.xml",
        DEMO_FOM,
    )])?);
    let say = Arc::new(Say::new(stop.clone()));
    let router = DemoRouter::attach(options.rti.as_ref(), &say)?;
    let at = router.at.clone();
    let timed: Vec<&str> = if options.time_stepped {
        std::iter::once(VIEWER).chain(SIMULATORS).collect()
    } else {
        Vec::new()
    };
    let board = Arc::new(Board::with_clocks(&timed).saying_to(say.clone()));
    let figures = FederateBoard::new();
    let clocks = options.time_stepped.then(|| plan_view::Clocks {
        board: board.clone(),
        step_seconds: 1.0 / options.rate_hz.max(1) as f64,
    });
    let plan = Arc::new(PlanView::new(QUARTER, clocks));
    let web = match (options.web, &router.own) {
        (Some(listen), Some((_, router_host))) => {
            let federates: Vec<&str> = ["creator", VIEWER, WATCHER]
                .into_iter()
                .chain(SIMULATORS)
                .collect();
            let watched = monitored::Watched {
                router: "demo-router",
                host: router_host,
                at: &at,
                federates: &federates,
                board: &figures,
                plan: &plan,
                federation: FEDERATION,
            };
            let web = watched.serve(listen)?;
            say!(
                say,
                "watch it live: {} (the vehicles on the map beside the monitor of the demo's router and federates)",
                web.url()
            );
            Some(web)
        }
        (Some(_), None) => {
            say!(
                say,
                "no web page on a running router (the page monitors the demo's own): watch with `trellis monitor` and `trellis federation {FEDERATION} {at}`"
            );
            None
        }
        (None, _) => None,
    };

    // The creator is not driven again until it destroys the federation: its node runs on a
    // thread of its own, so it answers heartbeats meanwhile instead of being dropped as
    // silent (and its destroy failing) at the end of a long demo.
    let mut creator_config =
        RtiConfig::new(NodeConfig::child_of("creator", FEDERATION, at.clone()));
    creator_config.driver = trellis_net::rti::Driver::Thread;
    let mut creator = RtiAmbassador::connect(creator_config)?;
    creator.create_federation_execution(&model)?;
    say!(
        say,
        "federation {FEDERATION} created with {} ({})",
        model.modules().join(", "),
        model.counts()
    );

    let deadline = Instant::now() + Duration::from_secs(options.seconds);
    let member = |name: &str, role: TimeRole| Member {
        name: name.to_owned(),
        role: if options.time_stepped {
            role
        } else {
            TimeRole::Untimed
        },
        board: board.clone(),
        stop: stop.clone(),
        deadline,
        figures: figures.clone(),
        plan: (name == VIEWER).then(|| plan.clone()),
    };
    // Everybody joins before the synchronization point is registered, so it takes in the
    // whole demo.
    let mut joined = Vec::new();
    for name in [VIEWER, WATCHER].into_iter().chain(SIMULATORS) {
        joined.push((name, connect(&at, name, &model)?));
    }
    // The viewer registers it (any one federate would do); empty members: all of them.
    let (_, registrant) = &mut joined[0];
    registrant.register_federation_synchronization_point(READY_TO_RUN, b"", &[])?;

    let tallies: Vec<(String, Arc<Mutex<Tally>>)> = [VIEWER, WATCHER]
        .iter()
        .map(|n| (n.to_string(), Arc::new(Mutex::new(Tally::default()))))
        .collect();
    let half = options.vehicles.div_ceil(2);
    let mut threads = Vec::new();
    for (name, mut rti) in joined {
        let thread = match name {
            VIEWER | WATCHER => {
                let (_, tally) = tallies.iter().find(|(n, _)| n == name).expect("a tally");
                let tally = tally.clone();
                let (region, role) = match name {
                    WATCHER => (Some(QUARTER), TimeRole::Untimed),
                    _ => (None, TimeRole::Constrained),
                };
                let member = member(name, role);
                std::thread::spawn(move || receive(&mut rti, region, &tally, &member))
            }
            _ => {
                let count = if name == SIMULATORS[0] {
                    half
                } else {
                    options.vehicles - half
                };
                let (member, rate) = (member(name, TimeRole::Stepping), options.rate_hz.max(1));
                std::thread::spawn(move || drive(&mut rti, &member, count, rate))
            }
        };
        threads.push(thread);
    }

    print_every_second(&tallies, &board, deadline, &stop, &say);
    stop.store(true, Ordering::SeqCst);
    for thread in threads {
        thread
            .join()
            .map_err(|_| DemoError::Failed("a federate thread panicked".into()))??;
    }
    let mut report = summarize(&tallies, &board, options.time_stepped, &say)?;
    report.output_closed = say.is_closed();
    // The page's federation panel is a member (a MOM tool federate): it resigns first.
    drop(web);
    if let Err(e) = creator.destroy_federation_execution() {
        tracing::warn!("destroying the demo's federation: {e}");
    }
    drop(router);
    Ok(report)
}

/// Where the demo's federates attach: a router of its own in this process (holding the
/// federation registry), or a running one.
struct DemoRouter {
    at: Endpoint,
    /// The demo's own router: its runtime (stopped when dropped) and host.
    own: Option<(Runtime, trellis_net::Host)>,
}

impl DemoRouter {
    fn attach(running: Option<&Endpoint>, say: &Say) -> Result<DemoRouter, DemoError> {
        if let Some(at) = running {
            say!(say, "attaching to the running router at {at}");
            return Ok(DemoRouter {
                at: at.clone(),
                own: None,
            });
        }
        let runtime = Runtime::start("demo-router")?;
        let mut router = RouterConfig::new("demo-router", NodeId(1));
        router.hosts_registry = true;
        let mut host = HostConfig::new(router);
        host.listen
            .push("tcp://127.0.0.1:0".parse().expect("valid endpoint"));
        let router_host = runtime.add_host(host)?;
        let at = router_host.listening()[0].clone();
        say!(
            say,
            "router listening on {at}, holding the federation registry"
        );
        Ok(DemoRouter {
            at,
            own: Some((runtime, router_host)),
        })
    }
}

/// Each second, one line: what each receiver got, and the granted time when time-stepped.
fn print_every_second(
    tallies: &[(String, Arc<Mutex<Tally>>)],
    board: &Board,
    deadline: Instant,
    stop: &AtomicBool,
    say: &Say,
) {
    let started = Instant::now();
    let mut second = 0;
    let mut grants_before = 0;
    while Instant::now() < deadline && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
        if started.elapsed().as_secs() > second {
            second = started.elapsed().as_secs();
            let mut line: Vec<String> = tallies
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
            if let Some(time) = board.granted_time() {
                line.push(format!(
                    "granted time {}..{} (min..max), {} grants/s",
                    time.min,
                    time.max,
                    time.grants - grants_before
                ));
                grants_before = time.grants;
            }
            say!(say, "[{second:>2} s] {}", line.join(" | "));
        }
    }
}

/// The closing lines, and the run's report; an error if a receiver saw what it must not.
fn summarize(
    tallies: &[(String, Arc<Mutex<Tally>>)],
    board: &Board,
    time_stepped: bool,
    say: &Say,
) -> Result<DemoReport, DemoError> {
    let viewer = tallies[0].1.lock().expect("tally lock").clone();
    let watcher = tallies[1].1.lock().expect("tally lock").clone();
    say!(
        say,
        "done: the viewer reflected {} updates; the south-west watcher {} ({} outside its quarter; \
         {} more arrived in its routing cells but outside the region and were discarded)",
        viewer.total_reflections, watcher.total_reflections, watcher.outside_region, watcher.over_delivered
    );
    let report = DemoReport {
        federates: tallies.len() + SIMULATORS.len(),
        synchronized: board.synchronized_federates(),
        granted: board.granted_time(),
        viewer_reflections: viewer.total_reflections,
        viewer_time_stamped: viewer.time_stamped,
        watcher_reflections: watcher.total_reflections,
        watcher_outside_region: watcher.outside_region,
        output_closed: false,
    };
    if let (true, Some(time)) = (time_stepped, report.granted) {
        say!(
            say,
            "time-stepped: granted logical time {}..{} (min..max) after {} grants; the viewer \
             reflected {} updates in time-stamp order, {} of them late",
            time.min,
            time.max,
            time.grants,
            viewer.time_stamped,
            viewer.late
        );
    }
    if report.synchronized < report.federates {
        say!(
            say,
            "only {} of {} federates saw the federation synchronized before the end",
            report.synchronized,
            report.federates
        );
    }
    if watcher.outside_region > 0 {
        return Err(DemoError::Failed(
            "the watcher saw updates outside its region".into(),
        ));
    }
    if viewer.late > 0 {
        return Err(DemoError::Failed(format!(
            "the viewer got {} updates stamped at or before its granted time",
            viewer.late
        )));
    }
    Ok(report)
}

/// The vehicle class's handles a receiver needs to count what it gets.
struct Seen {
    position: AttributeHandle,
    /// The watcher's quarter: the region's edge.
    region: Option<u64>,
    names: BTreeMap<ObjectId, String>,
    plan: Option<Arc<PlanView>>,
}

impl Tally {
    /// Count one callback; `granted` is the receiver's granted time when time-managed.
    fn count(&mut self, callback: Callback, seen: &mut Seen, granted: Option<LogicalTime>) {
        match callback {
            Callback::DiscoverObjectInstance { object, name, .. } => {
                seen.names.insert(object, name.to_string());
            }
            Callback::ReflectAttributeValues {
                object,
                values,
                time,
                received_order,
                ..
            } => {
                self.reflections += 1;
                self.total_reflections += 1;
                self.vehicles
                    .insert(seen.names.get(&object).cloned().unwrap_or_default());
                if received_order == Order::TimeStamp {
                    self.time_stamped += 1;
                    if granted.is_some_and(|g| LogicalTime::from_key(time) <= g) {
                        self.late += 1;
                    }
                }
                for (attribute, value) in &values {
                    if *attribute == seen.position {
                        let Some((x, y)) = decode_position(value) else {
                            continue;
                        };
                        if seen.region.is_some_and(|edge| x >= edge || y >= edge) {
                            self.outside_region += 1;
                        }
                        if let (Some(plan), Some(name)) = (&seen.plan, seen.names.get(&object)) {
                            plan.moved(name, x, y);
                        }
                    }
                }
            }
            Callback::ReceiveInteraction { .. } => self.interactions += 1,
            _ => {}
        }
    }
}

/// A subscriber: everything, or the south-west quarter below `region`. Time-stepped and
/// constrained, it advances one step at a time behind the vehicles.
fn receive(
    rti: &mut RtiAmbassador,
    region: Option<u64>,
    tally: &Mutex<Tally>,
    member: &Member,
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
    let mut seen = Seen {
        position,
        region,
        names: BTreeMap::new(),
        plan: member.plan.clone(),
    };
    let mut start = Start::begin(rti, member.role)?;
    let mut stepper = None;
    while member.running() {
        member.figures.publish_from(rti);
        if start.is_synchronized() && member.role != TimeRole::Untimed {
            if stepper.is_none() {
                stepper = Some(member.stepper(&start)?);
            }
            stepper.as_mut().map(|s| s.request_next(rti)).transpose()?;
        }
        let Some(callback) = rti.evoke_callback(Duration::from_millis(50))? else {
            continue;
        };
        let Some(callback) = start.on_callback(rti, callback, &member.board)? else {
            continue;
        };
        let callback = match stepper.as_mut() {
            Some(stepper) => match stepper.on_callback(callback)? {
                Some(callback) => callback,
                None => continue,
            },
            None => callback,
        };
        let granted = stepper.as_ref().map(Stepper::granted);
        tally
            .lock()
            .expect("tally lock")
            .count(callback, &mut seen, granted);
    }
    tally.lock().expect("tally lock").over_delivered = rti.stats()?.over_delivered;
    rti.resign_federation_execution(ResignAction::default())?;
    Ok(())
}

/// A publisher of `count` vehicles moving on circles, each updating `rate` times a second
/// with its position as update region, and a radio call every second. They start at the
/// federation's synchronization.
fn drive(
    rti: &mut RtiAmbassador,
    member: &Member,
    count: usize,
    rate: u64,
) -> Result<(), DemoError> {
    let fleet = Fleet::register(rti, &member.name, count)?;
    let mut start = Start::begin(rti, member.role)?;
    // Only start-up callbacks matter before the start; update requests are answered by the
    // next update anyway.
    if start.wait(rti, &member.board, member.deadline, &member.stop, drop)? {
        match member.role {
            TimeRole::Stepping => drive_stepped(rti, member, &fleet, &start, rate)?,
            _ => drive_in_real_time(rti, member, &fleet, rate)?,
        }
    }
    rti.resign_federation_execution(ResignAction::default())?;
    Ok(())
}

/// Move by the wall clock, `rate` updates a second, in receive order.
fn drive_in_real_time(
    rti: &mut RtiAmbassador,
    member: &Member,
    fleet: &Fleet,
    rate: u64,
) -> Result<(), DemoError> {
    let period = Duration::from_millis(1000 / rate);
    let started = Instant::now();
    let mut tick = 0u64;
    while member.running() {
        member.figures.publish_from(rti);
        fleet.move_to(rti, started.elapsed().as_secs_f64(), None)?;
        if tick % rate == 0 {
            fleet.radio(rti, None)?;
        }
        tick += 1;
        pace(rti, started + period * tick as u32)?;
    }
    Ok(())
}

/// Move one logical step (1/`rate` s of simulated time) per grant: updates stamped with
/// the next step, then timeAdvanceRequest to it; paced to at most `rate` steps a second.
fn drive_stepped(
    rti: &mut RtiAmbassador,
    member: &Member,
    fleet: &Fleet,
    start: &Start,
    rate: u64,
) -> Result<(), DemoError> {
    let mut stepper = member.stepper(start)?;
    let period = Duration::from_millis(1000 / rate);
    let started = Instant::now();
    let mut tick = 0u64;
    while member.running() {
        member.figures.publish_from(rti);
        let step = stepper.next();
        fleet.move_to(rti, step.as_i64() as f64 / rate as f64, Some(step))?;
        if tick % rate == 0 {
            fleet.radio(rti, Some(step))?;
        }
        tick += 1;
        stepper.request_next(rti)?;
        if !stepper.wait_for_grant(rti, member.deadline, &member.stop, drop)? {
            break;
        }
        pace(rti, started + period * tick as u32)?;
    }
    Ok(())
}

/// Answer anything addressed to us (update requests) until `next`, keeping the pace.
fn pace(rti: &mut RtiAmbassador, next: Instant) -> Result<(), DemoError> {
    while let Some(left) = next.checked_duration_since(Instant::now()) {
        if rti.evoke_callback(left)?.is_none() {
            break;
        }
    }
    Ok(())
}
