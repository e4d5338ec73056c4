//! The run list and its execution: sweep points x seeds in a stable order with stable ids,
//! sharding, a rayon pool, each run's files written atomically as soon as it finishes, and runs
//! already complete with the same settings skipped (so running the same command again resumes;
//! see [`crate::identity`]), and at the end the cross-seed summaries ([`write_report`]).
//!
//! What one run computes is behind [`Executor`], so that the runner can be used (and tested)
//! independently of how a world is built.

use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::identity::{
    build_name, describe_differences, differences, Difference, FileDigests, RunIdentity, Settings,
    GIT_COMMIT, HTSIM_VERSION,
};
use crate::lock::{DirLock, LockError};
use crate::output::{self, RunFiles};
use crate::report::rebuild::{build_report, Report, ReportOptions};
use crate::report::ReportError;
use crate::scenario::{Loaded, Point, Scenario};
use crate::shard::{Shard, ShardError};

/// One run: a sweep point and a seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSpec {
    /// Position in the full run list (0-based); shards are taken by position.
    pub position: usize,
    /// Index of the sweep point in [`Loaded::points`].
    pub point: usize,
    /// The point's name (`base` or `key=value,...`).
    pub point_name: String,
    /// The master seed of the run.
    pub seed: u64,
}

impl RunSpec {
    /// The stable id `<scenario>/<point>/seed-<n>`: the same for the same scenario name,
    /// parameter values and seed, whatever the shard or job count.
    pub fn id(&self, scenario: &str) -> String {
        format!("{scenario}/{}/seed-{}", self.point_name, self.seed)
    }

    /// Whether the run belongs to `shard` (every run does when `None`).
    pub fn in_shard(&self, shard: Option<Shard>) -> bool {
        shard.is_none_or(|s| s.contains(self.position))
    }

    /// Where the run's files go under `out`.
    pub fn dir(&self, out: &Path) -> PathBuf {
        output::run_dir(out, &self.point_name, self.seed)
    }
}

/// The full run list: points in sweep order, each with its seeds in scenario order.
pub fn run_list(loaded: &Loaded) -> Vec<RunSpec> {
    let mut runs = Vec::new();
    for (point, p) in loaded.points.iter().enumerate() {
        for seed in p.scenario.run.seeds.list() {
            runs.push(RunSpec {
                position: runs.len(),
                point,
                point_name: p.name.clone(),
                seed,
            });
        }
    }
    runs
}

/// The runs of `shard` (all runs when `None`), in run-list order.
pub fn select(runs: &[RunSpec], shard: Option<Shard>) -> Vec<RunSpec> {
    runs.iter().filter(|r| r.in_shard(shard)).cloned().collect()
}

/// A failure of [`run_all`] or inside one run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The scenario asks for something that is not implemented yet.
    #[error("not available yet: {0}")]
    Unsupported(String),
    /// The simulation could not be set up or failed.
    #[error("{0}")]
    Failed(String),
    /// Writing the run's files failed.
    #[error("writing {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The output directory is an existing file.
    #[error("{0}: exists and is not a directory; the output must be a directory (a new path, or one of earlier results)")]
    NotADirectory(PathBuf),
    /// The output directory is the directory of one run, whose summary.json the summary
    /// would replace.
    #[error("{0}: is the directory of one run (it holds its run.json or summary.json), whose summary.json the summary over runs would replace; write to the result directory that holds `runs/`, or to a new one")]
    RunDirectory(PathBuf),
    /// Something that is not a directory (a file, say) is where a run's directory, or a
    /// directory above it in `out`, goes; or such a directory cannot be created there for want
    /// of permission.
    #[error("{path}: cannot hold a run's directory ({why}); move it away, or write to a new --out", path = .path.display())]
    InTheWay {
        /// The path in the way.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// [`RunOptions::out`] is empty.
    #[error("the output directory is an empty path: name a directory, e.g. results/NAME")]
    NoOutputDirectory,
    /// [`RunOptions::shard`] is not a shard [`Shard::new`] accepts.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// Another writer holds the output directory.
    #[error(transparent)]
    Locked(#[from] LockError),
    /// Complete runs in the output directory were simulated with other settings.
    #[error(transparent)]
    Stale(#[from] StaleRuns),
    /// The output directory's path is so long that the files of a run cannot be created in it.
    #[error(
        "{}: the output directory's path is too long: runs would write files such as \
         {} under it, {bytes} bytes in all, which the system refuses ({source}); use a shorter \
         --out", .out.display(), .file.display()
    )]
    PathTooLong {
        /// The output directory.
        out: PathBuf,
        /// The longest file a run writes, relative to `out`.
        file: PathBuf,
        /// The length of that file's path, `out` included, bytes.
        bytes: usize,
        /// What the system said.
        source: io::Error,
    },
}

impl RunError {
    /// Whether the error is the caller's (bad output directory, busy, stale runs) and nothing
    /// was run, as opposed to a failure while running or of the environment (a lock file that
    /// cannot be written on a full disk: [`LockError::is_usage`]).
    pub fn is_usage(&self) -> bool {
        match self {
            RunError::Locked(e) => e.is_usage(),
            e => matches!(
                e,
                RunError::NotADirectory(_)
                    | RunError::RunDirectory(_)
                    | RunError::InTheWay { .. }
                    | RunError::NoOutputDirectory
                    | RunError::Shard(_)
                    | RunError::Stale(_)
                    | RunError::PathTooLong { .. }
            ),
        }
    }
}

/// Complete runs in the output directory whose recorded settings differ from what the scenario
/// now asks for (or that record none): [`run_all`] stops before running anything.
#[derive(Debug)]
pub struct StaleRuns {
    /// The output directory.
    pub out: PathBuf,
    /// The stale runs, in run-list order.
    pub runs: Vec<StaleRun>,
}

/// One stale run.
#[derive(Debug)]
pub struct StaleRun {
    /// Its id.
    pub id: String,
    /// What differs: the settings whose values changed (recorded -> now), or why there is
    /// nothing to compare.
    pub why: Staleness,
}

/// Why a complete run is stale.
#[derive(Clone, Debug)]
pub enum Staleness {
    /// Its run.json is missing or unreadable (an older htsim, or an interrupted copy), or its
    /// digest is not that of its settings (edited by hand): [`RunIdentity::read`].
    NoIdentity,
    /// Its settings differ in these keys (recorded -> now). Empty when the settings read the
    /// same but their digests differ (written in another form by another htsim version).
    Changed(Vec<Difference>),
    /// It is not in the run list (a sweep value or seed no longer asked for).
    NotInRunList,
}

impl std::error::Error for StaleRuns {}

impl std::fmt::Display for StaleRuns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const SHOWN: usize = 10;
        write!(
            f,
            "{} complete run(s) in {} were simulated with other settings than asked for now; \
             nothing was run:",
            self.runs.len(),
            self.out.display()
        )?;
        for run in self.runs.iter().take(SHOWN) {
            match &run.why {
                Staleness::NoIdentity => write!(
                    f,
                    "\n  {}: no readable {} records what it simulated (missing, damaged, \
                     or its settings edited so that they no longer give its digest)",
                    run.id,
                    output::RUN_FILE
                )?,
                Staleness::NotInRunList => write!(
                    f,
                    "\n  {}: not in the run list (a sweep value or seed no longer asked for)",
                    run.id
                )?,
                Staleness::Changed(diff) if diff.is_empty() => write!(
                    f,
                    "\n  {}: same settings written in another form (another htsim version)",
                    run.id
                )?,
                Staleness::Changed(diff) => {
                    write!(f, "\n  {}: {}", run.id, describe_differences(diff, 5))?
                }
            }
        }
        if self.runs.len() > SHOWN {
            write!(f, "\n  and {} more run(s)", self.runs.len() - SHOWN)?;
        }
        Ok(())
    }
}

/// Computes one run. Implementations must be deterministic: the files depend only on the
/// scenario and the seed, never on timing or on which thread runs them.
pub trait Executor: Sync {
    /// Runs `scenario` with master seed `seed` and returns its files.
    fn execute(&self, scenario: &Scenario, seed: u64) -> Result<RunFiles, RunError>;

    /// Runs sweep point `point` (at `index` in [`Loaded::points`]) with master seed `seed`:
    /// what [`run_all`] calls, so that an executor can label the files with the point (its
    /// name and sweep values) even when two points resolve to the same scenario. By default,
    /// [`Executor::execute`] of the point's scenario.
    fn execute_point(&self, index: usize, point: &Point, seed: u64) -> Result<RunFiles, RunError> {
        let _ = index;
        self.execute(&point.scenario, seed)
    }
}

impl<F> Executor for F
where
    F: Fn(&Scenario, u64) -> Result<RunFiles, RunError> + Sync,
{
    fn execute(&self, scenario: &Scenario, seed: u64) -> Result<RunFiles, RunError> {
        self(scenario, seed)
    }
}

/// How to run a run list.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The output directory.
    pub out: PathBuf,
    /// Worker threads at most (at least 1 is used, and never more than runs to do).
    pub jobs: usize,
    /// Only this part of the run list (a shard [`Shard::new`] accepts: 1 <= index <= count).
    pub shard: Option<Shard>,
    /// Replace stale runs (complete runs simulated with other settings) instead of stopping:
    /// they are deleted, and those of this shard simulated again.
    pub replace_stale: bool,
    /// The command line, recorded in each run's run.json.
    pub command_line: Vec<String>,
    /// When no run failed, end with [`write_report`] while the output directory is still
    /// locked (so that no other writer changes the runs while they are summarised), its
    /// outcome in [`RunReport::summary`].
    pub write_report: bool,
}

/// What happened to one run, as reported to a progress callback.
#[derive(Debug)]
pub enum RunEvent<'a> {
    /// Its complete results already existed, simulated with the same settings.
    Skipped(&'a RunSpec),
    /// It finished and its files are written.
    Finished(&'a RunSpec),
    /// It failed.
    Failed(&'a RunSpec, &'a RunError),
}

/// The outcome of [`run_all`].
#[derive(Debug, Default)]
pub struct RunReport {
    /// Runs of this shard.
    pub selected: usize,
    /// Ids of runs skipped because they were complete.
    pub skipped: Vec<String>,
    /// Ids of runs finished now.
    pub finished: Vec<String>,
    /// Ids of failed runs, with the reason.
    pub failed: Vec<(String, String)>,
    /// Ids of stale runs replaced ([`RunOptions::replace_stale`]): run again when of this
    /// shard, else deleted.
    pub replaced: Vec<String>,
    /// Lock files of writers found gone and taken over.
    pub locks_taken_over: Vec<String>,
    /// Runs of this shard whose summary.json was there but not every file it lists, at the
    /// size written, or not every per-flow list this htsim writes ([`output::read_complete_run`]):
    /// simulated again like any incomplete run. Their ids, with what was wrong.
    pub damaged: Vec<(String, String)>,
    /// Skipped runs that another htsim build simulated (same settings), with that build
    /// ([`crate::identity::build_name`]): their results stand, but came from other code.
    pub skipped_other_build: Vec<(String, String)>,
    /// What [`write_report`] did, or why it failed, with [`RunOptions::write_report`] and no
    /// run failed (the runs' outcomes above stand either way).
    pub summary: Option<Result<ReportOutcome, ReportError>>,
}

/// What the output directory holds for one run of the full run list.
enum Existing {
    /// No run that finished (no summary.json that reads as one): it is to be run.
    Absent,
    /// A summary.json, but a file it lists lost or of another size: to be run again, like an
    /// absent run.
    Damaged(output::Incomplete),
    /// Complete, with the settings asked for now; the build that simulated it when it is not
    /// this one.
    Current(Option<String>),
    /// Complete with other settings.
    Stale(Staleness),
}

/// The first path under `out` where a directory of `runs` goes (a run's, its point's, or
/// `runs/`) that holds something else, such as a file. Each path is looked at once.
fn first_in_the_way<'a>(runs: impl Iterator<Item = &'a RunSpec>, out: &Path) -> Option<PathBuf> {
    let mut looked = std::collections::HashSet::new();
    for run in runs {
        let dir = run.dir(out);
        for path in dir.ancestors().take_while(|p| *p != out) {
            if !looked.insert(path.to_path_buf()) {
                break; // this path and those above it were looked at for an earlier run
            }
            if std::fs::metadata(path).is_ok_and(|m| !m.is_dir()) {
                return Some(path.to_path_buf());
            }
        }
    }
    None
}

/// Compares the complete runs in `out` with the run list's settings.
fn existing_runs(
    loaded: &Loaded,
    runs: &[RunSpec],
    out: &Path,
    files: &FileDigests,
) -> Vec<Existing> {
    runs.iter()
        .map(|run| {
            let dir = run.dir(out);
            match output::read_complete_run(&dir) {
                Ok(_) => {}
                Err(output::Incomplete::NoSummary) => return Existing::Absent,
                Err(why) => return Existing::Damaged(why),
            }
            let Some(recorded) = RunIdentity::read(&dir.join(output::RUN_FILE)) else {
                return Existing::Stale(Staleness::NoIdentity);
            };
            let now = Settings::with_files(&loaded.points[run.point].scenario, run.seed, files);
            if recorded.digest == now.digest {
                let build = recorded.build();
                let this = build_name(HTSIM_VERSION, GIT_COMMIT);
                Existing::Current((build != this).then_some(build))
            } else {
                Existing::Stale(Staleness::Changed(differences(
                    &recorded.settings,
                    &now.text,
                )))
            }
        })
        .collect()
}

/// Runs every run of the shard that is not complete yet ([`output::read_complete_run`]: also
/// one whose files were lost or cut short since it was written, or whose summary an older
/// htsim wrote without a per-flow list, [`RunReport::damaged`]), at
/// most `options.jobs` at a time, writing each run's files (its run.json identity first,
/// summary.json last) as soon as it finishes. `on_event` is called once per run, from worker threads.
///
/// Before anything runs: locks the output directory ([`DirLock`], held until this returns),
/// and compares every complete run of the full run list in it with the settings asked for now.
/// A run with the same settings is skipped; when any differs, returns [`RunError::Stale`]
/// naming them and what changed, having written nothing, unless
/// [`RunOptions::replace_stale`]. Then writes `DIR/scenario.toml`, so that it always
/// describes the complete runs of its run list (when it changes, the summaries and plots over
/// the old run list are deleted first: [`output::remove_report`]), and removes temporary files of a killed
/// writer (in the runs it is about to do; at the top and in the plots when it is the only
/// writer).
pub fn run_all(
    loaded: &Loaded,
    options: &RunOptions,
    executor: &dyn Executor,
    on_event: &(dyn Fn(RunEvent<'_>) + Sync),
) -> Result<RunReport, RunError> {
    let out = &options.out;
    if out.as_os_str().is_empty() {
        return Err(RunError::NoOutputDirectory);
    }
    if let Some(s) = options.shard {
        // The fields are public: a shard built by hand is checked as `--shard` is.
        Shard::new(s.index, s.count)?;
    }
    if out.exists() && !out.is_dir() {
        return Err(RunError::NotADirectory(out.clone()));
    }
    if output::is_run_dir(out) {
        return Err(RunError::RunDirectory(out.clone()));
    }
    let digest = crate::identity::scenario_digest(&loaded.scenario);
    let lock = DirLock::acquire(out, options.shard, Some(&digest))?;
    let all = run_list(loaded);
    // Referenced files are hashed once, before any run: what a run records is what they held
    // when the command started. A run fails when one no longer holds that once it is over
    // (`unchanged_files`): it read the file while it ran.
    let file_digests = FileDigests::default();
    let existing = existing_runs(loaded, &all, out, &file_digests);
    // Stale: complete runs of the list with other settings, and complete runs not in it.
    let mut stale_dirs: Vec<PathBuf> = Vec::new();
    let mut stale: Vec<StaleRun> = Vec::new();
    for (run, e) in all.iter().zip(&existing) {
        if let Existing::Stale(why) = e {
            stale_dirs.push(run.dir(out));
            stale.push(StaleRun {
                id: run.id(&loaded.scenario.name),
                why: why.clone(),
            });
        }
    }
    let listed: std::collections::BTreeSet<PathBuf> = all.iter().map(|r| r.dir(out)).collect();
    for dir in crate::report::merge::run_dirs(&out.join(output::RUNS_DIR)) {
        if output::is_complete(&dir) && !listed.contains(&dir) {
            stale.push(StaleRun {
                id: dir.strip_prefix(out).unwrap_or(&dir).display().to_string(),
                why: Staleness::NotInRunList,
            });
            stale_dirs.push(dir);
        }
    }
    if !stale.is_empty() && !options.replace_stale {
        return Err(StaleRuns {
            out: out.clone(),
            runs: stale,
        }
        .into());
    }
    let io_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| RunError::Io { path, source }
    };
    // The deepest file a run of this shard writes must be creatable before anything runs: a
    // path over the system's limit would otherwise fail each run once it has simulated.
    // A file where a run's directory (or `runs/`, or a point's directory) goes is the caller's,
    // refused before anything runs as an --out in the way is: it failed only the runs that
    // reach it, after the others had run.
    let shard_runs = all.iter().filter(|r| r.in_shard(options.shard));
    if let Some(path) = first_in_the_way(shard_runs.clone(), out) {
        return Err(RunError::InTheWay {
            path,
            why: "it exists and is not a directory".into(),
        });
    }
    let deepest = shard_runs
        .map(|r| r.dir(out))
        .max_by_key(|d| d.as_os_str().len());
    if let Some(dir) = deepest {
        output::probe_run_dir(&dir, lock.alone()).map_err(|source| {
            let file = dir.join(output::longest_run_file_name());
            if source.kind() == io::ErrorKind::InvalidFilename {
                RunError::PathTooLong {
                    out: out.clone(),
                    bytes: file.as_os_str().len(),
                    file: file.strip_prefix(out).unwrap_or(&file).to_path_buf(),
                    source,
                }
            } else if crate::lock::is_path_problem(source.kind()) {
                RunError::InTheWay {
                    path: dir,
                    why: source.to_string(),
                }
            } else {
                RunError::Io { path: dir, source }
            }
        })?;
    }
    let scenario_path = out.join(output::SCENARIO_FILE);
    let resolved = loaded.to_toml_string().map_err(|e| {
        RunError::Failed(format!("cannot write the resolved scenario as TOML: {e}"))
    })?;
    // The summaries, reference.csv and plots describe the run list of scenario.toml: when it
    // changes (other seeds, sweep values or settings) or runs are replaced, they go first, and
    // the new ones are written only once the new run list is complete. Stale runs go before
    // scenario.toml changes, so that no complete run ever contradicts it (even if this
    // process is killed next); this shard's are then run, other shards' by them.
    let recorded = output::read_regular(&scenario_path).ok();
    if !stale.is_empty() || recorded.as_deref() != Some(resolved.as_bytes()) {
        output::remove_report(out).map_err(io_error(out))?;
    }
    for dir in &stale_dirs {
        output::remove_run(dir).map_err(io_error(dir))?;
    }
    if lock.alone() {
        output::remove_top_temp_files(out).map_err(io_error(out))?;
    }
    output::write_atomic(&scenario_path, resolved.as_bytes()).map_err(io_error(&scenario_path))?;
    let runs: Vec<(&RunSpec, &Existing)> = all
        .iter()
        .zip(&existing)
        .filter(|(r, _)| r.in_shard(options.shard))
        .collect();
    let to_do = runs
        .iter()
        .filter(|(_, e)| !matches!(e, Existing::Current(_)))
        .count();
    let damaged = runs
        .iter()
        .filter_map(|(run, e)| match e {
            Existing::Damaged(why) => Some((run.id(&loaded.scenario.name), why.to_string())),
            _ => None,
        })
        .collect();
    let name = &loaded.scenario.name;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.min(to_do).max(1))
        .build()
        .map_err(|e| RunError::Failed(format!("cannot start worker threads: {e}")))?;
    let outcomes: Vec<Outcome> = pool.install(|| {
        runs.par_iter()
            .map(|&(run, existing)| {
                if let Existing::Current(build) = existing {
                    on_event(RunEvent::Skipped(run));
                    return Outcome::Skipped(build.clone());
                }
                let dir = run.dir(out);
                let point = &loaded.points[run.point];
                let scenario = &point.scenario;
                let settings = Settings::with_files(scenario, run.seed, &file_digests);
                let result = output::remove_temp_files(&dir)
                    .map_err(io_error(&dir))
                    .and_then(|_| executor.execute_point(run.point, point, run.seed))
                    .and_then(|files| {
                        unchanged_files(scenario, run.seed, &settings)?;
                        let identity =
                            RunIdentity::new(run.id(name), &settings, &options.command_line);
                        output::write_run(&dir, &identity.to_json(), &files).map_err(io_error(&dir))
                    });
                match result {
                    Ok(()) => {
                        on_event(RunEvent::Finished(run));
                        Outcome::Finished
                    }
                    Err(e) => {
                        on_event(RunEvent::Failed(run, &e));
                        Outcome::Failed(e.to_string())
                    }
                }
            })
            .collect()
    });
    let mut report = RunReport {
        selected: runs.len(),
        replaced: stale.into_iter().map(|s| s.id).collect(),
        locks_taken_over: lock.taken_over().to_vec(),
        damaged,
        ..RunReport::default()
    };
    for ((run, _), outcome) in runs.iter().zip(outcomes) {
        let id = run.id(name);
        match outcome {
            Outcome::Skipped(other) => {
                if let Some(build) = other {
                    report.skipped_other_build.push((id.clone(), build));
                }
                report.skipped.push(id);
            }
            Outcome::Finished => report.finished.push(id),
            Outcome::Failed(why) => report.failed.push((id, why)),
        }
    }
    if options.write_report && report.failed.is_empty() {
        report.summary = Some(write_report(loaded, out));
    }
    // Only now is the directory unlocked.
    drop(lock);
    Ok(report)
}

/// What [`write_report`] did.
#[derive(Debug)]
pub enum ReportOutcome {
    /// Every run of the run list is complete in the output directory: the cross-seed summaries
    /// (and the plots, when the scenario asks for them) are written.
    Written(Report),
    /// Some runs are not in the output directory with the settings the scenario gives them
    /// (a shard of a sweep, failed runs, or runs another writer simulated with other
    /// settings): nothing is written; `htsim report` over the shard directories merges them
    /// later.
    Incomplete {
        /// Runs of the run list complete in the output directory with the current settings.
        complete: usize,
        /// Runs in the run list.
        total: usize,
        /// Ids of complete runs simulated with other settings (or recording none).
        stale: Vec<String>,
    },
}

/// The end of `htsim run`: when every run of the full run list is complete in `out` with the
/// settings the scenario gives it (always after an unsharded run without failures; after a
/// shard only if the other shards wrote into the same directory with the same settings and
/// have finished), writes `out/summary.csv`, `out/summary.json` and, with
/// `[output] plots = true`, `out/plots`, exactly as `htsim report out` would. Otherwise writes
/// nothing and says how many runs are complete and which are stale.
pub fn write_report(loaded: &Loaded, out: &Path) -> Result<ReportOutcome, ReportError> {
    let runs = run_list(loaded);
    let existing = existing_runs(loaded, &runs, out, &FileDigests::default());
    let complete = existing
        .iter()
        .filter(|e| matches!(e, Existing::Current(_)))
        .count();
    if complete < runs.len() {
        let stale = runs
            .iter()
            .zip(&existing)
            .filter(|(_, e)| matches!(e, Existing::Stale(_)))
            .map(|(r, _)| r.id(&loaded.scenario.name))
            .collect();
        return Ok(ReportOutcome::Incomplete {
            complete,
            total: runs.len(),
            stale,
        });
    }
    let options = ReportOptions {
        plots: loaded.scenario.output.plots,
        only: Some(
            runs.iter()
                .map(|r| (r.point_name.clone(), r.seed))
                .collect(),
        ),
        references: crate::report::reference::checks(loaded),
        swept: crate::report::swept::SweptValues::of(loaded),
    };
    build_report(&[out.to_path_buf()], out, &options).map(ReportOutcome::Written)
}

/// Checks that the files the run of `scenario` with `seed` reads (CDF, pairs and topology
/// files) still hold what `settings` records, read again now that the run is over. The run
/// read them while it ran, after `settings` was taken: a file edited in between could have
/// given it other contents than its run.json would name, so such a run fails, writing
/// nothing, and the command is to be run again.
fn unchanged_files(scenario: &Scenario, seed: u64, settings: &Settings) -> Result<(), RunError> {
    let now = Settings::of(scenario, seed);
    if now.digest == settings.digest {
        return Ok(());
    }
    let files: Vec<String> = differences(&settings.text, &now.text)
        .into_iter()
        .map(|d| d.key.strip_prefix("files.").unwrap_or(&d.key).to_string())
        .collect();
    Err(RunError::Failed(format!(
        "{} changed while the command ran, so this run may have read other contents than \
         the command started with; its results are not written: run the command again",
        files.join(", ")
    )))
}

enum Outcome {
    /// Skipped; simulated by another build (named) or this one (`None`).
    Skipped(Option<String>),
    Finished,
    Failed(String),
}
