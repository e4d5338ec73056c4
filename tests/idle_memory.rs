//! Memory must not grow with simulated time when the network is idle: the heap's peak over a
//! run of 16 hosts whose flows end at once is the same for 100 s and for 1000 s of simulated
//! time. (A 1e6-second run of 16 idle hosts used to grow to 6.8 GB: the counters of every link
//! were kept for every second of the run.) The heap is measured by a counting allocator, so
//! this file holds one test: tests of one binary share the allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use htsim::scenario::{load_str, LoadOptions};
use htsim::simulate::{run, RunContext};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

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
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = run(scenario, 1, &RunContext::default()).unwrap();
    assert_eq!(
        out.summary().classes[0].completed,
        16,
        "every flow completes"
    );
    drop(out);
    PEAK.load(Ordering::Relaxed) - before
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
