//! The delay relay: reads every packet routed between sites from a TUN device in the `wan`
//! namespace, holds it for its site link's one-way delay (or drops it with the link's loss
//! probability, from a seeded RNG) and writes it back, whence the kernel forwards it to the
//! destination site.
//!
//! It runs on a thread of its own with a real-time priority and ns-precision timer slack
//! ([`crate::realtime`]), waking for the next due packet with `ppoll`, so on a busy machine
//! the delay a packet gets is the delay asked plus tens of microseconds, not milliseconds.
//! [`RelayStats`] reports how late packets left (the relay's own error) and every drop.

mod queue;

use crate::{netns, tun, LabError, LabSpec, RelayLimits};
use queue::DelayQueue;
use std::collections::HashMap;
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// Name of the TUN device in the `wan` namespace.
pub const TUN_NAME: &str = "relay";
/// Packets read before due ones are released, so a flood cannot hold back departures.
const READ_BATCH: usize = 64;
/// Larger than any IP packet.
const PACKET_BUFFER: usize = 65_536;

/// What the relay did, counted since it started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RelayStats {
    pub received: u64,
    pub forwarded: u64,
    /// Dropped by the links' loss probability.
    pub lost: u64,
    /// Dropped because the queue was at its packet or byte bound.
    pub dropped_queue_full: u64,
    /// Not IPv4 between two linked sites.
    pub dropped_unroutable: u64,
    pub write_errors: u64,
    /// How late packets left after their due time, summed and at worst.
    pub late_total: Duration,
    pub late_max: Duration,
    pub peak_queue_packets: usize,
    pub peak_queue_bytes: usize,
}

impl RelayStats {
    /// Mean lateness of a forwarded packet.
    pub fn late_mean(&self) -> Duration {
        self.late_total / u32::try_from(self.forwarded.max(1)).unwrap_or(u32::MAX)
    }
}

/// One direction of a site link as the relay applies it.
#[derive(Debug, Clone, Copy)]
struct Direction {
    delay: Duration,
    loss: f64,
}

/// Site `i` is `10.200.(i+1).0/24`; the relay needs only the site octet.
pub(crate) fn site_octet(site: usize) -> u8 {
    u8::try_from(site + 1).expect("a lab holds at most 250 sites")
}

/// The site octets of an IPv4 packet between two lab sites.
fn endpoints(packet: &[u8]) -> Option<(u8, u8)> {
    if packet.len() < 20 || packet[0] >> 4 != 4 {
        return None;
    }
    let (src, dst) = (&packet[12..16], &packet[16..20]);
    (src[..2] == [10, 200] && dst[..2] == [10, 200]).then_some((src[2], dst[2]))
}

/// A running relay; [`Relay::stop`] ends it and returns its counts.
pub struct Relay {
    stop: OwnedFd,
    thread: Option<std::thread::JoinHandle<Result<RelayStats, LabError>>>,
}

impl Relay {
    /// Create the TUN device in `wan_namespace` and start relaying by `spec`'s links.
    pub(crate) fn start(wan_namespace: &str, spec: &LabSpec) -> Result<Relay, LabError> {
        let directions = directions(spec);
        let (limits, seed) = (spec.relay, spec.seed);
        // SAFETY: eventfd with valid flags; the result is checked before use.
        let raw = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if raw < 0 {
            return Err(LabError::io("creating the relay's stop eventfd")(
                std::io::Error::last_os_error(),
            ));
        }
        // SAFETY: a fresh fd we own.
        let stop = unsafe { OwnedFd::from_raw_fd(raw) };
        let stop_for_thread = stop
            .try_clone()
            .map_err(LabError::io("cloning an eventfd"))?;
        let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel(1);
        let thread = netns::spawn_in(wan_namespace, "lab-relay", move || {
            if !crate::realtime::raise_this_thread() {
                tracing::warn!(
                    "no real-time priority for the relay: delays may run late under load"
                );
            }
            let device = match tun::open(TUN_NAME) {
                Ok(device) => device,
                Err(e) => {
                    let _ = ready_tx.send(Err(e.to_string()));
                    return Err(e);
                }
            };
            let _ = ready_tx.send(Ok(()));
            relay_loop(&device, &stop_for_thread, &directions, limits, seed)
        })?;
        let mut relay = Relay {
            stop,
            thread: Some(thread),
        };
        match ready_rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Ok(())) => Ok(relay),
            Ok(Err(_)) | Err(_) => Err(relay.join().err().unwrap_or(LabError::Io {
                what: "starting the relay".into(),
                source: ErrorKind::TimedOut.into(),
            })),
        }
    }

    /// Stop relaying and return what the relay did.
    pub fn stop(mut self) -> Result<RelayStats, LabError> {
        self.join()
    }

    fn join(&mut self) -> Result<RelayStats, LabError> {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to our eventfd.
        unsafe { libc::write(self.stop.as_raw_fd(), (&one as *const u64).cast(), 8) };
        match self.thread.take() {
            Some(thread) => thread.join().unwrap_or_else(|_| {
                Err(LabError::Io {
                    what: "the relay thread panicked".into(),
                    source: ErrorKind::Other.into(),
                })
            }),
            None => Ok(RelayStats::default()),
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.join();
    }
}

/// Both directions of every link, keyed by (source, destination) site octets.
fn directions(spec: &LabSpec) -> HashMap<(u8, u8), Direction> {
    let mut map = HashMap::new();
    for link in &spec.links {
        let (a, b) = (site_octet(link.sites.0), site_octet(link.sites.1));
        let direction = Direction {
            delay: link.delay,
            loss: link.loss,
        };
        map.insert((a, b), direction);
        map.insert((b, a), direction);
    }
    map
}

fn relay_loop(
    device: &File,
    stop: &OwnedFd,
    directions: &HashMap<(u8, u8), Direction>,
    limits: RelayLimits,
    seed: u64,
) -> Result<RelayStats, LabError> {
    let mut queue = DelayQueue::new(limits.queue_packets, limits.queue_bytes);
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut stats = RelayStats::default();
    let mut buffer = vec![0u8; PACKET_BUFFER];
    loop {
        let (packets_ready, stopping) = wait(device, stop, queue.next_due())?;
        if stopping {
            return Ok(stats);
        }
        if packets_ready {
            for _ in 0..READ_BATCH {
                let length = match (&*device).read(&mut buffer) {
                    Ok(length) => length,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) => return Err(LabError::io("reading the relay's TUN device")(e)),
                };
                admit(
                    &buffer[..length],
                    directions,
                    &mut queue,
                    &mut rng,
                    &mut stats,
                );
            }
        }
        release_due(device, &mut queue, &mut stats);
    }
}

/// Queue one packet read now, or count why not.
fn admit(
    packet: &[u8],
    directions: &HashMap<(u8, u8), Direction>,
    queue: &mut DelayQueue,
    rng: &mut fastrand::Rng,
    stats: &mut RelayStats,
) {
    let arrived = Instant::now();
    stats.received += 1;
    let Some(direction) = endpoints(packet).and_then(|pair| directions.get(&pair)) else {
        stats.dropped_unroutable += 1;
        return;
    };
    if direction.loss > 0.0 && rng.f64() < direction.loss {
        stats.lost += 1;
        return;
    }
    if !queue.push(arrived + direction.delay, packet.to_vec()) {
        stats.dropped_queue_full += 1;
        return;
    }
    stats.peak_queue_packets = stats.peak_queue_packets.max(queue.len());
    stats.peak_queue_bytes = stats.peak_queue_bytes.max(queue.bytes());
}

/// Write back every packet whose time has come.
fn release_due(device: &File, queue: &mut DelayQueue, stats: &mut RelayStats) {
    loop {
        let now = Instant::now();
        let Some((due, packet)) = queue.pop_due(now) else {
            return;
        };
        let late = now - due;
        stats.late_total += late;
        stats.late_max = stats.late_max.max(late);
        // A TUN device takes a packet whole or not at all.
        match (&*device).write(&packet) {
            Ok(written) if written == packet.len() => stats.forwarded += 1,
            Ok(written) => {
                stats.write_errors += 1;
                tracing::debug!("relay: {written} of {} bytes written", packet.len());
            }
            Err(e) => {
                stats.write_errors += 1;
                tracing::debug!("relay: writing a packet back: {e}");
            }
        }
    }
}

/// Sleep until the device is readable, the stop eventfd is signalled, or `until` passes.
/// Returns (device readable, stop signalled).
fn wait(device: &File, stop: &OwnedFd, until: Option<Instant>) -> Result<(bool, bool), LabError> {
    let mut fds = [
        libc::pollfd {
            fd: device.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: stop.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    let timeout = until.map(|due| {
        let left = due.saturating_duration_since(Instant::now());
        libc::timespec {
            tv_sec: left.as_secs() as libc::time_t,
            tv_nsec: left.subsec_nanos() as libc::c_long,
        }
    });
    let timeout_ptr = timeout
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: two valid pollfds; the timespec, if any, lives across the call.
    let result = unsafe { libc::ppoll(fds.as_mut_ptr(), 2, timeout_ptr, std::ptr::null()) };
    if result < 0 {
        let error = std::io::Error::last_os_error();
        if error.kind() == ErrorKind::Interrupted {
            return Ok((false, false));
        }
        return Err(LabError::io("waiting in the relay")(error));
    }
    let readable = |fd: &libc::pollfd| fd.revents & (libc::POLLIN | libc::POLLERR) != 0;
    Ok((readable(&fds[0]), readable(&fds[1])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_the_site_octets_of_lab_addresses_only() {
        let mut packet = [0u8; 20];
        packet[0] = 0x45;
        packet[12..16].copy_from_slice(&[10, 200, 1, 2]);
        packet[16..20].copy_from_slice(&[10, 200, 2, 2]);
        assert_eq!(endpoints(&packet), Some((1, 2)));
        packet[16..20].copy_from_slice(&[192, 168, 2, 2]);
        assert_eq!(endpoints(&packet), None);
        packet[0] = 0x60;
        assert_eq!(endpoints(&packet), None, "IPv6 is not relayed");
        assert_eq!(endpoints(&packet[..10]), None, "a truncated header");
    }
}
