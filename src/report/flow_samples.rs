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
/// is taken from its complete copy ([`RunSummary::home`]). A run without flows.csv is an
/// error unless its run.json records `[output] flows = false`.
pub fn read_flow_samples_of(dirs: &[PathBuf], runs: &[RunSummary]) -> Result<Vec<FlowSamples>> {
    let mut out: Vec<FlowSamples> = Vec::new();
    for run in runs {
        let home = run.home(dirs).unwrap_or_else(|| {
            run_dir(
                dirs.first().map_or(Path::new(""), |d| d),
                &run.point,
                run.seed,
            )
        });
        let path = home.join(FLOWS_FILE);
        if !path.is_file() {
            if flows_turned_off(&home) {
                continue;
            }
            return Err(ReportError::Invalid {
                path,
                message: "missing: the per-flow plots need every run's flows.csv".into(),
            });
        }
        read_one(&path, &run.point, run.window_start_ns, &mut out)?;
    }
    Ok(out)
}

/// Whether the run in `dir` records (in its run.json) that it wrote no flows.csv.
fn flows_turned_off(dir: &Path) -> bool {
    RunIdentity::read(&dir.join(RUN_FILE))
        .and_then(|identity| identity.settings.parse::<toml::Table>().ok())
        .and_then(|settings| {
            settings
                .get("output")?
                .get("flows")
                .and_then(toml::Value::as_bool)
        })
        == Some(false)
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
    let mut reader = crate::output::regular_csv_reader(path).map_err(csv_error)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::run_summary::RunCost;

    const HEADER: &str = "class,flow_id,transport,src,dst,size_bytes,start_ns,end_ns,fct_ns,\
        ideal_fct_ns,slowdown,completed,bytes_acked,goodput_bps,goodput_sent_bps,packets_sent,\
        retransmits,fast_retransmits,timeouts,subflows\n";

    fn flows(fct_ns: u64) -> String {
        format!("{HEADER}short,1,tcp,host0,host1,70000,0,{fct_ns},{fct_ns},1000000,2,true,70000,1,,50,0,0,0,1\n")
    }

    #[test]
    fn flows_come_from_the_complete_copy_of_a_run_not_an_interrupted_one() {
        // Directory a holds an interrupted copy of the run (its flows.csv written, its
        // summary.json not yet); b the complete one. The summary is b's: so must the flows be.
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let dirs = [a.path().to_path_buf(), b.path().to_path_buf()];
        let run = RunSummary {
            point: "base".into(),
            point_index: 0,
            seed: 1,
            window_start_ns: 0,
            window_end_ns: 1,
            classes: vec![],
            layers: vec![],
            cost: RunCost::new(1, 1, 1, 1.0),
            files: Vec::new(),
        };
        let (in_a, in_b) = (run_dir(a.path(), "base", 1), run_dir(b.path(), "base", 1));
        std::fs::create_dir_all(&in_a).unwrap();
        std::fs::write(in_a.join(FLOWS_FILE), flows(9_000_000)).unwrap();
        run.write(&in_b).unwrap();
        std::fs::write(in_b.join(FLOWS_FILE), flows(2_000_000)).unwrap();
        assert_eq!(run.home(&dirs), Some(in_b));
        let samples = read_flow_samples(&dirs).unwrap();
        assert_eq!(samples.len(), 1);
        assert_eq!(samples[0].fct_ms, vec![2.0]);
    }
}
