//! `[transports]`: named transports, and the inline tables flow classes may use instead.

use super::kinds::*;
use super::values::*;
use super::{join, Cx};
use crate::scenario::error::Result;
use crate::scenario::params::{self};
use crate::scenario::schema::*;
use crate::scenario::tree::{Node, Value};

pub(super) fn transport(cx: &Cx, node: &Node, path: &str) -> Result<TransportConfig> {
    let kind = &kind_of(cx, node, path, params::TRANSPORTS)?.spec;
    let keys = kind_keys(kind, &[]);
    let t = Tab::open(cx, node, path, &keys).map_err(|e| {
        if e.hint.is_some() {
            e
        } else {
            e.with_hint(format!(
                "transport kind \"{}\" takes: {}",
                kind.name,
                keys.join(", ")
            ))
        }
    })?;
    Ok(TransportConfig {
        kind: kind.name.to_string(),
        params: kind_params(cx, &t, kind)?,
    })
}

pub(super) fn transports(cx: &Cx, node: &Node) -> Result<Vec<NamedTransport>> {
    let Value::Table(t) = &node.value else {
        return Err(cx.type_err(node, "transports", "a table of named transports"));
    };
    let mut out = Vec::new();
    for e in &t.entries {
        let path = join("transports", &e.key);
        let key_node = Node::new(Value::Boolean(true), e.key_origin.clone());
        check_name(cx, &key_node, &path, &e.key)?;
        out.push(NamedTransport {
            name: e.key.clone(),
            config: transport(cx, &e.value, &path)?,
        });
    }
    Ok(out)
}
