//! The per-run summary, `DIR/runs/<point>/seed-<n>/summary.json`: per flow class FCT, slowdown
//! and goodput statistics, per layer utilisation and loss (standard and the MMPTCP paper's
//! definitions), and the run's cost. Every field is defined in `docs/outputs.md`.
//!
//! `htsim report` rebuilds every cross-seed summary from these files alone, so they carry the
//! point's name and position in the run list as well as the seed.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::{io_error, write_file, ReportError, Result};
use super::stats::Summary;
use crate::output::{RUNS_DIR, RUN_SUMMARY_FILE};

/// Everything measured in one run (one sweep point, one seed).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// The sweep point's name: `base`, or `key=value` pairs joined by `,`.
    pub point: String,
    /// The point's position in the run list (0-based), which orders points in reports.
    pub point_index: u64,
    /// The run's seed.
    pub seed: u64,
    /// Start of the measurement window (the warmup), ns of simulated time.
    pub window_start_ns: u64,
    /// End of the measurement window (T, the end of the measured duration), ns.
    pub window_end_ns: u64,
    /// One entry per flow class, in scenario order.
    pub classes: Vec<ClassSummary>,
    /// One entry per egress layer of the topology, in the topology's order.
    pub layers: Vec<LayerSummary>,
    /// What the run cost to simulate.
    pub cost: RunCost,
    /// The run's result files (its CSVs) as [`crate::output::write_run`] wrote them, each
    /// with its size:
    /// the run is complete only while every one is there with that size
    /// ([`crate::output::read_complete_run`]). Empty, and left out of the JSON, in summaries
    /// written before htsim recorded it: such a summary counts on its own, as it did then.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<WrittenFile>,
}

/// A file of a run's directory as it was written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrittenFile {
    /// Its name in the run's directory (`flows.csv`).
    pub name: String,
    /// Its size, bytes.
    pub bytes: u64,
}

/// Flow metrics of one flow class in one run (docs/model.md 9.6).
///
/// Finite flows count when they arrived inside the measurement window; long flows over the part
/// of their life inside it. Statistics are `None` when no flow contributes a value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassSummary {
    /// The class's name (`[[flows]] name`).
    pub class: String,
    /// Measured flows of finite size.
    pub finite_flows: u64,
    /// Of those, flows that completed.
    pub completed: u64,
    /// Of those, flows not completed by the end of the run (drain included).
    pub unfinished: u64,
    /// Flow completion time of completed flows, ms (9.6: from subflow 0's SYN-ACK).
    pub fct_ms: Option<Summary>,
    /// The FCT of every completed flow (the sample `fct_ms` summarises), in flow id order, ms:
    /// reports pool them over the seeds of a sweep point (summary.csv `fct_pooled`, as \[P0\]
    /// takes its FCT statistics over every flow of every run). Absent from summaries written
    /// before it existed, and when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fct_values_ms: Vec<f64>,
    /// Slowdown of completed flows: FCT / ideal FCT (dimensionless; the ideal bounds a flow on
    /// one path sent in full segments, so values below 1 come from multipath flows, or,
    /// slightly, from a last segment cut by the window: docs/outputs.md).
    pub slowdown: Option<Summary>,
    /// Finite-flow goodput of completed flows: each flow's average rate over its life, 8 x its
    /// size / its FCT ([`crate::report::metrics::finite_goodput_bps`]), Mb/s. Absent from
    /// summaries written before it existed.
    #[serde(default)]
    pub finite_goodput_mbps: Option<Summary>,
    /// The finite-flow goodput of every completed flow (the sample `finite_goodput_mbps`
    /// summarises), in flow id order, Mb/s: reports pool them over the seeds of a sweep point
    /// (summary.csv `finite_goodput_pooled`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finite_goodput_values_mbps: Vec<f64>,
    /// Long (infinite) flows alive inside the measurement window (started before its end):
    /// the flows `goodput_mbps` is over.
    pub long_flows: u64,
    /// Long-flow goodput: 8 x application bytes acknowledged in order / time alive, both inside
    /// the window ([`crate::report::metrics::goodput_bps`]), Mb/s (10^6 b/s).
    pub goodput_mbps: Option<Summary>,
    /// The goodput of every long flow (the sample `goodput_mbps` summarises), in flow id order,
    /// Mb/s: reports pool them over the seeds of a sweep point (summary.csv `goodput_pooled`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub goodput_values_mbps: Vec<f64>,
    /// The MMPTCP paper's long-flow goodput: 8 x distinct bytes *sent* (delivered or not) /
    /// the same time, Mb/s.
    pub goodput_paper_mbps: Option<Summary>,
    /// The paper goodput of every long flow, in flow id order, Mb/s (summary.csv
    /// `goodput_paper_pooled`: the paper's statistics are over all long flows of all runs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub goodput_paper_values_mbps: Vec<f64>,
    /// Subflow-level long-flow goodput: 8 x data bytes cumulatively acknowledged at the subflow
    /// level, summed over subflows / the same time ([`crate::report::metrics::GoodputCount`]),
    /// Mb/s: htsim's throughput, which a hole in the data sequence does not stall. Absent from
    /// summaries written before it existed.
    #[serde(default)]
    pub subflow_goodput_mbps: Option<Summary>,
    /// The subflow-level goodput of every long flow, in flow id order, Mb/s (summary.csv
    /// `subflow_goodput_pooled`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subflow_goodput_values_mbps: Vec<f64>,
    /// Jain's fairness index of the long flows' goodput (`goodput_values_mbps`).
    pub jain: Option<f64>,
    /// Of the `long_flows`, those with a data packet that arrived at a watched link
    /// (`[output] crossings`) inside the window; `None` when no link is watched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crossing_long_flows: Option<u64>,
    /// Their goodput (as `goodput_mbps`), Mb/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crossing_goodput_mbps: Option<Summary>,
    /// The goodput of every one of them, in flow id order, Mb/s (summary.csv
    /// `crossing_goodput_pooled`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crossing_goodput_values_mbps: Vec<f64>,
    /// Their subflow-level goodput (as `subflow_goodput_mbps`), Mb/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crossing_subflow_goodput_mbps: Option<Summary>,
    /// The subflow-level goodput of every one of them, in flow id order, Mb/s (summary.csv
    /// `crossing_subflow_goodput_pooled`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crossing_subflow_goodput_values_mbps: Vec<f64>,
    /// Retransmitted data packets per flow (completed finite flows and long flows), packets.
    pub retransmits: Option<Summary>,
    /// Fast-recovery entries per flow (2.12), recoveries.
    pub fast_retransmits: Option<Summary>,
    /// Data RTO expiries per flow (2.12), timeouts.
    pub timeouts: Option<Summary>,
    /// Partition/aggregate jobs that started in the window and whose flows all completed.
    pub jobs_completed: u64,
    /// Jobs that started in the window with at least one flow not completed (the run ended
    /// first, or a flow failed).
    pub jobs_unfinished: u64,
    /// Job completion time of completed jobs: from the job's start (its requests open, the
    /// first flow's arrival) to the completion of its last flow (the last response), ms.
    pub jct_ms: Option<Summary>,
    /// The completion time of every completed job (the sample `jct_ms` summarises), in job
    /// number order, ms: reports pool them over the seeds of a sweep point (summary.csv
    /// `jct_pooled`). Absent from summaries written before it existed, and when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jct_values_ms: Vec<f64>,
}

impl ClassSummary {
    /// The first per-flow (or per-job) list that does not hold the sample its statistics
    /// summarise, by its summary.json name: a summary written by an htsim from before the list
    /// existed, whose flows could not enter the pooled rows of summary.csv. `None` when every
    /// list is whole.
    pub fn missing_sample(&self) -> Option<&'static str> {
        let whole = |stats: Option<Summary>, values: &[f64]| {
            let finite = values.iter().filter(|v| v.is_finite()).count() as u64;
            stats.map_or(0, |s| s.n) == finite
        };
        [
            ("fct_values_ms", self.fct_ms, &self.fct_values_ms),
            (
                "finite_goodput_values_mbps",
                self.finite_goodput_mbps,
                &self.finite_goodput_values_mbps,
            ),
            (
                "goodput_values_mbps",
                self.goodput_mbps,
                &self.goodput_values_mbps,
            ),
            (
                "goodput_paper_values_mbps",
                self.goodput_paper_mbps,
                &self.goodput_paper_values_mbps,
            ),
            (
                "subflow_goodput_values_mbps",
                self.subflow_goodput_mbps,
                &self.subflow_goodput_values_mbps,
            ),
            (
                "crossing_goodput_values_mbps",
                self.crossing_goodput_mbps,
                &self.crossing_goodput_values_mbps,
            ),
            (
                "crossing_subflow_goodput_values_mbps",
                self.crossing_subflow_goodput_mbps,
                &self.crossing_subflow_goodput_values_mbps,
            ),
            ("jct_values_ms", self.jct_ms, &self.jct_values_ms),
        ]
        .into_iter()
        .find(|(_, stats, values)| !whole(*stats, values))
        .map(|(name, _, _)| name)
    }
}

/// Utilisation and loss of one egress layer in one run (docs/model.md 9.6 and 10 #16-17).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LayerSummary {
    /// The layer's name (`host`, `tor`, `agg`, `core`, ...): links whose transmitting node is in
    /// it, i.e. its egress ports.
    pub layer: String,
    /// Links in the layer.
    pub links: u64,
    /// Standard utilisation: per link 100 x time spent serialising packets in the window / the
    /// window's length (links.csv `utilisation_pct`), averaged over the layer's links, %.
    pub utilisation_pct: Option<f64>,
    /// Standard loss rate: per link 100 x packets dropped / packets arrived (0 when none
    /// arrived), averaged over the layer's links, %.
    pub loss_pct: Option<f64>,
    /// The paper's utilisation: mean over (second, port) of 100 x 8 x bytes accepted / rate, %.
    pub paper_utilisation_pct: Option<f64>,
    /// The paper's loss rate: mean over (second, port) of 100 x bytes dropped / (accepted +
    /// dropped), 0 when idle, %.
    pub paper_loss_pct: Option<f64>,
}

/// What a run cost to simulate. Wall-clock figures differ between machines and runs; they are
/// kept in the per-run file only, never in the cross-seed summaries (which are byte-identical
/// across runs and job counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunCost {
    /// Events processed.
    pub events: u64,
    /// Wall-clock time of the run, s.
    pub wall_seconds: f64,
    /// Events per wall-clock second.
    pub events_per_second: f64,
    /// Data packets delivered to their destination.
    pub data_packets_delivered: u64,
    /// Data packets delivered per wall-clock second.
    pub data_packets_per_second: f64,
    /// Largest number of packets in the network at once.
    pub peak_packets_in_flight: u64,
}

impl RunCost {
    /// The cost of a run from its counts and wall-clock time (s); rates are 0 when the wall
    /// time is 0 or not finite.
    pub fn new(
        events: u64,
        data_packets_delivered: u64,
        peak_packets_in_flight: u64,
        wall_seconds: f64,
    ) -> Self {
        let per_second = |count: u64| {
            if wall_seconds.is_finite() && wall_seconds > 0.0 {
                count as f64 / wall_seconds
            } else {
                0.0
            }
        };
        RunCost {
            events,
            wall_seconds: if wall_seconds.is_finite() {
                wall_seconds
            } else {
                0.0
            },
            events_per_second: per_second(events),
            data_packets_delivered,
            data_packets_per_second: per_second(data_packets_delivered),
            peak_packets_in_flight,
        }
    }
}

impl RunSummary {
    /// The summary as the text of summary.json: pretty JSON ending with a newline.
    pub fn to_json(&self) -> String {
        // Plain data with string keys and finite-or-null numbers always serialises.
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Writes [`RunSummary::to_json`] to `run_dir/summary.json`, atomically.
    pub fn write(&self, run_dir: &Path) -> Result<()> {
        write_file(&run_dir.join(RUN_SUMMARY_FILE), self.to_json().as_bytes())
    }

    /// Reads a summary written by [`RunSummary::write`].
    pub fn read(path: &Path) -> Result<Self> {
        let text = crate::output::read_regular_text(path).map_err(io_error(path))?;
        serde_json::from_str(&text).map_err(|source| ReportError::Json {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// The run summaries found under `DIR/runs/*/seed-*/summary.json` of each directory, for
/// `htsim report DIR...` (shard directories are merged by passing them all). Incomplete runs
/// ([`crate::output::read_complete_run`]: summary.json missing or not a summary, a file it
/// lists lost or of another size) are left out.
///
/// Sorted by (point index, point, seed). When the same (point, seed) appears in several
/// directories (overlapping shards, or a re-run), the first directory in `dirs` wins. A
/// directory without `runs/` contributes nothing.
pub fn read_run_summaries(dirs: &[PathBuf]) -> Result<Vec<RunSummary>> {
    let mut runs: Vec<RunSummary> = Vec::new();
    let mut seen: HashSet<(String, u64)> = HashSet::new();
    for dir in dirs {
        let runs_dir = dir.join(RUNS_DIR);
        if !runs_dir.is_dir() {
            continue;
        }
        for point_dir in sorted_subdirs(&runs_dir)? {
            for seed_dir in sorted_subdirs(&point_dir)? {
                let Ok(run) = crate::output::read_complete_run(&seed_dir) else {
                    continue;
                };
                if seen.insert((run.point.clone(), run.seed)) {
                    runs.push(run);
                }
            }
        }
    }
    sort_runs(&mut runs);
    Ok(runs)
}

/// Sorts runs into report order: by (point index, point, seed).
pub fn sort_runs(runs: &mut [RunSummary]) {
    runs.sort_by(|a, b| (a.point_index, &a.point, a.seed).cmp(&(b.point_index, &b.point, b.seed)));
}

impl RunSummary {
    /// The run's directory (`runs/<point>/seed-<n>`) in the first of `dirs` where it is
    /// complete: the copy [`read_run_summaries`] reads, and so the one whose other files
    /// (flows.csv, timeseries.csv, run.json) go with it, never an interrupted copy's.
    pub fn home(&self, dirs: &[PathBuf]) -> Option<PathBuf> {
        dirs.iter()
            .map(|d| crate::output::run_dir(d, &self.point, self.seed))
            .find(|run| crate::output::is_complete(run))
    }
}

/// The subdirectories of `dir`, sorted by name (so the result does not depend on the file
/// system's order).
fn sorted_subdirs(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_error(dir))? {
        let path = entry.map_err(io_error(dir))?.path();
        if path.is_dir() {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_misses_a_sample_whose_list_lacks_values_its_statistics_count() {
        let whole = ClassSummary {
            fct_ms: Summary::of(&[1.0, 2.0]),
            fct_values_ms: vec![1.0, 2.0],
            // A non-finite goodput is in the list but in no statistic.
            goodput_mbps: Summary::of(&[5.0]),
            goodput_values_mbps: vec![5.0, f64::INFINITY],
            jct_ms: Summary::of(&[3.0]),
            jct_values_ms: vec![3.0],
            ..ClassSummary::default()
        };
        assert_eq!(whole.missing_sample(), None);
        assert_eq!(ClassSummary::default().missing_sample(), None);
        let old_jobs = ClassSummary {
            jct_values_ms: Vec::new(),
            ..whole.clone()
        };
        assert_eq!(old_jobs.missing_sample(), Some("jct_values_ms"));
        let old_goodput = ClassSummary {
            goodput_values_mbps: Vec::new(),
            ..whole.clone()
        };
        assert_eq!(old_goodput.missing_sample(), Some("goodput_values_mbps"));
        let crossing = ClassSummary {
            crossing_subflow_goodput_mbps: Summary::of(&[7.0]),
            ..whole
        };
        assert_eq!(
            crossing.missing_sample(),
            Some("crossing_subflow_goodput_values_mbps")
        );
    }
}
