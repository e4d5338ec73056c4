//! Results through the `htsim` binary (issue 7): the cross-seed summary written by `run`, its
//! exact header and row order; `report` over shard directories equal to the unsharded result
//! byte for byte; plots when asked.

mod common;
use common::htsim;

use std::path::Path;
use std::process::Output;

fn ok(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{err}");
    err
}

/// Two points, two seeds, two flow classes; small enough to run in a moment.
const TINY: &str = r#"
name = "tiny"
[run]
duration = "100ms"
drain = "50ms"
seeds = 2
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
[transports.long]
kind = "tcp"
[[flows]]
name = "long"
senders = "25%"
size = "infinite"
transport = "long"
[[flows]]
name = "short"
senders = "rest"
size = "20KB"
arrivals = { poisson = 300 }
transport = { kind = "tcp" }
[sweep]
"transports.long.kind" = ["tcp", "dctcp"]
"#;

const HEADER: &str = "point,class,metric,unit,n,mean,std,ci95,p50,p99,min,max";

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), TINY).unwrap();
    dir
}

fn read(path: impl AsRef<Path>) -> Vec<u8> {
    let path = path.as_ref();
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn run_writes_the_summary_with_the_exact_header_and_ordered_rows() {
    let dir = setup();
    let err = ok(&htsim(
        &["run", "tiny.toml", "--out", "a", "--jobs", "2"],
        dir.path(),
    ));
    assert!(
        err.contains("summary: a/summary.csv and a/summary.json ("),
        "{err}"
    );
    let csv = String::from_utf8(read(dir.path().join("a/summary.csv"))).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(HEADER));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.iter().all(|r| r.len() == 12), "{csv}");
    // One row per (point, class, metric).
    let mut keys: Vec<(&str, &str, &str)> = rows.iter().map(|r| (r[0], r[1], r[2])).collect();
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), n, "duplicate (point, class, metric) rows");
    // Points in run-list order; within a point, flow classes in scenario order, then layers in
    // the topology's order, then the run's cost.
    let points: Vec<&str> = dedup(rows.iter().map(|r| r[0]));
    assert_eq!(
        points,
        ["transports.long.kind=tcp", "transports.long.kind=dctcp"]
    );
    for p in &points {
        let classes = dedup(rows.iter().filter(|r| r[0] == *p).map(|r| r[1]));
        assert_eq!(
            classes,
            [
                "long",
                "short",
                "layer:tor",
                "layer:agg",
                "layer:core",
                "layer:host",
                "run"
            ],
            "{p}"
        );
        let short: Vec<&str> = rows
            .iter()
            .filter(|r| r[0] == *p && r[1] == "short")
            .map(|r| r[2])
            .collect();
        assert_eq!(
            &short[..4],
            ["finite_flows", "completed", "unfinished", "fct_mean"]
        );
        // Every metric has both seeds.
        assert!(rows
            .iter()
            .filter(|r| r[0] == *p && r[1] == "run")
            .all(|r| r[4] == "2"));
    }
    let run_metrics: Vec<&str> = rows
        .iter()
        .filter(|r| r[1] == "run")
        .map(|r| r[2])
        .collect();
    assert_eq!(
        &run_metrics[..3],
        ["events", "data_packets_delivered", "peak_packets_in_flight"]
    );
    // summary.json holds the same, nested.
    let json: serde_json::Value =
        serde_json::from_slice(&read(dir.path().join("a/summary.json"))).unwrap();
    let fct = &json["transports.long.kind=dctcp"]["short"]["fct_mean"];
    assert_eq!(fct["unit"], "ms");
    assert_eq!(fct["n"], 2);
    // `report` on the same directory rewrites the same bytes.
    let before = read(dir.path().join("a/summary.csv"));
    ok(&htsim(&["report", "a"], dir.path()));
    assert_eq!(read(dir.path().join("a/summary.csv")), before);
}

fn dedup<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for i in items {
        if out.last() != Some(&i) {
            assert!(!out.contains(&i), "{i} is not contiguous");
            out.push(i);
        }
    }
    out
}

#[test]
fn report_over_shard_directories_equals_the_unsharded_summary_byte_for_byte() {
    let dir = setup();
    ok(&htsim(
        &["run", "tiny.toml", "--out", "all", "-q"],
        dir.path(),
    ));
    for (shard, out) in [("1/3", "s1"), ("2/3", "s2"), ("3/3", "s3")] {
        let err = ok(&htsim(
            &["run", "tiny.toml", "--out", out, "--shard", shard],
            dir.path(),
        ));
        // A shard writes only its runs: no summary, and it says how to merge.
        assert!(err.contains("summary not written"), "{err}");
        assert!(err.contains("htsim report"), "{err}");
        assert!(!dir.path().join(out).join("summary.csv").exists());
    }
    let err = ok(&htsim(
        &["report", "s3", "s1", "s2", "--out", "merged"],
        dir.path(),
    ));
    assert!(
        err.contains("4 of 4 run(s) complete across 3 directories"),
        "{err}"
    );
    for f in ["summary.csv", "summary.json", "scenario.toml"] {
        assert_eq!(
            read(dir.path().join("merged").join(f)),
            read(dir.path().join("all").join(f)),
            "{f} differs"
        );
    }
    // A missing shard is reported, and the summary covers what exists.
    let err = ok(&htsim(&["report", "s1", "--out", "part"], dir.path()));
    assert!(err.contains("missing: tiny/"), "{err}");
    let part = String::from_utf8(read(dir.path().join("part/summary.csv"))).unwrap();
    assert!(part.starts_with(HEADER));
    // No runs at all is a failure.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let out = htsim(&["report", "empty"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    // A directory that does not exist is a usage error.
    let out = htsim(&["report", "nope"], dir.path());
    assert_eq!(out.status.code(), Some(2));
}

/// Width and height from a PNG's IHDR chunk, after checking the signature.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&bytes[16..20]), be(&bytes[20..24]))
}

#[test]
fn plots_are_drawn_when_the_scenario_asks_and_report_redraws_them_identically() {
    let dir = setup();
    let err = ok(&htsim(
        &[
            "run",
            "tiny.toml",
            "--out",
            "p",
            "--set",
            "output.plots=true",
        ],
        dir.path(),
    ));
    assert!(err.contains("chart(s) as PNG and SVG in p/plots"), "{err}");
    let plots = dir.path().join("p/plots");
    let svg = |name: &str| String::from_utf8(read(plots.join(format!("{name}.svg")))).unwrap();
    let cdf = svg("fct_cdf_short");
    for s in [
        "Short-flow completion time CDF",
        "Flow completion time (ms, log scale)",
        "CDF (fraction of flows)",
        "transports.long.kind",
    ] {
        assert!(cdf.contains(s), "{s} missing from fct_cdf_short.svg");
    }
    // Series are named by the swept value alone, not the whole point.
    assert!(cdf.contains("\ndctcp (") && !cdf.contains("kind=dctcp"));
    assert!(svg("throughput_ranked_long").contains("Goodput (Mb/s)"));
    assert!(svg("utilisation_per_layer").contains("Utilisation per layer"));
    let vs = svg("fct_mean_short_vs_transports_long_kind");
    assert!(
        vs.contains("Short-flow FCT, mean against transports.long.kind"),
        "{vs}"
    );
    assert!(vs.contains("Short-flow FCT, mean (ms)"));
    assert!(vs.contains("95% confidence interval of the mean"));
    for name in ["fct_cdf_short", "utilisation_per_layer"] {
        // Print resolution: twice the SVG's 960 x 600 units.
        assert_eq!(
            png_size(&read(plots.join(format!("{name}.png")))),
            (1920, 1200)
        );
    }
    // Every chart written has data: its first series, drawn in the palette's first colour.
    for entry in std::fs::read_dir(&plots).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "svg") {
            let text = String::from_utf8(read(&path)).unwrap();
            assert!(text.contains("#0072B2"), "{} has no data", path.display());
        }
    }
    // Without plots = true, `report --plots` draws the same files from the run files alone.
    ok(&htsim(
        &["run", "tiny.toml", "--out", "q", "-q"],
        dir.path(),
    ));
    assert!(!dir.path().join("q/plots").exists());
    ok(&htsim(&["report", "q", "--plots"], dir.path()));
    let names = |d: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    let (a, b) = (names(&plots), names(&dir.path().join("q/plots")));
    assert_eq!(a, b);
    for n in &a {
        if n.to_string_lossy().ends_with(".svg") {
            assert_eq!(
                read(plots.join(n)),
                read(dir.path().join("q/plots").join(n)),
                "{n:?}"
            );
        }
    }
}

/// How many links of timeseries `rows` (time_ns, series, id, value, ...) have a queue of 0 at
/// every sample.
fn queues_never_used(rows: &[Vec<&str>]) -> usize {
    let links: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter(|r| r[1] == "queue")
        .map(|r| r[2])
        .collect();
    links
        .iter()
        .filter(|l| {
            rows.iter()
                .filter(|r| r[1] == "queue" && r[2] == **l)
                .all(|r| r[3] == "0")
        })
        .count()
}

#[test]
fn timeseries_rows_come_at_the_interval_for_the_selected_links_and_flows() {
    let dir = setup();
    let text = TINY
        .replace(
            "[sweep]",
            "[output]\ntimeseries = { interval = \"5ms\", links = [\"core\", \"host0->tor0.0\"], \
             flows = [\"long\", 9999] }\n[sweep]",
        )
        .replace("[\"tcp\", \"dctcp\"]", "[\"tcp\", \"mptcp\"]");
    std::fs::write(dir.path().join("ts.toml"), text).unwrap();
    ok(&htsim(
        &["run", "ts.toml", "--out", "t", "--seed", "1", "-q"],
        dir.path(),
    ));
    let csv = String::from_utf8(read(
        dir.path()
            .join("t/runs/transports.long.kind=tcp/seed-1/timeseries.csv"),
    ))
    .unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("point,seed,transports.long.kind,time_ns,series,id,value,unit")
    );
    // After the run's columns (point, seed, the swept value): time_ns,series,id,value,unit.
    let rows: Vec<Vec<&str>> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f[..3], ["transports.long.kind=tcp", "1", "tcp"], "{l}");
            let unit = match f[4] {
                "queue" => "packets",
                "cwnd" => "bytes",
                _ => "bps",
            };
            assert_eq!(f[7], unit, "{l}");
            f[3..].to_vec()
        })
        .collect();
    // Samples every 5 ms from 5 ms to the end (100 ms + 50 ms drain).
    let times = dedup(rows.iter().map(|r| r[0]));
    let want: Vec<String> = (1..=30).map(|k| (k * 5_000_000).to_string()).collect();
    assert_eq!(times, want.iter().map(String::as_str).collect::<Vec<_>>());
    let at = |t: &str, series: &str| -> Vec<Vec<&str>> {
        rows.iter()
            .filter(|r| r[0] == t && r[1] == series)
            .cloned()
            .collect()
    };
    // FatTree k = 4: 4 core switches x 4 ports, plus the one named link, in topology order.
    let queues = at("5000000", "queue");
    assert_eq!(queues.len(), 17, "{queues:?}");
    assert_eq!(queues[0][2], "host0->tor0.0");
    assert!(queues[1..].iter().all(|r| r[2].starts_with("core")));
    // The long class has 4 flows (25% of 16 hosts), ids 0..4; they run until the duration, so
    // their cwnd (bytes, at least one MSS) and rate (bit/s) are there at 50 ms, not after
    // they have stopped and closed.
    let cwnd = at("50000000", "cwnd");
    let ids: Vec<&str> = cwnd.iter().map(|r| r[2]).collect();
    assert_eq!(ids, ["0", "1", "2", "3"]);
    assert!(
        cwnd.iter().all(|r| r[3].parse::<u64>().unwrap() >= 1000),
        "{cwnd:?}"
    );
    let rate: u64 = at("50000000", "rate")
        .iter()
        .map(|r| r[3].parse::<u64>().unwrap())
        .sum();
    assert!(rate > 100_000_000 && rate <= 4_000_000_000, "{rate}");
    assert!(rows
        .iter()
        .all(|r| r[1] != "cwnd" || ["0", "1", "2", "3"].contains(&r[2])));
    // Every transport has cwnd rows (Endpoint::sample): an MPTCP flow's is the sum over its 8
    // subflows, each at least one MSS once joined.
    let mptcp = String::from_utf8(read(
        dir.path()
            .join("t/runs/transports.long.kind=mptcp/seed-1/timeseries.csv"),
    ))
    .unwrap();
    let cwnd: Vec<Vec<&str>> = mptcp
        .lines()
        .map(|l| l.split(',').skip(3).collect::<Vec<_>>())
        .filter(|r| r[0] == "50000000" && r[1] == "cwnd")
        .collect();
    assert_eq!(
        cwnd.iter().map(|r| r[2]).collect::<Vec<_>>(),
        ["0", "1", "2", "3"]
    );
    assert!(
        cwnd.iter()
            .all(|r| r[3].parse::<u64>().unwrap() >= 8 * 1000),
        "{cwnd:?}"
    );
    // `report --plots` draws them: per point and series, one line per link or flow.
    ok(&htsim(&["report", "t", "--plots"], dir.path()));
    let svg = String::from_utf8(read(
        dir.path()
            .join("t/plots/timeseries_queue_transports_long_kind_tcp.svg"),
    ))
    .unwrap();
    for s in [
        "Queue length: transports.long.kind=tcp, seed 1",
        "Simulated time (s)",
        "Queue length (packets waiting)",
    ] {
        assert!(svg.contains(s), "{s} missing");
    }
    // Only links that queued are drawn, and the chart says how many of the 17 never did.
    let quiet = queues_never_used(&rows);
    assert!(quiet > 0 && quiet < 17, "{quiet}");
    assert!(
        svg.contains(&format!("{quiet} of 17 links never queued: not shown")),
        "{svg}"
    );
    let cwnd = read(
        dir.path()
            .join("t/plots/timeseries_cwnd_transports_long_kind_tcp.png"),
    );
    assert_eq!(png_size(&cwnd), (1920, 1200));
    // A selector naming nothing is a scenario error (exit 2) naming the key and line.
    let bad = TINY.replace(
        "[sweep]",
        "[output]\ntimeseries = { interval = \"5ms\", flows = [\"lng\"] }\n[sweep]",
    );
    std::fs::write(dir.path().join("bad.toml"), bad).unwrap();
    let out = htsim(&["validate", "bad.toml"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("output.timeseries.flows") && err.contains("long"),
        "{err}"
    );
}

/// Background long flows and partition/aggregate jobs, two seeds.
const JOBS: &str = r#"
name = "jobs"
[run]
duration = "100ms"
drain = "100ms"
seeds = 2
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
[[flows]]
name = "long"
senders = "25%"
size = "infinite"
transport = { kind = "tcp" }
[[flows]]
name = "incast"
jobs = { servers = 4, request = "2KB", response = "20KB", concurrent = 2 }
transport = { kind = "tcp" }
"#;

#[test]
fn job_completion_time_and_pooled_goodput_survive_a_report_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("jobs.toml"), JOBS).unwrap();
    ok(&htsim(
        &["run", "jobs.toml", "--out", "a", "-q"],
        dir.path(),
    ));
    let csv = String::from_utf8(read(dir.path().join("a/summary.csv"))).unwrap();
    let row = |class: &str, metric: &str| -> Vec<String> {
        csv.lines()
            .find(|l| l.starts_with(&format!("base,{class},{metric},")))
            .unwrap_or_else(|| panic!("no {class} {metric} row in\n{csv}"))
            .split(',')
            .map(str::to_string)
            .collect()
    };
    for metric in [
        "jct_mean", "jct_std", "jct_p50", "jct_p90", "jct_p99", "jct_p999",
    ] {
        let r = row("incast", metric);
        assert_eq!((r[3].as_str(), r[4].as_str()), ("ms", "2"), "{r:?}");
        assert!(r[5].parse::<f64>().unwrap() > 0.0, "{r:?}");
    }
    assert_eq!(row("incast", "jobs_completed")[4], "2");
    // The pooled goodput is the mean over the long flows of both seeds' flows.csv.
    let mut goodputs = Vec::new();
    for seed in [1, 2] {
        let flows = String::from_utf8(read(
            dir.path()
                .join(format!("a/runs/base/seed-{seed}/flows.csv")),
        ))
        .unwrap();
        let prefix = format!("base,{seed},long,");
        let header: Vec<&str> = flows.lines().next().unwrap().split(',').collect();
        let goodput = header.iter().position(|c| *c == "goodput_bps").unwrap();
        for line in flows.lines().skip(1).filter(|l| l.starts_with(&prefix)) {
            let f: Vec<&str> = line.split(',').collect();
            goodputs.push(f[goodput].parse::<f64>().unwrap() / 1e6);
        }
    }
    let pooled = row("long", "goodput_pooled");
    assert_eq!(pooled[3], "Mbps");
    assert_eq!(pooled[4], goodputs.len().to_string());
    let mean = goodputs.iter().sum::<f64>() / goodputs.len() as f64;
    let got: f64 = pooled[5].parse().unwrap();
    // flows.csv rounds goodput to whole b/s.
    assert!((got - mean).abs() < 1e-5, "{got} vs {mean}");
    // Rebuilt from the run files alone, into another directory: the same bytes.
    ok(&htsim(&["report", "a", "--out", "b"], dir.path()));
    for f in ["summary.csv", "summary.json"] {
        assert_eq!(
            read(dir.path().join("b").join(f)),
            read(dir.path().join("a").join(f)),
            "{f}"
        );
    }
}

/// A sweep over a transport's `kind` (tcp and ps differ in `dupthresh`'s default; the inline
/// transport of a class too): each point ran with its own kind's defaults, so scenario.toml keeps
/// only the written keys of those tables, and `report` finds every run's settings again.
#[test]
fn report_rebuilds_a_sweep_over_transport_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"
name = "kinds"
[run]
duration = "30ms"
seeds = 1
[topology]
kind = "star"
hosts = 4
link_rate = "1Gbps"
[transports.t]
kind = "tcp"
min_rto = "10ms"
[[flows]]
name = "long"
senders = 2
size = "infinite"
transport = "t"
[[flows]]
name = "short"
senders = "rest"
size = "20KB"
transport = { kind = "tcp" }
[sweep]
"transports.t.kind" = ["tcp", "ps"]
"flows.short.transport.kind" = ["tcp", "ps"]
"#;
    std::fs::write(dir.path().join("kinds.toml"), text).unwrap();
    ok(&htsim(
        &["run", "kinds.toml", "--out", "out", "-q"],
        dir.path(),
    ));
    let written = std::fs::read_to_string(dir.path().join("out/scenario.toml")).unwrap();
    let t = written.split("[transports.t]").nth(1).unwrap();
    let t = t.split("\n[").next().unwrap();
    assert!(t.contains("min_rto"), "a written key stays:\n{t}");
    assert!(
        !t.contains("dupthresh"),
        "the swept kind's defaults go:\n{t}"
    );
    let summary = std::fs::read_to_string(dir.path().join("out/summary.csv")).unwrap();
    ok(&htsim(&["report", "out", "-q"], dir.path()));
    let rebuilt = std::fs::read_to_string(dir.path().join("out/summary.csv")).unwrap();
    assert_eq!(summary, rebuilt);
    // Reading the rewritten scenario.toml back gives the same runs: a resume skips them all.
    let again = ok(&htsim(&["run", "kinds.toml", "--out", "out"], dir.path()));
    assert!(again.contains("skipped 4 run(s)"), "{again}");
}

#[test]
fn charts_label_a_swept_table_value_as_the_scenario_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = TINY.replace(
        r#""transports.long.kind" = ["tcp", "dctcp"]"#,
        r#""flows.short.size" = [{ uniform = ["10KB", "100KB"] }, "20KB"]"#,
    );
    std::fs::write(dir.path().join("table.toml"), scenario).unwrap();
    let run = [
        "run",
        "table.toml",
        "--out",
        "t",
        "--seeds",
        "1",
        "--set",
        "run.duration=20ms",
        "--set",
        "output.plots=true",
        "-q",
    ];
    ok(&htsim(&run, dir.path()));
    // `run`, and `report` of the directory into another, both label from the scenario's sweep.
    ok(&htsim(
        &["report", "t", "--out", "r", "--plots", "-q"],
        dir.path(),
    ));
    // SVG text escapes the quotes.
    let table = "{ uniform = [&quot;10KB&quot;, &quot;100KB&quot;] }";
    for out in ["t", "r"] {
        let plots = dir.path().join(out).join("plots");
        let svg = |name: &str| String::from_utf8(read(plots.join(format!("{name}.svg")))).unwrap();
        let cdf = svg("fct_cdf_short");
        assert!(cdf.contains(&format!("\n{table} (")), "{out}: {cdf}");
        assert!(cdf.contains("\n20KB ("), "{out}: {cdf}");
        let vs = svg("fct_mean_short_vs_flows_short_size");
        assert!(vs.contains(&format!(">\n{table}\n<")), "{out}: {vs}");
        for text in [cdf, vs] {
            assert!(!text.contains("uniform=_"), "{out}: a file-name-safe label");
        }
    }
}

/// The per-run CSVs and summary.csv through the csv crate's reader, with fields holding a
/// comma and a quote: a topology file's switch name and layer may be any text without
/// whitespace (`sw,"1`, layer `t,"or`: links.csv's `link`, `from`, `to` and `layer`, and
/// summary.csv's `layer:t,"or` class), and a swept string lands in the axis column of flows.csv
/// and links.csv (the topology file's path, `net,"a.txt`). Flow class names and host names
/// cannot hold either character (letters, digits, `-`, `_`; `host<i>`).
#[test]
fn csv_fields_with_a_comma_and_a_quote_are_quoted_and_read_back_intact() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "name = \"quotes\"\n[run]\nduration = \"1ms\"\nseeds = 1\n[topology]\nkind = \"file\"\n\
         path = \"unused\"\n[[flows]]\nname = \"long\"\nsize = \"infinite\"\n\
         transport = { kind = \"tcp\" }\n[sweep]\n\
         \"topology.path\" = ['net,\"a.txt', 'net,\"b.txt']\n",
    )
    .unwrap();
    for file in ["net,\"a.txt", "net,\"b.txt"] {
        std::fs::write(
            dir.path().join(file),
            "host host0\nhost host1\nswitch sw,\"1 layer=t,\"or\n\
             link host0 sw,\"1 1Gbps 1us 100pkt\nlink host1 sw,\"1 1Gbps 1us 100pkt\n",
        )
        .unwrap();
    }
    ok(&htsim(&["run", "s.toml", "--out", "o", "-q"], dir.path()));
    let run = dir.path().join("o/runs/topology.path=net__a.txt/seed-1");
    let records = |path: &Path| -> (csv::StringRecord, Vec<csv::StringRecord>) {
        let text = String::from_utf8(read(path)).unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let header = r.headers().unwrap().clone();
        let rows = r.records().map(|x| x.unwrap()).collect();
        (header, rows)
    };
    let column = |header: &csv::StringRecord, name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
    };
    let raw = String::from_utf8(read(run.join("links.csv"))).unwrap();
    assert!(raw.contains(r#""host0->sw,""1""#), "not quoted: {raw}");

    let (header, rows) = records(&run.join("links.csv"));
    assert_eq!(rows.len(), 4);
    let (path, link, from, to, layer) = (
        column(&header, "topology.path"),
        column(&header, "link"),
        column(&header, "from"),
        column(&header, "to"),
        column(&header, "layer"),
    );
    assert!(rows.iter().all(|r| r.len() == header.len()));
    assert!(rows.iter().all(|r| &r[path] == "net,\"a.txt"));
    let up = rows.iter().find(|r| &r[from] == "host0").unwrap();
    assert_eq!((&up[link], &up[to]), ("host0->sw,\"1", "sw,\"1"));
    assert!(rows.iter().any(|r| &r[layer] == "t,\"or"), "{rows:?}");

    let (header, rows) = records(&run.join("flows.csv"));
    assert!(!rows.is_empty());
    let path = column(&header, "topology.path");
    assert!(rows
        .iter()
        .all(|r| r.len() == header.len() && &r[path] == "net,\"a.txt"));

    let (header, rows) = records(&dir.path().join("o/summary.csv"));
    assert_eq!(header.len(), HEADER.split(',').count());
    let class = column(&header, "class");
    assert!(rows.iter().all(|r| r.len() == header.len()));
    assert!(rows.iter().any(|r| &r[class] == "layer:t,\"or"), "{rows:?}");
}

#[test]
fn report_into_a_directory_with_runs_of_its_own_merges_them_or_refuses() {
    let dir = setup();
    let p = dir.path();
    ok(&htsim(&["run", "tiny.toml", "--out", "a", "-q"], p));
    ok(&htsim(
        &["run", "tiny.toml", "--out", "b", "--seed", "3", "-q"],
        p,
    ));
    let before = ["summary.csv", "scenario.toml"].map(|f| read(p.join("a").join(f)));
    // A summary of b alone written into a would not describe a's runs (and its scenario.toml
    // would name seeds whose runs are elsewhere).
    let out = htsim(&["report", "b", "--out", "a"], p);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("holds runs of its own"), "{err}");
    assert!(err.contains("htsim report a b"), "{err}");
    assert_eq!(
        ["summary.csv", "scenario.toml"].map(|f| read(p.join("a").join(f))),
        before
    );
    // Listed among the directories, however spelled, its runs are merged.
    let err = ok(&htsim(&["report", "./a", "b", "--out", "a"], p));
    assert!(
        err.contains("6 of 6 run(s) complete across 2 directories"),
        "{err}"
    );
}

#[test]
fn a_resumed_sweep_with_reordered_values_summarises_as_a_fresh_one() {
    // The runs of a are skipped when its sweep values are reordered (same settings), yet its
    // summary must follow the new order, as a fresh directory's does.
    let dir = setup();
    let p = dir.path();
    let reordered = TINY.replace(r#"["tcp", "dctcp"]"#, r#"["dctcp", "tcp"]"#);
    assert_ne!(reordered, TINY);
    std::fs::write(p.join("reordered.toml"), reordered).unwrap();
    ok(&htsim(&["run", "tiny.toml", "--out", "a", "-q"], p));
    let err = ok(&htsim(&["run", "reordered.toml", "--out", "a", "-q"], p));
    assert!(err.contains("0 run(s) finished, 4 skipped"), "{err}");
    ok(&htsim(&["run", "reordered.toml", "--out", "b", "-q"], p));
    for f in ["summary.csv", "summary.json", "scenario.toml"] {
        assert_eq!(read(p.join("a").join(f)), read(p.join("b").join(f)), "{f}");
    }
    ok(&htsim(&["report", "a", "-q"], p));
    assert_eq!(read(p.join("a/summary.csv")), read(p.join("b/summary.csv")));
}

/// A sweep summarised with plots while a run was missing (say `htsim report DIR --plots`
/// after an interruption), then resumed: the resumed run's summary is over every run, so the
/// charts over the earlier, smaller set of runs must not stay beside it. A later report over
/// the same runs keeps the charts drawn over them.
#[test]
fn charts_over_other_runs_do_not_stay_beside_a_new_summary() {
    let dir = setup();
    ok(&htsim(&["run", "tiny.toml", "--out", "r"], dir.path()));
    let complete = read(dir.path().join("r/summary.json"));
    // The state of an interrupted sweep: one run never finished (no summary.json), no summary.
    let victim = dir.path().join("r/runs/transports.long.kind=dctcp/seed-2");
    std::fs::remove_file(victim.join("summary.json")).unwrap();
    for name in ["summary.csv", "summary.json"] {
        std::fs::remove_file(dir.path().join("r").join(name)).unwrap();
    }
    ok(&htsim(&["report", "r", "--plots"], dir.path()));
    let plots = dir.path().join("r/plots");
    assert!(plots.join("fct_cdf_short.svg").is_file());

    // Resumed without plots: the summary is over all 4 runs, and no chart of 3 stays.
    let err = ok(&htsim(&["run", "tiny.toml", "--out", "r"], dir.path()));
    assert!(err.contains("1 run(s) finished, 3 skipped"), "{err}");
    assert_eq!(read(dir.path().join("r/summary.json")), complete);
    assert!(
        !plots.exists(),
        "charts over 3 runs left beside a summary of 4"
    );

    // The same runs again: charts drawn over them stay when a report without plots runs.
    ok(&htsim(&["report", "r", "--plots"], dir.path()));
    let chart = read(plots.join("fct_cdf_short.svg"));
    ok(&htsim(&["report", "r"], dir.path()));
    assert_eq!(read(plots.join("fct_cdf_short.svg")), chart);
    assert_eq!(read(dir.path().join("r/summary.json")), complete);
}

/// A run.json cut short (a copy of the directory interrupted, say) leaves a run whose summary
/// and files are complete but whose settings are unknown: `htsim report` refuses it, naming
/// the file, as `htsim run` does, instead of summarising it as a run of an older htsim.
#[test]
fn report_refuses_a_run_whose_run_json_does_not_read() {
    let dir = setup();
    ok(&htsim(&["run", "tiny.toml", "--out", "r"], dir.path()));
    let json = dir
        .path()
        .join("r/runs/transports.long.kind=dctcp/seed-2/run.json");
    let text = read(&json);
    std::fs::write(&json, &text[..text.len() / 2]).unwrap();
    refused_until_replaced(dir.path());
}

/// Asserts that `htsim run` (exit 2, the run stale for want of a readable run.json) and `htsim
/// report` (exit 2, naming the file) refuse the dctcp seed-2 run of `tiny.toml` in `r`, until
/// `--replace-stale` simulates it again.
fn refused_until_replaced(dir: &Path) {
    let out = htsim(&["run", "tiny.toml", "--out", "r"], dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("tiny/transports.long.kind=dctcp/seed-2: no readable run.json"),
        "{err}"
    );
    let out = htsim(&["report", "r"], dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "transports.long.kind=dctcp/seed-2/run.json: does not read as a run's identity"
        ),
        "{err}"
    );
    let err = ok(&htsim(
        &["run", "tiny.toml", "--out", "r", "--replace-stale"],
        dir,
    ));
    assert!(err.contains("1 run(s) finished, 3 skipped"), "{err}");
    ok(&htsim(&["report", "r"], dir));
}

/// A run.json whose settings were edited by hand, its old digest kept, records nothing
/// trustworthy: the digest is checked against the settings text on reading, so `htsim run`
/// does not skip the run as done (it is stale, exit 2, until `--replace-stale`) and `htsim
/// report` refuses it, naming the file.
#[test]
fn a_run_json_edited_by_hand_is_trusted_by_neither_run_nor_report() {
    let dir = setup();
    ok(&htsim(&["run", "tiny.toml", "--out", "r"], dir.path()));
    let json = dir
        .path()
        .join("r/runs/transports.long.kind=dctcp/seed-2/run.json");
    let mut identity: serde_json::Value = serde_json::from_slice(&read(&json)).unwrap();
    let settings = identity["settings"].as_str().unwrap().to_string();
    assert!(settings.contains("link_rate = \"1Gbps\""), "{settings}");
    identity["settings"] = settings.replace("\"1Gbps\"", "\"10Gbps\"").into();
    std::fs::write(&json, serde_json::to_vec_pretty(&identity).unwrap()).unwrap();
    refused_until_replaced(dir.path());
}

/// `htsim args` in `dir`, killed and failed if it has not exited within 60 s.
fn htsim_within(args: &[&str], dir: &Path) -> Output {
    let mut command = common::command(dir);
    command.args(args);
    common::output_within_60s(command)
}

/// A FIFO where a result directory has a run's summary.json or run.json, or its lock file:
/// reading it waited for a writer, so `htsim run` and `htsim report` hung for ever. Now the
/// run is incomplete (summary.json: simulated again), its settings unknown (run.json: exit 2,
/// as for a damaged one), or the lock file is not one (exit 2, naming it).
#[test]
fn a_fifo_in_place_of_a_result_file_blocks_neither_run_nor_report() {
    let dir = setup();
    ok(&htsim(&["run", "tiny.toml", "--out", "r"], dir.path()));
    let run = dir.path().join("r/runs/transports.long.kind=dctcp/seed-2");
    let mkfifo = |path: &Path| {
        std::fs::remove_file(path).unwrap();
        std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .is_ok_and(|s| s.success())
    };
    if !mkfifo(&run.join("summary.json")) {
        return; // no mkfifo here
    }
    let err = ok(&htsim_within(&["report", "r"], dir.path()));
    assert!(
        err.contains("3 of 4 run(s) complete")
            && err.contains("missing: tiny/transports.long.kind=dctcp/seed-2"),
        "{err}"
    );
    let err = ok(&htsim_within(
        &["run", "tiny.toml", "--out", "r"],
        dir.path(),
    ));
    assert!(err.contains("1 run(s) finished, 3 skipped"), "{err}");

    assert!(mkfifo(&run.join("run.json")));
    for args in [
        &["report", "r"][..],
        &["run", "tiny.toml", "--out", "r"][..],
    ] {
        let out = htsim_within(args, dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("run.json"), "{args:?}: {err}");
    }
    std::fs::remove_file(run.join("run.json")).unwrap();
    ok(&htsim(
        &["run", "tiny.toml", "--out", "r", "--replace-stale"],
        dir.path(),
    ));

    let lock = dir.path().join("r/.htsim-lock");
    std::fs::write(&lock, "").unwrap();
    assert!(mkfifo(&lock));
    for args in [
        &["report", "r"][..],
        &["run", "tiny.toml", "--out", "r"][..],
    ] {
        let out = htsim_within(args, dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("r/.htsim-lock: not a regular file"),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_file(&lock).unwrap();
    ok(&htsim(&["report", "r"], dir.path()));
}

/// `--out` naming one run's directory (`r/runs/<point>/seed-<n>`): `htsim run` and `htsim
/// report` wrote their summary.json over the run's own, so the run was lost (the next report
/// counted it missing). Both now refuse it (exit 2), the run left as it was.
#[test]
fn an_out_that_is_one_runs_directory_is_refused_and_the_run_kept() {
    let dir = setup();
    ok(&htsim(&["run", "tiny.toml", "--out", "r"], dir.path()));
    let run = "r/runs/transports.long.kind=tcp/seed-1";
    let summary = read(dir.path().join(run).join("summary.json"));
    for args in [
        &["run", "tiny.toml", "--out", run, "-q"][..],
        &["report", "r", "--out", run][..],
        &["report", run][..],
    ] {
        let out = htsim(args, dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("{run}: is the directory of one run")),
            "{args:?}: {err}"
        );
        assert_eq!(read(dir.path().join(run).join("summary.json")), summary);
    }
    let err = ok(&htsim(&["report", "r"], dir.path()));
    assert!(err.contains("4 of 4 run(s) complete"), "{err}");
}
