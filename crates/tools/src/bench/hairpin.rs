//! Raw-socket baselines across a site lab: a hairpin forwarder, and the socket pairs that
//! go through it.
//!
//! In `trellis lab` a Trellis benchmark's federates sit in one site and their router in
//! another, so every update crosses the site link twice: federate → router → federate. For
//! the raw baseline (EC1's phase 0) to measure the network its Trellis twin ran on, its
//! bytes take the same path: the sender's socket reaches a plain forwarder in the router's
//! site, which passes every byte (TCP) or datagram (UDP) straight back to the receiver's
//! socket. The forwarder adds no framing, no batching and no filtering, only a copy; what
//! the baseline then measures is the link (its delay both ways, its rate, its loss) and a
//! process's wake-up on the far side, which any router there pays as well.
//!
//! The request: the sender side connects to the forwarder over TCP and writes one byte of
//! kind (`T` or `U`) and the receiver's port (2 bytes, big-endian); the receiver is at the
//! address the request came from. For `T` the forwarder connects to the receiver, answers
//! `K` and copies both ways until each side ends. For `U` it binds a datagram socket of its
//! own, answers `K` and that socket's port, and forwards datagrams from the sender to the
//! receiver (and from the receiver to the sender) until the request's connection closes.

use super::sides::{tcp_pair, udp_pair, Sides, TcpSide, UdpSide};
use super::{BenchError, Raw};
use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const KIND_TCP: u8 = b'T';
const KIND_UDP: u8 = b'U';
const READY: u8 = b'K';
/// Longest any step of setting up a pair may take (a connection, an answer).
const STEP_TIMEOUT: Duration = Duration::from_secs(10);
/// How often idle loops look at the stop flag and the request's connection.
const POLL: Duration = Duration::from_millis(20);
const COPY_BUFFER: usize = 64 << 10;
const MAX_DATAGRAM: usize = 65_535;

/// Serve hairpin requests on `listener` until `stop` is raised. Each request gets threads
/// of its own, spawned from this one (so inside the same network namespace).
pub fn serve(listener: TcpListener, stop: Arc<AtomicBool>) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let local = listener.local_addr()?.ip();
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((stream, peer)) => {
                let stop = Arc::clone(&stop);
                std::thread::Builder::new()
                    .name("hairpin".into())
                    .spawn(move || {
                        if let Err(e) = serve_one(stream, peer, local, &stop) {
                            tracing::warn!("hairpin request from {peer}: {e}");
                        }
                    })?;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => std::thread::sleep(POLL),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn serve_one(
    mut request: TcpStream,
    peer: SocketAddr,
    local: IpAddr,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    request.set_nonblocking(false)?;
    request.set_nodelay(true)?;
    request.set_read_timeout(Some(STEP_TIMEOUT))?;
    let mut head = [0u8; 3];
    request.read_exact(&mut head)?;
    let target = SocketAddr::new(peer.ip(), u16::from_be_bytes([head[1], head[2]]));
    match head[0] {
        KIND_TCP => {
            let onward = TcpStream::connect_timeout(&target, STEP_TIMEOUT)?;
            onward.set_nodelay(true)?;
            request.set_read_timeout(None)?;
            request.write_all(&[READY])?;
            let (back_from, back_to) = (onward.try_clone()?, request.try_clone()?);
            let back = std::thread::Builder::new()
                .name("hairpin-back".into())
                .spawn(move || copy(back_from, back_to))?;
            let forth = copy(request, onward);
            let _ = back.join();
            forth
        }
        KIND_UDP => {
            let socket = UdpSocket::bind(SocketAddr::new(local, 0))?;
            socket.set_read_timeout(Some(POLL))?;
            let port = socket.local_addr()?.port().to_be_bytes();
            request.write_all(&[READY, port[0], port[1]])?;
            request.set_nonblocking(true)?;
            forward_datagrams(&socket, &mut request, target, stop)
        }
        other => Err(std::io::Error::new(
            ErrorKind::InvalidData,
            format!("unknown request kind {other:#04x}"),
        )),
    }
}

/// Copy `from` into `to` until `from` ends, then end `to`'s writing half.
fn copy(mut from: TcpStream, mut to: TcpStream) -> std::io::Result<()> {
    let mut buf = vec![0u8; COPY_BUFFER];
    let result = loop {
        match from.read(&mut buf) {
            Ok(0) => break Ok(()),
            Ok(n) => {
                if let Err(e) = to.write_all(&buf[..n]) {
                    break Err(e);
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
    };
    let _ = to.shutdown(Shutdown::Write);
    result
}

/// Datagrams from anyone but the receiver go to the receiver; the receiver's go back to
/// whoever sent last. A datagram the kernel will not take now is lost, as on a network.
fn forward_datagrams(
    socket: &UdpSocket,
    request: &mut TcpStream,
    receiver: SocketAddr,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let mut sender: Option<SocketAddr> = None;
    let mut looked = Instant::now();
    loop {
        match socket.recv_from(&mut buf) {
            Ok((n, from)) => {
                let to = if from == receiver {
                    sender
                } else {
                    sender = Some(from);
                    Some(receiver)
                };
                if let Some(to) = to {
                    match socket.send_to(&buf[..n], to) {
                        Ok(_) => {}
                        Err(e) if is_transient(&e) => {}
                        Err(e) => return Err(e),
                    }
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) if is_transient(&e) => {}
            Err(e) => return Err(e),
        }
        if looked.elapsed() >= POLL {
            looked = Instant::now();
            if stop.load(Ordering::Relaxed) || closed(request)? {
                return Ok(());
            }
        }
    }
}

/// A full buffer, or an ICMP error from an earlier datagram: the datagram is lost.
fn is_transient(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::WouldBlock | ErrorKind::ConnectionRefused | ErrorKind::Interrupted
    ) || e.raw_os_error() == Some(ENOBUFS)
}

/// Linux's "no buffer space available" (the lab runs only on Linux).
const ENOBUFS: i32 = 105;

/// Whether the (non-blocking) request connection was closed by the requester.
fn closed(request: &mut TcpStream) -> std::io::Result<bool> {
    let mut byte = [0u8; 1];
    match request.read(&mut byte) {
        Ok(0) => Ok(true),
        Ok(_) => Ok(false),
        Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(false),
        Err(e) if e.kind() == ErrorKind::ConnectionReset => Ok(true),
        Err(e) => Err(e),
    }
}

fn request(via: SocketAddr, kind: u8, port: u16) -> Result<TcpStream, BenchError> {
    let failed = |what: &str, e: std::io::Error| {
        BenchError::Failed(format!("the hairpin forwarder at {via}: {what}: {e}"))
    };
    let mut stream =
        TcpStream::connect_timeout(&via, STEP_TIMEOUT).map_err(|e| failed("connecting", e))?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(STEP_TIMEOUT))?;
    let port = port.to_be_bytes();
    stream
        .write_all(&[kind, port[0], port[1]])
        .map_err(|e| failed("asking", e))?;
    let mut ready = [0u8; 1];
    stream
        .read_exact(&mut ready)
        .map_err(|e| failed("waiting for its answer", e))?;
    if ready[0] != READY {
        return Err(BenchError::Failed(format!(
            "the hairpin forwarder at {via} answered {:#04x}",
            ready[0]
        )));
    }
    Ok(stream)
}

/// What a pair's own ends bind: loopback when the forwarder is there (so nothing listens
/// beyond this machine), every address when it is in another site.
fn own_address(via: SocketAddr) -> IpAddr {
    if via.ip().is_loopback() {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    } else {
        IpAddr::V4(Ipv4Addr::UNSPECIFIED)
    }
}

/// A forwarder on loopback, in this process, for as long as it lives: the plain relay a
/// raw baseline goes through to measure what any relay pays (`--raw tcp --relayed`).
pub(crate) struct LocalForwarder {
    pub(crate) address: SocketAddr,
    stopping: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl LocalForwarder {
    pub(crate) fn start() -> Result<LocalForwarder, BenchError> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let address = listener.local_addr()?;
        let stopping = Arc::new(AtomicBool::new(false));
        let serving = Arc::clone(&stopping);
        let thread = std::thread::Builder::new()
            .name("hairpin".into())
            .spawn(move || serve(listener, serving))?;
        Ok(LocalForwarder {
            address,
            stopping,
            thread: Some(thread),
        })
    }

    /// Stop accepting and wait for it: how serving ended (dropping logs a failure instead).
    /// Each pair's threads end when its sockets close.
    #[cfg(test)]
    fn stop(mut self) -> std::io::Result<()> {
        self.halt()
    }

    fn halt(&mut self) -> std::io::Result<()> {
        self.stopping.store(true, Ordering::SeqCst);
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("its thread panicked"))),
            None => Ok(()),
        }
    }
}

impl Drop for LocalForwarder {
    fn drop(&mut self) {
        if let Err(e) = self.halt() {
            tracing::warn!("the local hairpin forwarder: {e}");
        }
    }
}

/// A raw pair of `raw` sockets, (sender's end, receiver's end): directly connected, or
/// through the forwarder at `via`.
pub(crate) fn raw_pair(raw: Raw, via: Option<SocketAddr>) -> Result<Sides, BenchError> {
    Ok(match (raw, via) {
        (Raw::Tcp, None) => {
            let (a, b) = tcp_pair()?;
            (Box::new(a), Box::new(b))
        }
        (Raw::Udp, None) => {
            let (a, b) = udp_pair()?;
            (Box::new(a), Box::new(b))
        }
        (Raw::Tcp, Some(via)) => {
            let (a, b) = tcp_pair_via(via)?;
            (Box::new(a), Box::new(b))
        }
        (Raw::Udp, Some(via)) => {
            let (a, b) = udp_pair_via(via)?;
            (Box::new(a), Box::new(b))
        }
    })
}

/// A TCP pair whose bytes go through the forwarder at `via`: (sender's end, receiver's end).
pub(crate) fn tcp_pair_via(via: SocketAddr) -> Result<(TcpSide, TcpSide), BenchError> {
    let (sender, receiver) = tcp_streams_via(via)?;
    Ok((TcpSide::new(sender), TcpSide::new(receiver)))
}

/// The connected streams of a TCP pair through the forwarder at `via`: (sender's,
/// receiver's), both without Nagle's delay.
pub(crate) fn tcp_streams_via(via: SocketAddr) -> Result<(TcpStream, TcpStream), BenchError> {
    let listener = TcpListener::bind((own_address(via), 0))?;
    let sender = request(via, KIND_TCP, listener.local_addr()?.port())?;
    sender.set_read_timeout(None)?;
    // The forwarder connected before it answered; its connection is queued or about to be.
    listener.set_nonblocking(true)?;
    let deadline = Instant::now() + STEP_TIMEOUT;
    let receiver = loop {
        match listener.accept() {
            Ok((stream, _)) => break stream,
            Err(e) if e.kind() == ErrorKind::WouldBlock && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(e.into()),
        }
    };
    receiver.set_nonblocking(false)?;
    receiver.set_nodelay(true)?;
    Ok((sender, receiver))
}

/// A UDP pair whose datagrams go through the forwarder at `via`: (sender's end, receiver's
/// end). The receiver's end holds the request's connection, so the forwarder serves the pair
/// until the receiver is done with it (after the last straggler, not the last send).
pub(crate) fn udp_pair_via(via: SocketAddr) -> Result<(UdpSide, UdpSide), BenchError> {
    let (receiver, forwarder, control) = udp_receiver_via(via)?;
    let sender = UdpSocket::bind((own_address(via), 0))?;
    sender.connect(forwarder)?;
    receiver.connect(forwarder)?;
    Ok((
        UdpSide::new(sender, None),
        UdpSide::new(receiver, Some(control)),
    ))
}

/// A receiver's datagram socket served by the forwarder at `via`: the socket, the
/// forwarder's address a sender sends to (from a socket bound to [`sender_address`]), and
/// the request's connection, which keeps the forwarder serving while it is open.
pub(crate) fn udp_receiver_via(
    via: SocketAddr,
) -> Result<(UdpSocket, SocketAddr, TcpStream), BenchError> {
    let receiver = UdpSocket::bind((own_address(via), 0))?;
    let mut control = request(via, KIND_UDP, receiver.local_addr()?.port())?;
    let mut port = [0u8; 2];
    control.read_exact(&mut port).map_err(|e| {
        BenchError::Failed(format!("the hairpin forwarder at {via}: its port: {e}"))
    })?;
    let forwarder = SocketAddr::new(via.ip(), u16::from_be_bytes(port));
    Ok((receiver, forwarder, control))
}

/// What a socket that sends through the forwarder at `via` binds.
pub(crate) fn sender_address(via: SocketAddr) -> SocketAddr {
    SocketAddr::new(own_address(via), 0)
}

#[cfg(test)]
mod tests {
    use super::super::sides::Side;
    use super::*;

    fn received(side: &mut dyn Side) -> Vec<u8> {
        let deadline = Instant::now() + STEP_TIMEOUT;
        loop {
            if let Some(payload) = side.recv(POLL).unwrap() {
                return payload;
            }
            assert!(
                Instant::now() < deadline,
                "nothing came through the forwarder"
            );
        }
    }

    #[test]
    fn messages_come_back_through_the_forwarder_unchanged() {
        let forwarder = LocalForwarder::start().unwrap();
        let via = forwarder.address;
        let (mut tcp_out, mut tcp_in) = tcp_pair_via(via).unwrap();
        let (mut udp_out, mut udp_in) = udp_pair_via(via).unwrap();
        for size in [24, 1500, 9000] {
            let message: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            tcp_out.send(&message).unwrap();
            assert_eq!(received(&mut tcp_in), message);
            udp_out.send(&message).unwrap();
            assert_eq!(received(&mut udp_in), message);
        }
        forwarder.stop().unwrap();
    }

    #[test]
    fn an_unknown_request_is_refused() {
        let forwarder = LocalForwarder::start().unwrap();
        let mut stream = TcpStream::connect(forwarder.address).unwrap();
        stream.write_all(b"X\x00\x01").unwrap();
        stream.set_read_timeout(Some(STEP_TIMEOUT)).unwrap();
        let mut answer = [0u8; 1];
        // The forwarder drops the connection without answering.
        assert_eq!(stream.read(&mut answer).unwrap_or(0), 0);
        forwarder.stop().unwrap();
    }
}
