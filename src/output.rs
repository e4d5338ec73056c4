//! The output directory (scenario-format.md "Outputs"): where each file goes, and writing files
//! atomically so that no partial file ever looks complete.
//!
//! This module is the one home of the output's file names and of atomic writes: the runner,
//! [`crate::simulate`] and [`crate::report`] all use it.
//!
//! ```text
//! DIR/scenario.toml                          SCENARIO_FILE
//! DIR/summary.csv, DIR/summary.json          SUMMARY_CSV_FILE, SUMMARY_JSON_FILE (all seeds)
//! DIR/plots/*.png, *.svg                     PLOTS_DIR
//! DIR/runs/<point>/seed-<n>/                 RUNS_DIR, run_dir()
//!     flows.csv, links.csv                   FLOWS_FILE, LINKS_FILE
//!     timeseries.csv                         TIMESERIES_FILE
//!     trace.csv                              TRACE_FILE
//!     summary.json                           RUN_SUMMARY_FILE (written last: the run is complete)
//! ```

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The resolved scenario, every default written out.
pub const SCENARIO_FILE: &str = "scenario.toml";
/// Per-flow results of a run.
pub const FLOWS_FILE: &str = "flows.csv";
/// Per-link results of a run.
pub const LINKS_FILE: &str = "links.csv";
/// Sampled time series of a run, when asked for.
pub const TIMESERIES_FILE: &str = "timeseries.csv";
/// Per-flow event traces of a run, when asked for.
pub const TRACE_FILE: &str = "trace.csv";
/// A run's summary; written last, so its presence marks the run complete.
pub const RUN_SUMMARY_FILE: &str = "summary.json";
/// The cross-seed summary table, `DIR/summary.csv`.
pub const SUMMARY_CSV_FILE: &str = "summary.csv";
/// The nested cross-seed summary, `DIR/summary.json`.
pub const SUMMARY_JSON_FILE: &str = "summary.json";
/// The plots directory, `DIR/plots`.
pub const PLOTS_DIR: &str = "plots";
/// The directory of the runs, `DIR/runs`.
pub const RUNS_DIR: &str = "runs";

/// The columns of flows.csv, in order (scenario-format.md).
pub const FLOWS_COLUMNS: &[&str] = &[
    "class",
    "flow_id",
    "transport",
    "src",
    "dst",
    "size_bytes",
    "start_ns",
    "end_ns",
    "fct_ns",
    "ideal_fct_ns",
    "slowdown",
    "completed",
    "bytes_acked",
    "goodput_bps",
    "packets_sent",
    "retransmits",
    "fast_retransmits",
    "timeouts",
    "subflows",
];

/// The columns of links.csv, in order (scenario-format.md).
pub const LINKS_COLUMNS: &[&str] = &[
    "link",
    "from",
    "to",
    "layer",
    "rate_bps",
    "packets_enqueued",
    "bytes_enqueued",
    "packets_dropped",
    "bytes_dropped",
    "packets_marked",
    "utilization",
    "loss_rate",
];

/// `DIR/runs/<point>/seed-<n>`.
pub fn run_dir(out: &Path, point: &str, seed: u64) -> PathBuf {
    out.join(RUNS_DIR).join(point).join(format!("seed-{seed}"))
}

/// Whether the run in `dir` finished: its summary.json, written last, exists.
pub fn is_complete(dir: &Path) -> bool {
    dir.join(RUN_SUMMARY_FILE).is_file()
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed to disk,
/// then renamed over `path`. Readers see the old file or the new one, never a part.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let tmp = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The files of one finished run, as bytes ready to write.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunFiles {
    /// flows.csv, when asked for.
    pub flows_csv: Option<Vec<u8>>,
    /// links.csv, when asked for.
    pub links_csv: Option<Vec<u8>>,
    /// timeseries.csv, when asked for.
    pub timeseries_csv: Option<Vec<u8>>,
    /// trace.csv, when asked for.
    pub trace_csv: Option<Vec<u8>>,
    /// summary.json.
    pub summary_json: Vec<u8>,
}

/// Writes a run's files into `dir`, summary.json last.
pub fn write_run(dir: &Path, files: &RunFiles) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    if let Some(b) = &files.flows_csv {
        write_atomic(&dir.join(FLOWS_FILE), b)?;
    }
    if let Some(b) = &files.links_csv {
        write_atomic(&dir.join(LINKS_FILE), b)?;
    }
    if let Some(b) = &files.timeseries_csv {
        write_atomic(&dir.join(TIMESERIES_FILE), b)?;
    }
    if let Some(b) = &files.trace_csv {
        write_atomic(&dir.join(TRACE_FILE), b)?;
    }
    write_atomic(&dir.join(RUN_SUMMARY_FILE), &files.summary_json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_completion() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = run_dir(tmp.path(), "base", 3);
        assert!(dir.ends_with("runs/base/seed-3"));
        assert!(!is_complete(&dir));
        let files = RunFiles {
            flows_csv: Some(b"a\n".to_vec()),
            links_csv: None,
            timeseries_csv: None,
            trace_csv: None,
            summary_json: b"{}".to_vec(),
        };
        write_run(&dir, &files).unwrap();
        assert!(is_complete(&dir));
        assert_eq!(fs::read(dir.join(FLOWS_FILE)).unwrap(), b"a\n");
        assert!(!dir.join(LINKS_FILE).exists());
        // No temporary file is left behind.
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn write_atomic_replaces_and_creates_the_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("sub/a.txt");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(fs::read_dir(tmp.path().join("sub")).unwrap().count(), 1);
    }
}
