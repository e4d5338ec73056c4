//! Tables with a `kind` (topologies, transports, jobs): the kind, its keys and its parameters.

use super::values::*;
use super::{join, Cx};
use crate::scenario::error::{Origin, Result};
use crate::scenario::params::{quoted_list, KindSpec, ParamKind, ParamValue, Params};
use crate::scenario::tree::{Node, Value};

/// Reads the parameters of `kind` from `t` (skipping `skip` keys), defaults filled in.
pub(super) fn kind_params(cx: &Cx, t: &Tab, kind: &KindSpec) -> Result<Params> {
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
                crate::scenario::tree::parse_value(d, &Origin::Unknown)
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
            ParamKind::ChoiceOrList {
                names,
                key,
                min,
                max,
            } => match &node.value {
                Value::Table(_) => ParamValue::List {
                    key,
                    values: keyed_list(cx, &node, &path, key, (min, max))?,
                },
                Value::String(s) if s == key => {
                    return Err(cx
                        .err(
                            &node.origin,
                            &path,
                            format!("\"{key}\" needs its list: expected {}", p.kind.expected()),
                        )
                        .with_hint(format!("write {} = {{ {key} = [0, 1] }}", p.key)))
                }
                Value::String(_) => ParamValue::Text(choice(cx, &node, &path, names)?),
                _ => return Err(cx.type_err(&node, &path, &p.kind.expected())),
            },
            ParamKind::Text => ParamValue::Text(string(cx, &node, &path)?.to_string()),
        };
        values.push((p.key.to_string(), v));
    }
    Ok(Params { values })
}

/// The non-empty list of integers in `min..=max` of a table `{ key = [...] }` at `path` (a
/// [`ParamKind::ChoiceOrList`] value).
fn keyed_list(
    cx: &Cx,
    node: &Node,
    path: &str,
    key: &str,
    (min, max): (i64, i64),
) -> Result<Vec<i64>> {
    let expected = format!("a list of integers from {min} to {max}");
    let t = Tab::open(cx, node, path, &[key])?;
    let list = t.required(key, &expected)?;
    let lpath = t.key(key);
    let Value::Array(items) = &list.value else {
        return Err(cx.type_err(list, &lpath, &expected));
    };
    if items.is_empty() {
        return Err(cx.err(
            &list.origin,
            &lpath,
            format!("an empty list: expected {expected}"),
        ));
    }
    items.iter().map(|n| int(cx, n, &lpath, min, max)).collect()
}

/// The keys a kind's table may hold: `kind`, its parameters and `extra`.
pub(super) fn kind_keys(kind: &KindSpec, extra: &[&'static str]) -> Vec<&'static str> {
    let mut keys = vec!["kind"];
    keys.extend(kind.params.iter().map(|p| p.key));
    keys.extend_from_slice(extra);
    keys
}

/// Reads the `kind` key of a table and finds it in `kinds`.
pub(super) fn kind_of<K: AsRef<KindSpec>>(
    cx: &Cx,
    node: &Node,
    path: &str,
    kinds: &'static [K],
) -> Result<&'static K> {
    let names: Vec<&str> = kinds.iter().map(|k| k.as_ref().name).collect();
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
        .find(|k| k.as_ref().name == name)
        .ok_or_else(|| cx.err(&entry.value.origin, &kpath, "unknown kind"))
}
