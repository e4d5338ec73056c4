//! Engine throughput: packet-hops per wall second through chains of links.
//!
//! A fixed-window source keeps the links of a chain busy; every packet crosses each link
//! (queue, serialisation, propagation) and is acknowledged over a reverse chain. A packet-hop is
//! one packet leaving one link. Run with `cargo bench --bench engine`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use htsim_core::ids::{HostId, LinkId};
use htsim_core::queue::{Discipline, Queue};
use htsim_core::source::{Sink, SourceSpec, WindowSource};
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use std::time::Duration;

/// Builds `flows` window-limited flows, each over its own chain of `hops` 10 Gb/s links.
fn build(hops: usize, flows: usize) -> World {
    let mut w = World::new(1);
    for f in 0..flows {
        let chain = |w: &mut World| {
            let links: Vec<_> = (0..hops)
                .map(|_| {
                    w.add_link(
                        Rate::gbps(10),
                        SimTime::from_us(1),
                        Queue::new(BufferSize::Packets(1000), Discipline::DropTail),
                    )
                })
                .collect();
            w.routes_mut().intern(&links)
        };
        let fwd = chain(&mut w);
        let back = chain(&mut w);
        let src = w.reserve();
        let sink = w.spawn(Box::new(Sink::acking(src, back, 40)), SimTime::ZERO);
        let spec = SourceSpec {
            flow_id: f as u64,
            src: HostId(0),
            dst: HostId(1),
            sink,
            route: fwd,
            packet_bytes: 1500,
            packets: None,
        };
        w.install(src, Box::new(WindowSource::new(spec, 64)), SimTime::ZERO);
    }
    w
}

fn packet_hops(w: &World) -> u64 {
    (0..w.links().len() as u32)
        .map(|i| w.link_counters(LinkId(i)).packets_departed)
        .sum()
}

fn chain_throughput(c: &mut Criterion) {
    let mut g = c.benchmark_group("packet_hops");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (hops, flows) in [(3usize, 1usize), (6, 16)] {
        // Calibrate the hop count of one iteration once (the simulation is deterministic).
        let sim = SimTime::from_ms(5);
        let mut probe = build(hops, flows);
        probe.run_until(sim);
        g.throughput(Throughput::Elements(packet_hops(&probe)));
        g.bench_with_input(
            BenchmarkId::new(format!("{hops}hops"), flows),
            &(hops, flows),
            |b, &(hops, flows)| {
                b.iter_batched(
                    || build(hops, flows),
                    |mut w| {
                        w.run_until(sim);
                        w
                    },
                    criterion::BatchSize::LargeInput,
                )
            },
        );
    }
    g.finish();
}

criterion_group!(benches, chain_throughput);
criterion_main!(benches);
