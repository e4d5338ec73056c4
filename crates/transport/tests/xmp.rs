//! XMP (docs/model.md 7): the receiver's 2-bit CE echo (7.2) driven by a scripted peer, and on
//! small networks single-subflow XMP (BOS) with beta 4 and K 10 holding a 1 Gb/s bottleneck's
//! queue low at high utilisation; conservation and in-order delivery are checked at the end of
//! every run. Run in release.

mod common;

use common::*;
use htsim_core::endpoint::{Ctx, Endpoint};
use htsim_core::ids::{EndpointId, HostId, LinkId};
use htsim_core::packet::{flags, Packet, PacketKind};
use htsim_core::queue::{Discipline, Queue};
use htsim_core::routing::PathSource;
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::SimTime;
use htsim_transport::config::{DelayedAck, TcpConfig};
use htsim_transport::mptcp::receiver::MptcpReceiver;
use htsim_transport::mptcp::RxSubflowAck;
use htsim_transport::path::PathChoice;
use htsim_transport::receiver::TcpReceiver;
use htsim_transport::reorder::ReorderHold;
use htsim_transport::xmp::{BosTransport, XmpConfig};
use htsim_transport::{Profile, Transport};

/// Every pair of distinct hosts has one empty path: packets are delivered at once.
struct Loopback;
impl PathSource for Loopback {
    fn path_count(&self, src: HostId, dst: HostId) -> u32 {
        u32::from(src != dst)
    }
    fn path(&self, _src: HostId, _dst: HostId, _index: u32, _out: &mut Vec<LinkId>) {}
}

/// Sends a SYN, then on the SYN-ACK the scripted 100-byte segments (index, CE) and a FIN;
/// records every packet it gets back as (kind, ack, e = ECE + 2 CWR).
struct Script {
    peer: EndpointId,
    segments: Vec<(u64, bool)>,
    got: Vec<(PacketKind, u64, u8)>,
}

impl Script {
    fn packet(&self, ctx: &mut Ctx<'_>, kind: PacketKind, seq: u64, len: u32) -> Packet {
        let set = ctx.path_set(HostId(0), HostId(1)).expect("loopback path");
        Packet {
            seq,
            data_seq: seq,
            dst: self.peer,
            route: ctx.route(set, 0),
            size_bytes: len + 62,
            payload_bytes: len,
            kind,
            ..Packet::default()
        }
    }
}

impl Endpoint for Script {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        let syn = self.packet(ctx, PacketKind::Syn, 0, 0);
        ctx.send(syn);
    }
    fn on_packet(&mut self, p: &Packet, ctx: &mut Ctx<'_>) {
        let e = u8::from(p.has(flags::ECE)) + 2 * u8::from(p.has(flags::CWR));
        self.got.push((p.kind, p.ack, e));
        if p.kind == PacketKind::Fin {
            let mut last = self.packet(ctx, PacketKind::Ack, p.ack, 0);
            last.ack = p.seq + 1;
            ctx.send(last);
        }
        if p.kind == PacketKind::SynAck {
            let ack = self.packet(ctx, PacketKind::Ack, 0, 0);
            ctx.send(ack);
            for &(i, ce) in &self.segments.clone() {
                let mut d = self.packet(ctx, PacketKind::Data, 1 + 100 * i, 100);
                d.set(flags::ECT);
                if ce {
                    d.set(flags::CE);
                }
                ctx.send(d);
            }
            let end = self.segments.iter().map(|&(i, _)| 101 + 100 * i).max();
            let mut fin = self.packet(ctx, PacketKind::Fin, end.unwrap_or(1), 0);
            fin.set(flags::FIN);
            ctx.send(fin);
        }
    }
}

/// The ACKs an XMP receiver with `config` sends for `segments`: BOS's single-path receiver, or
/// with `multipath` the multipath receiver of `xmp` (the script talks to its subflow 0).
fn echoes(config: &TcpConfig, segments: Vec<(u64, bool)>) -> Vec<(PacketKind, u64, u8)> {
    echoes_of(config, segments, false)
}

fn echoes_of(
    config: &TcpConfig,
    segments: Vec<(u64, bool)>,
    multipath: bool,
) -> Vec<(PacketKind, u64, u8)> {
    let mut w = World::new(1);
    w.set_path_source(Box::new(Loopback));
    let script = w.reserve();
    let set = w.routes_mut().path_set(HostId(1), HostId(0)).expect("path");
    let rx: Box<dyn Endpoint> = if multipath {
        Box::new(MptcpReceiver::new(
            0,
            script,
            set,
            (1234, 2000),
            config,
            RxSubflowAck::PerSubflow,
            None,
        ))
    } else {
        Box::new(TcpReceiver::new(
            0,
            script,
            PathChoice::ecmp(set, 80, 1234),
            config,
            None,
        ))
    };
    let rx = w.spawn(rx, SimTime::ZERO);
    let got = Vec::new();
    let s = Script {
        peer: rx,
        segments,
        got,
    };
    w.install(script, Box::new(s), SimTime::ZERO);
    w.run();
    assert!(w.conservation().holds());
    let e: &dyn std::any::Any = w.endpoint(script).expect("script alive");
    e.downcast_ref::<Script>().expect("a Script").got.clone()
}

/// XMP's TCP configuration with the reorder-resilient receiver: duplicate ACKs held up to 1 ms
/// and `max_segments` per hole.
fn holding(max_segments: u32) -> TcpConfig {
    let mut config = XmpConfig::tcp_config(Profile::Rfc);
    config.reorder_hold = Some(ReorderHold {
        max_delay: SimTime::from_ms(1),
        max_segments,
    });
    config
}

#[test]
fn the_receiver_echoes_a_two_bit_ce_count() {
    use PacketKind::{Ack, Fin, SynAck};
    // Delayed ACK m = 2, five CE segments in order: each ACK carries e = 2, the FIN+ACK the last.
    let mut config = XmpConfig::tcp_config(Profile::Rfc);
    config.delayed_ack = Some(DelayedAck {
        segments: 2,
        timeout: SimTime::from_ms(40),
    });
    let all_ce = (0..5).map(|i| (i, true)).collect();
    assert_eq!(
        echoes(&config, all_ce),
        vec![(SynAck, 1, 0), (Ack, 201, 2), (Ack, 401, 2), (Fin, 502, 1)]
    );
    // Four CE segments whose duplicate ACKs are held (reorder option) until the first arrives
    // last: one cumulative ACK with e = min(4, 3) = 3; the remaining 1 goes on the FIN+ACK.
    let config = holding(8);
    let reordered = vec![(1, true), (2, true), (3, true), (0, true)];
    assert_eq!(
        echoes(&config, reordered),
        vec![(SynAck, 1, 0), (Ack, 401, 3), (Fin, 402, 1)]
    );
    // Without CE nothing is echoed.
    let clean = vec![(0, false), (1, false)];
    assert_eq!(
        echoes(&config, clean),
        vec![(SynAck, 1, 0), (Ack, 101, 0), (Ack, 201, 0), (Fin, 202, 0)]
    );
}

#[test]
fn the_multipath_receiver_echoes_every_held_ce_mark() {
    use PacketKind::{Ack, Fin, SynAck};
    // XMP's own receiver (7.2): the same count. Four CE segments held behind a hole: the
    // cumulative ACK carries e = 3 and the FIN+ACK the fourth mark (it was one bit, e = 1,
    // with the other three marks lost).
    let config = holding(8);
    let reordered = vec![(1, true), (2, true), (3, true), (0, true)];
    assert_eq!(
        echoes_of(&config, reordered, true),
        vec![(SynAck, 1, 0), (Ack, 401, 3), (Fin, 402, 1)]
    );
    // Three held marks released as duplicate ACKs at the count limit (3 segments): the first
    // duplicate carries all three (it carried one).
    let config = holding(3);
    let released = vec![(1, true), (2, true), (3, true), (0, false)];
    assert_eq!(
        echoes_of(&config, released, true),
        vec![
            (SynAck, 1, 0),
            (Ack, 1, 3),
            (Ack, 1, 0),
            (Ack, 1, 0),
            (Ack, 401, 0),
            (Fin, 402, 0)
        ]
    );
    // Without the hold every ACK echoes its own segment's mark, as before.
    let config = XmpConfig::tcp_config(Profile::Rfc);
    let plain = vec![(0, true), (1, false), (2, true)];
    assert_eq!(
        echoes_of(&config, plain, true),
        vec![
            (SynAck, 1, 0),
            (Ack, 101, 1),
            (Ack, 201, 0),
            (Ack, 301, 1),
            (Fin, 302, 0)
        ]
    );
}

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
    let departed0 = w.link_counters(d.bottleneck).bytes_departed;
    let step = SimTime::from_us(5);
    let (mut sum, mut samples, mut max) = (0u64, 0u64, 0usize);
    let mut now = warm;
    while now < end {
        now += step;
        w.run_until(now);
        let len = w.link_occupancy(d.bottleneck).packets;
        sum += len;
        samples += 1;
        max = max.max(len as usize);
    }
    let bytes = w.link_counters(d.bottleneck).bytes_departed - departed0;
    let util = bytes as f64 * 8.0 / (1e9 * (end - warm).as_secs_f64());
    w.run();
    let done = check_end(&w, &report);
    assert_eq!(done.len(), 2, "both flows complete after their stop");
    let ce: u64 = receiver_stats(&report).iter().map(|s| s.ce_segments).sum();
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

fn xmp() -> htsim_transport::MptcpTransport {
    XmpConfig::default()
        .mptcp_transport(Profile::Rfc)
        .expect("valid XMP parameters")
}

#[test]
fn two_xmp_flows_with_beta_4_and_k_10_keep_the_queue_short_and_the_link_busy() {
    let (q, u, max, ce) = two_flows_k10(&xmp());
    println!(
        "XMP (2 subflows each): mean queue {q:.2} pkts, max {max}, utilisation {u:.4}, {ce} CE"
    );
    assert!(q < 20.0, "XMP mean queue {q}");
    assert!(u >= 0.90, "XMP utilisation {u}");
    assert!(ce > 0);
}

/// Bytes subflow `r` of the MPTCP sender `ep` has had acknowledged.
fn subflow_acked(w: &World, ep: htsim_core::ids::EndpointId, r: usize) -> u64 {
    let e: &dyn std::any::Any = w.endpoint(ep).expect("sender alive");
    let s = e
        .downcast_ref::<htsim_transport::mptcp::connection::MptcpSender>()
        .expect("an MPTCP sender");
    s.subflows()[r].snd_una() - 1
}

#[test]
fn xmp_compensates_on_the_other_path_when_one_path_gets_loaded() {
    use htsim_topology::cabling::Cabling;
    use htsim_topology::xmp::XmpTwoPath;
    // Senders: host 0 (both paths), host 1 (path 0 only), host 2 (path 1 only); receivers
    // hosts 3, 4, 5. 1 Gb/s, 100 us per cable (RTT about 0.6 ms, BDP about 51 packets), ECN
    // with K = 20 >= BDP / (beta - 1) (7.5's sizing rule) and 100-packet buffers everywhere.
    // (With a BDP near 10 packets, the 2-packet minimum window dominates a starved subflow.)
    let mut w = World::new(9);
    let cabling = Cabling::uniform(htsim_core::Rate::gbps(1), SimTime::from_us(100));
    let mut queues = |_: htsim_topology::cabling::QueueSite<'_>| {
        Queue::new(
            BufferSize::Packets(100),
            Discipline::Ecn {
                threshold: BufferSize::Packets(20),
            },
        )
    };
    let testbed = XmpTwoPath {
        multipath_pairs: 1,
        single_path_pairs: [1, 1],
    };
    testbed
        .build(&mut w, &cabling, &mut queues)
        .expect("testbed");
    let report = sink();
    let end = SimTime::from_ms(1200);
    let bos = BosTransport::new(Profile::Rfc);
    let flow = |w: &mut World, t: &dyn Transport, id: u32, start_ms: u64, pinned: bool| {
        let mut spec = htsim_transport::ConnectionSpec::new(
            id as u64,
            HostId(id),
            HostId(3 + id),
            None,
            SimTime::from_ms(start_ms),
            w.streams().substream("conn", id as u64),
        );
        spec.stop = Some(end);
        spec.report = Some(report.clone());
        if pinned {
            spec.path = htsim_transport::path::PathPolicy::Pinned(0); // subflow j on path j
        }
        t.open(w, spec).expect("open")
    };
    let x = flow(&mut w, &xmp(), 0, 0, true);
    flow(&mut w, &bos, 2, 0, false); // competes with subflow 1 on path 1 all along
    flow(&mut w, &bos, 1, 600, false); // the background flow on path 0
    let rate = |w: &mut World, from_ms: u64, to_ms: u64, r: usize| {
        w.run_until(SimTime::from_ms(from_ms));
        let a = subflow_acked(w, x.sender, r);
        w.run_until(SimTime::from_ms(to_ms));
        let b = subflow_acked(w, x.sender, r);
        (b - a) as f64 * 8.0 / ((to_ms - from_ms) as f64 * 1e-3)
    };
    let before1 = rate(&mut w, 300, 600, 1);
    let after0 = rate(&mut w, 800, 900, 0);
    let after1 = rate(&mut w, 900, 1200, 1);
    println!(
        "XMP subflow on path 1: {:.1} Mb/s before, {:.1} Mb/s after the background flow on path 0 \
         (subflow 0 then {:.1} Mb/s)",
        before1 / 1e6,
        after1 / 1e6,
        after0 / 1e6
    );
    assert!(
        after1 > 1.2 * before1,
        "rate compensation: path-1 subflow {before1} -> {after1} b/s"
    );
    w.run();
    let done = check_end(&w, &report);
    assert_eq!(done.len(), 3);
}

/// On the reverse path: drops the first ACK of data on subflow 0 and the first SYN-ACK of every
/// join, as a RED queue above K does to some XMP connections in the XMP paper's FatTree
/// (docs/model.md 7.7); otherwise drop-tail.
struct DropFirstReplies {
    data_ack_dropped: bool,
    joins_dropped: Vec<u16>,
}

impl htsim_core::queue::QueueDiscipline for DropFirstReplies {
    fn admit(
        &mut self,
        occ: &htsim_core::queue::Occupancy,
        p: &mut Packet,
        _now: SimTime,
    ) -> htsim_core::queue::Admission {
        use htsim_core::queue::Admission;
        let first_data_ack =
            p.kind == PacketKind::Ack && p.subflow == 0 && p.ack > 1 && !self.data_ack_dropped;
        let first_join_syn_ack = p.kind == PacketKind::SynAck
            && p.subflow > 0
            && !self.joins_dropped.contains(&p.subflow);
        self.data_ack_dropped |= first_data_ack;
        if first_join_syn_ack {
            self.joins_dropped.push(p.subflow);
        }
        let drop = first_data_ack || first_join_syn_ack || !occ.fits(p.size_bytes as u64);
        if drop {
            Admission::Drop
        } else {
            Admission::Enqueue
        }
    }
    fn name(&self) -> &str {
        "drop-first-replies"
    }
}

/// The XMP connections that "sent one segment and nothing more" (docs/model.md 7.7): subflow 0's
/// first segment is not acknowledged and no join gets its SYN-ACK, so nothing can be sent, but
/// the connection is waiting on timers, not stalled: subflow 0's retransmission timer is armed
/// for the RTO before any RTT sample (1 s under `rfc`, 2.9) and every join's SYN timer for the
/// SYN timeout (1 s, 2.2). They fire, and the flow completes just after 1 s with one timeout.
#[test]
fn xmp_waits_on_armed_timers_after_its_first_ack_and_join_syn_acks_are_lost() {
    use htsim_transport::mptcp::connection::MptcpSender;
    let mut w = World::new(3);
    let net = Net::gig(1);
    let rev = Queue::new(
        BufferSize::Packets(1000),
        Discipline::Custom(Box::new(DropFirstReplies {
            data_ack_dropped: false,
            joins_dropped: Vec::new(),
        })),
    );
    dumbbell_with(&mut w, net, droptail(100), rev);
    let report = sink();
    let mut xmp4 = xmp();
    xmp4.mptcp.max_subflows = 4;
    let c = open(
        &mut w,
        &xmp4,
        &net,
        0,
        Some(200_000),
        SimTime::ZERO,
        None,
        &report,
    );
    // Per subflow: (snd_una, bytes outstanding, RTO deadline, SYN deadline).
    type Timers = (u64, u64, Option<SimTime>, Option<SimTime>);
    let subflows = |w: &World| -> Vec<Timers> {
        let e: &dyn std::any::Any = w.endpoint(c.sender).expect("sender alive");
        let s = e.downcast_ref::<MptcpSender>().expect("an MPTCP sender");
        let timers = |sf: &htsim_transport::subflow::Subflow| {
            (
                sf.snd_una(),
                sf.flight(),
                sf.rto_deadline(),
                sf.syn_deadline(),
            )
        };
        s.subflows().iter().map(timers).collect()
    };
    // Up to the first data segment: it leaves with the handshake ACK.
    while subflows(&w)[0].1 == 0 {
        assert!(w.step(), "no data sent");
    }
    let first = w.now();
    let rto_at = first + SimTime::from_secs(1);
    assert_eq!(subflows(&w)[0].2, Some(rto_at));
    // Just before 1 s: every join has sent its SYN, nothing is acknowledged, one segment is
    // outstanding, and every timer is still armed.
    w.run_until(first + SimTime::from_ms(999));
    let state = subflows(&w);
    assert_eq!(state.len(), 4, "all joins created");
    assert_eq!(
        state[0],
        (1, 1400, Some(rto_at), None),
        "one segment, unacknowledged"
    );
    for (j, &(_, flight, _, syn)) in state.iter().enumerate().skip(1) {
        // Each join's SYN left within 1 ms after the first segment; its timer is 1 s later.
        let sent = syn.map(|t| t - SimTime::from_secs(1));
        assert!(
            flight == 0 && sent.is_some_and(|t| t > first && t < first + SimTime::from_ms(1)),
            "join {j}: SYN timer {syn:?}"
        );
    }
    w.run();
    let r = &check_end(&w, &report)[0];
    let fct = r.end.zip(r.start).map(|(e, s)| e - s).expect("completed");
    println!("FCT {fct}, {} timeouts", r.timeouts);
    assert_eq!(r.timeouts, 1, "subflow 0's first segment, once");
    assert!(
        fct > SimTime::from_secs(1) && fct < SimTime::from_ms(1010),
        "{fct}"
    );
}
