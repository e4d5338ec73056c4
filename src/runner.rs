//! The run list and its execution: sweep points x seeds in a stable order with stable ids,
//! sharding, a rayon pool, each run's files written atomically as soon as it finishes, and runs
//! already complete skipped (so running the same command again resumes), and at the end the
//! cross-seed summaries ([`write_report`]).
//!
//! What one run computes is behind [`Executor`], so that the runner can be used (and tested)
//! independently of how a world is built.

use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::output::{self, RunFiles};
use crate::report::rebuild::{build_report, Report, ReportOptions};
use crate::report::ReportError;
use crate::scenario::{Loaded, Scenario};
use crate::shard::Shard;

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
    runs.iter()
        .filter(|r| shard.is_none_or(|s| s.contains(r.position)))
        .cloned()
        .collect()
}

/// A failure inside one run.
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
}

/// Computes one run. Implementations must be deterministic: the files depend only on the
/// scenario and the seed, never on timing or on which thread runs them.
pub trait Executor: Sync {
    /// Runs `scenario` with master seed `seed` and returns its files.
    fn execute(&self, scenario: &Scenario, seed: u64) -> Result<RunFiles, RunError>;
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
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The output directory.
    pub out: PathBuf,
    /// Worker threads (at least 1).
    pub jobs: usize,
    /// Only this part of the run list.
    pub shard: Option<Shard>,
}

/// What happened to one run, as reported to a progress callback.
#[derive(Debug)]
pub enum RunEvent<'a> {
    /// Its complete results already existed.
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
}

/// Runs every run of the shard that is not complete yet, `options.jobs` at a time, writing each
/// run's files as soon as it finishes. Writes `DIR/scenario.toml` first. `on_event` is called
/// once per run, from worker threads.
pub fn run_all(
    loaded: &Loaded,
    options: &RunOptions,
    executor: &dyn Executor,
    on_event: &(dyn Fn(RunEvent<'_>) + Sync),
) -> Result<RunReport, RunError> {
    let scenario_path = options.out.join(output::SCENARIO_FILE);
    output::write_atomic(&scenario_path, loaded.scenario.to_toml_string().as_bytes()).map_err(
        |source| RunError::Io {
            path: scenario_path.clone(),
            source,
        },
    )?;
    let runs = select(&run_list(loaded), options.shard);
    let name = &loaded.scenario.name;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.max(1))
        .build()
        .map_err(|e| RunError::Failed(format!("cannot start worker threads: {e}")))?;
    let outcomes: Vec<Outcome> = pool.install(|| {
        runs.par_iter()
            .map(|run| {
                let dir = run.dir(&options.out);
                if output::is_complete(&dir) {
                    on_event(RunEvent::Skipped(run));
                    return Outcome::Skipped;
                }
                let scenario = &loaded.points[run.point].scenario;
                let result = executor.execute(scenario, run.seed).and_then(|files| {
                    output::write_run(&dir, &files).map_err(|source| RunError::Io {
                        path: dir.clone(),
                        source,
                    })
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
        ..RunReport::default()
    };
    for (run, outcome) in runs.iter().zip(outcomes) {
        let id = run.id(name);
        match outcome {
            Outcome::Skipped => report.skipped.push(id),
            Outcome::Finished => report.finished.push(id),
            Outcome::Failed(why) => report.failed.push((id, why)),
        }
    }
    Ok(report)
}

/// What [`write_report`] did.
#[derive(Debug)]
pub enum ReportOutcome {
    /// Every run of the run list is complete in the output directory: the cross-seed summaries
    /// (and the plots, when the scenario asks for them) are written.
    Written(Report),
    /// Some runs are not in the output directory (a shard of a sweep, or failed runs): nothing
    /// is written; `htsim report` over the shard directories merges them later.
    Incomplete {
        /// Runs of the run list complete in the output directory.
        complete: usize,
        /// Runs in the run list.
        total: usize,
    },
}

/// The end of `htsim run`: when every run of the full run list is complete in `out` (always
/// after an unsharded run without failures; after a shard only if the other shards wrote into
/// the same directory and have finished), writes `out/summary.csv`, `out/summary.json` and, with
/// `[output] plots = true`, `out/plots`, exactly as `htsim report out` would. Otherwise writes
/// nothing and says how many runs are complete.
pub fn write_report(loaded: &Loaded, out: &Path) -> Result<ReportOutcome, ReportError> {
    let runs = run_list(loaded);
    let complete = runs
        .iter()
        .filter(|r| output::is_complete(&r.dir(out)))
        .count();
    if complete < runs.len() {
        return Ok(ReportOutcome::Incomplete {
            complete,
            total: runs.len(),
        });
    }
    let options = ReportOptions {
        plots: loaded.scenario.output.plots,
        only: Some(
            runs.iter()
                .map(|r| (r.point_name.clone(), r.seed))
                .collect(),
        ),
    };
    build_report(&[out.to_path_buf()], out, &options).map(ReportOutcome::Written)
}

enum Outcome {
    Skipped,
    Finished,
    Failed(String),
}
