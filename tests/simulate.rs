//! End-to-end runs of small scenarios through the library: flows complete, packets are
//! conserved, the files have the columns of scenario-format.md, transports compared on one seed
//! see the same workload, and every multipath transport kind runs.

use std::path::Path;

use htsim::output::{FLOWS_COLUMNS, LINKS_COLUMNS};
use htsim::scenario::{load_str, LoadOptions, Scenario};
use htsim::simulate::{run, RunContext};

const TINY: &str = r#"
name = "tiny"
[run]
duration = "400ms"
drain = "200ms"
seeds = 1
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
link_delay = "10us"
[queue]
kind = "ecn"
capacity = "100pkt"
mark_threshold = "20pkt"
[transports.t]
kind = "tcp"
[[flows]]
name = "long"
senders = "25%"
size = "infinite"
transport = "t"
[[flows]]
name = "short"
senders = "rest"
size = "30KB"
arrivals = { poisson = 300 }
transport = "t"
"#;

fn scenario(text: &str, overrides: &[&str]) -> Scenario {
    let options = LoadOptions {
        overrides: overrides.iter().map(|s| s.to_string()).collect(),
        seeds: None,
    };
    let loaded = load_str("tiny.toml", text, Path::new("."), &options).unwrap();
    loaded.points[0].scenario.clone()
}

#[test]
fn a_tiny_run_completes_its_flows_and_writes_the_specified_files() {
    let s = scenario(TINY, &[]);
    let out = run(&s, 7, &RunContext::default()).unwrap();
    assert!(out.conservation.holds());
    let short = &out.summary.classes[1];
    assert!(short.finite_flows >= 20, "{short:?}");
    assert_eq!(short.completed, short.finite_flows, "{short:?}");
    assert_eq!(out.summary.classes[0].long_flows, 4);

    let flows = String::from_utf8(out.files.flows_csv.unwrap()).unwrap();
    let mut lines = flows.lines();
    assert_eq!(
        lines.next().unwrap(),
        "class,flow_id,transport,src,dst,size_bytes,start_ns,end_ns,fct_ns,ideal_fct_ns,slowdown,\
         completed,bytes_acked,goodput_bps,packets_sent,retransmits,fast_retransmits,timeouts,subflows"
    );
    assert_eq!(flows.lines().count(), 1 + out.started.len());
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), FLOWS_COLUMNS.len(), "{line}");
        if f[0] == "short" {
            assert_eq!(f[5], "30000");
            assert_eq!(f[11], "true", "{line}");
            let slowdown: f64 = f[10].parse().unwrap();
            assert!(slowdown >= 1.0, "{line}");
            let (fct, ideal): (u64, u64) = (f[8].parse().unwrap(), f[9].parse().unwrap());
            assert!(fct > 0 && ideal > 0, "{line}");
        } else {
            assert_eq!(f[5], "", "infinite flows have no size: {line}");
            assert!(f[13].parse::<f64>().unwrap() > 1e8, "{line}");
        }
    }

    let links = String::from_utf8(out.files.links_csv.unwrap()).unwrap();
    assert_eq!(links.lines().next().unwrap(), LINKS_COLUMNS.join(","));
    // A k = 4 FatTree: 16 hosts, 2 x 16 + 4^3 directed links.
    assert_eq!(links.lines().count(), 1 + 2 * 16 + 64);
    assert!(links.contains("\nhost0->tor0.0,host0,tor0.0,host,1000000000,"));

    let summary: serde_json::Value = serde_json::from_slice(&out.files.summary_json).unwrap();
    assert_eq!(summary["seed"], 7);
    assert!(summary["cost"]["events"].as_u64().unwrap() > 0);
    assert!(summary["cost"]["peak_packets_in_flight"].as_u64().unwrap() > 0);
}

#[test]
fn the_same_seed_gives_the_same_files() {
    let s = scenario(TINY, &[]);
    let a = run(&s, 3, &RunContext::default()).unwrap();
    let b = run(&s, 3, &RunContext::default()).unwrap();
    assert_eq!(a.files.flows_csv, b.files.flows_csv);
    assert_eq!(a.files.links_csv, b.files.links_csv);
    let c = run(&s, 4, &RunContext::default()).unwrap();
    assert_ne!(a.files.flows_csv, c.files.flows_csv);
}

#[test]
fn transports_compared_on_one_seed_see_the_same_workload() {
    let tcp = scenario(TINY, &[]);
    let dctcp = scenario(TINY, &["transports.t.kind=dctcp"]);
    assert_eq!(dctcp.transport("t").unwrap().kind, "dctcp");
    let a = run(&tcp, 11, &RunContext::default()).unwrap();
    let b = run(&dctcp, 11, &RunContext::default()).unwrap();
    let workload = |o: &htsim::simulate::RunOutput| -> Vec<_> {
        o.started
            .iter()
            .map(|f| (f.flow_id, f.class, f.src, f.dst, f.size, f.arrival))
            .collect()
    };
    assert!(a.started.len() > 20);
    assert_eq!(workload(&a), workload(&b));
    // The transports did differ: DCTCP marks ECN and reacts.
    assert_ne!(a.files.links_csv, b.files.links_csv);
}

#[test]
fn every_multipath_transport_kind_runs_from_a_scenario() {
    for kind in ["ps", "mptcp", "mmptcp", "xmp"] {
        let s = scenario(
            TINY,
            &[&format!("transports.t.kind={kind}"), "run.duration=100ms"],
        );
        let out = run(&s, 1, &RunContext::default()).unwrap();
        assert!(out.conservation.holds(), "{kind}");
        let short = &out.summary.classes[1];
        assert_eq!(short.completed, short.finite_flows, "{kind}: {short:?}");
    }
}

#[test]
fn closed_loop_rounds_and_events_run() {
    let text = r#"
[run]
duration = "600ms"
drain = "300ms"
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
[[flows]]
name = "loop"
senders = 4
size = { uniform = ["5KB", "20KB"] }
arrivals = { closed_loop = true }
transport = { kind = "tcp" }
[[flows]]
name = "incast"
matrix = "incast"
fan_in = 5
size = "20KB"
arrivals = { every = "100ms" }
transport = { kind = "dctcp" }
[[events]]
at = "0s"
where = { layer = "core", switches = "50%" }
set = { capacity = "10pkt" }
"#;
    let s = scenario(text, &[]);
    let out = run(&s, 5, &RunContext::default()).unwrap();
    let (looped, incast) = (&out.summary.classes[0], &out.summary.classes[1]);
    // Closed loop: each of 4 hosts runs flows back to back until 0.4 s.
    assert!(looped.finite_flows > 20, "{looped:?}");
    // Rounds at 0, 0.1, 0.2, 0.3 s (another only while 0.4 s - now > 0.1 s), 5 senders each.
    assert_eq!(incast.finite_flows, 20, "{incast:?}");
    assert_eq!(incast.completed, 20);
    let per_class = |c: u32| out.started.iter().filter(|f| f.class == c).count() as u64;
    assert_eq!(per_class(0), looped.finite_flows);
}
