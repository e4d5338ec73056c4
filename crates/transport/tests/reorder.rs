//! The reorder-resilient receiver option (issue 5, `htsim_transport::reorder`): under
//! per-packet spraying over paths of different delays, spurious fast retransmits drop sharply
//! with the option on, a real loss is still repaired by fast retransmit after the hold, and the
//! flow completes at least as fast. Run in release.

mod common;

use common::{check_end, droptail, receiver_stats, sink, test_queue, Parallel, REORDER_HOLD};
use htsim_core::flow::FlowRecord;
use htsim_core::ids::HostId;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use htsim_transport::path::PathPolicy;
use htsim_transport::receiver::ReceiverStats;
use htsim_transport::reorder::ReorderHold;
use htsim_transport::{ConnectionSpec, Profile, TcpTransport, Transport};

/// Sends `bytes` from host 0 to host 1, every data packet on a random path of four 1 Gb/s paths
/// with one-way delays 10, 30, 50 and 70 us; path 0 drops its `drop`-th data arrivals. Returns
/// the completed record and the receiver's counters, after the end-of-run checks.
fn spray(hold: Option<ReorderHold>, drop: Vec<u64>, bytes: u64) -> (FlowRecord, ReceiverStats) {
    let mut w = World::new(3);
    let rate = Rate::gbps(1);
    let (q0, _log) = test_queue(1000, drop);
    let l0 = w.add_link(rate, SimTime::from_us(10), q0);
    let mut link = |us| w.add_link(rate, SimTime::from_us(us), droptail(1000));
    let fwd = [l0, link(30), link(50), link(70)];
    let rev = link(10);
    w.set_path_source(Box::new(Parallel { fwd, rev }));
    let report = sink();
    let mut t = TcpTransport::new(Profile::Rfc);
    t.config.reorder_hold = hold;
    let mut spec = ConnectionSpec::new(
        0,
        HostId(0),
        HostId(1),
        Some(bytes),
        SimTime::ZERO,
        w.streams().substream("conn", 0),
    );
    spec.path = PathPolicy::Scatter(Box::new(w.streams().substream("scatter", 0)));
    spec.report = Some(report.clone());
    t.open(&mut w, spec).expect("open");
    w.run();
    let records = check_end(&w, &report);
    assert_eq!(records.len(), 1, "the flow completes");
    let rx = *receiver_stats(&report).first().expect("receiver report");
    (records[0].clone(), rx)
}

fn fct_us(r: &FlowRecord) -> f64 {
    r.fct().expect("completed").as_secs_f64() * 1e6
}

#[test]
fn holding_dupacks_removes_spurious_fast_retransmits_under_spraying() {
    let bytes = 4_000_000;
    let (plain, prx) = spray(None, vec![], bytes);
    let (held, hrx) = spray(Some(REORDER_HOLD), vec![], bytes);
    println!(
        "plain: {} fast retransmits, {} timeouts, {} retransmits, FCT {:.0} us, {} out-of-order",
        plain.fast_retransmits,
        plain.timeouts,
        plain.retransmits,
        fct_us(&plain),
        prx.out_of_order_segments
    );
    println!(
        "hold:  {} fast retransmits, {} timeouts, {} retransmits, FCT {:.0} us, {} out-of-order, \
         {} dupacks absorbed, {} releases",
        held.fast_retransmits,
        held.timeouts,
        held.retransmits,
        fct_us(&held),
        hrx.out_of_order_segments,
        hrx.dupacks_absorbed,
        hrx.hold_releases
    );
    // No loss at all: every fast retransmit is spurious.
    assert!(plain.fast_retransmits >= 10, "spraying reorders: {plain:?}");
    assert!(
        held.fast_retransmits * 10 <= plain.fast_retransmits,
        "at least 10x fewer spurious fast retransmits: {} vs {}",
        held.fast_retransmits,
        plain.fast_retransmits
    );
    assert!(hrx.out_of_order_segments > 100 && hrx.dupacks_absorbed > 100);
    assert!(
        fct_us(&held) <= fct_us(&plain),
        "throughput does not collapse"
    );
}

#[test]
fn a_real_loss_is_repaired_by_fast_retransmit_after_the_hold() {
    let bytes = 2_000_000;
    // The 200th data packet on path 0 is lost.
    let (plain, _) = spray(None, vec![200], bytes);
    let (held, hrx) = spray(Some(REORDER_HOLD), vec![200], bytes);
    println!(
        "loss, plain: {} fast retransmits, {} timeouts, FCT {:.0} us",
        plain.fast_retransmits,
        plain.timeouts,
        fct_us(&plain)
    );
    println!(
        "loss, hold:  {} fast retransmits, {} timeouts, FCT {:.0} us, {} releases",
        held.fast_retransmits,
        held.timeouts,
        fct_us(&held),
        hrx.hold_releases
    );
    assert!(
        held.fast_retransmits >= 1,
        "the loss triggers fast retransmit"
    );
    assert_eq!(held.timeouts, 0, "repaired without an RTO");
    assert!(hrx.hold_releases >= 1, "the hole was released as a loss");
    // 2 MB at up to 4 Gb/s takes a few ms; an RTO alone would add 200 ms.
    assert!(fct_us(&held) < 20_000.0, "FCT {}", fct_us(&held));
}

#[test]
fn an_invalid_hold_is_rejected_when_opening() {
    let mut t = TcpTransport::new(Profile::Rfc);
    t.config.reorder_hold = Some(ReorderHold {
        max_delay: SimTime::ZERO,
        max_segments: 4,
    });
    let mut w = World::new(1);
    let spec = ConnectionSpec::new(
        0,
        HostId(0),
        HostId(1),
        Some(1),
        SimTime::ZERO,
        w.streams().substream("conn", 0),
    );
    assert!(t.open(&mut w, spec).is_err());
}
