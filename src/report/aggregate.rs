//! Aggregation across seeds: for every (sweep point, flow class or layer, metric) the statistics
//! of the per-seed values, written to `DIR/summary.csv` and `DIR/summary.json`
//! (docs/outputs.md).
//!
//! Output is byte-identical for the same run files, whatever the number of jobs or shards:
//! - rows are ordered by point (run-list order: `point_index`, then name), then class (flow
//!   classes in scenario order, then layers in topology order, then `run`), then metric (the
//!   fixed order of [`metric_values`]); seeds enter each statistic in ascending order;
//! - every metric is a statistic over the point's seeds of one value per run, except the pooled
//!   ones (`fct_pooled`, `finite_goodput_pooled`, `goodput_pooled`, `goodput_paper_pooled`,
//!   `subflow_goodput_pooled`, `crossing_goodput_pooled`, `crossing_subflow_goodput_pooled`,
//!   `jct_pooled`): their statistics are over every completed finite flow, every long flow or
//!   every completed job of every run of the point (as the MMPTCP and XMP papers take their
//!   statistics over all flows of all runs), so their `n` counts flows, and runs with more
//!   flows weigh more;
//! - numbers in summary.csv are Rust's shortest round-trip decimal form of the f64 (`{}`:
//!   never an exponent, parses back to the same value); summary.json uses serde_json's
//!   shortest round-trip form;
//! - wall-clock costs are left out (they are in each run's summary.json).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::error::{ReportError, Result};
use super::run_summary::{read_run_summaries, ClassSummary, LayerSummary, RunCost, RunSummary};
use super::stats::Summary;
use crate::output::{
    csv_bytes, csv_writer, CSV_IN_MEMORY, SUMMARY_CSV_FILE as SUMMARY_CSV,
    SUMMARY_JSON_FILE as SUMMARY_JSON,
};
/// The columns of summary.csv (normative, docs/outputs.md).
pub const SUMMARY_COLUMNS: [&str; 12] = [
    "point", "class", "metric", "unit", "n", "mean", "std", "ci95", "p50", "p99", "min", "max",
];
/// The `class` of run-cost metrics.
pub const RUN_CLASS: &str = "run";
/// Prefix of the `class` of layer metrics (`layer:core`), which keeps layers apart from flow
/// classes of the same name.
pub const LAYER_PREFIX: &str = "layer:";

/// One scalar metric of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricValue {
    /// A flow class's name, `layer:<layer>`, or `run`.
    pub class: String,
    /// The metric's name, e.g. `fct_p99`.
    pub metric: &'static str,
    /// The metric's unit, e.g. `ms`, `Mbps`, `%`, `1` (dimensionless); a count's unit names
    /// what it counts (`flows`, `jobs`, `packets`, `recoveries`, `timeouts`, `events`).
    pub unit: &'static str,
    /// Whether the run has what the metric is about: a class's finite flows, long flows or
    /// jobs for their counts. A metric no seed of a point applies to gets no row (a class
    /// without jobs has no job rows rather than rows of zeros).
    pub applies: bool,
    /// The run's values: at most one for a per-run metric (none when the run has none, e.g.
    /// no flow completed); for a pooled metric one per flow, which the statistics pool with the
    /// other seeds' flows.
    pub values: Vec<f64>,
}

/// One row of summary.csv: the statistics over seeds of one metric at one point.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    /// The sweep point's name.
    pub point: String,
    /// A flow class's name, `layer:<layer>`, or `run`.
    pub class: String,
    /// The metric's name.
    pub metric: String,
    /// The metric's unit.
    pub unit: String,
    /// The statistics of the per-seed values (`n` = seeds with a value); of a pooled metric,
    /// of the values of every flow of every seed (`n` = flows).
    pub stats: Summary,
}

/// The metrics of a run, in their fixed order: per flow class (counts, FCT and the pooled FCTs,
/// slowdown, the finite flows' goodput, the long flows' goodput, the pooled per-flow goodputs,
/// retransmissions, jobs, and job completion time with the pooled job completion times), then
/// per layer, then the run's deterministic cost (events, data packets delivered, peak packets
/// in flight).
pub fn metric_values(run: &RunSummary) -> Vec<MetricValue> {
    let mut out = Vec::new();
    for c in &run.classes {
        // `applies`: whether the run has what the metric counts (finite flows, long flows, jobs).
        let mut push = |applies: bool, metric, unit, values: Vec<f64>| {
            out.push(MetricValue {
                class: c.class.clone(),
                metric,
                unit,
                values,
                applies,
            })
        };
        let always = true;
        let (finite, long, jobs) = (
            c.finite_flows > 0,
            c.long_flows > 0,
            c.jobs_completed + c.jobs_unfinished > 0,
        );
        let count = |n: u64| vec![n as f64];
        let one = |v: Option<f64>| v.into_iter().collect::<Vec<f64>>();
        push(finite, "finite_flows", "flows", count(c.finite_flows));
        push(finite, "completed", "flows", count(c.completed));
        push(finite, "unfinished", "flows", count(c.unfinished));
        let fct = c.fct_ms;
        push(always, "fct_mean", "ms", one(fct.map(|s| s.mean)));
        push(always, "fct_std", "ms", one(fct.map(|s| s.std)));
        push(always, "fct_p50", "ms", one(fct.map(|s| s.p50)));
        push(always, "fct_p90", "ms", one(fct.map(|s| s.p90)));
        push(always, "fct_p99", "ms", one(fct.map(|s| s.p99)));
        push(always, "fct_p999", "ms", one(fct.map(|s| s.p999)));
        push(always, "fct_pooled", "ms", c.fct_values_ms.clone());
        let sd = c.slowdown;
        push(always, "slowdown_mean", "1", one(sd.map(|s| s.mean)));
        push(always, "slowdown_p50", "1", one(sd.map(|s| s.p50)));
        push(always, "slowdown_p99", "1", one(sd.map(|s| s.p99)));
        let finite_goodput = goodput_metrics(
            [
                "finite_goodput_mean",
                "finite_goodput_std",
                "finite_goodput_pooled",
            ],
            c.finite_goodput_mbps,
            &c.finite_goodput_values_mbps,
        );
        for (metric, values) in finite_goodput {
            push(always, metric, "Mbps", values);
        }
        push(long, "long_flows", "flows", count(c.long_flows));
        let goodput = goodput_metrics(
            ["goodput_mean", "goodput_std", "goodput_pooled"],
            c.goodput_mbps,
            &c.goodput_values_mbps,
        );
        let paper = goodput_metrics(
            [
                "goodput_paper_mean",
                "goodput_paper_std",
                "goodput_paper_pooled",
            ],
            c.goodput_paper_mbps,
            &c.goodput_paper_values_mbps,
        );
        let subflow = goodput_metrics(
            [
                "subflow_goodput_mean",
                "subflow_goodput_std",
                "subflow_goodput_pooled",
            ],
            c.subflow_goodput_mbps,
            &c.subflow_goodput_values_mbps,
        );
        for (metric, values) in goodput.into_iter().chain(paper).chain(subflow) {
            push(always, metric, "Mbps", values);
        }
        push(always, "jain", "1", one(c.jain));
        let watched = c.crossing_long_flows.is_some();
        let crossing_flows = c.crossing_long_flows.unwrap_or(0);
        push(
            watched,
            "crossing_long_flows",
            "flows",
            count(crossing_flows),
        );
        let crossing = goodput_metrics(
            [
                "crossing_goodput_mean",
                "crossing_goodput_std",
                "crossing_goodput_pooled",
            ],
            c.crossing_goodput_mbps,
            &c.crossing_goodput_values_mbps,
        );
        let crossing_subflow = goodput_metrics(
            [
                "crossing_subflow_goodput_mean",
                "crossing_subflow_goodput_std",
                "crossing_subflow_goodput_pooled",
            ],
            c.crossing_subflow_goodput_mbps,
            &c.crossing_subflow_goodput_values_mbps,
        );
        for (metric, values) in crossing.into_iter().chain(crossing_subflow) {
            push(always, metric, "Mbps", values);
        }
        push(
            always,
            "retransmits_mean",
            "packets",
            one(c.retransmits.map(|s| s.mean)),
        );
        push(
            always,
            "fast_retransmits_mean",
            "recoveries",
            one(c.fast_retransmits.map(|s| s.mean)),
        );
        push(
            always,
            "timeouts_mean",
            "timeouts",
            one(c.timeouts.map(|s| s.mean)),
        );
        push(
            always,
            "timeouts_p99",
            "timeouts",
            one(c.timeouts.map(|s| s.p99)),
        );
        push(jobs, "jobs_completed", "jobs", count(c.jobs_completed));
        push(jobs, "jobs_unfinished", "jobs", count(c.jobs_unfinished));
        let jct = c.jct_ms;
        push(always, "jct_mean", "ms", one(jct.map(|s| s.mean)));
        push(always, "jct_std", "ms", one(jct.map(|s| s.std)));
        push(always, "jct_p50", "ms", one(jct.map(|s| s.p50)));
        push(always, "jct_p90", "ms", one(jct.map(|s| s.p90)));
        push(always, "jct_p99", "ms", one(jct.map(|s| s.p99)));
        push(always, "jct_p999", "ms", one(jct.map(|s| s.p999)));
        push(always, "jct_pooled", "ms", c.jct_values_ms.clone());
    }
    for l in &run.layers {
        let class = format!("{LAYER_PREFIX}{}", l.layer);
        let mut push = |metric, value: Option<f64>| {
            out.push(MetricValue {
                class: class.clone(),
                metric,
                unit: "%",
                values: value.into_iter().collect(),
                applies: true,
            })
        };
        push("utilisation", l.utilisation_pct);
        push("loss_rate", l.loss_pct);
        push("utilisation_paper", l.paper_utilisation_pct);
        push("loss_rate_paper", l.paper_loss_pct);
    }
    let cost = &run.cost;
    for (metric, unit, value) in [
        ("events", "events", cost.events),
        (
            "data_packets_delivered",
            "packets",
            cost.data_packets_delivered,
        ),
        (
            "peak_packets_in_flight",
            "packets",
            cost.peak_packets_in_flight,
        ),
    ] {
        out.push(MetricValue {
            class: RUN_CLASS.to_string(),
            metric,
            unit,
            values: vec![value as f64],
            applies: true,
        });
    }
    out
}

/// The three metrics of a goodput (`names`: its `_mean`, `_std` and `_pooled`) with a run's
/// values: the mean and standard deviation of its flows' goodputs (`stats`), and every flow's
/// goodput (`values`) to pool over seeds.
fn goodput_metrics(
    names: [&'static str; 3],
    stats: Option<Summary>,
    values: &[f64],
) -> [(&'static str, Vec<f64>); 3] {
    let [mean, std, pooled] = names;
    [
        (mean, stats.map(|s| s.mean).into_iter().collect()),
        (std, stats.map(|s| s.std).into_iter().collect()),
        (pooled, values.to_vec()),
    ]
}

/// Which rows of summary.csv a metric has: a flow class's, a layer's (`layer:<name>`) or the
/// run's (`run`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricScope {
    /// A flow class (`class` is its name).
    Class,
    /// An egress layer (`class` is `layer:<name>`).
    Layer,
    /// The run's cost (`class` is `run`).
    Run,
}

/// One metric summary.csv can hold: where, its id and its unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricInfo {
    /// Whose rows have it.
    pub scope: MetricScope,
    /// The metric's id (summary.csv `metric`).
    pub metric: &'static str,
    /// Its unit (summary.csv `unit`).
    pub unit: &'static str,
}

/// Every metric summary.csv can hold, in row order: read off [`metric_values`] of a run with
/// one flow class and one layer, so that it cannot drift from what reports write.
pub fn metric_catalogue() -> Vec<MetricInfo> {
    let run = RunSummary {
        point: String::new(),
        point_index: 0,
        seed: 0,
        window_start_ns: 0,
        window_end_ns: 0,
        classes: vec![ClassSummary::default()],
        layers: vec![LayerSummary::default()],
        cost: RunCost::new(0, 0, 0, 0.0),
        files: Vec::new(),
    };
    metric_values(&run)
        .into_iter()
        .map(|m| MetricInfo {
            scope: if m.class == RUN_CLASS {
                MetricScope::Run
            } else if m.class.starts_with(LAYER_PREFIX) {
                MetricScope::Layer
            } else {
                MetricScope::Class
            },
            metric: m.metric,
            unit: m.unit,
        })
        .collect()
}

/// The cross-seed statistics of every metric of every point, in the order described in the
/// module documentation. A metric no seed has a value for, or no seed applies to
/// ([`MetricValue::applies`]), gets no row.
pub fn aggregate(runs: &[RunSummary]) -> Vec<SummaryRow> {
    let mut order: Vec<&RunSummary> = runs.iter().collect();
    order.sort_by(|a, b| (a.point_index, &a.point, a.seed).cmp(&(b.point_index, &b.point, b.seed)));
    // Groups in first-appearance order; metric_values emits every metric whether or not it has
    // a value, so the order follows the schema, not the data.
    let mut groups: Vec<(String, MetricValue, Vec<f64>)> = Vec::new();
    let mut index: HashMap<(String, String, &'static str), usize> = HashMap::new();
    for run in order {
        for mv in metric_values(run) {
            let key = (run.point.clone(), mv.class.clone(), mv.metric);
            let i = *index.entry(key).or_insert_with(|| {
                groups.push((run.point.clone(), mv.clone(), Vec::new()));
                groups.len() - 1
            });
            groups[i].1.applies |= mv.applies;
            groups[i].2.extend(mv.values);
        }
    }
    groups
        .into_iter()
        .filter(|(_, mv, _)| mv.applies)
        .filter_map(|(point, mv, values)| {
            Some(SummaryRow {
                point,
                class: mv.class,
                metric: mv.metric.to_string(),
                unit: mv.unit.to_string(),
                stats: Summary::of(&values)?,
            })
        })
        .collect()
}

/// The text of summary.csv: a header of [`SUMMARY_COLUMNS`], then one line per row (`\n` line
/// ends; fields quoted only when they contain a comma, quote or line break).
pub fn summary_csv(rows: &[SummaryRow]) -> String {
    let mut w = csv_writer();
    w.write_record(SUMMARY_COLUMNS).expect(CSV_IN_MEMORY);
    for r in rows {
        let s = &r.stats;
        w.write_record([
            r.point.as_str(),
            &r.class,
            &r.metric,
            &r.unit,
            &s.n.to_string(),
            &s.mean.to_string(),
            &s.std.to_string(),
            &s.ci95.to_string(),
            &s.p50.to_string(),
            &s.p99.to_string(),
            &s.min.to_string(),
            &s.max.to_string(),
        ])
        .expect(CSV_IN_MEMORY);
    }
    let bytes = csv_bytes(w);
    // Every field is a Rust string, so the bytes are UTF-8.
    String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8")
}

/// The statistics of one summary.json leaf.
#[derive(Serialize)]
struct JsonStats<'a> {
    unit: &'a str,
    n: u64,
    mean: f64,
    std: f64,
    ci95: f64,
    p50: f64,
    p99: f64,
    min: f64,
    max: f64,
}

/// A list of (key, value) pairs serialised as a JSON object in list order.
struct Ordered<'a, T>(&'a [(&'a str, T)]);

impl<T: Serialize> Serialize for Ordered<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// The text of summary.json: `{ point: { class: { metric: { unit, n, mean, std, ci95, p50,
/// p99, min, max } } } }`, objects in the rows' order, pretty-printed, ending with a newline.
pub fn summary_json(rows: &[SummaryRow]) -> String {
    type Metrics<'a> = Vec<(&'a str, JsonStats<'a>)>;
    let mut points: Vec<(&str, Vec<(&str, Metrics)>)> = Vec::new();
    for r in rows {
        if points.last().is_none_or(|p| p.0 != r.point) {
            points.push((&r.point, Vec::new()));
        }
        let classes = &mut points.last_mut().expect("pushed above").1;
        if classes.last().is_none_or(|c| c.0 != r.class) {
            classes.push((&r.class, Vec::new()));
        }
        let s = &r.stats;
        classes.last_mut().expect("pushed above").1.push((
            &r.metric,
            JsonStats {
                unit: &r.unit,
                n: s.n,
                mean: s.mean,
                std: s.std,
                ci95: s.ci95,
                p50: s.p50,
                p99: s.p99,
                min: s.min,
                max: s.max,
            },
        ));
    }
    let classes: Vec<Vec<(&str, Ordered<JsonStats>)>> = points
        .iter()
        .map(|(_, cs)| cs.iter().map(|(c, ms)| (*c, Ordered(ms))).collect())
        .collect();
    let nested: Vec<(&str, Ordered<Ordered<JsonStats>>)> = points
        .iter()
        .zip(&classes)
        .map(|((p, _), cs)| (*p, Ordered(cs)))
        .collect();
    // Plain data with string keys always serialises.
    let mut text = serde_json::to_string_pretty(&Ordered(&nested)).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes `DIR/summary.csv` and `DIR/summary.json` for `rows`, as a pair
/// ([`crate::output::write_atomic_all`]): both are written in full to temporary files before
/// either replaces its path, so that a full disk never leaves a new summary.csv beside an old
/// (or no) summary.json.
pub fn write_summaries(dir: &Path, rows: &[SummaryRow]) -> Result<()> {
    let (csv, json) = (summary_csv(rows), summary_json(rows));
    crate::output::write_atomic_all(&[
        (&dir.join(SUMMARY_CSV), csv.as_bytes()),
        (&dir.join(SUMMARY_JSON), json.as_bytes()),
    ])
    .map_err(|(path, source)| ReportError::Io { path, source })
}

/// `htsim report DIR...`: reads every run summary under the given directories (merging shards),
/// aggregates across seeds and writes the summaries into `out`. Returns the rows; an error if no
/// run was found.
pub fn rebuild_summaries(dirs: &[PathBuf], out: &Path) -> Result<Vec<SummaryRow>> {
    let runs = read_run_summaries(dirs)?;
    if runs.is_empty() {
        return Err(ReportError::Io {
            path: dirs.first().cloned().unwrap_or_default(),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no runs/<point>/seed-<n>/summary.json found",
            ),
        });
    }
    let rows = aggregate(&runs);
    write_summaries(out, &rows)?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::run_summary::{ClassSummary, LayerSummary, RunCost};

    /// A run with one class whose completed-flow FCTs are `fcts` ms and a core layer at
    /// `util` % standard utilisation.
    pub(crate) fn run(
        point: &str,
        point_index: u64,
        seed: u64,
        fcts: &[f64],
        util: f64,
    ) -> RunSummary {
        let fct = Summary::of(fcts);
        RunSummary {
            point: point.to_string(),
            point_index,
            seed,
            window_start_ns: 0,
            window_end_ns: 1_000_000_000,
            classes: vec![ClassSummary {
                class: "short".into(),
                finite_flows: fcts.len() as u64,
                completed: fcts.len() as u64,
                fct_ms: fct,
                fct_values_ms: fcts.to_vec(),
                ..ClassSummary::default()
            }],
            layers: vec![LayerSummary {
                layer: "core".into(),
                links: 4,
                utilisation_pct: Some(util),
                loss_pct: Some(0.0),
                ..LayerSummary::default()
            }],
            cost: RunCost::new(1000 * seed, 10, 5, 0.5 * seed as f64),
            files: Vec::new(),
        }
    }

    /// Two points ("a=1,b=2" first in the run list although its name sorts after "a=0") and
    /// three seeds of the first, given out of order.
    pub(crate) fn runs() -> Vec<RunSummary> {
        vec![
            run("a=1,b=2", 0, 2, &[2.0, 4.0], 40.0),
            run("a=0", 1, 1, &[1.0], 10.0),
            run("a=1,b=2", 0, 1, &[1.0, 3.0], 20.0),
            run("a=1,b=2", 0, 3, &[3.0, 5.0], 60.0),
        ]
    }

    #[test]
    fn summary_csv_bytes_for_hand_made_runs() {
        let rows = aggregate(&runs());
        let csv = summary_csv(&rows);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "point,class,metric,unit,n,mean,std,ci95,p50,p99,min,max"
        );
        // Per-seed FCT means 2, 3, 4: std 1, ci95 = t(0.975, 2) / sqrt 3.
        let ci = 4.302652730 / 3f64.sqrt();
        let want_fct = format!("\"a=1,b=2\",short,fct_mean,ms,3,3,1,{ci},3,3.98,2,4");
        assert_eq!(lines[4], want_fct);
        assert_eq!(
            lines[1],
            "\"a=1,b=2\",short,finite_flows,flows,3,2,0,0,2,2,2,2"
        );
        // Layer utilisation 20, 40, 60: std 20.
        let util = format!(
            "\"a=1,b=2\",layer:core,utilisation,%,3,40,20,{},40,59.6,20,60",
            4.302652730 * 20.0 / 3f64.sqrt()
        );
        assert!(lines.contains(&util.as_str()), "{csv}");
        // Metrics without any value (slowdown, goodput, paper utilisation) have no row.
        assert!(!csv.contains("slowdown") && !csv.contains("utilisation_paper"));
        // Nor do counts of what a class does not have (long flows, jobs).
        assert!(
            !csv.contains("long_flows") && !csv.contains("jobs_"),
            "{csv}"
        );
        // The run-list order puts "a=1,b=2" before "a=0"; each point has 10 class rows
        // (finite_flows, completed, unfinished, 6 fct over seeds and fct_pooled), 2 layer rows,
        // 3 cost rows.
        let per_point = 10 + 2 + 3;
        assert_eq!(lines.len(), 1 + 2 * per_point);
        assert!(lines[per_point + 1].starts_with("a=0,short,finite_flows,flows,1,1,0,0,"));
        assert_eq!(
            lines.last().unwrap(),
            &"a=0,run,peak_packets_in_flight,packets,1,5,0,0,5,5,5,5"
        );
        // Wall-clock cost is not in the summary.
        assert!(!csv.contains("wall") && !csv.contains("per_second"));
        // Input order does not matter.
        let mut reversed = runs();
        reversed.reverse();
        assert_eq!(summary_csv(&aggregate(&reversed)), csv);
    }

    #[test]
    fn pooled_goodput_weighs_every_flow_of_every_seed() {
        // Seed 1 has one flow at 100 Mb/s; seed 2 has three at 10, 20 and 30 Mb/s. The per-seed
        // means are 100 and 20, so the `_mean` metric averages 60 over the 2 seeds; pooled, the
        // 4 flows average (100 + 10 + 20 + 30) / 4 = 40. The same for long flows' goodput and
        // completed finite flows' goodput.
        for family in ["goodput", "finite_goodput"] {
            let mut runs = Vec::new();
            for (seed, flows) in [(1, vec![100.0]), (2, vec![10.0, 20.0, 30.0])] {
                let mut r = run("p", 0, seed, &[], 0.0);
                let c = &mut r.classes[0];
                if family == "goodput" {
                    c.long_flows = flows.len() as u64;
                    c.goodput_mbps = Summary::of(&flows);
                    c.goodput_values_mbps = flows;
                } else {
                    c.completed = flows.len() as u64;
                    c.finite_goodput_mbps = Summary::of(&flows);
                    c.finite_goodput_values_mbps = flows;
                }
                runs.push(r);
            }
            let rows = aggregate(&runs);
            let row = |metric: String| {
                rows.iter()
                    .find(|r| r.class == "short" && r.metric == metric)
                    .unwrap_or_else(|| panic!("no {metric} row"))
                    .clone()
            };
            let per_seed = row(format!("{family}_mean"));
            assert_eq!((per_seed.stats.n, per_seed.stats.mean), (2, 60.0));
            let pooled = row(format!("{family}_pooled"));
            assert_eq!(pooled.unit, "Mbps");
            let s = pooled.stats;
            assert_eq!((s.n, s.mean, s.min, s.max), (4, 40.0, 10.0, 100.0));
            // Sample std of 100, 10, 20, 30: squares of deviations 3600 + 900 + 400 + 100 =
            // 5000.
            assert!((s.std - (5000.0f64 / 3.0).sqrt()).abs() < 1e-12);
            // Right after the `_std` metric, whatever the seeds' order.
            let pos = |m: String| rows.iter().position(|r| r.metric == m).unwrap();
            assert_eq!(
                pos(format!("{family}_pooled")),
                pos(format!("{family}_std")) + 1
            );
            runs.reverse();
            assert_eq!(aggregate(&runs), rows);
        }
    }

    #[test]
    fn pooled_fct_has_the_spread_of_every_flow_of_every_seed() {
        // Seed 1 completes flows in 1, 2 and 3 ms, seed 2 in 10, 20 and 30 ms. Per seed: std 1
        // and 10 (fct_std 5.5 over the seeds), p99 2.98 and 29.8 (fct_p99 16.39). Pooled, as
        // [P0] takes its statistics: mean 11; squares of deviations 100 + 81 + 64 + 1 + 81 + 361
        // = 688, std sqrt(688 / 5) = 11.73; p99 at rank 4.95 of 0..5: 20 + 0.95 x 10 = 29.5.
        let runs: Vec<RunSummary> = [(1, vec![1.0, 2.0, 3.0]), (2, vec![10.0, 20.0, 30.0])]
            .into_iter()
            .map(|(seed, fcts)| {
                let mut r = run("p", 0, seed, &[], 0.0);
                let c = &mut r.classes[0];
                c.finite_flows = 3;
                c.completed = 3;
                c.fct_ms = Summary::of(&fcts);
                c.fct_values_ms = fcts;
                r
            })
            .collect();
        let rows = aggregate(&runs);
        let row = |metric: &str| {
            rows.iter()
                .find(|r| r.class == "short" && r.metric == metric)
                .unwrap_or_else(|| panic!("no {metric} row"))
                .stats
        };
        assert_eq!((row("fct_std").n, row("fct_std").mean), (2, 5.5));
        assert!((row("fct_p99").mean - 16.39).abs() < 1e-12);
        let pooled = row("fct_pooled");
        assert_eq!(
            (pooled.n, pooled.mean, pooled.min, pooled.max),
            (6, 11.0, 1.0, 30.0)
        );
        assert!((pooled.std - (688.0f64 / 5.0).sqrt()).abs() < 1e-12);
        assert!((pooled.p99 - 29.5).abs() < 1e-12);
        let unit = rows.iter().find(|r| r.metric == "fct_pooled").unwrap();
        assert_eq!(unit.unit, "ms");
        // Right after the per-seed FCT statistics.
        let pos = |m: &str| rows.iter().position(|r| r.metric == m).unwrap();
        assert_eq!(pos("fct_pooled"), pos("fct_p999") + 1);
    }

    #[test]
    fn counts_have_rows_when_any_seed_of_the_point_has_what_they_count() {
        // Seed 1 ran one job, seed 2 none: the job counts average over both seeds. Neither has
        // a finite flow or a long flow: no such counts.
        let mut with_job = run("p", 0, 1, &[], 0.0);
        with_job.classes[0].jobs_completed = 1;
        let without = run("p", 0, 2, &[], 0.0);
        let rows = aggregate(&[with_job, without]);
        let jobs = rows.iter().find(|r| r.metric == "jobs_completed").unwrap();
        assert_eq!((jobs.stats.n, jobs.stats.mean), (2, 0.5));
        for absent in ["finite_flows", "completed", "unfinished", "long_flows"] {
            assert!(rows.iter().all(|r| r.metric != absent), "{absent}");
        }
    }

    #[test]
    fn job_completion_time_has_the_statistics_of_fct() {
        let mut r = run("p", 0, 1, &[], 0.0);
        r.classes[0].jobs_completed = 3;
        r.classes[0].jobs_unfinished = 1;
        r.classes[0].jct_ms = Summary::of(&[1.0, 2.0, 6.0]);
        let rows = aggregate(&[r]);
        let metrics: Vec<&str> = rows
            .iter()
            .filter(|r| r.metric.starts_with("job") || r.metric.starts_with("jct"))
            .map(|r| r.metric.as_str())
            .collect();
        assert_eq!(
            metrics,
            [
                "jobs_completed",
                "jobs_unfinished",
                "jct_mean",
                "jct_std",
                "jct_p50",
                "jct_p90",
                "jct_p99",
                "jct_p999"
            ]
        );
        let mean = rows.iter().find(|r| r.metric == "jct_mean").unwrap();
        assert_eq!((mean.unit.as_str(), mean.stats.mean), ("ms", 3.0));
        let p50 = rows.iter().find(|r| r.metric == "jct_p50").unwrap();
        assert_eq!(p50.stats.mean, 2.0);
    }

    #[test]
    fn pooled_job_completion_time_has_the_spread_of_every_job_of_every_seed() {
        // Seed 1 completes jobs in 1, 2 and 6 ms, seed 2 in 10 and 20 ms. Per seed: p99 5.92
        // and 19.9 (jct_p99 12.91 over the seeds). Pooled: mean 7.8; squares of deviations
        // 46.24 + 33.64 + 3.24 + 4.84 + 148.84 = 236.8, std sqrt(236.8 / 4) = 7.69; p99 at rank
        // 3.96 of 0..4: 10 + 0.96 x 10 = 19.6.
        let runs: Vec<RunSummary> = [(1, vec![1.0, 2.0, 6.0]), (2, vec![10.0, 20.0])]
            .into_iter()
            .map(|(seed, jcts)| {
                let mut r = run("p", 0, seed, &[], 0.0);
                let c = &mut r.classes[0];
                c.jobs_completed = jcts.len() as u64;
                c.jct_ms = Summary::of(&jcts);
                c.jct_values_ms = jcts;
                r
            })
            .collect();
        let rows = aggregate(&runs);
        let row = |metric: &str| {
            rows.iter()
                .find(|r| r.class == "short" && r.metric == metric)
                .unwrap_or_else(|| panic!("no {metric} row"))
        };
        assert!((row("jct_p99").stats.mean - 12.91).abs() < 1e-12);
        let pooled = row("jct_pooled");
        assert_eq!(pooled.unit, "ms");
        let s = pooled.stats;
        assert_eq!((s.n, s.min, s.max), (5, 1.0, 20.0));
        assert!((s.mean - 7.8).abs() < 1e-12, "{s:?}");
        assert!((s.std - (236.8f64 / 4.0).sqrt()).abs() < 1e-12, "{s:?}");
        assert!((s.p99 - 19.6).abs() < 1e-12, "{s:?}");
        // The last row of the class, after the per-seed statistics.
        let pos = |m: &str| rows.iter().position(|r| r.metric == m).unwrap();
        assert_eq!(pos("jct_pooled"), pos("jct_p999") + 1);
    }

    #[test]
    fn summary_json_nests_point_class_metric_in_row_order() {
        let rows = aggregate(&runs());
        let text = summary_json(&rows);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let fct = &v["a=1,b=2"]["short"]["fct_mean"];
        assert_eq!(fct["unit"], "ms");
        assert_eq!(fct["n"], 3);
        assert_eq!(fct["mean"], 3.0);
        assert_eq!(v["a=0"]["layer:core"]["utilisation"]["max"], 10.0);
        // Object order follows the run list, not the alphabet.
        assert!(text.find("\"a=1,b=2\"").unwrap() < text.find("\"a=0\"").unwrap());
        assert!(text.find("\"finite_flows\"").unwrap() < text.find("\"fct_mean\"").unwrap());
    }

    #[test]
    fn report_of_merged_shards_equals_the_unsharded_report() {
        let all = tempfile::tempdir().unwrap();
        let shard1 = tempfile::tempdir().unwrap();
        let shard2 = tempfile::tempdir().unwrap();
        for (i, r) in runs().iter().enumerate() {
            let run_dir = |d: &Path| {
                d.join("runs")
                    .join(&r.point)
                    .join(format!("seed-{}", r.seed))
            };
            r.write(&run_dir(all.path())).unwrap();
            let shard = if i % 2 == 0 {
                shard1.path()
            } else {
                shard2.path()
            };
            r.write(&run_dir(shard)).unwrap();
        }
        let unsharded = rebuild_summaries(&[all.path().to_path_buf()], all.path()).unwrap();
        let out = tempfile::tempdir().unwrap();
        let merged = rebuild_summaries(
            &[shard2.path().to_path_buf(), shard1.path().to_path_buf()],
            out.path(),
        )
        .unwrap();
        assert_eq!(merged, unsharded);
        for f in [SUMMARY_CSV, SUMMARY_JSON] {
            let a = std::fs::read(all.path().join(f)).unwrap();
            assert_eq!(a, std::fs::read(out.path().join(f)).unwrap(), "{f}");
        }
        assert_eq!(
            std::fs::read_to_string(out.path().join(SUMMARY_CSV)).unwrap(),
            summary_csv(&aggregate(&runs()))
        );
        let empty = tempfile::tempdir().unwrap();
        assert!(rebuild_summaries(&[empty.path().to_path_buf()], empty.path()).is_err());
    }
}
