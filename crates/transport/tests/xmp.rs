//! XMP (transports.md 7) on small networks: single-subflow XMP (BOS) with beta 4 and K 10 holds
//! a 1 Gb/s bottleneck's queue low at high utilisation; conservation and in-order delivery are
//! checked at the end of every run. Run in release.

mod common;

use common::*;
use htsim_core::queue::{Discipline, Queue};
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::SimTime;
use htsim_transport::config::DelayedAck;
use htsim_transport::xmp::BosTransport;
use htsim_transport::{Profile, Transport};

/// Two long flows of `t` through a 1 Gb/s bottleneck with a 100-packet buffer marking
/// ECN-capable arrivals above K = 10 for 0.5 s; returns (time-averaged queue in packets after a
/// 100 ms warm-up, utilisation, max queue, CE-marked segments at the receivers).
fn two_flows_k10(t: &dyn Transport) -> (f64, f64, usize, u64) {
    let mut w = World::new(5);
    let net = Net::gig(2);
    let q = Queue::new(
        BufferSize::Packets(100),
        Discipline::Ecn {
            threshold: BufferSize::Packets(10),
        },
    );
    let d = dumbbell(&mut w, net, q);
    let report = sink();
    let end = SimTime::from_ms(500);
    for i in 0..2 {
        let start = SimTime::from_us(50 * i as u64);
        open(&mut w, t, &net, i, None, start, Some(end), &report);
    }
    let warm = SimTime::from_ms(100);
    w.run_until(warm);
    let departed0 = w.link(d.bottleneck).queue.counters.bytes_departed;
    let step = SimTime::from_us(5);
    let (mut sum, mut samples, mut max) = (0u64, 0u64, 0usize);
    let mut now = warm;
    while now < end {
        now += step;
        w.run_until(now);
        let len = w.link(d.bottleneck).queue.len_packets();
        sum += len as u64;
        samples += 1;
        max = max.max(len);
    }
    let bytes = w.link(d.bottleneck).queue.counters.bytes_departed - departed0;
    let util = bytes as f64 * 8.0 / (1e9 * (end - warm).as_secs_f64());
    w.run();
    let done = check_end(&w, &report);
    assert_eq!(done.len(), 2, "both flows complete after their stop");
    let ce: u64 = report
        .lock()
        .unwrap()
        .iter()
        .filter_map(|r| match r {
            htsim_transport::tcp::ConnectionReport::Receiver { stats, .. } => {
                Some(stats.ce_segments)
            }
            _ => None,
        })
        .sum();
    (sum as f64 / samples as f64, util, max, ce)
}

#[test]
fn bos_with_beta_4_and_k_10_keeps_the_queue_short_and_the_link_busy() {
    let (q, u, max, ce) = two_flows_k10(&BosTransport::new(Profile::Rfc));
    println!("BOS: mean queue {q:.2} pkts, max {max}, utilisation {u:.4}, {ce} CE segments");
    assert!(q < 20.0, "BOS mean queue {q}");
    assert!(u >= 0.90, "BOS utilisation {u}");
    assert!(ce > 0, "the queue marked");

    // With delayed ACKs (m = 2, 40 ms) the echo carries counts up to 2.
    let mut delayed = BosTransport::new(Profile::Rfc);
    delayed.config.delayed_ack = Some(DelayedAck {
        segments: 2,
        timeout: SimTime::from_ms(40),
    });
    let (qd, ud, maxd, _) = two_flows_k10(&delayed);
    println!("BOS, delayed ACK m=2: mean queue {qd:.2} pkts, max {maxd}, utilisation {ud:.4}");
    assert!(qd < 20.0, "BOS (delayed ACK) mean queue {qd}");
    assert!(ud >= 0.90, "BOS (delayed ACK) utilisation {ud}");
}
