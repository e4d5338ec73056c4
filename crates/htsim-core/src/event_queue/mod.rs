//! The engine's pending-event queue.
//!
//! Every pending-event structure implements [`PendingEvents`]: schedule an event at a
//! [`SimTime`], pop the earliest one, peek at the earliest time. Events are ordered by
//! (time, insertion sequence), so events with equal times come out in the order they were
//! scheduled, identically in every run.
//!
//! Two structures are provided:
//!
//! * [`HeapQueue`], the baseline: one `std::collections::BinaryHeap` keyed by
//!   (time, sequence). O(log n) per operation, with a cache miss per level once the heap
//!   outgrows the cache.
//! * [`WheelQueue`], an adaptive timing wheel (calendar queue), see [`wheel`](WheelQueue) for
//!   the design. O(1) amortised per operation when the bucket width matches the event density.
//!
//! [`EventQueue`] names the structure the engine uses, chosen by the benchmark
//! `benches/event_queue.rs` (see its doc comment for the figures).
//!
//! Scheduling an event earlier than the last popped time is a caller bug: debug builds panic,
//! release builds schedule it at the last popped time instead (it is neither lost nor reordered
//! before events already popped).

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

/// The structure the engine uses, chosen by measurement (`cargo bench --bench event_queue`:
/// hold model, 16-byte events, 2-core AMD EPYC VM shared with other builds; millions of
/// events per second):
///
/// | pending | increments  | `HeapQueue` | `WheelQueue` |
/// |--------:|-------------|------------:|-------------:|
/// | 1e3     | exponential | 14.7 | 30.9 |
/// | 1e3     | network mix | 15.0 | 39.4 |
/// | 1e5     | exponential |  3.9 | 20.4 |
/// | 1e5     | network mix |  6.2 | 28.7 |
/// | 1e6     | exponential |  1.0 | 10.9 |
/// | 1e6     | network mix |  2.9 | 28.2 |
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
