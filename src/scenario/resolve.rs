//! Reads the document tree into a [`Scenario`]: checks every key against the schema (unknown keys
//! are errors with a "did you mean" hint), converts unit strings through the core's parsers,
//! fills in defaults and checks the combinations that cannot work.

use std::path::Path;

use htsim_core::units::{
    parse_buffer, parse_duration, parse_rate, parse_share, parse_size, BufferSize, UnitError,
};
use htsim_core::{Rate, SimTime};

use super::error::{Origin, Result, ScenarioError, Source};
use super::params::{self, quoted_list, KindSpec, ParamKind, ParamValue, Params};
use super::schema::*;
use super::suggest::did_you_mean;
use super::tree::{Node, Table, Value};

/// What the resolver needs besides the tree: the source (for positions) and the scenario's
/// directory (for files it names).
pub struct Cx<'a> {
    /// The text and its name.
    pub src: &'a Source,
    /// Directory relative paths are read from.
    pub base_dir: &'a Path,
    /// Name used when the file has no `name` key.
    pub default_name: &'a str,
    /// Whether files the scenario names must exist (see `LoadOptions::skip_file_checks`).
    pub check_files: bool,
}

impl Cx<'_> {
    fn err(&self, origin: &Origin, path: &str, msg: impl Into<String>) -> Box<ScenarioError> {
        self.src.error(origin, path, msg)
    }

    fn type_err(&self, node: &Node, path: &str, expected: &str) -> Box<ScenarioError> {
        self.err(
            &node.origin,
            path,
            format!("expected {expected}, found {}", node.value.type_name()),
        )
    }
}

/// Joins a key path.
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A table being read: checks unknown keys up front, then hands out its values.
struct Tab<'a> {
    cx: &'a Cx<'a>,
    table: &'a Table,
    origin: &'a Origin,
    path: String,
}

impl<'a> Tab<'a> {
    /// Opens `node` as a table whose keys must be among `allowed`.
    fn open(cx: &'a Cx<'a>, node: &'a Node, path: &str, allowed: &[&str]) -> Result<Tab<'a>> {
        let Value::Table(table) = &node.value else {
            return Err(cx.type_err(node, path, "a table"));
        };
        for e in &table.entries {
            if !allowed.contains(&e.key.as_str()) {
                let what = if path.is_empty() {
                    "the top level".to_string()
                } else {
                    format!("`{path}`")
                };
                return Err(cx
                    .err(
                        &e.key_origin,
                        &join(path, &e.key),
                        format!(
                            "unknown key `{}` in {what}; expected one of: {}",
                            e.key,
                            allowed.join(", ")
                        ),
                    )
                    .with_hint_opt(did_you_mean(&e.key, allowed.iter().copied())));
            }
        }
        Ok(Tab {
            cx,
            table,
            origin: &node.origin,
            path: path.to_string(),
        })
    }

    fn key(&self, key: &str) -> String {
        join(&self.path, key)
    }

    fn get(&self, key: &str) -> Option<&'a Node> {
        self.table.get(key).map(|e| &e.value)
    }

    fn required(&self, key: &str, expected: &str) -> Result<&'a Node> {
        self.get(key).ok_or_else(|| {
            let within = if self.path.is_empty() {
                String::new()
            } else {
                format!(" in `[{}]`", self.path)
            };
            self.cx.err(
                self.origin,
                &self.key(key),
                format!("missing required key `{key}`{within}: expected {expected}"),
            )
        })
    }

    fn string(&self, key: &str, default: Option<&str>) -> Result<String> {
        match (self.get(key), default) {
            (Some(n), _) => string(self.cx, n, &self.key(key)).map(str::to_string),
            (None, Some(d)) => Ok(d.to_string()),
            (None, None) => {
                string(self.cx, self.required(key, "a string")?, &self.key(key)).map(str::to_string)
            }
        }
    }

    fn choice(&self, key: &str, names: &[&str], default: Option<&str>) -> Result<String> {
        match self.get(key) {
            Some(n) => choice(self.cx, n, &self.key(key), names),
            None => match default {
                Some(d) => Ok(d.to_string()),
                None => {
                    let n = self.required(key, &format!("one of {}", quoted_list(names)))?;
                    choice(self.cx, n, &self.key(key), names)
                }
            },
        }
    }

    fn bool(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            Some(n) => match n.value {
                Value::Boolean(b) => Ok(b),
                _ => Err(self.cx.type_err(n, &self.key(key), "true or false")),
            },
            None => Ok(default),
        }
    }

    fn duration(&self, key: &str, default: Option<SimTime>) -> Result<SimTime> {
        match (self.get(key), default) {
            (Some(n), _) => duration(self.cx, n, &self.key(key)),
            (None, Some(d)) => Ok(d),
            (None, None) => duration(
                self.cx,
                self.required(key, "a duration such as \"20s\"")?,
                &self.key(key),
            ),
        }
    }

    fn opt_buffer(&self, key: &str) -> Result<Option<BufferSize>> {
        self.get(key)
            .map(|n| buffer(self.cx, n, &self.key(key)))
            .transpose()
    }
}

fn string<'n>(cx: &Cx, node: &'n Node, path: &str) -> Result<&'n str> {
    match &node.value {
        Value::String(s) => Ok(s),
        _ => Err(cx.type_err(node, path, "a string")),
    }
}

fn choice(cx: &Cx, node: &Node, path: &str, names: &[&str]) -> Result<String> {
    let s = string(cx, node, path)
        .map_err(|_| cx.type_err(node, path, &format!("one of {}", quoted_list(names))))?;
    if names.contains(&s) {
        Ok(s.to_string())
    } else {
        Err(cx
            .err(
                &node.origin,
                path,
                format!(
                    "unknown value \"{s}\": expected one of {}",
                    quoted_list(names)
                ),
            )
            .with_hint_opt(did_you_mean(s, names.iter().copied())))
    }
}

fn int(cx: &Cx, node: &Node, path: &str, min: i64, max: i64) -> Result<i64> {
    let expected = format!("an integer from {min} to {max}");
    match node.value {
        Value::Integer(i) if (min..=max).contains(&i) => Ok(i),
        Value::Integer(i) => Err(cx.err(
            &node.origin,
            path,
            format!("{i} is out of range: expected {expected}"),
        )),
        _ => Err(cx.type_err(node, path, &expected)),
    }
}

fn float(cx: &Cx, node: &Node, path: &str, min: f64, max: f64) -> Result<f64> {
    let expected = format!("a number from {min} to {max}");
    let x = match node.value {
        Value::Integer(i) => i as f64,
        Value::Float(x) => x,
        _ => return Err(cx.type_err(node, path, &expected)),
    };
    if x.is_finite() && (min..=max).contains(&x) {
        Ok(x)
    } else {
        Err(cx.err(
            &node.origin,
            path,
            format!("{x} is out of range: expected {expected}"),
        ))
    }
}

/// Reads a unit string through `parse`; a bare number goes through the parser too so the message
/// says which unit to add.
fn unit<T>(
    cx: &Cx,
    node: &Node,
    path: &str,
    what: &str,
    parse: fn(&str) -> std::result::Result<T, UnitError>,
) -> Result<T> {
    let text = match &node.value {
        Value::String(s) => s.clone(),
        Value::Integer(i) => i.to_string(),
        Value::Float(x) => x.to_string(),
        _ => return Err(cx.type_err(node, path, what)),
    };
    let bare = !matches!(node.value, Value::String(_));
    parse(&text).map_err(|e| {
        let e = cx.err(&node.origin, path, e.to_string());
        if bare {
            e.with_hint(format!(
                "a bare number has no unit: write {what} as a string with its unit"
            ))
        } else {
            e
        }
    })
}

fn duration(cx: &Cx, node: &Node, path: &str) -> Result<SimTime> {
    unit(
        cx,
        node,
        path,
        "a duration such as \"20us\"",
        parse_duration,
    )
}

fn size(cx: &Cx, node: &Node, path: &str) -> Result<u64> {
    unit(cx, node, path, "a size such as \"70KB\"", parse_size)
}

/// A rate above 0: every rate of a scenario carries packets (a link that carries nothing is
/// written as an event with `down = true`).
fn rate(cx: &Cx, node: &Node, path: &str) -> Result<Rate> {
    let r = unit(cx, node, path, "a rate such as \"10Gbps\"", parse_rate)?;
    if r.as_bps() == 0 {
        return Err(cx
            .err(
                &node.origin,
                path,
                "a rate of 0 carries nothing: expected a rate above 0",
            )
            .with_hint(
                "to take a link out of service, use an event with `set = { down = true }`",
            ));
    }
    Ok(r)
}

fn buffer(cx: &Cx, node: &Node, path: &str) -> Result<BufferSize> {
    unit(
        cx,
        node,
        path,
        "a buffer size such as \"100pkt\"",
        parse_buffer,
    )
}

/// A queue capacity: a buffer size above 0 (a queue that holds nothing drops every packet).
fn capacity(cx: &Cx, node: &Node, path: &str) -> Result<BufferSize> {
    let b = buffer(cx, node, path)?;
    if matches!(b, BufferSize::Packets(0) | BufferSize::Bytes(0)) {
        return Err(cx
            .err(
                &node.origin,
                path,
                "a queue of 0 holds nothing, so every packet would be dropped: expected a \
                 capacity above 0",
            )
            .with_hint(
                "to take a link out of service, use an event with `set = { down = true }`",
            ));
    }
    Ok(b)
}

fn share(cx: &Cx, node: &Node, path: &str) -> Result<f64> {
    let f = unit(cx, node, path, "a share such as \"33%\"", parse_share)?;
    if f > 1.0 {
        return Err(cx.err(
            &node.origin,
            path,
            format!(
                "{} is over 100%: expected a share from 0% to 100%",
                node.value
            ),
        ));
    }
    Ok(f)
}

/// Names used in key paths and outputs: letters, digits, `-` and `_`.
fn check_name(cx: &Cx, node: &Node, path: &str, name: &str) -> Result<()> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(cx.err(
            &node.origin,
            path,
            format!("bad name \"{name}\": use letters, digits, `-` and `_` only (it appears in key paths and file names)"),
        ));
    }
    Ok(())
}

/// Resolves the whole document.
pub fn scenario(cx: &Cx, root: &Node) -> Result<Scenario> {
    const TOP: &[&str] = &[
        "name",
        "description",
        "run",
        "topology",
        "queue",
        "routing",
        "transports",
        "flows",
        "events",
        "output",
        "sweep",
    ];
    if let Value::Table(t) = &root.value {
        if t.entries.is_empty() {
            return Err(cx.err(
                &Origin::File(0..0),
                "run",
                "the scenario is empty: expected at least `[run]` (with `duration`), `[topology]` and `[[flows]]`",
            ));
        }
    }
    let top = Tab::open(cx, root, "", TOP)?;
    let name = match top.get("name") {
        Some(n) => {
            let s = string(cx, n, "name")?;
            check_name(cx, n, "name", s)?;
            crate::output::check_dir_name(s)
                .map_err(|e| cx.err(&n.origin, "name", e.to_string()))?;
            s.to_string()
        }
        None => {
            crate::output::check_dir_name(cx.default_name).map_err(|e| {
                cx.err(
                    &Origin::File(0..0),
                    "name",
                    format!(
                        "the scenario has no `name`, and its file name gives no usable \
                         directory name: {e}"
                    ),
                )
                .with_hint(
                    "add `name = \"...\"` (letters, digits, `-`, `_`): it names the output \
                     directory results/<name>",
                )
            })?;
            cx.default_name.to_string()
        }
    };
    let description = top.string("description", Some(""))?;
    let run = run(
        cx,
        top.required("run", "a `[run]` table with at least `duration`")?,
    )?;
    let topology = topology(
        cx,
        top.required("topology", "a `[topology]` table with `kind`")?,
    )?;
    let layers = params::topology(&topology.kind).map_or(&[][..], |k| k.layers);
    let default_table = Node::new(Value::Table(Table::default()), root.origin.clone());
    let queue = queue(cx, top.get("queue").unwrap_or(&default_table), layers)?;
    let routing = routing(cx, top.get("routing").unwrap_or(&default_table))?;
    let transports = transports(cx, top.get("transports").unwrap_or(&default_table))?;
    let flows_node = top.required("flows", "at least one `[[flows]]` class")?;
    let flows = flows(cx, flows_node, &transports, &run, &topology)?;
    let events = match top.get("events") {
        Some(n) => events(cx, n, &run, layers)?,
        None => Vec::new(),
    };
    let output = output(
        cx,
        top.get("output").unwrap_or(&default_table),
        &flows,
        layers,
        topology.host_count(),
    )?;
    let sweep = match top.get("sweep") {
        Some(n) => sweep(cx, n)?,
        None => Vec::new(),
    };
    Ok(Scenario {
        name,
        description,
        run,
        topology,
        queue,
        routing,
        transports,
        flows,
        events,
        output,
        sweep,
        base_dir: cx.base_dir.to_path_buf(),
    })
}

fn run(cx: &Cx, node: &Node) -> Result<RunConfig> {
    let t = Tab::open(cx, node, "run", &["duration", "drain", "warmup", "seeds"])?;
    let duration = t.duration("duration", None)?;
    if duration == SimTime::ZERO {
        let n = t.get("duration").unwrap_or(node);
        return Err(cx.err(
            &n.origin,
            "run.duration",
            "the run must last longer than 0s",
        ));
    }
    let drain = t.duration("drain", Some(SimTime::ZERO))?;
    let warmup = t.duration("warmup", Some(SimTime::ZERO))?;
    if warmup >= duration {
        let n = t.get("warmup").unwrap_or(node);
        return Err(cx.err(
            &n.origin,
            "run.warmup",
            "the warmup must end before the run's duration",
        ));
    }
    let seeds = match t.get("seeds") {
        None => Seeds::Count(1),
        Some(n) => seeds(cx, n)?,
    };
    Ok(RunConfig {
        duration,
        drain,
        warmup,
        seeds,
    })
}

fn seeds(cx: &Cx, n: &Node) -> Result<Seeds> {
    let path = "run.seeds";
    match &n.value {
        Value::Integer(0) => Err(cx
            .err(
                &n.origin,
                path,
                "seeds = 0 runs nothing: expected at least 1",
            )
            .with_hint("`seeds = N` runs seeds 1..=N; a list such as [3, 7] runs those seeds")),
        Value::Integer(_) => Ok(Seeds::Count(
            int(cx, n, path, 1, MAX_SEED_COUNT as i64)? as u64
        )),
        Value::Array(items) => {
            if items.is_empty() {
                return Err(cx.err(
                    &n.origin,
                    path,
                    "the seed list is empty: expected at least one seed",
                ));
            }
            let mut v: Vec<u64> = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let s = int(cx, item, &format!("{path}[{i}]"), 0, i64::MAX)? as u64;
                if v.contains(&s) {
                    return Err(cx.err(&item.origin, path, format!("seed {s} is listed twice")));
                }
                v.push(s);
            }
            Ok(Seeds::List(v))
        }
        _ => Err(cx.type_err(
            n,
            path,
            "a count of seeds (N means 1..=N) or a list of seeds",
        )),
    }
}

/// Reads the parameters of `kind` from `t` (skipping `skip` keys), defaults filled in.
fn kind_params(cx: &Cx, t: &Tab, kind: &KindSpec) -> Result<Params> {
    let mut values = Vec::new();
    // Some defaults depend on the table's compatibility profile (checked below like any key).
    let profile = match t.get("profile").map(|n| &n.value) {
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    };
    for p in kind.params {
        let path = t.key(p.key);
        let node = match (t.get(p.key), p.default_for(profile)) {
            (Some(n), _) => n.clone(),
            (None, Some(d)) => {
                // Defaults go through the same reader as user values, so they cannot drift.
                super::tree::parse_value(d, &Origin::Unknown)
            }
            (None, None) => t.required(p.key, &p.kind.expected())?.clone(),
        };
        let v = match p.kind {
            ParamKind::Int { min, max } => ParamValue::Int(int(cx, &node, &path, min, max)?),
            ParamKind::IntOrAuto { min, max } => match &node.value {
                Value::String(s) if s == "auto" => ParamValue::Auto,
                Value::Integer(_) => ParamValue::Int(int(cx, &node, &path, min, max)?),
                _ => return Err(cx.type_err(&node, &path, &p.kind.expected())),
            },
            ParamKind::Float { min, max } => ParamValue::Float(float(cx, &node, &path, min, max)?),
            ParamKind::Bool => match node.value {
                Value::Boolean(b) => ParamValue::Bool(b),
                _ => return Err(cx.type_err(&node, &path, "true or false")),
            },
            ParamKind::Duration => ParamValue::Duration(duration(cx, &node, &path)?),
            ParamKind::Size => ParamValue::Size(size(cx, &node, &path)?),
            ParamKind::PositiveSize => match size(cx, &node, &path)? {
                0 => {
                    return Err(cx.err(
                        &node.origin,
                        &path,
                        format!(
                            "`{}` of 0 bytes cannot work: expected {}",
                            p.key,
                            p.kind.expected()
                        ),
                    ))
                }
                b => ParamValue::Size(b),
            },
            ParamKind::SizeOrUnlimited => match &node.value {
                Value::String(s) if s == "unlimited" => ParamValue::Unlimited,
                _ => ParamValue::Size(size(cx, &node, &path)?),
            },
            ParamKind::Rate => ParamValue::Rate(rate(cx, &node, &path)?),
            ParamKind::Buffer => ParamValue::Buffer(buffer(cx, &node, &path)?),
            ParamKind::Choice(names) => ParamValue::Text(choice(cx, &node, &path, names)?),
            ParamKind::Text => ParamValue::Text(string(cx, &node, &path)?.to_string()),
        };
        values.push((p.key.to_string(), v));
    }
    Ok(Params { values })
}

/// The keys a kind's table may hold: `kind`, its parameters and `extra`.
fn kind_keys(kind: &KindSpec, extra: &[&'static str]) -> Vec<&'static str> {
    let mut keys = vec!["kind"];
    keys.extend(kind.params.iter().map(|p| p.key));
    keys.extend_from_slice(extra);
    keys
}

/// Reads the `kind` key of a table and finds it in `kinds`.
fn kind_of(
    cx: &Cx,
    node: &Node,
    path: &str,
    kinds: &'static [KindSpec],
) -> Result<&'static KindSpec> {
    let names: Vec<&str> = kinds.iter().map(|k| k.name).collect();
    let Value::Table(t) = &node.value else {
        return Err(cx.type_err(node, path, "a table"));
    };
    let kpath = join(path, "kind");
    let Some(entry) = t.get("kind") else {
        return Err(cx.err(
            &node.origin,
            &kpath,
            format!(
                "missing required key `kind` in `[{path}]`: expected one of {}",
                quoted_list(&names)
            ),
        ));
    };
    let name = choice(cx, &entry.value, &kpath, &names)?;
    kinds
        .iter()
        .find(|k| k.name == name)
        .ok_or_else(|| cx.err(&entry.value.origin, &kpath, "unknown kind"))
}

fn topology(cx: &Cx, node: &Node) -> Result<TopologyConfig> {
    let kind = kind_of(cx, node, "topology", params::TOPOLOGIES)?;
    let keys = kind_keys(kind, &["layers"]);
    let t = Tab::open(cx, node, "topology", &keys).map_err(|e| {
        e.with_hint_opt(Some(format!(
            "topology kind \"{}\" takes: {}",
            kind.name,
            keys.join(", ")
        )))
    })?;
    let params = kind_params(cx, &t, kind)?;
    let k = params.int("k").unwrap_or(0);
    let k_node = || t.get("k").unwrap_or(node);
    match kind.name {
        "fattree" if k % 2 != 0 => {
            return Err(cx
                .err(&k_node().origin, "topology.k", format!("k = {k} is odd: a k-ary FatTree needs an even k"))
                .with_hint(format!("use k = {} or k = {}", k - 1, k + 1)))
        }
        "dhft" if k % 6 != 0 => {
            return Err(cx.err(
                &k_node().origin,
                "topology.k",
                format!("k = {k}: a dual-homed FatTree needs k divisible by 6 (each ToR pair serves 2k/3 hosts over k/2 uplinks)"),
            ))
        }
        "vl2" => {
            for key in ["da", "di"] {
                let v = params.int(key).unwrap_or(0);
                if v % 2 != 0 {
                    let n = t.get(key).unwrap_or(node);
                    return Err(cx.err(&n.origin, &t.key(key), format!("{key} = {v} is odd: VL2 needs even port counts")));
                }
            }
        }
        _ => {}
    }
    let mut layers = Vec::new();
    if let Some(ln) = t.get("layers") {
        let lt = Tab::open(cx, ln, "topology.layers", &layer_names(kind, ln))?;
        for e in &lt.table.entries {
            let path = lt.key(&e.key);
            let o = Tab::open(cx, &e.value, &path, &["link_rate", "link_delay"])?;
            layers.push((
                e.key.clone(),
                LinkOverride {
                    link_rate: o
                        .get("link_rate")
                        .map(|n| rate(cx, n, &o.key("link_rate")))
                        .transpose()?,
                    link_delay: o
                        .get("link_delay")
                        .map(|n| duration(cx, n, &o.key("link_delay")))
                        .transpose()?,
                },
            ));
        }
    }
    Ok(TopologyConfig {
        kind: kind.name.to_string(),
        params,
        layers,
    })
}

/// The layer names a kind allows; a kind with none listed (file) accepts whatever is written.
fn layer_names<'a>(kind: &KindSpec, node: &'a Node) -> Vec<&'a str> {
    if kind.layers.is_empty() {
        match &node.value {
            Value::Table(t) => t.entries.iter().map(|e| e.key.as_str()).collect(),
            _ => Vec::new(),
        }
    } else {
        kind.layers.to_vec()
    }
}

fn queue_settings(cx: &Cx, t: &Tab, inherit: Option<&QueueSettings>) -> Result<QueueSettings> {
    let kind = match t.get("kind") {
        Some(n) => match choice(cx, n, &t.key("kind"), &["droptail", "ecn", "red"])?.as_str() {
            "ecn" => QueueKind::Ecn,
            "red" => QueueKind::Red,
            _ => QueueKind::Droptail,
        },
        None => inherit.map_or(QueueKind::Droptail, |q| q.kind),
    };
    let capacity = match t.get("capacity") {
        Some(n) => capacity(cx, n, &t.key("capacity"))?,
        None => inherit.map_or(BufferSize::Packets(100), |q| q.capacity),
    };
    let mark_threshold = match t.opt_buffer("mark_threshold")? {
        Some(m) => Some(m),
        None => inherit.and_then(|q| q.mark_threshold),
    };
    let at = |key: &str| t.get(key).map_or(t.origin.clone(), |n| n.origin.clone());
    match (kind, mark_threshold) {
        (k, None) if k.marks() => {
            return Err(cx.err(
                &at("kind"),
                &t.key("mark_threshold"),
                "an ecn or red queue needs `mark_threshold` (mark CE when the queue exceeds it on arrival), e.g. \"20pkt\"",
            ))
        }
        (QueueKind::Droptail, Some(_)) if t.get("mark_threshold").is_some() => {
            return Err(cx
                .err(&at("mark_threshold"), &t.key("mark_threshold"), "`mark_threshold` is only used by ecn and red queues")
                .with_hint("set `kind = \"ecn\"`, or remove `mark_threshold`"))
        }
        (k, Some(m)) if k.marks() => {
            let above = match (m, capacity) {
                (BufferSize::Packets(a), BufferSize::Packets(b)) | (BufferSize::Bytes(a), BufferSize::Bytes(b)) => a > b,
                _ => false,
            };
            if above {
                return Err(cx.err(
                    &at("mark_threshold"),
                    &t.key("mark_threshold"),
                    format!("the ECN threshold {m} is above the queue capacity {capacity}: no packet would ever be marked"),
                ));
            }
        }
        _ => {}
    }
    Ok(QueueSettings {
        kind,
        capacity,
        mark_threshold: if kind.marks() { mark_threshold } else { None },
    })
}

fn queue(cx: &Cx, node: &Node, layers: &[&str]) -> Result<QueueConfig> {
    let t = Tab::open(
        cx,
        node,
        "queue",
        &["kind", "capacity", "mark_threshold", "layers"],
    )?;
    let base = queue_settings(cx, &t, None)?;
    let mut per_layer = Vec::new();
    if let Some(ln) = t.get("layers") {
        let names: Vec<&str> = if layers.is_empty() {
            match &ln.value {
                Value::Table(lt) => lt.entries.iter().map(|e| e.key.as_str()).collect(),
                _ => Vec::new(),
            }
        } else {
            layers.to_vec()
        };
        let lt = Tab::open(cx, ln, "queue.layers", &names)?;
        for e in &lt.table.entries {
            let path = lt.key(&e.key);
            let o = Tab::open(cx, &e.value, &path, &["kind", "capacity", "mark_threshold"])?;
            per_layer.push((e.key.clone(), queue_settings(cx, &o, Some(&base))?));
        }
    }
    Ok(QueueConfig {
        kind: base.kind,
        capacity: base.capacity,
        mark_threshold: base.mark_threshold,
        layers: per_layer,
    })
}

fn routing(cx: &Cx, node: &Node) -> Result<RoutingConfig> {
    let t = Tab::open(cx, node, "routing", &["mode"])?;
    let mode = match t
        .choice(
            "mode",
            &["ecmp", "spray", "single", "shortest"],
            Some("ecmp"),
        )?
        .as_str()
    {
        "spray" => RoutingMode::Spray,
        "single" => RoutingMode::Single,
        "shortest" => RoutingMode::Shortest,
        _ => RoutingMode::Ecmp,
    };
    Ok(RoutingConfig { mode })
}

fn transport(cx: &Cx, node: &Node, path: &str) -> Result<TransportConfig> {
    let kind = kind_of(cx, node, path, params::TRANSPORTS)?;
    let keys = kind_keys(kind, &[]);
    let t = Tab::open(cx, node, path, &keys).map_err(|e| {
        if e.hint.is_some() {
            e
        } else {
            e.with_hint(format!(
                "transport kind \"{}\" takes: {}",
                kind.name,
                keys.join(", ")
            ))
        }
    })?;
    Ok(TransportConfig {
        kind: kind.name.to_string(),
        params: kind_params(cx, &t, kind)?,
    })
}

fn transports(cx: &Cx, node: &Node) -> Result<Vec<NamedTransport>> {
    let Value::Table(t) = &node.value else {
        return Err(cx.type_err(node, "transports", "a table of named transports"));
    };
    let mut out = Vec::new();
    for e in &t.entries {
        let path = join("transports", &e.key);
        let key_node = Node::new(Value::Boolean(true), e.key_origin.clone());
        check_name(cx, &key_node, &path, &e.key)?;
        out.push(NamedTransport {
            name: e.key.clone(),
            config: transport(cx, &e.value, &path)?,
        });
    }
    Ok(out)
}

const FLOW_KEYS: &[&str] = &[
    "name",
    "matrix",
    "senders",
    "size",
    "start",
    "arrivals",
    "transport",
    "offset",
    "fan_in",
    "rack_local",
    "jobs",
];

/// The keys a job class (`jobs = { ... }`) cannot have: `jobs` decides its hosts, sizes and
/// arrivals.
const MATRIX_KEYS: &[&str] = &[
    "matrix",
    "senders",
    "size",
    "arrivals",
    "offset",
    "fan_in",
    "rack_local",
];

fn flows(
    cx: &Cx,
    node: &Node,
    transports: &[NamedTransport],
    run: &RunConfig,
    topo: &TopologyConfig,
) -> Result<Vec<FlowClass>> {
    let Value::Array(items) = &node.value else {
        return Err(cx.type_err(node, "flows", "an array of tables (`[[flows]]`)"));
    };
    if items.is_empty() {
        return Err(cx.err(
            &node.origin,
            "flows",
            "no flow classes: expected at least one `[[flows]]`",
        ));
    }
    let hosts = topo.host_count();
    let mut out: Vec<FlowClass> = Vec::new();
    let mut used_share = 0.0f64;
    let mut used_count = 0u64;
    for (i, item) in items.iter().enumerate() {
        let provisional = format!("flows[{i}]");
        let t = Tab::open(cx, item, &provisional, FLOW_KEYS)?;
        let name_node = t.required("name", "a unique name for the flow class, e.g. \"short\"")?;
        let name = string(cx, name_node, &t.key("name"))?.to_string();
        check_name(cx, name_node, &t.key("name"), &name)?;
        let path = format!("flows.{name}");
        if out.iter().any(|f| f.name == name) {
            return Err(cx.err(
                &name_node.origin,
                &format!("{path}.name"),
                format!(
                    "duplicate flow class name \"{name}\": every `[[flows]]` needs a distinct name"
                ),
            ));
        }
        let t = Tab {
            path: path.clone(),
            ..t
        };
        if let Some(jn) = t.get("jobs") {
            out.push(job_class(cx, &t, jn, name, transports, run, hosts)?);
            continue;
        }
        let matrix = match t
            .choice(
                "matrix",
                &[
                    "permutation",
                    "stride",
                    "random",
                    "incast",
                    "many-to-one",
                    "locality",
                ],
                Some("permutation"),
            )?
            .as_str()
        {
            "stride" => MatrixKind::Stride,
            "random" => MatrixKind::Random,
            "incast" => MatrixKind::Incast,
            "many-to-one" => MatrixKind::ManyToOne,
            "locality" => MatrixKind::Locality,
            _ => MatrixKind::Permutation,
        };
        let only_for = |key: &str, m: MatrixKind, what: &str| -> Result<()> {
            match t.get(key) {
                Some(n) if matrix != m => Err(cx.err(
                    &n.origin,
                    &t.key(key),
                    format!("`{key}` is only used with matrix = \"{what}\""),
                )),
                _ => Ok(()),
            }
        };
        only_for("offset", MatrixKind::Stride, "stride")?;
        only_for("fan_in", MatrixKind::Incast, "incast")?;
        only_for("rack_local", MatrixKind::Locality, "locality")?;
        let offset = t
            .get("offset")
            .map(|n| int(cx, n, &t.key("offset"), 1, i64::MAX))
            .transpose()?
            .map(|v| v as u64);
        let fan_in = match matrix {
            MatrixKind::Incast => Some(match t.get("fan_in") {
                Some(n) => int(cx, n, &t.key("fan_in"), 1, i64::MAX)? as u64,
                None => 10,
            }),
            _ => None,
        };
        let rack_local = match matrix {
            MatrixKind::Locality => {
                let n = t.required("rack_local", "the share of rack-local flows, e.g. \"30%\"")?;
                share(cx, n, &t.key("rack_local"))?;
                Some(n.value.to_string())
            }
            _ => None,
        };
        let senders = match t.get("senders") {
            None => Senders::All,
            Some(n) => senders(cx, n, &t.key("senders"))?,
        };
        // Classes take disjoint hosts ("rest" = hosts no earlier class uses): they cannot ask for
        // more than all of them.
        match &senders {
            Senders::Share { fraction, .. } => used_share += fraction,
            Senders::Count(c) => used_count += c,
            _ => {}
        }
        let sn = t.get("senders").unwrap_or(item);
        if used_share > 1.0 + 1e-9 {
            return Err(cx.err(
                &sn.origin,
                &t.key("senders"),
                format!(
                    "the flow classes so far ask for {:.4}% of the hosts: over 100%",
                    used_share * 100.0
                ),
            ));
        }
        if let Some(h) = hosts {
            let wanted = used_count as f64 + (used_share * h as f64).round();
            if wanted > h as f64 {
                return Err(cx.err(
                    &sn.origin,
                    &t.key("senders"),
                    format!("the flow classes so far ask for {wanted} senders, and the topology has {h} hosts"),
                ));
            }
        }
        let size = size_spec(
            cx,
            t.required("size", "a flow size such as \"70KB\" or \"infinite\"")?,
            &t.key("size"),
        )?;
        let start = class_start(cx, &t, run)?;
        let arrivals = t
            .get("arrivals")
            .map(|n| arrivals(cx, n, &t.key("arrivals")))
            .transpose()?;
        if size == SizeSpec::Infinite && arrivals.is_some() {
            let n = t.get("arrivals").unwrap_or(item);
            return Err(cx.err(
                &n.origin,
                &t.key("arrivals"),
                "infinite flows never end, so they cannot arrive repeatedly: remove `arrivals` or give a finite `size`",
            ));
        }
        let transport = class_transport(cx, &t, transports)?;
        out.push(FlowClass {
            name,
            matrix,
            offset,
            fan_in,
            rack_local,
            senders,
            size,
            start,
            arrivals,
            jobs: None,
            transport,
        });
    }
    Ok(out)
}

/// The `start` of the flow class read by `t`, before the run's duration.
fn class_start(cx: &Cx, t: &Tab, run: &RunConfig) -> Result<SimTime> {
    let start = t.duration("start", Some(SimTime::ZERO))?;
    if start >= run.duration {
        return Err(cx.err(
            t.get("start").map_or(t.origin, |n| &n.origin),
            &t.key("start"),
            "the class starts after the run's duration: no flow would start",
        ));
    }
    Ok(start)
}

/// The `transport` of the flow class read by `t`: a name from `[transports]` or an inline table.
fn class_transport(cx: &Cx, t: &Tab, transports: &[NamedTransport]) -> Result<TransportRef> {
    let tn = t.required(
        "transport",
        "a transport name from `[transports]` or an inline table such as { kind = \"tcp\" }",
    )?;
    match &tn.value {
        Value::String(s) => {
            if !transports.iter().any(|x| &x.name == s) {
                let names: Vec<&str> = transports.iter().map(|x| x.name.as_str()).collect();
                let known = if names.is_empty() {
                    "there is no `[transports]` table".to_string()
                } else {
                    format!("known: {}", names.join(", "))
                };
                return Err(cx
                    .err(&tn.origin, &t.key("transport"), format!("unknown transport \"{s}\" ({known})"))
                    .with_hint_opt(did_you_mean(s, names.iter().copied()).or_else(|| {
                        params::transport(s).map(|_| format!("for a transport of kind \"{s}\" with default settings write transport = {{ kind = \"{s}\" }}"))
                    })));
            }
            Ok(TransportRef::Named(s.clone()))
        }
        Value::Table(_) => Ok(TransportRef::Inline(transport(
            cx,
            tn,
            &t.key("transport"),
        )?)),
        _ => Err(cx.type_err(
            tn,
            &t.key("transport"),
            "a transport name or an inline table",
        )),
    }
}

/// A partition/aggregate class (`jobs = { ... }`, [`params::JOBS`]): `t` is the class's table,
/// `jn` its `jobs` value, `hosts` the topology's host count when the parameters say it.
fn job_class(
    cx: &Cx,
    t: &Tab,
    jn: &Node,
    name: String,
    transports: &[NamedTransport],
    run: &RunConfig,
    hosts: Option<u64>,
) -> Result<FlowClass> {
    for &key in MATRIX_KEYS {
        if let Some(e) = t.table.get(key) {
            return Err(cx
                .err(
                    &e.key_origin,
                    &t.key(key),
                    format!(
                        "`{key}` has no meaning in a class with `jobs`: the jobs choose their \
                         hosts, the request and response sizes and when flows start"
                    ),
                )
                .with_hint(format!(
                    "remove `{key}`, or give these flows a `[[flows]]` class of their own"
                )));
        }
    }
    let jp = t.key("jobs");
    let keys: Vec<&str> = params::JOBS.params.iter().map(|p| p.key).collect();
    let jt = Tab::open(cx, jn, &jp, &keys)?;
    let p = kind_params(cx, &jt, &params::JOBS)?;
    let at = |key: &str| jt.get(key).unwrap_or(jn);
    let servers = p.int("servers").unwrap_or(1) as u64;
    if let Some(h) = hosts {
        if servers >= h {
            return Err(cx
                .err(
                    &at("servers").origin,
                    &jt.key("servers"),
                    format!(
                        "a job of 1 client and {servers} servers needs {} distinct hosts, and \
                         the topology has {h}",
                        servers + 1
                    ),
                )
                .with_hint(format!("use servers = {} or fewer", h.saturating_sub(1))));
        }
    }
    let positive = |key: &str| -> Result<u64> {
        let b = p.size(key).unwrap_or(0);
        if b == 0 {
            return Err(cx.err(
                &at(key).origin,
                &jt.key(key),
                format!("a {key} of 0 bytes: expected a positive size such as \"2KB\""),
            ));
        }
        Ok(b)
    };
    let jobs = JobsConfig {
        servers,
        request_bytes: positive("request")?,
        response_bytes: positive("response")?,
        concurrent: p.int("concurrent").unwrap_or(1) as u64,
        rack_local: !matches!(p.get("rack_local"), Some(ParamValue::Bool(false))),
    };
    Ok(FlowClass {
        name,
        start: class_start(cx, t, run)?,
        jobs: Some(jobs),
        transport: class_transport(cx, t, transports)?,
        ..FlowClass::default()
    })
}

fn senders(cx: &Cx, n: &Node, path: &str) -> Result<Senders> {
    match &n.value {
        Value::String(s) if s == "all" => Ok(Senders::All),
        Value::String(s) if s == "rest" => Ok(Senders::Rest),
        Value::String(s) if s.trim_end().ends_with('%') => Ok(Senders::Share {
            fraction: share(cx, n, path)?,
            text: s.clone(),
        }),
        Value::String(s) => Err(cx.err(
            &n.origin,
            path,
            format!("\"{s}\" is not a sender selection: expected a share such as \"33%\", a count such as 12, \"all\" or \"rest\""),
        )),
        Value::Integer(_) => Ok(Senders::Count(int(cx, n, path, 1, i64::MAX)? as u64)),
        _ => Err(cx.type_err(n, path, "a share such as \"33%\", a count, \"all\" or \"rest\"")),
    }
}

fn size_spec(cx: &Cx, n: &Node, path: &str) -> Result<SizeSpec> {
    const FORMS: &str = "\"70KB\", \"infinite\", { uniform = [\"1KB\", \"1MB\"] }, { pareto = { shape = 1.5, mean = \"192MB\", max = \"768MB\" } }, { cdf = \"websearch\" } or { cdf_file = \"sizes.cdf\" }";
    match &n.value {
        Value::String(s) if s == "infinite" => Ok(SizeSpec::Infinite),
        Value::String(_) | Value::Integer(_) | Value::Float(_) => {
            let b = size(cx, n, path)?;
            if b == 0 {
                return Err(cx.err(
                    &n.origin,
                    path,
                    "a flow of 0 bytes: expected a positive size",
                ));
            }
            Ok(SizeSpec::Fixed(b))
        }
        Value::Table(tbl) => {
            if tbl.entries.len() != 1 {
                return Err(cx.err(
                    &n.origin,
                    path,
                    format!("expected exactly one of uniform, pareto, cdf, cdf_file: {FORMS}"),
                ));
            }
            let t = Tab::open(cx, n, path, &["uniform", "pareto", "cdf", "cdf_file"])?;
            if let Some(u) = t.get("uniform") {
                let p = t.key("uniform");
                let Value::Array(items) = &u.value else {
                    return Err(cx.type_err(u, &p, "two sizes: [\"1KB\", \"1MB\"]"));
                };
                if items.len() != 2 {
                    return Err(cx.err(&u.origin, &p, "expected two sizes: [\"1KB\", \"1MB\"]"));
                }
                let (lo, hi) = (size(cx, &items[0], &p)?, size(cx, &items[1], &p)?);
                if lo == 0 || lo > hi {
                    return Err(cx.err(&u.origin, &p, "expected 0 < low <= high"));
                }
                return Ok(SizeSpec::Uniform(lo, hi));
            }
            if let Some(pn) = t.get("pareto") {
                let p = t.key("pareto");
                let pt = Tab::open(cx, pn, &p, &["shape", "mean", "max"])?;
                let shape = float(
                    cx,
                    pt.required("shape", "a shape above 1, e.g. 1.5")?,
                    &pt.key("shape"),
                    0.0,
                    1e6,
                )?;
                if shape <= 1.0 {
                    return Err(cx.err(
                        &pt.get("shape").unwrap_or(pn).origin,
                        &pt.key("shape"),
                        "a Pareto shape at or below 1 has no finite mean: expected a shape above 1",
                    ));
                }
                let mean = size(
                    cx,
                    pt.required("mean", "a mean size such as \"192MB\"")?,
                    &pt.key("mean"),
                )?;
                let max = pt
                    .get("max")
                    .map(|m| size(cx, m, &pt.key("max")))
                    .transpose()?;
                if mean == 0 || max.is_some_and(|m| m < mean) {
                    return Err(cx.err(&pn.origin, &p, "expected 0 < mean <= max"));
                }
                return Ok(SizeSpec::Pareto { shape, mean, max });
            }
            if let Some(c) = t.get("cdf") {
                let name = choice(cx, c, &t.key("cdf"), BUILTIN_CDFS)?;
                return Ok(SizeSpec::Cdf(name));
            }
            let f = t.required("cdf_file", "a file")?;
            let p = t.key("cdf_file");
            let file = string(cx, f, &p)?;
            let full = cx.base_dir.join(file);
            if cx.check_files && !full.is_file() {
                let what = if full.is_dir() {
                    "is a directory, not a file"
                } else if full.exists() {
                    "is not a regular file (a FIFO, socket or device)"
                } else {
                    "does not exist"
                };
                return Err(cx
                    .err(
                        &f.origin,
                        &p,
                        format!(
                            "the CDF file \"{file}\" {what} (looked for {})",
                            full.display()
                        ),
                    )
                    .with_hint(format!(
                        "paths are relative to the scenario's directory; built-in CDFs: {}",
                        BUILTIN_CDFS.join(", ")
                    )));
            }
            Ok(SizeSpec::CdfFile(file.to_string()))
        }
        _ => Err(cx.type_err(n, path, &format!("a size: {FORMS}"))),
    }
}

fn arrivals(cx: &Cx, n: &Node, path: &str) -> Result<Arrivals> {
    let t = Tab::open(cx, n, path, &["poisson", "every", "closed_loop"])?;
    if t.table.entries.len() != 1 {
        return Err(cx.err(&n.origin, path, "expected exactly one of { poisson = 256 }, { every = \"500ms\" } or { closed_loop = true }"));
    }
    if let Some(p) = t.get("poisson") {
        let rate = float(cx, p, &t.key("poisson"), 0.0, 1e12)?;
        if rate <= 0.0 {
            return Err(cx.err(
                &p.origin,
                &t.key("poisson"),
                "expected a positive rate in flows per second",
            ));
        }
        return Ok(Arrivals::Poisson(rate));
    }
    if let Some(e) = t.get("every") {
        let d = duration(cx, e, &t.key("every"))?;
        if d == SimTime::ZERO {
            return Err(cx.err(&e.origin, &t.key("every"), "expected a period above 0s"));
        }
        return Ok(Arrivals::Every(d));
    }
    match t.get("closed_loop") {
        Some(Node {
            value: Value::Boolean(true),
            ..
        }) => Ok(Arrivals::ClosedLoop),
        Some(c) => Err(cx.err(
            &c.origin,
            &t.key("closed_loop"),
            "expected closed_loop = true (remove `arrivals` for one flow per sender)",
        )),
        None => Err(cx.err(
            &n.origin,
            path,
            "expected one of poisson, every, closed_loop",
        )),
    }
}

fn events(cx: &Cx, node: &Node, run: &RunConfig, layers: &[&str]) -> Result<Vec<Event>> {
    let Value::Array(items) = &node.value else {
        return Err(cx.type_err(node, "events", "an array of tables (`[[events]]`)"));
    };
    let end = run.duration.saturating_add(run.drain);
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("events[{i}]");
        let t = Tab::open(cx, item, &path, &["at", "where", "set"])?;
        let at = t.duration("at", None)?;
        if at > end {
            return Err(cx.err(
                &t.get("at").unwrap_or(item).origin,
                &t.key("at"),
                "the event is after the end of the run (duration + drain)",
            ));
        }
        let wn = t.required(
            "where",
            "{ layer = \"core\", switches = \"30%\" } or { link = [\"core3\", \"agg1.0\"] }",
        )?;
        let wp = t.key("where");
        let wt = Tab::open(cx, wn, &wp, &["layer", "switches", "link"])?;
        let target = if let Some(l) = wt.get("link") {
            if wt.get("layer").is_some() {
                return Err(cx.err(&wn.origin, &wp, "give either `layer` or `link`, not both"));
            }
            let names = match &l.value {
                Value::String(s) => vec![s.clone()],
                Value::Array(a) => a
                    .iter()
                    .map(|x| string(cx, x, &wt.key("link")).map(str::to_string))
                    .collect::<Result<Vec<_>>>()?,
                _ => {
                    return Err(cx.type_err(
                        l,
                        &wt.key("link"),
                        "node names: [\"core3\", \"agg1.0\"]",
                    ))
                }
            };
            EventTarget::Links(names)
        } else {
            let ln = wt.required("layer", "a layer name such as \"core\" (or `link`)")?;
            let layer = string(cx, ln, &wt.key("layer"))?.to_string();
            if !layers.is_empty() && !layers.contains(&layer.as_str()) {
                return Err(cx
                    .err(
                        &ln.origin,
                        &wt.key("layer"),
                        format!(
                            "unknown layer \"{layer}\": this topology has {}",
                            quoted_list(layers)
                        ),
                    )
                    .with_hint_opt(did_you_mean(&layer, layers.iter().copied())));
            }
            let switches = match wt.get("switches") {
                Some(s) => {
                    share(cx, s, &wt.key("switches"))?;
                    Some(s.value.to_string())
                }
                None => None,
            };
            EventTarget::Layer { layer, switches }
        };
        let sn = t.required(
            "set",
            "{ capacity = \"10pkt\" }, { rate = \"100Mbps\" }, { down = true } or { up = true }",
        )?;
        let sp = t.key("set");
        let st = Tab::open(cx, sn, &sp, &["capacity", "rate", "down", "up"])?;
        if st.table.entries.len() != 1 {
            return Err(cx.err(
                &sn.origin,
                &sp,
                "expected exactly one change: capacity, rate, down or up",
            ));
        }
        let set = if let Some(c) = st.get("capacity") {
            EventChange::Capacity(capacity(cx, c, &st.key("capacity"))?)
        } else if let Some(r) = st.get("rate") {
            EventChange::Rate(rate(cx, r, &st.key("rate"))?)
        } else if st.bool("down", false)? {
            EventChange::Down
        } else if st.bool("up", false)? {
            EventChange::Up
        } else {
            return Err(cx.err(&sn.origin, &sp, "expected down = true or up = true"));
        };
        out.push(Event { at, target, set });
    }
    Ok(out)
}

fn output(
    cx: &Cx,
    node: &Node,
    classes: &[FlowClass],
    layers: &[&str],
    hosts: Option<u64>,
) -> Result<OutputConfig> {
    let t = Tab::open(
        cx,
        node,
        "output",
        &["flows", "links", "timeseries", "trace", "plots"],
    )?;
    let timeseries = match t.get("timeseries") {
        None => None,
        Some(n) => {
            let p = t.key("timeseries");
            let ts = Tab::open(cx, n, &p, &["interval", "series", "links", "flows"])?;
            let interval = ts.duration("interval", None)?;
            if interval == SimTime::ZERO {
                return Err(cx.err(
                    &ts.get("interval").unwrap_or(n).origin,
                    &ts.key("interval"),
                    "expected an interval above 0s",
                ));
            }
            let series = match ts.get("series") {
                None => SERIES.iter().map(|s| s.to_string()).collect(),
                Some(Node {
                    value: Value::Array(a),
                    ..
                }) => a
                    .iter()
                    .map(|x| choice(cx, x, &ts.key("series"), SERIES))
                    .collect::<Result<Vec<_>>>()?,
                Some(other) => {
                    return Err(cx.type_err(
                        other,
                        &ts.key("series"),
                        "a list such as [\"queue\", \"cwnd\"]",
                    ))
                }
            };
            let list = |key: &str| -> Result<Option<&Vec<Node>>> {
                match ts.get(key) {
                    None => Ok(None),
                    Some(Node {
                        value: Value::Array(a),
                        ..
                    }) => Ok(Some(a)),
                    Some(other) => Err(cx.type_err(other, &ts.key(key), "a list")),
                }
            };
            let links = match list("links")? {
                None => vec!["all".to_string()],
                Some(a) => a
                    .iter()
                    .map(|x| {
                        let path = ts.key("links");
                        let s = string(cx, x, &path)?;
                        if s == "all" || s.contains("->") || layers.contains(&s) {
                            Ok(s.to_string())
                        } else {
                            Err(cx
                                .err(
                                    &x.origin,
                                    &path,
                                    format!(
                                        "\"{s}\" is neither \"all\", a layer ({}) nor a link \
                                         name such as \"tor0.0->agg0.0\" (as in links.csv)",
                                        quoted_list(layers)
                                    ),
                                )
                                .with_hint_opt(did_you_mean(s, layers.iter().copied())))
                        }
                    })
                    .collect::<Result<Vec<_>>>()?,
            };
            let flows = match list("flows")? {
                None => vec![FlowSelector::All],
                Some(a) => flow_selectors(cx, a, &ts.key("flows"), classes)?,
            };
            Some(TimeseriesConfig {
                interval,
                series,
                links,
                flows,
            })
        }
    };
    let trace = match t.get("trace") {
        None => None,
        Some(n) => Some(trace(cx, n, &t.key("trace"), classes, hosts)?),
    };
    Ok(OutputConfig {
        flows: t.bool("flows", true)?,
        links: t.bool("links", true)?,
        timeseries,
        trace,
        plots: t.bool("plots", false)?,
    })
}

/// The entries of a list of flows (`[output.timeseries] flows`, `[output.trace] flows`): flow
/// ids, class names, or `"all"`.
fn flow_selectors(
    cx: &Cx,
    items: &[Node],
    path: &str,
    classes: &[FlowClass],
) -> Result<Vec<FlowSelector>> {
    items
        .iter()
        .map(|x| {
            if let Value::Integer(_) = x.value {
                return Ok(FlowSelector::Id(int(cx, x, path, 0, i64::MAX)? as u64));
            }
            let s = string(cx, x, path)?;
            if s == "all" {
                Ok(FlowSelector::All)
            } else if classes.iter().any(|c| c.name == s) {
                Ok(FlowSelector::Class(s.to_string()))
            } else {
                let names: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
                Err(cx
                    .err(
                        &x.origin,
                        path,
                        format!(
                            "\"{s}\" is neither \"all\", a flow class ({}) nor a flow id",
                            quoted_list(&names)
                        ),
                    )
                    .with_hint_opt(did_you_mean(s, names.iter().copied())))
            }
        })
        .collect()
}

/// The most flows a run of `classes` opens, when that is known before it runs: every class
/// opens one flow per sender at its start (no `arrivals`, no `jobs`) and the topology's host
/// count is known. Flow ids are dense from 0, so no id reaches this bound.
fn flow_count_bound(classes: &[FlowClass], hosts: Option<u64>) -> Option<u64> {
    let hosts = hosts?;
    classes.iter().try_fold(0u64, |sum, c| {
        if c.arrivals.is_some() || c.jobs.is_some() {
            return None;
        }
        let senders = match c.senders {
            Senders::Count(n) => n.min(hosts),
            _ => hosts,
        };
        Some(sum + senders)
    })
}

/// `[output.trace]`: which flows' events go to trace.csv, and the cap on its rows.
fn trace(
    cx: &Cx,
    node: &Node,
    path: &str,
    classes: &[FlowClass],
    hosts: Option<u64>,
) -> Result<TraceConfig> {
    let t = Tab::open(cx, node, path, &["flows", "max_events"])?;
    let flows_node = t.required("flows", "a list of flow ids or class names, e.g. [3, 17]")?;
    let Value::Array(items) = &flows_node.value else {
        return Err(cx.type_err(flows_node, &t.key("flows"), "a list such as [3, 17]"));
    };
    if items.is_empty() {
        return Err(cx.err(
            &flows_node.origin,
            &t.key("flows"),
            "an empty list traces nothing: name flow ids, flow classes or \"all\"",
        ));
    }
    let flows = flow_selectors(cx, items, &t.key("flows"), classes)?;
    if let Some(bound) = flow_count_bound(classes, hosts) {
        for (x, sel) in items.iter().zip(&flows) {
            if let FlowSelector::Id(id) = sel {
                if *id >= bound {
                    return Err(cx.err(
                        &x.origin,
                        &t.key("flows"),
                        format!(
                            "no flow {id}: this scenario opens at most {bound} flows, with ids \
                             0 to {} (as in flows.csv)",
                            bound - 1
                        ),
                    ));
                }
            }
        }
    }
    let max_events = match t.get("max_events") {
        None => DEFAULT_TRACE_EVENTS,
        Some(n) => int(cx, n, &t.key("max_events"), 1, MAX_TRACE_EVENTS as i64)? as u64,
    };
    Ok(TraceConfig { flows, max_events })
}

fn sweep(cx: &Cx, node: &Node) -> Result<Vec<SweepAxis>> {
    let Value::Table(t) = &node.value else {
        return Err(cx.type_err(node, "sweep", "a table of \"key.path\" = [values]"));
    };
    let mut out = Vec::new();
    for e in &t.entries {
        let path = join("sweep", &e.key);
        let Value::Array(items) = &e.value.value else {
            return Err(cx.type_err(&e.value, &path, "a list of values, e.g. [1, 2, 4, 8]"));
        };
        if items.is_empty() {
            return Err(cx.err(
                &e.value.origin,
                &path,
                "an empty list of values: the sweep would have no point",
            ));
        }
        out.push(SweepAxis {
            path: e.key.clone(),
            values: items.as_slice().into(),
        });
    }
    Ok(out)
}
