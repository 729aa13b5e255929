//! Round trips between two nodes through the router: ping publishes, pong echoes.

use super::network::{ids, Network, SETUP_TIMEOUT};
use super::{raw, Api, BenchError, Mode, Transport};
use hdrhistogram::Histogram;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_net::rti::{Driver, RtiAmbassador, SendOptions};
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
    pub api: Api,
    /// How long event loops poll before they sleep (see `NodeConfig::spin`).
    pub spin: Duration,
}

#[derive(Clone, Debug, Serialize)]
pub struct PingpongResult {
    pub mode: Mode,
    /// The API the workload used (not meaningful for raw runs).
    pub api: Api,
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
    let lost = match (options.raw, options.api) {
        (true, _) => raw::pingpong(options, &mut histogram)?,
        (false, Api::Node) => through_router(options, &mut histogram)?,
        (false, Api::Federate) => through_federates(options, &mut histogram)?,
    };
    let us = |nanos: u64| nanos as f64 / 1000.0;
    Ok(PingpongResult {
        mode: if options.raw {
            Mode::RawTcp
        } else {
            Mode::Trellis
        },
        api: options.api,
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

/// Ping and pong as federates: ping updates its object, pong reflects the update and
/// updates its own with the same value, ping reflects that.
fn through_federates(
    options: &PingpongOptions,
    histogram: &mut Histogram<u64>,
) -> Result<usize, BenchError> {
    let network = Network::start(options.router.as_ref(), options.transport, options.spin)?;
    let federation = network.federation()?;
    let mut ping = network.federate(&federation, "ping", Driver::Direct)?;
    let mut pong = network.federate(&federation, "pong", Driver::Direct)?;
    let send_options = SendOptions {
        transport: Some(options.transport.class()),
        ..Default::default()
    };
    let (ping_object, name) = echo_setup(&mut ping)?;
    let (pong_object, _) = echo_setup(&mut pong)?;
    let stop = Arc::new(AtomicBool::new(false));
    let echo = {
        let (stop, send_options) = (stop.clone(), send_options.clone());
        std::thread::spawn(move || -> Result<(), BenchError> {
            while !stop.load(Ordering::Relaxed) {
                if let Some(Callback::ReflectAttributeValues { values, .. }) =
                    pong.evoke_callback(Duration::from_millis(50))?
                {
                    let send = SendOptions {
                        time: Some(0),
                        ..send_options.clone()
                    };
                    pong.update_attribute_values_with(
                        pong_object,
                        &[(name, &values[0].1)],
                        b"",
                        &send,
                    )?;
                }
            }
            pong.resign_federation_execution()?;
            Ok(())
        })
    };
    let mut payload = vec![0u8; options.size.max(8)];
    let mut lost = 0;
    let mut exchange = |i: u64, ping: &mut RtiAmbassador| -> Result<Option<Duration>, BenchError> {
        payload[..8].copy_from_slice(&i.to_le_bytes());
        let sent_at = Instant::now();
        ping.update_attribute_values_with(
            ping_object,
            &[(name, payload.as_slice())],
            b"",
            &send_options,
        )?;
        loop {
            let left = LOSS_TIMEOUT.saturating_sub(sent_at.elapsed());
            match ping.evoke_callback(left)? {
                Some(Callback::ReflectAttributeValues { values, .. })
                    if values[0].1.get(..8) == Some(&payload[..8]) =>
                {
                    return Ok(Some(sent_at.elapsed()))
                }
                Some(_) => continue,
                None => return Ok(None),
            }
        }
    };
    // Until the first answer, subscriptions may still be on their way.
    let setup_deadline = Instant::now() + SETUP_TIMEOUT;
    let mut i = 0u64;
    while exchange(i, &mut ping)?.is_none() {
        if Instant::now() > setup_deadline {
            return Err(BenchError::Failed("pong never answered".into()));
        }
        i += 1;
    }
    for n in 0..WARMUP_EXCHANGES + options.count {
        i += 1;
        match (exchange(i, &mut ping)?, n >= WARMUP_EXCHANGES) {
            (Some(rtt), true) => record(histogram, rtt),
            (None, true) => lost += 1,
            _ => {}
        }
    }
    stop.store(true, Ordering::SeqCst);
    echo.join()
        .map_err(|_| BenchError::Failed("echo thread panicked".into()))??;
    ping.resign_federation_execution()?;
    Ok(lost)
}

/// Publish and subscribe Vehicle.Name and register one vehicle.
fn echo_setup(
    rti: &mut RtiAmbassador,
) -> Result<
    (
        trellis_core::federate::ObjectId,
        trellis_core::fom::AttributeHandle,
    ),
    BenchError,
> {
    let vehicle = rti.object_class_handle("Vehicle")?;
    let name = rti.attribute_handle(vehicle, "Name")?;
    rti.publish_object_class_attributes(vehicle, &[name])?;
    rti.subscribe_object_class_attributes(vehicle, &[name])?;
    Ok((rti.register_object_instance(vehicle)?, name))
}
