//! Assembling a scenario in code: [`ScenarioBuilder`], and constructors and `with` methods on
//! the scenario types ([`TopologyConfig`], [`QueueConfig`], [`TransportConfig`], [`FlowClass`],
//! [`Senders`], [`SizeSpec`], [`Arrivals`], [`JobsConfig`]).
//!
//! A builder assembles the document a scenario file holds, key by key, from typed values; its
//! [`build`](ScenarioBuilder::build) hands that document to the loader's resolver. So a scenario
//! built in code passes exactly the checks a file passes, gets the same defaults (a
//! `TopologyConfig::fattree(4)` comes out with every FatTree parameter filled in), and is the
//! same [`Scenario`] value: it equals the one [`crate::scenario::load_str`] gives for the
//! equivalent TOML, and everything that takes a scenario takes it — one run with
//! [`crate::simulate::run`], every sweep point and seed through the runner
//! ([`ScenarioBuilder::build_loaded`], [`crate::runner::run_all`], [`crate::runner::write_report`]),
//! and `DIR/scenario.toml`, which reads back as the same scenario.
//!
//! Errors never panic: [`build`](ScenarioBuilder::build) returns the loader's
//! [`ScenarioError`], whose `key_path` names the offending field (`topology.k`,
//! `flows.short.senders`), with the loader's message and hint. There is no file behind a built
//! scenario, so the error has no line ([`Location::File`]); it is shown as
//! `NAME (builder): `KEY.PATH`: MESSAGE`.
//!
//! ```
//! use htsim::builder::ScenarioBuilder;
//! use htsim::core::units::BufferSize;
//! use htsim::core::{Rate, SimTime};
//! use htsim::scenario::{Arrivals, FlowClass, QueueConfig, Senders, SizeSpec, TopologyConfig, TransportConfig};
//! use htsim::simulate::{run, RunContext};
//!
//! let builder = ScenarioBuilder::new("demo")
//!     .duration(SimTime::from_ms(20))
//!     .topology(TopologyConfig::fattree(4).link_rate(Rate::gbps(1)))
//!     .queue(QueueConfig::ecn(BufferSize::Packets(100), BufferSize::Packets(20)))
//!     .flows(FlowClass::long("long", TransportConfig::mptcp(8)).senders(Senders::Count(4)))
//!     .flows(
//!         FlowClass::new("short", SizeSpec::cdf("websearch"), TransportConfig::dctcp())
//!             .senders(Senders::Rest)
//!             .arrivals(Arrivals::Poisson(2000.0)),
//!     );
//! let scenario = builder.build().unwrap();
//! // Every default is filled in, as the loader fills it in for a file.
//! assert_eq!(scenario.topology.params.int("oversubscription"), Some(1));
//! let out = run(&scenario, 1, &RunContext::default()).unwrap();
//! assert_eq!(out.summary().classes[0].long_flows, 4);
//!
//! // A bad value gives the loader's error, naming the field.
//! let err = builder.topology(TopologyConfig::fattree(5)).build().unwrap_err();
//! assert_eq!(err.key_path, "topology.k");
//! assert_eq!(err.hint.as_deref(), Some("use k = 4 or k = 6"));
//! ```
//!
//! `build` checks what the scenario says. What needs the network built or a named file read (a
//! stride that is a multiple of the host count, the lines of a CDF or topology file, a node an
//! event names, the memory a run needs) is checked when a run is set up:
//! [`crate::simulate::run`] returns it as a [`crate::runner::RunError`] naming the key, and
//! [`crate::simulate::preflight::check`] finds it for every sweep point before any run starts,
//! as `htsim validate` does:
//!
//! ```
//! use htsim::builder::ScenarioBuilder;
//! use htsim::core::SimTime;
//! use htsim::scenario::{FlowClass, TopologyConfig, TransportConfig};
//! use htsim::simulate::{preflight, run, RunContext};
//!
//! let loaded = ScenarioBuilder::new("stride")
//!     .duration(SimTime::from_ms(1))
//!     .topology(TopologyConfig::fattree(4))
//!     .flows(FlowClass::long("long", TransportConfig::tcp()).stride(16))
//!     .build_loaded()
//!     .unwrap();
//! let problems = preflight::check(&loaded, 1).unwrap_err();
//! assert_eq!(problems.0[0].key_path, "flows.long.matrix");
//! let err = run(&loaded.scenario, 1, &RunContext::default()).unwrap_err();
//! assert!(err.to_string().starts_with("flows.long.matrix: stride offset 16"));
//! ```
//!
//! # Topologies
//!
//! Every built-in topology kind is buildable with its parameters: [`TopologyConfig::fattree`],
//! [`dhft`](TopologyConfig::dhft), [`vl2`](TopologyConfig::vl2),
//! [`bcube`](TopologyConfig::bcube), [`star`](TopologyConfig::star),
//! [`dumbbell`](TopologyConfig::dumbbell), [`xmp_torus`](TopologyConfig::xmp_torus), or any kind
//! by name with [`TopologyConfig::new`]; [`TopologyConfig::param`] sets any parameter `htsim list
//! topologies` prints, [`TopologyConfig::layer`] the per-layer link overrides.
//!
//! A topology of your own (any nodes and links) is a topology file (the format of
//! [`htsim_topology::file`]): write it, then [`TopologyConfig::file`] with its path, relative to
//! [`ScenarioBuilder::base_dir`]. What is not possible is to hand a topology already built in
//! memory (an `htsim_topology::topology::Topology`) to a scenario: a scenario is plain data, written
//! out as `DIR/scenario.toml` so that any run can be repeated from its directory. To simulate a
//! network wired by hand without a scenario, build a [`crate::core::world::World`] directly
//! (`examples/engine_tour.rs`).

use std::path::PathBuf;

use htsim_core::units::{format_duration, BufferSize};
use htsim_core::{Rate, SimTime};
use serde::Serialize;

use crate::scenario::error::{Location, Origin, Result, ScenarioError, Source};
use crate::scenario::params::{ParamValue, Params};
use crate::scenario::tree::{self, Entry, Node, Table, Value};
use crate::scenario::{
    load_tree, Arrivals, Event, FlowClass, HostSet, JobsConfig, LinkOverride, LoadOptions, Loaded,
    MatrixKind, OutputConfig, PairsSpec, QueueConfig, QueueKind, QueueSettings, RandomSources,
    Reference, RoutingMode, Scenario, Seeds, Senders, SizeSpec, TimeseriesConfig, TopologyConfig,
    TraceConfig, TransportConfig, TransportRef,
};

/// A scenario assembled in code, checked and completed by the scenario loader on
/// [`build`](Self::build).
///
/// Each method sets the key of the scenario file it is named after; a later call replaces an
/// earlier one (a value that could not be written included: it no longer counts), except
/// [`flows`](Self::flows), [`event`](Self::event) and [`reference`](Self::reference), which
/// append (as `[[flows]]` and `[[events]]` do). Nothing is checked until `build`, which returns
/// the first problem found; a builder is never consumed by `build`, so it can be built again,
/// changed and built again, or cloned into variants.
///
/// The one value a setter can take that no scenario file can hold is an integer above
/// `i64::MAX` (the largest TOML integer), such as `Seeds::Count(u64::MAX)`: `build` reports it
/// at the setter's key.
#[derive(Clone, Debug)]
pub struct ScenarioBuilder {
    name: String,
    base_dir: PathBuf,
    doc: Table,
    /// Values that could not be written, with the keys (not dotted: names may hold dots) of
    /// the setters that gave them, in call order.
    errors: Vec<(Vec<String>, Box<ScenarioError>)>,
}

impl ScenarioBuilder {
    /// A builder for the scenario called `name` (it names the output directory; letters,
    /// digits, `-` and `_`). Relative file paths are read from the current directory unless
    /// [`base_dir`](Self::base_dir) says otherwise.
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        let mut doc = Table::default();
        // An empty `[run]`, so that a missing duration is reported as `run.duration`.
        doc.set("run", table_node(), Origin::Unknown);
        ScenarioBuilder {
            name: name.clone(),
            base_dir: PathBuf::from("."),
            doc,
            errors: Vec::new(),
        }
        .put(&["name"], &name)
    }

    /// `description`: free text.
    pub fn description(self, text: impl Into<String>) -> Self {
        self.put(&["description"], &text.into())
    }

    /// The directory relative paths (`SizeSpec::CdfFile`, `TopologyConfig::file`) are read from
    /// (for a file, the file's directory).
    pub fn base_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.base_dir = dir.into();
        self
    }

    /// `run.duration`: how long flows are generated and long flows run (required).
    pub fn duration(self, t: SimTime) -> Self {
        self.put(&["run", "duration"], &format_duration(t))
    }

    /// `run.drain`: extra simulated time for open short flows to finish (default 0 s).
    pub fn drain(self, t: SimTime) -> Self {
        self.put(&["run", "drain"], &format_duration(t))
    }

    /// `run.warmup`: metrics ignore what happens before this time (default 0 s).
    pub fn warmup(self, t: SimTime) -> Self {
        self.put(&["run", "warmup"], &format_duration(t))
    }

    /// `run.seeds`: the seeds to run (default `Seeds::Count(1)`, seed 1).
    pub fn seeds(self, seeds: Seeds) -> Self {
        self.put(&["run", "seeds"], &seeds)
    }

    /// `[topology]` (required): a kind and its parameters; unset parameters take their defaults.
    pub fn topology(self, topology: TopologyConfig) -> Self {
        self.put(&["topology"], &topology)
    }

    /// `[queue]`: the queue of every egress port (default: drop-tail, 100 packets).
    pub fn queue(self, queue: QueueConfig) -> Self {
        self.put(&["queue"], &queue)
    }

    /// `routing.mode` (default ECMP).
    pub fn routing(self, mode: RoutingMode) -> Self {
        self.put(&["routing", "mode"], &mode)
    }

    /// `routing.first_fit` and `routing.first_fit_threshold`: a central First Fit scheduler
    /// that scans the flows every `interval` and places those above `threshold` (a share of the
    /// host link rate such as `"10%"`; docs/model.md 3.1). Needs ECMP routing.
    pub fn first_fit(self, interval: SimTime, threshold: &str) -> Self {
        self.put(&["routing", "first_fit"], &format_duration(interval))
            .put(&["routing", "first_fit_threshold"], &threshold)
    }

    /// `[transports.<name>]`: a named transport that flow classes refer to by name
    /// (`FlowClass::transport("name")`) and sweeps address (`transports.<name>.subflows`).
    pub fn transport(self, name: &str, transport: TransportConfig) -> Self {
        self.put(&["transports", name], &transport)
    }

    /// Appends a `[[flows]]` class (at least one is required).
    pub fn flows(self, class: FlowClass) -> Self {
        let name = class.name.clone();
        self.append("flows", &name, &class)
    }

    /// Appends an `[[events]]` change to the network.
    pub fn event(self, event: Event) -> Self {
        self.append("events", "", &event)
    }

    /// `[output]` in full (default: flows.csv and links.csv, no time series, no plots).
    pub fn output(self, output: OutputConfig) -> Self {
        self.put(&["output"], &output)
    }

    /// `output.timeseries`: sample queues, windows and rates into timeseries.csv.
    pub fn timeseries(self, timeseries: TimeseriesConfig) -> Self {
        self.put(&["output", "timeseries"], &timeseries)
    }

    /// `output.trace`: the events of the selected flows (handshakes, path, window, losses,
    /// scheduler stalls) into trace.csv.
    pub fn trace(self, trace: TraceConfig) -> Self {
        self.put(&["output", "trace"], &trace)
    }

    /// `output.plots`: draw plots with the cross-seed summary.
    pub fn plots(self, plots: bool) -> Self {
        self.put(&["output", "plots"], &plots)
    }

    /// A `[sweep]` axis: the key path (`transports.long.kind`, `flows.short.size`,
    /// `topology.link_rate`) takes each of `values` (written as in a file: `"1Gbps"`, `8`).
    /// Every combination of the axes is a sweep point; see
    /// [`build_loaded`](Self::build_loaded).
    pub fn sweep<V: Into<toml::Value>>(
        mut self,
        path: &str,
        values: impl IntoIterator<Item = V>,
    ) -> Self {
        let items = values
            .into_iter()
            .map(|v| Node::from_toml(&v.into(), &Origin::Unknown))
            .collect();
        set_in(
            &mut self.doc,
            &["sweep", path],
            Node::new(Value::Array(items), Origin::Unknown),
        );
        self
    }

    /// A `[sweep.<group>]` of paired axes: the i-th point of the group takes the i-th value of
    /// every axis (key path, values), so the lists must have equal lengths; the group is one
    /// dimension of the product with the other axes, e.g. each transport with its own marking
    /// threshold.
    pub fn paired_sweep<'a, V: Into<toml::Value>>(
        mut self,
        group: &str,
        axes: impl IntoIterator<Item = (&'a str, Vec<V>)>,
    ) -> Self {
        let entries = axes
            .into_iter()
            .map(|(path, values)| {
                let items = values
                    .into_iter()
                    .map(|v| Node::from_toml(&v.into(), &Origin::Unknown))
                    .collect();
                Entry {
                    key: path.to_string(),
                    key_origin: Origin::Unknown,
                    value: Node::new(Value::Array(items), Origin::Unknown),
                }
            })
            .collect();
        set_in(
            &mut self.doc,
            &["sweep", group],
            Node::new(Value::Table(Table { entries }), Origin::Unknown),
        );
        self
    }

    /// Appends a `[[reference]]`: a published value that reports compare with the summary
    /// (checked like one read from a file when the scenario is built).
    pub fn reference(self, reference: Reference) -> Self {
        self.append("reference", "", &reference)
    }

    /// Checks the scenario and fills in every default, as loading the equivalent file does.
    /// With `[sweep]` axes this is the base scenario (its `sweep` lists the axes); the points
    /// come from [`build_loaded`](Self::build_loaded).
    pub fn build(&self) -> Result<Scenario> {
        self.build_loaded().map(|loaded| loaded.scenario)
    }

    /// Checks the scenario and resolves its base and every sweep point, as
    /// [`crate::scenario::load_str`] does for a file: what [`crate::runner::run_list`],
    /// [`crate::runner::run_all`] and [`crate::simulate::Simulator::for_loaded`] take.
    ///
    /// ```no_run
    /// use htsim::builder::ScenarioBuilder;
    /// use htsim::core::SimTime;
    /// use htsim::runner::{run_all, write_report, RunOptions};
    /// use htsim::scenario::{FlowClass, Seeds, TopologyConfig, TransportConfig};
    /// use htsim::simulate::Simulator;
    ///
    /// let loaded = ScenarioBuilder::new("sweep")
    ///     .duration(SimTime::from_ms(100))
    ///     .seeds(Seeds::Count(4))
    ///     .topology(TopologyConfig::fattree(4))
    ///     .transport("long", TransportConfig::tcp())
    ///     .flows(FlowClass::long("long", "long"))
    ///     .sweep("transports.long.kind", ["tcp", "dctcp"])
    ///     .build_loaded()
    ///     .unwrap();
    /// let out = std::path::Path::new("results/sweep");
    /// let options = RunOptions { out: out.to_path_buf(), jobs: 2, ..RunOptions::default() };
    /// let report = run_all(&loaded, &options, &Simulator::for_loaded(&loaded), &|_| {}).unwrap();
    /// assert_eq!(report.finished.len(), 8);
    /// write_report(&loaded, out).unwrap(); // out/summary.csv and out/summary.json
    /// ```
    pub fn build_loaded(&self) -> Result<Loaded> {
        if let Some((_, e)) = self.errors.first() {
            return Err(e.clone());
        }
        let root = Node::new(Value::Table(self.doc.clone()), Origin::Unknown);
        load_tree(
            Source::new(self.label(), ""),
            root,
            &self.name,
            &self.base_dir,
            &LoadOptions::default(),
        )
        .map_err(|mut e| {
            // The document has no text: no line or column to show.
            if let Location::Position { .. } = e.location {
                e.location = Location::File;
                e.snippet = None;
            }
            e
        })
    }

    /// How errors name the scenario, in place of a file name.
    fn label(&self) -> String {
        format!("{} (builder)", self.name)
    }

    /// Sets the value at `path` (keys, not a dotted path: names may hold any character and are
    /// checked by the loader).
    fn put<T: Serialize>(mut self, path: &[&str], value: &T) -> Self {
        // The value replaces whatever was set at `path` or below, failed values included.
        self.errors.retain(|(at, _)| {
            !(at.len() >= path.len() && at.iter().zip(path).all(|(a, p)| a == p))
        });
        match to_node(value) {
            Ok(node) => set_in(&mut self.doc, path, node),
            Err(message) => self.fail(path, &path.join("."), message),
        }
        self
    }

    /// Appends `value` to the array of tables `key`; `name` names it in a failure.
    fn append<T: Serialize>(mut self, key: &str, name: &str, value: &T) -> Self {
        let node = match to_node(value) {
            Ok(node) => node,
            Err(message) => {
                let path = if name.is_empty() {
                    key.to_string()
                } else {
                    format!("{key}.{name}")
                };
                // Appended: never replaced, so its key is one no setter uses.
                self.fail(&[key, ""], &path, message);
                return self;
            }
        };
        match self.doc.get_mut(key).map(|e| &mut e.value.value) {
            Some(Value::Array(items)) => items.push(node),
            _ => self.doc.set(
                key,
                Node::new(Value::Array(vec![node]), Origin::Unknown),
                Origin::Unknown,
            ),
        }
        self
    }

    /// Records a value, set at the keys `at`, that could not be written as a scenario value.
    fn fail(&mut self, at: &[&str], key_path: &str, message: String) {
        let error = ScenarioError::about_file(
            self.label(),
            key_path,
            format!("cannot be written as a scenario value: {message}"),
        );
        self.errors
            .push((at.iter().map(|k| k.to_string()).collect(), error));
    }
}

fn table_node() -> Node {
    Node::new(Value::Table(Table::default()), Origin::Unknown)
}

/// Sets `path` in `table`, creating the tables on the way (replacing a value that is not one).
fn set_in(table: &mut Table, path: &[&str], node: Node) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut here = table;
    for key in parents {
        if !matches!(here.get(key).map(|e| &e.value.value), Some(Value::Table(_))) {
            here.set(key, table_node(), Origin::Unknown);
        }
        here = match here.get_mut(key).map(|e| &mut e.value.value) {
            Some(Value::Table(inner)) => inner,
            // The entry was made a table just above.
            _ => return,
        };
    }
    here.set(last, node, Origin::Unknown);
}

/// A typed value as a document node: written with its scenario-file `Serialize` (units
/// included, the form `DIR/scenario.toml` uses) and read back with the loader's parser, so
/// every value reaches the resolver exactly as a file would give it.
fn to_node<T: Serialize>(value: &T) -> std::result::Result<Node, String> {
    #[derive(Serialize)]
    struct Wrap<'a, T> {
        v: &'a T,
    }
    // The one value a typed setter can take that TOML cannot hold is a `u64` above i64::MAX:
    // written, it is a number the parser refuses.
    let too_large = |message: String| {
        if message.contains("too large") {
            format!(
                "an integer above {} (the largest integer a scenario holds)",
                i64::MAX
            )
        } else {
            message
        }
    };
    let text = toml::to_string(&Wrap { v: value }).map_err(|e| too_large(e.to_string()))?;
    let root = tree::parse(&Source::new("", text)).map_err(|e| too_large(e.message))?;
    let Value::Table(table) = root.value else {
        return Err("not a table".into());
    };
    let mut node = table
        .entries
        .into_iter()
        .find(|e| e.key == "v")
        .map(|e| e.value)
        .ok_or_else(|| "nothing was written".to_string())?;
    forget_origins(&mut node);
    Ok(node)
}

/// The positions of a parsed snippet mean nothing in the scenario: drop them.
fn forget_origins(node: &mut Node) {
    node.origin = Origin::Unknown;
    match &mut node.value {
        Value::Array(items) => items.iter_mut().for_each(forget_origins),
        Value::Table(t) => {
            for e in &mut t.entries {
                e.key_origin = Origin::Unknown;
                forget_origins(&mut e.value);
            }
        }
        _ => {}
    }
}

/// Sets `key` of `params`, replacing an earlier value.
impl TopologyConfig {
    /// A topology of kind `kind` (see `htsim list topologies`) with no parameter set: the
    /// builder fills in the defaults.
    pub fn new(kind: impl Into<String>) -> Self {
        TopologyConfig {
            kind: kind.into(),
            params: Params::default(),
            layers: Vec::new(),
        }
    }

    /// A k-ary FatTree (k even).
    pub fn fattree(k: u32) -> Self {
        Self::new("fattree").param("k", i64::from(k))
    }

    /// A dual-homed FatTree (k a multiple of 6).
    pub fn dhft(k: u32) -> Self {
        Self::new("dhft").param("k", i64::from(k))
    }

    /// VL2 with `da`-port aggregation and `di`-port intermediate switches (both even).
    pub fn vl2(da: u32, di: u32) -> Self {
        Self::new("vl2")
            .param("da", i64::from(da))
            .param("di", i64::from(di))
    }

    /// BCube(n, k): n-port switches, k + 1 levels.
    pub fn bcube(n: u32, k: u32) -> Self {
        Self::new("bcube")
            .param("n", i64::from(n))
            .param("k", i64::from(k))
    }

    /// One perfect switch connecting `hosts` hosts.
    pub fn star(hosts: u32) -> Self {
        Self::new("star").param("hosts", i64::from(hosts))
    }

    /// Two switches joined by one bottleneck link, `hosts` hosts on each side.
    pub fn dumbbell(hosts: u32) -> Self {
        Self::new("dumbbell").param("hosts", i64::from(hosts))
    }

    /// The XMP paper's two-path testbed: `multipath_pairs` sender/receiver pairs on both paths,
    /// then `path0_pairs` on path 0 only and `path1_pairs` on path 1 only.
    pub fn xmp_two_path(multipath_pairs: u32, path0_pairs: u32, path1_pairs: u32) -> Self {
        Self::new("xmp-two-path")
            .param("multipath_pairs", i64::from(multipath_pairs))
            .param("path0_pairs", i64::from(path0_pairs))
            .param("path1_pairs", i64::from(path1_pairs))
    }

    /// The XMP paper's five-bottleneck torus.
    pub fn xmp_torus() -> Self {
        Self::new("xmp-torus")
    }

    /// Nodes and links read from a topology file ([`htsim_topology::file`]), `path` relative to
    /// [`ScenarioBuilder::base_dir`].
    pub fn file(path: impl Into<String>) -> Self {
        Self::new("file").param("path", path.into())
    }

    /// Sets parameter `key` (any key `htsim list topologies` gives for the kind), replacing an
    /// earlier value. Sizes are `ParamValue::Size(bytes)`; unit-less integers are integers.
    pub fn param(mut self, key: &str, value: impl Into<ParamValue>) -> Self {
        self.params.set(key, value.into());
        self
    }

    /// `link_rate`: the rate of every link unless a layer overrides it (VL2: host links).
    pub fn link_rate(self, rate: Rate) -> Self {
        self.param("link_rate", rate)
    }

    /// `link_delay`: the propagation delay of every link unless a layer overrides it.
    pub fn link_delay(self, delay: SimTime) -> Self {
        self.param("link_delay", delay)
    }

    /// `[topology.layers.<layer>]`: rate and delay of the links of one cable layer (`host`,
    /// `tor`, `agg`, `core`, ...), replacing an earlier override of the layer.
    pub fn layer(mut self, layer: impl Into<String>, links: LinkOverride) -> Self {
        let layer = layer.into();
        match self.layers.iter_mut().find(|(l, _)| *l == layer) {
            Some(slot) => slot.1 = links,
            None => self.layers.push((layer, links)),
        }
        self
    }
}

impl QueueSettings {
    /// A drop-tail queue of `capacity`.
    pub fn droptail(capacity: BufferSize) -> Self {
        QueueSettings {
            kind: QueueKind::Droptail,
            capacity,
            mark_threshold: None,
        }
    }

    /// A drop-tail queue of `capacity` that marks CE when more than `mark_threshold` is
    /// waiting on arrival (K).
    pub fn ecn(capacity: BufferSize, mark_threshold: BufferSize) -> Self {
        QueueSettings {
            kind: QueueKind::Ecn,
            capacity,
            mark_threshold: Some(mark_threshold),
        }
    }

    /// As [`ecn`](Self::ecn), but an arrival that is not ECN-capable is dropped when more than
    /// `mark_threshold` is waiting (RED with weight 1 and min_th = max_th = K).
    pub fn red(capacity: BufferSize, mark_threshold: BufferSize) -> Self {
        QueueSettings {
            kind: QueueKind::Red,
            ..Self::ecn(capacity, mark_threshold)
        }
    }
}

impl From<QueueSettings> for QueueConfig {
    /// The same settings at every egress port.
    fn from(q: QueueSettings) -> Self {
        QueueConfig {
            kind: q.kind,
            capacity: q.capacity,
            mark_threshold: q.mark_threshold,
            layers: Vec::new(),
        }
    }
}

impl QueueConfig {
    /// Drop-tail queues of `capacity` at every egress port.
    pub fn droptail(capacity: BufferSize) -> Self {
        QueueSettings::droptail(capacity).into()
    }

    /// ECN-marking queues of `capacity` with threshold `mark_threshold` (K) at every egress
    /// port.
    pub fn ecn(capacity: BufferSize, mark_threshold: BufferSize) -> Self {
        QueueSettings::ecn(capacity, mark_threshold).into()
    }

    /// `[queue.layers.<layer>]`: other settings for the egress ports of one layer, replacing an
    /// earlier override of the layer.
    pub fn layer(mut self, layer: impl Into<String>, settings: QueueSettings) -> Self {
        let layer = layer.into();
        match self.layers.iter_mut().find(|(l, _)| *l == layer) {
            Some(slot) => slot.1 = settings,
            None => self.layers.push((layer, settings)),
        }
        self
    }
}

impl TransportConfig {
    /// A transport of kind `kind` (see `htsim list transports`) with no parameter set: the
    /// builder fills in the defaults.
    pub fn new(kind: impl Into<String>) -> Self {
        TransportConfig {
            kind: kind.into(),
            params: Params::default(),
        }
    }

    /// TCP NewReno.
    pub fn tcp() -> Self {
        Self::new("tcp")
    }

    /// DCTCP.
    pub fn dctcp() -> Self {
        Self::new("dctcp")
    }

    /// Packet scatter.
    pub fn ps() -> Self {
        Self::new("ps")
    }

    /// MPTCP with `subflows` subflows (coupled congestion control LIA unless `cc` is set).
    pub fn mptcp(subflows: u32) -> Self {
        Self::new("mptcp").param("subflows", i64::from(subflows))
    }

    /// MMPTCP with `subflows` subflows after the switch.
    pub fn mmptcp(subflows: u32) -> Self {
        Self::new("mmptcp").param("subflows", i64::from(subflows))
    }

    /// XMP with `subflows` subflows.
    pub fn xmp(subflows: u32) -> Self {
        Self::new("xmp").param("subflows", i64::from(subflows))
    }

    /// `paths = { pinned = [...] }` (`mptcp`, `mmptcp`, `xmp`): subflow n takes path index
    /// `paths[n mod length]` of its pair's equal-cost set, at most one entry per subflow
    /// (docs/model.md 4.1). `.param("paths", "distinct")` draws distinct random paths instead.
    ///
    /// ```
    /// use htsim::scenario::TransportConfig;
    /// let t = TransportConfig::mptcp(2).pinned_paths([3, 1]);
    /// assert_eq!(t.params.list("paths"), Some(&[3, 1][..]));
    /// ```
    pub fn pinned_paths(self, paths: impl IntoIterator<Item = u32>) -> Self {
        let values = paths.into_iter().map(i64::from).collect();
        self.param(
            "paths",
            ParamValue::List {
                key: htsim_transport::mptcp::keys::PINNED,
                values,
            },
        )
    }

    /// Sets parameter `key` (any key `htsim list transports` gives for the kind), replacing an
    /// earlier value: `.param("cc", "ewtcp")`, `.param("min_rto", SimTime::from_ms(10))`,
    /// `.param("mss", ParamValue::Size(1460))`.
    pub fn param(mut self, key: &str, value: impl Into<ParamValue>) -> Self {
        self.params.set(key, value.into());
        self
    }
}

impl From<TransportConfig> for TransportRef {
    /// Inline settings (`transport = { kind = "tcp" }`).
    fn from(t: TransportConfig) -> Self {
        TransportRef::Inline(t)
    }
}

impl From<&str> for TransportRef {
    /// A transport named in `[transports]` ([`ScenarioBuilder::transport`]).
    fn from(name: &str) -> Self {
        TransportRef::Named(name.to_string())
    }
}

impl From<String> for TransportRef {
    /// A transport named in `[transports]` ([`ScenarioBuilder::transport`]).
    fn from(name: String) -> Self {
        TransportRef::Named(name)
    }
}

impl Default for TransportRef {
    /// Inline TCP with default settings.
    fn default() -> Self {
        TransportConfig::tcp().into()
    }
}

impl Senders {
    /// A share of all hosts, in percent (`Senders::percent(33.0)` is `senders = "33%"`).
    pub fn percent(percent: f64) -> Self {
        Senders::Share {
            fraction: percent / 100.0,
            text: format!("{percent}%"),
        }
    }
}

impl SizeSpec {
    /// A built-in empirical CDF ([`crate::scenario::BUILTIN_CDFS`]: `websearch`, `datamining`,
    /// `fb_hadoop`, `benson_imc10`).
    pub fn cdf(name: impl Into<String>) -> Self {
        SizeSpec::Cdf(name.into())
    }
}

impl Arrivals {
    /// `{ closed_loop = true }`: each connection starts a new flow, to the same destination, as
    /// soon as its previous one ends.
    pub fn closed_loop() -> Self {
        Arrivals::ClosedLoop {
            new_destination: false,
        }
    }

    /// `{ closed_loop = true, new_destination = true }`: as [`closed_loop`](Self::closed_loop),
    /// each new flow to a destination drawn when it starts: uniform among the class's other
    /// hosts (a permutation), or within a random matrix's `max_per_destination` and
    /// `exclude_rack_local`, counted over the class's open flows.
    ///
    /// ```
    /// use htsim::builder::ScenarioBuilder;
    /// use htsim::core::SimTime;
    /// use htsim::scenario::{Arrivals, FlowClass, SizeSpec, TopologyConfig, TransportConfig};
    ///
    /// // The XMP paper's random pattern: at most 4 flows into any host at any time.
    /// let class = FlowClass::new("large", SizeSpec::Fixed(1_000_000), TransportConfig::tcp())
    ///     .max_per_destination(4)
    ///     .arrivals(Arrivals::closed_loop_new_destination());
    /// let base = ScenarioBuilder::new("random")
    ///     .duration(SimTime::from_ms(10))
    ///     .topology(TopologyConfig::fattree(4));
    /// assert!(base.clone().flows(class).build().is_ok());
    /// // Checked as in a file: a stride has no destination to draw.
    /// let stride = FlowClass::new("s", SizeSpec::Fixed(1_000), TransportConfig::tcp())
    ///     .stride(2)
    ///     .arrivals(Arrivals::closed_loop_new_destination());
    /// let err = base.flows(stride).build().unwrap_err();
    /// assert_eq!(err.key_path, "flows.s.arrivals.new_destination");
    /// ```
    pub fn closed_loop_new_destination() -> Self {
        Arrivals::ClosedLoop {
            new_destination: true,
        }
    }
}

impl FlowClass {
    /// A class called `name` of flows of `size` over `transport` (a [`TransportConfig`] inline,
    /// or the name of one given to [`ScenarioBuilder::transport`]). The other keys take the
    /// loader's defaults: a permutation, every host sending, one flow per sender at time 0.
    pub fn new(
        name: impl Into<String>,
        size: SizeSpec,
        transport: impl Into<TransportRef>,
    ) -> Self {
        FlowClass {
            name: name.into(),
            size,
            transport: transport.into(),
            ..FlowClass::default()
        }
    }

    /// A class of long flows (they never end): one per sender at the start.
    pub fn long(name: impl Into<String>, transport: impl Into<TransportRef>) -> Self {
        Self::new(name, SizeSpec::Infinite, transport)
    }

    /// A class of partition/aggregate jobs (`jobs = { ... }`) over `transport` (requests and
    /// responses): see [`JobsConfig`]. A job class has no matrix, senders, size or arrivals;
    /// `start` says when its first jobs start.
    ///
    /// ```
    /// use htsim::builder::ScenarioBuilder;
    /// use htsim::core::SimTime;
    /// use htsim::scenario::{FlowClass, JobsConfig, TopologyConfig, TransportConfig};
    ///
    /// // 4 jobs at a time of 1 client and 6 servers outside the client's rack, with XMP's
    /// // 2 KB requests and 64 KB responses: `jobs = { servers = 6, concurrent = 4,
    /// // rack_local = false }`.
    /// let jobs = JobsConfig::new().servers(6).concurrent(4).rack_local(false);
    /// let scenario = ScenarioBuilder::new("incast")
    ///     .duration(SimTime::from_ms(50))
    ///     .topology(TopologyConfig::fattree(4))
    ///     .flows(FlowClass::partition_aggregate("incast", jobs, TransportConfig::tcp()))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(scenario.flows[0].jobs.as_ref().unwrap().response_bytes, 64_000);
    ///
    /// // Values are checked as in a file: a job needs more hosts than the topology has.
    /// let err = ScenarioBuilder::new("incast")
    ///     .duration(SimTime::from_ms(50))
    ///     .topology(TopologyConfig::fattree(4))
    ///     .flows(FlowClass::partition_aggregate("incast", JobsConfig::new().servers(16), "tcp"))
    ///     .build()
    ///     .unwrap_err();
    /// assert_eq!(err.key_path, "flows.incast.jobs.servers");
    /// ```
    pub fn partition_aggregate(
        name: impl Into<String>,
        jobs: JobsConfig,
        transport: impl Into<TransportRef>,
    ) -> Self {
        FlowClass {
            name: name.into(),
            jobs: Some(jobs),
            transport: transport.into(),
            ..FlowClass::default()
        }
    }

    /// `matrix`: the traffic matrix (default: a permutation).
    pub fn matrix(mut self, matrix: MatrixKind) -> Self {
        self.matrix = matrix;
        self
    }

    /// A stride matrix: `dst = src + offset` hosts.
    pub fn stride(mut self, offset: u64) -> Self {
        self.matrix = MatrixKind::Stride;
        self.offset = Some(offset);
        self
    }

    /// An incast matrix: `fan_in` senders to each receiver.
    pub fn incast(mut self, fan_in: u64) -> Self {
        self.matrix = MatrixKind::Incast;
        self.fan_in = Some(fan_in);
        self
    }

    /// A locality matrix: a share `rack_local` of the flows (`"30%"`) stays in its rack.
    pub fn locality(mut self, rack_local: impl Into<String>) -> Self {
        self.matrix = MatrixKind::Locality;
        self.rack_local = Some(rack_local.into());
        self
    }

    /// A pairs matrix (`matrix = "pairs"`): these (source, destination) host pairs, in order;
    /// a pair may repeat (two connections).
    ///
    /// ```
    /// use htsim::builder::ScenarioBuilder;
    /// use htsim::core::SimTime;
    /// use htsim::scenario::{FlowClass, TopologyConfig, TransportConfig};
    ///
    /// let base = ScenarioBuilder::new("pairs")
    ///     .duration(SimTime::from_ms(10))
    ///     .topology(TopologyConfig::fattree(4));
    /// let class = FlowClass::long("long", TransportConfig::tcp()).pairs([(0, 5), (3, 9)]);
    /// assert!(base.clone().flows(class).build().is_ok());
    /// // Checked as in a file: the FatTree has hosts 0 to 15.
    /// let bad = FlowClass::long("long", TransportConfig::tcp()).pairs([(0, 16)]);
    /// let err = base.flows(bad).build().unwrap_err();
    /// assert_eq!(err.key_path, "flows.long.pairs");
    /// assert_eq!(err.message, "host 16 does not exist: the topology has 16 hosts");
    /// ```
    pub fn pairs(mut self, pairs: impl IntoIterator<Item = (u64, u64)>) -> Self {
        self.matrix = MatrixKind::Pairs;
        self.pairs = Some(PairsSpec::List(pairs.into_iter().collect()));
        self
    }

    /// A pairs matrix read from a file of `src dst` (or `src,dst`) lines, relative to
    /// [`ScenarioBuilder::base_dir`].
    pub fn pairs_file(mut self, path: impl Into<String>) -> Self {
        self.matrix = MatrixKind::Pairs;
        self.pairs = Some(PairsSpec::File(path.into()));
        self
    }

    /// A neighbours matrix (`matrix = "neighbours"`): every host talks to every host `distance`
    /// switch hops away (1 on a BCube: its one-hop neighbours at every level).
    pub fn neighbours(mut self, distance: u64) -> Self {
        self.matrix = MatrixKind::Neighbours;
        self.distance = Some(distance);
        self
    }

    /// `max_per_destination` of a random matrix: no host receives more connections (sets
    /// `matrix = "random"`).
    pub fn max_per_destination(mut self, max: u64) -> Self {
        self.matrix = MatrixKind::Random;
        self.max_per_destination = Some(max);
        self
    }

    /// `exclude_rack_local` of a random matrix: no connection stays in its rack (sets
    /// `matrix = "random"`).
    pub fn exclude_rack_local(mut self) -> Self {
        self.matrix = MatrixKind::Random;
        self.exclude_rack_local = true;
        self
    }

    /// `sources` of a random matrix (sets `matrix = "random"`): [`RandomSources::Each`] makes
    /// every host of the class the source of exactly one connection, [`RandomSources::Uniform`]
    /// (the default) gives each connection a uniform source.
    ///
    /// ```
    /// use htsim::builder::ScenarioBuilder;
    /// use htsim::core::SimTime;
    /// use htsim::scenario::{
    ///     Arrivals, FlowClass, MatrixKind, RandomSources, SizeSpec, TopologyConfig,
    ///     TransportConfig,
    /// };
    ///
    /// // The XMP paper's random pattern: every host runs one flow at a time, at most 4 flows
    /// // into any host.
    /// let class = FlowClass::new("large", SizeSpec::Fixed(1_000_000), TransportConfig::tcp())
    ///     .sources(RandomSources::Each)
    ///     .max_per_destination(4)
    ///     .arrivals(Arrivals::closed_loop_new_destination());
    /// let base = ScenarioBuilder::new("random")
    ///     .duration(SimTime::from_ms(10))
    ///     .topology(TopologyConfig::fattree(4));
    /// assert!(base.clone().flows(class).build().is_ok());
    /// // Checked as in a file: a permutation has no sources to choose.
    /// let permutation = FlowClass::new("p", SizeSpec::Fixed(1_000), TransportConfig::tcp())
    ///     .sources(RandomSources::Each)
    ///     .matrix(MatrixKind::Permutation);
    /// let err = base.flows(permutation).build().unwrap_err();
    /// assert_eq!(err.key_path, "flows.p.sources");
    /// ```
    pub fn sources(mut self, sources: RandomSources) -> Self {
        self.matrix = MatrixKind::Random;
        self.sources = sources;
        self
    }

    /// `hosts`: the class's matrix is drawn over these hosts only (host indices, as `host<i>`
    /// in outputs), so classes on different hosts have matrices of their own.
    ///
    /// ```
    /// use htsim::builder::ScenarioBuilder;
    /// use htsim::core::SimTime;
    /// use htsim::scenario::{FlowClass, MatrixKind, SizeSpec, TopologyConfig, TransportConfig};
    ///
    /// // Two independent groups of 8 hosts, each with one client reading from the other 7.
    /// let group = |name: &str, first: u64| {
    ///     FlowClass::new(name, SizeSpec::Fixed(1_000_000), TransportConfig::tcp())
    ///         .matrix(MatrixKind::ManyToOne)
    ///         .hosts(first..first + 8)
    /// };
    /// let scenario = ScenarioBuilder::new("groups")
    ///     .duration(SimTime::from_ms(10))
    ///     .topology(TopologyConfig::fattree(4))
    ///     .flows(group("a", 0))
    ///     .flows(group("b", 8))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(scenario.flows[1].hosts.as_ref().unwrap().0, (8..16).collect::<Vec<u64>>());
    /// ```
    pub fn hosts(mut self, hosts: impl IntoIterator<Item = u64>) -> Self {
        let mut set: Vec<u64> = hosts.into_iter().collect();
        set.sort_unstable();
        self.hosts = Some(HostSet(set));
        self
    }

    /// `draws`: the class's connections come from this many independent draws of its matrix
    /// (default 1), so a permutation or a random matrix gives every host `draws` connections.
    ///
    /// ```
    /// use htsim::builder::ScenarioBuilder;
    /// use htsim::core::SimTime;
    /// use htsim::scenario::{FlowClass, TopologyConfig, TransportConfig};
    /// use htsim::simulate::{run, RunContext};
    ///
    /// // Three permutations: every host of the FatTree opens 3 long flows.
    /// let scenario = ScenarioBuilder::new("draws")
    ///     .duration(SimTime::from_ms(5))
    ///     .topology(TopologyConfig::fattree(4))
    ///     .flows(FlowClass::long("long", TransportConfig::tcp()).draws(3))
    ///     .build()
    ///     .unwrap();
    /// let out = run(&scenario, 1, &RunContext::default()).unwrap();
    /// assert_eq!(out.summary().classes[0].long_flows, 3 * 16);
    /// ```
    pub fn draws(mut self, draws: u64) -> Self {
        self.draws = Some(draws);
        self
    }

    /// `senders`: which hosts send (default: all).
    pub fn senders(mut self, senders: Senders) -> Self {
        self.senders = senders;
        self
    }

    /// `size`: the flow sizes.
    pub fn size(mut self, size: SizeSpec) -> Self {
        self.size = size;
        self
    }

    /// `start`: when the first flows start (default 0 s).
    pub fn start(mut self, start: SimTime) -> Self {
        self.start = start;
        self
    }

    /// `arrivals`: how flows arrive (default: one flow per sender at `start`).
    pub fn arrivals(mut self, arrivals: Arrivals) -> Self {
        self.arrivals = Some(arrivals);
        self
    }

    /// `transport`: inline settings or the name of a transport of the builder.
    pub fn transport(mut self, transport: impl Into<TransportRef>) -> Self {
        self.transport = transport.into();
        self
    }

    /// `jobs`: makes this a class of partition/aggregate jobs ([`JobsConfig`], as
    /// [`partition_aggregate`](Self::partition_aggregate) builds one). The jobs choose hosts,
    /// sizes and arrivals, so the class's matrix, senders and size are left out of the scenario;
    /// arrivals set with [`arrivals`](Self::arrivals) are not, and the loader rejects them
    /// (`flows.<name>.arrivals`), as in a file.
    pub fn jobs(mut self, jobs: JobsConfig) -> Self {
        self.jobs = Some(jobs);
        self
    }
}

impl JobsConfig {
    /// The XMP paper's incast pattern, the loader's defaults (`jobs = {}`): 8 servers per job,
    /// 2 KB requests, 64 KB responses, 8 jobs at a time, servers allowed in the client's rack.
    pub fn new() -> Self {
        JobsConfig {
            servers: 8,
            request_bytes: 2_000,
            response_bytes: 64_000,
            concurrent: 8,
            rack_local: true,
        }
    }

    /// `servers`: servers per job (M; fewer than the topology's hosts, the client is one more).
    pub fn servers(mut self, servers: u64) -> Self {
        self.servers = servers;
        self
    }

    /// `request`: bytes the client sends to each server.
    pub fn request(mut self, bytes: u64) -> Self {
        self.request_bytes = bytes;
        self
    }

    /// `response`: bytes each server sends back once its request completed.
    pub fn response(mut self, bytes: u64) -> Self {
        self.response_bytes = bytes;
        self
    }

    /// `concurrent`: jobs running at any time (a job that ends is replaced at once).
    pub fn concurrent(mut self, jobs: u64) -> Self {
        self.concurrent = jobs;
        self
    }

    /// `rack_local`: whether a server may be in the client's rack (`false`: no job flow stays
    /// under one ToR).
    pub fn rack_local(mut self, allowed: bool) -> Self {
        self.rack_local = allowed;
        self
    }
}

impl Default for JobsConfig {
    /// [`JobsConfig::new`]: XMP's incast defaults.
    fn default() -> Self {
        Self::new()
    }
}
