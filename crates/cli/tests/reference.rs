//! `[[reference]]` through the binary: a tiny sweep (a whole transport table paired with its
//! marking threshold, an axis added with `--set`) compared with published values, one of them
//! deliberately out of reach: reference.csv, the printed table, exit 0; `htsim report` writes
//! the same again; a bad reference or `--set` stops `run` and `validate` with exit 2.

mod common;
use common::htsim;

use std::path::Path;

const SCENARIO: &str = r#"
name = "ref"
[run]
duration = "60ms"
drain = "40ms"
seeds = 2
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
[queue]
kind = "ecn"
mark_threshold = "20pkt"
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
transport = { kind = "tcp" }
[sweep.transport]
"transports.long" = [{ kind = "tcp" }, { kind = "dctcp", g = 0.0625 }]
"queue.mark_threshold" = ["100pkt", "20pkt"]

[[reference]]
source = "Test, a bound every point meets"
metric = "goodput_mean"
class = "long"
at_least = 1
unit = "Mbps"

[[reference]]
source = "Test, deliberately failing"
metric = "goodput_mean"
class = "long"
point = { "queue.mark_threshold" = "20pkt" }
value = 5000
tolerance_pct = 10
spread = 3
unit = "Mbps"

[[reference]]
source = "Test, no such row"
metric = "jct_mean"
class = "short"
value = 1
unit = "ms"
"#;

/// The records of a CSV file, header first.
fn csv(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    r.records()
        .map(|x| x.unwrap().iter().map(str::to_string).collect())
        .collect()
}

/// The value of `column` in `row` of a CSV whose header is `header`.
fn get<'a>(header: &[String], row: &'a [String], column: &str) -> &'a str {
    let i = header
        .iter()
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("no column {column}"));
    &row[i]
}

#[test]
fn a_run_compares_with_its_references_and_reports_a_mismatch_without_failing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), SCENARIO).unwrap();
    let set = r#"sweep."topology.link_delay"=["20us"]"#;
    let out = htsim(
        &["run", "s.toml", "--out", "o", "--set", set, "--jobs", "2"],
        dir.path(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let points = [
        "transports.long=_kind=tcp_,queue.mark_threshold=100pkt,topology.link_delay=20us",
        "transports.long=_kind=dctcp_g=0.0625_,queue.mark_threshold=20pkt,topology.link_delay=20us",
    ];
    for p in points {
        assert!(
            dir.path().join("o/runs").join(p).join("seed-2").is_dir(),
            "{p}"
        );
    }
    // The whole transport table was swept: the flows of each point ran its kind.
    let flows = csv(&dir
        .path()
        .join("o/runs")
        .join(points[1])
        .join("seed-1/flows.csv"));
    let long: Vec<&str> = flows[1..]
        .iter()
        .filter(|r| get(&flows[0], r, "class") == "long")
        .map(|r| get(&flows[0], r, "transport"))
        .collect();
    assert!(
        !long.is_empty() && long.iter().all(|t| *t == "dctcp"),
        "{long:?}"
    );

    let reference = csv(&dir.path().join("o/reference.csv"));
    let summary = csv(&dir.path().join("o/summary.csv"));
    let (rh, rows) = (&reference[0], &reference[1..]);
    let (sh, srows) = (&summary[0], &summary[1..]);
    // Bound at both points, the failing value at one, the missing metric at both.
    let shape: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                get(rh, r, "source"),
                get(rh, r, "point"),
                get(rh, r, "status"),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("Test, a bound every point meets", points[0], "within"),
            ("Test, a bound every point meets", points[1], "within"),
            ("Test, deliberately failing", points[1], "outside"),
            ("Test, no such row", points[0], "missing"),
            ("Test, no such row", points[1], "missing"),
        ]
    );
    // Ours is the summary's mean over seeds, with its ci95 and n; ratio = ours / published.
    let failing = &rows[2];
    let row = srows
        .iter()
        .find(|r| {
            get(sh, r, "point") == points[1]
                && get(sh, r, "class") == "long"
                && get(sh, r, "metric") == "goodput_mean"
        })
        .expect("a goodput row");
    for (ours, theirs) in [
        ("ours", "mean"),
        ("ours_ci95", "ci95"),
        ("ours_std", "std"),
        ("n", "n"),
    ] {
        assert_eq!(get(rh, failing, ours), get(sh, row, theirs), "{ours}");
    }
    let mean: f64 = get(sh, row, "mean").parse().unwrap();
    assert!(mean > 1.0 && mean < 1000.0, "{mean} Mb/s on 1 Gb/s links");
    let ratio: f64 = get(rh, failing, "ratio").parse().unwrap();
    assert!((ratio - mean / 5000.0).abs() < 1e-12, "{ratio}");
    for (column, value) in [
        ("within", "false"),
        ("published", "5000"),
        ("published_spread", "3"),
        ("tolerance_pct", "10"),
        ("unit", "Mbps"),
    ] {
        assert_eq!(get(rh, failing, column), value, "{column}");
    }
    assert_eq!(get(rh, &rows[0], "within"), "true");
    assert_eq!(get(rh, &rows[0], "at_least"), "1");
    assert_eq!(get(rh, &rows[0], "ratio"), "");
    assert_eq!(get(rh, &rows[3], "ours"), "");
    assert_eq!(get(rh, &rows[3], "within"), "");
    // The table on stdout: a header and one aligned line per row.
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{stdout}");
    assert!(
        lines[0].starts_with("source") && lines[0].contains("published"),
        "{stdout}"
    );
    assert!(lines[3].contains("Test, deliberately failing") && lines[3].ends_with("OUTSIDE ±10%"));
    assert!(lines[4].ends_with("MISSING: no summary row"), "{stdout}");
    let column = |l: &str| l.find(points[0]).or_else(|| l.find(points[1]));
    assert!(
        lines[1..].iter().all(|l| column(l) == column(lines[1])),
        "{stdout}"
    );
    assert!(
        stderr.contains("5 comparison(s), 3 outside or missing"),
        "{stderr}"
    );

    // `htsim report` compares again from the recorded scenario, to the same bytes.
    let before = std::fs::read(dir.path().join("o/reference.csv")).unwrap();
    std::fs::remove_file(dir.path().join("o/reference.csv")).unwrap();
    let again = htsim(&["report", "o"], dir.path());
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(
        std::fs::read(dir.path().join("o/reference.csv")).unwrap(),
        before
    );
    assert_eq!(String::from_utf8_lossy(&again.stdout), stdout);
}

#[test]
fn bad_references_and_sweep_sets_stop_run_and_validate_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let bad = SCENARIO.replace(
        "unit = \"Mbps\"\n\n[[reference]]\nsource = \"Test, no",
        "unit = \"Mb/s\"\n\n[[reference]]\nsource = \"Test, no",
    );
    assert_ne!(bad, SCENARIO);
    std::fs::write(dir.path().join("bad.toml"), &bad).unwrap();
    let line = bad.lines().position(|l| l == "unit = \"Mb/s\"").unwrap() + 1;
    for args in [
        &["validate", "bad.toml"][..],
        &["run", "bad.toml", "--out", "o"][..],
    ] {
        let out = htsim(args, dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "bad.toml:{line}:8: `reference[1].unit`: unit \"Mb/s\" does not match the \
                 metric: `goodput_mean` is in \"Mbps\""
            )),
            "{stderr}"
        );
    }
    assert!(!dir.path().join("o").exists(), "nothing ran");

    std::fs::write(dir.path().join("s.toml"), SCENARIO).unwrap();
    let validate = |set: &str| htsim(&["validate", "s.toml", "--set", set], dir.path());
    // An axis added, an axis replaced in its group's place, a group replaced.
    for (set, points) in [
        (r#"sweep."topology.link_rate"=["1Gbps","10Gbps"]"#, 4),
        (r#"sweep.topology.link_rate=["1Gbps","10Gbps","40Gbps"]"#, 6),
        (
            r#"sweep.transport={ "transports.long" = [{ kind = "dctcp" }], "queue.mark_threshold" = ["20pkt"] }"#,
            1,
        ),
    ] {
        let out = validate(set);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{set}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains(&format!("ok: {points} point(s)")),
            "{set}: {stdout}"
        );
    }
    // The reference's point value must still be one the sweep has.
    let out = validate(
        r#"sweep.transport={ "transports.long" = [{ kind = "tcp" }], "queue.mark_threshold" = ["10pkt"] }"#,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no sweep point has `queue.mark_threshold` = 20pkt: the axis takes 10pkt"),
        "{stderr}"
    );
    // Unequal paired lists, and a --set of a key the sweep assigns, are errors at the --set.
    let out = validate(
        r#"sweep.transport={ "transports.long" = [{ kind = "tcp" }], "queue.mark_threshold" = ["1pkt", "2pkt"] }"#,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("in `--set sweep.transport="), "{stderr}");
    assert!(
        stderr.contains("their lists must have equal lengths"),
        "{stderr}"
    );
    let out = validate("queue.mark_threshold=30pkt");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`[sweep]` assigns `queue.mark_threshold` at every point"),
        "{stderr}"
    );
}
