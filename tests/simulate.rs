//! End-to-end runs of small scenarios through the library: flows complete, packets are
//! conserved, the files have the columns of docs/outputs.md, transports compared on one seed
//! see the same workload, and every multipath transport kind runs.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use htsim::output::{FLOWS_COLUMNS, LINKS_COLUMNS};
use htsim::scenario::LoadOptions;
use htsim::simulate::{run, RunContext};

mod common;
use common::{scenario, PAYLOAD_LINE_RATE_BPS};

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

#[test]
fn a_tiny_run_completes_its_flows_and_writes_the_specified_files() {
    let s = scenario(TINY, &[]);
    let out = run(&s, 7, &RunContext::default()).unwrap();
    assert!(out.conservation.holds());
    let short = &out.summary().classes[1];
    assert!(short.finite_flows >= 20, "{short:?}");
    assert_eq!(short.completed, short.finite_flows, "{short:?}");
    assert_eq!(out.summary().classes[0].long_flows, 4);

    let flows = String::from_utf8(out.files.flows_csv.unwrap()).unwrap();
    let mut lines = flows.lines();
    assert_eq!(
        lines.next().unwrap(),
        "point,seed,class,flow_id,job,transport,src,dst,size_bytes,arrival_ns,start_ns,end_ns,\
         fct_ns,ideal_fct_ns,slowdown,completed,bytes_acked,goodput_bps,goodput_sent_bps,\
         subflow_goodput_bps,packets_sent,retransmits,fast_retransmits,timeouts,subflows"
    );
    assert_eq!(flows.lines().count(), 1 + out.started.len());
    let at = |name: &str| FLOWS_COLUMNS.iter().position(|c| *c == name).unwrap();
    for line in lines {
        // The run's columns (no sweep: point `base`), then the flow's.
        let fields: Vec<&str> = line.split(',').collect();
        let (run, f) = fields.split_at(2);
        assert_eq!(run, ["base", "7"], "{line}");
        assert_eq!(f.len(), FLOWS_COLUMNS.len(), "{line}");
        let v = |name: &str| f[at(name)];
        // No class runs jobs.
        assert_eq!(v("job"), "", "{line}");
        // The flow arrives (its first SYN), then starts (its SYN-ACK).
        let (arrival, start): (u64, u64) = (
            v("arrival_ns").parse().unwrap(),
            v("start_ns").parse().unwrap(),
        );
        assert!(arrival < start, "{line}");
        if v("class") == "short" {
            assert_eq!(v("size_bytes"), "30000");
            assert_eq!(v("completed"), "true", "{line}");
            let slowdown: f64 = v("slowdown").parse().unwrap();
            assert!(slowdown >= 1.0, "{line}");
            let (fct, ideal): (u64, u64) = (
                v("fct_ns").parse().unwrap(),
                v("ideal_fct_ns").parse().unwrap(),
            );
            assert!(fct > 0 && ideal > 0, "{line}");
        } else {
            assert_eq!(v("size_bytes"), "", "infinite flows have no size: {line}");
            // Never completed (as in the summary): they run to the end.
            assert_eq!((v("end_ns"), v("completed")), ("", "false"), "{line}");
            assert!(v("goodput_bps").parse::<f64>().unwrap() > 1e8, "{line}");
        }
    }

    let links = String::from_utf8(out.files.links_csv.unwrap()).unwrap();
    assert_eq!(
        links.lines().next().unwrap(),
        format!("point,seed,{}", LINKS_COLUMNS.join(","))
    );
    // A k = 4 FatTree: 16 hosts, 2 x 16 + 4^3 directed links.
    assert_eq!(links.lines().count(), 1 + 2 * 16 + 64);
    assert!(links.contains("\nbase,7,host0->tor0.0,host0,tor0.0,host,1000000000,"));

    let summary: serde_json::Value = serde_json::to_value(&out.files.summary).unwrap();
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
        let short = &out.summary().classes[1];
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
    let (looped, incast) = (&out.summary().classes[0], &out.summary().classes[1]);
    // Closed loop: each of 4 hosts runs flows back to back until 0.4 s.
    assert!(looped.finite_flows > 20, "{looped:?}");
    // Rounds at 0, 0.1, 0.2, 0.3 s (another only while 0.4 s - now > 0.1 s), 5 senders each.
    assert_eq!(incast.finite_flows, 20, "{incast:?}");
    assert_eq!(incast.completed, 20);
    let per_class = |c: u32| out.started.iter().filter(|f| f.class == c).count() as u64;
    assert_eq!(per_class(0), looped.finite_flows);
}

/// Background long flows and 4 concurrent partition/aggregate jobs of 3 servers on a k = 4
/// FatTree with ECN queues (so TCP and DCTCP differ in timing).
const JOBS: &str = r#"
name = "jobs"
[run]
duration = "150ms"
drain = "300ms"
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
name = "incast"
jobs = { servers = 3, request = "2KB", response = "30KB", concurrent = 4 }
transport = "t"
"#;

/// A flow of a job: its started-flow entry and its flows.csv times.
#[derive(Clone, Debug)]
struct JobFlowRow {
    flow_id: u64,
    src: u32,
    dst: u32,
    size: Option<u64>,
    arrival_ns: u64,
    start_ns: Option<u64>,
    end_ns: Option<u64>,
}

/// The flows of class `class` by job id, each job's flows in flow id order, with their
/// `start_ns` and `end_ns` read from flows.csv.
fn jobs_of(
    out: &htsim::simulate::RunOutput,
    class: u32,
) -> std::collections::BTreeMap<u64, Vec<JobFlowRow>> {
    let times: std::collections::HashMap<u64, (Option<u64>, Option<u64>)> = flow_rows(out)
        .iter()
        .map(|f| {
            (
                f["flow_id"].parse().unwrap(),
                (f["start_ns"].parse().ok(), f["end_ns"].parse().ok()),
            )
        })
        .collect();
    let mut jobs: std::collections::BTreeMap<u64, Vec<JobFlowRow>> = Default::default();
    for f in out.started.iter().filter(|f| f.class == class) {
        let job = f.job.expect("every flow of a job class has a job id");
        let (start_ns, end_ns) = times[&f.flow_id];
        jobs.entry(job).or_default().push(JobFlowRow {
            flow_id: f.flow_id,
            src: f.src,
            dst: f.dst,
            size: f.size,
            arrival_ns: f.arrival.as_ns(),
            start_ns,
            end_ns,
        });
    }
    jobs
}

#[test]
fn partition_aggregate_jobs_have_their_shape_order_and_concurrency() {
    let (servers, concurrent, duration_ns) = (3, 4, 150_000_000u64);
    let s = scenario(JOBS, &[]);
    let out = run(&s, 9, &RunContext::default()).unwrap();
    assert!(out.conservation.holds());
    // Long flows carry no job id.
    assert!(out
        .started
        .iter()
        .filter(|f| f.class == 0)
        .all(|f| f.job.is_none()));
    let jobs = jobs_of(&out, 1);
    // Ids are dense from 0, in the order jobs start.
    assert_eq!(
        jobs.keys().copied().collect::<Vec<_>>(),
        (0..jobs.len() as u64).collect::<Vec<_>>()
    );
    let mut spans = Vec::new(); // (start, end if complete)
    let mut jcts_ms = Vec::new();
    for (id, flows) in &jobs {
        // The first M flows are the requests, opened together from one client.
        let (requests, responses) = flows.split_at(servers);
        let client = requests[0].src;
        let start = requests[0].arrival_ns;
        let mut dsts: Vec<u32> = requests.iter().map(|r| r.dst).collect();
        dsts.sort_unstable();
        dsts.dedup();
        assert_eq!(dsts.len(), servers, "job {id}: distinct servers {flows:?}");
        assert!(!dsts.contains(&client), "job {id}: a server is the client");
        for r in requests {
            assert_eq!((r.src, r.arrival_ns, r.size), (client, start, Some(2_000)));
        }
        // One response per completed request, from its server to the client, opened when the
        // request completed and started (SYN-ACK) after it.
        let completed: Vec<&JobFlowRow> = requests.iter().filter(|r| r.end_ns.is_some()).collect();
        assert_eq!(responses.len(), completed.len(), "job {id}: {flows:?}");
        for req in completed {
            let resp: Vec<&JobFlowRow> = responses.iter().filter(|r| r.src == req.dst).collect();
            assert_eq!(resp.len(), 1, "job {id}: {flows:?}");
            let (resp, req_end) = (resp[0], req.end_ns.unwrap());
            assert_eq!((resp.dst, resp.size), (client, Some(30_000)));
            assert!(resp.flow_id > req.flow_id);
            assert_eq!(
                resp.arrival_ns, req_end,
                "job {id}: opened when its request ended"
            );
            if let Some(resp_start) = resp.start_ns {
                assert!(resp_start >= req_end, "job {id}: {resp:?} before {req:?}");
            }
        }
        // A complete job has exactly 2M flows, all completed; its JCT runs from its requests'
        // arrival to its last response's end.
        let complete = flows.len() == 2 * servers && flows.iter().all(|f| f.end_ns.is_some());
        let end = complete.then(|| responses.iter().filter_map(|r| r.end_ns).max().unwrap());
        if let Some(end) = end {
            jcts_ms.push((end - start) as f64 / 1e6);
        }
        spans.push((start, end));
    }
    let incast = &out.summary().classes[1];
    assert_eq!(incast.jobs_completed, jcts_ms.len() as u64);
    assert_eq!(
        incast.jobs_completed + incast.jobs_unfinished,
        jobs.len() as u64
    );
    let jct = incast.jct_ms.unwrap();
    let mean = jcts_ms.iter().sum::<f64>() / jcts_ms.len() as f64;
    // flows.csv has whole nanoseconds; the summary picoseconds.
    assert!((jct.mean - mean).abs() < 1e-6, "{} vs {mean}", jct.mean);
    assert!(jct.min > 0.0 && jct.max >= jct.p99 && jct.p99 >= jct.p50);
    // Closed loop: at every job start or end before the duration, exactly `concurrent` jobs
    // run (one ending is replaced at the same instant); every job that ended before the
    // duration was replaced, and no other job started.
    let instants = spans
        .iter()
        .flat_map(|&(s, e)| std::iter::once(s).chain(e))
        .filter(|&t| t < duration_ns);
    for t in instants {
        let running = spans
            .iter()
            .filter(|&&(s, e)| s <= t && e.is_none_or(|e| e > t))
            .count();
        assert_eq!(running, concurrent, "at {t} ns: {spans:?}");
    }
    let ended_in_time = spans
        .iter()
        .filter(|(_, e)| e.is_some_and(|e| e < duration_ns))
        .count();
    assert_eq!(jobs.len(), concurrent + ended_in_time);
    assert!(jobs.len() > 4 * concurrent, "{} jobs", jobs.len());
}

#[test]
fn transports_compared_on_one_seed_see_the_same_jobs() {
    let tcp = run(&scenario(JOBS, &[]), 5, &RunContext::default()).unwrap();
    let dctcp = run(
        &scenario(JOBS, &["transports.t.kind=dctcp"]),
        5,
        &RunContext::default(),
    )
    .unwrap();
    // Job id -> (client, servers), from the requests.
    let hosts = |o: &htsim::simulate::RunOutput| -> Vec<(u32, Vec<u32>)> {
        jobs_of(o, 1)
            .values()
            .map(|flows| {
                let mut servers: Vec<u32> = flows[..3].iter().map(|f| f.dst).collect();
                servers.sort_unstable();
                (flows[0].src, servers)
            })
            .collect()
    };
    let (a, b) = (hosts(&tcp), hosts(&dctcp));
    let common = a.len().min(b.len());
    assert!(common > 10, "{} and {} jobs", a.len(), b.len());
    assert_eq!(a[..common], b[..common]);
    // Not every job is on the same hosts, and the transports did differ.
    assert!(a.iter().any(|j| j != &a[0]));
    assert_ne!(tcp.files.flows_csv, dctcp.files.flows_csv);
    // Another seed draws other jobs.
    let other = run(&scenario(JOBS, &[]), 6, &RunContext::default()).unwrap();
    assert_ne!(hosts(&other)[..4], a[..4]);
}

#[test]
fn an_idle_job_completes_in_the_hand_computed_time() {
    // Two hosts on a star at 1 Gb/s (8 ns per byte), 10 us per link, 2 links each way; one
    // job of 1 server, one 1000-B segment each way, so nothing ever queues behind another flow.
    // Each flow: SYN (42 + 8 B) and SYN-ACK (50 B) take 2 x (400 + 10000) ns each: 41.6 us to
    // the SYN-ACK. Then the client sends its pure ACK (42 B, 336 ns) and the data segment
    // (1062 B on the wire, 8496 ns) behind it: the segment reaches the receiver after
    // 336 + 8496 + 10000 + 8496 + 10000 = 37328 ns, and its ACK comes back in 2 x (336 + 10000)
    // = 20672 ns: complete 58 us after the SYN-ACK (the FCT). The response opens at that
    // instant, so JCT = 2 x (41.6 + 58) us = 199.2 us.
    let text = r#"
[run]
duration = "1ms"
drain = "1ms"
[topology]
kind = "star"
hosts = 2
link_rate = "1Gbps"
link_delay = "10us"
[[flows]]
name = "job"
jobs = { servers = 1, request = "1000B", response = "1000B", concurrent = 1 }
transport = { kind = "tcp" }
"#;
    let out = run(&scenario(text, &[]), 1, &RunContext::default()).unwrap();
    let jobs = jobs_of(&out, 0);
    for flows in jobs.values() {
        assert_eq!(flows.len(), 2);
        for f in flows {
            let (start, end) = (f.start_ns.unwrap(), f.end_ns.unwrap());
            assert_eq!(
                (start - f.arrival_ns, end - start),
                (41_600, 58_000),
                "{f:?}"
            );
        }
        assert_eq!(flows[1].arrival_ns, flows[0].end_ns.unwrap());
        assert_eq!(flows[1].end_ns.unwrap() - flows[0].arrival_ns, 199_200);
    }
    // Back to back from t = 0 while t < 1 ms: jobs start at 0, 199.2, ..., 996 us.
    assert_eq!(jobs.len(), 6);
    let c = &out.summary().classes[0];
    assert_eq!((c.jobs_completed, c.jobs_unfinished), (6, 0));
    let jct = c.jct_ms.unwrap();
    assert!((jct.mean - 0.1992).abs() < 1e-12 && (jct.max - 0.1992).abs() < 1e-12);
    assert_eq!((c.finite_flows, c.completed), (12, 12));
}

/// Two job classes on two hosts, every job with one server: of the three jobs class `a` starts
/// at t = 0, two have the same client, the same server and the same arrival, and only flows.csv
/// `job` tells them apart.
const TWIN_JOBS: &str = r#"
[run]
duration = "3ms"
drain = "20ms"
[topology]
kind = "star"
hosts = 2
link_rate = "1Gbps"
link_delay = "10us"
[[flows]]
name = "a"
jobs = { servers = 1, request = "1000B", response = "20KB", concurrent = 3 }
transport = { kind = "tcp" }
[[flows]]
name = "b"
jobs = { servers = 1, request = "2000B", response = "10KB", concurrent = 2 }
transport = { kind = "tcp" }
"#;

#[test]
fn the_job_column_tells_apart_jobs_that_start_together_with_one_client() {
    let out = run(&scenario(TWIN_JOBS, &[]), 3, &RunContext::default()).unwrap();
    let rows = flow_rows(&out);
    let jobs: Vec<u64> = rows.iter().map(|f| f["job"].parse().unwrap()).collect();
    // The column is the simulator's job of each flow, in the file and in the typed records.
    assert_eq!(
        jobs,
        out.started
            .iter()
            .map(|f| f.job.unwrap())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        jobs,
        out.results
            .flows
            .iter()
            .map(|f| f.job.unwrap())
            .collect::<Vec<_>>()
    );
    // Numbers within the run, in the order jobs started (so of their first flow ids): at
    // t = 0, class a's three jobs, then class b's two.
    let mut numbered = 0;
    for &j in &jobs {
        assert!(j <= numbered, "job {j} before job {numbered}");
        if j == numbered {
            numbered += 1;
        }
    }
    let at_zero: Vec<(&str, u64)> = rows
        .iter()
        .zip(&jobs)
        .filter(|(f, _)| f["arrival_ns"] == "0")
        .map(|(f, &j)| (f["class"].as_str(), j))
        .collect();
    assert_eq!(at_zero, [("a", 0), ("a", 1), ("a", 2), ("b", 3), ("b", 4)]);
    // Of class a's three requests at t = 0 (flows 0 to 2) on two hosts, two have the same
    // client and server: nothing but the column tells their jobs apart.
    let pair = |f: usize| (&rows[f]["src"], &rows[f]["dst"]);
    let twins = [(0, 1), (0, 2), (1, 2)]
        .into_iter()
        .find(|&(f, g)| pair(f) == pair(g))
        .unwrap();
    assert_ne!(jobs[twins.0], jobs[twins.1]);

    // Each job by its number: its request, then the response opened when the request ended,
    // both in the job's class; JCT from the request's arrival to the response's end.
    let mut by_job: BTreeMap<u64, Vec<&HashMap<String, String>>> = BTreeMap::new();
    for (f, &j) in rows.iter().zip(&jobs) {
        by_job.entry(j).or_default().push(f);
    }
    assert_eq!(by_job.len() as u64, numbered);
    let mut jct_ms: HashMap<&str, Vec<f64>> = HashMap::new();
    for (j, flows) in &by_job {
        let [request, response] = flows[..] else {
            panic!("job {j}: {flows:?}");
        };
        let class = request["class"].as_str();
        let request_bytes = if class == "a" { "1000" } else { "2000" };
        assert_eq!(request["size_bytes"], request_bytes, "job {j}");
        assert_eq!(response["class"], class, "job {j}");
        assert_eq!(
            (&response["src"], &response["dst"]),
            (&request["dst"], &request["src"]),
            "job {j}"
        );
        assert_eq!(response["arrival_ns"], request["end_ns"], "job {j}");
        assert_eq!(response["completed"], "true", "job {j}");
        let start: u64 = request["arrival_ns"].parse().unwrap();
        let end: u64 = response["end_ns"].parse().unwrap();
        jct_ms
            .entry(class)
            .or_default()
            .push((end - start) as f64 / 1e6);
    }
    // The summary's job completion times are those, to the files' rounding to whole ns.
    for (i, class) in ["a", "b"].into_iter().enumerate() {
        let c = &out.summary().classes[i];
        let values = &jct_ms[class];
        assert_eq!(
            (c.jobs_completed, c.jobs_unfinished),
            (values.len() as u64, 0)
        );
        assert!(values.len() > 5, "{class}: {} jobs", values.len());
        let jct = c.jct_ms.unwrap();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(0.0, f64::max);
        for (summary, file) in [(jct.mean, mean), (jct.min, min), (jct.max, max)] {
            assert!(
                (summary - file).abs() <= 1e-6,
                "{class}: {jct:?} vs {values:?}"
            );
        }
    }
}

/// One row of flows.csv by column name.
fn flow_rows(out: &htsim::simulate::RunOutput) -> Vec<std::collections::HashMap<String, String>> {
    let text = String::from_utf8(out.files.flows_csv.clone().unwrap()).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            (header.iter().map(|h| h.to_string()))
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

/// Two hosts on a star at 1 Gb/s, 10 us per link, and one TCP flow (`one`) of 1000 B from
/// host0 to host1 at t = 0: every packet's time can be worked out by hand.
const IDLE_STAR: &str = r#"
[run]
duration = "1ms"
drain = "1ms"
[topology]
kind = "star"
hosts = 2
link_rate = "1Gbps"
link_delay = "10us"
[[flows]]
name = "one"
senders = 1
size = "1000B"
transport = { kind = "tcp" }
"#;

/// [`IDLE_STAR`]'s flow of 3000 B instead.
const SIZE_3000: &str = "flows.one.size=\"3000B\"";

#[test]
fn the_run_cost_counts_the_whole_run_not_the_window() {
    // IDLE_STAR's 3000-B flow in a 60 us run measured from 50 us, with a 1 ms drain: every data
    // packet lands in the drain (segment 1 at 85.3 us), yet `cost` counts the whole run: 3 data
    // packets delivered. At most 3 packets are in flight at once: 1 (SYN), 1 (SYN-ACK), 2 (the
    // handshake's ACK and segment 1 at 41.6 us), 1 (ACK 1); at 106 us ACK 1 releases segments
    // 2 and 3 and the FIN together (3); segment 2 lands at 149.392 us and its ACK leaves while
    // segment 3 (151.488 us) and the FIN (151.824 us) are on their way (3), each answered as it
    // lands (ACK 3, then the FIN+ACK) while ACK 2 is still out (3 and 3).
    let overrides = [SIZE_3000, "run.warmup=\"50us\"", "run.duration=\"60us\""];
    let out = run(&scenario(IDLE_STAR, &overrides), 1, &RunContext::default()).unwrap();
    let f = &flow_rows(&out)[0];
    assert_eq!(
        (f["completed"].as_str(), f["packets_sent"].as_str()),
        ("true", "3")
    );
    let cost = out.summary().cost;
    assert_eq!(
        (cost.data_packets_delivered, cost.peak_packets_in_flight),
        (3, 3)
    );
    // links.csv counts the window only: nothing entered the sender's link in it (the
    // handshake's ACK and segment 1 at 41.6 us, segments 2 and 3 and the FIN at 106 us).
    let l = link_row(&out, "host0->switch");
    assert_eq!(l["packets_enqueued"], "0", "{l:?}");
}

#[test]
fn goodput_of_a_flow_starting_just_before_the_end_counts_acked_bytes_over_its_alive_time() {
    // Two hosts on a star at 1 Gb/s, 10 us per link; one 10 MB TCP flow asked for 1 ms before
    // the end of a 20 ms run, completing in the drain. The SYN-ACK comes back after 41.6 us
    // (the idle-job test above): start = 19.0416 ms, alive inside the window for 958.4 us.
    // Segments take 11.696 us per link (1462 B), ACKs 0.336 us (42 B); IW 1 and one MSS per
    // ACK. The handshake's pure ACK goes first, so ACK 1 returns at 0.336 + 2 x 11.696 + 20 +
    // 2 x 0.336 + 20 = 64.4 us; ACKs 2-3 at 128.464 and 140.16 us, 4-7 at 192.528 + 11.696 j;
    // from segment 8 on the sender's NIC never idles and ACK k returns at 256.592 + 11.696
    // (k - 8) us: ACK 68 at 958.352 us, ACK 69 at 970.048 us, after the window's end. So 68 x
    // 1400 = 95 200 B are acknowledged in the window: goodput 8 x 95 200 / 958.4 us =
    // 794 657 763 b/s. (Counting the whole 10 MB over those 958.4 us, as the sent-bytes
    // goodput used to, gave 83.5 Gb/s.)
    let text = r#"
[run]
duration = "20ms"
drain = "100ms"
[topology]
kind = "star"
hosts = 2
link_rate = "1Gbps"
link_delay = "10us"
[[flows]]
name = "late"
senders = 1
size = "10MB"
start = "19ms"
transport = { kind = "tcp" }
"#;
    let out = run(&scenario(text, &[]), 1, &RunContext::default()).unwrap();
    let rows = flow_rows(&out);
    assert_eq!(rows.len(), 1);
    let f = &rows[0];
    assert_eq!(f["start_ns"], "19041600");
    assert_eq!(
        (f["completed"].as_str(), f["bytes_acked"].as_str()),
        ("true", "10000000")
    );
    assert_eq!(f["goodput_bps"], "794657763");
    assert!(f["goodput_bps"].parse::<f64>().unwrap() <= PAYLOAD_LINE_RATE_BPS);
    // The paper's sent-bytes variant is defined for long flows only.
    assert_eq!(f["goodput_sent_bps"], "");
    // One path: the subflow level is the connection level.
    assert_eq!(f["subflow_goodput_bps"], f["goodput_bps"]);
}

/// Long flows between random hosts (several per receiver) and a few short ones on a FatTree
/// with 15-packet drop-tail queues: losses, fast recoveries, and flows stalled behind a hole
/// until an RTO.
const LOSSY_SINGLE_PATH: &str = r#"
name = "single-path"
[run]
duration = "100ms"
warmup = "50ms"
seeds = 1
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
link_delay = "10us"
[queue]
kind = "droptail"
capacity = "15pkt"
[transports.t]
kind = "tcp"
[[flows]]
name = "long"
matrix = "random"
size = "infinite"
transport = "t"
[[flows]]
name = "short"
size = "50KB"
arrivals = { poisson = 40 }
transport = "t"
"#;

#[test]
fn subflow_goodput_is_goodput_for_single_path_transports() {
    // A single-path connection's one subflow is the connection: its cumulative ACK is the
    // connection's, so the two goodputs are the same number for every flow, through losses,
    // recoveries and stalls, and so are their summaries.
    for kind in ["tcp", "dctcp", "ps"] {
        let set = format!("transports.t.kind=\"{kind}\"");
        let out = run(
            &scenario(LOSSY_SINGLE_PATH, &[&set]),
            1,
            &RunContext::default(),
        )
        .unwrap();
        let rows = flow_rows(&out);
        let measured: Vec<_> = rows
            .iter()
            .filter(|f| !f["goodput_bps"].is_empty())
            .collect();
        let lossy = measured.iter().filter(|f| f["retransmits"] != "0").count();
        assert!(
            lossy >= 10,
            "{kind}: {lossy} of {} flows lost packets",
            rows.len()
        );
        for f in &measured {
            assert_eq!(f["subflow_goodput_bps"], f["goodput_bps"], "{kind}: {f:?}");
            let g: f64 = f["subflow_goodput_bps"].parse().unwrap();
            assert!(g <= PAYLOAD_LINE_RATE_BPS, "{kind}: {f:?}");
        }
        let long = &out.summary().classes[0];
        assert_eq!(long.long_flows, 16);
        assert_eq!(long.subflow_goodput_values_mbps, long.goodput_values_mbps);
        assert_eq!(long.subflow_goodput_mbps, long.goodput_mbps);
        let max = long.goodput_mbps.unwrap().max;
        assert!(max > 500.0, "{kind}: the fastest long flow at {max} Mb/s");
    }
}

#[test]
fn incast_goodputs_share_the_receivers_line_rate_and_ignore_the_drain() {
    // Four senders start 1 MB each to one receiver on a star at 1 Gb/s 1 ms before the end; they
    // complete in the drain. Their SYN-ACKs leave the receiver one after the other (0.4 us
    // each), so they start within 1.2 us; every byte they had acknowledged by the window's end
    // crossed the receiver's link after the first start, at most 957.6 Mb/s of payload. Each
    // goodput is 8 x bytes acknowledged by the window's end / alive time, which the drain-free
    // run shows in bytes_acked; and the drain does not change it. The exact figures come from an
    // independent event model of this star (FIFO links that schedule the landing of their head
    // packet, IW 1, one MSS more per ACK, one ACK per segment): 23, 22, 15 and 15 segments
    // acknowledged by 10 ms, 75 in all where the receiver's link could carry at most 81.9
    // 1462-B packets in the first flow's 958.4 us; flows 0 and 1 split their 45 segments by the order in which their
    // packets meet at the switch. (Counting each 1 MB flow's bytes sent by the end of the drain,
    // as goodput used to, gave 8.35 Gb/s per flow.)
    let text = r#"
[run]
duration = "10ms"
drain = "0s"
[topology]
kind = "star"
hosts = 5
link_rate = "1Gbps"
link_delay = "10us"
[[flows]]
name = "incast"
matrix = "incast"
fan_in = 4
senders = 4
size = "1MB"
start = "9ms"
transport = { kind = "tcp" }
"#;
    let window_end_ns = 10_000_000.0;
    let cut = run(&scenario(text, &[]), 1, &RunContext::default()).unwrap();
    let drained = run(
        &scenario(text, &["run.drain=100ms"]),
        1,
        &RunContext::default(),
    )
    .unwrap();
    let (cut, drained) = (flow_rows(&cut), flow_rows(&drained));
    assert_eq!(cut.len(), 4);
    let starts: Vec<f64> = cut.iter().map(|c| c["start_ns"].parse().unwrap()).collect();
    let first_start = starts.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(
        starts.iter().all(|&s| s - first_start <= 1_200.0),
        "{starts:?}"
    );
    let expected = [
        ("32200", "268781302"),
        ("30800", "257202505"),
        ("21000", "175438596"),
        ("21000", "175511910"),
    ];
    let mut total_acked = 0.0;
    for ((c, d), (acked, goodput)) in cut.iter().zip(&drained).zip(expected) {
        assert_eq!(
            (c["bytes_acked"].as_str(), c["goodput_bps"].as_str()),
            (acked, goodput)
        );
        assert_eq!(c["completed"], "false");
        assert_eq!(
            (d["completed"].as_str(), d["bytes_acked"].as_str()),
            ("true", "1000000")
        );
        let alive_s = (window_end_ns - c["start_ns"].parse::<f64>().unwrap()) / 1e9;
        let acked: f64 = c["bytes_acked"].parse().unwrap();
        let goodput: f64 = c["goodput_bps"].parse().unwrap();
        assert!((goodput - 8.0 * acked / alive_s).abs() <= 0.5, "{c:?}");
        assert!(goodput <= PAYLOAD_LINE_RATE_BPS, "{c:?}");
        assert_eq!(d["goodput_bps"], c["goodput_bps"]);
        total_acked += acked;
    }
    let shared_s = (window_end_ns - first_start) / 1e9;
    assert!(
        8.0 * total_acked <= PAYLOAD_LINE_RATE_BPS * shared_s,
        "{total_acked}"
    );
}

#[test]
fn incast_jobs_seed_1_has_no_goodput_above_the_line_rate() {
    // scenarios/incast-jobs.toml, seed 1, shortened to 30 ms (+ 30 ms of drain): goodput used
    // to count bytes sent, including those still queued at the sender's NIC, and this
    // scenario's seed 1 showed flows at 1.2 to 1.75 Gb/s on its 1 Gb/s links. Every link is
    // 1 Gb/s, so no flow can deliver more than 957.6 Mb/s of payload.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/incast-jobs.toml");
    let options = LoadOptions {
        overrides: vec!["run.duration=\"30ms\"".into(), "run.drain=\"30ms\"".into()],
        ..LoadOptions::default()
    };
    let loaded = htsim::scenario::load(&path, &options).unwrap();
    assert_eq!(loaded.points.len(), 2, "TCP and MPTCP long flows");
    for point in &loaded.points {
        let out = run(&point.scenario, 1, &RunContext::default()).unwrap();
        let rows = flow_rows(&out);
        let goodputs: Vec<f64> = ["goodput_bps", "subflow_goodput_bps"]
            .iter()
            .flat_map(|c| rows.iter().filter_map(|f| f[*c].parse().ok()))
            .collect();
        assert!(
            goodputs.len() > 200,
            "{}: {} flows",
            point.name,
            goodputs.len()
        );
        let max = goodputs.iter().copied().fold(0.0, f64::max);
        assert!(
            max <= PAYLOAD_LINE_RATE_BPS,
            "{}: a flow at {max} b/s",
            point.name
        );
    }
}

/// The row of `link` in a links.csv, by column name.
fn link_row(
    out: &htsim::simulate::RunOutput,
    link: &str,
) -> std::collections::HashMap<String, String> {
    let text = String::from_utf8(out.files.links_csv.clone().unwrap()).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|f| f[2] == link)
        .unwrap();
    header
        .iter()
        .map(|h| h.to_string())
        .zip(row.into_iter().map(str::to_string))
        .collect()
}

#[test]
fn the_counters_of_flows_csv_and_links_csv_count_every_packet_of_an_idle_flow() {
    // One 3000-B TCP flow from t = 0 on the idle 2-host star (1 Gb/s, 8 ns per byte): host0
    // sends SYN (50 B), the handshake's ACK (42), 3 segments (1400 + 1400 + 200 B of payload,
    // 1462 + 1462 + 262 B on the wire), its FIN (42) and the ACK of host1's FIN (42): 7
    // packets, 3362 B, all in the window [0, 1 ms] (the SYN at its very start too). host1
    // sends the SYN-ACK (50), an ACK per segment and its FIN (42 each): 5 packets, 218 B.
    // Nothing is lost, so every packet of a host's link crosses the other host's.
    let out = run(
        &scenario(IDLE_STAR, &[SIZE_3000]),
        1,
        &RunContext::default(),
    )
    .unwrap();
    let f = &flow_rows(&out)[0];
    let counters = [
        "completed",
        "bytes_acked",
        "packets_sent",
        "retransmits",
        "fast_retransmits",
        "timeouts",
        "subflows",
    ]
    .map(|c| f[c].as_str());
    assert_eq!(counters, ["true", "3000", "3", "0", "0", "0", "1"], "{f:?}");
    for (link, packets, bytes) in [
        ("host0->switch", "7", 3362),
        ("switch->host1", "7", 3362),
        ("host1->switch", "5", 218),
        ("switch->host0", "5", 218),
    ] {
        let l = link_row(&out, link);
        assert_eq!(
            (l["packets_enqueued"].as_str(), l["bytes_enqueued"].as_str()),
            (packets, bytes.to_string().as_str()),
            "{l:?}"
        );
        for zero in ["packets_dropped", "bytes_dropped", "packets_marked"] {
            assert_eq!(l[zero], "0", "{l:?}");
        }
        assert_eq!(l["loss_rate_pct"], "0.0000");
        assert_eq!(l["rate_bps"], "1000000000");
        // Busy 8 ns per byte over the 1 ms window.
        let busy_pct = 100.0 * bytes as f64 * 8e-9 / 1e-3;
        assert_eq!(l["utilisation_pct"], format!("{busy_pct:.4}"), "{l:?}");
    }
    assert_eq!(out.summary().cost.data_packets_delivered, 3);
}

#[test]
fn cwnd_and_rate_series_follow_the_acknowledgements_by_hand() {
    // The idle 3000-B flow above, sampled every 50 us. Its SYN-ACK arrives at 41.6 us, segment
    // 1's ACK at 41.6 + 64.4 = 106 us (slow start: cwnd 1400 -> 2800 B), segments 2 and 3's at
    // 160.064 and 172.16 us, when the flow completes and its sender closes. So: cwnd 1400 B at
    // 50 and 100 us, 2800 B at 150 us; rate 0 in (0, 50] and (50, 100], 8 x 1400 B / 50 us =
    // 224 Mb/s in (100, 150]; no sample at 200 us, after the sender closed.
    let text = format!(
        "{IDLE_STAR}[output.timeseries]\ninterval = \"50us\"\nseries = [\"cwnd\", \"rate\"]\n"
    );
    let out = run(&scenario(&text, &[SIZE_3000]), 1, &RunContext::default()).unwrap();
    assert_eq!(flow_rows(&out)[0]["end_ns"], "172160");
    let csv = String::from_utf8(out.files.timeseries_csv.unwrap()).unwrap();
    assert_eq!(
        csv,
        "point,seed,time_ns,series,id,value,unit\n\
         base,1,50000,cwnd,0,1400,bytes\nbase,1,50000,rate,0,0,bps\n\
         base,1,100000,cwnd,0,1400,bytes\nbase,1,100000,rate,0,0,bps\n\
         base,1,150000,cwnd,0,2800,bytes\nbase,1,150000,rate,0,224000000,bps\n"
    );
}

/// Two hosts on a 1 Gb/s star, a long TCP flow each way; the second (host0 -> host1, from
/// 20 ms) has a 70 000 B receive window, so it never loses a packet, and its ACKs queue behind
/// the first flow's data at host1's NIC.
const TWO_WAY_STAR: &str = r#"
[run]
duration = "60ms"
drain = "10ms"
[topology]
kind = "star"
hosts = 2
link_rate = "1Gbps"
link_delay = "10us"
[queue]
kind = "droptail"
capacity = "100pkt"
[[flows]]
name = "back"
matrix = "pairs"
pairs = [[1, 0]]
size = "infinite"
transport = { kind = "tcp" }
[[flows]]
name = "fwd"
matrix = "pairs"
pairs = [[0, 1]]
size = "infinite"
start = "20ms"
transport = { kind = "tcp", rwnd = "70000B" }
[output.timeseries]
interval = "1ms"
series = ["rate"]
"#;

#[test]
fn the_rate_series_counts_acks_at_the_sender_so_one_interval_can_pass_the_line_rate() {
    // docs/outputs.md (timeseries.csv): `rate` counts bytes when their acknowledgement reaches
    // the sender. The forward flow loses nothing, yet its ACKs, queued behind the other flow's
    // data, come back in bursts of up to a whole window (50 segments): many 1 ms intervals
    // count up to 100 segments (1120 Mb/s) where the line carries at most 85.5, others 50; over
    // its life the rate stays under the payload line rate, as the flow's goodput does.
    let out = run(&scenario(TWO_WAY_STAR, &[]), 1, &RunContext::default()).unwrap();
    let flows = flow_rows(&out);
    let fwd = &flows[1];
    assert_eq!(
        (fwd["class"].as_str(), fwd["retransmits"].as_str()),
        ("fwd", "0")
    );
    let csv = String::from_utf8(out.files.timeseries_csv.unwrap()).unwrap();
    let rates: Vec<(u64, f64)> = csv_rows(csv.as_bytes())
        .iter()
        .filter(|r| r["series"] == "rate" && r["id"] == "1")
        .map(|r| (r["time_ns"].parse().unwrap(), r["value"].parse().unwrap()))
        .collect();
    let above: Vec<&(u64, f64)> = rates
        .iter()
        .filter(|(_, bps)| *bps > PAYLOAD_LINE_RATE_BPS)
        .collect();
    assert!(above.len() >= 10, "{rates:?}");
    // At most two windows' ACKs land in one interval: 100 segments, 1120 Mb/s.
    let most = rates.iter().map(|(_, bps)| *bps).fold(0.0, f64::max);
    assert_eq!(most, 1_120_000_000.0, "{above:?}");
    // From the first interval over the line rate (28 ms) to the end of the run, the bytes
    // counted fit the line: at most 957.6 Mb/s on average.
    let first = rates
        .iter()
        .position(|(_, bps)| *bps > PAYLOAD_LINE_RATE_BPS)
        .unwrap();
    let span = &rates[first..];
    let mean_bps = span.iter().map(|(_, bps)| bps).sum::<f64>() / span.len() as f64;
    assert!(mean_bps < PAYLOAD_LINE_RATE_BPS, "{mean_bps} over {span:?}");
    // Every byte counted is a byte acknowledged in order: the sum fits `bytes_acked`.
    let counted: f64 = rates.iter().map(|(_, bps)| bps * 1e-3 / 8.0).sum();
    let acked: f64 = fwd["bytes_acked"].parse().unwrap();
    assert!(counted <= acked, "{counted} > {acked}");
    let goodput: f64 = fwd["goodput_bps"].parse().unwrap();
    assert!(goodput < PAYLOAD_LINE_RATE_BPS, "{goodput}");
}

#[test]
fn timeseries_links_name_layers_as_queue_layers_do() {
    // `links` takes the layer names of `[queue.layers]` and `[[events]]`: VL2's intermediate
    // switches are `core`, BCube's switch levels together `switch`, a dumbbell's middle link
    // `bottleneck`, where links.csv's `layer` says `int`, `level<l>` and `switch`.
    for (topology, layer, sampled) in [
        (
            "kind = \"vl2\"\nda = 4\ndi = 4\nhosts_per_tor = 1",
            "core",
            (|row: &[&str]| row[5] == "int") as fn(&[&str]) -> bool,
        ),
        ("kind = \"bcube\"\nn = 2\nk = 1", "switch", |row| {
            row[5].starts_with("level")
        }),
        ("kind = \"dumbbell\"\nhosts = 1", "bottleneck", |row| {
            row[2] == "left->right" || row[2] == "right->left"
        }),
    ] {
        let text = format!(
            "[run]\nduration = \"1ms\"\n[topology]\n{topology}\n[[flows]]\nname = \"a\"\n\
             size = \"1KB\"\ntransport = {{ kind = \"tcp\" }}\n[output.timeseries]\n\
             interval = \"1ms\"\nseries = [\"queue\"]\nlinks = [\"{layer}\"]\n"
        );
        let out = run(&scenario(&text, &[]), 1, &RunContext::default())
            .unwrap_or_else(|e| panic!("{layer}: {e}"));
        let links = String::from_utf8(out.files.links_csv.clone().unwrap()).unwrap();
        let expected: Vec<String> = links
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|row| sampled(row))
            .map(|row| row[2].to_string())
            .collect();
        assert!(!expected.is_empty(), "{layer}");
        let series = String::from_utf8(out.files.timeseries_csv.unwrap()).unwrap();
        let ids: Vec<String> = series
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(4).unwrap().to_string())
            .collect();
        assert_eq!(ids, expected, "{layer}");
    }
}

#[test]
fn trace_events_agree_with_the_counters_of_flows_csv() {
    // Four 200 KB TCP flows into one host of a star through 4-packet queues: losses, fast
    // retransmits and timeouts. Per flow, the trace has one `syn` per SYN sent (its
    // `established` value), one `fast_retransmit` per entry into fast recovery and one `rto`
    // per timer expiry (flows.csv `fast_retransmits`, `timeouts`), `fin` rows numbering the
    // FIN's transmissions from 1, and `completed` with the bytes acknowledged.
    let text = r#"
[run]
duration = "50ms"
drain = "2s"
[topology]
kind = "star"
hosts = 5
link_rate = "1Gbps"
link_delay = "10us"
[queue]
capacity = "4pkt"
[[flows]]
name = "incast"
matrix = "incast"
fan_in = 4
senders = 4
size = "200KB"
transport = { kind = "tcp" }
[output]
trace = { flows = ["all"] }
"#;
    let out = run(&scenario(text, &[]), 1, &RunContext::default()).unwrap();
    let flows = flow_rows(&out);
    let trace = String::from_utf8(out.files.trace_csv.clone().unwrap()).unwrap();
    // point, seed, time_ns, flow, subflow, event, cwnd, ssthresh, snd_una, snd_max, value
    let rows: Vec<Vec<&str>> = trace
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let (mut fast, mut rto) = (0, 0);
    for f in &flows {
        let id = f["flow_id"].as_str();
        let values = |event: &str| -> Vec<u64> {
            rows.iter()
                .filter(|r| r[3] == id && r[5] == event)
                .map(|r| r[10].parse().unwrap())
                .collect()
        };
        assert_eq!(f["completed"], "true", "{f:?}");
        assert_eq!(
            values("fast_retransmit").len().to_string(),
            f["fast_retransmits"]
        );
        assert_eq!(values("rto").len().to_string(), f["timeouts"]);
        let syns = values("syn");
        assert_eq!(values("established"), [syns.len() as u64]);
        assert_eq!(syns, (1..=syns.len() as u64).collect::<Vec<_>>());
        let fins = values("fin");
        assert_eq!(
            fins,
            (1..=fins.len() as u64).collect::<Vec<_>>(),
            "flow {id}"
        );
        assert_eq!(values("completed"), [200_000]);
        assert_eq!(values("path").len(), 1);
        fast += values("fast_retransmit").len();
        rto += values("rto").len();
    }
    assert!(
        fast > 0 && rto > 0,
        "the run must lose packets: {fast} {rto}"
    );
}

/// One long TCP flow from host0 to host1 on a 2-host star at 1 Gb/s, over 10 ms with no drain.
const LONG_FLOW_ON_A_STAR: &str = r#"
[run]
duration = "10ms"
drain = "0s"
[topology]
kind = "star"
hosts = 2
link_rate = "1Gbps"
link_delay = "10us"
[[flows]]
name = "long"
senders = 1
size = "infinite"
transport = { kind = "tcp" }
"#;

#[test]
fn utilisation_stays_a_fraction_when_an_event_raises_a_links_rate() {
    // One long TCP flow on a 2-host star at 1 Gb/s; half way through the 10 ms run both links
    // of its path go to 10 Gb/s. Utilisation is the time spent sending over the window, so it
    // stays at most 1; dividing the bytes sent by the rate at the start, as it used to, gave
    // well above 1.
    let text = format!(
        "{LONG_FLOW_ON_A_STAR}[[events]]\nat = \"5ms\"\n\
         where = {{ link = [\"host0->switch\", \"switch->host1\"] }}\n\
         set = {{ rate = \"10Gbps\" }}\n"
    );
    let out = run(&scenario(&text, &[]), 1, &RunContext::default()).unwrap();
    let row = link_row(&out, "host0->switch");
    let utilisation_pct: f64 = row["utilisation_pct"].parse().unwrap();
    let sent_bits = 8.0 * row["bytes_enqueued"].parse::<f64>().unwrap();
    assert!(
        utilisation_pct > 50.0 && utilisation_pct <= 100.0,
        "{row:?}"
    );
    assert!(
        sent_bits / (1e9 * 10e-3) > 1.5,
        "the rate did rise: {row:?}"
    );
    let host = out
        .summary()
        .layers
        .iter()
        .find(|l| l.layer == "host")
        .unwrap();
    assert!(host.utilisation_pct.unwrap() <= 100.0, "{host:?}");
}

#[test]
fn a_link_busy_throughout_the_window_is_exactly_100_percent_utilised() {
    // One long TCP flow on a 2-host star at 1 Gb/s; at the warmup (5 ms) its sender's link
    // drops to 100 Mb/s, so it queues and sends without a break to T = 10 ms. Utilisation is
    // the time spent serialising inside the window: 5 ms of 5 ms. Counting the packet in
    // service at each edge whole (the one at the warmup before the window, the one at T, up to
    // 117 us at 100 Mb/s, inside it) gave 100.5856%.
    let text = format!(
        "{LONG_FLOW_ON_A_STAR}[[events]]\nat = \"5ms\"\n\
         where = {{ link = [\"host0->switch\"] }}\nset = {{ rate = \"100Mbps\" }}\n"
    );
    let warmup = ["run.warmup=\"5ms\""];
    let out = run(&scenario(&text, &warmup), 1, &RunContext::default()).unwrap();
    let l = link_row(&out, "host0->switch");
    assert_eq!(l["utilisation_pct"], "100.0000", "{l:?}");
    let sender = out
        .results
        .links
        .iter()
        .find(|l| l.name == "host0->switch")
        .unwrap();
    assert_eq!(sender.utilisation_pct, Some(100.0), "{sender:?}");
}

#[test]
fn the_ideal_fct_is_a_lower_bound_so_slowdown_needs_no_clamp() {
    // The idle star of the job test: a 1000-B flow completes 58 us after its SYN-ACK (its data
    // waits 336 ns behind the handshake's pure ACK). Ideal: its one 1062-B packet crosses both
    // hops (2 x (10 us + 8.496 us)) and the ACK comes back (2 x (10 us + 0.336 us)): 57.664 us,
    // slowdown 1.005827. (Counting the packet twice, once per hop and once at the bottleneck,
    // gave 66.16 us and a slowdown of 0.877, shown as 1.) A 3000-B flow (1400 + 1400 + 200 B)
    // takes 130.56 us with IW 1: segment 1's ACK at 64.4 us releases segments 2 and 3, the
    // last reaches the receiver at 64.4 + 11.696 + 10 + 11.696 + 2.096 + 10 = 109.888 us and its
    // ACK returns 20.672 us later. Ideal: the last packet (262 B, 2.096 us per hop) crosses
    // both hops behind the other 2924 B at the bottleneck (23.392 us): 2 x 12.096 + 20.672 +
    // 23.392 = 68.256 us, slowdown 1.912799.
    let text = IDLE_STAR;
    for (size, fct, ideal, slowdown) in [
        ("1000B", "58000", "57664", "1.005827"),
        ("3000B", "130560", "68256", "1.912799"),
    ] {
        let set = format!("flows.one.size=\"{size}\"");
        let out = run(&scenario(text, &[&set]), 1, &RunContext::default()).unwrap();
        let f = &flow_rows(&out)[0];
        assert_eq!(
            (f["fct_ns"].as_str(), f["ideal_fct_ns"].as_str()),
            (fct, ideal),
            "{f:?}"
        );
        assert_eq!(f["slowdown"], slowdown);
        let s = out.summary().classes[0].slowdown.unwrap();
        assert_eq!(
            s.min,
            fct.parse::<f64>().unwrap() / ideal.parse::<f64>().unwrap()
        );
    }
}

#[test]
fn the_ideal_fct_takes_the_rates_in_effect_when_the_flow_arrived() {
    // The idle star's 1000-B flow (arrives at 0, done in 58 us, ideal 57.664 us at 1 Gb/s) and
    // both links of its forward path cut to 100 Mb/s later: its ideal stays at the rates it
    // ran on. (The links' rates at the end of the run gave an ideal of 210.592 us and a
    // slowdown of 0.28 for a flow that never saw the cut.) Cut at 0, when the flow arrives,
    // the data's hops are at 100 Mb/s: 2 x (10 + 84.96) + 2 x (10 + 0.336) us.
    for (at, ideal) in [("500us", "57664"), ("0ms", "210592")] {
        let text = format!(
            "{IDLE_STAR}[[events]]\nat = \"{at}\"\nwhere = {{ link = [\"host0->switch\", \
             \"switch->host1\"] }}\nset = {{ rate = \"100Mbps\" }}\n"
        );
        let out = run(&scenario(&text, &[]), 1, &RunContext::default()).unwrap();
        let f = &flow_rows(&out)[0];
        assert_eq!(f["completed"], "true", "{f:?}");
        assert_eq!(f["ideal_fct_ns"], ideal, "cut at {at}: {f:?}");
        let slowdown: f64 = f["slowdown"].parse().unwrap();
        assert!(slowdown >= 1.0, "cut at {at}: {f:?}");
    }
}

#[test]
fn the_ideal_fct_of_the_largest_size_saturates_instead_of_overflowing() {
    // "18446744073709551615B" (u64::MAX) is a valid size, and so is what a CDF file's 1e30
    // becomes: its bytes on the wire (size + a header per segment) overflowed u64 (a panic in
    // debug builds, a wrapped ideal FCT in release ones).
    let set = "flows.one.size=\"18446744073709551615B\"";
    let out = run(&scenario(IDLE_STAR, &[set]), 1, &RunContext::default()).unwrap();
    let f = &flow_rows(&out)[0];
    assert_eq!(f["size_bytes"], u64::MAX.to_string());
    assert_eq!(f["completed"], "false");
    assert_eq!(f["ideal_fct_ns"], (u64::MAX / 1000).to_string(), "{f:?}");
}

/// The rows of a CSV file by column name, read with the csv crate.
fn csv_rows(bytes: &[u8]) -> Vec<std::collections::HashMap<String, String>> {
    let mut reader = csv::Reader::from_reader(bytes);
    reader.deserialize().map(Result::unwrap).collect()
}

/// An empty field as `None`, else the field parsed.
fn field<T: std::str::FromStr>(
    row: &std::collections::HashMap<String, String>,
    column: &str,
) -> Option<T>
where
    T::Err: std::fmt::Debug,
{
    let text = &row[column];
    (!text.is_empty()).then(|| text.parse().unwrap())
}

#[test]
fn the_typed_results_are_the_rows_of_flows_csv_and_links_csv() {
    use htsim::core::SimTime;
    // A warmup, so that goodput and link counters cover part of the run only; short flows
    // arrive until 0.2 s before the end.
    let s = scenario(
        TINY,
        &[
            "run.duration = \"300ms\"",
            "run.warmup = \"30ms\"",
            "run.drain = \"100ms\"",
        ],
    );
    let out = run(&s, 5, &RunContext::default()).unwrap();
    let results = &out.results;
    let ns = |t: Option<SimTime>| t.map(SimTime::as_ns);

    let rows = csv_rows(out.files.flows_csv.as_deref().unwrap());
    assert_eq!(rows.len(), results.flows.len());
    assert_eq!(rows.len(), out.started.len());
    for (row, f) in rows.iter().zip(&results.flows) {
        let class = results.class_of(f);
        assert_eq!(row["point"], "base");
        assert_eq!(row["seed"], "5");
        assert_eq!(row["class"], class.name);
        assert_eq!(row["transport"], class.transport);
        assert_eq!(field(row, "flow_id"), Some(f.flow_id));
        assert_eq!(row["src"], format!("host{}", f.src.0));
        assert_eq!(row["dst"], format!("host{}", f.dst.0));
        assert_eq!(field(row, "size_bytes"), f.size_bytes);
        assert_eq!(field(row, "arrival_ns"), Some(f.arrival.as_ns()));
        assert_eq!(field(row, "start_ns"), ns(f.start));
        assert_eq!(field(row, "end_ns"), ns(f.end));
        assert_eq!(field(row, "fct_ns"), ns(f.fct));
        assert_eq!(field(row, "ideal_fct_ns"), ns(f.ideal_fct));
        assert_eq!(field(row, "completed"), Some(f.completed));
        assert_eq!(field(row, "bytes_acked"), Some(f.bytes_acked));
        assert_eq!(field(row, "packets_sent"), Some(f.packets_sent));
        assert_eq!(field(row, "retransmits"), Some(f.retransmits));
        assert_eq!(field(row, "fast_retransmits"), Some(f.fast_retransmits));
        assert_eq!(field(row, "timeouts"), Some(f.timeouts));
        assert_eq!(field(row, "subflows"), Some(f.subflows));
        // Rounded in the file: to 6 decimals, and goodputs to whole b/s.
        for (column, value, half_unit) in [
            ("slowdown", f.slowdown, 5e-7),
            ("goodput_bps", f.goodput_bps, 0.5),
            ("goodput_sent_bps", f.goodput_sent_bps, 0.5),
            ("subflow_goodput_bps", f.subflow_goodput_bps, 0.5),
        ] {
            let written: Option<f64> = field(row, column);
            assert_eq!(written.is_some(), value.is_some(), "{column}: {row:?}");
            if let (Some(w), Some(v)) = (written, value) {
                assert!((w - v).abs() <= half_unit, "{column}: {w} vs {v}");
            }
        }
        // The semantics of docs/outputs.md, on the records themselves.
        if f.is_long() {
            assert!(!f.completed && f.end.is_none() && f.fct.is_none(), "{f:?}");
        } else {
            assert_eq!(f.completed, f.end.is_some(), "{f:?}");
            assert_eq!(f.fct, f.end.map(|e| e.saturating_sub(f.start.unwrap())));
        }
    }
    // Not a vacuous comparison: completed short flows and long flows with a goodput.
    let short: Vec<_> = results.flows_of("short").collect();
    let completed = short.iter().filter(|f| f.completed).count();
    assert!(completed >= 10, "{completed} of {}", short.len());
    let long: Vec<_> = results.flows_of("long").collect();
    assert_eq!(long.len(), 4);
    assert!(
        long.iter().all(|f| f.goodput_bps.unwrap() > 1e8),
        "{long:?}"
    );
    assert_eq!(results.flows_of("none").count(), 0);

    let rows = csv_rows(out.files.links_csv.as_deref().unwrap());
    assert_eq!(rows.len(), results.links.len());
    assert_eq!(rows.len(), 2 * 16 + 64);
    for (row, l) in rows.iter().zip(&results.links) {
        assert_eq!(row["link"], l.name);
        assert_eq!(row["from"], l.from);
        assert_eq!(row["to"], l.to);
        assert_eq!(row["layer"], l.layer);
        assert_eq!(field(row, "rate_bps"), Some(l.rate.as_bps()));
        assert_eq!(field(row, "packets_enqueued"), Some(l.packets_enqueued));
        assert_eq!(field(row, "bytes_enqueued"), Some(l.bytes_enqueued));
        assert_eq!(field(row, "packets_dropped"), Some(l.packets_dropped));
        assert_eq!(field(row, "bytes_dropped"), Some(l.bytes_dropped));
        assert_eq!(field(row, "packets_marked"), Some(l.packets_marked));
        let utilisation: f64 = field(row, "utilisation_pct").unwrap();
        assert!((utilisation - l.utilisation_pct.unwrap()).abs() <= 5e-5);
        let loss: f64 = field(row, "loss_rate_pct").unwrap();
        assert!((loss - l.loss_rate_pct).abs() <= 5e-5);
    }
    // The long flows' sender links are busy for most of the window.
    let busiest = results
        .links_of("host")
        .filter_map(|l| l.utilisation_pct)
        .fold(0.0, f64::max);
    assert!((50.0..=100.2).contains(&busiest), "{busiest}");
    assert_eq!(results.links_of("core").count(), 16);
}

#[test]
fn the_fct_cdf_counts_the_flows_the_summary_counts_when_there_is_a_warmup() {
    use htsim::core::SimTime;
    // Short flows arrive from t = 0; a 100 ms warmup leaves the first ones out of the summary.
    // The FCT CDF, drawn from flows.csv read back, must leave out the same ones (it used to
    // draw every completed flow: more flows than the summary's `completed`).
    let s = scenario(TINY, &["run.warmup = \"100ms\""]);
    let out = run(&s, 5, &RunContext::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run_dir = htsim::output::run_dir(dir.path(), "base", 5);
    htsim::output::write_run(&run_dir, b"{}", &out.files).unwrap();
    let samples =
        htsim::report::flow_samples::read_flow_samples(&[dir.path().to_path_buf()]).unwrap();
    let cdf = &samples.iter().find(|s| s.class == "short").unwrap().fct_ms;
    let warmup = SimTime::from_ms(100);
    let in_warmup = (out.results.flows_of("short"))
        .filter(|f| f.completed && f.arrival < warmup)
        .count();
    assert!(
        in_warmup > 0,
        "not vacuous: some flows completed in the warmup"
    );
    let summary = &out.summary().classes[1];
    assert_eq!(cdf.len() as u64, summary.completed);
    // The same flows: the same mean FCT (flows.csv has whole ns, the summary ps).
    let mean = cdf.iter().sum::<f64>() / cdf.len() as f64;
    assert!((mean - summary.fct_ms.unwrap().mean).abs() < 1e-6, "{mean}");
}

#[test]
fn drops_on_a_link_that_is_down_count_in_links_csv_and_the_loss_rates() {
    // The idle star, host0's link down from t = 0; the flow arrives at 100 us. Its SYN (50 B on
    // the wire) is dropped on arrival at host0->switch, and the next SYN would wait 1 s, past the
    // end: one packet arrived at that link, none accepted, so its loss rate is 100% and it was
    // never busy. The flow never connected: no start, no goodput, not completed, no data sent.
    let set = [
        "flows.one.start=\"100us\"",
        "events=[{ at = \"0s\", where = { link = [\"host0->switch\"] }, set = { down = true } }]",
    ];
    let out = run(&scenario(IDLE_STAR, &set), 1, &RunContext::default()).unwrap();
    let l = link_row(&out, "host0->switch");
    let got = [
        "packets_enqueued",
        "bytes_enqueued",
        "packets_dropped",
        "bytes_dropped",
        "utilisation_pct",
        "loss_rate_pct",
    ]
    .map(|c| l[c].as_str());
    assert_eq!(got, ["0", "0", "1", "50", "0.0000", "100.0000"], "{l:?}");
    let other = link_row(&out, "host1->switch");
    assert_eq!(
        (
            other["packets_dropped"].as_str(),
            other["loss_rate_pct"].as_str()
        ),
        ("0", "0.0000")
    );
    let f = &flow_rows(&out)[0];
    let got = [
        "arrival_ns",
        "start_ns",
        "end_ns",
        "completed",
        "goodput_bps",
        "packets_sent",
    ]
    .map(|c| f[c].as_str());
    assert_eq!(got, ["100000", "", "", "false", "", "0"], "{f:?}");
    let c = &out.summary().classes[0];
    assert_eq!((c.finite_flows, c.completed, c.unfinished), (1, 0, 1));
    // The host layer: host0's link at 100%, host1's at 0%. The paper's figure has one
    // interval (the 1 ms window): L = 100 x 50 B dropped / 50 B arrived, and 0, mean 50%.
    let host = out
        .summary()
        .layers
        .iter()
        .find(|l| l.layer == "host")
        .unwrap();
    assert_eq!(host.links, 2);
    assert_eq!(
        (host.loss_pct, host.paper_loss_pct),
        (Some(50.0), Some(50.0))
    );
    assert_eq!(
        (host.utilisation_pct, host.paper_utilisation_pct),
        (Some(0.0), Some(0.0))
    );
}

#[test]
fn layer_events_take_the_queue_layer_names_of_bcube_and_the_dumbbell() {
    // `where.layer` takes the `[queue.layers]` names (docs/scenarios.md): the dumbbell's
    // `bottleneck` (a cable layer, whose switches are in layer `switch`) selected no link, so
    // taking it down did nothing; BCube's `switch` (its switches are in layers `level<l>`) was
    // refused. One TCP flow across a 100 Mb/s bottleneck that goes down at 1 ms of a 5 ms run:
    // the bottleneck sends for 1 ms at most (it sent all 5 ms before).
    let dumbbell = r#"
[run]
duration = "5ms"
[topology]
kind = "dumbbell"
hosts = 1
link_rate = "1Gbps"
link_delay = "1us"
[[flows]]
name = "long"
matrix = "pairs"
pairs = [[0, 1]]
size = "infinite"
transport = { kind = "tcp" }
[[events]]
at = "1ms"
where = { layer = "bottleneck" }
set = { down = true }
"#;
    let out = run(&scenario(dumbbell, &[]), 1, &RunContext::default()).unwrap();
    let neck = out
        .results
        .links
        .iter()
        .find(|l| l.name == "left->right")
        .unwrap();
    // Busy at most until the cut: 1 ms of 5.
    let most = 100.0 * 1e-3 / 5e-3;
    let u = neck.utilisation_pct.unwrap();
    assert!(u > 10.0 && u <= most, "{neck:?}");

    // BCube(4, 1) has 8 switches: half of them go down at 0, every egress link of each.
    let bcube = r#"
[run]
duration = "2ms"
[topology]
kind = "bcube"
n = 4
k = 1
link_rate = "1Gbps"
link_delay = "1us"
[[flows]]
name = "long"
size = "infinite"
transport = { kind = "tcp" }
[[events]]
at = "0s"
where = { layer = "switch", switches = "50%" }
set = { down = true }
"#;
    let out = run(&scenario(bcube, &[]), 1, &RunContext::default()).unwrap();
    let mut down: Vec<&str> = Vec::new();
    for l in out
        .results
        .links
        .iter()
        .filter(|l| l.from.starts_with("sw"))
    {
        if l.packets_enqueued == 0 && l.packets_dropped > 0 && !down.contains(&l.from.as_str()) {
            down.push(&l.from);
        }
    }
    let busy = |sw: &str| {
        out.results
            .links
            .iter()
            .any(|l| l.from == sw && l.packets_enqueued > 0)
    };
    assert_eq!(down.len(), 4, "{down:?}");
    assert!(down.iter().all(|sw| !busy(sw)), "{down:?}");
}
