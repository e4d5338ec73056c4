//! The `htsim` binary: exit codes and messages for bad input (issue 6 item 7), validate and list.

mod common;
use common::htsim;

use std::path::Path;

const BASE: &str = r#"
[run]
duration = "1s"
seeds = 2

[topology]
kind = "fattree"
k = 4

[transports.mptcp8]
kind = "mptcp"
subflows = 8

[[flows]]
name = "long"
senders = "33%"
size = "infinite"
transport = "mptcp8"

[[flows]]
name = "short"
senders = "rest"
size = "70KB"
arrivals = { poisson = 256 }
transport = { kind = "tcp" }
"#;

/// Validates `text` as s.toml and asserts exit code 2 and a message with `s.toml:LINE:` and
/// the key.
fn rejects(text: &str, line: usize, key: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    for args in [
        &["validate", "s.toml"][..],
        &["run", "s.toml", "--out", "o"][..],
    ] {
        let out = htsim(args, dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("s.toml:{line}:")),
            "no line {line} in:\n{err}"
        );
        assert!(err.contains(key), "no key `{key}` in:\n{err}");
    }
}

#[test]
fn unknown_key() {
    rejects(&BASE.replace("duration =", "durtion ="), 3, "run.durtion");
}

#[test]
fn missing_required_key() {
    rejects(&BASE.replace("duration = \"1s\"\n", ""), 2, "run.duration");
}

#[test]
fn bare_number_where_a_unit_is_needed() {
    rejects(&BASE.replace("\"1s\"", "1"), 3, "run.duration");
}

#[test]
fn negative_duration() {
    rejects(&BASE.replace("\"1s\"", "\"-2s\""), 3, "run.duration");
}

#[test]
fn odd_k() {
    rejects(&BASE.replace("k = 4", "k = 7"), 8, "topology.k");
}

#[test]
fn ecn_threshold_above_capacity() {
    let text = BASE.replace(
        "[transports.mptcp8]",
        "[queue]\nkind = \"ecn\"\ncapacity = \"10pkt\"\nmark_threshold = \"20pkt\"\n\n[transports.mptcp8]",
    );
    rejects(&text, 13, "queue.mark_threshold");
}

#[test]
fn senders_over_100_percent() {
    rejects(
        &BASE.replace("\"33%\"", "\"140%\""),
        16,
        "flows.long.senders",
    );
}

#[test]
fn sweep_path_naming_nothing() {
    rejects(
        &format!("{BASE}\n[sweep]\n\"flows.shrt.size\" = [\"1KB\"]\n"),
        28,
        "flows.shrt.size",
    );
}

#[test]
fn unknown_transport() {
    rejects(
        &BASE.replace("\"mptcp8\"\n\n[[flows]]", "\"mptcp9\"\n\n[[flows]]"),
        18,
        "flows.long.transport",
    );
}

#[test]
fn missing_cdf_file() {
    rejects(
        &BASE.replace("\"70KB\"", "{ cdf_file = \"gone.cdf\" }"),
        23,
        "flows.short.size.cdf_file",
    );
}

#[test]
fn empty_file() {
    rejects("", 1, "run");
}

#[test]
fn toml_syntax_error() {
    rejects(
        &BASE.replace("[topology]", "[topology"),
        6,
        "TOML syntax error",
    );
}

#[test]
fn zero_seeds() {
    rejects(&BASE.replace("seeds = 2", "seeds = 0"), 4, "run.seeds");
}

#[test]
fn more_runs_than_the_limit() {
    // 2 sweep points x 1e6 seeds = 2e6 runs, over MAX_RUNS (1e6): refused at `run.seeds`
    // before any run list is built.
    let text = BASE.replace("seeds = 2", "seeds = 1000000")
        + "[sweep]\n\"flows.short.size\" = [\"10KB\", \"20KB\"]\n";
    rejects(&text, 4, "run.seeds");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), &text).unwrap();
    let out = htsim(&["validate", "s.toml"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "2 sweep points x 1000000 seeds = 2000000 runs, more than the limit of 1000000"
        ),
        "{err}"
    );
}

#[test]
fn a_sweep_of_the_seeds_is_refused_before_the_run_list() {
    // Each point ran its own seeds, outside the limit on runs, which counts `[run] seeds`
    // once per point: 50 points of a million seeds each had `validate` draw matrices for 50
    // million runs. (Small values here, so that without the check the test fails at once.)
    let text = format!("{BASE}[sweep]\n\"run.seeds\" = [1, 3]\n");
    rejects(&text, 27, "sweep.run.seeds");
}

#[test]
fn an_error_in_a_very_long_line_shows_a_window_around_its_column() {
    // A sweep of 100 000 values on one line (1.1 MB) with a TOML syntax error at its end: the
    // message names the column and shows the 100 characters around it, not the whole line.
    let values: Vec<String> = (1..100_000).map(|i| format!("\"{i}us\"")).collect();
    let line = format!("\"flows.short.start\" = [{}, 2us]", values.join(", "));
    let column = line.find("2us]").unwrap() + 1;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        format!("{BASE}[sweep]\n{line}\n"),
    )
    .unwrap();
    let out = htsim(&["validate", "s.toml"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.len() < 1000, "{} bytes", err.len());
    let at = BASE.matches('\n').count() + 2;
    assert!(
        err.starts_with(&format!("error: s.toml:{at}:{column}: TOML syntax error")),
        "{err}"
    );
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[1].starts_with(&format!(" {at} | ...")) && lines[1].ends_with("\"99999us\", 2us]"),
        "{err}"
    );
    let caret = lines[2].find('^').unwrap();
    assert_eq!(&lines[1][caret..], "2us]", "{err}");
}

#[test]
fn a_seed_beyond_toml_integers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), BASE).unwrap();
    let out = htsim(
        &[
            "run",
            "s.toml",
            "--seed",
            "9223372036854775808",
            "--out",
            "o",
        ],
        dir.path(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("at most 9223372036854775807"), "{err}");
    assert!(!dir.path().join("o").exists());
    let list = BASE.replace("seeds = 2", "seeds = [1, 9223372036854775808]");
    let out = htsim(&["validate", "s.toml"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    std::fs::write(dir.path().join("s.toml"), list).unwrap();
    let out = htsim(&["validate", "s.toml"], dir.path());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_set_on_a_swept_key_is_refused_however_it_is_spaced() {
    let dir = tempfile::tempdir().unwrap();
    let text = BASE.to_string() + "[sweep]\n\"topology.link_rate\" = [\"1Gbps\", \"2Gbps\"]\n";
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    for set in [
        "topology.link_rate=\"10Gbps\"",
        "topology. link_rate=\"10Gbps\"",
        " topology .link_rate =\"10Gbps\"",
    ] {
        let out = htsim(&["validate", "s.toml", "--set", set], dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{set}: {err}");
        assert!(
            err.contains("`[sweep]` assigns `topology.link_rate` at every point"),
            "{set}: {err}"
        );
    }
}

#[test]
fn duplicate_flow_class_names() {
    rejects(
        &BASE.replace("\"short\"", "\"long\""),
        21,
        "flows.long.name",
    );
}

/// BASE with a partition/aggregate class whose `jobs` is on line 29.
fn with_jobs(jobs: &str) -> String {
    format!("{BASE}\n[[flows]]\nname = \"incast\"\njobs = {jobs}\ntransport = \"mptcp8\"\n")
}

#[test]
fn job_servers_out_of_range() {
    rejects(
        &with_jobs("{ servers = 0 }"),
        29,
        "flows.incast.jobs.servers",
    );
    // 16 hosts in a k = 4 FatTree: no room for a client and 16 servers.
    rejects(
        &with_jobs("{ servers = 16 }"),
        29,
        "flows.incast.jobs.servers",
    );
}

#[test]
fn job_class_with_matrix_keys() {
    let text = with_jobs("{ servers = 2 }").replace(
        "jobs = { servers = 2 }\n",
        "jobs = { servers = 2 }\nsize = \"70KB\"\n",
    );
    rejects(&text, 30, "flows.incast.size");
}

#[test]
fn bad_shards_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), BASE).unwrap();
    for shard in ["3/2", "0/2", "1/0", "x"] {
        let out = htsim(&["run", "s.toml", "--shard", shard], dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--shard {shard}: {err}");
        assert!(err.contains("--shard"), "{err}");
    }
    let out = htsim(
        &["run", "s.toml", "--seeds", "3", "--seed", "1"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn validate_prints_the_run_list_size_and_set_overrides_apply() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        format!("{BASE}\n[sweep]\n\"transports.mptcp8.subflows\" = [2, 4]\n"),
    )
    .unwrap();
    let out = htsim(&["validate", "s.toml"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 point(s), 4 run(s)"));
    std::fs::write(
        dir.path().join("j.toml"),
        format!(
            "{}\n[sweep]\n\"flows.incast.jobs.servers\" = [2, 4, 8]\n",
            with_jobs("{ concurrent = 2 }")
        ),
    )
    .unwrap();
    let out = htsim(&["validate", "j.toml"], dir.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3 point(s), 6 run(s)"), "{text}");
    let out = htsim(&["validate", "s.toml", "--set", "topology.k=5"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("--set topology.k=5") && err.contains("odd"),
        "{err}"
    );
}

#[test]
fn shipped_scenarios_validate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = htsim(
        &[
            "validate",
            "scenarios/quickstart.toml",
            "scenarios/htsim-compare.toml",
            "scenarios/incast-jobs.toml",
        ],
        &root,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn list_names_every_kind_with_defaults() {
    let out = htsim(&["list"], Path::new("."));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    for needle in [
        "fattree",
        "mmptcp",
        "switch_threshold",
        "= 100KB",
        "droptail",
        "poisson",
    ] {
        assert!(text.contains(needle), "{needle} missing");
    }
    let out = htsim(&["list", "workloads"], Path::new("."));
    let text = String::from_utf8_lossy(&out.stdout);
    // The job keys, under `jobs`, each with its default.
    let jobs = text.split("\n  jobs ").nth(1).expect("a jobs line");
    for (key, default) in [
        ("servers", "= 8"),
        ("request", "= 2KB"),
        ("response", "= 64KB"),
        ("concurrent", "= 8"),
        ("rack_local", "= true"),
    ] {
        let line = jobs
            .lines()
            .find(|l| l.split_whitespace().next() == Some(key))
            .unwrap_or_else(|| panic!("{key} missing from\n{text}"));
        assert!(line.contains(default), "{line}");
    }
}
