//! BmThruput with the sender and every receiver in an agent process of its own: the same
//! federates (`throughput::Sender`, `throughput::Receiver`), the same warm-up, drain and
//! summary (`throughput::run_cases`) as in one process. Receivers' last receipt and the
//! sender's start come back on their own clocks and are compared through the measured
//! offsets.

use super::super::network::{Network, SETUP_TIMEOUT};
use super::super::results::Results;
use super::super::throughput::{
    pause, run_cases, wait_for_drain, Outcome, Receiver, Sender, ThroughputOptions,
    ThroughputSummary,
};
use super::super::{Api, BenchError};
use super::agent::Session;
use super::coordinator::{Agents, Launch};
use super::protocol::{unix_nanos, FromAgent, ToAgent};
use std::time::{Duration, Instant};
use trellis_net::rti::Driver;

/// How long receivers may take to drain after the sender stopped (`wait_for_drain`'s own
/// bound is 30 s).
const DRAIN_TIMEOUT: Duration = Duration::from_secs(45);

pub fn run(
    options: &ThroughputOptions,
    launch: &Launch,
    results: &Results,
) -> Result<ThroughputSummary, BenchError> {
    if options.raw.is_some() || options.setup.api != Api::Federate {
        return Err(BenchError::Failed(
            "throughput with agents runs HLA federates: not with --raw or --api node (yet)".into(),
        ));
    }
    if options.subscribers.is_empty() || options.subscribers.contains(&0) {
        return Err(BenchError::Failed(
            "every case needs at least one receiver".into(),
        ));
    }
    if !(options.seconds.is_finite() && options.seconds > 0.0) {
        return Err(BenchError::Failed(format!(
            "--seconds must be a positive number, not {}",
            options.seconds
        )));
    }
    let mut methods = Vec::new();
    let mut summary = run_cases(options, results, |n| {
        let (outcome, method) = case(options, launch, results, n)?;
        methods.push(method);
        Ok(outcome)
    })?;
    methods.dedup();
    summary.clock = Some(methods.join("; "));
    results.write_summary(&summary)?;
    Ok(summary)
}

/// One case: a sender and `n` receivers, each in an agent; its outcome and clock method.
fn case(
    options: &ThroughputOptions,
    launch: &Launch,
    results: &Results,
    n: usize,
) -> Result<(Outcome, String), BenchError> {
    let setup = &options.setup;
    let network = Network::start(setup)?;
    let places = network.attachments().take(n + 1)?;
    let federation = network.federation(&places[0])?;
    let mut names = vec![(places[0].clone(), "sender".to_owned())];
    for (i, place) in places[1..].iter().enumerate() {
        names.push((place.clone(), format!("receiver {}", i + 1)));
    }
    let mut agents = Agents::start(launch, &names)?;
    agents.probe_clocks()?;
    let agent_setup = super::agent_setup(&network, setup, Some(&federation))?;
    agents.send_all(&ToAgent::Setup(agent_setup))?;
    let size = options.size;
    agents.send(
        0,
        &ToAgent::Send {
            at: places[0].clone(),
            size,
        },
    )?;
    for (i, place) in places[1..].iter().enumerate() {
        agents.send(i + 1, &ToAgent::Receive { at: place.clone() })?;
    }
    super::all_ready(&mut agents)?;
    agents.send_all(&ToAgent::Start)?;
    let receivers: Vec<usize> = (1..=n).collect();
    for (&agent, answer) in
        receivers
            .iter()
            .zip(agents.collect(&receivers, SETUP_TIMEOUT, "warm-up")?)
    {
        if !matches!(answer, FromAgent::Warmed) {
            return Err(agents.unexpected(agent, Some(&answer), "warmed"));
        }
    }
    agents.send(
        0,
        &ToAgent::Measured {
            seconds: options.seconds,
        },
    )?;
    let sending = Duration::from_secs_f64(options.seconds) + SETUP_TIMEOUT;
    let (sent, began, send_time) = match agents.collect(&[0], sending, "sent count")?.pop() {
        Some(FromAgent::Sent {
            sent,
            began_unix_nanos,
            send_nanos,
        }) => (
            sent,
            // On the coordinator's clock.
            began_unix_nanos as i128 - agents.offset_nanos(0) as i128,
            Duration::from_nanos(send_nanos),
        ),
        other => return Err(agents.unexpected(0, other.as_ref(), "a sent count")),
    };
    for &agent in &receivers {
        agents.send(agent, &ToAgent::Drain { expected: sent })?;
    }
    let mut counts = Vec::new();
    for (&agent, answer) in
        receivers
            .iter()
            .zip(agents.collect(&receivers, DRAIN_TIMEOUT, "received count")?)
    {
        match answer {
            FromAgent::Received {
                received,
                last_unix_nanos,
            } => {
                let last = last_unix_nanos as i128 - agents.offset_nanos(agent) as i128;
                let elapsed = Duration::from_nanos((last - began).max(0) as u64);
                counts.push((received, elapsed));
            }
            other => return Err(agents.unexpected(agent, Some(&other), "a received count")),
        }
    }
    for (agent, fault) in agents.finish(SETUP_TIMEOUT)? {
        results.fault(format!("agent {agent}: {fault}"));
    }
    let report = agents.report();
    results.write_json(&format!("agents-{n}.json"), &report)?;
    Ok((
        Outcome {
            sent,
            send_time,
            receivers: counts,
        },
        report.clock_method,
    ))
}

/// A receiver: reflect, say when warmed, count until drained, resign when told.
pub(crate) fn receiver(session: &mut Session, at: &str) -> Result<(), BenchError> {
    let (network, federation, setup) = session.network()?;
    let federation = federation
        .ok_or_else(|| BenchError::Failed("a throughput receiver needs a federation".into()))?;
    // Receipt times count from `start`; `start_unix` is the same instant on the wall clock.
    let (start, start_unix) = (Instant::now(), unix_nanos());
    let receiver = Receiver::join(&network, &federation, at, start, Driver::Thread, true)?;
    session.say(&FromAgent::Ready)?;
    session.expect("start", |c| matches!(c, ToAgent::Start))?;
    let deadline = Instant::now() + SETUP_TIMEOUT;
    while !receiver.warmed() {
        if Instant::now() > deadline {
            return Err(BenchError::Failed(format!(
                "{at} reflected no warm-up update within {} s",
                SETUP_TIMEOUT.as_secs()
            )));
        }
        // A command now is out of turn; polling the flag is how the in-process run waits too.
        if let Some(command) = session.next(Some(Duration::from_millis(2)))? {
            return Err(BenchError::Failed(format!(
                "{command:?} during the warm-up"
            )));
        }
    }
    session.say(&FromAgent::Warmed)?;
    let expected = match session.expect("drain", |c| matches!(c, ToAgent::Drain { .. }))? {
        ToAgent::Drain { expected } => expected,
        _ => unreachable!("expect returned the drain it matched"),
    };
    let counter = receiver.counter.clone();
    wait_for_drain(
        std::slice::from_ref(&counter),
        &[expected],
        setup.transport,
        pause,
    );
    session.say(&FromAgent::Received {
        received: counter.received(),
        last_unix_nanos: start_unix + counter.elapsed().as_nanos() as u64,
    })?;
    session.expect("finish", |c| matches!(c, ToAgent::Finish))?;
    let fault = match receiver.finish()? {
        Ok(()) => None,
        Err(e) => Some(format!("resign failed: {e}")),
    };
    session.say(&FromAgent::Finished { fault })
}

/// The sender: warm up until the coordinator says every receiver heard it, send for the
/// seconds it gives, report, resign when told.
pub(crate) fn sender(session: &mut Session, at: &str, size: usize) -> Result<(), BenchError> {
    let (network, federation, setup) = session.network()?;
    let federation = federation
        .ok_or_else(|| BenchError::Failed("the throughput sender needs a federation".into()))?;
    let mut sender = Sender::join(
        &network,
        &federation,
        at,
        size,
        setup.transport,
        Driver::Thread,
        true,
    )?;
    session.say(&FromAgent::Ready)?;
    session.expect("start", |c| matches!(c, ToAgent::Start))?;
    let mut seconds = None;
    let mut out_of_turn = None;
    sender.warm_up(|| match session.next(Some(Duration::ZERO)) {
        Ok(None) => false,
        Ok(Some(ToAgent::Measured { seconds: s })) => {
            seconds = Some(s);
            true
        }
        Ok(Some(other)) => {
            out_of_turn = Some(BenchError::Failed(format!("{other:?} during the warm-up")));
            true
        }
        Err(e) => {
            out_of_turn = Some(e);
            true
        }
    })?;
    if let Some(e) = out_of_turn {
        return Err(e);
    }
    let seconds = seconds.ok_or_else(|| BenchError::Failed("no measured run asked".into()))?;
    let began_unix_nanos = unix_nanos();
    let (sent, send_time) = sender.send_measured(seconds)?;
    session.say(&FromAgent::Sent {
        sent,
        began_unix_nanos,
        send_nanos: send_time.as_nanos() as u64,
    })?;
    session.expect("finish", |c| matches!(c, ToAgent::Finish))?;
    let fault = sender.resign().err().map(|e| format!("resign failed: {e}"));
    session.say(&FromAgent::Finished { fault })
}
