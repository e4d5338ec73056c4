//! The fast pending-event structure: an adaptive hierarchical timing wheel.

use std::collections::BinaryHeap;

use super::{not_before, Entry, PendingEvents};
use crate::SimTime;

/// log2 of the slots per wheel level.
const SLOT_BITS: u32 = 6;
/// Slots per wheel level: one bitmap word.
const SLOTS: usize = 1 << SLOT_BITS;
/// Wheel levels: enough 6-bit digits for any 64-bit bucket number.
const LEVELS: usize = 64_usize.div_ceil(SLOT_BITS as usize);
/// Target mean number of events popped per bucket width.
const EVENTS_PER_BUCKET: u64 = 4;
/// Fewest pops between two re-tuning checks.
const MIN_TUNE_WINDOW: u64 = 1 << 10;
/// Most pops between two re-tuning checks.
const MAX_TUNE_WINDOW: u64 = 1 << 16;
/// Initial bucket width: 2^10 ps, about 1 ns.
const INITIAL_SHIFT: u32 = 10;

/// Pending events in an adaptive hierarchical timing wheel: O(1) amortised schedule and pop
/// when the bucket width suits the event density, which the wheel measures and adapts to.
///
/// Time is cut into buckets of `2^shift` picoseconds: an event at time `t` is in bucket
/// `b = t >> shift`. Write bucket numbers in base 64; `cur` is the bucket being drained.
///
/// * The current bucket holds every event with `b <= cur`, in exact (time, seq) order: ties
///   come out FIFO. It is a `Vec` sorted in reverse and popped from the end, plus a small
///   binary heap for events scheduled into the bucket while it is being drained (or between
///   the last popped time and `cur`); pop takes the earlier of the two heads.
/// * Every other event sits in one of 11 levels of 64 slots: level `k` if the highest base-64
///   digit in which `b` differs from `cur` is digit `k`, in the slot numbered by that digit of
///   `b`. Level 0 thus holds single buckets just after `cur`, level 1 spans of 64 buckets, and
///   so on up to level 10, so any time up to `SimTime::MAX` has a place and no separate
///   overflow structure is needed. Each slot is an unsorted `Vec` that keeps its capacity
///   (no allocation in steady state); one bitmap word per level marks occupied slots.
/// * When the current bucket runs dry, the lowest level with an occupied slot above `cur`'s
///   digit is found with `trailing_zeros`. A level-0 slot becomes the current bucket (its
///   storage is swapped with the empty current one and sorted: no copy, no allocation); a
///   higher slot moves `cur` to the start of its span and is redistributed into lower levels.
///   An event moves down at most once per level, so it is touched O(log64(delay / width))
///   times, always by appending to or draining a `Vec`: sequential memory access, which
///   beats the binary heap's cache misses and unpredictable branches.
///
/// Every `clamp(len, 2^10, 2^16)` pops the wheel re-tunes: the bucket width becomes the
/// power of two nearest to 4 mean gaps between popped event times, and the wheel is rebuilt
/// (O(len)) only if that is 4 times or more off the current width, so it does not
/// oscillate. See [`EventQueue`](super::EventQueue) for measured throughput.
#[derive(Clone, Debug)]
pub struct WheelQueue<E> {
    /// The current bucket's events (`b <= cur`) in reverse (time, seq) order.
    run: Vec<Entry<E>>,
    /// Events scheduled into the current bucket after it was sorted into `run`.
    late: BinaryHeap<Entry<E>>,
    /// Bucket number being drained.
    cur: u64,
    /// log2 of the bucket width in picoseconds.
    shift: u32,
    /// `LEVELS * SLOTS` slots; level `k` slot `s` is at index `k * SLOTS + s`.
    slots: Vec<Vec<Entry<E>>>,
    /// Per level, bit `s` set when slot `s` is not empty.
    occupied: [u64; LEVELS],
    /// Number of events scheduled so far; also the sequence number of the next one.
    scheduled: u64,
    /// Number of events popped so far.
    popped: u64,
    /// Time of the last popped event, in picoseconds (0 before the first pop).
    now: u64,
    /// Time of the last pop before the current tuning window began, in picoseconds.
    window_start: u64,
    /// `popped` when the current tuning window began.
    window_start_pops: u64,
    /// `popped` at which the current tuning window ends.
    window_end_pops: u64,
    /// Fewest pops in a tuning window.
    min_window: u64,
}

impl<E> WheelQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::with_min_window(MIN_TUNE_WINDOW)
    }

    /// An empty queue that re-tunes after at least `min_window` pops (tests use small windows
    /// to exercise re-tuning often).
    pub(super) fn with_min_window(min_window: u64) -> Self {
        WheelQueue {
            run: Vec::new(),
            late: BinaryHeap::new(),
            cur: 0,
            shift: INITIAL_SHIFT,
            slots: (0..LEVELS * SLOTS).map(|_| Vec::new()).collect(),
            occupied: [0; LEVELS],
            scheduled: 0,
            popped: 0,
            now: 0,
            window_start: 0,
            window_start_pops: 0,
            window_end_pops: min_window,
            min_window,
        }
    }

    /// Puts `entry` where its bucket belongs relative to `cur`.
    #[inline]
    fn place(&mut self, entry: Entry<E>) {
        let bucket = entry.time >> self.shift;
        if bucket <= self.cur {
            self.late.push(entry);
        } else {
            self.place_in_wheel(bucket, entry);
        }
    }

    /// Puts `entry`, whose bucket number `bucket` is after `cur`, in its wheel slot.
    #[inline]
    fn place_in_wheel(&mut self, bucket: u64, entry: Entry<E>) {
        let level = (bucket ^ self.cur).ilog2() / SLOT_BITS;
        let slot = ((bucket >> (level * SLOT_BITS)) as usize) & (SLOTS - 1);
        self.slots[level as usize * SLOTS + slot].push(entry);
        self.occupied[level as usize] |= 1 << slot;
    }

    /// Whether the current bucket is empty.
    #[inline]
    fn current_is_empty(&self) -> bool {
        self.run.is_empty() && self.late.is_empty()
    }

    /// The earliest event of the current bucket, which must not be empty.
    #[inline]
    fn current_first(&self) -> &Entry<E> {
        match (self.run.last(), self.late.peek()) {
            // `Entry`'s order is reversed: greater is earlier.
            (Some(r), Some(l)) => {
                if l > r {
                    l
                } else {
                    r
                }
            }
            (Some(r), None) => r,
            (None, Some(l)) => l,
            (None, None) => unreachable!("the current bucket is not empty"),
        }
    }

    /// Removes the earliest event of the current bucket, if any.
    #[inline]
    fn pop_current(&mut self) -> Option<Entry<E>> {
        match (self.run.last(), self.late.peek()) {
            (Some(r), Some(l)) if l > r => self.late.pop(),
            (Some(_), _) => self.run.pop(),
            (None, _) => self.late.pop(),
        }
    }

    /// Refills the empty current bucket from the wheel; false if nothing is pending.
    fn advance(&mut self) -> bool {
        debug_assert!(self.current_is_empty());
        loop {
            // The lowest level with an occupied slot after `cur`'s digit at that level (slots
            // at or before it are empty by construction).
            let Some((level, slot)) = (0..LEVELS).find_map(|level| {
                let digit = (self.cur >> (level as u32 * SLOT_BITS)) & (SLOTS as u64 - 1);
                let later = self.occupied[level] & (!1u64 << digit);
                (later != 0).then(|| (level, later.trailing_zeros() as usize))
            }) else {
                return false;
            };
            self.occupied[level] &= !(1 << slot);
            let index = level * SLOTS + slot;
            // Move `cur` to the start of the slot's span.
            let span_bits = level as u32 * SLOT_BITS;
            let high = (self.cur >> span_bits >> SLOT_BITS) << SLOT_BITS;
            self.cur = (high | slot as u64) << span_bits;
            if level == 0 {
                // Swap the bucket's storage with the empty run's: no copy, no allocation.
                std::mem::swap(&mut self.run, &mut self.slots[index]);
                // Ascending `Entry` order is reverse (time, seq): the earliest event last. A
                // bucket fills in roughly ascending (time, seq) order, so reversing it first
                // leaves the sort a nearly sorted input (linear for the insertion sort used on
                // small slices, instead of its quadratic worst case).
                self.run.reverse();
                self.run.sort_unstable();
                return true;
            }
            let mut events = std::mem::take(&mut self.slots[index]);
            for entry in events.drain(..) {
                self.place(entry);
            }
            self.slots[index] = events;
            if !self.late.is_empty() {
                return true;
            }
        }
    }

    /// Ends a tuning window: re-tunes the bucket width from the mean gap between the window's
    /// popped times, rebuilding if it is off by 4x or more.
    fn end_window(&mut self) {
        let gap = (self.now - self.window_start) / (self.popped - self.window_start_pops);
        let width = gap.saturating_mul(EVENTS_PER_BUCKET).max(1);
        // Nearest power of two (in log scale, the threshold is 1.5 rather than sqrt 2).
        let shift = width.saturating_add(width / 2).ilog2();
        if shift.abs_diff(self.shift) >= 2 {
            self.rebuild(shift);
        }
        self.window_start = self.now;
        self.window_start_pops = self.popped;
        self.window_end_pops =
            self.popped + (self.len() as u64).clamp(self.min_window, MAX_TUNE_WINDOW);
    }

    /// Re-files every pending event into buckets of `2^shift` ps.
    fn rebuild(&mut self, shift: u32) {
        let mut all = Vec::with_capacity(self.len());
        all.append(&mut self.run);
        all.extend(self.late.drain());
        for slot in &mut self.slots {
            all.append(slot);
        }
        self.occupied = [0; LEVELS];
        self.shift = shift;
        self.cur = self.now >> shift;
        for entry in all {
            self.place(entry);
        }
    }
}

impl<E> Default for WheelQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> PendingEvents<E> for WheelQueue<E> {
    #[inline]
    fn schedule(&mut self, at: SimTime, event: E) {
        let time = not_before(at, self.now);
        let seq = self.scheduled;
        self.scheduled += 1;
        self.place(Entry { time, seq, event });
    }

    #[inline]
    fn pop(&mut self) -> Option<(SimTime, E)> {
        if self.current_is_empty() && !self.advance() {
            return None;
        }
        let entry = self.pop_current()?;
        self.popped += 1;
        self.now = entry.time;
        if self.popped == self.window_end_pops {
            self.end_window();
        }
        Some((SimTime(entry.time), entry.event))
    }

    #[inline]
    fn peek_time(&mut self) -> Option<SimTime> {
        if self.current_is_empty() && !self.advance() {
            return None;
        }
        Some(SimTime(self.current_first().time))
    }

    #[inline]
    fn len(&self) -> usize {
        (self.scheduled - self.popped) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event_queue::HeapQueue;

    /// A deterministic pseudo-random sequence (64-bit LCG, high bits).
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((u128::from(self.0) * u128::from(n)) >> 64) as u64
        }
    }

    /// Runs `steps` steps of the hold model (pop, schedule at popped time + uniform
    /// `[0, 2 * mean_ps)`) on both queues, checking they pop the same events.
    fn hold(
        wheel: &mut WheelQueue<u32>,
        heap: &mut HeapQueue<u32>,
        rng: &mut Lcg,
        steps: usize,
        mean_ps: u64,
    ) {
        for _ in 0..steps {
            let popped = wheel.pop();
            assert_eq!(popped, heap.pop());
            let (t, id) = popped.expect("hold keeps the queue non-empty");
            let at = t + SimTime(rng.below(2 * mean_ps));
            wheel.schedule(at, id);
            heap.schedule(at, id);
        }
    }

    #[test]
    fn retunes_when_the_time_scale_changes() {
        let mut wheel = WheelQueue::new();
        let mut heap = HeapQueue::new();
        let mut rng = Lcg(7);
        for id in 0..1_000 {
            let at = SimTime(rng.below(2_000_000));
            wheel.schedule(at, id);
            heap.schedule(at, id);
        }
        // 1000 pending, mean increment 1 us: 1 ns between pops, buckets of about 4 ns (2^12).
        hold(&mut wheel, &mut heap, &mut rng, 200_000, 1_000_000);
        assert!((11..=13).contains(&wheel.shift), "shift {}", wheel.shift);
        let ns_shift = wheel.shift;
        // Mean increment 1 s: 1 ms between pops, buckets of about 4 ms (2^32 ps).
        hold(&mut wheel, &mut heap, &mut rng, 200_000, 1_000_000_000_000);
        assert!((31..=33).contains(&wheel.shift), "shift {}", wheel.shift);
        // And back: drain the far events, refill with near ones.
        let mut now = SimTime::ZERO;
        while let Some(popped) = wheel.pop() {
            assert_eq!(Some(popped), heap.pop());
            now = popped.0;
        }
        for id in 0..1_000 {
            let at = now + SimTime(rng.below(2_000_000));
            wheel.schedule(at, id);
            heap.schedule(at, id);
        }
        hold(&mut wheel, &mut heap, &mut rng, 200_000, 1_000_000);
        assert!(wheel.shift.abs_diff(ns_shift) <= 1, "shift {}", wheel.shift);
        check_invariants(&wheel);
        assert_eq!(wheel.len(), 1_000);
    }

    /// Checks the wheel's invariants: every event is in the place its bucket number calls for.
    fn check_invariants(wheel: &WheelQueue<u32>) {
        for entry in wheel.run.iter().chain(wheel.late.iter()) {
            assert!(entry.time >> wheel.shift <= wheel.cur);
            assert!(entry.time >= wheel.now);
        }
        // Reverse (time, seq) order, i.e. ascending `Entry` order: the earliest event is last.
        assert!(wheel.run.windows(2).all(|w| w[0] < w[1]), "run sorted");
        for level in 0..LEVELS {
            for slot in 0..SLOTS {
                let events = &wheel.slots[level * SLOTS + slot];
                let bit = wheel.occupied[level] >> slot & 1 == 1;
                assert_eq!(bit, !events.is_empty(), "level {level} slot {slot}");
                for entry in events {
                    let bucket = entry.time >> wheel.shift;
                    assert!(bucket > wheel.cur);
                    assert_eq!((bucket ^ wheel.cur).ilog2() / SLOT_BITS, level as u32);
                    assert_eq!(
                        (bucket >> (level as u32 * SLOT_BITS)) as usize % SLOTS,
                        slot
                    );
                }
            }
        }
        let in_slots: usize = wheel.slots.iter().map(Vec::len).sum();
        assert_eq!(wheel.run.len() + wheel.late.len() + in_slots, wheel.len());
    }

    #[test]
    fn events_at_all_scales_keep_the_invariants() {
        let mut wheel = WheelQueue::with_min_window(64);
        let mut heap = HeapQueue::new();
        let mut rng = Lcg(3);
        let mut now = 0u64;
        for step in 0..20_000u32 {
            // Delays from 0 to 2^63 ps, log-uniformly, and some "never".
            let at = match rng.below(20) {
                0 => u64::MAX,
                _ => {
                    let bits = rng.below(64);
                    now.saturating_add(rng.below(1 << bits))
                }
            };
            wheel.schedule(SimTime(at), step);
            heap.schedule(SimTime(at), step);
            if rng.below(2) == 0 {
                let popped = wheel.pop();
                assert_eq!(popped, heap.pop());
                now = popped.map_or(now, |(t, _)| t.0);
            }
            if step % 97 == 0 {
                assert_eq!(wheel.peek_time(), heap.peek_time());
            }
            check_invariants(&wheel);
        }
        while let Some(popped) = wheel.pop() {
            assert_eq!(Some(popped), heap.pop());
            check_invariants(&wheel);
        }
        assert!(heap.is_empty());
    }
}
