//! The engine's pending-event queue.
//!
//! Every pending-event structure implements [`PendingEvents`]: schedule an event at a
//! [`SimTime`], pop the earliest one, peek at the earliest time. Events are ordered by
//! (time, insertion sequence), so events with equal times come out in the order they were
//! scheduled, identically in every run. Scheduling an event earlier than the last popped time
//! is a caller bug: debug builds panic, release builds schedule it at the last popped time
//! instead (it is neither lost nor popped before events already popped).
//!
//! Two structures are provided:
//!
//! * [`HeapQueue`], the baseline: one `std::collections::BinaryHeap` keyed by
//!   (time, sequence). O(log n) per operation, with unpredictable branches at every level and
//!   cache misses once the heap outgrows the cache.
//! * [`WheelQueue`], an adaptive hierarchical timing wheel: buckets of `2^shift` ps; the
//!   current bucket a sorted `Vec`; the rest in 8 levels of 256 slots, where level `k` holds
//!   spans of `256^k` buckets, so every time up to `SimTime::MAX` has a place. A level-0 slot
//!   is one bucket's `Vec`, swapped in whole when the wheel reaches it; higher slots are
//!   lists of 32-event chunks from a shared pool, so memory follows the pending events.
//!   Occupied slots are found with `trailing_zeros` on a bitmap per level. An event is moved
//!   O(log256(delay / bucket width)) times, each time by appending to or draining sequential
//!   storage. Entries carry no sequence number: the wheel keeps equal times in scheduling
//!   order by construction. A disordered bucket of up to 16 events is sorted by a
//!   branch-free sorting network, a nearly sorted one by insertion. The bucket width re-tunes
//!   itself to about 8 mean gaps between popped events (rebuilding only when 4x off). See
//!   its documentation for the details and invariants.
//!
//! [`EventQueue`] names the structure the engine uses, chosen by the hold-model benchmark
//! `benches/event_queue.rs` (`cargo bench --bench event_queue`): each step pops the earliest
//! event and schedules one at the popped time plus an increment, `N` events pending,
//! 16-byte payloads; increments exponential (mean 10 us) or a network mix (90% uniform
//! 0.1-10 us, 9% exactly 120 ns, 1% 200 ms timers). Millions of events (pop + schedule) per
//! second on the 2-core AMD EPYC VM used for development, median (best) of three runs:
//!
//! | pending | increments  | `HeapQueue` | `WheelQueue` | speed-up |
//! |--------:|-------------|------------:|-------------:|---------:|
//! |     1e3 | exponential | 16.4 (16.6) |  40.0 (40.1) |     2.4x |
//! |     1e3 | network mix | 16.4 (16.5) |  45.6 (46.0) |     2.8x |
//! |     1e5 | exponential |   5.6 (5.9) |  39.2 (39.7) |     7.0x |
//! |     1e5 | network mix |   7.3 (7.6) |  47.6 (47.9) |     6.5x |
//! |     1e6 | exponential |   1.4 (2.3) |  24.1 (29.6) |      17x |
//! |     1e6 | network mix |   3.2 (3.2) |  39.2 (39.4) |      12x |
//!
//! The harness alone (a FIFO in place of the queue) runs at 250 M steps/s, about 4 ns of
//! each step. The wheel wins at every size, by the most at 1e6 pending, where the heap's cache
//! misses dominate. Its peak memory in the benchmark at 1e5 pending (exponential) is that of
//! the heap (6 MB resident for the whole process).
//!
//! The previous wheel (64-slot levels, a `Vec` per slot at every level, (time, sequence)
//! keys, 4 events per bucket) measured 31.6, 38.8, 23.0, 33.1, 15.4 and 30.5 M/s in the same
//! runs, and kept 108 MB resident at 1e5 pending where this one and the heap keep 6 MB.
//!
//! Measured and not adopted (best of two runs, M events/s at 1e5 pending, exponential /
//! network mix): levels of 64, 1024 or 4096 slots: 27.4 / 35.8, 30.1 / 40.2 and 27.1 / 37.2
//! against 31.2 / 37.0 for 256 at that stage (more moves, or more cache misses; 1e6 pending
//! was worse for all three); insertion sort for every bucket: 32.8 / 41.0 against
//! 39.7 / 48.5 (about one mispredicted branch per event); 16-byte entries with the payloads
//! in a slab: 35.8 / 45.8 against 39.8 / 48.8 in the same runs, and 10.6 against 23.0 at 1e6
//! exponential (the payload read on pop misses the cache); a `Vec` per slot at every level:
//! as fast, 134 MB resident instead of 6; chunks of 16 or 64 events: within 3%.

mod binary_heap;
mod wheel;

#[cfg(test)]
mod tests;

use crate::SimTime;

pub use binary_heap::HeapQueue;
pub use wheel::WheelQueue;

/// What every pending-event structure offers. Events with equal times come out in insertion
/// order.
pub trait PendingEvents<E> {
    /// Adds `event`, to be popped at simulated time `at`.
    ///
    /// `at` must not be earlier than the time of the last popped event; if it is (a caller
    /// bug), debug builds panic and release builds use the last popped time instead.
    fn schedule(&mut self, at: SimTime, event: E);
    /// Removes and returns the earliest pending event with its time; among events with equal
    /// times, the one scheduled first. `None` when nothing is pending.
    fn pop(&mut self) -> Option<(SimTime, E)>;
    /// The time of the event [`pop`](Self::pop) would return next, without removing it.
    /// Takes `&mut self` so a structure may reorganise lazily.
    fn peek_time(&mut self) -> Option<SimTime>;
    /// The event [`pop`](Self::pop) would return `k + 1` calls from now, if the structure
    /// already holds it in order at hand (cheaply, without reorganising); `None` otherwise.
    /// A hint for prefetching: an event scheduled later may still come before it.
    fn upcoming(&self, _k: usize) -> Option<&E> {
        None
    }
    /// The number of pending events.
    fn len(&self) -> usize;
    /// Whether no event is pending.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The structure the engine uses: [`WheelQueue`], chosen by measurement. In the hold-model
/// benchmark it sustains 40-46 M events/s at 1e3 pending, 39-48 M/s at 1e5 and 24-39 M/s at
/// 1e6, against 16, 6-7 and 1-3 M/s for [`HeapQueue`] (2.4-17x faster; table in the
/// [module documentation](self)).
pub type EventQueue<E> = WheelQueue<E>;

/// The time at which an event asked for `at` is actually scheduled, given the last popped
/// time `now` (picoseconds): `at` itself, or `now` if `at` is in the past (a caller bug,
/// which debug builds report by panicking).
#[inline]
fn not_before(at: SimTime, now: u64) -> u64 {
    debug_assert!(
        at.0 >= now,
        "event scheduled at {} ps, before the last popped time {now} ps",
        at.0
    );
    at.0.max(now)
}
