//! `[[reference]]` values, paired sweep axes and `--set` on sweep axes, through the loader:
//! what they read, how they are written back, and every error (file, line, key, hint).

use std::path::Path;

use htsim::identity::Settings;
use htsim::scenario::{load_str, FlowSelector, LoadOptions, Loaded, Published, ScenarioError};

/// A small FatTree with a long and a short class, swept over the link rate and the long
/// class's whole transport table, paired with the marking threshold. (A sweep of
/// `transports.long.kind` alone would keep the keys the written scenario.toml gives the first
/// kind, which another kind may not take.)
const BASE: &str = r#"
[run]
duration = "10ms"
[topology]
kind = "fattree"
k = 4
[queue]
kind = "ecn"
mark_threshold = "20pkt"
[transports.long]
kind = "tcp"
[[flows]]
name = "long"
senders = 2
size = "infinite"
transport = "long"
[[flows]]
name = "short"
senders = "rest"
size = "70KB"
transport = { kind = "tcp" }
[sweep]
"topology.link_rate" = ["1Gbps", "10Gbps"]
[sweep.transport]
"transports.long" = [{ kind = "tcp" }, { kind = "dctcp" }, { kind = "xmp" }]
"queue.mark_threshold" = ["100pkt", "20pkt", "10pkt"]
"#;

fn load_with(text: &str, overrides: &[&str]) -> Result<Loaded, Box<ScenarioError>> {
    let options = LoadOptions {
        overrides: overrides.iter().map(|s| s.to_string()).collect(),
        ..LoadOptions::default()
    };
    load_str("test.toml", text, Path::new("."), &options)
}

fn ok(text: &str) -> Loaded {
    load_with(text, &[]).unwrap_or_else(|e| panic!("should load:\n{e}"))
}

fn bad(text: &str) -> Box<ScenarioError> {
    match load_with(text, &[]) {
        Ok(_) => panic!("should fail:\n{text}"),
        Err(e) => e,
    }
}

/// The 1-based line of the first line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in the text"))
        + 1
}

/// Asserts the error is at the line holding `at`, names `key` and mentions `needle`.
fn check(text: &str, e: &ScenarioError, at: &str, key: &str, needle: &str) {
    let shown = e.to_string();
    let line = line_of(text, at);
    assert_eq!(e.line(), Some(line), "wrong line in:\n{shown}");
    assert_eq!(e.key_path, key, "wrong key path in:\n{shown}");
    assert!(shown.contains(needle), "message lacks `{needle}`:\n{shown}");
    assert!(shown.starts_with(&format!("test.toml:{line}:")), "{shown}");
}

fn names(l: &Loaded) -> Vec<String> {
    l.points.iter().map(|p| p.name.clone()).collect()
}

#[test]
fn paired_axes_move_together_and_combine_with_the_others() {
    let l = ok(BASE);
    assert_eq!(
        names(&l),
        [
            "topology.link_rate=1Gbps,transports.long=_kind=tcp_,queue.mark_threshold=100pkt",
            "topology.link_rate=1Gbps,transports.long=_kind=dctcp_,queue.mark_threshold=20pkt",
            "topology.link_rate=1Gbps,transports.long=_kind=xmp_,queue.mark_threshold=10pkt",
            "topology.link_rate=10Gbps,transports.long=_kind=tcp_,queue.mark_threshold=100pkt",
            "topology.link_rate=10Gbps,transports.long=_kind=dctcp_,queue.mark_threshold=20pkt",
            "topology.link_rate=10Gbps,transports.long=_kind=xmp_,queue.mark_threshold=10pkt",
        ]
    );
    let p = &l.points[2];
    assert_eq!(p.scenario.transport("long").unwrap().kind, "xmp");
    assert_eq!(
        p.scenario.queue.mark_threshold,
        Some(htsim::core::units::BufferSize::Packets(10))
    );
    // One axis column per key path, in [sweep] order.
    let keys: Vec<&str> = p.assignments.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "topology.link_rate",
            "transports.long",
            "queue.mark_threshold"
        ]
    );
    // Written back as an inline group, in place, the points read back the same.
    let text = l.scenario.to_toml_string().unwrap();
    assert!(
        text.contains(
            "transport = { \"transports.long\" = [{ kind = \"tcp\" }, { kind = \"dctcp\" }, \
             { kind = \"xmp\" }], \"queue.mark_threshold\" = [\"100pkt\", \"20pkt\", \"10pkt\"] }"
        ),
        "{text}"
    );
    let again = ok(&text);
    assert_eq!(names(&again), names(&l));
    assert_eq!(again.scenario, l.scenario);
    // An inline group before an axis keeps its place: the group is the outer loop.
    let inline = BASE.replace(
        "[sweep]\n\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]\n[sweep.transport]\n\
         \"transports.long\" = [{ kind = \"tcp\" }, { kind = \"dctcp\" }, { kind = \"xmp\" }]\n\
         \"queue.mark_threshold\" = [\"100pkt\", \"20pkt\", \"10pkt\"]\n",
        "[sweep]\nt = { \"transports.long\" = [{ kind = \"tcp\" }, { kind = \"dctcp\" }], \
         \"queue.mark_threshold\" = [\"100pkt\", \"20pkt\"] }\n\
         \"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]\n",
    );
    let l = ok(&inline);
    assert_eq!(
        names(&l)[1],
        "transports.long=_kind=tcp_,queue.mark_threshold=100pkt,topology.link_rate=10Gbps"
    );
    assert_eq!(
        ok(&l.scenario.to_toml_string().unwrap()).scenario,
        l.scenario
    );
}

#[test]
fn paired_axis_errors() {
    let text = BASE.replace("\"10pkt\"]", "\"10pkt\", \"5pkt\"]");
    let e = bad(&text);
    check(
        &text,
        &e,
        "\"queue.mark_threshold\" = [",
        "sweep.transport.queue.mark_threshold",
        "`transports.long` has 3, `queue.mark_threshold` has 4",
    );
    assert!(e.hint.as_deref().unwrap().contains("move the axis out"));

    // An unquoted key path reads as a group named after a section.
    let text = BASE.replace(
        "\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]",
        "topology.link_rate = [\"1Gbps\", \"10Gbps\"]",
    );
    let e = bad(&text);
    check(
        &text,
        &e,
        "topology.link_rate = [",
        "sweep.topology",
        "key path is not quoted",
    );
    assert_eq!(
        e.hint.as_deref(),
        Some("quote key paths in `[sweep]`: \"topology.<key>\" = [...]")
    );

    // The same value swept twice, or a table and a key inside it.
    let text = BASE.replace(
        "\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]",
        "\"queue.mark_threshold\" = [\"1pkt\"]",
    );
    let e = bad(&text);
    check(
        &text,
        &e,
        "\"queue.mark_threshold\" = [\"100pkt\"",
        "sweep.transport.queue.mark_threshold",
        "`queue.mark_threshold` is swept twice: `sweep.queue.mark_threshold` already assigns it",
    );
    let text = BASE.replace(
        "\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]",
        "\"transports.long.kind\" = [\"tcp\"]",
    );
    let e = bad(&text);
    assert!(e.to_string().contains("or a part of it"), "{e}");

    let e = bad(&format!("{BASE}[sweep.empty]\n"));
    assert!(
        e.to_string().contains("an empty group of paired axes"),
        "{e}"
    );
}

#[test]
fn set_adds_or_replaces_a_sweep_axis() {
    // A new axis, quoted or not, goes last.
    for set in [
        "sweep.\"flows.short.size\"=[\"10KB\", \"1MB\"]",
        "sweep.flows.short.size=[\"10KB\", \"1MB\"]",
    ] {
        let l = load_with(BASE, &[set]).unwrap();
        assert_eq!(l.points.len(), 12, "{set}");
        assert!(names(&l)[1].ends_with(",flows.short.size=1MB"), "{set}");
    }
    // An existing axis keeps its place with the new values.
    let l = load_with(BASE, &["sweep.\"topology.link_rate\"=[\"100Mbps\"]"]).unwrap();
    assert_eq!(l.points.len(), 3);
    assert!(names(&l)[0].starts_with("topology.link_rate=100Mbps,transports"));
    // A whole group.
    let l = load_with(
        BASE,
        &["sweep.transport={ \"transports.long\" = [{ kind = \"dctcp\" }], \"queue.mark_threshold\" = [\"5pkt\"] }"],
    )
    .unwrap();
    assert_eq!(l.points.len(), 2);
    // A scenario without a sweep gets one.
    let plain = &BASE[..BASE.find("[sweep]").unwrap()];
    let l = load_with(plain, &["sweep.\"topology.k\"=[4, 6]"]).unwrap();
    assert_eq!(names(&l), ["topology.k=4", "topology.k=6"]);
    // A bad value is an error at the --set.
    let e = load_with(plain, &["sweep.\"topology.k\"=4"]).unwrap_err();
    let shown = e.to_string();
    assert!(
        shown.contains("in `--set sweep.\"topology.k\"=4`"),
        "{shown}"
    );
    assert!(shown.contains("expected a list of values"), "{shown}");
    // So is a table put in place of an axis of the file (read as a group with a bad name): it
    // was shown at the file's line of the axis, which holds no table.
    let set = "sweep.\"topology.link_rate\"={}";
    let e = load_with(BASE, &[set]).unwrap_err();
    let shown = e.to_string();
    assert!(shown.contains(&format!("in `--set {set}`")), "{shown}");
    assert!(
        shown.contains("is read as a group of paired axes"),
        "{shown}"
    );
    // A --set of a key the sweep assigns is still an error.
    let e = load_with(BASE, &["topology.link_rate=1Gbps"]).unwrap_err();
    assert!(
        e.to_string().contains("would be recorded but never used"),
        "{e}"
    );
    let e = load_with(plain, &["topology.k=8", "sweep.\"topology.k\"=[4, 6]"]).unwrap_err();
    assert!(
        e.to_string().contains("`[sweep]` assigns `topology.k`"),
        "{e}"
    );
}

const REFERENCES: &str = r#"
[[reference]]
source = "MMPTCP paper, Table 2"
metric = "fct_mean"
class = "short"
point = { "transports.long" = { kind = "tcp" }, "queue.mark_threshold" = "100pkt" }
value = 64.3
unit = "ms"
tolerance_pct = 10
spread = 118

[[reference]]
source = "A bound"
metric = "utilisation"
class = "layer:core"
at_most = 90
unit = "%"

[[reference]]
source = "A range"
metric = "events"
class = "run"
point = { "topology.link_rate" = "10Gbps" }
at_least = 1
at_most = 1e9
unit = "events"
"#;

#[test]
fn references_are_read_written_back_and_change_no_run() {
    let text = format!("{BASE}{REFERENCES}");
    let l = ok(&text);
    let r = &l.scenario.references;
    assert_eq!(r.len(), 3);
    assert_eq!(r[0].source, "MMPTCP paper, Table 2");
    assert_eq!(
        r[0].published,
        Published::Value {
            value: 64.3,
            tolerance_pct: Some(10.0)
        }
    );
    assert_eq!(r[0].spread, Some(118.0));
    assert_eq!(
        r[2].published,
        Published::Bounds {
            at_least: Some(1.0),
            at_most: Some(1e9)
        }
    );
    // Which points each applies to.
    let applies = |i: usize| -> Vec<usize> {
        (0..l.points.len())
            .filter(|&p| r[i].applies_to(&l.points[p].assignments))
            .collect()
    };
    assert_eq!(applies(0), [0, 3]);
    assert_eq!(applies(1), [0, 1, 2, 3, 4, 5]);
    assert_eq!(applies(2), [3, 4, 5]);
    let again = ok(&l.scenario.to_toml_string().unwrap());
    assert_eq!(again.scenario, l.scenario);
    // References are not settings of a run: adding them leaves every run's digest alone.
    let without = ok(BASE);
    for (a, b) in l.points.iter().zip(&without.points) {
        assert_eq!(
            Settings::of(&a.scenario, 1).digest,
            Settings::of(&b.scenario, 1).digest
        );
    }
    assert_eq!(
        htsim::identity::scenario_digest(&l.scenario),
        htsim::identity::scenario_digest(&without.scenario)
    );
}

/// BASE with the first reference's line holding `from` replaced by `to`.
fn with_reference(from: &str, to: &str) -> String {
    let refs = REFERENCES.replacen(from, to, 1);
    assert_ne!(refs, REFERENCES, "`{from}` not in the references");
    format!("{BASE}{refs}")
}

#[test]
fn reference_errors_name_the_line_the_key_and_a_fix() {
    let cases: &[(&str, &str, &str, &str, Option<&str>)] = &[
        // (replace, with, key path, message, hint)
        (
            "metric = \"fct_mean\"",
            "metric = \"fct_men\"",
            "reference[0].metric",
            "unknown metric \"fct_men\"",
            Some("did you mean `fct_mean`?"),
        ),
        (
            "class = \"short\"",
            "class = \"shrt\"",
            "reference[0].class",
            "unknown class \"shrt\": expected a flow class, \"layer:<name>\" or \"run\" (here: long, short, layer:<name>, run)",
            Some("did you mean `short`?"),
        ),
        (
            "class = \"short\"",
            "class = \"run\"",
            "reference[0].class",
            "`fct_mean` is a metric of flow classes",
            None,
        ),
        (
            "unit = \"ms\"",
            "unit = \"s\"",
            "reference[0].unit",
            "unit \"s\" does not match the metric: `fct_mean` is in \"ms\"",
            Some("convert the published value to ms and write unit = \"ms\""),
        ),
        (
            "spread = 118",
            "spread = 118\nat_most = 70",
            "reference[0].at_most",
            "give either `value` (with an optional `tolerance_pct`) or a bound",
            None,
        ),
        (
            "tolerance_pct = 10",
            "tolerance_pct = -10",
            "reference[0].tolerance_pct",
            "-10 is negative",
            None,
        ),
        (
            "value = 64.3",
            "value = \"64.3ms\"",
            "reference[0].value",
            "expected a number, in the metric's unit, found a string",
            None,
        ),
        (
            "value = 64.3",
            "vale = 64.3",
            "reference[0].vale",
            "unknown key `vale`",
            Some("did you mean `value`?"),
        ),
        (
            "point = { \"transports.long\" =",
            "point = { \"transports.lon\" =",
            "reference[0].point.transports.lon",
            "\"transports.lon\" is not a sweep axis: the axes are \"topology.link_rate\", \"transports.long\" or \"queue.mark_threshold\"",
            Some("did you mean `transports.long`?"),
        ),
        (
            "\"transports.long\" = { kind = \"tcp\" },",
            "\"transports.long\" = { kind = \"tcp\", mss = \"1000B\" },",
            "reference[0].point.transports.long",
            "no sweep point has `transports.long` = {kind=tcp,mss=1000B}: the axis takes {kind=tcp}, {kind=dctcp}, {kind=xmp}",
            None,
        ),
        (
            "\"queue.mark_threshold\" = \"100pkt\" }",
            "\"queue.mark_threshold\" = \"20pkt\" }",
            "reference[0].point",
            "no sweep point has these values together: the axes of group `transport` are paired",
            Some("give the values of one position of the group's lists"),
        ),
    ];
    for (from, to, key, message, hint) in cases {
        let text = with_reference(from, to);
        let e = bad(&text);
        let at = to.lines().last().unwrap();
        check(&text, &e, at, key, message);
        assert_eq!(e.hint.as_deref(), *hint, "hint of {e}");
    }
    // Required keys are named, at the table.
    let text = with_reference("unit = \"ms\"\n", "");
    let e = bad(&text);
    assert_eq!(e.key_path, "reference[0].unit");
    assert!(e.to_string().contains("missing required key `unit`"), "{e}");
    let text = with_reference("value = 64.3\n", "");
    let e = bad(&text);
    assert!(e.to_string().contains("missing the published value"), "{e}");
    // A bound takes no tolerance, and a range must be one.
    let text = format!(
        "{BASE}{}",
        REFERENCES.replace("at_most = 90", "at_most = 90\ntolerance_pct = 5")
    );
    let e = bad(&text);
    check(
        &text,
        &e,
        "tolerance_pct = 5",
        "reference[1].tolerance_pct",
        "a tolerance applies to `value`",
    );
    let text = format!(
        "{BASE}{}",
        REFERENCES.replace("at_least = 1\n", "at_least = 2e9\n")
    );
    let e = bad(&text);
    check(
        &text,
        &e,
        "at_least = 2e9",
        "reference[2].at_least",
        "no value satisfies both",
    );
    // Point keys need a sweep.
    let plain = format!("{}{REFERENCES}", &BASE[..BASE.find("[sweep]").unwrap()]);
    let e = bad(&plain);
    assert!(
        e.to_string()
            .contains("is not a sweep axis: the scenario has no `[sweep]`"),
        "{e}"
    );
}

#[test]
fn a_reference_to_a_layer_the_network_lacks_is_found_before_any_run() {
    let text = format!("{BASE}{}", REFERENCES.replace("layer:core", "layer:cores"));
    let l = ok(&text);
    let problems = htsim::simulate::preflight::check(&l, 1).unwrap_err();
    let e = &problems.0[0];
    assert_eq!(e.key_path, "reference[1].class");
    assert_eq!(e.line(), Some(line_of(&text, "layer:cores")));
    assert!(
        e.message.starts_with(
            "this network has no layer \"cores\": its layers in summary.csv are \"layer:tor\", \
             \"layer:agg\", \"layer:core\", \"layer:host\""
        ),
        "{e}"
    );
    assert_eq!(e.hint.as_deref(), Some("did you mean `core`?"));
    // Reported once, for every point.
    assert_eq!(problems.0.len(), 1);
    assert!(e.message.ends_with("(at 6 sweep points, the first `topology.link_rate=1Gbps,transports.long=_kind=tcp_,queue.mark_threshold=100pkt`)"), "{e}");
    assert!(htsim::simulate::preflight::check(&ok(&format!("{BASE}{REFERENCES}")), 1).is_ok());
}

#[test]
fn a_swept_table_keeps_the_order_of_its_keys_in_scenario_toml() {
    // `htsim report` names the points from DIR/scenario.toml: the names must be the runs'.
    let text = BASE.replace("{ kind = \"dctcp\" }", "{ kind = \"dctcp\", g = 0.5 }");
    let l = ok(&text);
    assert!(names(&l)[1].contains("transports.long=_kind=dctcp_g=0.5_"));
    let written = l.scenario.to_toml_string().unwrap();
    assert!(
        written.contains("{ kind = \"dctcp\", g = 0.5 }"),
        "{written}"
    );
    assert_eq!(names(&ok(&written)), names(&l));
    // A reference's point matches a table whatever the order of its keys.
    let refs = REFERENCES.replace(
        "\"transports.long\" = { kind = \"tcp\" }",
        "\"transports.long\" = { g = 0.5, kind = \"dctcp\" }",
    );
    let refs = refs.replace("\"100pkt\" }", "\"20pkt\" }");
    let l = ok(&format!("{text}{refs}"));
    assert!(l.scenario.references[0].applies_to(&l.points[1].assignments));
    assert_eq!(
        ok(&l.scenario.to_toml_string().unwrap()).scenario,
        l.scenario
    );
}

#[test]
fn a_sweep_of_the_name_or_description_is_refused() {
    // They change nothing simulated: `name = ["a", "b"]` made two points running the same.
    for (axis, label) in [
        ("\"name\" = [\"a\", \"b\"]", "name"),
        ("description = [\"x\", \"y\"]", "description"),
    ] {
        let text = BASE.replace("\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]", axis);
        let e = bad(&text);
        check(
            &text,
            &e,
            &axis[..axis.find('=').unwrap()],
            &format!("sweep.{label}"),
            &format!("a sweep cannot change `{label}`"),
        );
    }
}

#[test]
fn a_sweep_never_changes_the_seeds() {
    // An axis on `run.seeds` gave every point a seed list of its own: 50 values of 1000000
    // seeds passed the limit on runs (checked against `[run] seeds`) and validate drew 50
    // million traffic matrices.
    let base = BASE.replace("duration = \"10ms\"", "duration = \"10ms\"\nseeds = 2");
    let text = base.replace(
        "\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]",
        "\"run.seeds\" = [1000000, 999999]",
    );
    let e = bad(&text);
    check(
        &text,
        &e,
        "\"run.seeds\" = [",
        "sweep.run.seeds",
        "a sweep cannot change `run.seeds`",
    );
    // So is a whole `[run]` table that holds `seeds`, in a group too.
    let text = base.replace(
        "\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]",
        "\"run\" = [{ duration = \"5ms\", seeds = 9 }]",
    );
    check(
        &text,
        &bad(&text),
        "\"run\" = [",
        "sweep.run",
        "a sweep cannot change `run.seeds`",
    );
    let e = load_with(&base, &["sweep.g={ \"run.seeds\" = [1, 2] }"]).unwrap_err();
    assert!(e.to_string().contains("cannot change `run.seeds`"), "{e}");

    // A whole `[run]` table without `seeds` keeps the scenario's seeds at every point (it
    // took the default, one seed, instead).
    let text = base.replace(
        "\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]",
        "\"run\" = [{ duration = \"5ms\" }, { duration = \"10ms\" }]",
    );
    let l = ok(&text);
    assert_eq!(l.points.len(), 6);
    for p in &l.points {
        assert_eq!(p.scenario.run.seeds.list(), vec![1, 2], "{}", p.name);
    }
    assert_eq!(htsim::runner::run_list(&l).len(), 12);
    // So `--set run.seeds` beside such an axis is used, not refused as never used.
    let l = load_with(&text, &["run.seeds=[5]"]).unwrap_or_else(|e| panic!("{e}"));
    assert!(l.points.iter().all(|p| p.scenario.run.seeds.list() == [5]));
}

#[test]
fn a_check_between_two_keys_uses_each_points_value_of_a_swept_one() {
    // A traced flow id is checked against the flows a run opens, which `draws` multiplies; a
    // `hosts` range against the topology's hosts. Both read the swept key at the base's own
    // value, which no point runs: `draws = 4` (64 long flows on 16 hosts, and 16 short ones)
    // was refused because the base, with one draw, opens 32.
    let base = BASE
        .replace("senders = 2\n", "draws = 1\n")
        .replace("[sweep]", "[output]\ntrace = { flows = [50] }\n[sweep]");
    let swept = |axis: &str| {
        base.replace(
            "\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]",
            &format!("\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]\n{axis}"),
        )
    };
    let l = ok(&swept("\"flows.long.draws\" = [4]"));
    assert_eq!(l.points.len(), 6);
    for p in &l.points {
        let trace = p.scenario.output.trace.as_ref().expect("traced");
        assert_eq!(trace.flows, vec![FlowSelector::Id(50)], "{}", p.name);
        assert_eq!(p.scenario.flows[0].draws, Some(4), "{}", p.name);
    }
    // Each point is still checked with its own values: two draws open 48 flows.
    let text = swept("\"flows.long.draws\" = [4, 2]");
    let e = bad(&text);
    check(
        &text,
        &e,
        "trace = {",
        "output.trace.flows",
        "no flow 50: this scenario opens at most 48 flows, with ids 0 to 47 (as in flows.csv) \
         (at 6 sweep points, the first `topology.link_rate=1Gbps,flows.long.draws=2,",
    );
    // A problem of the base's that every point has is reported as before, without a point.
    let text = swept("\"flows.long.draws\" = [1]");
    let e = bad(&text);
    check(
        &text,
        &e,
        "trace = {",
        "output.trace.flows",
        "this scenario opens at most 32 flows, with ids 0 to 31 (as in flows.csv)\n",
    );

    // A `hosts` range that the base's 16 hosts lack, on a swept k = 8 (128 hosts).
    let text = BASE
        .replace("senders = 2\n", "senders = 2\nhosts = \"0-99\"\n")
        .replace(
            "\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]",
            "\"topology.k\" = [8]",
        );
    let l = ok(&text);
    assert!(l.points.iter().all(|p| p.name.starts_with("topology.k=8")));
    // The base is the document at the first point; the seeds stay those of `[run]`, also
    // beside an axis that replaces the whole table (which then leaves them out).
    let text = text
        .replace("duration = \"10ms\"", "duration = \"10ms\"\nseeds = 3")
        .replace(
            "\"topology.k\" = [8]",
            "\"topology.k\" = [8]\n\"run\" = [{ duration = \"5ms\" }]",
        );
    let l = ok(&text);
    assert_eq!(l.scenario.topology, l.points[0].scenario.topology);
    assert_eq!(l.scenario.run.seeds.list(), vec![1, 2, 3]);
    assert!(l
        .points
        .iter()
        .all(|p| p.scenario.run.seeds.list() == [1, 2, 3]));
}

#[test]
fn narrowing_the_sweep_past_a_reference_says_how_to_drop_the_references() {
    // `--set sweep...` keeping only 1 Gb/s leaves the third reference (10 Gb/s) without its
    // point: still an error at the reference, now with the way out.
    let text = format!("{BASE}{REFERENCES}");
    let e = load_with(&text, &["sweep.topology.link_rate=[\"1Gbps\"]"]).unwrap_err();
    let shown = e.to_string();
    assert_eq!(
        e.key_path, "reference[2].point.topology.link_rate",
        "{shown}"
    );
    assert!(
        shown.contains("hint: a --set narrowed the sweep: add --set 'reference=[]' to leave the file's references out"),
        "{shown}"
    );
    let l = load_with(
        &text,
        &["sweep.topology.link_rate=[\"1Gbps\"]", "reference=[]"],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(l.scenario.references.is_empty());
    assert_eq!(l.points.len(), 3);
    // Without a --set on the sweep, the hint is the spelling one, as before.
    let e = bad(&text.replace("\"10Gbps\" }", "\"10Gbs\" }"));
    assert!(e.to_string().contains("did you mean"), "{e}");
}
