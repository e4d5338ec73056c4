//! The paper scenarios of `scenarios/papers/`: every file validates, documents its experiment and
//! a quick variant, and the quick variants of a few run to plausible numbers.
//!
//! The files carry `[[reference]]` tables (published values) for a loader key that is being
//! added separately; until it lands, the tests validate and run copies with those tables
//! blanked out (`without_references`), line numbers kept.

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

/// `text` with every `[[reference]]` table replaced by empty lines (from its header to the next
/// table header), so line numbers in error messages stay those of the file.
fn without_references(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_reference = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("[[reference]]") {
            in_reference = true;
        } else if trimmed.starts_with('[') {
            in_reference = false;
        }
        if !in_reference {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// Copies every paper scenario, without its `[[reference]]` tables, into `dir`.
fn copy_papers(dir: &Path) -> Vec<String> {
    paper_files()
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            let text = std::fs::read_to_string(p).unwrap();
            std::fs::write(dir.join(&name), without_references(&text)).unwrap();
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
    assert!(names.len() >= 30, "{names:?}");
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
fn without_references_blanks_only_the_reference_tables() {
    let text = "a = 1\n[[reference]]\nvalue = 2\n\n[sweep]\nx = [1]\n[[reference]]\nvalue = 3\n";
    assert_eq!(
        without_references(text),
        "a = 1\n\n\n\n[sweep]\nx = [1]\n\n\n"
    );
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

/// The unit summary.csv gives a metric (docs/outputs.md), for the metrics a reference may name.
fn metric_unit(metric: &str) -> Option<&'static str> {
    let unit = match metric {
        m if m.starts_with("fct_") || m.starts_with("jct_") => "ms",
        m if m.starts_with("goodput_") => "Mbps",
        m if m.starts_with("utilisation") || m.starts_with("loss_rate") => "%",
        m if m.starts_with("slowdown_") || m == "jain" => "1",
        "finite_flows" | "completed" | "unfinished" | "long_flows" => "flows",
        _ => return None,
    };
    Some(unit)
}

/// Every `[[reference]]` table of the paper scenarios is well formed: its keys, a summary.csv
/// metric with its unit, a class of the file (or a layer, or `run`), sweep-point keys that are
/// axes of the file with values those axes take, and exactly one of `value`, `at_most`,
/// `at_least`. (The loader checks this once it reads references; this guards the files now.)
#[test]
fn every_reference_table_names_a_metric_class_and_point_of_its_file() {
    let mut references = 0;
    for path in paper_files() {
        let name = path.file_name().unwrap().to_str().unwrap();
        let doc: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
        let classes: Vec<&str> = doc["flows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        let empty = toml::Table::new();
        let sweep = doc
            .get("sweep")
            .and_then(|s| s.as_table())
            .unwrap_or(&empty);
        let Some(refs) = doc.get("reference") else {
            continue;
        };
        for r in refs.as_array().unwrap() {
            references += 1;
            let r = r.as_table().unwrap();
            let at = format!("{name}: {r}");
            for key in r.keys() {
                let known = [
                    "source",
                    "metric",
                    "class",
                    "point",
                    "value",
                    "at_most",
                    "at_least",
                    "unit",
                    "tolerance_pct",
                    "spread",
                ];
                assert!(known.contains(&key.as_str()), "{at}: unknown key {key}");
            }
            assert!(r["source"].as_str().is_some_and(|s| !s.is_empty()), "{at}");
            let metric = r["metric"].as_str().unwrap();
            assert_eq!(metric_unit(metric), r["unit"].as_str(), "{at}: unit");
            let class = r["class"].as_str().unwrap();
            assert!(
                classes.contains(&class) || class.starts_with("layer:") || class == "run",
                "{at}: class {class} is not one of {classes:?}"
            );
            let bounds = ["value", "at_most", "at_least"];
            assert_eq!(
                bounds.iter().filter(|b| r.contains_key(**b)).count(),
                1,
                "{at}"
            );
            for (axis, value) in r.get("point").and_then(|p| p.as_table()).unwrap_or(&empty) {
                let values = sweep.get(axis).and_then(|v| v.as_array());
                assert!(
                    values.is_some_and(|v| v.contains(value)),
                    "{at}: {axis} = {value} is not a point of the sweep"
                );
            }
        }
    }
    // P0 Tables 2 (11) and 3 (7 + 2 for PS_TCP), P1 Table 1 (5), P2 Fig. 2 (2).
    assert_eq!(references, 27);
}

/// [P2] Fig. 2's quick variant (k = 4: 16 hosts): every host runs one long flow, whose goodput
/// is above 0 and at most the line rate (100 Mb/s of payload with header-less packets), and
/// Jain's index lies between 1/16 (one flow gets everything) and 1.
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
        let jain = mean(&summary, &point, "long", "jain");
        assert!((1.0 / 16.0..=1.0).contains(&jain), "{t}: Jain {jain}");
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
