//! The central flow generator: one endpoint that opens every flow of a run at its arrival time,
//! through its [`Ctx`], with one [`Timer`] for the earliest pending arrival.
//!
//! Arrivals per class (docs/model.md 9.3, 9.5):
//! - none: one flow per connection at the class's `start` (long flows at t = 0);
//! - `poisson`: network-wide Poisson arrivals from `start`; at each one a pool connection is
//!   chosen uniformly; a next arrival is drawn only while `now < duration - 0.2 s`;
//! - `every`: synchronised rounds, every connection at once, with the same cut-off rule;
//! - `closed_loop`: each connection starts a flow at `start` and a new one when its previous
//!   one completes (or fails), while `now < duration - 0.2 s`; with `new_destination`, the new
//!   flow goes to a destination drawn then ([`htsim_workload::NewDestinations`], counting the
//!   class's flows open at that instant), which becomes the connection's destination;
//! - `matrix_rounds`: every connection of round 0 starts a flow at `start`; when the last flow
//!   of a round has completed (or failed), and while `now < duration - 0.2 s`, round r + 1's
//!   matrix is drawn ([`super::workload::RoundsPlan`]) and every connection of it starts a flow
//!   at that instant.
//!
//! Partition/aggregate jobs (a class with `jobs`, docs/model.md 7.6): at `start`, `concurrent`
//! jobs start. A job opens a request flow from its client to each server at once; when a request
//! completes (or fails), that server's response flow opens at the same instant; when every
//! response has completed (or failed), the job is over and, while `now < duration` (the jobs
//! keep `concurrent` running for the whole measured duration; there is no 0.2 s margin), a new
//! job starts at that instant. Responses of running jobs open in the drain too. Every flow of a
//! job carries the job's number ([`StartedFlow::job`]): 0, 1, 2, ... within the run, over every
//! job class, in the order jobs start (jobs starting at one instant in the order they are
//! started: a class's first `concurrent` one after another, classes at one instant in class
//! order), so job n's requests have lower flow ids than job n + 1's.
//!
//! Streams (so that transports compared on one seed see the same workload): sizes from
//! `workload.sizes.<class>` (closed loop: its substream per connection; a new destination from
//! the connection's substream of `workload.destinations.<class>`, one number per flow), Poisson
//! gaps from `workload.arrivals.<class>`, the connection of each Poisson arrival from
//! `workload.pick.<class>`, the hosts of the class's `j`-th job (from 0) from
//! `substream("workload.jobs.<class>", j)`;
//! each connection's own RNG is `substream("conn", flow_id)`.
//! Flow ids are numbered in arrival order (arrivals at one instant in class order), so open-loop
//! classes get the same ids, pairs, sizes and times whatever the transport; a class's `j`-th job
//! has the same client and servers whatever the transport (when it starts depends on how fast
//! earlier jobs finished).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use htsim_core::endpoint::{Ctx, Endpoint};
use htsim_core::ids::{EndpointId, HostId};
use htsim_core::packet::Packet;
use htsim_core::rng::{RngStreams, SimRng};
use htsim_core::timer::{Timer, TimerFired};
use htsim_core::SimTime;
use htsim_transport::trace::TraceLog;
use htsim_transport::{ConnectionSpec, Reach};
use htsim_workload::arrivals::arrival_cutoff;
use htsim_workload::{FlowSize, NewDestinations, PoissonArrivals, Rounds};
use rand::Rng;

use super::timeseries::FlowSelection;
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
    /// The partition/aggregate job it belongs to (a job class's requests and responses): the
    /// job's number, 0, 1, 2, ... within the run (over every class) in the order jobs start.
    pub job: Option<u64>,
}

/// A flow to open.
struct NewFlow {
    class: usize,
    src: u32,
    dst: u32,
    size: FlowSize,
    /// Notify the generator with this token when the flow completes or fails.
    token: Option<u32>,
    reach: Option<Reach>,
    job: Option<u64>,
}

/// A flow of a running job, by its notification token.
#[derive(Clone, Copy, Debug)]
struct JobFlow {
    class: u32,
    /// The job's number within the run.
    job: u64,
    client: u32,
    server: u32,
    /// A response (server to client); else a request.
    response: bool,
}

/// A running job: its number within the run and the responses it still waits for.
#[derive(Clone, Copy, Debug)]
struct RunningJob {
    number: u64,
    responses_left: usize,
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
    /// Closed loop with `new_destination`: how destinations are drawn.
    redraw: Option<Redraw>,
    /// A job class: the jobs it has started (the next one draws its hosts from substream
    /// `jobs_started` of `workload.jobs.<class>`).
    jobs_started: u64,
    /// A job class: the jobs running.
    running: Vec<RunningJob>,
    /// A class with matrix rounds: the current round.
    round: u64,
    /// A class with matrix rounds: the flows of the current round still open.
    round_open: usize,
}

/// The state of a closed-loop class whose flows draw new destinations.
struct Redraw {
    /// Draws a destination.
    destinations: NewDestinations,
    /// The destination stream of each connection.
    rngs: Vec<SimRng>,
    /// The class's flows open to each host, by host index (grown as needed).
    open: Vec<u32>,
}

impl Redraw {
    /// Counts one more (`opened`) or one fewer open flow of the class to `dst`.
    fn count(&mut self, dst: usize, opened: bool) {
        if self.open.len() <= dst {
            self.open.resize(dst + 1, 0);
        }
        let n = &mut self.open[dst];
        *n = if opened {
            n.saturating_add(1)
        } else {
            n.saturating_sub(1)
        };
    }
}

/// The generator endpoint (see the module doc).
pub struct Generator {
    classes: Vec<ClassState>,
    /// Per class, per pool connection: the destination's reach (PS / MMPTCP auto rules).
    reach: Vec<Vec<Reach>>,
    /// The reach of any host pair, for job flows (their pairs are drawn as jobs start).
    reach_of: Option<ReachFn>,
    /// Pending class arrivals: (time, class).
    agenda: BinaryHeap<Reverse<(SimTime, u32)>>,
    timer: Timer,
    streams: RngStreams,
    duration: SimTime,
    cutoff: SimTime,
    /// Closed-loop notification tokens: token -> (class, connection).
    loop_slots: Vec<(u32, u32)>,
    /// Notification tokens of job flows still open (tokens after the closed-loop ones, never
    /// reused, so a late second notification of a flow finds nothing).
    job_flows: HashMap<u32, JobFlow>,
    /// Notification tokens of matrix-round flows still open, with their class (drawn like job
    /// tokens).
    round_flows: HashMap<u32, u32>,
    /// The next job or round flow token.
    next_token: u32,
    /// The number of the next job to start, over every class.
    next_job: u64,
    started: Vec<StartedFlow>,
    /// The sending endpoint of each started flow, by flow id.
    senders: Vec<EndpointId>,
    error: Option<String>,
    /// The flows to trace and the run's trace log.
    trace: Option<(FlowSelection, TraceLog)>,
}

/// The [`Reach`] of a destination from a source host.
pub type ReachFn = Box<dyn Fn(u32, u32) -> Reach + Send>;

impl Generator {
    /// Gives every flow its destination's [`Reach`], from `reach(src, dst)` (docs/model.md
    /// 6.5, 6.7: computed from the topology by the caller): once per pool connection now, and
    /// for each job flow as it opens.
    pub fn with_reach(mut self, reach: impl Fn(u32, u32) -> Reach + Send + 'static) -> Self {
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
        self.reach_of = Some(Box::new(reach));
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
                if matches!(plan.arrivals, Some(Arrivals::ClosedLoop { .. })) {
                    for c in 0..plan.pool.len() {
                        loop_slots.push((i as u32, c as u32));
                        loop_sizes.push(
                            streams.substream(&format!("workload.sizes.{}", plan.name), c as u64),
                        );
                    }
                }
                let redraw = plan.new_destinations.clone().map(|destinations| Redraw {
                    destinations,
                    rngs: (0..plan.pool.len() as u64)
                        .map(|c| {
                            streams.substream(&format!("workload.destinations.{}", plan.name), c)
                        })
                        .collect(),
                    open: Vec::new(),
                });
                ClassState {
                    sizes: stream("sizes"),
                    gaps: stream("arrivals"),
                    pick: stream("pick"),
                    poisson: None,
                    rounds: None,
                    loop_sizes,
                    redraw,
                    jobs_started: 0,
                    running: Vec::new(),
                    round: 0,
                    round_open: 0,
                    plan,
                }
            })
            .collect();
        Generator {
            reach: Vec::new(),
            reach_of: None,
            classes,
            agenda: BinaryHeap::new(),
            timer: Timer::new(0),
            streams,
            duration,
            cutoff,
            job_flows: HashMap::new(),
            round_flows: HashMap::new(),
            next_token: loop_slots.len() as u32,
            next_job: 0,
            loop_slots,
            started: Vec::new(),
            senders: Vec::new(),
            error: None,
            trace: None,
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

    /// Traces the flows in `selection` into `log` ([`htsim_transport::trace`]).
    pub fn with_trace(mut self, selection: FlowSelection, log: TraceLog) -> Self {
        self.trace = Some((selection, log));
        self
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
        let pair = self.classes[c].plan.pool[conn];
        self.open_flow(
            ctx,
            NewFlow {
                class: c,
                src: pair.src as u32,
                dst: pair.dst as u32,
                size,
                token,
                reach: self.reach.get(c).and_then(|r| r.get(conn)).copied(),
                job: None,
            },
        );
    }

    /// Opens `flow` through its class's transport; a failure stops the generator with an error.
    fn open_flow(&mut self, ctx: &mut Ctx<'_>, flow: NewFlow) {
        if self.error.is_some() {
            return;
        }
        let class = &self.classes[flow.class];
        let flow_id = self.started.len() as u64;
        let size = match flow.size {
            FlowSize::Bytes(b) => Some(b),
            FlowSize::Infinite => None,
        };
        let now = ctx.now();
        let mut spec = ConnectionSpec::new(
            flow_id,
            HostId(flow.src),
            HostId(flow.dst),
            size,
            now,
            self.streams.substream("conn", flow_id),
        );
        if size.is_none() {
            spec.stop = Some(self.duration);
        }
        spec.notify_on_complete = flow.token.map(|t| (ctx.me(), t));
        spec.reach = flow.reach;
        if let Some((selection, log)) = &self.trace {
            if selection.contains_flow(flow.class as u32, flow_id) {
                spec.trace = Some(log.clone());
            }
        }
        match class.plan.transport.transport.open(ctx, spec) {
            Ok(connection) => {
                self.started.push(StartedFlow {
                    flow_id,
                    class: flow.class as u32,
                    src: flow.src,
                    dst: flow.dst,
                    size,
                    arrival: now,
                    job: flow.job,
                });
                self.senders.push(connection.sender);
            }
            Err(e) => {
                self.error = Some(format!(
                    "flows.{}: opening a flow from host{} to host{}: {e}",
                    class.plan.name, flow.src, flow.dst
                ))
            }
        }
    }

    /// A notification token not used before; `None` (and the run fails) when they ran out.
    fn new_token(&mut self) -> Option<u32> {
        let token = self.next_token;
        let Some(next) = token.checked_add(1) else {
            self.error = Some("more job and round flows than notification tokens (2^32)".into());
            return None;
        };
        self.next_token = next;
        Some(token)
    }

    /// Opens a flow on every connection of class `c`'s current round, each to be notified when
    /// it ends.
    fn open_round(&mut self, ctx: &mut Ctx<'_>, c: usize) {
        let n = self.classes[c].plan.pool.len();
        self.classes[c].round_open = n;
        for conn in 0..n {
            let Some(token) = self.new_token() else {
                return;
            };
            self.round_flows.insert(token, c as u32);
            let class = &mut self.classes[c];
            let size = class.plan.size.sample(&mut class.sizes);
            self.open(ctx, c, conn, size, Some(token));
        }
    }

    /// A flow of class `c`'s current round ended: after the last one, the next round starts
    /// while arrivals last.
    fn round_flow_ended(&mut self, ctx: &mut Ctx<'_>, c: usize) {
        let class = &mut self.classes[c];
        class.round_open = class.round_open.saturating_sub(1);
        if class.round_open > 0 || ctx.now() >= self.cutoff {
            return;
        }
        let Some(rounds) = &class.plan.rounds else {
            return;
        };
        class.round += 1;
        match rounds.connections(&self.streams, &class.plan.name, class.round) {
            Ok(pool) => {
                if let Some(reach) = &self.reach_of {
                    self.reach[c] = pool
                        .iter()
                        .map(|p| reach(p.src as u32, p.dst as u32))
                        .collect();
                }
                class.plan.pool = pool;
                self.open_round(ctx, c);
            }
            Err(e) => {
                self.error = Some(format!(
                    "flows.{}: round {}: {e}",
                    class.plan.name, class.round
                ))
            }
        }
    }

    /// Opens a request or response of a job, to be notified when it ends.
    fn open_job_flow(&mut self, ctx: &mut Ctx<'_>, f: JobFlow) {
        let Some(plan) = self.classes[f.class as usize].plan.jobs.as_ref() else {
            return;
        };
        let (src, dst, bytes) = if f.response {
            (f.server, f.client, plan.shape.response_bytes)
        } else {
            (f.client, f.server, plan.shape.request_bytes)
        };
        let Some(token) = self.new_token() else {
            return;
        };
        self.job_flows.insert(token, f);
        let reach = self.reach_of.as_ref().map(|r| r(src, dst));
        self.open_flow(
            ctx,
            NewFlow {
                class: f.class as usize,
                src,
                dst,
                size: FlowSize::Bytes(bytes),
                token: Some(token),
                reach,
                job: Some(f.job),
            },
        );
    }

    /// Starts the next job of job class `c`: draws its hosts and opens its requests.
    fn start_job(&mut self, ctx: &mut Ctx<'_>, c: usize) {
        let class = &mut self.classes[c];
        let Some(plan) = class.plan.jobs.as_ref() else {
            return;
        };
        let mut rng = self.streams.substream(
            &format!("workload.jobs.{}", class.plan.name),
            class.jobs_started,
        );
        class.jobs_started += 1;
        let number = self.next_job;
        self.next_job += 1;
        let job = match plan.shape.next_job(&mut rng, &plan.layout, &[]) {
            Ok(job) => job,
            Err(e) => {
                self.error = Some(format!("flows.{}.jobs: {e}", class.plan.name));
                return;
            }
        };
        class.running.push(RunningJob {
            number,
            responses_left: job.servers.len(),
        });
        for &server in &job.servers {
            self.open_job_flow(
                ctx,
                JobFlow {
                    class: c as u32,
                    job: number,
                    client: job.client as u32,
                    server: server as u32,
                    response: false,
                },
            );
        }
    }

    /// A job flow ended (completed or failed): a request opens its response; the last response
    /// ends the job, and a new one starts while the duration lasts.
    fn job_flow_ended(&mut self, ctx: &mut Ctx<'_>, f: JobFlow) {
        if !f.response {
            self.open_job_flow(
                ctx,
                JobFlow {
                    response: true,
                    ..f
                },
            );
            return;
        }
        let c = f.class as usize;
        let running = &mut self.classes[c].running;
        let Some(i) = running.iter().position(|j| j.number == f.job) else {
            return;
        };
        running[i].responses_left -= 1;
        if running[i].responses_left == 0 {
            running.remove(i);
            if ctx.now() < self.duration {
                self.start_job(ctx, c);
            }
        }
    }

    /// Handles class `c`'s arrival due now.
    fn arrive(&mut self, ctx: &mut Ctx<'_>, c: usize) {
        if let Some(plan) = &self.classes[c].plan.jobs {
            for _ in 0..plan.shape.concurrent {
                self.start_job(ctx, c);
            }
            return;
        }
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
            Some(Arrivals::MatrixRounds) => self.open_round(ctx, c),
            Some(Arrivals::ClosedLoop { .. }) => {
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
        let dst = class.plan.pool[conn].dst;
        if let Some(redraw) = &mut class.redraw {
            redraw.count(dst, true);
        }
        self.open(ctx, c, conn, size, Some(token));
    }

    /// The flow of closed-loop slot `token` ended: while arrivals last, the slot's next flow
    /// opens, to a new destination if its class draws them.
    fn loop_flow_ended(&mut self, ctx: &mut Ctx<'_>, token: u32) {
        let Some(&(c, conn)) = self.loop_slots.get(token as usize) else {
            return;
        };
        let (c, conn) = (c as usize, conn as usize);
        let class = &mut self.classes[c];
        if let Some(redraw) = &mut class.redraw {
            let pair = &mut class.plan.pool[conn];
            redraw.count(pair.dst, false);
            if ctx.now() >= self.cutoff {
                return;
            }
            pair.dst =
                redraw
                    .destinations
                    .draw(&mut redraw.rngs[conn], pair.src, &redraw.open, pair.dst);
            if let (Some(reach), Some(per_conn)) = (&self.reach_of, self.reach.get_mut(c)) {
                per_conn[conn] = reach(pair.src as u32, pair.dst as u32);
            }
        } else if ctx.now() >= self.cutoff {
            return;
        }
        self.loop_flow(ctx, token);
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
                if !class.plan.pool.is_empty() || class.plan.jobs.is_some() {
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
        if (token as usize) < self.loop_slots.len() {
            self.loop_flow_ended(ctx, token);
        } else if let Some(f) = self.job_flows.remove(&token) {
            self.job_flow_ended(ctx, f);
        } else if let Some(c) = self.round_flows.remove(&token) {
            self.round_flow_ended(ctx, c as usize);
        }
    }
}
