//! Pre-flight: for every sweep point, everything a run does before simulating ([`super::setup()`]:
//! the network built, every named file read, every link event, flow class, transport and time
//! series selection resolved, the memory estimate checked), with the first seed, and the flow
//! classes planned with every other seed (matrices are drawn per seed), so that a scenario
//! that cannot run is refused before the first run starts. `htsim validate` and `htsim run`
//! call it.
//!
//! Each problem is reported like the loader reports one: the scenario file, line and column of
//! the value at fault (the sweep value when a sweep point set it), its key path and a hint; a
//! problem inside a topology or CDF file names that file and line. A problem shared by several
//! sweep points is reported once, with the number of points.
//!
//! ```
//! use htsim::scenario::{load_str, LoadOptions};
//! use htsim::simulate::preflight;
//!
//! let text = r#"
//! [run]
//! duration = "1ms"
//! [topology]
//! kind = "star"
//! hosts = 4
//! [[flows]]
//! name = "long"
//! size = "infinite"
//! transport = { kind = "tcp" }
//! [[events]]
//! at = "0s"
//! where = { link = ["host0", "host9"] }
//! set = { down = true }
//! "#;
//! let loaded = load_str("s.toml", text, std::path::Path::new("."), &LoadOptions::default()).unwrap();
//! let problems = preflight::check(&loaded, 1).unwrap_err();
//! assert_eq!(problems.0[0].line(), Some(13));
//! assert_eq!(problems.0[0].key_path, "events[0].where.link");
//! ```

use std::fmt;

use htsim_core::rng::RngStreams;

use super::resources::Budget;
use super::setup_error::SetupError;
use crate::scenario::error::{Location, Origin, PointProblems, ScenarioError};
use crate::scenario::input::read_text;
use crate::scenario::tree::Value;
use crate::scenario::{keypath, Loaded, Node, Point};

/// Every problem found, in sweep-point order.
#[derive(Clone, Debug, PartialEq)]
pub struct Problems(pub Vec<ScenarioError>);

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Problems {}

/// Sets up every sweep point of `loaded` as its first run would be (first seed), and plans its
/// flow classes with every other seed (the traffic matrices, and so the pairs checked, are
/// drawn per seed), with `runs_at_once` runs sharing the machine's memory; every problem found
/// (of the first seed that has one, per point), or `Ok`.
pub fn check(loaded: &Loaded, runs_at_once: u64) -> Result<(), Problems> {
    let budget = Budget::of_machine(runs_at_once).map_err(|e| {
        Problems(vec![*loaded
            .source
            .error(&Origin::Unknown, "", e.message)
            .with_hint_opt(e.hint)])
    })?;
    let mut problems = PointProblems::default();
    for point in &loaded.points {
        let seeds = point.scenario.run.seeds.list();
        let (&first, others) = seeds.split_first().unwrap_or((&1, &[]));
        let setup = match super::setup(&point.scenario, first, budget.as_ref()) {
            Ok(setup) => setup,
            Err(errors) => {
                for e in &errors {
                    problems.add(locate(loaded, point, e), &point.name);
                }
                continue;
            }
        };
        for &seed in others {
            let streams = RngStreams::new(seed);
            let planned =
                super::workload::plan(&point.scenario, &setup.topology, streams, budget.as_ref());
            if let Err(errors) = planned {
                for e in errors {
                    let e = SetupError {
                        message: format!("with seed {seed}, {}", e.message),
                        ..e
                    };
                    problems.add(locate(loaded, point, &e), &point.name);
                }
                break;
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let swept = loaded.points.len() > 1;
    Err(Problems(problems.into_errors(&loaded.source, swept)))
}

/// The setup error `e` of `point` as a scenario error at the value it is about.
fn locate(loaded: &Loaded, point: &Point, e: &SetupError) -> ScenarioError {
    let origin = if e.key.is_empty() {
        Origin::Unknown
    } else {
        origin_of(loaded, point, &e.key)
    };
    let at_key = loaded.source.error(&origin, &e.key, &e.message);
    let Some(input) = &e.input else {
        return *at_key.with_hint_opt(e.hint.clone());
    };
    // A line of a named file: point at it, and say which key named the file.
    let named_by = match &at_key.location {
        Location::Position { line, column } => {
            format!("{}:{line}:{column}", at_key.file)
        }
        _ => at_key.file.clone(),
    };
    let mut hint = format!("the file is named by `{}` at {named_by}", e.key);
    if let Some(h) = &e.hint {
        hint = format!("{h}; {hint}");
    }
    ScenarioError {
        file: input.path.display().to_string(),
        location: Location::Position {
            line: input.line,
            column: 1,
        },
        key_path: e.key.clone(),
        message: e.message.clone(),
        hint: Some(hint),
        snippet: read_text(&input.path).ok().and_then(|text| {
            text.lines()
                .nth(input.line.saturating_sub(1))
                .map(str::to_string)
        }),
        also: Vec::new(),
    }
}

/// Where the value at `key` is written for `point`: the sweep value when the point's
/// assignments set it (or a part of it), else the deepest part of `key` the document has.
fn origin_of(loaded: &Loaded, point: &Point, key: &str) -> Origin {
    for (path, value) in &point.assignments {
        if keypath::overlaps(path, key) {
            let written = crate::scenario::sweep::written_values(&loaded.tree, path)
                .and_then(|items| items.iter().find(|v| v.to_toml() == *value));
            if let Some(v) = written {
                return v.origin.clone();
            }
        }
    }
    deepest(&loaded.tree, key)
}

/// The origin of the deepest node along `key` (`events[2].where.link`, `flows.short.size`):
/// table keys, `name[i]` for the i-th element of an array, and array elements by their `name`.
fn deepest(root: &Node, key: &str) -> Origin {
    let mut node = root;
    for seg in key.split('.') {
        let (name, index) = match seg.strip_suffix(']').and_then(|s| s.split_once('[')) {
            Some((name, i)) => (name, i.parse::<usize>().ok()),
            None => (seg, None),
        };
        let next = match &node.value {
            Value::Table(t) => t.get(name).map(|e| &e.value),
            Value::Array(items) => items.iter().find(|n| {
                keypath::get(n, "name").is_some_and(|v| v.value == Value::String(name.into()))
            }),
            _ => None,
        };
        let next = match (next, index) {
            (
                Some(Node {
                    value: Value::Array(items),
                    ..
                }),
                Some(i),
            ) => items.get(i),
            (n, _) => n,
        };
        match next {
            Some(n) => node = n,
            None => break,
        }
    }
    node.origin.clone()
}
