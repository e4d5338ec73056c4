//! Per-run metrics from flow records and link counters: FCT and slowdown, goodput (bytes
//! acknowledged in order; the MMPTCP paper's bytes-sent variant and htsim's subflow-level
//! variant under their own names) and Jain's index, retransmission distributions, job
//! completion times, and per-layer utilisation and loss (standard, and the paper's per-second,
//! per-port definition). The user-facing definitions are
//! in `docs/outputs.md`.
//!
//! Warmup: every metric looks only at the measurement window `[warmup, T]`. Finite flows count
//! if they arrived at or after the warmup; long (infinite) flows count over the part of their life
//! inside the window; goodputs count the bytes first sent inside the window (the flow's counters
//! at the window's start and end, [`goodput_bps`]); link metrics difference counters taken at
//! the window's start and end.

use std::collections::{BTreeMap, HashSet};

use htsim_core::flow::FlowRecord;
use htsim_core::queue::QueueCounters;
use htsim_core::{Rate, SimTime};

use super::run_summary::{ClassSummary, LayerSummary, RunCost, RunSummary};
use super::stats::{jain_index, Summary};

/// The measured part of a run, in simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Start: the end of the warmup (0 without warmup).
    pub start: SimTime,
    /// End: T, the end of the measured duration (`run.duration`; the drain is not measured
    /// for goodput and link metrics, but flows completing in it count as completed).
    pub end: SimTime,
}

impl Window {
    /// The window's length in seconds (0 if `end` is before `start`).
    pub fn seconds(self) -> f64 {
        self.end.saturating_sub(self.start).as_secs_f64()
    }
}

/// The ideal FCT of a flow: `base_rtt + wire_bytes x 8 / bottleneck`, with `base_rtt` the
/// round trip of the flow's last data packet and its ACK, and `wire_bytes` the flow's other
/// bytes on the wire, headers included, which the bottleneck sends before the last packet
/// (flows.csv `ideal_fct_ns`). The serialisation time rounds up to the picosecond.
pub fn ideal_fct(base_rtt: SimTime, wire_bytes: u64, bottleneck: Rate) -> SimTime {
    base_rtt.saturating_add(bottleneck.serialisation_time(wire_bytes))
}

/// A flow's byte counters at one instant (its record's `bytes_sent`, `bytes_acked`,
/// `subflow_bytes_sent` and `subflow_bytes_acked` then).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowBytes {
    /// Distinct application bytes transmitted at least once.
    pub sent: u64,
    /// Application bytes acknowledged in order (cumulatively, at the connection level).
    pub acked: u64,
    /// Data bytes transmitted at least once, per subflow (summed over subflows).
    pub subflow_sent: u64,
    /// Data bytes cumulatively acknowledged at the subflow level (summed over subflows).
    pub subflow_acked: u64,
}

impl FlowBytes {
    /// The counters of `record`.
    pub fn of(record: &FlowRecord) -> Self {
        FlowBytes {
            sent: record.bytes_sent,
            acked: record.bytes_acked,
            subflow_sent: record.subflow_bytes_sent,
            subflow_acked: record.subflow_bytes_acked,
        }
    }
}

/// Which bytes a goodput counts ([`goodput_bps`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoodputCount {
    /// Application bytes acknowledged in order at the connection level (goodput).
    Acked,
    /// Distinct application bytes sent, delivered or not (the MMPTCP paper's goodput).
    Sent,
    /// Data bytes cumulatively acknowledged at the subflow level, summed over subflows (htsim's
    /// throughput: no head-of-line blocking across subflows).
    SubflowAcked,
}

impl GoodputCount {
    /// The bytes counted and the bytes sent at the same level, from `bytes`.
    fn read(self, bytes: FlowBytes) -> (u64, u64) {
        match self {
            GoodputCount::Acked => (bytes.acked, bytes.sent),
            GoodputCount::Sent => (bytes.sent, bytes.sent),
            GoodputCount::SubflowAcked => (bytes.subflow_acked, bytes.subflow_sent),
        }
    }
}

/// One flow as the metrics see it: its record and what the scenario knows about it.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowInput {
    /// Index of the flow's class in [`RunInput::classes`].
    pub class: usize,
    /// The engine's record of the flow.
    pub record: FlowRecord,
    /// Ideal FCT ([`ideal_fct`]); `None` for infinite flows.
    pub ideal_fct: Option<SimTime>,
    /// The partition/aggregate job the flow belongs to, if any: its number, unique within the
    /// run.
    pub job: Option<u64>,
    /// The flow's counters at the window start (zeros for a flow that was not open then).
    pub at_window_start: FlowBytes,
    /// The flow's counters at the window end if it was still open then; `None` for a flow that
    /// had completed (or failed) by then, whose record holds its counters at its end.
    pub at_window_end: Option<FlowBytes>,
}

/// Per-flow derived values (also the flows.csv columns `fct_ns`, `slowdown`, `goodput_bps`,
/// `goodput_sent_bps`, `subflow_goodput_bps`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowOutcome {
    /// Flow completion time (from subflow 0's SYN-ACK to the last ACK), if the flow completed.
    pub fct: Option<SimTime>,
    /// FCT / ideal FCT (not clamped: the ideal bounds a single-path flow sent in full
    /// segments; a last segment cut by the window can beat it slightly, docs/outputs.md);
    /// `None` without FCT or ideal FCT (or a zero ideal).
    pub slowdown: Option<f64>,
    /// Goodput, b/s: application bytes acknowledged in order (at the connection level) while
    /// the flow was alive inside the window, over that time ([`goodput_bps`]). `None` for a flow
    /// not alive inside the window.
    pub goodput_bps: Option<f64>,
    /// The MMPTCP paper's long-flow goodput, b/s: as `goodput_bps` with the distinct bytes
    /// *sent* (transmitted at least once, delivered or not) instead of acknowledged. Only for
    /// long (infinite) flows, the only ones the paper defines it for; `None` otherwise.
    pub goodput_sent_bps: Option<f64>,
    /// Subflow-level goodput, b/s: as `goodput_bps` with the data bytes cumulatively
    /// acknowledged at the subflow level (summed over subflows) instead of in order at the
    /// connection level: htsim's multipath throughput. Equal to `goodput_bps` for single-path
    /// transports; above it for a multipath flow whose data sequence has a hole behind one
    /// subflow. `None` for a flow not alive inside the window.
    pub subflow_goodput_bps: Option<f64>,
}

/// The part of a flow's life inside `window`: from `max(start, window start)` to `min(end,
/// window end)`; `None` if the flow never started or that interval is empty.
pub fn alive_in_window(record: &FlowRecord, window: Window) -> Option<(SimTime, SimTime)> {
    let from = record.start?.max(window.start);
    let to = record.end.map_or(window.end, |e| e.min(window.end));
    (to > from).then_some((from, to))
}

/// The one goodput definition: `8 x (counter(to) - sent(from)) / (to - from)`, b/s, over the
/// part `from .. to` of a flow's life inside `window` ([`alive_in_window`]), with `counter` the
/// bytes `count` names ([`GoodputCount`]), read at the window end (for a flow still open then;
/// otherwise at the flow's end), and `sent(from)` the bytes sent at the same level (the
/// connection's, or the subflows' for [`GoodputCount::SubflowAcked`]) by the window start (0
/// for a flow not open then). The bytes counted were first sent inside the window, so every one
/// of them crossed the sender's link inside it: no goodput can exceed that link's rate. `None`
/// for a flow not alive inside the window.
pub fn goodput_bps(flow: &FlowInput, window: Window, count: GoodputCount) -> Option<f64> {
    let (from, to) = alive_in_window(&flow.record, window)?;
    let at_end = flow
        .at_window_end
        .unwrap_or_else(|| FlowBytes::of(&flow.record));
    let (counted, _) = count.read(at_end);
    let (_, sent_before) = count.read(flow.at_window_start);
    let bytes = counted.saturating_sub(sent_before);
    Some(8.0 * bytes as f64 / to.saturating_sub(from).as_secs_f64())
}

/// The finite-flow goodput of a completed flow, b/s: its average rate over its life,
/// `8 x size / FCT` (the XMP paper's goodput of a large flow). Unlike [`goodput_bps`] it is not
/// cut at the window: a flow that completes in the drain counts its whole life. `None` for a long
/// flow, a flow that did not complete, or a zero FCT.
pub fn finite_goodput_bps(record: &FlowRecord) -> Option<f64> {
    let fct = record.fct().filter(|f| *f > SimTime::ZERO)?;
    Some(8.0 * record.size_bytes? as f64 / fct.as_secs_f64())
}

/// Derives a flow's FCT, slowdown and goodputs within `window`.
pub fn flow_outcome(flow: &FlowInput, window: Window) -> FlowOutcome {
    let r = &flow.record;
    let fct = r.fct();
    let slowdown = match (fct, flow.ideal_fct) {
        (Some(f), Some(i)) if i > SimTime::ZERO => Some(f.as_ps() as f64 / i.as_ps() as f64),
        _ => None,
    };
    let infinite = r.size_bytes.is_none();
    FlowOutcome {
        fct,
        slowdown,
        goodput_bps: goodput_bps(flow, window, GoodputCount::Acked),
        goodput_sent_bps: goodput_bps(flow, window, GoodputCount::Sent).filter(|_| infinite),
        subflow_goodput_bps: goodput_bps(flow, window, GoodputCount::SubflowAcked),
    }
}

/// A link as the metrics see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkInput {
    /// Index of the link's egress layer in [`RunInput::layers`].
    pub layer: usize,
    /// The link's rate (the capacity C of 9.6), b/s.
    pub rate: Rate,
}

/// Standard utilisation and loss of one link over a window, fractions (links.csv
/// `utilisation_pct`, `loss_rate_pct` as percentages).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkUsage {
    /// Time spent serialising packets during the window / the window's length, a fraction
    /// in [0, 1] (at whatever rate the link had at the time, so rate changes cannot push it
    /// above 1; a packet in service at either edge counts only its serialisation inside the
    /// window: the counters read the busy time up to their instant). `None` for an empty
    /// window.
    pub utilisation: Option<f64>,
    /// Packets dropped on arrival / packets arrived (accepted + dropped), a fraction; 0 when
    /// nothing arrived.
    pub loss_rate: f64,
}

/// A link's [`LinkUsage`] from its counters at the window's start and end.
pub fn link_usage(start: &QueueCounters, end: &QueueCounters, window: Window) -> LinkUsage {
    let secs = window.seconds();
    let busy = end.busy_time.saturating_sub(start.busy_time).as_secs_f64();
    let dropped = end.packets_dropped.saturating_sub(start.packets_dropped);
    let accepted = end.packets_enqueued.saturating_sub(start.packets_enqueued);
    LinkUsage {
        utilisation: (secs > 0.0).then(|| busy / secs),
        loss_rate: ratio_or_zero(dropped as f64, (accepted + dropped) as f64),
    }
}

/// Every link's queue counters at one instant, indexed like [`RunInput::links`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CounterSnapshot {
    /// When the snapshot was taken.
    pub at: SimTime,
    /// The counters, one per link.
    pub counters: Vec<QueueCounters>,
}

/// The paper's utilisation and loss of every egress layer (9.6), accumulated one snapshot at a
/// time (the paper takes them every second, at t = 1 ... T), so a run keeps only its last
/// snapshot however long it is: for each pair of consecutive snapshots and each port,
/// U = 100 x 8 x B_enq / (C x interval) and L = 100 x B_drop / (B_enq + B_drop) (0 when idle),
/// with B_enq the bytes accepted and B_drop the bytes dropped in the interval. With 1-second
/// intervals U is exactly the paper's 100 x 8 x B_enq / C.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PaperUsage {
    /// The snapshot the next interval starts at.
    last: Option<CounterSnapshot>,
    /// Per layer: the sums of U and of L (%) and the number of (interval, port) samples.
    sums: Vec<(f64, f64, u64)>,
}

impl PaperUsage {
    /// Adds the interval from the previous snapshot to `snapshot` for every port of `links`
    /// (counters indexed like `links`; a link without counters is skipped).
    pub fn push(&mut self, links: &[LinkInput], snapshot: CounterSnapshot) {
        if let Some(prev) = &self.last {
            let secs = snapshot.at.saturating_sub(prev.at).as_secs_f64();
            for (i, link) in links.iter().enumerate() {
                let (Some(a), Some(b)) = (prev.counters.get(i), snapshot.counters.get(i)) else {
                    continue;
                };
                let capacity_bits = link.rate.as_bps() as f64 * secs;
                if capacity_bits <= 0.0 {
                    continue;
                }
                let enq = b.bytes_enqueued.saturating_sub(a.bytes_enqueued) as f64;
                let drop = b.bytes_dropped.saturating_sub(a.bytes_dropped) as f64;
                if self.sums.len() <= link.layer {
                    self.sums.resize(link.layer + 1, (0.0, 0.0, 0));
                }
                let sum = &mut self.sums[link.layer];
                sum.0 += 100.0 * 8.0 * enq / capacity_bits;
                sum.1 += 100.0 * ratio_or_zero(drop, enq + drop);
                sum.2 += 1;
            }
        }
        self.last = Some(snapshot);
    }

    /// The means of U and L (%) over all (interval, port) pairs of `layer`; `None` with fewer
    /// than two snapshots, no port, or no interval of positive length at a positive rate.
    pub fn layer(&self, layer: usize) -> Option<(f64, f64)> {
        let &(u, l, samples) = self.sums.get(layer)?;
        (samples > 0).then(|| (u / samples as f64, l / samples as f64))
    }
}

/// Everything one run's metrics are computed from. Counter slices are indexed like `links`;
/// a link without counters is skipped.
#[derive(Clone, Copy, Debug)]
pub struct RunInput<'a> {
    /// The measurement window.
    pub window: Window,
    /// Flow class names, in scenario order.
    pub classes: &'a [String],
    /// Every flow of the run (started or not).
    pub flows: &'a [FlowInput],
    /// Egress layer names, in the topology's order.
    pub layers: &'a [String],
    /// Every directed link.
    pub links: &'a [LinkInput],
    /// Queue counters at the window's start.
    pub counters_start: &'a [QueueCounters],
    /// Queue counters at the window's end.
    pub counters_end: &'a [QueueCounters],
    /// The paper's figures, from snapshots taken at the window start and every second after
    /// (fewer than two: `None`).
    pub paper: &'a PaperUsage,
    /// The run's cost.
    pub cost: RunCost,
    /// The flows (by id) whose data packets arrived at a watched link inside the window
    /// (`[output] crossings`); `None` when no link is watched.
    pub crossed: Option<&'a HashSet<u64>>,
}

/// Which run a summary belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunId {
    /// The sweep point's name.
    pub point: String,
    /// The point's position in the run list.
    pub point_index: u64,
    /// The seed.
    pub seed: u64,
}

/// Computes a run's [`RunSummary`].
pub fn summarize_run(id: RunId, input: &RunInput<'_>) -> RunSummary {
    let classes = (0..input.classes.len())
        .map(|c| class_summary(c, input))
        .collect();
    let layers = (0..input.layers.len())
        .map(|l| layer_summary(l, input))
        .collect();
    RunSummary {
        point: id.point,
        point_index: id.point_index,
        seed: id.seed,
        window_start_ns: input.window.start.as_ns(),
        window_end_ns: input.window.end.as_ns(),
        classes,
        layers,
        cost: input.cost,
        files: Vec::new(),
    }
}

/// Flow metrics of class `class`.
fn class_summary(class: usize, input: &RunInput<'_>) -> ClassSummary {
    let window = input.window;
    // Finite flows count if they arrived after the warmup; long flows always, over the window.
    let measured = input.flows.iter().filter(|f| {
        f.class == class && (f.record.size_bytes.is_none() || f.record.arrival >= window.start)
    });
    let (mut finite_flows, mut completed) = (0u64, 0u64);
    let (mut fct_ms, mut slowdown, mut finite_goodput) = (Vec::new(), Vec::new(), Vec::new());
    let (mut goodput, mut goodput_paper, mut subflow_goodput) =
        (Vec::new(), Vec::new(), Vec::new());
    let (mut retx, mut fast, mut rto) = (Vec::new(), Vec::new(), Vec::new());
    let (mut crossing_goodput, mut crossing_subflow_goodput) = (Vec::new(), Vec::new());
    for flow in measured {
        let r = &flow.record;
        let outcome = flow_outcome(flow, window);
        let counted = if r.size_bytes.is_some() {
            finite_flows += 1;
            if let Some(fct) = outcome.fct {
                completed += 1;
                fct_ms.push(fct.as_ps() as f64 / 1e9);
                slowdown.extend(outcome.slowdown);
                finite_goodput.extend(finite_goodput_bps(r).map(|b| b / 1e6));
            }
            outcome.fct.is_some()
        } else if r.start.is_some() {
            goodput.extend(outcome.goodput_bps.map(|b| b / 1e6));
            if input.crossed.is_some_and(|c| c.contains(&r.flow_id)) {
                crossing_goodput.extend(outcome.goodput_bps.map(|b| b / 1e6));
                crossing_subflow_goodput.extend(outcome.subflow_goodput_bps.map(|b| b / 1e6));
            }
            goodput_paper.extend(outcome.goodput_sent_bps.map(|b| b / 1e6));
            subflow_goodput.extend(outcome.subflow_goodput_bps.map(|b| b / 1e6));
            true
        } else {
            false
        };
        if counted {
            retx.push(r.retransmits as f64);
            fast.push(r.fast_retransmits as f64);
            rto.push(r.timeouts as f64);
        }
    }
    let jobs = job_spans(class, input);
    let jct_ms: Vec<f64> = jobs
        .iter()
        .filter_map(|j| j.completion_time())
        .map(|t| t.as_ps() as f64 / 1e9)
        .collect();
    let jobs_completed = jct_ms.len() as u64;
    ClassSummary {
        class: input.classes[class].clone(),
        finite_flows,
        completed,
        unfinished: finite_flows - completed,
        fct_ms: Summary::of(&fct_ms),
        fct_values_ms: fct_ms,
        slowdown: Summary::of(&slowdown),
        finite_goodput_mbps: Summary::of(&finite_goodput),
        finite_goodput_values_mbps: finite_goodput,
        long_flows: goodput.len() as u64,
        goodput_mbps: Summary::of(&goodput),
        goodput_values_mbps: goodput.clone(),
        goodput_paper_mbps: Summary::of(&goodput_paper),
        goodput_paper_values_mbps: goodput_paper,
        subflow_goodput_mbps: Summary::of(&subflow_goodput),
        subflow_goodput_values_mbps: subflow_goodput,
        jain: jain_index(&goodput),
        crossing_long_flows: input.crossed.map(|_| crossing_goodput.len() as u64),
        crossing_goodput_mbps: Summary::of(&crossing_goodput),
        crossing_goodput_values_mbps: crossing_goodput,
        crossing_subflow_goodput_mbps: Summary::of(&crossing_subflow_goodput),
        crossing_subflow_goodput_values_mbps: crossing_subflow_goodput,
        retransmits: Summary::of(&retx),
        fast_retransmits: Summary::of(&fast),
        timeouts: Summary::of(&rto),
        jobs_completed,
        jobs_unfinished: jobs.len() as u64 - jobs_completed,
        jct_ms: Summary::of(&jct_ms),
        jct_values_ms: jct_ms,
    }
}

/// One partition/aggregate job as its flows' records show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobSpan {
    /// The job's number within the run.
    pub job: u64,
    /// When the job started: the earliest arrival of its flows (its requests open at once).
    pub start: SimTime,
    /// The latest end of its flows (its last response's completion, 9.6), if every flow of the
    /// job completed; `None` if any did not.
    pub end: Option<SimTime>,
}

impl JobSpan {
    /// Job completion time: `end - start`, for a completed job.
    pub fn completion_time(&self) -> Option<SimTime> {
        Some(self.end?.saturating_sub(self.start))
    }
}

/// The jobs of class `class` that started inside the measurement window, by job number: every
/// flow of the class with a job number counts (a response that arrives after the warmup
/// belongs to a job that started before it, which is left out whole).
pub fn job_spans(class: usize, input: &RunInput<'_>) -> Vec<JobSpan> {
    // Per job: (all flows completed, first arrival, last end).
    let mut jobs: BTreeMap<u64, (bool, SimTime, SimTime)> = BTreeMap::new();
    for flow in input.flows.iter().filter(|f| f.class == class) {
        let (Some(job), r) = (flow.job, &flow.record) else {
            continue;
        };
        let entry = jobs.entry(job).or_insert((true, r.arrival, SimTime::ZERO));
        entry.0 &= r.end.is_some();
        entry.1 = entry.1.min(r.arrival);
        entry.2 = entry.2.max(r.end.unwrap_or(SimTime::ZERO));
    }
    jobs.into_iter()
        .filter(|(_, (_, start, _))| *start >= input.window.start)
        .map(|(job, (done, start, end))| JobSpan {
            job,
            start,
            end: done.then_some(end),
        })
        .collect()
}

/// Link metrics of layer `layer`.
fn layer_summary(layer: usize, input: &RunInput<'_>) -> LayerSummary {
    let ports: Vec<(usize, Rate)> = input
        .links
        .iter()
        .enumerate()
        .filter(|(_, l)| l.layer == layer)
        .map(|(i, l)| (i, l.rate))
        .collect();
    let (mut util, mut loss) = (Vec::new(), Vec::new());
    for &(i, _) in &ports {
        let (Some(a), Some(b)) = (input.counters_start.get(i), input.counters_end.get(i)) else {
            continue;
        };
        let usage = link_usage(a, b, input.window);
        util.extend(usage.utilisation.map(|u| 100.0 * u));
        loss.push(100.0 * usage.loss_rate);
    }
    let paper = input.paper.layer(layer);
    LayerSummary {
        layer: input.layers[layer].clone(),
        links: ports.len() as u64,
        utilisation_pct: mean(&util),
        loss_pct: mean(&loss),
        paper_utilisation_pct: paper.map(|p| p.0),
        paper_loss_pct: paper.map(|p| p.1),
    }
}

/// `num / den`, or 0 when `den` is 0.
fn ratio_or_zero(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}

/// The mean, or `None` for an empty slice.
fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use htsim_core::ids::HostId;

    /// Counters of a 100 Mb/s link (80 ns per byte) that has sent every byte it accepted.
    fn counters(bytes_enq: u64, bytes_drop: u64, pkts_enq: u64, pkts_drop: u64) -> QueueCounters {
        QueueCounters {
            busy_time: SimTime::from_ns(80 * bytes_enq),
            packets_enqueued: pkts_enq,
            bytes_enqueued: bytes_enq,
            packets_dropped: pkts_drop,
            bytes_dropped: bytes_drop,
            packets_departed: pkts_enq,
            bytes_departed: bytes_enq,
            ..QueueCounters::default()
        }
    }

    fn snapshot(secs: u64, links: Vec<QueueCounters>) -> CounterSnapshot {
        CounterSnapshot {
            at: SimTime::from_secs(secs),
            counters: links,
        }
    }

    /// A synthetic trace of two 100 Mb/s core ports over 2 s (1 s warmup before it): port 0
    /// carries 6.25 MB (50%) then 12.5 MB (100%) with 1.25 MB dropped in the second second;
    /// port 1 is idle then carries 2.5 MB (20%). Counters are cumulative from t = 0.
    fn trace() -> Vec<CounterSnapshot> {
        vec![
            snapshot(1, vec![counters(1_000, 0, 1, 0), counters(0, 0, 0, 0)]),
            snapshot(
                2,
                vec![counters(6_251_000, 0, 4276, 0), counters(0, 0, 0, 0)],
            ),
            snapshot(
                3,
                vec![
                    counters(18_751_000, 1_250_000, 12826, 855),
                    counters(2_500_000, 0, 1710, 0),
                ],
            ),
        ]
    }

    #[test]
    fn paper_utilisation_and_loss_average_over_seconds_and_ports() {
        let ports = [
            LinkInput {
                layer: 0,
                rate: Rate::mbps(100),
            },
            LinkInput {
                layer: 0,
                rate: Rate::mbps(100),
            },
        ];
        let usage = |links: &[LinkInput], snapshots: &[CounterSnapshot]| {
            let mut paper = PaperUsage::default();
            for s in snapshots {
                paper.push(links, s.clone());
            }
            paper.layer(0)
        };
        let trace = trace();
        let (u, l) = usage(&ports, &trace).unwrap();
        // U samples: 50, 0, 100, 20 -> 42.5. L samples: 0, 0 (idle), 1.25/13.75 = 9.0909..%, 0.
        assert!((u - 42.5).abs() < 1e-12);
        assert!((l - 100.0 / 11.0 / 4.0).abs() < 1e-12);
        assert_eq!(usage(&ports, &trace[..1]), None);
        assert_eq!(usage(&[], &trace), None);
    }

    #[test]
    fn standard_utilisation_and_loss_over_the_window() {
        let trace = trace();
        let window = Window {
            start: SimTime::from_secs(1),
            end: SimTime::from_secs(3),
        };
        let rate = Rate::mbps(100);
        let p0 = link_usage(&trace[0].counters[0], &trace[2].counters[0], window);
        // 18.75 MB in 2 s at 100 Mb/s = 75%; 855 drops of 855 + 12825 arrivals.
        assert!((p0.utilisation.unwrap() - 0.75).abs() < 1e-12);
        assert!((p0.loss_rate - 855.0 / 13680.0).abs() < 1e-15);
        let p1 = link_usage(&trace[0].counters[1], &trace[2].counters[1], window);
        assert!((p1.utilisation.unwrap() - 0.10).abs() < 1e-12);
        assert_eq!(p1.loss_rate, 0.0);
        let idle = link_usage(&trace[0].counters[1], &trace[0].counters[1], window);
        assert_eq!((idle.utilisation, idle.loss_rate), (Some(0.0), 0.0));
        let empty = Window {
            start: window.end,
            end: window.end,
        };
        assert_eq!(
            link_usage(&trace[0].counters[0], &trace[2].counters[0], empty).utilisation,
            None
        );

        // The same trace through a whole run summary: layer averages in %.
        let layers = vec!["core".to_string(), "agg".to_string()];
        let links = [LinkInput { layer: 0, rate }, LinkInput { layer: 0, rate }];
        let input = RunInput {
            window,
            classes: &[],
            flows: &[],
            layers: &layers,
            links: &links,
            counters_start: &trace[0].counters,
            counters_end: &trace[2].counters,
            paper: &{
                let mut paper = PaperUsage::default();
                for s in &trace {
                    paper.push(&links, s.clone());
                }
                paper
            },
            cost: RunCost::new(10, 5, 3, 0.0),
            crossed: None,
        };
        let s = summarize_run(base_run(), &input);
        let core = &s.layers[0];
        assert_eq!(core.links, 2);
        assert!((core.utilisation_pct.unwrap() - 42.5).abs() < 1e-9);
        assert!((core.loss_pct.unwrap() - 50.0 * 855.0 / 13680.0).abs() < 1e-9);
        assert!((core.paper_utilisation_pct.unwrap() - 42.5).abs() < 1e-9);
        let agg = &s.layers[1];
        assert_eq!(
            (agg.links, agg.utilisation_pct, agg.paper_loss_pct),
            (0, None, None)
        );
    }

    /// No per-second snapshots.
    static NO_PAPER: PaperUsage = PaperUsage {
        last: None,
        sums: Vec::new(),
    };

    /// A run of `flows` (of `classes`) over `window`, without links.
    fn flows_only<'a>(
        window: Window,
        classes: &'a [String],
        flows: &'a [FlowInput],
    ) -> RunInput<'a> {
        RunInput {
            window,
            classes,
            flows,
            layers: &[],
            links: &[],
            counters_start: &[],
            counters_end: &[],
            paper: &NO_PAPER,
            cost: RunCost::new(0, 0, 0, 1.0),
            crossed: None,
        }
    }

    /// Seed 1 of the only point.
    fn base_run() -> RunId {
        RunId {
            point: "base".into(),
            point_index: 0,
            seed: 1,
        }
    }

    fn flow(
        class: usize,
        size: Option<u64>,
        arrival_ms: u64,
        start_ms: u64,
        end_ms: Option<u64>,
    ) -> FlowInput {
        FlowInput {
            class,
            record: FlowRecord {
                size_bytes: size,
                src: HostId(0),
                dst: HostId(1),
                arrival: SimTime::from_ms(arrival_ms),
                start: Some(SimTime::from_ms(start_ms)),
                end: end_ms.map(SimTime::from_ms),
                ..FlowRecord::default()
            },
            ideal_fct: size.map(|_| SimTime::from_ms(2)),
            job: None,
            at_window_start: FlowBytes::default(),
            at_window_end: None,
        }
    }

    /// A single-path flow's counters: both levels the same.
    fn one_path(sent: u64, acked: u64) -> FlowBytes {
        FlowBytes {
            sent,
            acked,
            subflow_sent: sent,
            subflow_acked: acked,
        }
    }

    #[test]
    fn flow_metrics_respect_the_warmup_and_every_goodput_definition() {
        let window = Window {
            start: SimTime::from_secs(1),
            end: SimTime::from_secs(3),
        };
        let mut flows = vec![
            // Short flows: one in the warmup (ignored), FCTs 4 ms and 1 ms, one unfinished.
            flow(0, Some(70_000), 500, 501, Some(505)),
            flow(0, Some(70_000), 1000, 1001, Some(1005)),
            flow(0, Some(70_000), 1500, 1500, Some(1501)),
            flow(0, Some(70_000), 2000, 2001, None),
            // Long flows from t = 0, counted from the warmup on.
            flow(1, None, 0, 0, None),
            flow(1, None, 0, 0, None),
        ];
        flows[1].record.timeouts = 1;
        flows[1].job = Some(7);
        flows[3].job = Some(7);
        flows[2].job = Some(8);
        for (i, f) in flows[4..].iter_mut().enumerate() {
            // Multipath: 1.1 MB sent on the subflows (0.1 MB of it twice) by the warmup.
            f.at_window_start = FlowBytes {
                sent: 1_000_000,
                acked: 900_000,
                subflow_sent: 1_100_000,
                subflow_acked: 950_000,
            };
            // Acknowledged by the window end: the 1 MB sent before it, and 20 or 10 MB more.
            // 25 MB and 12.5 MB sent in the 2 s window: 100 and 50 Mb/s.
            f.record.bytes_sent = 1_000_000 + 25_000_000 / (i as u64 + 1);
            f.record.bytes_acked = 1_000_000 + 20_000_000 / (i as u64 + 1);
            // The subflows acknowledged 24 or 12 MB more than they had sent by the warmup (a
            // hole in the data sequence holds 4 or 2 MB of it back at the connection level).
            f.record.subflow_bytes_acked = 1_100_000 + 24_000_000 / (i as u64 + 1);
        }
        let classes = vec!["short".to_string(), "long".to_string()];
        let input = flows_only(window, &classes, &flows);
        let s = summarize_run(base_run(), &input);
        let short = &s.classes[0];
        assert_eq!(
            (short.finite_flows, short.completed, short.unfinished),
            (3, 2, 1)
        );
        let fct = short.fct_ms.unwrap();
        assert_eq!((fct.n, fct.mean, fct.min, fct.max), (2, 2.5, 1.0, 4.0));
        // Slowdowns 4/2 = 2 and 1/2 (an ideal FCT that is not a lower bound shows).
        let sd = short.slowdown.unwrap();
        assert_eq!((sd.min, sd.max), (0.5, 2.0));
        assert_eq!(short.timeouts.unwrap().max, 1.0);
        assert_eq!(short.retransmits.unwrap().n, 2);
        assert_eq!((short.jobs_completed, short.jobs_unfinished), (1, 1));
        assert_eq!(short.jct_ms.unwrap().mean, 1.0);
        assert_eq!(short.long_flows, 0);
        let long = &s.classes[1];
        // Goodput: 20 MB and 10 MB acknowledged in the 2 s window, 80 and 40 Mb/s.
        let g = long.goodput_mbps.unwrap();
        assert!((g.mean - 60.0).abs() < 1e-9 && (g.max - 80.0).abs() < 1e-9);
        assert_eq!(long.goodput_values_mbps.len(), 2);
        // The paper's: 25 MB and 12.5 MB sent, 100 and 50 Mb/s.
        let gp = long.goodput_paper_mbps.unwrap();
        assert!((gp.max - 100.0).abs() < 1e-9 && (gp.min - 50.0).abs() < 1e-9);
        // Subflow level: 24 MB and 12 MB past the subflows' 1.1 MB sent by the warmup, 96 and
        // 48 Mb/s.
        let sf = &long.subflow_goodput_values_mbps;
        assert_eq!(sf.len(), 2);
        assert!(
            (sf[0] - 96.0).abs() < 1e-9 && (sf[1] - 48.0).abs() < 1e-9,
            "{sf:?}"
        );
        assert!((long.subflow_goodput_mbps.unwrap().mean - 72.0).abs() < 1e-9);
        // Jain of (80, 40) = 120^2 / (2 x 8000) = 0.9.
        assert!((long.jain.unwrap() - 0.9).abs() < 1e-12);
        assert_eq!((long.finite_flows, long.fct_ms), (0, None));
        // No watched link: no crossing metrics.
        assert_eq!(
            (long.crossing_long_flows, long.crossing_goodput_mbps),
            (None, None)
        );

        // The second long flow (40 Mb/s) and a short one crossed a watched link: only long
        // flows count, each with its goodput.
        for (i, f) in flows.iter_mut().enumerate() {
            f.record.flow_id = i as u64;
        }
        let crossed: HashSet<u64> = [1, 5].into_iter().collect();
        let input = RunInput {
            crossed: Some(&crossed),
            ..flows_only(window, &classes, &flows)
        };
        let s = summarize_run(base_run(), &input);
        let (short, long) = (&s.classes[0], &s.classes[1]);
        assert_eq!(short.crossing_long_flows, Some(0));
        assert_eq!(long.crossing_long_flows, Some(1));
        assert_eq!(long.crossing_goodput_values_mbps.len(), 1);
        assert!((long.crossing_goodput_values_mbps[0] - 40.0).abs() < 1e-9);
        assert!((long.crossing_goodput_mbps.unwrap().mean - 40.0).abs() < 1e-9);
        // Its subflow-level goodput: 12 MB in 2 s.
        assert_eq!(long.crossing_subflow_goodput_values_mbps.len(), 1);
        assert!((long.crossing_subflow_goodput_values_mbps[0] - 48.0).abs() < 1e-9);
    }

    #[test]
    fn loss_counters_count_each_measured_flows_whole_life() {
        // Window 1..3 s. A long flow open since 0 with 4 timeouts over its life (whatever part
        // of them fell in the warmup), a finite flow arriving at 1.5 s that completed with 2,
        // one arriving at 2 s that never completed with 6, and one of the warmup with 8: the
        // counters are over the completed finite flows that arrived in the window and the long
        // flows that started, whole life: mean (4 + 2) / 2 = 3, p99 3.98.
        let window = Window {
            start: SimTime::from_secs(1),
            end: SimTime::from_secs(3),
        };
        let mut flows = vec![
            flow(0, None, 0, 0, None),
            flow(0, Some(10_000), 1500, 1500, Some(1510)),
            flow(0, Some(10_000), 2000, 2000, None),
            flow(0, Some(10_000), 500, 500, Some(510)),
        ];
        for (f, timeouts) in flows.iter_mut().zip([4, 2, 6, 8]) {
            f.record.timeouts = timeouts;
            f.record.retransmits = 10 * timeouts;
            f.record.fast_retransmits = timeouts / 2;
        }
        let classes = vec!["mixed".to_string()];
        let c = &summarize_run(base_run(), &flows_only(window, &classes, &flows)).classes[0];
        let (rto, retx, fast) = (
            c.timeouts.unwrap(),
            c.retransmits.unwrap(),
            c.fast_retransmits.unwrap(),
        );
        assert_eq!((rto.n, rto.mean, rto.max), (2, 3.0, 4.0));
        assert!((rto.p99 - 3.98).abs() < 1e-12, "{rto:?}");
        assert_eq!((retx.mean, fast.mean), (30.0, 1.5));
    }

    #[test]
    fn jain_is_over_the_in_order_goodputs() {
        // Two long multipath flows over a 1 s window: both sent 10 MB in it and their subflows
        // had it all acknowledged (80 Mb/s each, the subflow level and the paper's goodput), but
        // a hole held back the second's data at the connection level: 10 MB and 2.5 MB in order
        // (80 and 20 Mb/s). Jain's index is over the in-order goodputs: 100^2 / (2 x 6800) =
        // 0.735..., not the 1 of the other two.
        let window = Window {
            start: SimTime::ZERO,
            end: SimTime::from_secs(1),
        };
        let mb = 1_000_000;
        let flows: Vec<FlowInput> = [10 * mb, 2_500_000]
            .into_iter()
            .map(|acked| {
                let mut f = flow(0, None, 0, 0, None);
                f.at_window_end = Some(FlowBytes {
                    sent: 10 * mb,
                    acked,
                    subflow_sent: 10 * mb,
                    subflow_acked: 10 * mb,
                });
                f
            })
            .collect();
        let classes = vec!["long".to_string()];
        let long = &summarize_run(base_run(), &flows_only(window, &classes, &flows)).classes[0];
        assert_eq!(long.goodput_values_mbps, vec![80.0, 20.0]);
        assert_eq!(long.subflow_goodput_values_mbps, vec![80.0, 80.0]);
        assert_eq!(long.goodput_paper_values_mbps, vec![80.0, 80.0]);
        let jain = long.jain.unwrap();
        assert!((jain - 10_000.0 / 13_600.0).abs() < 1e-12, "{jain}");
    }

    #[test]
    fn finite_goodput_is_size_over_fct_over_the_whole_life() {
        let window = Window {
            start: SimTime::from_secs(1),
            end: SimTime::from_secs(3),
        };
        let mb = 1_000_000;
        let done = |size: u64, arrival_ms: u64, end_ms: u64| {
            let mut f = flow(0, Some(size), arrival_ms, arrival_ms, Some(end_ms));
            f.record.bytes_acked = size;
            f.record.bytes_sent = size;
            f
        };
        let mut flows = vec![
            // Arrived in the warmup: left out of the summary, as its FCT is.
            done(mb, 500, 508),
            // 1 MB in 8 ms and 2 MB in 32 ms: 1000 and 500 Mb/s.
            done(mb, 1000, 1008),
            done(2 * mb, 2000, 2032),
            // 64 MB from 2.9 s, completed in the drain at 3.412 s: 1000 Mb/s over its whole
            // life, while its window goodput stops at T (10 MB acknowledged by then: 800 Mb/s).
            done(64 * mb, 2900, 3412),
            // Not completed: no finite goodput.
            flow(0, Some(mb), 2500, 2500, None),
        ];
        flows[3].at_window_end = Some(one_path(12 * mb, 10 * mb));
        // The flow's own value; the summary leaves out the one that arrived in the warmup.
        let expected = [Some(1000e6), Some(1000e6), Some(500e6), Some(1000e6), None];
        for (f, want) in flows.iter().zip(expected) {
            assert_eq!(finite_goodput_bps(&f.record), want);
        }
        // A flow alive only inside the window has the same goodput both ways.
        assert_eq!(flow_outcome(&flows[2], window).goodput_bps, Some(500e6));
        assert_eq!(flow_outcome(&flows[3], window).goodput_bps, Some(800e6));
        let classes = vec!["large".to_string()];
        let input = flows_only(window, &classes, &flows);
        let large = &summarize_run(base_run(), &input).classes[0];
        assert_eq!((large.completed, large.unfinished), (3, 1));
        assert_eq!(
            large.finite_goodput_values_mbps,
            vec![1000.0, 500.0, 1000.0]
        );
        let g = large.finite_goodput_mbps.unwrap();
        assert!((g.mean - 2500.0 / 3.0).abs() < 1e-9, "{g:?}");
        // Sample standard deviation of (1000, 500, 1000): sqrt((2 x 166.7^2 + 333.3^2) / 2).
        assert!((g.std - 288.675_134_594_812_9).abs() < 1e-9, "{g:?}");
        assert_eq!((large.goodput_mbps, large.long_flows), (None, 0));
    }

    #[test]
    fn goodput_counts_bytes_between_the_edges_of_the_alive_time_inside_the_window() {
        let window = Window {
            start: SimTime::from_secs(1),
            end: SimTime::from_secs(3),
        };
        let mb = 1_000_000;
        // A finite flow alive 0.5 .. 2 s had sent 2 MB (1 MB acknowledged) at the warmup: the
        // 9 MB it sent after it, all acknowledged by its end, over 1 s: 72 Mb/s (the 1 MB sent
        // before the warmup and acknowledged after it crossed the network partly before). The
        // paper's variant is for long flows only.
        let mut early = flow(0, Some(11 * mb), 500, 500, Some(2000));
        early.record.bytes_acked = 11 * mb;
        early.record.bytes_sent = 11 * mb;
        early.record.subflow_bytes_acked = 11 * mb;
        early.record.subflow_bytes_sent = 11 * mb;
        early.at_window_start = one_path(2 * mb, mb);
        let o = flow_outcome(&early, window);
        assert_eq!((o.goodput_bps, o.goodput_sent_bps), (Some(72e6), None));
        // One path: the subflow level is the connection level.
        assert_eq!(o.subflow_goodput_bps, o.goodput_bps);
        // A long flow from 2.5 s, still open at the window's end (5 MB acknowledged, 6.25 MB
        // sent then) and drained after it: 80 Mb/s and the paper's 100 Mb/s over 0.5 s,
        // whatever the record says at the end of the drain.
        let mut late = flow(1, None, 2500, 2500, Some(3200));
        late.record.bytes_acked = 9 * mb;
        late.record.bytes_sent = 9 * mb;
        late.at_window_end = Some(one_path(6_250_000, 5 * mb));
        let o = flow_outcome(&late, window);
        assert_eq!(
            (o.goodput_bps, o.goodput_sent_bps, o.subflow_goodput_bps),
            (Some(80e6), Some(100e6), Some(80e6))
        );
        assert_eq!(
            alive_in_window(&late.record, window),
            Some((SimTime::from_ms(2500), SimTime::from_secs(3)))
        );
        // Not alive inside the window: started after its end, or never started.
        let after = flow(1, None, 3000, 3001, None);
        let mut never = flow(1, None, 2000, 0, None);
        never.record.start = None;
        for f in [after, never] {
            let o = flow_outcome(&f, window);
            assert_eq!(
                (o.goodput_bps, o.goodput_sent_bps, o.subflow_goodput_bps),
                (None, None, None)
            );
        }
    }

    #[test]
    fn jobs_count_from_their_start_inside_the_window() {
        let window = Window {
            start: SimTime::from_secs(1),
            end: SimTime::from_secs(3),
        };
        let job = |job, arrival_ms, end_ms| FlowInput {
            job: Some(job),
            ..flow(0, Some(2_000), arrival_ms, arrival_ms, end_ms)
        };
        let flows = vec![
            // Job 0 started in the warmup; its response ends after it: left out whole.
            job(0, 500, Some(502)),
            job(0, 1002, Some(1010)),
            // Job 1: two requests at 1.1 s, responses ending at 1.104 and 1.106 s: JCT 6 ms.
            job(1, 1100, Some(1101)),
            job(1, 1100, Some(1102)),
            job(1, 1101, Some(1104)),
            job(1, 1102, Some(1106)),
            // Job 2: a response never completes; job 3: a request failed, no response.
            job(2, 1200, Some(1201)),
            job(2, 1201, None),
            job(3, 1300, None),
            // A flow of another class with the same job id is not part of job 1.
            FlowInput {
                job: Some(1),
                ..flow(1, Some(2_000), 1100, 1100, Some(2000))
            },
        ];
        let classes = vec!["incast".to_string(), "other".to_string()];
        let input = flows_only(window, &classes, &flows);
        let spans = job_spans(0, &input);
        assert_eq!(spans.iter().map(|j| j.job).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(
            spans[0].completion_time(),
            Some(SimTime::from_ms(6)),
            "{spans:?}"
        );
        assert_eq!((spans[1].end, spans[2].completion_time()), (None, None));
        let s = summarize_run(base_run(), &input);
        let c = &s.classes[0];
        assert_eq!((c.jobs_completed, c.jobs_unfinished), (1, 2));
        let jct = c.jct_ms.unwrap();
        assert_eq!((jct.n, jct.mean, jct.p99), (1, 6.0, 6.0));
        assert_eq!(s.classes[1].jct_ms.unwrap().mean, 900.0);
    }

    #[test]
    fn ideal_fct_adds_serialisation_at_the_bottleneck() {
        // One full data packet (1462 B on the wire) takes 116.96 us at 100 Mb/s (docs/model.md 1).
        let ideal = ideal_fct(SimTime::from_us(160), 1462, Rate::mbps(100));
        assert_eq!(ideal, SimTime::from_ns(160_000 + 116_960));
    }
}
