//! `trellis bench`: the benchmarks, printed for people or as JSON.

use crate::UsageError;
use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
use trellis_net::Endpoint;
use trellis_tools::bench::{pingpong, throughput, Api, Transport};

#[derive(Subcommand)]
pub(crate) enum BenchCommand {
    /// One publisher, N subscribers: messages per second per subscriber.
    Throughput(ThroughputArgs),
    /// Round trips between two nodes: latency percentiles.
    Pingpong(PingpongArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum TransportArg {
    Reliable,
    BestEffort,
}

impl From<TransportArg> for Transport {
    fn from(t: TransportArg) -> Transport {
        match t {
            TransportArg::Reliable => Transport::Reliable,
            TransportArg::BestEffort => Transport::BestEffort,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum ApiArg {
    Federate,
    Node,
}

impl From<ApiArg> for Api {
    fn from(a: ApiArg) -> Api {
        match a {
            ApiArg::Federate => Api::Federate,
            ApiArg::Node => Api::Node,
        }
    }
}

#[derive(Args)]
struct Common {
    /// HLA federate services (attribute updates) or the node API (tagged payloads).
    #[arg(long, value_enum, default_value = "federate")]
    api: ApiArg,
    /// Use this router instead of starting one on loopback.
    #[arg(long, value_name = "URL")]
    router: Option<String>,
    /// Payload bytes per message.
    #[arg(long, default_value_t = 64)]
    size: usize,
    #[arg(long, value_enum, default_value = "reliable")]
    transport: TransportArg,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// The same workload over plain TCP sockets, one write per message, no router.
    #[arg(long)]
    raw: bool,
}

#[derive(Args)]
pub(crate) struct ThroughputArgs {
    #[command(flatten)]
    common: Common,
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    #[arg(long, default_value_t = 1)]
    subscribers: usize,
}

#[derive(Args)]
pub(crate) struct PingpongArgs {
    #[command(flatten)]
    common: Common,
    /// Round trips to measure.
    #[arg(long, default_value_t = 10_000)]
    count: usize,
    /// Microseconds each event loop polls before it sleeps (0: sleep at once).
    #[arg(long, default_value_t = 0)]
    spin_us: u64,
}

fn router(common: &Common) -> Result<Option<Endpoint>> {
    common
        .router
        .as_deref()
        .map(|r| {
            r.parse::<Endpoint>()
                .map_err(|e| UsageError(e.to_string()).into())
        })
        .transpose()
}

fn print<T: serde::Serialize>(
    json: bool,
    result: &T,
    human: impl FnOnce() -> String,
) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(result)?);
    } else {
        println!("{}", human());
    }
    Ok(())
}

pub(crate) fn run(command: BenchCommand) -> Result<()> {
    match command {
        BenchCommand::Throughput(args) => {
            let options = throughput::ThroughputOptions {
                router: router(&args.common)?,
                size: args.common.size,
                seconds: args.seconds,
                subscribers: args.subscribers,
                transport: args.common.transport.into(),
                raw: args.common.raw,
                api: args.common.api.into(),
            };
            let r = throughput::run(&options)?;
            print(args.common.json, &r, || {
                format!(
                    "throughput ({:?}, {:?} API, {:?}, {} B, {} subscriber(s), {:.1} s): {:.0} msg/s per subscriber ({:.1} MB/s); sent {}, received {}, lost {}",
                    r.mode, r.api, r.transport, r.size, r.subscribers, r.seconds, r.msgs_per_sec, r.payload_mb_per_sec, r.sent, r.received, r.lost
                )
            })
        }
        BenchCommand::Pingpong(args) => {
            let options = pingpong::PingpongOptions {
                router: router(&args.common)?,
                size: args.common.size,
                count: args.count,
                transport: args.common.transport.into(),
                raw: args.common.raw,
                api: args.common.api.into(),
                spin: std::time::Duration::from_micros(args.spin_us),
            };
            let r = pingpong::run(&options)?;
            print(args.common.json, &r, || {
                format!(
                    "pingpong ({:?}, {:?} API, {:?}, {} B, {} round trips): p50 {:.1} µs, p99 {:.1} µs, mean {:.1} µs, lost {}",
                    r.mode, r.api, r.transport, r.size, r.count, r.rtt_p50_us, r.rtt_p99_us, r.rtt_mean_us, r.lost
                )
            })
        }
    }
}
