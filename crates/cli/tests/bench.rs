//! `htsim bench` on a tiny scenario (the built-in suite takes too long in a debug build): its
//! figures agree with `htsim run`'s, its JSON is complete, `--compare` gives ratios, and bad
//! arguments exit 2. Speed is never asserted.

mod common;
use common::htsim;

use serde_json::Value;
use std::path::Path;

/// FatTree k=4, 16 long TCP flows for 2 ms.
const TINY: &str = r#"
name = "tiny"
description = "FatTree k=4, 16 long TCP flows, 2 ms"

[run]
duration = "2ms"

[topology]
kind = "fattree"
k = 4
link_rate = "10Gbps"
link_delay = "1us"

[transports.tcp]
kind = "tcp"
initial_cwnd = 10

[[flows]]
name = "long"
size = "infinite"
transport = "tcp"
"#;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn bench_measures_what_run_simulates_and_compares_with_a_saved_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), TINY).unwrap();
    let o = htsim(
        &[
            "bench",
            "--scenario",
            "tiny.toml",
            "--repeat",
            "2",
            "--json",
            "b.json",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    assert!(table.starts_with("scenario "), "{table}");
    assert!(
        table.lines().nth(1).unwrap().starts_with("tiny "),
        "{table}"
    );

    let b = read_json(&dir.path().join("b.json"));
    assert_eq!(b["repeat"], 2);
    assert_eq!(b["quick"], false);
    let s = &b["scenarios"][0];
    assert_eq!(s["name"], "tiny");
    assert_eq!(s["simulated_seconds"], 0.002);
    assert_eq!(s["wall_seconds_all"].as_array().unwrap().len(), 2);
    let events = s["events"].as_u64().unwrap();
    let packets = s["data_packets"].as_u64().unwrap();
    assert!(packets > 1000, "{s}");
    let per_packet = s["events_per_packet"].as_f64().unwrap();
    assert!(
        (per_packet - events as f64 / packets as f64).abs() < 1e-9,
        "{s}"
    );
    let wall = s["wall_seconds"].as_f64().unwrap();
    let rate = s["data_packets_per_second"].as_f64().unwrap();
    assert!((rate * wall / packets as f64 - 1.0).abs() < 1e-9, "{s}");
    if cfg!(target_os = "linux") {
        assert!(s["peak_rss_mib"].as_f64().unwrap() > 1.0, "{s}");
        let cpu = s["cpu_seconds"].as_f64().unwrap();
        assert!((0.0..=wall + 0.02).contains(&cpu), "{s}");
    }

    // The same run as `htsim run` simulates: the same events and packets.
    let o = htsim(&["run", "tiny.toml", "--out", "r", "-q"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let run = read_json(&dir.path().join("r/runs/base/seed-1/summary.json"));
    assert_eq!(run["cost"]["events"].as_u64(), Some(events));
    assert_eq!(
        run["cost"]["data_packets_delivered"].as_u64(),
        Some(packets)
    );

    // A saved file from "another build" that simulated twice the events and used twice the
    // memory: the ratios (new / old) are 0.50x (about, for the memory).
    let mut old = b.clone();
    let o_s = &mut old["scenarios"][0];
    o_s["events"] = Value::from(events * 2);
    o_s["peak_rss_mib"] = Value::from(s["peak_rss_mib"].as_f64().unwrap_or(0.0) * 2.0);
    std::fs::write(dir.path().join("old.json"), old.to_string()).unwrap();
    let o = htsim(
        &["bench", "--scenario", "tiny.toml", "--compare", "old.json"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let header = text.lines().find(|l| l.contains("speed-up")).unwrap();
    let row = text
        .lines()
        .skip_while(|l| !l.contains("speed-up"))
        .find(|l| l.starts_with("tiny "))
        .unwrap_or_else(|| panic!("{text}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    let column = |name: &str| {
        let i = header.split_whitespace().position(|h| h == name).unwrap();
        cells[i]
    };
    assert_eq!(column("events"), "0.50x", "{text}");
    assert_eq!(column("packets"), "1.00x", "{text}");
    if cfg!(target_os = "linux") {
        // Peak RSS varies a little from process to process: about half.
        let memory: f64 = column("memory").trim_end_matches('x').parse().unwrap();
        assert!((0.4..0.6).contains(&memory), "{text}");
    }
}

#[test]
fn bad_bench_arguments_exit_2_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = format!("{TINY}\n[sweep]\n\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]\n");
    std::fs::write(dir.path().join("sweep.toml"), sweep).unwrap();
    std::fs::write(dir.path().join("tiny.toml"), TINY).unwrap();
    std::fs::write(dir.path().join("bad.json"), "{\"scenarios\": 3}").unwrap();
    for (args, expected) in [
        (
            &["bench", "--only", "nope"][..],
            "no such built-in scenario; expected one of htsim-compare-tcp",
        ),
        (
            &["bench", "--scenario", "sweep.toml"][..],
            "2 runs; bench measures one run",
        ),
        (
            &["bench", "--scenario", "tiny.toml", "--repeat", "0"][..],
            "--repeat 0",
        ),
        (
            &[
                "bench",
                "--scenario",
                "tiny.toml",
                "--compare",
                "missing.json",
            ][..],
            "missing.json",
        ),
        (
            &["bench", "--scenario", "tiny.toml", "--compare", "bad.json"][..],
            "expected a file written by `htsim bench --json`",
        ),
        (
            &["bench", "--scenario", "tiny.toml", "--json", "nodir/b.json"][..],
            "--json nodir/b.json: no such directory",
        ),
        (
            &["bench", "--scenario", "tiny.toml", "--quick"][..],
            "--only and --quick apply to the built-in suite",
        ),
    ] {
        let o = htsim(args, dir.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(expected), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?} ran: {}", stdout(&o));
    }
}

/// `--compare` naming a FIFO (or /dev/zero) read for ever, before anything ran; it is now
/// refused at once, as a scenario file would be.
#[test]
fn a_compare_file_that_is_no_regular_file_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), TINY).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join("old.json"))
        .status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo here
    }
    let mut command = common::command(dir.path());
    command.args(["bench", "--scenario", "tiny.toml", "--compare", "old.json"]);
    let o = common::output_within_60s(command);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--compare old.json: it is not a regular file"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty(), "ran: {}", stdout(&o));
}
