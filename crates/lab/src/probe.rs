//! A raw TCP ping-pong between two sites, to verify that a link's delay is what was asked:
//! a server thread inside one site echoes 64-byte messages to a client thread inside the
//! other. Both threads run at real-time priority ([`crate::realtime`]) so that on a busy
//! machine they measure the link rather than their own wake-ups. Every wait is bounded.

use crate::{Lab, LabError};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

const MESSAGE: usize = 64;
/// Longest any step of the probe may wait (a connection, an accept, an answer).
const STEP_TIMEOUT: Duration = Duration::from_secs(5);

/// Round-trip times of `rounds` measured exchanges from `client_site` to `server_site`, after
/// one unmeasured exchange that warms the connection.
pub fn round_trips(
    lab: &Lab,
    client_site: usize,
    server_site: usize,
    rounds: usize,
) -> Result<Vec<Duration>, LabError> {
    let bind = SocketAddr::from((lab.site_address(server_site), 0));
    let (port_tx, port_rx) = std::sync::mpsc::sync_channel(1);
    let server = lab.spawn_in_site(server_site, move || {
        crate::realtime::raise_this_thread();
        let listener = TcpListener::bind(bind).map_err(LabError::io(format!("binding {bind}")))?;
        let address = listener
            .local_addr()
            .map_err(LabError::io("reading an address"))?;
        let _ = port_tx.send(address);
        echo(&listener, rounds + 1)
    })?;
    let server_address = port_rx
        .recv_timeout(STEP_TIMEOUT)
        .map_err(|_| LabError::Io {
            what: "the probe server did not start".into(),
            source: std::io::ErrorKind::TimedOut.into(),
        });
    let client = server_address.and_then(|address| {
        lab.spawn_in_site(client_site, move || {
            crate::realtime::raise_this_thread();
            ping(address, rounds)
        })
    });
    let times = client.and_then(|c| joined(c.join()));
    // The server ends by itself: it answered every round, or its wait for the client timed out.
    let served = joined(server.join());
    let times = times?;
    served?;
    Ok(times)
}

fn joined<T>(result: std::thread::Result<Result<T, LabError>>) -> Result<T, LabError> {
    result.unwrap_or_else(|_| {
        Err(LabError::Io {
            what: "a probe thread panicked".into(),
            source: std::io::ErrorKind::Other.into(),
        })
    })
}

fn ping(server: SocketAddr, rounds: usize) -> Result<Vec<Duration>, LabError> {
    let io = |what: &str| LabError::io(format!("probe client {what} {server}"));
    let mut stream =
        TcpStream::connect_timeout(&server, STEP_TIMEOUT).map_err(io("connecting to"))?;
    prepare(&stream).map_err(io("configuring the connection to"))?;
    let mut message = [0u8; MESSAGE];
    let mut times = Vec::with_capacity(rounds);
    for round in 0..=rounds {
        let start = Instant::now();
        stream.write_all(&message).map_err(io("writing to"))?;
        stream
            .read_exact(&mut message)
            .map_err(io("reading from"))?;
        if round > 0 {
            times.push(start.elapsed());
        }
    }
    Ok(times)
}

fn echo(listener: &TcpListener, exchanges: usize) -> Result<(), LabError> {
    let io = |what: &str| LabError::io(format!("probe server {what}"));
    wait_readable(listener, STEP_TIMEOUT).map_err(io("waiting for the client"))?;
    let (mut stream, _) = listener.accept().map_err(io("accepting"))?;
    prepare(&stream).map_err(io("configuring its connection"))?;
    let mut message = [0u8; MESSAGE];
    for _ in 0..exchanges {
        stream.read_exact(&mut message).map_err(io("reading"))?;
        stream.write_all(&message).map_err(io("writing"))?;
    }
    Ok(())
}

fn prepare(stream: &TcpStream) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(STEP_TIMEOUT))?;
    stream.set_write_timeout(Some(STEP_TIMEOUT))
}

/// Wait until a connection is waiting on `listener`, at most `timeout`.
fn wait_readable(listener: &TcpListener, timeout: Duration) -> std::io::Result<()> {
    let mut fd = libc::pollfd {
        fd: listener.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let millis = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
    // SAFETY: one valid pollfd for the duration of the call.
    match unsafe { libc::poll(&mut fd, 1, millis) } {
        1.. => Ok(()),
        0 => Err(std::io::ErrorKind::TimedOut.into()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Wait until a TCP socket listens at `address` inside `site`, looking every 20 ms at most
/// `timeout`. It reads the site's socket table rather than connecting, so the listener never
/// sees a stray connection.
pub fn wait_listening(
    lab: &Lab,
    site: usize,
    address: SocketAddrV4,
    timeout: Duration,
) -> Result<(), LabError> {
    let deadline = Instant::now() + timeout;
    let watcher = lab.spawn_in_site(site, move || loop {
        // thread-self: this thread's network namespace, not the process's.
        let table = std::fs::read_to_string("/proc/thread-self/net/tcp")
            .map_err(LabError::io("reading /proc/thread-self/net/tcp"))?;
        if table.lines().skip(1).any(|line| listens_at(line, address)) {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(LabError::io(format!("nothing listens at {address}"))(
                std::io::ErrorKind::TimedOut.into(),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    })?;
    joined(watcher.join())
}

/// Whether a line of /proc/net/tcp is a listener at `address` (or on every address at its
/// port). Addresses there are hex of the address bytes read as a native u32, then `:PORT`.
fn listens_at(line: &str, address: SocketAddrV4) -> bool {
    const LISTEN: &str = "0A";
    let mut fields = line.split_whitespace().skip(1);
    let (Some(local), Some(_remote), Some(state)) = (fields.next(), fields.next(), fields.next())
    else {
        return false;
    };
    let Some((ip, port)) = local.split_once(':') else {
        return false;
    };
    let (Ok(ip), Ok(port)) = (u32::from_str_radix(ip, 16), u16::from_str_radix(port, 16)) else {
        return false;
    };
    let ip = Ipv4Addr::from(ip.to_ne_bytes());
    state == LISTEN
        && port == address.port()
        && (ip == *address.ip() || ip == Ipv4Addr::UNSPECIFIED)
}

/// The median of some durations (the upper one of an even count).
pub fn median(times: &[Duration]) -> Option<Duration> {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listener_is_read_from_the_socket_table() {
        let address = SocketAddrV4::new(Ipv4Addr::new(10, 200, 1, 2), 7000);
        let ip = u32::from_ne_bytes([10, 200, 1, 2]);
        let line = format!("   0: {ip:08X}:1B58 00000000:0000 0A 00000000:00000000 00:00000000");
        assert!(listens_at(&line, address));
        assert!(
            !listens_at(&line.replace(" 0A ", " 01 "), address),
            "established"
        );
        assert!(
            !listens_at(&line.replace(":1B58", ":1B59"), address),
            "another port"
        );
        let any = "   1: 00000000:1B58 00000000:0000 0A 0";
        assert!(listens_at(any, address), "every address");
        assert!(!listens_at("garbage", address));
    }
}
