//! The paper scenarios of `scenarios/papers/`: every file validates, documents its experiment and
//! a quick variant, and the quick variants of a few run to plausible numbers.
//! Their `[[reference]]` tables (published values) are checked by the loader as they validate.

mod common;
use common::htsim;

use std::path::{Path, PathBuf};

/// The repository's `scenarios/papers/` folder.
fn papers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/papers")
}

/// Every `.toml` file of `scenarios/papers/`, sorted.
fn paper_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(papers_dir())
        .expect("scenarios/papers exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

/// Copies every paper scenario into `dir`.
fn copy_papers(dir: &Path) -> Vec<String> {
    paper_files()
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            let text = std::fs::read_to_string(p).unwrap();
            std::fs::write(dir.join(&name), text).unwrap();
            name
        })
        .collect()
}

/// The arguments of a file's `# Quick: htsim run FILE ...` header line, continuation lines
/// (ending in `\`) joined, split like a shell would split them (words, 'single quotes').
fn quick_args(text: &str) -> Vec<String> {
    let mut command = String::new();
    let mut on = false;
    for line in text.lines() {
        let body = if let Some(rest) = line.strip_prefix("# Quick: ") {
            on = true;
            rest
        } else if on {
            line.trim_start_matches('#').trim_start()
        } else {
            continue;
        };
        match body.trim_end().strip_suffix('\\') {
            Some(part) => {
                command.push_str(part);
                command.push(' ');
            }
            None => {
                command.push_str(body);
                break;
            }
        }
    }
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut started) = (false, false);
    for c in command.chars() {
        match c {
            '\'' => (quoted, started) = (!quoted, true),
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// Runs a paper scenario's quick variant in `dir` (where `copy_papers` put the files) and
/// returns its summary.csv.
fn run_quick(dir: &Path, name: &str) -> String {
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    let args = quick_args(&text);
    assert_eq!(
        args[..3],
        ["htsim", "run", &format!("scenarios/papers/{name}")],
        "{name}: the quick line runs the file itself"
    );
    let mut run = vec!["run".to_string(), name.to_string()];
    run.extend(args[3..].iter().cloned());
    run.extend(["--out", "out", "-q"].map(String::from));
    let run: Vec<&str> = run.iter().map(String::as_str).collect();
    let out = htsim(&run, dir);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = std::fs::read_to_string(dir.join("out/summary.csv")).unwrap();
    std::fs::remove_dir_all(dir.join("out")).unwrap();
    summary
}

/// The `mean` of summary.csv's row for (point, class, metric).
fn mean(summary: &str, point: &str, class: &str, metric: &str) -> f64 {
    let mut rows = csv::Reader::from_reader(summary.as_bytes());
    for row in rows.records() {
        let row = row.unwrap();
        if (&row[0], &row[1], &row[2]) == (point, class, metric) {
            return row[5].parse().unwrap();
        }
    }
    panic!("no row {point},{class},{metric} in\n{summary}");
}

#[test]
fn every_paper_scenario_validates() {
    let dir = tempfile::tempdir().unwrap();
    let names = copy_papers(dir.path());
    assert!(names.len() >= 38, "{names:?}");
    let mut args = vec!["validate"];
    args.extend(names.iter().map(String::as_str));
    let out = htsim(&args, dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in &names {
        assert!(
            stdout.contains(&format!("{name}: ok: ")),
            "{name}: {stdout}"
        );
    }
}

#[test]
fn every_paper_scenario_documents_its_experiment_and_quick_variant() {
    for path in paper_files() {
        let name = path.file_name().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        for part in [
            "# Measured: ",
            "# Setup",
            "# Deviations and choices",
            "# Full:  htsim run ",
        ] {
            assert!(text.contains(part), "{name}: its header has no `{part}`");
        }
        let stem = name.trim_end_matches(".toml");
        assert!(
            text.contains(&format!("\nname = \"{stem}\"\n")),
            "{name}: `name` is the file name"
        );
        let quick = quick_args(&text);
        assert!(
            quick.len() > 3 && quick[3..].iter().all(|a| !a.contains('#')),
            "{name}: its `# Quick:` line is {quick:?}"
        );
    }
}

#[test]
fn quick_lines_split_like_a_shell() {
    let quick = "# Quick: htsim run f.toml --set a=1 \\\n#   --set 'b={ c = 2 }'\n# (note)\n";
    assert_eq!(
        quick_args(quick),
        [
            "htsim",
            "run",
            "f.toml",
            "--set",
            "a=1",
            "--set",
            "b={ c = 2 }"
        ]
    );
}

/// [P2] Fig. 2's quick variant (k = 4: 16 hosts): every host runs one long flow, whose goodput
/// is above 0 and at most the line rate (100 Mb/s of payload with header-less packets), and
/// Jain's index lies between 1/16 (one flow gets everything) and 1. The subflow-level goodput
/// (the references' metric) lies between the goodput and the line rate, equal to it for TCP.
#[test]
fn p2_fig2_quick_variant_runs() {
    let dir = tempfile::tempdir().unwrap();
    copy_papers(dir.path());
    let summary = run_quick(dir.path(), "p2-fig2-permutation.toml");
    for t in [
        "tcp", "mptcp2", "mptcp3", "mptcp4", "mptcp5", "mptcp6", "mptcp7", "mptcp8",
    ] {
        let point = format!("flows.long.transport={t}");
        assert_eq!(mean(&summary, &point, "long", "long_flows"), 16.0, "{t}");
        let g = mean(&summary, &point, "long", "goodput_mean");
        assert!(g > 0.0 && g <= 100.0, "{t}: {g} Mb/s");
        let sf = mean(&summary, &point, "long", "subflow_goodput_mean");
        assert!(g <= sf && sf <= 100.0, "{t}: {sf} Mb/s against {g}");
        if t == "tcp" {
            assert_eq!(sf, g);
        }
        let jain = mean(&summary, &point, "long", "jain");
        assert!((1.0 / 16.0..=1.0).contains(&jain), "{t}: Jain {jain}");
    }
}

/// [P2] BCube read's quick variant (BCube(4, 1): 16 hosts with 2 interfaces of 100 Mb/s): every
/// host reads from its 6 one-hop neighbours, so each point has 96 flows; a host reads at most
/// 200 Mb/s in all, and single-path TCP on the direct links shares each interface among 3
/// neighbours (at most 100/3 Mb/s per flow).
#[test]
fn p2_bcube_read_quick_variant_runs() {
    let dir = tempfile::tempdir().unwrap();
    copy_papers(dir.path());
    let summary = run_quick(dir.path(), "p2-bcube-read.toml");
    for (t, mode) in [
        ("tcp", "shortest"),
        ("ewtcp", "ecmp"),
        ("mptcp", "ecmp"),
        ("ps", "ecmp"),
    ] {
        let point = format!("flows.read.transport={t},routing.mode={mode}");
        assert_eq!(mean(&summary, &point, "read", "long_flows"), 96.0, "{t}");
        let g = mean(&summary, &point, "read", "goodput_mean");
        assert!(g > 0.0 && 6.0 * g <= 200.0, "{t}: {g} Mb/s per flow");
        if t == "tcp" {
            assert!(g <= 100.0 / 3.0, "tcp: {g} Mb/s per flow");
        }
    }
}

/// [P0] Table 7's quick variant: two incast rounds, so every point has exactly 2 x fan_in flows;
/// where they all complete, their mean FCT is at least what the receiver's 100 Mb/s link allows
/// (N flows of 70 000 B through one link: the k-th to finish waits for k x 5.6 ms of payload).
#[test]
fn p0_table7_quick_variant_runs() {
    let dir = tempfile::tempdir().unwrap();
    copy_papers(dir.path());
    let summary = run_quick(dir.path(), "p0-table7-incast.toml");
    let per_flow_ms = 70_000.0 * 8.0 / 100e6 * 1e3;
    let mut all_completed = 0;
    for fan_in in [20, 40, 100] {
        for t in ["mmptcp", "mmptcp_lt", "tcp", "mptcp8"] {
            let point = format!("flows.incast.fan_in={fan_in},flows.incast.transport={t}");
            let flows = mean(&summary, &point, "incast", "finite_flows");
            assert_eq!(flows, 2.0 * fan_in as f64, "{point}");
            let completed = mean(&summary, &point, "incast", "completed");
            assert!(completed <= flows, "{point}: {completed} of {flows}");
            if completed == flows {
                all_completed += 1;
                let fct = mean(&summary, &point, "incast", "fct_mean");
                let bound = (fan_in as f64 + 1.0) / 2.0 * per_flow_ms;
                assert!(fct >= bound, "{point}: mean FCT {fct} ms below {bound} ms");
            }
        }
    }
    assert!(
        all_completed > 0,
        "no point completed every flow:\n{summary}"
    );
}

/// [P1] random pattern's quick variant (k = 4: 16 connections, 1 Gb/s): the closed loop opens
/// more flows than connections, every completed flow's goodput (its size over its FCT) is above
/// 0 and at most the payload rate of a host's link (1400 B of every 1462 B packet at 1 Gb/s:
/// 957.6 Mb/s), and the flows still open after the drain are few.
#[test]
fn p1_random_quick_variant_runs() {
    let dir = tempfile::tempdir().unwrap();
    copy_papers(dir.path());
    let summary = run_quick(dir.path(), "p1-tables-random.toml");
    for t in ["dctcp", "lia2", "lia4", "xmp2", "xmp4"] {
        let point = format!("flows.large.transport={t}");
        let flows = mean(&summary, &point, "large", "finite_flows");
        let completed = mean(&summary, &point, "large", "completed");
        assert!(
            flows > 16.0 && completed >= 0.8 * flows,
            "{t}: {completed} of {flows}"
        );
        let g = mean(&summary, &point, "large", "finite_goodput_pooled");
        assert!(g > 0.0 && g <= 957.6, "{t}: {g} Mb/s");
    }
}
