//! MMPTCP's switching rule and phases (docs/model.md 6.3, 6.4), limited transmit (6.6) and
//! auto subflow (6.7) on the gigabit dumbbell, with conservation and in-order delivery checked
//! at the end of every run. Run in release.

mod common;

use common::*;
use htsim_core::packet::{flags, Packet, PacketKind};
use htsim_core::queue::{Admission, Discipline, Occupancy, Queue, QueueDiscipline};
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::SimTime;
use htsim_transport::config::LimitedTransmit;
use htsim_transport::tcp::ConnectionReport;
use htsim_transport::trace::{TraceKind, TraceLog};
use htsim_transport::{ConnectionSpec, Locality, MmptcpTransport, Profile, Reach, Transport};
use std::sync::{Arc, Mutex};

/// A forward packet seen at the bottleneck.
#[derive(Clone, Copy, Debug)]
struct Seen {
    at: SimTime,
    subflow: u16,
    kind: PacketKind,
    payload: u32,
    retransmit: bool,
    scattered: bool,
}

/// Drop-tail that logs every packet and drops the listed data arrivals (1-based).
struct Logger {
    log: Arc<Mutex<Vec<Seen>>>,
    drop_data: Vec<u64>,
    data: u64,
}

impl QueueDiscipline for Logger {
    fn admit(&mut self, occ: &Occupancy, p: &mut Packet, now: SimTime) -> Admission {
        self.log.lock().unwrap().push(Seen {
            at: now,
            subflow: p.subflow,
            kind: p.kind,
            payload: p.payload_bytes,
            retransmit: p.has(flags::RETRANSMIT),
            scattered: p.has(flags::SCATTERED),
        });
        if p.kind == PacketKind::Data {
            self.data += 1;
            if self.drop_data.contains(&self.data) {
                return Admission::Drop;
            }
        }
        if occ.fits(p.size_bytes as u64) {
            Admission::Enqueue
        } else {
            Admission::Drop
        }
    }
    fn name(&self) -> &str {
        "logger"
    }
}

/// One MMPTCP flow of `size` bytes; returns the bottleneck log and the sender's report.
fn run(
    t: &MmptcpTransport,
    size: u64,
    drops: Vec<u64>,
    reach: Option<Reach>,
) -> (Vec<Seen>, ConnectionReport) {
    run_traced(t, size, drops, reach, None)
}

/// [`run`], the sender's events recorded in `trace`.
fn run_traced(
    t: &MmptcpTransport,
    size: u64,
    drops: Vec<u64>,
    reach: Option<Reach>,
    trace: Option<TraceLog>,
) -> (Vec<Seen>, ConnectionReport) {
    let mut w = World::new(17);
    let net = Net::gig(1);
    let log = Arc::new(Mutex::new(Vec::new()));
    let q = Queue::new(
        BufferSize::Packets(100),
        Discipline::Custom(Box::new(Logger {
            log: log.clone(),
            drop_data: drops,
            data: 0,
        })),
    );
    dumbbell(&mut w, net, q);
    let report = sink();
    let mut spec = ConnectionSpec::new(
        0,
        htsim_core::ids::HostId(0),
        htsim_core::ids::HostId(1),
        Some(size),
        SimTime::ZERO,
        w.streams().substream("conn", 0),
    );
    spec.report = Some(report.clone());
    spec.reach = reach;
    spec.trace = trace;
    t.open(&mut w, spec).expect("open");
    w.run();
    assert_eq!(check_end(&w, &report).len(), 1, "the flow completes");
    let sender = report
        .lock()
        .unwrap()
        .iter()
        .find(|r| matches!(r, ConnectionReport::Sender { .. }))
        .cloned()
        .expect("sender report");
    let seen = std::mem::take(&mut *log.lock().unwrap());
    (seen, sender)
}

#[test]
fn a_flow_below_the_threshold_never_opens_subflows() {
    let t = MmptcpTransport::new(Profile::Ns3Mmptcp);
    let (seen, rep) = run(&t, 70_000, vec![], None);
    assert!(seen.iter().all(|s| s.subflow == 0), "only subflow 0");
    assert!(seen
        .iter()
        .filter(|s| s.kind == PacketKind::Data)
        .all(|s| s.scattered));
    let ConnectionReport::Sender { record, .. } = rep else {
        unreachable!()
    };
    assert_eq!(record.subflows, 1);
}

#[test]
fn a_large_flow_switches_after_the_threshold_and_sprays_until_the_first_join() {
    let t = MmptcpTransport::new(Profile::Ns3Mmptcp);
    assert_eq!(t.mptcp.max_subflows, 8);
    let (seen, rep) = run(&t, 1_000_000, vec![], None);
    let joins: Vec<&Seen> = seen
        .iter()
        .filter(|s| s.kind == PacketKind::Syn && s.subflow > 0)
        .collect();
    let mut idx: Vec<u16> = joins.iter().map(|s| s.subflow).collect();
    idx.sort();
    idx.dedup();
    assert_eq!(idx, (1..=7).collect::<Vec<u16>>(), "MaxSubflows - 1 joins");
    let first_join = joins.iter().map(|s| s.at).min().unwrap();
    let new0 = |until: SimTime| -> u64 {
        seen.iter()
            .filter(|s| s.kind == PacketKind::Data && s.subflow == 0 && !s.retransmit)
            .filter(|s| s.at <= until)
            .map(|s| s.payload as u64)
            .sum()
    };
    let at_switch = new0(first_join);
    println!("bytes sprayed when the first join SYN passed: {at_switch}");
    assert!(at_switch > 100_000, "switched after {at_switch} B");
    let first_phase2 = seen
        .iter()
        .filter(|s| s.kind == PacketKind::Data && s.subflow > 0)
        .map(|s| s.at)
        .min()
        .expect("phase 2 data");
    let last_new0 = seen
        .iter()
        .filter(|s| s.kind == PacketKind::Data && s.subflow == 0 && !s.retransmit)
        .map(|s| s.at)
        .max()
        .unwrap();
    assert!(
        last_new0 > first_join,
        "subflow 0 sprays until a join completes"
    );
    assert!(
        last_new0 <= first_phase2,
        "no new data on subflow 0 in phase 2"
    );
    assert!(seen
        .iter()
        .filter(|s| s.kind == PacketKind::Data && s.subflow == 0)
        .all(|s| s.scattered));
    assert!(seen
        .iter()
        .filter(|s| s.kind == PacketKind::Data && s.subflow > 0)
        .all(|s| !s.scattered));
    let ConnectionReport::Sender { record, .. } = rep else {
        unreachable!()
    };
    assert_eq!(record.subflows, 8);
    // Clean setting: MaxSubflows phase-2 subflows.
    let t = MmptcpTransport::new(Profile::Rfc);
    let (_, rep) = run(&t, 1_000_000, vec![], None);
    let ConnectionReport::Sender { record, .. } = rep else {
        unreachable!()
    };
    assert_eq!(record.subflows, 9);
}

#[test]
fn limited_transmit_sends_at_most_dupthresh_minus_one_segments_per_loss() {
    let mut t = MmptcpTransport::new(Profile::Ns3Mmptcp);
    t.mmptcp.limited_transmit = LimitedTransmit::Mmptcp;
    let reach = Reach {
        locality: Locality::OtherPod,
        paths: 16,
    };
    assert_eq!(t.setup(Some(reach)).sf0_dupthresh, 19);
    let (_, rep) = run(&t, 90_000, vec![20], Some(reach));
    let ConnectionReport::Sender {
        counters, record, ..
    } = rep
    else {
        unreachable!()
    };
    let episodes = record.fast_retransmits + record.timeouts;
    println!(
        "limited transmits {} over {episodes} loss episode(s)",
        counters.limited_transmits
    );
    assert!(episodes >= 1);
    assert!(counters.limited_transmits > 0);
    assert!(counters.limited_transmits <= 18 * episodes);
}

/// With the duplicate-ACK count kept across an RTO (`ns3-mmptcp`, docs/model.md 2.10), it is
/// past dupthresh after an RTO in a fast recovery, and the ns-3 model's limited transmit answers
/// every duplicate ACK outside fast recovery but the dupthresh-th (6.6). One flow that never
/// switches (so subflow 0 takes new data throughout), no receive window (which would stop the
/// duplicate ACKs of the fast recovery before the RTO), and one segment lost three times: first
/// sent, fast retransmission, and the RTO's resend. Kept, the duplicate ACKs after the RTO each
/// send the next go-back-N resend or new segment, each of which draws another, until the next
/// RTO resends the hole; cleared, at most dupthresh - 1 = 18 go before a (spurious) fast
/// retransmit repairs it within a round trip.
#[test]
fn after_an_rto_kept_duplicate_acks_go_on_sending_limited_transmits() {
    let reach = Some(Reach {
        locality: Locality::OtherPod,
        paths: 16,
    });
    // How long until the next new ACK, and how many data segments were sent till then.
    let until_new_ack = |keep: bool| {
        let mut t = MmptcpTransport::new(Profile::Ns3Mmptcp);
        t.mmptcp.limited_transmit = LimitedTransmit::Mmptcp;
        t.mmptcp.switch_threshold = u64::MAX;
        t.config.rwnd_cap = None;
        t.config.rto_keeps_dupacks = keep;
        let size = 40_000_000;
        // The data arrivals that resend the 30th, found by runs that lose fewer of them.
        let mut drops = vec![30];
        for _ in 0..2 {
            let (seen, _) = run(&t, size, drops.clone(), reach);
            let last = *drops.last().unwrap() as usize;
            let data = seen.iter().filter(|s| s.kind == PacketKind::Data);
            let next_resend = data.enumerate().skip(last).find(|(_, s)| s.retransmit);
            drops.push(next_resend.expect("resent").0 as u64 + 1);
        }
        let trace = TraceLog::new(1_000_000);
        let (seen, _) = run_traced(&t, size, drops, reach, Some(trace.clone()));
        let events = trace.events();
        let rto = events
            .iter()
            .find(|e| e.kind == TraceKind::Rto)
            .expect("an RTO");
        let new_ack = events
            .iter()
            .find(|e| e.at > rto.at && e.state.snd_una > rto.state.snd_una)
            .expect("a new ACK after the RTO");
        let sent = seen
            .iter()
            .filter(|s| s.kind == PacketKind::Data && s.at > rto.at && s.at <= new_ack.at)
            .count();
        let wait = new_ack.at - rto.at;
        println!(
            "rto_keeps_dupacks = {keep}: RTO at {}, new ACK {wait} later, {sent} data segments \
             in between",
            rto.at
        );
        (wait, sent)
    };
    let (wait, sent) = until_new_ack(true);
    assert!(
        wait > SimTime::from_ms(400) && sent > 20_000,
        "kept: {wait}, {sent}"
    );
    let (wait, sent) = until_new_ack(false);
    assert!(
        wait < SimTime::from_ms(1) && sent < 100,
        "cleared: {wait}, {sent}"
    );
}

#[test]
fn auto_subflow_picks_8_4_1() {
    let mut t = MmptcpTransport::new(Profile::Ns3Mmptcp);
    t.mmptcp.auto_subflows = true;
    let r = |locality, paths| Some(Reach { locality, paths });
    let new = |reach| t.setup(reach).new_subflows + 1;
    assert_eq!(new(r(Locality::OtherPod, 16)), 8);
    assert_eq!(new(r(Locality::SamePod, 4)), 4);
    assert_eq!(new(r(Locality::SameTor, 1)), 1);
}
