//! Round trips between two nodes through the router: ping publishes, pong echoes.

use super::network::{ids, Network, SETUP_TIMEOUT};
use super::{raw, BenchError, Mode, Transport};
use hdrhistogram::Histogram;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_net::Endpoint;

const PING_ID: u32 = 1;
const PONG_ID: u32 = 2;
/// Exchanges before measuring: connections and caches warm up.
pub(crate) const WARMUP_EXCHANGES: usize = 200;
/// A best-effort ping whose answer has not come back by then counts as lost.
const LOSS_TIMEOUT: Duration = Duration::from_millis(500);

#[derive(Clone, Debug)]
pub struct PingpongOptions {
    pub router: Option<Endpoint>,
    pub size: usize,
    pub count: usize,
    pub transport: Transport,
    pub raw: bool,
    /// How long event loops poll before they sleep (see `NodeConfig::spin`).
    pub spin: Duration,
}

#[derive(Clone, Debug, Serialize)]
pub struct PingpongResult {
    pub mode: Mode,
    pub transport: Transport,
    pub size: usize,
    /// Round trips measured.
    pub count: usize,
    /// Pings whose answer never came (best effort only).
    pub lost: usize,
    pub rtt_p50_us: f64,
    pub rtt_p99_us: f64,
    pub rtt_mean_us: f64,
    pub rtt_min_us: f64,
    pub rtt_max_us: f64,
}

pub fn run(options: &PingpongOptions) -> Result<PingpongResult, BenchError> {
    let mut histogram = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)
        .map_err(|e| BenchError::Failed(format!("histogram: {e}")))?;
    let lost = if options.raw {
        raw::pingpong(options, &mut histogram)?
    } else {
        through_router(options, &mut histogram)?
    };
    let us = |nanos: u64| nanos as f64 / 1000.0;
    Ok(PingpongResult {
        mode: if options.raw {
            Mode::RawTcp
        } else {
            Mode::Trellis
        },
        transport: options.transport,
        size: options.size,
        count: histogram.len() as usize,
        lost,
        rtt_p50_us: us(histogram.value_at_quantile(0.5)),
        rtt_p99_us: us(histogram.value_at_quantile(0.99)),
        rtt_mean_us: histogram.mean() / 1000.0,
        rtt_min_us: us(histogram.min()),
        rtt_max_us: us(histogram.max()),
    })
}

/// Record one round trip (nanoseconds; the histogram saturates rather than fails).
pub(crate) fn record(histogram: &mut Histogram<u64>, rtt: Duration) {
    histogram.saturating_record(rtt.as_nanos().max(1) as u64);
}

fn through_router(
    options: &PingpongOptions,
    histogram: &mut Histogram<u64>,
) -> Result<usize, BenchError> {
    let network = Network::start(options.router.as_ref(), options.transport, options.spin)?;
    // Direct nodes: each message crosses only the router's thread between the two ends.
    let mut ping = network.direct_node("ping")?;
    let mut pong = network.direct_node("pong")?;
    ping.subscribe(&ids([PONG_ID]))?;
    pong.subscribe(&ids([PING_ID]))?;
    ping.wait_for_network_interest(&ids([PING_ID]), SETUP_TIMEOUT)?;
    pong.wait_for_network_interest(&ids([PONG_ID]), SETUP_TIMEOUT)?;
    let class = options.transport.class();
    let stop = Arc::new(AtomicBool::new(false));
    let echo = {
        let stop = stop.clone();
        std::thread::spawn(move || -> Result<(), BenchError> {
            while !stop.load(Ordering::Relaxed) {
                if let Some(message) = pong.recv_timeout(Duration::from_millis(50))? {
                    pong.publish(&[PONG_ID], class, message.payload())?;
                }
            }
            Ok(())
        })
    };
    let mut payload = vec![0u8; options.size.max(8)];
    let mut lost = 0;
    for i in 0..WARMUP_EXCHANGES + options.count {
        // The exchange number travels in the payload so a late answer is not mistaken
        // for the current one.
        payload[..8].copy_from_slice(&(i as u64).to_le_bytes());
        let sent_at = Instant::now();
        ping.publish(&[PING_ID], class, &payload)?;
        let answered = loop {
            let left = LOSS_TIMEOUT.saturating_sub(sent_at.elapsed());
            match ping.recv_timeout(left)? {
                Some(answer) if answer.payload().get(..8) == Some(&payload[..8]) => break true,
                Some(_) => continue,
                None => break false,
            }
        };
        let rtt = sent_at.elapsed();
        match (answered, i >= WARMUP_EXCHANGES) {
            (true, true) => record(histogram, rtt),
            (false, true) => lost += 1,
            (false, false) if options.transport == Transport::Reliable => {
                return Err(BenchError::Failed("a reliable ping got no answer".into()))
            }
            _ => {}
        }
    }
    stop.store(true, Ordering::SeqCst);
    echo.join()
        .map_err(|_| BenchError::Failed("echo thread panicked".into()))??;
    Ok(lost)
}
