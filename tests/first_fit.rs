//! The central First Fit scheduler (`[routing] first_fit`, docs/model.md 3.1): two long TCP
//! (or DCTCP) flows that ECMP puts on one path are moved apart at its first scan, a flow that
//! ends gives its place back, and flows it never places run exactly as without it.

use htsim::simulate::{run, RunContext, RunOutput};

mod common;
use common::{scenario, PAYLOAD_LINE_RATE_BPS};

/// FatTree k = 4 at 1 Gb/s: host0 and host1 share ToR 0 in pod 0, host4 and host5 share a ToR
/// in pod 1, so the two flows have 4 paths each (2 aggregation switches x 2 cores) and both
/// leave ToR 0 towards one of its 2 aggregation switches.
const TWO_FLOWS: &str = r#"
[run]
duration = "200ms"
warmup = "40ms"
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
link_delay = "10us"
[[flows]]
name = "long"
matrix = "pairs"
pairs = [[0, 4], [1, 5]]
size = "infinite"
transport = { kind = "tcp" }
"#;

fn run_seed(overrides: &[&str], seed: u64) -> RunOutput {
    run(
        &scenario(TWO_FLOWS, overrides),
        seed,
        &RunContext::default(),
    )
    .unwrap()
}

/// Each flow's goodput over the window, in bit/s.
fn goodputs(out: &RunOutput) -> Vec<f64> {
    out.results
        .flows
        .iter()
        .map(|f| f.goodput_bps.unwrap())
        .collect()
}

#[test]
fn two_flows_ecmp_puts_on_one_path_are_moved_apart() {
    for kind in ["tcp", "dctcp"] {
        let transport = format!("flows.long.transport={{ kind = \"{kind}\" }}");
        moved_apart(&transport);
    }
}

/// With `transport` (an override of the flows' transport), finds a seed where ECMP puts the two
/// flows on one ToR uplink, and checks that the scheduler moves them apart.
fn moved_apart(transport: &str) {
    // With 2 aggregation switches above ToR 0, ECMP sends both flows up the same one in half
    // the seeds; they then share 1 Gb/s. Find such a seed.
    let shared = (1..=40)
        .find(|&seed| {
            let g = goodputs(&run_seed(&[transport], seed));
            g.iter().sum::<f64>() < 1.2 * PAYLOAD_LINE_RATE_BPS
        })
        .expect("ECMP puts the two flows on one ToR uplink in some seed of 40");
    // Each moves more than 10% of 1 Gb/s in the first 10 ms, so the first scan places the
    // first on path 0 and the second on the first path sharing no link with it (path 2: the
    // other aggregation switch); from 10 ms on each has a path of its own.
    let out = run_seed(&[transport, "routing.first_fit=\"10ms\""], shared);
    for g in goodputs(&out) {
        assert!(
            g > 0.95 * PAYLOAD_LINE_RATE_BPS,
            "{transport}, seed {shared}: {g} b/s with First Fit, line rate {PAYLOAD_LINE_RATE_BPS}"
        );
    }
    // Both ToR 0 uplinks carry one flow's data over the window.
    let uplinks: Vec<u64> = out
        .results
        .links
        .iter()
        .filter(|l| l.from == "tor0.0" && l.to.starts_with("agg0."))
        .map(|l| l.bytes_enqueued)
        .collect();
    assert_eq!(
        uplinks.len(),
        2,
        "{:?}",
        out.results
            .links
            .iter()
            .map(|l| &l.name)
            .collect::<Vec<_>>()
    );
    let (lo, hi) = (uplinks[0].min(uplinks[1]), uplinks[0].max(uplinks[1]));
    assert!(
        lo as f64 > 0.8 * hi as f64,
        "ToR 0 uplinks carried {uplinks:?} bytes"
    );
}

#[test]
fn flows_it_never_places_run_as_without_it() {
    // No flow can move more than its host's link rate: with a 100% threshold nothing is
    // placed; multipath senders are never moved. Stopping the world for the scans changes
    // nothing either.
    for (base, scheduler, what) in [
        (
            vec![],
            vec!["routing.first_fit_threshold=\"100%\""],
            "threshold 100%",
        ),
        (
            vec!["flows.long.transport={ kind = \"mptcp\", subflows = 4 }"],
            vec![],
            "MPTCP",
        ),
    ] {
        let mut with: Vec<&str> = base.iter().chain(&scheduler).copied().collect();
        with.push("routing.first_fit=\"5ms\"");
        let off = run_seed(&base, 3);
        let on = run_seed(&with, 3);
        assert_eq!(on.files.flows_csv, off.files.flows_csv, "{what}");
        assert_eq!(on.files.links_csv, off.files.links_csv, "{what}");
    }
}

#[test]
fn a_flow_that_ends_gives_its_place_back() {
    // `a` (2 MB from host0 to host4) is placed on path 0 at the first scan (10 ms), through
    // ToR 0's uplink to agg0.0, and completes before 20 ms. `c` (long, host1 to host5, from the
    // same ToR) starts at 60 ms and is placed at 70 ms: with `a`'s place given back, path 0 is
    // empty again and `c` takes it (agg0.0); had `a` kept it, paths 0 and 1 (both through
    // agg0.0) would count one flow and `c` would go up agg0.1.
    let text = r#"
[run]
duration = "300ms"
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
link_delay = "10us"
[routing]
first_fit = "10ms"
[[flows]]
name = "a"
matrix = "pairs"
pairs = [[0, 4]]
size = "2MB"
transport = { kind = "tcp" }
[[flows]]
name = "c"
matrix = "pairs"
pairs = [[1, 5]]
size = "infinite"
start = "60ms"
transport = { kind = "tcp" }
"#;
    let out = run(&scenario(text, &[]), 1, &RunContext::default()).unwrap();
    assert!(out.results.flows[0].completed, "{:?}", out.results.flows[0]);
    let up = |agg: &str| {
        out.results
            .links
            .iter()
            .find(|l| l.from == "tor0.0" && l.to == agg)
            .unwrap()
            .bytes_enqueued
    };
    let (via0, via1) = (up("agg0.0"), up("agg0.1"));
    assert!(
        via0 > 5 * via1,
        "tor0.0 -> agg0.0 {via0} B, -> agg0.1 {via1} B"
    );
}
