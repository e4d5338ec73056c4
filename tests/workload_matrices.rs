//! The workload keys of the paper reproductions: explicit pairs (inline and from a file), the
//! neighbours matrix, random-matrix limits and sources, host subsets per class, matrix rounds,
//! several draws of a matrix per class and closed-loop flows to new destinations. Their
//! statistics (pair counts, limits never exceeded over many seeds or at any instant, one flow
//! per host at a time, subsets respected, rounds that start only once the previous round's last
//! flow finished, destinations uniform) and their errors.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use htsim::scenario::{load_str, LoadOptions, Loaded, Scenario, ScenarioError};
use htsim::simulate::{preflight, run, setup, RunContext, RunOutput};

fn load_in(dir: &Path, text: &str) -> Result<Loaded, Box<ScenarioError>> {
    load_str("test.toml", text, dir, &LoadOptions::default())
}

fn ok(text: &str) -> Scenario {
    load_in(Path::new("."), text)
        .unwrap_or_else(|e| panic!("should load:\n{e}"))
        .scenario
}

/// Asserts `text` fails to load at `line` with key path `key` and a message holding `needle`.
fn bad(text: &str, line: usize, key: &str, needle: &str) -> Box<ScenarioError> {
    let e = match load_in(Path::new("."), text) {
        Ok(_) => panic!("should fail:\n{text}"),
        Err(e) => e,
    };
    let shown = e.to_string();
    assert_eq!(e.line(), Some(line), "wrong line in:\n{shown}");
    assert_eq!(e.key_path, key, "{shown}");
    assert!(shown.contains(needle), "message lacks `{needle}`:\n{shown}");
    e
}

/// A k = 4 FatTree (16 hosts, 2 per ToR, 2 ToRs per pod) and one class whose keys are
/// `class` (the class table starts on line 8).
fn fattree(class: &str) -> String {
    format!(
        "[run]\nduration = \"300ms\"\n[topology]\nkind = \"fattree\"\nk = 4\nlink_rate = \"1Gbps\"\n\
         [[flows]]\nname = \"c\"\ntransport = {{ kind = \"tcp\" }}\n{class}\n"
    )
}

/// The (source, destination) pairs of class `class` of setup for `seed`, in pool order.
fn pairs_of(s: &Scenario, seed: u64, class: usize) -> Vec<(usize, usize)> {
    let set = setup(s, seed, None).unwrap_or_else(|e| panic!("{e:?}"));
    set.plans[class]
        .pool
        .iter()
        .map(|c| (c.src, c.dst))
        .collect()
}

#[test]
fn inline_pairs_are_the_flows_in_order() {
    let s = ok(&fattree(
        "matrix = \"pairs\"\npairs = [[0, 5], [3, 9], [3, 9], [15, 0]]\nsize = \"20KB\"",
    ));
    assert_eq!(pairs_of(&s, 1, 0), [(0, 5), (3, 9), (3, 9), (15, 0)]);
    let out = run(&s, 1, &RunContext::default()).unwrap();
    let started: Vec<(u32, u32)> = out.started.iter().map(|f| (f.src, f.dst)).collect();
    assert_eq!(started, [(0, 5), (3, 9), (3, 9), (15, 0)]);
    assert_eq!(out.summary().classes[0].completed, 4);
    // Written out and read back to the same scenario.
    let text = s.to_toml_string().unwrap();
    assert!(
        text.contains("pairs = [[0, 5], [3, 9], [3, 9], [15, 0]]"),
        "{text}"
    );
    assert_eq!(ok(&text), s);
}

#[test]
fn inline_pair_errors_name_the_pair() {
    let base = |pairs: &str| fattree(&format!("matrix = \"pairs\"\n{pairs}\nsize = \"20KB\""));
    let e = bad(
        &base("pairs = [[0, 1], [2, 16]]"),
        11,
        "flows.c.pairs",
        "host 16 does not exist: the topology has 16 hosts",
    );
    assert_eq!(
        e.hint.as_deref(),
        Some("hosts are numbered from 0 to 15, as host<i> in the outputs")
    );
    bad(
        &base("pairs = [[0, 1], [4, 4]]"),
        11,
        "flows.c.pairs",
        "the pair [4, 4] sends from host 4 to itself",
    );
    bad(
        &base("pairs = [[0, 1], [2]]"),
        11,
        "flows.c.pairs",
        "expected a pair [source, destination]",
    );
    bad(
        &base("pairs = [[0, -1]]"),
        11,
        "flows.c.pairs",
        "out of range",
    );
    bad(&base("pairs = []"), 11, "flows.c.pairs", "no pairs");
    bad(
        &base("pairs = [[0, 1]]\npairs_file = \"p.txt\""),
        12,
        "flows.c.pairs_file",
        "either `pairs` or `pairs_file`",
    );
    bad(
        &base(""),
        10,
        "flows.c.pairs",
        "matrix = \"pairs\" needs the pairs",
    );
    bad(
        &base("pairs_file = \"no-such-pairs.txt\""),
        11,
        "flows.c.pairs_file",
        "the pairs file \"no-such-pairs.txt\" does not exist",
    );
    bad(
        &fattree("pairs = [[0, 1]]\nsize = \"20KB\""),
        10,
        "flows.c.pairs",
        "only used with matrix = \"pairs\"",
    );
    bad(
        &base("pairs = [[0, 1]]\nhosts = \"0-3\""),
        12,
        "flows.c.hosts",
        "`hosts` has no meaning with matrix = \"pairs\"",
    );
}

/// A directory of its own under the target dir, emptied.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_pairs_file_is_read_and_its_bad_lines_are_named() {
    let dir = scratch("pairs_file");
    std::fs::write(
        dir.join("p.csv"),
        "# pairs\nsrc,dst\n1,0\n2 0\n\n4,\t0 # last\n",
    )
    .unwrap();
    let text = fattree("matrix = \"pairs\"\npairs_file = \"p.csv\"\nsize = \"20KB\"");
    let loaded = load_in(&dir, &text).unwrap();
    assert_eq!(pairs_of(&loaded.scenario, 1, 0), [(1, 0), (2, 0), (4, 0)]);
    preflight::check(&loaded, 1).unwrap();

    for (body, line, needle) in [
        ("0 1\n0 1 2\n", 2, "expected two host indices"),
        ("0 1\n\n0 x\n", 3, "\"x\" is not a host index"),
        (
            "0 1\n3 16\n",
            2,
            "host 16 does not exist: the hosts are 0 to 15",
        ),
        (
            "0 1\n3 3\n",
            2,
            "the pair (3, 3) sends from a host to itself",
        ),
    ] {
        std::fs::write(dir.join("p.csv"), body).unwrap();
        let loaded = load_in(&dir, &text).unwrap();
        let problems = preflight::check(&loaded, 1).unwrap_err();
        let p = &problems.0[0];
        let shown = p.to_string();
        assert_eq!(p.key_path, "flows.c.pairs_file", "{shown}");
        assert!(shown.contains(&format!("p.csv:{line}")), "{shown}");
        assert!(shown.contains(needle), "{shown}");
    }
    std::fs::write(dir.join("p.csv"), "# nothing\n").unwrap();
    let loaded = load_in(&dir, &text).unwrap();
    let shown = preflight::check(&loaded, 1).unwrap_err().to_string();
    assert!(shown.contains("holds no pair"), "{shown}");
}

/// Host `i` of BCube(n, k) has digits `(i / n^l) mod n`; the number of digits two hosts differ
/// in.
fn bcube_digits_apart(a: usize, b: usize, n: usize, k: u32) -> u32 {
    (0..=k)
        .filter(|&l| (a / n.pow(l)) % n != (b / n.pow(l)) % n)
        .count() as u32
}

#[test]
fn neighbours_on_a_bcube_are_the_one_hop_neighbours_at_every_level() {
    for (n, k) in [(4usize, 1u32), (3, 2)] {
        let text = format!(
            "[run]\nduration = \"300ms\"\n[topology]\nkind = \"bcube\"\nn = {n}\nk = {k}\n\
             [[flows]]\nname = \"read\"\nmatrix = \"neighbours\"\nsize = \"20KB\"\n\
             transport = {{ kind = \"tcp\" }}\n"
        );
        let s = ok(&text);
        assert_eq!(s.flows[0].distance, Some(1), "the default is written out");
        let hosts = n.pow(k + 1);
        for d in 1..=k + 1 {
            let over = if d == 1 {
                s.clone()
            } else {
                let o = LoadOptions {
                    overrides: vec![format!("flows.read.distance={d}")],
                    ..LoadOptions::default()
                };
                load_str("b.toml", &text, Path::new("."), &o)
                    .unwrap()
                    .scenario
            };
            let pairs = pairs_of(&over, 1, 0);
            let want: Vec<(usize, usize)> = (0..hosts)
                .flat_map(|a| (0..hosts).map(move |b| (a, b)))
                .filter(|&(a, b)| bcube_digits_apart(a, b, n, k) == d)
                .collect();
            assert_eq!(pairs, want, "BCube({n}, {k}) at distance {d}");
        }
        // Distance 1: (k + 1)(n - 1) neighbours per host, each reading from all of them.
        let pairs = pairs_of(&s, 1, 0);
        assert_eq!(pairs.len(), hosts * (k as usize + 1) * (n - 1));
        let mut readers: BTreeMap<usize, usize> = BTreeMap::new();
        for &(_, dst) in &pairs {
            *readers.entry(dst).or_default() += 1;
        }
        assert!(readers.values().all(|&r| r == (k as usize + 1) * (n - 1)));
    }
}

#[test]
fn neighbours_on_a_fattree_are_counted_in_switches_and_a_missing_distance_is_an_error() {
    let at = |d: u64| {
        ok(&fattree(&format!(
            "matrix = \"neighbours\"\ndistance = {d}\nsize = \"20KB\""
        )))
    };
    // Under one ToR: 1 other host; other rack of the pod: 2; other pods: 12.
    let pairs = pairs_of(&at(1), 1, 0);
    assert_eq!(pairs.len(), 16);
    assert!(pairs.iter().all(|&(a, b)| a / 2 == b / 2 && a != b));
    let pairs = pairs_of(&at(3), 1, 0);
    assert_eq!(pairs.len(), 16 * 2);
    assert!(pairs.iter().all(|&(a, b)| a / 4 == b / 4 && a / 2 != b / 2));
    assert_eq!(pairs_of(&at(5), 1, 0).len(), 16 * 12);
    // No two hosts 2 switches apart: refused before the run, naming the farthest distance.
    let loaded = load_in(
        Path::new("."),
        &fattree("matrix = \"neighbours\"\ndistance = 2\nsize = \"20KB\""),
    )
    .unwrap();
    let p = &preflight::check(&loaded, 1).unwrap_err().0[0];
    assert_eq!(p.key_path, "flows.c.distance");
    assert_eq!(p.line(), Some(11));
    assert!(
        p.message
            .contains("no two hosts are 2 switch hops apart (the farthest are 5 apart)"),
        "{p}"
    );
    bad(
        &fattree("matrix = \"neighbours\"\ndistance = 0\nsize = \"20KB\""),
        11,
        "flows.c.distance",
        "0 is out of range",
    );
    bad(
        &fattree("distance = 1\nsize = \"20KB\""),
        10,
        "flows.c.distance",
        "only used with matrix = \"neighbours\"",
    );
}

#[test]
fn a_neighbours_matrix_whose_flows_do_not_fit_is_refused_before_it_is_listed() {
    use htsim::core::world::World;
    use htsim::simulate::resources::{Budget, BudgetSource};
    use htsim::simulate::{network, workload};
    // 96 directed links (4 KiB each) and 192 pairs five switches apart (25 B each) fit in
    // 500 KiB; their 192 flows (1 KiB each) do not. The planning lists the pairs, so it is
    // what refuses them (the check of the whole run comes after it): a neighbours matrix of
    // BCube(13, 4) took a minute and 11 GB to list before its flows were counted.
    let budget = Budget {
        available: 500 * 1024,
        runs_at_once: 1,
        source: BudgetSource::Env,
    };
    let plan = |keys: &str| {
        let s = ok(&fattree(&format!(
            "matrix = \"neighbours\"\ndistance = 5\nsize = \"20KB\"\n{keys}"
        )));
        let mut world = World::new(1);
        let topology = network::build(&mut world, &s).unwrap();
        workload::plan(&s, &topology, world.streams(), Some(&budget)).map(|p| p.len())
    };
    let e = &plan("").unwrap_err()[0];
    assert_eq!(e.key, "flows.c.matrix", "{e}");
    assert!(
        e.message
            .contains("a run needs about 0.6 MiB (96 directed links, and about 192 flows)"),
        "{e}"
    );
    let hint = e.hint.as_deref().unwrap_or_default();
    assert!(hint.contains("class \"c\" opens about 192 flows"), "{hint}");
    // A third of the pairs' flows fit, and Poisson arrivals open flows by their rate.
    assert_eq!(
        plan("senders = \"33%\"").map_err(|e| e[0].to_string()),
        Ok(1)
    );
    assert_eq!(
        plan("arrivals = { poisson = 10 }").map_err(|e| e[0].to_string()),
        Ok(1)
    );
    // Rounds open a flow per pair at each round.
    let e = &plan("senders = \"33%\"\narrivals = { every = \"100ms\" }").unwrap_err()[0];
    assert_eq!(e.key, "flows.c.arrivals", "{e}");
    assert!(e.message.contains("about 252 flows"), "{e}");
}

/// A k = 8 FatTree (128 hosts, 4 per ToR) and one random class `r` with the XMP paper's limits
/// (at most 4 connections into a host, none rack-local), then `keys`.
fn xmp_random(keys: &str) -> String {
    format!(
        "[run]\nduration = \"300ms\"\n[topology]\nkind = \"fattree\"\nk = 8\n[[flows]]\n\
         name = \"r\"\nmatrix = \"random\"\nmax_per_destination = 4\nexclude_rack_local = true\n\
         {keys}size = \"20KB\"\ntransport = {{ kind = \"tcp\" }}\n"
    )
}

/// The pairs of [`xmp_random`]'s class for seeds 1 to 40, each draw checked against its limits
/// (128 pairs, none in its rack, at most 4 into a host), and the most any host received.
fn xmp_draws(s: &Scenario) -> (Vec<Vec<(usize, usize)>>, usize) {
    let mut most = 0;
    let draws = (1..=40)
        .map(|seed| {
            let pairs = pairs_of(s, seed, 0);
            assert_eq!(pairs.len(), 128);
            let mut received = [0usize; 128];
            for &(a, b) in &pairs {
                assert_ne!(a / 4, b / 4, "seed {seed}: ({a}, {b}) stays in its rack");
                received[b] += 1;
            }
            let max = *received.iter().max().unwrap();
            assert!(max <= 4, "seed {seed}: a host receives {max} flows");
            most = most.max(max);
            pairs
        })
        .collect();
    (draws, most)
}

#[test]
fn random_limits_hold_over_many_seeds() {
    let text = xmp_random("");
    let s = ok(&text);
    let (_, most) = xmp_draws(&s);
    assert_eq!(most, 4, "the limit never bound");
    // Without the keys, the same seed gives the plain random matrix, with rack-local pairs and
    // hosts receiving more than 4.
    let plain = ok(&text.replace("max_per_destination = 4\nexclude_rack_local = true\n", ""));
    let (mut local, mut over) = (0, 0);
    for seed in 1..=40 {
        let pairs = pairs_of(&plain, seed, 0);
        local += pairs.iter().filter(|&&(a, b)| a / 4 == b / 4).count();
        let mut received = [0usize; 128];
        pairs.iter().for_each(|&(_, b)| received[b] += 1);
        over += received.iter().filter(|&&r| r > 4).count();
    }
    assert!(local > 0 && over > 0, "local {local}, over {over}");
    bad(
        &fattree("matrix = \"random\"\nmax_per_destination = 0\nsize = \"20KB\""),
        11,
        "flows.c.max_per_destination",
        "0 is out of range",
    );
    bad(
        &fattree("max_per_destination = 4\nsize = \"20KB\""),
        10,
        "flows.c.max_per_destination",
        "only used with matrix = \"random\"",
    );
    bad(
        &fattree("matrix = \"random\"\nexclude_rack_local = \"yes\"\nsize = \"20KB\""),
        11,
        "flows.c.exclude_rack_local",
        "expected true or false",
    );
    // One rack: nothing can leave it.
    let star = "[run]\nduration = \"300ms\"\n[topology]\nkind = \"star\"\nhosts = 4\n[[flows]]\nname = \"c\"\n\
                matrix = \"random\"\nexclude_rack_local = true\nsize = \"20KB\"\ntransport = { kind = \"tcp\" }\n";
    let p = &preflight::check(&load_in(Path::new("."), star).unwrap(), 1)
        .unwrap_err()
        .0[0];
    assert_eq!(p.key_path, "flows.c.matrix", "{p}");
    assert!(p.message.contains("at least 2 racks"), "{p}");
}

#[test]
fn random_sources_each_give_every_host_one_connection() {
    // The XMP paper's random pattern: every host sends once, listed by source.
    let text = xmp_random("sources = \"each\"\n");
    let s = ok(&text);
    let (draws, most) = xmp_draws(&s);
    for (seed, pairs) in draws.iter().enumerate() {
        let sources: Vec<usize> = pairs.iter().map(|p| p.0).collect();
        assert_eq!(sources, (0..128).collect::<Vec<_>>(), "seed {}", seed + 1);
    }
    assert!(most >= 3, "destinations never repeat: {most}");
    // Deterministic per seed, drawn afresh for another.
    assert_eq!(pairs_of(&s, 7, 0), pairs_of(&s, 7, 0));
    assert_ne!(pairs_of(&s, 7, 0), pairs_of(&s, 8, 0));
    // Written out and read back; the default is not written.
    let written = s.to_toml_string().unwrap();
    assert!(written.contains("sources = \"each\""), "{written}");
    assert_eq!(ok(&written), s);
    let uniform = ok(&text.replace("each", "uniform"));
    assert!(!uniform.to_toml_string().unwrap().contains("sources"));
    // "uniform" is the matrix without the key: some hosts send two connections, some none.
    let plain = ok(&text.replace("sources = \"each\"\n", ""));
    assert_eq!(plain, uniform);
    let pairs = pairs_of(&plain, 7, 0);
    let senders: BTreeSet<usize> = pairs.iter().map(|p| p.0).collect();
    assert!(senders.len() < 128, "uniform sources sent from every host");
}

#[test]
fn random_sources_each_run_one_flow_per_host_at_every_instant() {
    // Closed loop with new destinations: a host's next flow starts as its flow ends, so every
    // host sends exactly one flow at a time, and no host receives more than 2 at any instant.
    let s = ok(&new_destinations(
        "matrix = \"random\"\nsources = \"each\"\nmax_per_destination = 2\n\
         exclude_rack_local = true",
    ));
    for seed in 1..=3 {
        let out = run(&s, seed, &RunContext::default()).unwrap();
        let all = flows(&out);
        assert!(all.len() > 1000, "seed {seed}: {} flows", all.len());
        let mut events: Vec<(u64, i32, u32, u32)> = Vec::new();
        for f in &all {
            assert_ne!(f.src / 2, f.dst / 2, "seed {seed}: rack-local {f:?}");
            events.push((f.arrival_ns, 1, f.src, f.dst));
            if let Some(end) = f.end_ns {
                events.push((end, -1, f.src, f.dst));
            }
        }
        // At an instant, flows that end leave before flows that start arrive.
        events.sort();
        let (mut sending, mut receiving) = ([0i32; 16], [0i32; 16]);
        for (t, change, src, dst) in events {
            sending[src as usize] += change;
            receiving[dst as usize] += change;
            assert!(
                sending[src as usize] <= 1,
                "seed {seed}: host{src} sends 2 at {t} ns"
            );
            assert!(
                receiving[dst as usize] <= 2,
                "seed {seed}: host{dst} receives 3"
            );
        }
        // Every host sent from the start.
        let first: BTreeSet<u32> = all
            .iter()
            .filter(|f| f.arrival_ns == 0)
            .map(|f| f.src)
            .collect();
        assert_eq!(first.len(), 16, "seed {seed}");
    }
}

#[test]
fn random_sources_errors_name_the_key() {
    bad(
        &fattree("sources = \"each\"\nsize = \"20KB\""),
        10,
        "flows.c.sources",
        "`sources` is only used with matrix = \"random\"",
    );
    bad(
        &fattree("matrix = \"random\"\nsources = \"every\"\nsize = \"20KB\""),
        11,
        "flows.c.sources",
        "unknown value \"every\": expected one of \"uniform\" or \"each\"",
    );
    bad(
        &fattree("matrix = \"random\"\nsources = true\nsize = \"20KB\""),
        11,
        "flows.c.sources",
        "one of \"uniform\" or \"each\"",
    );
    bad(
        &fattree("jobs = {}\nsources = \"each\""),
        11,
        "flows.c.sources",
        "`sources` has no meaning in a class with `jobs`",
    );
    // Hosts 0 and 1 share a rack and host 2 is alone in another: at most 1 flow into host 2
    // cannot take both racks' flows out. Found before the run, on the class's matrix.
    let crowded = fattree(
        "matrix = \"random\"\nsources = \"each\"\nmax_per_destination = 1\n\
         exclude_rack_local = true\nhosts = [0, 1, 2]\nsize = \"20KB\"",
    );
    let p = &preflight::check(&load_in(Path::new("."), &crowded).unwrap(), 1)
        .unwrap_err()
        .0[0];
    assert_eq!(p.key_path, "flows.c.matrix", "{p}");
    assert!(
        p.message
            .contains("a rack of 2 hosts sends 2 connections out of the rack, and the 1 hosts outside it receive at most 1 each"),
        "{p}"
    );
    ok(&crowded.replace("max_per_destination = 1", "max_per_destination = 2"));
}

/// Two independent groups of 8 hosts on a k = 4 FatTree, each with one client reading from
/// the 7 others (the P4 scenario's many-to-one groups).
const GROUPS: &str = r#"
[run]
duration = "300ms"
drain = "300ms"
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
[[flows]]
name = "a"
matrix = "many-to-one"
hosts = "0-7"
size = "50KB"
transport = { kind = "tcp" }
[[flows]]
name = "b"
matrix = "many-to-one"
hosts = [8, 9, "10-15"]
size = "50KB"
transport = { kind = "tcp" }
"#;

#[test]
fn host_subsets_give_each_class_a_matrix_of_its_own() {
    let s = ok(GROUPS);
    let mut receivers = [BTreeSet::new(), BTreeSet::new()];
    for seed in 1..=40 {
        for (class, group) in [(0usize, 0..8usize), (1, 8..16)] {
            let pairs = pairs_of(&s, seed, class);
            assert_eq!(pairs.len(), 7, "seed {seed}");
            let dst = pairs[0].1;
            assert!(pairs.iter().all(|&(a, b)| b == dst && a != dst));
            let mut hosts: Vec<usize> = pairs.iter().map(|p| p.0).chain([dst]).collect();
            hosts.sort_unstable();
            assert_eq!(hosts, group.clone().collect::<Vec<_>>(), "seed {seed}");
            receivers[class].insert(dst);
        }
    }
    // Over 40 seeds, most of each group's 8 hosts get to be the receiver.
    assert!(receivers.iter().all(|r| r.len() >= 6), "{receivers:?}");
    let out = run(&s, 3, &RunContext::default()).unwrap();
    assert_eq!(
        out.summary().classes[0].completed + out.summary().classes[1].completed,
        14
    );
    // The set is written out compactly and read back.
    let text = s.to_toml_string().unwrap();
    assert!(text.contains("hosts = [\"8-15\"]"), "{text}");
    assert_eq!(ok(&text), s);

    let with = |hosts: &str| {
        fattree(&format!(
            "matrix = \"many-to-one\"\nhosts = {hosts}\nsize = \"20KB\""
        ))
    };
    bad(
        &with("[0, 1, \"1-3\"]"),
        11,
        "flows.c.hosts",
        "host 1 is listed twice",
    );
    bad(
        &with("\"8-16\""),
        11,
        "flows.c.hosts",
        "host 16 does not exist: the topology has 16 hosts",
    );
    bad(
        &with("\"7-2\""),
        11,
        "flows.c.hosts",
        "the range \"7-2\" is empty",
    );
    bad(
        &with("\"0..7\""),
        11,
        "flows.c.hosts",
        "\"0..7\" is not a host range",
    );
    bad(&with("[3]"), 11, "flows.c.hosts", "at least 2 hosts");
    bad(
        &with("3"),
        11,
        "flows.c.hosts",
        "expected a list of host indices and ranges",
    );
}

/// A flow of a run: its id, class, hosts, arrival and, from flows.csv, its end.
#[derive(Debug)]
struct Flow {
    id: u64,
    class: u32,
    src: u32,
    dst: u32,
    arrival_ns: u64,
    end_ns: Option<u64>,
}

fn flows(out: &RunOutput) -> Vec<Flow> {
    let text = String::from_utf8(out.files.flows_csv.clone().unwrap()).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (id, end) = (col("flow_id"), col("end_ns"));
    let ends: HashMap<u64, Option<u64>> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[id].parse().unwrap(), f[end].parse().ok())
        })
        .collect();
    out.started
        .iter()
        .map(|f| Flow {
            id: f.flow_id,
            class: f.class,
            src: f.src,
            dst: f.dst,
            arrival_ns: f.arrival.as_ns(),
            end_ns: ends[&f.flow_id],
        })
        .collect()
}

const ROUNDS: &str = r#"
[run]
duration = "500ms"
drain = "500ms"
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
[[flows]]
name = "perm"
matrix = "permutation"
size = { uniform = ["20KB", "200KB"] }
arrivals = { matrix_rounds = true }
transport = { kind = "tcp" }
"#;

#[test]
fn matrix_rounds_start_when_the_last_flow_of_the_round_finished() {
    let s = ok(ROUNDS);
    let out = run(&s, 2, &RunContext::default()).unwrap();
    let all = flows(&out);
    let mut rounds: BTreeMap<u64, Vec<&Flow>> = BTreeMap::new();
    for f in &all {
        rounds.entry(f.arrival_ns).or_default().push(f);
    }
    assert!(rounds.len() >= 5, "only {} rounds", rounds.len());
    let list: Vec<&Vec<&Flow>> = rounds.values().collect();
    let mut matrices = BTreeSet::new();
    for (r, round) in list.iter().enumerate() {
        // Every round is a whole permutation of the 16 hosts.
        assert_eq!(round.len(), 16, "round {r}");
        let srcs: BTreeSet<u32> = round.iter().map(|f| f.src).collect();
        let dsts: BTreeSet<u32> = round.iter().map(|f| f.dst).collect();
        assert!(srcs.len() == 16 && dsts.len() == 16 && round.iter().all(|f| f.src != f.dst));
        matrices.insert(round.iter().map(|f| (f.src, f.dst)).collect::<Vec<_>>());
        let last_end = round
            .iter()
            .map(|f| f.end_ns.expect("every flow finishes"))
            .max()
            .unwrap();
        match list.get(r + 1) {
            // The next round starts at the instant the last flow of this one finished.
            Some(next) => assert_eq!(next[0].arrival_ns, last_end, "round {}", r + 1),
            // No round starts after duration - 0.2 s.
            None => assert!(
                last_end >= 300_000_000,
                "the last round ended at {last_end} ns"
            ),
        }
    }
    assert_eq!(
        matrices.len(),
        list.len(),
        "each round draws a new permutation"
    );
    // Same seed, byte-identical flows.csv.
    let again = run(&s, 2, &RunContext::default()).unwrap();
    assert_eq!(again.files.flows_csv, out.files.flows_csv);

    bad(
        &ROUNDS.replace("{ uniform = [\"20KB\", \"200KB\"] }", "\"infinite\""),
        13,
        "flows.perm.arrivals",
        "infinite flows never end",
    );
    bad(
        &ROUNDS.replace("name = \"perm\"\n", "name = \"perm\"\nsenders = \"rest\"\n"),
        11,
        "flows.perm.senders",
        "\"rest\" has no meaning with matrix_rounds",
    );
    bad(
        &ROUNDS.replace("matrix_rounds = true", "matrix_rounds = false"),
        13,
        "flows.perm.arrivals.matrix_rounds",
        "expected matrix_rounds = true",
    );
}

#[test]
fn a_rounds_class_with_senders_takes_that_many_each_round() {
    let s = ok(&ROUNDS.replace("name = \"perm\"\n", "name = \"perm\"\nsenders = 6\n"));
    let out = run(&s, 4, &RunContext::default()).unwrap();
    let mut rounds: BTreeMap<u64, usize> = BTreeMap::new();
    for f in flows(&out) {
        assert_eq!(f.class, 0);
        *rounds.entry(f.arrival_ns).or_default() += 1;
    }
    assert!(
        rounds.len() >= 5 && rounds.values().all(|&n| n == 6),
        "{rounds:?}"
    );
}

#[test]
fn the_builder_gives_the_scenario_the_file_gives() {
    use htsim::builder::ScenarioBuilder;
    use htsim::core::SimTime;
    use htsim::scenario::{
        Arrivals, FlowClass, MatrixKind, RandomSources, SizeSpec, TopologyConfig, TransportConfig,
    };

    let file = ok(r#"
name = "b"
[run]
duration = "300ms"
[topology]
kind = "fattree"
k = 4
[[flows]]
name = "pairs"
matrix = "pairs"
pairs = [[0, 5], [3, 9]]
size = "infinite"
transport = { kind = "tcp" }
[[flows]]
name = "random"
matrix = "random"
max_per_destination = 4
exclude_rack_local = true
sources = "each"
hosts = [0, 1, "4-7"]
senders = 3
size = "20KB"
arrivals = { closed_loop = true, new_destination = true }
transport = { kind = "tcp" }
[[flows]]
name = "near"
matrix = "neighbours"
distance = 3
draws = 2
size = "20KB"
transport = { kind = "tcp" }
[[flows]]
name = "rounds"
matrix = "many-to-one"
hosts = "8-15"
size = "20KB"
arrivals = { matrix_rounds = true }
transport = { kind = "tcp" }
"#);
    let built = ScenarioBuilder::new("b")
        .duration(SimTime::from_ms(300))
        .topology(TopologyConfig::fattree(4))
        .flows(FlowClass::long("pairs", TransportConfig::tcp()).pairs([(0, 5), (3, 9)]))
        .flows(
            FlowClass::new("random", SizeSpec::Fixed(20_000), TransportConfig::tcp())
                .max_per_destination(4)
                .exclude_rack_local()
                .sources(RandomSources::Each)
                .hosts([0, 1, 4, 5, 6, 7])
                .senders(htsim::scenario::Senders::Count(3))
                .arrivals(Arrivals::closed_loop_new_destination()),
        )
        .flows(
            FlowClass::new("near", SizeSpec::Fixed(20_000), TransportConfig::tcp())
                .neighbours(3)
                .draws(2),
        )
        .flows(
            FlowClass::new("rounds", SizeSpec::Fixed(20_000), TransportConfig::tcp())
                .matrix(MatrixKind::ManyToOne)
                .hosts(8..16)
                .arrivals(Arrivals::MatrixRounds),
        )
        .build()
        .unwrap();
    assert_eq!(built, file);
}

#[test]
fn traced_flow_ids_are_bounded_by_the_pairs_a_class_opens() {
    // BCube(4, 1) read opens 96 flows on 16 hosts: id 50 exists.
    let read =
        "[run]\nduration = \"300ms\"\n[topology]\nkind = \"bcube\"\n[[flows]]\nname = \"read\"\n\
                matrix = \"neighbours\"\nsize = \"20KB\"\ntransport = { kind = \"tcp\" }\n\
                [output.trace]\nflows = [50]\n";
    ok(read);
    // Three inline pairs open flows 0 to 2.
    let pairs = fattree("matrix = \"pairs\"\npairs = [[0, 1], [1, 2], [2, 3]]\nsize = \"20KB\"");
    ok(&format!("{pairs}[output.trace]\nflows = [2]\n"));
    bad(
        &format!("{pairs}[output.trace]\nflows = [3]\n"),
        14,
        "output.trace.flows",
        "no flow 3: this scenario opens at most 3 flows",
    );
    // A class on 8 hosts opens at most 8.
    let group = fattree("hosts = \"0-7\"\nsize = \"20KB\"");
    bad(
        &format!("{group}[output.trace]\nflows = [8]\n"),
        13,
        "output.trace.flows",
        "no flow 8: this scenario opens at most 8 flows",
    );
}

#[test]
fn draws_give_every_host_that_many_connections() {
    // Three permutations of the 16 hosts, one after the other.
    let s = ok(&fattree("draws = 3\nsize = \"infinite\""));
    for seed in 1..=10 {
        let pairs = pairs_of(&s, seed, 0);
        assert_eq!(pairs.len(), 48);
        let (mut sent, mut received) = ([0; 16], [0; 16]);
        for block in pairs.chunks(16) {
            // Each block is a permutation.
            let srcs: BTreeSet<usize> = block.iter().map(|p| p.0).collect();
            let dsts: BTreeSet<usize> = block.iter().map(|p| p.1).collect();
            assert_eq!((srcs.len(), dsts.len()), (16, 16), "seed {seed}");
            for &(a, b) in block {
                assert_ne!(a, b);
                sent[a] += 1;
                received[b] += 1;
            }
        }
        assert!(sent.iter().chain(&received).all(|&n| n == 3), "seed {seed}");
    }
    // The first draw is the matrix without `draws`: a file without the key runs as before.
    let one = ok(&fattree("size = \"infinite\""));
    let drawn_once = ok(&fattree("draws = 1\nsize = \"infinite\""));
    assert_eq!(pairs_of(&one, 5, 0), pairs_of(&drawn_once, 5, 0));
    assert_eq!(pairs_of(&one, 5, 0), pairs_of(&s, 5, 0)[..16]);
    // A share counts every connection of every draw: half of 48.
    let half = ok(&fattree(
        "draws = 3\nsenders = \"50%\"\nsize = \"infinite\"",
    ));
    assert_eq!(pairs_of(&half, 1, 0).len(), 24);
    // A random matrix keeps its limit within each draw, so a host receives at most 2 x 2.
    let random = ok(&fattree(
        "matrix = \"random\"\nmax_per_destination = 2\ndraws = 2\nsize = \"infinite\"",
    ));
    let mut most = 0;
    for seed in 1..=20 {
        let pairs = pairs_of(&random, seed, 0);
        for block in pairs.chunks(16) {
            let mut received = [0; 16];
            block.iter().for_each(|&(_, b)| received[b] += 1);
            assert!(received.iter().all(|&n| n <= 2), "seed {seed}");
        }
        let mut received = [0; 16];
        pairs.iter().for_each(|&(_, b)| received[b] += 1);
        most = most.max(*received.iter().max().unwrap());
    }
    assert!((3..=4).contains(&most), "{most}");
    // The flows run: 3 long flows per host of the FatTree.
    let out = run(&s, 1, &RunContext::default()).unwrap();
    assert_eq!(out.summary().classes[0].long_flows, 48);
    // Counts are in connections: 20 of 2 x 16 fit, 20 of 16 do not.
    ok(&fattree("draws = 2\nsenders = 20\nsize = \"infinite\""));
    bad(
        &fattree("senders = 20\nsize = \"infinite\""),
        10,
        "flows.c.senders",
        "ask for 20 senders, and the topology has 16 hosts",
    );
    bad(
        &fattree("draws = 0\nsize = \"infinite\""),
        10,
        "flows.c.draws",
        "0 is out of range: expected an integer from 1 to 1000",
    );
    bad(
        &fattree("draws = \"2\"\nsize = \"infinite\""),
        10,
        "flows.c.draws",
        "expected an integer from 1 to 1000",
    );
    bad(
        "[run]\nduration = \"300ms\"\n[topology]\nkind = \"fattree\"\nk = 4\n[[flows]]\nname = \"j\"\n\
         jobs = {}\ndraws = 2\ntransport = { kind = \"tcp\" }\n",
        9,
        "flows.j.draws",
        "`draws` has no meaning in a class with `jobs`",
    );
}

/// Closed-loop 20 KB flows on a k = 4 FatTree for 600 ms (new flows for 400 ms), each to a new
/// destination; `class`
/// adds keys to the class.
fn new_destinations(class: &str) -> String {
    fattree(&format!(
        "{class}\nsize = \"20KB\"\narrivals = {{ closed_loop = true, new_destination = true }}"
    ))
    .replace("300ms", "600ms")
}

/// Per source, the destinations of its flows in arrival order, with their sizes.
fn by_source(flows: &[Flow], sizes: &HashMap<u64, u64>) -> BTreeMap<u32, Vec<(u32, u64)>> {
    let mut out: BTreeMap<u32, Vec<(u32, u64)>> = BTreeMap::new();
    for f in flows {
        out.entry(f.src).or_default().push((f.dst, sizes[&f.id]));
    }
    out
}

#[test]
fn closed_loop_flows_to_new_destinations_are_uniform_and_paired_across_transports() {
    let s = ok(&new_destinations(""));
    let matrix = pairs_of(&s, 3, 0);
    let out = run(&s, 3, &RunContext::default()).unwrap();
    let all = flows(&out);
    assert!(all.len() > 2000, "only {} flows", all.len());
    // Each host sends one flow at a time, the next as its previous one ends; its first goes to
    // its permutation partner.
    let mut last: HashMap<u32, &Flow> = HashMap::new();
    for f in &all {
        assert_ne!(f.src, f.dst);
        match last.insert(f.src, f) {
            Some(prev) => assert_eq!(Some(f.arrival_ns), prev.end_ns, "host{}", f.src),
            None => assert!(matrix.contains(&(f.src as usize, f.dst as usize))),
        }
    }
    // Later destinations are uniform over the 15 other hosts: counts of the 240 (source,
    // destination) pairs against a chi-square with 239 degrees of freedom (0.999 quantile 316).
    let mut pairs: HashMap<(u32, u32), f64> = HashMap::new();
    let mut seen: BTreeSet<u32> = BTreeSet::new();
    let mut later = 0.0;
    for f in &all {
        if !seen.insert(f.src) {
            *pairs.entry((f.src, f.dst)).or_default() += 1.0;
            later += 1.0;
        }
    }
    let expected = later / 240.0;
    let chi2: f64 = (0..16u32)
        .flat_map(|a| (0..16u32).filter(move |&b| b != a).map(move |b| (a, b)))
        .map(|p| (pairs.get(&p).copied().unwrap_or(0.0) - expected).powi(2) / expected)
        .sum();
    assert!(chi2 < 316.0, "chi-square {chi2} over {later} flows");
    // No limit binds, so MPTCP (other flow times) sees the same destinations and sizes, host
    // by host, as far as both got.
    let sizes = |out: &RunOutput| -> HashMap<u64, u64> {
        out.started
            .iter()
            .map(|f| (f.flow_id, f.size.unwrap()))
            .collect()
    };
    let mptcp =
        ok(&new_destinations("").replace("kind = \"tcp\"", "kind = \"mptcp\", subflows = 2"));
    let other = run(&mptcp, 3, &RunContext::default()).unwrap();
    assert_ne!(other.files.flows_csv, out.files.flows_csv);
    let (a, b) = (
        by_source(&all, &sizes(&out)),
        by_source(&flows(&other), &sizes(&other)),
    );
    for (src, mine) in &a {
        let theirs = &b[src];
        let n = mine.len().min(theirs.len());
        assert!(n > 50, "host{src}: {n} flows");
        assert_eq!(mine[..n], theirs[..n], "host{src}");
    }
    // Without the key, every flow of a host goes to its partner.
    let fixed = ok(&new_destinations("").replace(", new_destination = true", ""));
    let out = run(&fixed, 3, &RunContext::default()).unwrap();
    assert!(flows(&out)
        .iter()
        .all(|f| matrix.contains(&(f.src as usize, f.dst as usize))));
}

#[test]
fn new_destinations_keep_the_random_limits_at_every_instant() {
    let s = ok(&new_destinations(
        "matrix = \"random\"\nmax_per_destination = 2\nexclude_rack_local = true",
    ));
    let mut most = 0;
    for seed in 1..=3 {
        let out = run(&s, seed, &RunContext::default()).unwrap();
        let all = flows(&out);
        assert!(all.len() > 1000, "seed {seed}: {} flows", all.len());
        // Open flows per destination over time: at an instant, flows that end leave before
        // flows that start arrive (a sender's next flow starts as its previous one ends).
        let mut events: Vec<(u64, i32, u32)> = Vec::new();
        for f in &all {
            assert_ne!(f.src / 2, f.dst / 2, "seed {seed}: rack-local {f:?}");
            events.push((f.arrival_ns, 1, f.dst));
            if let Some(end) = f.end_ns {
                events.push((end, -1, f.dst));
            }
        }
        events.sort();
        let mut open = [0i32; 16];
        for (_, change, dst) in events {
            open[dst as usize] += change;
            assert!(open[dst as usize] <= 2, "seed {seed}: host{dst} receives 3");
            most = most.max(open[dst as usize]);
        }
    }
    assert_eq!(most, 2, "the limit never bound");
}

#[test]
fn new_destination_errors_name_the_key() {
    bad(
        &new_destinations("matrix = \"stride\""),
        12,
        "flows.c.arrivals.new_destination",
        "a new destination is drawn from a permutation or a random matrix, and this class's \
         matrix is \"stride\"",
    );
    bad(
        &fattree("size = \"20KB\"\narrivals = { poisson = 100, new_destination = true }"),
        11,
        "flows.c.arrivals.new_destination",
        "`new_destination` only applies to closed-loop arrivals",
    );
    bad(
        &fattree("size = \"20KB\"\narrivals = { new_destination = true }"),
        11,
        "flows.c.arrivals",
        "expected exactly one of",
    );
    bad(
        &new_destinations("").replace("new_destination = true", "new_destination = 1"),
        12,
        "flows.c.arrivals.new_destination",
        "expected true or false",
    );
    // `false` is the plain closed loop, written back without the key.
    let plain =
        ok(&new_destinations("").replace("new_destination = true", "new_destination = false"));
    assert_eq!(
        plain,
        ok(
            &fattree("size = \"20KB\"\narrivals = { closed_loop = true }")
                .replace("300ms", "600ms")
        )
    );
}
