//! The DIS gateway federate: one thread that reads DIS PDUs from a UDP socket and HLA
//! callbacks from its federate node in turn, and translates each into the other side.
//!
//! Echoes are cut at both edges: an Entity State PDU whose entity an HLA federate owns
//! (its EntityIdentifier is in the HLA table) is dropped, as is a Fire or Detonation PDU
//! whose event the gateway itself sent to DIS; the gateway never discovers the instances it
//! registered, and an interaction whose event it sent into HLA is dropped if it returns.

mod handles;
mod state;
mod to_dis;
mod to_hla;

use crate::pdu::{decode_datagram, Pdu, PduError};
use handles::Handles;
use socket2::{Domain, Protocol, Socket, Type};
use state::{RateLimitedLog, Tables};
use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use thiserror::Error;
use trellis_core::federate::Callback;
use trellis_core::fom::ObjectModel;
use trellis_net::rti::{ResignAction, RtiAmbassador, RtiConfig, RtiError};
use trellis_net::NodeConfig;

/// How the gateway joins and where it sends and listens.
#[derive(Clone, Debug)]
pub struct GatewayConfig {
    /// The router, as a local settings designator (`tcp://HOST:PORT`).
    pub rti: String,
    pub federation: String,
    pub federate_name: String,
    /// The RPR FOM 2.0 modules (created with them if the federation does not exist).
    pub fom: Vec<PathBuf>,
    /// Where DIS PDUs arrive.
    pub listen: SocketAddr,
    /// Where PDUs go (unicast); with `broadcast` or `multicast` and none given, the
    /// broadcast address or the group at the listening port.
    pub send_to: Vec<SocketAddr>,
    pub broadcast: bool,
    pub multicast: Option<Ipv4Addr>,
    /// Only PDUs of this exercise are read; every PDU sent carries it.
    pub exercise: u8,
    /// The gateway's own site and application: the originator of Remove Entity PDUs, and
    /// the entity ids of HLA entities that give none.
    pub site: u16,
    pub application: u16,
    /// An HLA entity's Entity State is re-sent (dead-reckoned) after this much silence.
    pub heartbeat: Duration,
    /// A DIS entity unheard for this long is deleted.
    pub timeout: Duration,
    /// The most entities each table holds (DIS-owned and HLA-owned).
    pub max_entities: usize,
}

/// What the gateway has done, for the summary line and metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub datagrams: u64,
    pub entity_state_in: u64,
    pub fire_in: u64,
    pub detonation_in: u64,
    pub remove_in: u64,
    pub entity_state_out: u64,
    pub fire_out: u64,
    pub detonation_out: u64,
    pub remove_out: u64,
    pub malformed: u64,
    pub unsupported: u64,
    pub other_exercise: u64,
    pub echoes: u64,
    pub dis_entities: u64,
    pub hla_entities: u64,
    pub timed_out: u64,
    pub table_full: u64,
    pub bad_hla_values: u64,
    pub send_errors: u64,
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "datagrams={} es_in={} fire_in={} det_in={} remove_in={} es_out={} fire_out={} \
             det_out={} remove_out={} malformed={} unsupported={} other_exercise={} echoes={} \
             dis_entities={} hla_entities={} timed_out={} table_full={} bad_hla_values={} \
             send_errors={}",
            self.datagrams,
            self.entity_state_in,
            self.fire_in,
            self.detonation_in,
            self.remove_in,
            self.entity_state_out,
            self.fire_out,
            self.detonation_out,
            self.remove_out,
            self.malformed,
            self.unsupported,
            self.other_exercise,
            self.echoes,
            self.dis_entities,
            self.hla_entities,
            self.timed_out,
            self.table_full,
            self.bad_hla_values,
            self.send_errors
        )
    }
}

/// Why the gateway could not start or stopped.
#[derive(Debug, Error)]
pub enum GatewayError {
    #[error("object model: {0}")]
    ObjectModel(String),
    #[error("RTI: {0}")]
    Rti(#[from] RtiError),
    #[error("UDP {what}: {source}")]
    Udp {
        what: String,
        source: std::io::Error,
    },
    #[error("router address {0}")]
    Address(String),
    #[error("the RTI connection was lost: {0}")]
    ConnectionLost(String),
}

/// The most datagrams read, and callbacks handled, before turning to the other side.
const BATCH: usize = 256;
/// The UDP receive buffer asked for.
const RECEIVE_BUFFER: usize = 4 << 20;
/// How often DIS time-outs and HLA heartbeats are looked at.
const SWEEP_EVERY: Duration = Duration::from_millis(200);

/// A joined gateway.
pub struct Gateway {
    config: GatewayConfig,
    rti: RtiAmbassador,
    socket: UdpSocket,
    destinations: Vec<SocketAddr>,
    handles: Handles,
    tables: Tables,
    counts: Counts,
    bad_pdu_log: RateLimitedLog,
    bad_value_log: RateLimitedLog,
    started: Instant,
}

impl Gateway {
    /// Load the object model, bind the socket, join, publish and subscribe.
    pub fn start(config: GatewayConfig) -> Result<Gateway, GatewayError> {
        let model = ObjectModel::load(&config.fom, &|path| std::fs::read(path))
            .map_err(|e| GatewayError::ObjectModel(e.to_string()))?;
        let model = Arc::new(model);
        let (socket, destinations) = bind(&config)?;
        let endpoint = (config.rti.parse())
            .map_err(|e| GatewayError::Address(format!("{}: {e}", config.rti)))?;
        let node = NodeConfig::child_of(&config.federate_name, &config.federation, endpoint);
        let mut rti = RtiAmbassador::connect(RtiConfig::new(node))?;
        match rti.create_federation_execution(&model) {
            Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
            Err(e) => return Err(e.into()),
        }
        rti.join_federation_execution(&config.federate_name, "trellis-dis-gateway", model)?;
        let handles = Handles::declare(&mut rti)?;
        Ok(Gateway {
            tables: Tables::new(config.max_entities),
            config,
            rti,
            socket,
            destinations,
            handles,
            counts: Counts::default(),
            bad_pdu_log: RateLimitedLog::default(),
            bad_value_log: RateLimitedLog::default(),
            started: Instant::now(),
        })
    }

    /// Where the socket listens (the port chosen when 0 was asked for).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.socket.local_addr().ok()
    }

    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Run until `stop` is set; `report` gets the counts every `every` and at the end.
    pub fn run(
        mut self,
        stop: &AtomicBool,
        every: Duration,
        report: &mut dyn FnMut(&Counts),
    ) -> Result<Counts, GatewayError> {
        let mut next_sweep = Instant::now() + SWEEP_EVERY;
        let mut next_report = Instant::now() + every;
        let mut buffer = vec![0u8; 65_536];
        while !stop.load(Ordering::Relaxed) {
            let read = self.read_datagrams(&mut buffer);
            self.handle_callbacks(read == 0)?;
            let now = Instant::now();
            if now >= next_sweep {
                self.sweep(now);
                next_sweep = now + SWEEP_EVERY;
            }
            if now >= next_report {
                report(&self.counts);
                next_report = now + every;
            }
        }
        report(&self.counts);
        self.rti
            .resign_federation_execution(ResignAction::DeleteObjects)?;
        Ok(self.counts)
    }

    /// Read what has arrived, at most a batch; the number of datagrams read.
    fn read_datagrams(&mut self, buffer: &mut [u8]) -> usize {
        let mut read = 0;
        while read < BATCH {
            let Ok((length, _from)) = self.socket.recv_from(buffer) else {
                break; // WouldBlock, or an ICMP error reported on a later read: try later
            };
            read += 1;
            self.counts.datagrams += 1;
            for pdu in decode_datagram(&buffer[..length]) {
                self.handle_decoded(pdu);
            }
        }
        read
    }

    fn handle_decoded(&mut self, pdu: Result<Pdu, PduError>) {
        match pdu {
            Ok(pdu) if pdu.header.exercise != self.config.exercise => {
                self.counts.other_exercise += 1;
            }
            Ok(pdu) => {
                if let Err(e) = self.pdu_to_hla(pdu) {
                    self.counts.bad_hla_values += 1;
                    self.bad_value_log
                        .warn(&format!("sending a DIS PDU into HLA: {e}"));
                }
            }
            Err(e) if e.is_unsupported() => self.counts.unsupported += 1,
            Err(e) => {
                self.counts.malformed += 1;
                self.bad_pdu_log.warn(&format!("malformed DIS PDU: {e}"));
            }
        }
    }

    /// Handle the callbacks ready; when `may_wait` (no datagram came), wait a moment for
    /// the first.
    fn handle_callbacks(&mut self, may_wait: bool) -> Result<(), GatewayError> {
        let mut wait = if may_wait {
            Duration::from_millis(1)
        } else {
            Duration::ZERO
        };
        for _ in 0..BATCH {
            let Some(callback) = self.rti.evoke_callback(wait)? else {
                break;
            };
            wait = Duration::ZERO;
            if let Callback::ConnectionLost { fault } = &callback {
                return Err(GatewayError::ConnectionLost(fault.clone()));
            }
            if let Err(e) = self.callback_to_dis(&callback) {
                self.counts.bad_hla_values += 1;
                self.bad_value_log.warn(&format!("an HLA value: {e}"));
            }
            self.rti.recycle(callback);
        }
        Ok(())
    }

    /// DIS entities unheard for the time-out are deleted; HLA entities silent for the
    /// heartbeat are sent again.
    fn sweep(&mut self, now: Instant) {
        for object in self.tables.timed_out(now, self.config.timeout) {
            self.counts.timed_out += 1;
            if let Err(e) = self.rti.delete_object_instance(object, b"DIS time-out") {
                self.counts.bad_hla_values += 1;
                self.bad_value_log
                    .warn(&format!("deleting a timed-out entity: {e}"));
            }
        }
        for object in self.tables.heartbeats_due(now, self.config.heartbeat) {
            self.send_hla_entity(object, now, 0);
        }
        self.counts.dis_entities = self.tables.dis_len() as u64;
        self.counts.hla_entities = self.tables.hla_len() as u64;
    }

    fn send(&mut self, pdu: &Pdu) {
        let bytes = pdu.to_bytes();
        for destination in &self.destinations {
            if self.socket.send_to(&bytes, destination).is_err() {
                self.counts.send_errors += 1;
            }
        }
    }

    /// The DIS timestamp now: relative time (bit 0 clear), in units of 3600 s / 2^31 past
    /// the hour of the gateway's start.
    fn timestamp(&self) -> u32 {
        let past_hour = self.started.elapsed().as_secs_f64() % 3600.0;
        let units = (past_hour / 3600.0 * f64::from(1u32 << 31)) as u32;
        units << 1
    }
}

/// The socket (non-blocking) and where PDUs go.
fn bind(config: &GatewayConfig) -> Result<(UdpSocket, Vec<SocketAddr>), GatewayError> {
    let udp = |what: &str| {
        let what = what.to_owned();
        move |source| GatewayError::Udp { what, source }
    };
    let socket = Socket::new(
        Domain::for_address(config.listen),
        Type::DGRAM,
        Some(Protocol::UDP),
    )
    .map_err(udp("socket"))?;
    if config.broadcast || config.multicast.is_some() {
        // DIS applications on one host share the exercise's port.
        socket
            .set_reuse_address(true)
            .map_err(udp("set SO_REUSEADDR"))?;
    }
    // Room for bursts while the gateway is busy on the HLA side; best effort (the kernel
    // caps it at net.core.rmem_max).
    let _ = socket.set_recv_buffer_size(RECEIVE_BUFFER);
    socket
        .bind(&config.listen.into())
        .map_err(udp(&format!("bind {}", config.listen)))?;
    let socket: UdpSocket = socket.into();
    socket
        .set_nonblocking(true)
        .map_err(udp("set non-blocking"))?;
    let port = socket.local_addr().map_err(udp("local address"))?.port();
    let mut destinations = config.send_to.clone();
    if config.broadcast {
        socket.set_broadcast(true).map_err(udp("set broadcast"))?;
        if destinations.is_empty() {
            destinations.push(SocketAddr::from((Ipv4Addr::BROADCAST, port)));
        }
    }
    if let Some(group) = config.multicast {
        socket
            .join_multicast_v4(&group, &Ipv4Addr::UNSPECIFIED)
            .map_err(udp(&format!("join multicast group {group}")))?;
        if destinations.is_empty() {
            destinations.push(SocketAddr::from((group, port)));
        }
    }
    Ok((socket, destinations))
}
