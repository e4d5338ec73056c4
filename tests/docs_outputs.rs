//! docs/outputs.md defines every value htsim writes, once: every column of flows.csv,
//! links.csv, crossings.csv, reference.csv, timeseries.csv and trace.csv, every field of a run's summary.json
//! and run.json, every metric of summary.csv, each with the unit the code writes. The names
//! come from the code (the column constants, the serialised records, the metric catalogue), so
//! a column or metric added without its definition, or a definition left behind, fails here.

use std::collections::BTreeMap;

use htsim::identity::RunIdentity;
use htsim::output::{CROSSINGS_COLUMNS, FLOWS_COLUMNS, LINKS_COLUMNS};
use htsim::report::aggregate::metric_catalogue;
use htsim::report::reference::REFERENCE_COLUMNS;
use htsim::report::run_summary::{ClassSummary, LayerSummary, RunCost, RunSummary, WrittenFile};
use htsim::report::stats::Summary;
use htsim::simulate::timeseries::{series_unit, TIMESERIES_COLUMNS};
use htsim::transport::trace::{TraceKind, TRACE_COLUMNS};

fn outputs_md() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/outputs.md")).unwrap()
}

/// The text of the section `## <heading>` up to the next `## ` heading.
fn section<'a>(doc: &'a str, heading: &str) -> &'a str {
    let start = doc
        .find(&format!("\n## {heading}\n"))
        .unwrap_or_else(|| panic!("no section `## {heading}`"));
    let body = &doc[start + heading.len() + 5..];
    &body[..body.find("\n## ").unwrap_or(body.len())]
}

/// The cells of every body row of the tables in `text` (header and separator rows left out).
fn table_rows(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut header = true;
    for line in text.lines() {
        let Some(inner) = line.trim().strip_prefix('|') else {
            header = true;
            continue;
        };
        if header {
            // The header row; the separator row follows it.
            header = false;
            continue;
        }
        if inner.starts_with("---") {
            continue;
        }
        rows.push(
            inner
                .trim_end_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect(),
        );
    }
    rows
}

/// The names in backticks in `cell`, in order (`` `src`, `dst` `` gives src and dst).
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Every name a table of `text` defines (the first cells), with the row that defines it.
fn defined(text: &str) -> Vec<(String, Vec<String>)> {
    table_rows(text)
        .into_iter()
        .flat_map(|row| {
            backticked(&row[0])
                .into_iter()
                .map(move |name| (name, row.clone()))
        })
        .collect()
}

/// The unit a per-run CSV column's name carries, as the tables write it.
fn unit_of_suffix(column: &str) -> Option<&'static str> {
    [
        ("_ns", "ns"),
        ("_bytes", "bytes"),
        ("_bps", "bit/s"),
        ("_pct", "%"),
    ]
    .into_iter()
    .find(|(suffix, _)| column.ends_with(suffix))
    .map(|(_, unit)| unit)
}

/// `columns` are defined once each, in order, by the tables of `section`, with the unit their
/// names carry.
fn assert_columns_defined(section_text: &str, columns: &[&str], file: &str) {
    let rows = defined(section_text);
    let names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, columns, "{file}: the table's columns, in order");
    for (name, row) in &rows {
        if let Some(unit) = unit_of_suffix(name) {
            assert_eq!(row[1], unit, "{file} `{name}`: unit");
        }
        assert!(
            row.last().is_some_and(|d| !d.is_empty()),
            "{file} `{name}` has no definition"
        );
    }
}

#[test]
fn every_column_of_flows_links_and_crossings_csv_is_defined_once_with_its_unit() {
    let doc = outputs_md();
    assert_columns_defined(section(&doc, "flows.csv"), FLOWS_COLUMNS, "flows.csv");
    assert_columns_defined(section(&doc, "links.csv"), LINKS_COLUMNS, "links.csv");
    assert_columns_defined(
        section(&doc, "crossings.csv"),
        CROSSINGS_COLUMNS,
        "crossings.csv",
    );
}

#[test]
fn every_column_of_reference_csv_is_defined_once() {
    let doc = outputs_md();
    assert_columns_defined(
        section(&doc, "reference.csv"),
        &REFERENCE_COLUMNS,
        "reference.csv",
    );
}

#[test]
fn every_metric_of_summary_csv_is_defined_once_with_its_unit() {
    let doc = outputs_md();
    let rows = defined(section(&doc, "summary.csv and summary.json (over seeds)"));
    let documented: Vec<(&str, &str)> = rows
        .iter()
        .map(|(name, row)| (name.as_str(), row[1].as_str()))
        .collect();
    let catalogue = metric_catalogue();
    let code: Vec<(&str, &str)> = catalogue.iter().map(|m| (m.metric, m.unit)).collect();
    assert_eq!(documented, code, "summary.csv: (metric, unit) in row order");
}

/// The keys of a JSON object.
fn keys(value: &serde_json::Value) -> Vec<String> {
    value.as_object().unwrap().keys().cloned().collect()
}

/// A statistics object with every field set.
fn stats() -> Option<Summary> {
    Summary::of(&[1.0, 2.0])
}

#[test]
fn every_field_of_a_runs_summary_json_is_defined_once() {
    // A summary with every optional field present, so that serialisation shows every key.
    let class = ClassSummary {
        fct_ms: stats(),
        fct_values_ms: vec![1.0],
        slowdown: stats(),
        finite_goodput_mbps: stats(),
        finite_goodput_values_mbps: vec![1.0],
        goodput_mbps: stats(),
        goodput_values_mbps: vec![1.0],
        goodput_paper_mbps: stats(),
        goodput_paper_values_mbps: vec![1.0],
        subflow_goodput_mbps: stats(),
        subflow_goodput_values_mbps: vec![1.0],
        jain: Some(1.0),
        crossing_long_flows: Some(1),
        crossing_goodput_mbps: stats(),
        crossing_goodput_values_mbps: vec![1.0],
        crossing_subflow_goodput_mbps: stats(),
        crossing_subflow_goodput_values_mbps: vec![1.0],
        retransmits: stats(),
        fast_retransmits: stats(),
        timeouts: stats(),
        jct_ms: stats(),
        jct_values_ms: vec![1.0],
        ..ClassSummary::default()
    };
    let layer = LayerSummary {
        utilisation_pct: Some(1.0),
        loss_pct: Some(1.0),
        paper_utilisation_pct: Some(1.0),
        paper_loss_pct: Some(1.0),
        ..LayerSummary::default()
    };
    let run = RunSummary {
        point: "base".into(),
        point_index: 0,
        seed: 1,
        window_start_ns: 0,
        window_end_ns: 1,
        classes: vec![class],
        layers: vec![layer],
        cost: RunCost::new(1, 1, 1, 1.0),
        files: vec![WrittenFile {
            name: "flows.csv".into(),
            bytes: 1,
        }],
    };
    let json: serde_json::Value = serde_json::from_str(&run.to_json()).unwrap();
    let mut code: Vec<String> = keys(&json);
    code.extend(keys(&json["classes"][0]));
    code.extend(keys(&json["layers"][0]));

    let doc = outputs_md();
    let text = section(&doc, "summary.json (per run)");
    let rows = defined(text);
    let mut documented: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, _) in &rows {
        *documented.entry(name.as_str()).or_default() += 1;
    }
    for key in &code {
        assert_eq!(
            documented.get(key.as_str()),
            Some(&1),
            "summary.json `{key}`: defined once"
        );
    }
    assert_eq!(documented.len(), code.len(), "{documented:?} vs {code:?}");
    // The cost's fields are named in the `cost` row, a statistics object's in the paragraph
    // that defines it.
    let cost_row = &rows.iter().find(|(n, _)| n == "cost").unwrap().1;
    let cost_names = backticked(cost_row.last().unwrap());
    for key in keys(&json["cost"]) {
        assert!(cost_names.contains(&key), "cost `{key}` in the `cost` row");
    }
    let files_row = &rows.iter().find(|(n, _)| n == "files").unwrap().1;
    let files_names = backticked(files_row.last().unwrap());
    for key in keys(&json["files"][0]) {
        assert!(
            files_names.contains(&key),
            "files `{key}` in the `files` row"
        );
    }
    let paragraph = text
        .split("\n\n")
        .find(|p| p.starts_with("A statistics object"))
        .unwrap();
    let stats_names = backticked(paragraph);
    for key in keys(&json["classes"][0]["fct_ms"]) {
        assert!(stats_names.contains(&key), "statistics `{key}`");
    }
}

#[test]
fn timeseries_csv_columns_and_series_are_defined_with_their_units() {
    let doc = outputs_md();
    let text = section(&doc, "timeseries.csv");
    assert!(
        text.contains(&format!("\n    {}\n", TIMESERIES_COLUMNS.join(","))),
        "the columns of timeseries.csv"
    );
    let rows = defined(text);
    let series: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(series, ["queue", "cwnd", "rate"]);
    for (name, row) in &rows {
        assert_eq!(
            backticked(&row[3]).first().map(String::as_str),
            Some(series_unit(name)),
            "the unit of `{name}`"
        );
    }
}

/// Every trace event kind; the match fails to compile when a kind is added, so that this list
/// (and the table it is checked against) keeps up.
fn every_trace_kind() -> Vec<TraceKind> {
    use TraceKind::*;
    let all = [
        Syn,
        Path,
        Established,
        SynFailed,
        Window,
        FastRetransmit,
        Rto,
        Fin,
        JoinScheduled,
        Stall,
        Completed,
        Truncated,
    ];
    for kind in all {
        match kind {
            Syn | Path | Established | SynFailed | Window | FastRetransmit | Rto | Fin
            | JoinScheduled | Stall | Completed | Truncated => {}
        }
    }
    all.to_vec()
}

#[test]
fn trace_csv_columns_and_events_are_defined() {
    let doc = outputs_md();
    let text = section(&doc, "trace.csv");
    assert!(
        text.contains(&format!("\n    {}\n", TRACE_COLUMNS.join(","))),
        "the columns of trace.csv"
    );
    let events: Vec<String> = defined(text).into_iter().map(|(n, _)| n).collect();
    let code: Vec<String> = every_trace_kind()
        .into_iter()
        .map(|k| k.name().to_string())
        .collect();
    assert_eq!(events, code);
}

#[test]
fn every_field_of_run_json_is_defined_once() {
    let identity = RunIdentity {
        id: "s/base/seed-1".into(),
        digest: "sha256:0".into(),
        htsim_version: "0".into(),
        git_commit: Some("0".into()),
        command_line: "htsim run s.toml".into(),
        settings: String::new(),
    };
    let json = serde_json::to_value(&identity).unwrap();
    let doc = outputs_md();
    let mut documented: Vec<String> = defined(section(&doc, "run.json"))
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    documented.sort();
    // serde_json's objects keep their keys sorted.
    assert_eq!(documented, keys(&json));
}
