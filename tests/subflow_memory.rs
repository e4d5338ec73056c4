//! The transport state of a subflow stays within what a run's budget charges for it
//! ([`BYTES_PER_SUBFLOW`] per subflow open at once, checked before the run): MPTCP connections
//! with 1 and with 32 subflows each run over the same network, and the heap's peak grows by no
//! more than the charge per subflow added. (Before the charge, 1024 connections of 256
//! subflows were counted as 1.5 MiB and took 267 MB.) The heap is measured by a counting
//! allocator, so this file holds one test: tests of one binary share the allocator.

#[path = "heap/mod.rs"]
mod heap;

use std::path::Path;

use htsim::scenario::{load_str, LoadOptions};
use htsim::simulate::resources::{BYTES_PER_SUBFLOW, BYTES_PER_WINDOW_SEGMENT};
use htsim::simulate::{run, RunContext};

/// Connections: a permutation of 16 hosts, drawn 16 times.
const CONNECTIONS: usize = 16 * 16;

/// The heap's peak over a run of [`CONNECTIONS`] long MPTCP flows of `subflows` subflows each
/// on a star, long enough for every subflow to open and send.
fn peak_of_run(subflows: u32) -> usize {
    let text = format!(
        r#"
[run]
duration = "1ms"
[topology]
kind = "star"
hosts = 16
link_rate = "10Gbps"
[[flows]]
name = "long"
matrix = "permutation"
draws = 16
size = "infinite"
transport = {{ kind = "mptcp", subflows = {subflows} }}
"#
    );
    let loaded = load_str("sf.toml", &text, Path::new("."), &LoadOptions::default()).unwrap();
    let scenario = &loaded.points[0].scenario;
    let (peak, packets) = heap::peak_over(|| {
        let out = run(scenario, 1, &RunContext::default()).unwrap();
        out.stats.data_packets_delivered
    });
    assert!(packets > 0, "{subflows} subflows: nothing delivered");
    peak
}

#[test]
fn a_subflow_takes_no_more_than_its_charge() {
    let one = peak_of_run(1);
    let many = peak_of_run(32);
    let per_subflow = (many - one) as f64 / (CONNECTIONS * 31) as f64;
    eprintln!("heap peak {one} B with 1 subflow, {many} B with 32: {per_subflow:.0} B per subflow");
    // With an initial window of one segment, whose packet the network's share covers.
    let charge = (BYTES_PER_SUBFLOW + BYTES_PER_WINDOW_SEGMENT) as f64;
    assert!(per_subflow <= charge, "{per_subflow:.0} B per subflow");
    // And the charge is of that order, not a guess far above it.
    assert!(
        per_subflow >= charge / 2.0,
        "{per_subflow:.0} B per subflow"
    );
}
