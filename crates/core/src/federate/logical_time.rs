//! Logical time as the standard's two representations, HLAinteger64Time and HLAfloat64Time.
//!
//! Inside the library a logical time is one `u64` key whose unsigned order is the time's
//! order, for both representations: integers with the sign bit flipped, IEEE doubles with
//! the usual sign-magnitude flip. That keeps time management one piece of code, lets a time
//! stamp ride in the message header's `time` field unchanged, and gives every time a
//! successor (`key + 1`: the next integer, or the next representable double), which is what
//! "strictly greater" means when a zero lookahead forbids a message at the current time.

use std::fmt;

/// A logical time (HLAinteger64Time or HLAfloat64Time) as its order-preserving `u64` key;
/// which representation it is in is the federation's, kept beside it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LogicalTime(u64);

/// A non-negative distance in logical time (a lookahead), in the federation's representation.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Interval {
    /// An HLAinteger64Interval.
    Integer(i64),
    /// An HLAfloat64Interval.
    Float(f64),
}

/// The federation's logical time implementation, chosen when the federation execution is created.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum TimeRepresentation {
    /// HLAinteger64Time: signed 64-bit integer times (the default).
    #[default]
    Integer64,
    /// HLAfloat64Time: IEEE double times.
    Float64,
}

const SIGN: u64 = 1 << 63;

impl LogicalTime {
    /// Zero in either representation (both map to the same key).
    pub const ZERO: LogicalTime = LogicalTime(SIGN);
    /// Later than every time: "no bound".
    pub const MAX: LogicalTime = LogicalTime(u64::MAX);

    /// The HLAinteger64Time `value`.
    pub fn from_i64(value: i64) -> LogicalTime {
        LogicalTime((value as u64) ^ SIGN)
    }

    /// `None` for NaN, which has no place in an order.
    pub fn from_f64(value: f64) -> Option<LogicalTime> {
        if value.is_nan() {
            return None;
        }
        let bits = (value + 0.0).to_bits(); // -0.0 becomes 0.0
        Some(LogicalTime(if bits & SIGN != 0 {
            !bits
        } else {
            bits | SIGN
        }))
    }

    /// The time as an HLAinteger64Time value; meaningful for integer times only.
    pub fn as_i64(self) -> i64 {
        (self.0 ^ SIGN) as i64
    }

    /// The time as an HLAfloat64Time value; meaningful for float times only.
    pub fn as_f64(self) -> f64 {
        let bits = if self.0 & SIGN != 0 {
            self.0 & !SIGN
        } else {
            !self.0
        };
        f64::from_bits(bits)
    }

    /// The key as it travels in a message header.
    pub fn key(self) -> u64 {
        self.0
    }

    /// The time whose key (as read from a message header) is `key`.
    pub fn from_key(key: u64) -> LogicalTime {
        LogicalTime(key)
    }

    /// The next time after this one.
    pub fn successor(self) -> LogicalTime {
        LogicalTime(self.0.saturating_add(1))
    }
}

impl Interval {
    /// True for a zero interval (of either representation): a zero lookahead.
    pub fn is_zero(self) -> bool {
        match self {
            Interval::Integer(v) => v == 0,
            Interval::Float(v) => v == 0.0,
        }
    }

    /// Whether this is a lookahead the standard accepts: non-negative and finite.
    pub fn is_valid_lookahead(self) -> bool {
        match self {
            Interval::Integer(v) => v >= 0,
            Interval::Float(v) => v.is_finite() && v >= 0.0,
        }
    }
}

impl TimeRepresentation {
    /// The standard's implementation names, as federates pass them to create.
    pub fn name(self) -> &'static str {
        match self {
            TimeRepresentation::Integer64 => "HLAinteger64Time",
            TimeRepresentation::Float64 => "HLAfloat64Time",
        }
    }

    /// The representation a federate names at create, or `None` for one Trellis does not know.
    pub fn from_name(name: &str) -> Option<TimeRepresentation> {
        match name {
            "HLAinteger64Time" => Some(TimeRepresentation::Integer64),
            "HLAfloat64Time" => Some(TimeRepresentation::Float64),
            _ => None,
        }
    }

    /// Whether `interval` is of this representation.
    pub fn matches(self, interval: Interval) -> bool {
        matches!(
            (self, interval),
            (TimeRepresentation::Integer64, Interval::Integer(_))
                | (TimeRepresentation::Float64, Interval::Float(_))
        )
    }

    /// `time + interval`, saturating at the largest time. A positive interval always
    /// yields a later time, even where a double's addition would round back to `time`.
    pub fn add(self, time: LogicalTime, interval: Interval) -> LogicalTime {
        let sum = match interval {
            Interval::Integer(v) => LogicalTime::from_i64(time.as_i64().saturating_add(v)),
            Interval::Float(v) => {
                LogicalTime::from_f64(time.as_f64() + v).unwrap_or(LogicalTime::MAX)
            }
        };
        if interval.is_zero() {
            time
        } else {
            sum.max(time.successor())
        }
    }

    /// `time` formatted in this representation (an integer or a double).
    pub fn display(self, time: LogicalTime) -> TimeDisplay {
        TimeDisplay(self, time)
    }
}

/// A logical time printed in its representation.
pub struct TimeDisplay(TimeRepresentation, LogicalTime);

impl fmt::Display for TimeDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            TimeRepresentation::Integer64 => write!(f, "{}", self.1.as_i64()),
            TimeRepresentation::Float64 => write!(f, "{}", self.1.as_f64()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn integer_keys_keep_order(a: i64, b: i64) {
            let (ka, kb) = (LogicalTime::from_i64(a), LogicalTime::from_i64(b));
            prop_assert_eq!(a.cmp(&b), ka.cmp(&kb));
            prop_assert_eq!(ka.as_i64(), a);
        }

        #[test]
        fn float_keys_keep_order(a in -1e300f64..1e300, b in -1e300f64..1e300) {
            let (ka, kb) = (LogicalTime::from_f64(a).unwrap(), LogicalTime::from_f64(b).unwrap());
            prop_assert_eq!(a.partial_cmp(&b).unwrap(), ka.cmp(&kb));
            prop_assert_eq!(ka.as_f64(), a + 0.0);
            prop_assert!(ka.successor().as_f64() > a);
        }
    }

    #[test]
    fn adding_a_positive_interval_always_moves_time_on() {
        let big = LogicalTime::from_f64(1e20).unwrap();
        let later = TimeRepresentation::Float64.add(big, Interval::Float(1.0));
        assert!(later > big);
        let t = LogicalTime::from_i64(5);
        assert_eq!(
            TimeRepresentation::Integer64.add(t, Interval::Integer(0)),
            t
        );
        assert_eq!(
            TimeRepresentation::Integer64
                .add(t, Interval::Integer(3))
                .as_i64(),
            8
        );
        assert_eq!(LogicalTime::ZERO, LogicalTime::from_f64(-0.0).unwrap());
        assert_eq!(LogicalTime::ZERO, LogicalTime::from_i64(0));
        assert_eq!(LogicalTime::from_f64(f64::NAN), None);
    }
}
