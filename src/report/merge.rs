//! Which runs of several result directories `htsim report DIR...` may merge: only runs of one
//! scenario. Every `DIR/scenario.toml` must describe the same scenario (their seed lists aside),
//! a run found in several directories must have the same settings in each (its run.json
//! digest, [`crate::identity`]), and every run must have the settings its sweep point and seed
//! give under that scenario (the digests of the files it read aside: they are relative to where
//! it ran), and every run must have read the same contents of each file as every other run
//! (their digests in its settings). Without any scenario.toml, the runs' settings must differ
//! only in their seeds and what their sweep points' names assign.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::identity::{describe_differences, differences, Difference, RunIdentity, Settings};
use crate::output::{RUNS_DIR, RUN_FILE, SCENARIO_FILE};
use crate::runner::run_list;
use crate::scenario::Loaded;

/// Why directories cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A complete run whose run.json is there but does not read as a run's identity (cut
    /// short or damaged since htsim wrote it, which it does atomically, or its settings edited
    /// so that its digest is not theirs: [`RunIdentity::read`]): its settings are unknown, and
    /// unlike a run of an htsim from before run.json it cannot pass as one.
    #[error(
        "{}: does not read as a run's identity (damaged or cut short since it was written, or \
         its settings edited so that they no longer give its digest), so the run's settings \
         are unknown; simulate it again (`htsim run` with `--replace-stale`) or delete its \
         directory", .file.display()
    )]
    UnreadableIdentity {
        /// The run.json.
        file: PathBuf,
    },
    /// Two directories hold different scenarios.
    #[error(
        "{first} and {second} hold different scenarios, which cannot be merged; their \
         scenario.toml differ in: {}", list(.differences)
    )]
    Scenarios {
        /// The first directory with a scenario.toml.
        first: PathBuf,
        /// The one that differs.
        second: PathBuf,
        /// What differs (first -> second).
        differences: Vec<Difference>,
    },
    /// A run is in two directories with different settings.
    #[error(
        "run {run} is in {first} and in {second} with different settings: {}", list(.differences)
    )]
    Duplicate {
        /// The run directory's path under `runs/`.
        run: String,
        /// One directory.
        first: PathBuf,
        /// The other.
        second: PathBuf,
        /// What differs (first -> second).
        differences: Vec<Difference>,
    },
    /// Without a scenario.toml, two runs whose settings differ in more than their seeds and
    /// sweep points: runs of different scenarios.
    #[error(
        "{first_run} in {first} and {second_run} in {second} are runs of different scenarios \
         (no scenario.toml says which one the report is of), which cannot be merged; their \
         settings differ in: {}", list(.differences)
    )]
    Mixed {
        /// The first run found, its path under the directory.
        first_run: String,
        /// The directory that holds it.
        first: PathBuf,
        /// The run that differs.
        second_run: String,
        /// The directory that holds it.
        second: PathBuf,
        /// What differs (first -> second), seeds and swept keys aside.
        differences: Vec<Difference>,
    },
    /// Two runs read different contents of one file the scenario names (a `cdf_file`, a
    /// `file` topology's `path`): the file changed between them, and scenario.toml, which
    /// names the file only, cannot tell.
    #[error(
        "{first_run} in {first} and {second_run} in {second} read different contents of {} \
         ({} -> {}): the file changed between them, so they are runs \
         of different scenarios, which cannot be merged; simulate them again with one version \
         of the file", .contents.file, .contents.first, .contents.second
    )]
    Files {
        /// The first run that read it, its path under the directory.
        first_run: String,
        /// The directory that holds it.
        first: PathBuf,
        /// The run that read other contents.
        second_run: String,
        /// The directory that holds it.
        second: PathBuf,
        /// The file and what each run read.
        contents: Box<FileContents>,
    },
    /// A run was simulated with other settings than its directories' scenario gives it.
    #[error(
        "run {run} in {dir} was simulated with other settings than the scenario.toml of \
         {scenario_dir} gives it: {}", list(.differences)
    )]
    Stale {
        /// The run's id.
        run: String,
        /// The directory that holds it.
        dir: PathBuf,
        /// The directory whose scenario.toml it was compared with.
        scenario_dir: PathBuf,
        /// What differs (the run's -> the scenario's).
        differences: Vec<Difference>,
    },
}

/// The file two runs read with different contents ([`MergeError::Files`]).
#[derive(Debug)]
pub struct FileContents {
    /// The file, as the scenario names it.
    pub file: String,
    /// What the first run read (`sha256:...`).
    pub first: String,
    /// What the second run read.
    pub second: String,
}

fn list(differences: &[Difference]) -> String {
    if differences.is_empty() {
        return "the same keys written in another form (another htsim version)".into();
    }
    describe_differences(differences, 8)
}

/// What two scenario.toml of runs that merge may differ in: no setting of any run. The seed
/// list (each shard's own), the charts, and the scenario's `name` and `description` (a
/// scenario renamed between its shards; a run directory renamed scenario reuses its runs too).
const NO_SETTING: [&str; 4] = ["run.seeds", "output.plots", "name", "description"];

/// Checks that every `DIR/scenario.toml` among `scenarios` (directory, text) describes the same
/// scenario as the first, `run.seeds`, `output.plots`, `name` and `description` (no setting of
/// any run) aside; the first's name and description are the merge's.
pub fn check_scenarios(scenarios: &[(PathBuf, String)]) -> Result<(), MergeError> {
    let Some((first, text)) = scenarios.first() else {
        return Ok(());
    };
    for (dir, other) in &scenarios[1..] {
        let diff: Vec<Difference> = differences(text, other)
            .into_iter()
            .filter(|d| !NO_SETTING.contains(&d.key.as_str()))
            .collect();
        if !diff.is_empty() {
            return Err(MergeError::Scenarios {
                first: first.clone(),
                second: dir.clone(),
                differences: diff,
            });
        }
    }
    Ok(())
}

/// Checks the complete runs under `dirs`: the same run (`runs/<point>/seed-<n>`) in several directories
/// must have the same digest; with `scenario` (loaded from the scenario.toml of
/// `scenario_dir`), every run of its run list must have the settings it gives. Returns the
/// runs that record no identity (written by an older htsim), which cannot be checked.
pub fn check_runs(
    dirs: &[PathBuf],
    scenario: Option<(&Loaded, &Path)>,
) -> Result<Vec<String>, MergeError> {
    // run path -> (directory, identity) of the first directory holding it.
    let mut seen: BTreeMap<PathBuf, (PathBuf, Option<RunIdentity>)> = BTreeMap::new();
    let mut unverified = Vec::new();
    for dir in dirs {
        // Only complete runs are merged: an interrupted copy is no evidence either way.
        for run in run_dirs(&dir.join(RUNS_DIR)) {
            if !crate::output::is_complete(&run) {
                continue;
            }
            let file = run.join(RUN_FILE);
            let identity = RunIdentity::read(&file);
            if identity.is_none() && file.exists() {
                return Err(MergeError::UnreadableIdentity { file });
            }
            let rel = run.strip_prefix(dir).unwrap_or(&run).to_path_buf();
            match seen.get(&rel) {
                Some((first, Some(a))) => {
                    if let Some(b) = &identity {
                        if a.digest != b.digest {
                            return Err(MergeError::Duplicate {
                                run: rel.display().to_string(),
                                first: first.clone(),
                                second: dir.clone(),
                                differences: differences(&a.settings, &b.settings),
                            });
                        }
                    }
                }
                // A copy with an identity is checked in place of one without.
                Some((_, None)) if identity.is_some() => {
                    seen.insert(rel, (dir.clone(), identity));
                }
                Some(_) => {}
                None => {
                    if identity.is_none() {
                        unverified.push(run.display().to_string());
                    }
                    seen.insert(rel, (dir.clone(), identity));
                }
            }
        }
    }
    check_files(&seen)?;
    let Some((loaded, scenario_dir)) = scenario else {
        check_one_scenario(&seen)?;
        return Ok(unverified);
    };
    for run in run_list(loaded) {
        let rel = run.dir(Path::new(""));
        let Some((dir, Some(recorded))) = seen.get(&rel) else {
            continue;
        };
        let expected = Settings::of(&loaded.points[run.point].scenario, run.seed);
        if recorded.digest == expected.digest {
            continue;
        }
        // The files the scenario read are relative to where it was run, not to the result
        // directory: only duplicates compare them (above).
        let diff: Vec<Difference> = differences(&recorded.settings, &expected.text)
            .into_iter()
            .filter(|d| !d.key.starts_with("files."))
            .collect();
        if !diff.is_empty() {
            return Err(MergeError::Stale {
                run: run.id(&loaded.scenario.name),
                dir: dir.clone(),
                scenario_dir: scenario_dir.to_path_buf(),
                differences: diff,
            });
        }
    }
    Ok(unverified)
}

/// Checks that the runs of `seen` (run path -> directory and identity) read the same contents
/// of every file they name (the `[files]` digests of their settings, by the file's path as the
/// scenario writes it). Runs are compared with the scenario without those digests (the files
/// are relative to where the scenario ran), so this is what tells a shard that ran after the
/// file was edited.
fn check_files(seen: &BTreeMap<PathBuf, (PathBuf, Option<RunIdentity>)>) -> Result<(), MergeError> {
    // File -> its digest, with the first run that read it and that run's directory.
    let mut first: BTreeMap<String, (String, &Path, &Path)> = BTreeMap::new();
    for (rel, (dir, identity)) in seen {
        let Some(identity) = identity else { continue };
        let Ok(settings) = identity.settings.parse::<toml::Table>() else {
            continue;
        };
        let Some(toml::Value::Table(files)) = settings.get("files") else {
            continue;
        };
        for (file, digest) in files {
            let digest = digest
                .as_str()
                .map_or_else(|| digest.to_string(), str::to_string);
            match first.get(file) {
                Some((seen_digest, first_rel, first_dir)) if *seen_digest != digest => {
                    return Err(MergeError::Files {
                        first_run: first_rel.display().to_string(),
                        first: first_dir.to_path_buf(),
                        second_run: rel.display().to_string(),
                        second: dir.clone(),
                        contents: Box::new(FileContents {
                            file: file.clone(),
                            first: seen_digest.clone(),
                            second: digest,
                        }),
                    });
                }
                Some(_) => {}
                None => {
                    first.insert(file.clone(), (digest, rel, dir));
                }
            }
        }
    }
    Ok(())
}

/// Without a scenario to compare with, checks that the runs of `seen` (run path -> directory
/// and identity) come from one scenario: each run's settings must be the first run's, but for
/// its seed and, in runs of another sweep point, the keys either point's name sweeps (a swept
/// `kind` brings the defaults of its whole table; swept file names, the files' digests).
fn check_one_scenario(
    seen: &BTreeMap<PathBuf, (PathBuf, Option<RunIdentity>)>,
) -> Result<(), MergeError> {
    let mut runs = seen
        .iter()
        .filter_map(|(rel, (dir, id))| id.as_ref().map(|id| (rel, dir, id)));
    let Some((first_rel, first_dir, first)) = runs.next() else {
        return Ok(());
    };
    let point_of = |rel: &Path| {
        rel.parent()
            .and_then(Path::file_name)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let first_point = point_of(first_rel);
    for (rel, dir, id) in runs {
        if id.digest == first.digest {
            continue;
        }
        let point = point_of(rel);
        let mut swept: Vec<String> = Vec::new();
        if point != first_point {
            for name in [&first_point, &point] {
                swept.extend(swept_keys(name));
            }
        }
        let covered = |key: &str| {
            key == "run.seed"
                || (!swept.is_empty() && key.starts_with("files."))
                || swept
                    .iter()
                    .any(|axis| key == axis || key.starts_with(&format!("{axis}.")))
        };
        let diff: Vec<Difference> = differences(&first.settings, &id.settings)
            .into_iter()
            .filter(|d| !covered(&d.key))
            .collect();
        if !diff.is_empty() {
            return Err(MergeError::Mixed {
                first_run: first_rel.display().to_string(),
                first: first_dir.clone(),
                second_run: rel.display().to_string(),
                second: dir.clone(),
                differences: diff,
            });
        }
    }
    Ok(())
}

/// The key paths a sweep point's name (`key=value` pairs joined by `,`) assigns, and for a
/// swept `kind` its table, whose defaults follow the kind.
fn swept_keys(point: &str) -> Vec<String> {
    if point == "base" {
        return Vec::new();
    }
    point
        .split(',')
        .filter_map(|pair| pair.split_once('=').map(|(key, _)| key))
        .map(|key| key.strip_suffix(".kind").unwrap_or(key).to_string())
        .collect()
}

/// Whether the result directory `dir` holds a complete run.
pub fn holds_runs(dir: &Path) -> bool {
    run_dirs(&dir.join(RUNS_DIR))
        .iter()
        .any(|run| crate::output::is_complete(run))
}

/// The run directories `runs/<point>/seed-<n>` under `runs`, sorted (none when unreadable).
pub(crate) fn run_dirs(runs: &Path) -> Vec<PathBuf> {
    let subdirs = |dir: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    subdirs(runs).iter().flat_map(|p| subdirs(p)).collect()
}

/// The seeds of every scenario.toml among `scenarios` (directory, text), ascending without
/// repeats: the merged run list of directories run with different seeds (sharding by seed).
/// `None` when the first scenario's seeds already are that list (nothing to change), or when
/// one of them gives no readable `run.seeds`.
pub fn seed_union(scenarios: &[(PathBuf, String)]) -> Option<Vec<u64>> {
    let seeds_of = |text: &str| -> Option<Vec<u64>> {
        let table: toml::Table = text.parse().ok()?;
        match table.get("run")?.get("seeds")? {
            toml::Value::Integer(n) => Some((1..=u64::try_from(*n).ok()?).collect()),
            toml::Value::Array(list) => list
                .iter()
                .map(|v| u64::try_from(v.as_integer()?).ok())
                .collect(),
            _ => None,
        }
    };
    let lists: Vec<Vec<u64>> = scenarios
        .iter()
        .map(|(_, text)| seeds_of(text))
        .collect::<Option<_>>()?;
    let union: Vec<u64> = lists
        .iter()
        .flatten()
        .copied()
        .collect::<std::collections::BTreeSet<u64>>()
        .into_iter()
        .collect();
    (lists.first() != Some(&union)).then_some(union)
}

/// The scenario.toml of each of `dirs` that has one: (directory, text).
pub fn scenario_files(dirs: &[PathBuf]) -> Vec<(PathBuf, String)> {
    dirs.iter()
        .filter_map(|d| {
            crate::output::read_regular_text(&d.join(SCENARIO_FILE))
                .ok()
                .map(|t| (d.clone(), t))
        })
        .collect()
}
