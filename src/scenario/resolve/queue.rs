//! `[queue]`: the queue of every port and its per-layer overrides.

use htsim_core::units::BufferSize;

use super::values::*;
use super::Cx;
use crate::scenario::error::Result;
use crate::scenario::schema::*;
use crate::scenario::tree::{Node, Value};

pub(super) fn queue_settings(
    cx: &Cx,
    t: &Tab,
    inherit: Option<&QueueSettings>,
) -> Result<QueueSettings> {
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

/// `[queue]` of a topology of kind `kind`, whose layers are `layers` (any name when empty).
pub(super) fn queue(cx: &Cx, node: &Node, kind: &str, layers: &[&str]) -> Result<QueueConfig> {
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
        let lt = super::topology::open_layers(cx, ln, "queue.layers", kind, &names)?;
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
