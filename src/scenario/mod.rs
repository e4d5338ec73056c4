//! Scenario files (docs/scenarios.md): loading with precise errors, key paths for `[sweep]` and
//! `--set`, and the sweep points.
//!
//! ```
//! use htsim::scenario::{load_str, LoadOptions};
//!
//! let text = r#"
//! [run]
//! duration = "1s"
//! seeds = 2
//! [topology]
//! kind = "fattree"
//! k = 4
//! [[flows]]
//! name = "long"
//! size = "infinite"
//! transport = { kind = "tcp" }
//! [sweep]
//! "topology.link_rate" = ["100Mbps", "1Gbps"]
//! "#;
//! let loaded = load_str("demo", text, std::path::Path::new("."), &LoadOptions::default()).unwrap();
//! assert_eq!(loaded.points.len(), 2);
//! assert_eq!(loaded.points[0].name, "topology.link_rate=100Mbps");
//! assert_eq!(loaded.scenario.run.seeds.list(), vec![1, 2]);
//!
//! let err = load_str("bad.toml", "[run]\ndurtion = \"1s\"\n", std::path::Path::new("."), &LoadOptions::default())
//!     .unwrap_err();
//! assert_eq!(err.line(), Some(2));
//! assert_eq!(err.hint.as_deref(), Some("did you mean `duration`?"));
//! ```

pub mod error;
pub mod input;
pub mod keypath;
pub mod layers;
pub mod params;
pub mod reference;
pub mod resolve;
pub mod schema;
pub mod suggest;
pub mod sweep;
pub mod tree;

use std::collections::HashSet;
use std::path::Path;

pub use error::{Location, Origin, Result, ScenarioError, Source};
pub use reference::{Published, Reference};
pub use schema::*;

pub use tree::Node;
use tree::Value;

/// The most points a sweep may have (the product of its axes' lengths): every point is
/// resolved and set up before the first run.
pub const MAX_SWEEP_POINTS: usize = 100_000;

/// The most runs a scenario may have (sweep points x seeds): the run list is built, and every
/// run checked for existing results, before the first run.
pub const MAX_RUNS: u64 = 1_000_000;

/// Changes applied on top of the file, as the command line gives them.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `PATH=VALUE` overrides (`--set`), applied in order before the sweep.
    pub overrides: Vec<String>,
    /// Replaces `[run] seeds` (`--seeds N`, `--seed S`).
    pub seeds: Option<Seeds>,
    /// Does not check that the files the scenario names (`cdf_file`) exist: for a result
    /// directory's recorded scenario.toml, whose relative paths are relative to where it ran.
    pub skip_file_checks: bool,
}

/// One point of the sweep: its name, the values it assigns and the scenario it gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// `base`, or `key=value` pairs joined by `,` (file-name safe).
    pub name: String,
    /// The key paths and values this point assigns, in `[sweep]` order.
    pub assignments: Vec<(String, toml::Value)>,
    /// The resolved scenario at this point.
    pub scenario: Scenario,
}

/// A loaded scenario: the base (file plus overrides, with its `[sweep]`) and every sweep point,
/// each resolved and checked.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The scenario as written plus overrides, defaults filled in; its `sweep` lists the axes.
    pub scenario: Scenario,
    /// The sweep points in run order (one point, `base`, without a sweep).
    pub points: Vec<Point>,
    /// The text the scenario was read from (with its `--set` overrides), for locating problems
    /// found later ([`crate::simulate::preflight`]).
    pub source: Source,
    /// The document as read, overrides applied, `[sweep]` included: where each value is
    /// written.
    pub tree: Node,
}

impl Loaded {
    /// A warning for each flow class whose `arrivals` cannot open a flow past its first ones
    /// ([`Scenario::classes_without_time_for_arrivals`]): a short test run of a Poisson class
    /// gives one flow, not the rate it names. Each distinct warning once, with the first sweep
    /// point that has it and how many do, as the loader reports problems.
    pub fn arrival_warnings(&self) -> Vec<ScenarioError> {
        let mut found = error::PointProblems::default();
        for point in &self.points {
            let run = &point.scenario.run;
            for class in point.scenario.classes_without_time_for_arrivals() {
                let warning = ScenarioError::about_file(
                    &self.source.name,
                    format!("flows.{}.arrivals", class.name),
                    format!(
                        "arrivals stop 0.2 s before the end of `run.duration` ({}), too soon \
                         after the class's start ({}) for another: it opens only its first flows",
                        run.duration, class.start
                    ),
                );
                found.add(*warning, &point.name);
            }
        }
        found.into_errors(&self.source, !self.scenario.sweep.is_empty())
    }

    /// The scenario as a result directory records it (scenario.toml): every default written
    /// out, but for a table whose `kind` the sweep sets, which keeps the keys as written
    /// ([`Scenario::to_toml_string_as_written`]).
    pub fn to_toml_string(&self) -> std::result::Result<String, toml::ser::Error> {
        self.scenario.to_toml_string_as_written(Some(&self.tree))
    }
}

impl Scenario {
    /// Checks this scenario as the loader checks a file (without its sweep and references,
    /// which belong to the run list): the error names the key, with the loader's message and
    /// hint. A scenario from the loader or [`crate::builder`] passes; its fields are public, and
    /// one changed field by field afterwards (`scenario.topology.params.set(...)`) may not, so
    /// [`crate::simulate::run`] calls this before setting a run up.
    ///
    /// ```
    /// use htsim::builder::ScenarioBuilder;
    /// use htsim::core::SimTime;
    /// use htsim::scenario::{FlowClass, TopologyConfig, TransportConfig};
    ///
    /// let mut scenario = ScenarioBuilder::new("demo")
    ///     .duration(SimTime::from_ms(1))
    ///     .topology(TopologyConfig::fattree(4))
    ///     .flows(FlowClass::long("long", TransportConfig::tcp()))
    ///     .build()
    ///     .unwrap();
    /// assert!(scenario.check().is_ok());
    /// scenario.run.duration = SimTime::ZERO;
    /// assert_eq!(scenario.check().unwrap_err().key_path, "run.duration");
    /// ```
    pub fn check(&self) -> Result<()> {
        let mut bare = self.clone();
        bare.sweep.clear();
        bare.references.clear();
        let label = format!("{} (scenario)", self.name);
        let text = bare.to_toml_string().map_err(|e| {
            ScenarioError::about_file(&label, "", format!("cannot be written as a scenario: {e}"))
        })?;
        // The text is this function's own: no line or column to show.
        let whole_file = |mut e: Box<ScenarioError>| {
            e.location = Location::File;
            e.snippet = None;
            e
        };
        let source = Source::new(label, text);
        let root = tree::parse(&source).map_err(whole_file)?;
        let cx = resolve::Cx {
            src: &source,
            base_dir: &self.base_dir,
            default_name: &self.name,
            check_files: true,
        };
        resolve::scenario(&cx, &root)
            .map(|_| ())
            .map_err(whole_file)
    }
}

/// Loads and checks the scenario file at `path`.
pub fn load(path: &Path, options: &LoadOptions) -> Result<Loaded> {
    let name = path.display().to_string();
    let text = input::read_text(path).map_err(|e| {
        ScenarioError::about_file(&name, "", format!("cannot read the scenario file: {e}"))
    })?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scenario".into());
    let dir = path.parent().unwrap_or(Path::new("."));
    load_named(&name, &stem, &text, dir, options)
}

/// Loads a scenario from text. `name` is shown in errors and is the default scenario name;
/// `base_dir` is where relative file paths in the scenario are read from.
pub fn load_str(name: &str, text: &str, base_dir: &Path, options: &LoadOptions) -> Result<Loaded> {
    let stem = name.strip_suffix(".toml").unwrap_or(name);
    let stem = Path::new(stem)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scenario".into());
    load_named(name, &stem, text, base_dir, options)
}

fn load_named(
    file: &str,
    default_name: &str,
    text: &str,
    base_dir: &Path,
    options: &LoadOptions,
) -> Result<Loaded> {
    let source = Source::new(file, text);
    let root = tree::parse(&source)?;
    load_tree(source, root, default_name, base_dir, options)
}

/// Resolves and checks a scenario document tree: applies the overrides, resolves the base and
/// every sweep point. Files come here after parsing; [`crate::builder`] with the document it
/// assembled in code, so both go through the same checks and defaults.
pub(crate) fn load_tree(
    mut source: Source,
    mut root: Node,
    default_name: &str,
    base_dir: &Path,
    options: &LoadOptions,
) -> Result<Loaded> {
    source.overrides = options.overrides.clone();
    let default_name = sweep::file_name_safe(default_name);
    let cx = resolve::Cx {
        src: &source,
        base_dir,
        default_name: &default_name,
        check_files: !options.skip_file_checks,
    };
    for (i, text) in options.overrides.iter().enumerate() {
        let origin = Origin::Set(i);
        let Some((path, value)) = text.split_once('=') else {
            return Err(source.error(
                &origin,
                text.trim(),
                "expected PATH=VALUE, e.g. `--set flows.short.size=100KB`",
            ));
        };
        let path = path.trim();
        let value = tree::parse_set_value(value, &origin)
            .map_err(|message| source.error(&origin, path, message))?;
        if let Some(key) = sweep_key(path) {
            sweep::set_entry(&mut root, key, value, &origin);
            continue;
        }
        keypath::set(&mut root, path, value, &origin)
            .map_err(|e| source.error(&origin, path, e.message).with_hint_opt(e.hint))?;
    }
    let axes = match keypath::get(&root, "sweep") {
        Some(node) => sweep::read(&cx, node)?,
        None => Vec::new(),
    };
    let mut base = match resolve::scenario(&cx, &root) {
        Ok(base) => base,
        Err(e) => base_at_first_point(&cx, &root, &axes, e)?,
    };
    if let Some(seeds) = &options.seeds {
        base.run.seeds = seeds.clone();
    }
    check_overrides_outside_sweep(&source, &options.overrides, &axes)?;
    let dimensions = sweep::dimensions(&axes);
    let count = dimensions
        .iter()
        .try_fold(1usize, |n, dim| n.checked_mul(dim[0].values.len()));
    if count.is_none_or(|n| n > MAX_SWEEP_POINTS) {
        let origin = axes.first().map_or(Origin::Unknown, |a| a.origin.clone());
        let sizes: Vec<String> = dimensions
            .iter()
            .map(|dim| dim[0].values.len().to_string())
            .collect();
        return Err(source
            .error(
                &origin,
                "sweep",
                format!(
                    "the sweep has {} points, more than the limit of {MAX_SWEEP_POINTS}",
                    sizes.join(" x ")
                ),
            )
            .with_hint("split the sweep into several scenarios, or sweep fewer values"));
    }
    let runs = (count.unwrap_or(1) as u64).saturating_mul(base.run.seeds.count());
    if runs > MAX_RUNS {
        let (origin, key) = if options.seeds.is_some() {
            (Origin::Unknown, "--seeds")
        } else {
            (
                keypath::get(&root, "run.seeds").map_or(Origin::Unknown, |n| n.origin.clone()),
                "run.seeds",
            )
        };
        return Err(source
            .error(
                &origin,
                key,
                format!(
                    "{} sweep points x {} seeds = {runs} runs, more than the limit of {MAX_RUNS}",
                    count.unwrap_or(1),
                    base.run.seeds.count()
                ),
            )
            .with_hint("run fewer seeds, or split the sweep into several scenarios"));
    }
    // The sweep table itself is not part of a point, nor are the references, whose point
    // keys name sweep axes: the base scenario checked both, and every point carries them.
    let mut unswept = root.clone();
    if let Value::Table(t) = &mut unswept.value {
        t.entries
            .retain(|e| e.key != "sweep" && e.key != "reference");
    }
    let mut points = Vec::with_capacity(count.unwrap_or(0));
    let mut names = HashSet::with_capacity(count.unwrap_or(0));
    // Every point that does not resolve is reported, not only the first.
    let mut problems = error::PointProblems::default();
    for assignments in sweep::product(&axes) {
        let name = sweep::point_name(&assignments);
        if let Err(e) = crate::output::check_dir_name(&name) {
            return Err(long_point_name(&source, &axes, &assignments, &name, e));
        }
        let mut tree = unswept.clone();
        for (path, value) in &assignments {
            let key_origin = sweep::origin_of(&axes, path);
            keypath::set(&mut tree, path, value.clone(), &key_origin).map_err(|e| {
                source
                    .error(&key_origin, format!("sweep.{path}"), e.message)
                    .with_hint_opt(e.hint)
            })?;
        }
        let mut scenario = match resolve::scenario(&cx, &tree) {
            Ok(s) => s,
            Err(e) => {
                problems.add(*e, &name);
                continue;
            }
        };
        scenario.sweep = base.sweep.clone();
        scenario.references = base.references.clone();
        // Every point runs the seeds of the base (`--seeds` included), also when an axis
        // replaces the whole `[run]` table.
        scenario.run.seeds = base.run.seeds.clone();
        if !names.insert(name.clone()) {
            let origin = axes.first().map_or(Origin::Unknown, |a| a.origin.clone());
            return Err(source.error(
                &origin,
                "sweep",
                format!("two sweep points share the name `{name}`: make the values distinct"),
            ));
        }
        points.push(Point {
            name,
            assignments: assignments
                .iter()
                .map(|(p, v)| (p.clone(), v.to_toml()))
                .collect(),
            scenario,
        });
    }
    if let Some(e) = problems.into_error(&source, !axes.is_empty()) {
        return Err(e);
    }
    Ok(Loaded {
        scenario: base,
        points,
        source,
        tree: root,
    })
}

/// The base scenario of a sweep whose values as written do not resolve (`base_error`): the
/// values no point runs are not checked against each other. A check that reads a swept key and
/// another one (a traced flow id against the swept `draws`, a `hosts` range against the swept
/// `topology.k`) fails at the base's own value of the swept key, which the sweep replaces at
/// every point; each point is checked with its own values. So the base is the document with the
/// first point's values, and the seeds written in `[run]` (every point runs them, also when an
/// axis replaces the whole table). If that does not resolve either, the problem is the first
/// point's: the base's error when it is the same, else the point's, named.
fn base_at_first_point(
    cx: &resolve::Cx,
    root: &Node,
    axes: &[sweep::Axis],
    base_error: Box<ScenarioError>,
) -> Result<Scenario> {
    if axes.is_empty() {
        return Err(base_error);
    }
    let first: Vec<sweep::Assignment> = sweep::dimensions(axes)
        .into_iter()
        .flatten()
        .map(|a| (a.path.clone(), a.values[0].clone()))
        .collect();
    let mut tree = root.clone();
    for (path, value) in &first {
        let origin = sweep::origin_of(axes, path);
        if keypath::set(&mut tree, path, value.clone(), &origin).is_err() {
            return Err(base_error);
        }
    }
    match resolve::scenario(cx, &tree) {
        Ok(mut base) => {
            if let Ok(run) = resolve::run_table(cx, root) {
                base.run.seeds = run.seeds;
            }
            Ok(base)
        }
        Err(e) if e.to_string() == base_error.to_string() => Err(base_error),
        Err(e) => {
            let mut problems = error::PointProblems::default();
            problems.add(*e, &sweep::point_name(&first));
            Err(problems
                .into_error(cx.src, true)
                .expect("a problem was just added"))
        }
    }
}

/// A `--set` of a key that a `[sweep]` axis assigns (or a table holding it, or a key inside it)
/// would show in DIR/scenario.toml while every run used the sweep's values: an error.
fn check_overrides_outside_sweep(
    source: &Source,
    overrides: &[String],
    axes: &[sweep::Axis],
) -> Result<()> {
    for (i, text) in overrides.iter().enumerate() {
        let Some((path, _)) = text.split_once('=') else {
            continue;
        };
        let path = path.trim();
        // Every point keeps the seeds (no axis may set them), a `run` axis too.
        if keypath::overlaps(path, "run.seeds") && path.split('.').count() == 2 {
            continue;
        }
        if let Some(axis) = axes
            .iter()
            .map(|a| &a.path)
            .find(|axis| keypath::overlaps(path, axis))
        {
            return Err(source
                .error(
                    &Origin::Set(i),
                    path,
                    format!(
                        "`[sweep]` assigns `{axis}` at every point, so this value would be \
                         recorded but never used"
                    ),
                )
                .with_hint(format!(
                    "change the values of `{axis}` in `[sweep]`, or drop this --set"
                )));
        }
    }
    Ok(())
}

/// The error for a sweep point whose name cannot be a directory name (too long): names the
/// axis that contributes most to it.
fn long_point_name(
    source: &Source,
    axes: &[sweep::Axis],
    assignments: &[sweep::Assignment],
    name: &str,
    why: crate::output::NameError,
) -> Box<ScenarioError> {
    let longest = assignments
        .iter()
        .map(|a| (sweep::point_name(std::slice::from_ref(a)).len(), &a.0))
        .max_by_key(|(len, _)| *len);
    let (origin, key, part) = match longest {
        Some((len, path)) => (
            axes.iter()
                .find(|a| &a.path == path)
                .map_or(Origin::Unknown, |a| a.origin.clone()),
            format!("sweep.{path}"),
            format!("; `{path}` takes {len} bytes of it"),
        ),
        None => (Origin::Unknown, "sweep".to_string(), String::new()),
    };
    let shown: String = name.chars().take(60).collect();
    source
        .error(
            &origin,
            key,
            format!("the sweep point `{shown}...` names a run directory, and {why}{part}"),
        )
        .with_hint("use shorter values on this axis, or fewer axes")
}

/// The `[sweep]` entry a `--set` path names (`sweep."topology.link_rate"`,
/// `sweep.topology.link_rate` or `sweep.<group>`): the part after `sweep.`.
fn sweep_key(path: &str) -> Option<&str> {
    let (first, rest) = path.split_once('.')?;
    (first.trim() == "sweep" && !rest.trim().is_empty()).then_some(rest)
}
