//! The per-packet path hook (docs/model.md 3, 5): ECMP keeps a flow on one path, a pinned
//! index forces one, and per-packet random source ports (packet scatter) spread the data over
//! every path while control packets stay on the connection's ECMP path. Also: determinism.

mod common;

use common::{receiver_stats, sink, Parallel};
use htsim_core::ids::HostId;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use htsim_transport::path::PathPolicy;
use htsim_transport::{ConnectionSpec, Profile, TcpTransport, Transport};

/// Sends 200 KB with `policy`; returns the packets each forward path carried.
fn packets_per_path(policy: PathPolicy, seed: u64) -> ([u64; 4], Option<u64>) {
    let mut w = World::new(seed);
    w.enable_trace_hash();
    let rate = Rate::gbps(1);
    let mut link = || w.add_link(rate, SimTime::from_us(10), common::droptail(1000));
    let fwd = [link(), link(), link(), link()];
    let rev = link();
    w.set_path_source(Box::new(Parallel { fwd, rev }));
    let report = sink();
    let mut spec = ConnectionSpec::new(
        0,
        HostId(0),
        HostId(1),
        Some(200_000),
        SimTime::ZERO,
        w.streams().substream("conn", 0),
    );
    spec.path = policy;
    spec.report = Some(report.clone());
    TcpTransport::new(Profile::Rfc)
        .open(&mut w, spec)
        .expect("open");
    w.run();
    let records = w.records().to_vec();
    assert_eq!(records.len(), 1, "the flow completes");
    assert!(w.conservation().holds());
    let delivered = receiver_stats(&report)
        .first()
        .map(|s| (s.bytes_delivered, s.order_errors));
    assert_eq!(delivered, Some((200_000, 0)));
    let counts = fwd.map(|l| w.link_counters(l).packets_enqueued);
    (counts, w.trace_hash())
}

#[test]
fn ecmp_pins_a_flow_pinned_forces_a_path_scatter_sprays() {
    let (ecmp, _) = packets_per_path(PathPolicy::Ecmp, 1);
    assert_eq!(
        ecmp.iter().filter(|&&c| c > 0).count(),
        1,
        "ECMP: one path {ecmp:?}"
    );

    let (pinned, _) = packets_per_path(PathPolicy::Pinned(2), 1);
    assert!(
        pinned[2] > 0 && pinned.iter().sum::<u64>() == pinned[2],
        "{pinned:?}"
    );

    let rng = World::new(1).streams().substream("scatter", 0);
    let (spray, _) = packets_per_path(PathPolicy::Scatter(Box::new(rng)), 1);
    let total: u64 = spray.iter().sum();
    // 143 data segments plus a few control packets: each path gets roughly a quarter.
    for c in spray {
        assert!(
            c as f64 > 0.12 * total as f64,
            "scatter uses every path: {spray:?}"
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let a = packets_per_path(PathPolicy::Ecmp, 7);
    let b = packets_per_path(PathPolicy::Ecmp, 7);
    assert!(a.1.is_some());
    assert_eq!(a, b);
}
