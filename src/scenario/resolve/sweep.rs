//! `[sweep]`: the parameter axes as written.

use super::{join, Cx};
use crate::scenario::error::Result;
use crate::scenario::schema::*;
use crate::scenario::tree::{Node, Value};

pub(super) fn sweep(cx: &Cx, node: &Node) -> Result<Vec<SweepAxis>> {
    let Value::Table(t) = &node.value else {
        return Err(cx.type_err(node, "sweep", "a table of \"key.path\" = [values]"));
    };
    let mut out = Vec::new();
    for e in &t.entries {
        let path = join("sweep", &e.key);
        let Value::Array(items) = &e.value.value else {
            return Err(cx.type_err(&e.value, &path, "a list of values, e.g. [1, 2, 4, 8]"));
        };
        if items.is_empty() {
            return Err(cx.err(
                &e.value.origin,
                &path,
                "an empty list of values: the sweep would have no point",
            ));
        }
        out.push(SweepAxis {
            path: e.key.clone(),
            values: items.as_slice().into(),
        });
    }
    Ok(out)
}
