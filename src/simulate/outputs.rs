//! A finished run's files: flows.csv, links.csv (columns of docs/outputs.md, in
//! [`crate::output::FLOWS_COLUMNS`] and [`crate::output::LINKS_COLUMNS`]), rendered from the
//! run's typed results ([`super::results::RunResults`]), and the per-run summary.json
//! ([`crate::report::run_summary::RunSummary`]).
//!
//! Rows are in a fixed order (flows by id, links in the topology's order) and numbers have fixed
//! formats, so the files depend only on the scenario and the seed. The exception is the
//! wall-clock part of summary.json's `cost` (`wall_seconds`, `events_per_second`,
//! `data_packets_per_second`): compare runs without those three fields.
//!
//! - Every file starts with the run's columns ([`RunColumns`]: `point`, `seed`, one per sweep
//!   axis).
//! - flows.csv: `job` is the number of the flow's partition/aggregate job, empty for a flow of
//!   no job; `start_ns` is the FCT origin (subflow 0's SYN-ACK; empty if never
//!   established); `completed` is true only for a finite flow that delivered all its bytes (an
//!   infinite flow is never completed: it runs to the end of the run, as in the summary);
//!   `end_ns`, `fct_ns` are empty unless completed; `size_bytes`, `ideal_fct_ns` and
//!   `slowdown` are empty for infinite flows; `goodput_bps` is 8 x bytes
//!   acknowledged in order / time alive, both inside the measurement window, and
//!   `goodput_sent_bps` (long flows only) the MMPTCP paper's variant counting distinct bytes
//!   sent instead, `subflow_goodput_bps` htsim's counting the bytes each subflow cumulatively
//!   acknowledged ([`crate::report::metrics::goodput_bps`]; `docs/outputs.md` defines every
//!   column).
//!   The ideal FCT is the time the flow would take alone on path 0 with no window limit:
//!   `base RTT + (wire bytes - last packet) x 8 / bottleneck rate`, where the base RTT of a
//!   pair is its path-0 propagation both ways plus the last (smallest) data packet's
//!   serialisation per forward hop and one ACK's per reverse hop, wire bytes count a header
//!   per segment, and the bottleneck is the slowest forward link: the bottleneck must send
//!   every other packet before the last one, which then crosses every hop. The links' rates
//!   are those in effect when the flow arrived ([`LinkRates`]).
//! - crossings.csv: per flow and watched link, the flow's data packets accepted and dropped
//!   there over the measurement window, as links.csv counts all packets.
//! - links.csv: the counters are over the measurement window (warmup to duration), the rate
//!   is the link's rate at the start of the run; `utilisation_pct` (100 x time spent
//!   serialising / window) and `loss_rate_pct` (100 x drops / arrivals) are percentages, like
//!   the layer metrics of summary.csv.

use std::collections::HashMap;

use htsim_core::ids::{HostId, LinkId};
use htsim_core::link::LinkChange;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use htsim_topology::topology::Topology;
use htsim_transport::trace::TraceLog;
use htsim_transport::TcpConfig;

use super::results::RunResults;
use crate::output::{
    csv_bytes, csv_writer, RunColumns, CROSSINGS_COLUMNS, CSV_IN_MEMORY as IN_MEMORY,
    FLOWS_COLUMNS, LINKS_COLUMNS,
};
use crate::report::metrics::ideal_fct;

/// The links' rates over a run: each link's rate at the start, and the rate changes
/// scheduled for it (`[[events]]` with `set = { rate = ... }`).
pub struct LinkRates {
    /// By [`LinkId`].
    start: Vec<Rate>,
    /// The instants of all rate changes, ascending.
    instants: Vec<SimTime>,
    /// Each changed link's changes, ascending by instant (at one instant, in the order they
    /// apply: the last one holds).
    changes: HashMap<LinkId, Vec<(SimTime, Rate)>>,
}

impl LinkRates {
    /// The rates of `world`'s links now (the start of the run) and the changes of rate
    /// scheduled in it.
    pub fn at_start(world: &World) -> Self {
        let mut changes: HashMap<LinkId, Vec<(SimTime, Rate)>> = HashMap::new();
        let mut instants = Vec::new();
        for (at, link, change) in world.link_changes() {
            if let LinkChange::Rate(rate) = change {
                changes.entry(link).or_default().push((at, rate));
                instants.push(at);
            }
        }
        for list in changes.values_mut() {
            list.sort_by_key(|&(at, _)| at);
        }
        instants.sort_unstable();
        LinkRates {
            start: world.links().iter().map(|l| l.rate()).collect(),
            instants,
            changes,
        }
    }

    /// The rate of `link` at the start of the run, before any change.
    pub fn at_start_of(&self, link: LinkId) -> Rate {
        self.start[link.0 as usize]
    }

    /// How many rate changes have applied at `t` (those at `t` included): the rates at two
    /// instants with the same count are the same.
    fn changes_at(&self, t: SimTime) -> usize {
        self.instants.partition_point(|&at| at <= t)
    }

    /// The rate of `link` at `t` (after the changes due at `t`).
    fn rate(&self, link: LinkId, t: SimTime) -> Rate {
        let start = self.at_start_of(link);
        match self.changes.get(&link) {
            Some(list) => match list.partition_point(|&(at, _)| at <= t) {
                0 => start,
                n => list[n - 1].1,
            },
            None => start,
        }
    }
}

/// What a pair's base RTT and bottleneck depend on: source, destination, the last data
/// packet's size, the ACK's size and how many rate changes applied ([`LinkRates`]).
type PairKey = (u32, u32, u32, u32, usize);

/// Base RTT and bottleneck rate of host pairs, computed once per pair and rates in effect.
pub struct PairPaths<'a> {
    topology: &'a Topology,
    rates: &'a LinkRates,
    cache: HashMap<PairKey, (SimTime, Rate)>,
    scratch: Vec<LinkId>,
}

impl<'a> PairPaths<'a> {
    /// For the pairs of `topology`, whose links have `rates`.
    pub fn new(topology: &'a Topology, rates: &'a LinkRates) -> Self {
        PairPaths {
            topology,
            rates,
            cache: HashMap::new(),
            scratch: Vec::new(),
        }
    }

    /// The ideal FCT of `size` bytes from `src` to `dst` with `tcp`'s packet sizes, for a
    /// flow that arrived at `arrival`: on the links' delays in `world` and their rates at
    /// `arrival` (see the module documentation).
    pub fn ideal(
        &mut self,
        world: &World,
        src: u32,
        dst: u32,
        size: u64,
        tcp: &TcpConfig,
        arrival: SimTime,
    ) -> Option<SimTime> {
        let mss = u64::from(tcp.mss.max(1));
        let segments = size.div_ceil(mss).max(1);
        let last = size.saturating_sub((segments - 1) * mss).max(1) as u32;
        let data = tcp.sizes.data(last);
        let key = (
            src,
            dst,
            data,
            tcp.sizes.ack,
            self.rates.changes_at(arrival),
        );
        let (rtt, bottleneck) = match self.cache.get(&key) {
            Some(v) => *v,
            None => {
                let (s, d) = (HostId(src), HostId(dst));
                if src == dst || self.topology.path_count(s, d) == 0 {
                    return None;
                }
                let mut rtt = SimTime::ZERO;
                let mut bottleneck: Option<Rate> = None;
                self.scratch.clear();
                self.topology.path(s, d, 0, &mut self.scratch);
                for &l in &self.scratch {
                    let rate = self.rates.rate(l, arrival);
                    rtt = rtt + world.link(l).delay() + rate.serialisation_time(u64::from(data));
                    bottleneck = Some(bottleneck.map_or(rate, |b| b.min(rate)));
                }
                self.scratch.clear();
                self.topology.path(d, s, 0, &mut self.scratch);
                for &l in &self.scratch {
                    let rate = self.rates.rate(l, arrival);
                    rtt = rtt
                        + world.link(l).delay()
                        + rate.serialisation_time(u64::from(tcp.sizes.ack));
                }
                let v = (rtt, bottleneck?);
                self.cache.insert(key, v);
                v
            }
        };
        if bottleneck.as_bps() == 0 {
            return None;
        }
        let wire = size.saturating_add(segments.saturating_mul(u64::from(tcp.sizes.data_overhead)));
        Some(ideal_fct(rtt, wire - u64::from(data).min(wire), bottleneck))
    }
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

/// A per-run CSV file: a header of the run's columns then `columns`, and each of `rows` after
/// the run's fields.
fn run_csv<R>(run: &RunColumns, columns: &[&str], rows: impl IntoIterator<Item = R>) -> Vec<u8>
where
    R: IntoIterator<Item = String>,
{
    let mut w = csv_writer();
    w.write_record(run.header(columns)).expect(IN_MEMORY);
    let run_fields = run.fields();
    for row in rows {
        w.write_record(run_fields.iter().cloned().chain(row))
            .expect(IN_MEMORY);
    }
    csv_bytes(w)
}

/// flows.csv: one row per flow of `results` (by id), with its class's name and transport.
pub fn flows_csv(run: &RunColumns, results: &RunResults) -> Vec<u8> {
    let ns = |t: Option<SimTime>| opt(t.map(SimTime::as_ns));
    let rows = results.flows.iter().map(|f| {
        let class = results.class_of(f);
        [
            class.name.clone(),
            f.flow_id.to_string(),
            opt(f.job),
            class.transport.clone(),
            format!("host{}", f.src.0),
            format!("host{}", f.dst.0),
            opt(f.size_bytes),
            f.arrival.as_ns().to_string(),
            ns(f.start),
            ns(f.end),
            ns(f.fct),
            ns(f.ideal_fct),
            opt(f.slowdown.map(|x| format!("{x:.6}"))),
            f.completed.to_string(),
            f.bytes_acked.to_string(),
            opt(f.goodput_bps.map(|x| format!("{x:.0}"))),
            opt(f.goodput_sent_bps.map(|x| format!("{x:.0}"))),
            opt(f.subflow_goodput_bps.map(|x| format!("{x:.0}"))),
            f.packets_sent.to_string(),
            f.retransmits.to_string(),
            f.fast_retransmits.to_string(),
            f.timeouts.to_string(),
            f.subflows.to_string(),
        ]
    });
    run_csv(run, FLOWS_COLUMNS, rows)
}

/// links.csv: one row per link of `results` (the topology's directed links, in its order).
pub fn links_csv(run: &RunColumns, results: &RunResults) -> Vec<u8> {
    let rows = results.links.iter().map(|l| {
        [
            l.name.clone(),
            l.from.clone(),
            l.to.clone(),
            l.layer.clone(),
            l.rate.as_bps().to_string(),
            l.packets_enqueued.to_string(),
            l.bytes_enqueued.to_string(),
            l.packets_dropped.to_string(),
            l.bytes_dropped.to_string(),
            l.packets_marked.to_string(),
            opt(l.utilisation_pct.map(|u| format!("{u:.4}"))),
            format!("{:.4}", l.loss_rate_pct),
        ]
    });
    run_csv(run, LINKS_COLUMNS, rows)
}

/// crossings.csv: one row per flow and watched link of `results` (by link, then flow id).
pub fn crossings_csv(run: &RunColumns, results: &RunResults) -> Vec<u8> {
    let rows = results.crossings.iter().map(|c| {
        [
            results.classes[c.class].name.clone(),
            c.flow_id.to_string(),
            c.link.clone(),
            c.packets_enqueued.to_string(),
            c.bytes_enqueued.to_string(),
            c.packets_dropped.to_string(),
        ]
    });
    run_csv(run, CROSSINGS_COLUMNS, rows)
}

/// trace.csv: the run's columns, then the trace log's own columns (`time_ns,flow,...`), one row
/// per traced event, as [`TraceLog::to_csv`] writes them.
pub fn trace_csv(run: &RunColumns, log: &TraceLog) -> Vec<u8> {
    let own = log.to_csv();
    let mut reader = csv::Reader::from_reader(own.as_bytes());
    let mut w = csv_writer();
    // The log's own header and rows are plain numbers and names: they read back.
    let header = reader
        .headers()
        .expect("the trace log's own header")
        .clone();
    w.write_record(run.header(&header.iter().collect::<Vec<_>>()))
        .expect(IN_MEMORY);
    let run_fields = run.fields();
    for record in reader.records() {
        let record = record.expect("the trace log's own rows are CSV");
        w.write_record(run_fields.iter().map(String::as_str).chain(record.iter()))
            .expect(IN_MEMORY);
    }
    csv_bytes(w)
}
