//! Typed indices into the world's arenas.
//!
//! Every component lives in a `Vec` owned by the [`World`](crate::world::World) and is named by a
//! small copyable index, never by a pointer. Keeping the index types distinct makes it impossible
//! to pass a link where a route is expected.

/// A directed link (egress queue + propagation stage), an index into the world's link arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkId(pub u32);

/// A host, as numbered by the topology (`host<i>` has `HostId(i)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HostId(pub u32);

/// An interned route: a shared slice of links from a source host to a destination host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RouteId(pub u32);

/// The set of equal-cost paths from one host to another (see [`crate::routing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PathSetId(pub u32);

/// An endpoint (a transport's sender or receiver, a source, a sink): a slot index plus the
/// slot's generation, so that packets and timers addressed to a closed endpoint are recognised
/// as stale even after the slot has been reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EndpointId {
    /// Slot in the endpoint arena.
    pub index: u32,
    /// Generation of the slot when this endpoint was created.
    pub generation: u32,
}

impl Default for EndpointId {
    /// [`EndpointId::NONE`].
    fn default() -> Self {
        EndpointId::NONE
    }
}

impl EndpointId {
    /// An id that never names a live endpoint (packets sent to it are discarded on arrival).
    pub const NONE: EndpointId = EndpointId {
        index: u32::MAX,
        generation: u32::MAX,
    };
}
