//! Reads the document tree into a [`Scenario`]: checks every key against the schema (unknown keys
//! are errors with a "did you mean" hint), converts unit strings through the core's parsers,
//! fills in defaults and checks the combinations that cannot work.

use std::path::Path;

use super::error::{Origin, Result, ScenarioError, Source};
use super::params;
use super::schema::*;
use super::tree::{Node, Table, Value};

mod events;
mod flows;
mod kinds;
mod matrix;
mod output;
mod queue;
mod routing;
mod run;
mod topology;
mod transports;
mod values;

use events::events;
use flows::flows;
use output::output;
use queue::queue;
use routing::routing;
use run::run;
use topology::topology;
use transports::transports;
pub(super) use values::{string, Tab};

/// What the resolver needs besides the tree: the source (for positions) and the scenario's
/// directory (for files it names).
pub struct Cx<'a> {
    /// The text and its name.
    pub src: &'a Source,
    /// Directory relative paths are read from.
    pub base_dir: &'a Path,
    /// Name used when the file has no `name` key.
    pub default_name: &'a str,
    /// Whether files the scenario names must exist (see `LoadOptions::skip_file_checks`).
    pub check_files: bool,
}

impl Cx<'_> {
    pub(super) fn err(
        &self,
        origin: &Origin,
        path: &str,
        msg: impl Into<String>,
    ) -> Box<ScenarioError> {
        self.src.error(origin, path, msg)
    }

    pub(super) fn type_err(&self, node: &Node, path: &str, expected: &str) -> Box<ScenarioError> {
        self.err(
            &node.origin,
            path,
            format!("expected {expected}, found {}", node.value.type_name()),
        )
    }
}

/// Joins a key path.
pub(super) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The keys of the top level of a scenario.
pub(super) const TOP: &[&str] = &[
    "name",
    "description",
    "run",
    "topology",
    "queue",
    "routing",
    "transports",
    "flows",
    "events",
    "output",
    "sweep",
    "reference",
];

/// Resolves the `[run]` table of the document alone.
pub fn run_table(cx: &Cx, root: &Node) -> Result<RunConfig> {
    let top = Tab::open(cx, root, "", TOP)?;
    run(
        cx,
        top.required("run", "a `[run]` table with at least `duration`")?,
    )
}

/// Resolves the whole document.
pub fn scenario(cx: &Cx, root: &Node) -> Result<Scenario> {
    if let Value::Table(t) = &root.value {
        if t.entries.is_empty() {
            return Err(cx.err(
                &Origin::File(0..0),
                "run",
                "the scenario is empty: expected at least `[run]` (with `duration`), `[topology]` and `[[flows]]`",
            ));
        }
    }
    let top = Tab::open(cx, root, "", TOP)?;
    let name = match top.get("name") {
        Some(n) => {
            // The characters a default name (the file's stem) keeps: a scenario.toml records
            // the name, and every run checks its scenario again, so a name the file gave
            // (`exp.v2.toml`) must read back as written.
            let s = string(cx, n, "name")?;
            if s.is_empty() || s != crate::scenario::sweep::file_name_safe(s) {
                return Err(cx.err(
                    &n.origin,
                    "name",
                    format!(
                        "bad name \"{s}\": use letters, digits, `.`, `_`, `-`, `+` and `=` \
                         only (it names the output directory results/<name>)"
                    ),
                ));
            }
            crate::output::check_dir_name(s)
                .map_err(|e| cx.err(&n.origin, "name", e.to_string()))?;
            s.to_string()
        }
        None => {
            crate::output::check_dir_name(cx.default_name).map_err(|e| {
                cx.err(
                    &Origin::File(0..0),
                    "name",
                    format!(
                        "the scenario has no `name`, and its file name gives no usable \
                         directory name: {e}"
                    ),
                )
                .with_hint(
                    "add `name = \"...\"` (letters, digits, `-`, `_`): it names the output \
                     directory results/<name>",
                )
            })?;
            cx.default_name.to_string()
        }
    };
    let description = top.string("description", Some(""))?;
    let run = run(
        cx,
        top.required("run", "a `[run]` table with at least `duration`")?,
    )?;
    let topology = topology(
        cx,
        top.required("topology", "a `[topology]` table with `kind`")?,
    )?;
    let layers = params::topology(&topology.kind).map_or(&[][..], |k| k.layers);
    let default_table = Node::new(Value::Table(Table::default()), root.origin.clone());
    let queue = queue(
        cx,
        top.get("queue").unwrap_or(&default_table),
        &topology.kind,
        layers,
    )?;
    let routing = routing(cx, top.get("routing").unwrap_or(&default_table), &run)?;
    let transports = transports(cx, top.get("transports").unwrap_or(&default_table))?;
    let flows_node = top.required("flows", "at least one `[[flows]]` class")?;
    let flows = flows(cx, flows_node, &transports, &run, &topology)?;
    let events = match top.get("events") {
        Some(n) => events(cx, n, &run, &topology.kind, layers)?,
        None => Vec::new(),
    };
    let output = output(
        cx,
        top.get("output").unwrap_or(&default_table),
        &flows,
        layers,
        topology.host_count(),
        &run,
    )?;
    let sweep = match top.get("sweep") {
        Some(n) => super::sweep::read(cx, n)?
            .iter()
            .map(super::sweep::Axis::resolved)
            .collect(),
        None => Vec::new(),
    };
    let references = match top.get("reference") {
        Some(n) => super::reference::read(cx, n, &flows, &sweep)?,
        None => Vec::new(),
    };
    Ok(Scenario {
        name,
        description,
        run,
        topology,
        queue,
        routing,
        transports,
        flows,
        events,
        output,
        sweep,
        references,
        base_dir: cx.base_dir.to_path_buf(),
    })
}
