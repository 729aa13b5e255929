//! The recording federate: one per router recorded from, each on its own thread, all
//! feeding one writer through a bounded queue. A federate whose link fails records a gap,
//! joins again, and records the gap's end: the file never misses anything silently.

use crate::format::{Dictionary, GapCause, Header, Record, Sent};
use crate::writer::{RecordWriter, WriterLimits};
use crate::{wall_ns, RecordError};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::{AdvanceKind, Callback, LogicalTime, TimeRepresentation};
use trellis_core::fom::{ObjectModel, Order};
use trellis_net::rti::LocalSettings;
use trellis_net::rti::{ResignAction, RtiAmbassador, RtiConfig};
use trellis_net::NodeConfig;

/// Records on their way from the federates to the writer, at most: a writer slower than
/// the federation holds the federates back (and their routers may then drop them as slow
/// consumers, which the file records as a gap) instead of growing without bound.
pub const QUEUE_RECORDS: usize = 65_536;
/// The longest wait between two attempts to join again after a lost connection.
const RETRY_MAX: Duration = Duration::from_secs(2);

#[derive(Clone, Debug)]
pub struct RecorderOptions {
    /// The routers to record from (address, and TLS for tls://); a record's `source` is
    /// the index in this list.
    pub routers: Vec<LocalSettings>,
    pub federation: String,
    pub fom: Vec<PathBuf>,
    /// Object and interaction class names to record (with their subclasses); empty: every
    /// class outside the MOM.
    pub classes: Vec<String>,
    pub output: PathBuf,
    /// The federate name's stem; each join takes `NAME-SOURCE-ATTEMPT`.
    pub federate_name: String,
    pub limits: WriterLimits,
    /// Time-constrained: time-stamped messages arrive in time-stamp order and the file
    /// gets a time-grant record at each advance (the recorder advances to GALT, so it
    /// holds no one back).
    pub time_constrained: bool,
    /// Routing bins per dimension: the federation's federates' (`RtiConfig::bins`), which
    /// every member must share.
    pub bins: u32,
}

#[derive(Clone, Debug, Default)]
pub struct RecorderReport {
    pub records: u64,
    pub chunks: u64,
    pub bytes: u64,
    pub updates: u64,
    pub gaps: u64,
}

/// Which classes to subscribe, and the dictionary of every name the records may use.
fn plan(
    model: &ObjectModel,
    classes: &[String],
) -> Result<(Vec<u32>, Vec<u32>, Dictionary), RecordError> {
    let mom_object = model.find_object_class("HLAmanager");
    let mom_interaction = model.find_interaction_class("HLAmanager");
    let mut objects = Vec::new();
    let mut interactions = Vec::new();
    if classes.is_empty() {
        for class in model.object_classes().iter().filter(|c| c.parent.is_some()) {
            if !mom_object.is_some_and(|mom| model.is_object_subclass(class.handle, mom)) {
                objects.push(class.handle.0);
            }
        }
        for class in model
            .interaction_classes()
            .iter()
            .filter(|c| c.parent.is_some())
        {
            if !mom_interaction.is_some_and(|mom| model.is_interaction_subclass(class.handle, mom))
            {
                interactions.push(class.handle.0);
            }
        }
    }
    for name in classes {
        if let Some(class) = model.find_object_class(name) {
            objects.extend(model.object_descendants(class).iter().map(|c| c.0));
            objects.push(class.0);
        } else if let Some(class) = model.find_interaction_class(name) {
            interactions.extend(model.interaction_descendants(class).iter().map(|c| c.0));
            interactions.push(class.0);
        } else {
            return Err(RecordError::Invalid(format!(
                "--class {name}: no object or interaction class of that name in the object model"
            )));
        }
    }
    objects.sort_unstable();
    objects.dedup();
    interactions.sort_unstable();
    interactions.dedup();
    Ok((objects, interactions, dictionary(model)))
}

/// Every handle of the model with its name, for the file's header.
fn dictionary(model: &ObjectModel) -> Dictionary {
    Dictionary {
        object_classes: model
            .object_classes()
            .iter()
            .map(|c| (c.handle.0, c.qualified_name.clone()))
            .collect(),
        attributes: model
            .object_classes()
            .iter()
            .flat_map(|c| {
                c.attributes
                    .iter()
                    .map(|a| (a.0, c.handle.0, model.attribute(*a).name.clone()))
            })
            .collect(),
        interaction_classes: model
            .interaction_classes()
            .iter()
            .map(|c| (c.handle.0, c.qualified_name.clone()))
            .collect(),
        parameters: model
            .interaction_classes()
            .iter()
            .flat_map(|c| {
                c.parameters
                    .iter()
                    .map(|p| (p.0, c.handle.0, model.parameter(*p).name.clone()))
            })
            .collect(),
    }
}

/// Record until `stop` is set; then every federate resigns and the file is closed with its
/// index. `say` gets one line per notable event (joined, gap, rejoined).
pub fn record(
    options: &RecorderOptions,
    stop: Arc<AtomicBool>,
    say: Arc<dyn Fn(String) + Send + Sync>,
) -> Result<RecorderReport, RecordError> {
    let model = Arc::new(ObjectModel::load(&options.fom, &|path| {
        std::fs::read(path)
    })?);
    let (objects, interactions, dictionary) = plan(&model, &options.classes)?;
    let (sender, receiver) = sync_channel::<Record>(QUEUE_RECORDS);
    let (joined_tx, joined) = channel::<TimeRepresentation>();
    let subscriptions = Arc::new((objects, interactions));
    let mut threads = Vec::new();
    for (source, router) in options.routers.iter().enumerate() {
        let source = Source {
            index: source as u32,
            router: router.endpoint.clone(),
            tls: router.tls.clone(),
            options: options.clone(),
            model: model.clone(),
            subscriptions: subscriptions.clone(),
            out: sender.clone(),
            joined: joined_tx.clone(),
            stop: stop.clone(),
            say: say.clone(),
        };
        threads.push(std::thread::spawn(move || source.run()));
    }
    drop((sender, joined_tx));
    // The header names the federation's time representation, known once a source joined
    // (its records wait in the channel meanwhile).
    let header = Header {
        started_wall_ns: wall_ns(),
        federation: options.federation.clone(),
        sources: options
            .routers
            .iter()
            .map(|r| r.endpoint.to_string())
            .collect(),
        fom_modules: options
            .fom
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        dictionary,
        time_representation: first_join(&joined, &stop),
    };
    let mut writer = RecordWriter::create(&options.output, &header, options.limits)?;
    let mut report = RecorderReport::default();
    loop {
        match receiver.recv_timeout(Duration::from_millis(100)) {
            Ok(record) => {
                match record {
                    Record::Reflect { .. } => report.updates += 1,
                    Record::Gap { .. } => report.gaps += 1,
                    _ => {}
                }
                writer.append(&record)?;
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        writer.flush_if_due()?;
    }
    for thread in threads {
        if thread.join().is_err() {
            tracing::error!("a recording thread panicked");
        }
    }
    report.records = writer.records_written;
    writer.write_chunk()?;
    report.chunks = writer.chunks_written;
    report.bytes = writer.finish()?;
    Ok(report)
}

/// The federation's time representation, as the first source to join finds it; the
/// default when the recording stops, or every source ends, before any joined.
fn first_join(joined: &Receiver<TimeRepresentation>, stop: &AtomicBool) -> TimeRepresentation {
    loop {
        match joined.recv_timeout(Duration::from_millis(100)) {
            Ok(representation) => return representation,
            Err(RecvTimeoutError::Timeout) if !stop.load(Ordering::SeqCst) => {}
            Err(_) => return TimeRepresentation::default(),
        }
    }
}

/// One router's recording federate.
struct Source {
    index: u32,
    router: trellis_net::Endpoint,
    tls: Option<trellis_net::TlsConfig>,
    options: RecorderOptions,
    model: Arc<ObjectModel>,
    subscriptions: Arc<(Vec<u32>, Vec<u32>)>,
    out: SyncSender<Record>,
    /// Told the federation's time representation at each join.
    joined: Sender<TimeRepresentation>,
    stop: Arc<AtomicBool>,
    say: Arc<dyn Fn(String) + Send + Sync>,
}

/// Why a session ended.
enum Ended {
    Stopped,
    Lost(String),
}

impl Source {
    fn gap(&self, cause: GapCause, lost: u64, detail: String) {
        let _ = self.out.send(Record::Gap {
            wall_ns: wall_ns(),
            source: self.index,
            cause,
            lost,
            detail,
        });
    }

    fn run(self) {
        let mut attempt = 0u32;
        let mut lost = false;
        let mut retry = Duration::from_millis(100);
        while !self.stop.load(Ordering::SeqCst) {
            attempt += 1;
            let mut rti = match self.join(attempt) {
                Ok(rti) => rti,
                Err(e) => {
                    if attempt == 1 || attempt % 10 == 0 {
                        (self.say)(format!("{}: cannot join yet ({e}); retrying", self.router));
                    }
                    self.wait(retry);
                    retry = (retry * 2).min(RETRY_MAX);
                    continue;
                }
            };
            retry = Duration::from_millis(100);
            if lost {
                self.gap(
                    GapCause::Rejoined,
                    0,
                    format!("joined {} again", self.router),
                );
                (self.say)(format!(
                    "{}: joined again; the gap is marked in the file",
                    self.router
                ));
                lost = false;
            } else {
                (self.say)(format!(
                    "{}: recording federation {}",
                    self.router, self.options.federation
                ));
            }
            match self.pump(&mut rti) {
                Ended::Stopped => {
                    if let Err(e) = rti.resign_federation_execution(ResignAction::NoAction) {
                        tracing::warn!("resigning from {}: {e}", self.router);
                    }
                }
                Ended::Lost(fault) => {
                    (self.say)(format!(
                        "{}: connection lost ({fault}); recording a gap",
                        self.router
                    ));
                    self.gap(GapCause::ConnectionLost, 0, fault);
                    lost = true;
                }
            }
        }
        if lost {
            self.gap(
                GapCause::EndedDisconnected,
                0,
                "stopped before joining again".into(),
            );
        }
    }

    /// Sleep up to `pause`, waking early to stop.
    fn wait(&self, pause: Duration) {
        let until = Instant::now() + pause;
        while Instant::now() < until && !self.stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(20).min(pause));
        }
    }

    fn join(&self, attempt: u32) -> Result<RtiAmbassador, RecordError> {
        let name = format!("{}-{}-{attempt}", self.options.federate_name, self.index);
        let mut node = NodeConfig::child_of(
            name.as_str(),
            self.options.federation.as_str(),
            self.router.clone(),
        );
        node.tls = self.tls.clone();
        let mut config = RtiConfig::new(node);
        config.bins = self.options.bins;
        let mut rti = RtiAmbassador::connect(config)?;
        rti.join_federation_execution(&name, "trellis-record", self.model.clone())?;
        // The receiver is gone once the header is written; later joins need not tell.
        let _ = self.joined.send(rti.federate()?.time_representation());
        let (objects, interactions) = &*self.subscriptions;
        for &class in objects {
            let class = trellis_core::fom::ObjectClassHandle(class);
            let attributes = self.model.available_attributes(class);
            rti.subscribe_object_class_attributes(class, &attributes)?;
        }
        for &class in interactions {
            rti.subscribe_interaction_class(trellis_core::fom::InteractionClassHandle(class))?;
        }
        if self.options.time_constrained {
            rti.enable_time_constrained()?;
        }
        Ok(rti)
    }

    /// Deliver callbacks into records until stopped or disconnected.
    fn pump(&self, rti: &mut RtiAmbassador) -> Ended {
        let mut advancing = false;
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Ended::Stopped;
            }
            let callback = match rti.evoke_callback(Duration::from_millis(50)) {
                Ok(Some(callback)) => callback,
                Ok(None) => {
                    if self.options.time_constrained && !advancing {
                        advancing = advance_to_galt(rti);
                    }
                    continue;
                }
                Err(e) => return Ended::Lost(e.to_string()),
            };
            match callback {
                Callback::ConnectionLost { fault } => return Ended::Lost(fault),
                Callback::AnnounceSynchronizationPoint { label, .. } => {
                    // A recorder never holds the federation at a synchronization point.
                    if let Err(e) = rti.synchronization_point_achieved(&label, true) {
                        tracing::warn!("achieving {label:?}: {e}");
                    }
                }
                Callback::TimeConstrainedEnabled { .. } => advancing = false,
                Callback::TimeAdvanceGrant { time } => {
                    advancing = false;
                    self.send(Record::TimeGrant {
                        wall_ns: wall_ns(),
                        source: self.index,
                        time: time.key(),
                    });
                }
                Callback::ReliableMessagesLost {
                    sender,
                    sender_node,
                    count,
                } => {
                    let from = sender.map_or_else(
                        || format!("node {sender_node:?}"),
                        |s| format!("federate {s}"),
                    );
                    self.gap(
                        GapCause::MessagesLost,
                        count,
                        format!("{count} reliable messages from {from} never arrived"),
                    );
                }
                other => {
                    if let Some(record) = to_record(self.index, other) {
                        self.send(record);
                    }
                }
            }
        }
    }

    fn send(&self, record: Record) {
        // The writer only goes away after every source has ended.
        let _ = self.out.send(record);
    }
}

/// Ask to advance as far as every regulating federate allows (GALT), never further, so
/// the recorder holds no one back. False when there is nothing to ask for yet.
fn advance_to_galt(rti: &mut RtiAmbassador) -> bool {
    let (Ok(Some(galt)), Ok(now)) = (rti.query_galt(), rti.query_logical_time()) else {
        return false;
    };
    if galt <= now || galt == LogicalTime::MAX {
        return false;
    }
    rti.request_time_advance(AdvanceKind::Nmr, galt).is_ok()
}

fn sent(order: Order, time: u64) -> Sent {
    match order {
        Order::TimeStamp => Sent::TimeStamp(time),
        Order::Receive => Sent::ReceiveOrder,
    }
}

/// The record of a callback that carries federation traffic; `None` for the others.
pub fn to_record(source: u32, callback: Callback) -> Option<Record> {
    let wall_ns = wall_ns();
    Some(match callback {
        Callback::DiscoverObjectInstance {
            object,
            class,
            name,
        } => Record::Discover {
            wall_ns,
            source,
            object: object.0,
            class: class.0,
            name: name.to_string(),
        },
        Callback::ReflectAttributeValues {
            object,
            class,
            values,
            tag,
            time,
            sender,
            sent_order,
            ..
        } => Record::Reflect {
            wall_ns,
            source,
            object: object.0,
            class: class.0,
            sent: sent(sent_order, time),
            sender,
            tag: tag.to_vec(),
            values: values.into_iter().map(|(a, v)| (a.0, v.to_vec())).collect(),
        },
        Callback::ReceiveInteraction {
            class,
            parameters,
            tag,
            time,
            sender,
            sent_order,
            ..
        } => Record::Interaction {
            wall_ns,
            source,
            class: class.0,
            sent: sent(sent_order, time),
            sender,
            tag: tag.to_vec(),
            parameters: parameters
                .into_iter()
                .map(|(p, v)| (p.0, v.to_vec()))
                .collect(),
        },
        Callback::RemoveObjectInstance {
            object,
            tag,
            time,
            sender,
            sent_order,
            ..
        } => Record::Remove {
            wall_ns,
            source,
            object: object.0,
            sent: sent(sent_order, time),
            sender,
            tag: tag.to_vec(),
        },
        _ => return None,
    })
}
