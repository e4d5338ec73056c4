//! Time-series charts: a run's queue lengths, congestion windows or rates over simulated time,
//! saying which links or flows they leave out.

use super::axis::{compact, log_bounds};
use super::chart::{Series, XyChart};
use super::labels::point_label;
use crate::report::stats::percentile;
use crate::report::swept::SweptValue;
use crate::report::timeseries::RunSeries;

/// How a series is shown: its name, y-axis title and unit, what its ids are, what an id that
/// stays at 0 did, and the divisor from the file's unit to the axis's.
struct Quantity {
    what: &'static str,
    y_label: &'static str,
    unit: &'static str,
    things: &'static str,
    zero: &'static str,
    divisor: f64,
}

/// The [`Quantity`] of series `name` (`queue`, `cwnd`, `rate`).
fn quantity(name: &str) -> Quantity {
    let (what, y_label, unit, things, zero, divisor) = match name {
        "queue" => (
            "Queue length",
            "Queue length (packets waiting)",
            "packets",
            "links",
            "never queued",
            1.0,
        ),
        "cwnd" => (
            "Congestion window",
            "Congestion window (bytes)",
            "bytes",
            "flows",
            "had a zero window throughout",
            1.0,
        ),
        "rate" => (
            "Rate acknowledged in order",
            "Rate (Mb/s, acknowledged in order)",
            "Mb/s",
            "flows",
            "delivered nothing",
            1e6,
        ),
        _ => ("Time series", "Value", "", "ids", "stayed at 0", 1.0),
    };
    Quantity {
        what,
        y_label,
        unit,
        things,
        zero,
        divisor,
    }
}

/// The longest title (in characters) that fits the chart's width at the title's font size.
const MAX_TITLE_CHARS: usize = 64;

/// The chart of one run's series: one line per link or flow kept, x = simulated time in s.
/// The notes say how many ids were all 0 and how many others were left out. Rates are drawn
/// in Mb/s. The title names the point by its swept values `swept` ([`point_label`]), or,
/// when that makes it longer than 64 characters, a note per swept value does.
pub fn time_series(s: &RunSeries, swept: &[SweptValue]) -> XyChart {
    let Quantity {
        what,
        y_label,
        unit,
        things,
        zero,
        divisor,
    } = quantity(&s.series);
    let label = |id: &str| match s.series.as_str() {
        "queue" => id.to_string(),
        _ => format!("flow {id}"),
    };
    let mut title = format!("{what}: {}, seed {}", point_label(&s.point, swept), s.seed);
    let mut notes = Vec::new();
    if title.chars().count() > MAX_TITLE_CHARS {
        title = format!("{what}, seed {}", s.seed);
        notes.extend(swept.iter().map(|v| format!("{} = {}", v.path, v.value)));
    }
    if s.all_zero > 0 {
        notes.push(format!(
            "{} of {} {things} {zero}: not shown",
            s.all_zero, s.ids
        ));
    }
    let others = s.ids - s.all_zero - s.lines.len();
    if others > 0 {
        notes.push(format!(
            "{others} more {things} not shown: only the {} with the highest peak",
            s.lines.len()
        ));
    }
    let series: Vec<Series> = s
        .lines
        .iter()
        .map(|(id, points)| Series {
            label: label(id),
            points: points.iter().map(|&(t, v)| (t, v / divisor)).collect(),
            error_bars: None,
        })
        .collect();
    let ceiling = outlier_ceiling(&series);
    if let Some((ceiling, above, total)) = ceiling {
        notes.push(format!(
            "{above} of {total} samples above {} {unit} drawn at the top edge",
            compact(ceiling)
        ));
    }
    XyChart {
        notes,
        y_floor: Some(0.0),
        y_ceiling: ceiling.map(|(c, _, _)| c),
        y_integer: s.series == "queue",
        ..XyChart::new(&title, "Simulated time (s)", y_label, series)
    }
}

/// A y ceiling that keeps a few spikes from flattening everything else: when the largest
/// value exceeds 4 times the 99th percentile of all values, twice that percentile (rounded up
/// to 1, 2 or 5 x a power of ten), with how many of how many samples lie above it.
fn outlier_ceiling(series: &[Series]) -> Option<(f64, usize, usize)> {
    let values: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|v| v.is_finite())
        .collect();
    let p99 = percentile(&values, 99.0)?;
    let max = values.iter().copied().fold(f64::MIN, f64::max);
    if !(p99 > 0.0 && max > 4.0 * p99) {
        return None;
    }
    let ceiling = log_bounds(&(2.0 * p99..2.0 * p99)).end;
    let above = values.iter().filter(|v| **v > ceiling).count();
    Some((ceiling, above, values.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_spikes_do_not_flatten_a_rate_chart() {
        // 1000 samples near the line rate, and two of 170 Gb/s when a hole was filled.
        let mut points: Vec<(f64, f64)> = (0..1000).map(|i| (i as f64 * 1e-3, 940e6)).collect();
        points[500].1 = 170e9;
        points[700].1 = 42e9;
        let chart = time_series(
            &RunSeries {
                point: "base".into(),
                seed: 1,
                series: "rate".into(),
                lines: vec![("3".into(), points)],
                ids: 1,
                all_zero: 0,
            },
            &[],
        );
        assert_eq!(chart.y_ceiling, Some(2000.0));
        assert_eq!(
            chart.notes,
            ["2 of 1000 samples above 2000 Mb/s drawn at the top edge"]
        );
        let (_, y) = super::super::render::bounds(&chart);
        assert!(y.end < 2100.0, "{y:?}");
    }

    #[test]
    fn a_queue_chart_says_which_links_it_leaves_out() {
        let s = RunSeries {
            point: "base".into(),
            seed: 1,
            series: "queue".into(),
            lines: vec![("core0->agg0".into(), vec![(0.0, 1.0), (0.001, 5.0)])],
            ids: 16,
            all_zero: 8,
        };
        let chart = time_series(&s, &[]);
        assert_eq!(
            chart.notes,
            [
                "8 of 16 links never queued: not shown",
                "7 more links not shown: only the 1 with the highest peak"
            ]
        );
        assert_eq!(chart.series[0].label, "core0->agg0");
        assert!(chart.y_integer, "packets waiting are whole");
        let rate = time_series(
            &RunSeries {
                series: "rate".into(),
                lines: vec![("3".into(), vec![(0.001, 940e6)])],
                ids: 1,
                all_zero: 0,
                ..s
            },
            &[],
        );
        assert!(rate.notes.is_empty());
        assert_eq!(rate.y_ceiling, None);
        assert_eq!(rate.series[0].points, [(0.001, 940.0)]);
        assert_eq!(rate.series[0].label, "flow 3");
    }
}
