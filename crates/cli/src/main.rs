//! `htsim`: run, validate, report and list scenarios (docs/scenarios.md, "Command line").
//!
//! This binary parses arguments, shows progress and maps outcomes to exit codes: 0 success,
//! 2 bad arguments or scenario, 1 failure while running. Everything else is in the `htsim`
//! library.

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use clap::{CommandFactory as _, Parser, Subcommand};
use htsim::report::merge;
use htsim::report::rebuild::{build_report, Report, ReportOptions};
use htsim::runner::{self, ReportOutcome, RunEvent, RunOptions};
use htsim::scenario::{self, LoadOptions, Seeds};
use htsim::shard::Shard;
use htsim_core::SimTime;
use indicatif::{ProgressBar, ProgressStyle};

/// `eprintln!` that ignores a stderr that is closed or fails (`htsim run ... 2>&1 | head`): a
/// message that cannot be shown must not stop the runs, whose results go to files.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `println!` that ignores a stdout that is closed or fails (`htsim validate ... | head`).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod bench;
mod generate;
mod list;
mod progress;
use list::ListWhat;
use progress::LogProgress;

/// Packet-level simulator of datacenter networks.
#[derive(Parser, Debug)]
#[command(
    name = "htsim",
    version,
    about,
    after_long_help = "Exit status: 0 success; 2 bad arguments or a bad scenario (nothing was \
                       run); 1 a failure while running.\n\nThe scenario file, the outputs and \
                       the model are documented in the docs/ directory of the htsim repository \
                       (scenarios.md, outputs.md, model.md); `htsim list` prints every scenario \
                       key with its default."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a scenario: every sweep point for every seed.
    Run(RunArgs),
    /// Check scenarios: set up every sweep point as a run would; print the size of each run
    /// list.
    Validate {
        /// Scenario files.
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
        /// Override a value: PATH=VALUE (repeatable), e.g. flows.short.size=100KB.
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
    },
    /// Rebuild summary.csv and summary.json (and plots) from the run files, merging shard
    /// directories.
    Report(ReportArgs),
    /// Every key a scenario may hold: its default, type and what it does.
    List {
        /// What to list (everything when absent).
        what: Option<ListWhat>,
    },
    /// Print a shell completion script, e.g. `htsim completions bash >
    /// ~/.local/share/bash-completion/completions/htsim`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `htsim man > ~/.local/share/man/man1/htsim.1`.
    Man {
        /// Write one page per command (htsim.1, htsim-run.1, ...) into this existing directory
        /// instead.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
    },
    /// Run the built-in benchmark suite, each scenario in its own process: wall time, events
    /// and data packets per second, events per packet, peak memory (docs/performance.md).
    Bench(bench::BenchArgs),
}

#[derive(Parser, Debug)]
struct RunArgs {
    /// The scenario file.
    scenario: PathBuf,
    /// Output directory [default: results/<scenario name>].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run seeds 1..=N instead of the scenario's seeds (N at most 1000000).
    #[arg(long, conflicts_with = "seed")]
    seeds: Option<u64>,
    /// Run this one seed instead of the scenario's seeds.
    #[arg(long)]
    seed: Option<u64>,
    /// Runs at a time, at least 1; more than the runs to do (or 1024) are not started
    /// [default: the number of cores].
    #[arg(long)]
    jobs: Option<usize>,
    /// Override a value: PATH=VALUE (repeatable), e.g. flows.short.size=100KB.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    set: Vec<String>,
    /// Run the I-th of N parts of the run list (1-based), e.g. 2/4.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Number of shards, for Kubernetes indexed jobs (JOB_COMPLETION_INDEX) and Slurm arrays.
    #[arg(long, value_name = "N", conflicts_with = "shard")]
    shard_count: Option<usize>,
    /// Replace stale runs: complete runs in --out simulated with other settings than asked for
    /// now (a changed scenario or --set) are simulated again (other shards' are deleted).
    /// Without it, such runs stop the command before anything runs (exit 2).
    #[arg(long)]
    replace_stale: bool,
    /// Print only errors, warnings and notes that qualify the results (stale runs replaced,
    /// runs of another build), and the final line.
    #[arg(long, short)]
    quiet: bool,
}

/// The most runs at a time, whatever `--jobs` says.
const MAX_JOBS: usize = 1024;

/// `htsim report DIR... [--out OUT] [--plots]`.
#[derive(Parser, Debug)]
struct ReportArgs {
    /// Result directories: one `htsim run` output, or the directories of the shards of one
    /// sweep (a run found in several is taken from the first).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Where to write summary.csv, summary.json and plots/ [default: the first DIR].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Draw the plots (also drawn when the scenario has `[output] plots = true`).
    #[arg(long)]
    plots: bool,
    /// Print only errors, and warnings and notes that qualify the summary (missing runs, runs
    /// without run.json or of several builds).
    #[arg(long, short)]
    quiet: bool,
}

/// A failure and its exit code.
struct Failure {
    code: u8,
    message: String,
}

fn usage(message: impl Into<String>) -> Failure {
    Failure {
        code: 2,
        message: message.into(),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run(args),
        Command::Validate { scenarios, set } => validate(&scenarios, set),
        Command::Report(args) => report(&args),
        Command::List { what } => {
            list(what);
            Ok(())
        }
        Command::Completions { shell } => {
            generate::completions(Cli::command(), shell);
            Ok(())
        }
        Command::Man { out_dir } => match out_dir.as_deref().filter(|d| !d.is_dir()) {
            // A path that names no directory is the caller's (exit 2), as for `run --out`; a
            // write that fails in one is the machine's (exit 1).
            Some(d) => Err(usage(format!(
                "--out-dir {}: {}; expected an existing directory",
                d.display(),
                if d.exists() {
                    "not a directory"
                } else {
                    "no such directory"
                }
            ))),
            None => generate::man(Cli::command(), out_dir.as_deref()).map_err(|e| {
                let place = out_dir.map_or("stdout".into(), |d| d.display().to_string());
                Failure {
                    code: 1,
                    message: format!("cannot write the man pages to {place}: {e}"),
                }
            }),
        },
        Command::Bench(args) => bench::bench(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            note!("error: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

fn load(path: &Path, options: &LoadOptions) -> Result<scenario::Loaded, Failure> {
    scenario::load(path, options).map_err(|e| usage(e.to_string()))
}

fn run(args: RunArgs) -> Result<(), Failure> {
    if args.seeds == Some(0) {
        return Err(usage("--seeds 0 runs nothing: expected at least 1"));
    }
    if let Some(n) = args.seeds.filter(|&n| n > scenario::MAX_SEED_COUNT) {
        return Err(usage(format!(
            "--seeds {n}: at most {} seeds (like `run.seeds`)",
            scenario::MAX_SEED_COUNT
        )));
    }
    if let Some(s) = args.seed.filter(|&s| s > i64::MAX as u64) {
        return Err(usage(format!(
            "--seed {s}: at most {} (a TOML integer, like `run.seeds`)",
            i64::MAX
        )));
    }
    let seeds = match (args.seeds, args.seed) {
        (Some(n), _) => Some(Seeds::Count(n)),
        (None, Some(s)) => Some(Seeds::List(vec![s])),
        _ => None,
    };
    let shard = match &args.shard {
        Some(s) => Some(s.parse::<Shard>().map_err(|e| usage(e.to_string()))?),
        None => Shard::from_env(args.shard_count, |k| std::env::var(k).ok())
            .map_err(|e| usage(e.to_string()))?,
    };
    if args.jobs == Some(0) {
        return Err(usage("--jobs 0: expected at least 1"));
    }
    let options = LoadOptions {
        overrides: args.set.clone(),
        seeds,
        ..LoadOptions::default()
    };
    let loaded = load(&args.scenario, &options)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("results").join(&loaded.scenario.name));
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let all_runs = runner::run_list(&loaded);
    let runs = runner::select(&all_runs, shard);
    let jobs = jobs.min(runs.len()).clamp(1, MAX_JOBS);
    preflight(&loaded, jobs)?;
    if !args.quiet {
        // Every point runs every seed: the run list is points x seeds.
        let points = loaded.points.len();
        let seeds = all_runs.len() / points.max(1);
        let part = shard.map_or(String::new(), |s| {
            format!("; shard {s}: {} of them", runs.len())
        });
        note!(
            "{}: {points} point(s) x {seeds} seed(s) = {} run(s){part}, {jobs} at a time, into {}",
            loaded.scenario.name,
            all_runs.len(),
            out.display()
        );
    }
    // A sweep shows a bar over runs; a single run shows its simulated time. On a terminal as a
    // bar with an ETA; otherwise (a log) as plain progress lines.
    let single = runs.len() == 1;
    let log =
        (!args.quiet && !std::io::stderr().is_terminal()).then(|| Arc::new(LogProgress::new()));
    let bar = if args.quiet || log.is_some() {
        ProgressBar::hidden()
    } else if single {
        ProgressBar::new(1)
    } else {
        ProgressBar::new(runs.len() as u64)
    };
    let template = if single {
        "{bar:40} {msg}  {elapsed_precise}  ETA {eta}"
    } else {
        "{bar:40} {pos}/{len} runs  {elapsed_precise}  ETA {eta}  {msg}"
    };
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let total = runs.len() as u64;
    let done = Arc::new(AtomicU64::new(0));
    let mut simulator = htsim::simulate::Simulator::for_loaded(&loaded);
    if single && !args.quiet {
        let (sim_bar, log) = (bar.clone(), log.clone());
        simulator = simulator.with_progress(Arc::new(move |now: SimTime, end: SimTime| {
            let message = format!(
                "simulated {:.3} s of {:.3} s",
                now.as_secs_f64(),
                end.as_secs_f64()
            );
            if let Some(log) = &log {
                log.update(now.as_secs_f64(), end.as_secs_f64(), || message);
            } else {
                sim_bar.set_length(end.as_us().max(1));
                sim_bar.set_position(now.as_us());
                sim_bar.set_message(message);
            }
        }));
    } else if let Some(log) = log.clone() {
        // Simulated-time ticks of the runs under way: a heartbeat line between run ends.
        let done = Arc::clone(&done);
        simulator = simulator.with_progress(Arc::new(move |_: SimTime, _: SimTime| {
            let n = done.load(Ordering::Relaxed);
            log.update(n as f64, total as f64, || format!("{n}/{total} runs"));
        }));
    }
    let name = loaded.scenario.name.clone();
    let on_event = |event: RunEvent<'_>| {
        match event {
            RunEvent::Skipped(r) => bar.set_message(format!("skipped {} (complete)", r.id(&name))),
            RunEvent::Finished(r) => bar.set_message(r.id(&name)),
            RunEvent::Failed(r, e) if log.is_some() => note!("failed: {}: {e}", r.id(&name)),
            RunEvent::Failed(r, e) => bar.println(format!("failed: {}: {e}", r.id(&name))),
        }
        if !single {
            bar.inc(1);
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(log) = &log {
                log.update(n as f64, total as f64, || format!("{n}/{total} runs"));
            }
        }
    };
    let options = RunOptions {
        out: out.clone(),
        jobs,
        shard,
        replace_stale: args.replace_stale,
        command_line: std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        write_report: true,
    };
    let report = runner::run_all(&loaded, &options, &simulator, &on_event).map_err(|e| {
        bar.finish_and_clear();
        run_failure(&e, &out)
    })?;
    bar.finish_and_clear();
    for lock in &report.locks_taken_over {
        note!("note: took over the lock of a writer that is gone: {lock}");
    }
    if let Some((id, why)) = report.damaged.first() {
        note!(
            "note: {} run(s) were no longer complete (a file lost or cut short since, or a \
             summary from an older htsim) and were simulated again (e.g. {id}: {why})",
            report.damaged.len()
        );
    }
    if !report.replaced.is_empty() {
        note!(
            "replaced {} stale run(s) (--replace-stale)",
            report.replaced.len()
        );
    }
    if !report.skipped.is_empty() && !args.quiet {
        note!(
            "skipped {} run(s) already complete in {}",
            report.skipped.len(),
            out.display()
        );
    }
    if let Some((id, build)) = report.skipped_other_build.first() {
        note!(
            "note: {} skipped run(s) were simulated by another htsim build, with the same \
             settings (e.g. {id}, by htsim {build}; this is htsim {}): their results are \
             kept; to simulate them with this build, write to a new --out",
            report.skipped_other_build.len(),
            htsim::identity::build_name(
                htsim::identity::HTSIM_VERSION,
                htsim::identity::GIT_COMMIT
            )
        );
    }
    if !report.failed.is_empty() {
        let mut message = format!(
            "{} of {} run(s) failed:",
            report.failed.len(),
            report.selected
        );
        for (id, why) in &report.failed {
            message.push_str(&format!("\n  {id}: {why}"));
        }
        return Err(Failure { code: 1, message });
    }
    note!(
        "done: {} run(s) finished, {} skipped; results in {}",
        report.finished.len(),
        report.skipped.len(),
        out.display()
    );
    match report.summary {
        Some(Err(e)) => {
            return Err(Failure {
                code: 1,
                message: format!("writing the summary: {e}"),
            })
        }
        Some(Ok(ReportOutcome::Written(r))) => {
            note_builds(&r);
            if !args.quiet {
                print_report(&r, &out);
            }
        }
        None => {}
        Some(Ok(ReportOutcome::Incomplete { stale, .. })) if !stale.is_empty() => {
            return Err(Failure {
                code: 2,
                message: format!(
                    "summary not written: {} run(s) in {} were simulated with other settings \
                     than this scenario gives them (another writer, e.g. a shard run with \
                     other --set values): {}",
                    stale.len(),
                    out.display(),
                    stale.join(", ")
                ),
            })
        }
        Some(Ok(ReportOutcome::Incomplete {
            complete, total, ..
        })) => note!(
            "summary not written: {complete} of {total} run(s) are in {}; when every shard \
             has finished, merge them with `htsim report DIR...`",
            out.display()
        ),
    }
    Ok(())
}

/// The failure of `runner::run_all`: the caller's (exit 2, with what to do) or the run's.
fn run_failure(e: &runner::RunError, out: &Path) -> Failure {
    if !e.is_usage() {
        return Failure {
            code: 1,
            message: e.to_string(),
        };
    }
    let mut message = e.to_string();
    if matches!(e, runner::RunError::Stale(_)) {
        message.push_str(&format!(
            "\nhint: write to a new directory (--out), or add --replace-stale to simulate \
             these runs again with the new settings in {}",
            out.display()
        ));
    }
    usage(message)
}

/// A note when the runs a summary is over were simulated by more than one htsim build.
fn note_builds(r: &Report) {
    if r.builds.len() > 1 {
        let builds: Vec<String> = r
            .builds
            .iter()
            .map(|(build, n)| format!("htsim {build}: {n} run(s)"))
            .collect();
        note!(
            "note: the summary is over runs of {} htsim builds ({}); to have it over one \
             build's results, simulate them again into a new --out",
            r.builds.len(),
            builds.join(", ")
        );
    }
}

/// What a report wrote, one line per kind of file; then the comparison with the scenario's
/// references, as a table on stdout.
fn print_report(r: &Report, out: &Path) {
    let plots = r
        .files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "png"))
        .count();
    note!(
        "summary: {} and {} ({} row(s) over {} run(s))",
        out.join(htsim::output::SUMMARY_CSV_FILE).display(),
        out.join(htsim::output::SUMMARY_JSON_FILE).display(),
        r.rows,
        r.runs
    );
    if plots > 0 {
        note!(
            "plots: {} chart(s) as PNG and SVG in {}",
            plots,
            out.join(htsim::output::PLOTS_DIR).display()
        );
    }
    if !r.references.is_empty() {
        let outside = r
            .references
            .iter()
            .filter(|row| matches!(row.status(), "outside" | "missing"))
            .count();
        note!(
            "references: {} ({} comparison(s), {outside} outside or missing)",
            out.join(htsim::output::REFERENCE_CSV_FILE).display(),
            r.references.len()
        );
        let _ =
            std::io::stdout().write_all(htsim::report::reference::table(&r.references).as_bytes());
    }
}

/// Sets up every sweep point as a run would, `runs_at_once` sharing the memory: every problem
/// found, with its place in the scenario, as one usage failure. Then warns of what would run
/// but not as the scenario reads ([`scenario::Loaded::arrival_warnings`]).
fn preflight(loaded: &scenario::Loaded, runs_at_once: usize) -> Result<(), Failure> {
    htsim::simulate::preflight::check(loaded, runs_at_once as u64).map_err(|problems| {
        let all: Vec<String> = problems.0.iter().map(ToString::to_string).collect();
        usage(all.join("\nerror: "))
    })?;
    for warning in loaded.arrival_warnings() {
        note!("warning: {warning}");
    }
    Ok(())
}

fn validate(paths: &[PathBuf], set: Vec<String>) -> Result<(), Failure> {
    let options = LoadOptions {
        overrides: set,
        seeds: None,
        ..LoadOptions::default()
    };
    let mut failures = Vec::new();
    for path in paths {
        match scenario::load(path, &options) {
            Ok(loaded) => {
                if let Err(f) = preflight(&loaded, 1) {
                    failures.push(f.message);
                    continue;
                }
                let runs = runner::run_list(&loaded).len();
                say!(
                    "{}: ok: {} point(s), {runs} run(s)",
                    path.display(),
                    loaded.points.len()
                );
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(usage(failures.join("\nerror: ")))
    }
}

fn report(args: &ReportArgs) -> Result<(), Failure> {
    let dirs = &args.dirs;
    for d in dirs {
        if !d.is_dir() {
            let why = if d.exists() {
                "not a directory"
            } else {
                "no such directory"
            };
            return Err(usage(format!("{}: {why}", d.display())));
        }
    }
    let out = args.out.clone().unwrap_or_else(|| dirs[0].clone());
    if out.exists() && !out.is_dir() {
        return Err(usage(format!(
            "--out {}: exists and is not a directory",
            out.display()
        )));
    }
    // A DIR that is itself one run's directory is refused by the merge below (no runs/).
    if htsim::output::is_run_dir(&out) {
        return Err(usage(format!(
            "{}{}",
            if args.out.is_some() { "--out " } else { "" },
            runner::RunError::RunDirectory(out)
        )));
    }
    // The run list of the scenario the runs came from (DIR/scenario.toml, written by `run`),
    // when one of the directories has it: the report covers exactly its runs. Directories of
    // different scenarios, or runs with other settings, are not merged.
    let same = |a: &Path, b: &Path| {
        a == b
            || a.canonicalize()
                .is_ok_and(|a| b.canonicalize().is_ok_and(|b| a == b))
    };
    let out_is_input = dirs.iter().any(|d| same(d, &out));
    let mut scenarios = merge::scenario_files(dirs);
    if !out_is_input {
        // A merged directory that already describes a scenario must describe this one.
        scenarios.extend(merge::scenario_files(std::slice::from_ref(&out)));
    }
    merge::check_scenarios(&scenarios).map_err(|e| usage(e.to_string()))?;
    let scenario_dir = scenarios.first().map(|(d, _)| d.clone());
    let scenario_file = scenario_dir
        .as_ref()
        .map(|d| d.join(htsim::output::SCENARIO_FILE));
    // The run list covers every directory's seeds, whatever the order of the directories.
    let load_options = LoadOptions {
        seeds: merge::seed_union(&scenarios).map(htsim::scenario::Seeds::List),
        skip_file_checks: true,
        ..LoadOptions::default()
    };
    // The recorded scenario's relative file paths point next to the scenario it was run from:
    // the report needs only its run list and settings, not those files.
    let loaded = match &scenario_file {
        Some(f) => Some(scenario::load(f, &load_options).map_err(|e| {
            usage(format!(
                "{e}
the report needs {} to know which runs to summarise",
                f.display()
            ))
        })?),
        None => None,
    };
    let with_scenario = loaded.as_ref().zip(scenario_dir.as_deref());
    let unverified = merge::check_runs(dirs, with_scenario).map_err(|e| usage(e.to_string()))?;
    // Only a merge that passed its checks creates (and locks) the output directory.
    // A full disk is the environment's failure (exit 1), a busy or unwritable path the
    // caller's (exit 2).
    let lock = htsim::lock::DirLock::acquire(&out, None, None).map_err(|e| Failure {
        code: if e.is_usage() { 2 } else { 1 },
        message: e.to_string(),
    })?;
    // The summary of --out would no longer describe the runs it holds. Checked under the lock,
    // so that no writer can add runs to it after the check.
    if !out_is_input && merge::holds_runs(&out) {
        return Err(usage(format!(
            "--out {}: holds runs of its own, which a summary of only the other directories \
             would not describe; list it among the directories to merge its runs too (htsim \
             report {} {}), or write elsewhere",
            out.display(),
            out.display(),
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        )));
    }
    if lock.alone() {
        // What a killed report (or run) left half-written at the top and in the plots.
        htsim::output::remove_top_temp_files(&out).map_err(|e| Failure {
            code: 1,
            message: format!("{}: removing temporary files: {e}", out.display()),
        })?;
    }
    if !unverified.is_empty() {
        note!(
            "warning: {} run(s) record no run.json (an older htsim): their settings are not \
             checked, e.g. {}",
            unverified.len(),
            unverified[0]
        );
    }
    let mut options = ReportOptions {
        plots: args.plots,
        ..ReportOptions::default()
    };
    if let Some(loaded) = &loaded {
        let runs = runner::run_list(loaded);
        // Each run no directory holds complete, with its first copy whose files were lost or
        // cut short (its directory and what is wrong), if any.
        let missing: Vec<(String, Option<String>)> = runs
            .iter()
            .filter_map(|r| {
                let mut damaged = None;
                for d in dirs {
                    let dir = r.dir(d);
                    match htsim::output::read_complete_run(&dir) {
                        Ok(_) => return None,
                        Err(htsim::output::Incomplete::NoSummary) => {}
                        Err(why) => {
                            damaged.get_or_insert(format!("{}: {why}", dir.display()));
                        }
                    }
                }
                Some((r.id(&loaded.scenario.name), damaged))
            })
            .collect();
        if !args.quiet || !missing.is_empty() {
            note!(
                "{}: {} of {} run(s) complete across {} director{}",
                loaded.scenario.name,
                runs.len() - missing.len(),
                runs.len(),
                dirs.len(),
                if dirs.len() == 1 { "y" } else { "ies" }
            );
        }
        for (id, damaged) in missing.iter().take(20) {
            match damaged {
                None => note!("  missing: {id}"),
                Some(why) => note!("  missing: {id} (incomplete copy: {why})"),
            }
        }
        options.plots |= loaded.scenario.output.plots;
        options.references = htsim::report::reference::checks(loaded);
        options.swept = htsim::report::swept::SweptValues::of(loaded);
        options.only = Some(
            runs.iter()
                .map(|r| (r.point_name.clone(), r.seed))
                .collect(),
        );
    }
    // The merged directory describes itself: the scenario with the merged seed list. Written
    // before the summary, and when it changes the summaries and plots over the run list it
    // described go first (as `htsim run` does), so that a report cut short (killed, a full
    // disk) never leaves a summary over another run list than scenario.toml gives.
    if let Some(loaded) = &loaded {
        let target = out.join(htsim::output::SCENARIO_FILE);
        let text = loaded.to_toml_string().map_err(|e| Failure {
            code: 1,
            message: format!("{}: the scenario cannot be written: {e}", target.display()),
        })?;
        if htsim::output::read_regular(&target).ok().as_deref() != Some(text.as_bytes()) {
            htsim::output::remove_report(&out).map_err(|e| Failure {
                code: 1,
                message: format!("{}: removing the old summaries: {e}", out.display()),
            })?;
            htsim::output::write_atomic(&target, text.as_bytes()).map_err(|e| Failure {
                code: 1,
                message: format!("{}: {e}", target.display()),
            })?;
        }
    }
    let report = build_report(dirs, &out, &options).map_err(|e| Failure {
        code: 1,
        message: e.to_string(),
    })?;
    note_builds(&report);
    if !args.quiet {
        print_report(&report, &out);
    }
    Ok(())
}

fn list(what: Option<ListWhat>) {
    // Written in one piece, ignoring a closed pipe (`htsim list | head`).
    let _ = std::io::stdout().write_all(list::listing(what).as_bytes());
}
