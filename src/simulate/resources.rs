//! Memory: what a run needs, estimated before it is allocated, against what the machine has.
//!
//! The budget of a run is the memory available ([`MEMORY_LIMIT_ENV`] when set, else
//! `MemAvailable` of `/proc/meminfo` on Linux; no limit where neither is known) divided by the
//! number of runs at once (`--jobs`). A run's estimate is its network ([`BYTES_PER_LINK`] per
//! directed link, checked by the topology builders before they allocate, through
//! [`World::set_max_links`](htsim_core::world::World::set_max_links)) plus its time series
//! ([`BYTES_PER_TIMESERIES_ROW`] per row of timeseries.csv, which is held in memory until the run
//! ends), its flows ([`BYTES_PER_FLOW`] per flow it opens: every flow's record is kept until
//! the run ends, see [`flows_estimate`]), the transport state of the connections open at once
//! ([`BYTES_PER_SUBFLOW`] per subflow, and the packets their initial windows put in the
//! network, at most what its queues and links hold; see [`open_at_once`]) and its trace
//! ([`BYTES_PER_TRACE_EVENT`] per event kept).
//! Its traffic matrices ([`BYTES_PER_CONNECTION`] per connection) are checked before each is
//! drawn, by the workload's planning, which also checks the flows of a `neighbours` matrix
//! before it lists the pairs ([`Budget::check_matrix_flows`]).
//! A run over its budget is refused with the estimate and the key at fault, before it starts.

use htsim_core::units::parse_size;
use htsim_topology::topology::Topology;

use super::setup_error::SetupError;
use super::timeseries::Sampler;
use super::workload::ClassPlan;
use crate::scenario::Arrivals;

/// Bytes per directed link of a run: the built network takes 311 B per link (FatTree k=32:
/// 14.6 MiB for 49 152 links, nodes, hosts, queues and routes included), a run where every host
/// sends a long TCP flow at 10 Gb/s into 100-packet queues about 5 KB per link in all, flows
/// and packets included (peak RSS 37 MB for FatTree k=16, 6144 links; 251 MB for k=32).
pub const BYTES_PER_LINK: u64 = 4096;

/// Bytes per row of timeseries.csv held in memory: the samples (`time_ns,series,id,value`,
/// about 40 B) until the run ends, then also the file's rows, which add the run's columns
/// (point, seed, sweep values: 60 B for a typical sweep) and the unit.
pub const BYTES_PER_TIMESERIES_ROW: u64 = 160;

/// Bytes per flow a run opens, kept until the run ends: the generator's record of the flow
/// (`StartedFlow`, 64 B), the engine's record once it completed (`FlowRecord`, 144 B), the slot
/// and metrics input built from both at the end (`Option<FlowRecord>` and `FlowInput`, 400 B),
/// its typed result (`FlowResult`, 240 B) and its flows.csv row (about 150 B): 998 B by
/// `size_of` (see the test below), rounded up to 1 KiB for allocator overhead. The transport
/// state of open flows is counted apart ([`BYTES_PER_SUBFLOW`]).
pub const BYTES_PER_FLOW: u64 = 1024;

/// Bytes per subflow open at once (a TCP connection has one; an MPTCP connection one per
/// `subflows`), both ends: the sender's subflow and the multipath sender's view and memo of it,
/// the receiver's, their timers and their share of the endpoints. The heap grows by 1131 to
/// 1148 B per subflow from MPTCP connections of 1 subflow to 32 (tests/subflow_memory.rs, which
/// checks it against this charge), the resident memory by 970 B per subflow from 64 subflows
/// to 256 (1024 connections on a star of 64 hosts: 267 MB at 256); rounded up.
pub const BYTES_PER_SUBFLOW: u64 = 1280;

/// Bytes per segment of a subflow's initial window, besides the packet that carries it: the
/// sender keeps each segment sent and not yet acknowledged in its retransmission queue (24 B).
pub const BYTES_PER_WINDOW_SEGMENT: u64 = 24;

/// Bytes per trace event kept (`[output.trace] max_events`): the event and its
/// trace.csv row (64 B + about 60 B), held until the run ends.
pub const BYTES_PER_TRACE_EVENT: u64 = 128;

/// Bytes per (flow, watched link) count of `[output] crossings`, charged for every flow and
/// every watched link (a flow crosses few of them, so this is an upper bound): the engine's
/// count in its ordered map (32 B, about 48 B with the map's nodes), the same taken out at the
/// window's end (32 B), its typed result (`CrossingResult`, 64 B, and the link's name, about
/// 32 B) and its crossings.csv row (about 80 B): 256 B (see the test below), rounded up.
pub const BYTES_PER_CROSSING: u64 = 320;

/// Bytes per connection of a traffic matrix at set-up's peak: a run's matrices are drawn
/// before its flows are counted, so their size is checked first, by this.
///
/// A [`htsim_workload::Connection`] is 16 B ([`CONNECTION_SIZE`]), held in the matrix's pool.
/// Drawing it several times holds the source beside the draws (16 B / `draws` more, at most
/// 8 B), dropped before the split. Splitting the pool among classes (`senders`) holds the
/// sample's indices (4 B per connection at most, `rand::seq::index::sample`), turns them into
/// a bit per connection (1/8 B), then copies the smaller part out (at most half, 8 B) while
/// compacting the other within the pool: 16 + 8 + 1/8 = 24.125 B, measured at 24.4 B with the
/// neighbours search's lists (a FatTree k = 24 matrix of 456 192 connections split in half,
/// tests/matrix_memory.rs); rounded up to 25 B. A class with matrix rounds keeps a fixed
/// matrix's pairs for the run, and is charged for them as for one more draw. Per-host working
/// memory (a drawn matrix's hosts, the search's lists, the path classes of the pinned-path
/// check: a few hundred bytes a host) is within the network's [`BYTES_PER_LINK`].
pub const BYTES_PER_CONNECTION: u64 = 25;

/// Bytes of one [`htsim_workload::Connection`] held in a pool.
pub const CONNECTION_SIZE: u64 = std::mem::size_of::<htsim_workload::Connection>() as u64;

/// The environment variable that sets the memory available to htsim (a size such as
/// `"512MiB"` or `"8GB"`), instead of what the machine reports.
pub const MEMORY_LIMIT_ENV: &str = "HTSIM_MEMORY_LIMIT";

/// How much memory runs may use, and how many run at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Bytes available to all runs together.
    pub available: u64,
    /// Runs at the same time (`--jobs`, at most the number of runs).
    pub runs_at_once: u64,
    /// Where `available` comes from.
    pub source: BudgetSource,
}

/// Where the memory figure of a [`Budget`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BudgetSource {
    /// [`MEMORY_LIMIT_ENV`].
    Env,
    /// `MemAvailable` in `/proc/meminfo`.
    MemAvailable,
}

impl Budget {
    /// The budget of `runs_at_once` runs on this machine: [`MEMORY_LIMIT_ENV`] when set, else
    /// `MemAvailable`; `None` when neither is known (no limit). An unreadable variable is an
    /// error.
    pub fn of_machine(runs_at_once: u64) -> Result<Option<Budget>, SetupError> {
        let runs_at_once = runs_at_once.max(1);
        if let Some(text) = std::env::var_os(MEMORY_LIMIT_ENV) {
            let text = text.to_string_lossy();
            let available = parse_size(text.trim()).map_err(|e| {
                SetupError::new(
                    "",
                    format!("{MEMORY_LIMIT_ENV}=\"{text}\" is not a size: {e}"),
                )
                .with_hint(format!("for example {MEMORY_LIMIT_ENV}=4GiB"))
            })?;
            return Ok(Some(Budget {
                available,
                runs_at_once,
                source: BudgetSource::Env,
            }));
        }
        Ok(mem_available().map(|available| Budget {
            available,
            runs_at_once,
            source: BudgetSource::MemAvailable,
        }))
    }

    /// Bytes one run may use.
    pub fn per_run(&self) -> u64 {
        self.available / self.runs_at_once
    }

    /// The most directed links one run's network may have.
    pub fn max_links(&self) -> u64 {
        self.per_run() / BYTES_PER_LINK
    }

    /// The most traffic-matrix connections one run may hold ([`BYTES_PER_CONNECTION`] each).
    pub fn max_connections(&self) -> u64 {
        self.per_run() / BYTES_PER_CONNECTION
    }

    /// Checks that a run's traffic matrices, `connections` connections in all, fit the budget.
    pub fn check_connections(&self, connections: u64) -> Result<(), SetupError> {
        self.check(
            &format!(
                "{connections} connections in its traffic matrices, {BYTES_PER_CONNECTION} B each"
            ),
            connections.saturating_mul(BYTES_PER_CONNECTION),
        )
    }

    /// Checks a run's estimate; the error gives the estimate and the budget.
    fn check(&self, what: &str, bytes: u64) -> Result<(), SetupError> {
        if bytes <= self.per_run() {
            return Ok(());
        }
        let at_once = if self.runs_at_once > 1 {
            format!(
                ", {} runs at once need {}",
                self.runs_at_once,
                mib(bytes.saturating_mul(self.runs_at_once))
            )
        } else {
            String::new()
        };
        Err(SetupError::new(
            "",
            format!(
                "a run needs about {} ({what}){at_once}, and {} is available ({})",
                mib(bytes),
                mib(self.available),
                self.source_text()
            ),
        ))
    }

    /// Checks `total` bytes, a network of `links` links and `flows` flows in all, after a
    /// class (`name`) that opens `count` of them, decided by its `key`; the error is at `key`.
    fn check_flows(
        &self,
        links: u64,
        flows: u64,
        total: u64,
        key: &str,
        count: u64,
        name: &str,
    ) -> Result<(), SetupError> {
        self.check(
            &format!("{links} directed links, and about {flows} flows"),
            total,
        )
        .map_err(|e| {
            e.within(key).with_hint(format!(
                "class \"{name}\" opens about {count} flows ({BYTES_PER_FLOW} B each, kept \
                     until the run ends): fewer flows (a lower rate or a longer period), a \
                     shorter run, fewer runs at once (--jobs), or set {MEMORY_LIMIT_ENV} if more \
                     memory is free"
            ))
        })
    }

    /// Checks, before a class's matrix of `connections` connections is listed, the flows the
    /// class (`name`, taking `taken` of them, with `arrivals`) opens from them over `duration`
    /// on a network of `links` links, alone: a lower bound of what [`Budget::check_run`]
    /// checks once every class is planned, so that a matrix whose pairs would fit but whose
    /// flows would not is refused before its pairs are listed. The error is at the key that
    /// decides the flows, within the class.
    pub fn check_matrix_flows(
        &self,
        links: u64,
        taken: u64,
        arrivals: Option<&Arrivals>,
        duration: htsim_core::SimTime,
        name: &str,
    ) -> Result<(), SetupError> {
        let (key, count) = flows_of(taken, arrivals, duration);
        let total = links
            .saturating_mul(BYTES_PER_LINK)
            .saturating_add(count.saturating_mul(BYTES_PER_FLOW));
        self.check_flows(links, count, total, key, count, name)
    }

    fn source_text(&self) -> String {
        match self.source {
            BudgetSource::Env => MEMORY_LIMIT_ENV.to_string(),
            BudgetSource::MemAvailable => "MemAvailable in /proc/meminfo".into(),
        }
    }

    /// Checks a run on `topology` against the budget: the network, then each flow class's
    /// flows (over `duration`) and the transport state of its connections open at once (with
    /// the packets of their initial windows, of which the network holds at most
    /// `packets_held`), the trace's `trace_events` and the time series, each added to what
    /// came before; the error names the first key that takes the run over.
    #[allow(clippy::too_many_arguments)]
    pub fn check_run(
        &self,
        topology: &Topology,
        plans: &[ClassPlan],
        duration: htsim_core::SimTime,
        packets_held: u64,
        trace_events: u64,
        watched_links: u64,
        sampler: Option<&Sampler>,
    ) -> Result<(), SetupError> {
        let links = topology.links().len() as u64;
        let mut total = links.saturating_mul(BYTES_PER_LINK);
        self.check(&format!("{links} directed links"), total)?;
        let mut flows = 0u64;
        let mut subflows = 0u64;
        let mut window_packets = 0u64;
        for plan in plans {
            let within = format!("flows.{}", plan.name);
            let (key, count) = flows_estimate(plan, duration);
            flows = flows.saturating_add(count);
            total = total.saturating_add(count.saturating_mul(BYTES_PER_FLOW));
            self.check_flows(links, flows, total, key, count, &plan.name)
                .map_err(|e| e.within(&within))?;
            let connections = open_at_once(plan);
            let per_connection = u64::from(plan.transport.transport.subflows_from_start());
            let window = u64::from(plan.transport.tcp.initial_cwnd_segments);
            let opened = connections.saturating_mul(per_connection);
            subflows = subflows.saturating_add(opened);
            total = total.saturating_add(opened.saturating_mul(
                BYTES_PER_SUBFLOW.saturating_add(window.saturating_mul(BYTES_PER_WINDOW_SEGMENT)),
            ));
            let packets_before = window_packets.min(packets_held);
            window_packets = window_packets.saturating_add(opened.saturating_mul(window));
            let packets = window_packets.min(packets_held);
            total =
                total.saturating_add((packets - packets_before).saturating_mul(BYTES_PER_PACKET));
            self.check(
                &format!(
                    "{links} directed links, about {flows} flows, {subflows} subflows open at \
                     once and {packets} packets of their initial windows"
                ),
                total,
            )
            .map_err(|e| {
                let count = |n: u64, what: &str| match n {
                    1 => format!("one {what}"),
                    n => format!("{n} {what}s"),
                };
                let (subflows, segments) =
                    (count(per_connection, "subflow"), count(window, "segment"));
                e.within(&format!("{within}.transport")).with_hint(format!(
                    "class \"{}\" opens {connections} connections at once, {subflows} each \
                     with an initial window of {segments} ({BYTES_PER_SUBFLOW} B per \
                     subflow, {BYTES_PER_WINDOW_SEGMENT} B per segment and {BYTES_PER_PACKET} B \
                     per packet in the network): fewer subflows, a smaller initial_cwnd, fewer \
                     connections, fewer runs at once (--jobs), or set {MEMORY_LIMIT_ENV} if more \
                     memory is free",
                    plan.name
                ))
            })?;
        }
        if watched_links > 0 {
            let counts = flows.saturating_mul(watched_links);
            total = total.saturating_add(counts.saturating_mul(BYTES_PER_CROSSING));
            self.check(
                &format!(
                    "{links} directed links, about {flows} flows and up to {counts} counts of \
                     flows on watched links"
                ),
                total,
            )
            .map_err(|e| {
                e.within("output.crossings").with_hint(format!(
                    "watch fewer links ({BYTES_PER_CROSSING} B per flow and watched link)"
                ))
            })?;
        }
        if trace_events > 0 {
            total = total.saturating_add(trace_events.saturating_mul(BYTES_PER_TRACE_EVENT));
            self.check(
                &format!(
                    "{links} directed links, about {flows} flows and up to {trace_events} trace \
                     events"
                ),
                total,
            )
            .map_err(|e| {
                e.within("output.trace.max_events").with_hint(format!(
                    "keep fewer trace events ({BYTES_PER_TRACE_EVENT} B each)"
                ))
            })?;
        }
        let Some(sampler) = sampler else {
            return Ok(());
        };
        let rows = sampler.rows_estimate(topology.hosts().len() as u64);
        let series = rows.saturating_mul(BYTES_PER_TIMESERIES_ROW);
        self.check(
            &format!(
                "{links} directed links, about {flows} flows, and about {rows} rows of time \
                 series: {} samples",
                sampler.sample_count()
            ),
            total.saturating_add(series),
        )
        .map_err(|e| {
            e.within("output.timeseries.interval").with_hint(
                "sample less often (a longer `interval`), fewer series, links or flows, or a \
                 shorter run",
            )
        })
    }
}

/// The flows `plan` opens over `duration`, with the key (within the class) that decides it:
/// Poisson arrivals rate x duration, rounds (`every`) one flow per connection per round, a
/// class without arrivals one flow per connection. Closed-loop, matrix-round and job classes
/// have no bound short of the flows' completion times, so their flows open at once are counted
/// (one per connection; 2 x servers per concurrent job): a lower bound.
pub fn flows_estimate(plan: &ClassPlan, duration: htsim_core::SimTime) -> (&'static str, u64) {
    let connections = plan.pool.len() as u64;
    if plan.jobs.is_some() {
        return ("jobs.concurrent", open_at_once(plan));
    }
    flows_of(connections, plan.arrivals.as_ref(), duration)
}

/// The connections of `plan` open at once at some moment, as far as is known before the run:
/// every connection of a class whose flows start together (without arrivals, and each round of
/// `every`, closed loops and matrix rounds), the 2 x servers flows of each concurrent job; none
/// for Poisson arrivals, whose flows overlap as their completion times allow.
pub fn open_at_once(plan: &ClassPlan) -> u64 {
    if let Some(jobs) = &plan.jobs {
        return (2 * jobs.shape.servers as u64).saturating_mul(jobs.shape.concurrent as u64);
    }
    match plan.arrivals {
        Some(Arrivals::Poisson(_)) => 0,
        _ => plan.pool.len() as u64,
    }
}

/// The flows a class without jobs opens over `duration` from `connections` connections with
/// `arrivals` ([`flows_estimate`]), and the key that decides it.
fn flows_of(
    connections: u64,
    arrivals: Option<&Arrivals>,
    duration: htsim_core::SimTime,
) -> (&'static str, u64) {
    let seconds = duration.as_ns() as f64 * 1e-9;
    match arrivals {
        None => ("matrix", connections),
        Some(Arrivals::Poisson(rate)) => ("arrivals", (rate * seconds).ceil() as u64),
        Some(Arrivals::Every(period)) => {
            let rounds = duration.as_ns() / period.as_ns().max(1) + 1;
            ("arrivals", connections.saturating_mul(rounds))
        }
        Some(Arrivals::ClosedLoop { .. } | Arrivals::MatrixRounds) => ("arrivals", connections),
    }
}

/// The hint for a network over its link budget.
pub fn over_budget_hint(links: u64, max_links: u64) -> String {
    format!(
        "the network alone needs about {} ({BYTES_PER_LINK} B per directed link), and a run may \
         use {}: use a smaller topology, fewer runs at once (--jobs), or set {MEMORY_LIMIT_ENV} \
         if more memory is free",
        mib(links.saturating_mul(BYTES_PER_LINK)),
        mib(max_links.saturating_mul(BYTES_PER_LINK))
    )
}

/// Events a run processes between two looks at the process's memory at most ([`MemoryGuard`]):
/// about a tenth of a second.
pub const EVENTS_BETWEEN_MEMORY_CHECKS: u64 = 1 << 20;

/// Bytes of packets and flow results a run may add between two looks at the process's memory
/// ([`MemoryGuard`]), counted by what it holds: a look costs a read of `/proc/self/status`.
pub const GROWTH_BETWEEN_MEMORY_CHECKS: u64 = 16 << 20;

/// Bytes a packet in the network takes: its slot in the pool and its slot on a wire.
const BYTES_PER_PACKET: u64 = std::mem::size_of::<htsim_core::packet::Packet>() as u64 + 32;

/// What a run holds when its memory is looked at ([`MemoryGuard::check`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Held {
    /// Events processed so far.
    pub events: u64,
    /// Packets in the network.
    pub packets: u64,
    /// Flows opened so far.
    pub flows: u64,
}

/// Stops a run whose process outgrows the memory the run was given, with an error, before the
/// machine runs out (the system would kill the process, and every run in it, or an allocation
/// would abort it). What a run keeps may grow past the estimate it was set up with, which
/// cannot bound everything: flows opened by closed loops, jobs and matrix rounds (one record
/// each, kept until the run ends, as many as the flows' completion times allow), or packets
/// that windows and queues far larger than the links' allow. The limit is the process's
/// resident memory when the run started plus what was available then ([`Budget`]), or
/// [`MEMORY_LIMIT_ENV`] when it is set; the process's memory is read from `/proc/self/status`
/// (no guard where there is none) when the run stops (about every
/// [`EVENTS_BETWEEN_MEMORY_CHECKS`] events: it stops when it expects that many done, at its
/// rate of events) and has processed that many events since the last look, or its packets and
/// flows grew by [`GROWTH_BETWEEN_MEMORY_CHECKS`]. The stops change nothing simulated.
#[derive(Clone, Copy, Debug)]
pub struct MemoryGuard {
    limit: u64,
    source: BudgetSource,
    /// What the run held at the last look.
    looked: Held,
}

impl MemoryGuard {
    /// The guard of a run starting now within `budget`.
    pub fn new(budget: &Budget) -> Option<MemoryGuard> {
        let limit = match budget.source {
            BudgetSource::Env => budget.available,
            BudgetSource::MemAvailable => resident_bytes()?.saturating_add(budget.available),
        };
        Some(MemoryGuard {
            limit,
            source: budget.source,
            looked: Held::default(),
        })
    }

    /// The events the run may process, having processed `events`, before it must look again.
    pub fn events_left(&self, events: u64) -> u64 {
        (self
            .looked
            .events
            .saturating_add(EVENTS_BETWEEN_MEMORY_CHECKS))
        .saturating_sub(events)
    }

    /// Looks at the process's memory if a look is due for a run that holds `held`: the memory
    /// the run would need (what the process holds, and the results of its flows,
    /// [`BYTES_PER_FLOW`] each, built when it ends), when that is over the limit.
    pub fn check(&mut self, held: Held) -> Option<u64> {
        let grown = held
            .packets
            .saturating_sub(self.looked.packets)
            .saturating_mul(BYTES_PER_PACKET)
            .saturating_add(
                held.flows
                    .saturating_sub(self.looked.flows)
                    .saturating_mul(BYTES_PER_FLOW),
            );
        if self.events_left(held.events) > 0 && grown < GROWTH_BETWEEN_MEMORY_CHECKS {
            return None;
        }
        self.looked = held;
        resident_bytes()
            .map(|bytes| bytes.saturating_add(held.flows.saturating_mul(BYTES_PER_FLOW)))
            .filter(|&needed| needed > self.limit)
    }

    /// What to say of a run stopped as it needed `needed` bytes, with `what` it held.
    pub fn message(&self, needed: u64, what: &str) -> String {
        let available = match self.source {
            BudgetSource::Env => MEMORY_LIMIT_ENV.to_string(),
            BudgetSource::MemAvailable => {
                "what it held at the run's start and MemAvailable in /proc/meminfo then".into()
            }
        };
        format!(
            "out of memory: the process would need about {}, more than the {} it may use \
             ({available}), {what}; the run was stopped before the machine ran out (fewer \
             flows, shorter runs, fewer runs at once with --jobs, or more memory)",
            mib(needed),
            mib(self.limit)
        )
    }
}

/// The resident memory of this process (`VmRSS` of `/proc/self/status`), where there is one.
fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// `MemAvailable` of `/proc/meminfo` in bytes, where there is one.
fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Bytes in MiB, GiB or TiB, for messages.
fn mib(bytes: u64) -> String {
    const UNITS: [&str; 3] = ["MiB", "GiB", "TiB"];
    let mut value = bytes as f64 / (1024.0 * 1024.0);
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_shared_by_the_runs_at_once() {
        let b = Budget {
            available: 64 * 1024 * 1024,
            runs_at_once: 4,
            source: BudgetSource::Env,
        };
        assert_eq!(b.per_run(), 16 * 1024 * 1024);
        assert_eq!(b.max_links(), 16 * 1024 * 1024 / BYTES_PER_LINK);
        assert!(b.check("x", 16 * 1024 * 1024).is_ok());
        let e = b.check("x", 16 * 1024 * 1024 + 1).unwrap_err();
        assert!(
            e.message.contains("4 runs at once need 64.0 MiB")
                && e.message
                    .contains("64.0 MiB is available (HTSIM_MEMORY_LIMIT)"),
            "{e}"
        );
        assert_eq!(mib(3 << 30), "3.0 GiB");
    }

    #[test]
    fn the_per_connection_cost_covers_a_pool_and_its_split() {
        // The pool, half of it copied out, and a bit per connection (see BYTES_PER_CONNECTION).
        let peak = CONNECTION_SIZE as f64 * 1.5 + 0.125;
        assert!(peak <= BYTES_PER_CONNECTION as f64, "{peak}");
    }

    #[test]
    fn the_per_flow_event_and_crossing_costs_cover_what_is_kept() {
        use std::mem::size_of;
        let kept = size_of::<crate::simulate::generator::StartedFlow>()
            + size_of::<htsim_core::flow::FlowRecord>()
            + size_of::<Option<htsim_core::flow::FlowRecord>>()
            + size_of::<crate::report::metrics::FlowInput>()
            + size_of::<crate::simulate::results::FlowResult>()
            + 150;
        eprintln!("per flow: {kept} B");
        assert!(kept as u64 <= BYTES_PER_FLOW, "{kept}");
        let event = size_of::<htsim_transport::trace::TraceEvent>();
        eprintln!("per event: {event} B");
        assert!(event as u64 * 2 <= BYTES_PER_TRACE_EVENT, "{event}");
        // A crossing: the map's entry (key and counts, with half again for its nodes), the
        // count taken out, the typed result with the link's name, and the CSV row.
        let entry = size_of::<(u32, u32)>() + size_of::<(u64, u64, u64)>();
        let crossing = entry * 3 / 2
            + size_of::<htsim_core::crossing::Crossing>()
            + size_of::<crate::simulate::results::CrossingResult>()
            + 32
            + 80;
        eprintln!("per crossing: {crossing} B");
        assert!(crossing as u64 <= BYTES_PER_CROSSING, "{crossing}");
        assert_eq!(mib(u64::MAX), "16777216.0 TiB");
    }
}
