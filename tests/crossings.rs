//! `[output] crossings`: which flows crossed watched links. On a dumbbell whose bottleneck
//! carries only the data of its flows, the per-flow counts add up to the link's own counters,
//! packet for packet and drop for drop; a flow whose data never crosses has no row, and the
//! summaries' crossing goodput is that of the flows that crossed.

use std::path::Path;

use htsim::scenario::{load_str, LoadOptions};
use htsim::simulate::{preflight, run, RunContext, RunOutput};

mod common;
use common::{scenario, PAYLOAD_LINE_RATE_BPS};

/// Two long TCP flows from the left side to the right one (host0 -> host2, host1 -> host3)
/// share a 100 Mb/s bottleneck with a 20-packet buffer behind 1 Gb/s host links, so the
/// bottleneck drops.
const DUMBBELL: &str = r#"
[run]
duration = "300ms"
warmup = "50ms"
[topology]
kind = "dumbbell"
hosts = 2
link_rate = "1Gbps"
bottleneck_rate = "100Mbps"
[queue]
capacity = "20pkt"
[[flows]]
name = "fwd"
matrix = "pairs"
pairs = [[0, 2], [1, 3]]
size = "infinite"
transport = { kind = "tcp" }
[output]
crossings = ["left->right"]
"#;

/// A third long flow the other way (host3 -> host0): its ACKs cross `left->right`.
const BACK: &str = r#"flows=[
  { name = "fwd", matrix = "pairs", pairs = [[0, 2], [1, 3]], size = "infinite", transport = { kind = "tcp" } },
  { name = "back", matrix = "pairs", pairs = [[3, 0]], size = "infinite", transport = { kind = "tcp" } },
]"#;

fn run_with(overrides: &[&str]) -> RunOutput {
    run_text(DUMBBELL, overrides)
}

fn run_text(text: &str, overrides: &[&str]) -> RunOutput {
    run(&scenario(text, overrides), 1, &RunContext::default()).unwrap()
}

/// The bottleneck's row of links.csv, in the direction of the `fwd` flows.
fn bottleneck(out: &RunOutput) -> &htsim::simulate::results::LinkResult {
    let links = &out.results.links;
    links.iter().find(|l| l.name == "left->right").unwrap()
}

#[test]
fn counts_on_a_link_of_data_only_add_up_to_its_counters() {
    let out = run_with(&[]);
    let link = bottleneck(&out);
    let rows = &out.results.crossings;
    let ids: Vec<u64> = rows.iter().map(|c| c.flow_id).collect();
    assert_eq!(ids, [0, 1]);
    assert!(rows.iter().all(|c| c.link == "left->right"));
    let sum = |f: fn(&htsim::simulate::results::CrossingResult) -> u64| -> u64 {
        rows.iter().map(f).sum()
    };
    assert_eq!(sum(|c| c.packets_enqueued), link.packets_enqueued);
    assert_eq!(sum(|c| c.bytes_enqueued), link.bytes_enqueued);
    assert_eq!(sum(|c| c.packets_dropped), link.packets_dropped);
    assert!(link.packets_dropped > 0, "the 20-packet buffer drops");
    // Each flow's share of the link is its share of the payload delivered: the two counts
    // agree to within the packets in the network at the window's edges.
    for (c, f) in rows.iter().zip(&out.results.flows) {
        let goodput_bytes = f.goodput_bps.unwrap() * 0.25 / 8.0;
        let carried = c.packets_enqueued as f64 * 1400.0;
        assert!(
            (carried - goodput_bytes).abs() < 0.05 * carried,
            "flow {}: {carried} B of payload over the link, {goodput_bytes} B acknowledged",
            c.flow_id
        );
    }
    let class = &out.summary().classes[0];
    assert_eq!(class.crossing_long_flows, Some(2));
    assert_eq!(
        class.crossing_goodput_values_mbps,
        class.goodput_values_mbps
    );
    // TCP: one path, so the subflow level is the connection level.
    assert_eq!(
        class.crossing_subflow_goodput_values_mbps,
        class.crossing_goodput_values_mbps
    );
    // Together they fill the 100 Mb/s bottleneck (its payload rate), and no more.
    let total: f64 = class.crossing_goodput_values_mbps.iter().sum();
    let neck = PAYLOAD_LINE_RATE_BPS / 10.0 / 1e6;
    assert!(
        total <= neck && total > 0.9 * neck,
        "{total} of {neck} Mb/s"
    );

    let csv = String::from_utf8(out.files.crossings_csv.clone().unwrap()).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("point,seed,class,flow_id,link,packets_enqueued,bytes_enqueued,packets_dropped")
    );
    let first = rows[0].clone();
    assert_eq!(
        lines.next().unwrap(),
        format!(
            "base,1,fwd,0,left->right,{},{},{}",
            first.packets_enqueued, first.bytes_enqueued, first.packets_dropped
        )
    );
}

#[test]
fn a_flow_whose_data_does_not_cross_has_no_row_and_its_acks_are_not_counted() {
    let out = run_with(&[BACK]);
    let ids: Vec<u64> = out.results.crossings.iter().map(|c| c.flow_id).collect();
    assert_eq!(ids, [0, 1], "the back flow's ACKs cross, its data does not");
    let link = bottleneck(&out);
    let data: u64 = out
        .results
        .crossings
        .iter()
        .map(|c| c.packets_enqueued)
        .sum();
    assert!(data < link.packets_enqueued, "the link also carried ACKs");
    let classes = &out.summary().classes;
    assert_eq!(classes[0].crossing_long_flows, Some(2));
    assert_eq!(classes[1].crossing_long_flows, Some(0));
    assert!(classes[1].crossing_goodput_mbps.is_none());

    // Watching both directions finds the back flow on `right->left`.
    let out = run_with(&[BACK, "output.crossings=[\"left<->right\"]"]);
    let rows: Vec<(&str, u64)> = out
        .results
        .crossings
        .iter()
        .map(|c| (c.link.as_str(), c.flow_id))
        .collect();
    assert_eq!(
        rows,
        [("left->right", 0), ("left->right", 1), ("right->left", 2)]
    );
    assert_eq!(out.summary().classes[1].crossing_long_flows, Some(1));
}

#[test]
fn without_crossings_there_is_no_file_and_no_crossing_metric() {
    let watched = run_with(&[]);
    let unwatched = DUMBBELL.replace("[output]\ncrossings = [\"left->right\"]\n", "");
    assert!(!unwatched.contains("crossings"));
    let out = run_text(&unwatched, &[]);
    assert!(out.files.crossings_csv.is_none() && out.results.crossings.is_empty());
    assert_eq!(out.summary().classes[0].crossing_long_flows, None);
    // Watching changes nothing else: the same flows, byte for byte.
    assert_eq!(out.files.flows_csv, watched.files.flows_csv);
    assert_eq!(out.files.links_csv, watched.files.links_csv);
}

/// The preflight's problems with `text` (one sweep point), shown.
fn problems(text: &str) -> Vec<(String, String, Option<usize>)> {
    let loaded = load_str("test.toml", text, Path::new("."), &LoadOptions::default()).unwrap();
    preflight::check(&loaded, 1)
        .unwrap_err()
        .0
        .iter()
        .map(|p| (p.key_path.clone(), p.to_string(), p.line()))
        .collect()
}

#[test]
fn names_that_are_not_links_are_errors_before_any_run_with_their_line() {
    let line = DUMBBELL
        .lines()
        .position(|l| l.starts_with("crossings"))
        .unwrap()
        + 1;
    let with = |value: &str| DUMBBELL.replace("[\"left->right\"]", value);
    let p = problems(&with("[\"left->rght\"]"));
    assert_eq!(p.len(), 1);
    let (key, shown, at) = &p[0];
    assert_eq!(
        (key.as_str(), *at),
        ("output.crossings", Some(line)),
        "{shown}"
    );
    assert!(
        shown.contains("no node named \"rght\"") && shown.contains("did you mean \"right\"?"),
        "{shown}"
    );
    // A node name watches its egress links: `left` has 3 (two hosts and the bottleneck).
    let loaded = load_str(
        "test.toml",
        &with("[\"left\"]"),
        Path::new("."),
        &LoadOptions::default(),
    )
    .unwrap();
    preflight::check(&loaded, 1).unwrap();
    // Errors of the list itself are the loader's.
    for (value, needle) in [
        ("[]", "an empty list watches nothing"),
        ("\"left->right\"", "a list of links"),
        ("[\"\"]", "expected a link or node name"),
    ] {
        let e = match load_str(
            "test.toml",
            &with(value),
            Path::new("."),
            &LoadOptions::default(),
        ) {
            Ok(_) => panic!("{value} should fail"),
            Err(e) => e,
        };
        let shown = e.to_string();
        assert_eq!(
            (e.key_path.as_str(), e.line()),
            ("output.crossings", Some(line))
        );
        assert!(shown.contains(needle), "{shown}");
    }
}

#[test]
fn at_most_64_directed_links_can_be_watched() {
    // A star of 40 hosts: the switch has 40 egress links, each host one.
    let star = r#"
[run]
duration = "10ms"
[topology]
kind = "star"
hosts = 40
[[flows]]
name = "fwd"
matrix = "permutation"
size = "infinite"
transport = { kind = "tcp" }
[output]
crossings = ["switch", "host0", "host1"]
"#;
    let loaded = load_str("test.toml", star, Path::new("."), &LoadOptions::default()).unwrap();
    preflight::check(&loaded, 1).unwrap();
    let names: Vec<String> = (0..25).map(|h| format!("\"host{h}\"")).collect();
    let over = star.replace(
        "[\"switch\", \"host0\", \"host1\"]",
        &format!("[\"switch\", {}]", names.join(", ")),
    );
    let p = problems(&over);
    assert!(
        p[0].1
            .contains("these names select 65 directed links; at most 64"),
        "{p:?}"
    );
}
