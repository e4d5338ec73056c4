//! The packets on every link's wire (see [`crate::link`]): one FIFO per link, all stored in
//! pages of [`PAGE`] slots drawn from one pool.
//!
//! A FIFO per link with its own buffer (a ring) keeps, for ever, room for the most packets that
//! link has held: at k=32 with 100-packet queues that was 2.45 M slots for about 0.9 M packets
//! in flight, and the wires were the largest part of the run's memory. Here a FIFO is a list of
//! pages ([`crate::blocks`]) linked front to back; a page goes back to the pool as soon as its last packet has
//! landed, so the pool holds about as many slots as there are packets on links at the busiest
//! moment, plus at most two part-used pages per link. Steady state allocates nothing: the pool
//! grows only when more packets than ever before are on the wires, and appending and removing
//! touch consecutive slots within a page.

use crate::blocks::Blocks;

/// Slots per page (a power of two, so a slot's place in its page is a mask).
pub(crate) const PAGE: u32 = 8;

/// Where one value is stored in a [`Wires`] pool: `page * PAGE + slot in page`.
pub(crate) type Loc = u32;

/// One FIFO of values stored in a [`Wires`] pool.
///
/// Invariant: when `len > 0`, the values are at `head`, then each next location along the
/// pages ([`Wires::after`]) through `tail`; the pages from `head`'s to `tail`'s are this
/// FIFO's alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fifo {
    head: Loc,
    tail: Loc,
    len: u32,
}

impl Fifo {
    /// The empty FIFO.
    pub(crate) const EMPTY: Fifo = Fifo {
        head: 0,
        tail: 0,
        len: 0,
    };

    /// Number of values.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    /// Where the front value is (meaningless when empty).
    #[inline]
    pub(crate) fn head(&self) -> Loc {
        self.head
    }
}

/// A pool of pages holding the values of any number of [`Fifo`]s.
#[derive(Clone, Debug)]
pub(crate) struct Wires<T> {
    pages: Blocks<T, { PAGE as usize }>,
}

impl<T: Copy + Default> Wires<T> {
    /// An empty pool.
    pub(crate) fn new() -> Self {
        Wires {
            pages: Blocks::new(),
        }
    }

    /// Appends `value` to `fifo`; returns where it is stored.
    #[inline(always)]
    pub(crate) fn push_back(&mut self, fifo: &mut Fifo, value: T) -> Loc {
        let loc = if fifo.len == 0 {
            let loc = self.pages.take(T::default) * PAGE;
            fifo.head = loc;
            loc
        } else if (fifo.tail + 1).is_multiple_of(PAGE) {
            let page = self.pages.take(T::default);
            self.pages.link(fifo.tail / PAGE, page);
            page * PAGE
        } else {
            fifo.tail + 1
        };
        fifo.tail = loc;
        fifo.len += 1;
        *self.pages.slot_mut(loc as usize) = value;
        loc
    }

    /// Removes and returns the front value of `fifo`; its page returns to the pool once empty.
    #[inline(always)]
    pub(crate) fn pop_front(&mut self, fifo: &mut Fifo) -> Option<T> {
        if fifo.len == 0 {
            return None;
        }
        let loc = fifo.head;
        let value = *self.pages.slot(loc as usize);
        fifo.len -= 1;
        if fifo.len == 0 {
            self.pages.give_back(loc / PAGE);
        } else if (loc + 1).is_multiple_of(PAGE) {
            let page = loc / PAGE;
            fifo.head = self.pages.next(page) * PAGE;
            self.pages.give_back(page);
        } else {
            fifo.head = loc + 1;
        }
        Some(value)
    }

    /// The front value of `fifo`.
    #[inline]
    pub(crate) fn front(&self, fifo: &Fifo) -> Option<&T> {
        (fifo.len > 0).then(|| self.pages.slot(fifo.head as usize))
    }

    /// The value at `loc`.
    #[inline]
    pub(crate) fn get(&self, loc: Loc) -> &T {
        self.pages.slot(loc as usize)
    }

    /// The value at `loc`, mutably.
    #[inline]
    pub(crate) fn get_mut(&mut self, loc: Loc) -> &mut T {
        self.pages.slot_mut(loc as usize)
    }

    /// Where the value after the one at `loc` in its FIFO is; that value must exist.
    #[inline]
    pub(crate) fn after(&self, loc: Loc) -> Loc {
        if (loc + 1).is_multiple_of(PAGE) {
            self.pages.next(loc / PAGE) * PAGE
        } else {
            loc + 1
        }
    }

    /// The values of `fifo`, front to back.
    pub(crate) fn iter<'a>(&'a self, fifo: &Fifo) -> impl Iterator<Item = &'a T> + 'a {
        self.iter_from(fifo.head, fifo.len())
    }

    /// The `n` values of a FIFO from the one at `loc` on (they must exist), front to back.
    pub(crate) fn iter_from(&self, mut loc: Loc, n: usize) -> impl Iterator<Item = &T> + '_ {
        (0..n).map(move |i| {
            if i > 0 {
                loc = self.after(loc);
            }
            self.pages.slot(loc as usize)
        })
    }

    /// Removes every value of `fifo`, returning them front first.
    pub(crate) fn take_all(&mut self, fifo: &mut Fifo) -> Vec<T> {
        let mut all = Vec::with_capacity(fifo.len());
        while let Some(value) = self.pop_front(fifo) {
            all.push(value);
        }
        all
    }

    /// Where the front value of `fifo` is, or would be: an address for a prefetch hint, never
    /// read through.
    #[inline]
    pub(crate) fn front_address(&self, fifo: &Fifo) -> *const T {
        self.pages.slot_address(fifo.head as usize)
    }

    /// Where the next value appended to `fifo` goes when that is in its last page: an address
    /// for a prefetch hint, never read through.
    #[inline]
    pub(crate) fn next_slot_address(&self, fifo: &Fifo) -> *const T {
        self.pages.slot_address(fifo.tail as usize + 1)
    }

    /// Pages the pool holds, in any FIFO or free (its memory footprint is `PAGE` slots each).
    #[cfg(test)]
    fn pages(&self) -> usize {
        self.pages.block_count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn fifos_sharing_a_pool_behave_as_fifos() {
        // Three FIFOs driven with different rhythms against VecDeque models, so they wrap
        // pages at different moments and pages pass from one to another through the pool.
        let mut wires = Wires::new();
        let mut fifos = [Fifo::EMPTY; 3];
        let mut models: [VecDeque<u64>; 3] = Default::default();
        let mut next = 0u64;
        let mut most = 0;
        for round in 0..275 {
            for (k, (fifo, model)) in fifos.iter_mut().zip(models.iter_mut()).enumerate() {
                let (pushes, pops) = [(3, 2), (1, 1), (5, 5)][k];
                let pushes = if round % 50 < 25 { pushes } else { 0 };
                for _ in 0..pushes {
                    let loc = wires.push_back(fifo, next);
                    assert_eq!(*wires.get(loc), next);
                    model.push_back(next);
                    next += 1;
                }
                for _ in 0..pops {
                    assert_eq!(wires.pop_front(fifo), model.pop_front(), "round {round}");
                }
                assert_eq!(fifo.len(), model.len());
                assert_eq!(wires.front(fifo), model.front());
                assert!(wires.iter(fifo).eq(model.iter()));
                if !model.is_empty() {
                    assert_eq!(wires.get(fifo.head()), &model[0]);
                }
                if model.len() > 1 {
                    assert_eq!(wires.get(wires.after(fifo.head())), &model[1]);
                }
            }
            // Memory follows what is held, not what each FIFO once held: at most two part-used
            // pages per FIFO beyond the full ones, at the busiest moment so far (mid-round,
            // before up to 5 pops).
            let bound: usize = models
                .iter()
                .map(|m| (m.len() + 5) / PAGE as usize + 2)
                .sum();
            most = most.max(bound);
            assert!(wires.pages() <= most, "round {round}");
        }
        assert_eq!(models[0].len(), 25);
        let all = wires.take_all(&mut fifos[0]);
        assert!(all.iter().eq(models[0].iter()));
        assert_eq!(fifos[0].len(), 0);
        assert_eq!(wires.pop_front(&mut fifos[0]), None);
    }

    #[test]
    fn emptied_pages_return_to_the_pool_and_are_reused() {
        let mut wires = Wires::new();
        let mut a = Fifo::EMPTY;
        let mut b = Fifo::EMPTY;
        // 20 values: pages of 8, so 3 pages.
        for v in 0..20u64 {
            wires.push_back(&mut a, v);
        }
        assert_eq!(wires.pages(), 3);
        // Landing the first 16 frees two pages; B's 16 values reuse them.
        for v in 0..16u64 {
            assert_eq!(wires.pop_front(&mut a), Some(v));
        }
        for v in 100..116u64 {
            wires.push_back(&mut b, v);
        }
        assert_eq!(wires.pages(), 3);
        // Emptying A frees its last page; one more page for B's 17th value reuses it.
        assert_eq!(wires.take_all(&mut a), vec![16, 17, 18, 19]);
        wires.push_back(&mut b, 116);
        assert_eq!(wires.pages(), 3);
        assert!(wires.iter(&b).copied().eq(100..117));
    }
}
