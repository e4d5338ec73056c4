//! The output directory (docs/outputs.md): where each file goes, and writing files
//! atomically so that no partial file ever looks complete.
//!
//! This module is the one home of the output's file names and of atomic writes: the runner,
//! [`crate::simulate`] and [`crate::report`] all use it.
//!
//! ```text
//! DIR/scenario.toml                          SCENARIO_FILE
//! DIR/summary.csv, DIR/summary.json          SUMMARY_CSV_FILE, SUMMARY_JSON_FILE (all seeds)
//! DIR/reference.csv                          REFERENCE_CSV_FILE ([[reference]] comparison)
//! DIR/plots/*.png, *.svg                     PLOTS_DIR
//! DIR/runs/<point>/seed-<n>/                 RUNS_DIR, run_dir()
//!     flows.csv, links.csv                   FLOWS_FILE, LINKS_FILE
//!     timeseries.csv                         TIMESERIES_FILE
//!     run.json                               RUN_FILE (what the run simulated: crate::identity)
//!     trace.csv                              TRACE_FILE
//!     crossings.csv                          CROSSINGS_FILE
//!     summary.json                           RUN_SUMMARY_FILE (written last, with the CSVs'
//!                                            sizes: the run is complete while they hold)
//! ```
//!
//! Every directory name under `DIR` (sweep point names; the default `DIR`, the scenario's name)
//! passes [`check_dir_name`].

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::report::run_summary::{RunSummary, WrittenFile};

/// The resolved scenario, every default written out.
pub const SCENARIO_FILE: &str = "scenario.toml";
/// Per-flow results of a run.
pub const FLOWS_FILE: &str = "flows.csv";
/// Per-link results of a run.
pub const LINKS_FILE: &str = "links.csv";
/// Sampled time series of a run, when asked for.
pub const TIMESERIES_FILE: &str = "timeseries.csv";
/// What a run simulated ([`crate::identity::RunIdentity`]); written before its summary.
pub const RUN_FILE: &str = "run.json";
/// Per-flow event traces of a run, when asked for.
pub const TRACE_FILE: &str = "trace.csv";
/// Per-flow counts of data packets on the watched links of a run, when asked for.
pub const CROSSINGS_FILE: &str = "crossings.csv";
/// A run's summary; written last, listing the run's CSV files with their sizes, so its
/// presence marks the run complete ([`read_complete_run`]).
pub const RUN_SUMMARY_FILE: &str = "summary.json";
/// The cross-seed summary table, `DIR/summary.csv`.
pub const SUMMARY_CSV_FILE: &str = "summary.csv";
/// The nested cross-seed summary, `DIR/summary.json`.
pub const SUMMARY_JSON_FILE: &str = "summary.json";
/// The comparison with the scenario's `[[reference]]` values, `DIR/reference.csv`.
pub const REFERENCE_CSV_FILE: &str = "reference.csv";
/// The plots directory, `DIR/plots`.
pub const PLOTS_DIR: &str = "plots";
/// The directory of the runs, `DIR/runs`.
pub const RUNS_DIR: &str = "runs";

/// The columns of flows.csv, in order (docs/outputs.md).
pub const FLOWS_COLUMNS: &[&str] = &[
    "class",
    "flow_id",
    "job",
    "transport",
    "src",
    "dst",
    "size_bytes",
    "arrival_ns",
    "start_ns",
    "end_ns",
    "fct_ns",
    "ideal_fct_ns",
    "slowdown",
    "completed",
    "bytes_acked",
    "goodput_bps",
    "goodput_sent_bps",
    "subflow_goodput_bps",
    "packets_sent",
    "retransmits",
    "fast_retransmits",
    "timeouts",
    "subflows",
];

/// The columns of links.csv, in order (docs/outputs.md).
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
    "utilisation_pct",
    "loss_rate_pct",
];

/// The columns of crossings.csv, in order (docs/outputs.md).
pub const CROSSINGS_COLUMNS: &[&str] = &[
    "class",
    "flow_id",
    "link",
    "packets_enqueued",
    "bytes_enqueued",
    "packets_dropped",
];

/// The columns that say which run a row of a per-run CSV (flows.csv, links.csv,
/// timeseries.csv) belongs to, written first in each: `point` (the run folder's point name),
/// `seed`, then one column per sweep axis, named by its key path and holding the point's value
/// as written in TOML (a string without quotes: `tcp`; a table inline:
/// `{ uniform = ["10KB", "100KB"] }`). Files of every run of a sweep concatenate into one table
/// without parsing directory names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunColumns {
    /// The sweep point's name (`base` without a sweep).
    pub point: String,
    /// The run's seed.
    pub seed: u64,
    /// Per sweep axis, in `[sweep]` order: its key path and the point's value.
    pub axes: Vec<(String, String)>,
}

impl RunColumns {
    /// For the run of `point` (its name and assignments) with `seed`.
    pub fn new(point: &str, assignments: &[(String, toml::Value)], seed: u64) -> Self {
        RunColumns {
            point: point.to_string(),
            seed,
            axes: assignments
                .iter()
                .map(|(key, value)| (key.clone(), axis_value(value)))
                .collect(),
        }
    }

    /// The header of a per-run CSV whose own columns are `columns`.
    pub fn header<'a>(&'a self, columns: &[&'a str]) -> Vec<&'a str> {
        let mut header = vec!["point", "seed"];
        header.extend(self.axes.iter().map(|(key, _)| key.as_str()));
        header.extend(columns);
        header
    }

    /// The leading fields of every row: the point, the seed and the axes' values.
    pub fn fields(&self) -> Vec<String> {
        let mut fields = vec![self.point.clone(), self.seed.to_string()];
        fields.extend(self.axes.iter().map(|(_, v)| v.clone()));
        fields
    }
}

/// A sweep value as written in TOML: strings without their quotes, anything else as TOML
/// writes it inline.
pub fn axis_value(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Writing CSV into memory cannot fail: the message of the `expect` that says so.
pub const CSV_IN_MEMORY: &str = "writing CSV into memory cannot fail";

/// The writer of every CSV file htsim writes: into memory, `\n` line ends, fields quoted only
/// when they need it (a comma, quote or line break, as in a node named `sw,1`).
pub fn csv_writer() -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new())
}

/// The bytes written into a [`csv_writer`].
pub fn csv_bytes(w: csv::Writer<Vec<u8>>) -> Vec<u8> {
    w.into_inner().expect(CSV_IN_MEMORY)
}

/// `DIR/runs/<point>/seed-<n>`.
pub fn run_dir(out: &Path, point: &str, seed: u64) -> PathBuf {
    out.join(RUNS_DIR).join(point).join(format!("seed-{seed}"))
}

/// The longest file or directory name (one path component) common file systems accept, bytes.
pub const MAX_NAME_BYTES: usize = 255;

/// Why a name cannot be a directory name inside an output directory.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Empty.
    #[error("the name is empty")]
    Empty,
    /// `.` or `..`, which name no new directory (and `..` leaves the output directory).
    #[error("`{0}` names no new directory")]
    Dot(String),
    /// Contains a path separator or a NUL.
    #[error("the name contains a path separator or NUL")]
    Separator,
    /// Longer than [`MAX_NAME_BYTES`].
    #[error("the name is {0} bytes long, over the limit of 255 bytes for a file name")]
    TooLong(usize),
}

/// The one check of every directory name htsim derives (the scenario's name as the default
/// `results/<name>`, sweep point names as `runs/<point>`): one path component that stays where
/// it is put, at most [`MAX_NAME_BYTES`] long.
pub fn check_dir_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        Err(NameError::Empty)
    } else if name == "." || name == ".." {
        Err(NameError::Dot(name.to_string()))
    } else if name.contains(['/', '\\', '\0']) {
        Err(NameError::Separator)
    } else if name.len() > MAX_NAME_BYTES {
        Err(NameError::TooLong(name.len()))
    } else {
        Ok(())
    }
}

/// Why a run directory holds no complete run ([`read_complete_run`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Incomplete {
    /// summary.json, written last, is missing or does not read as a run's summary: the run
    /// never finished (or its summary was cut short).
    #[error("no summary.json that reads as a run summary")]
    NoSummary,
    /// A file the summary lists is not there (deleted, or not a file).
    #[error("{name} is missing")]
    Missing {
        /// The file's name.
        name: String,
    },
    /// A file the summary lists has another size than written (truncated, say by a full
    /// disk, or rewritten).
    #[error("{name} holds {found} bytes, not the {written} written")]
    Resized {
        /// The file's name.
        name: String,
        /// Its size as written, bytes.
        written: u64,
        /// Its size now, bytes.
        found: u64,
    },
    /// The summary lists a name that is no file name of the run's directory.
    #[error("summary.json lists `{0}`, which names no file of the run's directory")]
    BadName(String),
    /// The summary lacks a per-flow list that this htsim's summaries carry (written by an
    /// older htsim), so its flows could not enter the pooled rows of summary.csv.
    #[error(
        "summary.json has no `{0}` (written by an older htsim): its flows cannot enter the \
         pooled rows"
    )]
    NoSample(&'static str),
}

/// The summary of the run in `dir` when the run is complete: its summary.json, written last,
/// reads as a run's summary ([`RunSummary`]) with every per-flow list its statistics summarise
/// ([`ClassSummary::missing_sample`](crate::report::run_summary::ClassSummary::missing_sample)),
/// and every file it lists ([`RunSummary::files`]) is there with the size written. Only
/// summary.json is read; the other files' sizes come from the file system. A summary.json that
/// lists no file (written before htsim recorded them) counts on its own, as it did then.
/// Otherwise says why the run must be done again.
pub fn read_complete_run(dir: &Path) -> Result<RunSummary, Incomplete> {
    let summary =
        RunSummary::read(&dir.join(RUN_SUMMARY_FILE)).map_err(|_| Incomplete::NoSummary)?;
    if let Some(list) = summary.classes.iter().find_map(|c| c.missing_sample()) {
        return Err(Incomplete::NoSample(list));
    }
    for file in &summary.files {
        if check_dir_name(&file.name).is_err() {
            return Err(Incomplete::BadName(file.name.clone()));
        }
        match fs::metadata(dir.join(&file.name)) {
            Ok(meta) if meta.is_file() => {
                if meta.len() != file.bytes {
                    return Err(Incomplete::Resized {
                        name: file.name.clone(),
                        written: file.bytes,
                        found: meta.len(),
                    });
                }
            }
            _ => {
                return Err(Incomplete::Missing {
                    name: file.name.clone(),
                })
            }
        }
    }
    Ok(summary)
}

/// Whether `dir` is the directory of one run: it holds a run.json, or a summary.json that reads
/// as a run's. Results written there (`--out` naming it) would replace the run's own
/// summary.json with a summary over runs.
pub fn is_run_dir(dir: &Path) -> bool {
    dir.join(RUN_FILE).is_file() || RunSummary::read(&dir.join(RUN_SUMMARY_FILE)).is_ok()
}

/// Whether the run in `dir` is complete ([`read_complete_run`]). A run that is not must be
/// done again.
pub fn is_complete(dir: &Path) -> bool {
    read_complete_run(dir).is_ok()
}

/// Removes the run directory `dir`, its summary.json first: a removal cut short (a killed
/// process) leaves a run that is no longer [`is_complete`], never one that reads as complete
/// with some of its files gone.
pub fn remove_run(dir: &Path) -> io::Result<()> {
    match fs::remove_file(dir.join(RUN_SUMMARY_FILE)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    fs::remove_dir_all(dir)
}

/// Whether `name` is one of [`write_atomic`]'s temporary files.
fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.contains(".tmp-")
}

/// Removes the temporary files a killed writer left in `dir` (not recursive). Call only while
/// no other process writes into `dir`. Returns how many were removed.
pub fn remove_temp_files(dir: &Path) -> io::Result<usize> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        if entry.file_type()?.is_file() && entry.file_name().to_str().is_some_and(is_temp_name) {
            fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Removes the temporary files a killed writer (`htsim run` or `htsim report`) left at the top
/// of the output directory `out` (scenario.toml, the summaries) and in its plots directory.
/// Run directories are cleaned one by one, by the writer that does their run. Call only while
/// no other process writes into `out`. Returns how many were removed.
pub fn remove_top_temp_files(out: &Path) -> io::Result<usize> {
    Ok(remove_temp_files(out)? + remove_temp_files(&out.join(PLOTS_DIR))?)
}

/// Removes what is written over all the runs of `out` (summary.csv, summary.json,
/// reference.csv and the plots): when they no longer describe its run list.
pub fn remove_report(out: &Path) -> io::Result<()> {
    for name in [SUMMARY_CSV_FILE, SUMMARY_JSON_FILE, REFERENCE_CSV_FILE] {
        match fs::remove_file(out.join(name)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    match fs::remove_dir_all(out.join(PLOTS_DIR)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// A temporary name for `path` in the same directory, unique in this process, that
/// [`remove_temp_files`] recognises: `.<name>.tmp-<pid>-<n>`, then `path`'s extension again
/// (`.png`), for writers that choose a format by it. Creates the directory.
pub fn temp_path(path: &Path) -> io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    Ok(dir.join(temp_name(&name, COUNTER.fetch_add(1, Ordering::Relaxed))))
}

/// The name of the `n`-th temporary file of this process for a file named `name`:
/// `.<name>.tmp-<pid>-<n>`, then `name`'s extension again.
fn temp_name(name: &str, n: u64) -> String {
    let ext = Path::new(name)
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    format!(".{name}.tmp-{}-{n}{ext}", std::process::id())
}

/// The longest name a file of a run directory can take while it is written: the temporary
/// file ([`temp_path`]) of the longest file name, with this process's id and the largest
/// counter.
pub fn longest_run_file_name() -> String {
    let name = [
        FLOWS_FILE,
        LINKS_FILE,
        TIMESERIES_FILE,
        RUN_FILE,
        TRACE_FILE,
        CROSSINGS_FILE,
        RUN_SUMMARY_FILE,
    ]
    .into_iter()
    .max_by_key(|n| n.len())
    .unwrap_or(TIMESERIES_FILE);
    temp_name(name, u64::MAX)
}

/// Checks that the run directory `dir` and the longest file a run writes in it
/// ([`longest_run_file_name`]) can be created, by creating them, then removes what it created:
/// the file, the run directory, and (with `remove_parents`: no other writer may be creating
/// them at the same time) the directories above it up to the first that existed. A path over
/// the system's limit (`PATH_MAX`) fails with [`io::ErrorKind::InvalidFilename`]. The probe's
/// name is a temporary file's: one left by a killed process is removed like theirs.
pub fn probe_run_dir(dir: &Path, remove_parents: bool) -> io::Result<()> {
    let missing: Vec<&Path> = dir.ancestors().take_while(|d| !d.exists()).collect();
    let result = fs::create_dir_all(dir).and_then(|_| {
        let probe = dir.join(longest_run_file_name());
        fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&probe)?;
        fs::remove_file(&probe)
    });
    let created = if remove_parents { missing.len() } else { 1 };
    for d in missing.iter().take(created) {
        match fs::remove_dir(d) {
            // Not created: the creation failed below it.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            // Holds something (another writer's run): it and those above stay.
            Err(_) => break,
            Ok(()) => {}
        }
    }
    result
}

/// Makes the complete temporary file `tmp` ([`temp_path`]) the file at `path`: flushes it to
/// disk and renames it over `path`. On failure `tmp` is removed and `path` left as it was.
pub fn commit_temp(tmp: &Path, path: &Path) -> io::Result<()> {
    // Opened for writing: some systems flush only a file handle that may write.
    let result = fs::OpenOptions::new()
        .write(true)
        .open(tmp)
        .and_then(|f| f.sync_all())
        .and_then(|_| fs::rename(tmp, path));
    if result.is_err() {
        let _ = fs::remove_file(tmp);
    }
    result
}

/// Opens the file at `path` of a result directory for reading, when it is a regular file
/// (symbolic links followed). Anything else there (a FIFO, which would block the read until a
/// writer came, or a device such as `/dev/zero`, which never ends) is an error of kind
/// `InvalidInput`, as a directory is one of its own kind.
pub fn open_regular(path: &Path) -> io::Result<fs::File> {
    let meta = fs::metadata(path)?;
    if !meta.is_dir() && !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, socket or device)",
        ));
    }
    fs::File::open(path)
}

/// A CSV reader of the file at `path` of a result directory, a regular file only
/// ([`open_regular`]).
pub fn regular_csv_reader(path: &Path) -> csv::Result<csv::Reader<fs::File>> {
    Ok(csv::Reader::from_reader(open_regular(path)?))
}

/// Reads the whole file at `path` of a result directory, a regular file only ([`open_regular`]).
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    use io::Read as _;
    let mut bytes = Vec::new();
    open_regular(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text.
pub fn read_regular_text(path: &Path) -> io::Result<String> {
    String::from_utf8(read_regular(path)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()))
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed to disk,
/// then renamed over `path`. Readers see the old file or the new one, never a part.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_all(&[(path, bytes)]).map_err(|(_, e)| e)
}

/// Writes several files that belong together (`DIR/summary.csv` and `DIR/summary.json`)
/// atomically as a set, as far as a file system allows: every file is first written in full to
/// a temporary file ([`temp_path`]), and only when all are written are they renamed over their
/// paths ([`commit_temp`]), in order. A write that fails (a full disk) leaves every path as it
/// was and removes the temporary files; the renames need no space. The error names the path
/// whose file failed.
pub fn write_atomic_all(files: &[(&Path, &[u8])]) -> Result<(), (PathBuf, io::Error)> {
    let mut temps: Vec<PathBuf> = Vec::with_capacity(files.len());
    let remove_all = |temps: &[PathBuf]| {
        for tmp in temps {
            let _ = fs::remove_file(tmp);
        }
    };
    for (path, bytes) in files {
        let written = temp_path(path).and_then(|tmp| {
            temps.push(tmp.clone());
            fs::write(&tmp, bytes)
        });
        if let Err(e) = written {
            remove_all(&temps);
            return Err((path.to_path_buf(), e));
        }
    }
    for (i, (tmp, (path, _))) in temps.iter().zip(files).enumerate() {
        if let Err(e) = commit_temp(tmp, path) {
            remove_all(&temps[i..]);
            return Err((path.to_path_buf(), e));
        }
    }
    Ok(())
}

/// The files of one finished run, ready to write.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunFiles {
    /// flows.csv, when asked for.
    pub flows_csv: Option<Vec<u8>>,
    /// links.csv, when asked for.
    pub links_csv: Option<Vec<u8>>,
    /// timeseries.csv, when asked for.
    pub timeseries_csv: Option<Vec<u8>>,
    /// trace.csv, when asked for.
    pub trace_csv: Option<Vec<u8>>,
    /// crossings.csv, when asked for.
    pub crossings_csv: Option<Vec<u8>>,
    /// The run's summary, written as summary.json ([`write_run`] sets its
    /// [`RunSummary::files`]).
    pub summary: RunSummary,
}

/// Writes a run's files into `dir`: `run_json` (its identity) first, summary.json last, listing
/// the result files (the CSVs) with their sizes ([`RunSummary::files`]), so that one lost or
/// cut short later makes the run incomplete ([`read_complete_run`]). run.json is not listed:
/// it holds the command line, whose length would make summary.json differ between runs with
/// other `--jobs`; the runner checks it by reading it.
///
/// The files of an earlier run in `dir` (a killed or stale run, maybe with other outputs
/// asked for) are removed first, summary.json before the rest, so that `dir` never holds a
/// file this run did not write; nothing outside `dir` (other runs) is touched.
pub fn write_run(dir: &Path, run_json: &[u8], files: &RunFiles) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    for name in [
        RUN_SUMMARY_FILE,
        RUN_FILE,
        FLOWS_FILE,
        LINKS_FILE,
        TIMESERIES_FILE,
        TRACE_FILE,
        CROSSINGS_FILE,
    ] {
        match fs::remove_file(dir.join(name)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    write_atomic(&dir.join(RUN_FILE), run_json)?;
    let mut written = Vec::new();
    for (name, bytes) in [
        (FLOWS_FILE, files.flows_csv.as_deref()),
        (LINKS_FILE, files.links_csv.as_deref()),
        (TIMESERIES_FILE, files.timeseries_csv.as_deref()),
        (TRACE_FILE, files.trace_csv.as_deref()),
        (CROSSINGS_FILE, files.crossings_csv.as_deref()),
    ] {
        if let Some(bytes) = bytes {
            write_atomic(&dir.join(name), bytes)?;
            written.push(WrittenFile {
                name: name.to_string(),
                bytes: bytes.len() as u64,
            });
        }
    }
    let summary = RunSummary {
        files: written,
        ..files.summary.clone()
    };
    write_atomic(&dir.join(RUN_SUMMARY_FILE), summary.to_json().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary of a run with nothing in it: what makes a run complete.
    fn empty_summary() -> RunSummary {
        RunSummary {
            point: "base".into(),
            seed: 1,
            ..RunSummary::default()
        }
    }

    #[test]
    fn a_removed_run_is_gone_and_its_neighbour_stays() {
        let out = tempfile::tempdir().unwrap();
        let (dir, other) = (
            run_dir(out.path(), "base", 1),
            run_dir(out.path(), "base", 2),
        );
        for d in [&dir, &other] {
            fs::create_dir_all(d).unwrap();
            fs::write(d.join(RUN_SUMMARY_FILE), empty_summary().to_json()).unwrap();
            fs::write(d.join(FLOWS_FILE), "flows").unwrap();
        }
        assert!(is_complete(&dir));
        remove_run(&dir).unwrap();
        assert!(!dir.exists());
        assert!(is_complete(&other) && other.join(FLOWS_FILE).is_file());
        // A run killed before it wrote summary.json is removed too.
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(FLOWS_FILE), "flows").unwrap();
        remove_run(&dir).unwrap();
        assert!(!dir.exists());
    }

    #[test]
    fn a_run_rewritten_keeps_no_file_of_the_run_before() {
        let out = tempfile::tempdir().unwrap();
        let dir = run_dir(out.path(), "base", 1);
        let other = run_dir(out.path(), "base", 2);
        fs::create_dir_all(&dir).unwrap();
        fs::create_dir_all(&other).unwrap();
        for name in [TIMESERIES_FILE, TRACE_FILE, FLOWS_FILE] {
            fs::write(dir.join(name), "old").unwrap();
            fs::write(other.join(name), "other run").unwrap();
        }
        let files = RunFiles {
            flows_csv: Some(b"new".to_vec()),
            links_csv: None,
            timeseries_csv: None,
            trace_csv: None,
            crossings_csv: None,
            summary: empty_summary(),
        };
        write_run(&dir, b"{}", &files).unwrap();
        let mut names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [FLOWS_FILE, RUN_FILE, RUN_SUMMARY_FILE]);
        assert_eq!(fs::read(dir.join(FLOWS_FILE)).unwrap(), b"new");
        for name in [TIMESERIES_FILE, TRACE_FILE, FLOWS_FILE] {
            assert_eq!(fs::read(other.join(name)).unwrap(), b"other run");
        }
    }

    #[test]
    fn run_columns_name_the_axes_and_keep_values_as_written() {
        let size: toml::Value =
            toml::from_str::<toml::Table>(r#"v = { uniform = ["10KB", "100KB"] }"#).unwrap()["v"]
                .clone();
        let run = RunColumns::new(
            "x",
            &[
                (
                    "transports.long.kind".into(),
                    toml::Value::String("tcp".into()),
                ),
                ("flows.short.size".into(), size),
                ("run.seeds".into(), toml::Value::Integer(3)),
            ],
            7,
        );
        assert_eq!(
            run.header(&["class"]),
            [
                "point",
                "seed",
                "transports.long.kind",
                "flows.short.size",
                "run.seeds",
                "class"
            ]
        );
        let mut w = csv_writer();
        w.write_record(run.fields()).unwrap();
        let text = String::from_utf8(csv_bytes(w)).unwrap();
        assert_eq!(
            text,
            "x,7,tcp,\"{ uniform = [\"\"10KB\"\", \"\"100KB\"\"] }\",3\n"
        );
        // The csv reader gives the value back as written.
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(text.as_bytes());
        let record = r.records().next().unwrap().unwrap();
        assert_eq!(&record[3], r#"{ uniform = ["10KB", "100KB"] }"#);
    }

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
            crossings_csv: None,
            summary: empty_summary(),
        };
        write_run(&dir, b"{}", &files).unwrap();
        assert!(is_complete(&dir));
        assert_eq!(fs::read(dir.join(FLOWS_FILE)).unwrap(), b"a\n");
        assert!(!dir.join(LINKS_FILE).exists());
        // No temporary file is left behind.
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");
        // A truncated summary.json is not complete, nor is JSON that is not a run's summary.
        fs::write(dir.join(RUN_SUMMARY_FILE), b"{\"point\": \"ba").unwrap();
        assert!(!is_complete(&dir));
        for json in ["{}", "[]", "null", "{\"point\": \"base\", \"seed\": 1}"] {
            fs::write(dir.join(RUN_SUMMARY_FILE), json).unwrap();
            assert!(!is_complete(&dir), "{json}");
        }
    }

    #[test]
    fn a_run_with_a_file_lost_or_cut_short_is_not_complete() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = run_dir(tmp.path(), "base", 1);
        let files = RunFiles {
            flows_csv: Some(b"class,flow_id\nshort,1\n".to_vec()),
            links_csv: Some(b"link\n".to_vec()),
            summary: empty_summary(),
            ..RunFiles::default()
        };
        write_run(&dir, b"{}", &files).unwrap();
        let listed = read_complete_run(&dir).unwrap().files;
        let sizes: Vec<(&str, u64)> = listed.iter().map(|f| (f.name.as_str(), f.bytes)).collect();
        assert_eq!(sizes, [(FLOWS_FILE, 22), (LINKS_FILE, 5)]);
        // Cut short, grown, deleted: each makes the run incomplete, saying which file.
        fs::write(dir.join(FLOWS_FILE), b"class,fl").unwrap();
        assert_eq!(
            read_complete_run(&dir).unwrap_err(),
            Incomplete::Resized {
                name: FLOWS_FILE.into(),
                written: 22,
                found: 8
            }
        );
        fs::write(dir.join(FLOWS_FILE), b"class,flow_id\nshort,1\nshort,2\n").unwrap();
        assert!(!is_complete(&dir));
        fs::write(dir.join(FLOWS_FILE), b"class,flow_id\nshort,9\n").unwrap();
        assert!(is_complete(&dir), "same size: only the size is checked");
        fs::remove_file(dir.join(LINKS_FILE)).unwrap();
        assert_eq!(
            read_complete_run(&dir).unwrap_err().to_string(),
            "links.csv is missing"
        );
        // A file the run did not write (timeseries.csv was not asked for) is not looked for.
        write_run(&dir, b"{}", &files).unwrap();
        assert!(is_complete(&dir) && !dir.join(TIMESERIES_FILE).exists());
    }

    #[test]
    fn a_summary_without_a_file_list_counts_on_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = run_dir(tmp.path(), "base", 1);
        fs::create_dir_all(&dir).unwrap();
        // As written before htsim listed the files: no `files` key at all.
        let old = empty_summary().to_json();
        assert!(!old.contains("\"files\""), "{old}");
        fs::write(dir.join(RUN_SUMMARY_FILE), &old).unwrap();
        assert!(is_complete(&dir), "without flows.csv or run.json");
        // A listed name that leaves the run's directory makes no run complete.
        let outside = RunSummary {
            files: vec![WrittenFile {
                name: "../seed-2".into(),
                bytes: 0,
            }],
            ..empty_summary()
        };
        fs::write(dir.join(RUN_SUMMARY_FILE), outside.to_json()).unwrap();
        assert_eq!(
            read_complete_run(&dir).unwrap_err(),
            Incomplete::BadName("../seed-2".into())
        );
    }

    #[test]
    fn temp_files_of_a_killed_writer_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join(".flows.csv.tmp-4242-0"), b"half").unwrap();
        fs::write(tmp.path().join("flows.csv"), b"whole").unwrap();
        assert_eq!(remove_temp_files(tmp.path()).unwrap(), 1);
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
        assert_eq!(remove_temp_files(&tmp.path().join("absent")).unwrap(), 0);
        // At the top of an output directory and in its plots, not in its runs.
        let plots = tmp.path().join(PLOTS_DIR);
        let run = run_dir(tmp.path(), "base", 1);
        for dir in [tmp.path(), &plots, &run] {
            fs::create_dir_all(dir).unwrap();
            fs::write(dir.join(".x.tmp-4242-1"), b"half").unwrap();
        }
        assert_eq!(remove_top_temp_files(tmp.path()).unwrap(), 2);
        assert!(run.join(".x.tmp-4242-1").exists());
    }

    #[test]
    fn directory_names_stay_one_component_of_at_most_255_bytes() {
        assert_eq!(check_dir_name("base"), Ok(()));
        assert_eq!(check_dir_name(&"x".repeat(255)), Ok(()));
        assert_eq!(
            check_dir_name(&"x".repeat(256)),
            Err(NameError::TooLong(256))
        );
        assert_eq!(check_dir_name(""), Err(NameError::Empty));
        assert_eq!(check_dir_name(".."), Err(NameError::Dot("..".into())));
        assert_eq!(check_dir_name("."), Err(NameError::Dot(".".into())));
        assert_eq!(check_dir_name("a/b"), Err(NameError::Separator));
        assert_eq!(check_dir_name("a\\b"), Err(NameError::Separator));
    }

    #[test]
    fn files_written_as_a_set_replace_none_when_one_cannot_be_written() {
        let tmp = tempfile::tempdir().unwrap();
        let (csv, json) = (
            tmp.path().join("summary.csv"),
            tmp.path().join("summary.json"),
        );
        write_atomic_all(&[(&csv, b"csv 1"), (&json, b"json 1")]).unwrap();
        assert_eq!(fs::read(&csv).unwrap(), b"csv 1");
        assert_eq!(fs::read(&json).unwrap(), b"json 1");
        // The second file cannot be written (its directory is a file: as a full disk, the
        // write fails before any rename): the first keeps its old contents too.
        fs::write(tmp.path().join("file"), b"").unwrap();
        let blocked = tmp.path().join("file/summary.json");
        let (path, _) = write_atomic_all(&[(&csv, b"csv 2"), (&blocked, b"json 2")]).unwrap_err();
        assert_eq!(path, blocked);
        assert_eq!(fs::read(&csv).unwrap(), b"csv 1");
        // No temporary file is left behind.
        let mut names: Vec<String> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["file", "summary.csv", "summary.json"]);
        write_atomic_all(&[(&csv, b"csv 3"), (&json, b"json 3")]).unwrap();
        assert_eq!(fs::read(&csv).unwrap(), b"csv 3");
        assert_eq!(fs::read(&json).unwrap(), b"json 3");
    }

    #[test]
    fn a_probe_of_a_run_directory_leaves_nothing_it_did_not_find() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = run_dir(tmp.path(), "base", 1);
        // Alone: every directory it created goes.
        probe_run_dir(&dir, true).unwrap();
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 0);
        // Beside other writers: only the run's own directory goes.
        probe_run_dir(&dir, false).unwrap();
        assert!(tmp.path().join(RUNS_DIR).join("base").is_dir() && !dir.exists());
        // An existing run directory and its files stay.
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(FLOWS_FILE), b"x").unwrap();
        probe_run_dir(&dir, true).unwrap();
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [FLOWS_FILE]);
        // A temporary file's name, so that one a killed writer left is cleaned like theirs.
        let name = longest_run_file_name();
        assert!(
            is_temp_name(&name) && name.starts_with(".timeseries.csv.tmp-"),
            "{name}"
        );
        // A path over the limit is refused (Linux: PATH_MAX is 4096 bytes).
        if cfg!(target_os = "linux") {
            let mut deep = tmp.path().to_path_buf();
            while deep.as_os_str().len() < 4000 {
                deep.push("d".repeat(200));
            }
            let err = probe_run_dir(&run_dir(&deep, "base", 1), true).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidFilename, "{err}");
            let names: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
            let names: Vec<_> = names.into_iter().map(|e| e.unwrap().file_name()).collect();
            assert_eq!(names, [RUNS_DIR], "the directories it created are gone");
        }
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

    #[test]
    fn only_regular_files_are_read_from_a_result_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("summary.json");
        fs::write(&file, "{}").unwrap();
        assert_eq!(read_regular_text(&file).unwrap(), "{}");
        // A link to a device (it read /dev/zero until memory ran out).
        #[cfg(unix)]
        {
            let link = tmp.path().join("run.json");
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
            let e = read_regular(&link).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        }
        assert_eq!(
            read_regular(&tmp.path().join("none")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
