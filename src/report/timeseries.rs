//! Time series read back from the runs' timeseries.csv files (columns `time_ns`, `series`, `id`,
//! `value` after the run's columns, see
//! [`crate::simulate::timeseries`]) for the time-series plots `htsim report` draws.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::error::{ReportError, Result};
use super::run_summary::RunSummary;
use crate::output::TIMESERIES_FILE;

/// At most this many ids (links or flows) per time-series chart, as many as the palette has
/// colours: of the ids whose values are not all 0, those with the highest peak.
pub const MAX_IDS_PER_CHART: usize = 7;

/// The samples of one series (`queue`, `cwnd` or `rate`) of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSeries {
    /// The sweep point's name.
    pub point: String,
    /// The run's seed.
    pub seed: u64,
    /// The series' name.
    pub series: String,
    /// Per id (link name or flow id) kept, in order of first appearance: (time in s, value).
    pub lines: Vec<(String, Vec<(f64, f64)>)>,
    /// The ids the run sampled for this series.
    pub ids: usize,
    /// Of those, the ids whose every value is 0 (never kept).
    pub all_zero: usize,
}

/// For every point, the time series of its lowest seed that has a timeseries.csv (taken from
/// its complete copy, [`RunSummary::home`]), one entry per series, each with at most
/// [`MAX_IDS_PER_CHART`] ids. `runs` must be in report order.
pub fn read_point_series(dirs: &[PathBuf], runs: &[RunSummary]) -> Result<Vec<RunSeries>> {
    let mut out = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    for run in runs {
        if done.contains(&run.point.as_str()) {
            continue;
        }
        let Some(path) = run
            .home(dirs)
            .map(|d| d.join(TIMESERIES_FILE))
            .filter(|p| p.is_file())
        else {
            continue;
        };
        done.push(&run.point);
        out.extend(read_one(&path, &run.point, run.seed)?);
    }
    Ok(out)
}

/// One sample of a timeseries.csv row: series, id, time in s, value.
type Sample<'a> = (&'a str, &'a str, f64, f64);

/// Calls `each` with every parsable row of the timeseries.csv at `path`.
fn for_each_sample(path: &Path, mut each: impl FnMut(Sample)) -> Result<()> {
    let csv_error = |source| ReportError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = crate::output::regular_csv_reader(path).map_err(csv_error)?;
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
        if let (Ok(t), Ok(v)) = (t.parse::<f64>(), v.parse::<f64>()) {
            each((series, id, t / 1e9, v));
        }
    }
    Ok(())
}

/// Reads one run's file twice: first every id's peak, to choose the ids to keep, then their
/// samples, so that memory stays bounded by the ids kept.
fn read_one(path: &Path, point: &str, seed: u64) -> Result<Vec<RunSeries>> {
    // Per series, per id in order of first appearance: the largest |value|; and where each
    // (series, id) is in those lists.
    let mut peaks: Vec<(String, Vec<(String, f64)>)> = Vec::new();
    let mut index: HashMap<String, (usize, HashMap<String, usize>)> = HashMap::new();
    for_each_sample(path, |(series, id, _, v)| {
        let (s, ids) = match index.get_mut(series) {
            Some(entry) => entry,
            None => {
                peaks.push((series.to_string(), Vec::new()));
                index
                    .entry(series.to_string())
                    .or_insert((peaks.len() - 1, HashMap::new()))
            }
        };
        let list = &mut peaks[*s].1;
        match ids.get(id) {
            Some(&i) => list[i].1 = list[i].1.max(v.abs()),
            None => {
                ids.insert(id.to_string(), list.len());
                list.push((id.to_string(), v.abs()));
            }
        }
    })?;
    let mut out: Vec<RunSeries> = peaks
        .iter()
        .map(|(series, ids)| {
            let mut busy: Vec<&(String, f64)> = ids.iter().filter(|(_, p)| *p > 0.0).collect();
            busy.sort_by(|a, b| b.1.total_cmp(&a.1));
            busy.truncate(MAX_IDS_PER_CHART);
            RunSeries {
                point: point.to_string(),
                seed,
                series: series.clone(),
                lines: ids
                    .iter()
                    .filter(|id| busy.contains(id))
                    .map(|(id, _)| (id.clone(), Vec::new()))
                    .collect(),
                ids: ids.len(),
                all_zero: ids.iter().filter(|(_, p)| *p == 0.0).count(),
            }
        })
        .collect();
    for_each_sample(path, |(series, id, t, v)| {
        if let Some(s) = out.iter_mut().find(|s| s.series == series) {
            if let Some(line) = s.lines.iter_mut().find(|(name, _)| name == id) {
                line.1.push((t, v));
            }
        }
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_that_never_queued_are_counted_and_left_out_and_the_busiest_kept() {
        // 16 core links, 8 of them always empty; the others peak at 1 to 8 packets.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("timeseries.csv");
        let mut csv = String::from("point,seed,time_ns,series,id,value,unit\n");
        for t in 0..3u64 {
            for link in 0..16u64 {
                let value = if link % 2 == 0 {
                    0
                } else {
                    link.div_ceil(2) * t
                };
                csv += &format!("base,1,{},queue,core{link},{value},packets\n", t * 1000);
            }
            csv += &format!("base,1,{},rate,7,{},bps\n", t * 1000, 1000 * t);
        }
        std::fs::write(&path, csv).unwrap();
        let series = read_one(&path, "base", 1).unwrap();
        let queue = &series[0];
        assert_eq!(
            (queue.series.as_str(), queue.ids, queue.all_zero),
            ("queue", 16, 8)
        );
        // The 7 highest peaks (core3 ... core15), in file order; core1 (peak 2) is left out.
        let ids: Vec<&str> = queue.lines.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(
            ids,
            ["core3", "core5", "core7", "core9", "core11", "core13", "core15"]
        );
        assert_eq!(
            queue.lines[6].1,
            vec![(0.0, 0.0), (1e-6, 8.0), (2e-6, 16.0)]
        );
        let rate = &series[1];
        assert_eq!((rate.ids, rate.all_zero, rate.lines.len()), (1, 0, 1));
    }
}
