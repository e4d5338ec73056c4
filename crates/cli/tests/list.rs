//! `htsim list` names exactly the keys the loader accepts, table by table, and lines up.
//!
//! The loader's accepted keys are read from its own error: a key it does not know, put in a
//! table of an otherwise valid scenario, is refused with "expected one of: ..." listing them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use htsim::scenario::{load_str, LoadOptions};
use htsim_core::units::parse_duration;

mod common;

/// A valid scenario with a slot (`{T}` for a table, `{I}` for an inline table) in every table
/// `htsim list` describes: `table_path -> text` fills one slot with an unknown key.
const PROBE: &str = r#"name = "probe"
{top}
[run]
duration = "1s"
{run}
[topology]
kind = "star"
hosts = 8
[queue]
{queue}
[routing]
{routing}
[[flows]]
name = "a"
senders = 2
size = "1KB"
transport = { kind = "tcp" }
{flows}
[[flows]]
name = "j"
jobs = { servers = 2 {flows.jobs} }
transport = "t"
[[events]]
at = "0s"
where = { layer = "host" {events.where} }
set = { down = true {events.set} }
{events}
[output]
timeseries = { interval = "1ms" {output.timeseries} }
trace = { flows = ["a"] {output.trace} }
{output}
[transports.t]
kind = "tcp"
[[reference]]
source = "probe"
metric = "fct_mean"
class = "a"
value = 1.0
unit = "ms"
{reference}
"#;

/// The tables probed, with whether their slot is inline.
const TABLES: [(&str, bool); 13] = [
    ("top", false),
    ("run", false),
    ("queue", false),
    ("routing", false),
    ("flows", false),
    ("flows.jobs", true),
    ("events", false),
    ("events.where", true),
    ("events.set", true),
    ("output", false),
    ("output.timeseries", true),
    ("output.trace", true),
    ("reference", false),
];

/// The probe scenario with `zzz_unknown` in `table` (every other slot empty).
fn probe(table: &str) -> String {
    let mut text = PROBE.to_string();
    for (t, inline) in TABLES {
        let fill = match (t == table, inline) {
            (false, _) => "",
            (true, false) => "zzz_unknown = 1",
            (true, true) => ", zzz_unknown = 1",
        };
        text = text.replace(&format!("{{{t}}}"), fill);
    }
    text
}

/// The keys the loader accepts in `table`, from its unknown-key error.
fn accepted(table: &str) -> BTreeSet<String> {
    let err = load_str(
        "probe.toml",
        &probe(table),
        Path::new("."),
        &LoadOptions::default(),
    )
    .expect_err("an unknown key is an error")
    .to_string();
    let first = err.lines().next().unwrap_or_default();
    let (_, keys) = first
        .split_once("expected one of: ")
        .unwrap_or_else(|| panic!("{table}: not an unknown-key error: {err}"));
    assert!(
        first.contains("unknown key `zzz_unknown`"),
        "{table}: {err}"
    );
    keys.split(", ").map(str::to_string).collect()
}

/// The table each group header of the listing describes.
fn group_table(header: &str) -> Option<&'static str> {
    let word = header.split([' ', ':']).next().unwrap_or_default();
    Some(match word {
        "top" => "top",
        "run" => "run",
        "queues" => "queue",
        "routing" => "routing",
        "workloads" => "flows",
        "events" => "events",
        "output" => "output",
        "references" => "reference",
        _ => return None, // kinds (topologies, transports) and the one-line sweep
    })
}

/// The keys `htsim list` prints per table: a group's keys at two spaces, a key's own table's
/// at six under it (`flows.jobs`, `output.trace`).
fn listed(listing: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut tables: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let (mut group, mut parent) = (None, String::new());
    for line in listing.lines() {
        let word = line
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_string();
        if !line.starts_with(' ') {
            group = group_table(line);
        } else if let Some(g) = group {
            if !line.starts_with("      ") {
                tables
                    .entry(g.to_string())
                    .or_default()
                    .insert(word.clone());
                parent = format!("{g}.{word}");
            } else if line.contains("  (") || line.contains("  = ") {
                // A key line (the queue kinds' descriptions have no default column).
                tables.entry(parent.clone()).or_default().insert(word);
            }
        }
    }
    tables
}

fn listing(args: &[&str]) -> String {
    let out = common::htsim(args, Path::new("."));
    assert!(out.status.success(), "htsim {args:?} failed");
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn every_table_lists_exactly_the_keys_the_loader_accepts() {
    let listed = listed(&listing(&["list"]));
    // The top level's tables are groups of their own, not key lines.
    let groups = [
        "run",
        "topology",
        "queue",
        "routing",
        "transports",
        "flows",
        "events",
        "output",
        "sweep",
        "reference",
    ];
    for (table, _) in TABLES {
        let mut keys = listed.get(table).cloned().unwrap_or_default();
        if table == "top" {
            keys.extend(groups.iter().map(|g| g.to_string()));
        }
        assert_eq!(keys, accepted(table), "keys of `{table}`");
    }
}

#[test]
fn size_and_arrival_forms_are_the_loader_s() {
    let listing = listing(&["list", "workloads"]);
    let line = |key: &str| {
        listing
            .lines()
            .find(|l| l.split_whitespace().next() == Some(key))
            .unwrap_or_else(|| panic!("no `{key}` line"))
            .to_string()
    };
    for (key, forms) in [
        ("size", ["uniform", "pareto", "cdf", "cdf_file"].as_slice()),
        ("arrivals", ["poisson", "every", "closed_loop"].as_slice()),
    ] {
        let line = line(key);
        for form in forms {
            assert!(
                line.contains(&format!("{{ {form} = ")),
                "{key}: {form}: {line}"
            );
        }
    }
}

#[test]
fn columns_line_up_across_the_listing() {
    let listing = listing(&["list"]);
    // Every key line has its default (`= ...` or `(...)`) starting in one column, and its type
    // in another, even after the longest key (reorder_hold_segments) and the longest default.
    // A column is the text after a run of two or more spaces (no key or default holds two).
    let next_column = |l: &str, from: usize| {
        let gap = from + l[from..].find("  ").expect("a column gap");
        gap + l[gap..].len() - l[gap..].trim_start().len()
    };
    let (mut defaults, mut types) = (BTreeSet::new(), BTreeSet::new());
    for l in listing
        .lines()
        .filter(|l| l.starts_with(' ') && (l.contains("  = ") || l.contains("  (")))
    {
        let key = l.len() - l.trim_start().len();
        let default = next_column(l, key);
        defaults.insert(default);
        types.insert(next_column(l, default));
    }
    assert_eq!(defaults.len(), 1, "default columns: {defaults:?}");
    assert_eq!(types.len(), 1, "type columns: {types:?}");
    assert!(listing.contains("reorder_hold_segments"));
    // A group alone prints only that group.
    let run = listing_of("run");
    assert!(run.contains("warmup") && !run.contains("fattree"), "{run}");
}

fn listing_of(group: &str) -> String {
    listing(&["list", group])
}

/// `key = value` lines of a written scenario, by table: the first table of each name (the first
/// `[[flows]]`), values as written.
fn written(text: &str) -> BTreeMap<(String, String), String> {
    let mut values = BTreeMap::new();
    let mut table = String::new();
    for line in text.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[') {
            table = header.trim_matches(['[', ']']).to_string();
        } else if let Some((key, value)) = line.split_once(" = ") {
            values
                .entry((table.clone(), key.to_string()))
                .or_insert_with(|| value.to_string());
        }
    }
    values
}

/// A value as `htsim list` and a scenario file write it compare: quotes and spaces dropped,
/// durations by value (`0s` is written back as `0ps`).
fn normalised(value: &str) -> String {
    let value: String = value.chars().filter(|c| !matches!(c, '"' | ' ')).collect();
    match parse_duration(&value) {
        Ok(t) => format!("{} ps", t.as_ps()),
        Err(_) => value,
    }
}

#[test]
fn listed_defaults_are_the_ones_the_loader_writes() {
    let loaded = load_str(
        "probe.toml",
        &probe("none"),
        Path::new("."),
        &LoadOptions::default(),
    )
    .expect("the probe scenario loads");
    let written = written(&loaded.scenario.to_toml_string().unwrap());
    let listing = listing(&["list"]);
    let mut compared = 0;
    let (mut group, mut parent) = (None, String::new());
    for line in listing.lines() {
        let word = line
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_string();
        if !line.starts_with(' ') {
            group = group_table(line);
            continue;
        }
        let Some(g) = group else { continue };
        let table = if line.starts_with("      ") {
            parent.clone()
        } else {
            parent = format!("{g}.{word}");
            g.to_string()
        };
        let Some((_, default)) = line.split_once("  = ") else {
            continue;
        };
        let default = default.split("  ").next().unwrap_or_default();
        // Values the probe sets itself.
        let set_by_probe = [("flows", "senders"), ("flows.jobs", "servers")];
        if set_by_probe.contains(&(table.as_str(), word.as_str())) {
            continue;
        }
        if let Some(value) = written.get(&(table.clone(), word.clone())) {
            assert_eq!(
                normalised(default),
                normalised(value),
                "default of {table}.{word}"
            );
            compared += 1;
        }
    }
    // run (3), queue (2), routing, flows (matrix, start), jobs (4 of 5), output (3),
    // timeseries (3), trace (1).
    assert!(compared >= 19, "only {compared} defaults compared");
}
