//! Summary statistics of a sample: mean, standard deviation, Student-t confidence interval,
//! percentiles, extremes; and Jain's fairness index.
//!
//! Every function ignores non-finite values (NaN, ±infinity) so that one bad value cannot poison a
//! report, and returns `None` when no finite value is left: there is no NaN in any output.

use serde::{Deserialize, Serialize};

/// Statistics of a sample of finite values.
///
/// The unit of every field except `n` is the unit of the sample.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of (finite) values.
    pub n: u64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (divisor n - 1); 0 when n = 1.
    pub std: f64,
    /// Half-width of the 95% confidence interval of the mean, `t(0.975, n - 1) x std / sqrt(n)`
    /// with Student's t ([`t_critical_95`]); 0 when n = 1 (no spread can be estimated).
    pub ci95: f64,
    /// Median ([`percentile`] 50).
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Summary {
    /// The statistics of the finite values of `values`; `None` if there are none.
    pub fn of(values: &[f64]) -> Option<Summary> {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let mean = sorted.iter().sum::<f64>() / n as f64;
        let (std, ci95) = if n > 1 {
            let ss: f64 = sorted.iter().map(|v| (v - mean) * (v - mean)).sum();
            let std = (ss / (n - 1) as f64).sqrt();
            (std, t_critical_95(n as u64 - 1) * std / (n as f64).sqrt())
        } else {
            (0.0, 0.0)
        };
        // The sample is non-empty, so every percentile exists.
        let p = |q| sorted_percentile(&sorted, q).unwrap_or(mean);
        Some(Summary {
            n: n as u64,
            mean,
            std,
            ci95,
            p50: p(50.0),
            p90: p(90.0),
            p99: p(99.0),
            p999: p(99.9),
            min: sorted[0],
            max: sorted[n - 1],
        })
    }
}

/// The `q`-th percentile (`q` in 0..=100, clamped) of the finite values of `values`, by linear
/// interpolation between order statistics (numpy's default, Hyndman and Fan type 7): with the
/// values sorted as x\[0\] <= ... <= x\[n-1\] and h = (n - 1) q / 100, the result is
/// x\[floor h\] + (h - floor h) (x\[floor h + 1\] - x\[floor h\]). `None` for no finite value or
/// a NaN `q`.
pub fn percentile(values: &[f64], q: f64) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    sorted_percentile(&sorted, q)
}

/// [`percentile`] of values already sorted ascending and finite.
fn sorted_percentile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() || q.is_nan() {
        return None;
    }
    let h = (sorted.len() - 1) as f64 * q.clamp(0.0, 100.0) / 100.0;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    Some(sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]))
}

/// Two-sided 95% critical values t(0.975, df) of Student's t distribution for df = 1..=30, to
/// 9 decimals (standard tables; e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2).
const T_975: [f64; 30] = [
    12.706204736,
    4.302652730,
    3.182446305,
    2.776445105,
    2.570581836,
    2.446911851,
    2.364624252,
    2.306004135,
    2.262157163,
    2.228138852,
    2.200985160,
    2.178812830,
    2.160368656,
    2.144786688,
    2.131449546,
    2.119905299,
    2.109815578,
    2.100922040,
    2.093024054,
    2.085963447,
    2.079613845,
    2.073873068,
    2.068657610,
    2.063898562,
    2.059538553,
    2.055529439,
    2.051830516,
    2.048407142,
    2.045229642,
    2.042272456,
];

/// The standard normal 0.975 quantile.
const Z_975: f64 = 1.959_963_984_540_054;

/// Student's t critical value t(0.975, df) for a two-sided 95% confidence interval.
///
/// Exact (tabulated) for df = 1..=30. Beyond, the Cornish-Fisher expansion of the t quantile in
/// powers of 1/df around the normal quantile z (Abramowitz and Stegun 26.7.5), to the 1/df^4
/// term; its error is below 1e-7 for df > 30. df = 0 (a single value) has no interval and returns
/// infinity, which [`Summary::of`] never uses.
pub fn t_critical_95(df: u64) -> f64 {
    match df {
        0 => f64::INFINITY,
        1..=30 => T_975[df as usize - 1],
        _ => {
            let z = Z_975;
            let v = df as f64;
            let z2 = z * z;
            let g1 = (z2 + 1.0) * z / 4.0;
            let g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
            let g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
            let g4 =
                ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
            z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v)
        }
    }
}

/// Jain's fairness index of the finite values of `values`: (sum x)^2 / (n sum x^2), in (0, 1],
/// 1 when all are equal. `None` for no finite value; 1 when every value is 0 (an equal share of
/// nothing).
pub fn jain_index(values: &[f64]) -> Option<f64> {
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let (mut n, mut sum, mut sum_sq) = (0u64, 0.0f64, 0.0f64);
    for v in finite {
        n += 1;
        sum += v;
        sum_sq += v * v;
    }
    match n {
        0 => None,
        _ if sum_sq == 0.0 => Some(1.0),
        _ => Some(sum * sum / (n as f64 * sum_sq)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn percentiles_interpolate_like_numpy() {
        let x = [15.0, 20.0, 35.0, 40.0, 50.0];
        // numpy.percentile(x, q) for q = 0, 25, 40, 50, 90, 100.
        assert_eq!(percentile(&x, 0.0), Some(15.0));
        assert_eq!(percentile(&x, 25.0), Some(20.0));
        assert!(close(percentile(&x, 40.0).unwrap(), 29.0, 1e-12));
        assert_eq!(percentile(&x, 50.0), Some(35.0));
        assert!(close(percentile(&x, 90.0).unwrap(), 46.0, 1e-12));
        assert_eq!(percentile(&x, 100.0), Some(50.0));
        // Order of input does not matter; 1..=10: p99 = 9.91, p99.9 = 9.991.
        let y: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        assert!(close(percentile(&y, 99.0).unwrap(), 9.91, 1e-12));
        assert!(close(percentile(&y, 99.9).unwrap(), 9.991, 1e-12));
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(percentile(&[f64::NAN], 50.0), None);
        assert_eq!(percentile(&[1.0], f64::NAN), None);
    }

    #[test]
    fn summary_of_a_small_sample_has_exact_std_and_ci() {
        // Sample 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sum of squares 32, sample variance 32/7.
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.n, 8);
        assert_eq!(s.mean, 5.0);
        let std = (32.0f64 / 7.0).sqrt();
        assert!(close(s.std, std, 1e-12));
        // t(0.975, 7) = 2.364624252; ci = t std / sqrt 8 = 1.78744...
        assert!(close(s.ci95, 2.364624252 * std / 8f64.sqrt(), 1e-12));
        assert!(close(s.ci95, 1.787_488, 1e-6));
        assert_eq!((s.min, s.max, s.p50), (2.0, 9.0, 4.5));
        // Three values 1, 2, 3: std 1, ci = 4.302652730 / sqrt 3.
        let s = Summary::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!(s.std, 1.0);
        assert!(close(s.ci95, 2.484_137_7, 1e-7));
    }

    #[test]
    fn summary_handles_single_empty_and_non_finite_values() {
        let s = Summary::of(&[7.5]).unwrap();
        assert_eq!((s.n, s.mean, s.std, s.ci95), (1, 7.5, 0.0, 0.0));
        assert_eq!((s.p50, s.p999, s.min, s.max), (7.5, 7.5, 7.5, 7.5));
        assert_eq!(Summary::of(&[]), None);
        assert_eq!(Summary::of(&[f64::NAN, f64::INFINITY]), None);
        let s = Summary::of(&[1.0, f64::NAN, 3.0]).unwrap();
        assert_eq!((s.n, s.mean), (2, 2.0));
    }

    #[test]
    fn t_critical_values_match_tables_and_approach_the_normal() {
        assert_eq!(t_critical_95(1), 12.706204736);
        assert_eq!(t_critical_95(30), 2.042272456);
        // Tabulated: df 40: 2.021075390, 60: 2.000297822, 120: 1.979930405.
        assert!(close(t_critical_95(40), 2.021075390, 1e-7));
        assert!(close(t_critical_95(60), 2.000297822, 1e-7));
        assert!(close(t_critical_95(120), 1.979930405, 1e-8));
        assert!(close(t_critical_95(1_000_000), Z_975, 1e-5));
        // Continuity at the table's end and monotone decrease.
        assert!(t_critical_95(31) < t_critical_95(30));
        assert!(close(t_critical_95(31), 2.039513446, 1e-7));
    }

    #[test]
    fn jain_index_known_values() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0, 5.0]), Some(1.0));
        // One of four flows takes everything: 1/4.
        assert_eq!(jain_index(&[8.0, 0.0, 0.0, 0.0]), Some(0.25));
        // (1+2+3)^2 / (3 (1+4+9)) = 36/42.
        assert!(close(
            jain_index(&[1.0, 2.0, 3.0]).unwrap(),
            36.0 / 42.0,
            1e-15
        ));
        assert_eq!(jain_index(&[]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), Some(1.0));
        assert_eq!(jain_index(&[f64::NAN, 2.0]), Some(1.0));
    }
}
