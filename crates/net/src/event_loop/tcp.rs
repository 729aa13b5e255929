//! TCP pipes: listening, accepting, dialing, reading into the router, writing its batches.

use super::host::{DialState, Transport};
use super::{Conn, EventLoop, Source, READS_PER_TURN, READ_CHUNK, WRITES_PER_TURN};
use crate::endpoint::Endpoint;
use crate::runtime::HostId;
use bytes::BytesMut;
use mio::net::{TcpListener, TcpStream};
use mio::Token;
use std::io::{ErrorKind, Read, Write};
use std::net::SocketAddr;
use trellis_core::router::LinkSpec;
use trellis_core::wire::UdpOffer;
use trellis_core::Time;

/// Room a read into a link's input buffer asks for at least.
pub(super) const MIN_READ_ROOM: usize = 8 << 10;

/// Read from `stream` into the spare room of `buf` (at most `limit` bytes), appending them.
/// Returns the bytes read and the room offered: a read shorter than its room emptied the
/// socket.
fn recv_into(
    stream: &TcpStream,
    buf: &mut BytesMut,
    limit: usize,
) -> std::io::Result<(usize, usize)> {
    let spare = buf.spare_capacity_mut();
    let room = spare.len().min(limit);
    let n = socket2::SockRef::from(stream).recv(&mut spare[..room])?;
    assert!(n <= room, "recv returned more than the room it was given");
    #[allow(unsafe_code)] // reading into spare capacity saves zeroing 64 KiB per read
    // SAFETY: `recv` wrote (initialised) the first `n` bytes of the spare room, and
    // `n <= room <= capacity - len`.
    unsafe {
        buf.set_len(buf.len() + n)
    };
    Ok((n, room))
}

/// Bind a listener. Unlike `mio`'s default, a port another socket listens on is an error
/// here even on systems where address reuse would allow it.
pub(super) fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    // Reuse lets a restarted router bind while old connections sit in TIME_WAIT; Linux
    // still refuses a port that another socket is listening on.
    socket.set_reuse_address(true)?;
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    Ok(TcpListener::from_std(socket.into()))
}

/// A fresh session token for a UDP offer: unpredictable enough that stray datagrams of an
/// old session never match a new one.
pub(super) fn session_token() -> u64 {
    use std::hash::BuildHasher;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::collections::hash_map::RandomState::new().hash_one(n) | 1
}

impl EventLoop {
    pub(super) fn accept(&mut self, now: Time, token: Token, host: HostId) {
        loop {
            let accepted = match self.sources[token.0 - 1].as_ref() {
                Some(Source::Listener { socket, .. }) => socket.accept(),
                _ => return,
            };
            let (stream, peer) = match accepted {
                Ok(pair) => pair,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    tracing::warn!("accept failed: {e}");
                    return;
                }
            };
            let Some(h) = self.hosts[host].as_mut() else {
                return;
            };
            let admitted = if h.is_stopping() {
                Err("refused: the router is shutting down".to_owned())
            } else {
                // Connections still shaking hands (TLS) count as links: otherwise idle TCP
                // connections to a TLS port would hold sockets beyond the bound.
                h.admission
                    .admit(h.transports.len() + h.handshakes.len(), peer.ip())
            };
            if let Err(why) = admitted {
                if let Some(suppressed) = h.warnings.admit(now) {
                    tracing::warn!(host = %h.name, %peer, suppressed, "{why}");
                }
                // A TLS client would read a plaintext goodbye as a broken handshake: it
                // gets the close alone (the reason is in our log).
                if !h.tls_listeners.contains(&token) {
                    refuse(stream, &why);
                }
                continue;
            }
            let _ = stream.set_nodelay(true);
            if h.tls_listeners.contains(&token) {
                self.accept_tls(now, host, stream, peer);
                continue;
            }
            let udp = h.udp.map(|(_, port)| UdpOffer {
                port,
                token: session_token(),
            });
            let conn = Conn::new(host, stream, peer, None);
            let Ok(conn_token) = self.register(Source::Conn(conn)) else {
                continue;
            };
            let h = self.hosts[host].as_mut().expect("host is live");
            let mut spec = LinkSpec::accepted(format!("tcp://{peer}"));
            if let Some(offer) = udp {
                spec = spec.with_udp(offer);
            }
            let link = h.router.add_link(now, spec);
            h.transports.insert(link, Transport::Tcp(conn_token));
            h.admission.accepted(link, peer.ip());
            if let Some(Source::Conn(conn)) = self.sources[conn_token.0 - 1].as_mut() {
                conn.link = Some(link);
            }
            // Data may already be waiting: edge-triggered readiness would not repeat it.
            self.read(now, conn_token);
        }
    }

    pub(super) fn dial(&mut self, now: Time, host: HostId, dialer: usize) {
        let Some(h) = self.hosts[host].as_mut() else {
            return;
        };
        let endpoint = h.dialers[dialer].endpoint().clone();
        match endpoint {
            Endpoint::Tcp(addr) | Endpoint::Tls { addr, .. } => match TcpStream::connect(addr) {
                Ok(stream) => {
                    let conn = Conn::new(host, stream, addr, Some(dialer));
                    match self.register(Source::Conn(conn)) {
                        Ok(token) => {
                            let h = self.hosts[host].as_mut().expect("host is live");
                            h.dialers[dialer].state = DialState::Connecting(token);
                        }
                        Err(e) => h_dial_failed(self, now, host, dialer, &e.to_string()),
                    }
                }
                Err(e) => h.dial_failed(now, dialer, &e.to_string()),
            },
            Endpoint::Memory(name) => self.dial_memory(now, host, dialer, &name),
            Endpoint::Udp(_) => h.dial_failed(
                now,
                dialer,
                "a link is dialed over tcp://, tls:// or mem://, not udp://",
            ),
        }
    }

    /// A dialing socket became ready: it connected or failed.
    pub(super) fn finish_connect(&mut self, now: Time, token: Token) {
        let Some(Source::Conn(conn)) = self.sources[token.0 - 1].as_mut() else {
            return;
        };
        let (host, dialer) = (
            conn.host,
            conn.dialer.expect("only dialed connections connect"),
        );
        let failed = match conn.stream.take_error() {
            Ok(Some(e)) | Err(e) => Some(e.to_string()),
            Ok(None) => match conn.stream.peer_addr() {
                Ok(_) => None,
                // Not connected yet: a spurious wake-up.
                Err(e) if e.kind() == ErrorKind::NotConnected => return,
                Err(e) => Some(e.to_string()),
            },
        };
        if self.hosts[host].as_ref().is_none_or(|h| h.is_stopping()) {
            self.deregister(token);
            return;
        }
        if let Some(why) = failed {
            self.deregister(token);
            h_dial_failed(self, now, host, dialer, &why);
            return;
        }
        let _ = conn.stream.set_nodelay(true);
        let h = self.hosts[host].as_mut().expect("host is live");
        if let Endpoint::Tls { host: name, .. } = h.dialers[dialer].endpoint() {
            let name = name.clone();
            return self.start_client_handshake(now, token, &name);
        }
        let config = &h.dialers[dialer].config;
        let mut spec = config.link_spec(h.dialers[dialer].endpoint().to_string());
        if let (true, Some((_, port))) = (config.udp, h.udp) {
            spec = spec.with_udp(UdpOffer {
                port,
                token: session_token(),
            });
        }
        let link = h.router.add_link(now, spec);
        h.dialers[dialer].state = DialState::Up(link);
        h.transports.insert(link, Transport::Tcp(token));
        conn.link = Some(link);
        self.flush(now, token);
        self.read(now, token);
    }

    /// Read until the socket is empty, the router pauses the link, or the per-turn budget
    /// is spent (then the read is retried next turn).
    pub(super) fn read(&mut self, now: Time, token: Token) {
        if let Some(Source::Conn(Conn { tls: Some(_), .. })) =
            self.sources.get(token.0 - 1).and_then(Option::as_ref)
        {
            return self.read_secure(now, token);
        }
        for _ in 0..READS_PER_TURN {
            let Some(Source::Conn(conn)) =
                self.sources.get_mut(token.0 - 1).and_then(Option::as_mut)
            else {
                return;
            };
            let Some(link) = conn.link else { return };
            let Some(h) = self.hosts[conn.host].as_mut() else {
                return;
            };
            if !h.router.wants_read(link) {
                return; // ReadResumed puts it back on the list.
            }
            // Bytes land in the link's own input buffer, where frames are decoded in place.
            // A closing link has none: what it still sends is read and dropped.
            // The router makes room only when little is left, as copying did: a buffer is
            // swapped (or grown to its partial frame's size) when its room runs out, not
            // before every read.
            let read = match h.router.input_buffer(link, MIN_READ_ROOM) {
                Some(buf) => recv_into(&conn.stream, buf, READ_CHUNK),
                None => {
                    let room = self.read_buf.len();
                    conn.stream.read(&mut self.read_buf).map(|n| (n, room))
                }
            };
            match read {
                Ok((0, _)) => return h.router.handle_eof(now, link),
                Ok((n, room)) => {
                    h.router.handle_received(now, link, n);
                    // A short read emptied the socket. Bytes that arrive later raise a new
                    // edge, so reading on to WouldBlock would only cost a syscall.
                    if n < room {
                        return;
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return h.router.handle_transport_error(now, link, e.to_string()),
            }
        }
        self.pending_reads.push(token);
    }

    /// Write the pending batch and further ones until the socket is full, the router has
    /// nothing more, or the per-turn budget is spent.
    pub(super) fn flush(&mut self, now: Time, token: Token) {
        for _ in 0..WRITES_PER_TURN {
            let Some(Source::Conn(conn)) =
                self.sources.get_mut(token.0 - 1).and_then(Option::as_mut)
            else {
                return;
            };
            let Some(link) = conn.link else { return };
            if !conn.writable {
                return; // the next writable event flushes
            }
            let Some(h) = self.hosts[conn.host].as_mut() else {
                return;
            };
            // TLS records already sealed go first: the socket takes them before new output.
            let sealed = conn.tls.as_ref().is_some_and(|tls| tls.wants_write());
            if !sealed && conn.wpos == conn.wbuf.len() {
                conn.wbuf.clear();
                conn.wpos = 0;
                if h.router.poll_transmit(now, link, &mut conn.wbuf) == 0 {
                    return;
                }
            }
            match write_out(conn, sealed) {
                Ok(n) => {
                    conn.wpos += n;
                    if n > 0 && conn.answer.wrote(now) {
                        self.answers_awaited += 1;
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    conn.writable = false;
                    return;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return h.router.handle_transport_error(now, link, e.to_string()),
            }
        }
        self.pending_writes.push(token);
    }

    pub(super) fn retry_reads(&mut self, now: Time) -> bool {
        let tokens = std::mem::take(&mut self.pending_reads);
        let progressed = !tokens.is_empty();
        for token in tokens {
            self.read(now, token);
        }
        progressed
    }

    pub(super) fn retry_writes(&mut self, now: Time) -> bool {
        let tokens = std::mem::take(&mut self.pending_writes);
        let progressed = !tokens.is_empty();
        for token in tokens {
            self.flush(now, token);
        }
        progressed
    }
}

/// Write what is next for the socket: sealed TLS records (returns 0: no plaintext taken),
/// else plaintext from the batch, into TLS (which seals it for the next write) or the
/// socket. Returns the bytes of the batch taken.
fn write_out(conn: &mut Conn, sealed: bool) -> std::io::Result<usize> {
    match conn.tls.as_mut() {
        Some(tls) if sealed => tls
            .write_tls(&mut super::secure::NoSigPipe(&conn.stream))
            .map(|_| 0),
        Some(tls) => tls.writer().write(&conn.wbuf[conn.wpos..]),
        None => conn.stream.write(&conn.wbuf[conn.wpos..]),
    }
}

/// Tell a connection we will not serve it why, in a goodbye, then drop it. Best effort: a
/// fresh socket's send buffer takes a goodbye at once, and we do not wait for it.
fn refuse(mut stream: TcpStream, why: &str) {
    let mut goodbye = BytesMut::new();
    trellis_core::wire::Goodbye::encode(why, &mut goodbye);
    let _ = stream.write(&goodbye);
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

fn h_dial_failed(event_loop: &mut EventLoop, now: Time, host: HostId, dialer: usize, why: &str) {
    if let Some(h) = event_loop.hosts[host].as_mut() {
        h.dial_failed(now, dialer, why);
    }
}
