//! TLS inside the event loop: handshakes on `tls://` connections before the router meets
//! them, and reading through a TLS session into the router's input buffers.
//!
//! A connection shakes hands without a link; once the far side is proven, the link is
//! handed to the router with the identity its certificate gives, so the router knows who
//! the far side is from the link's first byte. Writes go through `tcp::flush`, which seals
//! the router's batches in TLS records.

use super::host::{DialState, Transport};
use super::{Conn, EventLoop, Source, READS_PER_TURN, READ_CHUNK};
use crate::endpoint::Endpoint;
use crate::error::NetError;
use crate::runtime::{HostConfig, HostId};
use crate::tls::{describe_failure, peer_identity, refuses_us, server_name, LoadedTls, TlsError};
use mio::net::TcpStream;
use mio::Token;
use std::io::{ErrorKind, Read, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use trellis_core::router::LinkSpec;
use trellis_core::Time;

/// The first byte of a TLS handshake record (a client hello, or a server's answer).
const HANDSHAKE_RECORD: u8 = 0x16;
/// The first byte of a TLS alert record (a server refusing a client hello).
const ALERT_RECORD: u8 = 0x15;
/// What the warning says when best effort would have gone over UDP.
const UDP_UNSECURED: &str = "UDP is not secured yet; best effort travels over TLS";

/// Load a host's TLS configuration once, at its start. A host with `tls://` endpoints
/// and no configuration is refused here, not at its first dial.
pub(super) fn load(config: &HostConfig) -> Result<Option<LoadedTls>, NetError> {
    let is_tls = |e: &Endpoint| matches!(e, Endpoint::Tls { .. });
    let listens = config.listen.iter().any(is_tls);
    let first_tls = config
        .listen
        .iter()
        .chain(
            config
                .dial
                .iter()
                .flat_map(|d| std::iter::once(&d.endpoint).chain(&d.alternates)),
        )
        .find(|e| is_tls(e));
    match (&config.tls, first_tls) {
        (Some(tls), _) => Ok(Some(tls.load(listens)?)),
        (None, Some(endpoint)) => Err(TlsError::NotConfigured {
            endpoint: endpoint.to_string(),
        }
        .into()),
        (None, None) => Ok(None),
    }
}

/// Why a handshake step failed, as the log and the dialer say it.
struct Failed {
    why: String,
    /// Redialing cannot help while the certificates or the far side's scheme stay as they
    /// are (a refused certificate, a plain port): a node's `connect` reports it at once.
    lasting: bool,
    /// The far side closed before it said anything: a probe of the port (a load balancer's
    /// health check, the C API's connect), not worth a warning.
    silent: bool,
}

impl Failed {
    /// A failure of the connection itself (reset, closed): a redial may succeed.
    fn passing(why: impl Into<String>) -> Failed {
        Failed {
            why: why.into(),
            lasting: false,
            silent: false,
        }
    }

    fn silent(why: impl Into<String>) -> Failed {
        Failed {
            silent: true,
            ..Failed::passing(why)
        }
    }

    fn lasting(why: impl Into<String>) -> Failed {
        Failed {
            why: why.into(),
            lasting: true,
            silent: false,
        }
    }
}

/// Where a handshake stands after a step.
enum Handshake {
    Done,
    /// Waits for the socket (more input, or room to write).
    Pending,
}

impl EventLoop {
    pub(super) fn set_writable(&mut self, token: Token) {
        if let Some(Source::Conn(conn)) = self.sources[token.0 - 1].as_mut() {
            conn.writable = true;
        }
    }

    /// A connection accepted on a `tls://` listener: shake hands before the router sees it.
    pub(super) fn accept_tls(
        &mut self,
        now: Time,
        host: HostId,
        stream: TcpStream,
        peer: SocketAddr,
    ) {
        let Some(h) = self.hosts[host].as_mut() else {
            return;
        };
        let Some(config) = h.tls.as_ref().and_then(|t| t.server.clone()) else {
            return; // `load` refused a listener without a certificate
        };
        let session = match rustls::ServerConnection::new(config) {
            Ok(session) => session,
            Err(e) => {
                tracing::warn!(host = %h.name, %peer, "TLS session cannot start: {e}");
                return;
            }
        };
        let mut conn = Conn::new(host, stream, peer, None);
        conn.tls = Some(Box::new(session.into()));
        let Ok(token) = self.register(Source::Conn(conn)) else {
            return;
        };
        self.set_handshake_deadline(now, token);
        if let Some(h) = self.hosts[host].as_mut() {
            h.handshakes.insert(token);
        }
        // The client hello may already be waiting: edge-triggered readiness would not
        // repeat it.
        self.drive_handshake(now, token);
    }

    /// A dialed connection to a `tls://` endpoint connected: say hello as a TLS client.
    pub(super) fn start_client_handshake(&mut self, now: Time, token: Token, name: &str) {
        let Some(Source::Conn(conn)) = self.sources[token.0 - 1].as_mut() else {
            return;
        };
        let Some(h) = self.hosts[conn.host].as_ref() else {
            return;
        };
        let Some(config) = h.tls.as_ref().map(|t| Arc::clone(&t.client)) else {
            return self.handshake_failed(now, token, Failed::lasting("no TLS configuration"));
        };
        let session = server_name(name).and_then(|name| {
            rustls::ClientConnection::new(config, name).map_err(|e| e.to_string())
        });
        match session {
            Ok(session) => {
                conn.tls = Some(Box::new(session.into()));
                self.set_handshake_deadline(now, token);
                self.drive_handshake(now, token);
            }
            Err(why) => self.handshake_failed(now, token, Failed::lasting(why)),
        }
    }

    /// A handshake must finish within the router's `handshake_timeout`, as a hello must:
    /// a peer that connects and says nothing holds no socket for longer.
    fn set_handshake_deadline(&mut self, now: Time, token: Token) {
        let Some(Source::Conn(conn)) = self.sources[token.0 - 1].as_mut() else {
            return;
        };
        let Some(h) = self.hosts[conn.host].as_mut() else {
            return;
        };
        let deadline = now + h.router.config().link_defaults.handshake_timeout;
        conn.handshake_deadline = Some(deadline);
        h.handshake_deadlines.push_back((deadline, token));
    }

    /// Give up the handshakes whose deadline passed.
    pub(super) fn expire_handshakes(&mut self, now: Time, host: HostId) {
        loop {
            let Some(h) = self.hosts[host].as_mut() else {
                return;
            };
            let Some(&(deadline, token)) = h.handshake_deadlines.front() else {
                return;
            };
            if deadline > now {
                return;
            }
            h.handshake_deadlines.pop_front();
            // Only if the token still holds that handshake: tokens are reused.
            let still = matches!(
                self.sources[token.0 - 1].as_ref(),
                Some(Source::Conn(conn)) if conn.link.is_none() && conn.handshake_deadline == Some(deadline)
            );
            if still {
                let why = "no TLS handshake within the handshake timeout";
                self.handshake_failed(now, token, Failed::passing(why));
            }
        }
    }

    /// Move a handshake on as far as the socket allows.
    pub(super) fn drive_handshake(&mut self, now: Time, token: Token) {
        let Some(Source::Conn(conn)) = self.sources[token.0 - 1].as_mut() else {
            return;
        };
        if self.hosts[conn.host]
            .as_ref()
            .is_none_or(|h| h.is_stopping())
        {
            self.forget_handshake(token);
            return;
        }
        match handshake_step(conn) {
            Ok(Handshake::Pending) => {}
            Ok(Handshake::Done) => self.handshake_done(now, token),
            Err(failed) => self.handshake_failed(now, token, failed),
        }
    }

    fn forget_handshake(&mut self, token: Token) -> Option<Conn> {
        let Some(Source::Conn(conn)) = self.deregister(token) else {
            return None;
        };
        if let Some(h) = self.hosts[conn.host].as_mut() {
            h.handshakes.remove(&token);
        }
        Some(conn)
    }

    /// The far side is proven: hand the link to the router, with the identity of its
    /// certificate.
    fn handshake_done(&mut self, now: Time, token: Token) {
        let Some(Source::Conn(conn)) = self.sources[token.0 - 1].as_mut() else {
            return;
        };
        let Some(h) = self.hosts[conn.host].as_mut() else {
            return;
        };
        h.handshakes.remove(&token);
        let identity = conn
            .tls
            .as_ref()
            .and_then(|tls| peer_identity(tls.peer_certificates()));
        let wanted_udp = match conn.dialer {
            Some(dialer) => h.dialers[dialer].config.udp,
            None => h.udp.is_some(),
        };
        if wanted_udp && !h.said_udp_unsecured {
            h.said_udp_unsecured = true;
            tracing::warn!(host = %h.name, "{UDP_UNSECURED}");
        }
        let mut spec = match conn.dialer {
            Some(dialer) => {
                let d = &h.dialers[dialer];
                d.config.link_spec(d.endpoint().to_string())
            }
            None => LinkSpec::accepted(format!("tls://{}", conn.peer)),
        };
        if let Some(identity) = identity {
            tracing::debug!(host = %h.name, peer = %conn.peer, name = %identity.name, role = ?identity.role, "TLS peer proven");
            spec = spec.with_identity(identity);
        }
        let link = h.router.add_link(now, spec);
        match conn.dialer {
            Some(dialer) => h.dialers[dialer].state = DialState::Up(link),
            None => h.admission.accepted(link, conn.peer.ip()),
        }
        h.transports.insert(link, Transport::Tcp(token));
        conn.link = Some(link);
        self.flush(now, token);
        // Application data may have come with the end of the handshake.
        self.read(now, token);
    }

    /// Close a connection whose handshake failed, and say why once: in the log, and to the
    /// dialer's application.
    fn handshake_failed(&mut self, now: Time, token: Token, failed: Failed) {
        let Some(mut conn) = self.forget_handshake(token) else {
            return;
        };
        let Some(h) = self.hosts[conn.host].as_mut() else {
            return;
        };
        let why = format!("TLS handshake with {} failed: {}", conn.peer, failed.why);
        if failed.silent {
            tracing::debug!(host = %h.name, "{why}");
        } else if let Some(suppressed) = h.warnings.admit(now) {
            tracing::warn!(host = %h.name, suppressed, "{why}");
        }
        if let Some(dialer) = conn.dialer {
            if failed.lasting {
                h.tls_refused(&why);
            }
            h.dial_failed(now, dialer, &why);
        }
        // The alert rustls prepared tells a TLS peer why; best effort, no waiting.
        if let Some(tls) = conn.tls.as_mut() {
            while tls.wants_write() {
                if !matches!(tls.write_tls(&mut NoSigPipe(&conn.stream)), Ok(n) if n > 0) {
                    break;
                }
            }
        }
        close_quietly(&conn.stream);
    }

    /// Read through TLS until the socket is empty, the router pauses the link, or the
    /// per-turn budget is spent (then the read is retried next turn).
    pub(super) fn read_secure(&mut self, now: Time, token: Token) {
        for _ in 0..READS_PER_TURN {
            let Some(Source::Conn(conn)) =
                self.sources.get_mut(token.0 - 1).and_then(Option::as_mut)
            else {
                return;
            };
            let (Some(link), Some(tls)) = (conn.link, conn.tls.as_mut()) else {
                return;
            };
            let Some(h) = self.hosts[conn.host].as_mut() else {
                return;
            };
            if !h.router.wants_read(link) {
                return; // ReadResumed puts it back on the list.
            }
            // Plaintext already opened goes first; it lands in the link's input buffer
            // (a closing link has none: what it still sends is read and dropped).
            let room = h
                .router
                .input_buffer(link, super::tcp::MIN_READ_ROOM)
                .map_or(READ_CHUNK, |buf| {
                    (buf.capacity() - buf.len()).min(READ_CHUNK)
                });
            match tls.reader().read(&mut self.read_buf[..room]) {
                Ok(0) => return h.router.handle_eof(now, link),
                Ok(n) => {
                    if let Some(buf) = h.router.input_buffer(link, super::tcp::MIN_READ_ROOM) {
                        buf.extend_from_slice(&self.read_buf[..n]);
                    }
                    h.router.handle_received(now, link, n);
                    continue;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                // The far side closed without a close_notify: as a TCP end of stream.
                Err(e) if e.kind() == ErrorKind::UnexpectedEof => {
                    return h.router.handle_eof(now, link)
                }
                Err(e) => {
                    return h
                        .router
                        .handle_transport_error(now, link, format!("TLS: {e}"))
                }
            }
            // Nothing opened is left: take sealed records from the socket.
            match tls.read_tls(&mut conn.stream) {
                Ok(0) => return h.router.handle_eof(now, link),
                Ok(_) => {
                    if let Err(e) = tls.process_new_packets() {
                        let why = format!("TLS: {}", describe_failure(&e));
                        if conn.dialer.is_some() && refuses_us(&e) {
                            // TLS 1.3: a server checks a client's certificate after the
                            // client finished its handshake, and refuses it here.
                            h.tls_refused(&format!(
                                "TLS with {}: {}",
                                conn.peer,
                                describe_failure(&e)
                            ));
                        }
                        return h.router.handle_transport_error(now, link, why);
                    }
                    if tls.wants_write() {
                        // A key update or a ticket to answer.
                        self.pending_writes.push(token);
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return h.router.handle_transport_error(now, link, e.to_string()),
            }
        }
        self.pending_reads.push(token);
    }
}

/// One go at a handshake: write what TLS has to say, read what the far side said, until
/// the handshake is done or the socket has to wait.
fn handshake_step(conn: &mut Conn) -> Result<Handshake, Failed> {
    let accepted = conn.dialer.is_none();
    let Some(tls) = conn.tls.as_mut() else {
        return Ok(Handshake::Done);
    };
    loop {
        while tls.wants_write() && conn.writable {
            match tls.write_tls(&mut NoSigPipe(&conn.stream)) {
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => conn.writable = false,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(Failed::passing(e.to_string())),
            }
        }
        if !tls.is_handshaking() {
            return Ok(Handshake::Done);
        }
        if !tls.wants_read() {
            return Ok(Handshake::Pending);
        }
        if !conn.tls_heard && first_byte(&conn.stream, accepted)?.is_none() {
            return Ok(Handshake::Pending);
        }
        match tls.read_tls(&mut conn.stream) {
            Ok(0) => {
                return Err(Failed::passing(
                    "the far side closed the connection during the handshake",
                ))
            }
            Ok(_) => {
                conn.tls_heard = true;
                tls.process_new_packets()
                    .map_err(|e| Failed::lasting(describe_failure(&e)))?;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(Handshake::Pending),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(Failed::passing(e.to_string())),
        }
    }
}

/// Before the far side's first record: whether its first byte shows it speaks something
/// else than TLS (a plaintext Trellis node, or a plain port answering a TLS client).
/// `Ok(None)`: nothing has come yet.
fn first_byte(stream: &TcpStream, accepted: bool) -> Result<Option<()>, Failed> {
    let mut first = [0u8; 1];
    match stream.peek(&mut first) {
        Ok(0) => Err(Failed::silent(
            "the far side closed the connection before it said anything",
        )),
        Ok(_) if accepted && first[0] != HANDSHAKE_RECORD => {
            refuse_plaintext(stream);
            Err(Failed::lasting(
                "not a TLS client hello (a plaintext client on a tls:// port?)",
            ))
        }
        Ok(_) if !accepted && first[0] != HANDSHAKE_RECORD && first[0] != ALERT_RECORD => Err(
            Failed::lasting("the far side does not speak TLS (a plain tcp:// port?)"),
        ),
        Ok(_) => Ok(Some(())),
        Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => {
            Ok(None)
        }
        Err(e) => Err(Failed::passing(e.to_string())),
    }
}

/// The socket as rustls writes sealed records to it: with MSG_NOSIGNAL, as std's own
/// `write` on a TCP stream sends. rustls writes vectored, and `writev` on a connection the
/// peer closed raises SIGPIPE, which kills a C or C++ federate's process (only Rust
/// programs ignore the signal).
pub(super) struct NoSigPipe<'a>(pub(super) &'a TcpStream);

impl Write for NoSigPipe<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        (&mut &*self.0).write(buf)
    }

    #[cfg(target_os = "linux")]
    fn write_vectored(&mut self, bufs: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
        socket2::SockRef::from(self.0).send_vectored_with_flags(bufs, libc::MSG_NOSIGNAL)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Tell a plaintext Trellis node in its own words that this port takes TLS.
fn refuse_plaintext(stream: &TcpStream) {
    let mut goodbye = bytes::BytesMut::new();
    trellis_core::wire::Goodbye::encode("this port takes TLS: dial it as tls://", &mut goodbye);
    let _ = (&mut &*stream).write(&goodbye);
}

/// Close a connection without waiting, so that what was written reaches the far side:
/// unread input would turn the close into a reset that destroys it there.
fn close_quietly(stream: &TcpStream) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut scratch = [0u8; 4096];
    for _ in 0..16 {
        match (&mut &*stream).read(&mut scratch) {
            Ok(n) if n > 0 => continue,
            _ => break,
        }
    }
}
