//! Real runs through the `htsim` binary: byte-identical results for `--jobs 1` and `--jobs 2`,
//! resuming skips complete runs, and a tiny quickstart finishes.

mod common;
use common::htsim;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const TINY: &str = r#"
name = "tiny"
[run]
duration = "300ms"
drain = "100ms"
seeds = 2
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
[transports.long]
kind = "tcp"
[[flows]]
name = "long"
senders = "25%"
size = "infinite"
transport = "long"
[[flows]]
name = "short"
senders = "rest"
size = "20KB"
arrivals = { poisson = 400 }
transport = { kind = "tcp" }
[output]
timeseries = { interval = "20ms", series = ["queue", "cwnd", "rate"], links = ["core"], flows = ["long"] }
[sweep]
"transports.long.kind" = ["tcp", "dctcp"]
"#;

/// The wall-clock fields of summary.json's `cost`, which differ from run to run.
const WALL_CLOCK: [&str; 3] = [
    "\"wall_seconds\"",
    "\"events_per_second\"",
    "\"data_packets_per_second\"",
];

/// Every file under `dir` by relative path; summary.json without its wall-clock lines, run.json
/// without the command line.
fn files(dir: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
                continue;
            }
            let mut text = std::fs::read_to_string(&p).unwrap();
            if p.ends_with("run.json") {
                text = text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("\"command_line\""))
                    .collect::<Vec<_>>()
                    .join("\n");
            }
            if p.ends_with("summary.json") {
                text = text
                    .lines()
                    .filter(|l| !WALL_CLOCK.iter().any(|k| l.trim_start().starts_with(k)))
                    .collect::<Vec<_>>()
                    .join("\n");
            }
            out.insert(p.strip_prefix(root).unwrap().to_path_buf(), text);
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn one_and_two_jobs_give_identical_results_and_rerunning_resumes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), TINY).unwrap();
    let a = htsim(
        &["run", "tiny.toml", "--out", "a", "--jobs", "1", "-q"],
        dir.path(),
    );
    assert_eq!(
        a.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&a.stderr)
    );
    let b = htsim(
        &["run", "tiny.toml", "--out", "b", "--jobs", "2", "-q"],
        dir.path(),
    );
    assert_eq!(
        b.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&b.stderr)
    );
    let (fa, fb) = (files(&dir.path().join("a")), files(&dir.path().join("b")));
    // scenario.toml, summary.csv, summary.json + 2 points x 2 seeds x (flows.csv, links.csv,
    // timeseries.csv, run.json, summary.json).
    assert_eq!(fa.len(), 3 + 2 * 2 * 5, "{:?}", fa.keys());
    let ts = &fa[Path::new("runs/transports.long.kind=dctcp/seed-1/timeseries.csv")];
    assert!(
        ts.starts_with(
            "point,seed,transports.long.kind,time_ns,series,id,value,unit\n\
             transports.long.kind=dctcp,1,dctcp,20000000,queue,core"
        ),
        "{ts}"
    );
    assert!(fa[Path::new("summary.csv")].starts_with("point,class,metric,unit,n,"));
    assert_eq!(fa, fb);
    let flows = &fa[Path::new("runs/transports.long.kind=dctcp/seed-2/flows.csv")];
    // Every row says which run it belongs to: its point, seed and swept value.
    assert!(flows.starts_with(
        "point,seed,transports.long.kind,class,flow_id,job,transport,src,dst,size_bytes,"
    ));
    assert!(
        flows.contains("\ntransports.long.kind=dctcp,2,dctcp,long,0,,dctcp,host"),
        "{flows}"
    );

    // Resume: everything is complete, so nothing runs again and nothing changes.
    let again = htsim(
        &["run", "tiny.toml", "--out", "a", "--jobs", "2"],
        dir.path(),
    );
    let err = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{err}");
    assert!(err.contains("skipped 4 run(s) already complete"), "{err}");
    assert!(err.contains("0 run(s) finished, 4 skipped"), "{err}");
    assert_eq!(files(&dir.path().join("a")), fa);

    // An interrupted run (no summary.json) is run again, to the same result.
    let victim = dir.path().join("a/runs/transports.long.kind=tcp/seed-1");
    std::fs::remove_file(victim.join("summary.json")).unwrap();
    std::fs::remove_file(victim.join("flows.csv")).unwrap();
    std::fs::remove_file(victim.join("timeseries.csv")).unwrap();
    let resumed = htsim(&["run", "tiny.toml", "--out", "a", "-q"], dir.path());
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert!(err.contains("1 run(s) finished, 3 skipped"), "{err}");
    assert_eq!(files(&dir.path().join("a")), fa);
}

#[test]
fn a_run_whose_topology_cannot_be_built_is_refused_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let text = TINY
        .replace(
            "kind = \"fattree\"\nk = 4\n",
            "kind = \"xmp-two-path\"\nmultipath_pairs = 0\n",
        )
        .replace("links = [\"core\"]", "links = [\"bottleneck\"]");
    std::fs::write(dir.path().join("tiny.toml"), text).unwrap();
    let out = htsim(
        &["run", "tiny.toml", "--out", "o", "--seed", "1"],
        dir.path(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("tiny.toml:7:1: `topology`: building the xmp-two-path topology: xmp-two-path: there must be at least one sender/receiver pair"),
        "{err}"
    );
    assert!(!dir.path().join("o").exists(), "nothing is written");
}

#[test]
fn a_tiny_quickstart_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out_dir = tempfile::tempdir().unwrap();
    let out = htsim(
        &[
            "run",
            "scenarios/quickstart.toml",
            "--out",
            out_dir.path().to_str().unwrap(),
            "--seed",
            "3",
            "--set",
            "run.duration=400ms",
            "--set",
            "run.drain=100ms",
            "-q",
        ],
        &root,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let run = out_dir.path().join("runs/transports.long.kind=tcp/seed-3");
    for f in ["flows.csv", "links.csv", "summary.json"] {
        assert!(run.join(f).is_file(), "{f} missing");
    }
}

#[test]
fn the_first_line_counts_points_seeds_and_the_shards_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), TINY).unwrap();
    let first_line = |args: &[&str]| {
        let out = htsim(args, dir.path());
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{err}");
        err.lines().next().unwrap_or_default().to_string()
    };
    assert_eq!(
        first_line(&[
            "run",
            "tiny.toml",
            "--out",
            "a",
            "--jobs",
            "1",
            "--seeds",
            "3"
        ]),
        "tiny: 2 point(s) x 3 seed(s) = 6 run(s), 1 at a time, into a"
    );
    // A shard says how many of the list's runs are its own, not points x seeds = its runs.
    assert_eq!(
        first_line(&[
            "run",
            "tiny.toml",
            "--out",
            "b",
            "--jobs",
            "1",
            "--shard",
            "2/4"
        ]),
        "tiny: 2 point(s) x 2 seed(s) = 4 run(s); shard 2/4: 1 of them, 1 at a time, into b"
    );
}

/// The `progress:` lines of a run's stderr.
fn progress_lines(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| l.starts_with("progress: "))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_log_gets_progress_lines_with_an_eta() {
    // Tests run with stderr piped, as in a Slurm log: no bar, plain lines.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), TINY).unwrap();
    let sweep = htsim(
        &["run", "tiny.toml", "--out", "a", "--jobs", "1"],
        dir.path(),
    );
    assert_eq!(sweep.status.code(), Some(0));
    let lines = progress_lines(&sweep.stderr);
    // Each run is another quarter, so each end of a run prints a line; heartbeats may come
    // between them.
    for (n, pct) in [(1, 25), (2, 50), (3, 75), (4, 100)] {
        let prefix = format!("progress: {n}/4 runs ({pct}%), elapsed ");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&prefix) && l.contains(", ETA ")),
            "no `{prefix}` in {lines:?}"
        );
    }
    assert!(lines.last().unwrap().ends_with("ETA 0:00:00"), "{lines:?}");

    // A single run reports its simulated time, every tenth of it.
    let single = htsim(
        &[
            "run",
            "tiny.toml",
            "--out",
            "b",
            "--seeds",
            "1",
            "--set",
            "sweep={}",
        ],
        dir.path(),
    );
    let err = String::from_utf8_lossy(&single.stderr);
    assert_eq!(single.status.code(), Some(0), "{err}");
    let lines = progress_lines(&single.stderr);
    assert!(lines.len() >= 10, "{lines:?}");
    assert!(
        lines[0].starts_with("progress: simulated 0.0") && lines[0].contains("(10%)"),
        "{lines:?}"
    );
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("progress: simulated 0.400 s of 0.400 s (100%)"),
        "{lines:?}"
    );
    // Quiet means quiet.
    let quiet = htsim(&["run", "tiny.toml", "--out", "c", "-q"], dir.path());
    assert!(progress_lines(&quiet.stderr).is_empty());
}

/// Runs TINY with one seed, no time series and `axis` as its only sweep axis into `o` of a new
/// directory, which it returns.
fn sweep_of_one_seed(axis: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text = TINY
        .replace("seeds = 2", "seeds = 1")
        .replace("[output]\ntimeseries", "[output]\n# timeseries")
        .replace("\"transports.long.kind\" = [\"tcp\", \"dctcp\"]", axis);
    std::fs::write(dir.path().join("t.toml"), text).unwrap();
    let out = htsim(&["run", "t.toml", "--out", "o", "-q"], dir.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[test]
fn runs_of_a_sweep_concatenate_into_one_table_read_with_a_csv_reader() {
    // A table-valued axis: the folder name is made file-name safe, the column keeps the value
    // as written in TOML.
    let dir =
        sweep_of_one_seed(r#""flows.short.size" = ["20KB", { uniform = ["10KB", "100KB"] }]"#);
    for file in ["flows.csv", "links.csv"] {
        let mut header = None;
        let mut rows = Vec::new();
        for run in std::fs::read_dir(dir.path().join("o/runs")).unwrap() {
            let path = run.unwrap().path().join("seed-1").join(file);
            let mut r = csv::Reader::from_path(&path).unwrap();
            let h = r.headers().unwrap().clone();
            assert_eq!(header.get_or_insert(h.clone()), &h, "{path:?}");
            rows.extend(r.records().map(|x| x.unwrap()));
        }
        let header = header.unwrap();
        assert_eq!(
            header.iter().take(3).collect::<Vec<_>>(),
            ["point", "seed", "flows.short.size"]
        );
        let mut values: Vec<(String, String)> = rows
            .iter()
            .map(|r| (r[0].to_string(), r[2].to_string()))
            .collect();
        values.sort();
        values.dedup();
        assert_eq!(
            values,
            [
                ("flows.short.size=20KB".to_string(), "20KB".to_string()),
                (
                    "flows.short.size=_uniform=_10KB_100KB__".to_string(),
                    r#"{ uniform = ["10KB", "100KB"] }"#.to_string()
                ),
            ],
            "{file}"
        );
    }
}

#[test]
fn points_that_resolve_to_the_same_scenario_keep_their_own_labels() {
    // 1 Gb/s written two ways: the same resolved scenario, two points, two labels.
    let dir = sweep_of_one_seed(r#""topology.link_rate" = ["1Gbps", "1000Mbps"]"#);
    for (point, value) in [
        ("topology.link_rate=1Gbps", "1Gbps"),
        ("topology.link_rate=1000Mbps", "1000Mbps"),
    ] {
        let path = dir
            .path()
            .join("o/runs")
            .join(point)
            .join("seed-1/links.csv");
        let mut r = csv::Reader::from_path(&path).unwrap();
        for row in r.records() {
            let row = row.unwrap();
            assert_eq!((&row[0], &row[2]), (point, value), "{path:?}");
        }
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(path.with_file_name("summary.json")).unwrap())
                .unwrap();
        assert_eq!(summary["point"], point);
    }
}

#[test]
fn a_summary_that_cannot_be_written_still_says_what_the_runs_did() {
    // A resumed directory whose summary cannot be written (summary.csv is a directory here):
    // exit 1 with the error, after the lines on the runs (all skipped) that `run` prints
    // before its summary.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let star = "[run]\nduration = \"2ms\"\n[topology]\nkind = \"star\"\nhosts = 2\n\
                [[flows]]\nname = \"long\"\nsize = \"infinite\"\ntransport = { kind = \"tcp\" }\n";
    std::fs::write(p.join("s.toml"), star).unwrap();
    let out = htsim(&["run", "s.toml", "--out", "o", "-q"], p);
    assert_eq!(out.status.code(), Some(0));
    std::fs::remove_file(p.join("o/summary.csv")).unwrap();
    std::fs::create_dir(p.join("o/summary.csv")).unwrap();
    let out = htsim(&["run", "s.toml", "--out", "o"], p);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("error: writing the summary: "), "{err}");
    assert!(
        err.contains("skipped 1 run(s) already complete in o")
            && err.contains("done: 0 run(s) finished, 1 skipped; results in o"),
        "{err}"
    );
}

/// A path of exactly `total` bytes under `base`: components of 200 bytes, then the rest.
#[cfg(target_os = "linux")]
fn path_of_length(base: &Path, total: usize) -> PathBuf {
    let mut path = base.to_path_buf();
    while path.as_os_str().len() + 1 + 200 + 1 + 10 < total {
        path.push("d".repeat(200));
    }
    let rest = total - path.as_os_str().len() - 1;
    path.push("e".repeat(rest));
    assert_eq!(path.as_os_str().len(), total);
    path
}

/// An `--out` so long that a run's files would exceed the system's limit on a path (Linux's
/// PATH_MAX, 4096 bytes) is refused before any run starts, exit 2, naming the path and that it
/// is too long; not found by each run failing once it has simulated (exit 1). One a little
/// shorter runs, and resumes.
#[cfg(target_os = "linux")]
#[test]
fn an_output_path_too_long_for_the_runs_files_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), TINY).unwrap();
    let quick = [
        "--seed",
        "1",
        "--set",
        "run.duration=\"20ms\"",
        "--jobs",
        "1",
    ];
    // The lock file fits; runs/transports.long.kind=dctcp/seed-1/.timeseries.csv.tmp-... not.
    let long = path_of_length(dir.path(), 4040);
    let out_arg = long.to_str().unwrap();
    let mut args = vec!["run", "tiny.toml", "--out", out_arg];
    args.extend(quick);
    let out = htsim(&args, dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{out_arg}: the output directory's path is too long: runs would write files such \
             as runs/transports.long.kind="
        )),
        "{err}"
    );
    assert!(err.contains("use a shorter --out"), "{err}");
    assert!(!err.contains("failed"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&long).unwrap().collect();
    assert!(
        left.is_empty(),
        "nothing is left in the directory: {left:?}"
    );

    let shorter = path_of_length(dir.path(), 3900);
    let out_arg = shorter.to_str().unwrap();
    let mut args = vec!["run", "tiny.toml", "--out", out_arg];
    args.extend(quick);
    let out = htsim(&args, dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("2 run(s) finished, 0 skipped"), "{err}");
    let out = htsim(&args, dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("0 run(s) finished, 2 skipped"), "{err}");
}

/// A scenario without `name` is named after its file, keeping `.`, `+` and `=`
/// (docs/scenarios.md): `exp.v2.toml` passed `validate`, but every run failed (exit 1),
/// since each run checks its scenario again, with that name written out, against the stricter
/// rule of written names; and `report` refused the recorded scenario.toml. A written name now
/// takes the characters a file name gives one.
#[test]
fn a_scenario_named_after_a_file_with_dots_runs_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let text = TINY
        .replace("name = \"tiny\"\n", "")
        .replace("seeds = 2", "seeds = 1")
        .replace(
            "[sweep]\n\"transports.long.kind\" = [\"tcp\", \"dctcp\"]\n",
            "",
        );
    for file in ["exp.v2.toml", "a+b=c.toml"] {
        std::fs::write(dir.path().join(file), &text).unwrap();
        let out = htsim(&["run", file, "-q"], dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{file}: {err}");
        let results = format!("results/{}", file.trim_end_matches(".toml"));
        assert!(err.contains(&format!("results in {results}")), "{err}");
        let out = htsim(&["report", &results, "-q"], dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{file}: report: {err}");
    }
    // Other characters stay errors at `name`.
    std::fs::write(
        dir.path().join("s.toml"),
        format!("name = \"a b\"\n{}", text),
    )
    .unwrap();
    let out = htsim(&["validate", "s.toml"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("s.toml:1:8: `name`: bad name \"a b\": use letters, digits, `.`, `_`, `-`"),
        "{err}"
    );
}

/// A file where a run's directory, or `runs/` above it, goes: the runs that reached it failed
/// with exit 1 (`writing .../seed-1: Not a directory`), as if the machine had, after the other
/// runs had run. It is the caller's, as an --out in the way is: exit 2 before any run,
/// naming it.
#[test]
fn a_file_in_the_place_of_a_run_directory_is_refused_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), TINY).unwrap();
    std::fs::create_dir(dir.path().join("fresh")).unwrap();
    std::fs::write(dir.path().join("fresh/runs"), "").unwrap();
    let out = htsim(&["run", "tiny.toml", "--out", "fresh", "-q"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "fresh/runs: cannot hold a run's directory (it exists and is not a directory)"
        ),
        "{err}"
    );

    let out = htsim(&["run", "tiny.toml", "--out", "r", "-q"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    // The first run's directory, which the deepest-path check before the runs did not look at.
    let run = dir.path().join("r/runs/transports.long.kind=tcp/seed-1");
    std::fs::remove_dir_all(&run).unwrap();
    std::fs::write(&run, "").unwrap();
    let out = htsim(&["run", "tiny.toml", "--out", "r"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("transports.long.kind=tcp/seed-1: cannot hold a run's directory"),
        "{err}"
    );
    assert!(!err.contains("done:"), "{err}");
    assert!(std::fs::metadata(&run).unwrap().is_file());
}
