//! `[topology]`: the kind, its parameters and per-layer link overrides.

use super::kinds::*;
use super::values::*;
use super::Cx;
use crate::scenario::error::Result;
use crate::scenario::params::{self, TopologyKind};
use crate::scenario::schema::*;
use crate::scenario::tree::{Node, Value};

pub(super) fn topology(cx: &Cx, node: &Node) -> Result<TopologyConfig> {
    let topo = kind_of(cx, node, "topology", params::TOPOLOGIES)?;
    let kind = &topo.kind;
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
        let lt = open_layers(cx, ln, "topology.layers", kind.name, &layer_names(topo, ln))?;
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

/// Opens a `layers` table of a topology of kind `kind` whose keys must be among `allowed`; a
/// key the outputs use for a layer that scenarios spell otherwise gets a hint naming the
/// scenario's spelling.
pub(super) fn open_layers<'a>(
    cx: &'a Cx<'a>,
    node: &'a Node,
    path: &str,
    kind: &str,
    allowed: &[&str],
) -> Result<Tab<'a>> {
    Tab::open(cx, node, path, allowed).map_err(|e| {
        let Value::Table(t) = &node.value else {
            return e;
        };
        let hint = t
            .entries
            .iter()
            .filter(|x| !allowed.contains(&x.key.as_str()))
            .find_map(|x| output_layer_hint(kind, &x.key));
        match hint {
            Some(h) => e.with_hint(h),
            None => e,
        }
    })
}

/// A hint for `name`, a layer name of a `kind` topology's outputs (summary.csv's `layer:`
/// classes) that scenarios spell otherwise ([`crate::scenario::layers`]).
pub(super) fn output_layer_hint(kind: &str, name: &str) -> Option<String> {
    use crate::scenario::layers::{names_several, scenario_layer};
    let scenario = scenario_layer(kind, name);
    (scenario != name).then(|| {
        if names_several(kind, scenario) {
            format!(
                "the outputs' layer `{name}` is part of `{scenario}` in a scenario, which sets \
                 all of its layers at once"
            )
        } else {
            format!("the outputs' layer `{name}` is `{scenario}` in a scenario")
        }
    })
}

/// The layer names a kind allows; a kind with none listed (file) accepts whatever is written.
pub(super) fn layer_names<'a>(kind: &TopologyKind, node: &'a Node) -> Vec<&'a str> {
    if kind.layers.is_empty() {
        match &node.value {
            Value::Table(t) => t.entries.iter().map(|e| e.key.as_str()).collect(),
            _ => Vec::new(),
        }
    } else {
        kind.layers.to_vec()
    }
}
