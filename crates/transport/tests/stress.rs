//! Random loss of every packet type (data, ACK, SYN, SYN-ACK, FIN, FIN+ACK) in both directions:
//! every flow still completes, delivers its bytes in order exactly once, and both endpoints
//! close; for both profiles, with and without delayed ACKs, for TCP and DCTCP.

mod common;

use common::*;
use htsim_core::packet::Packet;
use htsim_core::queue::{Admission, Discipline, Occupancy, Queue, QueueDiscipline};
use htsim_core::rng::SimRng;
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::SimTime;
use htsim_transport::config::DelayedAck;
use htsim_transport::{DctcpTransport, Profile, TcpTransport, Transport};
use rand::Rng;

/// Drop-tail that also drops any arrival with probability `p`.
struct RandomLoss {
    p: f64,
    rng: SimRng,
}
impl QueueDiscipline for RandomLoss {
    fn admit(&mut self, occ: &Occupancy, packet: &mut Packet, _now: SimTime) -> Admission {
        if !occ.fits(packet.size_bytes as u64) || self.rng.random::<f64>() < self.p {
            Admission::Drop
        } else {
            Admission::Enqueue
        }
    }
    fn name(&self) -> &str {
        "random-loss"
    }
}

fn lossy(w: &World, name: &str, p: f64, pkts: u64) -> Queue {
    let rng = w.streams().stream(name);
    Queue::new(
        BufferSize::Packets(pkts),
        Discipline::Custom(Box::new(RandomLoss { p, rng })),
    )
}

#[test]
fn every_flow_completes_under_random_loss_of_any_packet() {
    let (mut runs, mut timeouts, mut fast) = (0, 0, 0);
    for seed in 0..25u64 {
        for (i, t) in transports().iter().enumerate() {
            let mut w = World::new(seed * 10 + i as u64);
            let net = Net::gig(6);
            let fwd = lossy(&w, "loss.fwd", 0.05, 20);
            let rev = lossy(&w, "loss.rev", 0.05, 1000);
            dumbbell_with(&mut w, net, fwd, rev);
            let report = sink();
            let sizes = [1u64, 2_000, 14_000, 70_000, 150_001, 400_000];
            for f in 0..net.pairs {
                let size = sizes[(f as usize + seed as usize) % sizes.len()];
                let start = SimTime::from_us(100 * f as u64);
                open(
                    &mut w,
                    t.as_ref(),
                    &net,
                    f,
                    Some(size),
                    start,
                    None,
                    &report,
                );
            }
            w.run_until(SimTime::from_secs(600));
            assert_eq!(
                w.pending_events(),
                0,
                "seed {seed}, {}: run did not finish",
                t.name()
            );
            let recs = check_end(&w, &report);
            assert_eq!(recs.len(), net.pairs as usize, "seed {seed}, {}", t.name());
            assert_eq!(
                report.lock().unwrap().len(),
                2 * net.pairs as usize,
                "all endpoints closed"
            );
            timeouts += recs.iter().map(|r| r.timeouts).sum::<u64>();
            fast += recs.iter().map(|r| r.fast_retransmits).sum::<u64>();
            runs += 1;
        }
    }
    assert_eq!(runs, 100);
    println!("{timeouts} timeouts, {fast} fast retransmits");
    assert!(timeouts > 100 && fast > 100, "both repair paths exercised");
}

fn transports() -> Vec<Box<dyn Transport>> {
    let delayed = Some(DelayedAck {
        segments: 2,
        timeout: SimTime::from_ms(40),
    });
    let mut tcp_delayed = TcpTransport::new(Profile::Ns3Mmptcp);
    tcp_delayed.config.delayed_ack = delayed;
    let mut dctcp_delayed = DctcpTransport::new(Profile::Rfc);
    dctcp_delayed.config.delayed_ack = delayed;
    vec![
        Box::new(TcpTransport::new(Profile::Rfc)),
        Box::new(tcp_delayed),
        Box::new(DctcpTransport::new(Profile::Ns3Mmptcp)),
        Box::new(dctcp_delayed),
    ]
}
