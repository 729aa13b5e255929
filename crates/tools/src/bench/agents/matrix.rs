//! The 3CE EC1 matrix with every party of a case in an agent process of its own: the same
//! parties (`matrix::wire`), the same run (`matrix::party_run`, `party_leave`) and the
//! same grid and statistics (`matrix::run_cases`, its summary and CSV) as in one process.
//! What the parties share in one process (heard every sender, the start, done sending,
//! drained) goes through the coordinator instead (`agents::team`). Each agent stamps and
//! reads the run's clock through its measured offset, so latencies and the time to the
//! last update are on the coordinator's clock.

use super::super::matrix::{self, CasePlan, MatrixOptions, MatrixSummary, Outcome, PartyReport};
use super::super::network::{Network, SETUP_TIMEOUT};
use super::super::oneway::Clock;
use super::super::results::Results;
use super::super::{BenchError, Setup};
use super::agent::Session;
use super::clock;
use super::coordinator::Launch;
use super::parties;
use super::protocol::PartyTask;
use super::team;

pub fn run(
    options: &MatrixOptions,
    launch: &Launch,
    results: &Results,
) -> Result<MatrixSummary, BenchError> {
    if options.raw.is_some() {
        return Err(BenchError::Failed(
            "agents run Trellis federates or nodes; --raw runs in one process".into(),
        ));
    }
    // Every case's agents' offsets: the clock line covers them all.
    let mut offsets = Vec::new();
    let mut index = 0;
    let mut summary = matrix::run_cases(options, results, |plan| {
        index += 1;
        case(options, launch, results, plan, index, &mut offsets)
    })?;
    summary.clock = Some(clock::shifted_method(&offsets));
    results.write_summary(&summary)?;
    Ok(summary)
}

/// Case number `index`: every party an agent on a network of the case's own (its transport
/// decides the links, as in one process); its outcome. Its agents' clock offsets are added
/// to `offsets`.
fn case(
    options: &MatrixOptions,
    launch: &Launch,
    results: &Results,
    plan: &CasePlan,
    index: usize,
    offsets: &mut Vec<clock::ClockOffset>,
) -> Result<Outcome, BenchError> {
    let setup = Setup {
        transport: plan.transport(),
        ..options.setup.clone()
    };
    let network = Network::start(&setup)?;
    let n = plan.parties();
    let places = network.attachments().take(n)?;
    let receivers: Vec<usize> = plan.receivers().collect();
    let parties = places
        .iter()
        .enumerate()
        .map(|(party, at)| {
            let role = match (plan.sends(party), receivers.contains(&party)) {
                (true, true) => format!("party {}: sender and receiver", party + 1),
                (true, false) => format!("party {}: sender", party + 1),
                _ => format!("party {}: receiver", party + 1),
            };
            let task = PartyTask::Matrix {
                plan: plan.clone(),
                party,
            };
            (at.clone(), role, task)
        })
        .collect();
    let (mut agents, federation) = parties::start_parties(launch, &network, &setup, parties)?;
    // Receivers greet until they heard every sender; every party sends (or not) and says
    // what it published; receivers drain.
    let sending = plan.overrun() + SETUP_TIMEOUT;
    let draining = plan.overrun() + 2 * matrix::STRAGGLER_LIMIT + SETUP_TIMEOUT;
    let (start_nanos, sent, drained) = team::coordinate::<PartyReport>(
        &mut agents,
        &receivers,
        &receivers,
        sending,
        draining,
        |sent, me| {
            let heard: u64 = plan.heard_by(me).map(|s| sent[s].published).sum();
            (heard, 0)
        },
    )?;
    let mut tallies: Vec<_> = (0..n).map(|_| None).collect();
    for (party, report) in drained {
        tallies[party] = report.tally;
    }
    offsets.extend((0..n).filter_map(|a| agents.clock_offset(a).cloned()));
    parties::finish_as(&mut agents, results, &format!("agents-case-{index}.json"))?;
    drop(agents);
    drop(federation);
    drop(network);
    let outcome = Outcome {
        start_nanos,
        published: sent.iter().map(|r| r.published).collect(),
        tallies,
    };
    Ok(outcome)
}

/// Party `party` of a case: the run as in one process (greet, send, drain, linger, leave),
/// its team the coordinator. The faults after the measurement, if any.
pub(crate) fn party(
    session: &mut Session,
    plan: &CasePlan,
    party: usize,
    wire: &mut dyn matrix::Wire,
) -> Result<Option<String>, BenchError> {
    let clock: Clock = session.clock()?;
    team::play(session, |team| {
        let outcome = matrix::party_run(wire, party, plan, team, clock)?;
        if outcome.is_some() {
            matrix::party_leave(wire, party, plan, team, clock);
        }
        Ok(outcome)
    })
}
