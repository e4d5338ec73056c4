//! Sweeps: the `[sweep]` axes as written (ordinary axes and groups of paired axes), checked;
//! the points they give (the cartesian product over the groups, paired axes zipped), and the
//! name of each point.
//!
//! ```toml
//! [sweep]
//! "topology.link_rate" = ["1Gbps", "10Gbps"]     # an axis
//! [sweep.transport]                              # a group: its axes take their values together
//! "transports.long.kind" = ["tcp", "dctcp"]
//! "queue.mark_threshold" = ["100pkt", "20pkt"]
//! ```

use std::sync::Arc;

use super::error::{Origin, Result};
use super::keypath;
use super::resolve::{join, Cx, TOP};
use super::schema::SweepAxis;
use super::tree::{Node, Table, Value};

/// One assignment of a sweep point: a key path and its value.
pub type Assignment = (String, Node);

/// One `[sweep]` axis as written: its key path, where the key is written, its values (with
/// their origins) and the group of paired axes it belongs to.
#[derive(Clone, Debug)]
pub struct Axis {
    /// The key path it assigns.
    pub path: String,
    /// Where its key is written.
    pub origin: Origin,
    /// Its values, in order.
    pub values: Vec<Node>,
    /// The name of its group (`[sweep.<group>]`), whose axes take their values together.
    pub group: Option<String>,
}

impl Axis {
    /// As the resolved scenario holds it.
    pub fn resolved(&self) -> SweepAxis {
        SweepAxis {
            path: self.path.clone(),
            values: Arc::from(self.values.as_slice()),
            group: self.group.clone(),
        }
    }
}

/// Reads and checks the `[sweep]` table `node`: each entry is an axis (`"key.path" = [values]`)
/// or a group of paired axes (`[sweep.<group>]`, or `<group> = { "key.path" = [...], ... }`),
/// whose lists must have equal lengths. No list may be empty, no two axes may assign the same
/// value (or one a part of the other's), and no axis may assign `[sweep]` itself.
pub(super) fn read(cx: &Cx, node: &Node) -> Result<Vec<Axis>> {
    let Value::Table(t) = &node.value else {
        return Err(cx.type_err(node, "sweep", "a table of \"key.path\" = [values]"));
    };
    let mut out: Vec<Axis> = Vec::new();
    for e in &t.entries {
        let path = join("sweep", &e.key);
        match &e.value.value {
            Value::Table(group) => {
                // A table that `--set sweep.KEY=...` put in place of an axis of the file is at
                // fault where it was given, not at the file's key.
                let origin = match &e.value.origin {
                    Origin::Set(_) => &e.value.origin,
                    _ => &e.key_origin,
                };
                check_group_name(cx, &e.key, origin, &path)?;
                let first = out.len();
                for g in &group.entries {
                    out.push(axis(cx, g, &join(&path, &g.key), Some(&e.key))?);
                }
                let lens: Vec<usize> = out[first..].iter().map(|a| a.values.len()).collect();
                if lens.is_empty() {
                    return Err(cx.err(
                        &e.value.origin,
                        &path,
                        "an empty group of paired axes: give it `\"key.path\" = [values]` \
                         entries of equal lengths",
                    ));
                }
                if let Some(odd) = out[first..].iter().find(|a| a.values.len() != lens[0]) {
                    let a = &out[first];
                    return Err(cx
                        .err(
                            &odd.origin,
                            &join(&path, &odd.path),
                            format!(
                                "paired axes take their values together, so their lists must \
                                 have equal lengths: `{}` has {}, `{}` has {}",
                                a.path,
                                a.values.len(),
                                odd.path,
                                odd.values.len()
                            ),
                        )
                        .with_hint(
                            "give every axis of the group one value per point, or move the \
                             axis out of the group to combine it with every value",
                        ));
                }
            }
            _ => out.push(axis(cx, e, &path, None)?),
        }
    }
    for (i, a) in out.iter().enumerate() {
        if let Some(b) = out[..i]
            .iter()
            .find(|b| keypath::overlaps(&a.path, &b.path))
        {
            return Err(cx
                .err(
                    &a.origin,
                    &sweep_key(a),
                    format!(
                        "`{}` is swept twice: `{}` already assigns it{}",
                        a.path,
                        sweep_key(b),
                        if a.path == b.path {
                            ""
                        } else {
                            " or a part of it"
                        }
                    ),
                )
                .with_hint("sweep each value once; pair axes that must change together"));
        }
    }
    Ok(out)
}

/// The key of `axis` under `[sweep]`, as errors name it (`sweep.<group>.<path>` in a group).
fn sweep_key(axis: &Axis) -> String {
    match &axis.group {
        Some(g) => format!("sweep.{g}.{}", axis.path),
        None => format!("sweep.{}", axis.path),
    }
}

/// An axis `"key.path" = [values]` read from entry `e`.
fn axis(cx: &Cx, e: &super::tree::Entry, path: &str, group: Option<&str>) -> Result<Axis> {
    let Value::Array(items) = &e.value.value else {
        let expected = if group.is_some() {
            "a list of values, e.g. [1, 2, 4, 8] (a group holds axes, not groups)"
        } else {
            "a list of values, e.g. [1, 2, 4, 8], or a table of paired axes"
        };
        return Err(cx.type_err(&e.value, path, expected));
    };
    if items.is_empty() {
        return Err(cx.err(
            &e.value.origin,
            path,
            "an empty list of values: the sweep would have no point",
        ));
    }
    if e.key.split('.').next().map(str::trim) == Some("sweep") {
        return Err(cx.err(
            &e.key_origin,
            path,
            "a sweep cannot change `[sweep]` itself",
        ));
    }
    // The scenario's name and description label it and change nothing simulated: every point
    // of such an axis would run the same.
    let parts: Vec<&str> = e.key.split('.').map(str::trim).collect();
    if let [label @ ("name" | "description")] = parts[..] {
        return Err(cx
            .err(
                &e.key_origin,
                path,
                format!(
                    "a sweep cannot change `{label}`: it changes nothing simulated, so every \
                     point would run the same"
                ),
            )
            .with_hint("sweep the keys that differ between the points"));
    }
    // Every point runs every seed of `run.seeds` (or `--seeds`): an axis that set the seeds
    // would give each point a run list of its own, outside the limit on runs.
    let sets_seeds = match parts[..] {
        ["run", "seeds"] => true,
        ["run"] => items.iter().any(|v| match &v.value {
            Value::Table(t) => t.entries.iter().any(|x| x.key.trim() == "seeds"),
            _ => false,
        }),
        _ => false,
    };
    if sets_seeds {
        return Err(cx
            .err(
                &e.key_origin,
                path,
                "a sweep cannot change `run.seeds`: every sweep point runs every seed",
            )
            .with_hint("set the seeds in `[run]` (or with --seeds); sweep other keys"));
    }
    Ok(Axis {
        path: e.key.clone(),
        origin: e.key_origin.clone(),
        values: items.clone(),
        group: group.map(str::to_string),
    })
}

/// A group's name: letters, digits, `-` and `_`, and not a top-level key of the scenario (an
/// unquoted key path such as `topology.k = [4, 8]` reads as a group `topology`).
fn check_group_name(cx: &Cx, name: &str, origin: &Origin, path: &str) -> Result<()> {
    if TOP.contains(&name) {
        return Err(cx
            .err(
                origin,
                path,
                format!(
                    "`{name}` is read as a group of paired axes, as the key path is not quoted"
                ),
            )
            .with_hint(format!(
                "quote key paths in `[sweep]`: \"{name}.<key>\" = [...]"
            )));
    }
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(cx.err(
            origin,
            path,
            format!(
                "`{name}` is read as a group of paired axes: a group's name has letters, \
                 digits, `-` and `_` only"
            ),
        ));
    }
    Ok(())
}

/// `--set sweep.KEY=VALUE`: sets the `[sweep]` entry KEY (the rest of the path, surrounding
/// quotes removed: `sweep."topology.link_rate"` and `sweep.topology.link_rate` are the same)
/// to `value`, adding `[sweep]` when there is none. A list adds or replaces an axis, a table
/// a group of paired axes; an existing entry keeps its place in the sweep order.
pub fn set_entry(root: &mut Node, key: &str, value: Node, origin: &Origin) {
    let key = key.trim();
    let key = key
        .strip_prefix('"')
        .and_then(|k| k.strip_suffix('"'))
        .unwrap_or(key);
    let Value::Table(top) = &mut root.value else {
        return;
    };
    if !matches!(
        top.get("sweep").map(|e| &e.value.value),
        Some(Value::Table(_))
    ) {
        top.set(
            "sweep",
            Node::new(Value::Table(Table::default()), origin.clone()),
            origin.clone(),
        );
    }
    if let Some(Value::Table(sweep)) = top.get_mut("sweep").map(|e| &mut e.value.value) {
        sweep.set(key, value, origin.clone());
    }
}

/// The values of the `[sweep]` axis `path` as written in the document `root` (an ungrouped
/// axis or one of a group), with their origins.
pub fn written_values<'a>(root: &'a Node, path: &str) -> Option<&'a [Node]> {
    let Value::Table(sweep) = &keypath::get(root, "sweep")?.value else {
        return None;
    };
    let values = |e: &'a super::tree::Entry| match &e.value.value {
        Value::Array(items) => Some(items.as_slice()),
        _ => None,
    };
    sweep.get(path).and_then(values).or_else(|| {
        sweep.entries.iter().find_map(|g| match &g.value.value {
            Value::Table(group) => group.get(path).and_then(values),
            _ => None,
        })
    })
}

/// Where the axis that assigns `path` is written (`Unknown` if none does).
pub fn origin_of(axes: &[Axis], path: &str) -> Origin {
    axes.iter()
        .find(|a| a.path == path)
        .map_or(Origin::Unknown, |a| a.origin.clone())
}

/// The sweep's dimensions: each ungrouped axis alone, each group's axes together (groups are
/// contiguous, as `read` gives them).
pub fn dimensions(axes: &[Axis]) -> Vec<&[Axis]> {
    let mut out: Vec<&[Axis]> = Vec::new();
    let mut start = 0;
    for i in 1..=axes.len() {
        let split =
            i == axes.len() || axes[i].group.is_none() || axes[i].group != axes[i - 1].group;
        if split {
            out.push(&axes[start..i]);
            start = i;
        }
    }
    out
}

/// The points of the sweep: the cartesian product of its dimensions, first outermost
/// (slowest-varying), values in the order written; the axes of a group take their i-th values
/// together. Each point assigns every axis, in `[sweep]` order. No axes give one empty point.
pub fn product(axes: &[Axis]) -> Vec<Vec<Assignment>> {
    let mut points: Vec<Vec<Assignment>> = vec![Vec::new()];
    for dim in dimensions(axes) {
        let len = dim[0].values.len();
        let mut next = Vec::with_capacity(points.len() * len);
        for p in &points {
            for i in 0..len {
                let mut q = p.clone();
                q.extend(dim.iter().map(|a| (a.path.clone(), a.values[i].clone())));
                next.push(q);
            }
        }
        points = next;
    }
    points
}

/// Keeps a name usable as one path component on every common file system: letters, digits and
/// `.`, `_`, `-`, `+`, `=` stay; everything else becomes `_`.
pub fn file_name_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+' | '=') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The point's name: `base` without assignments, else `key=value` pairs joined by `,`, each part
/// made file-name safe (docs/outputs.md).
pub fn point_name(assignments: &[Assignment]) -> String {
    if assignments.is_empty() {
        return "base".to_string();
    }
    assignments
        .iter()
        .map(|(path, v)| {
            let value = match &v.value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            format!("{}={}", file_name_safe(path), file_name_safe(&value))
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(value: Value) -> Node {
        Node::new(value, Origin::Unknown)
    }

    fn axis(path: &str, values: Vec<Value>, group: Option<&str>) -> Axis {
        Axis {
            path: path.to_string(),
            origin: Origin::Unknown,
            values: values.into_iter().map(v).collect(),
            group: group.map(str::to_string),
        }
    }

    fn names(axes: &[Axis]) -> Vec<String> {
        product(axes).iter().map(|p| point_name(p)).collect()
    }

    #[test]
    fn product_order_and_names() {
        let axes = vec![
            axis(
                "transports.m.subflows",
                vec![Value::Integer(1), Value::Integer(8)],
                None,
            ),
            axis(
                "flows.short.size",
                vec![Value::String("70KB".into()), Value::String("1 MB/x".into())],
                None,
            ),
        ];
        assert_eq!(
            names(&axes),
            [
                "transports.m.subflows=1,flows.short.size=70KB",
                "transports.m.subflows=1,flows.short.size=1_MB_x",
                "transports.m.subflows=8,flows.short.size=70KB",
                "transports.m.subflows=8,flows.short.size=1_MB_x",
            ]
        );
        assert_eq!(point_name(&[]), "base");
        assert_eq!(product(&[]).len(), 1);
    }

    #[test]
    fn paired_axes_are_zipped_and_combined_with_the_others() {
        let s = |x: &str| Value::String(x.into());
        let axes = vec![
            axis("rate", vec![s("1G"), s("10G")], None),
            axis("kind", vec![s("tcp"), s("dctcp"), s("xmp")], Some("t")),
            axis("k", vec![s("100p"), s("20p"), s("10p")], Some("t")),
            axis("seeds", vec![Value::Integer(1)], None),
        ];
        assert_eq!(dimensions(&axes).len(), 3);
        assert_eq!(
            names(&axes),
            [
                "rate=1G,kind=tcp,k=100p,seeds=1",
                "rate=1G,kind=dctcp,k=20p,seeds=1",
                "rate=1G,kind=xmp,k=10p,seeds=1",
                "rate=10G,kind=tcp,k=100p,seeds=1",
                "rate=10G,kind=dctcp,k=20p,seeds=1",
                "rate=10G,kind=xmp,k=10p,seeds=1",
            ]
        );
        // Two groups next to each other stay two dimensions.
        let two = vec![
            axis("a", vec![s("1"), s("2")], Some("g")),
            axis("b", vec![s("3"), s("4")], Some("h")),
        ];
        assert_eq!(dimensions(&two).len(), 2);
        assert_eq!(product(&two).len(), 4);
    }
}
