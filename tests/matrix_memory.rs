//! The memory a traffic matrix takes while a run is set up stays within what the run's budget
//! charges for it ([`BYTES_PER_CONNECTION`] per connection, checked before the matrix is drawn).
//! A `neighbours` matrix of a FatTree k = 24 (456 192 pairs three switches apart) is listed,
//! drawn and split among classes, and one of a BCube with shortest paths (a path class per
//! host) checked for pinned paths, and the heap's peak over the planning is compared with the
//! charge. (The split used to copy the pool into two new lists beside it, with a byte per
//! connection: 33 B per connection at the peak against a charge of 16 B; the pinned-path check
//! kept a set of every pair on the BCube: 45 B.) The heap is measured by a counting allocator,
//! so this file holds one test: tests of one binary share the allocator.

#[path = "heap/mod.rs"]
mod heap;

use std::path::Path;

use htsim::core::world::World;
use htsim::scenario::{load_str, LoadOptions};
use htsim::simulate::resources::BYTES_PER_CONNECTION;
use htsim::simulate::{network, workload};

/// Pairs of a FatTree k = 24 three switches apart: 3456 hosts, each with 132 in its pod and
/// outside its rack.
const PAIRS: usize = 3456 * 132;

/// The heap's peak above what was live before, over the planning of the flow classes
/// `classes` on `topology` (a FatTree k = 24 when empty), and the connections the classes took.
fn peak_of_plan(topology: &str, classes: &str) -> (usize, usize) {
    let topology = if topology.is_empty() {
        "kind = \"fattree\"\nk = 24"
    } else {
        topology
    };
    let text = format!(
        r#"
[run]
duration = "1ms"
[topology]
{topology}
link_rate = "1Gbps"
{classes}
"#
    );
    let loaded = load_str("m.toml", &text, Path::new("."), &LoadOptions::default()).unwrap();
    let scenario = &loaded.points[0].scenario;
    let mut world = World::new(1);
    let topology = network::build(&mut world, scenario).unwrap();
    let (peak, plans) = heap::peak_over(|| {
        workload::plan(scenario, &topology, world.streams(), None)
            .unwrap_or_else(|e| panic!("{e:?}"))
    });
    let taken = plans.iter().map(|p| p.pool.len()).sum();
    (peak, taken)
}

/// A class `name` on the neighbours matrix three switches apart, with `keys`.
fn neighbours(name: &str, keys: &str) -> String {
    format!(
        "[[flows]]\nname = \"{name}\"\nmatrix = \"neighbours\"\ndistance = 3\nsize = \"20KB\"\n\
         transport = {{ kind = \"tcp\" }}\n{keys}\n"
    )
}

/// BCube(8, 3) with shortest paths, where each host is a path class of its own.
const BCUBE: &str = "kind = \"bcube\"\nn = 8\nk = 3";

/// Pairs of BCube(8, 3) hosts one switch apart: 4096 hosts, 4 x 7 neighbours each.
const BCUBE_PAIRS: usize = 4096 * 28;

/// A class on the BCube's neighbours one switch apart, by MPTCP pinned to its first path
/// (every pair is checked to have one: the set of checked pairs held 28 B per pair).
fn pinned(keys: &str) -> String {
    format!(
        "[[flows]]\nname = \"p\"\nmatrix = \"neighbours\"\ndistance = 1\nsize = \"20KB\"\n\
         transport = {{ kind = \"mptcp\", subflows = 2, paths = {{ pinned = [0] }} }}\n{keys}\n\
         [routing]\nmode = \"shortest\"\n"
    )
}

#[test]
fn a_matrix_at_set_up_takes_no_more_than_its_charge() {
    // (classes, connections charged): the split's worst case is half taken, half kept.
    let cases = [
        ("", neighbours("all", ""), PAIRS),
        ("", neighbours("half", "senders = \"50%\""), PAIRS),
        (
            "",
            neighbours("long", "senders = \"33%\"") + &neighbours("short", "senders = \"rest\""),
            PAIRS,
        ),
        ("", neighbours("few", "senders = 1000"), PAIRS),
        (
            "",
            neighbours("twice", "draws = 2\nsenders = \"50%\""),
            2 * PAIRS,
        ),
        (
            "",
            neighbours(
                "rounds",
                "senders = \"50%\"\narrivals = { matrix_rounds = true }",
            ),
            // The pairs kept for later rounds, and round 0's.
            2 * PAIRS,
        ),
        (BCUBE, pinned(""), BCUBE_PAIRS),
        (BCUBE, pinned("senders = \"50%\""), BCUBE_PAIRS),
    ];
    for (topology, classes, charged) in cases {
        let (peak, taken) = peak_of_plan(topology, &classes);
        assert!(taken > 0, "{classes}");
        let charge = charged as u64 * BYTES_PER_CONNECTION;
        // What does not grow with the matrix (the host layout, the path classes of the pinned
        // paths' check: a few hundred bytes a host, within the network's 4 KiB per link): the
        // same classes on a permutation, one connection per host.
        let permutation = classes
            .replace("\"neighbours\"", "\"permutation\"")
            .replace("distance = 1\n", "")
            .replace("distance = 3\n", "");
        let (fixed, _) = peak_of_plan(topology, &permutation);
        let allowance = fixed as u64 + 64 * 1024;
        eprintln!(
            "{charged} connections charged, {taken} taken: peak {peak} B, {:.2} B per \
             connection, charge {charge} B, allowance {allowance} B",
            peak as f64 / charged as f64
        );
        assert!(
            peak as u64 <= charge + allowance,
            "planning {classes}: the heap peaked at {peak} B ({:.2} B per connection) over \
             {charged} connections charged {BYTES_PER_CONNECTION} B each ({charge} B), with \
             {allowance} B for what does not grow with the matrix",
            peak as f64 / charged as f64
        );
    }
}
