//! RTI-NG's symmetric test: every federate sends as fast as it can and receives what all
//! the others send. Swept over federate counts.

use super::human;
use super::network::Network;
use super::results::Results;
use super::sides::{peer, Channel, Peer};
use super::sweep::Sweep;
use super::{Api, BenchError, Mode, Setup};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

pub const DEFAULT_FEDERATES: [usize; 3] = [2, 4, 6];
/// After sending stops, how long a party keeps reading while messages still arrive.
const DRAIN_QUIET: Duration = Duration::from_millis(500);

#[derive(Clone, Debug)]
pub struct SymmetricOptions {
    pub setup: Setup,
    pub size: usize,
    pub seconds: f64,
    pub federates: Vec<usize>,
}

pub use crate::results::symmetric::{SymmetricCase, SymmetricSummary};

pub fn run(options: &SymmetricOptions, results: &Results) -> Result<SymmetricSummary, BenchError> {
    run_cases(options, results, |n| run_case(options, n))
}

/// Every case of the sweep, each measured by `case`; the summary and CSV after each.
pub(crate) fn run_cases(
    options: &SymmetricOptions,
    results: &Results,
    mut case: impl FnMut(usize) -> Result<SymmetricCase, BenchError>,
) -> Result<SymmetricSummary, BenchError> {
    if options.federates.iter().any(|&n| n < 2) {
        return Err(BenchError::Failed(
            "a symmetric case needs at least two federates".into(),
        ));
    }
    let setup = &options.setup;
    let mut summary = SymmetricSummary {
        mode: Mode::Trellis,
        api: setup.api,
        transport: setup.transport,
        cases: Vec::new(),
        clock: None,
    };
    let mut sweep = Sweep::new(
        results,
        setup,
        "symmetric cases",
        options.federates.len(),
        "symmetric.csv",
        &[
            "federates",
            "size",
            "sent",
            "received",
            "lost",
            "total_msgs_per_sec",
        ],
    );
    for &n in &options.federates {
        if sweep.stopped() {
            break;
        }
        let c = case(n)?;
        let row = vec![
            c.federates.to_string(),
            c.size.to_string(),
            c.sent.to_string(),
            c.received.to_string(),
            c.lost.to_string(),
            format!("{:.1}", c.total_msgs_per_sec),
        ];
        summary.cases.push(c);
        sweep.record(&summary, row)?;
    }
    Ok(summary)
}

fn run_case(options: &SymmetricOptions, n: usize) -> Result<SymmetricCase, BenchError> {
    let network = Network::start(&options.setup)?;
    let places = network.attachments().take(n)?;
    let federation = match options.setup.api {
        Api::Federate => Some(network.federation(&places[0])?),
        Api::Node => None,
    };
    let mut peers = Vec::new();
    for place in &places {
        peers.push(peer(
            &network,
            federation.as_ref(),
            place,
            &[Channel::Data],
            options.setup.transport,
        )?);
    }
    // Every party hears one message from every other before the clock starts.
    let ready = Arc::new(AtomicUsize::new(0));
    let start = Arc::new(Barrier::new(n));
    let threads: Vec<_> = peers
        .into_iter()
        .enumerate()
        .map(|(i, party)| {
            let (ready, start, size, seconds) =
                (ready.clone(), start.clone(), options.size, options.seconds);
            std::thread::spawn(move || {
                let mut gate = InProcess {
                    ready: &ready,
                    n,
                    start: &start,
                };
                party_run(party, i, n, size, seconds, &mut gate)
            })
        })
        .collect();
    let mut parties = Vec::new();
    for thread in threads {
        parties.push(
            thread
                .join()
                .map_err(|_| BenchError::Failed("a symmetric party panicked".into()))??,
        );
    }
    Ok(case_of(n, options.size, &parties))
}

/// A case from each party's (sent, received, time from its start to its last receipt).
pub(crate) fn case_of(n: usize, size: usize, parties: &[(u64, u64, Duration)]) -> SymmetricCase {
    let per_federate: Vec<f64> = parties
        .iter()
        .map(|(_, r, elapsed)| *r as f64 / elapsed.as_secs_f64().max(1e-9))
        .collect();
    let sent: u64 = parties.iter().map(|p| p.0).sum();
    let received: u64 = parties.iter().map(|p| p.1).sum();
    SymmetricCase {
        federates: n,
        size,
        total_msgs_per_sec: per_federate.iter().sum(),
        per_federate_msgs_per_sec: per_federate,
        sent,
        received,
        lost: (sent * (n as u64 - 1)).saturating_sub(received),
    }
}

/// How the parties of a case start together: each says when it heard every other, all
/// keep greeting until every one has, then they start at once.
pub(crate) trait Gate {
    /// This party heard every other one.
    fn heard_all(&mut self) -> Result<(), BenchError>;
    /// Every party heard every other: greeting may stop.
    fn everyone_heard(&mut self) -> Result<bool, BenchError>;
    /// Wait for the common start (which may have begun: a measured message came).
    fn start(&mut self) -> Result<(), BenchError>;
}

/// The parties are threads of this process.
struct InProcess<'a> {
    ready: &'a AtomicUsize,
    n: usize,
    start: &'a Barrier,
}

impl Gate for InProcess<'_> {
    fn heard_all(&mut self) -> Result<(), BenchError> {
        self.ready.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    fn everyone_heard(&mut self) -> Result<bool, BenchError> {
        Ok(self.ready.load(Ordering::SeqCst) >= self.n)
    }

    fn start(&mut self) -> Result<(), BenchError> {
        self.start.wait();
        Ok(())
    }
}

/// Returns (sent, received, time from the start to the last receipt).
pub(crate) fn party_run(
    mut party: Box<dyn Peer>,
    me: usize,
    n: usize,
    size: usize,
    seconds: f64,
    gate: &mut dyn Gate,
) -> Result<(u64, u64, Duration), BenchError> {
    // A warm-up message each, resent until everyone has heard everyone: a party that has
    // heard all keeps greeting until all say so, or a slower one might never hear it.
    let mut heard = vec![false; n];
    heard[me] = true;
    let mut counted = false;
    let hello = (me as u32).to_le_bytes();
    let deadline = Instant::now() + super::network::SETUP_TIMEOUT;
    // A measured message during the warm-up: another party started first (parties in
    // other processes hear the start at slightly different times), so every party heard
    // every other. It counts, and this party starts too.
    let mut early = 0u64;
    while early == 0 && !gate.everyone_heard()? {
        if Instant::now() > deadline {
            return Err(BenchError::Failed(format!(
                "party {me} did not hear every other party"
            )));
        }
        party.send(Channel::Data, &hello)?;
        while let Some((_, payload)) = party.recv(Duration::from_millis(20))? {
            if let Some(from) = payload.get(..4) {
                let from = u32::from_le_bytes(from.try_into().expect("four bytes"));
                if from == u32::MAX {
                    early += 1;
                    break;
                }
                if (from as usize) < n {
                    heard[from as usize] = true;
                }
            }
        }
        if !counted && heard.iter().all(|h| *h) {
            counted = true;
            gate.heard_all()?;
        }
    }
    // Late warm-up messages still in flight are not counted: mark measured ones.
    let mut payload = vec![0xA5u8; size.max(8)];
    payload[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let keep_reading = |party: &mut Box<dyn Peer>,
                        received: &mut u64,
                        last: &mut Instant|
     -> Result<bool, BenchError> {
        match party.recv(Duration::ZERO)? {
            Some((_, p)) => {
                if p.get(..4) == Some(&u32::MAX.to_le_bytes()[..]) {
                    *received += 1;
                    *last = Instant::now();
                }
                Ok(true)
            }
            None => Ok(false),
        }
    };
    gate.start()?;
    let began = Instant::now();
    let (mut sent, mut received, mut last) = (0u64, early, began);
    let duration = Duration::from_secs_f64(seconds);
    while began.elapsed() < duration {
        for _ in 0..16 {
            party.send(Channel::Data, &payload)?;
            sent += 1;
        }
        while keep_reading(&mut party, &mut received, &mut last)? {}
    }
    let mut quiet_since = Instant::now();
    while quiet_since.elapsed() < DRAIN_QUIET {
        if keep_reading(&mut party, &mut received, &mut last)? {
            quiet_since = Instant::now();
        } else {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    Ok((sent, received, last - began))
}

/// The summary for people.
pub fn table(s: &SymmetricSummary) -> String {
    let mut text = format!("symmetric ({:?} API, {:?}):", s.api, s.transport);
    for c in &s.cases {
        text.push_str(&format!(
            "\n  {:>2} federates: {:.0} msg/s received in all; sent {}, received {}, lost {}",
            c.federates, c.total_msgs_per_sec, c.sent, c.received, c.lost
        ));
    }
    human::push_clock(&mut text, &s.clock);
    text
}
