//! The traffic benchmarks: ping-pong, throughput, symmetric, latency, one-way and the
//! 3CE matrix, each run here or by agents.

use super::common::{
    launch, or_default, raw, setup, transport, AgentOpts, Common, DriverArg, RawArg, TransportArg,
};
use super::with_results;
use crate::UsageError;
use anyhow::Result;
use clap::Args;
use trellis_tools::bench::{
    agents, latency, matrix, mom_watcher::MomLoad, oneway, pingpong, symmetric, throughput, Mode,
    Transport,
};

#[derive(Args)]
pub(crate) struct PingpongArgs {
    #[command(flatten)]
    common: Common,
    /// The same workload over plain sockets (tcp when no value is given), no Trellis.
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "tcp")]
    raw: Option<RawArg>,
    /// With --raw: each pair's bytes pass through a plain forwarder on loopback (a thread
    /// per direction that copies): the floor any relay or router pays, to set a Trellis
    /// router's round trip against.
    #[arg(long, requires = "raw")]
    relayed: bool,
    /// With --raw: each pair's bytes go through the hairpin forwarder at HOST:PORT instead
    /// (`trellis lab` starts one in the router's site and passes this), so the baseline
    /// crosses the same site link as the Trellis run.
    #[arg(
        long,
        value_name = "HOST:PORT",
        requires = "raw",
        conflicts_with = "relayed"
    )]
    raw_via: Option<std::net::SocketAddr>,
    /// Sender-echoer pairs exchanging at once.
    #[arg(long, default_value_t = 1)]
    pairs: usize,
    /// Place a pair at these attachment points (repeat for more pairs; overrides --pairs):
    /// compare topologies with the same pairs.
    #[arg(long = "pair", value_name = "MASTER:SLAVE")]
    pair: Vec<String>,
    /// Message sizes in bytes, comma separated (default 64 B to 64 KiB).
    #[arg(long, value_delimiter = ',', conflicts_with = "size")]
    sizes: Vec<usize>,
    /// One message size (same as --sizes with one value).
    #[arg(long)]
    size: Option<usize>,
    /// Measured exchanges per size per pair.
    #[arg(long, default_value_t = 50, conflicts_with = "count")]
    exchanges: usize,
    /// Round trips to measure (same as --exchanges).
    #[arg(long)]
    count: Option<usize>,
    #[command(flatten)]
    agents: AgentOpts,
}

impl PingpongArgs {
    pub(super) fn run(&self) -> Result<()> {
        let setup = setup(&self.common)?;
        let options = pingpong::PingpongOptions {
            setup: setup.clone(),
            raw: raw(self.raw),
            relayed: self.relayed,
            raw_via: self.raw_via,
            pairs: self.pairs,
            placement: self
                .pair
                .iter()
                .map(|p| {
                    p.split_once(':')
                        .map(|(m, s)| (m.to_owned(), s.to_owned()))
                        .ok_or_else(|| UsageError(format!("--pair {p:?}: expected MASTER:SLAVE")))
                })
                .collect::<Result<_, _>>()?,
            sizes: match (self.size, self.sizes.is_empty()) {
                (Some(size), _) => vec![size],
                (None, true) => pingpong::DEFAULT_SIZES.to_vec(),
                (None, false) => self.sizes.clone(),
            },
            exchanges: self.count.unwrap_or(self.exchanges),
        };
        with_results(
            "pingpong",
            &self.common,
            &setup,
            Mode::carrying(options.raw),
            |r| match launch(&self.agents)? {
                None => pingpong::run(&options, r),
                Some(launch) => agents::pingpong::run(&options, &launch, r),
            },
            pingpong::table,
        )
    }
}

#[derive(Args)]
pub(crate) struct ThroughputArgs {
    #[command(flatten)]
    common: Common,
    /// The same workload over plain sockets (tcp when no value is given), no Trellis.
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "tcp")]
    raw: Option<RawArg>,
    /// With --raw: every receiver's bytes go through the hairpin forwarder at HOST:PORT
    /// (`trellis lab` starts one in the router's site and passes this), so the baseline
    /// crosses the same site link as the Trellis run.
    #[arg(long, value_name = "HOST:PORT", requires = "raw")]
    raw_via: Option<std::net::SocketAddr>,
    /// Message (attribute value) size in bytes.
    #[arg(long, default_value_t = 64)]
    size: usize,
    /// Seconds of sending per case.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Receiver counts, comma separated (default 1,3,6,9,12,15).
    #[arg(long, value_delimiter = ',')]
    subscribers: Vec<usize>,
    /// How federates' nodes run (--api federate): on a thread of their own, or inside the
    /// federate's service calls and callbacks (see --bundle-us).
    #[arg(long, value_enum, default_value_t = DriverArg::Thread)]
    driver: DriverArg,
    /// The MOM's part (--api federate, in this process): off (no federate takes part),
    /// idle (no one subscribes), or watched (a tool federate asks every member for a
    /// report every second).
    #[arg(long, value_enum, default_value_t = MomArg::Idle)]
    mom: MomArg,
    #[command(flatten)]
    agents: AgentOpts,
}

#[derive(Copy, Clone, clap::ValueEnum)]
enum MomArg {
    Off,
    Idle,
    Watched,
}

impl From<MomArg> for MomLoad {
    fn from(arg: MomArg) -> MomLoad {
        match arg {
            MomArg::Off => MomLoad::Off,
            MomArg::Idle => MomLoad::Idle,
            MomArg::Watched => MomLoad::Watched,
        }
    }
}

impl ThroughputArgs {
    pub(super) fn run(&self) -> Result<()> {
        let setup = setup(&self.common)?;
        let options = throughput::ThroughputOptions {
            setup: setup.clone(),
            raw: raw(self.raw),
            raw_via: self.raw_via,
            size: self.size,
            seconds: self.seconds,
            driver: self.driver.into(),
            subscribers: or_default(&self.subscribers, &throughput::DEFAULT_SUBSCRIBERS),
            mom: self.mom.into(),
        };
        let launched = launch(&self.agents)?;
        if launched.is_some() && !matches!(self.mom, MomArg::Idle) {
            return Err(UsageError(
                "--mom off and --mom watched run in this process only, not with agents".into(),
            )
            .into());
        }
        with_results(
            "throughput",
            &self.common,
            &setup,
            Mode::carrying(options.raw),
            |r| match &launched {
                None => throughput::run(&options, r),
                Some(launch) => agents::throughput::run(&options, launch, r),
            },
            throughput::table,
        )
    }
}

#[derive(Args)]
pub(crate) struct SymmetricArgs {
    #[command(flatten)]
    common: Common,
    /// Message (attribute value) size in bytes.
    #[arg(long, default_value_t = 64)]
    size: usize,
    /// Seconds of sending per case.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Federate counts, comma separated (default 2,4,6).
    #[arg(long, value_delimiter = ',')]
    federates: Vec<usize>,
    #[command(flatten)]
    agents: AgentOpts,
}

impl SymmetricArgs {
    pub(super) fn run(&self) -> Result<()> {
        let setup = setup(&self.common)?;
        let options = symmetric::SymmetricOptions {
            setup: setup.clone(),
            size: self.size,
            seconds: self.seconds,
            federates: or_default(&self.federates, &symmetric::DEFAULT_FEDERATES),
        };
        with_results(
            "symmetric",
            &self.common,
            &setup,
            Mode::Trellis,
            |r| match launch(&self.agents)? {
                None => symmetric::run(&options, r),
                Some(launch) => agents::parties::symmetric(&options, &launch, r),
            },
            symmetric::table,
        )
    }
}

#[derive(Args)]
pub(crate) struct LatencyArgs {
    #[command(flatten)]
    common: Common,
    /// Message (attribute value) size in bytes.
    #[arg(long, default_value_t = 64)]
    size: usize,
    /// Receiver counts, comma separated (default 1,3,6,9,12,15).
    #[arg(long, value_delimiter = ',')]
    receivers: Vec<usize>,
    /// Measured exchanges per case.
    #[arg(long, default_value_t = 200)]
    exchanges: usize,
    #[command(flatten)]
    agents: AgentOpts,
}

impl LatencyArgs {
    pub(super) fn run(&self) -> Result<()> {
        let setup = setup(&self.common)?;
        let options = latency::LatencyOptions {
            setup: setup.clone(),
            size: self.size,
            receivers: or_default(&self.receivers, &latency::DEFAULT_RECEIVERS),
            exchanges: self.exchanges,
        };
        with_results(
            "latency",
            &self.common,
            &setup,
            Mode::Trellis,
            |r| match launch(&self.agents)? {
                None => latency::run(&options, r),
                Some(launch) => agents::parties::latency(&options, &launch, r),
            },
            latency::table,
        )
    }
}

#[derive(Args)]
pub(crate) struct OnewayArgs {
    #[command(flatten)]
    common: Common,
    /// The same workload over plain sockets (tcp when no value is given), no Trellis.
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "tcp")]
    raw: Option<RawArg>,
    /// Message sizes in bytes, comma separated, each at least 17 (default
    /// 17,51,101,301,501,1001).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Send rates in Hz, comma separated (default 5,10,20,50,100,200,400,500).
    #[arg(long, value_delimiter = ',')]
    rates: Vec<f64>,
    /// Seconds of sending per case.
    #[arg(long, default_value_t = oneway::DEFAULT_SECONDS)]
    seconds: f64,
    #[command(flatten)]
    agents: AgentOpts,
}

impl OnewayArgs {
    pub(super) fn run(&self) -> Result<()> {
        let setup = setup(&self.common)?;
        let options = oneway::OnewayOptions {
            setup: setup.clone(),
            raw: raw(self.raw),
            sizes: or_default(&self.sizes, &oneway::DEFAULT_SIZES),
            rates: or_default(&self.rates, &oneway::DEFAULT_RATES),
            seconds: self.seconds,
            drop_every: None,
        };
        with_results(
            "oneway",
            &self.common,
            &setup,
            Mode::carrying(options.raw),
            |r| match launch(&self.agents)? {
                None => oneway::run(&options, r),
                Some(launch) => agents::oneway::run(&options, &launch, r),
            },
            oneway::table,
        )
    }
}

#[derive(Args)]
pub(crate) struct MatrixArgs {
    #[command(flatten)]
    common: Common,
    /// Plain sockets instead (tcp when no value is given): a connection or socket pair per
    /// sender and receiver it serves; the socket decides delivery, so --deliveries is unused.
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "tcp")]
    raw: Option<RawArg>,
    /// With --raw: every pair's bytes go through the hairpin forwarder at HOST:PORT
    /// (`trellis lab` starts one in the router's site and passes this), so the baseline
    /// crosses the same site link as the Trellis run.
    #[arg(long, value_name = "HOST:PORT", requires = "raw")]
    raw_via: Option<std::net::SocketAddr>,
    /// Entities per sender, comma separated (default 1,10,100).
    #[arg(long, value_delimiter = ',')]
    entities: Vec<usize>,
    /// Update rates in Hz, comma separated (default 10,20,60,120).
    #[arg(long, value_delimiter = ',')]
    rates: Vec<f64>,
    /// Payload sizes in bytes, comma separated, each at least 24 (default 128,1024,9000).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Deliveries, comma separated (default both). The matrix sweeps these instead of
    /// using --transport.
    #[arg(long, value_enum, value_delimiter = ',')]
    deliveries: Vec<TransportArg>,
    /// Configurations, comma separated: 1-1, 1-N, N-1, N-N (default all).
    #[arg(long, value_delimiter = ',')]
    configs: Vec<matrix::Configuration>,
    /// Seconds of sending per case.
    #[arg(long, default_value_t = matrix::DEFAULT_SECONDS)]
    seconds: f64,
    /// N of 1-N, N-1 and N-N.
    #[arg(long, default_value_t = matrix::DEFAULT_N)]
    n: usize,
    /// Leave out the cells whose theoretical throughput per receiver is above this many
    /// Mbps (they are listed in the summary's left_out).
    #[arg(long, value_name = "MBPS")]
    max_theoretical_mbps: Option<f64>,
    #[command(flatten)]
    agents: AgentOpts,
}

impl MatrixArgs {
    pub(super) fn run(&self) -> Result<()> {
        let setup = setup(&self.common)?;
        let options = matrix::MatrixOptions {
            setup: setup.clone(),
            raw: raw(self.raw),
            raw_via: self.raw_via,
            entities: or_default(&self.entities, &matrix::DEFAULT_ENTITIES),
            rates: or_default(&self.rates, &matrix::DEFAULT_RATES),
            sizes: or_default(&self.sizes, &matrix::DEFAULT_SIZES),
            deliveries: if self.deliveries.is_empty() {
                vec![Transport::Reliable, Transport::BestEffort]
            } else {
                self.deliveries.iter().map(|&d| transport(d)).collect()
            },
            configurations: or_default(&self.configs, &matrix::ALL_CONFIGURATIONS),
            seconds: self.seconds,
            n: self.n,
            max_theoretical_mbps: self.max_theoretical_mbps,
        };
        with_results(
            "matrix",
            &self.common,
            &setup,
            Mode::carrying(options.raw),
            |r| match launch(&self.agents)? {
                None => matrix::run(&options, r),
                Some(launch) => agents::matrix::run(&options, &launch, r),
            },
            matrix::table,
        )
    }
}
