//! Every transport under hostile queues: random loss of every packet type (data, ACK, SYN,
//! SYN-ACK, FIN, FIN+ACK) in both directions, and RED queues (docs/model.md 7.1) with flows
//! both ways, where every packet that is not ECN-capable (ACKs, SYNs, FINs, and TCP's and
//! LIA's data) is dropped above K, so a flow's ACKs are lost behind the other direction's data.
//! Every flow completes, delivers its bytes in order exactly once, and both endpoints close; and
//! after every event no sender is left waiting without a timer: a subflow with data or a FIN
//! outstanding has its retransmission timer armed, one waiting for its SYN-ACK its SYN timer,
//! each due now or later (docs/model.md 2.2, 2.9). Multipath transports run under `rfc` here:
//! under `ns3-mmptcp` a lost MP_JOIN SYN stalls a connection for good by design (4.3).

mod common;

use common::*;
use htsim_core::flow::FlowRecord;
use htsim_core::ids::{EndpointId, HostId};
use htsim_core::packet::Packet;
use htsim_core::queue::{Admission, Discipline, Occupancy, Queue, QueueDiscipline};
use htsim_core::rng::SimRng;
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::SimTime;
use htsim_transport::config::DelayedAck;
use htsim_transport::mptcp::connection::MptcpSender;
use htsim_transport::subflow::{Subflow, SubflowState};
use htsim_transport::tcp::TcpSender;
use htsim_transport::xmp::{BosTransport, XmpConfig};
use htsim_transport::{
    ConnectionSpec, DctcpTransport, MmptcpTransport, MptcpTransport, Profile, PsTransport,
    TcpTransport, Transport,
};
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

/// The subflows of sender `ep` and whether its (finite) application has bytes not yet
/// packetised, if the sender is still open.
fn sender_state(w: &World, ep: EndpointId) -> Option<(&[Subflow], bool)> {
    let e: &dyn std::any::Any = w.endpoint(ep)?;
    let unsent = |r: FlowRecord| r.size_bytes.is_some_and(|size| r.bytes_sent < size);
    if let Some(s) = e.downcast_ref::<TcpSender>() {
        return Some((std::slice::from_ref(s.subflow()), unsent(s.record())));
    }
    let m = e.downcast_ref::<MptcpSender>();
    let m = m.expect("a TCP or MPTCP sender");
    Some((m.subflows(), unsent(m.record())))
}

/// The timer invariant at `w.now()` for every sender still open: a subflow with data or its FIN
/// outstanding has its retransmission timer armed, a subflow in SYN_SENT its SYN timer, and
/// neither deadline has passed; and a sender with bytes left to send has a subflow waiting on
/// one of them (else nothing would ever wake it: a window below one segment, a scheduler
/// waiting on nothing). Returns how many subflows have had data outstanding for more than
/// 0.5 s since the handshake without an RTT sample: they wait for the RTO before a first sample.
fn assert_timers(w: &World, senders: &[EndpointId], what: &str) -> usize {
    let now = w.now();
    let due = |d: Option<SimTime>| d.is_some_and(|t| t >= now);
    let mut unsampled = 0;
    for (f, &ep) in senders.iter().enumerate() {
        let Some((subflows, unsent)) = sender_state(w, ep) else {
            continue;
        };
        let mut waiting = false;
        for sf in subflows {
            let r = sf.index();
            match sf.state() {
                SubflowState::Established => {
                    let fin = sf.fin_sent() && !sf.fin_acked();
                    let long_ago =
                        (sf.established_at()).is_some_and(|t| now > t + SimTime::from_ms(500));
                    unsampled += usize::from(sf.flight() > 0 && long_ago && !sf.rtt().has_sample());
                    waiting |= sf.flight() > 0;
                    assert!(
                        !(sf.flight() > 0 || fin) || due(sf.rto_deadline()),
                        "{what}: at {now}, flow {f} subflow {r} has {} B and fin {fin} \
                         outstanding but its retransmission timer is {:?}",
                        sf.flight(),
                        sf.rto_deadline()
                    );
                }
                SubflowState::SynSent => {
                    waiting = true;
                    assert!(
                        due(sf.syn_deadline()),
                        "{what}: at {now}, flow {f} subflow {r} waits for its SYN-ACK but its \
                         SYN timer is {:?}",
                        sf.syn_deadline()
                    );
                }
                SubflowState::Idle => waiting = true, // its start event is pending
                SubflowState::Failed => {}
            }
        }
        assert!(
            waiting || !unsent,
            "{what}: at {now}, flow {f} has bytes to send, nothing outstanding and no SYN \
             pending"
        );
    }
    unsampled
}

/// Runs `w` to its end (at most 600 s), checking [`assert_timers`] after every event; returns
/// whether a subflow waited for the RTO before a first RTT sample.
fn run_checked(w: &mut World, senders: &[EndpointId], what: &str) -> bool {
    let mut unsampled = false;
    while w.step() {
        unsampled |= assert_timers(w, senders, what) > 0;
        assert!(w.now() <= SimTime::from_secs(600), "{what}: still running");
    }
    unsampled
}

/// Opens a flow from host `src` to host `dst`.
fn open_between(
    w: &mut World,
    t: &dyn Transport,
    id: u32,
    (src, dst): (u32, u32),
    size: u64,
    start: SimTime,
    report: &htsim_transport::tcp::ReportSink,
) -> EndpointId {
    let mut spec = ConnectionSpec::new(
        id as u64,
        HostId(src),
        HostId(dst),
        Some(size),
        start,
        w.streams().substream("conn", id as u64),
    );
    spec.report = Some(report.clone());
    t.open(w, spec).expect("open").sender
}

#[test]
fn every_flow_completes_under_random_loss_of_any_packet() {
    let (mut runs, mut timeouts, mut fast) = (0, 0, 0);
    let transports = transports();
    for seed in 0..25u64 {
        for (i, (name, t)) in transports.iter().enumerate() {
            let what = format!("seed {seed}, {name}");
            let mut w = World::new(seed * 10 + i as u64);
            let net = Net::gig(6);
            let fwd = lossy(&w, "loss.fwd", 0.05, 20);
            let rev = lossy(&w, "loss.rev", 0.05, 1000);
            dumbbell_with(&mut w, net, fwd, rev);
            let report = sink();
            let sizes = [1u64, 2_000, 14_000, 70_000, 150_001, 400_000];
            let senders: Vec<EndpointId> = (0..net.pairs)
                .map(|f| {
                    let size = sizes[(f as usize + seed as usize) % sizes.len()];
                    let start = SimTime::from_us(100 * f as u64);
                    let ends = (f, net.pairs + f);
                    open_between(&mut w, t.as_ref(), f, ends, size, start, &report)
                })
                .collect();
            run_checked(&mut w, &senders, &what);
            let recs = check_end(&w, &report);
            assert_eq!(recs.len(), net.pairs as usize, "{what}");
            assert_eq!(
                report.lock().unwrap().len(),
                2 * net.pairs as usize,
                "{what}: all endpoints closed"
            );
            timeouts += recs.iter().map(|r| r.timeouts).sum::<u64>();
            fast += recs.iter().map(|r| r.fast_retransmits).sum::<u64>();
            runs += 1;
        }
    }
    assert_eq!(runs, 25 * transports.len());
    println!("{runs} runs: {timeouts} timeouts, {fast} fast retransmits");
    assert!(timeouts > 100 && fast > 100, "both repair paths exercised");
}

fn red(k: u64) -> Queue {
    Queue::new(
        BufferSize::Packets(100),
        Discipline::Red {
            threshold: BufferSize::Packets(k),
        },
    )
}

/// The situation of the XMP paper's FatTree under `red` queues (docs/model.md 7.7): data one
/// way queues above K, and the ACKs, SYN-ACKs and FINs of the flows the other way that meet
/// it are dropped. Six flows, three each way, through RED bottlenecks (K = 10, 100 packets).
/// Some subflows lose the ACK of their first segment and wait for the RTO before a first
/// RTT sample (1 s): with their timers armed, and they complete.
#[test]
fn flows_both_ways_through_red_queues_complete_and_keep_their_timers() {
    let transports = transports();
    let mut waited = 0;
    for seed in 0..4u64 {
        for (i, (name, t)) in transports.iter().enumerate() {
            let what = format!("seed {seed}, {name}");
            let mut w = World::new(seed * 10 + i as u64);
            let net = Net::gig(6);
            let d = dumbbell_with(&mut w, net, red(10), red(10));
            let report = sink();
            let sizes = [30_000u64, 300_000, 1_000_000];
            let senders: Vec<EndpointId> = (0..net.pairs)
                .map(|f| {
                    let size = sizes[(f as usize / 2 + seed as usize) % sizes.len()];
                    let start = SimTime::from_us((37 + 13 * seed) * f as u64);
                    let (a, b) = (f, net.pairs + f);
                    let ends = if f % 2 == 0 { (a, b) } else { (b, a) };
                    open_between(&mut w, t.as_ref(), f, ends, size, start, &report)
                })
                .collect();
            let unsampled = run_checked(&mut w, &senders, &what);
            let recs = check_end(&w, &report);
            assert_eq!(recs.len(), net.pairs as usize, "{what}");
            let drops = w.link_counters(d.bottleneck).packets_dropped
                + w.link_counters(d.rev_bottleneck).packets_dropped;
            println!(
                "{what}: {drops} drops, {} timeouts, waited for the RTO before a first sample: \
                 {unsampled}",
                recs.iter().map(|r| r.timeouts).sum::<u64>()
            );
            waited += usize::from(unsampled);
            assert!(drops > 0, "{what}: the RED queues dropped nothing");
        }
    }
    assert!(
        waited > 0,
        "no subflow waited for the RTO before a first sample"
    );
}

/// Every transport, both profiles for the single-path ones, with and without delayed ACKs.
fn transports() -> Vec<(&'static str, Box<dyn Transport>)> {
    let delayed = Some(DelayedAck {
        segments: 2,
        timeout: SimTime::from_ms(40),
    });
    let mut tcp_delayed = TcpTransport::new(Profile::Ns3Mmptcp);
    tcp_delayed.config.delayed_ack = delayed;
    let mut dctcp_delayed = DctcpTransport::new(Profile::Rfc);
    dctcp_delayed.config.delayed_ack = delayed;
    let lia = |subflows: u32| {
        let mut t = MptcpTransport::new(Profile::Rfc);
        t.mptcp.max_subflows = subflows;
        Box::new(t)
    };
    let mut xmp4 = XmpConfig::default()
        .mptcp_transport(Profile::Rfc)
        .expect("valid XMP parameters");
    xmp4.mptcp.max_subflows = 4;
    vec![
        ("tcp", Box::new(TcpTransport::new(Profile::Rfc))),
        ("tcp ns3-mmptcp delayed-ack", Box::new(tcp_delayed)),
        (
            "dctcp ns3-mmptcp",
            Box::new(DctcpTransport::new(Profile::Ns3Mmptcp)),
        ),
        ("dctcp delayed-ack", Box::new(dctcp_delayed)),
        ("ps", Box::new(PsTransport::new(Profile::Rfc))),
        ("bos", Box::new(BosTransport::new(Profile::Rfc))),
        ("lia2", lia(2)),
        ("lia4", lia(4)),
        ("xmp2", Box::new(XmpConfig::default_transport(Profile::Rfc))),
        ("xmp4", Box::new(xmp4)),
        ("mmptcp", Box::new(MmptcpTransport::new(Profile::Rfc))),
    ]
}
