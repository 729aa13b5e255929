//! The baselines: the same workloads over plain TCP sockets, one write per message, no
//! router, no Trellis. Messages are a 4-byte length and the payload.

use super::pingpong::{record, PingpongOptions};
use super::throughput::{wait_for_drain, Counter, Tally, ThroughputOptions};
use super::BenchError;
use hdrhistogram::Histogram;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn frame(size: usize) -> Vec<u8> {
    let mut frame = (size as u32).to_le_bytes().to_vec();
    frame.resize(4 + size, 0xA5);
    frame
}

fn connected_pair() -> Result<(TcpStream, TcpStream), BenchError> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let client = TcpStream::connect(listener.local_addr()?)?;
    let (server, _) = listener.accept()?;
    client.set_nodelay(true)?;
    server.set_nodelay(true)?;
    Ok((client, server))
}

pub(crate) fn throughput(options: &ThroughputOptions) -> Result<(u64, Vec<Tally>), BenchError> {
    let start = Instant::now();
    let mut writers = Vec::new();
    let mut readers = Vec::new();
    let counters: Vec<Arc<Counter>> = (0..options.subscribers).map(|_| Arc::default()).collect();
    for counter in &counters {
        let (writer, mut reader) = connected_pair()?;
        writers.push(writer);
        let counter = counter.clone();
        let size = options.size;
        readers.push(std::thread::spawn(move || {
            count_frames(&mut reader, size, &counter, start)
        }));
    }
    let message = frame(options.size);
    let duration = Duration::from_secs_f64(options.seconds);
    let mut sent = 0u64;
    while start.elapsed() < duration {
        for _ in 0..64 {
            for writer in &mut writers {
                // One write per message: what a naive sender without bundling does.
                writer.write_all(&message)?;
            }
            sent += 1;
        }
    }
    for writer in &writers {
        writer.shutdown(Shutdown::Write)?;
    }
    wait_for_drain(&counters, sent, options.transport);
    for reader in readers {
        reader
            .join()
            .map_err(|_| BenchError::Failed("reader panicked".into()))??;
    }
    Ok((sent, counters.iter().map(|c| c.tally()).collect()))
}

fn count_frames(
    stream: &mut TcpStream,
    size: usize,
    counter: &Counter,
    start: Instant,
) -> Result<(), BenchError> {
    use std::sync::atomic::Ordering;
    let frame_len = 4 + size;
    let mut buf = vec![0u8; 64 << 10];
    let mut carried = 0usize;
    let mut received = 0u64;
    loop {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            break;
        }
        carried += n;
        let whole = carried / frame_len;
        carried %= frame_len;
        if whole > 0 {
            received += whole as u64;
            counter
                .last_nanos
                .store(start.elapsed().as_nanos() as u64, Ordering::SeqCst);
            counter.received.store(received, Ordering::SeqCst);
        }
    }
    Ok(())
}

pub(crate) fn pingpong(
    options: &PingpongOptions,
    histogram: &mut Histogram<u64>,
) -> Result<usize, BenchError> {
    let (mut ping, mut pong) = connected_pair()?;
    let size = options.size;
    let total = super::pingpong::WARMUP_EXCHANGES + options.count;
    let echo = std::thread::spawn(move || -> Result<(), BenchError> {
        let mut buf = vec![0u8; 4 + size];
        for _ in 0..total {
            pong.read_exact(&mut buf)?;
            pong.write_all(&buf)?;
        }
        Ok(())
    });
    let message = frame(size);
    let mut answer = vec![0u8; message.len()];
    for i in 0..total {
        let sent_at = Instant::now();
        ping.write_all(&message)?;
        ping.read_exact(&mut answer)?;
        if i >= super::pingpong::WARMUP_EXCHANGES {
            record(histogram, sent_at.elapsed());
        }
    }
    echo.join()
        .map_err(|_| BenchError::Failed("echo thread panicked".into()))??;
    Ok(0)
}
