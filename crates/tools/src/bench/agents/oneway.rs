//! JADS one-way tests with the sender and the receiver in agent processes of their own:
//! the same federates (an exchange channel's two ends), the same warm-up, schedule,
//! receipt and straggler wait (`oneway::warm_up_send`, `warm_up_listen`, `send_case`,
//! `linger`, `receive`) and the same data files and summary (`oneway::run_cases`) as in
//! one process. Both agents stamp and read the run's clock through their measured offsets
//! (`oneway::Clock::shifted`), so each one-way latency is a receipt time minus a send time
//! on the coordinator's clock, good to within the two offsets' bounds.

use super::super::network::{Network, SETUP_TIMEOUT};
use super::super::oneway::{self, Arrivals, OnewayOptions, OnewaySummary};
use super::super::results::Results;
use super::super::sides::Side;
use super::super::BenchError;
use super::agent::Session;
use super::clock;
use super::coordinator::{Agents, Launch};
use super::parties;
use super::protocol::{unix_nanos, FromAgent, PartyTask, ToAgent};
use std::time::{Duration, Instant};

/// Messages one case may have with agents: the receiver's arrivals travel as one control
/// line, at most about 30 bytes each.
pub const MAX_MESSAGES_PER_CASE: u64 = 500_000;
/// How long the receiver may take after the sender finished (its own wait is bounded by
/// oneway's straggler limit, 10 s).
const STRAGGLERS_TIMEOUT: Duration = Duration::from_secs(30);

const SENDER: usize = 0;
const RECEIVER: usize = 1;

pub fn run(
    options: &OnewayOptions,
    launch: &Launch,
    results: &Results,
) -> Result<OnewaySummary, BenchError> {
    if options.raw.is_some() {
        return Err(BenchError::Failed(
            "agents run Trellis federates; --raw runs in one process".into(),
        ));
    }
    oneway::validate(options)?;
    if let Some(&rate) = options
        .rates
        .iter()
        .find(|&&r| r * options.seconds > MAX_MESSAGES_PER_CASE as f64)
    {
        return Err(BenchError::Failed(format!(
            "{rate} Hz for {} s: with agents a case sends at most {MAX_MESSAGES_PER_CASE} messages",
            options.seconds
        )));
    }
    let setup = &options.setup;
    let network = Network::start(setup)?;
    let (from, to) = network.attachments().pairs(1)?.remove(0);
    let parties = vec![
        (from, "sender".to_owned(), PartyTask::OnewaySend),
        (to, "receiver".to_owned(), PartyTask::OnewayReceive),
    ];
    let (mut agents, federation) = parties::start_parties(launch, &network, setup, parties)?;
    // The receiver heard a warm-up message: subscriptions are in place.
    match agents
        .collect(
            &[RECEIVER],
            SETUP_TIMEOUT + Duration::from_secs(1),
            "warm-up",
        )?
        .pop()
    {
        Some(FromAgent::Warmed) => {}
        other => return Err(agents.unexpected(RECEIVER, other.as_ref(), "warmed")),
    }
    agents.send(SENDER, &ToAgent::Go)?;
    let offsets: Vec<clock::ClockOffset> = (0..agents.len())
        .filter_map(|a| agents.clock_offset(a).cloned())
        .collect();
    let method = clock::shifted_method(&offsets);
    let summary = oneway::run_cases(options, results, Some(method), |plan| {
        case(&mut agents, plan)
    })?;
    parties::finish_as(&mut agents, results, "agents.json")?;
    drop(agents);
    drop(federation);
    drop(network);
    Ok(summary)
}

/// One case: the receiver listens first, then the sender sends; the receiver's arrivals.
fn case(agents: &mut Agents, plan: &oneway::CasePlan) -> Result<Arrivals, BenchError> {
    agents.send(RECEIVER, &ToAgent::OnewayCase(plan.clone()))?;
    match agents
        .collect(&[RECEIVER], SETUP_TIMEOUT, "listening")?
        .pop()
    {
        Some(FromAgent::Ready) => {}
        other => return Err(agents.unexpected(RECEIVER, other.as_ref(), "listening")),
    }
    agents.send(SENDER, &ToAgent::OnewayCase(plan.clone()))?;
    let sending = Duration::from_secs_f64(plan.count as f64 / plan.rate_hz) + SETUP_TIMEOUT;
    match agents.collect(&[SENDER], sending, "sent")?.pop() {
        Some(FromAgent::Sent { .. }) => {}
        other => return Err(agents.unexpected(SENDER, other.as_ref(), "sent")),
    }
    agents.send(
        RECEIVER,
        &ToAgent::Drain {
            expected: plan.count,
        },
    )?;
    let arrivals = match agents
        .collect(&[RECEIVER], STRAGGLERS_TIMEOUT, "arrivals")?
        .pop()
    {
        Some(FromAgent::Arrivals { arrivals }) if arrivals.len() as u64 == plan.count => arrivals,
        other => return Err(agents.unexpected(RECEIVER, other.as_ref(), "the case's arrivals")),
    };
    agents.send(SENDER, &ToAgent::Drained)?;
    Ok(arrivals)
}

/// The next command if one is waiting: `Ok(true)` when it is `wanted`, an error when it is
/// anything else.
fn heard(
    session: &mut Session,
    wanted: &str,
    is: fn(&ToAgent) -> bool,
) -> Result<bool, BenchError> {
    match session.next(Some(Duration::ZERO))? {
        None => Ok(false),
        Some(command) if is(&command) => Ok(true),
        Some(other) => Err(BenchError::Failed(format!(
            "expected {wanted} from the coordinator, got {other:?}"
        ))),
    }
}

/// The sender: warm up until told the receiver heard, then send each case it is given.
pub(crate) fn sender(session: &mut Session, side: &mut dyn Side) -> Result<(), BenchError> {
    let clock = session.clock()?;
    oneway::warm_up_send(side, clock, || {
        heard(session, "go", |c| matches!(c, ToAgent::Go))
    })?;
    loop {
        match session.next(None)? {
            Some(ToAgent::OnewayCase(plan)) => {
                let (began_unix_nanos, began) = (unix_nanos(), Instant::now());
                oneway::send_case(&plan, side, clock)?;
                session.say(&FromAgent::Sent {
                    sent: plan.count,
                    began_unix_nanos,
                    send_nanos: began.elapsed().as_nanos() as u64,
                })?;
                oneway::linger(side, || {
                    heard(session, "drained", |c| matches!(c, ToAgent::Drained))
                })?;
            }
            // The receiver took longer than lingering's own bound.
            Some(ToAgent::Drained) => {}
            Some(ToAgent::Finish) => return Ok(()),
            other => {
                return Err(BenchError::Failed(format!(
                    "a one-way sender expected a case or finish, got {other:?}"
                )))
            }
        }
    }
}

/// The receiver: say when warmed up, then note each case's arrivals and report them.
pub(crate) fn receiver(session: &mut Session, side: &mut dyn Side) -> Result<(), BenchError> {
    let clock = session.clock()?;
    oneway::warm_up_listen(side)?;
    session.say(&FromAgent::Warmed)?;
    loop {
        match session.next(None)? {
            Some(ToAgent::OnewayCase(plan)) => {
                if plan.count > MAX_MESSAGES_PER_CASE {
                    return Err(BenchError::Failed(format!(
                        "{} messages in a case; with agents at most {MAX_MESSAGES_PER_CASE}",
                        plan.count
                    )));
                }
                session.say(&FromAgent::Ready)?;
                let mut sending_ended = false;
                let arrivals = oneway::receive(&plan, side, clock, || {
                    sending_ended =
                        heard(session, "drain", |c| matches!(c, ToAgent::Drain { .. }))?;
                    Ok(sending_ended)
                })?;
                // Everything came before the sender finished: its end still comes.
                if !sending_ended {
                    session.expect("drain", |c| matches!(c, ToAgent::Drain { .. }))?;
                }
                session.say(&FromAgent::Arrivals { arrivals })?;
            }
            Some(ToAgent::Finish) => return Ok(()),
            other => {
                return Err(BenchError::Failed(format!(
                    "a one-way receiver expected a case or finish, got {other:?}"
                )))
            }
        }
    }
}
