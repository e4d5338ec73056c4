//! `htsim bench`: the built-in benchmark suite (docs/performance.md).
//!
//! A fixed set of scenarios, embedded in the binary, each run in a fresh child process of this
//! binary (so each one's peak memory is its own), measured and printed as a table, optionally
//! saved as JSON and compared with a JSON saved by another build or machine.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use clap::Parser;
use htsim::runner::run_list;
use htsim::scenario::{self, LoadOptions};
use htsim::simulate::{self, RunContext};
use serde::{Deserialize, Serialize};

use crate::{usage, Failure};

/// `htsim bench [--quick] [--json FILE] [--compare FILE] [--only NAME]... [--scenario FILE]...`.
#[derive(Parser, Debug)]
pub struct BenchArgs {
    /// Run each built-in scenario for a short simulated time (a few seconds in all): a smoke
    /// test, not a measurement to publish.
    #[arg(long)]
    quick: bool,
    /// Run only these built-in scenarios (repeatable).
    #[arg(long, value_name = "NAME")]
    only: Vec<String>,
    /// Measure this scenario file instead of the built-in suite (repeatable); each must be a
    /// single run (no sweep, one seed).
    #[arg(long, value_name = "FILE")]
    scenario: Vec<PathBuf>,
    /// Runs of each scenario, each in its own process; the table shows the run of median wall
    /// time.
    #[arg(long, default_value_t = 1, value_name = "N")]
    repeat: usize,
    /// Also write the results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Print the ratios of these results to a JSON written earlier by `--json`.
    #[arg(long, value_name = "FILE")]
    compare: Option<PathBuf>,
    /// Internal: run case I of the list these arguments give and print its measurement as JSON.
    #[arg(long, hide = true, value_name = "I")]
    child: Option<usize>,
}

/// Most repetitions of one scenario.
const MAX_REPEAT: usize = 100;

/// A built-in scenario: its TOML and its simulated time under `--quick`.
struct Builtin {
    name: &'static str,
    toml: &'static str,
    quick_duration: &'static str,
}

/// The suite, in the order it runs (docs/performance.md describes each).
const SUITE: &[Builtin] = &[
    Builtin {
        name: "htsim-compare-tcp",
        toml: include_str!("bench/htsim-compare-tcp.toml"),
        quick_duration: "20ms",
    },
    Builtin {
        name: "htsim-compare-mptcp8",
        toml: include_str!("bench/htsim-compare-mptcp8.toml"),
        quick_duration: "10ms",
    },
    Builtin {
        name: "k16-mptcp8",
        toml: include_str!("bench/k16-mptcp8.toml"),
        quick_duration: "1ms",
    },
    Builtin {
        name: "k32-tcp",
        toml: include_str!("bench/k32-tcp.toml"),
        quick_duration: "2ms",
    },
    Builtin {
        // Poisson arrivals stop 0.2 s before the end: 205 ms gives 5 ms of arrivals.
        name: "websearch-dctcp",
        toml: include_str!("bench/websearch-dctcp.toml"),
        quick_duration: "205ms",
    },
];

/// One scenario to measure: where it comes from and how it is loaded.
enum Case {
    Builtin {
        builtin: &'static Builtin,
        quick: bool,
    },
    File(PathBuf),
}

impl Case {
    fn load(&self) -> Result<scenario::Loaded, Failure> {
        let loaded = match self {
            Case::Builtin { builtin, quick } => {
                let options = LoadOptions {
                    overrides: if *quick {
                        vec![format!("run.duration={}", builtin.quick_duration)]
                    } else {
                        Vec::new()
                    },
                    ..LoadOptions::default()
                };
                let name = format!("{}.toml", builtin.name);
                scenario::load_str(&name, builtin.toml, Path::new("."), &options)
            }
            Case::File(path) => scenario::load(path, &LoadOptions::default()),
        }
        .map_err(|e| usage(e.to_string()))?;
        let runs = run_list(&loaded).len();
        if runs != 1 {
            return Err(usage(format!(
                "{}: {runs} runs; bench measures one run (remove [sweep], set run.seeds = 1)",
                self.label()
            )));
        }
        Ok(loaded)
    }

    fn label(&self) -> String {
        match self {
            Case::Builtin { builtin, .. } => builtin.name.to_string(),
            Case::File(path) => path.display().to_string(),
        }
    }
}

/// The cases `args` select, in order.
fn cases(args: &BenchArgs) -> Result<Vec<Case>, Failure> {
    if !args.scenario.is_empty() {
        if !args.only.is_empty() || args.quick {
            return Err(usage(
                "--scenario measures the files given: --only and --quick apply to the built-in \
                 suite",
            ));
        }
        return Ok(args.scenario.iter().cloned().map(Case::File).collect());
    }
    for name in &args.only {
        if !SUITE.iter().any(|b| b.name == name) {
            let names: Vec<&str> = SUITE.iter().map(|b| b.name).collect();
            return Err(usage(format!(
                "--only {name}: no such built-in scenario; expected one of {}",
                names.join(", ")
            )));
        }
    }
    Ok(SUITE
        .iter()
        .filter(|b| args.only.is_empty() || args.only.iter().any(|n| n == b.name))
        .map(|builtin| Case::Builtin {
            builtin,
            quick: args.quick,
        })
        .collect())
}

/// The figures of one run of one scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// The scenario's name (a built-in's, or the file's `name`).
    pub name: String,
    /// The scenario's description.
    pub description: String,
    /// Simulated time: `run.duration` plus `run.drain`, s.
    pub simulated_seconds: f64,
    /// Wall time of the run (setup, simulation and building its outputs in memory), s.
    pub wall_seconds: f64,
    /// CPU time the process spent on the run (Linux, 10 ms resolution), s: well below
    /// `wall_seconds` when other work shared the machine. Absent elsewhere.
    #[serde(default)]
    pub cpu_seconds: Option<f64>,
    /// Events the engine processed.
    pub events: u64,
    /// Data packets delivered to their destination.
    pub data_packets: u64,
    /// Most packets in the network at once.
    pub peak_packets_in_flight: u64,
    /// Peak resident memory of the process that ran it (Linux `VmHWM`), MiB; absent elsewhere.
    pub peak_rss_mib: Option<f64>,
}

impl Measurement {
    fn events_per_second(&self) -> f64 {
        per(self.events as f64, self.wall_seconds)
    }
    fn data_packets_per_second(&self) -> f64 {
        per(self.data_packets as f64, self.wall_seconds)
    }
    fn events_per_packet(&self) -> f64 {
        per(self.events as f64, self.data_packets as f64)
    }
}

/// `a / b`, 0 when `b` is not positive.
fn per(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

/// One scenario's result in the JSON: the median run, every run's wall time, the rates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// The run of median wall time.
    #[serde(flatten)]
    pub run: Measurement,
    /// Events per wall second of that run.
    pub events_per_second: f64,
    /// Data packets delivered per wall second of that run.
    pub data_packets_per_second: f64,
    /// Events per data packet delivered.
    pub events_per_packet: f64,
    /// The wall time of every repetition, s, in the order they ran.
    pub wall_seconds_all: Vec<f64>,
}

/// The machine the suite ran on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Operating system and architecture, e.g. `linux x86_64`.
    pub os: String,
    /// Logical CPUs available.
    pub cpus: usize,
    /// The CPU model (Linux `/proc/cpuinfo`), when known.
    pub cpu_model: Option<String>,
    /// The 1-minute load average when the suite started (Linux), when known: above 0 means
    /// other work shared the machine.
    pub load_average: Option<f64>,
}

/// The JSON file `--json` writes and `--compare` reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchFile {
    /// The htsim version that ran the suite.
    pub htsim_version: String,
    /// Whether it ran with `--quick`.
    pub quick: bool,
    /// Repetitions per scenario.
    pub repeat: usize,
    /// Where it ran.
    pub machine: Machine,
    /// Per scenario, in the order they ran.
    pub scenarios: Vec<ScenarioResult>,
}

/// Runs `htsim bench`.
pub fn bench(args: &BenchArgs) -> Result<(), Failure> {
    let cases = cases(args)?;
    if let Some(i) = args.child {
        return child(&cases, i);
    }
    if args.repeat == 0 || args.repeat > MAX_REPEAT {
        return Err(usage(format!(
            "--repeat {}: expected 1 to {MAX_REPEAT}",
            args.repeat
        )));
    }
    // Every input is checked before anything runs.
    for case in &cases {
        case.load()?;
    }
    let baseline = match &args.compare {
        Some(path) => Some(read_bench_file(path)?),
        None => None,
    };
    if let Some(path) = &args.json {
        if path.is_dir() {
            return Err(usage(format!(
                "--json {}: is a directory; expected a file name",
                path.display()
            )));
        }
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        if parent.is_some_and(|p| !p.is_dir()) {
            return Err(usage(format!(
                "--json {}: no such directory to write it in",
                path.display()
            )));
        }
    }
    let machine = machine();
    note!(
        "htsim bench{}: {} scenario(s) x {} run(s), each in its own process; {}",
        if args.quick { " --quick" } else { "" },
        cases.len(),
        args.repeat,
        describe_machine(&machine)
    );
    let mut scenarios = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let mut runs = Vec::new();
        for r in 0..args.repeat {
            let m = spawn_child(args, i)?;
            note!(
                "  {} ({}/{}): {:.2} s",
                case.label(),
                r + 1,
                args.repeat,
                m.wall_seconds
            );
            runs.push(m);
        }
        scenarios.push(summarise(runs));
    }
    let file = BenchFile {
        htsim_version: env!("CARGO_PKG_VERSION").to_string(),
        quick: args.quick,
        repeat: args.repeat,
        machine,
        scenarios,
    };
    let _ = std::io::Write::write_all(&mut std::io::stdout(), table(&file).as_bytes());
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&file).map_err(|e| Failure {
            code: 1,
            message: format!("--json: {e}"),
        })?;
        htsim::output::write_atomic(path, format!("{text}\n").as_bytes()).map_err(|e| Failure {
            code: 1,
            message: format!("--json {}: {e}", path.display()),
        })?;
        note!("results: {}", path.display());
    }
    if let (Some(old), Some(path)) = (&baseline, &args.compare) {
        let text = comparison(&file, old, &path.display().to_string());
        let _ = std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes());
    }
    Ok(())
}

/// The result of a scenario's runs: the run of median wall time, with every wall time.
fn summarise(mut runs: Vec<Measurement>) -> ScenarioResult {
    let wall_seconds_all: Vec<f64> = runs.iter().map(|m| m.wall_seconds).collect();
    runs.sort_by(|a, b| a.wall_seconds.total_cmp(&b.wall_seconds));
    let run = runs.swap_remove((runs.len() - 1) / 2);
    ScenarioResult {
        events_per_second: run.events_per_second(),
        data_packets_per_second: run.data_packets_per_second(),
        events_per_packet: run.events_per_packet(),
        run,
        wall_seconds_all,
    }
}

/// Runs case `i` in a fresh process of this binary and reads its measurement.
fn spawn_child(args: &BenchArgs, i: usize) -> Result<Measurement, Failure> {
    let failure = |message: String| Failure { code: 1, message };
    let exe = std::env::current_exe()
        .map_err(|e| failure(format!("cannot find this program to run a scenario: {e}")))?;
    let mut command = Command::new(exe);
    command.arg("bench").arg("--child").arg(i.to_string());
    if args.quick {
        command.arg("--quick");
    }
    for name in &args.only {
        command.arg("--only").arg(name);
    }
    for path in &args.scenario {
        command.arg("--scenario").arg(path);
    }
    let output = command
        .output()
        .map_err(|e| failure(format!("cannot start a benchmark process: {e}")))?;
    if !output.status.success() {
        return Err(failure(format!(
            "the benchmark process failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| failure(format!("unreadable output of the benchmark process: {e}")))
}

/// The child's side: simulates case `i` once and prints its measurement as JSON.
fn child(cases: &[Case], i: usize) -> Result<(), Failure> {
    let case = cases
        .get(i)
        .ok_or_else(|| usage(format!("--child {i}: no such case")))?;
    let loaded = case.load()?;
    let run = &run_list(&loaded)[0];
    let point = &loaded.points[run.point];
    let cx = RunContext {
        point: run.point_name.clone(),
        point_index: run.point as u64,
        assignments: point.assignments.clone(),
        progress: None,
    };
    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    let out = simulate::run(&point.scenario, run.seed, &cx).map_err(|e| Failure {
        code: 1,
        message: format!("{}: {e}", case.label()),
    })?;
    let wall_seconds = start.elapsed().as_secs_f64();
    let cpu_seconds = cpu_seconds().zip(cpu_start).map(|(end, start)| end - start);
    let s = &point.scenario;
    let cost = &out.summary().cost;
    let m = Measurement {
        name: s.name.clone(),
        description: s.description.clone(),
        simulated_seconds: s.run.duration.saturating_add(s.run.drain).as_secs_f64(),
        wall_seconds,
        cpu_seconds,
        events: cost.events,
        data_packets: cost.data_packets_delivered,
        peak_packets_in_flight: cost.peak_packets_in_flight,
        peak_rss_mib: peak_rss_mib(),
    };
    let text = serde_json::to_string(&m).map_err(|e| Failure {
        code: 1,
        message: e.to_string(),
    })?;
    say!("{text}");
    Ok(())
}

/// The CPU time (user and system) this process has used, s: Linux `/proc/self/stat` fields
/// 14 and 15, in clock ticks of 1/100 s (`USER_HZ`).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some((user + system) as f64 / 100.0)
}

/// This process's peak resident set size in MiB (Linux `VmHWM` in `/proc/self/status`).
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn machine() -> Machine {
    let cpu_model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    });
    let load_average = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse().ok());
    Machine {
        os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cpu_model,
        load_average,
    }
}

fn describe_machine(m: &Machine) -> String {
    let mut s = format!("{}, {} CPU(s)", m.os, m.cpus);
    if let Some(model) = &m.cpu_model {
        s.push_str(&format!(", {model}"));
    }
    if let Some(load) = m.load_average {
        s.push_str(&format!(", load average {load:.2}"));
    }
    s
}

fn read_bench_file(path: &Path) -> Result<BenchFile, Failure> {
    // A regular file of at most 16 MiB, as scenario files: /dev/zero or a FIFO never ended.
    let text = htsim::scenario::input::read_text(path)
        .map_err(|e| usage(format!("--compare {}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        usage(format!(
            "--compare {}: line {}, column {}: {e}; expected a file written by `htsim bench \
             --json`",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

/// `x` with 3 significant digits or so, and a metric suffix (k, M, G).
fn si(x: f64) -> String {
    let (v, suffix) = if x >= 1e9 {
        (x / 1e9, "G")
    } else if x >= 1e6 {
        (x / 1e6, "M")
    } else if x >= 1e3 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$}{suffix}")
}

/// Left-aligned first column, right-aligned others, two spaces apart.
fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c == 0 {
                line.push_str(&format!("{cell:<w$}", w = widths[0]));
            } else {
                line.push_str(&format!("  {cell:>w$}", w = widths[c]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The results as an aligned table.
fn table(file: &BenchFile) -> String {
    let mut rows = vec![vec![
        "scenario".to_string(),
        "simulated".into(),
        "wall s".into(),
        "cpu s".into(),
        "events".into(),
        "events/s".into(),
        "data pkts".into(),
        "pkts/s".into(),
        "events/pkt".into(),
        "in flight".into(),
        "peak MiB".into(),
    ]];
    for r in &file.scenarios {
        let m = &r.run;
        rows.push(vec![
            m.name.clone(),
            format!("{} ms", si(m.simulated_seconds * 1e3)),
            format!("{:.2}", m.wall_seconds),
            m.cpu_seconds.map_or("-".into(), |v| format!("{v:.2}")),
            si(m.events as f64),
            si(r.events_per_second),
            si(m.data_packets as f64),
            si(r.data_packets_per_second),
            format!("{:.2}", r.events_per_packet),
            si(m.peak_packets_in_flight as f64),
            m.peak_rss_mib.map_or("-".into(), |v| format!("{v:.1}")),
        ]);
    }
    aligned(&rows)
}

/// `new / old` as `1.23x`, or `-` when either is missing or not positive.
fn ratio(new: Option<f64>, old: Option<f64>) -> String {
    match (new, old) {
        (Some(n), Some(o)) if n > 0.0 && o > 0.0 => format!("{:.2}x", n / o),
        _ => "-".into(),
    }
}

/// The ratios of `new` to `old`, scenario by scenario (matched by name).
fn comparison(new: &BenchFile, old: &BenchFile, old_name: &str) -> String {
    let mut out = format!(
        "\ncompared with {old_name} ({}{}; {}):\n",
        old.htsim_version,
        if old.quick { ", --quick" } else { "" },
        describe_machine(&old.machine)
    );
    let mut rows = vec![vec![
        "scenario".to_string(),
        "speed-up".into(),
        "cpu-speed-up".into(),
        "events/s".into(),
        "pkts/s".into(),
        "memory".into(),
        "events".into(),
        "packets".into(),
    ]];
    let mut notes = Vec::new();
    for r in &new.scenarios {
        let (n, name) = (&r.run, &r.run.name);
        let Some(o) = old.scenarios.iter().find(|o| o.run.name == *name) else {
            notes.push(format!("{name}: not in {old_name}"));
            continue;
        };
        let same_time = n.simulated_seconds == o.run.simulated_seconds;
        if !same_time {
            notes.push(format!(
                "{name}: simulated {} s here, {} s there: the speed-up (wall time) is not \
                 comparable, the rates are",
                n.simulated_seconds, o.run.simulated_seconds
            ));
        }
        rows.push(vec![
            name.clone(),
            if same_time {
                ratio(Some(o.run.wall_seconds), Some(n.wall_seconds))
            } else {
                "-".into()
            },
            if same_time {
                ratio(o.run.cpu_seconds, n.cpu_seconds)
            } else {
                "-".into()
            },
            ratio(Some(r.events_per_second), Some(o.events_per_second)),
            ratio(
                Some(r.data_packets_per_second),
                Some(o.data_packets_per_second),
            ),
            ratio(n.peak_rss_mib, o.run.peak_rss_mib),
            ratio(Some(n.events as f64), Some(o.run.events as f64)),
            ratio(Some(n.data_packets as f64), Some(o.run.data_packets as f64)),
        ]);
    }
    for o in &old.scenarios {
        if !new.scenarios.iter().any(|r| r.run.name == o.run.name) {
            notes.push(format!("{}: only in {old_name}", o.run.name));
        }
    }
    out.push_str(&aligned(&rows));
    out.push_str(
        "speed-up = old wall time / new, cpu-speed-up = old CPU time / new; the other columns \
         are new / old (above 1: more events or packets per second, more memory, more work \
         simulated)\n",
    );
    for note in notes {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(name: &str, wall: f64, events: u64, packets: u64, rss: f64) -> ScenarioResult {
        summarise(vec![Measurement {
            name: name.into(),
            description: String::new(),
            simulated_seconds: 0.01,
            wall_seconds: wall,
            cpu_seconds: Some(wall / 2.0),
            events,
            data_packets: packets,
            peak_packets_in_flight: 10,
            peak_rss_mib: Some(rss),
        }])
    }

    fn file(scenarios: Vec<ScenarioResult>) -> BenchFile {
        BenchFile {
            htsim_version: "0.1.0".into(),
            quick: false,
            repeat: 1,
            machine: Machine {
                os: "linux x86_64".into(),
                cpus: 2,
                cpu_model: None,
                load_average: Some(1.5),
            },
            scenarios,
        }
    }

    #[test]
    fn rates_and_events_per_packet_come_from_the_counts() {
        let r = result("a", 2.0, 1_000_000, 250_000, 20.0);
        assert_eq!(r.events_per_second, 500_000.0);
        assert_eq!(r.data_packets_per_second, 125_000.0);
        assert_eq!(r.events_per_packet, 4.0);
    }

    #[test]
    fn the_median_run_is_reported_with_every_wall_time() {
        let runs = [3.0, 1.0, 2.0]
            .iter()
            .map(|&w| Measurement {
                name: "a".into(),
                description: String::new(),
                simulated_seconds: 0.01,
                wall_seconds: w,
                cpu_seconds: None,
                events: 100,
                data_packets: 10,
                peak_packets_in_flight: 1,
                peak_rss_mib: None,
            })
            .collect();
        let r = summarise(runs);
        assert_eq!(r.run.wall_seconds, 2.0);
        assert_eq!(r.wall_seconds_all, vec![3.0, 1.0, 2.0]);
        assert_eq!(r.events_per_second, 50.0);
    }

    #[test]
    fn json_round_trips() {
        let f = file(vec![result("a", 2.0, 100, 10, 20.0)]);
        let text = serde_json::to_string_pretty(&f).unwrap();
        assert!(text.contains("\"events_per_packet\": 10.0"), "{text}");
        let back: BenchFile = serde_json::from_str(&text).unwrap();
        assert_eq!(back, f);
    }

    #[test]
    fn comparison_gives_new_over_old_and_speed_up_as_old_over_new() {
        let old = file(vec![
            result("a", 4.0, 1000, 100, 60.0),
            result("gone", 1.0, 1, 1, 1.0),
        ]);
        let new = file(vec![
            result("a", 2.0, 1000, 100, 15.0),
            result("b", 1.0, 1, 1, 1.0),
        ]);
        let text = comparison(&new, &old, "old.json");
        let row = text.lines().find(|l| l.starts_with("a ")).unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        // speed-up 2x (wall and CPU), events/s 2x, pkts/s 2x, memory 0.25x, same events and
        // packets.
        assert_eq!(
            cells,
            ["a", "2.00x", "2.00x", "2.00x", "2.00x", "0.25x", "1.00x", "1.00x"]
        );
        assert!(text.contains("note: b: not in old.json"), "{text}");
        assert!(text.contains("note: gone: only in old.json"), "{text}");
    }

    #[test]
    fn different_simulated_times_give_no_speed_up() {
        let old = file(vec![result("a", 4.0, 1000, 100, 60.0)]);
        let mut new = file(vec![result("a", 2.0, 1000, 100, 15.0)]);
        new.scenarios[0].run.simulated_seconds = 0.2;
        let text = comparison(&new, &old, "old.json");
        let row = text.lines().find(|l| l.starts_with("a ")).unwrap();
        assert_eq!(row.split_whitespace().nth(1), Some("-"));
        assert!(text.contains("not comparable"), "{text}");
    }

    #[test]
    fn table_columns_line_up() {
        let f = file(vec![
            result("htsim-compare-tcp", 2.5, 42_800_000, 3_700_000, 17.3),
            result("k", 0.5, 1000, 10, 3.0),
        ]);
        let text = table(&f);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        // Right-aligned: every line ends at the same column.
        assert!(lines.iter().all(|l| l.len() == lines[0].len()), "{text}");
        assert!(lines[1].contains("42.8M"), "{text}");
        assert!(lines[1].contains("11.57"), "{text}"); // events per packet
    }

    #[test]
    fn every_builtin_is_a_single_valid_run_in_both_modes() {
        for quick in [false, true] {
            for builtin in SUITE {
                let case = Case::Builtin { builtin, quick };
                let loaded = case.load().unwrap_or_else(|f| panic!("{}", f.message));
                assert_eq!(loaded.scenario.name, builtin.name);
            }
        }
    }
}
