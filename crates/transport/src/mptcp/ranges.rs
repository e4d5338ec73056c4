//! The data-level out-of-order store of the per-subflow receiver (docs/model.md 4.4): the
//! data sequence ranges received above the next expected byte, merged where they touch.
//!
//! The sender cuts the data sequence space into segments once (a segment keeps its data
//! sequence number on retransmission, 4.2), so two arrivals are either the same segment or
//! disjoint. A store of one entry per segment grows with everything other subflows deliver
//! while one subflow holds a hole (a 200 ms retransmission timeout at 10 Gb/s is tens of
//! thousands of segments); the merged ranges grow only with the number of holes, at most the
//! segments in flight. The ranges live in a ring that keeps its capacity: no allocation per
//! packet once it has grown to the connection's largest number of holes.

use std::collections::VecDeque;

/// Disjoint, non-adjacent half-open ranges `[start, end)` of data sequence numbers, in order.
#[derive(Clone, Debug, Default)]
pub(crate) struct DataRanges {
    ranges: VecDeque<(u64, u64)>,
}

impl DataRanges {
    /// Adds `[start, start + len)`, merging it with the ranges it touches. Returns false (and
    /// changes nothing) when the range is already held: a data-level duplicate.
    pub(crate) fn insert(&mut self, start: u64, len: u32) -> bool {
        let end = start + len as u64;
        // The first range that ends at or after `start`: the only ones that can touch it.
        let i = self.ranges.partition_point(|&(_, e)| e < start);
        match self.ranges.get(i).copied() {
            Some((s, e)) if s <= start && end <= e => false,
            Some((s, e)) if s <= end => {
                // Touches range i (before, after or across it): widen it, then absorb the
                // ranges the new end reaches.
                let merged_end = end.max(e);
                self.ranges[i] = (s.min(start), merged_end);
                while let Some(&(ns, ne)) = self.ranges.get(i + 1) {
                    if ns > self.ranges[i].1 {
                        break;
                    }
                    self.ranges[i].1 = self.ranges[i].1.max(ne);
                    self.ranges.remove(i + 1);
                }
                true
            }
            _ => {
                crate::grow::reserve_one(&mut self.ranges);
                self.ranges.insert(i, (start, end));
                true
            }
        }
    }

    /// Removes and returns the length of the range that starts exactly at `at` (the next byte
    /// the application expects), if there is one.
    pub(crate) fn take_from(&mut self, at: u64) -> Option<u64> {
        match self.ranges.front() {
            Some(&(s, e)) if s == at => {
                self.ranges.pop_front();
                Some(e - s)
            }
            _ => None,
        }
    }

    /// The number of disjoint ranges held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.ranges.len()
    }
}

#[cfg(test)]
mod tests {
    use super::DataRanges;

    #[test]
    fn adjacent_segments_merge_into_one_range() {
        let mut r = DataRanges::default();
        assert!(r.insert(300, 100));
        assert!(r.insert(100, 100));
        assert_eq!(r.len(), 2);
        assert!(r.insert(200, 100)); // fills the gap: [100, 400)
        assert_eq!(r.len(), 1);
        assert_eq!(r.take_from(0), None);
        assert_eq!(r.take_from(100), Some(300));
        assert_eq!(r.len(), 0);
    }

    #[test]
    fn many_holes_grow_the_ring_by_an_eighth() {
        let mut r = DataRanges::default();
        for i in (0..600u64).rev() {
            assert!(r.insert(200 * i, 100));
        }
        assert_eq!(r.len(), 600);
        // Doubling would give 1024.
        assert!(r.ranges.capacity() <= 600 + 600 / 8 + 4);
    }

    #[test]
    fn a_duplicate_changes_nothing() {
        let mut r = DataRanges::default();
        assert!(r.insert(100, 100));
        assert!(r.insert(200, 100));
        assert!(!r.insert(100, 100));
        assert!(!r.insert(200, 100));
        assert_eq!(r.take_from(100), Some(200));
    }

    #[test]
    fn holes_keep_ranges_apart_in_order() {
        let mut r = DataRanges::default();
        for start in [900, 500, 700, 100, 300] {
            assert!(r.insert(start, 100));
        }
        assert_eq!(r.len(), 5);
        assert!(r.insert(800, 100)); // [700, 1000)
        assert!(r.insert(200, 100)); // [100, 400)
        assert_eq!(r.len(), 3);
        assert_eq!(r.take_from(100), Some(300));
        assert_eq!(r.take_from(400), None);
        assert!(r.insert(400, 100)); // [400, 600)
        assert_eq!(r.take_from(400), Some(200));
        assert!(r.insert(600, 100));
        assert_eq!(r.take_from(600), Some(400));
        assert_eq!(r.len(), 0);
    }

    /// Against a per-segment model: random arrival orders of a partition, with duplicates,
    /// deliver the same bytes in the same steps.
    #[test]
    fn matches_a_per_segment_store() {
        use std::collections::BTreeMap;
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..200 {
            // A partition of [0, total) into segments of 1..=5 units.
            let mut segments = Vec::new();
            let mut at = 0u64;
            while segments.len() < 40 {
                let len = 1 + next(5) as u32;
                segments.push((at, len));
                at += len as u64;
            }
            let arrivals: Vec<(u64, u32)> = (0..120)
                .map(|_| segments[next(segments.len() as u64) as usize])
                .collect();
            let (mut ranges, mut model) = (DataRanges::default(), BTreeMap::new());
            let (mut next_r, mut next_m) = (0u64, 0u64);
            for (d, len) in arrivals {
                if d >= next_r {
                    ranges.insert(d, len);
                }
                while let Some(n) = ranges.take_from(next_r) {
                    next_r += n;
                }
                if d >= next_m {
                    model.entry(d).or_insert(len);
                }
                while let Some(e) = model.first_entry() {
                    if *e.key() != next_m {
                        break;
                    }
                    next_m += e.remove() as u64;
                }
                assert_eq!(next_r, next_m);
            }
        }
    }
}
