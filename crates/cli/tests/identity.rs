//! Trustworthy result directories through the `htsim` binary: resume skips only runs simulated
//! with the same settings (run.json), `report` merges only runs of one scenario, names stay
//! inside the output, CSV survives odd node names, and the output directory is locked.

mod common;
use common::htsim;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs and expects exit `code`; returns stderr.
fn expect(code: i32, args: &[&str], dir: &Path) -> String {
    let out = htsim(args, dir);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "htsim {args:?}: {err}");
    err
}

/// Runs shard `shard` (`i/N`) of s.toml in `dir` into `out`, quietly; asserts it exits 0 and
/// returns its stderr.
fn run_shard(dir: &Path, out: &str, shard: &str) -> String {
    expect(
        0,
        &["run", "s.toml", "--out", out, "--shard", shard, "-q"],
        dir,
    )
}

/// Two hosts on a star, one long flow each way, 2 ms: a run takes milliseconds.
const STAR: &str = r#"
name = "star"
[run]
duration = "2ms"
seeds = 2
[topology]
kind = "star"
hosts = 2
link_rate = "1Gbps"
[[flows]]
name = "long"
size = "infinite"
transport = { kind = "tcp" }
"#;

/// Every file under `dir` by relative path, with its bytes.
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

fn setup(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    dir
}

/// Takes the list of files out of the summary.json of the run in `run`: as an htsim from
/// before the list wrote it.
fn without_file_list(run: &Path) {
    let path = run.join("summary.json");
    let mut summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert!(summary.as_object_mut().unwrap().remove("files").is_some());
    std::fs::write(&path, serde_json::to_vec_pretty(&summary).unwrap()).unwrap();
}

/// `rate_bps` of the first row of a links.csv.
fn first_rate(links_csv: &Path) -> u64 {
    let mut r = csv::Reader::from_path(links_csv).unwrap();
    let at = r.headers().unwrap().iter().position(|h| h == "rate_bps");
    let rec = r.records().next().unwrap().unwrap();
    rec[at.unwrap()].parse().unwrap()
}

#[test]
fn resume_stops_on_changed_settings_and_replace_stale_reruns() {
    let dir = setup(STAR);
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "X", "-q"], p);
    let x = p.join("X");
    let before = files(&x);
    let run1 = x.join("runs/base/seed-1");
    let identity: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run1.join("run.json")).unwrap()).unwrap();
    assert!(identity["digest"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(identity["id"], "star/base/seed-1");
    assert!(identity["command_line"]
        .as_str()
        .unwrap()
        .ends_with("run s.toml --out X -q"));
    assert_eq!(identity["htsim_version"], env!("CARGO_PKG_VERSION"));
    // The commit, where the build knows it (a git checkout): absent otherwise.
    assert_eq!(identity["git_commit"].as_str(), htsim::identity::GIT_COMMIT);

    // One key of the scenario file changed: exit 2, naming the key, nothing touched.
    std::fs::write(p.join("s.toml"), STAR.replace("\"2ms\"", "\"3ms\"")).unwrap();
    let err = expect(2, &["run", "s.toml", "--out", "X"], p);
    assert!(err.contains("2 complete run(s) in X"), "{err}");
    assert!(
        err.contains("star/base/seed-1: run.duration: \"2ms\" -> \"3ms\""),
        "{err}"
    );
    assert!(
        err.contains("--replace-stale") && err.contains("--out"),
        "{err}"
    );
    assert_eq!(files(&x), before);
    std::fs::write(p.join("s.toml"), STAR).unwrap();

    // One --set changed: the same.
    let set = ["--set", "topology.link_rate=\"10Gbps\""];
    let err = expect(2, &["run", "s.toml", "--out", "X", set[0], set[1]], p);
    assert!(
        err.contains("topology.link_rate: \"1Gbps\" -> \"10Gbps\""),
        "{err}"
    );
    assert_eq!(files(&x), before);
    assert_eq!(first_rate(&run1.join("links.csv")), 1_000_000_000);

    // The unchanged command still resumes.
    let err = expect(0, &["run", "s.toml", "--out", "X"], p);
    assert!(err.contains("0 run(s) finished, 2 skipped"), "{err}");
    // Plots are drawn over the runs' files: asking for them changes no run.
    let plots = ["--set", "output.plots=true"];
    let err = expect(0, &["run", "s.toml", "--out", "X", plots[0], plots[1]], p);
    assert!(err.contains("0 run(s) finished, 2 skipped"), "{err}");
    assert!(x.join("plots").is_dir());
    std::fs::remove_dir_all(x.join("plots")).unwrap();
    expect(0, &["run", "s.toml", "--out", "X", "-q"], p);

    // --replace-stale simulates both again; scenario.toml and the runs agree.
    let args = [
        "run",
        "s.toml",
        "--out",
        "X",
        "--replace-stale",
        set[0],
        set[1],
    ];
    let err = expect(0, &args, p);
    assert!(err.contains("replaced 2 stale run(s)"), "{err}");
    assert!(err.contains("2 run(s) finished, 0 skipped"), "{err}");
    assert_eq!(first_rate(&run1.join("links.csv")), 10_000_000_000);
    let scenario = std::fs::read_to_string(x.join("scenario.toml")).unwrap();
    assert!(scenario.contains("link_rate = \"10Gbps\""), "{scenario}");
    let identity: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run1.join("run.json")).unwrap()).unwrap();
    assert!(identity["settings"]
        .as_str()
        .unwrap()
        .contains("link_rate = \"10Gbps\""));
    // And now the same command resumes.
    let err = expect(0, &["run", "s.toml", "--out", "X", set[0], set[1]], p);
    assert!(err.contains("0 run(s) finished, 2 skipped"), "{err}");
}

#[test]
fn resuming_runs_of_another_build_says_so() {
    let dir = setup(STAR);
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "X", "-q"], p);
    // Seed 1 as an older htsim would have written it: the same settings and digest.
    let json = p.join("X/runs/base/seed-1/run.json");
    let mut identity: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    identity["htsim_version"] = "0.0.1".into();
    identity["git_commit"] = "0123abc".into();
    std::fs::write(&json, serde_json::to_vec_pretty(&identity).unwrap()).unwrap();
    let err = expect(0, &["run", "s.toml", "--out", "X"], p);
    assert!(err.contains("0 run(s) finished, 2 skipped"), "{err}");
    assert!(
        err.contains(
            "note: 1 skipped run(s) were simulated by another htsim build, with the same \
             settings (e.g. star/base/seed-1, by htsim 0.0.1 (commit 0123abc)"
        ),
        "{err}"
    );
    // Runs of this build: no note.
    std::fs::remove_dir_all(p.join("X/runs/base/seed-1")).unwrap();
    let err = expect(0, &["run", "s.toml", "--out", "X"], p);
    assert!(!err.contains("another htsim build"), "{err}");
}

#[test]
fn a_summary_over_runs_of_several_builds_says_so() {
    // Shard 1/2 run by another htsim build, shard 2/2 by this one, into one directory: the
    // shard that completes the list writes the summary over both, and `report` rebuilds it.
    let dir = setup(STAR);
    let p = dir.path();
    run_shard(p, "X", "1/2");
    let json = p.join("X/runs/base/seed-1/run.json");
    let mut identity: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    identity["htsim_version"] = "0.0.1".into();
    identity["git_commit"] = "0123abc".into();
    std::fs::write(&json, serde_json::to_vec_pretty(&identity).unwrap()).unwrap();
    let note = "note: the summary is over runs of 2 htsim builds (htsim 0.0.1 (commit 0123abc): \
                1 run(s), htsim ";
    let err = run_shard(p, "X", "2/2");
    assert!(err.contains(note), "{err}");
    assert!(p.join("X/summary.csv").is_file());
    let err = expect(0, &["report", "X", "-q"], p);
    assert!(err.contains(note), "{err}");
    // Runs of one build: no note.
    std::fs::remove_dir_all(p.join("X/runs/base/seed-1")).unwrap();
    expect(0, &["run", "s.toml", "--out", "X", "-q"], p);
    let err = expect(0, &["report", "X"], p);
    assert!(!err.contains("htsim builds"), "{err}");
}

#[test]
fn set_on_a_swept_key_is_an_error() {
    let dir = setup(&format!(
        "{STAR}[sweep]\n\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]\n"
    ));
    for cmd in ["run", "validate"] {
        let args = [cmd, "s.toml", "--set", "topology.link_rate=\"5Gbps\""];
        let err = expect(2, &args, dir.path());
        assert!(err.contains("`topology.link_rate`"), "{err}");
        assert!(err.contains("[sweep]"), "{err}");
    }
    assert!(!dir.path().join("results").exists());
}

#[test]
fn a_nameless_scenario_never_writes_outside_results() {
    let dir = setup(&STAR.replace("name = \"star\"\n", ""));
    std::fs::rename(dir.path().join("s.toml"), dir.path().join("...toml")).unwrap();
    let err = expect(2, &["run", "...toml", "-q"], dir.path());
    assert!(
        err.contains("`name`") && err.contains("names no new directory"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_run_folder_name_over_255_bytes_stops_before_any_run() {
    let long = "x".repeat(300);
    let dir = setup(&format!(
        "{STAR}[[flows]]\nname = \"other\"\nsize = \"infinite\"\n\
         transport = {{ kind = \"tcp\" }}\n[sweep]\n\"flows.other.matrix\" = [\"{long}\"]\n"
    ));
    for args in [
        &["validate", "s.toml"][..],
        &["run", "s.toml", "--out", "o"][..],
    ] {
        let err = expect(2, args, dir.path());
        assert!(err.contains("`sweep.flows.other.matrix`"), "{err}");
        assert!(err.contains("over the limit of 255 bytes"), "{err}");
    }
    assert!(!dir.path().join("o").exists());
}

#[test]
fn a_long_flow_class_name_still_gets_its_charts() {
    // A class name of 250 characters makes chart names over 255 bytes: the summary failed
    // with "File name too long" after every run had finished.
    let class = "c".repeat(250);
    let text = STAR.replace("name = \"long\"", &format!("name = \"{class}\""));
    let dir = setup(&format!("{text}[output]\nplots = true\n"));
    expect(0, &["run", "s.toml", "--out", "X", "-q"], dir.path());
    let names: Vec<String> = std::fs::read_dir(dir.path().join("X/plots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().any(|n| n.starts_with("throughput_ranked_ccc")),
        "{names:?}"
    );
    assert!(names.iter().all(|n| n.len() <= 255), "{names:?}");
}

#[test]
fn node_names_with_commas_keep_links_csv_well_formed() {
    let dir = setup(
        "name = \"comma\"\n[run]\nduration = \"1ms\"\nseeds = 1\n[topology]\nkind = \"file\"\n\
         path = \"net.txt\"\n[[flows]]\nname = \"long\"\nsize = \"infinite\"\n\
         transport = { kind = \"tcp\" }\n",
    );
    std::fs::write(
        dir.path().join("net.txt"),
        "host host0\nhost host1\nswitch sw,1 layer=tor\n\
         link host0 sw,1 1Gbps 1us 100pkt\nlink host1 sw,1 1Gbps 1us 100pkt\n",
    )
    .unwrap();
    expect(0, &["run", "s.toml", "--out", "o", "-q"], dir.path());
    let mut r = csv::Reader::from_path(dir.path().join("o/runs/base/seed-1/links.csv")).unwrap();
    // point, seed, then the 12 columns of the link.
    assert_eq!(r.headers().unwrap().len(), 14);
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(
        (&rows[0][2], &rows[0][3], &rows[0][4]),
        ("host0->sw,1", "host0", "sw,1")
    );
    assert!(rows.iter().all(|row| row.len() == 14));
    // The report checks the runs against o/scenario.toml, whose topology path is relative to
    // where the scenario ran: the file's digest is not compared there.
    expect(0, &["report", "o", "-q"], dir.path());
}

#[test]
fn truncated_summaries_and_temp_files_of_a_killed_run_are_redone_and_cleaned() {
    let dir = setup(STAR);
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "X", "-q"], p);
    let x = p.join("X");
    let before = files(&x);
    let run2 = x.join("runs/base/seed-2");
    let summary = std::fs::read(run2.join("summary.json")).unwrap();
    std::fs::write(run2.join("summary.json"), &summary[..summary.len() / 2]).unwrap();
    std::fs::write(run2.join(".flows.csv.tmp-99999-3"), b"half a file").unwrap();
    std::fs::write(x.join(".scenario.toml.tmp-99999-0"), b"half").unwrap();
    std::fs::create_dir(x.join("plots")).unwrap();
    std::fs::write(x.join("plots/.fct_cdf_long.png.tmp-99999-5"), b"half").unwrap();
    let err = expect(0, &["run", "s.toml", "--out", "X", "--jobs", "100000"], p);
    assert!(err.contains("1 run(s) finished, 1 skipped"), "{err}");
    assert!(err.contains("2 at a time"), "{err}");
    let after = files(&x);
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &before {
        // Results are byte-identical; run.json differs only in the recorded command line.
        if !path.ends_with("run.json") && !path.ends_with("summary.json") {
            assert_eq!(&after[path], bytes, "{}", path.display());
        }
    }
    // A killed report leaves its temporary files in the directory it writes: the next report
    // removes them.
    std::fs::write(x.join(".summary.csv.tmp-99999-7"), b"half").unwrap();
    std::fs::write(x.join("plots/.fct_cdf_long.svg.tmp-99999-8"), b"half").unwrap();
    expect(0, &["report", "X", "-q"], p);
    assert_eq!(
        files(&x).keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>()
    );
}

#[test]
fn unreadable_run_summaries_are_incomplete_runs_for_run_and_report() {
    let dir = setup(STAR);
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "X", "-q"], p);
    let x = p.join("X");
    // Seed 2's summary is JSON but not a run's summary; a run outside the run list (seed 7)
    // has a truncated one.
    std::fs::write(x.join("runs/base/seed-2/summary.json"), "{}\n").unwrap();
    std::fs::create_dir_all(x.join("runs/base/seed-7")).unwrap();
    std::fs::write(x.join("runs/base/seed-7/summary.json"), "{\"point\": \"ba").unwrap();
    // report summarises the complete run and names the other as missing.
    let err = expect(0, &["report", "X"], p);
    assert!(
        err.contains("1 of 2 run(s) complete") && err.contains("missing: star/base/seed-2"),
        "{err}"
    );
    assert_eq!(first_n(&x.join("summary.csv")), "1");
    // run does seed 2 again and writes the summary over both seeds.
    let err = expect(0, &["run", "s.toml", "--out", "X"], p);
    assert!(err.contains("1 run(s) finished, 1 skipped"), "{err}");
    assert_eq!(first_n(&x.join("summary.csv")), "2");
}

#[test]
fn runs_with_a_file_lost_or_cut_short_are_incomplete_for_run_and_report() {
    let dir = setup(STAR);
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "X", "-q"], p);
    let x = p.join("X");
    let flows = |seed: u64| x.join(format!("runs/base/seed-{seed}/flows.csv"));
    let (whole_1, whole_2) = (
        std::fs::read(flows(1)).unwrap(),
        std::fs::read(flows(2)).unwrap(),
    );
    // Deleted by hand: report leaves the run out and says why; run does it again.
    std::fs::remove_file(flows(1)).unwrap();
    let err = expect(0, &["report", "X"], p);
    assert!(err.contains("1 of 2 run(s) complete"), "{err}");
    assert!(
        err.contains("missing: star/base/seed-1 (incomplete copy: ")
            && err.contains("seed-1: flows.csv is missing)"),
        "{err}"
    );
    assert_eq!(first_n(&x.join("summary.csv")), "1");
    let err = expect(0, &["run", "s.toml", "--out", "X"], p);
    assert!(
        err.contains(
            "1 run(s) were no longer complete (a file lost or cut short since, or a summary \
             from an older htsim) and were simulated again (e.g. star/base/seed-1: flows.csv \
             is missing)"
        ),
        "{err}"
    );
    assert!(err.contains("1 run(s) finished, 1 skipped"), "{err}");
    assert_eq!(std::fs::read(flows(1)).unwrap(), whole_1);
    assert_eq!(first_n(&x.join("summary.csv")), "2");
    // Cut short (a disk that filled up): the same.
    std::fs::write(flows(2), &whole_2[..whole_2.len() / 2]).unwrap();
    let err = expect(0, &["report", "X"], p);
    let cut = format!(
        "flows.csv holds {} bytes, not the {} written",
        whole_2.len() / 2,
        whole_2.len()
    );
    assert!(
        err.contains("missing: star/base/seed-2") && err.contains(&cut),
        "{err}"
    );
    let err = expect(0, &["run", "s.toml", "--out", "X"], p);
    assert!(err.contains("1 run(s) finished, 1 skipped"), "{err}");
    assert_eq!(std::fs::read(flows(2)).unwrap(), whole_2);
    // A summary.json written before htsim listed the files counts on its own, as it did.
    without_file_list(&x.join("runs/base/seed-1"));
    std::fs::remove_file(flows(1)).unwrap();
    let err = expect(0, &["run", "s.toml", "--out", "X"], p);
    assert!(err.contains("0 run(s) finished, 2 skipped"), "{err}");
    assert!(!flows(1).exists());
}

/// A summary.json from before a per-flow list existed (here `fct_values_ms`, from before
/// `fct_pooled`) could not give its flows to the pooled rows, which would pool the other seeds'
/// flows alone: the run is incomplete, so report leaves it out and says why, and run simulates
/// it again, after which the pooled row counts every flow of both seeds.
#[test]
fn a_summary_without_a_per_flow_list_is_done_again() {
    const FINITE: &str = r#"
name = "star"
[run]
duration = "2ms"
drain = "50ms"
seeds = 2
[topology]
kind = "star"
hosts = 4
link_rate = "1Gbps"
[[flows]]
name = "short"
size = "20KB"
transport = { kind = "tcp" }
"#;
    let dir = setup(FINITE);
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "X", "-q"], p);
    let x = p.join("X");
    let summary_csv = || std::fs::read_to_string(x.join("summary.csv")).unwrap();
    let pooled_n = |csv: &str| {
        let row = csv
            .lines()
            .find(|l| l.starts_with("base,short,fct_pooled,"));
        row.map(|r| r.split(',').nth(4).unwrap().to_string())
    };
    let whole = summary_csv();
    let pooled = pooled_n(&whole).expect("a fct_pooled row");
    let run1 = x.join("runs/base/seed-1/summary.json");
    let written = std::fs::read(&run1).unwrap();
    let mut old: serde_json::Value = serde_json::from_slice(&written).unwrap();
    let class = &mut old["classes"][0];
    assert!(class
        .as_object_mut()
        .unwrap()
        .remove("fct_values_ms")
        .is_some());
    std::fs::write(&run1, serde_json::to_vec_pretty(&old).unwrap()).unwrap();
    let err = expect(0, &["report", "X"], p);
    assert!(
        err.contains("1 of 2 run(s) complete")
            && err.contains(
                "seed-1: summary.json has no `fct_values_ms` (written by an older htsim)"
            ),
        "{err}"
    );
    assert_eq!(first_n(&x.join("summary.csv")), "1");
    assert_eq!(
        pooled_n(&summary_csv()).as_deref(),
        Some("4"),
        "seed 2's flows alone"
    );
    let err = expect(0, &["run", "s.toml", "--out", "X"], p);
    assert!(
        err.contains("were simulated again (e.g. star/base/seed-1: summary.json has no"),
        "{err}"
    );
    assert!(err.contains("1 run(s) finished, 1 skipped"), "{err}");
    let again: serde_json::Value = serde_json::from_slice(&std::fs::read(&run1).unwrap()).unwrap();
    let before: serde_json::Value = serde_json::from_slice(&written).unwrap();
    let fcts = |v: &serde_json::Value| v["classes"][0]["fct_values_ms"].clone();
    assert!(fcts(&again).is_array() && fcts(&again) == fcts(&before));
    assert_eq!(summary_csv(), whole);
    assert_eq!(
        pooled, "8",
        "a flow from each of 4 hosts in each of two seeds"
    );
}

#[test]
fn closed_output_pipes_do_not_stop_the_runs() {
    // `htsim run s.toml 2>&1 | head -1`: once the reader has gone, every message fails to
    // print; the runs and the summary must still be written, and the exit code say so.
    let dir = setup(STAR);
    let p = dir.path();
    for args in [
        &["run", "s.toml", "--out", "X"][..],
        &["validate", "s.toml"][..],
    ] {
        let mut child = common::command(p)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        drop(child.stderr.take());
        assert_eq!(child.wait().unwrap().code(), Some(0), "{args:?}");
    }
    assert!(p.join("X/summary.csv").is_file());
}

#[test]
fn a_second_writer_is_locked_out_and_a_dead_ones_lock_taken_over() {
    let dir = setup(STAR);
    let p = dir.path();
    std::fs::create_dir(p.join("X")).unwrap();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let lock = p.join("X/.htsim-lock");
    // This test's own process is alive: its lock holds.
    std::fs::write(
        &lock,
        format!("pid={}\nhost={}\n", std::process::id(), host.trim()),
    )
    .unwrap();
    let err = expect(2, &["run", "s.toml", "--out", "X"], p);
    assert!(err.contains("X is being written by another htsim"), "{err}");
    assert!(!p.join("X/scenario.toml").exists());
    // report writes its --out too: the same lock keeps it out.
    expect(0, &["run", "s.toml", "--out", "Y", "-q"], p);
    let err = expect(2, &["report", "Y", "--out", "X"], p);
    assert!(err.contains("X is being written by another htsim"), "{err}");
    assert!(!p.join("X/summary.csv").exists());
    if Path::new("/proc/self").exists() {
        // A process id above the kernel's limit never runs: its lock is stale.
        std::fs::write(&lock, format!("pid=4194305\nhost={}\n", host.trim())).unwrap();
        let err = expect(0, &["run", "s.toml", "--out", "X"], p);
        assert!(err.contains("took over the lock"), "{err}");
        assert!(!lock.exists(), "the lock is released at the end");
    }
}

#[test]
fn bad_outputs_and_limits_are_usage_errors() {
    let dir = setup(STAR);
    let p = dir.path();
    std::fs::write(p.join("afile"), b"").unwrap();
    let err = expect(2, &["run", "s.toml", "--out", "afile"], p);
    assert!(
        err.contains("afile: exists and is not a directory"),
        "{err}"
    );
    let err = expect(2, &["run", "s.toml", "--out", "afile/sub"], p);
    assert!(
        err.contains("cannot create the output directory afile/sub: afile is a file"),
        "{err}"
    );
    let err = expect(2, &["report", "afile"], p);
    assert!(err.contains("afile: not a directory"), "{err}");
    std::fs::create_dir(p.join("R")).unwrap();
    let err = expect(2, &["report", "R", "--out", "afile"], p);
    assert!(
        err.contains("--out afile: exists and is not a directory"),
        "{err}"
    );
    let err = expect(2, &["run", "s.toml", "--seeds", "100000000"], p);
    assert!(err.contains("at most 1000000 seeds"), "{err}");
    let err = expect(2, &["run", "s.toml", "--shard", "0/0"], p);
    assert!(
        err.contains("the number of shards must be at least 1"),
        "{err}"
    );
    let out = common::command(p)
        .args(["run", "s.toml"])
        .env("SLURM_ARRAY_TASK_ID", "7")
        .env("SLURM_ARRAY_TASK_COUNT", "4")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("SLURM_ARRAY_TASK_ID=\"7\"") && err.contains("shard 8 of 4"),
        "{err}"
    );
    let out = common::command(p)
        .args(["run", "s.toml"])
        .env("SLURM_ARRAY_TASK_ID", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "0")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("SLURM_ARRAY_TASK_COUNT=\"0\": the number of shards must be at least 1"),
        "{err}"
    );
    // A shard count and no index would run the whole list in every task.
    let err = expect(2, &["run", "s.toml", "--shard-count", "4"], p);
    assert!(err.contains("--shard-count 4: no shard index"), "{err}");
    let err = expect(
        2,
        &["run", "s.toml", "--shard", "1/2", "--shard-count", "4"],
        p,
    );
    assert!(err.contains("cannot be used with"), "{err}");
    assert!(!p.join("results").exists());
}

#[test]
fn report_merges_only_runs_of_one_scenario() {
    let dir = setup(STAR);
    let p = dir.path();
    run_shard(p, "A", "1/2");
    run_shard(p, "B", "2/2");
    // Shards of one scenario, and identical duplicates, merge.
    expect(0, &["report", "A", "B", "--out", "M", "-q"], p);
    expect(0, &["report", "A", "B", "A", "--out", "M", "-q"], p);
    // So do shards of a scenario renamed (and described anew) between them: no run's setting
    // changed. The merge takes the first directory's name.
    let file = p.join("B/scenario.toml");
    let written = std::fs::read_to_string(&file).unwrap();
    // The top-level keys come before the first table.
    let top = written.find("\n[").unwrap();
    let renamed: String = written[..top]
        .lines()
        .map(|l| match l.split_once(" = ") {
            Some(("name", _)) => "name = \"renamed\"\n".to_string(),
            Some(("description", _)) => "description = \"again\"\n".to_string(),
            _ => format!("{l}\n"),
        })
        .collect::<String>()
        + &written[top + 1..];
    assert!(
        renamed.contains("name = \"renamed\"") && renamed.contains("description = \"again\""),
        "{written}"
    );
    std::fs::write(&file, &renamed).unwrap();
    expect(0, &["report", "A", "B", "--out", "M2", "-q"], p);
    let merged = std::fs::read_to_string(p.join("M2/scenario.toml")).unwrap();
    assert!(!merged.contains("renamed"), "{merged}");
    assert_eq!(
        std::fs::read_to_string(p.join("M2/summary.csv")).unwrap(),
        std::fs::read_to_string(p.join("M/summary.csv")).unwrap()
    );

    // Another scenario: an error naming both directories and the key.
    let set = ["--set", "topology.link_rate=\"10Gbps\""];
    expect(
        0,
        &[
            "run", "s.toml", "--out", "C", "--seed", "2", "-q", set[0], set[1],
        ],
        p,
    );
    let err = expect(2, &["report", "A", "C", "--out", "N"], p);
    assert!(err.contains("A and C hold different scenarios"), "{err}");
    assert!(
        err.contains("topology.link_rate: \"1Gbps\" -> \"10Gbps\""),
        "{err}"
    );
    assert!(
        !p.join("N").exists(),
        "a refused merge creates no directory"
    );

    // The same run with other settings in a directory without scenario.toml: a conflicting
    // duplicate, naming both directories.
    std::fs::remove_file(p.join("C/scenario.toml")).unwrap();
    let err = expect(2, &["report", "B", "C", "--out", "N"], p);
    assert!(
        err.contains("run runs/base/seed-2 is in B and in C with different settings"),
        "{err}"
    );
    assert!(err.contains("topology.link_rate"), "{err}");

    // A run with other settings than its directory's scenario.toml gives it.
    let b2 = p.join("B/runs/base/seed-2");
    std::fs::remove_dir_all(&b2).unwrap();
    std::fs::rename(p.join("C/runs/base/seed-2"), &b2).unwrap();
    let err = expect(2, &["report", "A", "B", "--out", "N"], p);
    assert!(
        err.contains("run star/base/seed-2 in B was simulated with other settings"),
        "{err}"
    );
}

#[test]
fn report_without_scenario_files_merges_only_runs_of_one_scenario() {
    let dir = setup(&format!(
        "{STAR}[sweep]\n\"flows.long.transport.kind\" = [\"tcp\", \"dctcp\"]\n\
         \"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]\n"
    ));
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "A", "--seed", "1", "-q"], p);
    let set = ["--set", "topology.hosts=3"];
    let args = [
        "run", "s.toml", "--out", "C", "--seed", "2", "-q", set[0], set[1],
    ];
    expect(0, &args, p);
    for d in ["A", "C"] {
        std::fs::remove_file(p.join(d).join("scenario.toml")).unwrap();
    }
    // The sweep points of one scenario differ in their swept keys (and a swept kind in its
    // table's defaults): they merge.
    expect(0, &["report", "A", "--out", "M", "-q"], p);
    // Seed 2 of another scenario (3 hosts) is no third seed of these points.
    let err = expect(2, &["report", "A", "C", "--out", "N"], p);
    assert!(
        err.contains(
            "runs/flows.long.transport.kind=dctcp,topology.link_rate=10Gbps/seed-1 in A and \
             runs/flows.long.transport.kind=dctcp,topology.link_rate=10Gbps/seed-2 in C are runs \
             of different scenarios"
        ),
        "{err}"
    );
    assert!(err.contains("topology.hosts: 2 -> 3"), "{err}");
    assert!(!p.join("N").exists());
}

#[test]
fn report_plots_fail_on_a_missing_or_binary_flows_csv() {
    let dir = setup(STAR);
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "X", "-q"], p);
    let flows = p.join("X/runs/base/seed-1/flows.csv");
    let good = std::fs::read(&flows).unwrap();
    std::fs::remove_file(&flows).unwrap();
    // Its summary.json lists flows.csv: the run is incomplete, left out and named.
    let err = expect(0, &["report", "X", "--plots"], p);
    assert!(
        err.contains("missing: star/base/seed-1 (incomplete copy: ")
            && err.contains("flows.csv is missing"),
        "{err}"
    );
    // Written before htsim listed the files, the summary counts on its own: the plots read
    // flows.csv and fail, naming it.
    without_file_list(&p.join("X/runs/base/seed-1"));
    let err = expect(1, &["report", "X", "--plots", "-q"], p);
    assert!(err.contains("flows.csv: missing"), "{err}");
    std::fs::write(&flows, [0xff_u8, 0xfe, 0, 1, 2, 0x80, b'\n', 0x9f]).unwrap();
    let err = expect(1, &["report", "X", "--plots", "-q"], p);
    assert!(err.contains("flows.csv"), "{err}");
    std::fs::write(&flows, b"not,a,flows,file\n1,2,3,4\n").unwrap();
    let err = expect(1, &["report", "X", "--plots", "-q"], p);
    assert!(err.contains("not a flows.csv"), "{err}");
    std::fs::write(&flows, good).unwrap();
    expect(0, &["report", "X", "--plots", "-q"], p);
}

#[test]
fn report_merges_the_union_of_the_seed_lists_in_any_order() {
    let dir = setup(STAR);
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "A", "--seed", "1", "-q"], p);
    expect(0, &["run", "s.toml", "--out", "B", "--seeds", "3", "-q"], p);
    expect(0, &["report", "A", "B", "--out", "M", "-q"], p);
    expect(0, &["report", "B", "A", "--out", "N", "-q"], p);
    let read = |f: &str| std::fs::read_to_string(p.join(f)).unwrap();
    assert_eq!(read("M/summary.csv"), read("N/summary.csv"));
    // Three seeds in the statistics: column n of the first row.
    let mut r = csv::Reader::from_path(p.join("M/summary.csv")).unwrap();
    let at = r.headers().unwrap().iter().position(|h| h == "n").unwrap();
    assert_eq!(&r.records().next().unwrap().unwrap()[at], "3");
    // The merged scenario.toml records the merged seeds (B's own `seeds = 3` already does).
    let m = read("M/scenario.toml");
    assert!(m.contains("seeds = [1, 2, 3]"), "{m}");
    assert_eq!(read("N/scenario.toml"), read("B/scenario.toml"));
}

/// Overwrites the flows.csv of the run in `run` with bytes of the same length that are no
/// flows.csv: the run still reads as complete (only sizes are checked), its plots fail.
fn spoil_flows_csv(run: &Path) {
    let flows = run.join("flows.csv");
    let len = std::fs::metadata(&flows).unwrap().len() as usize;
    let mut bytes = b"not,a,flows,file\n".to_vec();
    bytes.resize(len, b'x');
    std::fs::write(&flows, bytes).unwrap();
}

/// The seeds a scenario.toml asks for, as written (`2`, `[1, 2]`).
fn seeds_of(scenario_toml: &Path) -> String {
    let text = std::fs::read_to_string(scenario_toml).unwrap();
    let line = text.lines().find(|l| l.starts_with("seeds = ")).unwrap();
    line["seeds = ".len()..].to_string()
}

#[test]
fn a_report_that_fails_leaves_no_summary_over_another_run_list() {
    let dir = setup(STAR);
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "A", "--seed", "1", "-q"], p);
    expect(0, &["run", "s.toml", "--out", "B", "--seed", "2", "-q"], p);
    assert_eq!(seeds_of(&p.join("A/scenario.toml")), "[1]");
    spoil_flows_csv(&p.join("B/runs/base/seed-2"));
    // Merging B into A fails while drawing the plots, after the statistics: A's summary and
    // its scenario.toml must still describe one run list.
    let err = expect(1, &["report", "A", "B", "--out", "A", "--plots", "-q"], p);
    assert!(err.contains("flows.csv"), "{err}");
    if p.join("A/summary.csv").exists() {
        let seeds = seeds_of(&p.join("A/scenario.toml"));
        let n = first_n(&p.join("A/summary.csv"));
        assert_eq!(
            (seeds.as_str(), n.as_str()),
            (if n == "1" { "[1]" } else { "[1, 2]" }, n.as_str()),
            "summary.csv over {n} seed(s), scenario.toml asks for {seeds}"
        );
    }
}

#[test]
fn a_report_whose_plots_fail_writes_no_summary() {
    let dir = setup(STAR);
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "X", "-q"], p);
    spoil_flows_csv(&p.join("X/runs/base/seed-2"));
    // The summary is what says the report is done: a report cut short in its plots (here a
    // flows.csv they cannot read; or killed, or a full disk) leaves none.
    let err = expect(1, &["report", "X", "--out", "M", "--plots", "-q"], p);
    assert!(err.contains("flows.csv"), "{err}");
    for name in ["summary.csv", "summary.json"] {
        assert!(!p.join("M").join(name).exists(), "{name} written");
    }
    // `htsim run` with plots: the same.
    std::fs::remove_dir_all(p.join("X/plots")).ok();
    let err = expect(
        1,
        &[
            "run",
            "s.toml",
            "--out",
            "X",
            "--set",
            "output.plots=true",
            "-q",
        ],
        p,
    );
    assert!(err.contains("writing the summary"), "{err}");
    assert!(!p.join("X/summary.csv").exists());
}

/// STAR with its flow sizes from a CDF file next to the scenario.
fn star_with_cdf_file() -> tempfile::TempDir {
    let dir = setup(&STAR.replace("\"infinite\"", "{ cdf_file = \"sizes.cdf\" }"));
    std::fs::write(dir.path().join("sizes.cdf"), "0 0\n10000 50\n20000 100\n").unwrap();
    dir
}

/// Column `n` of the first row of a summary.csv: how many seeds it summarises.
fn first_n(summary_csv: &Path) -> String {
    let mut r = csv::Reader::from_path(summary_csv).unwrap();
    let at = r.headers().unwrap().iter().position(|h| h == "n").unwrap();
    r.records().next().unwrap().unwrap()[at].to_string()
}

#[test]
fn report_merges_no_runs_that_read_other_contents_of_a_file() {
    let dir = star_with_cdf_file();
    let p = dir.path();
    run_shard(p, "A", "1/2");
    // Same contents: shards merge.
    run_shard(p, "B", "2/2");
    expect(0, &["report", "A", "B", "--out", "M", "-q"], p);
    // The CDF file edited before the second shard ran (a later array task): its run drew
    // other flow sizes, and scenario.toml, which names the file only, cannot tell.
    std::fs::write(p.join("sizes.cdf"), "0 0\n100000 50\n200000 100\n").unwrap();
    run_shard(p, "C", "2/2");
    let err = expect(2, &["report", "A", "C", "--out", "N"], p);
    assert!(
        err.contains(
            "runs/base/seed-1 in A and runs/base/seed-2 in C read different contents of sizes.cdf"
        ),
        "{err}"
    );
    assert!(
        !p.join("N").exists(),
        "a refused merge creates no directory"
    );
    // The same two runs in one directory (two shards sharing it, the file edited between
    // their starts): refused too.
    std::fs::rename(p.join("C/runs/base/seed-2"), p.join("A/runs/base/seed-2")).unwrap();
    let err = expect(2, &["report", "A"], p);
    assert!(
        err.contains("read different contents of sizes.cdf"),
        "{err}"
    );
    assert!(!p.join("A/summary.csv").exists());
}

#[test]
fn report_summarises_only_the_run_list_even_with_a_relative_cdf_file() {
    let dir = star_with_cdf_file();
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "X", "-q"], p);
    // The recorded scenario now asks for seed 1 only; seed 2 stays in runs/.
    let scenario = std::fs::read_to_string(p.join("X/scenario.toml")).unwrap();
    assert!(scenario.contains("seeds = 2"), "{scenario}");
    std::fs::write(
        p.join("X/scenario.toml"),
        scenario.replace("seeds = 2", "seeds = [1]"),
    )
    .unwrap();
    let err = expect(0, &["report", "X"], p);
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(first_n(&p.join("X/summary.csv")), "1");
    // A scenario.toml that does not load is an error, never a silent fallback.
    std::fs::write(p.join("X/scenario.toml"), "[run]\nduration = 5\n").unwrap();
    let err = expect(2, &["report", "X"], p);
    assert!(err.contains("scenario.toml"), "{err}");
}

#[test]
fn runs_no_longer_in_the_run_list_are_stale() {
    let dir = setup(STAR);
    let p = dir.path();
    expect(0, &["run", "s.toml", "--out", "X", "-q"], p);
    let err = expect(2, &["run", "s.toml", "--out", "X", "--seed", "1"], p);
    assert!(
        err.contains("runs/base/seed-2: not in the run list"),
        "{err}"
    );
    assert!(p.join("X/runs/base/seed-2").is_dir());
    expect(
        0,
        &[
            "run",
            "s.toml",
            "--out",
            "X",
            "--seed",
            "1",
            "--replace-stale",
            "-q",
        ],
        p,
    );
    assert!(!p.join("X/runs/base/seed-2").exists());
    assert_eq!(first_n(&p.join("X/summary.csv")), "1");
}

/// Every file a scenario reads is part of its runs' settings: edited, it makes them stale on
/// resume (the runs read the old contents) and keeps `report` from merging runs of both.
#[test]
fn every_file_a_scenario_reads_makes_its_runs_stale_when_edited() {
    let pairs = STAR.replace(
        "name = \"long\"\n",
        "name = \"long\"\nmatrix = \"pairs\"\npairs_file = \"pairs.txt\"\n",
    );
    let cdf = STAR.replace("\"infinite\"", "{ cdf_file = \"sizes.cdf\" }");
    let cases = [
        (pairs.as_str(), "pairs.txt", "0 1\n", "1 0\n"),
        (
            cdf.as_str(),
            "sizes.cdf",
            "0 0\n10000 50\n20000 100\n",
            "0 0\n100000 50\n200000 100\n",
        ),
    ];
    for (scenario, file, before, after) in cases {
        let dir = setup(scenario);
        let p = dir.path();
        std::fs::write(p.join(file), before).unwrap();
        expect(
            0,
            &["run", "s.toml", "--out", "X", "--shard", "1/2", "-q"],
            p,
        );
        std::fs::write(p.join(file), after).unwrap();
        let err = expect(2, &["run", "s.toml", "--out", "X", "-q"], p);
        assert!(err.contains(&format!("files.{file}")), "{file}: {err}");
        // A shard run after the edit does not merge with one run before it.
        expect(
            0,
            &["run", "s.toml", "--out", "Y", "--shard", "2/2", "-q"],
            p,
        );
        let err = expect(2, &["report", "X", "Y", "--out", "M"], p);
        assert!(
            err.contains(&format!("read different contents of {file}")),
            "{file}: {err}"
        );
    }
}

/// The scenario's name is no setting: a scenario renamed and run again into the same directory
/// reuses its complete runs, as docs/outputs.md (run.json) says. Their run.json keep the `id`
/// they were simulated under (the old name), which nothing reads back; scenario.toml takes
/// the new name, and the summaries, which name no scenario, are the same.
#[test]
fn a_renamed_scenario_reuses_its_runs_which_keep_the_id_they_ran_under() {
    let dir = setup(STAR);
    expect(0, &["run", "s.toml", "--out", "o", "-q"], dir.path());
    let summary = std::fs::read(dir.path().join("o/summary.csv")).unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        STAR.replace("name = \"star\"", "name = \"renamed\""),
    )
    .unwrap();
    let err = expect(0, &["run", "s.toml", "--out", "o"], dir.path());
    assert!(err.contains("0 run(s) finished, 2 skipped"), "{err}");
    let run_json = std::fs::read_to_string(dir.path().join("o/runs/base/seed-1/run.json")).unwrap();
    assert!(
        run_json.contains("\"id\": \"star/base/seed-1\""),
        "{run_json}"
    );
    let scenario = std::fs::read_to_string(dir.path().join("o/scenario.toml")).unwrap();
    assert!(scenario.contains("\nname = \"renamed\"\n"), "{scenario}");
    assert_eq!(
        std::fs::read(dir.path().join("o/summary.csv")).unwrap(),
        summary
    );
    let err = expect(0, &["report", "o"], dir.path());
    assert!(err.contains("renamed: 2 of 2 run(s) complete"), "{err}");
}
