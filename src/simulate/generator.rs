//! The central flow generator: one endpoint that opens every flow of a run at its arrival time,
//! through its [`Ctx`], with one [`Timer`] for the earliest pending arrival.
//!
//! Arrivals per class (transports.md 9.3, 9.5):
//! - none: one flow per connection at the class's `start` (long flows at t = 0);
//! - `poisson`: network-wide Poisson arrivals from `start`; at each one a pool connection is
//!   chosen uniformly; a next arrival is drawn only while `now < duration - 0.2 s`;
//! - `every`: synchronised rounds, every connection at once, with the same cut-off rule;
//! - `closed_loop`: each connection starts a flow at `start` and a new one when its previous
//!   one completes (or fails), while `now < duration - 0.2 s`.
//!
//! Streams (so that transports compared on one seed see the same workload): sizes from
//! `workload.sizes.<class>` (closed loop: its substream per connection), Poisson gaps from
//! `workload.arrivals.<class>`, the connection of each Poisson arrival from
//! `workload.pick.<class>`; each connection's own RNG is `substream("conn", flow_id)`.
//! Flow ids are numbered in arrival order (arrivals at one instant in class order), so open-loop
//! classes get the same ids, pairs, sizes and times whatever the transport.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use htsim_core::endpoint::{Ctx, Endpoint};
use htsim_core::ids::{EndpointId, HostId};
use htsim_core::packet::Packet;
use htsim_core::rng::{RngStreams, SimRng};
use htsim_core::timer::{Timer, TimerFired};
use htsim_core::SimTime;
use htsim_transport::ConnectionSpec;
use htsim_workload::arrivals::arrival_cutoff;
use htsim_workload::{FlowSize, PoissonArrivals, Rounds};
use rand::Rng;

use super::workload::ClassPlan;
use crate::scenario::Arrivals;

/// What the generator knows about a flow it opened (a flows.csv row before the results).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartedFlow {
    /// The flow's id (dense, from 0).
    pub flow_id: u64,
    /// Index of its class in the scenario.
    pub class: u32,
    /// Source host.
    pub src: u32,
    /// Destination host.
    pub dst: u32,
    /// Bytes, `None` for a long flow.
    pub size: Option<u64>,
    /// When it was opened.
    pub arrival: SimTime,
}

/// One class's state in the generator.
struct ClassState {
    plan: ClassPlan,
    sizes: SimRng,
    gaps: SimRng,
    pick: SimRng,
    poisson: Option<PoissonArrivals>,
    rounds: Option<Rounds>,
    /// Closed loop: the size stream of each connection.
    loop_sizes: Vec<SimRng>,
}

/// The generator endpoint (see the module doc).
pub struct Generator {
    classes: Vec<ClassState>,
    /// Per class, per pool connection: the destination's reach (PS / MMPTCP auto rules).
    reach: Vec<Vec<htsim_transport::Reach>>,
    /// Pending class arrivals: (time, class).
    agenda: BinaryHeap<Reverse<(SimTime, u32)>>,
    timer: Timer,
    streams: RngStreams,
    duration: SimTime,
    cutoff: SimTime,
    /// Closed-loop notification tokens: token -> (class, connection).
    loop_slots: Vec<(u32, u32)>,
    started: Vec<StartedFlow>,
    /// The sending endpoint of each started flow, by flow id.
    senders: Vec<EndpointId>,
    error: Option<String>,
}

impl Generator {
    /// Gives every pool connection its destination's [`Reach`](htsim_transport::Reach), from
    /// `reach(src, dst)` (transports.md 6.5, 6.7: computed from the topology by the caller).
    pub fn with_reach(mut self, reach: impl Fn(u32, u32) -> htsim_transport::Reach) -> Self {
        self.reach = self
            .classes
            .iter()
            .map(|c| {
                c.plan
                    .pool
                    .iter()
                    .map(|p| reach(p.src as u32, p.dst as u32))
                    .collect()
            })
            .collect();
        self
    }

    /// A generator for `classes`, with the run's `streams` and its `duration`.
    pub fn new(classes: Vec<ClassPlan>, streams: RngStreams, duration: SimTime) -> Self {
        let cutoff = arrival_cutoff(duration);
        let mut loop_slots = Vec::new();
        let classes = classes
            .into_iter()
            .enumerate()
            .map(|(i, plan)| {
                let stream = |kind: &str| streams.stream(&format!("workload.{kind}.{}", plan.name));
                let mut loop_sizes = Vec::new();
                if plan.arrivals == Some(Arrivals::ClosedLoop) {
                    for c in 0..plan.pool.len() {
                        loop_slots.push((i as u32, c as u32));
                        loop_sizes.push(
                            streams.substream(&format!("workload.sizes.{}", plan.name), c as u64),
                        );
                    }
                }
                ClassState {
                    sizes: stream("sizes"),
                    gaps: stream("arrivals"),
                    pick: stream("pick"),
                    poisson: None,
                    rounds: None,
                    loop_sizes,
                    plan,
                }
            })
            .collect();
        Generator {
            reach: Vec::new(),
            classes,
            agenda: BinaryHeap::new(),
            timer: Timer::new(0),
            streams,
            duration,
            cutoff,
            loop_slots,
            started: Vec::new(),
            senders: Vec::new(),
            error: None,
        }
    }

    /// The flows opened so far, by flow id.
    pub fn started(&self) -> &[StartedFlow] {
        &self.started
    }

    /// The sending endpoint of each flow opened so far, by flow id (for sampling its state;
    /// it is gone from the world once the flow has closed).
    pub fn senders(&self) -> &[EndpointId] {
        &self.senders
    }

    /// The first error met opening a flow (the run fails with it).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    fn arm(&mut self, ctx: &mut Ctx<'_>) {
        if let Some(Reverse((t, _))) = self.agenda.peek() {
            self.timer.set(ctx, *t);
        }
    }

    /// Opens one flow of class `c` on its connection `conn`.
    fn open(
        &mut self,
        ctx: &mut Ctx<'_>,
        c: usize,
        conn: usize,
        size: FlowSize,
        token: Option<u32>,
    ) {
        if self.error.is_some() {
            return;
        }
        let class = &self.classes[c];
        let pair = class.plan.pool[conn];
        let flow_id = self.started.len() as u64;
        let size = match size {
            FlowSize::Bytes(b) => Some(b),
            FlowSize::Infinite => None,
        };
        let now = ctx.now();
        let mut spec = ConnectionSpec::new(
            flow_id,
            HostId(pair.src as u32),
            HostId(pair.dst as u32),
            size,
            now,
            self.streams.substream("conn", flow_id),
        );
        if size.is_none() {
            spec.stop = Some(self.duration);
        }
        spec.notify_on_complete = token.map(|t| (ctx.me(), t));
        spec.reach = self.reach.get(c).and_then(|r| r.get(conn)).copied();
        match class.plan.transport.transport.open(ctx, spec) {
            Ok(connection) => {
                self.started.push(StartedFlow {
                    flow_id,
                    class: c as u32,
                    src: pair.src as u32,
                    dst: pair.dst as u32,
                    size,
                    arrival: now,
                });
                self.senders.push(connection.sender);
            }
            Err(e) => {
                self.error = Some(format!(
                    "flows.{}: opening a flow from host{} to host{}: {e}",
                    class.plan.name, pair.src, pair.dst
                ))
            }
        }
    }

    /// Handles class `c`'s arrival due now.
    fn arrive(&mut self, ctx: &mut Ctx<'_>, c: usize) {
        let n = self.classes[c].plan.pool.len();
        match self.classes[c].plan.arrivals.clone() {
            None => {
                for conn in 0..n {
                    let class = &mut self.classes[c];
                    let size = class.plan.size.sample(&mut class.sizes);
                    self.open(ctx, c, conn, size, None);
                }
            }
            Some(Arrivals::Poisson(_)) => {
                let class = &mut self.classes[c];
                let conn = class.pick.random_range(0..n);
                let size = class.plan.size.sample(&mut class.sizes);
                let next = class
                    .poisson
                    .as_mut()
                    .and_then(|p| p.next_arrival(&mut class.gaps));
                self.open(ctx, c, conn, size, None);
                if let Some(t) = next {
                    self.agenda.push(Reverse((t, c as u32)));
                }
            }
            Some(Arrivals::Every(_)) => {
                for conn in 0..n {
                    let class = &mut self.classes[c];
                    let size = class.plan.size.sample(&mut class.sizes);
                    self.open(ctx, c, conn, size, None);
                }
                if let Some(t) = self.classes[c].rounds.as_mut().and_then(Iterator::next) {
                    self.agenda.push(Reverse((t, c as u32)));
                }
            }
            Some(Arrivals::ClosedLoop) => {
                let first = self
                    .loop_slots
                    .iter()
                    .position(|&(k, _)| k as usize == c)
                    .unwrap_or(0);
                for conn in 0..n {
                    self.loop_flow(ctx, (first + conn) as u32);
                }
            }
        }
    }

    /// Opens the next flow of closed-loop slot `token`.
    fn loop_flow(&mut self, ctx: &mut Ctx<'_>, token: u32) {
        let Some(&(c, conn)) = self.loop_slots.get(token as usize) else {
            return;
        };
        let (c, conn) = (c as usize, conn as usize);
        let class = &mut self.classes[c];
        let size = class.plan.size.sample(&mut class.loop_sizes[conn]);
        self.open(ctx, c, conn, size, Some(token));
    }
}

impl Endpoint for Generator {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        for (c, class) in self.classes.iter_mut().enumerate() {
            let start = class.plan.start;
            let first = match &class.plan.arrivals {
                Some(Arrivals::Poisson(rate)) => {
                    match PoissonArrivals::new(*rate, start, self.cutoff) {
                        Ok(mut p) => {
                            let t = p.next_arrival(&mut class.gaps);
                            class.poisson = Some(p);
                            t
                        }
                        Err(e) => {
                            self.error = Some(format!("flows.{}.arrivals: {e}", class.plan.name));
                            None
                        }
                    }
                }
                Some(Arrivals::Every(period)) => {
                    // Rounds at start, start + period, ... while (cutoff - now) > period.
                    match htsim_workload::round_times(start, *period, self.duration) {
                        Ok(mut r) => {
                            let t = r.next();
                            class.rounds = Some(r);
                            t
                        }
                        Err(e) => {
                            self.error = Some(format!("flows.{}.arrivals: {e}", class.plan.name));
                            None
                        }
                    }
                }
                _ => Some(start),
            };
            if let Some(t) = first {
                if !class.plan.pool.is_empty() {
                    self.agenda.push(Reverse((t, c as u32)));
                }
            }
        }
        self.arm(ctx);
    }

    fn on_packet(&mut self, _packet: &Packet, _ctx: &mut Ctx<'_>) {}

    fn on_timer(&mut self, fired: TimerFired, ctx: &mut Ctx<'_>) {
        if !self.timer.fire(ctx, fired) {
            return;
        }
        let now = ctx.now();
        while let Some(&Reverse((t, c))) = self.agenda.peek() {
            if t > now {
                break;
            }
            self.agenda.pop();
            self.arrive(ctx, c as usize);
        }
        self.arm(ctx);
    }

    fn on_notify(&mut self, token: u32, ctx: &mut Ctx<'_>) {
        if ctx.now() < self.cutoff {
            self.loop_flow(ctx, token);
        }
    }
}
