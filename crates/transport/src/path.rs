//! The per-packet path hook (docs/model.md 3, 5).
//!
//! A connection reaches its peer through a path set (the equal-cost paths between two hosts).
//! [`PathPolicy`] decides, for every data packet, which path it takes: through the network's
//! routing mode with the connection's ports (ECMP hashes the 4-tuple, so every packet of a
//! subflow follows one path), on a pinned path index, with a fresh random source port per
//! packet (packet scatter: each packet hashes to an independent uniformly random path), or on
//! each path in turn (htsim's packet scatter).
//! Control packets (SYN, FIN, pure ACKs) always use the connection's real ports.

use htsim_core::endpoint::{Ctx, RouteCache};
use htsim_core::ids::{PathSetId, RouteId};
use htsim_core::rng::SimRng;
use htsim_core::routing::FlowKey;
use rand::Rng;

/// The IP protocol number of TCP, hashed by ECMP.
pub const PROTO_TCP: u8 = 6;

/// The smallest and largest random source port of packet scatter (docs/model.md 5: U{1..65530}).
pub const SCATTER_PORTS: (u16, u16) = (1, 65_530);

/// How a subflow's data packets choose their path.
#[derive(Clone, Debug)]
pub enum PathPolicy {
    /// The network's routing mode with the subflow's own ports (per-flow ECMP).
    Ecmp,
    /// Always path `index` (modulo the number of paths) of the path set.
    Pinned(u32),
    /// A fresh source port drawn uniformly from [`SCATTER_PORTS`] for every data packet, retransmissions
    /// included (packet scatter and MMPTCP phase 1, docs/model.md 5); such packets carry
    /// [`flags::SCATTERED`](htsim_core::packet::flags::SCATTERED). The generator is boxed: its
    /// 128-bit state would otherwise align every path choice, and every subflow holding one,
    /// to 16 bytes.
    Scatter(Box<SimRng>),
    /// Packet scatter in turn: data packet i takes path `start + i` (modulo the number of paths)
    /// of the path set, retransmissions included: htsim's `PACKET_SCATTER` without
    /// `RANDOM_PATH` (docs/model.md 5). Such packets carry
    /// [`flags::SCATTERED`](htsim_core::packet::flags::SCATTERED) too.
    Cycle(u32),
}

/// One direction of a connection: its path set, ports and data-path policy.
#[derive(Clone, Debug)]
pub struct PathChoice {
    /// The equal-cost paths from this side's host to the peer's.
    pub set: PathSetId,
    /// This side's port (the source port of its packets).
    pub local_port: u16,
    /// The peer's port.
    pub remote_port: u16,
    /// The data-packet policy.
    pub policy: PathPolicy,
    /// The route last chosen for this direction's own ports (see
    /// [`Ctx::choose_route_cached`]).
    route_cache: RouteCache,
}

impl PathChoice {
    /// A direction from path set `set` with the given ports and data-packet policy.
    pub fn new(set: PathSetId, local_port: u16, remote_port: u16, policy: PathPolicy) -> Self {
        PathChoice {
            set,
            local_port,
            remote_port,
            policy,
            route_cache: RouteCache::default(),
        }
    }

    /// A direction using ECMP with the given ports.
    pub fn ecmp(set: PathSetId, local_port: u16, remote_port: u16) -> Self {
        Self::new(set, local_port, remote_port, PathPolicy::Ecmp)
    }

    /// The route of a packet with this direction's own ports.
    #[inline]
    fn own_route(&mut self, ctx: &mut Ctx<'_>) -> RouteId {
        ctx.choose_route_cached(self.set, self.key(), &mut self.route_cache)
    }

    /// The 4-tuple key of this direction's control packets.
    #[inline]
    pub fn key(&self) -> FlowKey {
        FlowKey {
            src_port: self.local_port,
            dst_port: self.remote_port,
            protocol: PROTO_TCP,
        }
    }

    /// The route of a control packet (SYN, FIN, pure ACK): never sprayed nor pinned per packet.
    #[inline]
    pub fn control_route(&mut self, ctx: &mut Ctx<'_>) -> RouteId {
        match self.policy {
            PathPolicy::Pinned(i) => ctx.route(self.set, i),
            _ => self.own_route(ctx),
        }
    }

    /// The route of a data packet and whether it was scattered.
    #[inline]
    pub fn data_route(&mut self, ctx: &mut Ctx<'_>) -> (RouteId, bool) {
        match &mut self.policy {
            PathPolicy::Ecmp => (self.own_route(ctx), false),
            PathPolicy::Pinned(i) => (ctx.route(self.set, *i), false),
            PathPolicy::Scatter(rng) => {
                let key = FlowKey {
                    src_port: rng.random_range(SCATTER_PORTS.0..=SCATTER_PORTS.1),
                    ..self.key()
                };
                (ctx.choose_route(self.set, key), true)
            }
            PathPolicy::Cycle(next) => {
                let index = *next;
                *next = next.wrapping_add(1);
                (ctx.route(self.set, index), true)
            }
        }
    }
}
