//! `htsim`: run, validate, report and list scenarios (scenario-format.md "CLI").
//!
//! This binary parses arguments, shows progress and maps outcomes to exit codes: 0 success,
//! 2 bad arguments or scenario, 1 failure while running. Everything else is in the `htsim`
//! library.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};
use htsim::runner::{self, RunEvent, RunOptions};
use htsim::scenario::{self, params, LoadOptions, Seeds};
use htsim::shard::Shard;
use htsim_core::SimTime;
use indicatif::{ProgressBar, ProgressStyle};

/// Packet-level simulator of datacenter networks.
#[derive(Parser, Debug)]
#[command(name = "htsim", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a scenario: every sweep point for every seed.
    Run(RunArgs),
    /// Parse and check scenarios; print the size of each run list.
    Validate {
        /// Scenario files.
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
        /// Override a value: PATH=VALUE (repeatable), e.g. flows.short.size=100KB.
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
    },
    /// Check result directories (merging shard directories) and report what is complete.
    Report {
        /// Result directories (several: the shards of one sweep).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
    /// What exists, each parameter with its default.
    List {
        /// What to list (everything when absent).
        what: Option<ListWhat>,
    },
}

#[derive(Parser, Debug)]
struct RunArgs {
    /// The scenario file.
    scenario: PathBuf,
    /// Output directory [default: results/<scenario name>].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run seeds 1..=N instead of the scenario's seeds.
    #[arg(long, conflicts_with = "seed")]
    seeds: Option<u64>,
    /// Run this one seed instead of the scenario's seeds.
    #[arg(long)]
    seed: Option<u64>,
    /// Runs at a time [default: the number of cores].
    #[arg(long)]
    jobs: Option<usize>,
    /// Override a value: PATH=VALUE (repeatable), e.g. flows.short.size=100KB.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    set: Vec<String>,
    /// Run the I-th of N parts of the run list (1-based), e.g. 2/4.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Number of shards, for Kubernetes indexed jobs (JOB_COMPLETION_INDEX) and Slurm arrays.
    #[arg(long, value_name = "N")]
    shard_count: Option<usize>,
    /// Print only errors and the final line.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ListWhat {
    Transports,
    Topologies,
    Queues,
    Workloads,
}

/// `writeln!` into a `String` (which cannot fail).
macro_rules! wl {
    ($s:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($s, $($arg)*);
    }};
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
        Command::Report { dirs } => report(&dirs),
        Command::List { what } => {
            list(what);
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("error: {}", f.message);
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
    };
    let loaded = load(&args.scenario, &options)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("results").join(&loaded.scenario.name));
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let runs = runner::select(&runner::run_list(&loaded), shard);
    if !args.quiet {
        let part = shard.map_or(String::new(), |s| format!(" (shard {s})"));
        eprintln!(
            "{}: {} point(s) x seeds = {} run(s){part}, {jobs} at a time, into {}",
            loaded.scenario.name,
            loaded.points.len(),
            runs.len(),
            out.display()
        );
    }
    // A sweep shows a bar over runs; a single run shows its simulated time.
    let single = runs.len() == 1;
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else if single {
        ProgressBar::new(1)
    } else {
        ProgressBar::new(runs.len() as u64)
    };
    let template = if single {
        "{bar:40} {msg}  {elapsed_precise}"
    } else {
        "{bar:40} {pos}/{len} runs  {elapsed_precise}  {msg}"
    };
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut simulator = htsim::simulate::Simulator::for_loaded(&loaded);
    if single && !args.quiet {
        let sim_bar = bar.clone();
        simulator = simulator.with_progress(Arc::new(move |now: SimTime, end: SimTime| {
            sim_bar.set_length(end.as_us().max(1));
            sim_bar.set_position(now.as_us());
            sim_bar.set_message(format!(
                "simulated {:.3} s of {:.3} s",
                now.as_secs_f64(),
                end.as_secs_f64()
            ));
        }));
    }
    let name = loaded.scenario.name.clone();
    let on_event = |event: RunEvent<'_>| {
        match event {
            RunEvent::Skipped(r) => bar.set_message(format!("skipped {} (complete)", r.id(&name))),
            RunEvent::Finished(r) => bar.set_message(r.id(&name)),
            RunEvent::Failed(r, e) => bar.println(format!("failed: {}: {e}", r.id(&name))),
        }
        if !single {
            bar.inc(1);
        }
    };
    let options = RunOptions {
        out: out.clone(),
        jobs,
        shard,
    };
    let report =
        runner::run_all(&loaded, &options, &simulator, &on_event).map_err(|e| Failure {
            code: 1,
            message: e.to_string(),
        })?;
    bar.finish_and_clear();
    if !report.skipped.is_empty() && !args.quiet {
        eprintln!(
            "skipped {} run(s) already complete in {}",
            report.skipped.len(),
            out.display()
        );
    }
    if !report.failed.is_empty() {
        return Err(Failure {
            code: 1,
            message: format!(
                "{} of {} run(s) failed; first: {}: {}",
                report.failed.len(),
                report.selected,
                report.failed[0].0,
                report.failed[0].1
            ),
        });
    }
    eprintln!(
        "done: {} run(s) finished, {} skipped; results in {}",
        report.finished.len(),
        report.skipped.len(),
        out.display()
    );
    Ok(())
}

fn validate(paths: &[PathBuf], set: Vec<String>) -> Result<(), Failure> {
    let options = LoadOptions {
        overrides: set,
        seeds: None,
    };
    let mut failures = Vec::new();
    for path in paths {
        match scenario::load(path, &options) {
            Ok(loaded) => {
                let runs = runner::run_list(&loaded).len();
                println!(
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

fn report(dirs: &[PathBuf]) -> Result<(), Failure> {
    let first = &dirs[0];
    let scenario_file = first.join(htsim::output::SCENARIO_FILE);
    let loaded = load(&scenario_file, &LoadOptions::default())?;
    let runs = runner::run_list(&loaded);
    let mut missing = Vec::new();
    for r in &runs {
        if !dirs.iter().any(|d| htsim::output::is_complete(&r.dir(d))) {
            missing.push(r.id(&loaded.scenario.name));
        }
    }
    println!(
        "{}: {} of {} run(s) complete across {} director{}",
        loaded.scenario.name,
        runs.len() - missing.len(),
        runs.len(),
        dirs.len(),
        if dirs.len() == 1 { "y" } else { "ies" }
    );
    for m in missing.iter().take(20) {
        println!("  missing: {m}");
    }
    Ok(())
}

fn list(what: Option<ListWhat>) {
    // Written in one piece, ignoring a closed pipe (`htsim list | head`).
    let mut s = String::new();
    let all = what.is_none();
    let kinds = |s: &mut String, title: &str, kinds: &[params::KindSpec]| {
        wl!(s, "{title}:");
        for k in kinds {
            wl!(s, "  {}  {}", k.name, k.doc);
            for p in k.params {
                let mut default = p
                    .default
                    .map_or("(required)".to_string(), |d| format!("= {d}"));
                for (profile, value) in p.profile_defaults {
                    default.push_str(&format!(" ({profile}: {value})"));
                }
                wl!(
                    s,
                    "      {:<18} {:<14} {}; {}",
                    p.key,
                    default,
                    p.kind.expected(),
                    p.doc
                );
            }
            if !k.layers.is_empty() {
                wl!(s, "      layers: {}", k.layers.join(", "));
            }
        }
    };
    if all || matches!(what, Some(ListWhat::Topologies)) {
        kinds(
            &mut s,
            "topologies ([topology] kind = ...)",
            params::TOPOLOGIES,
        );
        wl!(
            s,
            "  node names: host<i>; FatTree tor<pod>.<i>, agg<pod>.<i>, core<i>"
        );
    }
    if all || matches!(what, Some(ListWhat::Transports)) {
        kinds(
            &mut s,
            "transports ([transports.<name>] kind = ...)",
            params::TRANSPORTS,
        );
    }
    if all || matches!(what, Some(ListWhat::Queues)) {
        wl!(s, "queues ([queue] and [queue.layers.<layer>]):");
        wl!(s, "  droptail  drop arrivals when full");
        wl!(
            s,
            "  ecn       drop-tail, marking CE when the queue exceeds mark_threshold on arrival"
        );
        wl!(
            s,
            "      capacity           = 100pkt      a buffer size (\"100pkt\" or bytes)"
        );
        wl!(
            s,
            "      mark_threshold     (ecn: required) a buffer size, at most the capacity"
        );
    }
    if all || matches!(what, Some(ListWhat::Workloads)) {
        wl!(s, "workloads ([[flows]]):");
        wl!(s, "  matrix    permutation (default) | stride (offset) | random | incast (fan_in = 10) | many-to-one | locality (rack_local)");
        wl!(
            s,
            "  senders   \"33%\" | a count | \"all\" (default) | \"rest\""
        );
        wl!(s, "  size      \"70KB\" | \"infinite\" | {{ uniform = [lo, hi] }} | {{ pareto = {{ shape, mean, max }} }} | {{ cdf = {} }} | {{ cdf_file = path }}", scenario::BUILTIN_CDFS.join(" | "));
        wl!(s, "  arrivals  (absent: one flow per sender at start) | {{ poisson = flows/s }} | {{ every = \"500ms\" }} | {{ closed_loop = true }}");
        wl!(s, "  start     = 0s");
    }
    let _ = std::io::stdout().write_all(s.as_bytes());
}
