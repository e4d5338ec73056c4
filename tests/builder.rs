//! The scenario builder (src/builder.rs): a scenario built in code equals the one loaded from the
//! equivalent TOML, runs to the same bytes, runs its seeds and sweep points through the runner
//! to the same files, and bad values give the loader's errors (same key path, message and hint)
//! without panicking.

use std::path::Path;

use htsim::builder::ScenarioBuilder;
use htsim::core::units::BufferSize;
use htsim::core::{Rate, SimTime};
use htsim::runner::{run_all, write_report, ReportOutcome, RunOptions};
use htsim::scenario::params::ParamValue;
use htsim::scenario::{
    load_str, Arrivals, Event, EventChange, EventTarget, FlowClass, FlowSelector, JobsConfig,
    LinkOverride, LoadOptions, Loaded, Location, OutputConfig, QueueConfig, QueueSettings,
    RoutingMode, ScenarioError, Seeds, Senders, SizeSpec, TimeseriesConfig, TopologyConfig,
    TraceConfig, TransportConfig,
};
use htsim::simulate::{run, RunContext, Simulator};

fn load(text: &str) -> Result<Loaded, Box<ScenarioError>> {
    load_str("demo.toml", text, Path::new("."), &LoadOptions::default())
}

/// A small FatTree scenario as a file; [`demo`] builds the same in code.
const DEMO: &str = r#"
name = "demo"
[run]
duration = "60ms"
drain = "20ms"
seeds = 2
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
link_delay = "10us"
[queue]
kind = "ecn"
capacity = "100pkt"
mark_threshold = "20pkt"
[transports.long]
kind = "mptcp"
subflows = 4
[[flows]]
name = "long"
senders = 4
size = "infinite"
transport = "long"
[[flows]]
name = "short"
senders = "rest"
size = { cdf = "websearch" }
arrivals = { poisson = 2000 }
transport = { kind = "dctcp" }
"#;

fn demo() -> ScenarioBuilder {
    ScenarioBuilder::new("demo")
        .duration(SimTime::from_ms(60))
        .drain(SimTime::from_ms(20))
        .seeds(Seeds::Count(2))
        .topology(
            TopologyConfig::fattree(4)
                .link_rate(Rate::gbps(1))
                .link_delay(SimTime::from_us(10)),
        )
        .queue(QueueConfig::ecn(
            BufferSize::Packets(100),
            BufferSize::Packets(20),
        ))
        .transport("long", TransportConfig::mptcp(4))
        .flows(FlowClass::long("long", "long").senders(Senders::Count(4)))
        .flows(
            FlowClass::new(
                "short",
                SizeSpec::cdf("websearch"),
                TransportConfig::dctcp(),
            )
            .senders(Senders::Rest)
            .arrivals(Arrivals::Poisson(2000.0)),
        )
}

#[test]
fn a_built_scenario_equals_the_one_loaded_from_toml() {
    let built = demo().build().unwrap();
    let loaded = load(DEMO).unwrap();
    assert_eq!(built, loaded.scenario);
    assert_eq!(built, loaded.points[0].scenario);
    // Defaults are filled in by the loader, not left empty.
    assert_eq!(built.topology.params.int("oversubscription"), Some(1));
    assert_eq!(
        built.transport("long").unwrap().params.get("cc"),
        Some(&ParamValue::Text("lia".into()))
    );
    // And the scenario writes out as a file that reads back the same.
    assert_eq!(
        load(&built.to_toml_string().unwrap()).unwrap().scenario,
        built
    );
}

#[test]
fn every_part_of_a_scenario_can_be_built() {
    let text = r#"
name = "everything"
description = "all the keys"
[run]
duration = "1s"
warmup = "100ms"
seeds = [3, 7]
[topology]
kind = "vl2"
da = 4
di = 4
hosts_per_tor = 2
switch_rate = "10Gbps"
[topology.layers.core]
link_delay = "5us"
[topology.layers.host]
link_rate = "100Mbps"
[queue]
kind = "droptail"
capacity = "64KB"
[queue.layers.core]
kind = "ecn"
capacity = "200pkt"
mark_threshold = "30pkt"
[routing]
mode = "spray"
[transports.x]
kind = "xmp"
subflows = 2
beta = 8
[transports.m]
kind = "mptcp"
cc = "ewtcp"
min_rto = "10ms"
mss = "1460B"
paths = { pinned = [1, 0] }
[[flows]]
name = "incast"
matrix = "incast"
fan_in = 4
senders = "25%"
size = { uniform = ["10KB", "1MB"] }
start = "10ms"
arrivals = { every = "100ms" }
transport = "x"
[[flows]]
name = "stride"
matrix = "stride"
offset = 2
senders = 2
size = { pareto = { shape = 1.5, mean = "100KB", max = "1MB" } }
arrivals = { closed_loop = true }
transport = "m"
[[flows]]
name = "local"
matrix = "locality"
rack_local = "30%"
senders = "rest"
size = "70KB"
transport = { kind = "tcp", delayed_ack = true }
[[events]]
at = "500ms"
where = { layer = "core", switches = "50%" }
set = { down = true }
[[events]]
at = "600ms"
where = { link = ["agg0.0"] }
set = { rate = "100Mbps" }
[output]
flows = true
links = false
plots = true
crossings = ["int0<->agg0", "tor1"]
[output.timeseries]
interval = "1ms"
series = ["queue", "cwnd"]
links = ["core"]
flows = ["incast", 3]
[sweep]
"transports.x.beta" = [4, 8]
"flows.local.size" = ["70KB", "1MB"]
"#;
    let built = ScenarioBuilder::new("everything")
        .description("all the keys")
        .duration(SimTime::from_secs(1))
        .warmup(SimTime::from_ms(100))
        .seeds(Seeds::List(vec![3, 7]))
        .topology(
            TopologyConfig::vl2(4, 4)
                .param("hosts_per_tor", 2)
                .param("switch_rate", Rate::gbps(10))
                .layer(
                    "core",
                    LinkOverride {
                        link_delay: Some(SimTime::from_us(5)),
                        ..LinkOverride::default()
                    },
                )
                .layer(
                    "host",
                    LinkOverride {
                        link_rate: Some(Rate::mbps(100)),
                        ..LinkOverride::default()
                    },
                ),
        )
        .queue(QueueConfig::droptail(BufferSize::Bytes(64_000)).layer(
            "core",
            QueueSettings::ecn(BufferSize::Packets(200), BufferSize::Packets(30)),
        ))
        .routing(RoutingMode::Spray)
        .transport("x", TransportConfig::xmp(2).param("beta", 8))
        .transport(
            "m",
            TransportConfig::new("mptcp")
                .param("cc", "ewtcp")
                .param("min_rto", SimTime::from_ms(10))
                .param("mss", ParamValue::Size(1460))
                .pinned_paths([1, 0]),
        )
        .flows(
            FlowClass::new("incast", SizeSpec::Uniform(10_000, 1_000_000), "x")
                .incast(4)
                .senders(Senders::percent(25.0))
                .start(SimTime::from_ms(10))
                .arrivals(Arrivals::Every(SimTime::from_ms(100))),
        )
        .flows(
            FlowClass::new(
                "stride",
                SizeSpec::Pareto {
                    shape: 1.5,
                    mean: 100_000,
                    max: Some(1_000_000),
                },
                "m",
            )
            .stride(2)
            .senders(Senders::Count(2))
            .arrivals(Arrivals::closed_loop()),
        )
        .flows(
            FlowClass::new(
                "local",
                SizeSpec::Fixed(70_000),
                TransportConfig::tcp().param("delayed_ack", true),
            )
            .locality("30%")
            .senders(Senders::Rest),
        )
        .event(Event {
            at: SimTime::from_ms(500),
            target: EventTarget::Layer {
                layer: "core".into(),
                switches: Some("50%".into()),
            },
            set: EventChange::Down,
        })
        .event(Event {
            at: SimTime::from_ms(600),
            target: EventTarget::Links(vec!["agg0.0".into()]),
            set: EventChange::Rate(Rate::mbps(100)),
        })
        .output(htsim::scenario::OutputConfig {
            flows: true,
            links: false,
            timeseries: None,
            trace: None,
            crossings: vec!["int0<->agg0".into(), "tor1".into()],
            plots: false,
        })
        .plots(true)
        .timeseries(htsim::scenario::TimeseriesConfig {
            interval: SimTime::from_ms(1),
            series: vec!["queue".into(), "cwnd".into()],
            links: vec!["core".into()],
            flows: vec![
                htsim::scenario::FlowSelector::Class("incast".into()),
                htsim::scenario::FlowSelector::Id(3),
            ],
        })
        .sweep("transports.x.beta", [4, 8])
        .sweep("flows.local.size", ["70KB", "1MB"])
        .build_loaded()
        .unwrap_or_else(|e| panic!("{e}"));
    let loaded = load_str("everything", text, Path::new("."), &LoadOptions::default()).unwrap();
    assert_eq!(built.scenario, loaded.scenario);
    assert_eq!(built.points, loaded.points);
    assert_eq!(built.points.len(), 4);
    assert_eq!(
        built.points[3].name,
        "transports.x.beta=8,flows.local.size=1MB"
    );
}

/// The incast-jobs pattern (scenarios/incast-jobs.toml, smaller) as a file; [`jobs_demo`]
/// builds the same in code.
const JOBS_DEMO: &str = r#"
name = "demo"
[run]
duration = "30ms"
drain = "30ms"
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
[transports.large]
kind = "tcp"
[[flows]]
name = "large"
matrix = "random"
senders = "50%"
size = "infinite"
transport = "large"
[[flows]]
name = "incast"
start = "1ms"
jobs = { servers = 6, request = "4KB", response = "32KB", concurrent = 3, rack_local = false }
transport = { kind = "dctcp" }
[[flows]]
name = "xmp"
jobs = {}
transport = "large"
"#;

fn jobs_demo(incast: JobsConfig) -> ScenarioBuilder {
    jobs_demo_with(incast_class(incast))
}

/// The `incast` class of [`JOBS_DEMO`] with job settings `incast`.
fn incast_class(incast: JobsConfig) -> FlowClass {
    FlowClass::partition_aggregate("incast", incast, TransportConfig::dctcp())
        .start(SimTime::from_ms(1))
}

/// [`JOBS_DEMO`] with `incast` as its second class.
fn jobs_demo_with(incast: FlowClass) -> ScenarioBuilder {
    ScenarioBuilder::new("demo")
        .duration(SimTime::from_ms(30))
        .drain(SimTime::from_ms(30))
        .topology(TopologyConfig::fattree(4).link_rate(Rate::gbps(1)))
        .transport("large", TransportConfig::tcp())
        .flows(
            FlowClass::long("large", "large")
                .matrix(htsim::scenario::MatrixKind::Random)
                .senders(Senders::percent(50.0)),
        )
        .flows(incast)
        // The with-method on any class; the matrix keys of `new` are left out.
        .flows(FlowClass::new("xmp", SizeSpec::Fixed(1000), "large").jobs(JobsConfig::default()))
}

#[test]
fn a_built_jobs_class_equals_the_one_loaded_from_toml() {
    let incast = JobsConfig::new()
        .servers(6)
        .request(4_000)
        .response(32_000)
        .concurrent(3)
        .rack_local(false);
    let built = jobs_demo(incast.clone())
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let loaded = load(JOBS_DEMO).unwrap();
    assert_eq!(built, loaded.scenario);
    assert_eq!(built.flows[1].jobs, Some(incast));
    // `JobsConfig::new()` is the loader's defaults, `jobs = {}`.
    assert_eq!(built.flows[2].jobs, Some(JobsConfig::new()));
    assert_eq!(built.flows[2].size, SizeSpec::default());
    assert_eq!(
        load(&built.to_toml_string().unwrap()).unwrap().scenario,
        built
    );
    // And it runs the same jobs.
    let a = files_of(&built, 3);
    let b = files_of(&loaded.scenario, 3);
    let summary: serde_json::Value = serde_json::from_str(&a.2).unwrap();
    for class in [1, 2] {
        let jobs = &summary["classes"][class]["jobs_completed"];
        assert!(jobs.as_u64().unwrap() > 0, "class {class}: {jobs}");
    }
    assert_eq!(a, b);
}

#[test]
fn bad_jobs_values_give_the_loaders_errors() {
    let e = same_error(
        &JOBS_DEMO.replace("servers = 6", "servers = 0"),
        jobs_demo(JobsConfig::new().servers(0)),
        "flows.incast.jobs.servers",
    );
    assert!(e.message.contains("0 is out of range"), "{e}");
    let e = same_error(
        &JOBS_DEMO.replace("servers = 6", "servers = 16"),
        jobs_demo(JobsConfig::new().servers(16)),
        "flows.incast.jobs.servers",
    );
    assert_eq!(e.hint.as_deref(), Some("use servers = 15 or fewer"));
    same_error(
        &JOBS_DEMO.replace("response = \"32KB\"", "response = \"0B\""),
        jobs_demo(JobsConfig::new().response(0)),
        "flows.incast.jobs.response",
    );
    same_error(
        &JOBS_DEMO.replace("concurrent = 3", "concurrent = 0"),
        jobs_demo(JobsConfig::new().concurrent(0)),
        "flows.incast.jobs.concurrent",
    );
    // A job class has no arrivals, built or written.
    let e = same_error(
        &JOBS_DEMO.replace(
            "start = \"1ms\"",
            "start = \"1ms\"\narrivals = { poisson = 10 }",
        ),
        jobs_demo_with(incast_class(JobsConfig::new()).arrivals(Arrivals::Poisson(10.0))),
        "flows.incast.arrivals",
    );
    assert!(
        e.message.contains("no meaning in a class with `jobs`"),
        "{e}"
    );
}

/// The files of a run, the wall-clock figures of summary.json taken out.
fn files_of(scenario: &htsim::scenario::Scenario, seed: u64) -> (Vec<u8>, Vec<u8>, String) {
    let out = run(scenario, seed, &RunContext::default()).unwrap();
    let mut summary: serde_json::Value = serde_json::to_value(&out.files.summary).unwrap();
    let cost = summary["cost"].as_object_mut().unwrap();
    for wall in [
        "wall_seconds",
        "events_per_second",
        "data_packets_per_second",
    ] {
        assert!(cost.remove(wall).is_some(), "{wall} in the summary");
    }
    (
        out.files.flows_csv.unwrap(),
        out.files.links_csv.unwrap(),
        summary.to_string(),
    )
}

#[test]
fn built_and_loaded_scenarios_run_to_the_same_bytes() {
    let built = demo().build().unwrap();
    let loaded = load(DEMO).unwrap().scenario;
    let a = files_of(&built, 5);
    let b = files_of(&loaded, 5);
    assert!(a.0.len() > 200, "flows.csv has rows");
    assert_eq!(a, b);
}

#[test]
fn a_built_sweep_runs_its_seeds_and_points_through_the_runner() {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let built = demo()
        .sweep("transports.long.subflows", [1, 4])
        .build_loaded()
        .unwrap();
    let loaded = load(&format!(
        "{DEMO}\n[sweep]\n\"transports.long.subflows\" = [1, 4]\n"
    ))
    .unwrap();
    for (l, dir) in [&built, &loaded].into_iter().zip(&dirs) {
        let options = RunOptions {
            out: dir.path().to_path_buf(),
            jobs: 2,
            shard: None,
            ..RunOptions::default()
        };
        let report = run_all(l, &options, &Simulator::for_loaded(l), &|_| {}).unwrap();
        assert_eq!(report.finished.len(), 4, "{report:?}");
        assert!(report.failed.is_empty(), "{report:?}");
        assert!(matches!(
            write_report(l, dir.path()).unwrap(),
            ReportOutcome::Written(_)
        ));
    }
    let read = |i: usize, rel: &str| std::fs::read(dirs[i].path().join(rel)).unwrap();
    for rel in [
        "scenario.toml",
        "summary.csv",
        "runs/transports.long.subflows=1/seed-2/flows.csv",
        "runs/transports.long.subflows=4/seed-1/links.csv",
    ] {
        assert_eq!(read(0, rel), read(1, rel), "{rel} differs");
    }
}

#[test]
fn a_topology_file_assembled_in_code_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("switch s0\n");
    for h in 0..4 {
        text += &format!("host host{h}\nlink host{h} s0 1Gbps 10us 100pkt\n");
    }
    std::fs::write(dir.path().join("star.topo"), text).unwrap();
    let scenario = ScenarioBuilder::new("custom")
        .base_dir(dir.path())
        .duration(SimTime::from_ms(20))
        .topology(TopologyConfig::file("star.topo"))
        .flows(FlowClass::new(
            "f",
            SizeSpec::Fixed(20_000),
            TransportConfig::tcp(),
        ))
        .build()
        .unwrap();
    let out = run(&scenario, 1, &RunContext::default()).unwrap();
    let class = &out.summary().classes[0];
    assert_eq!(class.finite_flows, 4);
    assert_eq!(class.completed, 4);
}

/// The loader's error for `text`, and the builder's for `builder`: the same key path, message
/// and hint; the builder's has no line.
fn same_error(text: &str, builder: ScenarioBuilder, key_path: &str) -> Box<ScenarioError> {
    let from_file = load(text).expect_err("the file is rejected");
    let built = builder.build().expect_err("the builder is rejected");
    assert_eq!(built.key_path, key_path, "{built}");
    assert_eq!(
        (&built.key_path, &built.message, &built.hint),
        (&from_file.key_path, &from_file.message, &from_file.hint),
        "\nbuilder: {built}\nfile:    {from_file}"
    );
    assert_eq!(built.location, Location::File);
    assert!(built.to_string().starts_with("demo (builder): "), "{built}");
    built
}

#[test]
fn bad_values_give_the_loaders_errors() {
    let e = same_error(
        &DEMO.replace("k = 4", "k = 5"),
        demo().topology(TopologyConfig::fattree(5).link_rate(Rate::gbps(1))),
        "topology.k",
    );
    assert!(e.message.contains("odd"), "{e}");

    let e = same_error(
        &DEMO.replace("mark_threshold = \"20pkt\"", "mark_threshold = \"200pkt\""),
        demo().queue(QueueConfig::ecn(
            BufferSize::Packets(100),
            BufferSize::Packets(200),
        )),
        "queue.mark_threshold",
    );
    assert!(e.message.contains("above the queue capacity"), "{e}");

    let zero = DEMO.replace("senders = 4", "senders = 0");
    same_error(
        &zero,
        demo_with_long(FlowClass::long("long", "long").senders(Senders::Count(0))),
        "flows.long.senders",
    );

    let e = same_error(
        &DEMO.replace("transport = \"long\"", "transport = \"lon\""),
        demo_with_long(FlowClass::long("long", "lon").senders(Senders::Count(4))),
        "flows.long.transport",
    );
    assert!(
        e.message
            .contains("unknown transport \"lon\" (known: long)"),
        "{e}"
    );
    assert_eq!(e.hint.as_deref(), Some("did you mean `long`?"));

    let e = same_error(
        &DEMO.replace("kind = \"mptcp\"", "kind = \"mptc\""),
        demo().transport("long", TransportConfig::new("mptc")),
        "transports.long.kind",
    );
    assert_eq!(e.hint.as_deref(), Some("did you mean `mptcp`?"));

    let e = same_error(
        &DEMO.replace("name = \"short\"", "name = \"long\""),
        ScenarioBuilder::new("demo")
            .duration(SimTime::from_ms(60))
            .drain(SimTime::from_ms(20))
            .seeds(Seeds::Count(2))
            .topology(
                TopologyConfig::fattree(4)
                    .link_rate(Rate::gbps(1))
                    .link_delay(SimTime::from_us(10)),
            )
            .queue(QueueConfig::ecn(
                BufferSize::Packets(100),
                BufferSize::Packets(20),
            ))
            .transport("long", TransportConfig::mptcp(4))
            .flows(FlowClass::long("long", "long").senders(Senders::Count(4)))
            .flows(
                FlowClass::new("long", SizeSpec::cdf("websearch"), TransportConfig::dctcp())
                    .senders(Senders::Rest)
                    .arrivals(Arrivals::Poisson(2000.0)),
            ),
        "flows.long.name",
    );
    assert!(e.message.contains("duplicate flow class name"), "{e}");
}

/// [`demo`] with another first flow class.
fn demo_with_long(long: FlowClass) -> ScenarioBuilder {
    let base = demo().build().unwrap();
    let mut b = ScenarioBuilder::new("demo")
        .duration(base.run.duration)
        .drain(base.run.drain)
        .seeds(base.run.seeds.clone())
        .topology(base.topology.clone())
        .queue(base.queue.clone());
    for t in &base.transports {
        b = b.transport(&t.name, t.config.clone());
    }
    b.flows(long).flows(base.flows[1].clone())
}

#[test]
fn values_the_loader_rejects_never_panic() {
    // Each is rejected with the key of the field at fault.
    let cases: Vec<(ScenarioBuilder, &str)> = vec![
        (ScenarioBuilder::new("demo"), "run.duration"),
        (
            ScenarioBuilder::new("demo").duration(SimTime::from_ms(1)),
            "topology",
        ),
        (
            ScenarioBuilder::new("demo")
                .duration(SimTime::from_ms(1))
                .topology(TopologyConfig::fattree(4)),
            "flows",
        ),
        (ScenarioBuilder::new("a b c"), "name"),
        (demo().duration(SimTime::ZERO), "run.duration"),
        (demo().seeds(Seeds::Count(0)), "run.seeds"),
        (demo().seeds(Seeds::Count(u64::MAX)), "run.seeds"),
        (demo().seeds(Seeds::List(vec![])), "run.seeds"),
        (
            demo().topology(TopologyConfig::new("fatree")),
            "topology.kind",
        ),
        (
            demo().topology(TopologyConfig::fattree(4).param("kk", 1)),
            "topology.kk",
        ),
        (
            demo().topology(TopologyConfig::fattree(4).param("k", "four")),
            "topology.k",
        ),
        (demo().topology(TopologyConfig::dhft(8)), "topology.k"),
        (demo().topology(TopologyConfig::vl2(3, 4)), "topology.da"),
        (
            demo().transport("a.b", TransportConfig::tcp()),
            "transports.a.b",
        ),
        (
            demo().transport("long", TransportConfig::mptcp(4).param("cc", "nope")),
            "transports.long.cc",
        ),
        (
            demo().flows(
                FlowClass::new("x", SizeSpec::Fixed(1000), "long")
                    .arrivals(Arrivals::Poisson(f64::NAN)),
            ),
            "flows.x.arrivals.poisson",
        ),
        (
            demo().flows(FlowClass::new("x", SizeSpec::Fixed(0), "long")),
            "flows.x.size",
        ),
        (
            demo().flows(FlowClass::long("x", "long").arrivals(Arrivals::Poisson(10.0))),
            "flows.x.arrivals",
        ),
        (
            demo().flows(FlowClass::long("x", "long").senders(Senders::percent(150.0))),
            "flows.x.senders",
        ),
        (
            demo().flows(FlowClass::new("x", SizeSpec::cdf("nosuch"), "long")),
            "flows.x.size.cdf",
        ),
        (
            demo().event(Event {
                at: SimTime::from_secs(10),
                target: EventTarget::Links(vec![]),
                set: EventChange::Down,
            }),
            "events[0].at",
        ),
        (
            demo().sweep("transports.long.subflows", Vec::<i64>::new()),
            "sweep.transports.long.subflows",
        ),
    ];
    for (builder, key) in cases {
        match builder.build() {
            Ok(s) => panic!("accepted, expected an error at {key}: {s:?}"),
            Err(e) => assert_eq!(e.key_path, key, "{e}"),
        }
    }
}

#[test]
fn paired_sweeps_and_references_build_as_the_file_loads_them() {
    let built = demo()
        .sweep("topology.link_rate", ["1Gbps", "10Gbps"])
        .paired_sweep(
            "pair",
            [
                ("transports.long.cc", vec!["lia", "uncoupled"]),
                ("queue.mark_threshold", vec!["20pkt", "10pkt"]),
            ],
        )
        .reference(htsim::scenario::Reference {
            source: "A paper, Table 1".into(),
            metric: "fct_mean".into(),
            class: "short".into(),
            point: vec![(
                "queue.mark_threshold".into(),
                htsim::scenario::Node::new(
                    htsim::scenario::tree::Value::String("10pkt".into()),
                    htsim::scenario::Origin::Unknown,
                ),
            )],
            unit: "ms".into(),
            published: htsim::scenario::Published::Value {
                value: 1.5,
                tolerance_pct: Some(20.0),
            },
            spread: None,
        })
        .build_loaded()
        .unwrap();
    let loaded = load(&format!(
        "{DEMO}\n[sweep]\n\"topology.link_rate\" = [\"1Gbps\", \"10Gbps\"]\n[sweep.pair]\n\
         \"transports.long.cc\" = [\"lia\", \"uncoupled\"]\n\
         \"queue.mark_threshold\" = [\"20pkt\", \"10pkt\"]\n\
         [[reference]]\nsource = \"A paper, Table 1\"\nmetric = \"fct_mean\"\nclass = \"short\"\n\
         point = {{ \"queue.mark_threshold\" = \"10pkt\" }}\nvalue = 1.5\nunit = \"ms\"\n\
         tolerance_pct = 20\n"
    ))
    .unwrap();
    assert_eq!(built.scenario, loaded.scenario);
    let names = |l: &Loaded| l.points.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&built), names(&loaded));
    assert_eq!(built.points.len(), 4);
    assert_eq!(
        built.points[3].name,
        "topology.link_rate=10Gbps,transports.long.cc=uncoupled,queue.mark_threshold=10pkt"
    );
}

#[test]
fn a_built_first_fit_scheduler_equals_the_one_loaded_from_toml() {
    let built = demo()
        .first_fit(SimTime::from_ms(100), "8%")
        .build()
        .unwrap();
    let text = format!("{DEMO}\n[routing]\nfirst_fit = \"100ms\"\nfirst_fit_threshold = \"8%\"\n");
    assert_eq!(built, load(&text).unwrap().scenario);
    let ff = built.routing.first_fit.as_ref().unwrap();
    assert_eq!(ff.interval, SimTime::from_ms(100));
    assert!((ff.threshold - 0.08).abs() < 1e-12, "{}", ff.threshold);
}

#[test]
fn a_later_setter_replaces_a_value_that_could_not_be_written() {
    // u64::MAX is above the largest TOML integer: reported at the setter's key, clearly.
    let e = demo().seeds(Seeds::Count(u64::MAX)).build().unwrap_err();
    assert_eq!(e.key_path, "run.seeds");
    assert_eq!(
        e.message,
        "cannot be written as a scenario value: an integer above 9223372036854775807 (the \
         largest integer a scenario holds)"
    );
    // Replaced by a later call, the bad value no longer counts, as any replaced value.
    let fixed = demo().seeds(Seeds::Count(u64::MAX)).seeds(Seeds::Count(2));
    assert_eq!(fixed.build().unwrap().run.seeds, Seeds::Count(2));
    // A whole table replaces what was set below it.
    let trace = |max_events| TraceConfig {
        flows: vec![FlowSelector::All],
        max_events,
    };
    assert!(demo()
        .trace(trace(u64::MAX))
        .trace(trace(10))
        .build()
        .is_ok());
    let output = OutputConfig {
        flows: true,
        links: true,
        timeseries: None,
        trace: None,
        crossings: Vec::new(),
        plots: false,
    };
    assert!(demo().trace(trace(u64::MAX)).output(output).build().is_ok());
    // A setter of another key leaves the error in place; so does an appended class.
    let e = demo()
        .seeds(Seeds::Count(u64::MAX))
        .drain(SimTime::from_ms(1))
        .build()
        .unwrap_err();
    assert_eq!(e.key_path, "run.seeds");
    let e = demo()
        .flows(FlowClass::long("x", "long").stride(u64::MAX))
        .seeds(Seeds::Count(1))
        .build()
        .unwrap_err();
    assert_eq!(e.key_path, "flows.x");
}

#[test]
fn durations_beyond_the_scenario_limit_are_errors_not_overflows() {
    // SimTime::MAX as a link delay overflowed the first packet's arrival time (a panic in a
    // debug build, a wrapped time in a release build). Durations end at 10^6 s.
    let e = demo()
        .topology(TopologyConfig::fattree(4).link_delay(SimTime::MAX))
        .build()
        .unwrap_err();
    assert_eq!(e.key_path, "topology.link_delay");
    assert_eq!(
        e.message,
        "\"18446744.073709551615s\" is too large for a duration (at most 1000000s, about 11.6 \
         days)"
    );
    for (builder, key) in [
        (demo().duration(SimTime::MAX), "run.duration"),
        (demo().drain(SimTime::from_secs(1_000_001)), "run.drain"),
        (
            demo().topology(TopologyConfig::fattree(4).layer(
                "core",
                LinkOverride {
                    link_rate: None,
                    link_delay: Some(SimTime::MAX),
                },
            )),
            "topology.layers.core.link_delay",
        ),
        (
            demo().transport(
                "long",
                TransportConfig::mptcp(2).param("min_rto", SimTime::MAX),
            ),
            "transports.long.min_rto",
        ),
    ] {
        assert_eq!(builder.build().unwrap_err().key_path, key);
    }
    // The limit itself is a valid duration.
    let longest = demo().duration(htsim::core::units::MAX_SCENARIO_DURATION);
    assert!(longest.build().is_ok());
}

#[test]
fn a_periodic_task_cannot_stop_a_run_billions_of_times() {
    // A 1 ps interval over 80 ms is 8 x 10^10 stops: the run never ended (with nothing
    // selected to sample, the memory estimate saw nothing to refuse).
    let series = |interval| TimeseriesConfig {
        interval,
        series: vec!["queue".into()],
        links: Vec::new(),
        flows: Vec::new(),
    };
    let e = demo().timeseries(series(SimTime(1))).build().unwrap_err();
    assert_eq!(e.key_path, "output.timeseries.interval");
    assert_eq!(
        e.message,
        "every 1ps over the run's 80ms (duration + drain) is 80000000000 samples, more than the \
         limit of 10000000: expected an interval of at least 8ns"
    );
    assert!(demo()
        .timeseries(series(SimTime::from_ns(8)))
        .build()
        .is_ok());
    let e = demo().first_fit(SimTime(1), "10%").build().unwrap_err();
    assert_eq!(e.key_path, "routing.first_fit");
    assert!(e.message.ends_with("80000000000 scans, more than the limit of 10000000: expected an interval of at least 8ns"), "{e}");
    assert!(demo().first_fit(SimTime::from_ns(8), "10%").build().is_ok());
}

#[test]
fn an_event_on_an_empty_list_of_links_is_an_error() {
    // It ran, changing nothing.
    let event = Event {
        at: SimTime::from_ms(1),
        target: EventTarget::Links(Vec::new()),
        set: EventChange::Down,
    };
    let e = demo().event(event).build().unwrap_err();
    assert_eq!(e.key_path, "events[0].where.link");
    assert!(e.message.starts_with("an empty list names no link"), "{e}");
}

#[test]
fn a_scenario_changed_field_by_field_is_checked_before_it_runs() {
    // The fields of a Scenario are public. Changed after building, a value the loader refuses
    // panicked (a link delay of SimTime::MAX overflowed), hung (a time series interval of 0)
    // or ran silently (a zero duration, an empty queue).
    let base = || {
        ScenarioBuilder::new("changed")
            .duration(SimTime::from_ms(1))
            .topology(TopologyConfig::fattree(4))
            .flows(FlowClass::long("long", TransportConfig::tcp()))
            .timeseries(TimeseriesConfig {
                interval: SimTime::from_us(100),
                series: vec!["queue".into()],
                links: Vec::new(),
                flows: Vec::new(),
            })
            .build()
            .unwrap()
    };
    type Change = fn(&mut htsim::scenario::Scenario);
    let cases: Vec<(Change, &str)> = vec![
        (
            (|s: &mut htsim::scenario::Scenario| {
                s.topology
                    .params
                    .set("link_delay", ParamValue::Duration(SimTime::MAX))
            }),
            "`topology.link_delay`: \"18446744.073709551615s\" is too large",
        ),
        (
            (|s: &mut htsim::scenario::Scenario| {
                s.output.timeseries.as_mut().unwrap().interval = SimTime::ZERO
            }),
            "`output.timeseries.interval`: expected an interval above 0s",
        ),
        (
            (|s: &mut htsim::scenario::Scenario| s.run.duration = SimTime::ZERO),
            "`run.duration`: the run must last longer than 0s",
        ),
        (
            (|s: &mut htsim::scenario::Scenario| s.queue.capacity = BufferSize::Packets(0)),
            "`queue.capacity`: a queue of 0 holds nothing",
        ),
        (
            (|s: &mut htsim::scenario::Scenario| s.flows.clear()),
            "`flows`: ",
        ),
    ];
    for (change, message) in cases {
        let mut scenario = base();
        change(&mut scenario);
        let e = run(&scenario, 1, &RunContext::default()).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("changed (scenario): {message}")),
            "{text}"
        );
    }
    // Unchanged, it runs.
    assert!(run(&base(), 1, &RunContext::default()).is_ok());
}
