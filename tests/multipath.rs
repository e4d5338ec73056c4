//! Multipath transports from scenario files: XMP long flows over ECN queues on a FatTree make
//! progress with packets conserved, CE marks are set (K = `mark_threshold`), the `subflows` and
//! `beta` keys reach the transport, and short XMP flows complete; the `reorder_hold` key cuts
//! packet scatter's spurious fast retransmits on a FatTree, and `scatter = "round-robin"` its
//! needless resends; a `red` queue holds LIA's packets (not ECN-capable) to K + 1; the XMP
//! two-path testbed runs from a scenario; pinned subflow paths take the listed paths, and a
//! pinned path that a pair may lack is refused before any run; a hole in the data sequence
//! behind a subflow on a failed path stalls goodput but not subflow-level goodput.

use std::path::Path;

use htsim::output::FLOWS_COLUMNS;
use htsim::scenario::{load_str, LoadOptions, Scenario};
use htsim::simulate::{run, RunContext};

mod common;
use common::{scenario, PAYLOAD_LINE_RATE_BPS};

const XMP: &str = r#"
name = "xmp-tiny"
[run]
duration = "300ms"
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
mark_threshold = "10pkt"
[transports.x]
kind = "xmp"
[[flows]]
name = "long"
matrix = "permutation"
senders = "50%"
size = "infinite"
transport = "x"
[[flows]]
name = "short"
matrix = "permutation"
senders = "rest"
size = "30KB"
arrivals = { poisson = 200 }
transport = "x"
[output]
flows = true
links = true
"#;

fn text(file: &Option<Vec<u8>>) -> String {
    String::from_utf8(file.clone().expect("file asked for")).unwrap()
}

/// The values of `column` in the rows of `csv` whose `class` is `class`.
fn column(csv: &str, class: &str, column: &str) -> Vec<String> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (c, k) = (at("class"), at(column));
    lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[c] == class)
        .map(|f| f[k].to_string())
        .collect()
}

#[test]
fn xmp_long_flows_progress_over_ecn_queues_with_conservation() {
    let s = scenario(XMP, &[]);
    let t = s.transport("x").unwrap();
    assert_eq!(t.kind, "xmp");
    let out = run(&s, 3, &RunContext::default()).unwrap();
    assert!(out.conservation.holds());
    let (long, short) = (&out.summary().classes[0], &out.summary().classes[1]);
    assert_eq!(long.long_flows, 8, "{long:?}");
    // Every long flow moves data: at least 50 Mb/s each on 1 Gb/s links over 300 ms.
    let goodput = long.goodput_mbps.as_ref().unwrap();
    assert!(goodput.min > 50.0, "{goodput:?}");
    assert!(short.finite_flows >= 10, "{short:?}");
    assert_eq!(short.completed, short.finite_flows, "{short:?}");
    // The flows are XMP's, with its 2 subflows by default.
    let flows = text(&out.files.flows_csv);
    assert!(flows.starts_with(&format!("point,seed,{}", FLOWS_COLUMNS.join(","))));
    let kinds = column(&flows, "long", "transport");
    assert!(kinds.iter().all(|k| k == "xmp"), "{kinds:?}");
    let subflows = column(&flows, "long", "subflows");
    assert!(subflows.iter().all(|n| n == "2"), "{subflows:?}");
    // ECN-capable data: the queues marked CE (K = 10 packets).
    let links = text(&out.files.links_csv);
    let mut lines = links.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let marked = header.iter().position(|h| *h == "packets_marked").unwrap();
    let marks: u64 = lines
        .map(|l| l.split(',').nth(marked).unwrap().parse::<u64>().unwrap())
        .sum();
    assert!(marks > 0, "no CE marks");
}

#[test]
fn xmp_keys_reach_the_transport() {
    let s = scenario(
        XMP,
        &[
            "transports.x.subflows=4",
            "transports.x.beta=6",
            "run.duration=100ms",
        ],
    );
    let t = s.transport("x").unwrap();
    assert_eq!(t.params.int("beta"), Some(6));
    let out = run(&s, 1, &RunContext::default()).unwrap();
    assert!(out.conservation.holds());
    let subflows = column(&text(&out.files.flows_csv), "long", "subflows");
    assert!(subflows.iter().all(|n| n == "4"), "{subflows:?}");
    // beta below 2 is rejected when the scenario is loaded.
    let options = LoadOptions {
        overrides: vec!["transports.x.beta=1".into()],
        seeds: None,
        ..LoadOptions::default()
    };
    assert!(load_str("xmp.toml", XMP, Path::new("."), &options).is_err());
}

#[test]
fn the_reorder_hold_is_a_transport_key_off_by_default() {
    let ps = XMP.replace("kind = \"xmp\"", "kind = \"ps\"\ndupthresh = 3");
    let plain = scenario(&ps, &[]);
    let t = plain.transport("x").unwrap();
    assert_eq!(
        t.params.duration("reorder_hold"),
        Some(htsim_core::SimTime::ZERO)
    );
    assert_eq!(t.params.int("reorder_hold_segments"), Some(32));
    let held = scenario(
        &ps,
        &[
            "transports.x.reorder_hold=300us",
            "transports.x.reorder_hold_segments=64",
        ],
    );
    let fast_retransmits = |s: &Scenario| -> u64 {
        let out = run(s, 2, &RunContext::default()).unwrap();
        assert!(out.conservation.holds());
        let flows = text(&out.files.flows_csv);
        // The hold must not stall a flow: every short flow past its handshake finishes (one
        // whose SYN is dropped waits out the 1 s SYN timer, longer than the drain).
        let started = column(&flows, "short", "start_ns");
        let completed = column(&flows, "short", "completed");
        let stalled = started
            .iter()
            .zip(&completed)
            .filter(|(start, done)| !start.is_empty() && *done != "true")
            .count();
        assert_eq!(stalled, 0, "{:?}", out.summary().classes[1]);
        assert!(started.iter().filter(|s| !s.is_empty()).count() >= 15);
        ["long", "short"]
            .iter()
            .flat_map(|c| column(&flows, c, "fast_retransmits"))
            .map(|v| v.parse::<u64>().unwrap())
            .sum()
    };
    let (a, b) = (fast_retransmits(&plain), fast_retransmits(&held));
    println!("PS on a FatTree: {a} fast retransmits without the hold, {b} with it");
    assert!(a >= 50 && b * 5 <= a, "{b} vs {a}");
}

const MPTCP_LONG: &str = r#"
name = "mptcp-trace"
[run]
duration = "20ms"
seeds = 1
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
link_delay = "10us"
[transports.m]
kind = "mptcp"
subflows = 4
[[flows]]
name = "long"
matrix = "permutation"
size = "infinite"
transport = "m"
"#;

#[test]
fn a_trace_follows_the_selected_flows_without_changing_the_run() {
    let plain = run(&scenario(MPTCP_LONG, &[]), 2, &RunContext::default()).unwrap();
    assert!(plain.files.trace_csv.is_none(), "no trace unless asked for");
    let traced_scenario = scenario(MPTCP_LONG, &["output.trace.flows=[1, 5]"]);
    let traced = run(&traced_scenario, 2, &RunContext::default()).unwrap();
    // Tracing observes: every other output is byte-identical.
    assert_eq!(traced.files.flows_csv, plain.files.flows_csv);
    assert_eq!(traced.files.links_csv, plain.files.links_csv);
    let csv = text(&traced.files.trace_csv);
    let mut lines = csv.lines();
    // The run's columns (no sweep: point and seed), then the trace's own.
    let header = format!(
        "point,seed,{}",
        htsim_transport::trace::TRACE_COLUMNS.join(",")
    );
    assert_eq!(lines.next(), Some(header.as_str()));
    let rows: Vec<Vec<&str>> = lines
        .map(|l| {
            let r: Vec<&str> = l.split(',').collect();
            assert_eq!(r[..2], ["base", "2"]);
            r[2..].to_vec()
        })
        .collect();
    let of = |flow: &str, event: &str| -> Vec<&Vec<&str>> {
        rows.iter()
            .filter(|r| r[1] == flow && r[3] == event)
            .collect()
    };
    assert!(
        rows.iter().all(|r| r[1] == "1" || r[1] == "5"),
        "only flows 1 and 5"
    );
    for flow in ["1", "5"] {
        // Each of the 4 subflows: its path, one SYN, and here (no loss at 1 Gb/s, 16 flows)
        // its establishment; the 3 joins are scheduled once subflow 0 is up.
        for event in ["path", "syn", "established"] {
            let mut subflows: Vec<&str> = of(flow, event).iter().map(|r| r[2]).collect();
            subflows.sort();
            assert_eq!(subflows, ["0", "1", "2", "3"], "flow {flow} {event}");
        }
        assert_eq!(of(flow, "join_scheduled").len(), 3);
        assert!(!of(flow, "window").is_empty());
    }
    // Rows come in time order.
    let times: Vec<u64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    // The same run traces the same rows.
    let again = run(&traced_scenario, 2, &RunContext::default()).unwrap();
    assert_eq!(again.files.trace_csv, traced.files.trace_csv);
}

/// The route ids of each traced flow's subflows (the trace's `path` events), by flow.
fn subflow_routes(csv: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (flow, event, value) = (column("flow"), column("event"), column("value"));
    let mut routes = std::collections::BTreeMap::<String, Vec<String>>::new();
    for row in lines.map(|l| l.split(',').collect::<Vec<_>>()) {
        if row[event] == "path" {
            routes
                .entry(row[flow].into())
                .or_default()
                .push(row[value].into());
        }
    }
    routes
}

/// Distinct routes among `routes`.
fn distinct(routes: &[String]) -> usize {
    routes
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .len()
}

#[test]
fn distinct_paths_give_each_subflow_its_own_route() {
    // Stride by one pod on a k = 4 FatTree: every flow crosses the core, 4 paths per pair.
    let all: Vec<String> = (0..16).map(|f| f.to_string()).collect();
    let trace = format!("output.trace.flows=[{}]", all.join(", "));
    let base = MPTCP_LONG.replace("\"permutation\"", "\"stride\"");
    let routes = |paths: &str| {
        let key = format!("transports.m.paths=\"{paths}\"");
        let s = scenario(&base, &[&trace, &key, "run.duration=2ms"]);
        let out = run(&s, 1, &RunContext::default()).unwrap();
        assert!(out.conservation.holds());
        subflow_routes(&text(&out.files.trace_csv))
    };
    let ecmp = routes("ecmp");
    let pinned = routes("distinct");
    assert_eq!(ecmp.len(), 16);
    assert_eq!(pinned.len(), 16);
    // ECMP: 4 subflows hashed onto 4 paths are all apart with probability 4!/4^4 = 9%; with
    // seed 1, flow 0's subflows share routes and most flows see a collision.
    let collided = ecmp.values().filter(|r| distinct(r) < 4).count();
    println!("ecmp: {collided} of 16 flows have subflows sharing a route");
    assert!(
        distinct(&ecmp["0"]) < 4,
        "flow 0 under ecmp: {:?}",
        ecmp["0"]
    );
    assert!(collided >= 8, "{ecmp:?}");
    // Distinct: every flow's 4 subflows on 4 different routes.
    for (flow, r) in &pinned {
        assert_eq!(r.len(), 4, "flow {flow}: {r:?}");
        assert_eq!(distinct(r), 4, "flow {flow}: {r:?}");
    }
    // XMP takes the key too.
    let xmp = base.replace("kind = \"mptcp\"", "kind = \"xmp\"");
    let overrides = [
        &trace,
        "transports.m.paths=\"distinct\"",
        "run.duration=2ms",
    ];
    let out = run(&scenario(&xmp, &overrides), 1, &RunContext::default()).unwrap();
    let routes = subflow_routes(&text(&out.files.trace_csv));
    assert_eq!(routes.len(), 16);
    assert!(
        routes.values().all(|r| r.len() == 4 && distinct(r) == 4),
        "{routes:?}"
    );
}

#[test]
fn more_subflows_than_paths_wrap_round_the_distinct_paths() {
    // 8 subflows on 4 paths: each path carries exactly two subflows of a flow.
    let trace = "output.trace.flows=[0, 1, 2, 3]";
    let base = MPTCP_LONG.replace("\"permutation\"", "\"stride\"");
    let overrides = [
        trace,
        "transports.m.paths=\"distinct\"",
        "transports.m.subflows=8",
        "run.duration=2ms",
    ];
    let out = run(&scenario(&base, &overrides), 1, &RunContext::default()).unwrap();
    for (flow, r) in subflow_routes(&text(&out.files.trace_csv)) {
        assert_eq!(r.len(), 8, "flow {flow}");
        let mut per_route = std::collections::BTreeMap::<&String, u32>::new();
        for route in &r {
            *per_route.entry(route).or_default() += 1;
        }
        assert!(per_route.values().all(|&n| n == 2), "flow {flow}: {r:?}");
    }
}

#[test]
fn cap_subflows_opens_one_subflow_per_path() {
    // Stride 1 on a k = 4 FatTree (2 hosts per ToR, 4 per pod): host 4p -> 4p+1 stays under
    // its ToR (1 path), 4p+1 -> 4p+2 crosses the pod's aggregation layer (2 paths), 4p+3 ->
    // 4p+4 the core (4 paths).
    let base = MPTCP_LONG.replace("\"permutation\"", "\"stride\"\noffset = 1");
    let subflows_by_src = |cap: &str| {
        let key = format!("transports.m.cap_subflows={cap}");
        let overrides = [key.as_str(), "transports.m.subflows=8", "run.duration=2ms"];
        let out = run(&scenario(&base, &overrides), 1, &RunContext::default()).unwrap();
        let flows = text(&out.files.flows_csv);
        let src = column(&flows, "long", "src");
        let n = column(&flows, "long", "subflows");
        // Hosts are named `host<i>`.
        let host = |s: &String| s.trim_start_matches(|c: char| !c.is_ascii_digit()).parse();
        let mut by: Vec<(u32, String)> = src.iter().map(|s| host(s).unwrap()).zip(n).collect();
        by.sort();
        by
    };
    for (src, n) in subflows_by_src("true") {
        let want = match src % 4 {
            0 | 2 => "1",
            1 => "2",
            _ => "4",
        };
        assert_eq!(n, want, "host {src}");
    }
    assert!(subflows_by_src("false").iter().all(|(_, n)| n == "8"));
}

#[test]
fn shortest_routing_takes_bcube_direct_links() {
    // BCube(4, 1): host h sends to h + 4, which differs only in digit 1, so the shortest path
    // is the direct level-1 link (2 links); the other parallel path goes through level 0 (6).
    let bcube = r#"
name = "bcube-shortest"
[run]
duration = "2ms"
seeds = 1
[topology]
kind = "bcube"
n = 4
k = 1
link_rate = "1Gbps"
link_delay = "10us"
[[flows]]
name = "long"
matrix = "stride"
offset = 4
size = "infinite"
transport = { kind = "tcp" }
[output]
links = true
"#;
    let level0_packets = |mode: &str| -> u64 {
        let key = format!("routing.mode=\"{mode}\"");
        let out = run(&scenario(bcube, &[&key]), 1, &RunContext::default()).unwrap();
        assert!(out.conservation.holds());
        let links = text(&out.files.links_csv);
        let mut lines = links.lines();
        let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
        let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let (layer, packets) = (at("layer"), at("packets_enqueued"));
        lines
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|f| f[layer] == "level0")
            .map(|f| f[packets].parse::<u64>().unwrap())
            .sum()
    };
    let (ecmp, shortest) = (level0_packets("ecmp"), level0_packets("shortest"));
    println!("BCube level-0 packets: ecmp {ecmp}, shortest {shortest}");
    assert!(ecmp > 1000, "ECMP hashes some flows onto the 3-hop paths");
    assert_eq!(shortest, 0);
}

/// The largest `queue` sample and the drops of a run of `queue_kind` queues (K = 10, 100
/// packets) carrying LIA long flows, whose packets are not ECN-capable.
fn lia_queue_peak_and_drops(queue_kind: &str) -> (u64, u64) {
    let s = scenario(
        XMP,
        &[
            &format!("queue.kind={queue_kind}"),
            "transports.x.kind=mptcp",
            "transports.x.subflows=2",
            "flows.short.size=2KB",
            "run.duration=100ms",
            "run.drain=0s",
            "output.timeseries={ interval = \"50us\", series = [\"queue\"] }",
        ],
    );
    let out = run(&s, 1, &RunContext::default()).unwrap();
    assert!(out.conservation.holds());
    let series = text(&out.files.timeseries_csv);
    let mut lines = series.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let value = header.iter().position(|h| *h == "value").unwrap();
    let peak = lines
        .map(|l| l.split(',').nth(value).unwrap().parse::<u64>().unwrap())
        .max()
        .unwrap();
    let links = text(&out.files.links_csv);
    let mut lines = links.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let dropped = header.iter().position(|h| *h == "packets_dropped").unwrap();
    let drops = lines
        .map(|l| l.split(',').nth(dropped).unwrap().parse::<u64>().unwrap())
        .sum();
    (peak, drops)
}

/// docs/model.md 7.1: an `ecn` queue gives packets that are not ECN-capable its whole buffer,
/// a `red` queue (RED with K as its threshold, as in the XMP paper) drops them above K, so LIA
/// queues never hold more than K + 1 = 11 packets there.
#[test]
fn red_queues_hold_non_ect_traffic_to_the_marking_threshold() {
    let (ecn_peak, ecn_drops) = lia_queue_peak_and_drops("ecn");
    let (red_peak, red_drops) = lia_queue_peak_and_drops("red");
    println!("LIA queue peak / drops: ecn {ecn_peak} / {ecn_drops}, red {red_peak} / {red_drops}");
    assert!(
        ecn_peak > 30,
        "ecn: LIA fills the 100-packet buffer, peak {ecn_peak}"
    );
    assert!(
        red_peak <= 11,
        "red: at most K + 1 waiting, peak {red_peak}"
    );
    assert!(
        red_drops > ecn_drops,
        "red drops {red_drops} vs ecn {ecn_drops}"
    );
}

/// docs/model.md 5.1: `scatter = "round-robin"` (htsim's packet scatter) reaches the transport
/// and reorders less than random paths. PS long and short flows on a k = 4 FatTree: the
/// retransmissions beyond the packets dropped (resends of packets that were not lost, a lower
/// bound) are cut at least fourfold with the paths in turn.
#[test]
fn round_robin_scatter_is_a_ps_key_that_cuts_needless_resends() {
    let ps = XMP.replace("kind = \"xmp\"", "kind = \"ps\"");
    let random = scenario(&ps, &[]);
    assert_eq!(
        random.transport("x").unwrap().params.text("scatter"),
        Some("random")
    );
    let rr = scenario(&ps, &["transports.x.scatter=round-robin"]);
    let needless = |s: &Scenario| -> (u64, u64) {
        let out = run(s, 2, &RunContext::default()).unwrap();
        assert!(out.conservation.holds());
        let flows = text(&out.files.flows_csv);
        let resent: u64 = ["long", "short"]
            .iter()
            .flat_map(|c| column(&flows, c, "retransmits"))
            .map(|v| v.parse::<u64>().unwrap())
            .sum();
        let links = text(&out.files.links_csv);
        let mut lines = links.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let at = header.iter().position(|h| *h == "packets_dropped").unwrap();
        let dropped: u64 = lines
            .map(|l| l.split(',').nth(at).unwrap().parse::<u64>().unwrap())
            .sum();
        (resent, dropped)
    };
    let (a, b) = (needless(&random), needless(&rr));
    println!("PS on a FatTree, retransmissions / drops: random {a:?}, round robin {b:?}");
    let (a, b) = (a.0.saturating_sub(a.1), b.0.saturating_sub(b.1));
    assert!(a >= 20 && b * 4 <= a, "{b} vs {a}");
}

/// The XMP paper's two-path testbed from a scenario: one dual-homed pair (`host0` to `host2`)
/// and one pair on path 0 only (`host1` to `host3`), 100 Mb/s bottlenecks. XMP's multipath flow
/// takes path 1 to itself and a share of path 0, so it gets more than one bottleneck's rate;
/// the single-path flow keeps a fair part of path 0; together they stay within both.
#[test]
fn the_xmp_two_path_testbed_runs_from_a_scenario() {
    let text = r#"
name = "two-path"
[run]
duration = "100ms"
[topology]
kind = "xmp-two-path"
multipath_pairs = 1
path0_pairs = 1
[queue]
kind = "ecn"
mark_threshold = "10pkt"
[transports.x]
kind = "xmp"
subflows = 2
[[flows]]
name = "a"
matrix = "pairs"
pairs = [[0, 2], [1, 3]]
size = "infinite"
transport = "x"
"#;
    let s = scenario(text, &[]);
    assert_eq!(s.topology.host_count(), Some(4));
    let out = run(&s, 1, &RunContext::default()).unwrap();
    assert!(out.conservation.holds());
    let goodput = |i: usize| out.results.flows[i].goodput_bps.unwrap() / 1e6;
    let (multipath, single) = (goodput(0), goodput(1));
    assert!(multipath > 105.0, "multipath {multipath} Mb/s");
    assert!(single > 30.0, "single-path {single} Mb/s");
    assert!(multipath + single < 200.0, "{multipath} + {single} Mb/s");
}

/// One long MPTCP flow (2 subflows, 3 ms) from host 0 (pod 0) to host 8 (pod 2) of a k = 4
/// FatTree: 4 paths, path `p` through core switch `p` (`agg0.<p / 2> -> core<p> -> agg2.<p / 2>`).
fn one_pair() -> String {
    MPTCP_LONG
        .replace("\"permutation\"", "\"pairs\"\npairs = [[0, 8]]")
        .replace("\"20ms\"", "\"3ms\"")
        .replace("subflows = 4", "subflows = 2")
}

/// The core switches whose links from pod 0 and to pod 2 carried packets: data, SYNs and FINs
/// of the flow (its ACKs go the other way), as (up, down) sets of core numbers.
fn cores_carrying(overrides: &[&str]) -> (Vec<u32>, Vec<u32>) {
    let out = run(&scenario(&one_pair(), overrides), 1, &RunContext::default()).unwrap();
    assert!(out.conservation.holds());
    assert!(out.results.flows[0].goodput_bps.unwrap() > 100e6);
    let links = text(&out.files.links_csv);
    let mut lines = links.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (from, to, packets) = (at("from"), at("to"), at("packets_enqueued"));
    let core = |node: &str| node.strip_prefix("core").map(|c| c.parse::<u32>().unwrap());
    let (mut up, mut down) = (Vec::new(), Vec::new());
    for f in lines.map(|l| l.split(',').collect::<Vec<_>>()) {
        if f[packets] == "0" {
            continue;
        }
        match (core(f[from]), core(f[to])) {
            (None, Some(c)) if f[from].starts_with("agg0.") => up.push(c),
            (Some(c), None) if f[to].starts_with("agg2.") => down.push(c),
            _ => {}
        }
    }
    up.sort();
    down.sort();
    (up, down)
}

#[test]
fn pinned_paths_send_each_subflow_through_its_listed_core() {
    let pinned = |list: &str| format!("transports.m.paths={{ pinned = {list} }}");
    // Subflow 0 on path 3, subflow 1 on path 1.
    let both = (vec![1, 3], vec![1, 3]);
    assert_eq!(cores_carrying(&[&pinned("[3, 1]")]), both);
    // Four subflows wrap round a list of one: all on path 2.
    let four = [pinned("[2]"), "transports.m.subflows=4".to_string()];
    let four: Vec<&str> = four.iter().map(String::as_str).collect();
    assert_eq!(cores_carrying(&four), (vec![2], vec![2]));
    // XMP takes the key too.
    let xmp = [pinned("[0, 2]"), "transports.m.kind=\"xmp\"".to_string()];
    let xmp: Vec<&str> = xmp.iter().map(String::as_str).collect();
    assert_eq!(cores_carrying(&xmp), (vec![0, 2], vec![0, 2]));
    // Distinct paths for four subflows cross all four cores.
    let distinct = ["transports.m.paths=\"distinct\"", "transports.m.subflows=4"];
    assert_eq!(
        cores_carrying(&distinct),
        (vec![0, 1, 2, 3], vec![0, 1, 2, 3])
    );
}

/// One MPTCP long flow from host0 to host8 (another pod) on a FatTree at 1 Gb/s, its two
/// subflows pinned to paths 0 and 1 (cores 0 and 1), measured from 10 ms to 40 ms.
const PINNED_PAIR: &str = r#"
name = "pinned-pair"
[run]
duration = "40ms"
warmup = "10ms"
seeds = 1
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
link_delay = "10us"
[transports.m]
kind = "mptcp"
subflows = 2
paths = { pinned = [0, 1] }
[[flows]]
name = "long"
matrix = "pairs"
pairs = [[0, 8]]
size = "infinite"
transport = "m"
"#;

#[test]
fn a_hole_behind_one_subflow_stalls_goodput_but_not_subflow_goodput() {
    let measure = |extra: &str| {
        let text = format!("{PINNED_PAIR}{extra}");
        let out = run(&scenario(&text, &[]), 1, &RunContext::default()).unwrap();
        assert!(out.conservation.holds());
        let f = out.results.flows[0].clone();
        let (g, sf) = (f.goodput_bps.unwrap(), f.subflow_goodput_bps.unwrap());
        assert!(sf <= PAYLOAD_LINE_RATE_BPS, "{f:?}");
        (g, sf, f)
    };
    // Both paths up: the connection delivers in order at nearly the line rate, and the two
    // goodputs agree (a hole lasts a fraction of an RTT).
    let (g, sf, _) = measure("");
    assert!(g > 0.9 * PAYLOAD_LINE_RATE_BPS, "{g}");
    assert!((sf - g).abs() <= 0.01 * g, "{sf} vs {g}");
    // Core 1 goes down at the window's start and stays down (routes are not recomputed):
    // subflow 1 loses what it had in flight, so the data sequence has a hole at a byte sent
    // before the window, and its RTO (200 ms minimum) does not fire before the end. Nothing
    // is acknowledged in order at the connection level inside the window, while subflow 0
    // carries on alone at nearly the line rate and its cumulative ACK advances.
    let (g, sf, f) = measure(
        r#"
[[events]]
at = "10ms"
where = { link = "core1" }
set = { down = true }
"#,
    );
    assert_eq!(g, 0.0, "{f:?}");
    assert_eq!(f.timeouts, 0, "{f:?}");
    assert!(sf > 0.9 * PAYLOAD_LINE_RATE_BPS, "{sf}");
}

/// The pre-flight's problems with scenario `text` changed by `overrides`, as text.
fn preflight_problems(text: &str, overrides: &[&str]) -> Option<String> {
    let options = LoadOptions {
        overrides: overrides.iter().map(|s| s.to_string()).collect(),
        ..LoadOptions::default()
    };
    let loaded = load_str("pinned.toml", text, Path::new("."), &options).unwrap();
    htsim::simulate::preflight::check(&loaded, 1)
        .err()
        .map(|p| p.to_string())
}

#[test]
fn a_pinned_path_a_pair_may_lack_is_refused_before_any_run() {
    let lines = |s: &str| s.lines().next().unwrap_or_default().to_string();
    // Hosts 0 and 1 share a ToR: 1 path.
    let pairs = one_pair().replace("[[0, 8]]", "[[0, 8], [0, 1]]");
    let e = preflight_problems(&pairs, &["transports.m.paths={ pinned = [0, 1] }"]).unwrap();
    assert_eq!(
        lines(&e),
        "pinned.toml: in `--set transports.m.paths={ pinned = [0, 1] }`: `transports.m.paths`: \
         class `long` has a flow from host0 to host1: pinned path 1 does not exist: the pair \
         has 1 equal-cost path (indices 0 to 0)",
        "{e}"
    );
    assert!(preflight_problems(&pairs, &["transports.m.paths={ pinned = [0] }"]).is_none());
    // With cap_subflows the pair under one ToR opens 1 subflow (path 0); hosts 0 and 2 (one
    // pod, 2 paths) open 2, on paths 0 and 3: path 3 is missing.
    let capped = [
        "transports.m.paths={ pinned = [0, 3] }",
        "transports.m.cap_subflows=true",
    ];
    assert!(preflight_problems(&pairs, &capped).is_none());
    let pod = one_pair().replace("[[0, 8]]", "[[0, 1], [0, 2]]");
    let e = preflight_problems(&pod, &capped).unwrap();
    assert!(
        e.contains("from host0 to host2: pinned path 3 does not exist: the pair has 2"),
        "{e}"
    );
    // MMPTCP places its subflows from the switch on: with 8/4/1 subflows by distance a pair
    // under one ToR never switches, so path 1 is needed only within the pod.
    let mmptcp = [
        "transports.m.kind=\"mmptcp\"",
        "transports.m.paths={ pinned = [1] }",
    ];
    assert!(preflight_problems(&pairs, &mmptcp).is_some());
    let auto = [mmptcp[0], mmptcp[1], "transports.m.auto_subflows=true"];
    assert!(preflight_problems(&pairs, &auto).is_none());
    // Jobs draw their hosts during the run: every pair they may draw is checked.
    let jobs = r#"
[run]
duration = "3ms"
[topology]
kind = "fattree"
k = 4
[transports.m]
kind = "mptcp"
subflows = 2
paths = { pinned = [0, 1] }
[[flows]]
name = "incast"
jobs = { servers = 4 }
transport = "m"
"#;
    let e = preflight_problems(jobs, &[]).unwrap();
    assert!(
        e.contains("pinned.toml:10:9: `transports.m.paths`: class `incast` may draw a flow during the run from host1 to host0"),
        "{e}"
    );
    // Without rack-local servers every pair has at least 2 paths.
    let remote = jobs.replace("servers = 4", "servers = 4, rack_local = false");
    assert!(preflight_problems(&remote, &[]).is_none());
    let out = run(&scenario(&remote, &[]), 1, &RunContext::default()).unwrap();
    assert!(out.conservation.holds());
    // Closed-loop flows to new destinations draw them during the run too.
    let closed = one_pair()
        .replace("\"pairs\"\npairs = [[0, 8]]", "\"random\"")
        .replace(
            "\"infinite\"",
            "\"100KB\"\narrivals = { closed_loop = true, new_destination = true }",
        );
    let pinned = ["transports.m.paths={ pinned = [0, 1] }"];
    let e = preflight_problems(&closed, &pinned).unwrap();
    assert!(e.contains("may draw a flow during the run"), "{e}");
    let off_rack = closed.replace("\"random\"", "\"random\"\nexclude_rack_local = true");
    assert!(preflight_problems(&off_rack, &pinned).is_none());
}
