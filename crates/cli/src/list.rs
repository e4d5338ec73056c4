//! `htsim list`: every key a scenario file may hold, with its default, type and a line on what it
//! does, grouped by table. docs/scenarios.md is the long form; crates/cli/tests/docs.rs checks the
//! page names everything listed here, and crates/cli/tests/list.rs that every table lists
//! exactly the keys the loader accepts.
//!
//! Layout: a group header (unindented, naming its table), then one line per key at two spaces,
//! keys of a key's own table (`jobs`, `where`, `timeseries`...) or of a kind at six. Key, default
//! and type columns line up across the whole listing.

use clap::ValueEnum;
use htsim::scenario::{
    params, BUILTIN_CDFS, DEFAULT_TRACE_EVENTS, MAX_SEED_COUNT, MAX_TRACE_EVENTS, SERIES,
};

/// The groups `htsim list WHAT` prints (all of them without WHAT).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListWhat {
    /// The top level (name, description) and [run].
    Run,
    /// [topology] kinds and their parameters.
    Topologies,
    /// [queue].
    Queues,
    /// [routing].
    Routing,
    /// [transports.<name>] kinds and their parameters.
    Transports,
    /// [[flows]] (also: flows).
    #[value(alias = "flows")]
    Workloads,
    /// [[events]].
    Events,
    /// [output].
    Output,
    /// [sweep].
    Sweep,
    /// [[reference]] and every summary.csv metric it may name.
    References,
}

/// One printed line.
enum Line {
    /// A group header or a kind with its description: printed as is.
    Text(String),
    /// A key, indented by `depth` levels.
    Key {
        depth: usize,
        key: String,
        default: String,
        kind: String,
        doc: String,
    },
}

/// The lines of a listing, built group by group.
#[derive(Default)]
struct Listing {
    lines: Vec<Line>,
}

impl Listing {
    fn text(&mut self, text: impl Into<String>) {
        self.lines.push(Line::Text(text.into()));
    }

    /// A key at `depth` (0: a table's own key; 1: a key of that key's table or of a kind).
    /// `default` is `"= value"`, `"(required)"` or a parenthesised condition.
    fn key(&mut self, depth: usize, key: &str, default: &str, kind: &str, doc: &str) {
        self.lines.push(Line::Key {
            depth,
            key: key.to_string(),
            default: default.to_string(),
            kind: kind.to_string(),
            doc: doc.to_string(),
        });
    }

    /// The parameters of a kind (topology, transport, job), at depth 1.
    fn params(&mut self, params: &[params::ParamSpec]) {
        for p in params {
            let default = p.default.map_or("(required)".into(), |d| format!("= {d}"));
            let mut doc = p.doc.to_string();
            for (profile, value) in p.profile_defaults {
                doc.push_str(&format!(" ({profile} profile: default {value})"));
            }
            self.key(1, p.key, &default, &p.kind.expected(), &doc);
        }
    }

    /// A kind: its name and description, then its parameters.
    fn kind(&mut self, k: &params::KindSpec) {
        self.text(format!("  {}  {}", k.name, one_line(k.doc)));
        self.params(k.params);
    }

    /// The listing as text: key, default and type columns aligned over every key line.
    fn render(&self) -> String {
        let keys = self.lines.iter().filter_map(|l| match l {
            Line::Key {
                depth,
                key,
                default,
                ..
            } => Some((indent(*depth).len() + key.len(), default.len())),
            Line::Text(_) => None,
        });
        let (key_width, default_width) =
            keys.fold((0, 0), |(k, d), (kw, dw)| (k.max(kw), d.max(dw)));
        let mut out = String::new();
        for line in &self.lines {
            match line {
                Line::Text(t) => out.push_str(t),
                Line::Key {
                    depth,
                    key,
                    default,
                    kind,
                    doc,
                } => {
                    let key = format!("{}{key}", indent(*depth));
                    let text = format!(
                        "{key:<key_width$}  {default:<default_width$}  {}; {}",
                        one_line(kind),
                        one_line(doc)
                    );
                    out.push_str(text.trim_end());
                }
            }
            out.push('\n');
        }
        out
    }
}

/// The indentation of a key line at `depth`.
fn indent(depth: usize) -> &'static str {
    if depth == 0 {
        "  "
    } else {
        "      "
    }
}

/// `text` on one line, runs of white space (from wrapped doc strings) made one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

const NAME_CHARS: &str = "a string of letters, digits, `-` and `_`";

/// The listing of `what`, or of everything.
pub fn listing(what: Option<ListWhat>) -> String {
    let mut l = Listing::default();
    let show = |group: ListWhat| what.is_none_or(|w| w == group);
    if show(ListWhat::Run) {
        run(&mut l);
    }
    if show(ListWhat::Topologies) {
        l.text(
            "topologies ([topology] kind = ...; [topology.layers.<layer>] link_rate, link_delay):",
        );
        for t in params::TOPOLOGIES {
            l.kind(&t.kind);
            if !t.layers.is_empty() {
                l.text(format!("      layers: {}", t.layers.join(", ")));
            }
        }
        l.text("  node names: host<i>; FatTree tor<pod>.<i>, agg<pod>.<i>, core<i>");
    }
    if show(ListWhat::Queues) {
        queues(&mut l);
    }
    if show(ListWhat::Routing) {
        l.text("routing ([routing]):");
        l.key(
            0,
            "mode",
            "= ecmp",
            &params::ParamKind::Choice(&["ecmp", "spray", "single", "shortest", "first"])
                .expected(),
            "ecmp: a hash of the 5-tuple picks one equal-cost path per (sub)flow; spray: a random \
             path per packet; single: one fixed path per host pair; shortest: ecmp over the \
             minimum-hop paths only; first: the first minimum-hop path of each pair (htsim's \
             BCube TCP)",
        );
        l.key(
            0,
            "first_fit",
            "= off",
            &format!(
                "\"off\" or {}, above 0s",
                params::ParamKind::Duration.expected()
            ),
            "a central First Fit scheduler scanning this often: single-path TCP and DCTCP \
             flows above first_fit_threshold move to the least-loaded equal-cost path \
             (needs mode = ecmp)",
        );
        l.key(
            0,
            "first_fit_threshold",
            "= 10%",
            "a share such as \"10%\"",
            "with first_fit: the share of the sender's host link rate a flow must exceed \
             over one interval to be placed",
        );
    }
    if show(ListWhat::Transports) {
        l.text("transports ([transports.<name>] kind = ..., or inline in a flow class):");
        for t in params::TRANSPORTS {
            l.kind(&t.spec);
        }
    }
    if show(ListWhat::Workloads) {
        flows(&mut l);
    }
    if show(ListWhat::Events) {
        events(&mut l);
    }
    if show(ListWhat::Output) {
        output(&mut l);
    }
    if show(ListWhat::Sweep) {
        l.text(
            "sweep ([sweep]): \"key.path\" = [value, ...], one axis per line; every combination \
             of the axes' values runs, for every seed; a table [sweep.<group>] of axes with equal \
             lengths takes their values together (paired); --set sweep.KEY=[...] adds or replaces \
             an axis",
        );
    }
    if show(ListWhat::References) {
        references(&mut l);
    }
    l.render()
}

/// The keys of `[[reference]]`, and every summary.csv metric it may name with its unit.
fn references(l: &mut Listing) {
    use htsim::report::aggregate::{metric_catalogue, MetricScope};
    let metrics = |scope: MetricScope| -> String {
        metric_catalogue()
            .iter()
            .filter(|m| m.scope == scope)
            .map(|m| format!("{} ({})", m.metric, m.unit))
            .collect::<Vec<_>>()
            .join(", ")
    };
    l.text("references ([[reference]], one table per published value):");
    for (key, default, kind, doc) in [
        (
            "source",
            "(required)",
            "a string",
            "the paper and its table or figure",
        ),
        (
            "metric",
            "(required)",
            "a summary.csv metric, listed below",
            "what is compared",
        ),
        (
            "class",
            "(required)",
            "a flow class, \"layer:<name>\" or \"run\"",
            "whose metric",
        ),
        (
            "point",
            "= every point",
            "{ \"key.path\" = value, ... }",
            "the sweep-axis values it applies to",
        ),
        (
            "value",
            "(or a bound)",
            "a number",
            "the published value, in the metric's unit",
        ),
        ("unit", "(required)", "a string", "the metric's unit"),
        (
            "tolerance_pct",
            "= none",
            "a number from 0",
            "within when ours is within this % of value",
        ),
        (
            "spread",
            "= none",
            "a number from 0",
            "the published spread, shown beside ours",
        ),
        (
            "at_most",
            "(instead of value)",
            "a number",
            "within when ours <= at_most",
        ),
        (
            "at_least",
            "(instead of value)",
            "a number",
            "within when ours >= at_least",
        ),
    ] {
        l.key(0, key, default, kind, doc);
    }
    l.text(format!(
        "  metric of a flow class: {}",
        metrics(MetricScope::Class)
    ));
    l.text(format!(
        "  metric of \"layer:<name>\": {}",
        metrics(MetricScope::Layer)
    ));
    l.text(format!(
        "  metric of \"run\": {}",
        metrics(MetricScope::Run)
    ));
}

fn run(l: &mut Listing) {
    l.text("top level:");
    l.key(
        0,
        "name",
        "= the file name",
        "a string of letters, digits, `.`, `_`, `-`, `+` and `=`",
        "names the output directory results/<name>",
    );
    l.key(0, "description", "= \"\"", "a string", "free text");
    l.text("run ([run]):");
    let duration = params::ParamKind::Duration.expected();
    l.key(
        0,
        "duration",
        "(required)",
        &format!("{duration}, above 0s"),
        "how long flows are generated and long flows run",
    );
    l.key(
        0,
        "drain",
        "= 0s",
        &duration,
        "extra time after duration for open flows to finish; no new flows arrive",
    );
    l.key(
        0,
        "warmup",
        "= 0s",
        &format!("{duration}, below duration"),
        "metrics ignore what happens before this time",
    );
    l.key(
        0,
        "seeds",
        "= 1",
        &format!("an integer N from 1 to {MAX_SEED_COUNT}, or a list of distinct seeds"),
        "N runs seeds 1..=N; a list runs those seeds (every sweep point runs every seed)",
    );
}

fn queues(l: &mut Listing) {
    l.text("queues ([queue], and [queue.layers.<layer>] with the same keys but layers):");
    l.key(
        0,
        "kind",
        "= droptail",
        &params::ParamKind::Choice(&["droptail", "ecn", "red"]).expected(),
        "the queue of every egress port:",
    );
    l.text("      droptail  drop arrivals when full");
    l.text(
        "      ecn       drop-tail, marking CE when the queue exceeds mark_threshold on arrival",
    );
    l.text(
        "      red       as ecn, but dropping arrivals that are not ECN-capable above mark_threshold",
    );
    l.key(
        0,
        "capacity",
        "= 100pkt",
        &params::ParamKind::Buffer.expected(),
        "the queue limit",
    );
    l.key(
        0,
        "mark_threshold",
        "(ecn, red: required)",
        &format!("{}, at most capacity", params::ParamKind::Buffer.expected()),
        "ECN marking threshold K (red: also the drop threshold; an error with droptail)",
    );
    l.key(
        0,
        "layers",
        "(absent)",
        "a table per egress layer (host, tor, agg, core, switch, bottleneck)",
        "overrides for the ports of that layer's nodes",
    );
}

fn flows(l: &mut Listing) {
    l.text("workloads ([[flows]], one table per flow class):");
    l.key(
        0,
        "name",
        "(required)",
        &format!("{NAME_CHARS}, unique"),
        "names the class in outputs and key paths (flows.<name>.size)",
    );
    l.key(
        0,
        "matrix",
        "= permutation",
        "permutation | stride | random | incast | many-to-one | locality | pairs | neighbours",
        "who sends to whom",
    );
    l.key(
        0,
        "pairs",
        "(pairs: this or pairs_file)",
        "[[src, dst], ...] host indices, e.g. [[0, 1], [2, 3]]",
        "pairs only: the explicit (source, destination) pairs",
    );
    l.key(
        0,
        "pairs_file",
        "(pairs: this or pairs)",
        "a file of `src dst` or `src,dst` lines, relative to the scenario",
        "pairs only: the pairs, read from a file",
    );
    l.key(
        0,
        "distance",
        "= 1",
        "an integer from 1 to 1000",
        "neighbours only: switch hops between the hosts of each pair (BCube: 1 = one-hop neighbours at every level)",
    );
    l.key(
        0,
        "max_per_destination",
        "(absent: no limit)",
        "an integer from 1",
        "random only: the most flows any host receives",
    );
    l.key(
        0,
        "exclude_rack_local",
        "= false",
        "true | false",
        "random only: no pair stays in its rack",
    );
    l.key(
        0,
        "sources",
        "= uniform",
        "uniform | each",
        "random only: uniform = a uniform source per connection (hosts may send several or \
         none); each = every host sends exactly one connection",
    );
    l.key(
        0,
        "hosts",
        "(absent: every host)",
        "[0, 1, \"4-7\"] or \"0-7\"",
        "the hosts the class's matrix is drawn over",
    );
    l.key(
        0,
        "draws",
        "= 1",
        "an integer from 1 to 1000",
        "independent draws of the matrix the class's connections come from (permutation or \
         random: connections per host)",
    );
    l.key(
        0,
        "offset",
        "= one pod's hosts",
        "an integer from 1",
        "stride only: dst = (src + offset) mod hosts",
    );
    l.key(
        0,
        "fan_in",
        "= 10",
        "an integer from 1",
        "incast only: senders to the one receiver",
    );
    l.key(
        0,
        "rack_local",
        "(locality: required)",
        "a share such as \"30%\"",
        "locality only: the share of flows that stay in their rack",
    );
    l.key(
        0,
        "senders",
        "= all",
        "\"33%\" | a count | \"all\" | \"rest\"",
        "which of the matrix's hosts this class uses (rest: those no earlier class uses)",
    );
    l.key(
        0,
        "size",
        "(required)",
        &format!(
            "\"70KB\" | \"infinite\" | {{ uniform = [lo, hi] }} | {{ pareto = {{ shape, mean, max }} }} \
             | {{ cdf = {} }} | {{ cdf_file = path }}",
            BUILTIN_CDFS.join(" | ")
        ),
        "flow sizes",
    );
    l.key(
        0,
        "arrivals",
        "(absent)",
        "{ poisson = flows/s } | { every = \"500ms\" } | { closed_loop = true } | { closed_loop = true, new_destination = true } | { matrix_rounds = true }",
        "how flows arrive (absent: one flow per sender at start; new_destination: each closed-loop flow draws its destination, permutation or random only)",
    );
    l.key(
        0,
        "start",
        "= 0s",
        &params::ParamKind::Duration.expected(),
        "when the class's first flows start",
    );
    l.key(
        0,
        "transport",
        "(required)",
        "a name from [transports], or an inline table { kind = \"tcp\", ... }",
        "the transport of the class's flows",
    );
    l.key(
        0,
        "jobs",
        "(absent)",
        "a table (jobs = {} takes every default)",
        &format!(
            "instead of matrix, senders, size and arrivals: {}",
            params::JOBS.doc
        ),
    );
    l.params(params::JOBS.params);
}

fn events(l: &mut Listing) {
    l.text("events ([[events]], one table per change):");
    l.key(
        0,
        "at",
        "(required)",
        &format!(
            "{}, at most duration + drain",
            params::ParamKind::Duration.expected()
        ),
        "when the change happens",
    );
    l.key(
        0,
        "where",
        "(required)",
        "a table: layer (with switches) or link",
        "which links change",
    );
    l.key(
        1,
        "layer",
        "(or link)",
        "a layer name such as \"core\"",
        "the egress links of that layer's switches",
    );
    l.key(
        1,
        "switches",
        "= 100%",
        "a share such as \"30%\"",
        "with layer: a random share of its switches, drawn by seed",
    );
    l.key(
        1,
        "link",
        "(or layer)",
        "a name or a list of names",
        "two node names a link joins, \"a->b\", \"a<->b\", or a node (all its egress links)",
    );
    l.key(
        0,
        "set",
        "(required)",
        "a table with exactly one key",
        "what changes",
    );
    l.key(
        1,
        "capacity",
        "(one of)",
        &params::ParamKind::Buffer.expected(),
        "the queue limit for new arrivals",
    );
    l.key(
        1,
        "rate",
        "(one of)",
        &params::ParamKind::Rate.expected(),
        "the link rate, from the next packet served",
    );
    l.key(
        1,
        "down",
        "(one of)",
        "true",
        "the link loses everything on it and drops arrivals",
    );
    l.key(
        1,
        "up",
        "(one of)",
        "true",
        "the link carries packets again",
    );
}

fn output(l: &mut Listing) {
    l.text("output ([output]):");
    let bool_kind = params::ParamKind::Bool.expected();
    l.key(
        0,
        "flows",
        "= true",
        &bool_kind,
        "write each run's flows.csv",
    );
    l.key(
        0,
        "links",
        "= true",
        &bool_kind,
        "write each run's links.csv",
    );
    l.key(
        0,
        "plots",
        "= false",
        &bool_kind,
        "draw the plots (PNG and SVG) with the summary",
    );
    l.key(
        0,
        "timeseries",
        "(absent)",
        "a table",
        "write each run's timeseries.csv",
    );
    l.key(
        1,
        "interval",
        "(required)",
        &format!("{}, above 0s", params::ParamKind::Duration.expected()),
        "sampling interval",
    );
    l.key(
        1,
        "series",
        &format!("= [{}]", SERIES.join(", ")),
        &format!("a list of {}", params::quoted_list(SERIES)),
        "what to sample",
    );
    l.key(
        1,
        "links",
        "= [all]",
        "a list of \"all\", layer names or link names",
        "whose queue length is sampled",
    );
    l.key(
        1,
        "flows",
        "= [all]",
        "a list of \"all\", class names or flow ids",
        "whose cwnd and rate are sampled",
    );
    l.key(
        0,
        "trace",
        "(absent)",
        "a table",
        "write each run's trace.csv: per-flow sender events",
    );
    l.key(
        1,
        "flows",
        "(required)",
        "a list of \"all\", class names or flow ids",
        "the flows traced",
    );
    l.key(
        1,
        "max_events",
        &format!("= {DEFAULT_TRACE_EVENTS}"),
        &format!("an integer from 1 to {MAX_TRACE_EVENTS}"),
        "the most events a run keeps (a last truncated row counts the rest)",
    );
    l.key(
        0,
        "crossings",
        "(absent)",
        "a list of link names (\"a->b\", \"a<->b\") or node names, at most 64 links",
        "write each run's crossings.csv: per flow, its data packets at these links",
    );
}
