//! Tests of the charts a results directory gets: ranges, data, labels, which files.

use std::path::Path;

use super::render::bounds;
use super::*;
use crate::report::aggregate::aggregate;
use crate::report::run_summary::{LayerSummary, RunCost, RunSummary};
use crate::report::stats::Summary;
use crate::report::swept::SweptValues;

/// The file names (not paths) of `files`.
fn names(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

fn svg(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(format!("{name}.svg"))).unwrap()
}

/// The texts an SVG draws (titles, notes, tick labels, legend entries), trimmed, with XML's
/// character entities replaced by their characters.
pub fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..];
            let text = body[..body.find("</text>")?].trim();
            Some(
                text.replace("&quot;", "\"")
                    .replace("&apos;", "'")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&"),
            )
        })
        .collect()
}

/// No scenario: the swept values are read from the point names.
fn by_name() -> SweptValues {
    SweptValues::default()
}

/// The dimension of the ungrouped axis `path`.
fn axis(path: &str) -> labels::Dimension {
    labels::Dimension {
        name: path.into(),
        paths: vec![path.into()],
        grouped: false,
    }
}

/// A summary row of per-seed `values`.
fn row(point: &str, class: &str, metric: &str, unit: &str, values: &[f64]) -> SummaryRow {
    SummaryRow {
        point: point.into(),
        class: class.into(),
        metric: metric.into(),
        unit: unit.into(),
        stats: Summary::of(values).unwrap(),
    }
}

#[test]
fn a_p99_fct_whose_interval_reaches_below_zero_is_cut_at_zero_and_says_so() {
    // Seeds 0.5, 0.6 and 9 ms: mean 3.37, 95% CI +- 12.1 ms, so mean - ci is -8.7 ms.
    let rows = vec![
        row("kind=tcp", "short", "fct_p99", "ms", &[0.5, 0.6, 9.0]),
        row("kind=mptcp", "short", "fct_p99", "ms", &[2.0, 2.1, 2.2]),
    ];
    assert!(rows[0].stats.mean - rows[0].stats.ci95 < -8.0);
    let chart = metric_vs_parameter(&rows, &by_name(), "short", "fct_p99", &axis("kind")).unwrap();
    let bars = chart.series[0].error_bars.as_ref().unwrap();
    assert_eq!(bars[0].0, 0.0);
    assert!((bars[0].1 - (rows[0].stats.mean + rows[0].stats.ci95)).abs() < 1e-12);
    assert!(
        bars[1].0 > 1.8,
        "an interval inside the range is kept: {bars:?}"
    );
    let (_, y) = bounds(&chart);
    assert_eq!(y.start, 0.0, "the FCT axis starts at 0, not below");
    assert_eq!(
        chart.notes[1],
        "1 of 2 intervals reach below 0, which no value can: cut at 0"
    );
    assert_eq!(chart.y_label, "Short-flow FCT, 99th percentile (ms)");

    let dir = tempfile::tempdir().unwrap();
    render(&chart, dir.path(), "p99").unwrap();
    let texts = svg_texts(&svg(dir.path(), "p99"));
    assert!(
        !texts.iter().any(|t| t.starts_with('-')),
        "a tick label is negative on an FCT axis: {texts:?}"
    );
    assert!(texts.iter().any(|t| t.ends_with("cut at 0")));
}

#[test]
fn a_loss_rate_interval_is_cut_at_zero_and_the_axis_never_goes_below() {
    // Loss 0, 0.1 and 0.2% over the seeds: mean 0.1, 95% CI +- 0.25.
    let rows = aggregate(&sweep_runs(|_, _| None));
    let chart = layer_chart(&rows, &by_name(), "loss_rate").unwrap();
    let (_, y) = bounds(&chart);
    assert_eq!(y.start, 0.0);
    for s in &chart.series {
        for (lo, hi) in s.error_bars.as_ref().unwrap() {
            assert!(*lo >= 0.0 && hi > lo, "{lo} {hi}");
        }
    }
    assert!(chart.notes.iter().any(|n| n.contains("cut at 0")));
}

/// Runs of a two-axis sweep (subflows x arrival rate), three seeds each, with two layers;
/// `paper(subflows, seed)` gives the paper's utilisation.
fn sweep_runs(paper: impl Fn(u64, u64) -> Option<f64>) -> Vec<RunSummary> {
    let mut runs = Vec::new();
    let mut index = 0;
    for subflows in [1u64, 2, 4, 8] {
        for rate in [256, 512] {
            for seed in 1..=3 {
                runs.push(RunSummary {
                    point: format!(
                        "transports.mptcp8.subflows={subflows},flows.short.arrivals.poisson={rate}"
                    ),
                    point_index: index,
                    seed,
                    window_start_ns: 0,
                    window_end_ns: 1,
                    classes: vec![],
                    layers: ["host", "core"]
                        .iter()
                        .map(|l| LayerSummary {
                            layer: l.to_string(),
                            links: 8,
                            utilisation_pct: Some(10.0 * subflows as f64 + seed as f64),
                            loss_pct: Some(0.1 * (seed - 1) as f64),
                            paper_utilisation_pct: paper(subflows, seed)
                                .map(|p| p + 10.0 * subflows as f64),
                            paper_loss_pct: None,
                        })
                        .collect(),
                    cost: RunCost::new(1_000_000 * seed, 1, 1, 1.0),
                    files: Vec::new(),
                });
            }
            index += 1;
        }
    }
    runs
}

#[test]
fn one_utilisation_chart_and_one_loss_chart_the_paper_variant_only_where_it_differs() {
    // The paper's utilisation 0.01 points from the standard one: no second chart, a note.
    let rows = aggregate(&sweep_runs(|_, seed| Some(seed as f64 + 0.01)));
    let dir = tempfile::tempdir().unwrap();
    let files = names(&write_summary_plots(dir.path(), &rows, &by_name()).unwrap());
    let utilisation: Vec<&String> = files.iter().filter(|f| f.contains("utilisation")).collect();
    assert_eq!(
        utilisation,
        ["utilisation_per_layer.svg", "utilisation_per_layer.png"]
    );
    let loss: Vec<&String> = files.iter().filter(|f| f.contains("loss")).collect();
    assert_eq!(loss, ["loss_rate_per_layer.svg", "loss_rate_per_layer.png"]);
    let text = svg(dir.path(), "utilisation_per_layer");
    assert!(text.contains("differs by at most 0.01 points: not drawn"));
    // Per parameter: the run's events only (no flow class here), 2 parameters; with the two
    // layer charts, 4 charts in 2 formats.
    assert_eq!(files.len(), 2 * 4, "{files:?}");

    // 5 points apart: the paper's chart is drawn too.
    let rows = aggregate(&sweep_runs(|_, seed| Some(seed as f64 + 5.0)));
    let dir = tempfile::tempdir().unwrap();
    let files = names(&write_summary_plots(dir.path(), &rows, &by_name()).unwrap());
    assert!(files.contains(&"utilisation_paper_per_layer.png".to_string()));
    let text = svg(dir.path(), "utilisation_paper_per_layer");
    assert!(text.contains("Paper-definition utilisation per layer"));
}

#[test]
fn series_are_labelled_by_the_swept_values_that_differ() {
    let rows = aggregate(&sweep_runs(|_, _| None));
    let chart = metric_vs_parameter(
        &rows,
        &by_name(),
        "run",
        "events",
        &axis("transports.mptcp8.subflows"),
    )
    .unwrap();
    // 1, 2, 4, 8 subflows: whole numbers within a factor of 16, a linear integer axis.
    assert_eq!(chart.x_scale, XScale::Integer);
    assert_eq!(chart.x_label, "transports.mptcp8.subflows");
    assert_eq!(chart.y_label, "Events simulated per run");
    assert_eq!(
        chart.legend_title.as_deref(),
        Some("flows.short.arrivals.poisson")
    );
    let labels: Vec<&str> = chart.series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["256", "512"]);
    // Seeds 1, 2, 3 million events: mean 2M, and an interval cut at 0.
    assert_eq!(chart.series[0].points[0], (1.0, 2e6));

    let layers = layer_chart(&rows, &by_name(), "utilisation").unwrap();
    assert_eq!(
        layers.x_scale,
        XScale::Categories(vec!["host".into(), "core".into()])
    );
    assert_eq!(layers.series.len(), 8);
    assert_eq!(layers.series[0].label, "subflows=1, poisson=256");

    let dir = tempfile::tempdir().unwrap();
    let files = write_summary_plots(dir.path(), &rows, &by_name()).unwrap();
    let texts = svg_texts(&svg(dir.path(), "events_run_vs_transports_mptcp8_subflows"));
    let has = |s: &str| texts.iter().any(|t| t == s);
    assert!(has("256") && has("512") && has("flows.short.arrivals.poisson"));
    assert!(!texts.iter().any(|t| t.contains("poisson=")), "{texts:?}");
    // SI tick labels: millions of events read 1M or 1.5M, never 1000000.0.
    assert!(has("1M") || has("1.0M"), "{texts:?}");
    assert!(!texts.iter().any(|t| t.contains("000")), "{texts:?}");
    assert!(!files.is_empty());
}

#[test]
fn values_over_orders_of_magnitude_get_a_log_axis() {
    let rows: Vec<SummaryRow> = [1, 2, 4, 8, 16, 32]
        .iter()
        .map(|n| {
            row(
                &format!("subflows={n}"),
                "long",
                "goodput_mean",
                "Mbps",
                &[900.0, 910.0],
            )
        })
        .collect();
    let chart =
        metric_vs_parameter(&rows, &by_name(), "long", "goodput_mean", &axis("subflows")).unwrap();
    assert_eq!(
        chart.x_scale,
        XScale::LogAt(vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
    );
    assert_eq!(chart.x_label, "subflows (log scale)");
    // Fewer than three values stay on a linear axis.
    let chart = metric_vs_parameter(
        &rows[..2],
        &by_name(),
        "long",
        "goodput_mean",
        &axis("subflows"),
    )
    .unwrap();
    assert_eq!(chart.x_scale, XScale::Integer);
}

#[test]
fn flow_plots_skip_a_class_without_data_and_label_points_shortly() {
    let samples = vec![
        FlowSamples {
            point: "transports.long.kind=tcp".into(),
            class: "short".into(),
            fct_ms: vec![1.0, 2.0, 3.0],
            goodput_mbps: vec![],
        },
        FlowSamples {
            point: "transports.long.kind=mptcp".into(),
            class: "short".into(),
            fct_ms: vec![1.5, 2.5],
            goodput_mbps: vec![],
        },
    ];
    let dir = tempfile::tempdir().unwrap();
    let files = names(&write_flow_plots(dir.path(), &samples, &by_name()).unwrap());
    // No long flow: no ranked-goodput chart, rather than empty axes.
    assert_eq!(files, ["fct_cdf_short.svg", "fct_cdf_short.png"]);
    let texts = svg_texts(&svg(dir.path(), "fct_cdf_short"));
    for s in [
        "Short-flow completion time CDF",
        "tcp (3 flows)",
        "mptcp (2 flows)",
        "transports.long.kind",
        "Flow completion time (ms, log scale)",
    ] {
        assert!(texts.iter().any(|t| t == s), "{s} missing from {texts:?}");
    }
}

#[test]
fn a_time_series_with_every_link_at_zero_is_not_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let quiet = RunSeries {
        point: "base".into(),
        seed: 1,
        series: "queue".into(),
        lines: vec![],
        ids: 16,
        all_zero: 16,
    };
    assert!(write_timeseries_plots(dir.path(), &[quiet], &by_name())
        .unwrap()
        .is_empty());
}

/// A tiny scenario swept over a table value (the short flows' size) and a group of paired axes
/// (the long flows' transport, a table, with the marking threshold).
const TABLE_AND_PAIRED_SWEEP: &str = r#"
name = "labels"
[run]
duration = "10ms"
[topology]
kind = "fattree"
k = 4
[queue]
kind = "ecn"
mark_threshold = "50pkt"
[transports.long]
kind = "tcp"
[[flows]]
name = "long"
senders = "25%"
size = "infinite"
transport = "long"
[[flows]]
name = "short"
senders = "rest"
size = "20KB"
arrivals = { poisson = 300 }
transport = { kind = "tcp" }
[sweep]
"flows.short.size" = [{ uniform = ["10KB", "100KB"] }, "20KB"]
[sweep.transport]
"transports.long" = [{ kind = "tcp" }, { kind = "dctcp" }]
"queue.mark_threshold" = ["100pkt", "20pkt"]
"#;

#[test]
fn charts_label_a_table_value_and_paired_axes_as_the_scenario_writes_them() {
    let loaded = crate::scenario::load_str(
        "labels.toml",
        TABLE_AND_PAIRED_SWEEP,
        Path::new("."),
        &Default::default(),
    )
    .unwrap();
    let swept = SweptValues::of(&loaded);
    let rows: Vec<SummaryRow> = loaded
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| row(&p.name, "short", "fct_mean", "ms", &[1.0 + i as f64, 2.0]))
        .collect();
    let samples: Vec<FlowSamples> = loaded
        .points
        .iter()
        .map(|p| FlowSamples {
            point: p.name.clone(),
            class: "short".into(),
            fct_ms: vec![1.0, 2.0],
            goodput_mbps: vec![],
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let files = names(&write_summary_plots(dir.path(), &rows, &swept).unwrap());
    // One chart per dimension: the table axis, and the group as one.
    assert_eq!(
        files,
        [
            "fct_mean_short_vs_flows_short_size.svg",
            "fct_mean_short_vs_flows_short_size.png",
            "fct_mean_short_vs_transport.svg",
            "fct_mean_short_vs_transport.png",
        ]
    );
    let table = r#"{ uniform = ["10KB", "100KB"] }"#;
    let texts = svg_texts(&svg(dir.path(), "fct_mean_short_vs_flows_short_size"));
    let has = |texts: &[String], s: &str| texts.iter().any(|t| t == s);
    // Ticks: the swept values; series: the group's values, each axis named.
    for s in [
        table,
        "20KB",
        "flows.short.size",
        "long={ kind = \"tcp\" }, mark_threshold=100pkt",
        "long={ kind = \"dctcp\" }, mark_threshold=20pkt",
    ] {
        assert!(has(&texts, s), "{s} missing from {texts:?}");
    }
    // Against the group: its values together on one axis, the table values in the legend.
    let texts = svg_texts(&svg(dir.path(), "fct_mean_short_vs_transport"));
    for s in [
        "transports.long / queue.mark_threshold",
        "{ kind = \"tcp\" } / 100pkt",
        "{ kind = \"dctcp\" } / 20pkt",
        table,
        "20KB",
    ] {
        assert!(has(&texts, s), "{s} missing from {texts:?}");
    }
    assert!(
        !texts.iter().any(|t| t.contains("uniform=_")),
        "a file-name-safe value on a chart: {texts:?}"
    );

    write_flow_plots(dir.path(), &samples, &swept).unwrap();
    let texts = svg_texts(&svg(dir.path(), "fct_cdf_short"));
    let label = format!("size={table}, long={{ kind = \"tcp\" }}, mark_threshold=100pkt (2 flows)");
    assert!(has(&texts, &label), "{label} missing from {texts:?}");

    // A time series names its point by the values too.
    let queue = RunSeries {
        point: loaded.points[0].name.clone(),
        seed: 1,
        series: "queue".into(),
        lines: vec![("core0->agg0".into(), vec![(0.0, 1.0), (0.001, 5.0)])],
        ids: 1,
        all_zero: 0,
    };
    let files = write_timeseries_plots(dir.path(), &[queue], &swept).unwrap();
    let texts = svg_texts(&std::fs::read_to_string(&files[0]).unwrap());
    // Too long for the title: one line per value under it.
    for s in [
        "Queue length, seed 1".to_string(),
        format!("flows.short.size = {table}"),
        "transports.long = { kind = \"tcp\" }".to_string(),
        "queue.mark_threshold = 100pkt".to_string(),
    ] {
        assert!(has(&texts, &s), "{s} missing from {texts:?}");
    }
}

#[test]
fn chart_file_names_stay_short_and_apart() {
    assert_eq!(file_name("fct_cdf_short flows/1"), "fct_cdf_short_flows_1");
    let long = |c: char| format!("throughput_ranked_{}", c.to_string().repeat(300));
    let (a, b) = (file_name(&long('a')), file_name(&long('b')));
    assert_eq!(a.len(), MAX_FILE_NAME);
    assert!(a.starts_with("throughput_ranked_aaa"), "{a}");
    // Cut names that agree up to the cut still differ by their hash.
    let x = format!("timeseries_queue_{}1", "p".repeat(250));
    let y = format!("timeseries_queue_{}2", "p".repeat(250));
    assert_ne!(file_name(&x), file_name(&y));
    assert_ne!(a, b);
    assert_eq!(file_name(&x), file_name(&x));
}
