//! `[[events]]`: changes to the network at a time.

use super::values::*;
use super::Cx;
use crate::scenario::error::Result;
use crate::scenario::params::quoted_list;
use crate::scenario::schema::*;
use crate::scenario::suggest::did_you_mean;
use crate::scenario::tree::{Node, Value};

pub(super) fn events(
    cx: &Cx,
    node: &Node,
    run: &RunConfig,
    kind: &str,
    layers: &[&str],
) -> Result<Vec<Event>> {
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
            if names.is_empty() {
                return Err(cx.err(
                    &l.origin,
                    &wt.key("link"),
                    "an empty list names no link, so the event would change nothing: expected \
                     at least one name",
                ));
            }
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
                    .with_hint_opt(
                        super::topology::output_layer_hint(kind, &layer)
                            .or_else(|| did_you_mean(&layer, layers.iter().copied())),
                    ));
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
