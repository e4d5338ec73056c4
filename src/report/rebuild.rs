//! `htsim report DIR...`: the cross-seed summaries and the plots, rebuilt from the run files
//! alone (each run's summary.json and flows.csv), merging shard directories.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::aggregate::{aggregate, summary_json, write_summaries, SummaryRow};
use super::error::{io_error, write_file, ReportError, Result};
use super::reference::{compare, reference_csv, ReferenceCheck, ReferenceRow};
use super::run_summary::{read_run_summaries, sort_runs, RunSummary};
use super::swept::SweptValues;
use crate::identity::RunIdentity;
use crate::output::{REFERENCE_CSV_FILE, RUN_FILE, SUMMARY_CSV_FILE, SUMMARY_JSON_FILE};

/// What to build (see [`build_report`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReportOptions {
    /// Draw the plots into `out/plots` too (nothing without the `plots` feature).
    pub plots: bool,
    /// Only these runs, as (point, seed): e.g. the run list of `DIR/scenario.toml`, so that
    /// stale run directories (seeds or points no longer in the scenario) are left out; points
    /// are then ordered as here, not by the position each run recorded (a sweep's values may
    /// have been reordered since it ran). Every run found when `None`.
    pub only: Option<Vec<(String, u64)>>,
    /// The scenario's `[[reference]]` values at the points they apply to
    /// ([`super::reference::checks`]): compared with the summary into `out/reference.csv`.
    /// None: no reference.csv (an old one is removed, as it would describe other results).
    pub references: Vec<ReferenceCheck>,
    /// The scenario's swept values per point ([`SweptValues::of`]), which label the charts.
    /// Without them (no scenario) the values are read from the point names.
    pub swept: SweptValues,
}

/// What [`build_report`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// The runs summarised (complete runs found, after [`ReportOptions::only`]).
    pub runs: usize,
    /// Rows of summary.csv.
    pub rows: usize,
    /// Every file written: summary.csv, summary.json, reference.csv, then the plots.
    pub files: Vec<PathBuf>,
    /// The comparison with the references, as written to reference.csv.
    pub references: Vec<ReferenceRow>,
    /// The htsim builds that simulated the runs summarised, with how many runs each, by name
    /// ([`crate::identity::build_name`]; [`UNKNOWN_BUILD`] for runs without a run.json).
    /// More than one: the summary mixes results of different code.
    pub builds: Vec<(String, usize)>,
}

/// The build of a run that records none (no readable run.json: an older htsim).
pub const UNKNOWN_BUILD: &str = "unknown (no run.json)";

/// The builds that simulated `runs` (as read from the run.json of each run's complete copy
/// under `dirs`), with how many runs each, by name.
fn builds_of(dirs: &[PathBuf], runs: &[RunSummary]) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for run in runs {
        let build = run
            .home(dirs)
            .and_then(|home| RunIdentity::read(&home.join(RUN_FILE)))
            .map_or_else(|| UNKNOWN_BUILD.to_string(), |identity| identity.build());
        *counts.entry(build).or_default() += 1;
    }
    counts.into_iter().collect()
}

/// Rebuilds `out/summary.csv` and `out/summary.json` from every complete run under `dirs` and,
/// when `plots` is set, redraws `out/plots`. Returns the files written.
pub fn rebuild_report(dirs: &[PathBuf], out: &Path, plots: bool) -> Result<Vec<PathBuf>> {
    let options = ReportOptions {
        plots,
        ..ReportOptions::default()
    };
    Ok(build_report(dirs, out, &options)?.files)
}

/// `htsim report DIR... --out OUT` and the end of `htsim run`: reads the complete runs
/// (`runs/<point>/seed-<n>/summary.json`) under `dirs`, merging shard directories (the first
/// directory wins when a run is in several), aggregates them across seeds into
/// `out/summary.csv` and `out/summary.json`, and draws the plots when asked (before the
/// summaries, which are written last). The output depends
/// only on the run files, never on which directory or shard holds which run. An error when no
/// run is found.
pub fn build_report(dirs: &[PathBuf], out: &Path, options: &ReportOptions) -> Result<Report> {
    let mut runs = read_run_summaries(dirs)?;
    if let Some(only) = &options.only {
        let keep: HashSet<(&str, u64)> = only.iter().map(|(p, s)| (p.as_str(), *s)).collect();
        runs.retain(|r| keep.contains(&(r.point.as_str(), r.seed)));
        let mut position: HashMap<&str, u64> = HashMap::new();
        for (point, _) in only {
            let next = position.len() as u64;
            position.entry(point.as_str()).or_insert(next);
        }
        for run in &mut runs {
            run.point_index = position[run.point.as_str()];
        }
        sort_runs(&mut runs);
    }
    if runs.is_empty() {
        return Err(ReportError::Io {
            path: dirs.first().cloned().unwrap_or_default(),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no complete run (runs/<point>/seed-<n>/summary.json) found",
            ),
        });
    }
    let rows = aggregate(&runs);
    // What `out` holds of an earlier report (summaries, reference.csv, plots) describes the
    // runs summarised then. When that was another set of runs (its summary.json is not the one
    // about to be written: a report over part of a sweep, since resumed), all of it goes
    // first, so that no chart of other runs stays beside the new summary (a report without
    // plots draws none) and a report cut short leaves no summary at all. An unchanged summary
    // keeps the rest: charts drawn earlier over these same runs.
    let new_summary = summary_json(&rows);
    if crate::output::read_regular(&out.join(SUMMARY_JSON_FILE))
        .ok()
        .as_deref()
        != Some(new_summary.as_bytes())
    {
        crate::output::remove_report(out).map_err(io_error(out))?;
    }
    // The summaries last: a report cut short (killed, a full disk) while it draws the plots
    // leaves no new summary.csv that reads as a finished report.
    let plots = if options.plots {
        draw_plots(dirs, out, &rows, &runs, &options.swept)?
    } else {
        Vec::new()
    };
    let mut files = vec![out.join(SUMMARY_CSV_FILE), out.join(SUMMARY_JSON_FILE)];
    let references = compare(&options.references, &rows);
    let reference_file = out.join(REFERENCE_CSV_FILE);
    if references.is_empty() {
        match std::fs::remove_file(&reference_file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(ReportError::Io {
                    path: reference_file,
                    source: e,
                })
            }
            _ => {}
        }
    } else {
        write_file(&reference_file, reference_csv(&references).as_bytes())?;
        files.push(reference_file);
    }
    write_summaries(out, &rows)?;
    files.extend(plots);
    Ok(Report {
        runs: runs.len(),
        rows: rows.len(),
        files,
        references,
        builds: builds_of(dirs, &runs),
    })
}

/// The summary plots, the per-flow plots and the time-series plots into `out/plots`.
#[cfg(feature = "plots")]
fn draw_plots(
    dirs: &[PathBuf],
    out: &Path,
    rows: &[SummaryRow],
    runs: &[RunSummary],
    swept: &SweptValues,
) -> Result<Vec<PathBuf>> {
    use super::{flow_samples::read_flow_samples_of, plots};
    use crate::output::PLOTS_DIR;
    let dir = out.join(PLOTS_DIR);
    let mut files = plots::write_summary_plots(&dir, rows, swept)?;
    files.extend(plots::write_flow_plots(
        &dir,
        &read_flow_samples_of(dirs, runs)?,
        swept,
    )?);
    files.extend(plots::write_timeseries_plots(
        &dir,
        &super::timeseries::read_point_series(dirs, runs)?,
        swept,
    )?);
    Ok(files)
}

/// Without the `plots` feature there is nothing to draw.
#[cfg(not(feature = "plots"))]
fn draw_plots(
    _dirs: &[PathBuf],
    _out: &Path,
    _rows: &[SummaryRow],
    _runs: &[RunSummary],
    _swept: &SweptValues,
) -> Result<Vec<PathBuf>> {
    Ok(Vec::new())
}

#[cfg(all(test, feature = "plots"))]
mod tests {
    use super::*;
    use crate::output::{PLOTS_DIR, SUMMARY_CSV_FILE as SUMMARY_CSV};
    use crate::report::flow_samples::read_flow_samples;
    use crate::report::run_summary::RunCost;

    #[test]
    fn report_redraws_summaries_and_flow_plots_from_run_files() {
        let dir = tempfile::tempdir().unwrap();
        for (i, point) in ["subflows=1", "subflows=8"].iter().enumerate() {
            for seed in 1..=2u64 {
                let run_dir = dir
                    .path()
                    .join("runs")
                    .join(point)
                    .join(format!("seed-{seed}"));
                RunSummary {
                    point: point.to_string(),
                    point_index: i as u64,
                    seed,
                    window_start_ns: 0,
                    window_end_ns: 1,
                    classes: vec![],
                    layers: vec![],
                    cost: RunCost::new(seed, 1, 1, 1.0),
                    files: Vec::new(),
                }
                .write(&run_dir)
                .unwrap();
                let flows = "class,flow_id,transport,src,dst,size_bytes,start_ns,end_ns,fct_ns,\
                    ideal_fct_ns,slowdown,completed,bytes_acked,goodput_bps,goodput_sent_bps,\
                    packets_sent,retransmits,fast_retransmits,timeouts,subflows\n\
                    short,1,tcp,host0,host1,70000,0,2000000,2000000,1000000,2,true,70000,280000000,,\
                    50,0,0,0,1\n\
                    short,2,tcp,host0,host1,70000,0,,,1000000,,false,0,0,,50,0,0,0,1\n\
                    long,3,mptcp,host2,host3,,0,,,,,false,9000000,72000000,90000000,50,0,0,0,8\n";
                std::fs::write(run_dir.join("flows.csv"), flows).unwrap();
            }
        }
        let samples = read_flow_samples(&[dir.path().to_path_buf()]).unwrap();
        assert_eq!(samples.len(), 4);
        assert_eq!(
            (samples[0].point.as_str(), samples[0].class.as_str()),
            ("subflows=1", "short")
        );
        assert_eq!(samples[0].fct_ms, vec![2.0, 2.0]);
        assert_eq!(samples[1].goodput_mbps, vec![72.0, 72.0]);

        let files = rebuild_report(&[dir.path().to_path_buf()], dir.path(), true).unwrap();
        let plots = dir.path().join(PLOTS_DIR);
        for name in [
            "fct_cdf_short.svg",
            "fct_cdf_short.png",
            "throughput_ranked_long.svg",
            "events_run_vs_subflows.png",
        ] {
            assert!(
                plots.join(name).is_file(),
                "{name} missing; wrote {files:?}"
            );
        }
        let svg = std::fs::read_to_string(plots.join("fct_cdf_short.svg")).unwrap();
        assert!(svg.contains("Short-flow completion time CDF") && svg.contains("\n8 (2 flows)\n"));
        assert!(dir.path().join(SUMMARY_CSV).is_file());
    }
}
