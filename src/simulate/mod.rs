//! One run of a scenario: build the world (topology, queues, transports, flow classes, events),
//! run it, check packet conservation, and render its files.
//!
//! - [`network`]: topology, cabling overrides, queues per egress layer, routing, link events;
//! - [`transports`]: scenario transport parameters as a configured transport;
//! - [`workload`]: flow classes resolved on the topology (matrices, senders, sizes);
//! - [`generator`]: the central endpoint that opens flows at their arrival times;
//! - [`results`]: the typed per-flow and per-link results ([`RunResults`]), built at the end;
//! - [`outputs`]: flows.csv and links.csv rendered from those results, and trace.csv;
//! - [`timeseries`]: timeseries.csv (`[output] timeseries`), sampled while the world runs;
//!   trace.csv (`[output] trace`) is the run's [`TraceLog`], filled by the traced connections;
//! - `first_fit`: the central First Fit scheduler (`[routing] first_fit`), which moves flows
//!   between events at its scan times;
//! - [`resources`]: a run's memory estimate and the machine's budget;
//! - [`setup_error`]: why a run cannot be set up, with the key (and file line) at fault;
//! - [`preflight`]: [`setup`] for every sweep point before the first run (`htsim validate`).
//!
//! [`setup`] does everything a run does before simulating; [`run`] does one run from Rust;
//! [`Simulator`] is the [`Executor`] the runner and the CLI use.
//!
//! ```no_run
//! use htsim::scenario::{load_str, LoadOptions};
//! use htsim::simulate::{run, RunContext};
//!
//! let text = r#"
//! [run]
//! duration = "50ms"
//! [topology]
//! kind = "fattree"
//! k = 4
//! link_rate = "1Gbps"
//! [[flows]]
//! name = "short"
//! size = "20KB"
//! arrivals = { poisson = 1000 }
//! transport = { kind = "tcp" }
//! "#;
//! let loaded = load_str("demo", text, std::path::Path::new("."), &LoadOptions::default()).unwrap();
//! let out = run(&loaded.points[0].scenario, 1, &RunContext::default()).unwrap();
//! println!("{} flows, {} completed", out.summary().classes[0].finite_flows, out.summary().classes[0].completed);
//! ```
//!
//! Every transport kind (tcp, dctcp, ps, mptcp, mmptcp, xmp) runs, for matrix classes and for
//! partition/aggregate job classes (`jobs = { ... }`) alike; each flow of a job carries the
//! job's id into the metrics (job completion time, [`crate::report::metrics`]).

mod first_fit;
pub mod generator;
pub mod network;
pub mod outputs;
pub mod preflight;
pub mod resources;
pub mod results;
pub mod setup_error;
pub mod timeseries;
pub mod transports;
pub mod workload;

use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use htsim_core::crossing::Crossing;
use htsim_core::flow::FlowRecord;
use htsim_core::ids::{EndpointId, HostId, LinkId};
use htsim_core::queue::QueueCounters;
use htsim_core::world::{Conservation, World, WorldStats};
use htsim_core::SimTime;
use htsim_topology::topology::Topology;

use crate::output::{RunColumns, RunFiles};
use crate::report::metrics::{
    summarize_run, CounterSnapshot, FlowBytes, FlowInput, LinkInput, PaperUsage, RunId, RunInput,
    Window,
};
use crate::report::run_summary::{RunCost, RunSummary};
use crate::runner::{Executor, RunError};
use crate::scenario::suggest::did_you_mean;
use crate::scenario::{FlowSelector, Loaded, Point, Scenario};

use generator::{Generator, StartedFlow};
use htsim_transport::trace::TraceLog;
use outputs::{LinkRates, PairPaths};
use resources::{Budget, Held, MemoryGuard};
use results::{ClassInfo, CrossingResult, RunResults};
use setup_error::SetupError;
use timeseries::FlowSelection;

/// Simulated-time progress of one run: `(now, end)`.
pub type ProgressFn = dyn Fn(SimTime, SimTime) + Send + Sync;

/// Where a run sits in its sweep, and who wants to hear about its progress.
#[derive(Clone, Default)]
pub struct RunContext {
    /// The sweep point's name (`base` when empty).
    pub point: String,
    /// The point's index in the sweep.
    pub point_index: u64,
    /// The point's sweep assignments (key path, value), in `[sweep]` order: the axis columns
    /// of the run's CSV files ([`RunColumns`]).
    pub assignments: Vec<(String, toml::Value)>,
    /// Called after each slice of simulated time.
    pub progress: Option<Arc<ProgressFn>>,
}

/// Everything one run produced.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// The files to write (flows.csv and links.csv when the scenario asks for them) and the
    /// run's summary ([`RunOutput::summary`]).
    pub files: RunFiles,
    /// Per flow and per link, typed: the rows of flows.csv and links.csv (built whether or not
    /// the scenario asks for those files).
    pub results: RunResults,
    /// Every flow the generator opened, by flow id.
    pub started: Vec<StartedFlow>,
    /// The engine's counters at the end of the run.
    pub stats: WorldStats,
    /// The packet conservation identity at the end of the run (it holds, or the run failed).
    pub conservation: Conservation,
}

impl RunOutput {
    /// The per-run summary (the summary.json of the run, as [`RunFiles::summary`] holds it).
    pub fn summary(&self) -> &RunSummary {
        &self.files.summary
    }
}

/// The executor that simulates a scenario with the engine.
///
/// Built with [`Simulator::for_loaded`], it names each run's sweep point in its summary; its
/// optional progress callback hears every run's simulated time.
#[derive(Clone, Default)]
pub struct Simulator {
    points: Vec<Point>,
    progress: Option<Arc<ProgressFn>>,
}

impl std::fmt::Debug for Simulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulator")
            .field("points", &self.points.len())
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl Simulator {
    /// A simulator for the points of `loaded` (so summaries carry the point's name and index).
    pub fn for_loaded(loaded: &Loaded) -> Self {
        Simulator {
            points: loaded.points.clone(),
            progress: None,
        }
    }

    /// Calls `progress(now, end)` as each run advances in simulated time.
    pub fn with_progress(mut self, progress: Arc<ProgressFn>) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The context of sweep point `point` at `index`.
    fn context(&self, index: usize, point: &Point) -> RunContext {
        RunContext {
            point: point.name.clone(),
            point_index: index as u64,
            assignments: point.assignments.clone(),
            progress: self.progress.clone(),
        }
    }
}

impl Executor for Simulator {
    /// Runs `scenario` as the first point of [`Simulator::for_loaded`] whose scenario it is
    /// (`base` when none is).
    fn execute(&self, scenario: &Scenario, seed: u64) -> Result<RunFiles, RunError> {
        let cx = match self.points.iter().position(|p| &p.scenario == scenario) {
            Some(i) => self.context(i, &self.points[i]),
            None => RunContext {
                progress: self.progress.clone(),
                ..RunContext::default()
            },
        };
        run(scenario, seed, &cx).map(|o| o.files)
    }

    fn execute_point(&self, index: usize, point: &Point, seed: u64) -> Result<RunFiles, RunError> {
        run(&point.scenario, seed, &self.context(index, point)).map(|o| o.files)
    }
}

/// How many progress slices a run is cut into (besides the per-second snapshots).
const PROGRESS_SLICES: u64 = 200;

/// A run set up and ready to simulate: its world with the network built and the link events
/// scheduled, the topology, the flow classes resolved on it, and the time series sampler.
pub struct Setup {
    /// The world, nothing simulated yet.
    pub world: World,
    /// The network.
    pub topology: Topology,
    /// Every flow class, resolved.
    pub plans: Vec<workload::ClassPlan>,
    /// The sampler of `[output] timeseries`, when asked for.
    pub sampler: Option<timeseries::Sampler>,
    /// The flows `[output] trace` selects and the run's trace log, when asked for.
    pub trace: Option<(FlowSelection, TraceLog)>,
    /// The links `[output] crossings` watches (none when not asked for).
    pub watched: Vec<LinkId>,
}

/// Does everything a run does before simulating: builds the network (refused beyond the
/// budget's links before allocating), reads every file the scenario names, resolves the link
/// events, the flow classes and their transports, the time series and trace selections, and checks the
/// run's memory estimate against `budget` (none: no limit). The error holds every problem found
/// (past a topology that cannot be built, nothing else is checked).
pub fn setup(
    scenario: &Scenario,
    seed: u64,
    budget: Option<&Budget>,
) -> Result<Setup, Vec<SetupError>> {
    let mut world = World::new(seed);
    if let Some(b) = budget {
        world.set_max_links(b.max_links());
    }
    let topology = network::build(&mut world, scenario).map_err(|e| vec![e])?;
    let mut problems = network::schedule_events(&mut world, scenario, &topology);
    problems.extend(reference_layers(scenario, &topology));
    problems.extend(file_queue_layers(scenario, &topology));
    let watched = network::watched_links(&world, scenario, &topology).unwrap_or_else(|e| {
        problems.push(e);
        Vec::new()
    });
    let plans = workload::plan(scenario, &topology, world.streams(), budget).unwrap_or_else(|e| {
        problems.extend(e);
        Vec::new()
    });
    let data_packet =
        |p: &workload::ClassPlan| u64::from(p.transport.tcp.sizes.data(p.transport.tcp.mss));
    let largest_packet = plans.iter().map(|p| (data_packet(p), &p.name)).max();
    if let Some((packet, class)) = largest_packet {
        problems.extend(network::queues_too_small(
            scenario, &world, &topology, packet, class,
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let sampler = match &scenario.output.timeseries {
        Some(ts) => {
            let names: Vec<String> = plans.iter().map(|p| p.name.clone()).collect();
            let end = scenario.run.duration.saturating_add(scenario.run.drain);
            let kind = scenario.topology.kind.as_str();
            Some(
                timeseries::Sampler::for_scenario(ts, &topology, kind, &names, end)
                    .map_err(|e| vec![e])?,
            )
        }
        None => None,
    };
    let trace = trace_setup(scenario, &plans).map_err(|e| vec![e])?;
    if let Some(b) = budget {
        let trace_events = scenario.output.trace.as_ref().map_or(0, |t| t.max_events);
        let smallest_packet = plans.iter().map(data_packet).min().unwrap_or(1);
        b.check_run(
            &topology,
            &plans,
            scenario.run.duration,
            network::packets_held_at_most(&world, smallest_packet),
            trace_events,
            watched.len() as u64,
            sampler.as_ref(),
        )
        .map_err(|e| vec![e])?;
    }
    Ok(Setup {
        world,
        topology,
        plans,
        sampler,
        trace,
        watched,
    })
}

/// Runs `scenario` with master seed `seed`, within the memory this machine has for one run
/// ([`Budget::of_machine`]).
///
/// The scenario is checked first ([`Scenario::check`]): one changed field by field after
/// loading or building gets the loader's error (as a [`RunError::Failed`] naming the key), not
/// a run of something the loader refuses. Problems that need the network built or a named
/// file read are errors too (what [`preflight::check`] finds ahead of a sweep).
pub fn run(scenario: &Scenario, seed: u64, cx: &RunContext) -> Result<RunOutput, RunError> {
    let wall = Instant::now();
    scenario
        .check()
        .map_err(|e| RunError::Failed(e.to_string()))?;
    let budget = Budget::of_machine(1)?;
    let mut guard = budget.as_ref().and_then(MemoryGuard::new);
    let Setup {
        mut world,
        topology,
        plans,
        mut sampler,
        trace,
        watched,
    } = setup(scenario, seed, budget.as_ref())?;
    // Shared with the generator, which needs the reach of the host pairs jobs draw.
    let topology = Arc::new(topology);
    let classes: Vec<ClassInfo> = plans
        .iter()
        .map(|p| ClassInfo {
            name: p.name.clone(),
            transport: p.transport.kind.clone(),
            tcp: p.transport.tcp.clone(),
        })
        .collect();
    let duration = scenario.run.duration;
    let end = duration.saturating_add(scenario.run.drain);
    let window = Window {
        start: scenario.run.warmup.min(duration),
        end: duration,
    };
    let reach_topology = Arc::clone(&topology);
    let mut generator = Generator::new(plans, world.streams(), duration)
        .with_reach(move |s, d| transports::reach(&reach_topology, s, d));
    if let Some((selection, log)) = &trace {
        generator = generator.with_trace(selection.clone(), log.clone());
    }
    let gen_id = world.spawn(Box::new(generator), SimTime::ZERO);

    let links = &topology.links();
    // The rates at the start (links.csv) and their changes (for the ideal FCTs, which take
    // the rates in effect when each flow arrived).
    let link_rates = LinkRates::at_start(&world);
    // Every link's counters at `at`: the world has stopped at `at`, or just before it for the
    // window's start (1 ps earlier, before the events due at `at`), so the busy time of a packet
    // in service counts up to `at` exactly.
    let counters = |w: &World, at: SimTime| -> Vec<QueueCounters> {
        links.iter().map(|l| w.link_counters_at(l.id, at)).collect()
    };

    let layer_names: Vec<String> = egress_layers(&topology);
    let link_inputs: Vec<LinkInput> = links
        .iter()
        .map(|l| LinkInput {
            layer: layer_names
                .iter()
                .position(|n| n == topology.layer_name(l.layer))
                .unwrap_or(0),
            rate: link_rates.at_start_of(l.id),
        })
        .collect();

    // Snapshots at the window start, every second after it, and at its end; only the first
    // and the latest are kept (the paper's figures accumulate as they come), so memory does
    // not grow with simulated time. The window holds both of its edge instants: the start's
    // snapshot is taken before the events due at the start (at the start of a run: before any
    // event), the others after the events due at their time.
    let mut next_checkpoint = Some(window.start);
    let mut counters_start: Option<Vec<QueueCounters>> = None;
    let mut counters_end: Vec<QueueCounters> = Vec::new();
    let mut paper = PaperUsage::default();
    // The open flows' byte counters at the window's start and end (for goodput).
    let mut at_window_start: HashMap<u64, FlowBytes> = HashMap::new();
    let mut at_window_end: HashMap<u64, FlowBytes> = HashMap::new();
    // What the flows' data packets did at the watched links over the window.
    let mut crossings: Vec<Crossing> = Vec::new();
    // The last instant before `checkpoint`'s events: where the world stops to take it.
    let stop_for = |checkpoint: SimTime| {
        if checkpoint == window.start {
            SimTime::from_ps(checkpoint.as_ps().saturating_sub(1))
        } else {
            checkpoint
        }
    };
    let step = SimTime::from_ps((end.as_ps() / PROGRESS_SLICES).max(1));
    let mut first_fit = scenario
        .routing
        .first_fit
        .as_ref()
        .map(|c| first_fit::FirstFit::new(c, world.links().len()));
    // When the world last stopped, and the events processed by then (for `memory_stop`).
    let mut last_stop = (world.now(), world.stats().events);
    // Time series and the First Fit scheduler (only when asked): the world also stops at
    // every sample and scan time.
    loop {
        let now = world.now();
        let mut target = next_checkpoint
            .map_or(end, stop_for)
            .min(now.saturating_add(step))
            .min(end);
        if let Some(s) = &sampler {
            target = target.min(s.next_time());
        }
        if let Some(ff) = &first_fit {
            target = target.min(ff.next_time());
        }
        // A window starting with the run: its first snapshot comes before the first event.
        let before_any_event = window.start == SimTime::ZERO && counters_start.is_none();
        if let Some(g) = &guard {
            target = target.min(memory_stop(g, &world, last_stop));
        }
        last_stop = (now, world.stats().events);
        if !before_any_event {
            world.run_until(target);
            check_memory(guard.as_mut(), &world, gen_id)?;
        }
        let generator = generator_of(&world, gen_id)?;
        if let Some(e) = generator.error() {
            return Err(RunError::Failed(e.to_string()));
        }
        if let Some(s) = sampler.as_mut().filter(|_| !before_any_event) {
            if s.next_time() == target {
                s.sample(&world, generator.started(), generator.senders());
            }
        }
        if let Some(ff) = first_fit.as_mut().filter(|ff| ff.next_time() == target) {
            let new = ff.new_flows(generator.started(), generator.senders());
            ff.scan(&mut world, &new);
        }
        if let Some(at) = next_checkpoint.filter(|&c| stop_for(c) == target) {
            if counters_start.is_none() {
                if window.start > SimTime::ZERO {
                    at_window_start = open_flow_bytes(&world);
                }
                world.watch_links(&watched);
            }
            if at == window.end {
                at_window_end = open_flow_bytes(&world);
                crossings = world.take_crossings();
            }
            let snapshot = CounterSnapshot {
                at,
                counters: counters(&world, at),
            };
            counters_start.get_or_insert_with(|| snapshot.counters.clone());
            counters_end.clone_from(&snapshot.counters);
            paper.push(&link_inputs, snapshot);
            next_checkpoint =
                (at < window.end).then(|| at.saturating_add(SimTime::from_secs(1)).min(window.end));
        }
        if let Some(p) = &cx.progress {
            p(target, end);
        }
        if target >= end {
            break;
        }
    }

    let conservation = world.conservation();
    if !conservation.holds() {
        return Err(RunError::Failed(format!(
            "packet conservation violated at the end of the run: sent {} != delivered {} + dropped {} + lost {} + in flight {}",
            conservation.sent,
            conservation.delivered,
            conservation.dropped,
            conservation.lost,
            conservation.in_flight
        )));
    }
    let started = generator_of(&world, gen_id)?.started().to_vec();
    let flows = flow_inputs(
        &mut world,
        &topology,
        &started,
        &classes,
        &link_rates,
        &at_window_start,
        &at_window_end,
    );

    let counters_start = counters_start.unwrap_or_default();
    let stats = world.stats();
    let cost = RunCost::new(
        stats.events,
        stats.data_packets_delivered,
        world.pool().peak_live() as u64,
        wall.elapsed().as_secs_f64(),
    );
    // Everything needed from the world is read: free it (its links, packets and endpoints are
    // most of a large run's memory) before the results and files are built.
    drop(world);
    let class_names: Vec<String> = classes.iter().map(|c| c.name.clone()).collect();
    let crossings = crossing_results(&crossings, &flows, &topology);
    let crossed: Option<HashSet<u64>> =
        (!watched.is_empty()).then(|| crossings.iter().map(|c| c.flow_id).collect());
    let point = if cx.point.is_empty() {
        "base"
    } else {
        &cx.point
    };
    let run_columns = RunColumns::new(point, &cx.assignments, seed);
    let summary = summarize_run(
        RunId {
            point: point.to_string(),
            point_index: cx.point_index,
            seed,
        },
        &RunInput {
            window,
            classes: &class_names,
            flows: &flows,
            layers: &layer_names,
            links: &link_inputs,
            counters_start: &counters_start,
            counters_end: &counters_end,
            paper: &paper,
            cost,
            crossed: crossed.as_ref(),
        },
    );
    let results = RunResults {
        crossings,
        ..RunResults::new(
            classes,
            &flows,
            &topology,
            &link_inputs,
            &counters_start,
            &counters_end,
            window,
        )
    };
    let files = RunFiles {
        flows_csv: scenario
            .output
            .flows
            .then(|| outputs::flows_csv(&run_columns, &results)),
        links_csv: scenario
            .output
            .links
            .then(|| outputs::links_csv(&run_columns, &results)),
        timeseries_csv: sampler.map(|s| s.into_csv(&run_columns)),
        trace_csv: trace.map(|(_, log)| outputs::trace_csv(&run_columns, &log)),
        crossings_csv: (!watched.is_empty())
            .then(|| outputs::crossings_csv(&run_columns, &results)),
        summary,
    };
    Ok(RunOutput {
        files,
        results,
        started,
        stats,
        conservation,
    })
}

/// The flows `[output] trace` selects and the run's trace log, or `None` when not asked for.
/// When every class opens one flow per connection at its start, the number of flows is known
/// now: an id beyond it is an error before the run starts.
fn trace_setup(
    scenario: &Scenario,
    plans: &[workload::ClassPlan],
) -> Result<Option<(FlowSelection, TraceLog)>, SetupError> {
    let Some(config) = &scenario.output.trace else {
        return Ok(None);
    };
    let fixed = plans
        .iter()
        .all(|p| p.arrivals.is_none() && p.jobs.is_none());
    if fixed {
        let count: usize = plans.iter().map(|p| p.pool.len()).sum();
        for sel in &config.flows {
            if let FlowSelector::Id(id) = sel {
                if *id >= count as u64 {
                    return Err(SetupError::new(
                        "output.trace.flows",
                        format!(
                            "no flow {id}: this run opens {count} flows, with ids 0 to {} (as \
                             in flows.csv)",
                            count.saturating_sub(1)
                        ),
                    ));
                }
            }
        }
    }
    let names: Vec<String> = plans.iter().map(|p| p.name.clone()).collect();
    let selection = FlowSelection::from_selectors(&config.flows, &names);
    let limit = usize::try_from(config.max_events).unwrap_or(usize::MAX);
    Ok(Some((selection, TraceLog::new(limit))))
}

/// The generator endpoint of the world.
/// When the world should stop next for `guard` to look at the memory: after about the events
/// the guard allows before its next look, at the rate of events since the stop `last` (an
/// instant and the events by then); no limit before the run has a rate.
fn memory_stop(guard: &MemoryGuard, world: &World, last: (SimTime, u64)) -> SimTime {
    let (now, events) = (world.now(), world.stats().events);
    let (span, done) = (
        now.saturating_sub(last.0).as_ps(),
        events.saturating_sub(last.1),
    );
    if span == 0 || done == 0 {
        return SimTime::MAX;
    }
    let ahead = (u128::from(span) * u128::from(guard.events_left(events)) / u128::from(done))
        .clamp(1, u128::from(u64::MAX)) as u64;
    now.saturating_add(SimTime::from_ps(ahead))
}

/// The error of a run that would need more memory than `guard` allows
/// ([`MemoryGuard::check`]: what the process holds now and the results of the flows opened so
/// far), when a look is due.
fn check_memory(
    guard: Option<&mut MemoryGuard>,
    world: &World,
    gen_id: EndpointId,
) -> Result<(), RunError> {
    let Some(guard) = guard else {
        return Ok(());
    };
    let flows = generator_of(world, gen_id)?.started().len() as u64;
    let held = Held {
        events: world.stats().events,
        packets: world.pool().live() as u64,
        flows,
    };
    let Some(needed) = guard.check(held) else {
        return Ok(());
    };
    let what = format!(
        "{} into the run, which has opened {flows} flows (their results take about {} B \
         each when it ends) and holds {} packets",
        world.now(),
        resources::BYTES_PER_FLOW,
        held.packets
    );
    Err(RunError::Failed(guard.message(needed, &what)))
}

fn generator_of(world: &World, id: EndpointId) -> Result<&Generator, RunError> {
    world
        .endpoint(id)
        .and_then(|e| (e as &dyn Any).downcast_ref::<Generator>())
        .ok_or_else(|| RunError::Failed("the flow generator disappeared".into()))
}

/// The `[[reference]]` values of a layer (`class = "layer:<name>"`) whose layer this network
/// does not have: summary.csv would have no row for them.
fn reference_layers(scenario: &Scenario, topology: &Topology) -> Vec<SetupError> {
    let layers = egress_layers(topology);
    scenario
        .references
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let layer = r
                .class
                .strip_prefix(crate::report::aggregate::LAYER_PREFIX)?;
            if layers.iter().any(|l| l == layer) {
                return None;
            }
            Some(no_such_layer(
                format!("reference[{i}].class"),
                format!("this network has no layer \"{layer}\": its layers in summary.csv are"),
                layer,
                &layers,
                crate::report::aggregate::LAYER_PREFIX,
            ))
        })
        .collect()
}

/// The `[queue.layers.X]` tables of a `file` topology whose `X` is no egress layer of the
/// file's network: they would set no queue. The loader checks the other kinds' layer names; a
/// file's are known once it is read.
fn file_queue_layers(scenario: &Scenario, topology: &Topology) -> Vec<SetupError> {
    if scenario.topology.kind != "file" {
        return Vec::new();
    }
    let layers = egress_layers(topology);
    scenario
        .queue
        .layers
        .iter()
        .filter(|(name, _)| !layers.iter().any(|l| l == name))
        .map(|(name, _)| {
            no_such_layer(
                format!("queue.layers.{name}"),
                format!(
                    "the topology file has no egress layer \"{name}\", so these settings would \
                     set no queue: its layers are"
                ),
                name,
                &layers,
                "",
            )
        })
        .collect()
}

/// The error at `key` for a layer `name` that the network lacks: `message`, then the network's
/// `layers` quoted (each after `prefix`, as the key names them), and the nearest as a hint.
fn no_such_layer(
    key: String,
    message: String,
    name: &str,
    layers: &[String],
    prefix: &str,
) -> SetupError {
    let shown: Vec<String> = layers.iter().map(|l| format!("\"{prefix}{l}\"")).collect();
    let e = SetupError::new(key, format!("{message} {}", shown.join(", ")));
    match did_you_mean(name, layers.iter().map(String::as_str)) {
        Some(hint) => e.with_hint(hint),
        None => e,
    }
}

/// The egress layers of a topology (layers of nodes that transmit), in its layer order.
fn egress_layers(topology: &Topology) -> Vec<String> {
    let mut used = vec![false; topology.layers().len()];
    for l in topology.links() {
        if let Some(u) = used.get_mut(l.layer.0 as usize) {
            *u = true;
        }
    }
    topology
        .layers()
        .iter()
        .zip(used)
        .filter(|(_, u)| *u)
        .map(|(n, _)| n.clone())
        .collect()
}

/// The byte counters of every open flow, by flow id.
fn open_flow_bytes(world: &World) -> HashMap<u64, FlowBytes> {
    world
        .open_flow_records()
        .iter()
        .map(|r| (r.flow_id, FlowBytes::of(r)))
        .collect()
}

/// The engine's counts on the watched links as results: each flow's id and class (a packet's
/// flow number is its flow id, which indexes `flows`) and the link's name.
fn crossing_results(
    crossings: &[Crossing],
    flows: &[FlowInput],
    topology: &Topology,
) -> Vec<CrossingResult> {
    crossings
        .iter()
        .filter_map(|c| {
            let flow = flows.get(c.flow as usize)?;
            let link = topology.link(c.link)?;
            Some(CrossingResult {
                flow_id: flow.record.flow_id,
                class: flow.class,
                link: topology.link_name(link),
                packets_enqueued: c.packets,
                bytes_enqueued: c.bytes,
                packets_dropped: c.dropped,
            })
        })
        .collect()
}

/// Every started flow with its record (completed, still open, or a bare one for a flow that
/// failed), its class, ideal FCT (on the links' `rates` when it arrived) and byte counters at
/// the window's start and end (of the flows open then, by flow id), in flow id order.
fn flow_inputs(
    world: &mut World,
    topology: &Topology,
    started: &[StartedFlow],
    classes: &[ClassInfo],
    rates: &LinkRates,
    at_window_start: &HashMap<u64, FlowBytes>,
    at_window_end: &HashMap<u64, FlowBytes>,
) -> Vec<FlowInput> {
    let mut records: Vec<Option<FlowRecord>> = vec![None; started.len()];
    let open = world.open_flow_records();
    for r in world.take_records().into_iter().chain(open) {
        if let Some(slot) = records.get_mut(r.flow_id as usize) {
            if slot.is_none() {
                *slot = Some(r);
            }
        }
    }
    let mut paths = PairPaths::new(topology, rates);
    started
        .iter()
        .zip(records)
        .map(|(s, r)| {
            let record = r.unwrap_or_else(|| FlowRecord {
                flow_id: s.flow_id,
                src: HostId(s.src),
                dst: HostId(s.dst),
                size_bytes: s.size,
                arrival: s.arrival,
                subflows: 1,
                ..FlowRecord::default()
            });
            let class = s.class as usize;
            let ideal_fct = s.size.and_then(|size| {
                paths.ideal(world, s.src, s.dst, size, &classes[class].tcp, s.arrival)
            });
            FlowInput {
                class,
                record,
                ideal_fct,
                job: s.job,
                at_window_start: at_window_start.get(&s.flow_id).copied().unwrap_or_default(),
                at_window_end: at_window_end.get(&s.flow_id).copied(),
            }
        })
        .collect()
}
