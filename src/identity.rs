//! Run identity: what one run simulated, recorded next to its results (`run.json`), so that
//! resuming skips a run only when it would simulate exactly the same thing again, and reports
//! merge only runs of the same scenario.
//!
//! A run's *settings* are its sweep point's resolved scenario, every default written out, with
//! `run.seeds` replaced by the run's one seed (`run.seed`), plus a `[files]` table with the
//! SHA-256 of every file the scenario reads (`cdf_file`s, `pairs_file`s, a `file` topology's
//! `path`), so that an edited file counts as a change. Left out: the scenario's `name` and
//! `description` (they name and describe, and change nothing simulated), `[[reference]]`
//! (published values to compare with, which change nothing simulated either), `output.plots`
//! (charts drawn over all runs, from their files) and `[sweep]` (the point's values are
//! already in place). The settings are TOML text with sorted keys; their SHA-256 is the run's
//! *digest*.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::scenario::Scenario;

/// The htsim version that wrote a run.
pub const HTSIM_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git commit htsim was built from, where known: `HTSIM_GIT_COMMIT` when the build set it
/// (e.g. `HTSIM_GIT_COMMIT=$(git rev-parse HEAD) cargo build --release`), else the `HEAD` of
/// the git checkout it was built in (the crate's build script). Changes not committed are not
/// told. `None` for a build from a registry or a source archive.
pub const GIT_COMMIT: Option<&str> = option_env!("HTSIM_GIT_COMMIT");

/// What one run simulated, as `runs/<point>/seed-<n>/run.json` records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunIdentity {
    /// The run's id, `<scenario>/<point>/seed-<n>`.
    pub id: String,
    /// `sha256:` and the hex SHA-256 of `settings`.
    pub digest: String,
    /// The htsim version that ran it.
    pub htsim_version: String,
    /// The git commit of that htsim, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_commit: Option<String>,
    /// The command line that ran it, as a shell would take it (empty when not given).
    #[serde(default)]
    pub command_line: String,
    /// The run's resolved settings (see the module documentation), TOML.
    pub settings: String,
}

/// A run's settings and their digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The settings as TOML text with sorted keys.
    pub text: String,
    /// `sha256:<hex>` of `text`.
    pub digest: String,
}

impl Settings {
    /// The settings of the run of `scenario` (a sweep point's resolved scenario) with `seed`,
    /// reading the files it names now.
    pub fn of(scenario: &Scenario, seed: u64) -> Settings {
        Settings::with_files(scenario, seed, &FileDigests::default())
    }

    /// [`Settings::of`], the files the run reads digested through `files` (each read once
    /// for all the runs of a command).
    pub fn with_files(scenario: &Scenario, seed: u64, files: &FileDigests) -> Settings {
        let mut table = point_table(scenario);
        if let Some(toml::Value::Table(run)) = table.get_mut("run") {
            run.remove("seeds");
            run.insert("seed".into(), toml::Value::Integer(seed as i64));
        }
        let mut referenced = Vec::new();
        referenced_files(&toml::Value::Table(table.clone()), &mut referenced);
        if !referenced.is_empty() {
            let digests: toml::Table = referenced
                .into_iter()
                .map(|rel| {
                    let digest = files.of(&scenario.base_dir.join(&rel));
                    (rel, toml::Value::String(digest))
                })
                .collect();
            table.insert("files".into(), toml::Value::Table(digests));
        }
        Settings::from_table(&table)
    }

    fn from_table(table: &toml::Table) -> Settings {
        let text = toml::to_string(table).unwrap_or_default();
        let digest = digest(text.as_bytes());
        Settings { text, digest }
    }
}

/// The digests of the files runs read, by path: each file is read and hashed once, the first
/// time a run's settings need it, so that every run of a command records the same digest.
#[derive(Debug, Default)]
pub struct FileDigests(Mutex<HashMap<PathBuf, String>>);

impl FileDigests {
    /// `sha256:<hex>` of the file at `path` (`unreadable: ...` when it cannot be read).
    pub fn of(&self, path: &Path) -> String {
        let mut known = self.0.lock().unwrap_or_else(|e| e.into_inner());
        known
            .entry(path.to_path_buf())
            .or_insert_with(|| match std::fs::read(path) {
                Ok(bytes) => digest(&bytes),
                Err(e) => format!("unreadable: {e}"),
            })
            .clone()
    }
}

/// `sha256:<hex>` of a whole scenario (its sweep and seed list included) without its name,
/// description and references: writers of one directory with the same digest run the same run
/// list with the same settings. (Shards of one run list deal out its positions, so shards of
/// different seed lists would not partition anything.)
pub fn scenario_digest(scenario: &Scenario) -> String {
    let mut table = toml::Table::try_from(scenario).unwrap_or_default();
    for key in ["name", "description", "reference"] {
        table.remove(key);
    }
    digest(toml::to_string(&table).unwrap_or_default().as_bytes())
}

/// The point's scenario as a TOML table, without what does not change the simulation nor the
/// run's files: `output.plots` only draws charts over all runs.
fn point_table(scenario: &Scenario) -> toml::Table {
    // Our own plain data converts: the loader refuses integers above i64::MAX.
    let mut table = toml::Table::try_from(scenario).unwrap_or_default();
    for key in ["name", "description", "sweep", "reference"] {
        table.remove(key);
    }
    if let Some(toml::Value::Table(output)) = table.get_mut("output") {
        output.remove("plots");
    }
    table
}

/// The files a scenario table reads, as written (relative to the scenario's directory): every
/// `cdf_file` and `pairs_file`, and `topology.path` of a `file` topology.
fn referenced_files(value: &toml::Value, out: &mut Vec<String>) {
    match value {
        toml::Value::Table(t) => {
            for key in ["cdf_file", "pairs_file"] {
                if let Some(toml::Value::String(path)) = t.get(key) {
                    out.push(path.clone());
                }
            }
            if let (Some(toml::Value::String(kind)), Some(toml::Value::String(path))) =
                (t.get("kind"), t.get("path"))
            {
                if kind == "file" {
                    out.push(path.clone());
                }
            }
            t.values().for_each(|v| referenced_files(v, out));
        }
        toml::Value::Array(items) => items.iter().for_each(|v| referenced_files(v, out)),
        _ => {}
    }
}

/// `sha256:` and the hex SHA-256 of `bytes`.
fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The htsim build a run was (or is being) simulated by: `<version>`, and ` (commit <hex>)`
/// where the commit is known.
pub fn build_name(version: &str, commit: Option<&str>) -> String {
    match commit {
        Some(c) => format!("{version} (commit {c})"),
        None => version.to_string(),
    }
}

impl RunIdentity {
    /// The htsim build that simulated the run ([`build_name`]).
    pub fn build(&self) -> String {
        build_name(&self.htsim_version, self.git_commit.as_deref())
    }

    /// The identity of a run about to be written: `settings` from [`Settings::of`], this htsim.
    pub fn new(id: String, settings: &Settings, command_line: &[String]) -> RunIdentity {
        RunIdentity {
            id,
            digest: settings.digest.clone(),
            htsim_version: HTSIM_VERSION.to_string(),
            git_commit: GIT_COMMIT.map(str::to_string),
            command_line: shell_words(command_line),
            settings: settings.text.clone(),
        }
    }

    /// The text of run.json: pretty JSON ending with a newline.
    pub fn to_json(&self) -> Vec<u8> {
        // Strings only: always serialises.
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text.into_bytes()
    }

    /// Reads `path` (a run.json); `None` when it is missing, unreadable or not a run identity,
    /// or when its `digest` is not the digest of its `settings` text ([`RunIdentity::is_sound`]:
    /// settings edited by hand, or a damaged file): such a record says nothing trustworthy
    /// about what the run simulated.
    pub fn read(path: &Path) -> Option<RunIdentity> {
        let bytes = crate::output::read_regular(path).ok()?;
        serde_json::from_slice::<RunIdentity>(&bytes)
            .ok()
            .filter(RunIdentity::is_sound)
    }

    /// Whether `digest` is the digest of `settings` as recorded, as htsim writes it.
    pub fn is_sound(&self) -> bool {
        self.digest == digest(self.settings.as_bytes())
    }
}

/// `args` joined by spaces, each quoted for a POSIX shell when it needs it.
fn shell_words(args: &[String]) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c);
    args.iter()
        .map(|a| {
            if !a.is_empty() && a.chars().all(plain) {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One setting that differs between two runs: its key path (`topology.link_rate`, flow classes
/// by name as in `--set`: `flows.short.size`) and both values (`None`: absent).
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// The key path.
    pub key: String,
    /// The value on the first side.
    pub old: Option<String>,
    /// The value on the second side.
    pub new: Option<String>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(absent)".into());
        write!(
            f,
            "{}: {} -> {}",
            self.key,
            show(&self.old),
            show(&self.new)
        )
    }
}

/// The first `most` of `differences` joined by `; `, then how many more there are.
pub fn describe_differences(differences: &[Difference], most: usize) -> String {
    let shown: Vec<String> = differences
        .iter()
        .take(most)
        .map(|d| d.to_string())
        .collect();
    match differences.len().saturating_sub(most) {
        0 => shown.join("; "),
        more => format!("{}; and {more} more key(s)", shown.join("; ")),
    }
}

/// The keys whose values differ between two settings texts, in key order. Text that is not
/// TOML counts as one difference at the key `settings`.
pub fn differences(old: &str, new: &str) -> Vec<Difference> {
    match (old.parse::<toml::Table>(), new.parse::<toml::Table>()) {
        (Ok(a), Ok(b)) => {
            let mut out = Vec::new();
            diff_tables(&a, &b, "", &mut out);
            out
        }
        _ if old == new => Vec::new(),
        _ => vec![Difference {
            key: "settings".into(),
            old: Some(old.to_string()),
            new: Some(new.to_string()),
        }],
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

fn diff_tables(a: &toml::Table, b: &toml::Table, prefix: &str, out: &mut Vec<Difference>) {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        diff_values(a.get(k), b.get(k), &join(prefix, k), out);
    }
}

fn diff_values(
    a: Option<&toml::Value>,
    b: Option<&toml::Value>,
    key: &str,
    out: &mut Vec<Difference>,
) {
    match (a, b) {
        (Some(x), Some(y)) if x == y => {}
        (Some(toml::Value::Table(x)), Some(toml::Value::Table(y))) => diff_tables(x, y, key, out),
        (Some(toml::Value::Array(x)), Some(toml::Value::Array(y)))
            if named(x).is_some() && named(y).is_some() =>
        {
            // Arrays of named tables ([[flows]]): matched by name, like `--set` addresses them.
            let (nx, ny) = (named(x).unwrap_or_default(), named(y).unwrap_or_default());
            let mut names: Vec<&str> = nx.iter().chain(&ny).map(|(n, _)| *n).collect();
            names.sort_unstable();
            names.dedup();
            let find = |v: &[(&str, &toml::Table)], n: &str| {
                v.iter().find(|(m, _)| *m == n).map(|(_, t)| (*t).clone())
            };
            for n in names {
                let (ta, tb) = (find(&nx, n), find(&ny, n));
                diff_values(
                    ta.map(toml::Value::Table).as_ref(),
                    tb.map(toml::Value::Table).as_ref(),
                    &join(key, n),
                    out,
                );
            }
        }
        _ => out.push(Difference {
            key: key.to_string(),
            old: a.map(show),
            new: b.map(show),
        }),
    }
}

/// The tables of `items` by their `name`, when every item is a table with a string name.
fn named(items: &[toml::Value]) -> Option<Vec<(&str, &toml::Table)>> {
    items
        .iter()
        .map(|v| match v {
            toml::Value::Table(t) => match t.get("name") {
                Some(toml::Value::String(n)) => Some((n.as_str(), t)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// A value as TOML shows it, inline.
fn show(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{load_str, LoadOptions};

    fn scenario(extra: &str, set: &[&str]) -> Scenario {
        let text = format!(
            "name = \"t\"\n[run]\nduration = \"1ms\"\nseeds = 3\n[topology]\nkind = \"star\"\n\
             hosts = 2\n{extra}\n[[flows]]\nname = \"long\"\nsize = \"infinite\"\n\
             transport = {{ kind = \"tcp\" }}\n"
        );
        let options = LoadOptions {
            overrides: set.iter().map(|s| s.to_string()).collect(),
            seeds: None,
            ..LoadOptions::default()
        };
        load_str("t.toml", &text, Path::new("."), &options)
            .unwrap()
            .scenario
    }

    #[test]
    fn sha256_of_known_text() {
        assert_eq!(
            digest(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_digest_follows_settings_and_seed_but_not_the_seed_list_or_name() {
        let base = scenario("", &[]);
        let a = Settings::of(&base, 1);
        assert!(a.text.contains("seed = 1"), "{}", a.text);
        assert!(!a.text.contains("seeds"), "{}", a.text);
        assert_ne!(a.digest, Settings::of(&base, 2).digest);
        let mut renamed = base.clone();
        renamed.name = "other".into();
        renamed.description = "words".into();
        renamed.run.seeds = crate::scenario::Seeds::Count(9);
        assert_eq!(Settings::of(&renamed, 1), a);
        let faster = scenario("", &["topology.link_rate=\"10Gbps\""]);
        let b = Settings::of(&faster, 1);
        assert_ne!(a.digest, b.digest);
        let diff = differences(&a.text, &b.text);
        assert_eq!(diff.len(), 1, "{diff:?}");
        assert_eq!(diff[0].key, "topology.link_rate");
        assert_eq!(
            diff[0].to_string(),
            "topology.link_rate: \"100Mbps\" -> \"10Gbps\""
        );
    }

    #[test]
    fn a_build_in_a_git_checkout_knows_its_commit() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let head = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["rev-parse", "--show-toplevel", "HEAD"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        let Some(head) = head else {
            // Not built in a checkout (a source archive): the commit is unknown, or set.
            return;
        };
        let mut lines = head.lines();
        let top = lines.next().map(Path::new);
        if top.and_then(|t| t.canonicalize().ok()) != root.canonicalize().ok() {
            return;
        }
        // HEAD's, unless the build set HTSIM_GIT_COMMIT by hand.
        let commit = GIT_COMMIT.expect("a build in a git checkout records its commit");
        let head = lines.next().unwrap_or_default();
        assert!(
            commit == head || std::env::var_os("HTSIM_GIT_COMMIT").is_some(),
            "{commit} is not HEAD {head}"
        );
    }

    #[test]
    fn the_command_line_is_recorded_as_a_shell_would_take_it() {
        let args: Vec<String> = [
            "htsim",
            "run",
            "s.toml",
            "--set",
            "topology.link_rate=\"10Gbps\"",
            "it's",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            shell_words(&args),
            r#"htsim run s.toml --set 'topology.link_rate="10Gbps"' 'it'\''s'"#
        );
    }

    #[test]
    fn an_edited_topology_file_changes_the_digest() {
        let dir = tempfile::tempdir().unwrap();
        let net = "host host0\nhost host1\nswitch sw layer=tor\n\
                   link host0 sw 1Gbps 1us 100pkt\nlink host1 sw 1Gbps 1us 100pkt\n";
        std::fs::write(dir.path().join("net.txt"), net).unwrap();
        let text = "[run]\nduration = \"1ms\"\n[topology]\nkind = \"file\"\npath = \"net.txt\"\n\
                    [[flows]]\nname = \"long\"\nsize = \"infinite\"\ntransport = { kind = \"tcp\" }\n";
        let scenario = load_str("t.toml", text, dir.path(), &LoadOptions::default())
            .unwrap()
            .scenario;
        let a = Settings::of(&scenario, 1);
        assert!(
            a.text.contains("[files]\n\"net.txt\" = \"sha256:"),
            "{}",
            a.text
        );
        std::fs::write(dir.path().join("net.txt"), net.replace("1Gbps", "2Gbps")).unwrap();
        let b = Settings::of(&scenario, 1);
        let keys: Vec<String> = differences(&a.text, &b.text)
            .into_iter()
            .map(|d| d.key)
            .collect();
        assert_eq!(keys, ["files.net.txt"]);
    }

    #[test]
    fn a_run_json_whose_settings_do_not_give_its_digest_does_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        let settings = Settings::of(&scenario("", &[]), 1);
        let identity = RunIdentity::new("t/base/seed-1".into(), &settings, &[]);
        std::fs::write(&path, identity.to_json()).unwrap();
        assert_eq!(RunIdentity::read(&path), Some(identity.clone()));
        // The settings edited by hand, the old digest kept.
        let edited = RunIdentity {
            settings: identity.settings.replace("100Mbps", "10Gbps"),
            ..identity.clone()
        };
        assert_ne!(edited.settings, identity.settings);
        assert!(!edited.is_sound());
        std::fs::write(&path, edited.to_json()).unwrap();
        assert_eq!(RunIdentity::read(&path), None);
        // The digest edited instead.
        let redigested = RunIdentity {
            digest: format!("sha256:{}", "0".repeat(64)),
            ..identity
        };
        std::fs::write(&path, redigested.to_json()).unwrap();
        assert_eq!(RunIdentity::read(&path), None);
    }

    #[test]
    fn plots_are_no_setting_of_a_run() {
        let a = Settings::of(&scenario("", &[]), 1);
        let b = Settings::of(&scenario("", &["output.plots=true"]), 1);
        assert_eq!(a, b);
        assert!(!a.text.contains("plots"), "{}", a.text);
    }

    #[test]
    fn a_switch_added_later_is_no_setting_until_it_is_on() {
        // Runs written before `ecn` existed simulated it off: their settings stay current.
        let plain = Settings::of(&scenario("", &[]), 1);
        assert!(!plain.text.contains("ecn"), "{}", plain.text);
        let off = "flows.long.transport={ kind = \"tcp\", ecn = false }";
        assert_eq!(Settings::of(&scenario("", &[off]), 1), plain);
        let on = Settings::of(
            &scenario("", &["flows.long.transport={ kind = \"tcp\", ecn = true }"]),
            1,
        );
        assert!(on.text.contains("ecn = true"), "{}", on.text);
        assert_ne!(on.digest, plain.digest);
    }

    #[test]
    fn flow_classes_differ_by_name() {
        let a = Settings::of(&scenario("", &[]), 1);
        let b = Settings::of(&scenario("", &["flows.long.start=\"1us\""]), 1);
        let keys: Vec<String> = differences(&a.text, &b.text)
            .into_iter()
            .map(|d| d.key)
            .collect();
        assert_eq!(keys, ["flows.long.start"]);
        assert!(differences(&a.text, &a.text).is_empty());
    }
}
