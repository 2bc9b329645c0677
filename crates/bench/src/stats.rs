//! Summary statistics of timing samples, shared by `bench` and the criterion benches so
//! every number called a median or a p90 means the same thing; and the one way a sample is
//! taken, in milliseconds.

use std::time::Instant;

/// Milliseconds since `since`: every sample of the bench, in one unit.
pub(crate) fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Summary statistics of a sample set (in whatever unit the samples are; milliseconds here).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// The median (p50): the middle sample, or the mean of the two middle ones.
    pub median: f64,
    /// The 90th percentile, nearest rank: the `ceil(0.9 n)`-th smallest sample.
    pub p90: f64,
    /// The smallest sample.
    pub min: f64,
    /// The largest sample.
    pub max: f64,
}

/// Median, 90th percentile (nearest rank), min and max of the finite `samples` (absent when
/// there are none).
pub fn of(samples: &[f64]) -> Option<Stats> {
    let mut s: Vec<f64> = samples.iter().copied().filter(|v| v.is_finite()).collect();
    if s.is_empty() {
        return None;
    }
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let median = if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    };
    let p90 = s[(n * 9).div_ceil(10).saturating_sub(1)];
    Some(Stats {
        median,
        p90,
        min: s[0],
        max: s[n - 1],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_and_formatting() {
        let st = |median, p90, min, max| {
            Some(Stats {
                median,
                p90,
                min,
                max,
            })
        };
        assert_eq!(of(&[3.0, 1.0, 2.0]), st(2.0, 3.0, 1.0, 3.0));
        assert_eq!(of(&[4.0, 1.0, 2.0, 3.0]), st(2.5, 4.0, 1.0, 4.0));
        let hundred: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(of(&hundred), st(50.5, 90.0, 1.0, 100.0));
        let thousand: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(of(&thousand).map(|s| s.p90), Some(900.0));
        assert_eq!(of(&[7.0]), st(7.0, 7.0, 7.0, 7.0));
        assert_eq!(of(&[]), None);
        assert_eq!(of(&[f64::NAN, 2.0, f64::INFINITY]), st(2.0, 2.0, 2.0, 2.0));
    }
}
