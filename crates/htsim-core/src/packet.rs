//! Packets and the packet pool.
//!
//! A [`Packet`] is a small plain struct (64 bytes; a test asserts at most 96). Packets live in a
//! [`PacketPool`], a slab with a LIFO free list, and move through queues and propagation stages as
//! 4-byte [`PacketId`]s. Once the pool has grown to the peak number of packets in flight, the
//! steady state allocates nothing per packet.
//!
//! The header fields are those every transport of docs/model.md needs (sections 1, 2, 4.2, 5, 7.2):
//! subflow sequence and acknowledgement numbers, the data sequence number of MPTCP's DSN option,
//! and ECN bits. Their meaning is up to the transport; the engine reads only the route, the hop,
//! the size on the wire, the destination endpoint and the ECN bits.

use crate::ids::{EndpointId, RouteId};
use crate::time::SimTime;

/// Index of a packet slot in the [`PacketPool`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PacketId(pub u32);

/// What a packet is, as far as counters and traces are concerned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PacketKind {
    /// A data segment (carries payload).
    #[default]
    Data,
    /// A pure acknowledgement.
    Ack,
    /// Connection request (SYN, with MP_CAPABLE or MP_JOIN).
    Syn,
    /// Connection accept (SYN-ACK).
    SynAck,
    /// Connection close (FIN or FIN+ACK).
    Fin,
    /// Reset.
    Rst,
}

/// ECN and transport flag bits of [`Packet::flags`].
pub mod flags {
    /// ECN-capable transport (ECT(0)): an ECN queue marks such packets with CE when congested;
    /// a full queue still drops them.
    pub const ECT: u8 = 1 << 0;
    /// Congestion experienced, set by an ECN queue.
    pub const CE: u8 = 1 << 1;
    /// ECN echo (receiver to sender).
    pub const ECE: u8 = 1 << 2;
    /// Congestion window reduced; XMP uses ECE and CWR together as a 2-bit CE count
    /// (docs/model.md 7.2).
    pub const CWR: u8 = 1 << 3;
    /// A sprayed packet of packet scatter / MMPTCP phase 1 (docs/model.md 5).
    pub const SCATTERED: u8 = 1 << 4;
    /// FIN flag on a data or ACK segment.
    pub const FIN: u8 = 1 << 5;
    /// The segment is a retransmission (for counters and traces).
    pub const RETRANSMIT: u8 = 1 << 6;
}

/// A packet: routing state for the engine plus a transport header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Packet {
    /// Sequence number (bytes) of the first payload byte in its subflow's sequence space.
    pub seq: u64,
    /// Cumulative acknowledgement (next expected byte of the subflow), for ACKs.
    pub ack: u64,
    /// Data-level sequence number (MPTCP DSN option), or a transport-defined value.
    pub data_seq: u64,
    /// When the sender handed the packet to its NIC (for one-way delay and RTT sampling).
    pub sent_at: SimTime,
    /// The endpoint that receives the packet at the end of its route.
    pub dst: EndpointId,
    /// The route the packet follows (source routing).
    pub route: RouteId,
    /// Size on the wire in bytes, headers included: what queues count and links serialise.
    pub size_bytes: u32,
    /// Payload bytes (application data carried).
    pub payload_bytes: u32,
    /// A transport-defined flow number, for traces and per-flow accounting.
    pub flow: u32,
    /// Index into the route of the link the packet is on or about to enter.
    pub hop: u16,
    /// Subflow index within a multipath connection (0 for single-path transports).
    pub subflow: u16,
    /// What the packet is.
    pub kind: PacketKind,
    /// ECN and transport flags, see [`flags`].
    pub flags: u8,
}

impl Packet {
    /// Whether all bits of `flag` are set.
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag == flag
    }
    /// Sets the bits of `flag`.
    pub fn set(&mut self, flag: u8) {
        self.flags |= flag;
    }
    /// Clears the bits of `flag`.
    pub fn clear(&mut self, flag: u8) {
        self.flags &= !flag;
    }
}

/// A slab of packets with a free list.
#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: usize,
    peak_live: usize,
}

impl PacketPool {
    /// An empty pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `packet` in a free slot (growing the slab only when none is free).
    #[inline]
    pub fn alloc(&mut self, packet: Packet) -> PacketId {
        self.live += 1;
        if self.live > self.peak_live {
            self.peak_live = self.live;
        }
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = packet;
                PacketId(i)
            }
            None => {
                let i = self.slots.len() as u32;
                self.slots.push(packet);
                PacketId(i)
            }
        }
    }

    /// Returns the slot of `id` to the free list and the packet it held.
    #[inline]
    pub fn release(&mut self, id: PacketId) -> Packet {
        debug_assert!(self.live > 0, "release without a live packet");
        self.live -= 1;
        self.free.push(id.0);
        self.slots[id.0 as usize]
    }

    /// Asks the CPU to start loading slot `id` (a hint; any id is harmless).
    #[inline]
    pub(crate) fn prefetch(&self, id: PacketId) {
        crate::prefetch::prefetch(self.slots.as_ptr().wrapping_add(id.0 as usize) as *const u8);
    }

    /// The packet in slot `id`.
    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize]
    }

    /// The packet in slot `id`, mutably.
    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }

    /// Packets currently allocated (in queues, on links, or held by the engine).
    pub fn live(&self) -> usize {
        self.live
    }

    /// The largest number of packets ever allocated at once.
    pub fn peak_live(&self) -> usize {
        self.peak_live
    }

    /// Number of slots the slab has grown to (its memory footprint in packets).
    pub fn capacity_slots(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_is_small() {
        assert!(std::mem::size_of::<Packet>() <= 96);
        assert_eq!(std::mem::size_of::<Packet>(), 64);
    }

    #[test]
    fn pool_reuses_slots() {
        let mut pool = PacketPool::new();
        let a = pool.alloc(Packet::default());
        let b = pool.alloc(Packet::default());
        assert_eq!(pool.live(), 2);
        pool.release(a);
        let c = pool.alloc(Packet {
            seq: 7,
            ..Packet::default()
        });
        assert_eq!(c, a, "a freed slot is reused before the slab grows");
        assert_eq!(pool.get(c).seq, 7);
        pool.release(b);
        pool.release(c);
        assert_eq!(pool.live(), 0);
        assert_eq!(pool.peak_live(), 2);
        assert_eq!(pool.capacity_slots(), 2);
    }

    #[test]
    fn flags_set_and_clear() {
        let mut p = Packet::default();
        p.set(flags::ECT | flags::CE);
        assert!(p.has(flags::ECT) && p.has(flags::CE));
        p.clear(flags::CE);
        assert!(!p.has(flags::CE) && p.has(flags::ECT));
    }
}
