//! Per-flow values read back from the runs' flows.csv files (columns of docs/outputs.md),
//! pooled over seeds per (sweep point, flow class), for the distribution plots (FCT CDF, ranked
//! throughput) that `htsim report` redraws from run files alone.

use std::path::{Path, PathBuf};

use super::error::{ReportError, Result};
use super::run_summary::{read_run_summaries, RunSummary};
use crate::identity::RunIdentity;
use crate::output::{run_dir, FLOWS_FILE, RUN_FILE};

/// The pooled per-flow values of one flow class at one sweep point.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowSamples {
    /// The sweep point's name.
    pub point: String,
    /// The flow class's name.
    pub class: String,
    /// FCTs of completed finite flows (non-empty `fct_ns`) that arrived inside the measurement
    /// window (`arrival_ns` at or after the run's `window_start_ns`, as the summaries count
    /// them; every completed flow of a flows.csv written before `arrival_ns` existed), ms.
    pub fct_ms: Vec<f64>,
    /// Goodput of long flows (empty `size_bytes`, non-empty `goodput_bps`), Mb/s.
    pub goodput_mbps: Vec<f64>,
}

/// Reads `runs/<point>/seed-<n>/flows.csv` of every complete run (one with a summary.json) in
/// `dirs`, in the order and with the de-duplication of [`read_run_summaries`]. Groups are
/// ordered by point (run-list order), then class (first appearance). A file that is not a
/// flows.csv is an error; unparsable numbers are skipped.
pub fn read_flow_samples(dirs: &[PathBuf]) -> Result<Vec<FlowSamples>> {
    read_flow_samples_of(dirs, &read_run_summaries(dirs)?)
}

/// Like [`read_flow_samples`], for the given runs only (in their order): each run's flows.csv
/// is taken from the first directory of `dirs` that has it. A run without flows.csv is an
/// error unless its run.json records `[output] flows = false`.
pub fn read_flow_samples_of(dirs: &[PathBuf], runs: &[RunSummary]) -> Result<Vec<FlowSamples>> {
    let mut out: Vec<FlowSamples> = Vec::new();
    for run in runs {
        let Some(path) = dirs
            .iter()
            .map(|d| flows_path(d, run))
            .find(|p| p.is_file())
        else {
            if flows_turned_off(dirs, run) {
                continue;
            }
            return Err(ReportError::Invalid {
                path: flows_path(dirs.first().map_or(Path::new(""), |d| d), run),
                message: "missing: the per-flow plots need every run's flows.csv".into(),
            });
        };
        read_one(&path, &run.point, run.window_start_ns, &mut out)?;
    }
    Ok(out)
}

/// Whether the run's recorded settings (its run.json) say it wrote no flows.csv.
fn flows_turned_off(dirs: &[PathBuf], run: &RunSummary) -> bool {
    dirs.iter()
        .find_map(|d| RunIdentity::read(&run_dir(d, &run.point, run.seed).join(RUN_FILE)))
        .and_then(|identity| identity.settings.parse::<toml::Table>().ok())
        .and_then(|settings| {
            settings
                .get("output")?
                .get("flows")
                .and_then(toml::Value::as_bool)
        })
        == Some(false)
}

/// `dir/runs/<point>/seed-<n>/flows.csv`.
fn flows_path(dir: &Path, run: &RunSummary) -> PathBuf {
    run_dir(dir, &run.point, run.seed).join(FLOWS_FILE)
}

/// Adds one flows.csv's values to `out`: the FCTs of the finite flows that arrived at or after
/// `window_start_ns` (the warmup's end), the goodputs of the long flows.
fn read_one(
    path: &Path,
    point: &str,
    window_start_ns: u64,
    out: &mut Vec<FlowSamples>,
) -> Result<()> {
    let csv_error = |source| ReportError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = csv::Reader::from_path(path).map_err(csv_error)?;
    let headers = reader.headers().map_err(csv_error)?.clone();
    let column = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (Some(class), Some(size), Some(fct), Some(goodput)) = (
        column("class"),
        column("size_bytes"),
        column("fct_ns"),
        column("goodput_bps"),
    ) else {
        return Err(ReportError::Invalid {
            path: path.to_path_buf(),
            message: "not a flows.csv: its header lacks class, size_bytes, fct_ns or goodput_bps"
                .into(),
        });
    };
    // Absent from files written before it existed: then every completed flow counts.
    let arrival = column("arrival_ns");
    for record in reader.records() {
        let record = record.map_err(csv_error)?;
        let field = |i: usize| record.get(i).unwrap_or("").trim();
        let number = |i: usize| field(i).parse::<f64>().ok().filter(|v| v.is_finite());
        let i = match out
            .iter()
            .position(|s| s.point == point && s.class == field(class))
        {
            Some(i) => i,
            None => {
                out.push(FlowSamples {
                    point: point.to_string(),
                    class: field(class).to_string(),
                    ..FlowSamples::default()
                });
                out.len() - 1
            }
        };
        if field(size).is_empty() {
            out[i].goodput_mbps.extend(number(goodput).map(|b| b / 1e6));
        } else {
            // A finite flow that arrived in the warmup is not measured (docs/outputs.md).
            let in_warmup = arrival
                .and_then(|a| field(a).parse::<u64>().ok())
                .is_some_and(|a| a < window_start_ns);
            if !in_warmup {
                out[i].fct_ms.extend(number(fct).map(|ns| ns / 1e6));
            }
        }
    }
    Ok(())
}
