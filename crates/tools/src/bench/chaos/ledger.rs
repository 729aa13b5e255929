//! The accounting after the run: every reliable serial a federate reflected is checked
//! against what its publisher sent, per fault window (from one kill to the next).
//!
//! A stream is what one membership (epoch) of a receiver got from one membership of a
//! publisher. Within a stream a serial seen twice is a duplicate, and a jump is a gap that
//! the receiver must have been told of (`ReliableMessagesLost`, which arrives with the
//! message that revealed the gap). A stream starts at its first reflection: what was sent
//! before the subscription reached the publisher was never owed. Its tail (sent after the
//! last reflection) is lost with a membership when either side's membership ended (the
//! federate heard `connectionLost`); when both still stand at the end, an undelivered
//! tail is an unreported loss.

use super::federate::Observation;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// (receiver, receiver epoch, publisher, publisher epoch).
type Stream = (usize, u32, usize, u32);

/// What one window (or the whole run) counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub delivered: u64,
    pub duplicated: u64,
    pub reported_lost: u64,
    /// Serials skipped within streams (each must be covered by a loss report).
    pub missing: u64,
    pub unreported: u64,
    /// Tails of streams whose receiver or publisher lost its membership.
    pub lost_with_membership: u64,
    /// Serials that arrived below the last one of their stream (not duplicates).
    pub reordered: u64,
    /// Best-effort updates owed: each one sent, times the other federates joined then.
    pub best_effort_expected: u64,
    pub best_effort_delivered: u64,
    /// Federates whose membership ended in the window, and when the last one rejoined.
    pub memberships_lost: usize,
    pub last_rejoin: Option<Duration>,
    /// Why the first of those memberships ended.
    pub membership_fault: Option<String>,
}

/// What a window's faults look like from the federates.
#[derive(Clone, Debug, Default)]
pub(crate) struct WindowView {
    pub counts: Counts,
    /// The first symptom after the kill, and what it was.
    pub detected: Option<(Duration, String)>,
    /// When reliable traffic flowed again between every pair, counted from `since`.
    pub recovered: Option<Duration>,
}

/// Accounting over `log`, cut into windows starting at `starts` (kill times, ascending);
/// window 0 is before the first kill. `recover_since[i]` is when window i+1's restart was
/// seen. `names` name the federates in symptoms.
pub(crate) struct Ledger<'a> {
    pub log: &'a [Observation],
    pub starts: &'a [Duration],
    pub recover_since: &'a [Option<Duration>],
    pub names: &'a [String],
    /// Silence on a pair longer than this is a symptom ("traffic stopped").
    pub stall: Duration,
}

impl Ledger<'_> {
    fn window(&self, at: Duration) -> usize {
        self.starts.partition_point(|&s| s <= at)
    }

    /// Per window (index 0: before the first fault) and for the whole run.
    pub(crate) fn account(&self) -> (Vec<WindowView>, Counts) {
        let mut log: Vec<&Observation> = self.log.iter().collect();
        log.sort_by_key(|o| o.at());
        let mut walk = Walk::new(self.names.len(), self.starts.len() + 1);
        for observation in &log {
            let window = self.window(observation.at());
            walk.take(observation, window);
        }
        walk.tails(|at| self.window(at));
        let mut views: Vec<WindowView> = walk
            .windows
            .iter()
            .map(|counts| WindowView {
                counts: counts.clone(),
                ..Default::default()
            })
            .collect();
        for (w, view) in views.iter_mut().enumerate() {
            view.counts.unreported += walk.unreported(Some(w));
        }
        let mut total = walk.total();
        total.unreported += walk.unreported(None);
        let pairs = Pairs::collect(&log);
        for (i, &kill) in self.starts.iter().enumerate() {
            let end = self.starts.get(i + 1).copied().unwrap_or(Duration::MAX);
            views[i + 1].detected = self.detect(&log, &pairs, kill, end);
            views[i + 1].recovered = self.recover(&log, &pairs, kill, end, self.recover_since[i]);
        }
        (views, total)
    }

    /// The first symptom in [kill, end): a loss report, a lost membership, or a pair whose
    /// reliable traffic went silent for longer than `stall`.
    fn detect(
        &self,
        log: &[&Observation],
        pairs: &Pairs,
        kill: Duration,
        end: Duration,
    ) -> Option<(Duration, String)> {
        let name = |i: usize| self.names.get(i).cloned().unwrap_or_else(|| i.to_string());
        let mut first = log.iter().find_map(|o| match o {
            Observation::Lost {
                receiver,
                publisher,
                at,
                ..
            } if *at >= kill && *at < end => {
                let from = publisher.map_or_else(|| "?".to_owned(), name);
                Some((
                    *at,
                    format!("loss report at {} from {from}", name(*receiver)),
                ))
            }
            Observation::MembershipLost { federate, at, .. } if *at >= kill && *at < end => {
                Some((*at, format!("membership lost at {}", name(*federate))))
            }
            _ => None,
        });
        for (&(receiver, publisher), times) in &pairs.times {
            if let Some(at) = stalled(times, kill, end, self.stall) {
                if first.as_ref().is_none_or(|(t, _)| at < *t) {
                    let what = format!("traffic stopped {}→{}", name(publisher), name(receiver));
                    first = Some((at, what));
                }
            }
        }
        first
    }

    /// When every pair reflected a reliable update sent after the restart and after the
    /// window's last join or lost membership, before `end`.
    fn recover(
        &self,
        log: &[&Observation],
        pairs: &Pairs,
        kill: Duration,
        end: Duration,
        restarted: Option<Duration>,
    ) -> Option<Duration> {
        let mut start = restarted?;
        for o in log {
            if let Observation::Joined { at, .. } | Observation::MembershipLost { at, .. } = o {
                if *at >= kill && *at < end {
                    start = start.max(*at);
                }
            }
        }
        let n = self.names.len();
        let mut last = start;
        for receiver in 0..n {
            for publisher in (0..n).filter(|&p| p != receiver) {
                let times = pairs.times.get(&(receiver, publisher))?;
                let from = times.partition_point(|&(at, _)| at < start);
                let (at, _) = times[from..]
                    .iter()
                    .find(|&&(at, sent_at)| sent_at >= start && at < end)?;
                last = last.max(*at);
            }
        }
        Some(last)
    }
}

/// The first time in [kill, end) a pair had been silent for `stall`: after the last
/// reflection before the kill, or any later one, the next came too late or never.
fn stalled(
    times: &[(Duration, Duration)],
    kill: Duration,
    end: Duration,
    stall: Duration,
) -> Option<Duration> {
    let from = times.partition_point(|&(at, _)| at < kill).checked_sub(1)?;
    for (i, &(at, _)) in times.iter().enumerate().skip(from) {
        if at >= end {
            return None;
        }
        let next = times.get(i + 1).map_or(end, |&(next, _)| next);
        let noticed = at + stall;
        // Silence that began long before the kill is not this fault's symptom.
        if next > noticed && noticed >= kill && noticed < end {
            return Some(noticed);
        }
    }
    None
}

/// Reliable reflections per (receiver, publisher): (arrival, send time), by arrival.
struct Pairs {
    times: HashMap<(usize, usize), Vec<(Duration, Duration)>>,
}

impl Pairs {
    fn collect(log: &[&Observation]) -> Pairs {
        let mut times: HashMap<(usize, usize), Vec<(Duration, Duration)>> = HashMap::new();
        for o in log {
            if let Observation::Reflected {
                receiver,
                publisher,
                reliable: true,
                sent_at,
                at,
                ..
            } = o
            {
                times
                    .entry((*receiver, *publisher))
                    .or_default()
                    .push((*at, *sent_at));
            }
        }
        Pairs { times }
    }
}

/// Gaps and loss reports of one receiver membership, per window or for the run.
#[derive(Default)]
struct Balance {
    /// By publisher: (missing, reported).
    by_publisher: HashMap<usize, (u64, u64)>,
    /// Reports that could not name their sender: they cover any publisher's gaps.
    unattributed: u64,
}

impl Balance {
    fn unreported(&self) -> u64 {
        let short: u64 = self
            .by_publisher
            .values()
            .map(|&(missing, reported)| missing.saturating_sub(reported))
            .sum();
        short.saturating_sub(self.unattributed)
    }
}

/// The state of the walk through the observations in time order.
struct Walk {
    federates: usize,
    windows: Vec<Counts>,
    joined: Vec<bool>,
    /// Epochs that ended, with the time they did.
    ended: HashMap<(usize, u32), Duration>,
    seen_reliable: HashSet<(usize, usize, u32, u64)>,
    seen_best_effort: HashSet<(usize, usize, u32, u64)>,
    last: HashMap<Stream, u64>,
    /// Send times by (publisher, epoch), serial n at index n − 1.
    sent: HashMap<(usize, u32), Vec<Duration>>,
    /// Keyed by (window or None for the run, receiver, receiver epoch).
    balances: HashMap<(Option<usize>, usize, u32), Balance>,
    /// Tails that nobody was told of, found at the end (they count in the last window).
    unreported_tails: u64,
}

impl Walk {
    fn new(federates: usize, windows: usize) -> Walk {
        Walk {
            federates,
            windows: vec![Counts::default(); windows],
            joined: vec![false; federates],
            ended: HashMap::new(),
            seen_reliable: HashSet::new(),
            seen_best_effort: HashSet::new(),
            last: HashMap::new(),
            sent: HashMap::new(),
            balances: HashMap::new(),
            unreported_tails: 0,
        }
    }

    fn take(&mut self, observation: &Observation, window: usize) {
        match *observation {
            Observation::Joined { federate, at, .. } => {
                self.joined[federate] = true;
                let counts = &mut self.windows[window];
                counts.last_rejoin = Some(counts.last_rejoin.map_or(at, |t| t.max(at)));
            }
            Observation::MembershipLost {
                federate,
                epoch,
                ref why,
                at,
            } => {
                self.joined[federate] = false;
                self.ended.insert((federate, epoch), at);
                let counts = &mut self.windows[window];
                counts.memberships_lost += 1;
                counts.membership_fault.get_or_insert_with(|| why.clone());
            }
            Observation::Sent {
                publisher,
                epoch,
                serial,
                reliable,
                at,
            } => self.sent((publisher, epoch, serial), reliable, at, window),
            Observation::Reflected {
                receiver,
                receiver_epoch,
                publisher,
                publisher_epoch,
                serial,
                reliable,
                ..
            } => {
                let stream = (receiver, receiver_epoch, publisher, publisher_epoch);
                if reliable {
                    self.reliable(stream, serial, window);
                } else if self.seen_best_effort.insert((
                    receiver,
                    publisher,
                    publisher_epoch,
                    serial,
                )) {
                    self.windows[window].best_effort_delivered += 1;
                }
            }
            Observation::Lost {
                receiver,
                receiver_epoch,
                publisher,
                count,
                ..
            } => {
                self.windows[window].reported_lost += count;
                for key in [Some(window), None] {
                    let balance = self
                        .balances
                        .entry((key, receiver, receiver_epoch))
                        .or_default();
                    match publisher {
                        Some(p) => balance.by_publisher.entry(p).or_default().1 += count,
                        None => balance.unattributed += count,
                    }
                }
            }
        }
    }

    /// `update` is (publisher, epoch, serial).
    fn sent(&mut self, update: (usize, u32, u64), reliable: bool, at: Duration, window: usize) {
        let (publisher, epoch, serial) = update;
        if reliable {
            // Serial n at index n - 1; serials are sent in order from 1.
            let times = self.sent.entry((publisher, epoch)).or_default();
            times.resize(serial.saturating_sub(1) as usize, at);
            times.push(at);
            return;
        }
        let others = (0..self.federates)
            .filter(|&f| f != publisher && self.joined[f])
            .count();
        self.windows[window].best_effort_expected += others as u64;
    }

    fn reliable(&mut self, stream: Stream, serial: u64, window: usize) {
        let (receiver, receiver_epoch, publisher, publisher_epoch) = stream;
        let counts = &mut self.windows[window];
        if !self
            .seen_reliable
            .insert((receiver, publisher, publisher_epoch, serial))
        {
            counts.duplicated += 1;
            return;
        }
        counts.delivered += 1;
        let last = self.last.entry(stream).or_insert(serial);
        let gap = serial.saturating_sub(*last + 1);
        if serial < *last {
            counts.reordered += 1;
            return;
        }
        *last = serial;
        if gap == 0 {
            return;
        }
        counts.missing += gap;
        for key in [Some(window), None] {
            let balance = self
                .balances
                .entry((key, receiver, receiver_epoch))
                .or_default();
            balance.by_publisher.entry(publisher).or_default().0 += gap;
        }
    }

    /// The tail of every stream: lost with a membership when one side's ended (counted in
    /// the window it ended in), otherwise an unreported loss (in the last window).
    fn tails(&mut self, window_of: impl Fn(Duration) -> usize) {
        let last_window = self.windows.len() - 1;
        let streams: Vec<(Stream, u64)> = self.last.iter().map(|(&s, &l)| (s, l)).collect();
        for ((receiver, receiver_epoch, publisher, publisher_epoch), last) in streams {
            let ended = [
                self.ended.get(&(receiver, receiver_epoch)),
                self.ended.get(&(publisher, publisher_epoch)),
            ]
            .into_iter()
            .flatten()
            .min()
            .copied();
            // Serials sent while both memberships stood are owed.
            let owed =
                self.sent
                    .get(&(publisher, publisher_epoch))
                    .map_or(0, |times| match ended {
                        Some(end) => times.partition_point(|&at| at < end) as u64,
                        None => times.len() as u64,
                    });
            let tail = owed.saturating_sub(last);
            match ended {
                Some(end) => self.windows[window_of(end)].lost_with_membership += tail,
                None => {
                    self.windows[last_window].unreported += tail;
                    self.unreported_tails += tail;
                }
            }
        }
    }

    /// Unreported gaps of window `w`, or of the whole run with `None`.
    fn unreported(&self, w: Option<usize>) -> u64 {
        let gaps: u64 = self
            .balances
            .iter()
            .filter(|((key, _, _), _)| *key == w)
            .map(|(_, balance)| balance.unreported())
            .sum();
        match w {
            Some(_) => gaps,
            None => gaps + self.unreported_tails,
        }
    }

    fn total(&self) -> Counts {
        let mut total = Counts::default();
        for c in &self.windows {
            total.delivered += c.delivered;
            total.duplicated += c.duplicated;
            total.reported_lost += c.reported_lost;
            total.missing += c.missing;
            total.lost_with_membership += c.lost_with_membership;
            total.reordered += c.reordered;
            total.best_effort_expected += c.best_effort_expected;
            total.best_effort_delivered += c.best_effort_delivered;
            total.memberships_lost += c.memberships_lost;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn sent(serial: u64, at: u64) -> Observation {
        Observation::Sent {
            publisher: 1,
            epoch: 1,
            serial,
            reliable: true,
            at: ms(at),
        }
    }

    fn reflected(receiver: usize, serial: u64, at: u64) -> Observation {
        Observation::Reflected {
            receiver,
            receiver_epoch: 1,
            publisher: 1,
            publisher_epoch: 1,
            serial,
            reliable: true,
            sent_at: ms(serial * 10),
            at: ms(at),
        }
    }

    fn lost(receiver: usize, count: u64, at: u64) -> Observation {
        Observation::Lost {
            receiver,
            receiver_epoch: 1,
            publisher: Some(1),
            count,
            at: ms(at),
        }
    }

    fn account(log: &[Observation], starts: &[Duration]) -> (Vec<WindowView>, Counts) {
        let names = ["a".to_owned(), "b".to_owned(), "c".to_owned()];
        let restarts: Vec<Option<Duration>> = starts.iter().map(|&s| Some(s)).collect();
        Ledger {
            log,
            starts,
            recover_since: &restarts,
            names: &names,
            stall: ms(100),
        }
        .account()
    }

    #[test]
    fn a_reported_gap_passes_a_silent_gap_a_duplicate_and_an_undelivered_tail_do_not() {
        let mut log: Vec<Observation> = (1..=6).map(|s| sent(s, s * 10)).collect();
        // Receiver 0: 1, 2, then 5 after being told of 3 and 4.
        log.extend([reflected(0, 1, 11), reflected(0, 2, 21)]);
        log.extend([lost(0, 2, 51), reflected(0, 5, 51), reflected(0, 6, 61)]);
        // Receiver 2: 1, 2 twice, 4 with no report of 3, and never 5 or 6.
        log.extend([
            reflected(2, 1, 11),
            reflected(2, 2, 21),
            reflected(2, 2, 22),
        ]);
        log.push(reflected(2, 4, 41));
        let (windows, total) = account(&log, &[]);
        assert_eq!(total.delivered, 7);
        assert_eq!(total.duplicated, 1);
        assert_eq!(total.missing, 3);
        assert_eq!(total.reported_lost, 2);
        // Serial 3 at receiver 2, and its tail (5, 6) while both memberships stood.
        assert_eq!(total.unreported, 3);
        assert_eq!(windows[0].counts.unreported, 3);
    }

    #[test]
    fn a_tail_cut_by_a_lost_membership_is_counted_apart_from_silent_loss() {
        let mut log: Vec<Observation> = (1..=6).map(|s| sent(s, s * 10)).collect();
        log.extend([reflected(0, 1, 11), reflected(0, 2, 21)]);
        log.push(Observation::MembershipLost {
            federate: 0,
            epoch: 1,
            why: "connectionLost".into(),
            at: ms(45),
        });
        let (windows, total) = account(&log, &[ms(30)]);
        // Serials 3 and 4 were sent while receiver 0 was still a member; 5 and 6 after.
        assert_eq!(total.lost_with_membership, 2);
        assert_eq!(total.unreported, 0);
        assert_eq!(windows[1].counts.memberships_lost, 1);
        assert_eq!(windows[1].counts.lost_with_membership, 2);
    }

    #[test]
    fn detection_is_the_first_symptom_after_the_kill() {
        // Pair 1 → 0 reflects every 10 ms until 40 ms, then stops; the kill is at 35 ms.
        let log: Vec<Observation> = (1..=4).map(|s| reflected(0, s, s * 10)).collect();
        let (windows, _) = account(&log, &[ms(35)]);
        let (at, by) = windows[1].detected.clone().unwrap();
        assert_eq!(at, ms(140));
        assert_eq!(by, "traffic stopped b→a");
    }
}
