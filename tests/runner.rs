//! The runner with a deterministic stand-in executor: byte-identical files for 1 and 2 jobs,
//! shards that partition the run list, and resuming by skipping complete runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use htsim::output::RunFiles;
use htsim::report::merge::check_runs;
use htsim::report::run_summary::{RunCost, RunSummary};
use htsim::runner::{
    run_all, run_list, select, write_report, ReportOutcome, RunError, RunEvent, RunOptions,
};
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
        crossings_csv: None,
        summary: summary(seed, x),
    })
}

/// A run summary (no flows, no links) of `seed` carrying `x`: what makes a run complete.
fn summary(seed: u64, x: u64) -> RunSummary {
    RunSummary {
        point: "fake".into(),
        point_index: 0,
        seed,
        window_start_ns: 0,
        window_end_ns: x,
        classes: Vec::new(),
        layers: Vec::new(),
        cost: RunCost::new(0, 0, 0, 0.0),
        files: Vec::new(),
    }
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
        ..RunOptions::default()
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
    // flows.csv, links.csv, run.json and summary.json per run, and scenario.toml.
    assert_eq!(fa.len(), 18 * 4 + 1);
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

#[test]
fn shards_of_other_seed_lists_cannot_share_a_directory() {
    // Shard 1/2 of seeds 1..=2 is writing the directory while shard 2/2 of seeds 1..=4 starts:
    // their run lists differ (together they would leave seed 3 to no one and scenario.toml
    // naming one list), so the second is locked out.
    let two = loaded_with(&["run.seeds=2"]);
    let four = loaded_with(&["run.seeds=4"]);
    let dir = tempfile::tempdir().unwrap();
    let digest = htsim::identity::scenario_digest(&two.scenario);
    let shard = |i| Some(Shard::new(i, 2).unwrap());
    let held = htsim::lock::DirLock::acquire(dir.path(), shard(1), Some(&digest)).unwrap();
    let options = RunOptions {
        out: dir.path().to_path_buf(),
        jobs: 1,
        shard: shard(2),
        ..RunOptions::default()
    };
    let Err(RunError::Locked(e)) = run_all(&four, &options, &fake, &|_| {}) else {
        panic!("a shard of another seed list must not share the directory");
    };
    assert!(e.to_string().contains("a shard of another scenario"), "{e}");
    // The same seed list shares it.
    let report = run_all(&two, &options, &fake, &|_| {}).unwrap();
    assert_eq!(report.finished.len(), 6);
    drop(held);
}

fn loaded_with(set: &[&str]) -> Loaded {
    let options = LoadOptions {
        overrides: set.iter().map(|s| s.to_string()).collect(),
        seeds: None,
        ..LoadOptions::default()
    };
    load_str("runner-test.toml", SCENARIO, Path::new("."), &options).unwrap()
}

#[test]
fn changed_settings_stop_before_anything_runs_unless_stale_runs_are_replaced() {
    let l = loaded();
    let dir = tempfile::tempdir().unwrap();
    run(&l, dir.path(), 2, None);
    let before = files(dir.path());
    let changed = loaded_with(&["run.duration=\"2s\""]);
    let ran = std::sync::atomic::AtomicUsize::new(0);
    let counting = |s: &Scenario, seed: u64| {
        ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        fake(s, seed)
    };
    let shard = Shard::new(1, 3).unwrap();
    let mut options = RunOptions {
        out: dir.path().to_path_buf(),
        jobs: 2,
        shard: Some(shard),
        ..RunOptions::default()
    };
    // Every complete run of the whole run list is compared, not only the shard's.
    let Err(RunError::Stale(stale)) = run_all(&changed, &options, &counting, &|_| {}) else {
        panic!("changed settings must stop the run");
    };
    assert_eq!(stale.runs.len(), 18);
    assert!(
        stale.to_string().contains("run.duration: \"1s\" -> \"2s\""),
        "{stale}"
    );
    assert_eq!(ran.load(std::sync::atomic::Ordering::Relaxed), 0);
    assert_eq!(files(dir.path()), before);

    // Replacing: the shard's 6 runs are simulated again, the other shards' 12 deleted, and the
    // summaries and plots over the old settings go with them.
    std::fs::write(dir.path().join("summary.csv"), "old").unwrap();
    std::fs::write(dir.path().join("summary.json"), "old").unwrap();
    std::fs::create_dir_all(dir.path().join("plots")).unwrap();
    std::fs::write(dir.path().join("plots/fct.svg"), "old").unwrap();
    options.replace_stale = true;
    let report = run_all(&changed, &options, &counting, &|_| {}).unwrap();
    assert_eq!(report.replaced.len(), 18);
    assert_eq!(report.finished.len(), 6);
    assert_eq!(ran.load(std::sync::atomic::Ordering::Relaxed), 6);
    for old in ["summary.csv", "summary.json", "plots"] {
        assert!(
            !dir.path().join(old).exists(),
            "{old} of the old settings left"
        );
    }
    let runs = run_list(&changed);
    for r in &runs {
        assert_eq!(
            r.dir(dir.path()).exists(),
            shard.contains(r.position),
            "{}",
            r.id("runner-test")
        );
    }
    // The other shards then run without complaint: nothing stale is left.
    for i in 2..=3 {
        options.shard = Some(Shard::new(i, 3).unwrap());
        options.replace_stale = false;
        let report = run_all(&changed, &options, &counting, &|_| {}).unwrap();
        assert_eq!((report.finished.len(), report.skipped.len()), (6, 0));
    }
    let scenario = std::fs::read_to_string(dir.path().join("scenario.toml")).unwrap();
    assert!(scenario.contains("duration = \"2s\""), "{scenario}");
}

#[test]
fn every_failed_run_is_reported_and_the_others_finish() {
    let l = loaded();
    let dir = tempfile::tempdir().unwrap();
    let fail_seed_2 = |s: &Scenario, seed: u64| {
        if seed == 2 {
            Err(RunError::Failed(format!("seed {seed} failed")))
        } else {
            fake(s, seed)
        }
    };
    let options = RunOptions {
        out: dir.path().to_path_buf(),
        jobs: 2,
        ..RunOptions::default()
    };
    let report = run_all(&l, &options, &fail_seed_2, &|_: RunEvent<'_>| {}).unwrap();
    // Seed 2 of each of the 6 points fails; the 12 other runs finish.
    assert_eq!(report.failed.len(), 6, "{:?}", report.failed);
    assert_eq!(report.finished.len(), 12);
    let failed: Vec<&str> = report.failed.iter().map(|(id, _)| id.as_str()).collect();
    let expected: Vec<String> = run_list(&l)
        .iter()
        .filter(|r| r.seed == 2)
        .map(|r| r.id("runner-test"))
        .collect();
    assert_eq!(failed, expected);
    assert!(report.failed.iter().all(|(_, why)| why == "seed 2 failed"));
    // A failed run leaves no file that looks complete.
    for r in run_list(&l).iter().filter(|r| r.seed == 2) {
        assert!(!r.dir(dir.path()).join("summary.json").exists());
    }
}

#[test]
fn a_file_edited_while_runs_go_on_fails_the_runs_that_may_have_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let cdf = dir.path().join("sizes.cdf");
    let start = "0 0\n10000 50\n20000 100\n";
    std::fs::write(&cdf, start).unwrap();
    let text = r#"
name = "edited"
[run]
duration = "1ms"
seeds = 3
[topology]
kind = "star"
hosts = 2
[[flows]]
name = "short"
size = { cdf_file = "sizes.cdf" }
arrivals = { poisson = 10 }
transport = { kind = "tcp" }
"#;
    let l = load_str("edited.toml", text, dir.path(), &LoadOptions::default()).unwrap();
    let scenario = &l.points[0].scenario;
    let before = [1, 2, 3].map(|seed| htsim::identity::Settings::of(scenario, seed).digest);
    // Seed 2's run edits the file while it runs, as a user could while a real run reads it:
    // seed 1 ran before, seed 3 after (one job, in run-list order).
    let edit = |_: &Scenario, seed: u64| -> Result<RunFiles, RunError> {
        if seed == 2 {
            std::fs::write(&cdf, "0 0\n90000 50\n99000 100\n").unwrap();
        }
        Ok(RunFiles {
            summary: summary(seed, 0),
            ..RunFiles::default()
        })
    };
    let options = RunOptions {
        out: dir.path().join("o"),
        jobs: 1,
        ..RunOptions::default()
    };
    let report = run_all(&l, &options, &edit, &|_: RunEvent<'_>| {}).unwrap();
    // Seed 1 read the file as it was at the start, and records that; seeds 2 and 3 may have
    // read either contents: they fail, naming the file, and write nothing that looks complete.
    assert_eq!(report.finished, ["edited/base/seed-1"]);
    let failed: Vec<&str> = report.failed.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(failed, ["edited/base/seed-2", "edited/base/seed-3"]);
    for (_, why) in &report.failed {
        assert!(
            why.starts_with("sizes.cdf changed while the command ran"),
            "{why}"
        );
    }
    let json = dir.path().join("o/runs/base/seed-1/run.json");
    let recorded = htsim::identity::RunIdentity::read(&json).unwrap();
    assert_eq!(recorded.digest, before[0]);
    for seed in [2, 3] {
        let run = dir.path().join(format!("o/runs/base/seed-{seed}"));
        assert!(!htsim::output::is_complete(&run), "seed {seed}");
    }
    // With the file back as it was, running again completes the other runs alone.
    std::fs::write(&cdf, start).unwrap();
    let report = run_all(&l, &options, &fake_empty, &|_: RunEvent<'_>| {}).unwrap();
    assert_eq!(report.skipped, ["edited/base/seed-1"]);
    assert_eq!(report.finished.len(), 2);
    assert!(report.failed.is_empty());
}

/// A run that writes only its summary.
fn fake_empty(_: &Scenario, seed: u64) -> Result<RunFiles, RunError> {
    Ok(RunFiles {
        summary: summary(seed, 0),
        ..RunFiles::default()
    })
}

#[test]
fn the_summary_is_not_written_over_runs_of_other_settings() {
    // Two shards started at once into one directory, the second with other settings: neither
    // saw the other's runs as complete, so both ran; the summary must not average both.
    let l = loaded();
    let changed = loaded_with(&["run.duration=\"2s\""]);
    let dir = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    run(&l, dir.path(), 2, Some(Shard::new(1, 2).unwrap()));
    run(&changed, other.path(), 2, Some(Shard::new(2, 2).unwrap()));
    for (path, bytes) in files(other.path()) {
        if path.starts_with("runs") {
            let to = dir.path().join(path);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(to, bytes).unwrap();
        }
    }
    match write_report(&l, dir.path()).unwrap() {
        ReportOutcome::Incomplete {
            complete,
            total,
            stale,
        } => {
            assert_eq!((complete, total, stale.len()), (9, 18, 9));
            let shard2 = select(&run_list(&l), Some(Shard::new(2, 2).unwrap()));
            assert_eq!(stale[0], shard2[0].id("runner-test"));
        }
        ReportOutcome::Written(_) => panic!("summary written over runs of other settings"),
    }
    assert!(!dir.path().join("summary.csv").exists());
}

#[test]
fn merging_ignores_incomplete_copies_of_a_run() {
    // An interrupted copy with other settings in the first directory must neither stand for
    // the complete copy in the second nor make the two look like different runs.
    let l = loaded();
    let changed = loaded_with(&["run.duration=\"2s\""]);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    run(&changed, a.path(), 2, None);
    for r in run_list(&changed) {
        std::fs::remove_file(r.dir(a.path()).join("summary.json")).unwrap();
    }
    run(&l, b.path(), 2, None);
    let dirs = [a.path().to_path_buf(), b.path().to_path_buf()];
    let unverified = check_runs(&dirs, Some((&l, b.path()))).unwrap();
    assert!(unverified.is_empty(), "{unverified:?}");
    // Complete copies with other settings are still refused.
    run(&changed, a.path(), 2, None);
    assert!(check_runs(&dirs, Some((&l, b.path()))).is_err());
}

#[test]
fn a_changed_run_list_removes_the_summary_of_the_old_one() {
    // Seeds 1..=3, summarised; then seeds 1..=4, interrupted before seed 4 is done (here: it
    // fails). scenario.toml now names four seeds: a summary over three must not stand for it.
    let three = loaded_with(&["run.seeds=3"]);
    let dir = tempfile::tempdir().unwrap();
    run(&three, dir.path(), 2, None);
    let old_summaries = || {
        for name in ["summary.csv", "summary.json", "plots/fct.svg"] {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "old").unwrap();
        }
    };
    old_summaries();
    let four = loaded_with(&["run.seeds=4"]);
    let fail_seed_4 = |s: &Scenario, seed: u64| {
        if seed == 4 {
            Err(RunError::Failed("interrupted".into()))
        } else {
            fake(s, seed)
        }
    };
    let options = RunOptions {
        out: dir.path().to_path_buf(),
        jobs: 2,
        ..RunOptions::default()
    };
    let report = run_all(&four, &options, &fail_seed_4, &|_| {}).unwrap();
    assert_eq!((report.skipped.len(), report.failed.len()), (18, 6));
    for old in ["summary.csv", "summary.json", "plots"] {
        assert!(
            !dir.path().join(old).exists(),
            "{old} of the old run list left"
        );
    }
    // The same command again keeps what describes its run list.
    let report = run_all(&four, &options, &fake, &|_| {}).unwrap();
    assert_eq!(report.finished.len(), 6);
    old_summaries();
    run(&four, dir.path(), 2, None);
    assert!(dir.path().join("summary.csv").is_file());
}

#[test]
fn run_all_summarises_with_write_report_and_not_after_a_failed_run() {
    // With write_report, run_all summarises before it drops its lock (so that no other writer,
    // e.g. --replace-stale with other settings, can change the runs between the last run and
    // the summary). That order is run_all's code, not observable here: this checks that the
    // summary's outcome is reported, that the lock is gone afterwards, and that nothing is
    // summarised after a failed run.
    let l = loaded();
    let dir = tempfile::tempdir().unwrap();
    let options = RunOptions {
        out: dir.path().to_path_buf(),
        jobs: 2,
        shard: Some(Shard::new(1, 3).unwrap()),
        write_report: true,
        ..RunOptions::default()
    };
    let report = run_all(&l, &options, &fake, &|_| {}).unwrap();
    let Some(Ok(ReportOutcome::Incomplete {
        complete, total, ..
    })) = report.summary
    else {
        panic!("no summary outcome: {:?}", report.summary);
    };
    assert_eq!((complete, total), (6, 18));
    assert!(!dir.path().join(".htsim-lock-shard-1-of-3").exists());
    // Nothing is summarised after a failed run.
    let fail = |_: &Scenario, _: u64| Err(RunError::Failed("no".into()));
    let options = RunOptions {
        shard: Some(Shard::new(2, 3).unwrap()),
        ..options
    };
    let report = run_all(&l, &options, &fail, &|_| {}).unwrap();
    assert!(report.summary.is_none() && report.failed.len() == 6);
}

#[test]
fn a_shard_or_an_output_directory_that_cannot_be_used_is_an_error() {
    let loaded = loaded();
    let tmp = tempfile::tempdir().unwrap();
    // The fields of a shard are public: one built by hand is checked as `--shard` is (it
    // panicked dividing by zero).
    let options = RunOptions {
        out: tmp.path().join("out"),
        jobs: 1,
        shard: Some(Shard { index: 0, count: 0 }),
        ..RunOptions::default()
    };
    let e = run_all(&loaded, &options, &fake, &|_| {}).unwrap_err();
    assert!(matches!(e, RunError::Shard(_)) && e.is_usage(), "{e}");
    assert_eq!(
        e.to_string(),
        "--shard 0/0: the number of shards must be at least 1, e.g. --shard 1/4"
    );
    assert!(!options.out.exists(), "nothing is written");
    // An empty path named no directory: the error said "locking : No such file or directory".
    let options = RunOptions {
        jobs: 1,
        ..RunOptions::default()
    };
    let e = run_all(&loaded, &options, &fake, &|_| {}).unwrap_err();
    assert!(
        matches!(e, RunError::NoOutputDirectory) && e.is_usage(),
        "{e}"
    );
}
