//! A global allocator for the test binaries that measure the heap (`idle_memory`,
//! `matrix_memory`, `steady_state_allocations`, `subflow_memory`): the system's, counting the
//! bytes live, their peak and the allocations made. A binary that includes this module
//! (`#[path = "heap/mod.rs"] mod heap;`) measures every thread of it, so each such binary
//! holds one test.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// The system allocator, counting. A `realloc` is the system's (which may resize a block in
/// place): it counts as one allocation and the change in size.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

fn grow(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
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
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
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

/// The heap's peak over `f`, above what was live before it, and what `f` returned.
#[allow(dead_code)] // not every binary that measures the heap needs its peak
pub fn peak_over<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let value = f();
    (PEAK.load(Ordering::Relaxed) - before, value)
}

/// Allocations (and reallocations) made so far.
#[allow(dead_code)] // not every binary that measures the heap counts allocations
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}
