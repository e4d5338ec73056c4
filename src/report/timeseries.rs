//! Time series read back from the runs' timeseries.csv files (columns `time_ns`, `series`, `id`,
//! `value` after the run's columns, see
//! [`crate::simulate::timeseries`]) for the time-series plots `htsim report` draws.

use std::path::{Path, PathBuf};

use super::error::{ReportError, Result};
use super::run_summary::RunSummary;
use crate::output::{run_dir, TIMESERIES_FILE};

/// At most this many ids (links or flows) per time-series chart: the first ones in the file
/// (topology order for links, id order for flows).
pub const MAX_IDS_PER_CHART: usize = 8;

/// The samples of one series (`queue`, `cwnd` or `rate`) of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSeries {
    /// The sweep point's name.
    pub point: String,
    /// The run's seed.
    pub seed: u64,
    /// The series' name.
    pub series: String,
    /// Per id (link name or flow id), in order of first appearance: (time in s, value).
    pub lines: Vec<(String, Vec<(f64, f64)>)>,
}

/// For every point, the time series of its lowest seed that has a timeseries.csv (taken from
/// the first directory of `dirs` that has it), one entry per series, each with at most
/// [`MAX_IDS_PER_CHART`] ids. `runs` must be in report order.
pub fn read_point_series(dirs: &[PathBuf], runs: &[RunSummary]) -> Result<Vec<RunSeries>> {
    let mut out = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    for run in runs {
        if done.contains(&run.point.as_str()) {
            continue;
        }
        let Some(path) = dirs
            .iter()
            .map(|d| run_dir(d, &run.point, run.seed).join(TIMESERIES_FILE))
            .find(|p| p.is_file())
        else {
            continue;
        };
        done.push(&run.point);
        out.extend(read_one(&path, &run.point, run.seed)?);
    }
    Ok(out)
}

fn read_one(path: &Path, point: &str, seed: u64) -> Result<Vec<RunSeries>> {
    let csv_error = |source| ReportError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = csv::Reader::from_path(path).map_err(csv_error)?;
    let headers = reader.headers().map_err(csv_error)?.clone();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let (Some(time), Some(series), Some(id), Some(value)) = (
        column("time_ns"),
        column("series"),
        column("id"),
        column("value"),
    ) else {
        return Err(ReportError::Invalid {
            path: path.to_path_buf(),
            message: "not a timeseries.csv: its header lacks time_ns, series, id or value".into(),
        });
    };
    let mut out: Vec<RunSeries> = Vec::new();
    for record in reader.records() {
        let record = record.map_err(csv_error)?;
        let (Some(t), Some(series), Some(id), Some(v)) = (
            record.get(time),
            record.get(series),
            record.get(id),
            record.get(value),
        ) else {
            continue;
        };
        let (Ok(t), Ok(v)) = (t.parse::<f64>(), v.parse::<f64>()) else {
            continue;
        };
        let s = match out.iter().position(|s| s.series == series) {
            Some(i) => &mut out[i],
            None => {
                out.push(RunSeries {
                    point: point.to_string(),
                    seed,
                    series: series.to_string(),
                    lines: Vec::new(),
                });
                out.last_mut().expect("pushed")
            }
        };
        let line = match s.lines.iter().position(|(i, _)| i == id) {
            Some(i) => &mut s.lines[i].1,
            None if s.lines.len() < MAX_IDS_PER_CHART => {
                s.lines.push((id.to_string(), Vec::new()));
                &mut s.lines.last_mut().expect("pushed").1
            }
            None => continue,
        };
        line.push((t / 1e9, v));
    }
    Ok(out)
}
