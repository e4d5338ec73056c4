//! Pre-flight (issue 12 items 4 and 5): `validate` and `run` set up every sweep point before the
//! first run and reject, with exit 2 and the place of the problem, what every run would fail on:
//! missing links of events, bad topology and CDF files, senders and job classes that cannot be
//! placed, and runs that need more memory than there is. Memory limits come from
//! HTSIM_MEMORY_LIMIT, so nothing here allocates more than a few megabytes.

mod common;

use std::path::Path;
use std::process::Output;

fn htsim(args: &[&str], dir: &Path, memory: &str) -> Output {
    common::command(dir)
        .args(args)
        .env("HTSIM_MEMORY_LIMIT", memory)
        .output()
        .expect("the binary runs")
}

/// A star of 4 hosts with one class of long flows, then `extra`.
fn scenario(extra: &str) -> String {
    format!(
        r#"[run]
duration = "10ms"
[topology]
kind = "star"
hosts = 4
[[flows]]
name = "long"
size = "infinite"
transport = {{ kind = "tcp" }}
{extra}"#
    )
}

/// Writes s.toml and `files` into a fresh directory, then asserts that `validate` and `run`
/// both exit 2 before running anything, with every `(file:line:, key, text)` in the message.
fn refused(text: &str, files: &[(&str, &str)], expect: &[(&str, &str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    for (name, body) in files {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    let mut last = String::new();
    for args in [
        &["validate", "s.toml"][..],
        &["run", "s.toml", "--out", "o", "-q"][..],
    ] {
        let out = htsim(args, dir.path(), "1GiB");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{args:?}:\n{err}");
        for (at, key, what) in expect {
            assert!(
                err.contains(at) && err.contains(&format!("`{key}`")) && err.contains(what),
                "{args:?}: no {at} `{key}` {what} in:\n{err}"
            );
        }
        assert!(!dir.path().join("o").exists(), "{args:?}: a run started");
        last = err;
    }
    last
}

#[test]
fn an_event_on_a_link_that_does_not_exist() {
    let err = refused(
        &scenario(
            "[[events]]\nat = \"1ms\"\nwhere = { link = [\"host0\", \"host9\"] }\nset = { down = true }\n",
        ),
        &[],
        &[(
            "s.toml:12:18:",
            "events[0].where.link",
            "no node named \"host9\"",
        )],
    );
    assert!(err.contains("did you mean \"host0\""), "{err}");
}

#[test]
fn malformed_empty_and_disconnected_topology_files() {
    let text = scenario("").replace(
        "kind = \"star\"\nhosts = 4",
        "kind = \"file\"\npath = \"net.topo\"",
    );
    for (file, at, what) in [
        (
            "host host0\nswitch s0\nlink host0 s0 1Gbps\n",
            "net.topo:3:1:",
            "link needs",
        ),
        ("# nothing\n", "net.topo:1:1:", "defines no host"),
        (
            "host host0\nhost host1\nswitch a\nswitch b\nlink host0 a 1Gbps 1us 10pkt\nlink host1 b 1Gbps 1us 10pkt\n",
            "net.topo:2:1:",
            "host1 cannot reach host0",
        ),
        // A rack index sizes the host layout: this line asked for 32 GiB and aborted.
        (
            "host host0\nhost host1 rack=4000000000\nswitch s\nlink host0 s 1Gbps 1us 10pkt\nlink host1 s 1Gbps 1us 10pkt\n",
            "net.topo:2:1:",
            "rack=4000000000 is out of range",
        ),
        // An event or crossing naming `s->t` would name this switch and a link at once.
        (
            "host host0\nhost host1\nswitch s->t\n",
            "net.topo:3:1:",
            "node name \"s->t\" holds `->`",
        ),
    ] {
        let err = refused(&text, &[("net.topo", file)], &[(at, "topology.path", what)]);
        assert!(
            err.contains("the file is named by `topology.path` at s.toml:5:8"),
            "{err}"
        );
    }
}

#[test]
fn malformed_nan_and_non_monotone_cdf_files() {
    let text = scenario(
        "[[flows]]\nname = \"short\"\nsenders = 1\nsize = { cdf_file = \"sizes.cdf\" }\narrivals = { poisson = 100 }\ntransport = { kind = \"tcp\" }\n",
    )
    .replace("name = \"long\"\n", "name = \"long\"\nsenders = 2\n");
    for (file, at, what) in [
        (
            "100 0\n200 50 7 8\n",
            "sizes.cdf:2:1:",
            "expected 2 columns",
        ),
        (
            "100 0\n200 NaN\n",
            "sizes.cdf:2:1:",
            "\"NaN\" is not a number",
        ),
        (
            "100 0\n300 60\n200 100\n",
            "sizes.cdf:3:1:",
            "must not decrease",
        ),
    ] {
        refused(
            &text,
            &[("sizes.cdf", file)],
            &[(at, "flows.short.size.cdf_file", what)],
        );
    }
}

/// A topology file of two hosts under a switch of layer `tor`, and a scenario on it with `extra`.
fn on_file(extra: &str) -> (String, &'static str) {
    let text = scenario(extra).replace(
        "kind = \"star\"\nhosts = 4",
        "kind = \"file\"\npath = \"net.topo\"",
    );
    let net = "host host0\nhost host1\nswitch s layer=tor\n\
               link host0 s 1Gbps 1us 100pkt\nlink host1 s 1Gbps 1us 100pkt\n";
    (text, net)
}

#[test]
fn a_topology_files_layers_name_its_time_series_queues() {
    // The loader cannot know a file's layers: the pre-flight checks them once it is read. A
    // layer of the file selects its links' queues for a time series, as on a built-in kind.
    let (text, net) = on_file(
        "[output]\ntimeseries = { interval = \"1ms\", series = [\"queue\"], links = [\"tor\"] }\n",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    std::fs::write(dir.path().join("net.topo"), net).unwrap();
    for args in [
        &["validate", "s.toml"][..],
        &["run", "s.toml", "--out", "o", "-q"][..],
    ] {
        let out = htsim(args, dir.path(), "1GiB");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    }
    let series =
        std::fs::read_to_string(dir.path().join("o/runs/base/seed-1/timeseries.csv")).unwrap();
    assert!(series.contains(",queue,s->host0,"), "{series}");
    assert!(!series.contains(",queue,host0->s,"), "{series}");
    // A name that is no layer (nor link) of the file is still refused, at the key.
    let (text, net) =
        on_file("[output]\ntimeseries = { interval = \"1ms\", links = [\"core\"] }\n");
    refused(
        &text,
        &[("net.topo", net)],
        &[(
            "s.toml:",
            "output.timeseries.links",
            "no link or layer named \"core\"",
        )],
    );
}

#[test]
fn a_queue_layer_a_topology_file_does_not_have_is_refused() {
    // A [queue.layers.X] the file has no egress layer of would set no queue.
    let (text, net) = on_file("[queue.layers.core]\ncapacity = \"10pkt\"\n");
    let err = refused(
        &text,
        &[("net.topo", net)],
        &[(
            "s.toml:10:1:",
            "queue.layers.core",
            "the topology file has no egress layer \"core\", so these settings would set no \
             queue: its layers are \"host\", \"tor\"",
        )],
    );
    assert!(!err.contains("did you mean"), "{err}");
    let (text, net) = on_file("[queue.layers.tor]\ncapacity = \"10pkt\"\n");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    std::fs::write(dir.path().join("net.topo"), net).unwrap();
    let out = htsim(&["validate", "s.toml"], dir.path(), "1GiB");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// Writes `text` as s.toml into a fresh directory, asserts `validate` accepts it under the
/// memory limit `memory`, and returns the directory.
fn validates(text: &str, memory: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    let out = htsim(&["validate", "s.toml"], dir.path(), memory);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    dir
}

/// The XMP two-path testbed with one pair on both paths, one on path 0 only and one on path 1
/// only (senders host0..host2, receivers host3..host5), and the class `class`.
fn two_path(class: &str) -> String {
    format!(
        "[run]\nduration = \"10ms\"\n[topology]\nkind = \"xmp-two-path\"\npath0_pairs = 1\n\
         path1_pairs = 1\n[[flows]]\nname = \"c\"\ntransport = {{ kind = \"tcp\" }}\n{class}\n"
    )
}

#[test]
fn pairs_the_topology_does_not_connect_are_refused_before_the_run() {
    // host1 is on path 0 only and host5 on path 1 only: the run stopped when the flow opened,
    // after `validate` had said ok, whatever the transport.
    let err = refused(
        &two_path("size = \"10KB\"\nmatrix = \"pairs\"\npairs = [[0, 3], [1, 5]]"),
        &[],
        &[(
            "s.toml:11:10:",
            "flows.c.matrix",
            "class `c` has a flow from host1 to host5, and the topology has no path between them",
        )],
    );
    assert!(
        err.contains("hosts on path 0 only do not reach those on path 1 only"),
        "{err}"
    );
    // A class that draws its pairs as the run goes is checked against every pair it may draw.
    refused(
        &two_path("jobs = { servers = 1, rack_local = true }"),
        &[],
        &[(
            "s.toml:10:8:",
            "flows.c.jobs",
            "class `c` may draw a flow during the run from host",
        )],
    );
    // The pairs of the testbed are connected.
    validates(
        &two_path("size = \"10KB\"\nmatrix = \"pairs\"\npairs = [[0, 3], [1, 4], [2, 5]]"),
        "1GiB",
    );
}

#[test]
fn pairs_drawn_with_any_seed_of_the_run_list_are_checked() {
    // A permutation of a sender on path 0 only and one on path 1 only (host0 and host1) and
    // their receivers: seed 1 pairs each sender with a receiver of its path, seed 2 host0
    // with host1. Only the first seed was set up before the runs: seed 2's run stopped.
    let text = "[run]\nduration = \"5ms\"\nseeds = 2\n[topology]\nkind = \"xmp-two-path\"\n\
                multipath_pairs = 0\npath0_pairs = 1\npath1_pairs = 1\n[[flows]]\nname = \"c\"\n\
                matrix = \"permutation\"\nsize = \"2KB\"\ntransport = { kind = \"tcp\" }\n";
    refused(
        text,
        &[],
        &[(
            "s.toml:11:10:",
            "flows.c.matrix",
            "with seed 2, class `c` has a flow from host0 to host1, and the topology has no path",
        )],
    );
    // Pinned path 1 between two hosts under one ToR (one path), in seed 2's permutation.
    let fattree = "[run]\nduration = \"5ms\"\nseeds = [1, 2]\n[topology]\nkind = \"fattree\"\n\
                   k = 4\n[[flows]]\nname = \"c\"\nmatrix = \"permutation\"\nsize = \"2KB\"\n\
                   transport = { kind = \"mptcp\", subflows = 2, paths = { pinned = [0, 1] } }\n";
    refused(
        fattree,
        &[],
        &[(
            "s.toml:11:53:",
            "flows.c.transport.paths",
            "with seed 2, class `c` has a flow from host13 to host12: pinned path 1 does not exist",
        )],
    );
}

#[test]
fn senders_rest_with_no_host_left_and_a_job_class_no_rack_can_hold() {
    refused(
        &scenario(
            "[[flows]]\nname = \"short\"\nsenders = \"rest\"\nsize = \"10KB\"\ntransport = { kind = \"tcp\" }\n",
        ),
        &[],
        &[(
            "s.toml:12:11:",
            "flows.short.senders",
            "earlier classes use all 4 connections",
        )],
    );
    let err = refused(
        &scenario("").replace(
            "size = \"infinite\"",
            "jobs = { servers = 2, rack_local = false }",
        ),
        &[],
        &[(
            "s.toml:8:36:",
            "flows.long.jobs.rack_local",
            "0 hosts outside it for 2 servers",
        )],
    );
    assert!(err.contains("every host is in one rack"), "{err}");
}

#[test]
fn queues_too_small_for_one_data_packet() {
    // A full 1400 B segment is a 1462 B packet: a 1000 B queue drops every one, like a queue of
    // 0. So do a layer's, an event's and a topology file's buffer of 1 KB.
    let small = [
        ("[queue]\ncapacity = \"1000B\"\n", "s.toml:11:12:", "queue.capacity"),
        (
            "[queue.layers.host]\ncapacity = \"1KB\"\n",
            "s.toml:11:12:",
            "queue.layers.host.capacity",
        ),
        (
            "[[events]]\nat = \"1ms\"\nwhere = { layer = \"host\" }\nset = { capacity = \"1KB\" }\n",
            "s.toml:13:20:",
            "events[0].set.capacity",
        ),
    ];
    for (extra, at, key) in small {
        refused(
            &scenario(extra),
            &[],
            &[(
                at,
                key,
                "cannot hold one data packet of class \"long\" (1462 B on the wire)",
            )],
        );
    }
    let text = scenario("").replace(
        "kind = \"star\"\nhosts = 4",
        "kind = \"file\"\npath = \"net.topo\"",
    );
    let net = "host host0\nhost host1\nswitch s\nlink host0 s 1Gbps 1us 1KB\nlink host1 s 1Gbps 1us 1KB\n";
    refused(
        &text,
        &[("net.topo", net)],
        &[(
            "s.toml:5:8:",
            "topology.path",
            "the buffer of link host0->s (and 3 more links) in the topology file, 1KB,",
        )],
    );
    // A segment of 900 B (962 B on the wire) fits.
    let fits = scenario("[queue]\ncapacity = \"1000B\"\n")
        .replace("{ kind = \"tcp\" }", "{ kind = \"tcp\", mss = \"900B\" }");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), fits).unwrap();
    let out = htsim(&["validate", "s.toml"], dir.path(), "1GiB");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn every_problem_of_every_sweep_point_is_reported() {
    // host3 exists at hosts = 4 and 8, host7 only at 8; the CDF file is broken at every point;
    // of the 2 connections of 2 hosts, the first two classes take one each: none is left.
    let text = scenario(
        "[[flows]]\nname = \"short\"\nsenders = 1\nsize = { cdf_file = \"sizes.cdf\" }\narrivals = { poisson = 100 }\ntransport = { kind = \"tcp\" }\n\
         [[flows]]\nname = \"more\"\nsenders = \"rest\"\nsize = \"1KB\"\ntransport = { kind = \"tcp\" }\n\
         [[events]]\nat = \"1ms\"\nwhere = { link = \"host3\" }\nset = { down = true }\n\
         [[events]]\nat = \"1ms\"\nwhere = { link = \"host7\" }\nset = { down = true }\n\
         [sweep]\n\"topology.hosts\" = [2, 4, 8]\n",
    )
    .replace("name = \"long\"\n", "name = \"long\"\nsenders = 1\n");
    let err = refused(
        &text,
        &[("sizes.cdf", "100 0\n200 90\n")],
        &[
            (
                "s.toml:24:18:",
                "events[0].where.link",
                "(at sweep point `topology.hosts=2`)",
            ),
            (
                "s.toml:28:18:",
                "events[1].where.link",
                "(at 2 sweep points, the first `topology.hosts=2`)",
            ),
            (
                "sizes.cdf:2:1:",
                "flows.short.size.cdf_file",
                "(at 3 sweep points, the first `topology.hosts=2`)",
            ),
            (
                "s.toml:19:11:",
                "flows.more.senders",
                "earlier classes use all 2 connections (at sweep point `topology.hosts=2`)",
            ),
        ],
    );
    assert_eq!(err.matches("error: ").count(), 4, "{err}");
}

#[test]
fn validate_dev_zero_is_not_read() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = htsim(&["validate", "/dev/zero"], dir.path(), "1GiB");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("/dev/zero: cannot read the scenario file: it is not a regular file"),
        "{err}"
    );
}

/// Asserts `validate` (and `run`, with `jobs`) refuse `text` under the memory limit `memory`
/// with a message holding every part of `expect`.
fn over_memory(text: &str, memory: &str, jobs: &str, expect: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    for args in [
        &["validate", "s.toml"][..],
        &["run", "s.toml", "--out", "o", "-q", "--jobs", jobs][..],
    ] {
        let out = htsim(args, dir.path(), memory);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}:\n{err}");
        for e in expect {
            assert!(err.contains(e), "{args:?}: no `{e}` in:\n{err}");
        }
        assert!(!dir.path().join("o").exists());
    }
}

#[test]
fn enormous_topologies_are_refused_with_their_size() {
    // FatTree k=128 with oversubscription 64: 33.5 M hosts, 69 M directed links (264 GiB).
    over_memory(
        &scenario("").replace(
            "kind = \"star\"\nhosts = 4",
            "kind = \"fattree\"\nk = 128\noversubscription = 64",
        ),
        "64MiB",
        "1",
        &[
            "s.toml:3:1: `topology`",
            "33554432 hosts and 69206016 directed links, more than the 16384 links",
            "the network alone needs about 264.0 GiB",
        ],
    );
    // VL2 at its maximums: 4.2 M hosts, 8.4 M directed links.
    over_memory(
        &scenario("").replace(
            "kind = \"star\"\nhosts = 4",
            "kind = \"vl2\"\nda = 128\ndi = 128\nhosts_per_tor = 1024",
        ),
        "64MiB",
        "1",
        &["this vl2 topology has 4194304 hosts and 8421376 directed links"],
    );
    // BCube(64, 4): 2^30 hosts with 5 NICs each, more links than 32-bit ids can name: refused
    // with its size and memory too, not only as too large for the ids.
    over_memory(
        &scenario("").replace(
            "kind = \"star\"\nhosts = 4",
            "kind = \"bcube\"\nn = 64\nk = 4",
        ),
        "64MiB",
        "1",
        &[
            "this bcube topology has 1073741824 hosts and 10737418240 directed links",
            "the network alone needs about 40.0 TiB",
        ],
    );
}

#[test]
fn a_time_series_every_nanosecond_is_refused_with_the_estimate() {
    // 10^7 samples, the most a run may take: refused for the memory its rows need.
    over_memory(
        &scenario("[output.timeseries]\ninterval = \"1ns\"\n"),
        "1GiB",
        "1",
        &[
            "s.toml:11:12: `output.timeseries.interval`",
            "10000000 samples",
            "and 1.0 GiB is available (HTSIM_MEMORY_LIMIT)",
            "sample less often",
        ],
    );
}

#[test]
fn a_time_series_every_picosecond_is_refused_for_its_samples() {
    // 10^10 samples: refused by the loader whatever they hold (with nothing selected to
    // sample, the memory estimate saw nothing and the run stopped 10^10 times).
    let text = scenario("[output.timeseries]\ninterval = \"1ps\"\nseries = []\n");
    refused(
        &text,
        &[],
        &[(
            "s.toml:11:12:",
            "output.timeseries.interval",
            "every 1ps over the run's 10ms (duration + drain) is 10000000000 samples, more than \
             the limit of 10000000: expected an interval of at least 1ns",
        )],
    );
}

#[test]
fn a_billion_flows_per_second_are_refused_with_the_estimate() {
    // 1e9 flows/s for 10 s: 1e10 flows of 1 KiB each kept until the run ends (9.3 TiB).
    over_memory(
        &scenario("")
            .replace("duration = \"10ms\"", "duration = \"10s\"")
            .replace(
                "name = \"long\"\nsize = \"infinite\"",
                "name = \"short\"\nsize = \"1KB\"\narrivals = { poisson = 1e9 }",
            ),
        "1GiB",
        "1",
        &[
            "s.toml:9:12: `flows.short.arrivals`",
            "about 10000000000 flows",
            "a run needs about 9.3 TiB",
            "class \"short\" opens about 10000000000 flows",
        ],
    );
}

#[test]
fn subflows_and_initial_windows_open_at_once_are_counted() {
    // 1024 MPTCP connections of 256 subflows on a star of 64 hosts: 262 144 subflows of about
    // 1 KiB each (the run peaked at 267 MB) validated under 200 MiB, counted as 1.5 MiB, and
    // the run stopped out of memory as it went; with 8 subflows each the run fits.
    let star = "[run]\nduration = \"5ms\"\n[topology]\nkind = \"star\"\nhosts = 64\n\
                [[flows]]\nname = \"c\"\nmatrix = \"permutation\"\ndraws = 16\n\
                size = \"infinite\"\ntransport = { kind = \"mptcp\", subflows = 256 }\n";
    over_memory(
        star,
        "200MiB",
        "1",
        &[
            "s.toml:11:13: `flows.c.transport`",
            "a run needs about 328.7 MiB (128 directed links, about 1024 flows, 262144 subflows \
             open at once and 12928 packets of their initial windows)",
            "class \"c\" opens 1024 connections at once, 256 subflows each with an initial \
             window of one segment",
        ],
    );
    validates(&star.replace("256", "8"), "200MiB");
    // Initial windows of a million segments into queues of ten million packets: 8 M packets
    // in the network after the first event (the run peaked at 885 MB). With the default
    // queues of 100 packets, the network holds 1 616 of them and the rest are lost: it fits.
    let windows = scenario("[queue]\ncapacity = \"10000000pkt\"\n")
        .replace("kind = \"tcp\"", "kind = \"tcp\", initial_cwnd = 1000000");
    let windows = windows.replace("hosts = 4", "hosts = 8").replace(
        "name = \"long\"",
        "name = \"long\"\nmatrix = \"permutation\"",
    );
    over_memory(
        &windows,
        "200MiB",
        "1",
        &[
            "`flows.long.transport`",
            "8 subflows open at once and 8000000 packets of their initial windows",
        ],
    );
    validates(&windows.replace("10000000pkt", "100pkt"), "200MiB");
}

#[test]
fn traffic_matrices_larger_than_memory_are_refused_before_they_are_drawn() {
    // 2000 hosts of a star are all one switch apart: a `neighbours` matrix of 2000 x 1999
    // pairs (64 MB) took memory until it ran out before the flows were counted; its pairs are
    // now counted, and refused, before they are listed.
    let star = |hosts: &str, class: &str| {
        scenario("")
            .replace("hosts = 4", &format!("hosts = {hosts}"))
            .replace("name = \"long\"\nsize = \"infinite\"", class)
    };
    over_memory(
        &star(
            "2000",
            "name = \"n\"\nmatrix = \"neighbours\"\nsize = \"1KB\"",
        ),
        "32MiB",
        "1",
        &[
            "s.toml:8:10: `flows.n.matrix`",
            "(3998000 connections in its traffic matrices, 25 B each)",
        ],
    );
    // 1000 draws of a permutation of 1000 hosts: a pool of 1 M connections (16 MB) for a
    // Poisson class that opens 10 flows, so no flow count stopped it.
    over_memory(
        &star(
            "1000",
            "name = \"p\"\ndraws = 1000\nsize = \"1KB\"\narrivals = { poisson = 1000 }",
        ),
        "12MiB",
        "1",
        &[
            "s.toml:8:9: `flows.p.draws`",
            "(1000000 connections in its traffic matrices, 25 B each)",
            "1000 connections x 1000 draws",
        ],
    );
}

#[test]
fn an_incast_wider_than_its_hosts_is_refused_for_that_not_for_memory() {
    // An incast draws at most one connection per host: a fan_in of 1e9 on 4 hosts is an
    // incast that cannot be placed, not 16 GB of traffic matrix.
    refused(
        &scenario(
            "[[flows]]\nname = \"i\"\nmatrix = \"incast\"\nfan_in = 1000000000\n\
             size = \"1KB\"\ntransport = { kind = \"tcp\" }",
        ),
        &[],
        &[(
            "s.toml:12:10:",
            "flows.i.matrix",
            "an incast with 1000000000 senders needs 1000000000 hosts besides the receiver",
        )],
    );
}

#[test]
fn pinned_paths_of_a_class_drawing_among_many_hosts_are_checked_at_once() {
    // A job class draws any pair of 20 000 hosts: its pinned path 0 was checked pair by pair,
    // 4e8 breadth-first searches (validate hung). The hosts of a star are one path class, so
    // one pair stands for all; the second class's pinned path 1 (of 1) is still refused.
    let text = scenario("").replace("hosts = 4", "hosts = 20000").replace(
        "name = \"long\"\nsize = \"infinite\"\ntransport = { kind = \"tcp\" }",
        "name = \"j\"\njobs = { servers = 2 }\n\
             transport = { kind = \"mptcp\", paths = { pinned = [0] } }\n\
             [[flows]]\nname = \"p\"\nsize = \"1KB\"\n\
             transport = { kind = \"mptcp\", paths = { pinned = [1] } }",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    let mut command = common::command(dir.path());
    command
        .args(["validate", "s.toml"])
        .env("HTSIM_MEMORY_LIMIT", "1GiB");
    let out = common::output_within_60s(command);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`flows.p.transport.paths`: class `p` has a flow from host")
            && err.contains("pinned path 1 does not exist")
            && !err.contains("flows.j"),
        "{err}"
    );
}

#[test]
fn a_trace_larger_than_memory_is_refused() {
    // 10 M events of 128 B: 1.2 GiB.
    over_memory(
        &scenario("[output.trace]\nflows = [\"all\"]\nmax_events = 10000000\n"),
        "1GiB",
        "1",
        &[
            "`output.trace.max_events`",
            "up to 10000000 trace events",
            "keep fewer trace events",
        ],
    );
}

#[test]
fn runs_at_once_share_the_memory() {
    // FatTree k=8: 768 directed links, 3 MiB. It fits one run in 4 MiB, not four.
    let text = scenario("")
        .replace("kind = \"star\"\nhosts = 4", "kind = \"fattree\"\nk = 8")
        .replace("duration = \"10ms\"", "duration = \"10ms\"\nseeds = 4");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), &text).unwrap();
    let ok = htsim(&["validate", "s.toml"], dir.path(), "4MiB");
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    let out = htsim(
        &["run", "s.toml", "--out", "o", "-q", "--jobs", "4"],
        dir.path(),
        "4MiB",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("768 directed links, more than the 256 links"),
        "{err}"
    );
    assert!(!dir.path().join("o").exists());
}

#[test]
fn a_bad_memory_limit_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), scenario("")).unwrap();
    let out = htsim(&["validate", "s.toml"], dir.path(), "lots");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("HTSIM_MEMORY_LIMIT=\"lots\" is not a size"),
        "{err}"
    );
}

#[test]
fn a_problem_a_sweep_value_causes_points_at_that_value() {
    let text = scenario("[sweep]\n\"topology.path\" = [\"good.topo\", \"bad.topo\"]\n").replace(
        "kind = \"star\"\nhosts = 4",
        "kind = \"file\"\npath = \"good.topo\"",
    );
    let good = "host host0\nhost host1\nswitch s\nlink host0 s 1Gbps 1us 10pkt\nlink host1 s 1Gbps 1us 10pkt\n";
    let err = refused(
        &text,
        &[
            ("good.topo", good),
            ("bad.topo", "host host0\nhost host1\n"),
        ],
        &[(
            "bad.topo:1:1:",
            "topology.path",
            "host0 has no link to a switch: it cannot reach every other host (hosts do not \
             forward) (at sweep point `topology.path=bad.topo`)",
        )],
    );
    // The file is named by the sweep value on line 11, column 33, not by `path` on line 5.
    assert!(
        err.contains("the file is named by `topology.path` at s.toml:11:33"),
        "{err}"
    );
    assert_eq!(err.matches("error: ").count(), 1, "{err}");
}

#[test]
fn a_run_that_outgrows_its_memory_is_stopped_with_an_error() {
    // Closed-loop flows of 1 byte between two hosts at 100 Gb/s open about 55 000 flows per
    // millisecond for 10 ms, each with a record kept until the run ends (about 400 MB): more
    // than the estimate before the run can know (it counts the flows open at once). Under a
    // 64 MiB limit validate passes and the run stops with an error, its files unwritten.
    let text = "[run]\nduration = \"210ms\"\n[topology]\nkind = \"star\"\nhosts = 2\n\
                link_rate = \"100Gbps\"\nlink_delay = \"0s\"\n[[flows]]\nname = \"c\"\n\
                size = \"1B\"\narrivals = { closed_loop = true }\ntransport = { kind = \"tcp\" }\n";
    let dir = validates(text, "64MiB");
    let out = htsim(&["run", "s.toml", "--out", "o", "-q"], dir.path(), "64MiB");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for part in [
        "out of memory: the process would need about",
        "more than the 64.0 MiB it may use (HTSIM_MEMORY_LIMIT)",
        "flows (their results take about 1024 B each when it ends)",
    ] {
        assert!(err.contains(part), "no `{part}` in:\n{err}");
    }
    let run = dir.path().join("o/runs/base/seed-1");
    assert!(!run.join("summary.json").exists(), "{err}");
}

#[test]
fn a_time_series_flow_id_beyond_the_flows_there_are() {
    // The 4 hosts of the star open 4 long flows, ids 0 to 3: 99 is named at its element.
    let ts = "[output]\ntimeseries = { interval = \"1ms\", flows = [1, 99] }\n";
    refused(
        &scenario(ts),
        &[],
        &[(
            "s.toml:11:46:",
            "output.timeseries.flows",
            "no flow 99: this scenario opens at most 4 flows, with ids 0 to 3 (as in flows.csv)",
        )],
    );
    validates(&scenario(&ts.replace("99", "3")), "1GiB");
    // The bound is each sweep point's: flow 5 exists with 8 hosts (as written), not with 4.
    let err = refused(
        &scenario(&format!(
            "{}[sweep]\n\"topology.hosts\" = [8, 4]\n",
            ts.replace("99", "5")
        ))
        .replace("hosts = 4", "hosts = 8"),
        &[],
        &[(
            "s.toml:11:46:",
            "output.timeseries.flows",
            "no flow 5: this scenario opens at most 4 flows",
        )],
    );
    assert!(err.contains("(at sweep point `topology.hosts=4`)"), "{err}");
    assert!(!err.contains("topology.hosts=8"), "{err}");
    // Flows that arrive as the run goes have no bound before it: any id is taken.
    validates(
        &scenario(&format!(
            "[[flows]]\nname = \"short\"\nsenders = \"rest\"\nsize = \"10KB\"\n\
             arrivals = {{ poisson = 100 }}\n\
             transport = {{ kind = \"tcp\" }}\n{}",
            ts.replace("99", "1000")
        ))
        .replace("name = \"long\"\n", "name = \"long\"\nsenders = 2\n"),
        "1GiB",
    );
}

#[test]
fn a_senders_share_that_rounds_down_to_no_sender() {
    // 20% of the 4 connections of the star's permutation is 0.8: no flow at all.
    let small = scenario("").replace("name = \"long\"\n", "name = \"long\"\nsenders = \"20%\"\n");
    let err = refused(
        &small,
        &[],
        &[(
            "s.toml:8:11:",
            "flows.long.senders",
            "20% of the 4 connections of the class's matrix rounds down to none: the class \
             would open no flow",
        )],
    );
    assert!(err.contains("ask for at least 25%"), "{err}");
    refused(
        &small.replace("20%", "0%"),
        &[],
        &[(
            "s.toml:8:11:",
            "flows.long.senders",
            "0% of the 4 connections",
        )],
    );
    validates(&small.replace("20%", "25%"), "1GiB");
    // Swept: only the point whose share is too small is refused, before any run.
    let err = refused(
        &format!("{small}[sweep]\n\"flows.long.senders\" = [\"50%\", \"10%\"]\n"),
        &[],
        &[(
            "s.toml:12:32:",
            "flows.long.senders",
            "10% of the 4 connections of the class's matrix rounds down to none",
        )],
    );
    assert!(
        err.contains("at sweep point `flows.long.senders=10_`"),
        "{err}"
    );
    assert_eq!(err.matches("error: ").count(), 1, "{err}");
}

#[test]
fn zero_and_oversized_transport_parameters_are_errors_at_their_key() {
    for (param, at, key, what) in [
        (
            "ack_size = \"0B\"",
            "s.toml:9:40:",
            "flows.long.transport.ack_size",
            "an ACK of 0 B cannot work",
        ),
        (
            "min_rto = \"0s\"",
            "s.toml:9:39:",
            "flows.long.transport.min_rto",
            "an RTO floor of 0s",
        ),
        (
            "initial_ssthresh = \"0B\"",
            "s.toml:9:48:",
            "flows.long.transport.initial_ssthresh",
            "a slow-start threshold of 0 cannot work",
        ),
        (
            "initial_ssthresh = \"0pkt\"",
            "s.toml:9:48:",
            "flows.long.transport.initial_ssthresh",
            "a slow-start threshold of 0 cannot work",
        ),
        (
            "header_size = \"4294967295B\"",
            "s.toml:9:43:",
            "flows.long.transport.header_size",
            "a header of 4294967295 B makes data packets of 1400 B (mss) too large: at most \
             4294965895 B",
        ),
        (
            "ack_size = \"4294967290B\"",
            "s.toml:9:40:",
            "flows.long.transport.ack_size",
            "an ACK of 4294967290 B (and a SYN 8 B more) is too large: at most 4294967287 B",
        ),
        (
            "mss = \"5GB\"",
            "s.toml:9:35:",
            "flows.long.transport.mss",
            "a segment of 5000000000 B is too large: at most 4294967295 B",
        ),
        // The larger of mss and header_size is at fault, the other left at its default (this
        // was named at `header_size`, never written, "at most 0 B").
        (
            "mss = \"4294967295B\"",
            "s.toml:9:35:",
            "flows.long.transport.mss",
            "a segment of 4294967295 B makes data packets with a header of 62 B (header_size) \
             too large: at most 4294967233 B",
        ),
    ] {
        let text = scenario("").replace(
            "transport = { kind = \"tcp\" }",
            &format!("transport = {{ kind = \"tcp\", {param} }}"),
        );
        refused(&text, &[], &[(at, key, what)]);
    }
    // DCTCP's gain g of 0 is named at `g` (it was at the transport as a whole).
    refused(
        &scenario("").replace(
            "transport = { kind = \"tcp\" }",
            "transport = { kind = \"dctcp\", g = 0.0 }",
        ),
        &[],
        &[(
            "s.toml:9:35:",
            "flows.long.transport.g",
            "a gain of 0 never moves alpha",
        )],
    );
    // The smallest values that work are accepted.
    validates(
        &scenario("").replace(
            "transport = { kind = \"tcp\" }",
            "transport = { kind = \"tcp\", ack_size = \"1B\", min_rto = \"1ns\", \
             initial_ssthresh = \"1B\", header_size = \"0B\" }",
        ),
        "1GiB",
    );
}

#[test]
fn arrivals_with_no_time_before_their_cut_off_are_warned_of() {
    // Arrivals stop 0.2 s before `run.duration`: a 10 ms run of 10 000 flows/s opens the
    // first arrival's flow alone, not a hundred, and said nothing.
    let text = scenario("[[flows]]\nname = \"short\"\nsenders = \"rest\"\nsize = \"10KB\"\narrivals = { poisson = 10000 }\ntransport = { kind = \"tcp\" }\n")
        .replace("size = \"infinite\"", "size = \"infinite\"\nsenders = 2");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), &text).unwrap();
    let warning = "warning: s.toml: `flows.short.arrivals`: arrivals stop 0.2 s before the end \
                   of `run.duration` (10ms), too soon after the class's start (0ps) for another: \
                   it opens only its first flows\n";
    for args in [
        &["validate", "s.toml"][..],
        &["run", "s.toml", "--out", "o", "-q"][..],
    ] {
        let out = htsim(args, dir.path(), "1GiB");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{args:?}:\n{err}");
        assert_eq!(err.matches(warning).count(), 1, "{args:?}:\n{err}");
    }
    let flows = std::fs::read_to_string(dir.path().join("o/runs/base/seed-1/flows.csv")).unwrap();
    assert_eq!(flows.matches(",short,").count(), 1, "{flows}");
    // With time for them, no warning; a class without arrivals never has one.
    let out = htsim(
        &["validate", "s.toml", "--set", "run.duration=1s"],
        dir.path(),
        "1GiB",
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{out:?}");
    // Swept, each distinct warning once, with the point it is at (10 ms and 20 ms share the
    // class's text but for the duration; 1 s has none).
    let swept = format!("{text}[sweep]\n\"run.duration\" = [\"10ms\", \"1s\", \"20ms\"]\n");
    std::fs::write(dir.path().join("w.toml"), &swept).unwrap();
    let out = htsim(&["validate", "w.toml"], dir.path(), "1GiB");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.contains(
            "(10ms), too soon after the class's start (0ps) for another: it opens only \
                      its first flows (at sweep point `run.duration=10ms`)\n"
        ),
        "{err}"
    );
    assert!(err.contains("(20ms), "), "{err}");
    // Rounds every 500 ms need more than 500 ms before the cut-off (`duration` - 0.2 s): a run
    // of 700 ms has exactly that and opens one round, one of 701 ms a second.
    let rounds = text.replace("poisson = 10000", "every = \"500ms\"");
    std::fs::write(dir.path().join("r.toml"), &rounds).unwrap();
    for (duration, warned) in [("1s", false), ("700ms", true), ("701ms", false)] {
        let set = format!("run.duration={duration}");
        let out = htsim(&["validate", "r.toml", "--set", &set], dir.path(), "1GiB");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert_eq!(err.contains("too soon after"), warned, "{duration}: {err}");
    }
}
