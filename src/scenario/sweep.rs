//! Sweeps: the cartesian product of the `[sweep]` axes, and the name of each point.

use super::tree::{Node, Value};

/// One assignment of a sweep point: a key path and its value.
pub type Assignment = (String, Node);

/// The cartesian product of the axes, first axis outermost (slowest-varying), values in the
/// order written. No axes give one empty point.
pub fn product(axes: &[(String, Vec<Node>)]) -> Vec<Vec<Assignment>> {
    let mut points: Vec<Vec<Assignment>> = vec![Vec::new()];
    for (path, values) in axes {
        let mut next = Vec::with_capacity(points.len() * values.len());
        for p in &points {
            for v in values {
                let mut q = p.clone();
                q.push((path.clone(), v.clone()));
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
    use crate::scenario::error::Origin;

    fn v(value: Value) -> Node {
        Node::new(value, Origin::Unknown)
    }

    #[test]
    fn product_order_and_names() {
        let axes = vec![
            (
                "transports.m.subflows".to_string(),
                vec![v(Value::Integer(1)), v(Value::Integer(8))],
            ),
            (
                "flows.short.size".to_string(),
                vec![
                    v(Value::String("70KB".into())),
                    v(Value::String("1 MB/x".into())),
                ],
            ),
        ];
        let points = product(&axes);
        let names: Vec<String> = points.iter().map(|p| point_name(p)).collect();
        assert_eq!(
            names,
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
}
