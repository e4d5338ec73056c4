//! Loading scenarios through the library: the shipped scenarios, defaults written out and read
//! back, key paths, sweeps and the errors of issue 6 item 7 (each names the key and the line).

use std::path::Path;

use htsim::scenario::{load, load_str, LoadOptions, Loaded, ScenarioError, Seeds};

fn ok(text: &str) -> Loaded {
    load_str("test.toml", text, Path::new("."), &LoadOptions::default())
        .unwrap_or_else(|e| panic!("should load:\n{e}"))
}

fn bad(text: &str) -> Box<ScenarioError> {
    match load_str("test.toml", text, Path::new("."), &LoadOptions::default()) {
        Ok(_) => panic!("should fail:\n{text}"),
        Err(e) => e,
    }
}

const BASE: &str = r#"
[run]
duration = "1s"
seeds = 2

[topology]
kind = "fattree"
k = 4

[transports.mptcp8]
kind = "mptcp"
subflows = 8

[[flows]]
name = "long"
senders = "33%"
size = "infinite"
transport = "mptcp8"

[[flows]]
name = "short"
senders = "rest"
size = "70KB"
arrivals = { poisson = 256 }
transport = { kind = "tcp" }
"#;

/// Asserts the error is at `line`, names `key` in its key path and mentions `needle`.
fn check(e: &ScenarioError, line: usize, key: &str, needle: &str) {
    let shown = e.to_string();
    assert_eq!(e.line(), Some(line), "wrong line in:\n{shown}");
    assert!(
        e.key_path.contains(key),
        "key path `{}` lacks `{key}`:\n{shown}",
        e.key_path
    );
    assert!(shown.contains(needle), "message lacks `{needle}`:\n{shown}");
    assert!(shown.starts_with(&format!("test.toml:{line}:")), "{shown}");
}

#[test]
fn shipped_scenarios_load() {
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let loaded = load(&path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
            assert!(!loaded.points.is_empty());
        }
    }
}

#[test]
fn a_seed_toml_cannot_hold_is_an_error_not_a_comment() {
    let mut s = ok(BASE).scenario;
    s.run.seeds = htsim::scenario::Seeds::List(vec![1 << 63]);
    assert!(s.to_toml_string().is_err());
}

#[test]
fn defaults_are_filled_and_written_out_and_read_back() {
    let loaded = ok(BASE);
    let s = &loaded.scenario;
    assert_eq!(s.name, "test");
    assert_eq!(s.run.seeds.list(), vec![1, 2]);
    assert_eq!(s.topology.host_count(), Some(16));
    let text = s.to_toml_string().unwrap();
    for needle in [
        "drain = \"0",
        "capacity = \"100pkt\"",
        "mode = \"ecmp\"",
        "cc = \"lia\"",
        "link_rate = \"100Mbps\"",
        "poisson = 256",
    ] {
        assert!(text.contains(needle), "{needle} missing from\n{text}");
    }
    let again = ok(&text);
    assert_eq!(
        &again.scenario, s,
        "the written scenario reads back the same:\n{text}"
    );
}

#[test]
fn sweep_points_and_names() {
    let text = format!(
        "{BASE}\n[sweep]\n\"transports.mptcp8.subflows\" = [1, 2]\n\"flows.short.arrivals.poisson\" = [256, 2560]\n"
    );
    let loaded = ok(&text);
    let names: Vec<&str> = loaded.points.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "transports.mptcp8.subflows=1,flows.short.arrivals.poisson=256",
            "transports.mptcp8.subflows=1,flows.short.arrivals.poisson=2560",
            "transports.mptcp8.subflows=2,flows.short.arrivals.poisson=256",
            "transports.mptcp8.subflows=2,flows.short.arrivals.poisson=2560",
        ]
    );
    let p = &loaded.points[2].scenario;
    assert_eq!(
        p.transport("mptcp8").unwrap().params.int("subflows"),
        Some(2)
    );
    // The resolved scenario keeps its sweep and reads back with the same points.
    let again = ok(&loaded.scenario.to_toml_string().unwrap());
    assert_eq!(again.points.len(), 4);
}

#[test]
fn overrides_and_seed_options() {
    let options = LoadOptions {
        overrides: vec!["flows.short.size=1MB".into(), "topology.k=8".into()],
        seeds: Some(Seeds::List(vec![7])),
        ..LoadOptions::default()
    };
    let loaded = load_str("test.toml", BASE, Path::new("."), &options).unwrap();
    let s = &loaded.points[0].scenario;
    assert_eq!(s.flows[1].size, htsim::scenario::SizeSpec::Fixed(1_000_000));
    assert_eq!(s.topology.params.int("k"), Some(8));
    assert_eq!(s.run.seeds.list(), vec![7]);

    let options = LoadOptions {
        overrides: vec!["run.durration=2s".into()],
        seeds: None,
        ..LoadOptions::default()
    };
    let e = load_str("test.toml", BASE, Path::new("."), &options).unwrap_err();
    let shown = e.to_string();
    assert!(shown.contains("--set run.durration=2s"), "{shown}");
    assert_eq!(e.hint.as_deref(), Some("did you mean `duration`?"));

    // A value that starts as a TOML array, inline table or quoted string but is cut short is a
    // syntax error at its key, not a string the key rejects for another reason.
    for set in [
        "flows.short.size={ uniform = [\"1KB\", \"2KB\"]",
        "topology.k=[4,",
        "flows.short.size=\"10KB",
    ] {
        let options = LoadOptions {
            overrides: vec![set.into()],
            ..LoadOptions::default()
        };
        let e = load_str("test.toml", BASE, Path::new("."), &options).unwrap_err();
        let (path, value) = set.split_once('=').unwrap();
        assert_eq!(e.key_path, path, "{set}");
        assert!(
            e.message
                .starts_with(&format!("`{value}` is not a TOML value: ")),
            "{set}: {}",
            e.message
        );
    }
}

#[test]
fn unknown_key_with_hint() {
    let e = bad(&BASE.replace("duration = \"1s\"", "durtion = \"1s\""));
    check(&e, 3, "run.durtion", "unknown key `durtion`");
    assert_eq!(e.hint.as_deref(), Some("did you mean `duration`?"));
}

#[test]
fn missing_required_key() {
    let e = bad(&BASE.replace("duration = \"1s\"\n", ""));
    check(&e, 2, "run.duration", "missing required key `duration`");
}

#[test]
fn bare_number_where_a_unit_is_needed() {
    let e = bad(&BASE.replace("duration = \"1s\"", "duration = 20"));
    check(&e, 3, "run.duration", "needs a unit");
}

#[test]
fn negative_duration() {
    let e = bad(&BASE.replace("duration = \"1s\"", "duration = \"-1s\""));
    check(&e, 3, "run.duration", "negative");
}

#[test]
fn odd_k() {
    let e = bad(&BASE.replace("k = 4", "k = 5"));
    check(&e, 8, "topology.k", "odd");
}

#[test]
fn ecn_threshold_above_capacity() {
    let text = BASE.replace(
        "[transports.mptcp8]",
        "[queue]\nkind = \"ecn\"\ncapacity = \"10pkt\"\nmark_threshold = \"20pkt\"\n\n[transports.mptcp8]",
    );
    let e = bad(&text);
    check(&e, 13, "queue.mark_threshold", "above the queue capacity");
}

#[test]
fn senders_over_100_percent() {
    let e = bad(&BASE.replace("\"33%\"", "\"140%\""));
    check(&e, 16, "flows.long.senders", "over 100%");
}

#[test]
fn sweep_path_naming_nothing() {
    let e = bad(&format!(
        "{BASE}\n[sweep]\n\"flows.shrt.size\" = [\"1KB\"]\n"
    ));
    check(&e, 28, "sweep.flows.shrt.size", "names nothing");
    assert_eq!(e.hint.as_deref(), Some("did you mean `short`?"));
}

#[test]
fn unknown_transport() {
    let e = bad(&BASE.replace("transport = \"mptcp8\"", "transport = \"mptcp9\""));
    check(
        &e,
        18,
        "flows.long.transport",
        "unknown transport \"mptcp9\"",
    );
    assert_eq!(e.hint.as_deref(), Some("did you mean `mptcp8`?"));
}

#[test]
fn missing_cdf_file() {
    let e = bad(&BASE.replace("size = \"70KB\"", "size = { cdf_file = \"no-such.cdf\" }"));
    check(&e, 23, "flows.short.size.cdf_file", "does not exist");
}

#[test]
fn empty_file() {
    let e = bad("# nothing here\n");
    check(&e, 1, "run", "empty");
}

#[test]
fn toml_syntax_error() {
    let e = bad(&BASE.replace("k = 4", "k = = 4"));
    check(&e, 8, "", "TOML syntax error");
}

#[test]
fn zero_seeds() {
    let e = bad(&BASE.replace("seeds = 2", "seeds = 0"));
    check(&e, 4, "run.seeds", "seeds = 0");
}

#[test]
fn duplicate_flow_class_names() {
    let e = bad(&BASE.replace("name = \"short\"", "name = \"long\""));
    check(&e, 21, "flows.long.name", "duplicate flow class name");
}

#[test]
fn wrong_type_and_unknown_choice() {
    let e = bad(&BASE.replace("kind = \"fattree\"", "kind = \"fatree\""));
    check(&e, 7, "topology.kind", "unknown value");
    assert_eq!(e.hint.as_deref(), Some("did you mean `fattree`?"));
    let e = bad(&BASE.replace("k = 4", "k = \"4\""));
    check(&e, 8, "topology.k", "expected an integer");
}

#[test]
fn receive_window_default_follows_the_profile() {
    let base = r#"
[run]
duration = "1s"
seeds = 1
[topology]
kind = "star"
hosts = 4
link_rate = "1Gbps"
link_delay = "1us"
[transports.a]
kind = "tcp"
[transports.b]
kind = "tcp"
profile = "ns3-mmptcp"
[transports.c]
kind = "tcp"
profile = "ns3-mmptcp"
rwnd = "unlimited"
[[flows]]
name = "f"
matrix = "permutation"
senders = "all"
size = "70KB"
transport = "a"
"#;
    let loaded = htsim::scenario::load_str(
        "profiles",
        base,
        std::path::Path::new("."),
        &htsim::scenario::LoadOptions::default(),
    )
    .expect("loads");
    let text = loaded.scenario.to_toml_string().unwrap();
    let rwnd_of = |name: &str| {
        let section = text
            .split(&format!("[transports.{name}]"))
            .nth(1)
            .expect("section written");
        section
            .lines()
            .find(|l| l.starts_with("rwnd"))
            .expect("rwnd written out")
            .to_string()
    };
    assert_eq!(rwnd_of("a"), r#"rwnd = "unlimited""#, "rfc: no cap");
    assert_eq!(rwnd_of("b"), r#"rwnd = "65535B""#, "ns3-mmptcp: 65535 B");
    assert_eq!(
        rwnd_of("c"),
        r#"rwnd = "unlimited""#,
        "an explicit value wins"
    );
}

/// BASE with a partition/aggregate class on lines 27 to 30 (`jobs` on line 29).
fn with_jobs(jobs: &str, extra: &str) -> String {
    format!("{BASE}\n[[flows]]\nname = \"incast\"\njobs = {jobs}\ntransport = \"mptcp8\"\n{extra}")
}

#[test]
fn job_classes_fill_defaults_and_read_back() {
    let loaded = ok(&with_jobs("{ servers = 4, concurrent = 2 }", ""));
    let class = &loaded.scenario.flows[2];
    assert_eq!(
        class.jobs,
        Some(htsim::scenario::JobsConfig {
            servers: 4,
            request_bytes: 2_000,
            response_bytes: 64_000,
            concurrent: 2,
            rack_local: true,
        })
    );
    let text = loaded.scenario.to_toml_string().unwrap();
    let written = text.split("name = \"incast\"").nth(1).unwrap();
    for needle in [
        "servers = 4",
        "request = \"2KB\"",
        "response = \"64KB\"",
        "rack_local = true",
    ] {
        assert!(written.contains(needle), "{needle} missing from\n{text}");
    }
    // A job class writes none of the matrix keys, so it reads back as it was.
    assert!(
        !written
            .split("[[flows]]")
            .next()
            .unwrap()
            .contains("matrix"),
        "{text}"
    );
    assert_eq!(ok(&text).scenario, loaded.scenario);
}

#[test]
fn job_keys_take_sweeps_and_overrides() {
    let loaded = ok(&with_jobs(
        "{ servers = 8 }",
        "\n[sweep]\n\"flows.incast.jobs.servers\" = [2, 4]\n",
    ));
    let names: Vec<&str> = loaded.points.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["flows.incast.jobs.servers=2", "flows.incast.jobs.servers=4"]
    );
    let servers: Vec<u64> = loaded
        .points
        .iter()
        .map(|p| p.scenario.flows[2].jobs.as_ref().unwrap().servers)
        .collect();
    assert_eq!(servers, [2, 4]);

    let options = LoadOptions {
        overrides: vec![
            "flows.incast.jobs.response=10KB".into(),
            "flows.incast.jobs.rack_local=false".into(),
        ],
        seeds: None,
        ..LoadOptions::default()
    };
    let loaded = load_str("test.toml", &with_jobs("{}", ""), Path::new("."), &options).unwrap();
    let jobs = loaded.points[0].scenario.flows[2].jobs.clone().unwrap();
    assert_eq!(
        (jobs.servers, jobs.response_bytes, jobs.rack_local),
        (8, 10_000, false)
    );
    let options = LoadOptions {
        overrides: vec!["flows.incast.jobs.servers=0".into()],
        seeds: None,
        ..LoadOptions::default()
    };
    let e = load_str("test.toml", &with_jobs("{}", ""), Path::new("."), &options).unwrap_err();
    assert_eq!(e.key_path, "flows.incast.jobs.servers");
    assert!(
        e.to_string().contains("--set flows.incast.jobs.servers=0"),
        "{e}"
    );
}

#[test]
fn bad_job_values() {
    let e = bad(&with_jobs("{ servers = 0 }", ""));
    check(&e, 29, "flows.incast.jobs.servers", "out of range");
    // A k = 4 FatTree has 16 hosts: a client and 16 servers do not fit.
    let e = bad(&with_jobs("{ servers = 16 }", ""));
    check(
        &e,
        29,
        "flows.incast.jobs.servers",
        "needs 17 distinct hosts",
    );
    assert_eq!(e.hint.as_deref(), Some("use servers = 15 or fewer"));
    let e = bad(&with_jobs("{ server = 3 }", ""));
    check(&e, 29, "flows.incast.jobs.server", "unknown key `server`");
    assert_eq!(e.hint.as_deref(), Some("did you mean `servers`?"));
    let e = bad(&with_jobs("{ request = 2000 }", ""));
    check(&e, 29, "flows.incast.jobs.request", "needs a unit");
    let e = bad(&with_jobs("{ response = \"0B\" }", ""));
    check(&e, 29, "flows.incast.jobs.response", "0 bytes");
    let e = bad(&with_jobs("8", ""));
    check(&e, 29, "flows.incast.jobs", "expected a table");
}

#[test]
fn job_classes_reject_matrix_keys() {
    for (entry, key) in [
        ("size = \"70KB\"", "size"),
        ("matrix = \"incast\"", "matrix"),
        ("arrivals = { poisson = 10 }", "arrivals"),
        ("senders = \"rest\"", "senders"),
    ] {
        let text = with_jobs("{ servers = 2 }", "").replace(
            "jobs = { servers = 2 }\n",
            &format!("jobs = {{ servers = 2 }}\n{entry}\n"),
        );
        let e = bad(&text);
        check(
            &e,
            30,
            &format!("flows.incast.{key}"),
            "has no meaning in a class with `jobs`",
        );
        assert!(e
            .hint
            .as_deref()
            .unwrap()
            .contains(&format!("remove `{key}`")));
    }
}

#[test]
fn values_that_cannot_work_are_rejected_at_their_key() {
    // (replace, with, line, key, message)
    let cases = [
        (
            "k = 4",
            "k = 4\nlink_rate = \"0bps\"",
            9,
            "topology.link_rate",
            "a rate of 0",
        ),
        (
            "k = 4",
            "k = 4\n[topology.layers.core]\nlink_rate = \"0Gbps\"",
            10,
            "topology.layers.core.link_rate",
            "a rate of 0",
        ),
        (
            "k = 4",
            "k = 4\n[queue]\ncapacity = \"0pkt\"",
            10,
            "queue.capacity",
            "a queue of 0",
        ),
        (
            "k = 4",
            "k = 4\n[queue.layers.core]\ncapacity = \"0B\"",
            10,
            "queue.layers.core.capacity",
            "a queue of 0",
        ),
        (
            "subflows = 8",
            "subflows = 8\nmss = \"0B\"",
            13,
            "transports.mptcp8.mss",
            "of 0 bytes cannot work",
        ),
    ];
    for (from, to, line, key, needle) in cases {
        let e = bad(&BASE.replacen(from, to, 1));
        check(&e, line, key, needle);
    }
    for (set, line, key, needle) in [
        (
            "{ rate = \"0bps\" }",
            30,
            "events[0].set.rate",
            "a rate of 0",
        ),
        (
            "{ capacity = \"0pkt\" }",
            30,
            "events[0].set.capacity",
            "a queue of 0",
        ),
    ] {
        let e = bad(&format!(
            "{BASE}\n[[events]]\nat = \"1ms\"\nwhere = {{ layer = \"core\" }}\nset = {set}\n"
        ));
        check(&e, line, key, needle);
        assert!(e.hint.as_deref().unwrap().contains("down = true"), "{e}");
    }
}

#[test]
fn a_cdf_path_that_is_a_directory_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sizes.cdf")).unwrap();
    let text = BASE.replace("size = \"70KB\"", "size = { cdf_file = \"sizes.cdf\" }");
    let e = load_str("test.toml", &text, dir.path(), &LoadOptions::default()).unwrap_err();
    check(
        &e,
        23,
        "flows.short.size.cdf_file",
        "is a directory, not a file",
    );
}

#[test]
fn a_sweep_over_the_point_limit_is_refused_before_expanding() {
    use htsim::scenario::MAX_SWEEP_POINTS;
    // 1000 x 1000 = 1e6 points: refused at once, naming the axes' sizes. Every value is a
    // bad duration, which any point resolved would report: the limit comes first.
    let bad_values: Vec<String> = (1..=1000).map(|i| format!("\"{i}xs\"")).collect();
    let bad_values = bad_values.join(", ");
    let text = format!(
        "{BASE}\n[sweep]\n\"topology.link_delay\" = [{bad_values}]\n\"flows.short.start\" = [{bad_values}]\n"
    );
    let e = bad(&text);
    check(
        &e,
        28,
        "sweep",
        "1000 x 1000 points, more than the limit of 100000",
    );
    assert!(e.also.is_empty() && !e.message.contains("duration"), "{e}");
    assert_eq!(MAX_SWEEP_POINTS, 100_000);
    let values: Vec<String> = (1..=1000).map(|i| format!("\"{i}us\"")).collect();
    let values = values.join(", ");
    // 2000 points load, each named once.
    let small = format!(
        "{BASE}\n[sweep]\n\"topology.link_delay\" = [{values}]\n\"run.drain\" = [\"0s\", \"1ms\"]\n"
    );
    let loaded = ok(&small);
    assert_eq!(loaded.points.len(), 2000);
    let names: std::collections::HashSet<&str> =
        loaded.points.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names.len(), 2000);
}

#[test]
fn a_dual_homed_fattree_has_k_cubed_over_3_hosts() {
    // k = 6: 6 pods of 3 ToR pairs, 4 hosts per pair = 72 hosts (the loader counted 36).
    let dhft = |senders: u64| {
        BASE.replace("kind = \"fattree\"\nk = 4", "kind = \"dhft\"\nk = 6")
            .replace("senders = \"33%\"", &format!("senders = {senders}"))
    };
    assert_eq!(ok(&dhft(72)).scenario.topology.host_count(), Some(72));
    check(
        &bad(&dhft(73)),
        16,
        "flows.long.senders",
        "ask for 73 senders, and the topology has 72 hosts",
    );
}

#[test]
fn the_written_scenario_keeps_the_order_of_sweep_axes() {
    // An axis of whole tables before a plain one: written as `[[sweep."..."]]`, TOML would put
    // it last, and a scenario.toml read back (by `htsim report`) would name every point
    // differently from the runs.
    let loaded = ok(r#"
name = "order"
[run]
duration = "1ms"
[topology]
kind = "fattree"
k = 4
[transports.long]
kind = "tcp"
[[flows]]
name = "long"
size = "infinite"
transport = "long"
[sweep]
"transports.long" = [{ kind = "tcp" }, { kind = "dctcp" }]
"topology.link_rate" = ["1Gbps", "10Gbps"]
"#);
    let again = ok(&loaded.scenario.to_toml_string().unwrap());
    let names = |l: &Loaded| l.points.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&loaded).len(), 4);
    assert!(names(&loaded)[0].starts_with("transports.long="));
    assert_eq!(names(&again), names(&loaded));
    assert_eq!(again.scenario, loaded.scenario);
}

/// BASE without its Poisson class: every class opens one flow per sender at its start.
fn fixed_flows(output: &str) -> String {
    let end = BASE.find("[[flows]]\nname = \"short\"").unwrap();
    format!("{}[output]\n{output}\n", &BASE[..end])
}

#[test]
fn trace_key_reads_ids_and_classes_and_is_written_back() {
    let l = ok(&format!(
        "{BASE}\n[output]\ntrace = {{ flows = [3, \"short\"], max_events = 500 }}\n"
    ));
    let t = l.scenario.output.trace.clone().expect("trace");
    assert_eq!(
        t.flows,
        vec![
            htsim::scenario::FlowSelector::Id(3),
            htsim::scenario::FlowSelector::Class("short".into())
        ]
    );
    assert_eq!(t.max_events, 500);
    let back = ok(&l.scenario.to_toml_string().unwrap());
    assert_eq!(back.scenario.output.trace, Some(t));
    // Without the key nothing is traced; max_events has a default.
    assert_eq!(ok(BASE).scenario.output.trace, None);
    let d = ok(&fixed_flows("trace = { flows = [0] }"));
    assert_eq!(
        d.scenario.output.trace.unwrap().max_events,
        htsim::scenario::DEFAULT_TRACE_EVENTS
    );
}

#[test]
fn bad_trace_values() {
    // k = 4: 16 hosts; "33%" of them send one long flow each, so ids stop below 16.
    let e = bad(&fixed_flows("trace = { flows = [2, 16] }"));
    check(&e, 21, "output.trace.flows", "no flow 16");
    let e = bad(&fixed_flows("trace = { flows = [\"longg\"] }"));
    check(&e, 21, "output.trace.flows", "neither");
    assert_eq!(e.hint.as_deref(), Some("did you mean `long`?"));
    let e = bad(&fixed_flows("trace = { flows = [] }"));
    check(&e, 21, "output.trace.flows", "traces nothing");
    let e = bad(&fixed_flows("trace = { flows = [-1] }"));
    check(&e, 21, "output.trace.flows", "");
    let e = bad(&fixed_flows("trace = { flow = [1] }"));
    check(&e, 21, "output.trace.flow", "unknown key");
    let e = bad(&fixed_flows("trace = { flows = [1], max_events = 0 }"));
    check(&e, 21, "output.trace.max_events", "");
    // With Poisson arrivals the number of flows is not known before the run: any id loads.
    ok(&format!(
        "{BASE}\n[output]\ntrace = {{ flows = [100000] }}\n"
    ));
}

#[test]
fn pinned_paths_read_back_and_bad_lists_are_errors_at_their_key() {
    let pinned = |paths: &str| BASE.replace("subflows = 8", &format!("subflows = 8\n{paths}"));
    let loaded = ok(&pinned("paths = { pinned = [3, 0, 3] }"));
    let t = loaded.scenario.transport("mptcp8").unwrap();
    assert_eq!(t.params.list("paths"), Some(&[3, 0, 3][..]));
    let text = loaded.scenario.to_toml_string().unwrap();
    assert!(text.contains("pinned = [3, 0, 3]"), "{text}");
    assert_eq!(ok(&text).scenario, loaded.scenario, "reads back:\n{text}");
    let e = bad(&pinned("paths = { pinned = [] }"));
    check(&e, 13, "transports.mptcp8.paths.pinned", "an empty list");
    let e = bad(&pinned("paths = { pinned = [0, -1] }"));
    check(
        &e,
        13,
        "transports.mptcp8.paths.pinned",
        "-1 is out of range",
    );
    let e = bad(&pinned("paths = { pinned = 2 }"));
    check(
        &e,
        13,
        "transports.mptcp8.paths.pinned",
        "a list of integers",
    );
    let e = bad(&pinned("paths = { pined = [2] }"));
    check(
        &e,
        13,
        "transports.mptcp8.paths.pined",
        "unknown key `pined`",
    );
    assert_eq!(e.hint.as_deref(), Some("did you mean `pinned`?"));
    let e = bad(&pinned("paths = \"pinned\""));
    check(
        &e,
        13,
        "transports.mptcp8.paths",
        "\"pinned\" needs its list",
    );
    assert_eq!(e.hint.as_deref(), Some("write paths = { pinned = [0, 1] }"));
    let e = bad(&pinned("paths = 2"));
    check(&e, 13, "transports.mptcp8.paths", "or { pinned = [...] }");
    let e = bad(&pinned("paths = \"distint\""));
    check(
        &e,
        13,
        "transports.mptcp8.paths",
        "unknown value \"distint\"",
    );
}

#[test]
fn every_sweep_point_that_does_not_resolve_is_reported() {
    // An ECN threshold of 20 packets is above a swept capacity of 10 (at 2 points: both
    // sender counts) and 5 packets (2 points); 99 senders is too many at the one capacity
    // left. Each distinct problem once, with its first point and how many points have it.
    let text = BASE.replace(
        "k = 4",
        "k = 4\n[queue]\nkind = \"ecn\"\nmark_threshold = \"20pkt\"",
    ) + "[sweep]\n\"queue.capacity\" = [\"10pkt\", \"100pkt\", \"5pkt\"]\n\
           \"flows.long.senders\" = [1, 99]\n";
    let e = bad(&text);
    check(
        &e,
        11,
        "queue.mark_threshold",
        "above the queue capacity 10pkt: no packet would ever be marked (at 2 sweep points, the \
         first `queue.capacity=10pkt,flows.long.senders=1`)",
    );
    assert_eq!(e.also.len(), 2, "{e}");
    check(
        &e.also[0],
        31,
        "flows.long.senders",
        "(at sweep point `queue.capacity=100pkt,flows.long.senders=99`)",
    );
    check(
        &e.also[1],
        11,
        "queue.mark_threshold",
        "above the queue capacity 5pkt: no packet would ever be marked (at 2 sweep points",
    );
    assert_eq!(
        e.to_string().matches("\nerror: test.toml:").count(),
        2,
        "{e}"
    );
}

#[test]
fn a_sweep_of_many_bad_values_reports_the_first_twenty_and_counts_the_rest() {
    let values: Vec<String> = (1..=50).map(|i| format!("\"{i}xs\"")).collect();
    let text = format!(
        "{BASE}[sweep]\n\"topology.link_delay\" = [{}]\n",
        values.join(", ")
    );
    let e = bad(&text);
    assert_eq!(e.also.len(), 20, "{e}");
    assert!(e.also[18].message.contains("\"20xs\""), "{e}");
    assert_eq!(e.also[19].key_path, "sweep");
    assert_eq!(
        e.also[19].message,
        "30 more problem(s) at other sweep points, not shown"
    );
}

#[test]
fn first_fit_reads_back_and_bad_settings_are_errors_at_their_key() {
    // BASE is 25 lines: the [routing] table added below is line 26, its keys 27 and 28.
    let routing = |keys: &str| format!("{BASE}[routing]\n{keys}\n");
    let loaded = ok(&routing("first_fit = \"100ms\""));
    let ff = loaded.scenario.routing.first_fit.clone().unwrap();
    assert_eq!(ff.interval, htsim::core::SimTime::from_ms(100));
    assert!((ff.threshold - 0.1).abs() < 1e-12, "{}", ff.threshold);
    let text = loaded.scenario.to_toml_string().unwrap();
    assert!(text.contains("first_fit = \"100ms\""), "{text}");
    assert!(text.contains("first_fit_threshold = \"10%\""), "{text}");
    assert_eq!(ok(&text).scenario, loaded.scenario, "reads back:\n{text}");
    // Off (explicitly or by default) writes nothing, so older scenarios read back as before.
    let off = ok(&routing("first_fit = \"off\"")).scenario;
    assert_eq!(off.routing.first_fit, None);
    assert!(!off.to_toml_string().unwrap().contains("first_fit"));
    assert_eq!(off, ok(BASE).scenario);
    let e = bad(&routing("first_fit = \"0s\""));
    check(&e, 27, "routing.first_fit", "never lets time pass");
    let e = bad(&routing("first_fit = \"often\""));
    check(&e, 27, "routing.first_fit", "not a valid duration");
    assert!(
        e.hint.as_deref().is_some_and(|h| h.contains("\"off\"")),
        "{e}"
    );
    let e = bad(&routing("mode = \"spray\"\nfirst_fit = \"1s\""));
    check(&e, 28, "routing.first_fit", "needs `mode = \"ecmp\"`");
    // A threshold without the scheduler is checked, then ignored (a sweep may pair it with
    // "off" points).
    assert_eq!(
        ok(&routing("first_fit_threshold = \"5%\"")).scenario,
        ok(BASE).scenario
    );
    let e = bad(&routing("first_fit_threshold = \"150%\""));
    check(&e, 27, "routing.first_fit_threshold", "over 100%");
    let e = bad(&routing(
        "first_fit = \"1s\"\nfirst_fit_threshold = \"120%\"",
    ));
    check(&e, 28, "routing.first_fit_threshold", "over 100%");
}

#[test]
fn an_output_layer_name_gets_a_hint_to_the_scenario_name() {
    // VL2's intermediate switches are `int` in summary.csv and `core` in a scenario; BCube's
    // switch levels `level<l>` are one scenario layer, `switch`.
    let vl2 = r#"
[run]
duration = "1ms"
[topology]
kind = "vl2"
[topology.layers.int]
link_rate = "1Gbps"
[[flows]]
name = "n"
size = "1KB"
transport = { kind = "tcp" }
"#;
    let e = bad(vl2);
    check(&e, 6, "topology.layers.int", "unknown key `int`");
    assert!(
        e.hint
            .as_deref()
            .unwrap()
            .contains("is `core` in a scenario"),
        "{e}"
    );
    let e = bad(&vl2.replace("[topology.layers.int]", "[queue.layers.int]"));
    assert!(
        e.hint
            .as_deref()
            .unwrap()
            .contains("is `core` in a scenario"),
        "{e}"
    );
    let bcube = vl2
        .replace("kind = \"vl2\"", "kind = \"bcube\"")
        .replace("layers.int", "layers.level1");
    let e = bad(&bcube);
    check(&e, 6, "topology.layers.level1", "unknown key `level1`");
    assert!(
        e.hint.as_deref().unwrap().contains("part of `switch`"),
        "{e}"
    );
    // Other unknown names keep the spelling suggestion, and so does `int` on a FatTree,
    // whose outputs have no such layer.
    let e = bad(&vl2.replace("layers.int", "layers.cor"));
    assert_eq!(e.hint.as_deref(), Some("did you mean `core`?"));
    let e = bad(&vl2.replace("kind = \"vl2\"", "kind = \"fattree\""));
    assert!(!e.hint.as_deref().unwrap_or("").contains("VL2"), "{e}");
}
