//! rtiperf's ping-pong with every master and slave in an agent process of its own: the
//! same pairs, the same measurement (`pingpong::run_size`, `pingpong::echo_until`) and the
//! same summary (`pingpong::report_sizes`) as in one process.

use super::super::network::{Federation, Network, SETUP_TIMEOUT};
use super::super::pingpong::{
    echo_until, report_sizes, run_size, Measured, PairInfo, PingpongOptions, PingpongSummary,
    LOSS_TIMEOUT, WARMUP_EXCHANGES,
};
use super::super::results::Results;
use super::super::sides::{federate_end, node_end, End, Side};
use super::super::{Api, BenchError, Transport};
use super::agent::Session;
use super::coordinator::{Agents, Launch};
use super::protocol::{FromAgent, ToAgent};
use std::time::Duration;

/// Round trips one master reports per size: their nanoseconds fit one control line.
pub const MAX_EXCHANGES: usize = 1_000_000;

pub fn run(
    options: &PingpongOptions,
    launch: &Launch,
    results: &Results,
) -> Result<PingpongSummary, BenchError> {
    if options.raw.is_some() {
        return Err(BenchError::Failed(
            "agents run Trellis federates; --raw runs in one process".into(),
        ));
    }
    if options.sizes.is_empty() || options.exchanges == 0 || options.exchanges > MAX_EXCHANGES {
        return Err(BenchError::Failed(format!(
            "ping-pong with agents needs at least one size and 1 to {MAX_EXCHANGES} exchanges"
        )));
    }
    let setup = &options.setup;
    let network = Network::start(setup)?;
    let attachments = network.attachments();
    let placed = if options.placement.is_empty() {
        attachments.pairs(options.pairs)?
    } else {
        options.placement.clone()
    };
    if placed.is_empty() {
        return Err(BenchError::Failed(
            "ping-pong needs at least one pair".into(),
        ));
    }
    let federation = match setup.api {
        Api::Federate => Some(network.federation(&placed[0].0)?),
        Api::Node => None,
    };
    let mut names = Vec::new();
    let mut pairs = Vec::new();
    for (i, (master, slave)) in placed.iter().enumerate() {
        names.push((master.clone(), format!("pair {} master", i + 1)));
        names.push((slave.clone(), format!("pair {} slave", i + 1)));
        pairs.push(PairInfo {
            master: master.clone(),
            slave: slave.clone(),
            links: attachments.links(master, slave),
        });
    }
    let mut agents = Agents::start(launch, &names)?;
    agents.probe_clocks()?;
    agents.send_all(&ToAgent::Setup(super::agent_setup(
        &network,
        setup,
        federation.as_ref(),
    )?))?;
    for (i, (master, slave)) in placed.iter().enumerate() {
        agents.send(
            2 * i,
            &ToAgent::PingMaster {
                at: master.clone(),
                pair: i,
            },
        )?;
        agents.send(
            2 * i + 1,
            &ToAgent::PingSlave {
                at: slave.clone(),
                pair: i,
            },
        )?;
    }
    super::all_ready(&mut agents)?;
    agents.send_all(&ToAgent::Start)?;
    let masters: Vec<usize> = (0..placed.len()).map(|i| 2 * i).collect();
    // What a master may take itself: the first answer, warm-up and every exchange lost.
    let per_size = SETUP_TIMEOUT + LOSS_TIMEOUT * (WARMUP_EXCHANGES + options.exchanges) as u32;
    let summary = report_sizes(options, pairs, results, |index, size| {
        for &master in &masters {
            let exchanges = options.exchanges;
            agents.send(
                master,
                &ToAgent::Measure {
                    index,
                    size,
                    exchanges,
                },
            )?;
        }
        let answers = agents.collect(&masters, per_size, "round trips")?;
        let mut measured = Vec::new();
        for (&master, answer) in masters.iter().zip(answers) {
            match answer {
                FromAgent::RoundTrips {
                    pair,
                    rtt_nanos,
                    lost,
                } => measured.push(Measured {
                    pair,
                    rtts: rtt_nanos.into_iter().map(Duration::from_nanos).collect(),
                    lost,
                }),
                other => return Err(agents.unexpected(master, Some(&other), "round trips")),
            }
        }
        Ok(measured)
    });
    let mut summary = summary?;
    for (agent, fault) in agents.finish(SETUP_TIMEOUT)? {
        results.fault(format!("agent {agent}: {fault}"));
    }
    let report = agents.report();
    summary.clock = Some(report.clock_method.clone());
    results.write_json("agents.json", &report)?;
    results.write_summary(&summary)?;
    drop(agents);
    drop(federation);
    drop(network);
    Ok(summary)
}

/// This agent's end of pair `pair`.
fn side(session: &Session, at: &str, pair: usize, end: End) -> Result<Box<dyn Side>, BenchError> {
    let (network, federation, setup) = session.network()?;
    let side = channel_end(
        &network,
        federation.as_ref(),
        at,
        pair as u32,
        end,
        setup.transport,
    )?;
    // The side holds its own link; the network here is only the address book.
    drop(federation);
    drop(network);
    Ok(side)
}

/// One end of exchange channel `channel` at `at`, the other end in another agent: a
/// federate with a federation, a node without (it waits until the other end listens).
pub(crate) fn channel_end(
    network: &Network,
    federation: Option<&Federation>,
    at: &str,
    channel: u32,
    end: End,
    transport: Transport,
) -> Result<Box<dyn Side>, BenchError> {
    Ok(match federation {
        Some(federation) => Box::new(federate_end(
            network, federation, at, channel, end, transport,
        )?),
        None => {
            let mut side = node_end(network, at, channel, end, transport)?;
            side.wait_for_peer()?;
            Box::new(side)
        }
    })
}

/// A master: measure each size the coordinator asks for.
pub(crate) fn master(session: &mut Session, at: &str, pair: usize) -> Result<(), BenchError> {
    let mut side = side(session, at, pair, End::First)?;
    session.say(&FromAgent::Ready)?;
    session.expect("start", |c| matches!(c, ToAgent::Start))?;
    let mut warmed = false;
    loop {
        match session.next(None)? {
            Some(ToAgent::Measure {
                index,
                size,
                exchanges,
            }) => {
                let exchanges = exchanges.min(MAX_EXCHANGES);
                let m = run_size(side.as_mut(), pair, index, size, exchanges, &mut warmed)?;
                session.say(&FromAgent::RoundTrips {
                    pair,
                    rtt_nanos: m.rtts.iter().map(|d| d.as_nanos() as u64).collect(),
                    lost: m.lost,
                })?;
            }
            Some(ToAgent::Finish) => return session.say(&FromAgent::Finished { fault: None }),
            other => {
                return Err(BenchError::Failed(format!(
                    "a master expected a size or finish, got {other:?}"
                )))
            }
        }
    }
}

/// A slave: echo until told to finish.
pub(crate) fn slave(session: &mut Session, at: &str, pair: usize) -> Result<(), BenchError> {
    let mut side = side(session, at, pair, End::Second)?;
    session.say(&FromAgent::Ready)?;
    session.expect("start", |c| matches!(c, ToAgent::Start))?;
    session.run_until_finish(move |stop| echo_until(side.as_mut(), stop))?;
    session.say(&FromAgent::Finished { fault: None })
}
