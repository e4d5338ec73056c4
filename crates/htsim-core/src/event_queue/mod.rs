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
//! * [`WheelQueue`], an adaptive hierarchical timing wheel: buckets of `2^shift` ps, the
//!   current bucket sorted (plus a small heap for events scheduled into it while it drains),
//!   and 11 levels of 64 unsorted `Vec` slots for the rest, where level `k` holds spans of
//!   `64^k` buckets, so every time up to `SimTime::MAX` has a place; occupied slots are found
//!   with one `trailing_zeros` per level. An event is moved O(log64(delay / bucket width))
//!   times, each time by appending to or draining a `Vec`. The bucket width re-tunes itself
//!   to about 4 mean gaps between popped events (rebuilding only when 4x off). See its
//!   documentation for the details.
//!
//! [`EventQueue`] names the structure the engine uses, chosen by the hold-model benchmark
//! `benches/event_queue.rs` (`cargo bench --bench event_queue`): each step pops the earliest
//! event and schedules one at the popped time plus an increment, `N` events pending,
//! 16-byte payloads; increments exponential (mean 10 us) or a network mix (90% uniform
//! 0.1-10 us, 9% exactly 120 ns, 1% 200 ms timers). Millions of events (pop + schedule) per
//! second on the 2-core AMD EPYC VM used for development, while other builds ran on it:
//!
//! | pending | increments  | `HeapQueue` | `WheelQueue` | speed-up |
//! |--------:|-------------|------------:|-------------:|---------:|
//! |     1e3 | exponential |        15.1 |         31.4 |     2.1x |
//! |     1e3 | network mix |        15.9 |         39.8 |     2.5x |
//! |     1e5 | exponential |         4.4 |         22.2 |     5.0x |
//! |     1e5 | network mix |         6.2 |         31.9 |     5.1x |
//! |     1e6 | exponential |         1.0 |         13.9 |    13.9x |
//! |     1e6 | network mix |         2.9 |         28.2 |     9.7x |
//!
//! (Best of three runs per cell.) The wheel wins at every size: 2-2.5x at 1e3 pending, 5x at
//! 1e5 and 10-14x at 1e6, where the heap's cache misses dominate. Absolute figures vary by up
//! to 2x between runs with the machine's load; the ratios are what the choice rests on.

mod binary_heap;
mod wheel;

#[cfg(test)]
mod tests;

use std::cmp::Ordering;

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
    /// The number of pending events.
    fn len(&self) -> usize;
    /// Whether no event is pending.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The structure the engine uses: [`WheelQueue`], chosen by measurement. In the hold-model
/// benchmark it sustains 31-40 M events/s at 1e3 pending, 22-32 M/s at 1e5 and 14-28 M/s at
/// 1e6, against 15-16, 4-6 and 1-3 M/s for [`HeapQueue`] (2-14x faster; table in the
/// [module documentation](self)).
pub type EventQueue<E> = WheelQueue<E>;

/// A pending event with its ordering key.
///
/// `Ord` is reversed (the earliest (time, seq) compares greatest) so that the max-heap
/// `BinaryHeap` pops the earliest event first.
#[derive(Clone, Debug)]
struct Entry<E> {
    /// When the event fires, in picoseconds.
    time: u64,
    /// Insertion sequence number, unique per queue; breaks ties between equal times.
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}

impl<E> Eq for Entry<E> {}

impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

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
