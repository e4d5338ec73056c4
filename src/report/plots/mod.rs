//! Plots of results into `DIR/plots`, each as SVG and as PNG at print resolution: FCT CDFs
//! (log x), ranked per-flow goodput, utilisation and loss per layer, key metrics against each
//! swept parameter with 95% confidence intervals, and time series (docs/outputs.md, plots).
//!
//! - [`chart`]: what a chart shows ([`XyChart`]), independent of drawing;
//! - [`distributions`], [`sweep`], [`time_series`]: build charts from results;
//! - [`labels`]: human metric names with units, short series labels from swept values;
//! - [`axis`], [`palette`], [`render`](mod@render): ticks, colours, and the drawing itself.
//!
//! The `write_*` functions here choose which charts a results directory gets.

pub mod axis;
pub mod chart;
pub mod distributions;
pub mod labels;
pub mod palette;
pub mod render;
pub mod sweep;
pub mod time_series;

use std::path::{Path, PathBuf};

pub use chart::{Series, XScale, XyChart};
pub use distributions::{fct_cdf, ranked_throughput};
pub use render::{render, PLOT_HEIGHT, PLOT_WIDTH, PNG_SCALE};
pub use sweep::{layer_chart, metric_vs_parameter};

use super::aggregate::{SummaryRow, LAYER_PREFIX, RUN_CLASS};
use super::error::Result;
use super::flow_samples::FlowSamples;
use super::swept::SweptValues;
use super::timeseries::RunSeries;
use labels::{capitalised, dimensions, pairs, short_labels};
use sweep::{first_appearance, largest_difference};

/// The layer metrics drawn per layer, each with its paper-definition twin.
const LAYER_METRICS: [(&str, &str); 2] = [
    ("utilisation", "utilisation_paper"),
    ("loss_rate", "loss_rate_paper"),
];

/// Whether a difference `diff` between two charts whose largest value is `max` shows: more
/// than 1% of the axis.
fn visible(diff: f64, max: f64) -> bool {
    diff > 0.01 * max
}

/// The summary-based plots of a results directory into `dir`: utilisation and loss rate per
/// layer (one chart each, with a series per sweep point; the paper definition's chart only
/// where it visibly differs, else a note says by how little), and for every swept parameter
/// each key metric against it (per flow class: mean and p99 FCT, mean goodput, mean job
/// completion time; the run's events), where the class has values for it; a group of paired
/// axes counts as one parameter. Series and ticks are labelled with the points' values in
/// `swept`. Returns the files written.
pub fn write_summary_plots(
    dir: &Path,
    rows: &[SummaryRow],
    swept: &SweptValues,
) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for (metric, paper) in LAYER_METRICS {
        let difference = largest_difference(rows, metric, paper);
        let paper_differs = difference.is_none_or(|(diff, max)| visible(diff, max));
        if let Some(mut chart) = layer_chart(rows, swept, metric) {
            if let Some((diff, _)) = difference.filter(|_| !paper_differs) {
                chart.notes.push(format!(
                    "The paper's per-second, per-port definition differs by at most {diff:.2} \
                     points: not drawn"
                ));
            }
            files.extend(render(&chart, dir, &format!("{metric}_per_layer"))?);
        }
        if paper_differs {
            if let Some(chart) = layer_chart(rows, swept, paper) {
                files.extend(render(&chart, dir, &format!("{paper}_per_layer"))?);
            }
        }
    }
    let points = first_appearance(rows.iter().map(|r| r.point.as_str()));
    let values: Vec<_> = points.iter().map(|p| swept.of_point(p)).collect();
    let parameters = dimensions(&values);
    let classes = first_appearance(
        rows.iter()
            .map(|r| r.class.as_str())
            .filter(|c| !c.starts_with(LAYER_PREFIX)),
    );
    for parameter in &parameters {
        for class in &classes {
            let metrics: &[&str] = if *class == RUN_CLASS {
                &["events"]
            } else {
                &["fct_mean", "fct_p99", "goodput_mean", "jct_mean"]
            };
            for metric in metrics {
                if let Some(chart) = metric_vs_parameter(rows, swept, class, metric, parameter) {
                    let name = file_name(&format!("{metric}_{class}_vs_{}", parameter.name));
                    files.extend(render(&chart, dir, &name)?);
                }
            }
        }
    }
    Ok(files)
}

/// The per-flow plots into `dir`: per flow class, the FCT CDF and the ranked long-flow
/// goodput, one series per sweep point (flows pooled over seeds), labelled by the swept values
/// that differ (`swept`). Returns the files written.
pub fn write_flow_plots(
    dir: &Path,
    samples: &[FlowSamples],
    swept: &SweptValues,
) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let classes = first_appearance(samples.iter().map(|s| s.class.as_str()));
    for class in classes {
        let mine: Vec<&FlowSamples> = samples.iter().filter(|s| s.class == class).collect();
        let values: Vec<_> = mine.iter().map(|s| swept.of_point(&s.point)).collect();
        let lists: Vec<_> = values.iter().map(|v| pairs(v)).collect();
        let (labels, legend_title) = short_labels(&lists);
        let labelled = |values: fn(&FlowSamples) -> &Vec<f64>| -> Vec<(String, Vec<f64>)> {
            mine.iter()
                .zip(&labels)
                .filter(|(s, _)| !values(s).is_empty())
                .map(|(s, label)| (label.clone(), values(s).clone()))
                .collect()
        };
        let name = capitalised(class);
        let mut cdf = fct_cdf(
            &format!("{name}-flow completion time CDF"),
            &labelled(|s| &s.fct_ms),
        );
        cdf.notes = vec!["Completed flows of every seed, pooled".into()];
        cdf.legend_title = legend_title.clone();
        files.extend(render(&cdf, dir, &file_name(&format!("fct_cdf_{class}")))?);
        let mut ranked = ranked_throughput(
            &format!("{name}-flow goodput, ranked"),
            &labelled(|s| &s.goodput_mbps),
        );
        ranked.notes = vec!["Long flows of every seed, pooled".into()];
        ranked.legend_title = legend_title;
        let file = file_name(&format!("throughput_ranked_{class}"));
        files.extend(render(&ranked, dir, &file)?);
    }
    Ok(files)
}

/// The time-series plots into `dir`: per sweep point and series, its lowest seed's samples,
/// one line per link or flow that is not 0 throughout (at most
/// [`MAX_IDS_PER_CHART`](super::timeseries::MAX_IDS_PER_CHART), those with the highest peak),
/// as `timeseries_<series>_<point>`, titled with the point's values in `swept`; the chart says
/// what it leaves out. Returns the files written.
pub fn write_timeseries_plots(
    dir: &Path,
    series: &[RunSeries],
    swept: &SweptValues,
) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for s in series {
        let name = file_name(&format!("timeseries_{}_{}", s.series, s.point));
        files.extend(render(
            &time_series::time_series(s, &swept.of_point(&s.point)),
            dir,
            &name,
        )?);
    }
    Ok(files)
}

/// The longest chart file name [`file_name`] gives, without its extension: with `.png` or
/// `.svg` it stays well under the 255 bytes file systems allow.
pub const MAX_FILE_NAME: usize = 200;

/// `name` with every character other than ASCII letters, digits, `-` and `_` replaced by `_`.
/// A longer result than [`MAX_FILE_NAME`] (a long flow class name, or a sweep point's) is cut
/// and ends with `_` and 16 hex digits of the SHA-256 of `name`, so that names that differ
/// only after the cut stay apart.
pub fn file_name(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.len() <= MAX_FILE_NAME {
        return safe;
    }
    use sha2::Digest as _;
    let hash = sha2::Sha256::digest(name.as_bytes());
    let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}_{hex}", &safe[..MAX_FILE_NAME - 17])
}

#[cfg(test)]
mod tests;
