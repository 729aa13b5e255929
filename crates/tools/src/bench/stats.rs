//! The few statistics the benchmarks report.

/// Mean and (population) standard deviation; `None` for no values.
pub(crate) fn mean_std(values: &[f64]) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    Some((mean, var.sqrt()))
}

/// rtiperf's summary of pair means: drop the two largest (when at least three pairs ran),
/// then mean and standard deviation of the rest. Returns (mean, std, discarded).
pub(crate) fn without_two_largest(pair_means: &[f64]) -> (f64, f64, Vec<f64>) {
    let mut sorted: Vec<f64> = pair_means
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let discard = if sorted.len() >= 3 { 2 } else { 0 };
    let discarded = sorted.split_off(sorted.len() - discard);
    let (mean, std) = mean_std(&sorted).unwrap_or((f64::NAN, f64::NAN));
    (mean, std, discarded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_largest_pair_means_are_discarded() {
        let (mean, std, discarded) = without_two_largest(&[10.0, 12.0, 11.0, 50.0, 40.0]);
        assert_eq!(discarded, vec![40.0, 50.0]);
        assert!((mean - 11.0).abs() < 1e-9);
        assert!((std - (2.0f64 / 3.0).sqrt()).abs() < 1e-9);
        let (mean, _, discarded) = without_two_largest(&[5.0, 7.0]);
        assert!(discarded.is_empty(), "two pairs leave nothing to discard");
        assert_eq!(mean, 6.0);
    }
}
