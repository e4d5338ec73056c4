//! Key paths (`flows.short.size`, `transports.mptcp8.subflows`): how `[sweep]` and `--set`
//! address a value. Tables are addressed by key, arrays of tables by the `name` of an element.

use super::error::Origin;
use super::suggest::did_you_mean;
use super::tree::{Node, Table, Value};

/// Why a key path cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathError {
    /// What is wrong.
    pub message: String,
    /// A suggestion, when there is one.
    pub hint: Option<String>,
}

impl PathError {
    fn new(message: String, hint: Option<String>) -> Self {
        PathError { message, hint }
    }
}

/// Splits a key path into its segments; empty segments are an error.
pub fn split(path: &str) -> Result<Vec<&str>, PathError> {
    let segments: Vec<&str> = path.split('.').map(str::trim).collect();
    if path.trim().is_empty() || segments.iter().any(|s| s.is_empty()) {
        return Err(PathError::new(
            format!(
                "`{path}` is not a key path: expected keys joined by dots, e.g. `flows.short.size`"
            ),
            None,
        ));
    }
    Ok(segments)
}

/// Whether key paths `a` and `b` name the same value or one holds the other (`topology` and
/// `topology.link_rate`), compared by trimmed segments, as [`split`] reads them
/// (`topology. link_rate` is `topology.link_rate`).
pub fn overlaps(a: &str, b: &str) -> bool {
    a.split('.')
        .map(str::trim)
        .zip(b.split('.').map(str::trim))
        .all(|(x, y)| x == y)
}

/// Tables under which a missing name is an error rather than a new table: they hold named
/// things that must be declared in full.
const NAMED_COLLECTIONS: &[&str] = &["transports"];

/// Sets the value at `path` in `root` to `value`.
///
/// Missing intermediate tables are created (so `topology.layers.core.link_rate` works when the
/// file has no `[topology.layers.core]`), except where a path must name something that exists: a
/// transport of `[transports]`, or a flow class of `[[flows]]` (found by its `name`). Whether the
/// final key is allowed is the resolver's call, so the error lists the keys it accepts.
/// `key_origin` is recorded on created keys so that errors about them point at the override.
pub fn set(root: &mut Node, path: &str, value: Node, key_origin: &Origin) -> Result<(), PathError> {
    let segments = split(path)?;
    let mut node = root;
    let mut walked = String::new();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        let here = if walked.is_empty() {
            seg.to_string()
        } else {
            format!("{walked}.{seg}")
        };
        node = match &mut node.value {
            Value::Table(table) => {
                if last {
                    table.set(seg, value, key_origin.clone());
                    return Ok(());
                }
                if table.get(seg).is_none() {
                    if NAMED_COLLECTIONS.contains(&walked.as_str()) {
                        let names: Vec<&str> =
                            table.entries.iter().map(|e| e.key.as_str()).collect();
                        return Err(PathError::new(
                            format!("`{path}` names nothing: there is no `{here}`"),
                            did_you_mean(seg, names.iter().copied()),
                        ));
                    }
                    table.set(
                        seg,
                        Node::new(Value::Table(Table::default()), key_origin.clone()),
                        key_origin.clone(),
                    );
                }
                match table.get_mut(seg) {
                    Some(e) => &mut e.value,
                    None => unreachable!("the entry was just found or inserted"),
                }
            }
            Value::Array(items) => {
                if items.is_empty() || !items.iter().all(|n| matches!(n.value, Value::Table(_))) {
                    return Err(PathError::new(
                        format!("`{path}` names nothing: `{walked}` is an array of values, not of tables"),
                        None,
                    ));
                }
                let names: Vec<String> = items.iter().filter_map(element_name).collect();
                if names.is_empty() {
                    // `[[events]]`, `[[reference]]`: elements without a `name` to pick one by.
                    return Err(PathError::new(
                        format!(
                            "`{path}` names nothing: the elements of `{walked}` have no names, \
                             so a key path cannot pick one"
                        ),
                        Some(format!(
                            "replace the whole list: `{walked}=[{{ ... }}, ...]`"
                        )),
                    ));
                }
                let Some(pos) = items
                    .iter()
                    .position(|n| element_name(n).as_deref() == Some(*seg))
                else {
                    return Err(PathError::new(
                        format!("`{path}` names nothing: no element of `{walked}` is named \"{seg}\" (names: {})", names.join(", ")),
                        did_you_mean(seg, names.iter().map(String::as_str)),
                    ));
                };
                if last {
                    return Err(PathError::new(
                        format!("`{path}` names a whole `[[{walked}]]` element: add the key to set, e.g. `{path}.size`"),
                        None,
                    ));
                }
                &mut items[pos]
            }
            other => {
                return Err(PathError::new(
                    format!(
                        "`{path}` names nothing: `{walked}` is {}, not a table",
                        other.type_name()
                    ),
                    None,
                ));
            }
        };
        walked = here;
    }
    Ok(())
}

/// The `name` of an array-of-tables element.
fn element_name(n: &Node) -> Option<String> {
    match &n.value {
        Value::Table(t) => match t.get("name").map(|e| &e.value.value) {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The value at `path`, if there is one.
pub fn get<'a>(root: &'a Node, path: &str) -> Option<&'a Node> {
    let mut node = root;
    for seg in split(path).ok()? {
        node = match &node.value {
            Value::Table(t) => &t.get(seg)?.value,
            Value::Array(items) => items
                .iter()
                .find(|n| element_name(n).as_deref() == Some(seg))?,
            _ => return None,
        };
    }
    Some(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::error::Source;
    use crate::scenario::tree::parse;

    fn doc() -> Node {
        let text = r#"
[transports.mptcp8]
kind = "mptcp"
[[flows]]
name = "long"
size = "infinite"
[[flows]]
name = "short"
size = "70KB"
"#;
        parse(&Source::new("t", text)).unwrap()
    }

    fn int(n: i64) -> Node {
        Node::new(Value::Integer(n), Origin::Unknown)
    }

    #[test]
    fn sets_by_table_key_and_by_element_name() {
        let mut d = doc();
        set(
            &mut d,
            "transports.mptcp8.subflows",
            int(4),
            &Origin::Unknown,
        )
        .unwrap();
        assert_eq!(
            get(&d, "transports.mptcp8.subflows").unwrap().value,
            Value::Integer(4)
        );
        set(&mut d, "flows.short.size", int(5), &Origin::Unknown).unwrap();
        assert_eq!(
            get(&d, "flows.short.size").unwrap().value,
            Value::Integer(5)
        );
        assert_eq!(
            get(&d, "flows.long.size").unwrap().value,
            Value::String("infinite".into())
        );
        set(
            &mut d,
            "topology.layers.core.link_rate",
            int(1),
            &Origin::Unknown,
        )
        .unwrap();
        assert!(get(&d, "topology.layers.core.link_rate").is_some());
    }

    #[test]
    fn paths_naming_nothing() {
        let mut d = doc();
        let e = set(&mut d, "flows.shrt.size", int(1), &Origin::Unknown).unwrap_err();
        assert!(e.message.contains("names nothing"), "{}", e.message);
        assert_eq!(e.hint.as_deref(), Some("did you mean `short`?"));
        let e = set(
            &mut d,
            "transports.mptcp9.subflows",
            int(1),
            &Origin::Unknown,
        )
        .unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("did you mean `mptcp8`?"));
        let e = set(&mut d, "flows.long.size.x", int(1), &Origin::Unknown).unwrap_err();
        assert!(e.message.contains("not a table"), "{}", e.message);
        assert!(set(&mut d, "a..b", int(1), &Origin::Unknown).is_err());
    }

    #[test]
    fn elements_without_names_cannot_be_picked() {
        let text = "[[events]]\nat = \"1ms\"\n[[events]]\nat = \"2ms\"\n";
        let mut d = parse(&Source::new("t", text)).unwrap();
        let e = set(&mut d, "events.0.at", int(1), &Origin::Unknown).unwrap_err();
        assert_eq!(
            e.message,
            "`events.0.at` names nothing: the elements of `events` have no names, so a key \
             path cannot pick one"
        );
        assert_eq!(
            e.hint.as_deref(),
            Some("replace the whole list: `events=[{ ... }, ...]`")
        );
        // The whole list can be replaced.
        set(&mut d, "events", int(1), &Origin::Unknown).unwrap();
    }
}
