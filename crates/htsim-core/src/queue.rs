//! Egress queues: FIFO admission by a discipline, with counters.
//!
//! A queue's length is the packets waiting for the link; the packet being serialised is *not*
//! counted, as in htsim and ns-3 (docs/model.md 3, "The packet being serialised is not counted
//! in the queue"). The packets themselves live on the [`Link`](crate::link::Link).
//!
//! Built-in disciplines are a closed enum so the hot path is a `match`:
//! - [`Discipline::DropTail`]: drop an arriving packet that does not fit under the limit;
//! - [`Discipline::Ecn`]: drop-tail plus instantaneous ECN marking: an arriving ECN-capable
//!   packet is marked CE when the queue, not counting the packet in service nor the arriving
//!   one, already holds more than K (packets or bytes) (docs/model.md 7.1, 8); packets that are
//!   not ECN-capable see plain drop-tail;
//! - [`Discipline::Red`]: the same marking, but an arrival that is not ECN-capable and finds
//!   more than K waiting is dropped, as RED with ECN on does in Linux, ns-2 and ns-3 when set
//!   up as the DCTCP and XMP papers set it (averaging weight 1, min_th = max_th = K).
//!
//! Library users can plug their own admission policy through [`Discipline::Custom`].

use crate::packet::{flags, Packet};
use crate::time::SimTime;
use crate::units::BufferSize;
use std::fmt;

use crate::packet::{PacketId, PacketPool};

/// What the engine carries through links for one packet: its slot, its position on its route, its wire size and whether it is ECN-capable. Keeping these 16 bytes
/// beside the FIFOs means a hop never touches the packet itself (one cache miss per hop saved);
/// the packet is read again only when an ECN queue marks it and when it is delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Transit {
    /// The packet's slot in the pool.
    pub id: PacketId,
    /// Index of the link it is on in the route table's flat array of links (see
    /// [`RouteTable::link_at`](crate::routing::RouteTable)): the next link is at `at + 1`.
    pub at: u32,
    /// Its size on the wire, in bytes.
    pub size: u32,
    /// Index into the route of the link it is on.
    pub hop: u16,
    /// Whether it is ECN-capable (ECT).
    pub ect: bool,
}

impl Transit {
    /// The descriptor of `packet`, stored in slot `id`, at the start of its route, whose first
    /// link is at index `at` of the route table.
    pub(crate) fn of(id: PacketId, packet: &Packet, at: u32) -> Self {
        Transit {
            id,
            at,
            size: packet.size_bytes,
            hop: packet.hop,
            ect: packet.has(flags::ECT),
        }
    }
}

/// What a queue's occupancy looks like when a packet arrives (the arriving packet excluded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    /// Packets waiting, not counting the one in service.
    pub packets: u64,
    /// Bytes waiting, not counting the one in service.
    pub bytes: u64,
    /// The queue's limit.
    pub limit: BufferSize,
}

impl Occupancy {
    /// Whether a packet of `size_bytes` fits under the limit.
    pub fn fits(&self, size_bytes: u64) -> bool {
        match self.limit {
            BufferSize::Packets(n) => self.packets < n,
            BufferSize::Bytes(b) => self.bytes + size_bytes <= b,
        }
    }

    /// Whether the occupancy is strictly above `threshold` (measured in the threshold's unit).
    pub fn exceeds(&self, threshold: BufferSize) -> bool {
        match threshold {
            BufferSize::Packets(k) => self.packets > k,
            BufferSize::Bytes(k) => self.bytes > k,
        }
    }
}

/// The verdict of an admission policy on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Queue the packet (the policy may have marked it).
    Enqueue,
    /// Drop the packet.
    Drop,
}

/// A user-defined admission policy (e.g. RED, a priority drop rule).
///
/// It sees the occupancy at arrival and may change the packet (typically set
/// [`flags::CE`]); the FIFO, counters and service are the engine's.
pub trait QueueDiscipline: Send {
    /// Decides what happens to `packet` arriving at `now` to a queue in state `occupancy`.
    fn admit(&mut self, occupancy: &Occupancy, packet: &mut Packet, now: SimTime) -> Admission;
    /// A short name: what [`Discipline::name`] and the `Debug` form of the queue show (no
    /// output file has a queue column).
    fn name(&self) -> &str;
}

/// How a queue decides to drop or mark arriving packets.
pub enum Discipline {
    /// Drop-tail: drop when the packet does not fit under the limit.
    DropTail,
    /// Drop-tail plus instantaneous ECN marking above `threshold` (K).
    Ecn {
        /// K: mark an ECN-capable arrival when the queue already holds more than this.
        threshold: BufferSize,
    },
    /// RED as a threshold marker (weight 1, min_th = max_th = `threshold`): drop-tail, and an
    /// arrival finding more than `threshold` waiting is marked CE if ECN-capable and dropped
    /// otherwise (docs/model.md 7.1).
    Red {
        /// K: above it, mark an ECN-capable arrival, drop any other.
        threshold: BufferSize,
    },
    /// A user-supplied policy.
    Custom(Box<dyn QueueDiscipline>),
}

impl fmt::Debug for Discipline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Discipline::DropTail => write!(f, "DropTail"),
            Discipline::Ecn { threshold } => write!(f, "Ecn {{ threshold: {threshold} }}"),
            Discipline::Red { threshold } => write!(f, "Red {{ threshold: {threshold} }}"),
            Discipline::Custom(d) => write!(f, "Custom({})", d.name()),
        }
    }
}

impl Discipline {
    /// The short name: `droptail`, `ecn` and `red` as scenario files spell the `[queue]` kinds,
    /// or the custom policy's name.
    pub fn name(&self) -> &str {
        match self {
            Discipline::DropTail => "droptail",
            Discipline::Ecn { .. } => "ecn",
            Discipline::Red { .. } => "red",
            Discipline::Custom(d) => d.name(),
        }
    }
}

/// Counters of one queue, always on. Bytes are wire bytes (headers included). The five that
/// every admission updates come first, so that they share a cache line in a
/// [`Link`](crate::link::Link).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct QueueCounters {
    /// Packets accepted (including those that went straight into service).
    pub packets_enqueued: u64,
    /// Bytes accepted.
    pub bytes_enqueued: u64,
    /// Packets that finished serialisation and left.
    pub packets_departed: u64,
    /// Bytes that finished serialisation and left.
    pub bytes_departed: u64,
    /// Total time spent serialising packets (the link's busy time), up to the instant the
    /// counters are read: the packet in service counts the part of its serialisation done by
    /// then.
    pub busy_time: SimTime,
    /// Packets dropped on arrival (full queue, or link down).
    pub packets_dropped: u64,
    /// Bytes dropped on arrival.
    pub bytes_dropped: u64,
    /// Packets marked CE on arrival.
    pub packets_marked: u64,
    /// Packets lost because the link went down while they were queued, in service or in flight.
    pub packets_lost_link_down: u64,
}

/// An egress queue's policy: its limit, its discipline and its counters. The packets themselves
/// are kept by the [`Link`](crate::link::Link), which knows when each one is served.
#[derive(Debug)]
#[repr(C)]
pub struct Queue {
    limit: BufferSize,
    discipline: Discipline,
    /// Counters, departures and busy time counted when a packet is accepted (the link subtracts
    /// what has not happened yet when they are read:
    /// [`World::link_counters`](crate::world::World::link_counters)).
    pub(crate) counters: QueueCounters,
}

impl Queue {
    /// A queue with the given limit and discipline.
    pub fn new(limit: BufferSize, discipline: Discipline) -> Self {
        Queue {
            limit,
            discipline,
            counters: QueueCounters::default(),
        }
    }

    /// The queue's limit.
    pub fn limit(&self) -> BufferSize {
        self.limit
    }

    /// Changes the limit. Packets already waiting stay, even above a smaller limit; new arrivals
    /// see the new limit.
    pub fn set_limit(&mut self, limit: BufferSize) {
        self.limit = limit;
    }

    /// The discipline.
    pub fn discipline(&self) -> &Discipline {
        &self.discipline
    }

    /// Applies the discipline to a packet arriving at a queue in state `occ`; updates the
    /// enqueue, drop and mark counters. The packet in `pool` is touched only to mark it or for a
    /// custom discipline.
    #[inline(always)]
    pub(crate) fn admit(
        &mut self,
        occ: &Occupancy,
        t: &Transit,
        pool: &mut PacketPool,
        now: SimTime,
    ) -> Admission {
        let size = t.size as u64;
        // Drop-tail, the common case, is decided here, inlined into the per-hop path; the
        // other disciplines out of line.
        let verdict = match self.discipline {
            Discipline::DropTail => drop_tail(occ, size),
            _ => self.verdict_other(occ, t, pool, now),
        };
        match verdict {
            Admission::Enqueue => {
                self.counters.packets_enqueued += 1;
                self.counters.bytes_enqueued += size;
            }
            Admission::Drop => self.count_drop(size),
        }
        verdict
    }

    /// The verdict of a discipline other than drop-tail (see [`Queue::admit`]); a mark is
    /// counted here.
    #[inline(never)]
    fn verdict_other(
        &mut self,
        occ: &Occupancy,
        t: &Transit,
        pool: &mut PacketPool,
        now: SimTime,
    ) -> Admission {
        match &mut self.discipline {
            Discipline::DropTail => drop_tail(occ, t.size as u64),
            Discipline::Ecn { threshold } => {
                mark_or_drop(&mut self.counters, occ, t, pool, *threshold, false)
            }
            Discipline::Red { threshold } => {
                mark_or_drop(&mut self.counters, occ, t, pool, *threshold, true)
            }
            Discipline::Custom(d) => {
                let packet = pool.get_mut(t.id);
                let was_marked = packet.has(flags::CE);
                let v = d.admit(occ, packet, now);
                if v == Admission::Enqueue && !was_marked && packet.has(flags::CE) {
                    self.counters.packets_marked += 1;
                }
                v
            }
        }
    }

    /// Counts a packet dropped on arrival.
    pub(crate) fn count_drop(&mut self, size_bytes: u64) {
        self.counters.packets_dropped += 1;
        self.counters.bytes_dropped += size_bytes;
    }

    /// Counts the departure and the serialisation time `tx` of an accepted packet, ahead of time.
    #[inline]
    pub(crate) fn count_service(&mut self, size_bytes: u64, tx: SimTime) {
        self.counters.packets_departed += 1;
        self.counters.bytes_departed += size_bytes;
        self.counters.busy_time += tx;
    }
}

/// The verdict of drop-tail: queue what fits under the limit, drop the rest.
#[inline(always)]
fn drop_tail(occ: &Occupancy, size: u64) -> Admission {
    if occ.fits(size) {
        Admission::Enqueue
    } else {
        Admission::Drop
    }
}

/// The verdict of the threshold disciplines (`counters` gets the mark): drop what does not fit; above `threshold`,
/// mark an ECN-capable arrival CE, and drop any other one if `drop_non_ect` (RED) or queue
/// it (plain ECN marking).
#[inline]
fn mark_or_drop(
    counters: &mut QueueCounters,
    occ: &Occupancy,
    t: &Transit,
    pool: &mut PacketPool,
    threshold: BufferSize,
    drop_non_ect: bool,
) -> Admission {
    if !occ.fits(t.size as u64) {
        return Admission::Drop;
    }
    if occ.exceeds(threshold) {
        if t.ect {
            pool.get_mut(t.id).set(flags::CE);
            counters.packets_marked += 1;
        } else if drop_non_ect {
            return Admission::Drop;
        }
    }
    Admission::Enqueue
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(size: u32, ect: bool) -> Packet {
        let mut p = Packet {
            size_bytes: size,
            ..Packet::default()
        };
        if ect {
            p.set(flags::ECT);
        }
        p
    }

    #[test]
    fn occupancy_fits_packets_and_bytes() {
        let o = Occupancy {
            packets: 2,
            bytes: 3000,
            limit: BufferSize::Packets(3),
        };
        assert!(o.fits(1500));
        let full = Occupancy { packets: 3, ..o };
        assert!(!full.fits(1));
        let b = Occupancy {
            limit: BufferSize::Bytes(4500),
            ..o
        };
        assert!(b.fits(1500));
        assert!(!b.fits(1501));
    }

    #[test]
    fn ecn_marks_only_ect_above_threshold() {
        let mut q = Queue::new(
            BufferSize::Packets(100),
            Discipline::Ecn {
                threshold: BufferSize::Packets(2),
            },
        );
        let mut pool = PacketPool::new();
        let mut marked = Vec::new();
        for i in 0..5u32 {
            let id = pool.alloc(pkt(1500, i != 4));
            let t = Transit::of(id, pool.get(id), 0);
            let occ = Occupancy {
                packets: i as u64,
                bytes: i as u64 * 1500,
                limit: q.limit(),
            };
            assert_eq!(
                q.admit(&occ, &t, &mut pool, SimTime::ZERO),
                Admission::Enqueue
            );
            marked.push(pool.get(id).has(flags::CE));
        }
        // Arrivals see 0,1,2,3,4 waiting; K = 2 marks those seeing 3 and 4, but the last is not ECT.
        assert_eq!(marked, vec![false, false, false, true, false]);
        assert_eq!(q.counters.packets_marked, 1);
        assert_eq!(q.counters.bytes_enqueued, 5 * 1500);
    }

    /// Offers, at each occupancy 0..5 waiting, one ECN-capable and one other packet; returns for
    /// each arrival whether it was queued and whether it left marked.
    fn offer_pairs(q: &mut Queue) -> Vec<(bool, bool)> {
        let mut pool = PacketPool::new();
        let mut seen = Vec::new();
        for waiting in 0..5u64 {
            for ect in [true, false] {
                let id = pool.alloc(pkt(1500, ect));
                let t = Transit::of(id, pool.get(id), 0);
                let occ = Occupancy {
                    packets: waiting,
                    bytes: waiting * 1500,
                    limit: q.limit(),
                };
                let queued = q.admit(&occ, &t, &mut pool, SimTime::ZERO) == Admission::Enqueue;
                seen.push((queued, pool.get(id).has(flags::CE)));
            }
        }
        seen
    }

    #[test]
    fn red_drops_what_it_cannot_mark_above_threshold() {
        let k = BufferSize::Packets(2);
        let mut red = Queue::new(BufferSize::Packets(100), Discipline::Red { threshold: k });
        let mut ecn = Queue::new(BufferSize::Packets(100), Discipline::Ecn { threshold: k });
        let (r, e) = (offer_pairs(&mut red), offer_pairs(&mut ecn));
        // Seeing 3 and 4 waiting (more than K = 2): both mark the ECN-capable arrival; RED drops
        // the other, plain ECN marking queues it unmarked (a 100-packet buffer for it).
        let below = [(true, false); 6];
        assert_eq!(r[..6], below);
        assert_eq!(
            r[6..],
            [(true, true), (false, false), (true, true), (false, false)]
        );
        assert_eq!(e[..6], below);
        assert_eq!(
            e[6..],
            [(true, true), (true, false), (true, true), (true, false)]
        );
        assert_eq!(
            (red.counters.packets_dropped, red.counters.packets_marked),
            (2, 2)
        );
        assert_eq!(
            (ecn.counters.packets_dropped, ecn.counters.packets_marked),
            (0, 2)
        );
    }
}
