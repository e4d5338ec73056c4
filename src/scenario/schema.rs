//! The resolved scenario: every key of docs/scenarios.md as a typed value, every default
//! filled in. Serialises back to TOML (DIR/scenario.toml) in a form [`super::load_str`] reads back
//! to the same value.

use std::path::PathBuf;
use std::sync::Arc;

use htsim_core::units::{format_buffer, format_duration, format_size, BufferSize};
use htsim_core::{Rate, SimTime};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::params::{serialize_params, Params, TRANSPORT_SWITCHES_WRITTEN_WHEN_ON};
use super::reference::Reference;
use super::tree::{Node, Table, Value};

/// A whole scenario, resolved.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    /// Its name (defaults to the file name without `.toml`); names the output directory.
    pub name: String,
    /// Free text.
    pub description: String,
    /// `[run]`: duration, drain, warmup, seeds.
    pub run: RunConfig,
    /// `[topology]`.
    pub topology: TopologyConfig,
    /// `[queue]`.
    pub queue: QueueConfig,
    /// `[routing]`.
    pub routing: RoutingConfig,
    /// `[transports.<name>]`, in file order.
    #[serde(serialize_with = "ser_transports")]
    pub transports: Vec<NamedTransport>,
    /// `[[flows]]`: the flow classes, in file order.
    pub flows: Vec<FlowClass>,
    /// `[[events]]`, in file order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
    /// `[output]`.
    pub output: OutputConfig,
    /// `[sweep]`: parameter axes, in file order.
    #[serde(serialize_with = "ser_sweep", skip_serializing_if = "Vec::is_empty")]
    pub sweep: Vec<SweepAxis>,
    /// `[[reference]]`: published values to compare with the results, in file order.
    #[serde(rename = "reference", skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<Reference>,
    /// The directory of the scenario file; relative paths (`cdf_file`, topology files) are read
    /// from here.
    #[serde(skip)]
    pub base_dir: PathBuf,
}

impl Scenario {
    /// The resolved scenario as TOML text, every default written out; an error for a value
    /// TOML cannot hold (an integer above `i64::MAX`, which the loader refuses).
    pub fn to_toml_string(&self) -> Result<String, toml::ser::Error> {
        self.to_toml_string_as_written(None)
    }

    /// As [`Scenario::to_toml_string`], except in a table whose `kind` a sweep axis sets
    /// (`"transports.t.kind" = ["tcp", "ps"]`): a kind's defaults differ from another's
    /// (`dupthresh` is 3 for tcp and "auto" for ps; xmp has no `delayed_ack`), so that table
    /// keeps only the keys `written` (the document as read) gives it, and each point fills in
    /// its own kind's defaults when the file is read back, as it did for the run.
    pub fn to_toml_string_as_written(
        &self,
        written: Option<&Node>,
    ) -> Result<String, toml::ser::Error> {
        let mut table = toml::Table::try_from(self)?;
        table.remove("sweep");
        if let Some(written) = written {
            for axis in &self.sweep {
                if let Some(owner) = axis.path.strip_suffix(".kind") {
                    keep_written_keys(&mut table, written, owner);
                }
            }
        }
        let mut text = table.to_string();
        // The axes are written by hand, each on one line with inline values: TOML would put an
        // axis of whole tables after the others (as `[[sweep."..."]]`), and the order of the
        // axes is the order of the run list and of the point names.
        // A group of paired axes is one inline table, its axes in order.
        if !self.sweep.is_empty() {
            text.push_str("\n[sweep]\n");
            let mut axes = self.sweep.iter().peekable();
            while let Some(axis) = axes.next() {
                let Some(group) = &axis.group else {
                    text.push_str(&format!("{}\n", axis_entry(axis)));
                    continue;
                };
                let mut entries = vec![axis_entry(axis)];
                while let Some(next) = axes.next_if(|a| a.group.as_ref() == Some(group)) {
                    entries.push(axis_entry(next));
                }
                // A group's name is a bare key: letters, digits, `-` and `_`.
                text.push_str(&format!("{group} = {{ {} }}\n", entries.join(", ")));
            }
        }
        Ok(text)
    }

    /// The flow classes whose `arrivals` open nothing after their first flows: arrivals stop
    /// 0.2 s before `run.duration` ([`htsim_workload::arrivals::SCHEDULING_MARGIN`],
    /// docs/model.md 14.4), and these classes start no earlier than that, or (rounds every T)
    /// not more than T before it.
    pub fn classes_without_time_for_arrivals(&self) -> impl Iterator<Item = &FlowClass> {
        let last = self
            .run
            .duration
            .saturating_sub(htsim_workload::arrivals::SCHEDULING_MARGIN);
        self.flows.iter().filter(move |c| match c.arrivals {
            None => false,
            Some(Arrivals::Every(period)) => last.saturating_sub(c.start) <= period,
            Some(_) => c.start >= last,
        })
    }

    /// The transport called `name`.
    pub fn transport(&self, name: &str) -> Option<&TransportConfig> {
        self.transports
            .iter()
            .find(|t| t.name == name)
            .map(|t| &t.config)
    }
}

/// Removes from the table at key path `owner` of `table` every key but `kind` that the same
/// table of `written` does not hold. A path segment names a table's key, or, after an array of
/// tables (`flows`), the element of that `name`.
fn keep_written_keys(table: &mut toml::Table, written: &Node, owner: &str) {
    let segments: Vec<&str> = owner.split('.').collect();
    let Some(resolved) = resolved_table(table, &segments) else {
        return;
    };
    let kept: Vec<&str> = match written_table(written, &segments) {
        Some(t) => t.entries.iter().map(|e| e.key.as_str()).collect(),
        None => Vec::new(),
    };
    resolved.retain(|key, _| key == "kind" || kept.contains(&key));
}

/// The table at `segments` of a resolved scenario's TOML.
fn resolved_table<'a>(
    table: &'a mut toml::Table,
    segments: &[&str],
) -> Option<&'a mut toml::Table> {
    let Some((first, rest)) = segments.split_first() else {
        return Some(table);
    };
    match table.get_mut(*first)? {
        toml::Value::Table(t) => resolved_table(t, rest),
        toml::Value::Array(items) => {
            let (name, rest) = rest.split_first()?;
            let element = items.iter_mut().find_map(|v| match v {
                toml::Value::Table(t) if t.get("name").and_then(|n| n.as_str()) == Some(*name) => {
                    Some(t)
                }
                _ => None,
            })?;
            resolved_table(element, rest)
        }
        _ => None,
    }
}

/// The table at `segments` of the document as read.
fn written_table<'a>(node: &'a Node, segments: &[&str]) -> Option<&'a Table> {
    let Value::Table(table) = &node.value else {
        return None;
    };
    let Some((first, rest)) = segments.split_first() else {
        return Some(table);
    };
    let next = &table.get(first)?.value;
    match &next.value {
        Value::Array(items) => {
            let (name, rest) = rest.split_first()?;
            let element = items.iter().find(|n| match &n.value {
                Value::Table(t) => {
                    matches!(t.get("name").map(|e| &e.value.value), Some(Value::String(s)) if s == name)
                }
                _ => false,
            })?;
            written_table(element, rest)
        }
        _ => written_table(next, rest),
    }
}

/// `"key.path" = [values]`: one axis as `[sweep]` writes it, tables in values keeping the
/// order of their keys (which the point names follow).
fn axis_entry(axis: &SweepAxis) -> String {
    let key = toml::Value::String(axis.path.clone());
    let values: Vec<String> = axis.values.iter().map(Node::to_inline_toml).collect();
    format!("{key} = [{}]", values.join(", "))
}

/// The most seeds a count may ask for (`seeds = N`, `--seeds N`).
pub const MAX_SEED_COUNT: u64 = 1_000_000;

/// `[run]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunConfig {
    /// How long flows are generated and long flows run.
    #[serde(serialize_with = "ser_duration")]
    pub duration: SimTime,
    /// Extra simulated time for open short flows to finish.
    #[serde(serialize_with = "ser_duration")]
    pub drain: SimTime,
    /// Metrics ignore what happens before this time.
    #[serde(serialize_with = "ser_duration")]
    pub warmup: SimTime,
    /// The seeds to run.
    pub seeds: Seeds,
}

/// Which seeds to run.
#[derive(Clone, Debug, PartialEq)]
pub enum Seeds {
    /// Seeds `1..=N`.
    Count(u64),
    /// These seeds, in this order.
    List(Vec<u64>),
}

impl Seeds {
    /// How many seeds there are.
    pub fn count(&self) -> u64 {
        match self {
            Seeds::Count(n) => *n,
            Seeds::List(v) => v.len() as u64,
        }
    }

    /// The seeds, in run order.
    pub fn list(&self) -> Vec<u64> {
        match self {
            Seeds::Count(n) => (1..=*n).collect(),
            Seeds::List(v) => v.clone(),
        }
    }
}

impl Serialize for Seeds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Seeds::Count(n) => s.serialize_u64(*n),
            Seeds::List(v) => v.serialize(s),
        }
    }
}

/// `[topology]`: a kind, its parameters and per-layer link overrides.
#[derive(Clone, Debug, PartialEq)]
pub struct TopologyConfig {
    /// `fattree`, `vl2`, ... (see [`super::params::TOPOLOGIES`]).
    pub kind: String,
    /// The kind's parameters, defaults filled in.
    pub params: Params,
    /// `[topology.layers.<layer>]`, in file order.
    pub layers: Vec<(String, LinkOverride)>,
}

impl TopologyConfig {
    /// The number of hosts, for the kinds where the parameters alone say it.
    pub fn host_count(&self) -> Option<u64> {
        let int = |k: &str| self.params.int(k).and_then(|v| u64::try_from(v).ok());
        match self.kind.as_str() {
            "fattree" => {
                let k = int("k")?;
                Some(k * k * k / 4 * int("oversubscription")?)
            }
            "dhft" => Some(
                htsim_topology::dhft::Dhft {
                    k: u32::try_from(int("k")?).ok()?,
                }
                .host_count(),
            ),
            "vl2" => {
                let (da, di) = (int("da")?, int("di")?);
                Some(da * di / 4 * int("hosts_per_tor")?)
            }
            "bcube" => {
                let (n, k) = (int("n")?, int("k")?);
                n.checked_pow(u32::try_from(k + 1).ok()?)
            }
            "star" => int("hosts"),
            "dumbbell" => Some(2 * int("hosts")?),
            "xmp-two-path" => {
                Some(2 * (int("multipath_pairs")? + int("path0_pairs")? + int("path1_pairs")?))
            }
            "xmp-torus" => Some(10),
            _ => None,
        }
    }
}

impl Serialize for TopologyConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("kind", &self.kind)?;
        serialize_params(&mut m, &self.params, &[])?;
        if !self.layers.is_empty() {
            m.serialize_entry("layers", &PairMap(&self.layers))?;
        }
        m.end()
    }
}

/// Serialises a list of pairs as a map, keeping its order.
struct PairMap<'a, T>(&'a [(String, T)]);

impl<T: Serialize> Serialize for PairMap<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// `[topology.layers.<layer>]`: overrides for the links of one layer.
#[derive(Clone, Debug, PartialEq, Default, Serialize)]
pub struct LinkOverride {
    /// Link rate.
    #[serde(
        serialize_with = "ser_opt_rate",
        skip_serializing_if = "Option::is_none"
    )]
    pub link_rate: Option<Rate>,
    /// Propagation delay.
    #[serde(
        serialize_with = "ser_opt_duration",
        skip_serializing_if = "Option::is_none"
    )]
    pub link_delay: Option<SimTime>,
}

/// A queue discipline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueKind {
    /// Drop arrivals when full.
    Droptail,
    /// Drop-tail that marks CE when the instantaneous queue exceeds the threshold on arrival.
    Ecn,
    /// As `Ecn`, but an arrival that is not ECN-capable is dropped above the threshold (RED with
    /// weight 1 and min_th = max_th = the threshold).
    Red,
}

impl QueueKind {
    /// Whether the discipline has a marking threshold (`ecn`, `red`).
    pub fn marks(self) -> bool {
        matches!(self, QueueKind::Ecn | QueueKind::Red)
    }
}

/// `[queue]`: the queue of every egress port, with per-layer overrides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueueConfig {
    /// The discipline.
    pub kind: QueueKind,
    /// The capacity.
    #[serde(serialize_with = "ser_buffer")]
    pub capacity: BufferSize,
    /// ECN marking threshold (ecn only).
    #[serde(
        serialize_with = "ser_opt_buffer",
        skip_serializing_if = "Option::is_none"
    )]
    pub mark_threshold: Option<BufferSize>,
    /// `[queue.layers.<layer>]`: the full queue settings of a layer, in file order.
    #[serde(
        serialize_with = "ser_queue_layers",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub layers: Vec<(String, QueueSettings)>,
}

/// The queue settings of one layer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueueSettings {
    /// The discipline.
    pub kind: QueueKind,
    /// The capacity.
    #[serde(serialize_with = "ser_buffer")]
    pub capacity: BufferSize,
    /// ECN marking threshold (ecn only).
    #[serde(
        serialize_with = "ser_opt_buffer",
        skip_serializing_if = "Option::is_none"
    )]
    pub mark_threshold: Option<BufferSize>,
}

impl QueueConfig {
    /// The settings of the queues of `layer`.
    pub fn for_layer(&self, layer: &str) -> QueueSettings {
        self.layers
            .iter()
            .find(|(l, _)| l == layer)
            .map(|(_, q)| q.clone())
            .unwrap_or(QueueSettings {
                kind: self.kind,
                capacity: self.capacity,
                mark_threshold: self.mark_threshold,
            })
    }
}

/// Path selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RoutingMode {
    /// A hash of the 5-tuple picks one of the equal-cost paths.
    Ecmp,
    /// A random path per packet.
    Spray,
    /// One static path per host pair.
    Single,
    /// ECMP over each pair's minimum-hop paths only (on BCube, neighbours take their direct
    /// link).
    Shortest,
    /// Every flow on the first of its pair's minimum-hop paths, in the topology's path order
    /// (on BCube the one leaving on the highest level where the hosts differ: htsim's
    /// single-path TCP).
    First,
}

/// `[routing]`.
#[derive(Clone, Debug, PartialEq)]
pub struct RoutingConfig {
    /// The mode.
    pub mode: RoutingMode,
    /// The central First Fit scheduler (`first_fit`, `first_fit_threshold`); `None` when off
    /// (the default).
    pub first_fit: Option<FirstFitConfig>,
}

impl Serialize for RoutingConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("mode", &self.mode)?;
        // Written only when on, so that scenarios without it read back (and hash) as before.
        if let Some(ff) = &self.first_fit {
            m.serialize_entry("first_fit", &format_duration(ff.interval))?;
            m.serialize_entry("first_fit_threshold", &ff.threshold_text)?;
        }
        m.end()
    }
}

/// A central First Fit scheduler (docs/model.md 3.1): every `interval` it moves each
/// single-path flow that sent more than `threshold` of its host's link rate in the last
/// interval onto the least-loaded of its equal-cost paths.
#[derive(Clone, Debug, PartialEq)]
pub struct FirstFitConfig {
    /// Time between two scans (`first_fit`).
    pub interval: SimTime,
    /// The share of the sender's host link rate above which a flow is scheduled, 0..=1
    /// (`first_fit_threshold`).
    pub threshold: f64,
    /// `threshold` as written (`"10%"`), kept for writing back exactly.
    pub threshold_text: String,
}

/// A transport's settings: its kind and parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct TransportConfig {
    /// `tcp`, `dctcp`, `ps`, `mptcp`, `mmptcp`, `xmp`.
    pub kind: String,
    /// The kind's parameters, defaults filled in.
    pub params: Params,
}

impl Serialize for TransportConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("kind", &self.kind)?;
        serialize_params(&mut m, &self.params, TRANSPORT_SWITCHES_WRITTEN_WHEN_ON)?;
        m.end()
    }
}

/// A transport of `[transports]` with its name.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedTransport {
    /// The name flow classes refer to.
    pub name: String,
    /// The settings.
    pub config: TransportConfig,
}

/// A flow class's transport: a name from `[transports]`, or inline settings.
#[derive(Clone, Debug, PartialEq)]
pub enum TransportRef {
    /// `transport = "mptcp8"`.
    Named(String),
    /// `transport = { kind = "tcp" }`.
    Inline(TransportConfig),
}

impl Serialize for TransportRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TransportRef::Named(n) => s.serialize_str(n),
            TransportRef::Inline(t) => t.serialize(s),
        }
    }
}

/// A traffic matrix recipe.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatrixKind {
    /// Every sender to a distinct receiver, nobody to itself (the default).
    #[default]
    Permutation,
    /// `dst = src + offset` (default: the same position in the next pod).
    Stride,
    /// Uniform random destinations.
    Random,
    /// `fan_in` senders to one receiver.
    Incast,
    /// Every sender to one receiver.
    ManyToOne,
    /// A fraction `rack_local` of flows stay in their rack.
    Locality,
    /// The (source, destination) pairs written in `pairs` or `pairs_file`.
    Pairs,
    /// Every pair of hosts `distance` switch hops apart (on a BCube at distance 1: each host
    /// with its one-hop neighbours at every level).
    Neighbours,
}

/// How a random matrix chooses its sources (`sources`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RandomSources {
    /// Each connection has a uniform source: a host may send several connections or none (the
    /// MMPTCP paper's random matrix; the default).
    #[default]
    Uniform,
    /// Every host of the class is the source of exactly one connection (the XMP paper's random
    /// pattern).
    Each,
}

/// Explicit pairs of a class (`matrix = "pairs"`): host indices, as `host<i>` in outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairsSpec {
    /// `pairs = [[0, 1], [2, 3]]`: (source, destination) pairs.
    List(Vec<(u64, u64)>),
    /// `pairs_file = "pairs.txt"`: a file of `src dst` (or `src,dst`) lines, relative to the
    /// scenario.
    File(String),
}

/// The hosts a class's matrix is drawn over (`hosts`): distinct host indices, increasing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostSet(pub Vec<u64>);

impl Serialize for HostSet {
    /// Runs of 3 or more consecutive hosts as `"first-last"`, other hosts as integers: the form
    /// the loader reads back to the same set.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut items: Vec<toml::Value> = Vec::new();
        let mut i = 0;
        while i < self.0.len() {
            let mut j = i;
            while j + 1 < self.0.len() && self.0[j + 1] == self.0[j] + 1 {
                j += 1;
            }
            if j - i >= 2 {
                items.push(toml::Value::String(format!("{}-{}", self.0[i], self.0[j])));
            } else {
                items.extend(
                    self.0[i..=j]
                        .iter()
                        .map(|&h| toml::Value::Integer(h as i64)),
                );
            }
            i = j + 1;
        }
        items.serialize(s)
    }
}

/// Which hosts of the topology send flows of a class.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Senders {
    /// A share of all hosts (`"33%"`); `text` is as written.
    Share {
        /// The fraction, 0..=1.
        fraction: f64,
        /// The text as written, kept for writing back exactly.
        text: String,
    },
    /// A number of hosts.
    Count(u64),
    /// Every host (the default).
    #[default]
    All,
    /// The hosts no earlier class uses.
    Rest,
}

impl Serialize for Senders {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Senders::Share { text, .. } => s.serialize_str(text),
            Senders::Count(n) => s.serialize_u64(*n),
            Senders::All => s.serialize_str("all"),
            Senders::Rest => s.serialize_str("rest"),
        }
    }
}

/// A flow-size distribution.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum SizeSpec {
    /// Every flow this many bytes.
    Fixed(u64),
    /// Flows that never end (the default).
    #[default]
    Infinite,
    /// Uniform between two sizes, bytes.
    Uniform(u64, u64),
    /// Pareto with this shape and mean, capped, bytes.
    Pareto {
        /// Shape (alpha), above 1.
        shape: f64,
        /// Mean, bytes.
        mean: u64,
        /// Cap, bytes.
        max: Option<u64>,
    },
    /// A built-in empirical CDF (`websearch`, `datamining`, `fb_hadoop`, `benson_imc10`).
    Cdf(String),
    /// An empirical CDF read from a file (relative to the scenario).
    CdfFile(String),
}

/// The built-in flow-size CDFs.
pub const BUILTIN_CDFS: &[&str] = &["websearch", "datamining", "fb_hadoop", "benson_imc10"];

impl Serialize for SizeSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SizeSpec::Fixed(b) => s.serialize_str(&format_size(*b)),
            SizeSpec::Infinite => s.serialize_str("infinite"),
            SizeSpec::Uniform(lo, hi) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("uniform", &[format_size(*lo), format_size(*hi)])?;
                m.end()
            }
            SizeSpec::Pareto { shape, mean, max } => {
                let mut inner = toml::Table::new();
                inner.insert("shape".into(), toml::Value::Float(*shape));
                inner.insert("mean".into(), toml::Value::String(format_size(*mean)));
                if let Some(max) = max {
                    inner.insert("max".into(), toml::Value::String(format_size(*max)));
                }
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("pareto", &inner)?;
                m.end()
            }
            SizeSpec::Cdf(name) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("cdf", name)?;
                m.end()
            }
            SizeSpec::CdfFile(path) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("cdf_file", path)?;
                m.end()
            }
        }
    }
}

/// How flows of a class arrive.
#[derive(Clone, Debug, PartialEq)]
pub enum Arrivals {
    /// Poisson arrivals at this many flows per second over the whole network.
    Poisson(f64),
    /// Synchronised rounds with this period.
    Every(SimTime),
    /// A new flow when the previous one of the same connection ends.
    ClosedLoop {
        /// Each new flow draws its destination afresh (a permutation or random matrix; the
        /// limits of a random one hold among the class's open flows), instead of going to the
        /// connection's destination again.
        new_destination: bool,
    },
    /// Rounds of a fresh matrix: every connection starts a flow at `start`; once every flow of
    /// the round has finished, a new matrix is drawn and its connections start theirs.
    MatrixRounds,
}

impl Serialize for Arrivals {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self {
            Arrivals::Poisson(rate) => m.serialize_entry("poisson", rate)?,
            Arrivals::Every(t) => m.serialize_entry("every", &format_duration(*t))?,
            Arrivals::ClosedLoop { new_destination } => {
                m.serialize_entry("closed_loop", &true)?;
                if *new_destination {
                    m.serialize_entry("new_destination", &true)?;
                }
            }
            Arrivals::MatrixRounds => m.serialize_entry("matrix_rounds", &true)?,
        }
        m.end()
    }
}

/// `jobs` of a flow class: partition/aggregate jobs (docs/model.md 7.6). Each job is 1 client
/// and `servers` distinct servers drawn at random; the client sends `request_bytes` to every
/// server, each server answers with `response_bytes` once its request flow completed, and when
/// every answer has completed a new job starts on new hosts (while the run's duration lasts), so
/// `concurrent` jobs run at any time. Keys and defaults: [`super::params::JOBS`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JobsConfig {
    /// Servers per job (M).
    pub servers: u64,
    /// Bytes of each request (client to server).
    #[serde(rename = "request", serialize_with = "ser_size")]
    pub request_bytes: u64,
    /// Bytes of each response (server to client).
    #[serde(rename = "response", serialize_with = "ser_size")]
    pub response_bytes: u64,
    /// Jobs running at any time.
    pub concurrent: u64,
    /// Whether a server may be in the client's rack.
    pub rack_local: bool,
}

/// `[[flows]]`: one class of flows.
///
/// [`FlowClass::default`] holds the loader's defaults of the optional keys, an infinite size and
/// inline TCP; [`crate::builder`] has the constructors and `with` methods.
///
/// A class either draws flows from a traffic matrix (`matrix`, `senders`, `size`, `arrivals`)
/// or, with `jobs`, runs partition/aggregate jobs: a job class has none of the matrix keys in
/// its file, and they keep their defaults here, unused and not written out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowClass {
    /// Unique name; addressed in key paths as `flows.<name>`.
    pub name: String,
    /// The traffic matrix.
    pub matrix: MatrixKind,
    /// Stride offset in hosts (stride only; absent = the next pod).
    pub offset: Option<u64>,
    /// Senders per receiver (incast only).
    pub fan_in: Option<u64>,
    /// Fraction of rack-local flows (locality only), as written (`"30%"`).
    pub rack_local: Option<String>,
    /// The pairs of a `pairs` matrix.
    pub pairs: Option<PairsSpec>,
    /// Switch hops between the hosts of each pair (neighbours only; absent = 1).
    pub distance: Option<u64>,
    /// The most connections a host receives (random only; absent = no limit).
    pub max_per_destination: Option<u64>,
    /// No connection stays in its rack (random only).
    pub exclude_rack_local: bool,
    /// How the sources are chosen (random only).
    pub sources: RandomSources,
    /// The hosts the matrix is drawn over (absent = every host).
    pub hosts: Option<HostSet>,
    /// Independent draws of the matrix the class's connections come from (absent = 1): with a
    /// permutation or a random matrix, `draws` connections per host.
    pub draws: Option<u64>,
    /// Which hosts send.
    pub senders: Senders,
    /// Flow sizes.
    pub size: SizeSpec,
    /// When the first flows start (a job class: its first jobs).
    pub start: SimTime,
    /// How flows arrive; absent = one flow per sender at `start`.
    pub arrivals: Option<Arrivals>,
    /// Partition/aggregate jobs instead of a traffic matrix.
    pub jobs: Option<JobsConfig>,
    /// The transport (a job class: of its requests and responses).
    pub transport: TransportRef,
}

impl Serialize for FlowClass {
    /// The keys in file order, those a class does not use left out (`offset` without a stride,
    /// the matrix keys of a job class).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &self.name)?;
        match &self.jobs {
            Some(jobs) => m.serialize_entry("jobs", jobs)?,
            None => {
                m.serialize_entry("matrix", &self.matrix)?;
                if let Some(offset) = self.offset {
                    m.serialize_entry("offset", &offset)?;
                }
                if let Some(fan_in) = self.fan_in {
                    m.serialize_entry("fan_in", &fan_in)?;
                }
                if let Some(rack_local) = &self.rack_local {
                    m.serialize_entry("rack_local", rack_local)?;
                }
                match &self.pairs {
                    Some(PairsSpec::List(pairs)) => {
                        let pairs: Vec<[u64; 2]> = pairs.iter().map(|&(a, b)| [a, b]).collect();
                        m.serialize_entry("pairs", &pairs)?;
                    }
                    Some(PairsSpec::File(path)) => m.serialize_entry("pairs_file", path)?,
                    None => {}
                }
                if let Some(distance) = self.distance {
                    m.serialize_entry("distance", &distance)?;
                }
                if let Some(max) = self.max_per_destination {
                    m.serialize_entry("max_per_destination", &max)?;
                }
                if self.exclude_rack_local {
                    m.serialize_entry("exclude_rack_local", &true)?;
                }
                if self.sources != RandomSources::default() {
                    m.serialize_entry("sources", &self.sources)?;
                }
                if let Some(hosts) = &self.hosts {
                    m.serialize_entry("hosts", hosts)?;
                }
                if let Some(draws) = self.draws {
                    m.serialize_entry("draws", &draws)?;
                }
                m.serialize_entry("senders", &self.senders)?;
                m.serialize_entry("size", &self.size)?;
            }
        }
        m.serialize_entry("start", &format_duration(self.start))?;
        if let Some(arrivals) = &self.arrivals {
            m.serialize_entry("arrivals", arrivals)?;
        }
        m.serialize_entry("transport", &self.transport)?;
        m.end()
    }
}

/// `where` of an event: which links change.
#[derive(Clone, Debug, PartialEq)]
pub enum EventTarget {
    /// A random share of the switches of a layer (chosen by seed): their links of that layer.
    Layer {
        /// Layer name.
        layer: String,
        /// Share of the layer's switches, text as written (`"30%"`); absent = all.
        switches: Option<String>,
    },
    /// Named links, each `[from, to]` or a node name.
    Links(Vec<String>),
}

impl Serialize for EventTarget {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self {
            EventTarget::Layer { layer, switches } => {
                m.serialize_entry("layer", layer)?;
                if let Some(sw) = switches {
                    m.serialize_entry("switches", sw)?;
                }
            }
            EventTarget::Links(links) => m.serialize_entry("link", links)?,
        }
        m.end()
    }
}

/// `set` of an event: what changes.
#[derive(Clone, Debug, PartialEq)]
pub enum EventChange {
    /// New queue capacity.
    Capacity(BufferSize),
    /// New link rate.
    Rate(Rate),
    /// The link fails.
    Down,
    /// The link recovers.
    Up,
}

impl Serialize for EventChange {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        match self {
            EventChange::Capacity(b) => m.serialize_entry("capacity", &format_buffer(b))?,
            EventChange::Rate(r) => m.serialize_entry("rate", &r.to_string())?,
            EventChange::Down => m.serialize_entry("down", &true)?,
            EventChange::Up => m.serialize_entry("up", &true)?,
        }
        m.end()
    }
}

/// `[[events]]`: a change to the network at a time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    /// When.
    #[serde(serialize_with = "ser_duration")]
    pub at: SimTime,
    /// Which links.
    #[serde(rename = "where")]
    pub target: EventTarget,
    /// What changes.
    pub set: EventChange,
}

/// `[output.timeseries]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimeseriesConfig {
    /// Sampling interval.
    #[serde(serialize_with = "ser_duration")]
    pub interval: SimTime,
    /// Which series (`queue`, `cwnd`, `rate`).
    pub series: Vec<String>,
    /// Links whose queue is sampled: `"all"` (the default), a layer name (every egress link of
    /// the layer) or a link name as in links.csv (`"tor0.0->agg0.0"`).
    pub links: Vec<String>,
    /// Flows whose cwnd and rate are sampled: `"all"` (the default), a flow class name (every
    /// flow of the class) or a flow id (an integer, as in flows.csv).
    pub flows: Vec<FlowSelector>,
}

/// One entry of `[output.timeseries] flows`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlowSelector {
    /// Every flow (`"all"`).
    All,
    /// Every flow of the class of this name.
    Class(String),
    /// The flow with this id.
    Id(u64),
}

impl Serialize for FlowSelector {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            FlowSelector::All => s.serialize_str("all"),
            FlowSelector::Class(c) => s.serialize_str(c),
            FlowSelector::Id(i) => s.serialize_u64(*i),
        }
    }
}

/// `[output.trace]`: per-flow event traces (handshakes, path, window, losses, scheduler
/// stalls) of the selected flows, written to trace.csv.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceConfig {
    /// The flows traced: flow ids (as in flows.csv), flow class names, or `"all"`.
    pub flows: Vec<FlowSelector>,
    /// The most events a run keeps; a last `truncated` row counts those dropped beyond.
    pub max_events: u64,
}

/// The default `[output.trace] max_events`.
pub const DEFAULT_TRACE_EVENTS: u64 = htsim_transport::trace::DEFAULT_TRACE_LIMIT as u64;

/// The most times a periodic task (time series samples, First Fit scans) may stop one run: its
/// `interval` is at least `(duration + drain) / MAX_PERIODIC_STOPS`, so that no interval, however
/// small, makes a run stop billions of times.
pub const MAX_PERIODIC_STOPS: u64 = 10_000_000;

/// The largest `[output.trace] max_events` (about 0.6 GB of memory and of CSV).
pub const MAX_TRACE_EVENTS: u64 = 10_000_000;

/// The time series that can be asked for.
pub const SERIES: &[&str] = &["queue", "cwnd", "rate"];

/// `[output]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OutputConfig {
    /// Write flows.csv.
    pub flows: bool,
    /// Write links.csv.
    pub links: bool,
    /// Write timeseries.csv.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeseries: Option<TimeseriesConfig>,
    /// Write trace.csv: the events of the selected flows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceConfig>,
    /// Write crossings.csv: per flow, the data packets that arrived at these links (`a->b`,
    /// `a<->b`, or a node: its egress links) inside the measurement window. Empty: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub crossings: Vec<String>,
    /// Draw plots.
    pub plots: bool,
}

/// One `[sweep]` axis: a key path and the values it takes.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepAxis {
    /// The key path (`transports.mptcp8.subflows`).
    pub path: String,
    /// The values, in order; shared, as every sweep point's scenario carries the axes.
    pub values: Arc<[Node]>,
    /// The group of paired axes it belongs to (`[sweep.<group>]`): the axes of a group take
    /// their i-th values together, and are next to each other in the list.
    pub group: Option<String>,
}

fn ser_transports<S: Serializer>(v: &[NamedTransport], s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(v.len()))?;
    for t in v {
        m.serialize_entry(&t.name, &t.config)?;
    }
    m.end()
}

/// `[sweep]` as a map: an axis as `path = [values]`, a group of paired axes as
/// `group = { path = [values], ... }`.
fn ser_sweep<S: Serializer>(v: &[SweepAxis], s: S) -> Result<S::Ok, S::Error> {
    let values = |a: &SweepAxis| -> toml::Value {
        toml::Value::Array(a.values.iter().map(Node::to_toml).collect())
    };
    let mut m = s.serialize_map(None)?;
    let mut axes = v.iter().peekable();
    while let Some(a) = axes.next() {
        match &a.group {
            None => m.serialize_entry(&a.path, &values(a))?,
            Some(group) => {
                let mut table = toml::Table::new();
                table.insert(a.path.clone(), values(a));
                while let Some(next) = axes.next_if(|b| b.group.as_ref() == Some(group)) {
                    table.insert(next.path.clone(), values(next));
                }
                m.serialize_entry(group, &table)?;
            }
        }
    }
    m.end()
}

fn ser_queue_layers<S: Serializer>(v: &[(String, QueueSettings)], s: S) -> Result<S::Ok, S::Error> {
    PairMap(v).serialize(s)
}

fn ser_duration<S: Serializer>(t: &SimTime, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_duration(*t))
}

fn ser_size<S: Serializer>(b: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_size(*b))
}

fn ser_opt_duration<S: Serializer>(t: &Option<SimTime>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => ser_duration(t, s),
        None => s.serialize_none(),
    }
}

fn ser_opt_rate<S: Serializer>(r: &Option<Rate>, s: S) -> Result<S::Ok, S::Error> {
    match r {
        Some(r) => s.serialize_str(&r.to_string()),
        None => s.serialize_none(),
    }
}

fn ser_buffer<S: Serializer>(b: &BufferSize, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_buffer(b))
}

fn ser_opt_buffer<S: Serializer>(b: &Option<BufferSize>, s: S) -> Result<S::Ok, S::Error> {
    match b {
        Some(b) => ser_buffer(b, s),
        None => s.serialize_none(),
    }
}
