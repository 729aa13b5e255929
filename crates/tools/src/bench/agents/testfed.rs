//! JADS testfed with every load federate in an agent process of its own: the same
//! federates and per-federate run (`testfed::join`, `testfed::Run`) and the same results
//! (`testfed::summarise`) as in one process. What the federates share in one process
//! (heard everyone, the start, done sending, drained) goes through the coordinator
//! instead: a [`Team`] of agents. Each agent stamps and reads the run's clock through its
//! measured offset, so latencies between agents are on the coordinator's clock.

use super::super::network::{Network, SETUP_TIMEOUT};
use super::super::results::Results;
use super::super::testfed::{
    self, Counts, Load, Run, Team, TestfedConfig, TestfedOptions, TestfedSummary, STRAGGLER_LIMIT,
};
use super::super::{BenchError, Transport};
use super::agent::Session;
use super::clock;
use super::coordinator::Agents;
use super::coordinator::Launch;
use super::parties;
use super::protocol::{FromAgent, PartyTask, ToAgent};
use std::cell::RefCell;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// How far ahead of now the start is set: agents on other hosts hear it a network trip
/// later than it was said.
const START_LEAD: Duration = Duration::from_millis(100);

pub fn run(
    options: &TestfedOptions,
    launch: &Launch,
    results: &Results,
) -> Result<TestfedSummary, BenchError> {
    testfed::validate(options)?;
    if options.figures.is_some() {
        return Err(BenchError::Failed(
            "--metrics serves the figures of one process's load federates; not with agents".into(),
        ));
    }
    let (config, setup) = (&options.config, &options.setup);
    let mut summary = testfed::empty_summary(options);
    if setup.stopped() {
        return Ok(summary);
    }
    let n = config.federates.len();
    let network = Network::start(setup)?;
    let places = network.attachments().take(n)?;
    let parties = places
        .iter()
        .enumerate()
        .map(|(me, at)| {
            let task = PartyTask::Load {
                me,
                config: config.clone(),
            };
            let role = format!("load federate {}", config.federates[me].name);
            (at.clone(), role, task)
        })
        .collect();
    let (mut agents, federation) = parties::start_parties(launch, &network, setup, parties)?;
    let everyone: Vec<usize> = (0..n).collect();
    // Every federate heard every other's greeting: interest is in place everywhere.
    let greeting = SETUP_TIMEOUT + Duration::from_secs(1);
    for (agent, answer) in agents
        .collect(&everyone, greeting, "heard everyone")?
        .iter()
        .enumerate()
    {
        if !matches!(answer, FromAgent::Warmed) {
            return Err(agents.unexpected(agent, Some(answer), "heard everyone"));
        }
    }
    let start = agents.clock().nanos() + START_LEAD.as_nanos() as u64;
    agents.send_all(&ToAgent::StartAt { nanos: start })?;
    let sending = START_LEAD + Duration::from_secs_f64(config.seconds) + SETUP_TIMEOUT;
    let sent = counts_of(&mut agents, &everyone, sending, "sent counts")?;
    for me in 0..n {
        let (updates, interactions) = testfed::sent_by_others(&sent, me);
        agents.send(
            me,
            &ToAgent::OthersSent {
                updates,
                interactions,
            },
        )?;
    }
    let draining = 2 * STRAGGLER_LIMIT + SETUP_TIMEOUT;
    let counts = counts_of(&mut agents, &everyone, draining, "received counts")?;
    agents.send_all(&ToAgent::AllDrained)?;
    let offsets: Vec<clock::ClockOffset> = (0..n)
        .filter_map(|a| agents.clock_offset(a).cloned())
        .collect();
    summary.clock = Some(clock::shifted_method(&offsets));
    parties::finish_as(&mut agents, results, "agents.json")?;
    drop(agents);
    drop(federation);
    drop(network);
    testfed::summarise(summary, config, &places, &counts, results)
}

/// Each agent's next report: its counts (sent, or everything once drained).
fn counts_of(
    agents: &mut Agents,
    everyone: &[usize],
    timeout: Duration,
    what: &str,
) -> Result<Vec<Counts>, BenchError> {
    let mut all = Vec::with_capacity(everyone.len());
    for (agent, answer) in agents
        .collect(everyone, timeout, what)?
        .into_iter()
        .enumerate()
    {
        match answer {
            FromAgent::LoadSent(counts) | FromAgent::LoadCounts(counts) => all.push(counts),
            other => return Err(agents.unexpected(agent, Some(&other), what)),
        }
    }
    Ok(all)
}

/// What the coordinator said so far, read between the federate's sends and receipts.
#[derive(Default)]
struct Heard {
    start: Option<u64>,
    others: Option<(u64, u64)>,
    all_drained: bool,
    /// Finish came already (the coordinator says it right after all drained).
    finish: bool,
    /// The coordinator went away or said something out of turn: the run is over.
    failed: Option<String>,
    /// Steps after the measurement that failed.
    faults: Vec<String>,
}

/// A load federate's team is its coordinator: what threads share in one process, agents
/// say to it and hear from it.
struct Coordinated<'a> {
    session: RefCell<&'a mut Session>,
    heard: RefCell<Heard>,
}

impl Coordinated<'_> {
    /// Take every command already waiting (none blocks).
    fn poll(&self) -> Result<(), BenchError> {
        let mut heard = self.heard.borrow_mut();
        if let Some(why) = &heard.failed {
            return Err(BenchError::Failed(why.clone()));
        }
        let mut session = self.session.borrow_mut();
        loop {
            let why = match session.next(Some(Duration::ZERO)) {
                Ok(None) => return Ok(()),
                Ok(Some(ToAgent::StartAt { nanos })) => {
                    heard.start = Some(nanos);
                    continue;
                }
                Ok(Some(ToAgent::OthersSent {
                    updates,
                    interactions,
                })) => {
                    heard.others = Some((updates, interactions));
                    continue;
                }
                Ok(Some(ToAgent::AllDrained)) => {
                    heard.all_drained = true;
                    continue;
                }
                Ok(Some(ToAgent::Finish)) if heard.all_drained => {
                    heard.finish = true;
                    continue;
                }
                Ok(Some(other)) => format!("{other:?} out of turn"),
                Err(e) => e.to_string(),
            };
            heard.failed = Some(why.clone());
            return Err(BenchError::Failed(why));
        }
    }

    fn say(&self, message: &FromAgent) -> Result<(), BenchError> {
        self.session.borrow_mut().say(message)
    }
}

impl Team for Coordinated<'_> {
    fn aborted(&self) -> bool {
        self.poll().is_err()
    }

    fn heard_all(&self, _me: usize) -> Result<(), BenchError> {
        self.say(&FromAgent::Warmed)
    }

    fn start(&self) -> Result<Option<u64>, BenchError> {
        self.poll()?;
        Ok(self.heard.borrow().start)
    }

    fn done_sending(&self, _me: usize, counts: &Counts) -> Result<(), BenchError> {
        self.say(&FromAgent::LoadSent(counts.clone()))
    }

    fn sent_by_others(&self, _me: usize) -> Result<Option<(u64, u64)>, BenchError> {
        self.poll()?;
        Ok(self.heard.borrow().others)
    }

    fn drained(&self, _me: usize, counts: &Counts) -> Result<(), BenchError> {
        self.say(&FromAgent::LoadCounts(counts.clone()))
    }

    fn all_drained(&self) -> Result<bool, BenchError> {
        self.poll()?;
        Ok(self.heard.borrow().all_drained)
    }

    fn after_measurement(&self, who: &str, step: &str, outcome: Result<(), BenchError>) {
        if let Err(e) = outcome {
            self.heard
                .borrow_mut()
                .faults
                .push(format!("{who}: {step} failed: {e}"));
        }
    }
}

/// Load federate `me`: the run as in one process (greet, send, drain, linger, resign),
/// its team the coordinator; then wait to finish. The faults after the measurement.
pub(crate) fn load(
    session: &mut Session,
    me: usize,
    config: &TestfedConfig,
    load: &mut Load,
    transport: Transport,
) -> Result<Option<String>, BenchError> {
    let clock = session.clock()?;
    // Nothing stops an agent's run early but its coordinator.
    let stop = AtomicBool::new(false);
    let team = Coordinated {
        session: RefCell::new(session),
        heard: RefCell::new(Heard::default()),
    };
    let run = Run {
        me,
        config,
        transport,
        team: &team,
        clock,
        stop: &stop,
        figures: None,
    };
    let counts = run.federate(load)?;
    let Coordinated { session, heard } = team;
    let (session, heard) = (session.into_inner(), heard.into_inner());
    if counts.is_none() {
        return Err(BenchError::Failed(
            heard
                .failed
                .unwrap_or_else(|| "the run was given up".into()),
        ));
    }
    if !heard.finish {
        session.expect("finish", |c| matches!(c, ToAgent::Finish))?;
    }
    Ok((!heard.faults.is_empty()).then(|| heard.faults.join("; ")))
}
