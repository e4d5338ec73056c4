//! Plots of results into `DIR/plots`, each as PNG and SVG (issue 7, item 4): FCT CDFs (log x),
//! ranked per-flow throughput, utilisation per layer, a metric against a swept parameter with
//! 95% confidence intervals, and time series.
//!
//! Text is drawn with DejaVu Sans embedded in the library (`fonts/DejaVuSans.ttf`, Bitstream
//! Vera licence in `fonts/LICENSE-DejaVu.txt`) and registered with plotters' `ab_glyph` font
//! table, so no system font, fontconfig or freetype is needed.
//!
//! Every plot is an [`XyChart`]: builders turn results into one, [`render`] draws it.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::aggregate::{SummaryRow, LAYER_PREFIX, RUN_CLASS};
use super::error::{io_error, ReportError, Result};
use super::flow_samples::FlowSamples;

/// The embedded DejaVu Sans (Debian fonts-dejavu-core, Bitstream Vera licence).
static DEJAVU_SANS: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");
/// The font family name plots use; DejaVu Sans is registered under it.
const FAMILY: &str = "sans-serif";
/// Width of every plot, pixels (PNG) or user units (SVG).
pub const PLOT_WIDTH: u32 = 960;
/// Height of every plot.
pub const PLOT_HEIGHT: u32 = 600;

/// Registers the embedded font with plotters (once per process). Returns whether the font
/// could be registered (it always can: the bytes are a valid TrueType file, checked in tests).
fn register_fonts() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| {
        plotters::style::register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS).is_ok()
    })
}

/// One line (or set of markers) of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend entry.
    pub label: String,
    /// The points, in drawing order, in the chart's units.
    pub points: Vec<(f64, f64)>,
    /// Per point, the half-width of a 95% confidence interval drawn as an error bar.
    pub ci95: Option<Vec<f64>>,
}

/// A 2-D chart: title, axis labels with units, series.
#[derive(Clone, Debug, PartialEq)]
pub struct XyChart {
    /// The title.
    pub title: String,
    /// The x-axis label, with its unit.
    pub x_label: String,
    /// The y-axis label, with its unit.
    pub y_label: String,
    /// A logarithmic x axis (values <= 0 are left out).
    pub log_x: bool,
    /// Draw markers at the points as well as lines.
    pub markers: bool,
    /// Names for x = 0, 1, 2, ... on a categorical x axis.
    pub x_categories: Option<Vec<String>>,
    /// The series.
    pub series: Vec<Series>,
}

/// Draws `chart` into `dir/<name>.svg` and `dir/<name>.png` ([`PLOT_WIDTH`] x
/// [`PLOT_HEIGHT`]); creates `dir`. Returns the two paths.
pub fn render(chart: &XyChart, dir: &Path, name: &str) -> Result<[PathBuf; 2]> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let svg = dir.join(format!("{name}.svg"));
    let png = dir.join(format!("{name}.png"));
    let plot_error = |path: &Path| {
        let path = path.to_path_buf();
        move |message| ReportError::Plot { path, message }
    };
    if !register_fonts() {
        return Err(plot_error(&svg)("the embedded font did not load".into()));
    }
    let size = (PLOT_WIDTH, PLOT_HEIGHT);
    draw_chart(&SVGBackend::new(&svg, size).into_drawing_area(), chart)
        .map_err(plot_error(&svg))?;
    draw_chart(&BitMapBackend::new(&png, size).into_drawing_area(), chart)
        .map_err(plot_error(&png))?;
    Ok([svg, png])
}

/// The x and y ranges covering every point and error bar, padded by 5% (y starts at 0 when all
/// values are positive and near it).
fn bounds(chart: &XyChart) -> (Range<f64>, Range<f64>) {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for s in &chart.series {
        for (i, &(x, y)) in s.points.iter().enumerate() {
            if !x.is_finite() || !y.is_finite() || (chart.log_x && x <= 0.0) {
                continue;
            }
            let e = s
                .ci95
                .as_ref()
                .and_then(|c| c.get(i))
                .copied()
                .unwrap_or(0.0);
            let e = if e.is_finite() { e.abs() } else { 0.0 };
            (x0, x1) = (x0.min(x), x1.max(x));
            (y0, y1) = (y0.min(y - e), y1.max(y + e));
        }
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (1.0, 10.0, 0.0, 1.0);
    }
    if chart.x_categories.is_some() {
        (x0, x1) = (x0 - 0.5, x1 + 0.5);
    } else if chart.log_x {
        (x0, x1) = (x0 / 1.2, x1 * 1.2);
    } else {
        let pad = if x1 > x0 { 0.02 * (x1 - x0) } else { 1.0 };
        (x0, x1) = (x0 - pad, x1 + pad);
    }
    if y0 >= 0.0 && y0 <= 0.5 * y1 {
        y0 = 0.0;
    }
    let pad = if y1 > y0 { 0.05 * (y1 - y0) } else { 1.0 };
    (x0..x1, (y0 - if y0 == 0.0 { 0.0 } else { pad })..(y1 + pad))
}

/// Draws `chart` on any backend, on a linear or logarithmic x axis.
fn draw_chart<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &XyChart,
) -> std::result::Result<(), String> {
    let (x, y) = bounds(chart);
    if chart.log_x {
        draw_on(root, chart, x.log_scale(), y)
    } else {
        draw_on(root, chart, x, y)
    }
}

/// Draws `chart` with x coordinates `x`.
fn draw_on<DB, X>(
    root: &DrawingArea<DB, Shift>,
    chart: &XyChart,
    x: X,
    y: Range<f64>,
) -> std::result::Result<(), String>
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
{
    let err = |e: &dyn std::fmt::Display| e.to_string();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut cc = ChartBuilder::on(root)
        .caption(&chart.title, (FAMILY, 26))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(80)
        .build_cartesian_2d(x, y)
        .map_err(|e| err(&e))?;
    let category = |v: &f64| {
        let i = v.round();
        match &chart.x_categories {
            Some(c) if (v - i).abs() < 1e-6 && i >= 0.0 => {
                c.get(i as usize).cloned().unwrap_or_default()
            }
            _ => String::new(),
        }
    };
    let mut mesh = cc.configure_mesh();
    mesh.x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .label_style((FAMILY, 16))
        .axis_desc_style((FAMILY, 18));
    if let Some(c) = &chart.x_categories {
        mesh.x_labels(c.len() * 2 + 1).x_label_formatter(&category);
    }
    mesh.draw().map_err(|e| err(&e))?;
    for (i, s) in chart.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let keep =
            |&&(x, y): &&(f64, f64)| x.is_finite() && y.is_finite() && !(chart.log_x && x <= 0.0);
        let points: Vec<(f64, f64)> = s.points.iter().filter(keep).copied().collect();
        // Categories are not a continuum: no lines between them, markers only.
        let categorical = chart.x_categories.is_some();
        if chart.markers || categorical {
            let anno = cc
                .draw_series(PointSeries::of_element(
                    points.iter().copied(),
                    4,
                    color.filled(),
                    &|c, size, style| Circle::new(c, size, style),
                ))
                .map_err(|e| err(&e))?;
            if categorical {
                anno.label(s.label.as_str())
                    .legend(move |(x, y)| Circle::new((x + 10, y), 4, color.filled()));
            }
        }
        if !categorical {
            cc.draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(|e| err(&e))?
            .label(s.label.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        }
        if let Some(ci) = &s.ci95 {
            let bars = s
                .points
                .iter()
                .zip(ci)
                .filter(|(p, e)| keep(p) && e.is_finite());
            cc.draw_series(bars.map(|(&(x, y), &e)| {
                PathElement::new(
                    vec![(x, y - e.abs()), (x, y + e.abs())],
                    color.stroke_width(2),
                )
            }))
            .map_err(|e| err(&e))?;
        }
    }
    if chart.series.len() > 1 || chart.series.iter().any(|s| !s.label.is_empty()) {
        cc.configure_series_labels()
            .label_font((FAMILY, 16))
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))
}

/// FCT CDF, one series per label (transport, sweep point or class): x = FCT in ms on a log
/// axis, y = fraction of flows with an FCT at most x. Non-positive and non-finite FCTs are left
/// out.
pub fn fct_cdf(title: &str, fcts_ms: &[(String, Vec<f64>)]) -> XyChart {
    let series = fcts_ms
        .iter()
        .map(|(label, values)| {
            let mut v: Vec<f64> = values
                .iter()
                .copied()
                .filter(|x| x.is_finite() && *x > 0.0)
                .collect();
            v.sort_by(f64::total_cmp);
            let n = v.len() as f64;
            Series {
                label: label.clone(),
                points: v
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| (x, (i + 1) as f64 / n))
                    .collect(),
                ci95: None,
            }
        })
        .collect();
    XyChart {
        title: title.to_string(),
        x_label: "Flow completion time (ms, log scale)".into(),
        y_label: "CDF (fraction of flows)".into(),
        log_x: true,
        markers: false,
        x_categories: None,
        series,
    }
}

/// Ranked per-flow throughput, one series per label: flows sorted from fastest to slowest,
/// x = rank (1 = fastest), y = throughput in Mb/s.
pub fn ranked_throughput(title: &str, mbps: &[(String, Vec<f64>)]) -> XyChart {
    let series = mbps
        .iter()
        .map(|(label, values)| {
            let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
            v.sort_by(|a, b| b.total_cmp(a));
            Series {
                label: label.clone(),
                points: v
                    .iter()
                    .enumerate()
                    .map(|(i, &y)| ((i + 1) as f64, y))
                    .collect(),
                ci95: None,
            }
        })
        .collect();
    XyChart {
        title: title.to_string(),
        x_label: "Flow rank (fastest first)".into(),
        y_label: "Throughput (Mb/s)".into(),
        log_x: false,
        markers: false,
        x_categories: None,
        series,
    }
}

/// Utilisation per layer from summary rows: x = layer, y = mean over seeds of `metric`
/// (`utilisation` for the standard definition, `utilisation_paper` for the paper's), in %, with
/// 95% confidence intervals; one series per sweep point, side by side within a layer. `None`
/// without such rows.
pub fn layer_utilisation(rows: &[SummaryRow], metric: &str) -> Option<XyChart> {
    let rows: Vec<&SummaryRow> = rows
        .iter()
        .filter(|r| r.metric == metric && r.class.starts_with(LAYER_PREFIX))
        .collect();
    let layers = first_appearance(rows.iter().map(|r| &r.class[LAYER_PREFIX.len()..]));
    let points = first_appearance(rows.iter().map(|r| r.point.as_str()));
    if rows.is_empty() {
        return None;
    }
    // Points side by side within a layer, spread over at most 0.6 of the category's width.
    let spread = 0.6 / points.len() as f64;
    let series = points
        .iter()
        .enumerate()
        .map(|(j, p)| {
            let mine: Vec<&&SummaryRow> = rows.iter().filter(|r| &r.point == p).collect();
            let offset = (j as f64 - (points.len() - 1) as f64 / 2.0) * spread;
            Series {
                label: p.to_string(),
                points: mine
                    .iter()
                    .map(|r| {
                        (
                            index_of(&layers, &r.class[LAYER_PREFIX.len()..]) + offset,
                            r.stats.mean,
                        )
                    })
                    .collect(),
                ci95: Some(mine.iter().map(|r| r.stats.ci95).collect()),
            }
        })
        .collect();
    let definition = if metric.ends_with("_paper") {
        ", per-second per-port (paper)"
    } else {
        ""
    };
    Some(XyChart {
        title: format!("Utilisation per layer{definition}"),
        x_label: "Layer (egress ports)".into(),
        y_label: "Utilisation (%), mean and 95% CI over seeds".into(),
        log_x: false,
        markers: true,
        x_categories: Some(layers.iter().map(|s| s.to_string()).collect()),
        series,
    })
}

/// Splits a point name (`key=value` pairs joined by `,`) into its pairs; `base` has none.
pub fn point_parameters(point: &str) -> Vec<(&str, &str)> {
    point
        .split(',')
        .filter_map(|kv| kv.split_once('='))
        .collect()
}

/// A metric of a class (or `layer:<name>`) against swept parameter `parameter`, mean over seeds
/// with 95% confidence intervals; one series per combination of the other parameters. The x
/// axis is numeric when every value of the parameter is a number, else categorical. `None`
/// when no row matches.
pub fn metric_vs_parameter(
    rows: &[SummaryRow],
    class: &str,
    metric: &str,
    parameter: &str,
) -> Option<XyChart> {
    let rows: Vec<(&SummaryRow, &str, String)> = rows
        .iter()
        .filter(|r| r.class == class && r.metric == metric && r.stats.n > 0)
        .filter_map(|r| {
            let params = point_parameters(&r.point);
            let x = params.iter().find(|(k, _)| *k == parameter)?.1;
            let rest: Vec<String> = params
                .iter()
                .filter(|(k, _)| *k != parameter)
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            Some((r, x, rest.join(",")))
        })
        .collect();
    let first = rows.first()?.0;
    let numeric = rows
        .iter()
        .all(|(_, x, _)| x.parse::<f64>().is_ok_and(f64::is_finite));
    let categories = first_appearance(rows.iter().map(|(_, x, _)| *x));
    let x_of = |x: &str| match x.parse::<f64>() {
        Ok(v) if numeric => v,
        _ => index_of(&categories, x),
    };
    let series = first_appearance(rows.iter().map(|(_, _, rest)| rest.as_str()))
        .into_iter()
        .map(|rest| {
            let mut mine: Vec<(f64, f64, f64)> = rows
                .iter()
                .filter(|(_, _, r)| r == rest)
                .map(|(row, x, _)| (x_of(x), row.stats.mean, row.stats.ci95))
                .collect();
            mine.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series {
                label: if rest.is_empty() {
                    metric.to_string()
                } else {
                    rest.to_string()
                },
                points: mine.iter().map(|&(x, y, _)| (x, y)).collect(),
                ci95: Some(mine.iter().map(|&(_, _, e)| e).collect()),
            }
        })
        .collect();
    Some(XyChart {
        title: format!("{class}: {metric} against {parameter}"),
        x_label: parameter.to_string(),
        y_label: format!("{metric} ({}), mean and 95% CI over seeds", first.unit),
        log_x: false,
        markers: true,
        x_categories: (!numeric).then(|| categories.iter().map(|s| s.to_string()).collect()),
        series,
    })
}

/// A time series chart: x = simulated time in s, one series per label (a link's queue, a
/// flow's cwnd or rate). `y_label` names the quantity with its unit.
pub fn time_series(title: &str, y_label: &str, series: &[(String, Vec<(f64, f64)>)]) -> XyChart {
    XyChart {
        title: title.to_string(),
        x_label: "Simulated time (s)".into(),
        y_label: y_label.to_string(),
        log_x: false,
        markers: false,
        x_categories: None,
        series: series
            .iter()
            .map(|(label, points)| Series {
                label: label.clone(),
                points: points.clone(),
                ci95: None,
            })
            .collect(),
    }
}

/// The summary-based plots of a results directory into `dir`: utilisation per layer (both
/// definitions), and for every swept parameter each key metric (per class: mean and p99 FCT,
/// mean goodput, mean job completion time; per layer: utilisation and loss; the run's events)
/// against it, where the class has values for it. Returns the files written.
pub fn write_summary_plots(dir: &Path, rows: &[SummaryRow]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for metric in ["utilisation", "utilisation_paper"] {
        if let Some(chart) = layer_utilisation(rows, metric) {
            files.extend(render(&chart, dir, &format!("{metric}_per_layer"))?);
        }
    }
    let parameters = first_appearance(
        rows.iter()
            .flat_map(|r| point_parameters(&r.point).into_iter().map(|(k, _)| k)),
    );
    let classes = first_appearance(rows.iter().map(|r| r.class.as_str()));
    for parameter in &parameters {
        for class in &classes {
            let metrics: &[&str] = if class.starts_with(LAYER_PREFIX) {
                &["utilisation", "loss_rate"]
            } else if *class == RUN_CLASS {
                &["events"]
            } else {
                &["fct_mean", "fct_p99", "goodput_mean", "jct_mean"]
            };
            for metric in metrics {
                if let Some(chart) = metric_vs_parameter(rows, class, metric, parameter) {
                    let name = file_name(&format!("{metric}_{class}_vs_{parameter}"));
                    files.extend(render(&chart, dir, &name)?);
                }
            }
        }
    }
    Ok(files)
}

/// The per-flow plots into `dir`: per flow class, the FCT CDF and the ranked long-flow
/// throughput, one series per sweep point (flows pooled over seeds). Returns the files written.
pub fn write_flow_plots(dir: &Path, samples: &[FlowSamples]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let classes = first_appearance(samples.iter().map(|s| s.class.as_str()));
    for class in classes {
        let mine = samples.iter().filter(|s| s.class == class);
        let fcts: Vec<(String, Vec<f64>)> = mine
            .clone()
            .filter(|s| !s.fct_ms.is_empty())
            .map(|s| (s.point.clone(), s.fct_ms.clone()))
            .collect();
        if !fcts.is_empty() {
            let chart = fct_cdf(&format!("{class}: flow completion time CDF"), &fcts);
            files.extend(render(
                &chart,
                dir,
                &file_name(&format!("fct_cdf_{class}")),
            )?);
        }
        let goodputs: Vec<(String, Vec<f64>)> = mine
            .filter(|s| !s.goodput_mbps.is_empty())
            .map(|s| (s.point.clone(), s.goodput_mbps.clone()))
            .collect();
        if !goodputs.is_empty() {
            let chart =
                ranked_throughput(&format!("{class}: ranked per-flow throughput"), &goodputs);
            files.extend(render(
                &chart,
                dir,
                &file_name(&format!("throughput_ranked_{class}")),
            )?);
        }
    }
    Ok(files)
}

/// The time-series plots into `dir`: per sweep point and series, its lowest seed's samples,
/// one line per link or flow (at most
/// [`MAX_IDS_PER_CHART`](super::timeseries::MAX_IDS_PER_CHART)), as
/// `timeseries_<series>_<point>`. Returns the files written.
pub fn write_timeseries_plots(
    dir: &Path,
    series: &[super::timeseries::RunSeries],
) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for s in series {
        let (what, y_label) = match s.series.as_str() {
            "queue" => ("queue length", "Queue length (packets waiting)"),
            "cwnd" => ("congestion window", "cwnd (bytes)"),
            "rate" => ("rate", "Rate (bit/s, acknowledged)"),
            other => (other, other),
        };
        let label = |id: &str| match s.series.as_str() {
            "queue" => id.to_string(),
            _ => format!("flow {id}"),
        };
        let lines: Vec<(String, Vec<(f64, f64)>)> = s
            .lines
            .iter()
            .map(|(id, points)| (label(id), points.clone()))
            .collect();
        let chart = time_series(
            &format!("{}, seed {}: {what}", s.point, s.seed),
            y_label,
            &lines,
        );
        let name = file_name(&format!("timeseries_{}_{}", s.series, s.point));
        files.extend(render(&chart, dir, &name)?);
    }
    Ok(files)
}

/// `name` with every character other than ASCII letters, digits, `-` and `_` replaced by `_`.
pub fn file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The distinct items in order of first appearance.
fn first_appearance<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::aggregate::aggregate;
    use crate::report::run_summary::{LayerSummary, RunCost, RunSummary};

    fn png_size(path: &Path) -> (u32, u32) {
        let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
        let reader = decoder.read_info().unwrap();
        let info = reader.info();
        (info.width, info.height)
    }

    #[test]
    fn embedded_font_is_a_valid_truetype_file() {
        assert!(register_fonts());
        assert_eq!(&DEJAVU_SANS[..4], &[0, 1, 0, 0]);
    }

    #[test]
    fn fct_cdf_svg_has_title_and_axis_labels_and_png_decodes_at_size() {
        // Text goes through the embedded font only (plotters is built without font-kit), and the
        // SVG backend lays text out with it: the strings below prove the font path works.
        let dir = tempfile::tempdir().unwrap();
        let chart = fct_cdf(
            "Short-flow FCT CDF",
            &[
                ("tcp".into(), vec![1.2, 3.4, 0.8, 120.0, f64::NAN, 0.0]),
                ("mmptcp".into(), vec![0.9, 1.1, 2.0]),
            ],
        );
        assert_eq!(chart.series[0].points.len(), 4);
        assert_eq!(chart.series[0].points[3], (120.0, 1.0));
        let [svg, png] = render(&chart, dir.path(), "fct_cdf").unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        for s in [
            "Short-flow FCT CDF",
            "Flow completion time (ms, log scale)",
            "CDF (fraction of flows)",
            "mmptcp",
        ] {
            assert!(text.contains(s), "{s} missing from the SVG");
        }
        assert_eq!(png_size(&png), (PLOT_WIDTH, PLOT_HEIGHT));
        // The PNG has drawn text and lines: more than a couple of colours' worth of non-white.
        let mut reader = png::Decoder::new(std::fs::File::open(&png).unwrap())
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut buf).unwrap();
        assert!(buf.iter().filter(|&&b| b < 128).count() > 1000);
    }

    #[test]
    fn ranked_throughput_and_time_series_render() {
        let dir = tempfile::tempdir().unwrap();
        let chart = ranked_throughput(
            "Long-flow throughput",
            &[("mptcp8".into(), vec![40.0, 95.0, 70.0])],
        );
        assert_eq!(
            chart.series[0].points,
            vec![(1.0, 95.0), (2.0, 70.0), (3.0, 40.0)]
        );
        let [svg, png] = render(&chart, dir.path(), "ranked").unwrap();
        let text = std::fs::read_to_string(svg).unwrap();
        assert!(text.contains("Throughput (Mb/s)") && text.contains("Flow rank (fastest first)"));
        assert_eq!(png_size(&png), (PLOT_WIDTH, PLOT_HEIGHT));
        let ts = time_series(
            "Queue of core0",
            "Queue length (packets)",
            &[("core0->agg0.0".into(), vec![(0.0, 1.0), (0.001, 5.0)])],
        );
        let [svg, _] = render(&ts, dir.path(), "queue").unwrap();
        let text = std::fs::read_to_string(svg).unwrap();
        assert!(text.contains("Simulated time (s)") && text.contains("Queue length (packets)"));
        // Empty data still draws axes.
        render(&fct_cdf("Empty", &[]), dir.path(), "empty").unwrap();
    }

    fn sweep_runs() -> Vec<RunSummary> {
        let mut runs = Vec::new();
        for (i, subflows) in [1u64, 2, 4, 8].iter().enumerate() {
            for seed in 1..=3 {
                runs.push(RunSummary {
                    point: format!(
                        "transports.mptcp8.subflows={subflows},flows.short.arrivals.poisson=256"
                    ),
                    point_index: i as u64,
                    seed,
                    window_start_ns: 0,
                    window_end_ns: 1,
                    classes: vec![],
                    layers: ["host", "core"]
                        .iter()
                        .map(|l| LayerSummary {
                            layer: l.to_string(),
                            links: 8,
                            utilisation_pct: Some(10.0 * *subflows as f64 + seed as f64),
                            loss_pct: Some(0.1 * seed as f64),
                            paper_utilisation_pct: None,
                            paper_loss_pct: None,
                        })
                        .collect(),
                    cost: RunCost::new(1, 1, 1, 1.0),
                });
            }
        }
        runs
    }

    #[test]
    fn metric_against_a_swept_parameter_has_means_and_error_bars() {
        let rows = aggregate(&sweep_runs());
        let chart = metric_vs_parameter(
            &rows,
            "layer:core",
            "utilisation",
            "transports.mptcp8.subflows",
        )
        .unwrap();
        assert_eq!(chart.x_categories, None);
        let s = &chart.series[0];
        assert_eq!(s.label, "flows.short.arrivals.poisson=256");
        assert_eq!(
            s.points,
            vec![(1.0, 12.0), (2.0, 22.0), (4.0, 42.0), (8.0, 82.0)]
        );
        // Seeds 1, 2, 3 around each mean: std 1, ci95 = t(0.975, 2) / sqrt 3.
        let ci = 4.302652730 / 3f64.sqrt();
        assert!(s
            .ci95
            .as_ref()
            .unwrap()
            .iter()
            .all(|e| (e - ci).abs() < 1e-12));
        assert!(metric_vs_parameter(&rows, "layer:core", "utilisation", "nope").is_none());
        // No run has the paper's utilisation: no chart rather than an empty one.
        let subflows = "transports.mptcp8.subflows";
        assert!(metric_vs_parameter(&rows, "layer:core", "utilisation_paper", subflows).is_none());

        let layers = layer_utilisation(&rows, "utilisation").unwrap();
        assert_eq!(
            layers.x_categories,
            Some(vec!["host".to_string(), "core".to_string()])
        );
        assert_eq!(layers.series.len(), 4);

        let dir = tempfile::tempdir().unwrap();
        let files = write_summary_plots(dir.path(), &rows).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert!(names.contains(&"utilisation_per_layer.svg".to_string()));
        assert!(
            names.contains(&"utilisation_layer_core_vs_transports_mptcp8_subflows.png".to_string())
        );
        let text = std::fs::read_to_string(
            dir.path()
                .join("utilisation_layer_core_vs_transports_mptcp8_subflows.svg"),
        )
        .unwrap();
        assert!(text.contains("layer:core: utilisation against transports.mptcp8.subflows"));
        assert!(text.contains("utilisation (%), mean and 95% CI over seeds"));
        // Both parameters get plots: 1 layer chart + 2 parameters x (2 layers x 2 metrics + the
        // run's events), each in 2 formats.
        assert_eq!(files.len(), 2 * (1 + 2 * (2 * 2 + 1)));
    }
}
