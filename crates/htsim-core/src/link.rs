//! Links: an egress queue, serialisation at line rate, and a propagation stage, with one event
//! per packet per hop.
//!
//! A FIFO link is deterministic once a packet is accepted: it starts service when the packet
//! ahead of it leaves (or at once on an idle link), takes `size x 8 / rate` to serialise, and
//! lands `delay` later. So the link computes those instants on admission and keeps every packet
//! it accepted and has not yet landed (waiting, in service, propagating) in one FIFO, the *wire*,
//! ordered by arrival time at the far end. The only event a packet needs on a hop is its landing,
//! and the link keeps just one of those pending, for the head of the wire (htsim's trick of one
//! pending event per pipe, applied to the whole link). The event queue thus holds O(links +
//! timers) events, and each packet costs one event per hop instead of two (end of serialisation,
//! then landing).
//!
//! What a packet-by-packet model would observe is recovered exactly from the stored instants:
//! - the queue seen by an arriving packet is the packets whose service has not started yet
//!   (`start > now`), the packet in service not counted
//!   ([`World::link_occupancy`](crate::world::World::link_occupancy)); a packet whose
//!   service starts at the very instant another arrives is in service, not waiting;
//! - departures and busy time are counted on admission and the part still in the future is
//!   subtracted when read ([`World::link_counters`](crate::world::World::link_counters)): the
//!   packets not yet departed, and the serialisation time not yet spent (the whole of a
//!   waiting packet's, the rest of the one in service).
//!
//! Link changes at a given time ([`LinkChange`]):
//! - `Rate`: the packet in service keeps the completion time it was given; the new rate applies
//!   from the next packet served (the waiting packets' instants are recomputed).
//! - `Limit`: the buffer limit changes for new arrivals; packets already waiting stay.
//! - `Down`: every packet waiting, in service or propagating on the link is lost (counted in
//!   [`QueueCounters::packets_lost_link_down`]), and packets arriving while the link is down are
//!   dropped (counted as drops). Routes are not recomputed: as in htsim, transports see the
//!   losses and recover (or not) by themselves.
//! - `Up`: the link carries packets again from that instant.

use crate::crossing::Crossings;
use crate::ids::LinkId;
use crate::packet::{PacketId, PacketKind, PacketPool};
use crate::prefetch::prefetch;
use crate::queue::{Admission, Occupancy, Queue, QueueCounters, Transit};
use crate::time::{Rate, SimTime};
use crate::units::BufferSize;
use crate::wires::{Fifo, Loc, Wires};
use std::num::NonZeroU64;

/// A change applied to a link at a scheduled time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkChange {
    /// New line rate (from the next packet served).
    Rate(Rate),
    /// New buffer limit (for new arrivals).
    Limit(BufferSize),
    /// The link fails: everything on it is lost; arrivals are dropped until `Up`.
    Down,
    /// The link recovers.
    Up,
}

/// One accepted packet on a link, with the instant the link computed for it to land.
///
/// When its serialisation starts is not stored (24 bytes a slot, not 32: the wires are the
/// largest part of a large run's memory). It is needed only while the packet may still be
/// waiting, that is, for the back of the wire the link counts as waiting
/// (`Link::waiting_packets`), and those packets were all timed at the link's current rate (a
/// rate change retimes the waiting ones), so there it is `lands - delay - serialisation time`
/// ([`Link::start_of_waiting`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OnWire {
    t: Transit,
    /// When it lands at the far end (end of serialisation + propagation delay).
    lands: SimTime,
}

/// Where the packets on every link are stored (see [`crate::wires`]).
pub(crate) type WireStore = Wires<OnWire>;

/// [`Link`] flag: the link is down (drops every arrival).
const DOWN: u8 = 1;
/// [`Link`] flag: the link is watched ([`crate::crossing`]).
const WATCHED: u8 = 2;

/// What became of a packet offered to a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Offer {
    /// Dropped on arrival (full queue, or link down); the counters say so.
    Dropped,
    /// Accepted. `Some(at)` when it is the head of the wire, whose landing the caller schedules.
    Accepted(Option<SimTime>),
}

/// A directed link: queue policy, rate, propagation delay and the packets on it.
///
/// The packets on it are stored in the world's pool of wire pages (one FIFO per link), which the
/// methods that read or change them take.
///
/// Laid out by hand (`repr(C)`, cache-line aligned) for the per-hop path: the first 64-byte
/// line holds everything a landing reads and an admission reads first (the wire, the waiting
/// counts, `busy_until`, `epoch`, `up`); the second the service parameters and the queue's
/// limit and discipline; the third the counters an admission updates.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Link {
    /// Every packet accepted and not landed, in order (start, and landing, times increase).
    wire: Fifo,
    /// Where the first of the waiting packets is, when there are any.
    first_waiting: Loc,
    /// When the first of the waiting packets starts service, when there are any (the waiting
    /// packets are served back to back from then, at the current rate).
    first_waiting_start: SimTime,
    /// How many packets at the back of `wire` had not started service at the last settle.
    waiting_packets: usize,
    /// Their bytes.
    waiting_bytes: u64,
    /// When the last accepted packet finishes serialisation.
    busy_until: SimTime,
    /// Incremented when the link goes down, so events scheduled before are recognised as stale.
    pub(crate) epoch: u32,
    /// [`DOWN`] and [`WATCHED`]: an offer to a link with neither takes the common path, one
    /// test for both.
    flags: u8,
    /// Serialisation time of one byte when it is a whole number of picoseconds (every rate that
    /// divides 8 Tb/s exactly: 100 Mb/s, 1, 10, 40, 100 Gb/s ...), to avoid a 128-bit division.
    ps_per_byte: Option<NonZeroU64>,
    delay: SimTime,
    /// The egress queue's limit, discipline and admission counters.
    pub queue: Queue,
    rate: Rate,
}

impl Link {
    /// A link of `rate` and one-way propagation `delay` fed by `queue`.
    pub fn new(rate: Rate, delay: SimTime, queue: Queue) -> Self {
        Link {
            wire: Fifo::EMPTY,
            first_waiting: 0,
            first_waiting_start: SimTime::ZERO,
            waiting_packets: 0,
            waiting_bytes: 0,
            busy_until: SimTime::ZERO,
            epoch: 0,
            flags: 0,
            ps_per_byte: exact_ps_per_byte(rate),
            delay,
            queue,
            rate,
        }
    }

    /// Line rate.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// One-way propagation delay.
    pub fn delay(&self) -> SimTime {
        self.delay
    }

    /// Whether the link is up.
    pub fn is_up(&self) -> bool {
        self.flags & DOWN == 0
    }

    /// Starts (or stops) counting, per flow, the data packets offered to this link
    /// ([`crate::crossing`]).
    pub(crate) fn set_watched(&mut self, watched: bool) {
        if watched {
            self.flags |= WATCHED;
        } else {
            self.flags &= !WATCHED;
        }
    }

    /// Packets on the link at `now`: waiting, in service or propagating.
    pub fn on_link(&self) -> usize {
        self.wire.len()
    }

    /// The queue as an arriving packet would see it at `now`: the packets (and bytes) whose
    /// service has not started, and the limit. `now` must not be earlier than the last packet
    /// offered (it is the world's clock).
    pub(crate) fn occupancy(&self, wires: &WireStore, now: SimTime) -> Occupancy {
        // Only packets counted as waiting can still be: the others started by the last settle.
        let waiting = wires.iter_from(self.first_waiting, self.waiting_packets);
        let (packets, bytes) = waiting
            .filter(|e| self.start_of_waiting(e) > now)
            .fold((0, 0), |(p, b), e| (p + 1, b + e.t.size as u64));
        Occupancy {
            packets,
            bytes,
            limit: self.queue.limit(),
        }
    }

    /// The queue's counters as of `now`: departures count only serialisation that has ended,
    /// and busy time only the serialisation done by `now` (the packet in service counts up to
    /// `now`, so the busy time between two readings is exactly the time the link spent
    /// serialising between them). `now` must not be earlier than the last packet offered (it is
    /// the world's clock, or a later instant before which no packet arrives).
    pub(crate) fn counters(&self, wires: &WireStore, now: SimTime) -> QueueCounters {
        let mut c = self.queue.counters;
        let first_waiting = self.wire.len() - self.waiting_packets;
        for (i, e) in wires.iter(&self.wire).enumerate() {
            let departs = e.lands - self.delay;
            if departs <= now {
                continue;
            }
            c.packets_departed -= 1;
            c.bytes_departed -= e.t.size as u64;
            // Only packets counted as waiting can have a start after `now` (see `occupancy`).
            if i >= first_waiting {
                let tx = self.serialisation_time(e.t.size as u64);
                if departs - tx > now {
                    c.busy_time -= tx;
                    continue;
                }
            }
            // In service at `now` (it keeps the completion time it was given, whatever the
            // rate since): the rest of its serialisation is still to come.
            c.busy_time -= departs - now;
        }
        c
    }

    /// Asks the CPU to start loading the fields a landing reads (the first cache line: see the
    /// layout note on [`Link`]). A hint: no effect on the simulation.
    #[inline]
    pub(crate) fn prefetch_landing_state(&self) {
        prefetch(self as *const Link as *const u8);
    }

    /// Asks the CPU to start loading the fields an admission reads and writes (the first
    /// three cache lines). A hint: no effect on the simulation.
    #[inline]
    pub(crate) fn prefetch_admission_state(&self) {
        let start = self as *const Link as *const u8;
        prefetch(start);
        prefetch(start.wrapping_add(64));
        prefetch(start.wrapping_add(128));
    }

    /// Asks the CPU to start loading the head of the wire, the packet that lands next. A hint.
    #[inline]
    pub(crate) fn prefetch_head(&self, wires: &WireStore) {
        prefetch(wires.front_address(&self.wire) as *const u8);
    }

    /// Asks the CPU to start loading the slot of the wire the next admission writes (when it
    /// is in the wire's last page). A hint.
    #[inline]
    pub(crate) fn prefetch_tail(&self, wires: &WireStore) {
        prefetch(wires.next_slot_address(&self.wire) as *const u8);
    }

    /// The time to serialise `bytes` at the current rate (rounded up to the picosecond).
    #[inline]
    fn serialisation_time(&self, bytes: u64) -> SimTime {
        serialisation_time(self.ps_per_byte, self.rate, bytes)
    }

    /// When the serialisation of `e` starts, for a packet counted as waiting (one of the
    /// `waiting_packets` at the back of the wire): they were all timed at the current rate.
    #[inline(always)]
    fn start_of_waiting(&self, e: &OnWire) -> SimTime {
        e.lands - self.delay - self.serialisation_time(e.t.size as u64)
    }

    /// Forgets, in the waiting count, the packets whose service has started by `now`.
    #[inline(always)]
    fn settle(&mut self, wires: &WireStore, now: SimTime) {
        while self.waiting_packets > 0 && self.first_waiting_start <= now {
            let size = wires.get(self.first_waiting).t.size as u64;
            self.waiting_packets -= 1;
            self.waiting_bytes -= size;
            if self.waiting_packets > 0 {
                // The next one starts as this one departs.
                self.first_waiting_start += self.serialisation_time(size);
                self.first_waiting = wires.after(self.first_waiting);
            }
        }
    }

    /// Offers a packet arriving at `now`: the discipline admits, marks or drops it, and an
    /// accepted packet is given its service and landing instants. A link that is down drops
    /// it; a watched one counts it in `crossings` as link `id`'s.
    #[inline(always)]
    pub(crate) fn offer(
        &mut self,
        t: Transit,
        wires: &mut WireStore,
        pool: &mut PacketPool,
        crossings: &mut Crossings,
        id: LinkId,
        now: SimTime,
    ) -> Offer {
        if self.flags != 0 {
            return self.offer_down_or_watched(t, wires, pool, crossings, id, now);
        }
        self.admit(t, wires, pool, now)
    }

    /// [`Link::offer`] to a link that is down or watched: kept out of the per-hop path.
    #[cold]
    #[inline(never)]
    fn offer_down_or_watched(
        &mut self,
        t: Transit,
        wires: &mut WireStore,
        pool: &mut PacketPool,
        crossings: &mut Crossings,
        id: LinkId,
        now: SimTime,
    ) -> Offer {
        let offer = if self.is_up() {
            self.admit(t, wires, pool, now)
        } else {
            self.queue.count_drop(t.size as u64);
            Offer::Dropped
        };
        if self.flags & WATCHED != 0 {
            let packet = pool.get(t.id);
            if packet.kind == PacketKind::Data {
                let dropped = offer == Offer::Dropped;
                crossings.count(id, packet.flow, t.size as u64, dropped);
            }
        }
        offer
    }

    /// [`Link::offer`] to a link that is up.
    #[inline(always)]
    fn admit(
        &mut self,
        t: Transit,
        wires: &mut WireStore,
        pool: &mut PacketPool,
        now: SimTime,
    ) -> Offer {
        self.settle(wires, now);
        let occupancy = Occupancy {
            packets: self.waiting_packets as u64,
            bytes: self.waiting_bytes,
            limit: self.queue.limit(),
        };
        if self.queue.admit(&occupancy, &t, pool, now) == Admission::Drop {
            return Offer::Dropped;
        }
        let size = t.size as u64;
        let start = self.busy_until.max(now);
        let tx = self.serialisation_time(size);
        let departs = start.saturating_add(tx);
        self.busy_until = departs;
        self.queue.count_service(size, tx);
        let lands = departs.saturating_add(self.delay);
        let loc = wires.push_back(&mut self.wire, OnWire { t, lands });
        if start > now {
            if self.waiting_packets == 0 {
                self.first_waiting = loc;
                self.first_waiting_start = start;
            }
            self.waiting_packets += 1;
            self.waiting_bytes += size;
        }
        Offer::Accepted((self.wire.len() == 1).then_some(lands))
    }

    /// Takes the head packet, which lands at `now`; returns it and the next one with its
    /// landing time, if any.
    #[inline(always)]
    pub(crate) fn land(
        &mut self,
        wires: &mut WireStore,
    ) -> Option<(Transit, Option<(SimTime, Transit)>)> {
        let e = wires.pop_front(&mut self.wire)?;
        if self.waiting_packets > self.wire.len() {
            // The head was still counted as waiting (no arrival settled the count since its
            // service started, long before it landed): forget it, so the waiting packets stay
            // the back of the wire, from its new head.
            self.waiting_packets -= 1;
            self.waiting_bytes -= e.t.size as u64;
            self.first_waiting = self.wire.head();
            self.first_waiting_start += self.serialisation_time(e.t.size as u64);
        }
        Some((e.t, wires.front(&self.wire).map(|e| (e.lands, e.t))))
    }

    /// Changes the rate at `now`: the packet in service keeps its instants; the waiting ones are
    /// served at the new rate, back to back after it.
    pub(crate) fn set_rate(&mut self, rate: Rate, wires: &mut WireStore, now: SimTime) {
        // Settle and read the waiting packets' instants at the rate they were timed at.
        self.settle(wires, now);
        let (old_ps_per_byte, old_rate) = (self.ps_per_byte, self.rate);
        self.rate = rate;
        self.ps_per_byte = exact_ps_per_byte(rate);
        if self.waiting_packets == 0 {
            return;
        }
        let delay = self.delay;
        let old_tx = |e: &OnWire| serialisation_time(old_ps_per_byte, old_rate, e.t.size as u64);
        // The first waiting packet still starts when the one in service departs.
        let mut start = self.first_waiting_start;
        let mut loc = self.first_waiting;
        for i in 0..self.waiting_packets {
            if i > 0 {
                loc = wires.after(loc);
            }
            let e = wires.get_mut(loc);
            let tx = serialisation_time(self.ps_per_byte, rate, e.t.size as u64);
            self.queue.counters.busy_time = self.queue.counters.busy_time - old_tx(e) + tx;
            let departs = start.saturating_add(tx);
            e.lands = departs.saturating_add(delay);
            start = departs;
        }
        self.busy_until = start;
    }

    /// Takes the link down at `now`; returns every packet on it (waiting, in service,
    /// propagating). In the counters, a departure that had not happened never does, and the
    /// busy time keeps only the serialisation done by `now`.
    pub(crate) fn go_down(&mut self, wires: &mut WireStore, now: SimTime) -> Vec<PacketId> {
        self.flags |= DOWN;
        self.epoch = self.epoch.wrapping_add(1);
        self.queue.counters = self.counters(wires, now);
        self.queue.counters.packets_lost_link_down += self.wire.len() as u64;
        self.waiting_packets = 0;
        self.waiting_bytes = 0;
        self.busy_until = now;
        let lost = wires.take_all(&mut self.wire);
        lost.into_iter().map(|e| e.t.id).collect()
    }

    pub(crate) fn go_up(&mut self) {
        self.flags &= !DOWN;
    }
}

/// The time to serialise `bytes` at `rate`, whose time per byte is `ps_per_byte` when that is
/// whole (see [`exact_ps_per_byte`]).
#[inline]
fn serialisation_time(ps_per_byte: Option<NonZeroU64>, rate: Rate, bytes: u64) -> SimTime {
    match ps_per_byte {
        Some(ps) => SimTime(bytes * ps.get()),
        None => rate.serialisation_time(bytes),
    }
}

/// The serialisation time of one byte at `rate` in picoseconds, when it is a whole number.
fn exact_ps_per_byte(rate: Rate) -> Option<NonZeroU64> {
    let ps_per_s_bits = 8 * SimTime::from_secs(1).0;
    let whole = rate.0 > 0 && ps_per_s_bits.is_multiple_of(rate.0);
    whole
        .then(|| ps_per_s_bits / rate.0)
        .and_then(NonZeroU64::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_fields_sit_in_the_cache_lines_the_prefetches_load() {
        use std::mem::{align_of, offset_of};
        assert_eq!(align_of::<Link>(), 64);
        // A landing reads only the first line.
        for end in [
            offset_of!(Link, wire) + std::mem::size_of::<Fifo>(),
            offset_of!(Link, first_waiting) + 4,
            offset_of!(Link, first_waiting_start) + 8,
            offset_of!(Link, waiting_packets) + 8,
            offset_of!(Link, waiting_bytes) + 8,
            offset_of!(Link, busy_until) + 8,
            offset_of!(Link, epoch) + 4,
            offset_of!(Link, flags) + 1,
        ] {
            assert!(end <= 64, "{end}");
        }
        // An admission reads and writes the first three.
        assert!(offset_of!(Link, queue.counters.busy_time) + 8 <= 192);
        assert!(offset_of!(Link, queue) >= 64);
    }

    #[test]
    fn exact_ps_per_byte_only_when_whole() {
        let ps = |rate| exact_ps_per_byte(rate).map(NonZeroU64::get);
        assert_eq!(ps(Rate::gbps(10)), Some(800));
        assert_eq!(ps(Rate::mbps(100)), Some(80_000));
        assert_eq!(ps(Rate::bps(8_000_000_000_000)), Some(1));
        assert_eq!(ps(Rate::bps(3)), None);
        assert_eq!(ps(Rate::bps(0)), None);
        assert_eq!(ps(Rate::bps(16_000_000_000_000)), None);
        // Both paths agree where the fast one applies.
        for rate in [Rate::gbps(1), Rate::gbps(40), Rate::mbps(300)] {
            if let Some(ps) = ps(rate) {
                assert_eq!(SimTime(1462 * ps), rate.serialisation_time(1462));
            }
        }
    }
}
