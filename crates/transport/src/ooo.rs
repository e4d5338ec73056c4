//! A subflow receiver's out-of-order segments.

use std::collections::VecDeque;

/// The segments a subflow received above a hole, as (subflow seq, len, data seq) in subflow
/// sequence order, until the hole fills. A sorted ring rather than a map: a map allocates a
/// node as it grows and keeps one when emptied (about 280 bytes, in each of tens of thousands
/// of subflows), where the ring reuses its storage from one loss episode to the next, and a
/// ring grown past [`OooSegments::KEEP`] by a loss episode is freed once drained. Segments
/// mostly arrive in order behind the hole, so an insertion lands at the back.
#[derive(Debug, Default)]
pub(crate) struct OooSegments(VecDeque<(u64, u32, u64)>);

impl OooSegments {
    /// Capacity kept after the ring drains: a few segments held is the common case.
    const KEEP: usize = 8;

    /// Stores a segment unless one with subflow sequence number `seq` is held.
    pub(crate) fn insert(&mut self, seq: u64, len: u32, data_seq: u64) {
        if let Err(i) = self.0.binary_search_by_key(&seq, |&(s, _, _)| s) {
            self.0.insert(i, (seq, len, data_seq));
        }
    }

    /// Whether no segment is held (no hole below any received segment).
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Removes and returns (len, data seq) of the first segment if it starts at `seq`.
    pub(crate) fn take_at(&mut self, seq: u64) -> Option<(u32, u64)> {
        let &(s, len, data_seq) = self.0.front()?;
        if s != seq {
            return None;
        }
        self.0.pop_front();
        if self.0.is_empty() && self.0.capacity() > Self::KEEP {
            self.0 = VecDeque::new();
        }
        Some((len, data_seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_order_segments_come_out_in_sequence_once() {
        let mut o = OooSegments::default();
        // Segments of 10 bytes at 10, 20 ... 400, arriving scrambled and some twice.
        let n = 40u64;
        for i in (0..2 * n).map(|i| (i * 17) % n) {
            let seq = 10 + 10 * i;
            o.insert(seq, 10, 1000 + seq);
        }
        assert!(o.0.capacity() > OooSegments::KEEP);
        assert_eq!(o.take_at(0), None, "a hole at 0: nothing to take");
        let mut next = 10;
        while let Some((len, data_seq)) = o.take_at(next) {
            assert_eq!((len, data_seq), (10, 1000 + next));
            next += len as u64;
        }
        assert_eq!(next, 10 + 10 * n, "every segment once, in order");
        assert_eq!(o.0.capacity(), 0, "a ring grown by a loss episode is freed");
        o.insert(500, 10, 0);
        assert_eq!(o.take_at(500), Some((10, 0)));
        assert!(o.0.capacity() > 0, "a small ring is kept");
    }

    #[test]
    fn the_first_copy_of_a_segment_is_kept() {
        let mut o = OooSegments::default();
        o.insert(30, 10, 7);
        o.insert(30, 20, 8);
        o.insert(20, 10, 6);
        assert_eq!(o.take_at(20), Some((10, 6)));
        assert_eq!(o.take_at(30), Some((10, 7)));
        assert_eq!(o.take_at(40), None);
    }
}
