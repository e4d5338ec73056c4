//! Charts of summary.csv: a metric's mean over seeds with its 95% confidence interval, per
//! layer or against a swept parameter. Intervals are cut at the metric's range (no negative
//! FCT, no loss rate above 100%), and the chart says when one was.

use super::chart::{Series, XScale, XyChart};
use super::labels::{
    capitalised, metric_axis_title, metric_title, metric_words, pairs, short_labels, with_unit,
    Dimension,
};
use crate::report::aggregate::{SummaryRow, LAYER_PREFIX};
use crate::report::swept::SweptValues;

/// The range a metric's values lie in: every metric charted is at least 0; rates of loss are
/// at most 100%.
fn metric_range(metric: &str) -> (f64, f64) {
    if metric.starts_with("loss_rate") {
        (0.0, 100.0)
    } else {
        (0.0, f64::INFINITY)
    }
}

/// How many error bars were cut at the low and at the high end of the metric's range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Cuts {
    low: usize,
    high: usize,
}

/// The error bars of `rows`' 95% confidence intervals (mean +- ci95) cut to the metric's
/// range; counts the cuts into `cuts`.
fn error_bars(rows: &[&SummaryRow], metric: &str, cuts: &mut Cuts) -> Vec<(f64, f64)> {
    let (low, high) = metric_range(metric);
    rows.iter()
        .map(|r| {
            let (lo, hi) = (r.stats.mean - r.stats.ci95, r.stats.mean + r.stats.ci95);
            cuts.low += usize::from(lo < low);
            cuts.high += usize::from(hi > high);
            (lo.max(low), hi.min(high))
        })
        .collect()
}

/// The notes of a chart of means over seeds: the statistic and its sample sizes, and the
/// intervals cut at the metric's range.
fn notes(rows: &[&SummaryRow], metric: &str, cuts: Cuts) -> Vec<String> {
    let (min, max) = rows.iter().fold((u64::MAX, 0), |(a, b), r| {
        (a.min(r.stats.n), b.max(r.stats.n))
    });
    let seeds = if min == max {
        format!("{min}")
    } else {
        format!("{min} to {max}")
    };
    let mut notes = vec![format!(
        "Mean over seeds (n = {seeds} per point), error bars: 95% confidence interval of the mean"
    )];
    let (low, high) = metric_range(metric);
    let n = rows.len();
    if cuts.low > 0 {
        notes.push(format!(
            "{} of {n} intervals reach below {low}, which no value can: cut at {low}",
            cuts.low
        ));
    }
    if cuts.high > 0 {
        notes.push(format!(
            "{} of {n} intervals reach above {high}, which no value can: cut at {high}",
            cuts.high
        ));
    }
    notes
}

/// A layer metric (`utilisation`, `loss_rate` or their `_paper` variants) per layer: x =
/// layer, y = mean over seeds with 95% confidence intervals; one series per sweep point,
/// labelled by the swept values that differ (`swept`). `None` without such rows.
pub fn layer_chart(rows: &[SummaryRow], swept: &SweptValues, metric: &str) -> Option<XyChart> {
    let rows: Vec<&SummaryRow> = rows
        .iter()
        .filter(|r| r.metric == metric && r.class.starts_with(LAYER_PREFIX) && r.stats.n > 0)
        .collect();
    let unit = &rows.first()?.unit;
    let layers = first_appearance(rows.iter().map(|r| &r.class[LAYER_PREFIX.len()..]));
    let points = first_appearance(rows.iter().map(|r| r.point.as_str()));
    let values: Vec<_> = points.iter().map(|p| swept.of_point(p)).collect();
    let lists: Vec<_> = values.iter().map(|v| pairs(v)).collect();
    let (labels, legend_title) = short_labels(&lists);
    let mut cuts = Cuts::default();
    let series = points
        .iter()
        .zip(labels)
        .map(|(p, label)| {
            let mine: Vec<&SummaryRow> = rows.iter().copied().filter(|r| &r.point == p).collect();
            let bars = error_bars(&mine, metric, &mut cuts);
            Series {
                label,
                points: mine
                    .iter()
                    .map(|r| {
                        (
                            index_of(&layers, &r.class[LAYER_PREFIX.len()..]),
                            r.stats.mean,
                        )
                    })
                    .collect(),
                error_bars: Some(bars),
            }
        })
        .collect();
    let quantity = capitalised(&metric_words(metric));
    let mut notes = notes(&rows, metric, cuts);
    if metric.ends_with("_paper") {
        notes.push("The MMPTCP paper's definition: the mean over every second and port".into());
    }
    Some(XyChart {
        notes,
        x_scale: XScale::Categories(layers.iter().map(|s| s.to_string()).collect()),
        y_floor: Some(metric_range(metric).0),
        markers: true,
        legend_title,
        ..XyChart::new(
            &format!("{quantity} per layer"),
            "Layer (its egress ports)",
            &with_unit(&quantity, unit),
            series,
        )
    })
}

/// The largest difference between the means of `metric` and `other` at the same point and
/// class, and the largest mean of either; `None` when they share no row.
pub fn largest_difference(rows: &[SummaryRow], metric: &str, other: &str) -> Option<(f64, f64)> {
    let mut found = None;
    for a in rows.iter().filter(|r| r.metric == metric && r.stats.n > 0) {
        let matching = rows.iter().find(|b| {
            b.metric == other && b.point == a.point && b.class == a.class && b.stats.n > 0
        });
        if let Some(b) = matching {
            let (diff, max) = found.unwrap_or((0.0f64, 0.0f64));
            found = Some((
                diff.max((a.stats.mean - b.stats.mean).abs()),
                max.max(a.stats.mean.abs()).max(b.stats.mean.abs()),
            ));
        }
    }
    found
}

/// A point's (key path, value) pairs.
type Parameters = Vec<(String, String)>;

/// A metric of a class (or `layer:<name>`) against sweep dimension `dimension` (an axis, or a
/// group of paired axes), mean over seeds with 95% confidence intervals; one series per
/// combination of the other axes' values (`swept`), labelled by them. The x axis is numeric
/// when every value of the dimension is a number (with integer ticks when all are whole), else
/// categorical (a group's values joined by ` / `). `None` when no row matches.
pub fn metric_vs_parameter(
    rows: &[SummaryRow],
    swept: &SweptValues,
    class: &str,
    metric: &str,
    dimension: &Dimension,
) -> Option<XyChart> {
    // Per row: the row, its value of `dimension`, its other swept values.
    let rows: Vec<(&SummaryRow, String, Parameters)> = rows
        .iter()
        .filter(|r| r.class == class && r.metric == metric && r.stats.n > 0)
        .filter_map(|r| {
            let values = swept.of_point(&r.point);
            let x = dimension.value_of(&values)?;
            let rest = values
                .into_iter()
                .filter(|v| !dimension.paths.contains(&v.path))
                .map(|v| (v.path, v.value))
                .collect();
            Some((r, x, rest))
        })
        .collect();
    let first = rows.first()?.0;
    let numbers: Vec<Option<f64>> = rows
        .iter()
        .map(|(_, x, _)| x.parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect();
    let numeric = numbers.iter().all(Option::is_some);
    let categories = first_appearance(rows.iter().map(|(_, x, _)| x.as_str()));
    let x_of = |i: usize| match numbers[i] {
        Some(v) if numeric => v,
        _ => index_of(&categories, &rows[i].1),
    };
    let mut groups: Vec<&Parameters> = Vec::new();
    for (_, _, rest) in &rows {
        if !groups.contains(&rest) {
            groups.push(rest);
        }
    }
    let lists: Vec<Vec<(&str, &str)>> = groups
        .iter()
        .map(|g| g.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect())
        .collect();
    let (labels, legend_title) = short_labels(&lists);
    let mut cuts = Cuts::default();
    let series = groups
        .iter()
        .zip(labels)
        .map(|(group, label)| {
            let mut mine: Vec<(f64, &SummaryRow)> = (0..rows.len())
                .filter(|&i| &rows[i].2 == *group)
                .map(|i| (x_of(i), rows[i].0))
                .collect();
            mine.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mine_rows: Vec<&SummaryRow> = mine.iter().map(|(_, r)| *r).collect();
            let bars = error_bars(&mine_rows, metric, &mut cuts);
            Series {
                label,
                points: mine.iter().map(|(x, r)| (*x, r.stats.mean)).collect(),
                error_bars: Some(bars),
            }
        })
        .collect();
    let values: Vec<f64> = numbers.iter().flatten().copied().collect();
    let (min, max) = values
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let x_scale = if !numeric {
        XScale::Categories(categories.iter().map(|s| s.to_string()).collect())
    } else if categories.len() >= 3 && min > 0.0 && max >= 16.0 * min {
        // Values spread over orders of magnitude (1, 2, 4, ... 32 subflows): evenly spaced
        // on a log axis rather than crowded at its left end.
        let mut ticks = values.clone();
        ticks.sort_by(f64::total_cmp);
        ticks.dedup();
        XScale::LogAt(ticks)
    } else if values.iter().all(|v| v.fract() == 0.0) {
        XScale::Integer
    } else {
        XScale::Linear
    };
    let parameter = dimension.title();
    let x_label = if x_scale.is_log() {
        format!("{parameter} (log scale)")
    } else {
        parameter.clone()
    };
    let all: Vec<&SummaryRow> = rows.iter().map(|(r, _, _)| *r).collect();
    Some(XyChart {
        notes: notes(&all, metric, cuts),
        x_scale,
        y_floor: Some(metric_range(metric).0),
        markers: true,
        legend_title,
        ..XyChart::new(
            &format!("{} against {parameter}", metric_title(class, metric)),
            &x_label,
            &metric_axis_title(class, metric, &first.unit),
            series,
        )
    })
}

/// The distinct items in order of first appearance.
pub fn first_appearance<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// The position of `item` in `list` as an x coordinate (`list.len()` if absent).
fn index_of(list: &[&str], item: &str) -> f64 {
    list.iter().position(|l| *l == item).unwrap_or(list.len()) as f64
}
