//! JADS testfed with every load federate in an agent process of its own: the same
//! federates and per-federate run (`testfed::join`, `testfed::Run`) and the same results
//! (`testfed::summarise`) as in one process. What the federates share in one process
//! (heard everyone, the start, done sending, drained) goes through the coordinator
//! instead (`agents::team`). Each agent stamps and reads the run's clock through its
//! measured offset, so latencies between agents are on the coordinator's clock.

use super::super::network::{Network, SETUP_TIMEOUT};
use super::super::results::Results;
use super::super::testfed::{
    self, Counts, Load, Run, TestfedConfig, TestfedOptions, TestfedSummary, STRAGGLER_LIMIT,
};
use super::super::{BenchError, Transport};
use super::agent::Session;
use super::clock;
use super::coordinator::Launch;
use super::parties;
use super::protocol::PartyTask;
use super::team;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

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
    // Every federate greets, sends and drains.
    let everyone: Vec<usize> = (0..n).collect();
    let sending = Duration::from_secs_f64(config.seconds) + SETUP_TIMEOUT;
    let draining = 2 * STRAGGLER_LIMIT + SETUP_TIMEOUT;
    let (_, _, drained) = team::coordinate::<Counts>(
        &mut agents,
        &everyone,
        &everyone,
        sending,
        draining,
        testfed::sent_by_others,
    )?;
    let counts: Vec<Counts> = drained.into_iter().map(|(_, counts)| counts).collect();
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

/// Load federate `me`: the run as in one process (greet, send, drain, linger, resign),
/// its team the coordinator. The faults after the measurement, if any.
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
    team::play(session, |team| {
        Run {
            me,
            config,
            transport,
            team,
            clock,
            stop: &stop,
            figures: None,
        }
        .federate(load)
    })
}
