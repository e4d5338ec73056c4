//! The central First Fit scheduler (`[routing] first_fit`, docs/model.md 3.1): two long TCP
//! flows that ECMP puts on one path are moved apart at its first scan, and flows it never
//! places run exactly as without it.

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
    // With 2 aggregation switches above ToR 0, ECMP sends both flows up the same one in half
    // the seeds; they then share 1 Gb/s. Find such a seed.
    let shared = (1..=40)
        .find(|&seed| {
            let g = goodputs(&run_seed(&[], seed));
            g.iter().sum::<f64>() < 1.2 * PAYLOAD_LINE_RATE_BPS
        })
        .expect("ECMP puts the two flows on one ToR uplink in some seed of 40");
    // Each moves more than 10% of 1 Gb/s in the first 10 ms, so the first scan places the
    // first on path 0 and the second on the first path sharing no link with it (path 2: the
    // other aggregation switch); from 10 ms on each has a path of its own.
    let out = run_seed(&["routing.first_fit=\"10ms\""], shared);
    for g in goodputs(&out) {
        assert!(
            g > 0.95 * PAYLOAD_LINE_RATE_BPS,
            "seed {shared}: {g} b/s with First Fit, line rate {PAYLOAD_LINE_RATE_BPS}"
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
