//! `validate` and `run` agree: the shipped scenarios (every one, and then a varied dozen
//! changed by random `--set` overrides and appended `[[events]]` or time series), shortened to
//! 1 ms, either fail to load, fail the pre-flight ([`htsim::simulate::preflight`], what `htsim
//! validate` runs), or run to the end. A scenario validate accepts never fails once running.

use std::path::Path;

use htsim::scenario::{load, LoadOptions, Seeds};
use htsim::simulate::{preflight, run, RunContext};
use proptest::prelude::*;

/// Shipped scenarios the cases change: the top-level ones and papers' of every other topology
/// kind (XMP torus and two-path, BCube, VL2, dual-homed FatTree, star) and workload (incast,
/// closed loop).
const SCENARIOS: &[&str] = &[
    "quickstart",
    "incast-jobs",
    "htsim-compare",
    "papers/p1-torus",
    "papers/p1-two-path",
    "papers/p2-fig4-bcube",
    "papers/p2-fig4-vl2",
    "papers/p2-fig16-dhft-random",
    "papers/p2-fig15-star",
    "papers/p0-table7-incast",
    "papers/p2-fig13-closed-loop",
];

/// Keys changed by the cases (`F` is the first flow class, `T` the first named transport), with
/// values that work and values that cannot.
const MUTATIONS: &[(&str, &[&str])] = &[
    (
        "topology.link_rate",
        &["\"0bps\"", "\"100Mbps\"", "\"10Gbps\""],
    ),
    ("topology.link_delay", &["\"0s\"", "\"1us\"", "\"1ms\""]),
    ("topology.k", &["2", "3", "4", "6"]),
    (
        "queue.capacity",
        &[
            "\"0pkt\"",
            "\"1pkt\"",
            "\"1000B\"",
            "\"1500B\"",
            "\"10pkt\"",
        ],
    ),
    ("queue.kind", &["\"droptail\"", "\"ecn\""]),
    ("routing.mode", &["\"ecmp\"", "\"spray\"", "\"single\""]),
    (
        "flows.F.senders",
        &["\"rest\"", "1", "\"all\"", "\"50%\"", "\"0%\""],
    ),
    (
        "flows.F.matrix",
        &[
            "\"incast\"",
            "\"stride\"",
            "\"locality\"",
            "\"many-to-one\"",
            "\"random\"",
            "\"neighbours\"",
            "\"pairs\"",
        ],
    ),
    ("flows.F.hosts", &["\"0-3\"", "[0, 1]", "\"0-99\"", "[2]"]),
    (
        "flows.F.arrivals",
        &["{ matrix_rounds = true }", "{ closed_loop = true }"],
    ),
    ("flows.F.size", &["\"1B\"", "\"10KB\"", "\"infinite\""]),
    ("transports.T.mss", &["\"0B\"", "\"1B\"", "\"9000B\""]),
    (
        "transports.T.kind",
        &[
            "\"tcp\"",
            "\"dctcp\"",
            "\"mptcp\"",
            "\"xmp\"",
            "\"ps\"",
            "\"mmptcp\"",
        ],
    ),
    ("run.warmup", &["\"0s\"", "\"500us\"", "\"1ms\""]),
];

/// Text appended to the scenario: nothing, link events (on links that exist or not) or a time
/// series.
const APPENDED: &[&str] = &[
    "",
    "[[events]]\nat = \"100us\"\nwhere = { link = [\"host0\", \"host1\"] }\nset = { down = true }\n",
    "[[events]]\nat = \"100us\"\nwhere = { link = [\"tor0.0\", \"agg0.0\"] }\nset = { rate = \"1Mbps\" }\n",
    "[[events]]\nat = \"200us\"\nwhere = { layer = \"core\", switches = \"50%\" }\nset = { capacity = \"2pkt\" }\n",
    "[[events]]\nat = \"200us\"\nwhere = { layer = \"core\" }\nset = { rate = \"0bps\" }\n",
    "[output.timeseries]\ninterval = \"100us\"\nseries = [\"queue\", \"cwnd\"]\n",
];

/// Loads shipped scenario `name` with `changes` (key, value) on top of a 1 ms run and
/// `appended`; checks that a scenario the pre-flight accepts runs (its first two points).
fn agree(name: &str, changes: &[(String, String)], appended: &str) -> Result<(), TestCaseError> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shipped = root.join(format!("scenarios/{name}.toml"));
    let original = std::fs::read_to_string(&shipped).unwrap();
    // The appended text must stay outside `[sweep]`, which is last in the files that have it.
    let text = match original.find("\n[sweep]") {
        Some(at) => format!("{}\n{appended}{}", &original[..at], &original[at..]),
        None => format!("{original}\n{appended}"),
    };
    let dir = tempfile::tempdir().unwrap();
    let file = name.rsplit('/').next().unwrap_or(name);
    let path = dir.path().join(format!("{file}.toml"));
    std::fs::write(&path, &text).unwrap();
    let base = load(&shipped, &LoadOptions::default()).unwrap();
    let class = base.scenario.flows[0].name.clone();
    let transport = base
        .scenario
        .transports
        .first()
        .map_or("none".to_string(), |t| t.name.clone());
    let mut overrides: Vec<String> = vec![
        "run.duration=\"1ms\"".into(),
        "run.drain=\"0s\"".into(),
        "run.warmup=\"0s\"".into(),
    ];
    for (key, value) in changes {
        let key = key.replace("flows.F.", &format!("flows.{class}."));
        let key = key.replace("transports.T.", &format!("transports.{transport}."));
        overrides.push(format!("{key}={value}"));
    }
    let options = LoadOptions {
        overrides: overrides.clone(),
        seeds: Some(Seeds::List(vec![1])),
        ..LoadOptions::default()
    };
    let Ok(loaded) = load(&path, &options) else {
        return Ok(());
    };
    if preflight::check(&loaded, 1).is_err() {
        return Ok(());
    }
    for point in loaded.points.iter().take(2) {
        let result = run(&point.scenario, 1, &RunContext::default());
        prop_assert!(
            result.is_ok(),
            "{name} with {overrides:?} and {appended:?}: validate accepts point `{}`, the run \
             fails: {}",
            point.name,
            result.err().map(|e| e.to_string()).unwrap_or_default()
        );
    }
    Ok(())
}

#[test]
fn the_shipped_scenarios_shortened_run() {
    for name in SCENARIOS {
        agree(name, &[], "").unwrap();
    }
}

#[test]
fn the_paper_scenarios_shortened_run() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/papers");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".toml").map(|s| format!("papers/{s}")))
        .collect();
    names.sort();
    assert!(names.len() >= 30, "{names:?}");
    for name in &names {
        agree(name, &[], "").unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn what_validate_accepts_runs(
        scenario in 0..SCENARIOS.len(),
        picks in prop::collection::vec((0..MUTATIONS.len(), 0usize..8), 1..4),
        appended in 0..APPENDED.len(),
    ) {
        let changes: Vec<(String, String)> = picks
            .iter()
            .map(|&(m, v)| {
                let (key, values) = MUTATIONS[m];
                (key.to_string(), values[v % values.len()].to_string())
            })
            .collect();
        agree(SCENARIOS[scenario], &changes, APPENDED[appended])?;
    }
}
