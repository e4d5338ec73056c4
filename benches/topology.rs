//! Topology build cost: wall time to build FatTrees of k = 8, 16 and 32 (128, 1024 and 8192
//! hosts) into a fresh world, links, queues and name index included, and the memory a k = 32
//! FatTree world takes (printed once, as the growth of the resident set). Run with
//! `cargo bench --bench topology`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use htsim_core::queue::{Discipline, Queue};
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use htsim_topology::cabling::{Cabling, QueueSite};
use htsim_topology::fattree::FatTree;
use htsim_topology::topology::Topology;
use std::time::Duration;

fn build(k: u32) -> (World, Topology) {
    let mut w = World::new(1);
    let cabling = Cabling::uniform(Rate::gbps(10), SimTime::from_us(1));
    let mut queues = |_: QueueSite<'_>| Queue::new(BufferSize::Packets(100), Discipline::DropTail);
    let t = FatTree {
        k,
        oversubscription: 1,
    }
    .build(&mut w, &cabling, &mut queues)
    .expect("valid FatTree");
    (w, t)
}

/// Resident set size of this process, in KiB (Linux), or 0 where unknown.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn report_memory() {
    let before = rss_kib();
    let (w, t) = build(32);
    let after = rss_kib();
    eprintln!(
        "fattree k=32: {} hosts, {} switches, {} links; resident set grew by {:.1} MiB",
        t.host_count(),
        t.switch_count(),
        w.links().len(),
        (after.saturating_sub(before)) as f64 / 1024.0
    );
}

fn fattree_build(c: &mut Criterion) {
    report_memory();
    let mut g = c.benchmark_group("fattree_build");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for k in [8u32, 16, 32] {
        g.bench_with_input(BenchmarkId::from_parameter(k), &k, |b, &k| {
            b.iter(|| build(k))
        });
    }
    g.finish();
}

criterion_group!(benches, fattree_build);
criterion_main!(benches);
