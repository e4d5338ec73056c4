//! The traffic matrix of a `[[flows]]` class: `matrix` and the keys of each kind (`offset`,
//! `fan_in`, `rack_local`, `pairs`, `pairs_file`, `distance`, `max_per_destination`,
//! `exclude_rack_local`, `sources`), the `hosts` it is drawn over, and how many `draws` of it
//! the class takes its connections from.

use std::collections::BTreeSet;

use super::values::*;
use super::Cx;
use crate::scenario::error::Result;
use crate::scenario::schema::*;
use crate::scenario::tree::{Node, Value};

/// The `matrix` names, in the order `htsim list` and the errors show them.
const MATRICES: &[&str] = &[
    "permutation",
    "stride",
    "random",
    "incast",
    "many-to-one",
    "locality",
    "pairs",
    "neighbours",
];

/// The `sources` of a random matrix, the default first.
const SOURCES: &[&str] = &["uniform", "each"];

/// The largest `distance` of a neighbours matrix (far beyond any topology's diameter).
const MAX_DISTANCE: i64 = 1000;

/// The most independent draws of a matrix a class may take its connections from.
const MAX_DRAWS: i64 = 1000;

/// The most hosts a `hosts` range may list when the topology's host count is not known from
/// its parameters (a topology file); the set is checked against the real hosts before a run.
const MAX_LISTED_HOSTS: u64 = 1 << 20;

/// Reads the matrix keys of the class table `t` into a class whose other keys keep their
/// defaults; `hosts` is the topology's host count when its parameters say it.
pub(super) fn class_matrix(cx: &Cx, t: &Tab, hosts: Option<u64>) -> Result<FlowClass> {
    let matrix = match t.choice("matrix", MATRICES, Some("permutation"))?.as_str() {
        "stride" => MatrixKind::Stride,
        "random" => MatrixKind::Random,
        "incast" => MatrixKind::Incast,
        "many-to-one" => MatrixKind::ManyToOne,
        "locality" => MatrixKind::Locality,
        "pairs" => MatrixKind::Pairs,
        "neighbours" => MatrixKind::Neighbours,
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
    only_for("pairs", MatrixKind::Pairs, "pairs")?;
    only_for("pairs_file", MatrixKind::Pairs, "pairs")?;
    only_for("distance", MatrixKind::Neighbours, "neighbours")?;
    only_for("max_per_destination", MatrixKind::Random, "random")?;
    only_for("exclude_rack_local", MatrixKind::Random, "random")?;
    only_for("sources", MatrixKind::Random, "random")?;
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
    let pairs = match matrix {
        MatrixKind::Pairs => Some(pairs(cx, t, hosts)?),
        _ => None,
    };
    let distance = match matrix {
        MatrixKind::Neighbours => Some(match t.get("distance") {
            Some(n) => int(cx, n, &t.key("distance"), 1, MAX_DISTANCE)? as u64,
            None => 1,
        }),
        _ => None,
    };
    let max_per_destination = t
        .get("max_per_destination")
        .map(|n| int(cx, n, &t.key("max_per_destination"), 1, i64::MAX))
        .transpose()?
        .map(|v| v as u64);
    let sources = match t.choice("sources", SOURCES, Some("uniform"))?.as_str() {
        "each" => RandomSources::Each,
        _ => RandomSources::Uniform,
    };
    let host_set =
        match t.get("hosts") {
            Some(n) if matrix == MatrixKind::Pairs => return Err(cx
                .err(
                    &n.origin,
                    &t.key("hosts"),
                    "`hosts` has no meaning with matrix = \"pairs\": the pairs name their hosts",
                )
                .with_hint("remove `hosts`")),
            Some(n) => Some(host_set(cx, n, &t.key("hosts"), hosts)?),
            None => None,
        };
    let draws = t
        .get("draws")
        .map(|n| int(cx, n, &t.key("draws"), 1, MAX_DRAWS))
        .transpose()?
        .map(|v| v as u64);
    Ok(FlowClass {
        matrix,
        offset,
        fan_in,
        rack_local,
        pairs,
        distance,
        max_per_destination,
        exclude_rack_local: t.bool("exclude_rack_local", false)?,
        sources,
        hosts: host_set,
        draws,
        ..FlowClass::default()
    })
}

/// `pairs` or `pairs_file` of a pairs matrix: exactly one of them.
fn pairs(cx: &Cx, t: &Tab, hosts: Option<u64>) -> Result<PairsSpec> {
    match (t.get("pairs"), t.get("pairs_file")) {
        (Some(_), Some(f)) => Err(cx.err(
            &f.origin,
            &t.key("pairs_file"),
            "give either `pairs` or `pairs_file`, not both",
        )),
        (Some(p), None) => pair_list(cx, p, &t.key("pairs"), hosts).map(PairsSpec::List),
        (None, Some(f)) => existing_file(
            cx,
            f,
            &t.key("pairs_file"),
            "pairs file",
            "paths are relative to the scenario's directory; the file holds one `src dst` (or \
             `src,dst`) pair of host indices per line",
        )
        .map(PairsSpec::File),
        (None, None) => Err(cx
            .err(
                t.get("matrix").map_or(t.origin, |n| &n.origin),
                &t.key("pairs"),
                "matrix = \"pairs\" needs the pairs: `pairs = [[0, 1], [2, 3]]` or \
                 `pairs_file = \"pairs.txt\"`",
            )
            .with_hint("hosts are numbered from 0, as host<i> in the outputs")),
    }
}

/// An inline list of pairs, `[[src, dst], ...]`: host indices below `hosts` (when known), no
/// host paired with itself.
fn pair_list(cx: &Cx, node: &Node, path: &str, hosts: Option<u64>) -> Result<Vec<(u64, u64)>> {
    const FORM: &str = "a list of [source, destination] host pairs, e.g. [[0, 1], [2, 3]]";
    let Value::Array(items) = &node.value else {
        return Err(cx.type_err(node, path, FORM));
    };
    if items.is_empty() {
        return Err(cx.err(
            &node.origin,
            path,
            "no pairs: the matrix would have no flow; expected at least one [source, destination]",
        ));
    }
    items
        .iter()
        .map(|item| {
            let ends = match &item.value {
                Value::Array(ends) if ends.len() == 2 => ends,
                _ => {
                    return Err(cx.err(
                        &item.origin,
                        path,
                        format!(
                            "expected a pair [source, destination] of host indices, found {}",
                            item.value
                        ),
                    ))
                }
            };
            let src = host_index(cx, &ends[0], path, hosts)?;
            let dst = host_index(cx, &ends[1], path, hosts)?;
            if src == dst {
                return Err(cx
                    .err(
                        &item.origin,
                        path,
                        format!("the pair [{src}, {dst}] sends from host {src} to itself"),
                    )
                    .with_hint("a flow needs two different hosts"));
            }
            Ok((src, dst))
        })
        .collect()
}

/// A host index: an integer from 0, below `hosts` when that is known.
fn host_index(cx: &Cx, node: &Node, path: &str, hosts: Option<u64>) -> Result<u64> {
    let h = int(cx, node, path, 0, i64::MAX)? as u64;
    check_host(cx, node, path, h, hosts)?;
    Ok(h)
}

/// Fails unless host `h` is below the topology's `hosts` (when known).
fn check_host(cx: &Cx, node: &Node, path: &str, h: u64, hosts: Option<u64>) -> Result<()> {
    match hosts {
        Some(n) if h >= n => Err(cx
            .err(
                &node.origin,
                path,
                format!("host {h} does not exist: the topology has {n} hosts"),
            )
            .with_hint(format!(
                "hosts are numbered from 0 to {}, as host<i> in the outputs",
                n.saturating_sub(1)
            ))),
        _ => Ok(()),
    }
}

/// `hosts`: a list of host indices and `"first-last"` ranges (or one range), at least 2
/// distinct hosts, below `hosts` when that is known.
fn host_set(cx: &Cx, node: &Node, path: &str, hosts: Option<u64>) -> Result<HostSet> {
    const FORM: &str = "a list of host indices and ranges, e.g. [0, 1, \"4-7\"], or a range such \
                        as \"0-7\"";
    let items: Vec<&Node> = match &node.value {
        Value::Array(items) => items.iter().collect(),
        Value::String(_) => vec![node],
        _ => return Err(cx.type_err(node, path, FORM)),
    };
    let mut set = BTreeSet::new();
    for item in items {
        let (first, last) = match &item.value {
            Value::String(s) => {
                let range = s.split_once('-').and_then(|(a, b)| {
                    Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?))
                });
                match range {
                    Some((a, b)) if a <= b => (a, b),
                    Some((a, b)) => {
                        return Err(cx.err(
                            &item.origin,
                            path,
                            format!("the range \"{s}\" is empty: {a} is above {b}"),
                        ))
                    }
                    None => {
                        return Err(cx.err(
                            &item.origin,
                            path,
                            format!(
                                "\"{s}\" is not a host range: expected \"first-last\", e.g. \"0-7\""
                            ),
                        ))
                    }
                }
            }
            Value::Integer(_) => {
                let h = int(cx, item, path, 0, i64::MAX)? as u64;
                (h, h)
            }
            _ => return Err(cx.type_err(item, path, FORM)),
        };
        check_host(cx, item, path, last, hosts)?;
        if last >= MAX_LISTED_HOSTS {
            return Err(cx.err(
                &item.origin,
                path,
                format!("host {last} is beyond the {MAX_LISTED_HOSTS} hosts a class may list"),
            ));
        }
        for h in first..=last {
            if !set.insert(h) {
                return Err(cx.err(&item.origin, path, format!("host {h} is listed twice")));
            }
        }
    }
    if set.len() < 2 {
        return Err(cx.err(
            &node.origin,
            path,
            "a class needs at least 2 hosts: a flow goes from one host to another",
        ));
    }
    Ok(HostSet(set.into_iter().collect()))
}
