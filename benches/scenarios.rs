//! Whole-scenario benchmarks: the shipped scenarios run end to end, as `htsim run` would run them
//! (every sweep point and seed, in parallel on all cores), timed as a whole.
//!
//! ```text
//! cargo bench --bench scenarios                  # htsim-compare, then quickstart
//! cargo bench --bench scenarios -- htsim-compare # one of them
//! ```
//!
//! For each scenario it prints the wall time of the whole scenario, the events and data packets
//! of all its runs, their rates per wall second of the runs themselves (summed over runs, so a
//! single-run scenario gives the engine's speed on one core), and the process's peak resident
//! memory so far (Linux `VmHWM`; run one scenario per invocation to read it for that scenario).
//! Criterion is not used: one repetition of a multi-second scenario is the measurement.

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use htsim::runner::run_list;
use htsim::scenario::{load, LoadOptions};
use htsim::simulate::{run, RunContext};

/// The scenarios measured, from `scenarios/`.
const SCENARIOS: [&str; 2] = ["htsim-compare", "quickstart"];

fn main() {
    // `cargo bench` passes `--bench`; any other argument selects scenarios by name.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    for name in SCENARIOS {
        if filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())) {
            if let Err(e) = bench(name) {
                eprintln!("{name}: {e}");
                std::process::exit(1);
            }
        }
    }
}

/// Runs every run of `scenarios/<name>.toml` and prints its cost.
fn bench(name: &str) -> Result<(), Box<dyn std::error::Error>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(format!("{name}.toml"));
    let loaded = load(&path, &LoadOptions::default())?;
    let runs = run_list(&loaded);
    let start = Instant::now();
    let costs = runs
        .par_iter()
        .map(|r| {
            let cx = RunContext {
                point: r.point_name.clone(),
                point_index: r.point as u64,
                assignments: loaded.points[r.point].assignments.clone(),
                progress: None,
            };
            run(&loaded.points[r.point].scenario, r.seed, &cx).map(|out| out.summary().cost)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let wall = start.elapsed().as_secs_f64();
    let events: u64 = costs.iter().map(|c| c.events).sum();
    let packets: u64 = costs.iter().map(|c| c.data_packets_delivered).sum();
    let run_seconds: f64 = costs.iter().map(|c| c.wall_seconds).sum();
    println!(
        "{name}: {} runs on {} threads",
        runs.len(),
        rayon::current_num_threads()
    );
    println!("  wall time             {wall:.2} s");
    println!(
        "  events                {:.1} M ({:.1} M per run-second)",
        events as f64 / 1e6,
        events as f64 / run_seconds / 1e6
    );
    println!(
        "  data packets          {:.2} M ({:.3} M per run-second)",
        packets as f64 / 1e6,
        packets as f64 / run_seconds / 1e6
    );
    match peak_resident_mib() {
        Some(mib) => println!("  peak memory (VmHWM)   {mib:.1} MiB"),
        None => println!("  peak memory (VmHWM)   not available on this system"),
    }
    Ok(())
}

/// The process's peak resident set size in MiB, from `/proc/self/status` (Linux only).
fn peak_resident_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}
