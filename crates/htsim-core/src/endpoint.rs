//! Endpoints (transport senders and receivers, sources, sinks) and their view of the world.
//!
//! An endpoint is any object implementing [`Endpoint`]: the engine delivers it the packets
//! addressed to it, its timers and its start and stop signals, each with a [`Ctx`] through which
//! it sends packets, arms timers, chooses routes and creates other endpoints. The trait is object
//! safe; endpoints live as `Box<dyn Endpoint>` in the world's endpoint arena and are called through
//! one virtual call per delivered packet.

use crate::flow::{FlowRecord, FlowSample};
use crate::ids::{EndpointId, HostId, PathSetId, RouteId};
use crate::packet::Packet;
use crate::routing::{ecmp_hash, reduce, FlowKey, RoutingMode};
use crate::time::SimTime;
use crate::timer::TimerFired;
use crate::world::World;
use rand::Rng;
use std::any::Any;

/// Something that sends or receives packets.
pub trait Endpoint: Any + Send {
    /// Called once at the endpoint's start time.
    fn start(&mut self, _ctx: &mut Ctx<'_>) {}
    /// A packet addressed to this endpoint arrived. The engine has already returned its slot to
    /// the pool: the endpoint gets a copy and keeps nothing of the engine's.
    fn on_packet(&mut self, packet: &Packet, ctx: &mut Ctx<'_>);
    /// One of the endpoint's [`Timer`](crate::timer::Timer)s has an event.
    fn on_timer(&mut self, _fired: TimerFired, _ctx: &mut Ctx<'_>) {}
    /// The application stops (e.g. a long flow at the end of the measured duration).
    fn stop(&mut self, _ctx: &mut Ctx<'_>) {}
    /// Another endpoint sent this one a notification with [`Ctx::notify`] (e.g. "flow `token`
    /// completed", for closed-loop generators and partition/aggregate jobs).
    fn on_notify(&mut self, _token: u32, _ctx: &mut Ctx<'_>) {}
    /// A snapshot of the flow this endpoint sends, if it is a sender (used for flows still open
    /// when a run ends).
    fn flow_record(&self, _now: SimTime) -> Option<FlowRecord> {
        None
    }
    /// The sender's congestion state now, for time series; `None` for endpoints that are not
    /// senders (the default).
    fn sample(&self) -> Option<FlowSample> {
        None
    }
    /// A central scheduler moves this sender onto path `index` of its path set: every packet
    /// it sends from now on takes that path (packets already sent keep theirs). Returns
    /// whether it moved: `false` (the default) for endpoints that are not single-path senders
    /// routed per flow (docs/model.md 3.1).
    fn pin_path(&mut self, _index: u32) -> bool {
        false
    }
}

/// The route a flow was last given by [`Ctx::choose_route_cached`], with what it was chosen
/// for. Empty by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteCache(Option<CachedRoute>);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CachedRoute {
    set: PathSetId,
    key: FlowKey,
    mode: RoutingMode,
    route: RouteId,
}

/// An endpoint's handle on the world during a callback.
pub struct Ctx<'a> {
    pub(crate) world: &'a mut World,
    pub(crate) me: EndpointId,
    pub(crate) close: bool,
}

impl<'a> Ctx<'a> {
    /// The current simulated time.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.world.now()
    }

    /// The id of the endpoint being called.
    pub fn me(&self) -> EndpointId {
        self.me
    }

    /// Hands `packet` to the first link of its route (the sender's NIC queue) now.
    /// `packet.route`, `packet.dst` and `packet.size_bytes` must be set; the hop is reset to 0.
    #[inline]
    pub fn send(&mut self, packet: Packet) {
        self.world.send_from(self.me, packet);
    }

    /// The path set from `src` to `dst` (`None` if the topology has no path).
    pub fn path_set(&mut self, src: HostId, dst: HostId) -> Option<PathSetId> {
        self.world.routes_mut().path_set(src, dst)
    }

    /// Number of equal-cost paths in `set`.
    #[inline]
    pub fn path_count(&self, set: PathSetId) -> u32 {
        self.world.routes().path_count(set)
    }

    /// Path `index` (modulo the count) of `set`: pins a packet to a path.
    #[inline]
    pub fn route(&mut self, set: PathSetId, index: u32) -> RouteId {
        self.world.routes_mut().route(set, index)
    }

    /// The route the network's routing mode gives a packet with `key` on `set`
    /// (ECMP hash, a random path per packet, the pair's single path, or its first one).
    #[inline]
    pub fn choose_route(&mut self, set: PathSetId, key: FlowKey) -> RouteId {
        let w = &mut *self.world;
        let n = w.routes().path_count(set);
        let index = if n <= 1 {
            0
        } else {
            let (src, dst) = w.routes().endpoints(set);
            match w.routing_mode() {
                RoutingMode::Ecmp => reduce(ecmp_hash(src, dst, key, w.salt()), n),
                RoutingMode::Single => reduce(ecmp_hash(src, dst, FlowKey::default(), w.salt()), n),
                RoutingMode::Spray => w.spray_rng().random_range(0..n),
                RoutingMode::First => 0,
            }
        };
        w.routes_mut().route(set, index)
    }

    /// [`choose_route`](Self::choose_route) for a flow that keeps `cache`: when the flow asks
    /// again with the same path set and key, and the routing mode gives every packet of a flow
    /// one path (ECMP, single path), the route is the one it got last time, without hashing
    /// again. Under spraying every call draws a path.
    #[inline]
    pub fn choose_route_cached(
        &mut self,
        set: PathSetId,
        key: FlowKey,
        cache: &mut RouteCache,
    ) -> RouteId {
        let mode = self.world.routing_mode();
        if let Some(c) = cache.0 {
            if c.set == set && c.key == key && c.mode == mode {
                return c.route;
            }
        }
        let route = self.choose_route(set, key);
        if mode != RoutingMode::Spray {
            cache.0 = Some(CachedRoute {
                set,
                key,
                mode,
                route,
            });
        }
        route
    }

    /// Reserves an endpoint id (to be filled by [`Ctx::install`]), so that two endpoints that
    /// address each other can be built knowing both ids.
    pub fn reserve(&mut self) -> EndpointId {
        self.world.reserve()
    }

    /// Installs `endpoint` in a reserved slot; its [`Endpoint::start`] runs at `start_at`.
    pub fn install(&mut self, id: EndpointId, endpoint: Box<dyn Endpoint>, start_at: SimTime) {
        self.world.install(id, endpoint, start_at);
    }

    /// Removes the calling endpoint once the callback returns; later packets and timers for it
    /// are discarded.
    pub fn close(&mut self) {
        self.close = true;
    }

    /// Delivers `token` to `target`'s [`Endpoint::on_notify`] at the current time, after the
    /// current callback (nothing happens if `target` has closed by then).
    pub fn notify(&mut self, target: EndpointId, token: u32) {
        self.world.notify(target, token);
    }

    /// Stores the record of a finished flow in the run's results.
    pub fn record_flow(&mut self, record: FlowRecord) {
        self.world.record_flow(record);
    }

    /// Schedules an event for one of the caller's timers (used by [`Timer`](crate::timer::Timer)).
    pub(crate) fn schedule_timer(&mut self, key: u32, generation: u32, at: SimTime) {
        let me = self.me;
        self.world.schedule_timer(me, key, generation, at);
    }
}

/// What creating endpoints needs, offered both by the [`World`] (when a run is being set up) and
/// by a [`Ctx`] (when an endpoint, e.g. a workload generator, opens connections during the run).
pub trait Spawn {
    /// The current simulated time.
    fn now(&self) -> SimTime;
    /// Reserves an endpoint id, to be filled by [`Spawn::install`].
    fn reserve(&mut self) -> EndpointId;
    /// Installs `endpoint` in the reserved slot `id`; its `start` runs at `start_at`.
    fn install(&mut self, id: EndpointId, endpoint: Box<dyn Endpoint>, start_at: SimTime);
    /// The path set from `src` to `dst`, if the topology has a path.
    fn path_set(&mut self, src: HostId, dst: HostId) -> Option<PathSetId>;
    /// Number of equal-cost paths in `set`.
    fn path_count(&self, set: PathSetId) -> u32;
    /// Calls the endpoint's [`Endpoint::stop`] at `at`.
    fn schedule_stop(&mut self, id: EndpointId, at: SimTime);
}

impl Spawn for World {
    fn now(&self) -> SimTime {
        World::now(self)
    }
    fn reserve(&mut self) -> EndpointId {
        World::reserve(self)
    }
    fn install(&mut self, id: EndpointId, endpoint: Box<dyn Endpoint>, start_at: SimTime) {
        World::install(self, id, endpoint, start_at)
    }
    fn path_set(&mut self, src: HostId, dst: HostId) -> Option<PathSetId> {
        self.routes_mut().path_set(src, dst)
    }
    fn path_count(&self, set: PathSetId) -> u32 {
        self.routes().path_count(set)
    }
    fn schedule_stop(&mut self, id: EndpointId, at: SimTime) {
        World::schedule_stop(self, id, at)
    }
}

impl Spawn for Ctx<'_> {
    fn now(&self) -> SimTime {
        Ctx::now(self)
    }
    fn reserve(&mut self) -> EndpointId {
        Ctx::reserve(self)
    }
    fn install(&mut self, id: EndpointId, endpoint: Box<dyn Endpoint>, start_at: SimTime) {
        Ctx::install(self, id, endpoint, start_at)
    }
    fn path_set(&mut self, src: HostId, dst: HostId) -> Option<PathSetId> {
        Ctx::path_set(self, src, dst)
    }
    fn path_count(&self, set: PathSetId) -> u32 {
        Ctx::path_count(self, set)
    }
    fn schedule_stop(&mut self, id: EndpointId, at: SimTime) {
        self.world.schedule_stop(id, at)
    }
}
