//! How far an agent's wall clock is from the coordinator's, NTP-style: the coordinator
//! reads its clock (t0), the agent reads its own on receipt (t1 = t2, it answers at once),
//! the coordinator reads again on the answer (t3). offset = ((t1 − t0) + (t2 − t3)) / 2,
//! good to ± half the round trip; of several probes the one with the least round trip wins.

use serde::Serialize;

/// Probes per agent: enough that one of them meets neither a busy core nor a slow wake-up.
pub const PROBES: usize = 8;
/// A best round trip longer than this makes the offset too loose to place one-way
/// latencies by: results then fall back to round-trip halves.
pub const MAX_USEFUL_RTT_NANOS: u64 = 10_000_000;

/// One probe's four times, nanoseconds since 1970.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    pub t0: u64,
    pub t1: u64,
    pub t2: u64,
    pub t3: u64,
}

impl Probe {
    /// The agent's clock minus the coordinator's.
    pub fn offset_nanos(&self) -> i64 {
        let (t0, t1, t2, t3) = (
            self.t0 as i128,
            self.t1 as i128,
            self.t2 as i128,
            self.t3 as i128,
        );
        (((t1 - t0) + (t2 - t3)) / 2) as i64
    }

    /// Time on the wire both ways, the agent's own turnaround left out.
    pub fn rtt_nanos(&self) -> u64 {
        self.t3
            .saturating_sub(self.t0)
            .saturating_sub(self.t2.saturating_sub(self.t1))
    }
}

/// What one agent's probes found.
#[derive(Clone, Debug, Serialize)]
pub struct ClockOffset {
    /// The agent's clock minus the coordinator's, microseconds.
    pub offset_us: f64,
    /// Half the best probe's round trip: the offset's bound, microseconds.
    pub uncertainty_us: f64,
    pub probes: usize,
}

/// The estimate from the probe with the least round trip; `None` without probes.
pub fn estimate(probes: &[Probe]) -> Option<ClockOffset> {
    let best = probes.iter().min_by_key(|p| p.rtt_nanos())?;
    Some(ClockOffset {
        offset_us: best.offset_nanos() as f64 / 1e3,
        uncertainty_us: best.rtt_nanos() as f64 / 2e3,
        probes: probes.len(),
    })
}

/// How times from different agents are compared, as the results say it.
pub fn method(offsets: &[ClockOffset]) -> String {
    let worst = offsets.iter().map(|o| o.uncertainty_us).fold(0.0, f64::max);
    if offsets.is_empty() || worst * 2e3 > MAX_USEFUL_RTT_NANOS as f64 {
        return "round-trip halves".into();
    }
    let largest =
        offsets
            .iter()
            .map(|o| o.offset_us)
            .fold(0.0f64, |a, b| if b.abs() > a.abs() { b } else { a });
    format!("offset measured: {largest:.1} µs ± {worst:.1} µs (largest offset, widest bound)")
}

/// How one-way times from different agents were compared when each agent stamps and reads
/// the coordinator's clock through its measured offset (one-way, testfed): a latency from
/// one agent to another is good to ± the sum of their bounds, at worst twice the widest.
pub fn shifted_method(offsets: &[ClockOffset]) -> String {
    let worst = offsets.iter().map(|o| o.uncertainty_us).fold(0.0, f64::max);
    let largest =
        offsets
            .iter()
            .map(|o| o.offset_us)
            .fold(0.0f64, |a, b| if b.abs() > a.abs() { b } else { a });
    format!(
        "one-way latency corrected by measured clock offsets: each agent's send and receipt \
         times shifted onto the coordinator's clock (largest offset {largest:.1} µs, widest \
         bound ± {worst:.1} µs: a latency is good to ± {:.1} µs)",
        2.0 * worst
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_round_trip_probe_gives_the_offset() {
        // Agent 500 ns ahead; the first probe waited 10 µs on the way back.
        let probes = [
            Probe {
                t0: 1_000,
                t1: 1_600,
                t2: 1_600,
                t3: 11_200,
            },
            Probe {
                t0: 20_000,
                t1: 20_600,
                t2: 20_600,
                t3: 20_200,
            },
        ];
        let estimate = estimate(&probes).unwrap();
        assert_eq!(estimate.offset_us, 0.5);
        assert_eq!(estimate.uncertainty_us, 0.1);
        assert!(method(&[estimate]).starts_with("offset measured: 0.5 µs ± 0.1 µs"));
    }

    #[test]
    fn shifted_times_are_good_to_twice_the_widest_bound() {
        let offsets = [
            ClockOffset {
                offset_us: -3.5,
                uncertainty_us: 20.0,
                probes: 8,
            },
            ClockOffset {
                offset_us: 1.0,
                uncertainty_us: 40.0,
                probes: 8,
            },
        ];
        let method = shifted_method(&offsets);
        assert!(method.contains("largest offset -3.5 µs"), "{method}");
        assert!(method.contains("widest bound ± 40.0 µs"), "{method}");
        assert!(method.contains("good to ± 80.0 µs"), "{method}");
    }

    #[test]
    fn loose_offsets_fall_back_to_round_trip_halves() {
        let loose = ClockOffset {
            offset_us: 3.0,
            uncertainty_us: 6_000.0,
            probes: 8,
        };
        assert_eq!(method(&[loose]), "round-trip halves");
        assert_eq!(method(&[]), "round-trip halves");
    }
}
