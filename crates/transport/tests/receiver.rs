//! The receiver's ACK policy, driven packet by packet by a scripted peer over a loopback path:
//! the DCTCP one-bit CE state machine with delayed ACKs (docs/model.md 8), RFC 3168's latched
//! echo (2.14), immediate ACKs for
//! out-of-order data and filled holes (2.5), the delayed-ACK timer, and the FIN exchange (2.11).

use htsim_core::endpoint::{Ctx, Endpoint};
use htsim_core::ids::{EndpointId, HostId, LinkId};
use htsim_core::packet::{flags, Packet, PacketKind};
use htsim_core::routing::PathSource;
use htsim_core::world::World;
use htsim_core::SimTime;
use htsim_transport::config::{CeEcho, DelayedAck, TcpConfig};
use htsim_transport::path::PathChoice;
use htsim_transport::receiver::TcpReceiver;

/// Every pair of distinct hosts has one empty path: packets are delivered at once.
struct Loopback;
impl PathSource for Loopback {
    fn path_count(&self, src: HostId, dst: HostId) -> u32 {
        u32::from(src != dst)
    }
    fn path(&self, _src: HostId, _dst: HostId, _index: u32, _out: &mut Vec<LinkId>) {}
}

/// Sends a SYN, then on the SYN-ACK the scripted segments (seq, len, CE; CWR on those whose
/// seq is in `cwr`) and a FIN; records every packet it gets back with its time.
struct Script {
    peer: EndpointId,
    segments: Vec<(u64, u32, bool)>,
    cwr: Vec<u64>,
    fin_seq: Option<u64>,
    got: Vec<(SimTime, PacketKind, u64, bool)>,
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
        self.got.push((ctx.now(), p.kind, p.ack, p.has(flags::ECE)));
        if p.kind == PacketKind::Fin {
            let mut last = self.packet(ctx, PacketKind::Ack, p.ack, 0);
            last.ack = p.seq + 1; // acknowledges the receiver's FIN
            ctx.send(last); // the receiver closes on it
        }
        if p.kind == PacketKind::SynAck {
            let ack = self.packet(ctx, PacketKind::Ack, 0, 0);
            ctx.send(ack);
            for &(seq, len, ce) in &self.segments.clone() {
                let mut d = self.packet(ctx, PacketKind::Data, seq, len);
                if ce {
                    d.set(flags::ECT | flags::CE);
                }
                if self.cwr.contains(&seq) {
                    d.set(flags::CWR);
                }
                ctx.send(d);
            }
            if let Some(fin_seq) = self.fin_seq {
                let mut fin = self.packet(ctx, PacketKind::Fin, fin_seq, 0);
                fin.set(flags::FIN);
                fin.payload_bytes = 0;
                ctx.send(fin);
            }
        }
    }
}

fn run(
    config: &TcpConfig,
    segments: Vec<(u64, u32, bool)>,
    fin: bool,
) -> Vec<(SimTime, PacketKind, u64, bool)> {
    run_with_cwr(config, segments, Vec::new(), fin)
}

/// [`run`], with CWR on the segments whose seq is in `cwr`.
fn run_with_cwr(
    config: &TcpConfig,
    segments: Vec<(u64, u32, bool)>,
    cwr: Vec<u64>,
    fin: bool,
) -> Vec<(SimTime, PacketKind, u64, bool)> {
    let mut w = World::new(1);
    w.set_path_source(Box::new(Loopback));
    let script = w.reserve();
    let set = w.routes_mut().path_set(HostId(1), HostId(0)).expect("path");
    let fin_seq = fin.then(|| {
        segments
            .iter()
            .map(|&(s, l, _)| s + l as u64)
            .max()
            .unwrap_or(1)
    });
    let rx = w.spawn(
        Box::new(TcpReceiver::new(
            0,
            script,
            PathChoice::ecmp(set, 80, 1234),
            config,
            None,
        )),
        SimTime::ZERO,
    );
    w.install(
        script,
        Box::new(Script {
            peer: rx,
            segments,
            cwr,
            fin_seq,
            got: Vec::new(),
        }),
        SimTime::ZERO,
    );
    w.run();
    assert!(w.conservation().holds());
    let e: &dyn std::any::Any = w.endpoint(script).expect("script alive");
    e.downcast_ref::<Script>().expect("a Script").got.clone()
}

/// The `rfc` receiver with delayed ACKs: every second segment, or after 40 ms.
fn with_delayed_acks() -> TcpConfig {
    TcpConfig {
        delayed_ack: Some(DelayedAck {
            segments: 2,
            timeout: SimTime::from_ms(40),
        }),
        ..TcpConfig::rfc()
    }
}

/// The time, kind and acknowledgement number of each packet the receiver sent in `got`.
fn timed(got: &[(SimTime, PacketKind, u64, bool)]) -> Vec<(SimTime, PacketKind, u64)> {
    got.iter().map(|&(t, k, a, _)| (t, k, a)).collect()
}

#[test]
fn dctcp_ce_state_machine_with_delayed_acks() {
    let config = with_delayed_acks();
    // CE pattern 0 1 1 0 0, then the FIN.
    let seg = |i: u64, ce| (1 + 100 * i, 100u32, ce);
    let got = run(
        &config,
        vec![
            seg(0, false),
            seg(1, true),
            seg(2, true),
            seg(3, false),
            seg(4, false),
        ],
        true,
    );
    let acks: Vec<(PacketKind, u64, bool)> = got.iter().map(|&(_, k, a, e)| (k, a, e)).collect();
    assert_eq!(
        acks,
        vec![
            (PacketKind::SynAck, 1, false),
            // Segment 1 is CE while segment 0 waits: ACK segment 0 at once with the old state.
            (PacketKind::Ack, 101, false),
            // Segments 1 and 2 complete a delayed-ACK pair, echoing CE.
            (PacketKind::Ack, 301, true),
            // CE falls with no ACK pending; segments 3 and 4 make a pair.
            (PacketKind::Ack, 501, false),
            // The FIN in sequence: FIN+ACK acknowledging FIN.
            (PacketKind::Fin, 502, false),
        ]
    );
}

#[test]
fn rfc3168_echo_latches_from_ce_until_cwr() {
    let config = TcpConfig {
        ce_echo: CeEcho::Rfc3168,
        ..TcpConfig::rfc()
    };
    // CE on segment 1 only; CWR on segment 3; CE and CWR together on segment 5.
    let seg = |i: u64, ce| (1 + 100 * i, 100u32, ce);
    let segments = vec![
        seg(0, false),
        seg(1, true),
        seg(2, false),
        seg(3, false),
        seg(4, false),
        seg(5, true),
        seg(6, false),
    ];
    let got = run_with_cwr(&config, segments, vec![301, 501], false);
    let echoes: Vec<(u64, bool)> = got
        .iter()
        .filter(|g| g.1 == PacketKind::Ack)
        .map(|&(_, _, a, e)| (a, e))
        .collect();
    assert_eq!(
        echoes,
        vec![
            (101, false),
            // From the CE segment on, every ACK echoes, unmarked segments too ...
            (201, true),
            (301, true),
            // ... until the CWR segment, whose ACK no longer does.
            (401, false),
            (501, false),
            // CE with CWR: the echo starts again, and stays on.
            (601, true),
            (701, true),
        ]
    );
}

#[test]
fn delayed_ack_timer_and_out_of_order_segments() {
    let config = with_delayed_acks();
    // Segment 0 waits (delayed); segment 2 is out of order: a duplicate ACK at once (it
    // acknowledges segment 0); segment 1 fills the hole: ACK at once.
    let got = run(
        &config,
        vec![(1, 100, false), (201, 100, false), (101, 100, false)],
        true,
    );
    let acks: Vec<(PacketKind, u64)> = got.iter().map(|&(_, k, a, _)| (k, a)).collect();
    assert_eq!(
        acks,
        vec![
            (PacketKind::SynAck, 1),
            (PacketKind::Ack, 101),
            (PacketKind::Ack, 301),
            (PacketKind::Fin, 302),
        ]
    );
    // Without delayed ACK every segment is ACKed at once, CE echoed per segment.
    let got = run(
        &TcpConfig::rfc(),
        vec![(1, 100, true), (101, 100, false), (201, 100, true)],
        true,
    );
    let acks: Vec<(u64, bool)> = got[1..4].iter().map(|&(_, _, a, e)| (a, e)).collect();
    assert_eq!(acks, vec![(101, true), (201, false), (301, true)]);
}

#[test]
fn a_lone_segment_is_acked_by_the_delayed_ack_timer() {
    let config = with_delayed_acks();
    // Three in-order segments and no FIN: the pair is ACKed at once, the third segment when
    // the timer expires.
    let got = run(
        &config,
        vec![(1, 100, false), (101, 100, false), (201, 100, false)],
        false,
    );
    let timed = timed(&got);
    assert_eq!(
        timed[1],
        (SimTime::ZERO, PacketKind::Ack, 201),
        "pair ACKed at once"
    );
    assert_eq!(
        timed[2],
        (SimTime::from_ms(40), PacketKind::Ack, 301),
        "{timed:?}"
    );
    assert_eq!(timed.len(), 3);
}

#[test]
fn a_segment_that_fills_part_of_a_hole_is_acked_at_once() {
    // RFC 5681 4.2 (docs/model.md 2.5): "an immediate ACK SHOULD be generated when a segment
    // arrives that fills in all or part of a gap in the sequence space". Segments 1 and 2 are
    // missing: segment 0 waits (delayed), segment 3 is out of order (a duplicate ACK at once),
    // segment 1 fills the first half of the hole, which stays open for segment 2. Its ACK (a
    // partial ACK for a NewReno sender) goes at once, not after the 40 ms timer.
    let config = with_delayed_acks();
    let got = run(
        &config,
        vec![(1, 100, false), (301, 100, false), (101, 100, false)],
        false,
    );
    let timed = timed(&got);
    assert_eq!(
        timed,
        vec![
            (SimTime::ZERO, PacketKind::SynAck, 1),
            (SimTime::ZERO, PacketKind::Ack, 101),
            (SimTime::ZERO, PacketKind::Ack, 201),
        ]
    );
}

#[test]
fn an_early_fin_is_acked_under_rfc_and_ignored_under_ns3() {
    // Segment 2 (101..201) is missing when segment 3 and the FIN at 301 arrive. Segment 3 earns
    // a duplicate ACK under both profiles; the FIN only under rfc (an out-of-order segment,
    // RFC 5681 4.2). The ns-3 receiver answers a FIN only in sequence (2.11) and ignores it
    // here; no data fills the hole, so nothing more is sent.
    let segments = vec![(1, 100, false), (201, 100, false)];
    for (config, dup_acks) in [(TcpConfig::rfc(), 2), (TcpConfig::ns3_mmptcp(), 1)] {
        let got = run(&config, segments.clone(), true);
        let acks: Vec<(PacketKind, u64)> = got.iter().map(|&(_, k, a, _)| (k, a)).collect();
        let mut expect = vec![(PacketKind::SynAck, 1), (PacketKind::Ack, 101)];
        expect.extend(std::iter::repeat_n((PacketKind::Ack, 101), dup_acks));
        assert_eq!(acks, expect, "{:?}", config.profile);
    }
}
