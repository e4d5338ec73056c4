//! Time series (`[output] timeseries`): queue lengths of selected links and the congestion
//! window and rate of selected flows, sampled at a fixed interval of simulated time into
//! `DIR/runs/<point>/seed-<n>/timeseries.csv`.
//!
//! Format (long, one value per row): the run's columns ([`RunColumns`]: `point`, `seed`, one
//! per sweep axis), then `time_ns,series,id,value,unit`:
//!
//! | series  | id                                    | value                                      | unit |
//! |---------|---------------------------------------|--------------------------------------------|------|
//! | `queue` | link name as in links.csv (`a->b`)    | packets waiting in the link's egress queue, not counting the one being serialised | `packets` |
//! | `cwnd`  | flow id as in flows.csv               | congestion window (multipath: the sum over subflows) | `bytes` |
//! | `rate`  | flow id                               | bytes acknowledged during the past interval x 8 / interval (integer) | `bps` |
//!
//! Samples are taken at `t = k x interval` for k = 1, 2, ... up to the end of the run (duration
//! plus drain; the warmup is included), each after every event due at or before `t`. Rows are
//! ordered by time, then queue rows in link order (the topology's order, as links.csv), then
//! per flow (by id) its `cwnd` row and its `rate` row. A flow is sampled from the first sample
//! after it opens until its sender closes (a completed flow's last partial interval is not
//! reported). Numbers are integers, so the file depends only on the scenario and the seed.
//!
//! Selection: `links` takes `"all"`, layer names (the scenario's, as `[queue.layers]` names
//! egress ports: VL2's `core`, BCube's `switch`, a dumbbell's `bottleneck`) and link names;
//! `flows` takes `"all"`, class names and flow ids (docs/scenarios.md, `[output] timeseries`).
//!
//! Cost: nothing when time series are off (the run loop has no extra slice and no check). When
//! on, the world runs in slices of one interval ([`World::run_until`]) and each sample reads the
//! selected queues and asks each open selected sender for its flow record
//! ([`Endpoint::flow_record`](htsim_core::endpoint::Endpoint::flow_record)) and for its
//! sample ([`Endpoint::sample`](htsim_core::endpoint::Endpoint::sample)), whatever the
//! transport.

use std::collections::HashSet;

use htsim_core::ids::{EndpointId, LinkId};
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use htsim_topology::cabling::QueueSite;
use htsim_topology::topology::Topology;

use super::generator::StartedFlow;
use super::setup_error::SetupError;
use crate::output::{csv_bytes, csv_writer, RunColumns, CSV_IN_MEMORY};
use crate::scenario::{FlowSelector, TimeseriesConfig};

/// The columns of timeseries.csv after the run's columns ([`RunColumns`]).
pub const TIMESERIES_COLUMNS: &[&str] = &["time_ns", "series", "id", "value", "unit"];

/// The unit of a series' values.
pub fn series_unit(series: &str) -> &'static str {
    match series {
        "queue" => "packets",
        "cwnd" => "bytes",
        _ => "bps",
    }
}

/// Which flows a sampler follows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowSelection {
    /// Every flow.
    pub all: bool,
    /// Flows of these classes (indices into the scenario's flow classes).
    pub classes: HashSet<u32>,
    /// These flow ids.
    pub ids: HashSet<u64>,
}

impl FlowSelection {
    /// The flows `selectors` name, with flow classes named `classes` (in scenario order).
    pub fn from_selectors(selectors: &[FlowSelector], classes: &[String]) -> Self {
        let mut flows = FlowSelection::default();
        for sel in selectors {
            match sel {
                FlowSelector::All => flows.all = true,
                FlowSelector::Id(i) => {
                    flows.ids.insert(*i);
                }
                FlowSelector::Class(c) => {
                    if let Some(i) = classes.iter().position(|n| n == c) {
                        flows.classes.insert(i as u32);
                    }
                }
            }
        }
        flows
    }

    /// Whether flow `flow_id` of class `class` (its index) is selected.
    pub fn contains_flow(&self, class: u32, flow_id: u64) -> bool {
        self.all || self.classes.contains(&class) || self.ids.contains(&flow_id)
    }

    fn contains(&self, f: &StartedFlow) -> bool {
        self.contains_flow(f.class, f.flow_id)
    }
}

/// A flow being sampled.
#[derive(Clone, Copy, Debug)]
struct Tracked {
    flow_id: u64,
    sender: EndpointId,
    /// Bytes acknowledged at the previous sample.
    last_acked: u64,
}

/// Samples a running world at a fixed interval into timeseries.csv text (see the module doc).
#[derive(Debug)]
pub struct Sampler {
    interval: SimTime,
    next: SimTime,
    end: SimTime,
    queue: bool,
    cwnd: bool,
    rate: bool,
    links: Vec<(LinkId, String)>,
    flows: FlowSelection,
    /// Started flows already looked at (selected or not).
    seen: usize,
    tracked: Vec<Tracked>,
    csv: csv::Writer<Vec<u8>>,
}

impl Sampler {
    /// A sampler every `interval` up to `end` of the `series` named (`queue`, `cwnd`, `rate`),
    /// over `links` (id and name) and the flows in `flows`.
    pub fn new(
        interval: SimTime,
        end: SimTime,
        series: &[String],
        links: Vec<(LinkId, String)>,
        flows: FlowSelection,
    ) -> Self {
        let has = |s: &str| series.iter().any(|x| x == s);
        let interval = interval.max(SimTime::from_ps(1));
        Sampler {
            interval,
            next: interval,
            end,
            queue: has("queue"),
            cwnd: has("cwnd"),
            rate: has("rate"),
            links,
            flows,
            seen: 0,
            tracked: Vec::new(),
            csv: csv_writer(),
        }
    }

    /// The sampler a scenario's `[output] timeseries` asks for, on `topology` (of the scenario's
    /// `kind`, whose layer names a selection uses) with flow classes named `classes`; an error
    /// naming the key when a link name matches nothing.
    pub fn for_scenario(
        config: &TimeseriesConfig,
        topology: &Topology,
        kind: &str,
        classes: &[String],
        end: SimTime,
    ) -> Result<Self, SetupError> {
        let mut wanted: Vec<bool> = vec![false; topology.links().len()];
        for sel in &config.links {
            let mut found = false;
            for (i, l) in topology.links().iter().enumerate() {
                // The port's layer as the scenario names it (the rate plays no part in names).
                let site = QueueSite {
                    layer: topology.layer_name(l.layer),
                    cable: topology.layer_name(l.cable),
                    rate: Rate::bps(0),
                };
                if sel == "all"
                    || super::network::scenario_queue_layer(kind, site) == sel
                    || topology.link_name(l) == *sel
                {
                    wanted[i] = true;
                    found = true;
                }
            }
            if !found {
                return Err(SetupError::new(
                    "output.timeseries.links",
                    format!(
                        "no link or layer named \"{sel}\" in this topology \
                     (link names are as in links.csv, e.g. \"{}\")",
                        topology
                            .links()
                            .first()
                            .map_or(String::new(), |l| topology.link_name(l))
                    ),
                ));
            }
        }
        let links = topology
            .links()
            .iter()
            .zip(wanted)
            .filter(|(_, w)| *w)
            .map(|(l, _)| (l.id, topology.link_name(l)))
            .collect();
        let flows = FlowSelection::from_selectors(&config.flows, classes);
        Ok(Sampler::new(
            config.interval,
            end,
            &config.series,
            links,
            flows,
        ))
    }

    /// How many samples the run takes (one per interval up to its end).
    pub fn sample_count(&self) -> u64 {
        self.end.as_ps() / self.interval.as_ps()
    }

    /// An estimate of the rows the run writes, for the memory estimate: every sample has a
    /// queue row per selected link and, per series of flows, a row per open flow, taken as
    /// `open_flows` (all of them when flows are selected by class or `"all"`, else the ids
    /// listed).
    pub fn rows_estimate(&self, open_flows: u64) -> u64 {
        let queue_rows = if self.queue {
            self.links.len() as u64
        } else {
            0
        };
        let flow_series = u64::from(self.cwnd) + u64::from(self.rate);
        let flows = if self.flows.all || !self.flows.classes.is_empty() {
            open_flows
        } else {
            self.flows.ids.len() as u64
        };
        self.sample_count()
            .saturating_mul(queue_rows.saturating_add(flow_series.saturating_mul(flows)))
    }

    /// When the next sample is due (`SimTime::MAX` when none is left).
    pub fn next_time(&self) -> SimTime {
        if self.next > self.end {
            SimTime::MAX
        } else {
            self.next
        }
    }

    /// Takes the sample due now (`world.now()` must be [`Sampler::next_time`]): `started` and
    /// `senders` are the generator's flows and their sending endpoints, by flow id.
    pub fn sample(&mut self, world: &World, started: &[StartedFlow], senders: &[EndpointId]) {
        let now = world.now();
        let t = now.as_ns();
        if self.queue {
            for (id, name) in &self.links {
                let row = (t, "queue", name, world.link_occupancy(*id).packets);
                self.csv.serialize(row).expect(CSV_IN_MEMORY);
            }
        }
        if self.cwnd || self.rate {
            for (f, &sender) in started.iter().zip(senders).skip(self.seen) {
                if self.flows.contains(f) {
                    self.tracked.push(Tracked {
                        flow_id: f.flow_id,
                        sender,
                        last_acked: 0,
                    });
                }
            }
            self.seen = started.len().min(senders.len());
            let interval_ns = u128::from(self.interval.as_ns().max(1));
            let (cwnd, rate, csv) = (self.cwnd, self.rate, &mut self.csv);
            self.tracked.retain_mut(|tr| {
                let Some(endpoint) = world.endpoint(tr.sender) else {
                    return false;
                };
                if cwnd {
                    if let Some(sample) = endpoint.sample() {
                        let row = (t, "cwnd", tr.flow_id, sample.cwnd_bytes);
                        csv.serialize(row).expect(CSV_IN_MEMORY);
                    }
                }
                if let Some(record) = endpoint.flow_record(now) {
                    if rate {
                        let bytes = record.bytes_acked.saturating_sub(tr.last_acked);
                        let bps = u128::from(bytes) * 8 * 1_000_000_000 / interval_ns;
                        csv.serialize((t, "rate", tr.flow_id, bps))
                            .expect(CSV_IN_MEMORY);
                    }
                    tr.last_acked = record.bytes_acked;
                }
                true
            });
        }
        self.next = self.next.saturating_add(self.interval);
    }

    /// The text of timeseries.csv, each row led by `run`'s columns and ended by its unit.
    pub fn into_csv(self, run: &RunColumns) -> Vec<u8> {
        // The samples are kept as `time_ns,series,id,value` rows without a header.
        let samples = csv_bytes(self.csv);
        let mut out = csv_writer();
        out.write_record(run.header(TIMESERIES_COLUMNS))
            .expect(CSV_IN_MEMORY);
        let run_fields = run.fields();
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(samples.as_slice());
        for record in reader.records() {
            // Rows this sampler wrote read back.
            let record = record.expect("the sampler's own rows are CSV");
            let unit = series_unit(record.get(1).unwrap_or_default());
            out.write_record(
                run_fields
                    .iter()
                    .map(String::as_str)
                    .chain(record.iter())
                    .chain([unit]),
            )
            .expect(CSV_IN_MEMORY);
        }
        csv_bytes(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use htsim_core::endpoint::{Ctx, Endpoint};
    use htsim_core::packet::{Packet, PacketKind};
    use htsim_core::queue::{Discipline, Queue};
    use htsim_core::units::BufferSize;
    use htsim_core::Rate;

    /// Sends a fixed list of packets at start.
    struct Burst(Vec<Packet>);
    impl Endpoint for Burst {
        fn start(&mut self, ctx: &mut Ctx<'_>) {
            for p in self.0.drain(..) {
                ctx.send(p);
            }
        }
        fn on_packet(&mut self, _packet: &Packet, _ctx: &mut Ctx<'_>) {}
    }
    struct Sink;
    impl Endpoint for Sink {
        fn on_packet(&mut self, _packet: &Packet, _ctx: &mut Ctx<'_>) {}
    }

    /// A run of point `p` (axis `k` = `v`), seed 3.
    fn run() -> RunColumns {
        RunColumns::new("p", &[("k".into(), toml::Value::String("v".into()))], 3)
    }

    /// Runs `world` to `end`, sampling as the run loop does.
    fn run_to(world: &mut World, sampler: &mut Sampler, end: SimTime) {
        loop {
            let target = sampler.next_time().min(end);
            world.run_until(target);
            if sampler.next_time() == target {
                sampler.sample(world, &[], &[]);
            }
            if target >= end {
                break;
            }
        }
    }

    #[test]
    fn a_burst_drains_from_the_queue_at_line_rate() {
        // 10 packets of 1500 B into an empty 1 Gb/s link at t = 0: one is serialised at once
        // (12 us each), nine wait. After t, floor(t / 12 us) packets have finished, one more is
        // in service: waiting = max(0, 10 - 1 - floor(t / 12 us)).
        let mut w = World::new(1);
        let link = w.add_link(
            Rate::gbps(1),
            SimTime::from_us(1),
            Queue::new(BufferSize::Packets(100), Discipline::DropTail),
        );
        let idle = w.add_link(
            Rate::gbps(1),
            SimTime::from_us(1),
            Queue::new(BufferSize::Packets(100), Discipline::DropTail),
        );
        let route = w.routes_mut().intern(&[link]);
        let sink = w.spawn(Box::new(Sink), SimTime::ZERO);
        let packets = (0..10)
            .map(|i| Packet {
                seq: i * 1500,
                dst: sink,
                route,
                size_bytes: 1500,
                payload_bytes: 1500,
                kind: PacketKind::Data,
                ..Packet::default()
            })
            .collect();
        w.spawn(Box::new(Burst(packets)), SimTime::ZERO);
        let end = SimTime::from_us(150);
        let mut s = Sampler::new(
            SimTime::from_us(30),
            end,
            &["queue".to_string()],
            vec![(link, "a->b".into()), (idle, "b->a".into())],
            FlowSelection::default(),
        );
        run_to(&mut w, &mut s, end);
        let csv = String::from_utf8(s.into_csv(&run())).unwrap();
        let want = "point,seed,k,time_ns,series,id,value,unit\n\
            p,3,v,30000,queue,a->b,7,packets\np,3,v,30000,queue,b->a,0,packets\n\
            p,3,v,60000,queue,a->b,4,packets\np,3,v,60000,queue,b->a,0,packets\n\
            p,3,v,90000,queue,a->b,2,packets\np,3,v,90000,queue,b->a,0,packets\n\
            p,3,v,120000,queue,a->b,0,packets\np,3,v,120000,queue,b->a,0,packets\n\
            p,3,v,150000,queue,a->b,0,packets\np,3,v,150000,queue,b->a,0,packets\n";
        assert_eq!(csv, want);
    }

    #[test]
    fn no_sample_is_due_after_the_end() {
        let s = Sampler::new(
            SimTime::from_ms(1),
            SimTime::from_us(500),
            &[],
            vec![],
            FlowSelection::default(),
        );
        assert_eq!(s.next_time(), SimTime::MAX);
        assert_eq!(
            s.into_csv(&run()),
            b"point,seed,k,time_ns,series,id,value,unit\n"
        );
    }
}
