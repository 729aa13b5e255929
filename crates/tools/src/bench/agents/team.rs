//! Parties that coordinate while they run (testfed's load federates, the matrix's
//! parties): in one process they share atomics; as agents, their coordinator stands in for
//! them. The agent's side is a [`Team`] that says what the party did and hears what the
//! others did ([`Coordinated`], [`play`]); the coordinator's side relays it in the same
//! order ([`coordinate`]): heard everyone → start → done sending → what the others sent →
//! drained → all drained. Reports travel as JSON values of the benchmark's own type.

use super::super::network::SETUP_TIMEOUT;
use super::super::team::Team;
use super::super::BenchError;
use super::agent::Session;
use super::coordinator::Agents;
use super::protocol::{FromAgent, ToAgent};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::cell::RefCell;
use std::time::Duration;

/// How far ahead of now the start is set: agents on other hosts hear it a network trip
/// later than it was said.
pub const START_LEAD: Duration = Duration::from_millis(100);

/// What [`coordinate`] gives back: the start (on the run's clock), what each party sent,
/// and what each drainer got, by party.
pub type RunReports<R> = (u64, Vec<R>, Vec<(usize, R)>);

/// The coordinator's side of one run: wait until every party in `hearers` heard everyone
/// it should, set the start, collect every party's report on what it sent (within
/// `sending`), tell each what the others sent (`others`), collect the `drainers`' reports
/// on what they got (within `draining`), and say all drained. The start (on the run's
/// clock), what each party sent, and what each drainer got, by party.
pub fn coordinate<R: DeserializeOwned>(
    agents: &mut Agents,
    hearers: &[usize],
    drainers: &[usize],
    sending: Duration,
    draining: Duration,
    others: impl Fn(&[R], usize) -> (u64, u64),
) -> Result<RunReports<R>, BenchError> {
    let everyone: Vec<usize> = (0..agents.len()).collect();
    let greeting = SETUP_TIMEOUT + Duration::from_secs(1);
    for (&agent, answer) in
        hearers
            .iter()
            .zip(agents.collect(hearers, greeting, "heard everyone")?)
    {
        if !matches!(answer, FromAgent::Warmed) {
            return Err(agents.unexpected(agent, Some(&answer), "heard everyone"));
        }
    }
    let start = agents.clock().nanos() + START_LEAD.as_nanos() as u64;
    agents.send_all(&ToAgent::StartAt { nanos: start })?;
    let sent: Vec<R> = reports(agents, &everyone, START_LEAD + sending, "sent reports")?;
    for me in everyone {
        let (updates, interactions) = others(&sent, me);
        agents.send(
            me,
            &ToAgent::OthersSent {
                updates,
                interactions,
            },
        )?;
    }
    let got = reports(agents, drainers, draining, "received reports")?;
    agents.send_all(&ToAgent::AllDrained)?;
    Ok((start, sent, drainers.iter().copied().zip(got).collect()))
}

/// The next report of each agent in `from`, decoded as `R`.
fn reports<R: DeserializeOwned>(
    agents: &mut Agents,
    from: &[usize],
    timeout: Duration,
    what: &str,
) -> Result<Vec<R>, BenchError> {
    let mut all = Vec::with_capacity(from.len());
    for (&agent, answer) in from.iter().zip(agents.collect(from, timeout, what)?) {
        match answer {
            FromAgent::TeamReport(value) => {
                all.push(serde_json::from_value(value).map_err(|e| {
                    BenchError::Failed(format!(
                        "agent {}: a report that is not one: {e}",
                        agents.name(agent)
                    ))
                })?)
            }
            other => return Err(agents.unexpected(agent, Some(&other), what)),
        }
    }
    Ok(all)
}

/// What the coordinator said so far, read between the party's sends and receipts.
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

/// A party's team is its coordinator: what threads share in one process, agents say to
/// it and hear from it.
pub(crate) struct Coordinated<'a> {
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

    fn report(&self, report: &impl Serialize) -> Result<(), BenchError> {
        let value = serde_json::to_value(report)
            .map_err(|e| BenchError::Failed(format!("encoding a report: {e}")))?;
        self.say(&FromAgent::TeamReport(value))
    }
}

impl<R: Serialize> Team<R> for Coordinated<'_> {
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

    fn done_sending(&self, _me: usize, report: &R) -> Result<(), BenchError> {
        self.report(report)
    }

    fn sent_by_others(&self, _me: usize) -> Result<Option<(u64, u64)>, BenchError> {
        self.poll()?;
        Ok(self.heard.borrow().others)
    }

    fn drained(&self, _me: usize, report: &R) -> Result<(), BenchError> {
        self.report(report)
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

/// The agent's side of one run: `party` plays it with the coordinator as its team (it
/// returns `None` when the run was given up); then wait to finish. The faults after the
/// measurement, if any.
pub(crate) fn play<T>(
    session: &mut Session,
    party: impl FnOnce(&Coordinated) -> Result<Option<T>, BenchError>,
) -> Result<Option<String>, BenchError> {
    let team = Coordinated {
        session: RefCell::new(session),
        heard: RefCell::new(Heard::default()),
    };
    let played = party(&team)?;
    let Coordinated { session, heard } = team;
    let (session, heard) = (session.into_inner(), heard.into_inner());
    if played.is_none() {
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
