//! The central First Fit scheduler (`[routing] first_fit`, docs/model.md 3.1): \[P2\]'s
//! Hedera-like comparison in Fig. 13, as htsim's `FirstFit` runs it.
//!
//! Every `interval` the scheduler looks at how many bytes each single-path flow had
//! acknowledged since its previous scan. First, every flow it had placed that moved less than
//! the threshold gives its place back; then, in the order the flows started, every flow not
//! placed that moved more than the threshold is placed on the first of its pair's equal-cost
//! paths whose busiest link (leaving out the last, into the destination host) carries the
//! fewest placed flows, and its sender moves onto that path. A placed flow counts on every
//! link of its path. A flow that stopped (completed, failed, or ended with the run's
//! duration) gives its place back at the next scan. Multipath and packet-scatter senders do
//! not move and are never placed.

use htsim_core::ids::{EndpointId, HostId, PathSetId, RouteId};
use htsim_core::world::World;
use htsim_core::SimTime;

use super::generator::StartedFlow;
use crate::scenario::FirstFitConfig;

/// The scheduler's state during a run.
#[derive(Debug)]
pub struct FirstFit {
    interval: SimTime,
    /// Share of the sender's host link rate above which a flow is placed.
    threshold: f64,
    /// When the next scan is due.
    next: SimTime,
    /// The flows it watches, in the order they started.
    flows: Vec<Watched>,
    /// Started flows already taken into `flows`.
    seen: usize,
    /// Placed flows on each link, by link id.
    placed_on: Vec<u32>,
}

/// A flow the scheduler watches.
#[derive(Debug)]
struct Watched {
    sender: EndpointId,
    set: PathSetId,
    /// Bytes acknowledged at the previous scan.
    counter: u64,
    /// The bytes to move in one interval to be placed.
    threshold_bytes: f64,
    /// The path it was placed on, while it holds its place.
    placed: Option<RouteId>,
    /// False once its sender declined to move (not a single-path sender).
    movable: bool,
}

/// A flow started since the previous scan.
#[derive(Clone, Copy, Debug)]
pub struct NewFlow {
    src: u32,
    dst: u32,
    sender: EndpointId,
}

impl FirstFit {
    /// A scheduler whose first scan is one interval into the run, over a world of `links`
    /// links.
    pub fn new(config: &FirstFitConfig, links: usize) -> Self {
        FirstFit {
            interval: config.interval,
            threshold: config.threshold,
            next: config.interval,
            flows: Vec::new(),
            seen: 0,
            placed_on: vec![0; links],
        }
    }

    /// When the next scan is due.
    pub fn next_time(&self) -> SimTime {
        self.next
    }

    /// The flows of `started` (with their senders) that started since the previous call.
    pub fn new_flows(&mut self, started: &[StartedFlow], senders: &[EndpointId]) -> Vec<NewFlow> {
        let new: Vec<NewFlow> = started
            .iter()
            .zip(senders)
            .skip(self.seen)
            .map(|(f, &sender)| NewFlow {
                src: f.src,
                dst: f.dst,
                sender,
            })
            .collect();
        self.seen = started.len().min(senders.len());
        new
    }

    /// One scan at the world's current time, after taking in `new` flows.
    pub fn scan(&mut self, world: &mut World, new: &[NewFlow]) {
        for f in new {
            self.watch(world, f);
        }
        // Each flow's bytes acknowledged now, `None` once it stopped; read once per scan
        // (moving a sender does not change them).
        let now = world.now();
        let acked: Vec<Option<u64>> = self
            .flows
            .iter()
            .map(|f| {
                world
                    .endpoint(f.sender)
                    .and_then(|e| e.flow_record(now))
                    .map(|r| r.bytes_acked)
            })
            .collect();
        // Give back the places of flows that slowed down or stopped.
        for (i, bytes) in acked.iter().enumerate() {
            let f = &self.flows[i];
            let Some(route) = f.placed else { continue };
            let slow = match bytes {
                Some(b) => (b.saturating_sub(f.counter) as f64) < f.threshold_bytes,
                None => true,
            };
            if slow {
                self.count(world, route, false);
                self.flows[i].placed = None;
            }
        }
        // Place the flows that moved more than the threshold.
        for (i, bytes) in acked.iter().enumerate() {
            let Some(bytes) = *bytes else { continue };
            let f = &mut self.flows[i];
            let moved = bytes.saturating_sub(f.counter);
            f.counter = bytes;
            if f.placed.is_some() || !f.movable || (moved as f64) <= f.threshold_bytes {
                continue;
            }
            let (set, sender) = (f.set, f.sender);
            let (index, route) = self.least_loaded(world, set);
            let moved_there = world
                .endpoint_mut(sender)
                .is_some_and(|e| e.pin_path(index));
            if moved_there {
                self.flows[i].placed = Some(route);
                self.count(world, route, true);
            } else {
                self.flows[i].movable = false;
            }
        }
        // Forget flows that stopped and hold no place.
        let mut open = acked.iter().map(Option::is_some);
        self.flows
            .retain(|f| open.next().unwrap_or(false) || f.placed.is_some());
        self.next = self.next.saturating_add(self.interval);
    }

    /// Starts watching `f` (a flow between hosts without a path is never placed).
    fn watch(&mut self, world: &mut World, f: &NewFlow) {
        let routes = world.routes_mut();
        let Some(set) = routes.path_set(HostId(f.src), HostId(f.dst)) else {
            return;
        };
        let first = routes.route(set, 0);
        let Some(&host_link) = world.routes().links(first).first() else {
            return;
        };
        let rate_bps = world.link(host_link).rate().as_bps() as f64;
        let threshold_bytes = self.threshold * rate_bps / 8.0 * self.interval.as_secs_f64();
        self.flows.push(Watched {
            sender: f.sender,
            set,
            counter: 0,
            threshold_bytes,
            placed: None,
            movable: true,
        });
    }

    /// The path of `set` whose busiest link, the last left out, carries the fewest placed
    /// flows (the first such path), with its route.
    fn least_loaded(&self, world: &mut World, set: PathSetId) -> (u32, RouteId) {
        let paths = world.routes().path_count(set);
        let mut best: Option<(u32, u32, RouteId)> = None;
        for index in 0..paths {
            let route = world.routes_mut().route(set, index);
            let links = world.routes().links(route);
            let cost = links[..links.len().saturating_sub(1)]
                .iter()
                .map(|l| self.placed_on[l.0 as usize])
                .max()
                .unwrap_or(0);
            if best.is_none_or(|(c, _, _)| cost < c) {
                best = Some((cost, index, route));
            }
        }
        let (_, index, route) = best.expect("a path set has at least one path");
        (index, route)
    }

    /// Adds (or removes) one placed flow on every link of `route`.
    fn count(&mut self, world: &World, route: RouteId, add: bool) {
        for l in world.routes().links(route) {
            let n = &mut self.placed_on[l.0 as usize];
            *n = if add { *n + 1 } else { n.saturating_sub(1) };
        }
    }
}
