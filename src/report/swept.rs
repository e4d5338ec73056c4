//! The swept values of each sweep point as results show them: per axis, its key path, its
//! group of paired axes and its value rendered as the per-run CSV axis columns write it
//! ([`crate::output::axis_value`]: `tcp`, `{ uniform = ["10KB", "100KB"] }`), so that chart
//! labels read the values the scenario gives rather than the file-name-safe point name.

use std::collections::HashMap;

use crate::scenario::Loaded;

/// One swept value of a sweep point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweptValue {
    /// The axis's key path (`transports.long.kind`).
    pub path: String,
    /// The group of paired axes it belongs to (`[sweep.<group>]`), whose values go together.
    pub group: Option<String>,
    /// The value, as the axis columns of flows.csv write it.
    pub value: String,
}

/// The swept values of every sweep point of a scenario, by point name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweptValues {
    /// Per point name, its values in `[sweep]` order.
    points: HashMap<String, Vec<SweptValue>>,
}

impl SweptValues {
    /// The values of `loaded`'s sweep points.
    pub fn of(loaded: &Loaded) -> Self {
        let group = |path: &str| {
            loaded
                .scenario
                .sweep
                .iter()
                .find(|axis| axis.path == path)
                .and_then(|axis| axis.group.clone())
        };
        let points = loaded
            .points
            .iter()
            .map(|p| {
                let values = p
                    .assignments
                    .iter()
                    .map(|(path, value)| SweptValue {
                        path: path.clone(),
                        group: group(path),
                        value: crate::output::axis_value(value),
                    })
                    .collect();
                (p.name.clone(), values)
            })
            .collect();
        SweptValues { points }
    }

    /// The swept values of the point named `point`. A point the scenario does not know (a
    /// report built from run directories alone, without their scenario.toml) is read from its
    /// name, `key=value` pairs joined by `,`, each an ungrouped axis; its values are then the
    /// file-name-safe ones (`_` for the characters a folder name cannot hold).
    pub fn of_point(&self, point: &str) -> Vec<SweptValue> {
        match self.points.get(point) {
            Some(values) => values.clone(),
            None => point
                .split(',')
                .filter_map(|kv| kv.split_once('='))
                .map(|(path, value)| SweptValue {
                    path: path.to_string(),
                    group: None,
                    value: value.to_string(),
                })
                .collect(),
        }
    }
}
