//! Physical invariants of every run's results, over varied small runs: topologies (FatTree
//! k = 4, dual-homed FatTree k = 6, VL2, BCube(4, 1), star, dumbbell), host link rates from
//! 100 Mb/s to 10 Gb/s with slower or faster switch layers, link delays, drop-tail, ECN and RED
//! queues in packets or bytes, every transport (TCP, DCTCP, packet scatter, MPTCP with LIA,
//! uncoupled and fully coupled control and 1 to 8 subflows, MMPTCP, XMP) with varied options,
//! long and finite flows, Poisson arrivals, partition/aggregate jobs, warmups, drains, link
//! failures, rate and buffer changes, and seeds. Poisson arrivals stop 0.2 s before the end of
//! the run (docs/model.md 14.4), so each run lasts 200 ms plus a busy span of 3 to 10 ms; long
//! flows start at 0 (at most 1 Gb/s) or at 200 ms.
//!
//! Each bound is derived from the metric's definition in docs/outputs.md (the comments say
//! how); none has a margin beyond a relative 1e-9 for the rounding of f64 arithmetic:
//!
//! - goodput: every flow's `goodput_bps` and `subflow_goodput_bps`, and a completed flow's
//!   finite-flow goodput `8 x size / fct`, are at most the payload rate (`mss / (mss +
//!   header)` of the line rate) of its sender's host links (summed over the host's NICs) and of
//!   its receiver's; summed over the flows that share a host's links (as sender or receiver) or
//!   a dumbbell's bottleneck, the bytes counted fit in those links' payload rate over the span
//!   of the flows' windows; the bytes counted are at most `bytes_acked`; subflow-level goodput
//!   equals goodput for single-path transports and is never lower for multipath ones;
//! - flows: `bytes_acked <= size` (equal when completed), `arrival <= start <= end`,
//!   `fct = end - start`, `bytes_acked <= packets_sent x mss`, `fast_retransmits <=
//!   retransmits <= packets_sent`, subflows at most those configured, and `fct >= ideal_fct`
//!   less what a last segment cut by the window can save ([`PathZero::ideal_slack`]), where
//!   the ideal bounds the flow at all ([`Case::ideal_is_lower_bound`]);
//! - links: `0 <= loss_rate_pct <= 100` and equal to its counters' ratio, utilisation at most
//!   100%, marks only on marking queues and
//!   only of accepted packets, bytes between the smallest and the largest packet's worth, and
//!   (without events) the busy time consistent with the bytes accepted and the queue's
//!   capacity; with the window the whole run, a host's egress queues saw at least the data
//!   packets its flows sent;
//! - packet conservation at the end of the run (sent = delivered + dropped + lost + in flight).
//!
//! 40 cases by default; `HTSIM_INVARIANT_CASES=N` runs N, and `HTSIM_INVARIANT_VERBOSE=1`
//! prints each run with how close it came to the goodput and FCT bounds.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use htsim::core::ids::HostId;
use htsim::core::{Rate, SimTime};
use htsim::scenario::{load_str, LoadOptions};
use htsim::simulate::results::{FlowResult, RunResults};
use htsim::simulate::{run, setup, RunContext, RunOutput, Setup};
use htsim::transport::TcpConfig;
use proptest::prelude::*;

#[path = "common/draw.rs"]
mod draw;

use draw::{
    quoted, transport, Topo, TopologyDraw, Transport, CAPACITIES, DELAYS_US, LAYER_FACTORS,
    RATES_MBPS, SIZES, TOPOS,
};

/// f64 rounding allowance, relative: the bounds themselves are exact.
const FLOAT: f64 = 1e-9;

/// Minimum RTOs drawn: the default, and short ones so that timeouts recover inside a few ms.
const MIN_RTOS: &[&str] = &["200ms", "1ms", "300us"];

/// One scenario drawn.
#[derive(Clone, Debug)]
struct Case {
    topo: Topo,
    rate_mbps: u64,
    delay_us: u64,
    layer_factor: f64,
    /// `droptail`, `ecn` or `red`.
    queue: &'static str,
    capacity: u64,
    /// The capacity in bytes (`capacity` x the largest data packet) rather than packets.
    capacity_bytes: bool,
    /// FatTree hosts per ToR over k/2.
    oversubscription: u32,
    /// Partition/aggregate jobs with the long flows: servers per job (0: none).
    job_servers: u32,
    spray: bool,
    long: Transport,
    short: Transport,
    long_size: Option<usize>,
    long_share: u32,
    poisson: u64,
    short_size: usize,
    /// Poisson arrivals run for this long from 0 (the run lasts 200 ms more: arrivals stop
    /// 0.2 s before its end, docs/model.md 14.4), us.
    span_us: u64,
    /// Whether the long flows start late, at 200 ms (always above 1 Gb/s, where 200 ms of
    /// long flows would cost too much), rather than at 0 with the short flows.
    late: bool,
    warmup: usize,
    drain_us: u64,
    event: usize,
    /// Whether the event happens in the long flows' busy span rather than the short flows'.
    event_late: bool,
    seed: u64,
}

prop_compose! {
    fn case()(
        topo in 0..TOPOS.len(),
        rate in 0..RATES_MBPS.len(),
        delay in 0..DELAYS_US.len(),
        factor in 0..LAYER_FACTORS.len(),
        queue in prop::sample::select(vec!["droptail", "ecn", "red"]),
        capacity in 0..CAPACITIES.len(),
        capacity_bytes in prop::bool::weighted(0.25),
        oversubscription in prop::sample::select(vec![1u32, 1, 2]),
        job_servers in prop::sample::select(vec![0u32, 0, 3, 7]),
        spray in prop::bool::weighted(0.15),
        long in transport(MIN_RTOS),
        short in transport(MIN_RTOS),
        long_size in prop::option::weighted(0.3, 0..SIZES.len()),
        long_share in 1u32..=3,
        poisson in prop::sample::select(vec![5_000u64, 20_000, 80_000]),
        short_size in 0..SIZES.len(),
        span in 3000u64..=10_000,
        late in any::<bool>(),
        warmup in 0usize..4,
        drain in prop::sample::select(vec![0u64, 5000]),
        event in 0usize..7,
        event_late in any::<bool>(),
        seed in 1u64..1000,
    ) -> Case {
        Case {
            topo: TOPOS[topo],
            rate_mbps: RATES_MBPS[rate],
            delay_us: DELAYS_US[delay],
            layer_factor: LAYER_FACTORS[factor],
            queue,
            capacity: CAPACITIES[capacity],
            capacity_bytes,
            oversubscription,
            job_servers,
            spray,
            long,
            short,
            long_size,
            long_share,
            poisson,
            short_size,
            span_us: span,
            late: late || RATES_MBPS[rate] > 1000,
            warmup,
            drain_us: drain,
            event,
            event_late,
            seed,
        }
    }
}

impl Case {
    /// The other rate of the topology's switch layer (FatTree core, VL2 switch links, dumbbell
    /// bottleneck), Mb/s.
    fn layer_rate_mbps(&self) -> u64 {
        self.topology().layer_rate_mbps()
    }

    /// The topology drawn.
    fn topology(&self) -> TopologyDraw {
        TopologyDraw {
            topo: self.topo,
            rate_mbps: self.rate_mbps,
            delay_us: self.delay_us,
            layer_factor: self.layer_factor,
            oversubscription: self.oversubscription,
        }
    }

    /// The queues' capacity and its unit: packets, or bytes (as many of the largest data
    /// packet: `mss` up to 9000 B with a 62 B header).
    fn capacity_value(&self) -> (u64, &'static str) {
        draw::capacity_value(self.capacity, self.capacity_bytes)
    }

    /// The rate an event (5) slows the fabric's links to, Mb/s: a quarter of the slowest.
    fn slowed_rate_mbps(&self) -> u64 {
        (self.rate_mbps.min(self.layer_rate_mbps()) / 4).max(1)
    }

    /// When the long flows start, us.
    fn long_start_us(&self) -> u64 {
        if self.late {
            200_000
        } else {
            0
        }
    }

    /// The run's duration T, us.
    fn duration_us(&self) -> u64 {
        200_000 + self.span_us
    }

    /// The warmup: none, inside the short flows' span, or inside the long flows' one, us.
    fn warmup_us(&self) -> u64 {
        match self.warmup {
            1 => self.span_us / 2,
            2 | 3 => self.long_start_us() + self.span_us / 3,
            _ => 0,
        }
    }

    /// The scenario's text.
    fn toml(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "name = \"inv\"\n[run]\nduration = \"{}us\"\ndrain = \"{}us\"\nwarmup = \"{}us\"",
            self.duration_us(),
            self.drain_us,
            self.warmup_us()
        );
        self.topology().toml(&mut t);
        draw::network_toml(
            &mut t,
            self.queue,
            self.capacity_value(),
            self.spray,
            &self.long,
            &self.short,
        );
        let long_size = self
            .long_size
            .map_or("\"infinite\"".to_string(), |s| quoted(SIZES[s]));
        let _ = writeln!(
            t,
            "[[flows]]\nname = \"long\"\nmatrix = \"permutation\"\nsenders = \"{}%\"\n\
             size = {long_size}\ntransport = \"long\"\nstart = \"{}us\"",
            self.long_share * 25,
            self.long_start_us()
        );
        draw::short_flows_toml(&mut t, &quoted(SIZES[self.short_size]), self.poisson);
        if self.job_servers > 0 {
            let _ = writeln!(
                t,
                "[[flows]]\nname = \"jobs\"\ntransport = \"short\"\nstart = \"{}us\"\n\
                 jobs = {{ servers = {}, request = \"2KB\", response = \"20KB\", concurrent = 2 }}",
                self.long_start_us(),
                // The dumbbell has 6 hosts: a job takes at most 5 servers and its client.
                if self.topo == Topo::Dumbbell {
                    self.job_servers.min(5)
                } else {
                    self.job_servers
                }
            );
        }
        let fabric = draw::event_target(self.topo);
        let busy = if self.event_late { 200_000 } else { 0 };
        let down_at = busy + self.span_us / 3;
        let up_at = busy + self.span_us / 2;
        let event = |w: &str, set: &str, at: u64| {
            let set = if set.contains('=') {
                set.to_string()
            } else {
                format!("{set} = true")
            };
            format!("[[events]]\nat = \"{at}us\"\nwhere = {w}\nset = {{ {set} }}\n")
        };
        match self.event {
            1 => t.push_str(&event("{ link = \"host1\" }", "down", down_at)),
            2 => {
                t.push_str(&event("{ link = \"host1\" }", "down", down_at));
                t.push_str(&event("{ link = \"host1\" }", "up", up_at));
            }
            3 => t.push_str(&event(fabric, "down", down_at)),
            4 => {
                t.push_str(&event(fabric, "down", down_at));
                t.push_str(&event(fabric, "up", up_at));
            }
            5 => {
                let slower = format!("rate = \"{}Mbps\"", self.slowed_rate_mbps());
                t.push_str(&event(fabric, &slower, down_at));
            }
            6 => t.push_str(&event(fabric, "capacity = \"2pkt\"", down_at)),
            _ => {}
        }
        t
    }

    /// Whether the ideal FCT is a lower bound for a flow of `transport` here
    /// (docs/outputs.md, "Ideal FCT and slowdown"). The ideal is path 0's: the bottleneck sends
    /// every packet but the last, which then crosses every hop and is acknowledged. It bounds
    /// a flow on another path only if that path is no shorter and no faster: so every path of a
    /// pair must cross the same layers (not BCube, whose parallel paths differ in length). A
    /// flow spread over several paths can beat one path's bottleneck unless every packet
    /// crosses a link that is the bottleneck: the sender's only NIC (not dual-homed FatTree or
    /// BCube), with no slower switch layer. Star and dumbbell have one path per pair.
    fn ideal_is_lower_bound(&self, transport: &Transport) -> bool {
        // The ideal takes the links' rates when the flow arrived, so a flow that arrived before
        // an event slowed a link (5) is held to the faster rates, and one that arrived after to
        // the slower. With one path per pair (star, dumbbell) it stays a bound; elsewhere the
        // event slows some of a pair's paths, and path 0 may be a slowed one.
        if self.event == 5 && !matches!(self.topo, Topo::Star | Topo::Dumbbell) {
            return false;
        }
        let multipath = transport.multipath() || self.spray;
        match self.topo {
            Topo::Star | Topo::Dumbbell => true,
            Topo::BCube => false,
            Topo::Dhft => !multipath,
            Topo::FatTree | Topo::Vl2 => !multipath || self.layer_factor >= 1.0,
        }
    }
}

/// A host's links: the sum of its egress and of its ingress link rates, b/s.
fn host_rates(results: &RunResults) -> HashMap<String, (f64, f64)> {
    let mut rates: HashMap<String, (f64, f64)> = HashMap::new();
    for l in &results.links {
        let bps = l.rate.as_bps() as f64;
        if l.from.starts_with("host") {
            rates.entry(l.from.clone()).or_default().0 += bps;
        }
        if l.to.starts_with("host") {
            rates.entry(l.to.clone()).or_default().1 += bps;
        }
    }
    rates
}

/// The part of `f`'s life inside the window, `(from, to)` in seconds (docs/outputs.md,
/// "Goodput"), when the flow has a goodput.
fn alive(f: &FlowResult, warmup: f64, t: f64) -> Option<(f64, f64)> {
    let from = f.start?.as_secs_f64().max(warmup);
    let to = f.end.map_or(t, |e| e.as_secs_f64().min(t));
    (to > from).then_some((from, to))
}

/// Path 0 of every host pair, with the links' rates and delays: the path of the ideal FCT.
struct PathZero(Setup);

impl PathZero {
    /// How much a flow of `size` bytes from `src` to `dst` can beat its ideal FCT
    /// (docs/outputs.md, "Ideal FCT and slowdown"), where the ideal bounds it at all. The ideal's
    /// packets are full segments but the last; a window smaller than the last `mss` of data makes
    /// the sender cut it in two (docs/model.md 2.4), so the last packet may be shorter, down to 1
    /// byte of payload. The first packet is a full segment (the window starts at one or more)
    /// and crosses the links before a bottleneck; the bottleneck serialises every wire byte (at
    /// least the ideal's, a header per `mss`); then the last packet crosses the links after it,
    /// and its ACK comes back:
    ///
    ///   fct >= ideal - sum over the links after the bottleneck of (ser(last) - ser(1-byte packet))
    ///
    /// with `last` the ideal's last packet, plus a picosecond per link for the rounding of each
    /// serialisation. Any link of minimum rate is a bottleneck for a single path: the last one
    /// leaves the least after it. A multipath transport's first packet on a path may be short
    /// too, so it counts every link but the bottleneck, which is then the first link of minimum
    /// rate: its sender's link, which every packet crosses, where the ideal bounds a flow spread
    /// over several paths ([`Case::ideal_is_lower_bound`]).
    fn ideal_slack(
        &self,
        src: HostId,
        dst: HostId,
        size: u64,
        tcp: &TcpConfig,
        multipath: bool,
    ) -> SimTime {
        let mss = u64::from(tcp.mss.max(1));
        let segments = size.div_ceil(mss).max(1);
        let tail = size.saturating_sub((segments - 1) * mss).max(1);
        let last = u64::from(tcp.sizes.data(tail as u32));
        let least = u64::from(tcp.sizes.data(1));
        let mut links = Vec::new();
        self.0.topology.path(src, dst, 0, &mut links);
        let rates: Vec<Rate> = links.iter().map(|&l| self.0.world.link(l).rate()).collect();
        let slowest = rates.iter().map(|r| r.as_bps()).min().unwrap_or(0);
        let is_slowest = |r: &Rate| r.as_bps() == slowest;
        let counted: Vec<&Rate> = if multipath {
            let b = rates.iter().position(is_slowest).unwrap_or(0);
            let others = rates.iter().enumerate().filter(|&(i, _)| i != b);
            others.map(|(_, r)| r).collect()
        } else {
            let b = rates.iter().rposition(is_slowest).unwrap_or(0);
            rates[b + 1..].iter().collect()
        };
        let mut slack = SimTime::from_ps(links.len() as u64);
        for rate in counted {
            slack = slack + rate.serialisation_time(last) - rate.serialisation_time(least);
        }
        slack
    }
}

/// How close a run came to its bounds (printed with `HTSIM_INVARIANT_VERBOSE=1`).
#[derive(Debug, Default)]
struct Margins {
    /// The largest goodput (any of the three) over its bound.
    goodput: f64,
    /// The smallest FCT over its ideal, among the flows it bounds, and how many those are.
    slowdown: f64,
    slowdowns: usize,
}

/// Checks every invariant on one run's output; the error says which, with its numbers.
fn check(
    case: &Case,
    out: &RunOutput,
    paths: &PathZero,
    warmup: f64,
    t: f64,
) -> Result<Margins, String> {
    let mut m = Margins {
        slowdown: f64::MAX,
        ..Margins::default()
    };
    let r = &out.results;
    let c = &out.conservation;
    if !c.holds() {
        return Err(format!(
            "conservation: sent {} != delivered {} + dropped {} + lost {} + in flight {}",
            c.sent, c.delivered, c.dropped, c.lost, c.in_flight
        ));
    }
    let rates = host_rates(r);
    let name = |h: u32| format!("host{h}");
    // Payload share of the wire for each class: a full segment and its header.
    let efficiency = |class: usize| {
        let tcp = &r.classes[class].tcp;
        f64::from(tcp.mss) / f64::from(tcp.sizes.data(tcp.mss))
    };
    // Per set of links that some flows' data all crosses (a host's links as sender, as
    // receiver; a dumbbell's bottleneck in one direction): their rate, the bytes counted by
    // each goodput and the span of the flows' windows.
    struct Shared {
        rate: f64,
        bytes: f64,
        subflow_bytes: f64,
        from: f64,
        to: f64,
        efficiency: f64,
    }
    let mut sums: HashMap<String, Shared> = HashMap::new();
    let bottleneck = |from: &str, to: &str| {
        r.links
            .iter()
            .find(|l| l.from == from && l.to == to)
            .map(|l| l.rate.as_bps() as f64)
    };
    for f in &r.flows {
        let id = f.flow_id;
        let class = &r.classes[f.class];
        let tcp = &class.tcp;
        let (src_out, _) = rates[&name(f.src.0)];
        let (_, dst_in) = rates[&name(f.dst.0)];
        let eff = efficiency(f.class);
        // Every byte a goodput counts was first sent inside the flow's part of the window and
        // acknowledged by its end, so it crossed the sender's links (and the receiver's)
        // inside that part, at most `mss` of payload per `mss + header` on the wire.
        let bound = eff * src_out.min(dst_in);
        for (what, v) in [
            ("goodput_bps", f.goodput_bps),
            ("subflow_goodput_bps", f.subflow_goodput_bps),
        ] {
            if let Some(v) = v {
                m.goodput = m.goodput.max(v / bound);
                if v > bound * (1.0 + FLOAT) || v < 0.0 {
                    return Err(format!(
                        "flow {id} ({} {}): {what} {v:.0} b/s above the payload rate {bound:.0} \
                         b/s of its hosts' links (sender {src_out} b/s, receiver {dst_in} b/s, \
                         payload share {eff:.4}); {f:?}",
                        class.name, class.transport
                    ));
                }
            }
        }
        if let (Some(g), Some(s)) = (f.goodput_bps, f.subflow_goodput_bps) {
            // docs/outputs.md: equal for single-path transports; never lower for multipath.
            let single = matches!(class.transport.as_str(), "tcp" | "dctcp" | "ps");
            if (single && (g - s).abs() > FLOAT * g.max(1.0)) || s < g * (1.0 - FLOAT) {
                return Err(format!(
                    "flow {id} ({}): goodput {g:.0} b/s, subflow-level goodput {s:.0} b/s; {f:?}",
                    class.transport
                ));
            }
        }
        if let Some((from, to)) = alive(f, warmup, t) {
            let mut shared = vec![
                (format!("host{} sending", f.src.0), src_out),
                (format!("host{} receiving", f.dst.0), dst_in),
            ];
            if case.topo == Topo::Dumbbell {
                // Senders host0..3 on `left`, receivers host3..6 on `right`.
                let (left_src, left_dst) = (f.src.0 < 3, f.dst.0 < 3);
                if left_src != left_dst {
                    let (a, b) = if left_src {
                        ("left", "right")
                    } else {
                        ("right", "left")
                    };
                    let rate = bottleneck(a, b).ok_or("no bottleneck link")?;
                    shared.push((format!("bottleneck {a}->{b}"), rate));
                }
            }
            for (label, rate) in shared {
                let s = sums.entry(label).or_insert(Shared {
                    rate,
                    bytes: 0.0,
                    subflow_bytes: 0.0,
                    from: f64::MAX,
                    to: 0.0,
                    efficiency: 0.0,
                });
                s.bytes += f.goodput_bps.unwrap_or(0.0) * (to - from) / 8.0;
                // The bytes a goodput counts were acknowledged by its `to`.
                let counted = f.goodput_bps.unwrap_or(0.0) * (to - from) / 8.0;
                if counted > f.bytes_acked as f64 * (1.0 + FLOAT) + 1e-6 {
                    return Err(format!(
                        "flow {id}: goodput counts {counted:.0} B, more than the {} B it had \
                         acknowledged at the end; {f:?}",
                        f.bytes_acked
                    ));
                }
                s.subflow_bytes += f.subflow_goodput_bps.unwrap_or(0.0) * (to - from) / 8.0;
                s.from = s.from.min(from);
                s.to = s.to.max(to);
                s.efficiency = s.efficiency.max(eff);
            }
        }
        // Flow life and bytes.
        if let Some(start) = f.start {
            if start < f.arrival {
                return Err(format!("flow {id}: start before arrival; {f:?}"));
            }
        }
        // A fast recovery starts with a fast retransmission (docs/model.md 2.8).
        if f.retransmits > f.packets_sent || f.fast_retransmits > f.retransmits {
            return Err(format!(
                "flow {id}: {} packets, {} retransmits, {} fast retransmits; {f:?}",
                f.packets_sent, f.retransmits, f.fast_retransmits
            ));
        }
        let transport = if class.name == "long" {
            &case.long
        } else {
            &case.short
        };
        if f.subflows == 0 || f.subflows > transport.max_subflows {
            return Err(format!(
                "flow {id}: {} subflows, at most {} asked for; {f:?}",
                f.subflows, transport.max_subflows
            ));
        }
        if f.bytes_acked > f.packets_sent * u64::from(tcp.mss) {
            return Err(format!(
                "flow {id}: {} bytes acknowledged, more than its {} data packets of {} B carry; \
                 {f:?}",
                f.bytes_acked, f.packets_sent, tcp.mss
            ));
        }
        let Some(size) = f.size_bytes else {
            if f.completed || f.end.is_some() || f.fct.is_some() || f.ideal_fct.is_some() {
                return Err(format!("long flow {id} with an end or FCT; {f:?}"));
            }
            continue;
        };
        if f.bytes_acked > size || (f.completed && f.bytes_acked != size) {
            return Err(format!(
                "flow {id}: bytes_acked {} of size {size} (completed {}); {f:?}",
                f.bytes_acked, f.completed
            ));
        }
        if f.completed != f.end.is_some() {
            return Err(format!(
                "flow {id}: completed without an end or back; {f:?}"
            ));
        }
        let Some(end) = f.end else { continue };
        let Some(start) = f.start else {
            return Err(format!("flow {id}: an end without a start; {f:?}"));
        };
        let fct = f.fct.unwrap_or_default();
        if end < start || fct != end.saturating_sub(start) {
            return Err(format!("flow {id}: end, start and fct disagree; {f:?}"));
        }
        // Finite-flow goodput, 8 x size / fct: every byte was sent after the start and
        // acknowledged by the end. (The last segment may be short: a lower payload share.)
        if fct.as_ps() > 0 {
            let v = 8.0 * size as f64 / fct.as_secs_f64();
            m.goodput = m.goodput.max(v / bound);
            if v > bound * (1.0 + FLOAT) {
                return Err(format!(
                    "flow {id} ({}): finite-flow goodput {v:.0} b/s above the payload rate \
                     {bound:.0} b/s of its hosts' links; {f:?}",
                    class.transport
                ));
            }
        }
        if let Some(ideal) = f.ideal_fct.filter(|_| case.ideal_is_lower_bound(transport)) {
            let multipath = transport.multipath() || case.spray;
            let slack = paths.ideal_slack(f.src, f.dst, size, tcp, multipath);
            let least = ideal.saturating_sub(slack);
            m.slowdown = m.slowdown.min(fct.as_ps() as f64 / ideal.as_ps() as f64);
            m.slowdowns += 1;
            if fct < least {
                return Err(format!(
                    "flow {id} ({} {}, {}): fct {} ns below the ideal {} ns less {} ns for a \
                     last segment cut by the window (slowdown {:?}); {f:?}",
                    class.name,
                    class.transport,
                    transport.extra.replace('\n', " "),
                    fct.as_ns(),
                    ideal.as_ns(),
                    slack.as_ns(),
                    f.slowdown
                ));
            }
        }
    }
    // Summed over the flows that share links: every byte counted crossed those links between
    // the earliest `from` and the latest `to` of those flows.
    for (label, s) in &sums {
        let rate = s.rate;
        let cap = s.efficiency * rate * (s.to - s.from) / 8.0;
        for (what, bytes) in [("goodput", s.bytes), ("subflow goodput", s.subflow_bytes)] {
            if bytes > cap * (1.0 + FLOAT) + 1e-6 {
                return Err(format!(
                    "{label}: the flows' {what} counts {bytes:.0} B in {:.6} s, more than the \
                     links' {rate} b/s carry ({cap:.0} B of payload)",
                    s.to - s.from
                ));
            }
        }
    }
    // When the window is the whole run (no warmup, no drain), every data packet a host's flows
    // sent arrived at one of the host's egress queues in it (accepted or dropped), with the
    // ACKs, SYNs and FINs it sent and, on BCube, the packets it relayed.
    if warmup == 0.0 && case.drain_us == 0 {
        let mut sent: HashMap<String, u64> = HashMap::new();
        for f in &r.flows {
            *sent.entry(name(f.src.0)).or_default() += f.packets_sent;
        }
        for (host, packets) in sent {
            let arrived: u64 = r
                .links
                .iter()
                .filter(|l| l.from == host)
                .map(|l| l.packets_enqueued + l.packets_dropped)
                .sum();
            if packets > arrived {
                return Err(format!(
                    "{host}: its flows sent {packets} data packets, its egress queues saw \
                     {arrived} packets in all"
                ));
            }
        }
    }
    check_links(case, r, warmup, t)?;
    Ok(m)
}

/// The links' invariants (docs/outputs.md, "links.csv").
fn check_links(case: &Case, r: &RunResults, warmup: f64, t: f64) -> Result<(), String> {
    let window = t - warmup;
    let largest = r
        .classes
        .iter()
        .map(|c| c.tcp.sizes.data(c.tcp.mss))
        .max()
        .unwrap_or(0);
    let smallest = r
        .classes
        .iter()
        .flat_map(|c| [c.tcp.sizes.data(1), c.tcp.sizes.ack, c.tcp.sizes.fin])
        .min()
        .unwrap_or(0);
    let (largest, smallest) = (u64::from(largest), u64::from(smallest));
    // What a queue can hold waiting: packets and bytes.
    let (cap_packets, cap_bytes) = match case.capacity_value() {
        (bytes, "B") => (bytes / smallest, bytes),
        (packets, _) => (packets, packets * largest),
    };
    for l in &r.links {
        let rate = l.rate.as_bps() as f64;
        let arrived = l.packets_enqueued + l.packets_dropped;
        let loss = 100.0 * l.packets_dropped as f64 / (arrived.max(1)) as f64;
        if !(0.0..=100.0).contains(&l.loss_rate_pct)
            || (l.loss_rate_pct - loss).abs() > FLOAT * 100.0
        {
            return Err(format!(
                "link {}: loss rate {}% for {} dropped of {arrived}; {l:?}",
                l.name, l.loss_rate_pct, l.packets_dropped
            ));
        }
        let marking = case.queue != "droptail";
        if l.packets_marked > l.packets_enqueued || (!marking && l.packets_marked > 0) {
            return Err(format!(
                "link {}: {} marked of {} accepted ({} queues); {l:?}",
                l.name, l.packets_marked, l.packets_enqueued, case.queue
            ));
        }
        for (what, packets, bytes) in [
            ("enqueued", l.packets_enqueued, l.bytes_enqueued),
            ("dropped", l.packets_dropped, l.bytes_dropped),
        ] {
            if bytes < packets * smallest || bytes > packets * largest {
                return Err(format!(
                    "link {}: {packets} packets {what} with {bytes} B, outside \
                     [{smallest}, {largest}] B each; {l:?}",
                    l.name
                ));
            }
        }
        let Some(u) = l.utilisation_pct else {
            return Err(format!(
                "link {}: no utilisation for a window of {window} s",
                l.name
            ));
        };
        // Only the serialisation inside the window counts (the packets in service at its edges
        // count their part inside it): at most the window.
        if !(0.0..=100.0 * (1.0 + FLOAT)).contains(&u) {
            return Err(format!(
                "link {}: utilisation {u:.6}% outside [0, 100]% over {window} s; {l:?}",
                l.name
            ));
        }
        // Busy time against bytes (no rate changes here; a link that went down lost packets it
        // had accepted, so only links that never went down). A packet accepted in the window
        // was served in it, is in service at T (part of it served) or waits at T (at most a
        // queue's worth); a packet served in the window was accepted in it, waited at the
        // warmup or was in service then (part of it served in the window). Each packet's
        // serialisation is rounded up to the picosecond.
        if case.event != 0 {
            continue;
        }
        let busy = u / 100.0 * window;
        let served_max = busy * rate / 8.0;
        let busy_max = (l.bytes_enqueued + cap_bytes + largest) as f64 * 8.0 / rate
            + (l.packets_enqueued + cap_packets + 1) as f64 * 1e-12;
        let accepted = l.bytes_enqueued as f64;
        if accepted > (served_max + (cap_bytes + largest) as f64) * (1.0 + FLOAT)
            || busy > busy_max * (1.0 + FLOAT)
        {
            return Err(format!(
                "link {}: busy {busy:.9} s at {rate} b/s (serialises {served_max:.0} B) but \
                 accepted {accepted} B in the window, queue of {cap_packets} packets \
                 ({cap_bytes} B); {l:?}",
                l.name
            ));
        }
    }
    Ok(())
}

/// Runs `case` and checks it; the error has the scenario's text.
fn run_case(case: &Case) -> Result<(), String> {
    let text = case.toml();
    let loaded = load_str("inv.toml", &text, Path::new("."), &LoadOptions::default())
        .map_err(|e| format!("the scenario does not load: {e}\n{text}"))?;
    let scenario = &loaded.points[0].scenario;
    let warmup = scenario.run.warmup.as_secs_f64();
    let t = scenario.run.duration.as_secs_f64();
    let out = run(scenario, case.seed, &RunContext::default())
        .map_err(|e| format!("seed {}: the run fails: {e}\n{text}", case.seed))?;
    let setup = setup(scenario, case.seed, None)
        .map_err(|e| format!("seed {}: no setup: {e:?}\n{text}", case.seed))?;
    let paths = PathZero(setup);
    let margins = check(case, &out, &paths, warmup, t)
        .map_err(|e| format!("seed {}: {e}\n{text}", case.seed))?;
    if std::env::var_os("HTSIM_INVARIANT_VERBOSE").is_some() {
        eprintln!(
            "{:?} at {} Mb/s, {} / {}: {} flows, {} events; {margins:?}",
            case.topo,
            case.rate_mbps,
            case.long.kind,
            case.short.kind,
            out.results.flows.len(),
            out.stats.events
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(draw::cases("HTSIM_INVARIANT_CASES")))]

    #[test]
    fn results_respect_physical_bounds(case in case()) {
        if let Err(e) = run_case(&case) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// The minimal reproducer of a flow faster than its ideal FCT: one TCP flow alone on a
/// dumbbell with a slower bottleneck (100, 50, 100 Mb/s), 206 891 B in 9000 B segments. Its
/// window (7 segments, then growing by less than a segment per ACK) is smaller than the last
/// 8891 B when they go, so it sends them as two segments (docs/model.md 2.4): 24 packets for
/// 23 segments, no retransmission, and a last packet shorter than the ideal's, which crosses
/// the last 100 Mb/s link sooner. The ideal is not a lower bound then; the bound of
/// [`PathZero::ideal_slack`] is (docs/outputs.md, "Ideal FCT and slowdown").
#[test]
fn a_last_segment_cut_by_the_window_beats_the_ideal_within_the_derived_bound() {
    let text = r#"
[run]
duration = "100ms"
[topology]
kind = "dumbbell"
hosts = 1
link_rate = "100Mbps"
bottleneck_rate = "50Mbps"
link_delay = "1us"
[[flows]]
name = "f"
matrix = "pairs"
pairs = [[0, 1]]
size = "206891B"
transport = { kind = "tcp", mss = "9000B", initial_cwnd = 7 }
"#;
    let loaded = load_str("cut.toml", text, Path::new("."), &LoadOptions::default()).unwrap();
    let scenario = &loaded.points[0].scenario;
    let out = run(scenario, 1, &RunContext::default()).unwrap();
    let f = &out.results.flows[0];
    assert_eq!((f.packets_sent, f.retransmits), (24, 0), "{f:?}");
    let (fct, ideal) = (f.fct.unwrap(), f.ideal_fct.unwrap());
    // Measured: 34.525 ms against an ideal of 34.783 ms.
    assert!(fct < ideal, "{f:?}");
    let paths = PathZero(setup(scenario, 1, None).unwrap());
    let tcp = &out.results.classes[0].tcp;
    let slack = paths.ideal_slack(f.src, f.dst, 206_891, tcp, false);
    // The last 100 Mb/s link: 8953 B instead of 63 B, 711.2 us (and 3 ps of rounding).
    assert_eq!(slack, SimTime::from_ps(711_200_000 + 3));
    assert!(fct >= ideal.saturating_sub(slack), "{f:?}");
}
