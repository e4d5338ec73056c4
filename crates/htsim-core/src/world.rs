//! The world: every component of one run in typed arenas, and the event loop.
//!
//! Links live in a `Vec<Link>` indexed by [`LinkId`], endpoints in a slot arena indexed by
//! [`EndpointId`], packets in the [`PacketPool`]. Events carry small ids and are dispatched with
//! `match`; there is no `Rc<RefCell<_>>` graph and no back pointer (docs/model.md 15.7).
//!
//! The per-packet path is: [`World::send`] offers a packet to the first link of its route, which
//! admits it (or drops it) and computes when it will land at the far end (see [`crate::link`]);
//! when it lands it is offered to the next link of its route, or, past the last one, delivered to
//! its destination endpoint. One event per packet per hop.
//!
//! A hop costs mostly cache misses, so [`World::step`] prefetches what the next two landings will
//! read (their links, the head and tail slots of the links' FIFOs, or at the end of a route the
//! packet and then its destination endpoint) while it processes the current one; see
//! `prefetch_upcoming`.

use crate::crossing::{Crossing, Crossings};
use crate::endpoint::{Ctx, Endpoint};
use crate::event_queue::{EventQueue, PendingEvents};
use crate::flow::FlowRecord;
use crate::ids::{EndpointId, LinkId};
use crate::link::{Link, LinkChange, Offer, WireStore};
use crate::packet::{Packet, PacketId, PacketKind, PacketPool};
use crate::prefetch::prefetch;
use crate::queue::{Occupancy, Queue, QueueCounters, Transit};
use crate::rng::{RngStreams, SimRng};
use crate::routing::{mix64, PathSource, RouteTable, RoutingMode};
use crate::time::{Rate, SimTime};
use crate::timer::TimerFired;

/// A pending event. Small (20 bytes) and `Copy`; dispatched with `match`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// The head packet on a link reaches the far end. `at` and `packet` name that packet's
    /// position in the route table and its slot, as hints for prefetching; the link's wire is
    /// what the landing reads.
    Arrive {
        link: u32,
        epoch: u32,
        at: u32,
        packet: PacketId,
    },
    /// An endpoint's timer.
    Timer {
        ep: EndpointId,
        key: u32,
        generation: u32,
    },
    /// An endpoint's start.
    Start(EndpointId),
    /// An endpoint's application stop.
    Stop(EndpointId),
    /// A scheduled link change (index into the change list).
    LinkChange(u32),
    /// Delivery of a packet whose route has no links (sender and receiver on one host).
    Deliver(PacketId),
    /// A notification from one endpoint to another.
    Notify { ep: EndpointId, token: u32 },
}

impl Event {
    /// A stable digest of the event, for the determinism trace.
    fn digest(&self) -> u64 {
        let (tag, a, b) = match *self {
            Event::Arrive { link, epoch, .. } => (2, link as u64, epoch as u64),
            Event::Timer {
                ep,
                key,
                generation,
            } => (
                3,
                ((ep.index as u64) << 32) | ep.generation as u64,
                ((key as u64) << 32) | generation as u64,
            ),
            Event::Start(ep) => (4, ep.index as u64, ep.generation as u64),
            Event::Stop(ep) => (5, ep.index as u64, ep.generation as u64),
            Event::LinkChange(i) => (6, i as u64, 0),
            Event::Deliver(p) => (7, p.0 as u64, 0),
            Event::Notify { ep, token } => (
                8,
                ((ep.index as u64) << 32) | ep.generation as u64,
                token as u64,
            ),
        };
        mix64(tag ^ mix64(a ^ mix64(b)))
    }
}

/// Counts of what happened to packets and events in a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorldStats {
    /// Events processed.
    pub events: u64,
    /// Packets handed to the network by endpoints.
    pub packets_sent: u64,
    /// Packets that reached the end of their route.
    pub packets_delivered: u64,
    /// Of the delivered packets, those whose destination endpoint had already closed.
    pub packets_discarded: u64,
    /// Of the delivered packets, data packets.
    pub data_packets_delivered: u64,
    /// Packets dropped on arrival at a queue (full, or link down).
    pub packets_dropped: u64,
    /// Packets lost on a link that went down while they were on it.
    pub packets_lost_link_down: u64,
}

/// The packet conservation identity: sent = delivered + dropped + lost + in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conservation {
    /// Packets handed to the network.
    pub sent: u64,
    /// Packets that reached the end of their route.
    pub delivered: u64,
    /// Packets dropped at queues.
    pub dropped: u64,
    /// Packets lost on failed links.
    pub lost: u64,
    /// Packets still in the network (queued, in service, propagating, or pending delivery).
    pub in_flight: u64,
}

impl Conservation {
    /// Whether every packet sent is accounted for.
    pub fn holds(&self) -> bool {
        self.sent == self.delivered + self.dropped + self.lost + self.in_flight
    }
}

struct Slot {
    generation: u32,
    /// The first link of the route the endpoint last sent on (its host's uplink, mostly), as a
    /// prefetch hint for its next send; `u32::MAX` before its first send.
    uplink: u32,
    endpoint: Option<Box<dyn Endpoint>>,
    reserved: bool,
}

/// One simulation run's network, endpoints and pending events.
pub struct World {
    now: SimTime,
    events: EventQueue<Event>,
    pool: PacketPool,
    links: Vec<Link>,
    /// The packets on the links ([`crate::wires`]).
    wires: WireStore,
    routes: RouteTable,
    routing_mode: RoutingMode,
    salt: u64,
    spray_rng: SimRng,
    streams: RngStreams,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    link_changes: Vec<(SimTime, LinkId, LinkChange)>,
    records: Vec<FlowRecord>,
    /// Per-flow counts at the watched links ([`crate::crossing`]).
    crossings: Crossings,
    stats: WorldStats,
    trace: Option<u64>,
    max_links: u64,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("now", &self.now)
            .field("links", &self.links.len())
            .field("endpoints", &self.slots.len())
            .field("stats", &self.stats)
            .finish()
    }
}

impl World {
    /// An empty world whose random streams derive from `seed`.
    pub fn new(seed: u64) -> Self {
        let streams = RngStreams::new(seed);
        let salt = mix64(seed ^ 0x00ec_4bad_5a17);
        World {
            now: SimTime::ZERO,
            events: EventQueue::new(),
            pool: PacketPool::new(),
            links: Vec::new(),
            wires: WireStore::new(),
            routes: RouteTable::new(),
            routing_mode: RoutingMode::Ecmp,
            salt,
            spray_rng: streams.stream("routing.spray"),
            streams,
            slots: Vec::new(),
            free_slots: Vec::new(),
            link_changes: Vec::new(),
            records: Vec::new(),
            crossings: Crossings::default(),
            stats: WorldStats::default(),
            trace: None,
            max_links: u64::MAX,
        }
    }

    // ----- construction -------------------------------------------------------------------

    /// Adds a directed link of `rate` and propagation `delay`, fed by `queue`.
    pub fn add_link(&mut self, rate: Rate, delay: SimTime, queue: Queue) -> LinkId {
        let id = LinkId(self.links.len() as u32);
        self.links.push(Link::new(rate, delay, queue));
        id
    }

    /// The link `id`.
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.0 as usize]
    }

    /// The counters of link `id`'s queue as of now: departures count only serialisation that
    /// has ended, busy time only the serialisation done by now (the packet in service up to
    /// now).
    pub fn link_counters(&self, id: LinkId) -> QueueCounters {
        self.link(id).counters(&self.wires, self.now)
    }

    /// The counters of link `id`'s queue as they will be at `at`, no earlier than now, if no
    /// packet arrives at the link before `at` (the world stopped just before `at`'s events):
    /// the packets on the link keep being served as timed. Earlier instants read as now.
    pub fn link_counters_at(&self, id: LinkId, at: SimTime) -> QueueCounters {
        self.link(id).counters(&self.wires, at.max(self.now))
    }

    /// The queue of link `id` as an arriving packet would see it now: the packets (and bytes)
    /// whose service has not started, and the limit.
    pub fn link_occupancy(&self, id: LinkId) -> Occupancy {
        self.link(id).occupancy(&self.wires, self.now)
    }

    /// Caps the number of links this world may hold (a memory budget): topology builders check
    /// it before allocating anything and refuse a larger network. Unlimited by default.
    pub fn set_max_links(&mut self, max: u64) {
        self.max_links = max;
    }

    /// The most links this world may hold ([`World::set_max_links`]).
    pub fn max_links(&self) -> u64 {
        self.max_links
    }

    /// All links, indexed by [`LinkId`].
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The route table (interned routes and path sets).
    pub fn routes(&self) -> &RouteTable {
        &self.routes
    }

    /// The route table, mutably (to intern explicit routes or query path sets).
    pub fn routes_mut(&mut self) -> &mut RouteTable {
        &mut self.routes
    }

    /// Installs the topology's path source.
    pub fn set_path_source(&mut self, source: Box<dyn PathSource>) {
        self.routes.set_source(source);
    }

    /// How switches choose among equal-cost paths (default ECMP).
    pub fn set_routing_mode(&mut self, mode: RoutingMode) {
        self.routing_mode = mode;
    }

    /// The routing mode.
    pub fn routing_mode(&self) -> RoutingMode {
        self.routing_mode
    }

    /// The per-run ECMP salt.
    pub fn salt(&self) -> u64 {
        self.salt
    }

    pub(crate) fn spray_rng(&mut self) -> &mut SimRng {
        &mut self.spray_rng
    }

    /// The run's named random streams.
    pub fn streams(&self) -> RngStreams {
        self.streams
    }

    /// Reserves an endpoint id to be filled by [`World::install`].
    pub fn reserve(&mut self) -> EndpointId {
        let index = match self.free_slots.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    uplink: u32::MAX,
                    endpoint: None,
                    reserved: false,
                });
                (self.slots.len() - 1) as u32
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.reserved = true;
        EndpointId {
            index,
            generation: slot.generation,
        }
    }

    /// Installs `endpoint` in the reserved slot `id`; its `start` runs at `start_at` (not before
    /// now).
    ///
    /// # Panics
    /// If `id` was not returned by [`World::reserve`] or was already installed: a bug in the
    /// caller's code, not a user input.
    pub fn install(&mut self, id: EndpointId, endpoint: Box<dyn Endpoint>, start_at: SimTime) {
        let slot = &mut self.slots[id.index as usize];
        assert!(
            slot.reserved && slot.generation == id.generation && slot.endpoint.is_none(),
            "install into a slot that was not reserved for {id:?}"
        );
        slot.endpoint = Some(endpoint);
        let at = start_at.max(self.now);
        self.schedule(at, Event::Start(id));
    }

    /// Reserves a slot and installs `endpoint` in it.
    pub fn spawn(&mut self, endpoint: Box<dyn Endpoint>, start_at: SimTime) -> EndpointId {
        let id = self.reserve();
        self.install(id, endpoint, start_at);
        id
    }

    /// The live endpoint `id`, if any (for inspection; downcast with `as &dyn Any`).
    pub fn endpoint(&self, id: EndpointId) -> Option<&dyn Endpoint> {
        let slot = self.slots.get(id.index as usize)?;
        if slot.generation != id.generation {
            return None;
        }
        slot.endpoint.as_deref()
    }

    /// The live endpoint `id`, if any, to act on between runs of the event loop (a central
    /// scheduler moving a sender with [`Endpoint::pin_path`]).
    pub fn endpoint_mut(&mut self, id: EndpointId) -> Option<&mut dyn Endpoint> {
        let slot = self.slots.get_mut(id.index as usize)?;
        if slot.generation != id.generation {
            return None;
        }
        slot.endpoint.as_deref_mut()
    }

    /// Calls the endpoint's [`Endpoint::stop`] at `at`.
    pub fn schedule_stop(&mut self, id: EndpointId, at: SimTime) {
        self.schedule(at.max(self.now), Event::Stop(id));
    }

    /// Applies `change` to `link` at `at`.
    pub fn schedule_link_change(&mut self, at: SimTime, link: LinkId, change: LinkChange) {
        let i = self.link_changes.len() as u32;
        let at = at.max(self.now);
        self.link_changes.push((at, link, change));
        self.schedule(at, Event::LinkChange(i));
    }

    /// Every link change scheduled so far ([`World::schedule_link_change`]), in the order
    /// they were scheduled (the order they apply in at one instant), with that instant.
    pub fn link_changes(&self) -> impl Iterator<Item = (SimTime, LinkId, LinkChange)> + '_ {
        self.link_changes.iter().copied()
    }

    /// Watches `links` from now on: every data packet offered to one of them is counted
    /// against its flow ([`crate::crossing`]), until [`World::take_crossings`]. Links watched
    /// before stay watched.
    ///
    /// # Panics
    /// If a link is not one of this world's: a bug in the caller's code.
    pub fn watch_links(&mut self, links: &[LinkId]) {
        for l in links {
            self.links[l.0 as usize].set_watched(true);
        }
    }

    /// Stops watching every link and returns what was counted since the watch began, ordered by
    /// link, then flow.
    pub fn take_crossings(&mut self) -> Vec<Crossing> {
        for link in &mut self.links {
            link.set_watched(false);
        }
        self.crossings.take()
    }

    /// Starts folding every processed event into a hash (see [`World::trace_hash`]).
    pub fn enable_trace_hash(&mut self) {
        self.trace = Some(0x6a09_e667_f3bc_c908);
    }

    /// The hash of every event processed so far, with its time, if tracing is on: two runs with
    /// the same hash processed the same events at the same times in the same order.
    pub fn trace_hash(&self) -> Option<u64> {
        self.trace
    }

    // ----- running ------------------------------------------------------------------------

    /// The current simulated time.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Counters of the run so far.
    pub fn stats(&self) -> WorldStats {
        self.stats
    }

    /// The packet pool (for its occupancy figures).
    pub fn pool(&self) -> &PacketPool {
        &self.pool
    }

    /// Pending events.
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    /// The conservation identity at this instant.
    pub fn conservation(&self) -> Conservation {
        Conservation {
            sent: self.stats.packets_sent,
            delivered: self.stats.packets_delivered,
            dropped: self.stats.packets_dropped,
            lost: self.stats.packets_lost_link_down,
            in_flight: self.pool.live() as u64,
        }
    }

    /// Records of flows that completed so far.
    pub fn records(&self) -> &[FlowRecord] {
        &self.records
    }

    /// Takes the records of completed flows out of the world.
    pub fn take_records(&mut self) -> Vec<FlowRecord> {
        std::mem::take(&mut self.records)
    }

    /// Snapshots of the flows whose senders are still open (long flows, unfinished flows).
    pub fn open_flow_records(&self) -> Vec<FlowRecord> {
        self.slots
            .iter()
            .filter_map(|s| s.endpoint.as_ref()?.flow_record(self.now))
            .collect()
    }

    /// Processes events until none is left.
    pub fn run(&mut self) {
        while self.step() {}
    }

    /// Processes every event due at or before `until`, then sets the clock to `until`.
    #[inline(never)]
    pub fn run_until(&mut self, until: SimTime) {
        while let Some(t) = self.events.peek_time() {
            if t > until {
                break;
            }
            self.step();
        }
        if until > self.now && until != SimTime::MAX {
            self.now = until;
        }
    }

    /// Processes one event; returns `false` when there is none.
    #[inline]
    pub fn step(&mut self) -> bool {
        let Some((t, ev)) = self.events.pop() else {
            return false;
        };
        self.now = t;
        self.stats.events += 1;
        self.prefetch_upcoming();
        if let Some(h) = &mut self.trace {
            *h = mix64(*h ^ t.0).wrapping_add(ev.digest());
        }
        match ev {
            Event::Arrive { link, epoch, .. } => self.arrive(link, epoch),
            other => self.dispatch_other(other),
        }
        true
    }

    /// Processes an event other than a landing (timers, starts, stops, link changes, local
    /// deliveries, notifications): kept out of [`World::step`] so that the landing path (almost
    /// every event in a packet-heavy run) stays small.
    #[inline(never)]
    fn dispatch_other(&mut self, ev: Event) {
        match ev {
            Event::Arrive { link, epoch, .. } => self.arrive(link, epoch),
            Event::Timer {
                ep,
                key,
                generation,
            } => {
                self.with_endpoint(ep, |e, ctx| e.on_timer(TimerFired { key, generation }, ctx));
            }
            Event::Start(ep) => {
                self.with_endpoint(ep, |e, ctx| e.start(ctx));
            }
            Event::Stop(ep) => {
                self.with_endpoint(ep, |e, ctx| e.stop(ctx));
            }
            Event::LinkChange(i) => self.apply_link_change(i),
            Event::Deliver(id) => self.deliver(id),
            Event::Notify { ep, token } => {
                self.with_endpoint(ep, |e, ctx| e.on_notify(token, ctx));
            }
        }
    }

    /// Starts loading what the next two landings will touch, so that their cache misses
    /// overlap with this event's work. A landing reads its link, the head of that link's wire,
    /// then the link the packet enters next and the tail of that link's wire (or, at the end
    /// of its route, the packet's slot in the pool and the endpoint it is delivered to). The
    /// landing event names the packet, so:
    /// - for the landing after next: both links' fields, or the link's and the packet;
    /// - for the next landing (whose links' fields were asked for one event ago): the head
    ///   and tail of the two wires, or the destination endpoint (its id read from the packet
    ///   asked for one event ago).
    ///
    /// Only events already sorted in the queue are looked at. Hints only: what is processed
    /// does not change.
    #[inline]
    fn prefetch_upcoming(&self) {
        if let Some((link, next, packet)) = self.upcoming_landing(1) {
            link.prefetch_landing_state();
            match next {
                Some(next) => next.prefetch_admission_state(),
                None => self.pool.prefetch(packet),
            }
        }
        if let Some((link, next, packet)) = self.upcoming_landing(0) {
            link.prefetch_head(&self.wires);
            match next {
                Some(next) => next.prefetch_tail(&self.wires),
                None => self.prefetch_endpoint(packet),
            }
        }
    }

    /// Starts loading the first cache lines of the endpoint that packet `id` (in the pool,
    /// asked for one event ago) is delivered to, and of the link it last sent on: a delivered
    /// packet mostly makes its endpoint send (an ACK, or data), on its host's uplink. A hint:
    /// nothing changes, and a stale `id` does no harm.
    #[inline]
    fn prefetch_endpoint(&self, id: PacketId) {
        if id.0 as usize >= self.pool.capacity_slots() {
            return;
        }
        let dst = self.pool.get(id).dst;
        let Some(slot) = self.slots.get(dst.index as usize) else {
            return;
        };
        if let Some(e) = &slot.endpoint {
            let start = e.as_ref() as *const dyn Endpoint as *const u8;
            prefetch(start);
            prefetch(start.wrapping_add(64));
        }
        if let Some(link) = self.links.get(slot.uplink as usize) {
            link.prefetch_admission_state();
        }
    }

    /// For the landing [`upcoming`](PendingEvents::upcoming)`(k)`, if that is one: its link,
    /// the link its packet enters next (`None` at the end of the packet's route) and the
    /// packet, from the event's hints. Never panics on a stale hint.
    #[inline]
    fn upcoming_landing(&self, k: usize) -> Option<(&Link, Option<&Link>, PacketId)> {
        let &Event::Arrive {
            link, at, packet, ..
        } = self.events.upcoming(k)?
        else {
            return None;
        };
        let next = match self.routes.next(at)? {
            Some(next) => Some(self.links.get(next.0 as usize)?),
            None => None,
        };
        Some((self.links.get(link as usize)?, next, packet))
    }

    #[inline]
    fn schedule(&mut self, at: SimTime, ev: Event) {
        self.events.schedule(at, ev);
    }

    pub(crate) fn schedule_timer(
        &mut self,
        ep: EndpointId,
        key: u32,
        generation: u32,
        at: SimTime,
    ) {
        self.schedule(
            at,
            Event::Timer {
                ep,
                key,
                generation,
            },
        );
    }

    pub(crate) fn notify(&mut self, ep: EndpointId, token: u32) {
        self.schedule(self.now, Event::Notify { ep, token });
    }

    pub(crate) fn record_flow(&mut self, record: FlowRecord) {
        self.records.push(record);
    }

    // ----- the packet path ----------------------------------------------------------------

    /// Hands `packet` to the first link of its route now. Endpoints send through
    /// [`Ctx::send`], which also remembers that link as a prefetch hint for the endpoint's
    /// next send; this does not, having no sender to remember it for.
    #[inline]
    pub fn send(&mut self, packet: Packet) {
        self.send_on_route(packet);
    }

    /// Hands `packet`, sent by endpoint `from`, to the first link of its route now, and
    /// remembers that link as where `from` sends next (see `prefetch_endpoint`).
    #[inline]
    pub(crate) fn send_from(&mut self, from: EndpointId, packet: Packet) {
        let first = self.send_on_route(packet);
        if let Some(slot) = self.slots.get_mut(from.index as usize) {
            slot.uplink = first.map_or(u32::MAX, |link| link.0);
        }
    }

    /// [`World::send`]; returns the route's first link (`None` for an empty route).
    #[inline(always)]
    fn send_on_route(&mut self, mut packet: Packet) -> Option<LinkId> {
        packet.hop = 0;
        self.stats.packets_sent += 1;
        let id = self.pool.alloc(packet);
        let t = Transit::of(id, &packet, self.routes.first_index(packet.route));
        let first = self.routes.link_at(t.at);
        match first {
            Some(link) => self.enqueue(link, t),
            None => self.schedule(self.now, Event::Deliver(id)),
        }
        first
    }

    /// Offers the packet `t` to `link_id` now; schedules the link's next landing if it is the
    /// head.
    #[inline(always)]
    fn enqueue(&mut self, link_id: LinkId, t: Transit) {
        let link = &mut self.links[link_id.0 as usize];
        match link.offer(
            t,
            &mut self.wires,
            &mut self.pool,
            &mut self.crossings,
            link_id,
            self.now,
        ) {
            Offer::Dropped => {
                self.stats.packets_dropped += 1;
                self.pool.release(t.id);
            }
            Offer::Accepted(Some(lands)) => {
                let epoch = link.epoch;
                self.schedule(
                    lands,
                    Event::Arrive {
                        link: link_id.0,
                        epoch,
                        at: t.at,
                        packet: t.id,
                    },
                );
            }
            Offer::Accepted(None) => {}
        }
    }

    #[inline(always)]
    fn arrive(&mut self, link_idx: u32, epoch: u32) {
        let link = &mut self.links[link_idx as usize];
        if link.epoch != epoch {
            return;
        }
        let Some((mut t, next)) = link.land(&mut self.wires) else {
            return;
        };
        if let Some((lands, head)) = next {
            self.schedule(
                lands,
                Event::Arrive {
                    link: link_idx,
                    epoch,
                    at: head.at,
                    packet: head.id,
                },
            );
        }
        t.hop += 1;
        t.at += 1;
        match self.routes.link_at(t.at) {
            Some(next_link) => self.enqueue(next_link, t),
            None => {
                self.pool.get_mut(t.id).hop = t.hop;
                self.deliver(t.id)
            }
        }
    }

    fn deliver(&mut self, id: PacketId) {
        let packet = self.pool.release(id);
        self.stats.packets_delivered += 1;
        if packet.kind == PacketKind::Data {
            self.stats.data_packets_delivered += 1;
        }
        if !self.with_endpoint(packet.dst, |e, ctx| e.on_packet(&packet, ctx)) {
            self.stats.packets_discarded += 1;
        }
    }

    /// Calls `f` on the live endpoint `ep` with a context; returns whether it was live.
    #[inline]
    fn with_endpoint(
        &mut self,
        ep: EndpointId,
        f: impl FnOnce(&mut dyn Endpoint, &mut Ctx<'_>),
    ) -> bool {
        let Some(slot) = self.slots.get_mut(ep.index as usize) else {
            return false;
        };
        if slot.generation != ep.generation {
            return false;
        }
        let Some(mut endpoint) = slot.endpoint.take() else {
            return false;
        };
        let mut ctx = Ctx {
            world: self,
            me: ep,
            close: false,
        };
        f(endpoint.as_mut(), &mut ctx);
        let close = ctx.close;
        let slot = &mut self.slots[ep.index as usize];
        if close {
            slot.generation = slot.generation.wrapping_add(1);
            slot.uplink = u32::MAX;
            slot.reserved = false;
            self.free_slots.push(ep.index);
        } else {
            slot.endpoint = Some(endpoint);
        }
        true
    }

    fn apply_link_change(&mut self, i: u32) {
        let (_, link_id, change) = self.link_changes[i as usize];
        let now = self.now;
        let link = &mut self.links[link_id.0 as usize];
        match change {
            LinkChange::Rate(rate) => link.set_rate(rate, &mut self.wires, now),
            LinkChange::Limit(limit) => link.queue.set_limit(limit),
            LinkChange::Up => link.go_up(),
            LinkChange::Down => {
                if !link.is_up() {
                    return;
                }
                let lost = link.go_down(&mut self.wires, now);
                self.stats.packets_lost_link_down += lost.len() as u64;
                for id in lost {
                    self.pool.release(id);
                }
            }
        }
    }
}
