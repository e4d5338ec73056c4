//! Memory must not grow with simulated time when the network is idle: the heap's peak over a
//! run of 16 hosts whose flows end at once is the same for 100 s and for 1000 s of simulated
//! time. (A 1e6-second run of 16 idle hosts used to grow to 6.8 GB: the counters of every link
//! were kept for every second of the run.) The heap is measured by a counting allocator, so
//! this file holds one test: tests of one binary share the allocator.

#[path = "heap/mod.rs"]
mod heap;

use std::path::Path;

use htsim::scenario::{load_str, LoadOptions};
use htsim::simulate::{run, RunContext};

/// The heap's peak above what was live before, over one run of `duration`.
fn peak_of_run(duration: &str) -> usize {
    let text = format!(
        r#"
[run]
duration = "{duration}"
[topology]
kind = "star"
hosts = 16
link_rate = "1Gbps"
[[flows]]
name = "short"
size = "10KB"
transport = {{ kind = "tcp" }}
"#
    );
    let loaded = load_str("idle.toml", &text, Path::new("."), &LoadOptions::default()).unwrap();
    let scenario = &loaded.points[0].scenario;
    let (peak, completed) = heap::peak_over(|| {
        let out = run(scenario, 1, &RunContext::default()).unwrap();
        out.summary().classes[0].completed
    });
    assert_eq!(completed, 16, "every flow completes");
    peak
}

#[test]
fn an_idle_network_does_not_grow_with_simulated_time() {
    let short = peak_of_run("100s");
    let long = peak_of_run("1000s");
    // 900 more seconds of per-second counters of 32 links would be 900 x 32 x 72 B = 2 MB.
    assert!(
        long <= short + 64 * 1024,
        "peak heap {short} B over 100 s, {long} B over 1000 s"
    );
}
