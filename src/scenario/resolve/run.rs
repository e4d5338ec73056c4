//! `[run]`: duration, drain, warmup and seeds.

use htsim_core::SimTime;

use super::values::*;
use super::Cx;
use crate::scenario::error::Result;
use crate::scenario::schema::*;
use crate::scenario::tree::{Node, Value};

pub(super) fn run(cx: &Cx, node: &Node) -> Result<RunConfig> {
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

pub(super) fn seeds(cx: &Cx, n: &Node) -> Result<Seeds> {
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
