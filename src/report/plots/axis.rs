//! Axis ticks and their labels: round values (1, 2, 2.5, 5 x a power of ten), integers only on
//! rank axes, 1-2-5 steps on log axes, and short labels (`1.2M`, `950k`, `0.002`).

use std::ops::Range;

/// A tick: where, and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    /// The value at the tick.
    pub value: f64,
    /// The text under (x) or left of (y) the tick.
    pub label: String,
}

/// About `target` ticks at round multiples of a step inside `range`, labelled with one SI
/// scale for the whole axis; with `integer`, the step is a whole number (1, 2, 5, 10, ...).
pub fn linear_ticks(range: &Range<f64>, target: usize, integer: bool) -> Vec<Tick> {
    let span = range.end - range.start;
    if !(span.is_finite() && span > 0.0) {
        return Vec::new();
    }
    let mut step = nice_step(span / target.max(1) as f64, integer);
    if integer {
        step = step.max(1.0);
    }
    let (scale, suffix) = si_scale(range.start.abs().max(range.end.abs()));
    let decimals = decimals_of(step / scale);
    let first = (range.start / step - 1e-9).ceil() as i64;
    let last = (range.end / step + 1e-9).floor() as i64;
    (first..=last)
        .map(|i| {
            let value = i as f64 * step;
            Tick {
                value,
                label: scaled(value, scale, suffix, decimals),
            }
        })
        .collect()
}

/// Ticks of a log axis inside `range` (both ends > 0): at powers of ten, with 2 and 5 (then
/// every multiple) in between while fewer than `min_ticks` would show.
pub fn log_ticks(range: &Range<f64>, min_ticks: usize) -> Vec<Tick> {
    if !(range.start > 0.0 && range.end > range.start && range.end.is_finite()) {
        return Vec::new();
    }
    let (lo, hi) = (
        range.start.log10().floor() as i32,
        range.end.log10().ceil() as i32,
    );
    let multiples: [&[f64]; 3] = [
        &[1.0],
        &[1.0, 2.0, 5.0],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
    ];
    let mut ticks = Vec::new();
    for set in multiples {
        ticks = (lo..=hi)
            .flat_map(|e| set.iter().map(move |m| m * 10f64.powi(e)))
            .filter(|v| *v >= range.start * (1.0 - 1e-9) && *v <= range.end * (1.0 + 1e-9))
            .map(|value| Tick {
                value,
                label: compact(value),
            })
            .collect();
        if ticks.len() >= min_ticks {
            break;
        }
    }
    ticks
}

/// `range` widened to the nearest 1, 2 or 5 x a power of ten at both ends (both ends > 0), so
/// that a log axis starts and ends at a labelled tick.
pub fn log_bounds(range: &Range<f64>) -> Range<f64> {
    let candidates = |v: f64| {
        let e = v.log10().floor() as i32;
        (e - 1..=e + 1).flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
    };
    // 10^floor(log10 v) <= v <= 10^(floor + 1): both ends have a candidate.
    let low = candidates(range.start)
        .filter(|c| *c <= range.start * (1.0 + 1e-9))
        .fold(f64::NEG_INFINITY, f64::max);
    let high = candidates(range.end)
        .filter(|c| *c >= range.end * (1.0 - 1e-9))
        .fold(f64::INFINITY, f64::min);
    low..high
}

/// A round step near `raw`: 1, 2, 2.5 or 5 x a power of ten (2.5 only when not `integer`).
fn nice_step(raw: f64, integer: bool) -> f64 {
    let power = 10f64.powf(raw.log10().floor());
    let mantissas: &[f64] = if integer {
        &[1.0, 2.0, 5.0, 10.0]
    } else {
        &[1.0, 2.0, 2.5, 5.0, 10.0]
    };
    mantissas
        .iter()
        .map(|m| m * power)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * power)
}

/// The SI scale of an axis whose largest magnitude is `max`: G, M, k (from 10 000, so that
/// 1000 Mb/s reads 1000) or none.
fn si_scale(max: f64) -> (f64, &'static str) {
    if max >= 1e9 {
        (1e9, "G")
    } else if max >= 1e6 {
        (1e6, "M")
    } else if max >= 1e4 {
        (1e3, "k")
    } else {
        (1.0, "")
    }
}

/// The decimals that show every multiple of `step` exactly (at most 9).
fn decimals_of(step: f64) -> usize {
    (0..9)
        .find(|&d| {
            let scaled = step * 10f64.powi(d as i32);
            (scaled - scaled.round()).abs() < 1e-6 * scaled.abs().max(1.0)
        })
        .unwrap_or(9)
}

/// `value / scale` with `decimals` decimals and `suffix`; zero is `0`.
fn scaled(value: f64, scale: f64, suffix: &str, decimals: usize) -> String {
    match fixed(value / scale, decimals) {
        zero if zero == "0" => zero,
        number => format!("{number}{suffix}"),
    }
}

/// `value` with `decimals` decimals; zero (or what rounds to it) is `0`.
fn fixed(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    if text
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        "0".to_string()
    } else {
        text
    }
}

/// A single value's short label: SI-scaled from 10 000, else the decimals it needs.
pub fn compact(value: f64) -> String {
    let (scale, suffix) = si_scale(value.abs());
    scaled(value, scale, suffix, decimals_of(value / scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(ticks: &[Tick]) -> Vec<&str> {
        ticks.iter().map(|t| t.label.as_str()).collect()
    }

    #[test]
    fn large_values_get_si_labels_with_the_decimals_the_step_needs() {
        // The events chart of a quickstart sweep: 650 000 to 1 050 000.
        let t = linear_ticks(&(650_000.0..1_050_000.0), 8, false);
        assert_eq!(
            labels(&t),
            ["0.65M", "0.70M", "0.75M", "0.80M", "0.85M", "0.90M", "0.95M", "1.00M", "1.05M"]
        );
        let t = linear_ticks(&(0.0..2.1e9), 6, false);
        assert_eq!(labels(&t), ["0", "0.5G", "1.0G", "1.5G", "2.0G"]);
        // Below 10 000 no suffix: 1000 Mb/s reads 1000.
        let t = linear_ticks(&(0.0..1000.0), 5, false);
        assert_eq!(labels(&t), ["0", "200", "400", "600", "800", "1000"]);
    }

    #[test]
    fn small_values_keep_their_decimals_and_zero_is_never_negative() {
        let t = linear_ticks(&(-0.0042..0.008), 7, false);
        assert_eq!(labels(&t)[..3], ["-0.004", "-0.002", "0"]);
        let t = linear_ticks(&(0.0..4.7), 10, false);
        assert_eq!(labels(&t)[..3], ["0", "0.5", "1.0"]);
    }

    #[test]
    fn integer_axes_get_whole_numbers_only() {
        for (range, target) in [
            (0.5..3.5, 10),
            (0.5..20.5, 8),
            (0.5..1.5, 6),
            (0.5..700.5, 7),
        ] {
            let t = linear_ticks(&range, target, true);
            assert!(!t.is_empty());
            for tick in &t {
                assert_eq!(tick.value.fract(), 0.0, "{range:?}: {tick:?}");
                assert!(!tick.label.contains('.'), "{range:?}: {tick:?}");
            }
        }
        assert_eq!(
            labels(&linear_ticks(&(0.5..3.5), 10, true)),
            ["1", "2", "3"]
        );
    }

    #[test]
    fn log_axes_end_at_round_values() {
        assert_eq!(log_bounds(&(1.04..4.8)), 1.0..5.0);
        assert_eq!(log_bounds(&(0.165..30.0)), 0.1..50.0);
        assert_eq!(log_bounds(&(2.0..20.0)), 2.0..20.0);
        assert_eq!(log_bounds(&(0.0031..0.0049)), 0.002..0.005);
    }

    #[test]
    fn log_axes_label_inside_a_decade_too() {
        // The quickstart FCT CDF spans 1 to 5 ms: no power of ten inside, still labels.
        let t = log_ticks(&(1.1..5.3), 3);
        assert_eq!(labels(&t), ["2", "3", "4", "5"]);
        let t = log_ticks(&(0.8..120.0), 3);
        assert_eq!(labels(&t), ["1", "10", "100"]);
        let t = log_ticks(&(0.15..0.9), 3);
        assert_eq!(
            labels(&t),
            ["0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9"]
        );
    }
}
