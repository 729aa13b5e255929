//! The UDP pipe: best-effort datagrams beside TCP links.

use super::{EventLoop, Source};
use crate::runtime::HostId;
use mio::Token;
use std::io::ErrorKind;
use trellis_core::Time;

/// Socket buffers asked for: a burst of large fragmented frames must not overflow the
/// receive buffer (the kernel caps the request at its `rmem_max` / `wmem_max`).
const SOCKET_BUFFER: usize = 4 << 20;

/// A non-blocking UDP socket with room for bursts.
pub(super) fn bind(addr: std::net::SocketAddr) -> std::io::Result<mio::net::UdpSocket> {
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::DGRAM,
        Some(socket2::Protocol::UDP),
    )?;
    // Best effort: a smaller buffer still works, it just drops bursts sooner.
    let _ = socket.set_recv_buffer_size(SOCKET_BUFFER);
    let _ = socket.set_send_buffer_size(SOCKET_BUFFER);
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    Ok(mio::net::UdpSocket::from_std(socket.into()))
}

/// The local address this host's packets to `remote` leave from, as the routing table
/// chooses it: connecting a UDP socket sends nothing, it only picks the route.
pub(super) fn local_ip_toward(remote: std::net::SocketAddr) -> std::io::Result<std::net::IpAddr> {
    let unspecified: std::net::IpAddr = match remote {
        std::net::SocketAddr::V4(_) => std::net::Ipv4Addr::UNSPECIFIED.into(),
        std::net::SocketAddr::V6(_) => std::net::Ipv6Addr::UNSPECIFIED.into(),
    };
    let probe = std::net::UdpSocket::bind((unspecified, 0))?;
    probe.connect(remote)?;
    Ok(probe.local_addr()?.ip())
}

impl EventLoop {
    pub(super) fn receive_datagrams(&mut self, now: Time, token: Token) {
        loop {
            let Some(Source::Udp { host, socket }) = self.sources[token.0 - 1].as_ref() else {
                return;
            };
            let Some(h) = self.hosts[*host].as_mut() else {
                return;
            };
            match socket.recv_from(&mut self.read_buf) {
                Ok((n, _from)) => h.router.handle_datagram(now, &self.read_buf[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                // An ICMP error from an earlier send surfaces here; the datagram is lost.
                Err(e) => tracing::debug!("udp receive: {e}"),
            }
        }
    }

    pub(super) fn send_datagrams_for_token(&mut self, now: Time, token: Token) {
        if let Some(Source::Udp { host, .. }) = self.sources[token.0 - 1].as_ref() {
            let host = *host;
            self.send_datagrams(now, host);
        }
    }

    /// Send every queued best-effort datagram of `host` until the socket pushes back.
    pub(super) fn send_datagrams(&mut self, now: Time, host: HostId) -> bool {
        let Some(h) = self.hosts[host].as_mut() else {
            return false;
        };
        let Some((token, _)) = h.udp else {
            return false;
        };
        let Some(Source::Udp { socket, .. }) = self.sources[token.0 - 1].as_ref() else {
            return false;
        };
        let mut progressed = false;
        let mut buf = Vec::new();
        for i in 0..h.udp_peers.len() {
            let (link, addr) = h.udp_peers[i];
            loop {
                let (datagram, to) = match h.udp_held.take() {
                    Some(held) => held,
                    None => {
                        if h.router.poll_datagram(now, link, &mut buf) == 0 {
                            break;
                        }
                        (std::mem::take(&mut buf), addr)
                    }
                };
                match socket.send_to(&datagram, to) {
                    Ok(_) => progressed = true,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        h.udp_held = Some((datagram, to));
                        return progressed;
                    }
                    // Best effort: a datagram the network refuses is lost, as it may be anyway.
                    Err(e) => tracing::debug!("udp send to {to}: {e}"),
                }
                buf = datagram;
            }
        }
        progressed
    }
}
