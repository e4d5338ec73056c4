//! The readers every section shares: a table that checks its keys, and typed values (strings,
//! choices, numbers, unit strings, names) with their errors.

use htsim_core::units::{
    parse_buffer, parse_rate, parse_scenario_duration, parse_share, parse_size, BufferSize,
    UnitError,
};
use htsim_core::{Rate, SimTime};

use super::{join, Cx};
use crate::scenario::error::{Origin, Result};
use crate::scenario::params::quoted_list;
use crate::scenario::schema::{RunConfig, MAX_PERIODIC_STOPS};
use crate::scenario::suggest::did_you_mean;
use crate::scenario::tree::{Node, Table, Value};

/// A table being read: checks unknown keys up front, then hands out its values.
pub(in crate::scenario) struct Tab<'a> {
    pub(super) cx: &'a Cx<'a>,
    pub(super) table: &'a Table,
    pub(super) origin: &'a Origin,
    pub(super) path: String,
}

impl<'a> Tab<'a> {
    /// Opens `node` as a table whose keys must be among `allowed`.
    pub(in crate::scenario) fn open(
        cx: &'a Cx<'a>,
        node: &'a Node,
        path: &str,
        allowed: &[&str],
    ) -> Result<Tab<'a>> {
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

    pub(in crate::scenario) fn key(&self, key: &str) -> String {
        join(&self.path, key)
    }

    pub(in crate::scenario) fn get(&self, key: &str) -> Option<&'a Node> {
        self.table.get(key).map(|e| &e.value)
    }

    pub(in crate::scenario) fn required(&self, key: &str, expected: &str) -> Result<&'a Node> {
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

    pub(in crate::scenario) fn string(&self, key: &str, default: Option<&str>) -> Result<String> {
        match (self.get(key), default) {
            (Some(n), _) => string(self.cx, n, &self.key(key)).map(str::to_string),
            (None, Some(d)) => Ok(d.to_string()),
            (None, None) => {
                string(self.cx, self.required(key, "a string")?, &self.key(key)).map(str::to_string)
            }
        }
    }

    pub(super) fn choice(
        &self,
        key: &str,
        names: &[&str],
        default: Option<&str>,
    ) -> Result<String> {
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

    pub(super) fn bool(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            Some(n) => match n.value {
                Value::Boolean(b) => Ok(b),
                _ => Err(self.cx.type_err(n, &self.key(key), "true or false")),
            },
            None => Ok(default),
        }
    }

    pub(super) fn duration(&self, key: &str, default: Option<SimTime>) -> Result<SimTime> {
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

    pub(super) fn opt_buffer(&self, key: &str) -> Result<Option<BufferSize>> {
        self.get(key)
            .map(|n| buffer(self.cx, n, &self.key(key)))
            .transpose()
    }
}

pub(in crate::scenario) fn string<'n>(cx: &Cx, node: &'n Node, path: &str) -> Result<&'n str> {
    match &node.value {
        Value::String(s) => Ok(s),
        _ => Err(cx.type_err(node, path, "a string")),
    }
}

pub(super) fn choice(cx: &Cx, node: &Node, path: &str, names: &[&str]) -> Result<String> {
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

pub(super) fn int(cx: &Cx, node: &Node, path: &str, min: i64, max: i64) -> Result<i64> {
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

pub(super) fn float(cx: &Cx, node: &Node, path: &str, min: f64, max: f64) -> Result<f64> {
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
pub(super) fn unit<T>(
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

pub(super) fn duration(cx: &Cx, node: &Node, path: &str) -> Result<SimTime> {
    unit(
        cx,
        node,
        path,
        "a duration such as \"20us\"",
        parse_scenario_duration,
    )
}

/// Checks that a task every `interval` (above 0) stops a run of `run` at most
/// [`MAX_PERIODIC_STOPS`] times; `what` names one stop (`"sample"`, `"scan"`).
pub(super) fn periodic(
    cx: &Cx,
    node: &Node,
    path: &str,
    interval: SimTime,
    run: &RunConfig,
    what: &str,
) -> Result<()> {
    let end = run.duration.saturating_add(run.drain);
    let stops = end.as_ps() / interval.as_ps().max(1);
    if stops <= MAX_PERIODIC_STOPS {
        return Ok(());
    }
    let shortest = SimTime::from_ps(end.as_ps().div_ceil(MAX_PERIODIC_STOPS));
    Err(cx.err(
        &node.origin,
        path,
        format!(
            "every {interval} over the run's {end} (duration + drain) is {stops} {what}s, more \
             than the limit of {MAX_PERIODIC_STOPS}: expected an interval of at least {shortest}"
        ),
    ))
}

pub(super) fn size(cx: &Cx, node: &Node, path: &str) -> Result<u64> {
    unit(cx, node, path, "a size such as \"70KB\"", parse_size)
}

/// A rate above 0: every rate of a scenario carries packets (a link that carries nothing is
/// written as an event with `down = true`).
pub(super) fn rate(cx: &Cx, node: &Node, path: &str) -> Result<Rate> {
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

pub(super) fn buffer(cx: &Cx, node: &Node, path: &str) -> Result<BufferSize> {
    unit(
        cx,
        node,
        path,
        "a buffer size such as \"100pkt\"",
        parse_buffer,
    )
}

/// A queue capacity: a buffer size above 0 (a queue that holds nothing drops every packet).
pub(super) fn capacity(cx: &Cx, node: &Node, path: &str) -> Result<BufferSize> {
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

pub(super) fn share(cx: &Cx, node: &Node, path: &str) -> Result<f64> {
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

/// A file the scenario names at `node` (a string, relative to the scenario's directory), which
/// must be a regular file when files are checked; `what` names it in the error ("CDF file"),
/// `hint` says where files are looked for.
pub(super) fn existing_file(
    cx: &Cx,
    node: &Node,
    path: &str,
    what: &str,
    hint: &str,
) -> Result<String> {
    let file = string(cx, node, path)?;
    let full = cx.base_dir.join(file);
    if cx.check_files && !full.is_file() {
        let why = if full.is_dir() {
            "is a directory, not a file"
        } else if full.exists() {
            "is not a regular file (a FIFO, socket or device)"
        } else {
            "does not exist"
        };
        return Err(cx
            .err(
                &node.origin,
                path,
                format!(
                    "the {what} \"{file}\" {why} (looked for {})",
                    full.display()
                ),
            )
            .with_hint(hint));
    }
    Ok(file.to_string())
}

/// Names used in key paths and outputs: letters, digits, `-` and `_`.
pub(super) fn check_name(cx: &Cx, node: &Node, path: &str, name: &str) -> Result<()> {
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
