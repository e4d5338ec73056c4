//! MPTCP throughput of the simulator (issue 5 benchmark): data packets delivered per wall
//! second.
//!
//! A FatTree k = 4 (16 hosts, 10 Gb/s cables, 1 us each, 100-packet drop-tail queues) runs a
//! permutation of long MPTCP flows (host i -> host (i + 5) mod 16, a derangement that mixes
//! same-pod and inter-pod pairs), each with 8 subflows under RFC 6356 LIA (rfc profile), for
//! 20 ms of simulated time. The figure covers the whole multipath stack: subflow engines, the
//! coupled controller, the round-robin scheduler, data-sequence reassembly, ECMP routing.
//! Run with `cargo bench --bench mptcp`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use htsim_core::ids::HostId;
use htsim_core::queue::{Discipline, Queue};
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use htsim_topology::cabling::{Cabling, QueueSite};
use htsim_topology::fattree::FatTree;
use htsim_transport::mptcp::CcKind;
use htsim_transport::{ConnectionSpec, MptcpTransport, Profile, Transport};
use std::time::Duration;

const SUBFLOWS: u32 = 8;

fn build() -> World {
    let mut w = World::new(1);
    let mut queues = |_: QueueSite<'_>| Queue::new(BufferSize::Packets(100), Discipline::DropTail);
    let cabling = Cabling::uniform(Rate::gbps(10), SimTime::from_us(1));
    let topo = FatTree {
        k: 4,
        oversubscription: 1,
    }
    .build(&mut w, &cabling, &mut queues)
    .expect("fattree");
    let n = topo.host_count();
    let mut t = MptcpTransport::new(Profile::Rfc);
    t.mptcp.cc = CcKind::Lia;
    t.mptcp.max_subflows = SUBFLOWS;
    for i in 0..n {
        let spec = ConnectionSpec::new(
            u64::from(i),
            HostId(i),
            HostId((i + 5) % n),
            None,
            SimTime::ZERO,
            w.streams().substream("conn", u64::from(i)),
        );
        t.open(&mut w, spec).expect("open");
    }
    w
}

fn mptcp_permutation(c: &mut Criterion) {
    let mut g = c.benchmark_group("mptcp_data_packets");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let sim = SimTime::from_ms(20);
    // Deterministic: count the delivered data packets once.
    let mut probe = build();
    probe.run_until(sim);
    g.throughput(Throughput::Elements(probe.stats().data_packets_delivered));
    g.bench_function("fattree_k4_permutation_8_subflows", |b| {
        b.iter_batched(
            build,
            |mut w| {
                w.run_until(sim);
                w
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, mptcp_permutation);
criterion_main!(benches);
