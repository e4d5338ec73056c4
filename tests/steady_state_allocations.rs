//! No transport allocates per packet once its connections are running: over a run of long
//! flows, three times the simulated time costs at most one heap allocation per 200 more data
//! packets delivered (they do about one per 500 to 2000). What may allocate is per connection
//! or per loss episode (a queue growing to a larger window, a receiver's out-of-order ring
//! after a loss), never per packet or per ACK. Allocations are counted by a counting
//! allocator, so this file holds one test: tests of one binary share the allocator.

#[path = "heap/mod.rs"]
mod heap;

use std::path::Path;

use htsim::scenario::{load_str, LoadOptions};
use htsim::simulate::{run, RunContext};

/// Allocations and data packets delivered over one run of `duration`: FatTree k=4 (16 hosts)
/// at 10 Gb/s, a permutation of long flows over `transport`, queues `queue`.
fn allocations_of_run(transport: &str, queue: &str, duration: &str) -> (u64, u64) {
    let text = format!(
        r#"
[run]
duration = "{duration}"
[topology]
kind = "fattree"
k = 4
link_rate = "10Gbps"
[queue]
{queue}
[[flows]]
name = "long"
matrix = "permutation"
size = "infinite"
transport = {{ {transport} }}
"#
    );
    let loaded = load_str(
        "steady.toml",
        &text,
        Path::new("."),
        &LoadOptions::default(),
    )
    .unwrap();
    let scenario = &loaded.points[0].scenario;
    let before = heap::allocations();
    let out = run(scenario, 1, &RunContext::default()).unwrap();
    let allocations = heap::allocations() - before;
    (allocations, out.stats.data_packets_delivered)
}

#[test]
fn transports_do_not_allocate_per_packet() {
    let droptail = r#"kind = "droptail"
capacity = "100pkt""#;
    let ecn = r#"kind = "ecn"
capacity = "100pkt"
mark_threshold = "20pkt""#;
    for (transport, queue) in [
        (r#"kind = "tcp""#, droptail),
        (r#"kind = "dctcp""#, ecn),
        (r#"kind = "ps""#, droptail),
        (r#"kind = "mptcp", subflows = 4"#, droptail),
        (r#"kind = "mmptcp""#, droptail),
    ] {
        // From 10 ms on the windows are about as large as they get.
        let (a0, p0) = allocations_of_run(transport, queue, "10ms");
        let (a1, p1) = allocations_of_run(transport, queue, "30ms");
        let (more_allocations, more_packets) = (a1.saturating_sub(a0), p1 - p0);
        assert!(
            more_packets > 20_000,
            "{transport}: {p0} then {p1} data packets"
        );
        assert!(
            more_allocations * 200 <= more_packets,
            "{transport}: {more_allocations} more allocations for {more_packets} more data packets \
             ({a0} over 10 ms, {a1} over 30 ms)"
        );
    }
}
