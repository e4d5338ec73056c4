//! The fast pending-event structure: an adaptive hierarchical timing wheel.

mod chunks;
mod sort;

use super::{not_before, PendingEvents};
use crate::SimTime;
use chunks::{ChunkList, Chunks};

/// log2 of the slots per wheel level.
const SLOT_BITS: u32 = 8;
/// Slots per wheel level.
const SLOTS: usize = 1 << SLOT_BITS;
/// Wheel levels: enough 8-bit digits for any 64-bit bucket number.
const LEVELS: usize = 64 / SLOT_BITS as usize;
/// Occupancy bitmap words per level.
const WORDS: usize = SLOTS / 64;
/// Target mean number of events popped per bucket width.
const EVENTS_PER_BUCKET: u64 = 8;
/// Fewest pops between two re-tuning checks.
const MIN_TUNE_WINDOW: u64 = 1 << 10;
/// Most pops between two re-tuning checks.
const MAX_TUNE_WINDOW: u64 = 1 << 16;
/// Initial bucket width: 2^10 ps, about 1 ns.
const INITIAL_SHIFT: u32 = 10;
/// Capacity (in events) a drained current bucket keeps; more is released, so that one burst
/// of simultaneous events does not stay allocated in whichever level-0 slot its storage
/// rotates to.
const KEPT_CAPACITY: usize = 1 << 10;

/// A pending event and its time. There is no sequence number: the wheel keeps events with
/// equal times in scheduling order by construction (see [`WheelQueue`]).
#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    /// When the event fires, in picoseconds.
    time: u64,
    event: E,
}

/// Pending events in an adaptive hierarchical timing wheel: O(1) amortised schedule and pop
/// when the bucket width suits the event density, which the wheel measures and adapts to.
/// Events are `Copy` (the engine's are small ids).
///
/// Time is cut into buckets of `2^shift` picoseconds: an event at time `t` is in bucket
/// `b = t >> shift`. Write bucket numbers in base 256; `cur` is the bucket being drained.
///
/// * The **current bucket** holds every event with `b <= cur`, in a `Vec` sorted by time with
///   ties in scheduling order; `current[head..]` are still pending. An event scheduled into it
///   while it drains is appended, or inserted after the events of equal or earlier time.
/// * Every other event sits in one of 8 **levels** of 256 slots: level `k` if the highest
///   base-256 digit in which `b` differs from `cur` is digit `k`, in the slot numbered by
///   that digit of `b`. Level 0 holds single buckets just after `cur`, level 1 spans of 256
///   buckets, and so on up to level 7, so every time up to `SimTime::MAX` has a place. A
///   level-0 slot is a `Vec`; slots above level 0 are lists of chunks from a shared pool (see
///   `chunks.rs`), so their memory follows the live events. One bitmap per level marks the
///   occupied slots.
/// * When the current bucket runs dry, the lowest level with an occupied slot after `cur`'s
///   digit there is found with `trailing_zeros`. A level-0 slot becomes the current bucket
///   (its `Vec` is swapped with the drained one: no copy) and is sorted (`sort.rs`); a higher
///   slot moves `cur` to the start of its span and its events are redistributed to lower
///   levels. An event moves down at most once per level, O(log256(delay / width)) times,
///   always by appending to or draining sequential storage.
///
/// **Scheduling order among equal times** is kept without a sequence number: every slot and
/// the current bucket hold their events in scheduling order (before the current bucket's
/// stable sort), because (1) events with equal times always share a bucket, hence a slot;
/// (2) a new event is appended to its slot; (3) when a slot is redistributed, the lower
/// levels and the current bucket are empty (everything before its span has been popped) and
/// its events are appended in order. The current bucket's sort is stable and later
/// insertions go after equal times, so pops come out in (time, scheduling order).
///
/// Every `clamp(len, 2^10, 2^16)` pops the wheel re-tunes: the bucket width becomes the
/// power of two nearest to `EVENTS_PER_BUCKET` (8) mean gaps between popped event times, and
/// the wheel is rebuilt (O(len)) only if that is 4 times or more off the current width, so it
/// does not oscillate. See [`EventQueue`](super::EventQueue) for measured throughput.
#[derive(Clone, Debug)]
pub struct WheelQueue<E> {
    /// The current bucket: events with bucket number `<= cur`, sorted by time, ties in
    /// scheduling order; those before `head` have been popped.
    current: Vec<Entry<E>>,
    /// Index in `current` of the next event to pop.
    head: usize,
    /// Level 0: slot `s` holds the bucket whose lowest digit is `s`, in scheduling order.
    near: Vec<Vec<Entry<E>>>,
    /// Levels 1 and up: level `k` slot `s` is `far[(k - 1) * SLOTS + s]`, in scheduling order.
    far: Vec<ChunkList>,
    /// Storage of the `far` lists.
    chunks: Chunks<Entry<E>>,
    /// Per level, bit `s` set when slot `s` is not empty.
    occupied: [[u64; WORDS]; LEVELS],
    /// Working storage for sorting the current bucket.
    sort_scratch: Vec<Entry<E>>,
    /// Bucket number being drained.
    cur: u64,
    /// log2 of the bucket width in picoseconds.
    shift: u32,
    /// Number of pending events.
    len: usize,
    /// Time of the last popped event, in picoseconds (0 before the first pop).
    now: u64,
    /// Pops left in the current tuning window.
    window_left: u64,
    /// Pops in the current tuning window.
    window_pops: u64,
    /// Time of the last pop before the current tuning window began, in picoseconds.
    window_start: u64,
    /// Fewest pops in a tuning window.
    min_window: u64,
}

impl<E: Copy> WheelQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::with_min_window(MIN_TUNE_WINDOW)
    }

    /// An empty queue that re-tunes after at least `min_window` pops (tests use small windows
    /// to exercise re-tuning often).
    pub(super) fn with_min_window(min_window: u64) -> Self {
        WheelQueue {
            current: Vec::new(),
            head: 0,
            near: (0..SLOTS).map(|_| Vec::new()).collect(),
            far: vec![ChunkList::EMPTY; (LEVELS - 1) * SLOTS],
            chunks: Chunks::new(),
            occupied: [[0; WORDS]; LEVELS],
            sort_scratch: Vec::new(),
            cur: 0,
            shift: INITIAL_SHIFT,
            len: 0,
            now: 0,
            window_left: min_window,
            window_pops: min_window,
            window_start: 0,
            min_window,
        }
    }

    /// Puts `entry`, whose bucket number `bucket` is after `cur`, in its wheel slot.
    #[inline(always)]
    fn place_in_wheel(&mut self, bucket: u64, entry: Entry<E>) {
        let level = ((bucket ^ self.cur).ilog2() / SLOT_BITS) as usize;
        let slot = (bucket >> (level as u32 * SLOT_BITS)) as usize & (SLOTS - 1);
        self.occupied[level][slot / 64] |= 1 << (slot % 64);
        if level == 0 {
            self.near[slot].push(entry);
        } else {
            self.chunks
                .push(&mut self.far[(level - 1) * SLOTS + slot], entry);
        }
    }

    /// Adds `entry` (bucket number `<= cur`) to the current bucket, after every pending event
    /// with an equal or earlier time.
    #[inline(always)]
    fn insert_current(&mut self, entry: Entry<E>) {
        // `current[..head]` were popped, so they are not later than `entry`.
        match self.current.last() {
            Some(last) if last.time > entry.time => self.insert_current_before_last(entry),
            _ => self.current.push(entry),
        }
    }

    /// [`insert_current`](Self::insert_current) for an entry earlier than the last one.
    #[inline(never)]
    fn insert_current_before_last(&mut self, entry: Entry<E>) {
        let pending = &self.current[self.head..];
        let i = self.head + pending.partition_point(|e| e.time <= entry.time);
        self.current.insert(i, entry);
    }

    /// The lowest level with an occupied slot after `cur`'s digit at that level, and that
    /// slot (slots at or before the digit are empty by construction).
    #[inline(always)]
    fn next_occupied(&self) -> Option<(usize, usize)> {
        for (level, words) in self.occupied.iter().enumerate() {
            let digit = (self.cur >> (level as u32 * SLOT_BITS)) as usize & (SLOTS - 1);
            let w = digit / 64;
            let later_in_word = words[w] & (!1u64 << (digit % 64));
            if later_in_word != 0 {
                return Some((level, w * 64 + later_in_word.trailing_zeros() as usize));
            }
            for (i, &word) in words.iter().enumerate().skip(w + 1) {
                if word != 0 {
                    return Some((level, i * 64 + word.trailing_zeros() as usize));
                }
            }
        }
        None
    }

    /// Refills the drained current bucket from the wheel; false if nothing is pending.
    #[inline(never)]
    fn advance(&mut self) -> bool {
        debug_assert_eq!(self.head, self.current.len());
        self.current.clear();
        self.head = 0;
        if self.current.capacity() > KEPT_CAPACITY {
            self.current.shrink_to(KEPT_CAPACITY);
        }
        loop {
            let Some((level, slot)) = self.next_occupied() else {
                return false;
            };
            self.occupied[level][slot / 64] &= !(1 << (slot % 64));
            // Move `cur` to the start of the slot's span.
            let span_bits = level as u32 * SLOT_BITS;
            let above = self.cur >> span_bits >> SLOT_BITS << SLOT_BITS;
            self.cur = (above | slot as u64) << span_bits;
            if level == 0 {
                // Swap the bucket's storage with the drained one's.
                std::mem::swap(&mut self.current, &mut self.near[slot]);
            } else {
                self.redistribute((level - 1) * SLOTS + slot);
            }
            if !self.current.is_empty() {
                let base = self.cur << self.shift;
                sort::sort_bucket(&mut self.current, &mut self.sort_scratch, base, self.shift);
                return true;
            }
        }
    }

    /// Moves every event of `far[index]` (whose span `cur` now starts) to the current bucket
    /// or a lower level, in order.
    #[inline(always)]
    fn redistribute(&mut self, index: usize) {
        let mut drain = Chunks::<Entry<E>>::drain(&mut self.far[index]);
        while let Some(items) = self.chunks.next_items(&mut drain) {
            for i in items {
                let entry = self.chunks.get(i);
                let bucket = entry.time >> self.shift;
                if bucket == self.cur {
                    self.current.push(entry);
                } else {
                    self.place_in_wheel(bucket, entry);
                }
            }
        }
    }

    /// Ends a tuning window: re-tunes the bucket width from the mean gap between the window's
    /// popped times, rebuilding if it is off by 4x or more.
    #[inline(never)]
    fn end_window(&mut self) {
        let gap = (self.now - self.window_start) / self.window_pops;
        let width = gap.saturating_mul(EVENTS_PER_BUCKET).max(1);
        // Nearest power of two (in log scale, the threshold is 1.5 rather than sqrt 2).
        let shift = width.saturating_add(width / 2).ilog2();
        if shift.abs_diff(self.shift) >= 2 {
            self.rebuild(shift);
        }
        self.window_start = self.now;
        self.window_pops = (self.len as u64).clamp(self.min_window, MAX_TUNE_WINDOW);
        self.window_left = self.window_pops;
    }

    /// Re-files every pending event into buckets of `2^shift` ps.
    fn rebuild(&mut self, shift: u32) {
        // Each container in turn, so that equal times (which share a container) keep their
        // order.
        let mut pending = Vec::with_capacity(self.len);
        pending.extend_from_slice(&self.current[self.head..]);
        self.current.clear();
        self.head = 0;
        for bucket in &mut self.near {
            pending.append(bucket);
        }
        for list in &mut self.far {
            let mut drain = Chunks::<Entry<E>>::drain(list);
            while let Some(items) = self.chunks.next_items(&mut drain) {
                pending.extend(items.map(|i| self.chunks.get(i)));
            }
        }
        self.occupied = [[0; WORDS]; LEVELS];
        self.shift = shift;
        self.cur = self.now >> shift;
        for entry in pending {
            let bucket = entry.time >> shift;
            if bucket <= self.cur {
                self.current.push(entry);
            } else {
                self.place_in_wheel(bucket, entry);
            }
        }
        // Stable, and every event here is in bucket `cur` (none is before `now`).
        self.current.sort_by_key(|e| e.time);
    }
}

impl<E: Copy> Default for WheelQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> PendingEvents<E> for WheelQueue<E> {
    #[inline(always)]
    fn schedule(&mut self, at: SimTime, event: E) {
        let time = not_before(at, self.now);
        self.len += 1;
        let entry = Entry { time, event };
        let bucket = time >> self.shift;
        if bucket > self.cur {
            self.place_in_wheel(bucket, entry);
        } else {
            self.insert_current(entry);
        }
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<(SimTime, E)> {
        let entry = match self.current.get(self.head) {
            Some(&entry) => entry,
            None => {
                if !self.advance() {
                    return None;
                }
                self.current[0]
            }
        };
        self.head += 1;
        self.len -= 1;
        self.now = entry.time;
        self.window_left -= 1;
        if self.window_left == 0 {
            self.end_window();
        }
        Some((SimTime(entry.time), entry.event))
    }

    #[inline]
    fn peek_time(&mut self) -> Option<SimTime> {
        if self.head == self.current.len() && !self.advance() {
            return None;
        }
        Some(SimTime(self.current[self.head].time))
    }

    /// Looks only in the current bucket, which is sorted.
    #[inline]
    fn upcoming(&self, k: usize) -> Option<&E> {
        self.current.get(self.head + k).map(|e| &e.event)
    }

    #[inline]
    fn len(&self) -> usize {
        self.len
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
        // 1000 pending, mean increment 1 us: 1 ns between pops, buckets of about 8 ns (2^13).
        hold(&mut wheel, &mut heap, &mut rng, 200_000, 1_000_000);
        assert!((12..=14).contains(&wheel.shift), "shift {}", wheel.shift);
        let ns_shift = wheel.shift;
        // Mean increment 1 s: 1 ms between pops, buckets of about 8 ms (2^33 ps).
        hold(&mut wheel, &mut heap, &mut rng, 200_000, 1_000_000_000_000);
        assert!((32..=34).contains(&wheel.shift), "shift {}", wheel.shift);
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

    /// Checks the wheel's invariants: every event is in the place its bucket number calls
    /// for, the current bucket is sorted, the bitmaps match the slots, the count is right.
    fn check_invariants(wheel: &WheelQueue<u32>) {
        let pending = &wheel.current[wheel.head..];
        for entry in pending {
            assert!(entry.time >> wheel.shift <= wheel.cur);
            assert!(entry.time >= wheel.now);
        }
        assert!(
            pending.windows(2).all(|w| w[0].time <= w[1].time),
            "current sorted"
        );
        let check_slot = |level: usize, slot: usize, times: &mut dyn Iterator<Item = u64>| {
            let mut count = 0;
            for time in times {
                let bucket = time >> wheel.shift;
                assert!(bucket > wheel.cur);
                assert_eq!((bucket ^ wheel.cur).ilog2() / SLOT_BITS, level as u32);
                let digit = (bucket >> (level as u32 * SLOT_BITS)) as usize % SLOTS;
                assert_eq!(digit, slot);
                count += 1;
            }
            let bit = wheel.occupied[level][slot / 64] >> (slot % 64) & 1 == 1;
            assert_eq!(bit, count > 0, "level {level} slot {slot}");
            count
        };
        let mut total = pending.len();
        for (slot, bucket) in wheel.near.iter().enumerate() {
            total += check_slot(0, slot, &mut bucket.iter().map(|e| e.time));
        }
        let mut chunks = wheel.chunks.clone();
        for (index, list) in wheel.far.iter().enumerate() {
            let mut times = Vec::new();
            let mut drain = Chunks::<Entry<u32>>::drain(&mut list.clone());
            while let Some(items) = chunks.next_items(&mut drain) {
                times.extend(items.map(|i| chunks.get(i).time));
            }
            assert_eq!(times.len(), list.len());
            total += check_slot(1 + index / SLOTS, index % SLOTS, &mut times.into_iter());
        }
        assert_eq!(total, wheel.len());
        // Draining every list freed every chunk: none is lost.
        assert_eq!(chunks.free_count(), chunks.chunk_count());
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
            if step % 16 == 0 {
                check_invariants(&wheel);
            }
        }
        while let Some(popped) = wheel.pop() {
            assert_eq!(Some(popped), heap.pop());
        }
        check_invariants(&wheel);
        assert!(heap.is_empty());
    }

    #[test]
    fn memory_follows_the_pending_events() {
        // A hold model whose far slots each fill up and drain in turn: the chunk pool stays
        // near the pending count instead of growing with the number of slots used.
        let mut wheel = WheelQueue::new();
        let mut heap = HeapQueue::new();
        let mut rng = Lcg(5);
        let pending = 20_000u64;
        for id in 0..pending as u32 {
            let at = SimTime(rng.below(20_000_000));
            wheel.schedule(at, id);
            heap.schedule(at, id);
        }
        hold(&mut wheel, &mut heap, &mut rng, 400_000, 10_000_000);
        let peak_chunks = wheel.chunks.chunk_count();
        assert!(
            (peak_chunks * chunks::CHUNK) < 2 * pending as usize,
            "{peak_chunks} chunks for {pending} events"
        );
        hold(&mut wheel, &mut heap, &mut rng, 400_000, 10_000_000);
        assert!(wheel.chunks.chunk_count() <= peak_chunks + peak_chunks / 10);
        check_invariants(&wheel);
    }

    #[test]
    fn a_burst_of_simultaneous_events_does_not_stay_allocated() {
        let mut wheel = WheelQueue::new();
        for id in 0..100_000 {
            wheel.schedule(SimTime(5_000), id);
        }
        for id in 0..100_000 {
            assert_eq!(wheel.pop(), Some((SimTime(5_000), id)));
        }
        // Later traffic: the burst's storage is released when its bucket is left behind.
        for step in 0..10_000u64 {
            wheel.schedule(SimTime(10_000 + step * 1_000), 0);
            wheel.pop();
        }
        let kept: usize = wheel.near.iter().map(Vec::capacity).sum::<usize>()
            + wheel.current.capacity()
            + wheel.sort_scratch.capacity();
        // At most one buffer of `KEPT_CAPACITY`, and small ones (not the 100 000 of the burst).
        assert!(
            kept < KEPT_CAPACITY + 32 * SLOTS,
            "{kept} events of capacity kept"
        );
    }
}
