//! The memory a traffic matrix takes while a run is set up stays within what the run's budget
//! charges for it ([`BYTES_PER_CONNECTION`] per connection, checked before the matrix is drawn).
//! A `neighbours` matrix of a FatTree k = 24 (456 192 pairs three switches apart) is listed,
//! drawn and split among classes, and the heap's peak over the planning is compared with the
//! charge. (The split used to copy the pool into two new lists beside it, with a byte per
//! connection: 33 B per connection at the peak against a charge of 16 B.) The heap is measured
//! by a counting allocator, so this file holds one test: tests of one binary share the
//! allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use htsim::core::world::World;
use htsim::scenario::{load_str, LoadOptions};
use htsim::simulate::resources::BYTES_PER_CONNECTION;
use htsim::simulate::{network, workload};

/// The system allocator, counting the bytes live and their peak. A `realloc` is the system's
/// (which shrinks a block in place) and counts the change in size.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grow(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Pairs of a FatTree k = 24 three switches apart: 3456 hosts, each with 132 in its pod and
/// outside its rack.
const PAIRS: usize = 3456 * 132;

/// The heap's peak above what was live before, over the planning of the flow classes
/// `classes` on a FatTree k = 24, and the connections the classes took.
fn peak_of_plan(classes: &str) -> (usize, usize) {
    let text = format!(
        r#"
[run]
duration = "1ms"
[topology]
kind = "fattree"
k = 24
link_rate = "1Gbps"
{classes}
"#
    );
    let loaded = load_str("m.toml", &text, Path::new("."), &LoadOptions::default()).unwrap();
    let scenario = &loaded.points[0].scenario;
    let mut world = World::new(1);
    let topology = network::build(&mut world, scenario).unwrap();
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let plans = workload::plan(scenario, &topology, world.streams(), None)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let peak = PEAK.load(Ordering::Relaxed) - before;
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

#[test]
fn a_matrix_at_set_up_takes_no_more_than_its_charge() {
    // (classes, connections charged): the split's worst case is half taken, half kept.
    let cases = [
        (neighbours("all", ""), PAIRS),
        (neighbours("half", "senders = \"50%\""), PAIRS),
        (
            neighbours("long", "senders = \"33%\"") + &neighbours("short", "senders = \"rest\""),
            PAIRS,
        ),
        (neighbours("few", "senders = 1000"), PAIRS),
        (
            neighbours("twice", "draws = 2\nsenders = \"50%\""),
            2 * PAIRS,
        ),
        (
            neighbours(
                "rounds",
                "senders = \"50%\"\narrivals = { matrix_rounds = true }",
            ),
            // The pairs kept for later rounds, and round 0's.
            2 * PAIRS,
        ),
    ];
    for (classes, charged) in cases {
        let (peak, taken) = peak_of_plan(&classes);
        assert!(taken > 0, "{classes}");
        let charge = charged as u64 * BYTES_PER_CONNECTION;
        // Fixed costs: the topology's host lists and class tables, the scenario's copies.
        let allowance = 256 * 1024;
        eprintln!(
            "{charged} connections charged, {taken} taken: peak {peak} B, {:.2} B per \
             connection, charge {charge} B",
            peak as f64 / charged as f64
        );
        assert!(
            peak as u64 <= charge + allowance,
            "planning {classes}: the heap peaked at {peak} B ({:.2} B per connection) over \
             {charged} connections charged {BYTES_PER_CONNECTION} B each ({charge} B)",
            peak as f64 / charged as f64
        );
    }
}
