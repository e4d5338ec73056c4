//! A FIFO ring buffer for the packets on a link (its *wire*, see [`crate::link`]).
//!
//! `std::collections::VecDeque` does the same job; this one is smaller (32-bit head and
//! length) and grows by an eighth, not by doubling: a large run has tens of thousands of links,
//! and their wires are the largest part of its memory, so a wire should not be much larger than
//! the most packets it has held (at k=32, doubling left 3.45 M slots for at most 2.45 M
//! packets). It never shrinks: a link's wire grows to the most packets it ever held (its buffer
//! plus what is propagating) and stays there, so steady state allocates nothing.

/// A growable FIFO of `Copy` values.
#[derive(Debug)]
pub(crate) struct Ring<T> {
    /// The slots. Slots outside the live range hold stale values.
    buf: Vec<T>,
    /// Index in `buf` of the first value.
    head: u32,
    /// Number of values.
    len: u32,
}

impl<T: Copy + Default> Ring<T> {
    /// An empty ring (allocates on the first push).
    pub(crate) fn new() -> Self {
        Ring {
            buf: Vec::new(),
            head: 0,
            len: 0,
        }
    }

    /// Number of values.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    /// The slot of the `i`-th value from the front (`i` may be `len`, the next free slot).
    #[inline]
    fn slot(&self, i: usize) -> usize {
        // `head < capacity` and `i <= len <= capacity`: one wrap at most.
        let s = self.head as usize + i;
        if s >= self.buf.len() {
            s - self.buf.len()
        } else {
            s
        }
    }

    /// Appends `value` at the back.
    #[inline]
    pub(crate) fn push_back(&mut self, value: T) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let s = self.slot(self.len as usize);
        self.buf[s] = value;
        self.len += 1;
    }

    /// Removes and returns the front value.
    #[inline]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let value = self.buf[self.head as usize];
        self.head = self.slot(1) as u32;
        self.len -= 1;
        Some(value)
    }

    /// The front value.
    #[inline]
    pub(crate) fn front(&self) -> Option<&T> {
        self.get(0)
    }

    /// The `i`-th value from the front.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        if i < self.len() {
            Some(&self.buf[self.slot(i)])
        } else {
            None
        }
    }

    /// The `i`-th value from the front, mutably.
    #[inline]
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i < self.len() {
            let s = self.slot(i);
            Some(&mut self.buf[s])
        } else {
            None
        }
    }

    /// Where the front value is, or would be: an address for a prefetch hint, never read
    /// through.
    #[inline]
    pub(crate) fn front_address(&self) -> *const T {
        self.buf.as_ptr().wrapping_add(self.head as usize)
    }

    /// Where the next pushed value will go (unless the push grows the ring): an address for a
    /// prefetch hint, never read through.
    #[inline]
    pub(crate) fn next_slot_address(&self) -> *const T {
        self.buf.as_ptr().wrapping_add(self.slot(self.len as usize))
    }

    /// The values from the back to the front.
    pub(crate) fn iter_rev(&self) -> impl Iterator<Item = &T> {
        (0..self.len()).rev().map(|i| &self.buf[self.slot(i)])
    }

    /// Removes every value, returning them front first.
    pub(crate) fn take_all(&mut self) -> Vec<T> {
        let all = (0..self.len()).map(|i| self.buf[self.slot(i)]).collect();
        self.head = 0;
        self.len = 0;
        all
    }

    /// Grows the capacity by an eighth (at least 8 slots), keeping the values in order from
    /// slot 0. Geometric, so pushing n values copies O(n) in all.
    #[cold]
    fn grow(&mut self) {
        let capacity = self.buf.len() + (self.buf.len() / 8).max(8);
        let mut buf = Vec::with_capacity(capacity);
        buf.extend((0..self.len()).map(|i| self.buf[self.slot(i)]));
        buf.resize(capacity, T::default());
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_as_a_fifo_across_wraps_and_growth() {
        // Drive the ring and a VecDeque with the same pushes and pops: 3 in, 2 out per round,
        // so the ring wraps many times and grows by eighths from 8 to 204 slots (8, 16, ..., 72,
        // 81, 91, ..., 182, 204): wraps at capacities that are not powers of two.
        let mut ring = Ring::new();
        let mut model = VecDeque::new();
        let mut next = 0u64;
        for round in 0..200 {
            for _ in 0..3 {
                ring.push_back(next);
                model.push_back(next);
                next += 1;
            }
            for _ in 0..2 {
                assert_eq!(ring.pop_front(), model.pop_front(), "round {round}");
            }
            assert_eq!(ring.len(), model.len());
            assert_eq!(ring.front(), model.front());
            assert_eq!(ring.get(ring.len() - 1), model.back());
            assert_eq!(ring.get(ring.len() / 2), model.get(model.len() / 2));
            assert!(ring.iter_rev().eq(model.iter().rev()));
        }
        assert_eq!(ring.buf.len(), 204);
        *ring.get_mut(0).unwrap() = 7;
        assert_eq!(ring.front(), Some(&7));
        let all = ring.take_all();
        assert_eq!(all.len(), 200);
        assert_eq!(all[1..], model.iter().copied().collect::<Vec<_>>()[1..]);
        assert_eq!(ring.len(), 0);
        assert_eq!(ring.pop_front(), None);
        assert_eq!(ring.get(0), None);
    }
}
