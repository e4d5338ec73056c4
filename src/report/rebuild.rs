//! `htsim report DIR...`: the cross-seed summaries and the plots, rebuilt from the run files
//! alone (each run's summary.json and flows.csv), merging shard directories.

use std::path::{Path, PathBuf};

use super::aggregate::{rebuild_summaries, SummaryRow, SUMMARY_CSV, SUMMARY_JSON};
use super::error::Result;

/// Name of the plots directory inside a results directory.
pub const PLOTS_DIR: &str = "plots";

/// Rebuilds `out/summary.csv` and `out/summary.json` from the runs under `dirs` and, when
/// `plots` is set, redraws `out/plots` (nothing without the `plots` feature). Returns the files
/// written.
pub fn rebuild_report(dirs: &[PathBuf], out: &Path, plots: bool) -> Result<Vec<PathBuf>> {
    let rows = rebuild_summaries(dirs, out)?;
    let mut files = vec![out.join(SUMMARY_CSV), out.join(SUMMARY_JSON)];
    if plots {
        files.extend(draw_plots(dirs, out, &rows)?);
    }
    Ok(files)
}

/// The summary plots and the per-flow plots into `out/plots`.
#[cfg(feature = "plots")]
fn draw_plots(dirs: &[PathBuf], out: &Path, rows: &[SummaryRow]) -> Result<Vec<PathBuf>> {
    use super::{flow_samples::read_flow_samples, plots};
    let dir = out.join(PLOTS_DIR);
    let mut files = plots::write_summary_plots(&dir, rows)?;
    files.extend(plots::write_flow_plots(&dir, &read_flow_samples(dirs)?)?);
    Ok(files)
}

/// Without the `plots` feature there is nothing to draw.
#[cfg(not(feature = "plots"))]
fn draw_plots(_dirs: &[PathBuf], _out: &Path, _rows: &[SummaryRow]) -> Result<Vec<PathBuf>> {
    Ok(Vec::new())
}

#[cfg(all(test, feature = "plots"))]
mod tests {
    use super::*;
    use crate::report::flow_samples::read_flow_samples;
    use crate::report::run_summary::{RunCost, RunSummary};

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
                }
                .write(&run_dir)
                .unwrap();
                let flows = "class,flow_id,transport,src,dst,size_bytes,start_ns,end_ns,fct_ns,\
                    ideal_fct_ns,slowdown,completed,bytes_acked,goodput_bps,packets_sent,retransmits,\
                    fast_retransmits,timeouts,subflows\n\
                    short,1,tcp,host0,host1,70000,0,2000000,2000000,1000000,2,true,70000,,50,0,0,0,1\n\
                    short,2,tcp,host0,host1,70000,0,,,1000000,,false,0,,50,0,0,0,1\n\
                    long,3,mptcp,host2,host3,,0,,,,,false,9000000,72000000,50,0,0,0,8\n";
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
        assert!(svg.contains("short: flow completion time CDF") && svg.contains("subflows=8"));
        assert!(dir.path().join(SUMMARY_CSV).is_file());
    }
}
