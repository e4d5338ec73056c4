//! The runner with a deterministic stand-in executor: byte-identical files for 1 and 2 jobs,
//! shards that partition the run list, and resuming by skipping complete runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use htsim::output::RunFiles;
use htsim::runner::{run_all, run_list, select, RunError, RunEvent, RunOptions};
use htsim::scenario::{load_str, LoadOptions, Loaded, Scenario};
use htsim::shard::Shard;

const SCENARIO: &str = r#"
name = "runner-test"
[run]
duration = "1s"
seeds = 3
[topology]
kind = "fattree"
k = 4
[transports.m]
kind = "mptcp"
[[flows]]
name = "long"
size = "infinite"
transport = "m"
[sweep]
"transports.m.subflows" = [1, 2, 4]
"topology.link_rate" = ["100Mbps", "1Gbps"]
"#;

fn loaded() -> Loaded {
    load_str(
        "runner-test.toml",
        SCENARIO,
        Path::new("."),
        &LoadOptions::default(),
    )
    .unwrap()
}

/// Files that depend only on the scenario and the seed, with a little work to vary timing.
fn fake(scenario: &Scenario, seed: u64) -> Result<RunFiles, RunError> {
    let subflows = scenario
        .transport("m")
        .unwrap()
        .params
        .int("subflows")
        .unwrap();
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ subflows as u64;
    for _ in 0..(seed * 20_000) {
        x = x.rotate_left(7).wrapping_mul(31).wrapping_add(1);
    }
    Ok(RunFiles {
        flows_csv: Some(format!("class,flow_id\nlong,{x}\n").into_bytes()),
        links_csv: Some(format!("link\n{subflows}\n").into_bytes()),
        timeseries_csv: None,
        trace_csv: None,
        summary_json: format!("{{\"seed\":{seed},\"x\":{x}}}\n").into_bytes(),
    })
}

/// Every file under `dir`, by relative path.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn run(loaded: &Loaded, out: &Path, jobs: usize, shard: Option<Shard>) -> htsim::runner::RunReport {
    let options = RunOptions {
        out: out.to_path_buf(),
        jobs,
        shard,
    };
    run_all(loaded, &options, &fake, &|_: RunEvent<'_>| {}).unwrap()
}

#[test]
fn run_list_order_and_ids_are_stable() {
    let l = loaded();
    let runs = run_list(&l);
    assert_eq!(runs.len(), 18);
    assert_eq!(
        runs[0].id("runner-test"),
        "runner-test/transports.m.subflows=1,topology.link_rate=100Mbps/seed-1"
    );
    assert_eq!(
        runs[17].id("runner-test"),
        "runner-test/transports.m.subflows=4,topology.link_rate=1Gbps/seed-3"
    );
    assert_eq!(run_list(&loaded()), runs);
}

#[test]
fn one_job_and_two_jobs_write_identical_files() {
    let l = loaded();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let ra = run(&l, a.path(), 1, None);
    let rb = run(&l, b.path(), 2, None);
    assert_eq!(ra.finished.len(), 18);
    assert_eq!(ra.finished, rb.finished);
    let (fa, fb) = (files(a.path()), files(b.path()));
    assert_eq!(fa.len(), 18 * 3 + 1);
    assert_eq!(fa, fb);
}

#[test]
fn shards_partition_the_run_list_and_merge_to_the_whole() {
    let l = loaded();
    let whole = tempfile::tempdir().unwrap();
    run(&l, whole.path(), 2, None);
    let mut merged = BTreeMap::new();
    let mut count = 0;
    for i in 1..=4 {
        let shard = Shard::new(i, 4).unwrap();
        count += select(&run_list(&l), Some(shard)).len();
        let dir = tempfile::tempdir().unwrap();
        run(&l, dir.path(), 2, Some(shard));
        for (path, bytes) in files(dir.path()) {
            if let Some(old) = merged.insert(path.clone(), bytes.clone()) {
                // Only the scenario file is in every shard, and it is the same everywhere.
                assert_eq!(path, PathBuf::from("scenario.toml"));
                assert_eq!(old, bytes);
            }
        }
    }
    assert_eq!(count, 18);
    assert_eq!(merged, files(whole.path()));
}

#[test]
fn complete_runs_are_skipped_and_incomplete_ones_rerun() {
    let l = loaded();
    let dir = tempfile::tempdir().unwrap();
    run(&l, dir.path(), 2, None);
    // Interrupt one run: its summary (written last) is missing.
    let victim = run_list(&l)[5].dir(dir.path());
    std::fs::remove_file(victim.join("summary.json")).unwrap();
    let again = run(&l, dir.path(), 2, None);
    assert_eq!(again.skipped.len(), 17);
    assert_eq!(again.finished, vec![run_list(&l)[5].id("runner-test")]);
    assert!(victim.join("summary.json").is_file());
}
