//! A raw TCP ping-pong between two sites, to verify that a link's delay is what was asked:
//! a server thread inside one site echoes 64-byte messages to a client thread inside the
//! other. Both threads run at real-time priority ([`crate::realtime`]) so that on a busy
//! machine they measure the link rather than their own wake-ups. Every wait is bounded.

use crate::{Lab, LabError};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
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

/// The median of some durations (the upper one of an even count).
pub fn median(times: &[Duration]) -> Option<Duration> {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied()
}
