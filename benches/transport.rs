//! TCP throughput of the simulator: data packets delivered per wall second.
//!
//! N long TCP NewReno flows (rfc profile) share a 10 Gb/s dumbbell (10 Gb/s access links,
//! 10 us per link, 100-packet bottleneck buffer) for 50 ms of simulated time. Every data packet
//! crosses three links and is acknowledged over three reverse links, so the figure includes the
//! whole transport: sender engine, receiver, ACKs, timers and the engine's queues and links.
//! Run with `cargo bench --bench transport`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use htsim_core::ids::{HostId, LinkId};
use htsim_core::queue::{Discipline, Queue};
use htsim_core::routing::PathSource;
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use htsim_transport::{ConnectionSpec, Profile, TcpTransport, Transport};
use std::time::Duration;

/// Hosts 0..n send to hosts n..2n through one bottleneck each way.
struct Dumbbell {
    n: u32,
    fwd: (Vec<LinkId>, LinkId, Vec<LinkId>),
    rev: (Vec<LinkId>, LinkId, Vec<LinkId>),
}

impl PathSource for Dumbbell {
    fn path_count(&self, src: HostId, dst: HostId) -> u32 {
        u32::from((src.0 < self.n) != (dst.0 < self.n))
    }
    fn path(&self, src: HostId, dst: HostId, _index: u32, out: &mut Vec<LinkId>) {
        if src.0 < self.n {
            let (up, b, down) = &self.fwd;
            out.extend([up[src.0 as usize], *b, down[(dst.0 - self.n) as usize]]);
        } else {
            let (up, b, down) = &self.rev;
            out.extend([up[(src.0 - self.n) as usize], *b, down[dst.0 as usize]]);
        }
    }
}

fn build(flows: u32) -> World {
    let mut w = World::new(1);
    let rate = Rate::gbps(10);
    let delay = SimTime::from_us(10);
    let q = |pkts| Queue::new(BufferSize::Packets(pkts), Discipline::DropTail);
    let side = |w: &mut World| {
        let up: Vec<_> = (0..flows)
            .map(|_| w.add_link(rate, delay, q(10_000)))
            .collect();
        let b = w.add_link(rate, delay, q(100));
        let down: Vec<_> = (0..flows)
            .map(|_| w.add_link(rate, delay, q(10_000)))
            .collect();
        (up, b, down)
    };
    let fwd = side(&mut w);
    let rev = side(&mut w);
    w.set_path_source(Box::new(Dumbbell { n: flows, fwd, rev }));
    let tcp = TcpTransport::new(Profile::Rfc);
    for i in 0..flows {
        let rng = w.streams().substream("conn", i as u64);
        let start = SimTime::from_us(i as u64);
        let spec = ConnectionSpec::new(i as u64, HostId(i), HostId(flows + i), None, start, rng);
        tcp.open(&mut w, spec).expect("the dumbbell has a path");
    }
    w
}

fn tcp_flows(c: &mut Criterion) {
    let mut g = c.benchmark_group("tcp_data_packets");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let sim = SimTime::from_ms(50);
    for flows in [1u32, 16, 64] {
        // The simulation is deterministic: count the delivered data packets once.
        let mut probe = build(flows);
        probe.run_until(sim);
        g.throughput(Throughput::Elements(probe.stats().data_packets_delivered));
        g.bench_with_input(BenchmarkId::new("flows", flows), &flows, |b, &flows| {
            b.iter_batched(
                || build(flows),
                |mut w| {
                    w.run_until(sim);
                    w
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, tcp_flows);
criterion_main!(benches);
