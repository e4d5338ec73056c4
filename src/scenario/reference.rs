//! `[[reference]]`: published values that `htsim report` compares with the summary
//! ([`crate::report::reference`]), read and checked before any run: the metric and class must
//! be ones summary.csv has, the unit the metric's, the point keys sweep axes and their values
//! values those axes take.
//!
//! ```toml
//! [[reference]]
//! source = "MMPTCP paper, Table 2"
//! metric = "fct_mean"
//! class = "short"
//! point = { "transports.long.kind" = "tcp" }
//! value = 64.3
//! unit = "ms"
//! tolerance_pct = 10
//! spread = 118
//! ```

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::error::{Origin, Result};
use super::params::quoted_list;
use super::resolve::{string, Cx, Tab};
use super::schema::{FlowClass, SweepAxis};
use super::suggest::did_you_mean;
use super::tree::{Node, Value};
use crate::report::aggregate::{metric_catalogue, MetricScope, LAYER_PREFIX, RUN_CLASS};

/// The keys of a `[[reference]]` table.
pub const REFERENCE_KEYS: &[&str] = &[
    "source",
    "metric",
    "class",
    "point",
    "value",
    "unit",
    "tolerance_pct",
    "spread",
    "at_most",
    "at_least",
];

/// One published value to compare with ours.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// Where it is published: the paper and its table or figure.
    pub source: String,
    /// A summary.csv metric id (`fct_mean`).
    pub metric: String,
    /// A summary.csv class: a flow class's name, `layer:<name>` or `run`.
    pub class: String,
    /// The sweep-axis values it applies to (key path, value as written in `[sweep]`), sorted
    /// by key path; empty: every point.
    pub point: Vec<(String, Node)>,
    /// The metric's unit, as summary.csv writes it.
    pub unit: String,
    /// The published value, or the bounds ours must satisfy.
    pub published: Published,
    /// The published spread (e.g. a standard deviation), in `unit`, shown beside ours.
    pub spread: Option<f64>,
}

/// What a reference publishes.
#[derive(Clone, Debug, PartialEq)]
pub enum Published {
    /// A value, ours within `tolerance_pct` percent of it when given.
    Value {
        /// The published value.
        value: f64,
        /// Ours is within when `|ours - value| <= tolerance_pct / 100 x |value|`.
        tolerance_pct: Option<f64>,
    },
    /// Bounds ours must satisfy (at least one is given).
    Bounds {
        /// Ours is within when `ours >= at_least`.
        at_least: Option<f64>,
        /// Ours is within when `ours <= at_most`.
        at_most: Option<f64>,
    },
}

impl Reference {
    /// Whether it applies to the sweep point with these assignments: the point assigns every
    /// key of [`Reference::point`] its value.
    pub fn applies_to(&self, assignments: &[(String, toml::Value)]) -> bool {
        self.point.iter().all(|(key, value)| {
            assignments
                .iter()
                .any(|(k, v)| k == key && *v == value.to_toml())
        })
    }
}

impl Serialize for Reference {
    /// As a `[[reference]]` table, in the form the loader reads.
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("source", &self.source)?;
        m.serialize_entry("metric", &self.metric)?;
        m.serialize_entry("class", &self.class)?;
        if !self.point.is_empty() {
            let point: toml::Table = self
                .point
                .iter()
                .map(|(k, v)| (k.clone(), v.to_toml()))
                .collect();
            m.serialize_entry("point", &point)?;
        }
        match self.published {
            Published::Value {
                value,
                tolerance_pct,
            } => {
                m.serialize_entry("value", &value)?;
                if let Some(t) = tolerance_pct {
                    m.serialize_entry("tolerance_pct", &t)?;
                }
            }
            Published::Bounds { at_least, at_most } => {
                if let Some(b) = at_least {
                    m.serialize_entry("at_least", &b)?;
                }
                if let Some(b) = at_most {
                    m.serialize_entry("at_most", &b)?;
                }
            }
        }
        m.serialize_entry("unit", &self.unit)?;
        if let Some(spread) = self.spread {
            m.serialize_entry("spread", &spread)?;
        }
        m.end()
    }
}

/// Reads `[[reference]]` (`node`, an array of tables), checking each against the flow
/// classes and the sweep's axes (the layer of a `layer:<name>` class is checked once the
/// network is built, by the pre-flight).
pub(super) fn read(
    cx: &Cx,
    node: &Node,
    classes: &[FlowClass],
    sweep: &[SweepAxis],
) -> Result<Vec<Reference>> {
    let Value::Array(items) = &node.value else {
        return Err(cx.type_err(node, "reference", "an array of tables (`[[reference]]`)"));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| one(cx, item, &format!("reference[{i}]"), classes, sweep))
        .collect()
}

/// One `[[reference]]` table, `item`, at `path` (`reference[i]`).
fn one(
    cx: &Cx,
    item: &Node,
    path: &str,
    classes: &[FlowClass],
    sweep: &[SweepAxis],
) -> Result<Reference> {
    let t = Tab::open(cx, item, path, REFERENCE_KEYS)?;
    let source = t.string("source", None)?;
    if source.trim().is_empty() {
        let n = t.get("source").unwrap_or(item);
        return Err(cx.err(
            &n.origin,
            &t.key("source"),
            "an empty source: name the paper and its table or figure",
        ));
    }
    let catalogue = metric_catalogue();
    let metric_node = t.required("metric", "a summary.csv metric such as \"fct_mean\"")?;
    let metric = string(cx, metric_node, &t.key("metric"))?;
    let Some(info) = catalogue.iter().find(|m| m.metric == metric) else {
        return Err(cx
            .err(
                &metric_node.origin,
                &t.key("metric"),
                format!("unknown metric \"{metric}\": expected a metric of summary.csv (docs/outputs.md)"),
            )
            .with_hint_opt(did_you_mean(metric, catalogue.iter().map(|m| m.metric))));
    };
    let class_node = t.required("class", "a flow class's name, \"layer:<name>\" or \"run\"")?;
    let class = string(cx, class_node, &t.key("class"))?;
    let scope = class_scope(cx, class_node, &t.key("class"), class, classes)?;
    if scope != info.scope {
        let whose = match info.scope {
            MetricScope::Class => "flow classes (class = a flow class's name)",
            MetricScope::Layer => "layers (class = \"layer:<name>\")",
            MetricScope::Run => "the run (class = \"run\")",
        };
        return Err(cx.err(
            &class_node.origin,
            &t.key("class"),
            format!("`{metric}` is a metric of {whose}, so summary.csv has no row of it for \"{class}\""),
        ));
    }
    let unit_node = t.required("unit", &format!("the metric's unit, \"{}\"", info.unit))?;
    let unit = string(cx, unit_node, &t.key("unit"))?;
    if unit != info.unit {
        return Err(cx
            .err(
                &unit_node.origin,
                &t.key("unit"),
                format!(
                    "unit \"{unit}\" does not match the metric: `{metric}` is in \"{}\" in summary.csv",
                    info.unit
                ),
            )
            .with_hint(format!(
                "convert the published value to {} and write unit = \"{}\"",
                info.unit, info.unit
            )));
    }
    let number = |key: &str, non_negative: bool| -> Result<Option<f64>> {
        t.get(key)
            .map(|n| number(cx, n, &t.key(key), non_negative))
            .transpose()
    };
    let value = number("value", false)?;
    let tolerance_pct = number("tolerance_pct", true)?;
    let at_least = number("at_least", false)?;
    let at_most = number("at_most", false)?;
    let spread = number("spread", true)?;
    let published = match value {
        Some(value) => {
            if let Some(key) = ["at_most", "at_least"]
                .into_iter()
                .find(|k| t.get(k).is_some())
            {
                let n = t.get(key).unwrap_or(item);
                return Err(cx.err(
                    &n.origin,
                    &t.key(key),
                    "give either `value` (with an optional `tolerance_pct`) or a bound \
                     (`at_most`, `at_least`), not both",
                ));
            }
            Published::Value {
                value,
                tolerance_pct,
            }
        }
        None if at_least.is_none() && at_most.is_none() => {
            return Err(cx.err(
                item_origin(&t, item),
                &t.key("value"),
                format!("missing the published value in `[{path}]`: expected `value = 64.3`, or a bound `at_most` or `at_least`"),
            ));
        }
        None => {
            if let Some(n) = t.get("tolerance_pct") {
                return Err(cx.err(
                    &n.origin,
                    &t.key("tolerance_pct"),
                    "a tolerance applies to `value`; a bound (`at_most`, `at_least`) is met or not",
                ));
            }
            if let (Some(lo), Some(hi)) = (at_least, at_most) {
                if lo > hi {
                    let n = t.get("at_least").unwrap_or(item);
                    return Err(cx.err(
                        &n.origin,
                        &t.key("at_least"),
                        format!("at_least = {lo} is above at_most = {hi}: no value satisfies both"),
                    ));
                }
            }
            Published::Bounds { at_least, at_most }
        }
    };
    let point = match t.get("point") {
        None => Vec::new(),
        Some(n) => point(cx, n, &t.key("point"), sweep)?,
    };
    Ok(Reference {
        source,
        metric: metric.to_string(),
        class: class.to_string(),
        point,
        unit: unit.to_string(),
        published,
        spread,
    })
}

/// A number (integer or float), finite, and at least 0 when `non_negative`.
fn number(cx: &Cx, node: &Node, path: &str, non_negative: bool) -> Result<f64> {
    let x = match node.value {
        Value::Integer(i) => i as f64,
        Value::Float(x) => x,
        _ => return Err(cx.type_err(node, path, "a number, in the metric's unit")),
    };
    if !x.is_finite() {
        return Err(cx.err(&node.origin, path, format!("{x} is not a finite number")));
    }
    if non_negative && x < 0.0 {
        return Err(cx.err(
            &node.origin,
            path,
            format!("{x} is negative: expected a number of at least 0"),
        ));
    }
    Ok(x)
}

/// Where the table `item` starts, for an error about a key it lacks.
fn item_origin<'a>(t: &Tab<'a>, item: &'a Node) -> &'a Origin {
    t.get("source").map_or(&item.origin, |n| &n.origin)
}

/// The scope of a reference's `class`: `run`, `layer:<name>` or a flow class.
fn class_scope(
    cx: &Cx,
    node: &Node,
    path: &str,
    class: &str,
    classes: &[FlowClass],
) -> Result<MetricScope> {
    if class == RUN_CLASS {
        return Ok(MetricScope::Run);
    }
    // Which layers the network has is known once it is built: the pre-flight checks them.
    if class
        .strip_prefix(LAYER_PREFIX)
        .is_some_and(|l| !l.is_empty())
    {
        return Ok(MetricScope::Layer);
    }
    if classes.iter().any(|c| c.name == class) {
        return Ok(MetricScope::Class);
    }
    let mut names: Vec<String> = classes.iter().map(|c| c.name.clone()).collect();
    names.push(format!("{LAYER_PREFIX}<name>"));
    names.push(RUN_CLASS.to_string());
    Err(cx
        .err(
            &node.origin,
            path,
            format!(
                "unknown class \"{class}\": expected a flow class, \"layer:<name>\" or \"run\" \
                 (here: {})",
                names.join(", ")
            ),
        )
        .with_hint_opt(did_you_mean(class, names.iter().map(String::as_str))))
}

/// `point = { "key.path" = value, ... }`: every key a sweep axis, every value one it takes.
fn point(cx: &Cx, node: &Node, path: &str, sweep: &[SweepAxis]) -> Result<Vec<(String, Node)>> {
    let Value::Table(table) = &node.value else {
        return Err(cx.type_err(
            node,
            path,
            "a table of sweep-axis values, e.g. { \"transports.long.kind\" = \"tcp\" }",
        ));
    };
    let mut out = Vec::new();
    for e in &table.entries {
        let key = format!("{path}.{}", e.key);
        let Some(axis) = sweep.iter().find(|a| a.path == e.key) else {
            let axes: Vec<&str> = sweep.iter().map(|a| a.path.as_str()).collect();
            let message = if axes.is_empty() {
                format!(
                    "\"{}\" is not a sweep axis: the scenario has no `[sweep]`",
                    e.key
                )
            } else {
                format!(
                    "\"{}\" is not a sweep axis: the axes are {}",
                    e.key,
                    quoted_list(&axes)
                )
            };
            return Err(cx
                .err(&e.key_origin, &key, message)
                .with_hint_opt(did_you_mean(&e.key, axes.iter().copied())));
        };
        if positions(axis, &e.value).is_empty() {
            let values: Vec<String> = axis.values.iter().map(|v| v.value.to_string()).collect();
            let shown = e.value.value.to_string();
            // A sweep narrowed on the command line leaves the file's references to the points
            // it took out; saying how to leave those out is the useful hint there.
            let narrowed = cx.src.overrides.iter().any(|o| {
                o.split_once('=')
                    .is_some_and(|(path, _)| super::sweep_key(path).is_some())
            });
            let hint = if narrowed {
                Some(
                    "a --set narrowed the sweep: add --set 'reference=[]' to leave the file's \
                     references out, or keep the points they name"
                        .to_string(),
                )
            } else {
                did_you_mean(&shown, values.iter().map(String::as_str))
            };
            return Err(cx
                .err(
                    &e.value.origin,
                    &key,
                    format!(
                        "no sweep point has `{}` = {shown}: the axis takes {}",
                        e.key,
                        values.join(", ")
                    ),
                )
                .with_hint_opt(hint));
        }
        out.push((e.key.clone(), e.value.clone()));
    }
    // Sorted, as scenario.toml writes tables, so that it reads back the same.
    out.sort_by(|a, b| a.0.cmp(&b.0));
    // Paired axes take their values together: within a group, the values given must sit at
    // one position of their lists.
    for (key, value) in &out {
        let Some(axis) = sweep.iter().find(|a| &a.path == key) else {
            continue;
        };
        let Some(group) = &axis.group else {
            continue;
        };
        let mut at = positions(axis, value);
        for (other_key, other) in &out {
            if let Some(b) = sweep
                .iter()
                .find(|b| &b.path == other_key && b.group.as_ref() == Some(group))
            {
                let theirs = positions(b, other);
                at.retain(|i| theirs.contains(i));
            }
        }
        if at.is_empty() {
            return Err(cx
                .err(
                    &node.origin,
                    path,
                    format!(
                        "no sweep point has these values together: the axes of group `{group}` \
                         are paired, and take them at different points"
                    ),
                )
                .with_hint("give the values of one position of the group's lists"));
        }
    }
    Ok(out)
}

/// The positions in `axis`'s list of values equal to `value`, compared as TOML values (tables
/// by their keys, whatever the order they are written in).
fn positions(axis: &SweepAxis, value: &Node) -> Vec<usize> {
    let value = value.to_toml();
    (0..axis.values.len())
        .filter(|&i| axis.values[i].to_toml() == value)
        .collect()
}
