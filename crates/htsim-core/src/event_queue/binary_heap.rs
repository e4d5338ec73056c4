//! The baseline pending-event structure: a binary heap.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::{not_before, PendingEvents};
use crate::SimTime;

/// Pending events in one `std::collections::BinaryHeap` keyed by (time, insertion sequence).
///
/// O(log n) schedule and pop. The baseline against which [`WheelQueue`](super::WheelQueue) is
/// measured.
#[derive(Clone, Debug)]
pub struct HeapQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    /// Sequence number of the next scheduled event.
    next_seq: u64,
    /// Time of the last popped event, in picoseconds (0 before the first pop).
    now: u64,
}

impl<E> HeapQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        HeapQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
            now: 0,
        }
    }
}

impl<E> Default for HeapQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> PendingEvents<E> for HeapQueue<E> {
    #[inline]
    fn schedule(&mut self, at: SimTime, event: E) {
        let time = not_before(at, self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    #[inline]
    fn pop(&mut self) -> Option<(SimTime, E)> {
        let entry = self.heap.pop()?;
        self.now = entry.time;
        Some((SimTime(entry.time), entry.event))
    }

    #[inline]
    fn peek_time(&mut self) -> Option<SimTime> {
        self.heap.peek().map(|e| SimTime(e.time))
    }

    #[inline]
    fn len(&self) -> usize {
        self.heap.len()
    }
}

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
