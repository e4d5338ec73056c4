//! `[output]`: which files a run writes, time series and traces.

use htsim_core::SimTime;

use super::values::*;
use super::Cx;
use crate::scenario::error::Result;
use crate::scenario::params::quoted_list;
use crate::scenario::schema::*;
use crate::scenario::suggest::did_you_mean;
use crate::scenario::tree::{Node, Value};

pub(super) fn output(
    cx: &Cx,
    node: &Node,
    classes: &[FlowClass],
    layers: &[&str],
    hosts: Option<u64>,
    run: &RunConfig,
) -> Result<OutputConfig> {
    let t = Tab::open(
        cx,
        node,
        "output",
        &[
            "flows",
            "links",
            "timeseries",
            "trace",
            "crossings",
            "plots",
        ],
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
            let interval_node = ts.get("interval").unwrap_or(n);
            periodic(
                cx,
                interval_node,
                &ts.key("interval"),
                interval,
                run,
                "sample",
            )?;
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
                        // A `file` topology's layers (`layers` empty) are known once its
                        // file is read: the run's setup checks the name then.
                        if s == "all"
                            || s.contains("->")
                            || layers.contains(&s)
                            || layers.is_empty()
                        {
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
                Some(a) => {
                    let flows = flow_selectors(cx, a, &ts.key("flows"), classes)?;
                    check_flow_ids(cx, a, &flows, &ts.key("flows"), classes, hosts)?;
                    flows
                }
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
    let crossings = match t.get("crossings") {
        None => Vec::new(),
        Some(n) => crossings(cx, n, &t.key("crossings"))?,
    };
    Ok(OutputConfig {
        flows: t.bool("flows", true)?,
        links: t.bool("links", true)?,
        timeseries,
        trace,
        crossings,
        plots: t.bool("plots", false)?,
    })
}

/// `[output] crossings`: the links whose crossing flows are counted, as names (`a->b`,
/// `a<->b`, or a node). Whether they name links of the topology is checked when the network is
/// built.
fn crossings(cx: &Cx, node: &Node, path: &str) -> Result<Vec<String>> {
    let Value::Array(items) = &node.value else {
        return Err(cx.type_err(node, path, "a list of links such as [\"core0<->agg0.0\"]"));
    };
    if items.is_empty() {
        return Err(cx.err(
            &node.origin,
            path,
            "an empty list watches nothing: name links such as \"core0<->agg0.0\", or leave \
             the key out",
        ));
    }
    items
        .iter()
        .map(|x| {
            let s = string(cx, x, path)?;
            if s.trim().is_empty() {
                return Err(cx.err(&x.origin, path, "expected a link or node name"));
            }
            Ok(s.to_string())
        })
        .collect()
}

/// The entries of a list of flows (`[output.timeseries] flows`, `[output.trace] flows`): flow
/// ids, class names, or `"all"`.
pub(super) fn flow_selectors(
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
/// opens one flow per connection at its start (no `arrivals`, no `jobs`), and its connections
/// are known: at most one per sender of the topology's hosts (or of the class's `hosts`), the
/// listed pairs of an inline `pairs` matrix, times the class's `draws`. Flow ids are dense from
/// 0, so no id reaches this bound.
fn flow_count_bound(classes: &[FlowClass], hosts: Option<u64>) -> Option<u64> {
    let hosts = hosts?;
    classes.iter().try_fold(0u64, |sum, c| {
        if c.arrivals.is_some() || c.jobs.is_some() {
            return None;
        }
        let connections = match (&c.matrix, &c.pairs, &c.hosts) {
            (MatrixKind::Pairs, Some(PairsSpec::List(pairs)), _) => pairs.len() as u64,
            (MatrixKind::Pairs | MatrixKind::Neighbours, _, _) => return None,
            (_, _, Some(set)) => set.0.len() as u64,
            _ => hosts,
        }
        .saturating_mul(c.draws.unwrap_or(1));
        let senders = match c.senders {
            Senders::Count(n) => n.min(connections),
            _ => connections,
        };
        Some(sum + senders)
    })
}

/// Checks the flow ids of a list of flows (`items`, read as `flows`) at `path` against the most
/// flows a run of `classes` opens ([`flow_count_bound`]): an id at or beyond it is an error at
/// its element. The scenario is resolved once per sweep point, so the bound is the point's
/// (a swept `topology.k` or `senders` changes it); the number of connections does not depend on
/// the seed. When the bound is not known before the run (a class with `arrivals` or `jobs`
/// opens flows as the run goes), ids are not checked: an id that is never opened is never
/// sampled or traced.
fn check_flow_ids(
    cx: &Cx,
    items: &[Node],
    flows: &[FlowSelector],
    path: &str,
    classes: &[FlowClass],
    hosts: Option<u64>,
) -> Result<()> {
    let Some(bound) = flow_count_bound(classes, hosts) else {
        return Ok(());
    };
    for (x, sel) in items.iter().zip(flows) {
        if let FlowSelector::Id(id) = sel {
            if *id >= bound {
                let opens = match bound {
                    0 => "no flow".to_string(),
                    1 => "at most 1 flow, with id 0".to_string(),
                    b => format!("at most {b} flows, with ids 0 to {}", b - 1),
                };
                return Err(cx.err(
                    &x.origin,
                    path,
                    format!("no flow {id}: this scenario opens {opens} (as in flows.csv)"),
                ));
            }
        }
    }
    Ok(())
}

/// `[output.trace]`: which flows' events go to trace.csv, and the cap on its rows.
pub(super) fn trace(
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
    check_flow_ids(cx, items, &flows, &t.key("flows"), classes, hosts)?;
    let max_events = match t.get("max_events") {
        None => DEFAULT_TRACE_EVENTS,
        Some(n) => int(cx, n, &t.key("max_events"), 1, MAX_TRACE_EVENTS as i64)? as u64,
    };
    Ok(TraceConfig { flows, max_events })
}
