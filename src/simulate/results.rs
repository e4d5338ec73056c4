//! A run's per-flow and per-link results, typed: [`RunResults`], one [`FlowResult`] per flow
//! and one [`LinkResult`] per directed link. They are the rows of flows.csv and links.csv (the
//! writers in [`super::outputs`] render these records and nothing else, so the files and the
//! records cannot disagree), with the definitions of `docs/outputs.md`; times are [`SimTime`],
//! rates [`Rate`], other units are in the field names.
//!
//! They are built once, at the end of a run, from what the run kept anyway (the flows' records
//! and the links' counters at the measurement window's edges): nothing is added while packets
//! move.

use htsim_core::ids::HostId;
use htsim_core::queue::QueueCounters;
use htsim_core::{Rate, SimTime};
use htsim_topology::topology::Topology;
use htsim_transport::TcpConfig;

use crate::report::metrics::{flow_outcome, link_usage, FlowInput, LinkInput, Window};

/// A flow class as the results see it.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassInfo {
    /// The class's name (`[[flows]] name`).
    pub name: String,
    /// Its transport kind (`tcp`, `dctcp`, `ps`, `mptcp`, `mmptcp`, `xmp`).
    pub transport: String,
    /// Its TCP parameters (segment and packet sizes, which the ideal FCT uses).
    pub tcp: TcpConfig,
}

/// One flow's results: a row of flows.csv (`docs/outputs.md` defines every value).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowResult {
    /// The flow's number, unique within the run, in the order flows arrived (`flow_id`).
    pub flow_id: u64,
    /// The number of the partition/aggregate job the flow belongs to, unique within the run,
    /// 0, 1, 2, ... in the order jobs started; `None` for a flow of no job (`job`).
    pub job: Option<u64>,
    /// Index of the flow's class in [`RunResults::classes`] (scenario order);
    /// [`RunResults::class_of`] gives the class itself.
    pub class: usize,
    /// Sending host (`src`, written `host<i>`).
    pub src: HostId,
    /// Receiving host (`dst`).
    pub dst: HostId,
    /// Application bytes to send; `None` for a long (infinite) flow (`size_bytes`).
    pub size_bytes: Option<u64>,
    /// When the flow arrived: the application asked for it and its first SYN was sent
    /// (`arrival_ns`). Finite flows that arrived before the warmup are left out of the
    /// summaries.
    pub arrival: SimTime,
    /// The flow's start: its first subflow's SYN-ACK; `None` if it never connected
    /// (`start_ns`).
    pub start: Option<SimTime>,
    /// The flow's completion, drain included; `None` if it did not complete, and always for a
    /// long flow (`end_ns`).
    pub end: Option<SimTime>,
    /// Flow completion time, `end - start`; `None` when `end` is (`fct_ns`).
    pub fct: Option<SimTime>,
    /// The FCT the flow would have alone on an idle network; `None` for long flows
    /// (`ideal_fct_ns`).
    pub ideal_fct: Option<SimTime>,
    /// `fct / ideal_fct`, not clamped; `None` without both (`slowdown`).
    pub slowdown: Option<f64>,
    /// Whether the finite flow completed (it has an `end`); never for a long flow
    /// (`completed`).
    pub completed: bool,
    /// Application bytes acknowledged in order at the end of the run, drain included
    /// (`bytes_acked`).
    pub bytes_acked: u64,
    /// Goodput inside the measurement window, b/s
    /// ([`crate::report::metrics::goodput_bps`]); `None` if the flow was not alive inside
    /// it (`goodput_bps`, rounded to an integer in the file).
    pub goodput_bps: Option<f64>,
    /// The MMPTCP paper's goodput (distinct bytes sent instead of acknowledged), b/s; long flows
    /// only (`goodput_sent_bps`).
    pub goodput_sent_bps: Option<f64>,
    /// Subflow-level goodput (data bytes cumulatively acknowledged per subflow, summed, instead
    /// of in order at the connection level), b/s: equal to `goodput_bps` for single-path
    /// transports; `None` if the flow was not alive inside the window
    /// (`subflow_goodput_bps`).
    pub subflow_goodput_bps: Option<f64>,
    /// Data packets sent, retransmissions included (`packets_sent`).
    pub packets_sent: u64,
    /// Data packets sent again (`retransmits`).
    pub retransmits: u64,
    /// Entries into fast recovery, summed over subflows (`fast_retransmits`).
    pub fast_retransmits: u64,
    /// Retransmission-timer expiries with data outstanding, summed over subflows (`timeouts`).
    pub timeouts: u64,
    /// Subflows the connection opened, 1 for single-path transports (`subflows`).
    pub subflows: u32,
}

impl FlowResult {
    /// The results of `flow` with the measurement window `window`.
    pub fn of(flow: &FlowInput, window: Window) -> Self {
        let r = &flow.record;
        let o = flow_outcome(flow, window);
        let finite = r.size_bytes.is_some();
        FlowResult {
            flow_id: r.flow_id,
            job: flow.job,
            class: flow.class,
            src: r.src,
            dst: r.dst,
            size_bytes: r.size_bytes,
            arrival: r.arrival,
            start: r.start,
            end: r.end.filter(|_| finite),
            fct: o.fct.filter(|_| finite),
            ideal_fct: flow.ideal_fct,
            slowdown: o.slowdown.filter(|_| finite),
            completed: finite && r.completed(),
            bytes_acked: r.bytes_acked,
            goodput_bps: o.goodput_bps,
            goodput_sent_bps: o.goodput_sent_bps,
            subflow_goodput_bps: o.subflow_goodput_bps,
            packets_sent: r.packets_sent,
            retransmits: r.retransmits,
            fast_retransmits: r.fast_retransmits,
            timeouts: r.timeouts,
            subflows: r.subflows,
        }
    }

    /// Whether the flow is a long (infinite) one.
    pub fn is_long(&self) -> bool {
        self.size_bytes.is_none()
    }
}

/// One directed link's results over the measurement window: a row of links.csv.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkResult {
    /// `<from>-><to>` (`link`).
    pub name: String,
    /// The transmitting node (`from`).
    pub from: String,
    /// The receiving node (`to`).
    pub to: String,
    /// The transmitting node's layer (`host`, `tor`, `agg`, `core`, ...): the link is one of
    /// that layer's egress ports (`layer`).
    pub layer: String,
    /// The link's rate at the start of the run (`rate_bps`).
    pub rate: Rate,
    /// Packets accepted into the link's queue (`packets_enqueued`).
    pub packets_enqueued: u64,
    /// Their bytes on the wire (`bytes_enqueued`).
    pub bytes_enqueued: u64,
    /// Packets dropped on arrival (`packets_dropped`).
    pub packets_dropped: u64,
    /// Their bytes on the wire (`bytes_dropped`).
    pub bytes_dropped: u64,
    /// Packets marked with ECN congestion experienced on arrival (`packets_marked`).
    pub packets_marked: u64,
    /// 100 x time spent serialising / the window's length, %; `None` for an empty window
    /// (`utilisation_pct`, 4 decimals in the file).
    pub utilisation_pct: Option<f64>,
    /// 100 x packets dropped / packets arrived, %; 0 when nothing arrived (`loss_rate_pct`,
    /// 4 decimals in the file).
    pub loss_rate_pct: f64,
}

impl LinkResult {
    /// Link `index` of `topology` with its rate `input` and its queue counters at the window's
    /// `start` and `end`.
    pub fn of(
        topology: &Topology,
        index: usize,
        input: &LinkInput,
        start: &QueueCounters,
        end: &QueueCounters,
        window: Window,
    ) -> Self {
        let l = &topology.links()[index];
        let usage = link_usage(start, end, window);
        let delta = |f: fn(&QueueCounters) -> u64| f(end).saturating_sub(f(start));
        LinkResult {
            name: topology.link_name(l),
            from: topology.node(l.from).name.to_string(),
            to: topology.node(l.to).name.to_string(),
            layer: topology.layer_name(l.layer).to_string(),
            rate: input.rate,
            packets_enqueued: delta(|c| c.packets_enqueued),
            bytes_enqueued: delta(|c| c.bytes_enqueued),
            packets_dropped: delta(|c| c.packets_dropped),
            bytes_dropped: delta(|c| c.bytes_dropped),
            packets_marked: delta(|c| c.packets_marked),
            utilisation_pct: usage.utilisation.map(|u| 100.0 * u),
            loss_rate_pct: 100.0 * usage.loss_rate,
        }
    }
}

/// What one flow's data packets did at one watched link (`[output] crossings`) over the
/// measurement window: a row of crossings.csv.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossingResult {
    /// The flow's number (`flow_id`, as in flows.csv).
    pub flow_id: u64,
    /// Index of the flow's class in [`RunResults::classes`].
    pub class: usize,
    /// The watched link's name, `<from>-><to>` (`link`, as in links.csv).
    pub link: String,
    /// The flow's data packets the link's queue accepted, retransmissions included
    /// (`packets_enqueued`).
    pub packets_enqueued: u64,
    /// Their bytes on the wire (`bytes_enqueued`).
    pub bytes_enqueued: u64,
    /// The flow's data packets dropped on arrival at the link (`packets_dropped`).
    pub packets_dropped: u64,
}

/// A run's per-flow and per-link results ([`super::RunOutput::results`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RunResults {
    /// The flow classes, in scenario order ([`FlowResult::class`] indexes them).
    pub classes: Vec<ClassInfo>,
    /// Every flow that was started, in flow id order (the rows of flows.csv).
    pub flows: Vec<FlowResult>,
    /// Every directed link, in the topology's order (the rows of links.csv).
    pub links: Vec<LinkResult>,
    /// Per flow and watched link, what the flow's data packets did there, by link (in the
    /// topology's order), then flow id (the rows of crossings.csv); empty without
    /// `[output] crossings`.
    pub crossings: Vec<CrossingResult>,
}

impl RunResults {
    /// The results of `flows` and of the links of `topology` (with their rates `links` and
    /// their counters at the window's `start` and `end`, indexed alike) over `window`; no
    /// crossings (the run sets them).
    pub fn new(
        classes: Vec<ClassInfo>,
        flows: &[FlowInput],
        topology: &Topology,
        links: &[LinkInput],
        start: &[QueueCounters],
        end: &[QueueCounters],
        window: Window,
    ) -> Self {
        RunResults {
            classes,
            flows: flows.iter().map(|f| FlowResult::of(f, window)).collect(),
            links: (0..links.len())
                .map(|i| LinkResult::of(topology, i, &links[i], &start[i], &end[i], window))
                .collect(),
            crossings: Vec::new(),
        }
    }

    /// The class of `flow`.
    pub fn class_of(&self, flow: &FlowResult) -> &ClassInfo {
        &self.classes[flow.class]
    }

    /// The flows of the class called `name` (none if there is no such class), in flow id order.
    pub fn flows_of<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a FlowResult> + 'a {
        let class = self.classes.iter().position(|c| c.name == name);
        self.flows.iter().filter(move |f| Some(f.class) == class)
    }

    /// The links of the layer called `name` (their transmitting node's layer), in the
    /// topology's order.
    pub fn links_of<'a>(&'a self, layer: &'a str) -> impl Iterator<Item = &'a LinkResult> + 'a {
        self.links.iter().filter(move |l| l.layer == layer)
    }
}
