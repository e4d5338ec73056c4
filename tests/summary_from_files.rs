//! Every number of a run's summary.json and of summary.csv / summary.json over seeds, recomputed
//! from the files the runs wrote (flows.csv, links.csv, timeseries.csv, each run's
//! summary.json) with the definitions of docs/outputs.md, as a user would with pandas: nothing
//! here calls the crate's metric code, only the runner that writes the files.
//!
//! Two small scenarios run into temporary directories:
//!
//! - `MIXED`: a FatTree k = 4 at 100 Mb/s with a 10 Gb/s core (so that times fall between whole
//!   nanoseconds), ECN queues but 12-packet drop-tail ToR ports (a layer with drops), long MPTCP
//!   flows, Poisson DCTCP flows, a class whose flows all arrive at 0, and partition/aggregate
//!   jobs, with a drain; a sweep of the warmup (20 ms, which leaves out the class at 0, and
//!   none); 3 seeds; links watched for crossings.csv (`[output] crossings`), which some long
//!   flows cross and others do not;
//! - `HOST_DOWN`: (no watched links, so no crossing metric) a FatTree k = 4 at 1 Gb/s with ECN queues, long XMP flows and finite DCTCP
//!   flows arriving at the warmup (1 ms), jobs from the start (the first ones before the
//!   warmup) and one job started 10 us before T (its responses open in the drain), and one
//!   host's link down from the start (flows that never connect, jobs that never end, a host
//!   layer with drops); 2 seeds.
//!
//! Each per-run value is compared with its recomputation allowing only the rounding the files
//! carry (docs/outputs.md: summary.json is computed before any rounding): times are whole
//! nanoseconds, rounded down (1 ns), `slowdown` has 6 decimals, goodputs are whole b/s,
//! `utilisation_pct` and `loss_rate_pct` have 4 decimals, and `ci95`'s t has 8 significant
//! digits; each statistic's allowance follows from its definition ([`Allowance`]). Over seeds,
//! the statistics of the per-run values (each run's summary.json, checked against its files
//! first) are compared to the last bits of f64 arithmetic.
//!
//! Jobs are the flows.csv rows that share a `job` number ([`check_job_numbers`] checks the
//! numbering, [`check_jobs`] that each job has the shape docs/scenarios.md gives it and the job
//! metrics).
//!
//! What the files do not determine, and is not recomputed here:
//!
//! - `goodput_bps` of a flow already open at the warmup: it needs `sent(warmup)`, which no
//!   file holds (timeseries.csv `rate` gives what was acknowledged, not what was sent); and
//!   `goodput_sent_bps` and `subflow_goodput_bps` of any flow (bytes sent, and bytes
//!   acknowledged per subflow, are in no file). The per-run goodput statistics are recomputed
//!   from these columns as written; the `goodput_bps` column itself is recomputed from the
//!   `rate` series for every flow that started at or after the warmup;
//! - `utilisation_pct` of a link (its busy time is in no file): a layer's utilisation is
//!   recomputed from the column;
//! - `paper_utilisation_pct` and `paper_loss_pct` of a window longer than 1 s (the counter
//!   readings at every second are in no file); both scenarios' windows are shorter, a single
//!   interval whose counters are links.csv's;
//! - `ideal_fct_ns` (the path-0 links and their delays are in no file): `slowdown` is checked
//!   against `fct_ns / ideal_fct_ns` as written;
//! - the run's cost (`events`, `data_packets_delivered`, `peak_packets_in_flight` and the
//!   wall-clock figures): the summary.csv `run` rows are recomputed from each run's
//!   summary.json.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use htsim::runner::{run_all, write_report, ReportOutcome, RunOptions};
use htsim::scenario::{load_str, LoadOptions};
use htsim::simulate::Simulator;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

/// A FatTree k = 4 with and without a warmup, 3 seeds (module documentation).
const MIXED: &str = r#"
name = "mixed"
[run]
duration = "250ms"
drain = "100ms"
seeds = 3
[topology]
kind = "fattree"
k = 4
link_rate = "100Mbps"
link_delay = "10us"
[topology.layers.core]
link_rate = "10Gbps"
[queue]
kind = "ecn"
capacity = "30pkt"
mark_threshold = "10pkt"
[queue.layers.tor]
kind = "droptail"
capacity = "12pkt"
[transports.long]
kind = "mptcp"
subflows = 2
min_rto = "10ms"
[transports.short]
kind = "dctcp"
min_rto = "2ms"
[[flows]]
name = "long"
senders = 3
size = "infinite"
transport = "long"
[[flows]]
name = "early"
senders = 2
size = "20KB"
transport = "short"
[[flows]]
name = "short"
senders = "rest"
size = { uniform = ["2KB", "60KB"] }
arrivals = { poisson = 1000 }
transport = "short"
[[flows]]
name = "incast"
jobs = { servers = 3, request = "2KB", response = "30KB", concurrent = 1 }
transport = "short"
[output]
timeseries = { interval = "1ms", series = ["rate"] }
crossings = ["core0<->agg0.0", "tor0.0"]
[sweep]
"run.warmup" = ["20ms", "0s"]
"#;

/// A FatTree k = 4 at 1 Gb/s with host 3's link down, 2 seeds (module documentation).
const HOST_DOWN: &str = r#"
name = "host-down"
[run]
duration = "60ms"
warmup = "1ms"
drain = "100ms"
seeds = [2, 7]
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
[queue]
kind = "ecn"
capacity = "20pkt"
mark_threshold = "5pkt"
[transports.xmp]
kind = "xmp"
subflows = 2
min_rto = "5ms"
[[flows]]
name = "long"
senders = 6
size = "infinite"
start = "1ms"
transport = "xmp"
[[flows]]
name = "finite"
senders = "rest"
size = { uniform = ["20KB", "2MB"] }
start = "1ms"
transport = { kind = "dctcp", min_rto = "5ms" }
[[flows]]
name = "incast"
jobs = { servers = 3, request = "2KB", response = "30KB", concurrent = 4 }
transport = { kind = "tcp", min_rto = "5ms" }
[[flows]]
name = "late"
start = "59990us"
jobs = { servers = 2, request = "3KB", response = "40KB", concurrent = 1 }
transport = { kind = "tcp", min_rto = "5ms" }
[[events]]
at = "0s"
where = { link = ["host3"] }
set = { down = true }
[output]
timeseries = { interval = "1ms", series = ["rate"] }
"#;

/// What the test knows of a scenario besides its text: the values the definitions need.
struct Known {
    text: &'static str,
    /// The sweep points' names and warmups (ns), in run-list order.
    points: &'static [(&'static str, u64)],
    seeds: &'static [u64],
    /// The flow classes in scenario order.
    classes: &'static [&'static str],
    duration_ns: u64,
    /// The job classes: name, request and response sizes (bytes), servers per job.
    jobs: &'static [(&'static str, u64, u64, usize)],
    /// timeseries.csv's interval, ns.
    interval_ns: u64,
}

const SCENARIOS: [Known; 2] = [
    Known {
        text: MIXED,
        points: &[("run.warmup=20ms", 20_000_000), ("run.warmup=0s", 0)],
        seeds: &[1, 2, 3],
        classes: &["long", "early", "short", "incast"],
        duration_ns: 250_000_000,
        jobs: &[("incast", 2_000, 30_000, 3)],
        interval_ns: 1_000_000,
    },
    Known {
        text: HOST_DOWN,
        points: &[("base", 1_000_000)],
        seeds: &[2, 7],
        classes: &["long", "finite", "incast", "late"],
        duration_ns: 60_000_000,
        jobs: &[("incast", 2_000, 30_000, 3), ("late", 3_000, 40_000, 2)],
        interval_ns: 1_000_000,
    },
];

/// A FatTree's egress layers in the topology's layer order (docs/outputs.md).
const FATTREE_LAYERS: [&str; 4] = ["tor", "agg", "core", "host"];

/// Transports with one subflow (docs/outputs.md: their subflow-level goodput is their goodput).
const SINGLE_PATH: [&str; 3] = ["tcp", "dctcp", "ps"];

#[test]
fn every_summary_number_follows_from_the_run_files() {
    for known in &SCENARIOS {
        let dir = tempfile::tempdir().unwrap();
        run_scenario(known.text, dir.path());
        let mut runs = Vec::new();
        for &(point, _) in known.points {
            for &seed in known.seeds {
                let run = RunDir::read(dir.path(), point, seed, known);
                check_run(&run, known);
                runs.push(run);
            }
        }
        check_over_seeds(dir.path(), &runs, known);
        check_crossings_exercised(&runs);
    }
}

/// With watched links, some long flows crossed and some did not, so that the crossing metrics
/// are a selection of the long flows, neither all nor none of them.
fn check_crossings_exercised(runs: &[RunDir]) {
    let (mut crossed, mut not_crossed) = (0, 0);
    for run in runs {
        let Some(ids) = &run.crossing_ids else {
            continue;
        };
        for f in run.flows.iter().filter(|f| is_long(f)) {
            if ids.contains(&f.int("flow_id").unwrap()) {
                crossed += 1;
            } else {
                not_crossed += 1;
            }
        }
    }
    let watched = runs.iter().any(|r| r.crossing_ids.is_some());
    assert!(
        !watched || (crossed > 0 && not_crossed > 0),
        "long flows that crossed: {crossed}, that did not: {not_crossed}"
    );
}

/// Runs `text` through the runner into `out`, then writes summary.csv and summary.json.
fn run_scenario(text: &str, out: &Path) {
    let loaded = load_str("test.toml", text, Path::new("."), &LoadOptions::default()).unwrap();
    let options = RunOptions {
        out: out.to_path_buf(),
        jobs: 2,
        ..RunOptions::default()
    };
    let report = run_all(&loaded, &options, &Simulator::for_loaded(&loaded), &|_| {}).unwrap();
    assert!(report.failed.is_empty(), "{report:?}");
    assert!(matches!(
        write_report(&loaded, out).unwrap(),
        ReportOutcome::Written(_)
    ));
}

/// One CSV row by column name; an empty field is "no value".
#[derive(Clone, Debug)]
struct Row(HashMap<String, String>);

impl Row {
    fn str(&self, column: &str) -> &str {
        self.0
            .get(column)
            .unwrap_or_else(|| panic!("no column {column}"))
    }
    fn int(&self, column: &str) -> Option<u64> {
        let s = self.str(column);
        (!s.is_empty()).then(|| s.parse().unwrap_or_else(|e| panic!("{column}={s}: {e}")))
    }
    fn num(&self, column: &str) -> Option<f64> {
        let s = self.str(column);
        (!s.is_empty()).then(|| s.parse().unwrap_or_else(|e| panic!("{column}={s}: {e}")))
    }
}

fn read_csv(path: &Path) -> Vec<Row> {
    let mut reader = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    reader
        .records()
        .map(|r| {
            Row(header
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(String::from))
                .collect())
        })
        .collect()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The files of one run.
struct RunDir {
    point: String,
    seed: u64,
    /// Its position in the run list's points.
    point_index: u64,
    /// Its warmup: the measurement window's start, ns.
    warmup_ns: u64,
    flows: Vec<Row>,
    links: Vec<Row>,
    /// The flow ids with a row in crossings.csv; `None` without the file (no watched link).
    crossing_ids: Option<BTreeSet<u64>>,
    /// Per flow id, its `rate` samples `(time_ns, value)` in time order.
    rates: HashMap<u64, Vec<(u64, u64)>>,
    summary: Value,
}

impl RunDir {
    fn read(out: &Path, point: &str, seed: u64, known: &Known) -> Self {
        let dir: PathBuf = out.join("runs").join(point).join(format!("seed-{seed}"));
        let mut rates: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
        for row in read_csv(&dir.join("timeseries.csv")) {
            assert_eq!((row.str("series"), row.str("unit")), ("rate", "bps"));
            let id = row.str("id").parse().unwrap();
            let sample = (row.int("time_ns").unwrap(), row.int("value").unwrap());
            rates.entry(id).or_default().push(sample);
        }
        let point_index = known.points.iter().position(|p| p.0 == point).unwrap();
        RunDir {
            point: point.to_string(),
            seed,
            point_index: point_index as u64,
            warmup_ns: known.points[point_index].1,
            flows: read_csv(&dir.join("flows.csv")),
            crossing_ids: dir.join("crossings.csv").exists().then(|| {
                read_csv(&dir.join("crossings.csv"))
                    .iter()
                    .map(|r| r.int("flow_id").unwrap())
                    .collect()
            }),
            links: read_csv(&dir.join("links.csv")),
            rates,
            summary: read_json(&dir.join("summary.json")),
        }
    }

    fn name(&self) -> String {
        format!("{}/seed-{}", self.point, self.seed)
    }
}

// ---------------------------------------------------------------------------------------------
// Statistics, as docs/outputs.md defines them.

/// A statistics object's fields (docs/outputs.md, summary.json per run).
#[derive(Clone, Copy, Debug)]
struct Stats {
    n: usize,
    mean: f64,
    std: f64,
    ci95: f64,
    p50: f64,
    p90: f64,
    p99: f64,
    p999: f64,
    min: f64,
    max: f64,
}

/// The statistics of `values`; `None` for no value.
fn stats(values: &[f64]) -> Option<Stats> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    let std = if n > 1 {
        (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    } else {
        0.0
    };
    let ci95 = if n > 1 {
        student_t_975(n as u64 - 1) * std / (n as f64).sqrt()
    } else {
        0.0
    };
    // Linear interpolation between the sorted values (numpy's default).
    let percentile = |q: f64| {
        let h = (n - 1) as f64 * q / 100.0;
        let lo = h.floor() as usize;
        let hi = (lo + 1).min(n - 1);
        sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
    };
    Some(Stats {
        n,
        mean,
        std,
        ci95,
        p50: percentile(50.0),
        p90: percentile(90.0),
        p99: percentile(99.0),
        p999: percentile(99.9),
        min: sorted[0],
        max: sorted[n - 1],
    })
}

/// P(|T| <= t) for Student's t with `df` degrees of freedom, in closed form (Abramowitz and
/// Stegun 26.7.3 and 26.7.4).
fn t_two_sided_cdf(t: f64, df: u64) -> f64 {
    let theta = (t / (df as f64).sqrt()).atan();
    let (s, c) = theta.sin_cos();
    let c2 = c * c;
    // The series 1 + a1 c^2 + a2 c^4 + ..., with a_k = a_(k-1) x (2k - 1 + odd) / (2k + odd).
    let series = |odd: u64, terms: u64| {
        let (mut term, mut sum) = (1.0, 1.0);
        for k in 1..=terms {
            term *= c2 * (2 * k - 1 + odd) as f64 / (2 * k + odd) as f64;
            sum += term;
        }
        sum
    };
    if df.is_multiple_of(2) {
        s * series(0, df / 2 - 1)
    } else if df == 1 {
        2.0 * theta / std::f64::consts::PI
    } else {
        2.0 / std::f64::consts::PI * (theta + s * c * series(1, (df - 3) / 2))
    }
}

/// t(0.975, df): the t with P(|T| <= t) = 0.95, by bisection of the closed form.
fn student_t_975(df: u64) -> f64 {
    let (mut lo, mut hi) = (1.0f64, 20.0f64);
    while hi - lo > 1e-15 * hi {
        let mid = 0.5 * (lo + hi);
        if t_two_sided_cdf(mid, df) < 0.95 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The precision of the t quantile in `ci95` (docs/outputs.md: 8 significant digits): half a
/// unit of the 8th digit of a t of at least 1.96, relative.
const T_DIGITS: f64 = 0.5e-7 / 1.96;

/// How far a statistic of values read from the files may lie from the same statistic of the
/// values the simulator held, when each value read is within `per_value` of its original: the
/// mean, percentiles and extremes move by at most `per_value`, the standard deviation by at
/// most `per_value x sqrt(n / (n - 1))` (the deviation of the errors themselves), the
/// confidence interval by `t x` that `/ sqrt(n)`. Each also gets 1e-12 of the largest value
/// for the order of f64 sums.
#[derive(Clone, Copy, Debug)]
struct Allowance {
    per_value: f64,
}

impl Allowance {
    const EXACT: Allowance = Allowance { per_value: 0.0 };

    /// Checks statistics object `json` (null for no value) against `values`.
    fn check(self, what: &str, json: &Value, values: &[f64]) {
        let Some(s) = stats(values) else {
            assert!(json.is_null(), "{what}: no value, but {json}");
            return;
        };
        assert!(!json.is_null(), "{what}: {} values, but null", s.n);
        assert_eq!(json["n"].as_u64(), Some(s.n as u64), "{what}: n");
        let scale = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let float = 1e-12 * scale;
        let d = self.per_value;
        let std_d = if s.n > 1 {
            d * (s.n as f64 / (s.n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let ci_d = if s.n > 1 {
            student_t_975(s.n as u64 - 1) * std_d / (s.n as f64).sqrt()
        } else {
            0.0
        };
        for (field, mine, allowed) in [
            ("mean", s.mean, d),
            ("std", s.std, std_d),
            ("ci95", s.ci95, ci_d + T_DIGITS * s.ci95),
            ("p50", s.p50, d),
            ("p90", s.p90, d),
            ("p99", s.p99, d),
            ("p999", s.p999, d),
            ("min", s.min, d),
            ("max", s.max, d),
        ] {
            close(
                &format!("{what}.{field}"),
                num(&json[field]),
                mine,
                allowed + float,
            );
        }
    }
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn close(what: &str, written: f64, recomputed: f64, allowed: f64) {
    assert!(
        (written - recomputed).abs() <= allowed,
        "{what}: written {written}, recomputed {recomputed} (allowed ±{allowed:e})"
    );
}

/// Jain's index `(sum x)^2 / (n sum x^2)`, 1 when all are 0; and how far it may move when each
/// value moves by `per_value` (to first order: the sum of the absolute partial derivatives).
fn jain(values: &[f64], per_value: f64) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let sum: f64 = values.iter().sum();
    let sum_sq: f64 = values.iter().map(|v| v * v).sum();
    if sum_sq == 0.0 {
        return Some((1.0, 0.0));
    }
    let index = sum * sum / (n * sum_sq);
    let slope: f64 = values
        .iter()
        .map(|x| (2.0 * sum / (n * sum_sq) * (1.0 - sum * x / sum_sq)).abs())
        .sum();
    Some((index, slope * per_value * 1.01 + 1e-12))
}

// ---------------------------------------------------------------------------------------------
// One run: its summary.json from its flows.csv, links.csv and timeseries.csv.

/// 1 ns in ms: the rounding of a time written in whole nanoseconds.
const NS_IN_MS: f64 = 1e-6;
/// Half a b/s in Mb/s: the rounding of a goodput written as a whole number of b/s.
const HALF_BPS_IN_MBPS: f64 = 0.5e-6;
/// Half the last of 6 decimals (`slowdown`).
const SIX_DECIMALS: f64 = 0.5e-6;
/// Half the last of 4 decimals (`utilisation_pct`, `loss_rate_pct`).
const FOUR_DECIMALS: f64 = 0.5e-4;

fn check_run(run: &RunDir, known: &Known) {
    let name = run.name();
    let s = &run.summary;
    assert_eq!(s["point"].as_str(), Some(run.point.as_str()), "{name}");
    assert_eq!(s["point_index"].as_u64(), Some(run.point_index), "{name}");
    assert_eq!(s["seed"].as_u64(), Some(run.seed), "{name}");
    assert_eq!(s["window_start_ns"].as_u64(), Some(run.warmup_ns), "{name}");
    assert_eq!(
        s["window_end_ns"].as_u64(),
        Some(known.duration_ns),
        "{name}"
    );
    for row in run.flows.iter().chain(&run.links) {
        assert_eq!(row.str("point"), run.point, "{name}");
        assert_eq!(row.int("seed"), Some(run.seed), "{name}");
    }
    check_flow_rows(run, known);
    check_job_numbers(run, known);
    let classes = s["classes"].as_array().unwrap();
    let summary_classes: Vec<&str> = classes
        .iter()
        .map(|c| c["class"].as_str().unwrap())
        .collect();
    assert_eq!(
        summary_classes, known.classes,
        "{name}: classes in scenario order"
    );
    for f in &run.flows {
        assert!(
            known.classes.contains(&f.str("class")),
            "{name}: {}",
            f.str("class")
        );
    }
    for class in classes {
        check_class(run, known, class);
    }
    check_layers(run, known);
}

/// The flows.csv columns the summaries are built from, against their definitions.
fn check_flow_rows(run: &RunDir, known: &Known) {
    let name = run.name();
    let (w, t) = (run.warmup_ns, known.duration_ns);
    for (i, f) in run.flows.iter().enumerate() {
        let id = f.int("flow_id").unwrap();
        let what = format!("{name} flow {id}");
        assert_eq!(id, i as u64, "{what}: rows in flow id order");
        let long = is_long(f);
        let (start, end) = (f.int("start_ns"), f.int("end_ns"));
        // Completion: an end, never for a long flow; fct = end - start.
        assert_eq!(f.str("completed") == "true", end.is_some(), "{what}");
        if long {
            assert_eq!((end, f.int("ideal_fct_ns")), (None, None), "{what}");
        }
        // fct_ns: the FCT truncated to whole ns, `end_ns - start_ns` or, when the two times
        // fall between whole nanoseconds, 1 less.
        let fct = f.int("fct_ns");
        assert_eq!(fct.is_some(), end.is_some(), "{what}: fct_ns");
        if let (Some(fct), Some(end)) = (fct, end) {
            let span = end - start.unwrap();
            assert!(
                fct == span || fct + 1 == span,
                "{what}: fct_ns {fct}, end - start {span}"
            );
        }
        if let (Some(fct), Some(ideal)) = (fct, f.int("ideal_fct_ns")) {
            // `fct_ns / ideal_fct_ns` of the simulator's times, which the files round to 1 ns.
            let ratio = fct as f64 / ideal as f64;
            let allowed = SIX_DECIMALS + ratio * (1.0 / fct as f64 + 1.0 / ideal as f64);
            close(
                &format!("{what}: slowdown"),
                f.num("slowdown").unwrap(),
                ratio,
                allowed,
            );
        } else {
            assert_eq!(f.num("slowdown"), None, "{what}");
        }
        if f.str("completed") == "true" {
            assert_eq!(f.int("bytes_acked"), f.int("size_bytes"), "{what}");
        }
        // Flows arrive before T, but for job responses, which open when their request
        // completes, in the drain too.
        let arrival = f.int("arrival_ns").unwrap();
        let response = known
            .jobs
            .iter()
            .any(|j| j.0 == f.str("class") && f.int("size_bytes") == Some(j.2));
        assert!(arrival < t || response, "{what}: arrived at {arrival}");
        // Goodput: no value unless alive inside the window.
        let alive = start.map(|s| (s.max(w), end.map_or(t, |e| e.min(t))));
        let alive = alive.filter(|(from, to)| to > from);
        let goodput = f.num("goodput_bps");
        assert_eq!(goodput.is_some(), alive.is_some(), "{what}: goodput_bps");
        assert_eq!(
            f.num("subflow_goodput_bps").is_some(),
            alive.is_some(),
            "{what}"
        );
        assert_eq!(
            f.num("goodput_sent_bps").is_some(),
            long && alive.is_some(),
            "{what}: goodput_sent_bps, long flows only"
        );
        if SINGLE_PATH.contains(&f.str("transport")) {
            assert_eq!(f.str("subflow_goodput_bps"), f.str("goodput_bps"), "{what}");
        } else if let Some(g) = goodput {
            assert!(
                f.num("subflow_goodput_bps").unwrap() >= g,
                "{what}: never lower"
            );
        }
        // A flow that started at or after the warmup had sent nothing by `from` (its start):
        // goodput = 8 x acked(to) / (to - from), with acked(to) its size if it completed by T,
        // else the bytes timeseries.csv's `rate` samples up to T add up to.
        let Some((from, to)) = alive.filter(|_| start.unwrap() >= w) else {
            continue;
        };
        let acked = match end.filter(|&e| e <= t) {
            Some(_) => f.int("size_bytes").unwrap(),
            None => acked_by(run, known, id, t),
        };
        let recomputed = 8.0 * acked as f64 / ((to - from) as f64 * 1e-9);
        // The goodput rounded to 1 b/s, and `from` (and `to` when it is an end) to 1 ns.
        let allowed = 0.5 + recomputed * 2.0 / (to - from) as f64 + 1e-9 * recomputed;
        close(
            &format!("{what}: goodput_bps"),
            goodput.unwrap(),
            recomputed,
            allowed,
        );
    }
}

/// Whether flow `f` is a long (infinite) one: it has no size.
fn is_long(f: &Row) -> bool {
    f.int("size_bytes").is_none()
}

/// The bytes flow `id` had acknowledged in order by `t`, from its `rate` samples: each is 8 x
/// the bytes acknowledged in the interval ending at its time / the interval, rounded down (here
/// exact: the interval in ns divides 8 x 10^9). `t` must be a sample time at which the flow was
/// still sampled.
fn acked_by(run: &RunDir, known: &Known, id: u64, t: u64) -> u64 {
    let samples = &run.rates[&id];
    assert!(
        samples.iter().any(|&(at, _)| at == t),
        "flow {id} sampled at {t}"
    );
    let bps_sum: u64 = samples
        .iter()
        .filter(|&&(at, _)| at <= t)
        .map(|&(_, bps)| bps)
        .sum();
    let bits_e9 = u128::from(bps_sum) * u128::from(known.interval_ns);
    assert_eq!(bits_e9 % 8_000_000_000, 0, "flow {id}: whole bytes");
    (bits_e9 / 8_000_000_000) as u64
}

/// A class's entry of the run's summary.json from flows.csv.
fn check_class(run: &RunDir, known: &Known, json: &Value) {
    let class = json["class"].as_str().unwrap();
    let what = |field: &str| format!("{} {class}.{field}", run.name());
    let flows: Vec<&Row> = run
        .flows
        .iter()
        .filter(|f| f.str("class") == class)
        .collect();
    // Finite flows count when they arrived at or after the warmup.
    let finite: Vec<&Row> = flows
        .iter()
        .filter(|f| !is_long(f) && f.int("arrival_ns").unwrap() >= run.warmup_ns)
        .copied()
        .collect();
    let completed: Vec<&Row> = finite
        .iter()
        .filter(|f| f.str("completed") == "true")
        .copied()
        .collect();
    let count = |field: &str| json[field].as_u64().unwrap() as usize;
    assert_eq!(
        count("finite_flows"),
        finite.len(),
        "{}",
        what("finite_flows")
    );
    assert_eq!(count("completed"), completed.len(), "{}", what("completed"));
    assert_eq!(
        count("unfinished"),
        finite.len() - completed.len(),
        "{}",
        what("unfinished")
    );

    let fct_ms: Vec<f64> = completed
        .iter()
        .map(|f| f.int("fct_ns").unwrap() as f64 / 1e6)
        .collect();
    let allowance = Allowance {
        per_value: NS_IN_MS,
    };
    allowance.check(&what("fct_ms"), &json["fct_ms"], &fct_ms);
    let field = "fct_values_ms";
    check_values(&what(field), json.get(field), allowance, &fct_ms);
    let slowdown: Vec<f64> = completed.iter().filter_map(|f| f.num("slowdown")).collect();
    Allowance {
        per_value: SIX_DECIMALS,
    }
    .check(&what("slowdown"), &json["slowdown"], &slowdown);

    // Finite-flow goodput: 8 x size / fct, Mb/s. The FCT lies in [fct_ns, fct_ns + 1) ns, so
    // the goodput within goodput / fct_ns of the one fct_ns gives.
    let mut finite_goodput = Vec::new();
    let mut finite_goodput_d: f64 = 0.0;
    for f in &completed {
        let (size, fct) = (
            f.int("size_bytes").unwrap() as f64,
            f.int("fct_ns").unwrap() as f64,
        );
        let mbps = 8.0 * size / (fct * 1e-9) / 1e6;
        finite_goodput.push(mbps);
        finite_goodput_d = finite_goodput_d.max(mbps / fct);
    }
    let allowance = Allowance {
        per_value: finite_goodput_d,
    };
    allowance.check(
        &what("finite_goodput_mbps"),
        &json["finite_goodput_mbps"],
        &finite_goodput,
    );
    let field = "finite_goodput_values_mbps";
    check_values(&what(field), json.get(field), allowance, &finite_goodput);

    // Long flows alive inside the window: those with a goodput.
    let alive_long: Vec<&Row> = flows
        .iter()
        .filter(|f| is_long(f) && f.num("goodput_bps").is_some())
        .copied()
        .collect();
    assert_eq!(
        count("long_flows"),
        alive_long.len(),
        "{}",
        what("long_flows")
    );
    let mbps = |column: &str| -> Vec<f64> {
        alive_long
            .iter()
            .map(|f| f.num(column).unwrap() / 1e6)
            .collect()
    };
    let half_bps = Allowance {
        per_value: HALF_BPS_IN_MBPS,
    };
    for (column, stats_field, values_field) in [
        ("goodput_bps", "goodput_mbps", "goodput_values_mbps"),
        (
            "goodput_sent_bps",
            "goodput_paper_mbps",
            "goodput_paper_values_mbps",
        ),
        (
            "subflow_goodput_bps",
            "subflow_goodput_mbps",
            "subflow_goodput_values_mbps",
        ),
    ] {
        let values = mbps(column);
        half_bps.check(&what(stats_field), &json[stats_field], &values);
        check_values(
            &what(values_field),
            json.get(values_field),
            half_bps,
            &values,
        );
    }
    // Jain's index of goodputs all written 0 is exactly 1: a goodput of one byte in a window
    // under 16 s is above 0.5 b/s, so 0 is written only for 0.
    match jain(&mbps("goodput_bps"), HALF_BPS_IN_MBPS) {
        None => assert!(json["jain"].is_null(), "{}", what("jain")),
        Some((index, allowed)) => close(&what("jain"), num(&json["jain"]), index, allowed),
    }

    // Retransmissions: completed finite flows (measured ones) and long flows that started.
    let counted: Vec<&Row> = flows
        .iter()
        .filter(|f| is_long(f) && f.int("start_ns").is_some())
        .copied()
        .chain(completed.iter().copied())
        .collect();
    for field in ["retransmits", "fast_retransmits", "timeouts"] {
        let values: Vec<f64> = counted
            .iter()
            .map(|f| f.int(field).unwrap() as f64)
            .collect();
        Allowance::EXACT.check(&what(field), &json[field], &values);
    }

    // Crossing long flows: the long flows alive in the window with a row in crossings.csv.
    const CROSSING_FIELDS: [&str; 5] = [
        "crossing_long_flows",
        "crossing_goodput_mbps",
        "crossing_goodput_values_mbps",
        "crossing_subflow_goodput_mbps",
        "crossing_subflow_goodput_values_mbps",
    ];
    match &run.crossing_ids {
        None => {
            for field in CROSSING_FIELDS {
                assert!(
                    json.get(field).is_none(),
                    "{}: no watched link",
                    what(field)
                );
            }
        }
        Some(ids) => {
            let crossing: Vec<&Row> = alive_long
                .iter()
                .filter(|f| ids.contains(&f.int("flow_id").unwrap()))
                .copied()
                .collect();
            assert_eq!(
                count("crossing_long_flows"),
                crossing.len(),
                "{}",
                what("crossing_long_flows")
            );
            for (column, stats_field, values_field) in [
                (
                    "goodput_bps",
                    "crossing_goodput_mbps",
                    "crossing_goodput_values_mbps",
                ),
                (
                    "subflow_goodput_bps",
                    "crossing_subflow_goodput_mbps",
                    "crossing_subflow_goodput_values_mbps",
                ),
            ] {
                let values: Vec<f64> = crossing
                    .iter()
                    .map(|f| f.num(column).unwrap() / 1e6)
                    .collect();
                // Omitted, not null, when no long flow crossed.
                let stats = json.get(stats_field);
                assert_eq!(stats.is_none(), values.is_empty(), "{}", what(stats_field));
                if let Some(stats) = stats {
                    half_bps.check(&what(stats_field), stats, &values);
                }
                check_values(
                    &what(values_field),
                    json.get(values_field),
                    half_bps,
                    &values,
                );
            }
        }
    }

    check_jobs(run, known, json, &flows);
}

/// A `*_values_mbps` list (omitted when empty): the values in flow id order.
fn check_values(what: &str, list: Option<&Value>, allowance: Allowance, values: &[f64]) {
    let written: Vec<f64> = match list {
        None => Vec::new(),
        Some(list) => list.as_array().unwrap().iter().map(num).collect(),
    };
    assert!(
        list.is_none() || !written.is_empty(),
        "{what}: omitted when empty"
    );
    assert_eq!(written.len(), values.len(), "{what}");
    for (w, v) in written.iter().zip(values) {
        close(what, *w, *v, allowance.per_value + 1e-12 * v.abs());
    }
}

/// flows.csv `job` (docs/outputs.md): empty for the flows of classes without jobs; for the
/// others, numbers unique within the run (each job in one class), 0, 1, 2, ... in the order of
/// each job's first flow id.
fn check_job_numbers(run: &RunDir, known: &Known) {
    let name = run.name();
    let mut class_of: Vec<&str> = Vec::new();
    for f in &run.flows {
        let (class, id) = (f.str("class"), f.int("flow_id").unwrap());
        let is_job_class = known.jobs.iter().any(|j| j.0 == class);
        let Some(job) = f.int("job") else {
            assert!(
                !is_job_class,
                "{name} flow {id}: a {class} flow without a job"
            );
            continue;
        };
        assert!(
            is_job_class,
            "{name} flow {id}: a {class} flow with job {job}"
        );
        match class_of.get(job as usize) {
            Some(&first) => assert_eq!(first, class, "{name} flow {id}: job {job}'s class"),
            None => {
                assert_eq!(
                    job,
                    class_of.len() as u64,
                    "{name} flow {id}: job numbers in order"
                );
                class_of.push(class);
            }
        }
    }
}

/// The job metrics of `json` (a class's summary) from the class's flows, grouped into jobs by
/// flows.csv `job`. Each job has the shape docs/scenarios.md gives it: a request from its
/// client to each of `servers` distinct servers, opened at once, and a server's response
/// (server to client) opened at the instant its request completed (or failed, at an instant no
/// file gives). A job completed when all its flows, every request and every response, did.
fn check_jobs(run: &RunDir, known: &Known, json: &Value, flows: &[&Row]) {
    let class = json["class"].as_str().unwrap();
    let what = |field: &str| format!("{} {class}.{field}", run.name());
    let Some(&(_, request, response, servers)) = known.jobs.iter().find(|j| j.0 == class) else {
        assert_eq!(
            json["jobs_completed"].as_u64(),
            Some(0),
            "{}",
            what("jobs_completed")
        );
        assert_eq!(
            json["jobs_unfinished"].as_u64(),
            Some(0),
            "{}",
            what("jobs_unfinished")
        );
        assert!(json["jct_ms"].is_null(), "{}", what("jct_ms"));
        assert!(
            json.get("jct_values_ms").is_none(),
            "{}",
            what("jct_values_ms")
        );
        return;
    };
    let mut jobs: BTreeMap<u64, Vec<&Row>> = BTreeMap::new();
    for &f in flows {
        jobs.entry(f.int("job").unwrap()).or_default().push(f);
    }
    let (mut unfinished, mut jct_ms) = (0, Vec::new());
    for (job, rows) in &jobs {
        let what_job = format!("{} job {job}", what("jobs"));
        let (requests, responses): (Vec<&Row>, Vec<&Row>) = rows
            .iter()
            .partition(|f| f.int("size_bytes") == Some(request));
        assert!(
            responses
                .iter()
                .all(|f| f.int("size_bytes") == Some(response)),
            "{what_job}"
        );
        let client = requests[0].str("src");
        let start = requests[0].int("arrival_ns").unwrap();
        let mut server_names: Vec<&str> = requests.iter().map(|q| q.str("dst")).collect();
        server_names.sort_unstable();
        server_names.dedup();
        assert_eq!(server_names.len(), servers, "{what_job}: servers");
        assert_eq!(requests.len(), servers, "{what_job}: one request each");
        assert!(!server_names.contains(&client), "{what_job}: client");
        for q in &requests {
            assert_eq!(
                (q.str("src"), q.int("arrival_ns")),
                (client, Some(start)),
                "{what_job}: requests at once"
            );
            // The response to a request that completed opened at its end; one that did not
            // complete may have a response (it failed) or not (still open at the end).
            let answers: Vec<&&Row> = responses
                .iter()
                .filter(|r| r.str("src") == q.str("dst"))
                .collect();
            assert!(answers.len() <= 1, "{what_job}: one response per server");
            for r in &answers {
                assert_eq!(r.str("dst"), client, "{what_job}: response to the client");
            }
            if let Some(end) = q.int("end_ns") {
                assert_eq!(answers.len(), 1, "{what_job}: no response at {end}");
                assert_eq!(answers[0].int("arrival_ns"), Some(end), "{what_job}");
            }
        }
        assert!(
            responses
                .iter()
                .all(|r| server_names.contains(&r.str("src"))),
            "{what_job}: responses from its servers"
        );
        // Jobs that started in the warmup are not measured.
        if start < run.warmup_ns {
            continue;
        }
        // The job completed when every flow did (with every request completed, each has its
        // response among the rows, checked above).
        if rows.iter().all(|f| f.str("completed") == "true") {
            let end = rows.iter().map(|f| f.int("end_ns").unwrap()).max().unwrap();
            jct_ms.push((end - start) as f64 / 1e6);
        } else {
            unfinished += 1;
        }
    }
    let jobs_completed = json["jobs_completed"].as_u64();
    assert_eq!(
        jobs_completed,
        Some(jct_ms.len() as u64),
        "{}",
        what("jobs_completed")
    );
    let jobs_unfinished = json["jobs_unfinished"].as_u64();
    assert_eq!(
        jobs_unfinished,
        Some(unfinished),
        "{}",
        what("jobs_unfinished")
    );
    let allowance = Allowance {
        per_value: NS_IN_MS,
    };
    allowance.check(&what("jct_ms"), &json["jct_ms"], &jct_ms);
    let field = "jct_values_ms";
    check_values(&what(field), json.get(field), allowance, &jct_ms);
}

/// The layers of the run's summary.json from links.csv.
fn check_layers(run: &RunDir, known: &Known) {
    let name = run.name();
    for l in &run.links {
        assert!(
            FATTREE_LAYERS.contains(&l.str("layer")),
            "{name}: {}",
            l.str("layer")
        );
        // loss_rate_pct = 100 x dropped / (enqueued + dropped), 0 when nothing arrived.
        let (enq, drop) = (
            l.int("packets_enqueued").unwrap(),
            l.int("packets_dropped").unwrap(),
        );
        let loss = if enq + drop > 0 {
            100.0 * drop as f64 / (enq + drop) as f64
        } else {
            0.0
        };
        close(
            &format!("{name} {}: loss_rate_pct", l.str("link")),
            l.num("loss_rate_pct").unwrap(),
            loss,
            FOUR_DECIMALS + 1e-12,
        );
    }
    let layers = run.summary["layers"].as_array().unwrap();
    let names: Vec<&str> = layers
        .iter()
        .map(|l| l["layer"].as_str().unwrap())
        .collect();
    assert_eq!(
        names, FATTREE_LAYERS,
        "{name}: layers in the topology's layer order"
    );
    let window_s = (known.duration_ns - run.warmup_ns) as f64 * 1e-9;
    assert!(window_s < 1.0, "the paper's figures are one interval");
    for json in layers {
        let layer = json["layer"].as_str().unwrap();
        let what = |field: &str| format!("{name} layer {layer}.{field}");
        let links: Vec<&Row> = run
            .links
            .iter()
            .filter(|l| l.str("layer") == layer)
            .collect();
        assert_eq!(
            json["links"].as_u64(),
            Some(links.len() as u64),
            "{}",
            what("links")
        );
        let mean = |values: Vec<f64>| values.iter().sum::<f64>() / values.len() as f64;
        let util = mean(
            links
                .iter()
                .map(|l| l.num("utilisation_pct").unwrap())
                .collect(),
        );
        let loss = mean(
            links
                .iter()
                .map(|l| l.num("loss_rate_pct").unwrap())
                .collect(),
        );
        close(
            &what("utilisation_pct"),
            num(&json["utilisation_pct"]),
            util,
            FOUR_DECIMALS + 1e-12 * util,
        );
        close(
            &what("loss_pct"),
            num(&json["loss_pct"]),
            loss,
            FOUR_DECIMALS + 1e-12 * loss,
        );
        // The paper's: one interval, the window, so per link U and L from its window counters.
        let (mut u, mut l) = (Vec::new(), Vec::new());
        for link in &links {
            let enq = link.int("bytes_enqueued").unwrap() as f64;
            let drop = link.int("bytes_dropped").unwrap() as f64;
            let rate = link.int("rate_bps").unwrap() as f64;
            u.push(100.0 * 8.0 * enq / (rate * window_s));
            l.push(if enq + drop > 0.0 {
                100.0 * drop / (enq + drop)
            } else {
                0.0
            });
        }
        let (u, l) = (mean(u), mean(l));
        close(
            &what("paper_utilisation_pct"),
            num(&json["paper_utilisation_pct"]),
            u,
            1e-12 * u,
        );
        close(
            &what("paper_loss_pct"),
            num(&json["paper_loss_pct"]),
            l,
            1e-12 * l,
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Over seeds: summary.csv and summary.json from the runs' summary.json.

/// One recomputed row of summary.csv.
#[derive(Debug)]
struct Expected {
    point: String,
    class: String,
    metric: &'static str,
    unit: &'static str,
    stats: Stats,
    /// The largest value, for the f64 allowance.
    scale: f64,
}

/// A metric of a flow class (docs/outputs.md, in its order): its unit and its per-run values
/// from a class's entry of a run's summary.json.
type ClassMetric = (&'static str, &'static str, fn(&Value) -> Vec<f64>);

fn field(c: &Value, name: &str) -> Vec<f64> {
    c.get(name)
        .filter(|v| !v.is_null())
        .map(num)
        .into_iter()
        .collect()
}
fn stat(c: &Value, name: &str, s: &str) -> Vec<f64> {
    c.get(name)
        .filter(|v| !v.is_null())
        .map(|v| num(&v[s]))
        .into_iter()
        .collect()
}
fn list(c: &Value, name: &str) -> Vec<f64> {
    c.get(name).map_or(Vec::new(), |v| {
        v.as_array().unwrap().iter().map(num).collect()
    })
}

const CLASS_METRICS: &[ClassMetric] = &[
    ("finite_flows", "flows", |c| field(c, "finite_flows")),
    ("completed", "flows", |c| field(c, "completed")),
    ("unfinished", "flows", |c| field(c, "unfinished")),
    ("fct_mean", "ms", |c| stat(c, "fct_ms", "mean")),
    ("fct_std", "ms", |c| stat(c, "fct_ms", "std")),
    ("fct_p50", "ms", |c| stat(c, "fct_ms", "p50")),
    ("fct_p90", "ms", |c| stat(c, "fct_ms", "p90")),
    ("fct_p99", "ms", |c| stat(c, "fct_ms", "p99")),
    ("fct_p999", "ms", |c| stat(c, "fct_ms", "p999")),
    ("fct_pooled", "ms", |c| list(c, "fct_values_ms")),
    ("slowdown_mean", "1", |c| stat(c, "slowdown", "mean")),
    ("slowdown_p50", "1", |c| stat(c, "slowdown", "p50")),
    ("slowdown_p99", "1", |c| stat(c, "slowdown", "p99")),
    ("finite_goodput_mean", "Mbps", |c| {
        stat(c, "finite_goodput_mbps", "mean")
    }),
    ("finite_goodput_std", "Mbps", |c| {
        stat(c, "finite_goodput_mbps", "std")
    }),
    ("finite_goodput_pooled", "Mbps", |c| {
        list(c, "finite_goodput_values_mbps")
    }),
    ("long_flows", "flows", |c| field(c, "long_flows")),
    ("goodput_mean", "Mbps", |c| stat(c, "goodput_mbps", "mean")),
    ("goodput_std", "Mbps", |c| stat(c, "goodput_mbps", "std")),
    ("goodput_pooled", "Mbps", |c| list(c, "goodput_values_mbps")),
    ("goodput_paper_mean", "Mbps", |c| {
        stat(c, "goodput_paper_mbps", "mean")
    }),
    ("goodput_paper_std", "Mbps", |c| {
        stat(c, "goodput_paper_mbps", "std")
    }),
    ("goodput_paper_pooled", "Mbps", |c| {
        list(c, "goodput_paper_values_mbps")
    }),
    ("subflow_goodput_mean", "Mbps", |c| {
        stat(c, "subflow_goodput_mbps", "mean")
    }),
    ("subflow_goodput_std", "Mbps", |c| {
        stat(c, "subflow_goodput_mbps", "std")
    }),
    ("subflow_goodput_pooled", "Mbps", |c| {
        list(c, "subflow_goodput_values_mbps")
    }),
    ("jain", "1", |c| field(c, "jain")),
    ("crossing_long_flows", "flows", |c| {
        field(c, "crossing_long_flows")
    }),
    ("crossing_goodput_mean", "Mbps", |c| {
        stat(c, "crossing_goodput_mbps", "mean")
    }),
    ("crossing_goodput_std", "Mbps", |c| {
        stat(c, "crossing_goodput_mbps", "std")
    }),
    ("crossing_goodput_pooled", "Mbps", |c| {
        list(c, "crossing_goodput_values_mbps")
    }),
    ("crossing_subflow_goodput_mean", "Mbps", |c| {
        stat(c, "crossing_subflow_goodput_mbps", "mean")
    }),
    ("crossing_subflow_goodput_std", "Mbps", |c| {
        stat(c, "crossing_subflow_goodput_mbps", "std")
    }),
    ("crossing_subflow_goodput_pooled", "Mbps", |c| {
        list(c, "crossing_subflow_goodput_values_mbps")
    }),
    ("retransmits_mean", "packets", |c| {
        stat(c, "retransmits", "mean")
    }),
    ("fast_retransmits_mean", "recoveries", |c| {
        stat(c, "fast_retransmits", "mean")
    }),
    ("timeouts_mean", "timeouts", |c| stat(c, "timeouts", "mean")),
    ("timeouts_p99", "timeouts", |c| stat(c, "timeouts", "p99")),
    ("jobs_completed", "jobs", |c| field(c, "jobs_completed")),
    ("jobs_unfinished", "jobs", |c| field(c, "jobs_unfinished")),
    ("jct_mean", "ms", |c| stat(c, "jct_ms", "mean")),
    ("jct_std", "ms", |c| stat(c, "jct_ms", "std")),
    ("jct_p50", "ms", |c| stat(c, "jct_ms", "p50")),
    ("jct_p90", "ms", |c| stat(c, "jct_ms", "p90")),
    ("jct_p99", "ms", |c| stat(c, "jct_ms", "p99")),
    ("jct_p999", "ms", |c| stat(c, "jct_ms", "p999")),
    ("jct_pooled", "ms", |c| list(c, "jct_values_ms")),
];

/// What a count needs in some seed of a point for the point to have its row (docs/outputs.md:
/// a count of what a class does not have has no row); `None` for a metric that needs only a
/// value in some seed.
fn counted_thing(metric: &str) -> Option<fn(&Value) -> bool> {
    match metric {
        "finite_flows" | "completed" | "unfinished" => {
            Some(|c| c["finite_flows"].as_u64() > Some(0))
        }
        "long_flows" => Some(|c| c["long_flows"].as_u64() > Some(0)),
        "jobs_completed" | "jobs_unfinished" => Some(|c| {
            c["jobs_completed"].as_u64().unwrap() + c["jobs_unfinished"].as_u64().unwrap() > 0
        }),
        _ => None,
    }
}

/// The rows of summary.csv recomputed from the runs' summary.json, in order: points in run-list
/// order, then flow classes, layers and `run`, then metrics in the doc's order.
fn expected_rows(runs: &[RunDir], known: &Known) -> Vec<Expected> {
    let mut rows = Vec::new();
    for &(point, _) in known.points {
        let seeds: Vec<&Value> = runs
            .iter()
            .filter(|r| r.point == *point)
            .map(|r| &r.summary)
            .collect();
        let mut push = |class: &str, metric: &'static str, unit: &'static str, values: Vec<f64>| {
            if let Some(stats) = stats(&values) {
                let scale = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                rows.push(Expected {
                    point: point.to_string(),
                    class: class.to_string(),
                    metric,
                    unit,
                    stats,
                    scale,
                });
            }
        };
        for (i, class) in known.classes.iter().enumerate() {
            for &(metric, unit, per_run) in CLASS_METRICS {
                let entries: Vec<&Value> = seeds.iter().map(|s| &s["classes"][i]).collect();
                if let Some(has) = counted_thing(metric) {
                    if !entries.iter().any(|c| has(c)) {
                        continue;
                    }
                }
                push(
                    class,
                    metric,
                    unit,
                    entries.iter().flat_map(|c| per_run(c)).collect(),
                );
            }
        }
        for (i, layer) in FATTREE_LAYERS.iter().enumerate() {
            for (metric, name) in [
                ("utilisation", "utilisation_pct"),
                ("loss_rate", "loss_pct"),
                ("utilisation_paper", "paper_utilisation_pct"),
                ("loss_rate_paper", "paper_loss_pct"),
            ] {
                let values = seeds
                    .iter()
                    .flat_map(|s| field(&s["layers"][i], name))
                    .collect();
                push(&format!("layer:{layer}"), metric, "%", values);
            }
        }
        for (metric, unit) in [
            ("events", "events"),
            ("data_packets_delivered", "packets"),
            ("peak_packets_in_flight", "packets"),
        ] {
            push(
                "run",
                metric,
                unit,
                seeds
                    .iter()
                    .flat_map(|s| field(&s["cost"], metric))
                    .collect(),
            );
        }
    }
    rows
}

/// A JSON object's entries in the file's order (serde_json's `Value` sorts them).
struct Entries<T>(Vec<(String, T)>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Entries<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for InOrder<T> {
            type Value = Entries<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<T>, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(InOrder(PhantomData))
    }
}

/// summary.csv and summary.json over seeds: the same rows, in order, as recomputed.
fn check_over_seeds(out: &Path, runs: &[RunDir], known: &Known) {
    let expected = expected_rows(runs, known);
    let keys: Vec<[&str; 3]> = expected
        .iter()
        .map(|e| [e.point.as_str(), &e.class, e.metric])
        .collect();
    let csv = read_csv(&out.join("summary.csv"));
    let csv_keys: Vec<[&str; 3]> = csv
        .iter()
        .map(|r| [r.str("point"), r.str("class"), r.str("metric")])
        .collect();
    assert_eq!(csv_keys, keys, "summary.csv's rows");
    let text = std::fs::read_to_string(out.join("summary.json")).unwrap();
    let json: Entries<Entries<Entries<Value>>> = serde_json::from_str(&text).unwrap();
    let leaves: Vec<([&str; 3], &Value)> = json
        .0
        .iter()
        .flat_map(|(point, classes)| {
            classes.0.iter().flat_map(move |(class, metrics)| {
                metrics
                    .0
                    .iter()
                    .map(move |(metric, leaf)| ([point.as_str(), class, metric], leaf))
            })
        })
        .collect();
    let json_keys: Vec<[&str; 3]> = leaves.iter().map(|l| l.0).collect();
    assert_eq!(json_keys, keys, "summary.json's leaves");
    for ((row, (_, leaf)), e) in csv.iter().zip(&leaves).zip(&expected) {
        let what = format!("{} {} {}", e.point, e.class, e.metric);
        assert_eq!(row.str("unit"), e.unit, "{what}: unit");
        assert_eq!(leaf["unit"].as_str(), Some(e.unit), "{what}: unit");
        assert_eq!(row.int("n"), Some(e.stats.n as u64), "{what}: n");
        assert_eq!(leaf["n"].as_u64(), Some(e.stats.n as u64), "{what}: n");
        let s = &e.stats;
        let float = 1e-12 * e.scale;
        for (name, value, allowed) in [
            ("mean", s.mean, float),
            ("std", s.std, float),
            ("ci95", s.ci95, float + T_DIGITS * s.ci95),
            ("p50", s.p50, float),
            ("p99", s.p99, float),
            ("min", s.min, float),
            ("max", s.max, float),
        ] {
            let written = row.num(name).unwrap();
            close(
                &format!("summary.csv {what} {name}"),
                written,
                value,
                allowed,
            );
            let written = num(&leaf[name]);
            close(
                &format!("summary.json {what} {name}"),
                written,
                value,
                allowed,
            );
        }
    }
}
