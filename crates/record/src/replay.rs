//! The replaying federate: registers the recorded instances again (by their recorded names
//! where it can), publishes what the recording holds, and sends the updates and
//! interactions again at the recorded pace times N, as fast as possible, or in logical-time
//! steps as a regulating federate.

use crate::format::{Record, Sent};
use crate::reader::Recording;
use crate::{Header, RecordError};
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::{
    Callback, InstanceName, Interval, LogicalTime, ObjectId, TimeRepresentation,
};
use trellis_core::fom::{
    AttributeHandle, InteractionClassHandle, ObjectClassHandle, ObjectModel, ParameterHandle,
};
use trellis_net::rti::LocalSettings;
use trellis_net::rti::{ResignAction, RtiAmbassador, RtiConfig, RtiError};
use trellis_net::NodeConfig;

/// How fast to replay.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// The recorded wall-clock spacing divided by this factor (1.0: real time).
    Speed(f64),
    AsFastAsPossible,
    /// Regulating with `lookahead` (in the recording's time representation: a whole number
    /// for HLAinteger64Time): each time-stamped message is sent at its recorded logical
    /// time, advancing in steps from one recorded time to the next.
    TimeStep {
        lookahead: f64,
    },
}

/// Where in the recording to start sending (instances recorded before it are registered
/// all the same).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum From {
    Start,
    /// Seconds of wall time after the recording started.
    Seconds(f64),
    /// The first time-stamped message at or after this logical time.
    LogicalTime(f64),
}

#[derive(Clone, Debug)]
pub struct ReplayOptions {
    pub file: PathBuf,
    /// The router's address (and TLS for tls://).
    pub router: LocalSettings,
    pub federation: String,
    /// Object model modules; empty: those the recording names.
    pub fom: Vec<PathBuf>,
    pub pace: Pace,
    pub from: From,
    /// Replay only what came through this router of the recording (`--rti` order).
    pub source: Option<u32>,
    pub federate_name: String,
    /// The most instances held at once (recorded id → replayed instance).
    pub max_instances: usize,
    /// After publishing, wait up to this long for subscribers' interest to arrive.
    pub wait_for_subscribers: Duration,
}

/// The default `max_instances`.
pub const MAX_INSTANCES: usize = 1_000_000;
/// How long one logical-time step may take before the replay gives up.
const GRANT_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Clone, Debug, Default)]
pub struct ReplayReport {
    pub registered: u64,
    pub updates: u64,
    pub interactions: u64,
    pub removed: u64,
    /// Records naming a class, attribute or parameter the replay's object model lacks.
    pub unknown: u64,
    pub gaps: u64,
    /// Chunks skipped for a bad checksum.
    pub damaged_chunks: usize,
    /// Bytes after the last whole chunk (a cut file).
    pub ignored_bytes: u64,
}

/// Recorded handle → the replay federation's handle, matched by name.
struct Names {
    classes: HashMap<u32, ObjectClassHandle>,
    attributes: HashMap<u32, AttributeHandle>,
    interactions: HashMap<u32, InteractionClassHandle>,
    parameters: HashMap<u32, ParameterHandle>,
}

impl Names {
    fn new(header: &Header, model: &ObjectModel) -> Names {
        let d = &header.dictionary;
        let classes: HashMap<u32, ObjectClassHandle> = d
            .object_classes
            .iter()
            .filter_map(|(h, name)| Some((*h, model.find_object_class(name)?)))
            .collect();
        let interactions: HashMap<u32, InteractionClassHandle> = d
            .interaction_classes
            .iter()
            .filter_map(|(h, name)| Some((*h, model.find_interaction_class(name)?)))
            .collect();
        let attributes = d
            .attributes
            .iter()
            .filter_map(|(h, class, name)| {
                Some((*h, model.find_attribute(*classes.get(class)?, name)?))
            })
            .collect();
        let parameters = d
            .parameters
            .iter()
            .filter_map(|(h, class, name)| {
                Some((*h, model.find_parameter(*interactions.get(class)?, name)?))
            })
            .collect();
        Names {
            classes,
            attributes,
            interactions,
            parameters,
        }
    }
}

/// `--lookahead` as an interval of the recording's representation.
fn interval(lookahead: f64, representation: TimeRepresentation) -> Result<Interval, RecordError> {
    let whole = lookahead.fract() == 0.0 && lookahead.abs() < 9.0e15;
    match representation {
        _ if !(lookahead >= 0.0 && lookahead.is_finite()) => Err(RecordError::Invalid(format!(
            "--lookahead {lookahead}: must be a number of at least 0"
        ))),
        TimeRepresentation::Integer64 if !whole => Err(RecordError::Invalid(format!(
            "--lookahead {lookahead}: the recording's federation uses HLAinteger64Time, so the \
             lookahead is a whole number"
        ))),
        TimeRepresentation::Integer64 => Ok(Interval::Integer(lookahead as i64)),
        TimeRepresentation::Float64 => Ok(Interval::Float(lookahead)),
    }
}

/// `time` less `lookahead`: when a federation granted that may send at `time`.
fn before(time: LogicalTime, lookahead: Interval) -> LogicalTime {
    match lookahead {
        Interval::Integer(v) => LogicalTime::from_i64(time.as_i64().saturating_sub(v)),
        Interval::Float(v) => LogicalTime::from_f64(time.as_f64() - v).unwrap_or(time),
    }
}

struct Replayer<'a> {
    options: &'a ReplayOptions,
    rti: RtiAmbassador,
    names: Names,
    model: Arc<ObjectModel>,
    instances: HashMap<(u32, u64), ObjectId>,
    report: ReplayReport,
    /// The recorded federation's time representation, which the replay's federation uses.
    representation: TimeRepresentation,
    /// In time steps (`Pace::TimeStep`): the lookahead in that representation.
    lookahead: Option<Interval>,
    granted: LogicalTime,
    started_wall: u64,
    /// Pacing: the first record sent, and when it was sent.
    origin: Option<(u64, Instant)>,
    started: bool,
    stop: Arc<AtomicBool>,
    say: &'a (dyn Fn(String) + Send + Sync),
}

pub fn replay(
    options: &ReplayOptions,
    stop: Arc<AtomicBool>,
    say: &(dyn Fn(String) + Send + Sync),
) -> Result<ReplayReport, RecordError> {
    let mut recording = Recording::open(&options.file)?;
    let fom: Vec<PathBuf> = if options.fom.is_empty() {
        recording
            .header
            .fom_modules
            .iter()
            .map(PathBuf::from)
            .collect()
    } else {
        options.fom.clone()
    };
    let model = Arc::new(ObjectModel::load(&fom, &|path| std::fs::read(path))?);
    let mut node = NodeConfig::child_of(
        options.federate_name.as_str(),
        options.federation.as_str(),
        options.router.endpoint.clone(),
    );
    node.tls = options.router.tls.clone();
    let mut rti = RtiAmbassador::connect(RtiConfig::new(node))?;
    let representation = recording.header.time_representation;
    match rti.create_federation_execution_with_time(&model, representation) {
        Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
        Err(e) => return Err(e.into()),
    }
    rti.join_federation_execution(&options.federate_name, "trellis-replay", model.clone())?;
    let mut replayer = Replayer {
        options,
        names: Names::new(&recording.header, &model),
        rti,
        model,
        instances: HashMap::new(),
        report: ReplayReport {
            ignored_bytes: recording.trailing_bytes(),
            ..Default::default()
        },
        representation,
        lookahead: match options.pace {
            Pace::TimeStep { lookahead } => Some(interval(lookahead, representation)?),
            _ => None,
        },
        granted: LogicalTime::ZERO,
        started_wall: recording.header.started_wall_ns,
        origin: None,
        started: options.from == From::Start,
        stop: stop.clone(),
        say,
    };
    replayer.declare(&mut recording)?;
    if let Some(lookahead) = replayer.lookahead {
        replayer.become_regulating(lookahead)?;
    }
    let damaged = recording.for_each_record(|_, record| {
        if stop.load(Ordering::SeqCst) {
            return Err(RecordError::Invalid("stopped".into()));
        }
        replayer.replay(record)
    });
    let damaged = match damaged {
        Err(RecordError::Invalid(why)) if why == "stopped" => Vec::new(),
        other => other?,
    };
    replayer.report.damaged_chunks = damaged.len();
    replayer.finish()?;
    Ok(replayer.report)
}

impl Replayer<'_> {
    /// Publish every class the recording uses, and wait (bounded) for subscribers.
    fn declare(&mut self, recording: &mut Recording) -> Result<(), RecordError> {
        let mut objects = BTreeSet::new();
        let mut interactions = BTreeSet::new();
        recording.for_each_record(|_, record| {
            match record {
                Record::Discover { class, .. } => {
                    objects.insert(class);
                }
                Record::Interaction { class, .. } => {
                    interactions.insert(class);
                }
                _ => {}
            }
            Ok(())
        })?;
        let _ = self.rti.enable_object_class_relevance_advisory_switch();
        let _ = self.rti.enable_interaction_relevance_advisory_switch();
        let mut waiting = BTreeSet::new();
        for class in objects.iter().filter_map(|c| self.names.classes.get(c)) {
            let attributes = self.model.available_attributes(*class);
            self.rti
                .publish_object_class_attributes(*class, &attributes)?;
            waiting.insert((0, class.0));
        }
        for class in interactions
            .iter()
            .filter_map(|c| self.names.interactions.get(c))
        {
            self.rti.publish_interaction_class(*class)?;
            waiting.insert((1, class.0));
        }
        let deadline = Instant::now() + self.options.wait_for_subscribers;
        while !waiting.is_empty() && Instant::now() < deadline {
            match self.rti.evoke_callback(Duration::from_millis(20))? {
                Some(Callback::StartRegistrationForObjectClass { class }) => {
                    waiting.remove(&(0, class.0));
                }
                Some(Callback::TurnInteractionsOn { class }) => {
                    waiting.remove(&(1, class.0));
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn become_regulating(&mut self, lookahead: Interval) -> Result<(), RecordError> {
        self.rti.enable_time_regulation(lookahead)?;
        let deadline = Instant::now() + GRANT_TIMEOUT;
        loop {
            if let Some(Callback::TimeRegulationEnabled { time }) =
                self.rti.evoke_callback(Duration::from_millis(50))?
            {
                self.granted = time;
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(RecordError::Invalid(
                    "time regulation was not enabled within 60 s".into(),
                ));
            }
        }
    }

    /// Advance (TAR) to `time` and wait for the grant.
    fn advance_to(&mut self, time: LogicalTime) -> Result<(), RecordError> {
        self.rti.time_advance_request(time)?;
        let deadline = Instant::now() + GRANT_TIMEOUT;
        loop {
            if let Some(Callback::TimeAdvanceGrant { time }) =
                self.rti.evoke_callback(Duration::from_millis(50))?
            {
                self.granted = time;
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(RecordError::Invalid(format!(
                    "no grant to logical time {} within 60 s",
                    self.representation.display(time)
                )));
            }
        }
    }

    /// The stamp to send a recorded time-stamped message with, advancing first so that
    /// the lookahead allows it; `None` when not replaying in time steps.
    fn stamp(&mut self, sent: Sent) -> Result<Option<LogicalTime>, RecordError> {
        let (Some(lookahead), Sent::TimeStamp(key)) = (self.lookahead, sent) else {
            return Ok(None);
        };
        let time = LogicalTime::from_key(key);
        let earliest = before(time, lookahead);
        if self.granted < earliest {
            self.advance_to(earliest)?;
        }
        // Already past it (a federation further on than the recording): as soon as allowed.
        Ok(Some(
            time.max(self.representation.add(self.granted, lookahead)),
        ))
    }

    /// Whether the chosen starting point has been reached (it stays reached).
    fn reached(&mut self, record: &Record) -> bool {
        if !self.started {
            self.started = match self.options.from {
                From::Start => true,
                From::Seconds(s) => record.wall_ns() >= self.started_wall + (s * 1e9) as u64,
                From::LogicalTime(t) => record.logical_time().is_some_and(|k| {
                    !matches!(record, Record::TimeGrant { .. })
                        && match self.representation {
                            TimeRepresentation::Integer64 => {
                                LogicalTime::from_key(k).as_i64() as f64 >= t
                            }
                            TimeRepresentation::Float64 => LogicalTime::from_key(k).as_f64() >= t,
                        }
                }),
            };
        }
        self.started
    }

    /// Wait until the record's turn at the chosen speed, serving callbacks meanwhile.
    fn pace(&mut self, wall: u64) -> Result<(), RecordError> {
        let Pace::Speed(speed) = self.options.pace else {
            return Ok(());
        };
        let (first, at) = *self.origin.get_or_insert((wall, Instant::now()));
        let due = at + Duration::from_secs_f64(wall.saturating_sub(first) as f64 / 1e9 / speed);
        while let Some(left) = due.checked_duration_since(Instant::now()) {
            if left.is_zero() || self.stop.load(Ordering::SeqCst) {
                break;
            }
            self.rti
                .evoke_callback(left.min(Duration::from_millis(100)))?;
        }
        Ok(())
    }

    fn replay(&mut self, record: Record) -> Result<(), RecordError> {
        if self.options.source.is_some_and(|s| s != record.source()) {
            return Ok(());
        }
        match record {
            Record::Discover {
                source,
                object,
                class,
                name,
                ..
            } => self.register(source, object, class, &name),
            Record::Remove {
                source,
                object,
                sent,
                tag,
                ..
            } => {
                let Some(local) = self.instances.remove(&(source, object)) else {
                    return Ok(());
                };
                match self.stamp(sent)? {
                    Some(time) => {
                        self.rti.delete_object_instance_at(local, &tag, time)?;
                    }
                    None => self.rti.delete_object_instance(local, &tag)?,
                }
                self.report.removed += 1;
                Ok(())
            }
            Record::Gap { cause, detail, .. } => {
                self.report.gaps += 1;
                (self.say)(format!(
                    "the recording has a gap here ({}): {detail}",
                    cause.name()
                ));
                Ok(())
            }
            Record::TimeGrant { .. } => Ok(()),
            record @ (Record::Reflect { .. } | Record::Interaction { .. }) => {
                if self.reached(&record) {
                    self.pace(record.wall_ns())?;
                    self.send(record)?;
                }
                Ok(())
            }
        }
    }

    fn register(
        &mut self,
        source: u32,
        object: u64,
        class: u32,
        name: &str,
    ) -> Result<(), RecordError> {
        if self.instances.contains_key(&(source, object)) {
            return Ok(()); // discovered again after a recorder's rejoin
        }
        let Some(&class) = self.names.classes.get(&class) else {
            self.report.unknown += 1;
            return Ok(());
        };
        if self.instances.len() >= self.options.max_instances {
            return Err(RecordError::Invalid(format!(
                "more than {} instances at once: raise --max-instances",
                self.options.max_instances
            )));
        }
        // The recorded name where it is free; the RTI's own name otherwise.
        let named = InstanceName::default_id(name).is_none()
            && self.rti.reserve_object_instance_name(name).is_ok();
        let local = if named {
            self.rti.register_object_instance_with_name(class, name)?
        } else {
            self.rti.register_object_instance(class)?
        };
        self.instances.insert((source, object), local);
        self.report.registered += 1;
        Ok(())
    }

    fn send(&mut self, record: Record) -> Result<(), RecordError> {
        match record {
            Record::Reflect {
                source,
                object,
                sent,
                tag,
                values,
                ..
            } => {
                let Some(&local) = self.instances.get(&(source, object)) else {
                    self.report.unknown += 1;
                    return Ok(());
                };
                let values: Vec<(AttributeHandle, Vec<u8>)> = values
                    .into_iter()
                    .filter_map(|(a, v)| Some((*self.names.attributes.get(&a)?, v)))
                    .collect();
                match self.stamp(sent)? {
                    Some(time) => {
                        self.rti
                            .update_attribute_values_at(local, &values, &tag, time, None)?;
                    }
                    None => self.rti.update_attribute_values(local, &values, &tag)?,
                }
                self.report.updates += 1;
            }
            Record::Interaction {
                class,
                sent,
                tag,
                parameters,
                ..
            } => {
                let Some(&local) = self.names.interactions.get(&class) else {
                    self.report.unknown += 1;
                    return Ok(());
                };
                let parameters: Vec<(ParameterHandle, Vec<u8>)> = parameters
                    .into_iter()
                    .filter_map(|(p, v)| Some((*self.names.parameters.get(&p)?, v)))
                    .collect();
                match self.stamp(sent)? {
                    Some(time) => {
                        self.rti
                            .send_interaction_at(local, &parameters, &tag, time, None)?;
                    }
                    None => self.rti.send_interaction(local, &parameters, &tag)?,
                }
                self.report.interactions += 1;
            }
            _ => {}
        }
        Ok(())
    }

    /// Let time-stamped messages out (one last step), then resign, deleting the instances.
    fn finish(&mut self) -> Result<(), RecordError> {
        if let Some(lookahead) = self.lookahead {
            let last = self.representation.add(self.granted, lookahead);
            self.advance_to(last)?;
        }
        self.rti
            .resign_federation_execution(ResignAction::CancelThenDeleteThenDivest)?;
        Ok(())
    }
}
