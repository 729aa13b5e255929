//! The baselines' 1→N workload over plain sockets: one write (or datagram) per message per
//! receiver, no router, no Trellis.

use super::hairpin;
use super::throughput::{pause, send_for, wait_for_drain, Counter, Outcome, ThroughputOptions};
use super::{BenchError, Raw, Transport};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A connected (writer, reader) pair: on loopback, or through the forwarder at `via`.
fn connected_pair(via: Option<SocketAddr>) -> Result<(TcpStream, TcpStream), BenchError> {
    if let Some(via) = via {
        return hairpin::tcp_streams_via(via);
    }
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let client = TcpStream::connect(listener.local_addr()?)?;
    let (server, _) = listener.accept()?;
    client.set_nodelay(true)?;
    server.set_nodelay(true)?;
    Ok((client, server))
}

pub(crate) fn throughput(
    raw: Raw,
    options: &ThroughputOptions,
    receivers: usize,
) -> Result<Outcome, BenchError> {
    match raw {
        Raw::Tcp => tcp(options, receivers),
        Raw::Udp => udp(options, receivers),
    }
}

/// A receiver's socket and where the sender sends to reach it (the forwarder's port when
/// there is one; its connection, held while the case runs, keeps it serving).
fn udp_receiver(
    via: Option<SocketAddr>,
) -> Result<(UdpSocket, SocketAddr, Option<TcpStream>), BenchError> {
    match via {
        Some(via) => {
            let (socket, forwarder, control) = hairpin::udp_receiver_via(via)?;
            Ok((socket, forwarder, Some(control)))
        }
        None => {
            let socket = UdpSocket::bind("127.0.0.1:0")?;
            let address = socket.local_addr()?;
            Ok((socket, address, None))
        }
    }
}

fn tcp(options: &ThroughputOptions, receivers: usize) -> Result<Outcome, BenchError> {
    let start = Instant::now();
    let mut writers = Vec::new();
    let mut readers = Vec::new();
    let counters: Vec<Arc<Counter>> = (0..receivers).map(|_| Arc::default()).collect();
    for counter in &counters {
        let (writer, mut reader) = connected_pair(options.raw_via)?;
        writers.push(writer);
        let counter = counter.clone();
        let size = options.size;
        readers.push(std::thread::spawn(move || {
            count_frames(&mut reader, size, &counter, start)
        }));
    }
    let mut message = (options.size as u32).to_le_bytes().to_vec();
    message.resize(4 + options.size, 0xA5);
    let (sent, send_time) = send_for(options.seconds, || {
        for writer in &mut writers {
            // One write per message: what a sender without bundling does.
            writer.write_all(&message)?;
        }
        Ok(())
    })?;
    for writer in &writers {
        writer.shutdown(Shutdown::Write)?;
    }
    wait_for_drain(
        &counters,
        &vec![sent; receivers],
        Transport::Reliable,
        pause,
    );
    for reader in readers {
        reader
            .join()
            .map_err(|_| BenchError::Failed("reader panicked".into()))??;
    }
    Ok(Outcome {
        sent,
        send_time,
        receivers: counters
            .iter()
            .map(|c| (c.received.load(Ordering::SeqCst), elapsed(c)))
            .collect(),
    })
}

fn elapsed(counter: &Counter) -> Duration {
    Duration::from_nanos(counter.last_nanos.load(Ordering::SeqCst))
}

fn count_frames(
    stream: &mut TcpStream,
    size: usize,
    counter: &Counter,
    start: Instant,
) -> Result<(), BenchError> {
    let frame_len = 4 + size;
    let mut buf = vec![0u8; 64 << 10];
    let mut carried = 0usize;
    let mut received = 0u64;
    loop {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        carried += n;
        let whole = carried / frame_len;
        carried %= frame_len;
        if whole > 0 {
            received += whole as u64;
            counter.record(received, start);
        }
    }
}

fn udp(options: &ThroughputOptions, receivers: usize) -> Result<Outcome, BenchError> {
    if options.size > super::sides::MAX_UDP_PAYLOAD {
        return Err(BenchError::Failed(format!(
            "raw UDP carries at most {} bytes per datagram",
            super::sides::MAX_UDP_PAYLOAD
        )));
    }
    let start = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let counters: Vec<Arc<Counter>> = (0..receivers).map(|_| Arc::default()).collect();
    let mut addresses = Vec::new();
    let mut readers = Vec::new();
    // Held until the receivers are done: each keeps its forwarder serving.
    let mut controls = Vec::new();
    for counter in &counters {
        let (socket, address, control) = udp_receiver(options.raw_via)?;
        socket.set_read_timeout(Some(Duration::from_millis(20)))?;
        addresses.push(address);
        controls.extend(control);
        let (counter, stop) = (counter.clone(), stop.clone());
        readers.push(std::thread::spawn(move || {
            let mut buf = vec![0u8; super::sides::MAX_UDP_PAYLOAD];
            let mut received = 0u64;
            while !stop.load(Ordering::Relaxed) {
                if socket.recv(&mut buf).is_ok() {
                    received += 1;
                    counter.record(received, start);
                }
            }
        }));
    }
    let sender = match options.raw_via {
        Some(via) => UdpSocket::bind(hairpin::sender_address(via))?,
        None => UdpSocket::bind("127.0.0.1:0")?,
    };
    let datagram = vec![0xA5u8; options.size];
    let (sent, send_time) = send_for(options.seconds, || {
        for address in &addresses {
            match sender.send_to(&datagram, address) {
                Ok(_) => {}
                // A full buffer loses the datagram: that is what best effort means here.
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    })?;
    wait_for_drain(
        &counters,
        &vec![sent; receivers],
        Transport::BestEffort,
        pause,
    );
    stop.store(true, Ordering::SeqCst);
    for reader in readers {
        let _ = reader.join();
    }
    drop(controls);
    Ok(Outcome {
        sent,
        send_time,
        receivers: counters
            .iter()
            .map(|c| (c.received.load(Ordering::SeqCst), elapsed(c)))
            .collect(),
    })
}
