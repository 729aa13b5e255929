//! Axes: linear and logarithmic scales, "nice" tick values and compact tick labels.

use super::html::number;

/// Values beyond this magnitude are not plotted (their spans would overflow).
const LIMIT: f64 = 1e300;
/// The smallest value a logarithmic axis plots.
const LOG_MIN: f64 = 1e-300;
/// Roughly how many ticks a linear axis gets.
const LINEAR_TICKS: f64 = 5.0;
/// Rounding can leave a linear axis more steps than asked for, never this many.
const MAX_TICKS: f64 = 50.0;
/// A wide logarithmic axis marks at most this many steps (of one or more decades).
const LOG_DECADES: i32 = 8;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Scale {
    /// Linear, always reaching down (or up) to zero.
    FromZero,
    /// Linear over the data, ticks on whole numbers: a count of subscribers or federates.
    Count,
    Log,
}

/// An axis of a chart: its label and scale.
pub(crate) struct Axis {
    pub label: String,
    pub scale: Scale,
}

impl Axis {
    pub(crate) fn from_zero(label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            scale: Scale::FromZero,
        }
    }

    pub(crate) fn count(label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            scale: Scale::Count,
        }
    }

    pub(crate) fn log(label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            scale: Scale::Log,
        }
    }
}

/// The domain an axis shows and the values it marks.
#[derive(Debug)]
pub(crate) struct Ticks {
    pub lo: f64,
    pub hi: f64,
    pub values: Vec<f64>,
    log: bool,
}

impl Ticks {
    /// Where `v` falls between the ends of the domain, 0 to 1.
    pub(crate) fn position(&self, v: f64) -> f64 {
        if self.log {
            (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }
}

impl Scale {
    /// Whether the scale can place `v`: finite, not huge, and positive on a log scale.
    pub(crate) fn accepts(self, v: f64) -> bool {
        v.is_finite()
            && v.abs() <= LIMIT
            && match self {
                Scale::FromZero | Scale::Count => true,
                Scale::Log => v >= LOG_MIN,
            }
    }

    /// Ticks covering `lo..=hi`, both of which the scale accepts.
    pub(crate) fn ticks(self, lo: f64, hi: f64) -> Ticks {
        match self {
            Scale::FromZero => linear_ticks(lo.min(0.0), hi.max(0.0), false),
            Scale::Count => linear_ticks(lo, hi, true),
            Scale::Log => log_ticks(lo, hi),
        }
    }
}

/// Ticks every 1, 2 or 5 times a power of ten (never below 1 when `whole`).
fn linear_ticks(mut lo: f64, mut hi: f64, whole: bool) -> Ticks {
    if hi <= lo {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        lo -= pad;
        hi += pad;
    }
    let raw = (hi - lo) / LINEAR_TICKS;
    let magnitude = 10f64.powf(raw.log10().floor());
    let mut step = magnitude
        * match raw / magnitude {
            n if n < 1.5 => 1.0,
            n if n < 3.0 => 2.0,
            n if n < 7.0 => 5.0,
            _ => 10.0,
        };
    if whole {
        step = step.max(1.0);
    }
    let first = (lo / step).floor();
    let last = (hi / step).ceil();
    let values: Vec<f64> = if last - first > MAX_TICKS {
        vec![first * step, last * step]
    } else {
        (0..=(last - first) as i64)
            .map(|i| (first + i as f64) * step)
            .map(|v| if v == 0.0 { 0.0 } else { v })
            .collect()
    };
    Ticks {
        lo: first * step,
        hi: last * step,
        values,
        log: false,
    }
}

/// Within this many decades a log axis ends on, and marks, every 1, 2 and 5; beyond, it
/// ends on and marks powers of ten.
const FINE_DECADES: f64 = 3.5;
/// Slack for values computed through logarithms.
const EPSILON: f64 = 1e-9;

/// The largest 1, 2 or 5 times a power of ten at or below `v`.
fn snap_down(v: f64) -> f64 {
    let base = 10f64.powi((v.log10() + EPSILON).floor() as i32);
    [10.0, 5.0, 2.0, 1.0]
        .map(|m| m * base)
        .into_iter()
        .find(|&c| c <= v * (1.0 + EPSILON))
        .unwrap_or(base)
}

/// The smallest 1, 2 or 5 times a power of ten at or above `v`.
fn snap_up(v: f64) -> f64 {
    let base = 10f64.powi((v.log10() - EPSILON).floor() as i32);
    [1.0, 2.0, 5.0, 10.0]
        .map(|m| m * base)
        .into_iter()
        .find(|&c| c >= v * (1.0 - EPSILON))
        .unwrap_or(10.0 * base)
}

fn log_ticks(mut lo: f64, mut hi: f64) -> Ticks {
    if hi <= lo {
        lo /= 2.0;
        hi *= 2.0;
    }
    let (a, b) = (snap_down(lo), snap_up(hi));
    if (b / a).log10() <= FINE_DECADES {
        let first = a.log10().round() as i32 - 1;
        let last = b.log10().round() as i32 + 1;
        let values = (first..=last)
            .flat_map(|d| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(d)))
            .filter(|&v| v >= a * (1.0 - EPSILON) && v <= b * (1.0 + EPSILON))
            .collect();
        return Ticks {
            lo: a,
            hi: b,
            values,
            log: true,
        };
    }
    let first = (lo.log10() + EPSILON).floor() as i32;
    let last = (hi.log10() - EPSILON).ceil() as i32;
    let decades = last - first;
    let step = (decades + LOG_DECADES - 1) / LOG_DECADES;
    let last = first + step * ((decades + step - 1) / step);
    Ticks {
        lo: 10f64.powi(first),
        hi: 10f64.powi(last),
        values: (0..=(last - first) / step)
            .map(|k| 10f64.powi(first + k * step))
            .collect(),
        log: true,
    }
}

/// A short label for a tick value: `500`, `2k`, `1.5M`, `0.01`.
pub(crate) fn tick_label(v: f64) -> String {
    let a = v.abs();
    for (scale, suffix) in [(1e9, "G"), (1e6, "M"), (1e3, "k")] {
        if a >= scale && a < 1e15 {
            return format!("{}{suffix}", number(v / scale));
        }
    }
    number(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_round_numbers_covering_the_data() {
        let t = Scale::FromZero.ticks(12.0, 87.0);
        assert_eq!(t.values, vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!((t.lo, t.hi), (0.0, 100.0));
        let t = Scale::FromZero.ticks(0.1, 0.97);
        assert_eq!(t.values.len(), 6);
        assert!((t.hi - 1.0).abs() < 1e-12);
    }

    #[test]
    fn count_ticks_are_whole_numbers() {
        let t = Scale::Count.ticks(2.0, 4.0);
        assert_eq!(t.values, vec![2.0, 3.0, 4.0]);
        let t = Scale::Count.ticks(1.0, 8.0);
        assert!(t.values.iter().all(|v| v.fract() == 0.0));
    }

    #[test]
    fn a_single_value_still_gets_a_domain() {
        let t = Scale::Count.ticks(5.0, 5.0);
        assert_eq!(t.values, vec![4.0, 5.0, 6.0]);
        let t = Scale::FromZero.ticks(0.0, 0.0);
        assert!(t.lo < 0.0 && t.hi > 0.0);
        let t = Scale::Log.ticks(64.0, 64.0);
        assert_eq!(t.values, vec![20.0, 50.0, 100.0, 200.0]);
    }

    #[test]
    fn log_ticks_are_one_two_five_or_decades() {
        let t = Scale::Log.ticks(64.0, 65536.0);
        assert_eq!((t.lo, t.hi), (50.0, 1e5));
        assert_eq!(t.values.len(), 11);
        let t = Scale::Log.ticks(150.0, 900.0);
        assert_eq!(t.values, vec![100.0, 200.0, 500.0, 1000.0]);
        let t = Scale::Log.ticks(100.0, 1000.0);
        assert_eq!(t.values, vec![100.0, 200.0, 500.0, 1000.0]);
        let t = Scale::Log.ticks(3.0, 2e6);
        assert_eq!(t.values, vec![1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e7]);
        let t = Scale::Log.ticks(1e-200, 1e200);
        assert!(t.values.len() <= LOG_DECADES as usize + 1, "{t:?}");
        assert!(t.position(1e-200) >= 0.0 && t.position(1e200) <= 1.0);
    }

    #[test]
    fn log_scales_refuse_what_they_cannot_place() {
        assert!(!Scale::Log.accepts(0.0));
        assert!(!Scale::Log.accepts(-3.0));
        assert!(!Scale::Log.accepts(f64::NAN));
        assert!(!Scale::Count.accepts(f64::INFINITY));
        assert!(Scale::FromZero.accepts(-3.0));
    }

    #[test]
    fn tick_labels_are_compact() {
        assert_eq!(tick_label(1000.0), "1k");
        assert_eq!(tick_label(2_500_000.0), "2.5M");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(0.0), "0");
    }
}
