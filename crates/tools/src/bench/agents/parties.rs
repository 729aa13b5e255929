//! The many-party benchmarks with every party in an agent process of its own: symmetric
//! (every party floods and counts), latency (one pinger, N echoers), one-way (a sender and
//! a receiver, `agents::oneway`), testfed (load federates, `agents::testfed`) and the
//! matrix (a case's senders and receivers, `agents::matrix`). One lifecycle for all of
//! them — join (a party of [`sides::peer`], an end of an exchange channel, a load federate
//! or a matrix party), say ready, start at the barrier, run the task, report, resign — and
//! the tasks are the benchmarks' own per-federate code (`symmetric::party_run`,
//! `latency::ping`, `latency::echo_targeted`, oneway's send and receive, testfed's `Run`,
//! `matrix::party_run`); the coordinator's statistics are theirs too
//! (`symmetric::case_of`, `latency::case_of` and `run_cases`, oneway's `run_cases`,
//! testfed's `summarise`, the matrix's `run_cases`).

use super::super::latency::{self, LatencyOptions, LatencySummary};
use super::super::matrix::{self, Wire};
use super::super::network::{Federation, Network, SETUP_TIMEOUT};
use super::super::results::Results;
use super::super::sides::{peer, Channel, End, Peer, Side};
use super::super::symmetric::{self, Gate, SymmetricOptions, SymmetricSummary};
use super::super::testfed::{self, Load};
use super::super::{Api, BenchError};
use super::agent::Session;
use super::coordinator::{Agents, AgentsReport, Launch};
use super::pingpong::channel_end;
use super::protocol::{FromAgent, PartyTask, ToAgent};
use std::time::Duration;

/// Half round trips one latency sender reports per case: they fit one control line.
pub const MAX_EXCHANGES: usize = 1_000_000;

/// Start one agent per `(attachment point, role, task)` on a fresh network, measure their
/// clocks, hand them their tasks and wait until all joined; then start them together. The
/// federation (federate API) is to be dropped after the agents finish.
pub(super) fn start_parties(
    launch: &Launch,
    network: &Network,
    options: &super::super::Setup,
    parties: Vec<(String, String, PartyTask)>,
) -> Result<(Agents, Option<Federation>), BenchError> {
    let federation = match options.api {
        Api::Federate => Some(network.federation(&parties[0].0)?),
        Api::Node => None,
    };
    let names: Vec<(String, String)> = parties
        .iter()
        .map(|(at, role, _)| (at.clone(), role.clone()))
        .collect();
    let mut agents = Agents::start(launch, &names)?;
    agents.probe_clocks()?;
    agents.send_all(&ToAgent::Setup(super::agent_setup(
        network,
        options,
        federation.as_ref(),
    )?))?;
    for (agent, (at, _, task)) in parties.into_iter().enumerate() {
        agents.send(agent, &ToAgent::Party { at, task })?;
    }
    super::all_ready(&mut agents)?;
    agents.send_all(&ToAgent::Start)?;
    Ok((agents, federation))
}

/// Every agent resigns; faults go to the results, the report to `agents-<n>.json`.
pub(super) fn finish(
    agents: &mut Agents,
    results: &Results,
    n: usize,
) -> Result<AgentsReport, BenchError> {
    finish_as(agents, results, &format!("agents-{n}.json"))
}

/// Every agent resigns; faults go to the results, the report to `file`.
pub(super) fn finish_as(
    agents: &mut Agents,
    results: &Results,
    file: &str,
) -> Result<AgentsReport, BenchError> {
    for (agent, fault) in agents.finish(SETUP_TIMEOUT)? {
        results.fault(format!("agent {agent}: {fault}"));
    }
    let report = agents.report();
    results.write_json(file, &report)?;
    Ok(report)
}

/// Symmetric with agents: the same cases, counts and rates as in one process; each
/// party's rate is on its own clock, so no times are compared across agents.
pub fn symmetric(
    options: &SymmetricOptions,
    launch: &Launch,
    results: &Results,
) -> Result<SymmetricSummary, BenchError> {
    if !(options.seconds.is_finite() && options.seconds > 0.0) {
        return Err(BenchError::Failed(format!(
            "--seconds must be a positive number, not {}",
            options.seconds
        )));
    }
    let mut methods = Vec::new();
    let mut summary = symmetric::run_cases(options, results, |n| {
        let network = Network::start(&options.setup)?;
        let places = network.attachments().take(n)?;
        let parties = places
            .iter()
            .enumerate()
            .map(|(me, at)| {
                let task = PartyTask::Flood {
                    me,
                    n,
                    size: options.size,
                    seconds: options.seconds,
                };
                (at.clone(), format!("party {}", me + 1), task)
            })
            .collect();
        let (mut agents, federation) = start_parties(launch, &network, &options.setup, parties)?;
        let everyone: Vec<usize> = (0..n).collect();
        for (agent, answer) in agents
            .collect(&everyone, SETUP_TIMEOUT, "warm-up")?
            .iter()
            .enumerate()
        {
            if !matches!(answer, FromAgent::Warmed) {
                return Err(agents.unexpected(agent, Some(answer), "warmed"));
            }
        }
        agents.send_all(&ToAgent::Go)?;
        // Sending, then draining until quiet (symmetric's own bound is half a second).
        let running = Duration::from_secs_f64(options.seconds) + SETUP_TIMEOUT;
        let mut counted = Vec::new();
        for (agent, answer) in agents
            .collect(&everyone, running, "counts")?
            .into_iter()
            .enumerate()
        {
            match answer {
                FromAgent::Counted {
                    sent,
                    received,
                    elapsed_nanos,
                } => counted.push((sent, received, Duration::from_nanos(elapsed_nanos))),
                other => return Err(agents.unexpected(agent, Some(&other), "counts")),
            }
        }
        let report = finish(&mut agents, results, n)?;
        drop(agents);
        drop(federation);
        methods.push(format!(
            "each party's rate on its own clock, no times compared across agents ({})",
            report.clock_method
        ));
        Ok(symmetric::case_of(n, options.size, &counted))
    })?;
    methods.dedup();
    summary.clock = Some(methods.join("; "));
    results.write_summary(&summary)?;
    Ok(summary)
}

/// Latency with agents: the sender and each receiver in an agent; the sender measures round
/// trips on its own clock and halves them, as in one process.
pub fn latency(
    options: &LatencyOptions,
    launch: &Launch,
    results: &Results,
) -> Result<LatencySummary, BenchError> {
    if options.exchanges > MAX_EXCHANGES {
        return Err(BenchError::Failed(format!(
            "latency with agents measures at most {MAX_EXCHANGES} exchanges per case"
        )));
    }
    let mut methods = Vec::new();
    let mut summary = latency::run_cases(options, results, |n| {
        let network = Network::start(&options.setup)?;
        let places = network.attachments().take(n + 1)?;
        let mut parties = vec![(
            places[0].clone(),
            "sender".to_owned(),
            PartyTask::Ping {
                receivers: n,
                size: options.size,
                exchanges: options.exchanges,
            },
        )];
        for (i, at) in places[1..].iter().enumerate() {
            parties.push((
                at.clone(),
                format!("receiver {}", i + 1),
                PartyTask::Echo { index: i as u32 },
            ));
        }
        let (mut agents, federation) = start_parties(launch, &network, &options.setup, parties)?;
        // Each receiver's first answer, then every exchange lost at worst.
        let bound = SETUP_TIMEOUT + Duration::from_secs(1) * (n + options.exchanges) as u32;
        let (one_way, lost) = match agents.collect(&[0], bound, "half round trips")?.pop() {
            Some(FromAgent::HalfRoundTrips { one_way_us, lost }) => (one_way_us, lost),
            other => return Err(agents.unexpected(0, other.as_ref(), "half round trips")),
        };
        let report = finish(&mut agents, results, n)?;
        drop(agents);
        drop(federation);
        methods.push(format!(
            "round-trip halves on the sender's clock ({})",
            report.clock_method
        ));
        Ok(latency::case_of(n, options.size, &one_way, lost))
    })?;
    methods.dedup();
    summary.clock = Some(methods.join("; "));
    results.write_summary(&summary)?;
    Ok(summary)
}

/// The parties of one symmetric case are agents: the coordinator is the gate.
struct Coordinated<'a> {
    session: &'a mut Session,
    go: bool,
}

impl Gate for Coordinated<'_> {
    fn heard_all(&mut self) -> Result<(), BenchError> {
        self.session.say(&FromAgent::Warmed)
    }

    fn everyone_heard(&mut self) -> Result<bool, BenchError> {
        if !self.go {
            match self.session.next(Some(Duration::ZERO))? {
                None => {}
                Some(ToAgent::Go) => self.go = true,
                Some(other) => {
                    return Err(BenchError::Failed(format!("{other:?} during the warm-up")))
                }
            }
        }
        Ok(self.go)
    }

    fn start(&mut self) -> Result<(), BenchError> {
        // A party that heard another's measured message first still takes its go.
        while !self.go {
            match self.session.next(Some(SETUP_TIMEOUT))? {
                Some(ToAgent::Go) => self.go = true,
                other => {
                    return Err(BenchError::Failed(format!(
                        "expected go from the coordinator, got {other:?}"
                    )))
                }
            }
        }
        Ok(())
    }
}

/// What a party joined as.
enum Joined {
    /// A party of a many-party benchmark.
    Peer(Box<dyn Peer>),
    /// One end of an exchange channel.
    End(Box<dyn Side>),
    /// A testfed load federate (boxed: it holds a whole federate).
    Load(Box<Load>),
    /// A party of a matrix case.
    Wire(Box<dyn Wire>),
}

/// An agent's party: join, say ready, start with the others, run `task`, report, resign.
pub(crate) fn party(session: &mut Session, at: &str, task: PartyTask) -> Result<(), BenchError> {
    let (network, federation, setup) = session.network()?;
    let transport = setup.transport;
    let joined = match &task {
        PartyTask::Flood { .. } | PartyTask::Echo { .. } => Joined::Peer(peer(
            &network,
            federation.as_ref(),
            at,
            &[Channel::Data],
            transport,
        )?),
        PartyTask::Ping { .. } => Joined::Peer(peer(
            &network,
            federation.as_ref(),
            at,
            &[Channel::Reply],
            transport,
        )?),
        PartyTask::OnewaySend | PartyTask::OnewayReceive => {
            let end = match task {
                PartyTask::OnewaySend => End::First,
                _ => End::Second,
            };
            let federation = federation.as_ref();
            Joined::End(channel_end(&network, federation, at, 0, end, transport)?)
        }
        PartyTask::Load { me, config } => {
            let federation = federation
                .as_ref()
                .ok_or_else(|| BenchError::Failed("a load federate needs a federation".into()))?;
            let load = config.federates.get(*me).ok_or_else(|| {
                BenchError::Failed(format!("no load federate {me} in the configuration"))
            })?;
            Joined::Load(Box::new(testfed::join(&network, federation, at, load)?))
        }
        PartyTask::Matrix { plan, party } => {
            if *party >= plan.parties() {
                return Err(BenchError::Failed(format!("no party {party} in the case")));
            }
            Joined::Wire(matrix::wire(
                &network,
                federation.as_ref(),
                at,
                plan,
                *party,
            )?)
        }
    };
    session.say(&FromAgent::Ready)?;
    session.expect("start", |c| matches!(c, ToAgent::Start))?;
    let mut fault = None;
    match (task, joined) {
        (
            PartyTask::Flood {
                me,
                n,
                size,
                seconds,
            },
            Joined::Peer(party),
        ) => {
            let mut gate = Coordinated { session, go: false };
            let (sent, received, elapsed) =
                symmetric::party_run(party, me, n, size, seconds, &mut gate)?;
            session.say(&FromAgent::Counted {
                sent,
                received,
                elapsed_nanos: elapsed.as_nanos() as u64,
            })?;
            session.expect("finish", |c| matches!(c, ToAgent::Finish))?;
        }
        (
            PartyTask::Ping {
                receivers,
                size,
                exchanges,
            },
            Joined::Peer(mut party),
        ) => {
            let exchanges = exchanges.min(MAX_EXCHANGES);
            let (one_way_us, lost) = latency::ping(party.as_mut(), receivers, size, exchanges)?;
            session.say(&FromAgent::HalfRoundTrips { one_way_us, lost })?;
            session.expect("finish", |c| matches!(c, ToAgent::Finish))?;
        }
        (PartyTask::Echo { index }, Joined::Peer(mut party)) => session
            .run_until_finish(move |stop| latency::echo_targeted(party.as_mut(), index, stop))?,
        (PartyTask::OnewaySend, Joined::End(mut side)) => {
            super::oneway::sender(session, side.as_mut())?
        }
        (PartyTask::OnewayReceive, Joined::End(mut side)) => {
            super::oneway::receiver(session, side.as_mut())?
        }
        (PartyTask::Load { me, config }, Joined::Load(mut load)) => {
            fault = super::testfed::load(session, me, &config, &mut load, transport)?;
        }
        (PartyTask::Matrix { plan, party }, Joined::Wire(mut wire)) => {
            fault = super::matrix::party(session, &plan, party, wire.as_mut())?;
        }
        _ => unreachable!("each task joins as its own kind"),
    }
    // The party resigns as it is dropped (as in one process); then the agent says so.
    drop(federation);
    drop(network);
    session.say(&FromAgent::Finished { fault })
}
