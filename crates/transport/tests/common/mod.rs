//! Small hand-built networks and checks shared by the transport tests.
#![allow(dead_code)] // each test binary uses a subset

use htsim_core::flow::FlowRecord;
use htsim_core::ids::{HostId, LinkId};
use htsim_core::packet::{flags, Packet, PacketKind};
use htsim_core::queue::{Admission, Discipline, Occupancy, Queue, QueueDiscipline};
use htsim_core::routing::PathSource;
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use htsim_transport::receiver::ReceiverStats;
use htsim_transport::reorder::ReorderHold;
use htsim_transport::tcp::{ConnectionReport, ReportSink};
use htsim_transport::{Connection, ConnectionSpec, Transport};
use std::sync::{Arc, Mutex};

/// A data packet seen by a [`TestQueue`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    pub at: SimTime,
    pub flow: u32,
    pub seq: u64,
    /// Payload bytes.
    pub payload: u32,
    pub retransmit: bool,
    pub dropped: bool,
    /// ECN-capable (ECT) on arrival.
    pub ect: bool,
    /// Carries CWR.
    pub cwr: bool,
}

/// Shared log of a [`TestQueue`].
#[derive(Debug, Default)]
pub struct QueueLog {
    pub data: Vec<Seen>,
    pub data_dropped: u64,
    pub syns_dropped: u64,
}

/// Drop-tail (optionally with ECN marking above K) that also drops chosen data packets (the
/// n-th data arrival, 1-based), the first `drop_retransmits` retransmitted data packets and
/// the first `drop_syns` SYNs and the listed SYN arrivals (the n-th, 1-based), marks chosen
/// ECN-capable data arrivals CE (`mark_data`, counted alike), and logs every data arrival.
pub struct TestQueue {
    pub drop_data: Vec<u64>,
    pub mark_data: Vec<u64>,
    pub drop_retransmits: u64,
    pub drop_syns: u64,
    pub drop_syn_arrivals: Vec<u64>,
    pub ecn_k: Option<u64>,
    pub log: Arc<Mutex<QueueLog>>,
    data_count: u64,
    syn_count: u64,
}

impl TestQueue {
    pub fn new(drop_data: Vec<u64>) -> (Self, Arc<Mutex<QueueLog>>) {
        let log = Arc::new(Mutex::new(QueueLog::default()));
        (
            TestQueue {
                drop_data,
                mark_data: Vec::new(),
                drop_retransmits: 0,
                drop_syns: 0,
                drop_syn_arrivals: Vec::new(),
                ecn_k: None,
                log: log.clone(),
                data_count: 0,
                syn_count: 0,
            },
            log,
        )
    }
}

impl QueueDiscipline for TestQueue {
    fn admit(&mut self, occ: &Occupancy, packet: &mut Packet, now: SimTime) -> Admission {
        let mut log = self.log.lock().unwrap();
        if packet.kind == PacketKind::Syn {
            self.syn_count += 1;
            if self.drop_syns > 0 || self.drop_syn_arrivals.contains(&self.syn_count) {
                self.drop_syns = self.drop_syns.saturating_sub(1);
                log.syns_dropped += 1;
                return Admission::Drop;
            }
        }
        let fits = occ.fits(packet.size_bytes as u64);
        if packet.kind != PacketKind::Data {
            return if fits {
                Admission::Enqueue
            } else {
                Admission::Drop
            };
        }
        self.data_count += 1;
        let retransmit = packet.has(flags::RETRANSMIT);
        let drop_rtx = retransmit && self.drop_retransmits > 0;
        self.drop_retransmits -= u64::from(drop_rtx);
        let drop = !fits || drop_rtx || self.drop_data.contains(&self.data_count);
        log.data.push(Seen {
            at: now,
            flow: packet.flow,
            seq: packet.seq,
            payload: packet.payload_bytes,
            retransmit,
            dropped: drop,
            ect: packet.has(flags::ECT),
            cwr: packet.has(flags::CWR),
        });
        if drop {
            log.data_dropped += 1;
            return Admission::Drop;
        }
        let over_k = self.ecn_k.is_some_and(|k| occ.packets > k);
        if packet.has(flags::ECT) && (over_k || self.mark_data.contains(&self.data_count)) {
            packet.set(flags::CE);
        }
        Admission::Enqueue
    }
    fn name(&self) -> &str {
        "test"
    }
}

/// Senders are hosts 0..n, receivers n..2n; sender i and receiver n+i have their own access
/// links; all share one bottleneck link in each direction.
pub struct Dumbbell {
    pub n: u32,
    pub up: Vec<LinkId>,
    pub bottleneck: LinkId,
    pub down: Vec<LinkId>,
    pub rev_up: Vec<LinkId>,
    pub rev_bottleneck: LinkId,
    pub rev_down: Vec<LinkId>,
}

struct DumbbellPaths {
    n: u32,
    up: Vec<LinkId>,
    bottleneck: LinkId,
    down: Vec<LinkId>,
    rev_up: Vec<LinkId>,
    rev_bottleneck: LinkId,
    rev_down: Vec<LinkId>,
}

impl PathSource for DumbbellPaths {
    fn path_count(&self, src: HostId, dst: HostId) -> u32 {
        let fwd = src.0 < self.n && dst.0 >= self.n && dst.0 < 2 * self.n;
        let rev = dst.0 < self.n && src.0 >= self.n && src.0 < 2 * self.n;
        u32::from(fwd || rev)
    }
    fn path(&self, src: HostId, dst: HostId, _index: u32, out: &mut Vec<LinkId>) {
        if src.0 < self.n {
            out.extend([
                self.up[src.0 as usize],
                self.bottleneck,
                self.down[(dst.0 - self.n) as usize],
            ]);
        } else {
            out.extend([
                self.rev_up[(src.0 - self.n) as usize],
                self.rev_bottleneck,
                self.rev_down[dst.0 as usize],
            ]);
        }
    }
}

/// Dumbbell parameters.
#[derive(Clone, Copy, Debug)]
pub struct Net {
    pub pairs: u32,
    pub access: Rate,
    pub bottleneck: Rate,
    pub access_delay: SimTime,
    pub bottleneck_delay: SimTime,
}

impl Net {
    /// 1 Gb/s bottleneck, 10 Gb/s access, 100 us base RTT (20 + 10 + 20 us each way).
    pub fn gig(pairs: u32) -> Self {
        Net {
            pairs,
            access: Rate::gbps(10),
            bottleneck: Rate::gbps(1),
            access_delay: SimTime::from_us(20),
            bottleneck_delay: SimTime::from_us(10),
        }
    }
}

pub fn droptail(pkts: u64) -> Queue {
    Queue::new(BufferSize::Packets(pkts), Discipline::DropTail)
}

/// Builds the dumbbell with `bottleneck_queue` on the forward bottleneck.
pub fn dumbbell(w: &mut World, net: Net, bottleneck_queue: Queue) -> Dumbbell {
    dumbbell_with(w, net, bottleneck_queue, droptail(10_000))
}

/// Builds the dumbbell with the given queues on the forward and reverse bottlenecks.
pub fn dumbbell_with(
    w: &mut World,
    net: Net,
    bottleneck_queue: Queue,
    reverse_queue: Queue,
) -> Dumbbell {
    let n = net.pairs;
    let access = |w: &mut World| -> Vec<LinkId> {
        (0..n)
            .map(|_| w.add_link(net.access, net.access_delay, droptail(10_000)))
            .collect()
    };
    let up = access(w);
    let bottleneck = w.add_link(net.bottleneck, net.bottleneck_delay, bottleneck_queue);
    let down = access(w);
    let rev_up = access(w);
    let rev_bottleneck = w.add_link(net.bottleneck, net.bottleneck_delay, reverse_queue);
    let rev_down = access(w);
    let d = Dumbbell {
        n,
        up: up.clone(),
        bottleneck,
        down: down.clone(),
        rev_up: rev_up.clone(),
        rev_bottleneck,
        rev_down: rev_down.clone(),
    };
    w.set_path_source(Box::new(DumbbellPaths {
        n,
        up,
        bottleneck,
        down,
        rev_up,
        rev_bottleneck,
        rev_down,
    }));
    d
}

/// A bottleneck queue of `pkts` packets that drops the listed data arrivals.
pub fn test_queue(pkts: u64, drop_data: Vec<u64>) -> (Queue, Arc<Mutex<QueueLog>>) {
    test_queue_dropping(pkts, drop_data, 0)
}

/// [`test_queue`] that also drops the first `drop_retransmits` retransmitted data packets.
pub fn test_queue_dropping(
    pkts: u64,
    drop_data: Vec<u64>,
    drop_retransmits: u64,
) -> (Queue, Arc<Mutex<QueueLog>>) {
    let (mut d, log) = TestQueue::new(drop_data);
    d.drop_retransmits = drop_retransmits;
    (
        Queue::new(BufferSize::Packets(pkts), Discipline::Custom(Box::new(d))),
        log,
    )
}

pub fn sink() -> ReportSink {
    Arc::new(Mutex::new(Vec::new()))
}

/// Opens flow `i` from sender i to receiver n+i.
#[allow(clippy::too_many_arguments)]
pub fn open(
    w: &mut World,
    t: &dyn Transport,
    net: &Net,
    i: u32,
    size: Option<u64>,
    start: SimTime,
    stop: Option<SimTime>,
    report: &ReportSink,
) -> Connection {
    let mut spec = ConnectionSpec::new(
        i as u64,
        HostId(i),
        HostId(net.pairs + i),
        size,
        start,
        w.streams().substream("conn", i as u64),
    );
    spec.stop = stop;
    spec.report = Some(report.clone());
    t.open(w, spec).expect("open")
}

/// The end-of-run checks: conservation, nothing in flight, and for every flow that completed:
/// the receiver delivered exactly the flow's bytes in order, and sender counters are consistent.
/// Returns the completed records.
pub fn check_end(w: &World, report: &ReportSink) -> Vec<FlowRecord> {
    let c = w.conservation();
    assert!(c.holds(), "conservation broken: {c:?}");
    assert_eq!(c.in_flight, 0, "packets left in flight: {c:?}");
    let reports = report.lock().unwrap();
    let mut records = Vec::new();
    for r in w.records() {
        let size = r.size_bytes;
        let rx = reports
            .iter()
            .find_map(|x| match x {
                ConnectionReport::Receiver { flow_id, stats } if *flow_id == r.flow_id => {
                    Some(*stats)
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("flow {}: receiver did not close", r.flow_id));
        assert_eq!(
            rx.order_errors, 0,
            "flow {}: out-of-order delivery",
            r.flow_id
        );
        let acked = r.bytes_acked;
        assert_eq!(
            rx.bytes_delivered, acked,
            "flow {}: delivered != acked",
            r.flow_id
        );
        if let Some(size) = size {
            assert_eq!(acked, size, "flow {}", r.flow_id);
            assert_eq!(r.bytes_sent, size, "flow {}", r.flow_id);
        }
        assert!(r.end.is_some() && r.start.is_some() && r.end >= r.start);
        assert!(r.retransmits >= r.fast_retransmits + r.timeouts);
        assert!(r.packets_sent >= r.retransmits);
        let distinct = r.packets_sent - r.retransmits;
        // Full segments while an MSS is unsent (2.4); the last bytes may be split by the usable
        // windows they meet, one fragment per subflow with room for some of them (a run of
        // 8-subflow MPTCP under ns3-mmptcp split its last 200 B four ways: 17, 15, 11, 157).
        let tail_fragments = u64::from(r.subflows.max(1)) + 1;
        assert!(
            distinct >= acked.div_ceil(1400).max(1)
                && distinct <= acked.div_ceil(1400) + tail_fragments,
            "flow {}: {} distinct data packets for {} bytes",
            r.flow_id,
            distinct,
            acked
        );
        records.push(r.clone());
    }
    records
}

/// Jain's fairness index of `x`.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

/// Host 0 reaches host 1 over four parallel one-link paths; the way back is one link.
pub struct Parallel {
    pub fwd: [LinkId; 4],
    pub rev: LinkId,
}
impl PathSource for Parallel {
    fn path_count(&self, src: HostId, _dst: HostId) -> u32 {
        if src.0 == 0 {
            4
        } else {
            1
        }
    }
    fn path(&self, src: HostId, _dst: HostId, index: u32, out: &mut Vec<LinkId>) {
        out.push(if src.0 == 0 {
            self.fwd[index as usize]
        } else {
            self.rev
        });
    }
}

/// The reorder hold of the spraying tests: longer than the 60 us delay spread of the
/// [`Parallel`] paths (10, 30, 50, 70 us) plus queueing.
pub const REORDER_HOLD: ReorderHold = ReorderHold {
    max_delay: SimTime::from_us(300),
    max_segments: 32,
};

/// The final counters of every receiver that reported to `report`, in report order.
pub fn receiver_stats(report: &ReportSink) -> Vec<ReceiverStats> {
    report
        .lock()
        .unwrap()
        .iter()
        .filter_map(|r| match r {
            ConnectionReport::Receiver { stats, .. } => Some(*stats),
            _ => None,
        })
        .collect()
}
