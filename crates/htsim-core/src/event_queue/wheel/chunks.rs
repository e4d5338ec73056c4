//! Event storage for the wheel's upper levels: lists of fixed-size chunks drawn from one pool.
//!
//! A wheel slot above level 0 can hold a large share of all pending events for a while and
//! then nothing. Giving each slot its own `Vec` would keep every slot's largest size allocated
//! forever (several times the live events: 108 MB for 1e5 pending 32-byte events in the hold
//! benchmark, against 6 MB for the heap). Here all slots share one pool of chunks of
//! [`CHUNK`] items ([`crate::blocks`]): a slot is a singly linked list of chunks, and a
//! drained chunk goes back to the pool. The pool only grows while the number of pending events
//! reaches a new peak, so memory stays proportional to that peak and steady state allocates
//! nothing. Appending and draining touch consecutive items within a chunk.

use crate::blocks::{Blocks, NO_BLOCK};
use std::ops::Range;

/// Items per chunk.
pub(super) const CHUNK: usize = 32;

/// One list of items, in the order they were pushed, stored in a [`Chunks`] pool.
///
/// Invariant: `len` items are stored in `ceil(len / CHUNK)` chunks, from `first` through
/// `last` along the pool's links; every chunk but the last is full; the last holds
/// `len - (chunks - 1) * CHUNK` items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ChunkList {
    first: u32,
    last: u32,
    len: usize,
}

impl ChunkList {
    /// The empty list.
    pub(super) const EMPTY: ChunkList = ChunkList {
        first: NO_BLOCK,
        last: NO_BLOCK,
        len: 0,
    };

    /// The number of items in the list.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
    }
}

/// A pool of chunks holding the items of any number of [`ChunkList`]s.
#[derive(Clone, Debug)]
pub(super) struct Chunks<T> {
    chunks: Blocks<T, CHUNK>,
}

/// A list being drained: see [`Chunks::next_items`].
#[derive(Debug)]
pub(super) struct Drain {
    /// The next chunk to read.
    chunk: u32,
    /// Items not yet handed out.
    left: usize,
    /// The chunk whose items were handed out last, freed on the next call.
    reading: Option<u32>,
}

impl<T: Copy> Chunks<T> {
    /// An empty pool.
    pub(super) fn new() -> Self {
        Chunks {
            chunks: Blocks::new(),
        }
    }

    /// Appends `item` to `list`.
    #[inline(always)]
    pub(super) fn push(&mut self, list: &mut ChunkList, item: T) {
        let fill = list.len % CHUNK;
        if fill == 0 {
            let chunk = self.chunks.take(|| item);
            if list.len == 0 {
                list.first = chunk;
            } else {
                self.chunks.link(list.last, chunk);
            }
            list.last = chunk;
        }
        *self.chunks.slot_mut(list.last as usize * CHUNK + fill) = item;
        list.len += 1;
    }

    /// Empties `list` and returns a cursor over its items; pass the cursor to
    /// [`next_items`](Self::next_items) until that returns `None`, which frees the chunks.
    #[inline(always)]
    pub(super) fn drain(list: &mut ChunkList) -> Drain {
        let drain = Drain {
            chunk: list.first,
            left: list.len,
            reading: None,
        };
        *list = ChunkList::EMPTY;
        drain
    }

    /// The indices (for [`get`](Self::get)) of the next chunk's items of a drained list, in
    /// push order; `None` when all have been handed out. The chunk handed out by the previous
    /// call is freed first, so its items must have been read by then; items may be pushed to
    /// other lists in between.
    #[inline(always)]
    pub(super) fn next_items(&mut self, drain: &mut Drain) -> Option<Range<usize>> {
        if let Some(chunk) = drain.reading.take() {
            self.chunks.give_back(chunk);
        }
        if drain.left == 0 {
            return None;
        }
        let chunk = drain.chunk;
        let n = drain.left.min(CHUNK);
        drain.left -= n;
        drain.chunk = self.chunks.next(chunk);
        drain.reading = Some(chunk);
        let start = chunk as usize * CHUNK;
        Some(start..start + n)
    }

    /// The item at index `i` (from [`next_items`](Self::next_items)).
    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> T {
        *self.chunks.slot(i)
    }

    /// The number of chunks in the pool, in lists or free.
    #[cfg(test)]
    pub(super) fn chunk_count(&self) -> usize {
        self.chunks.block_count()
    }

    /// The number of free chunks.
    #[cfg(test)]
    pub(super) fn free_count(&self) -> usize {
        self.chunks.free_count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(chunks: &mut Chunks<u32>, list: &mut ChunkList) -> Vec<u32> {
        let mut out = Vec::new();
        let mut drain = Chunks::<u32>::drain(list);
        while let Some(range) = chunks.next_items(&mut drain) {
            out.extend(range.map(|i| chunks.get(i)));
        }
        out
    }

    #[test]
    fn lists_keep_push_order_and_reuse_chunks() {
        let mut chunks = Chunks::new();
        let mut lists = [ChunkList::EMPTY; 3];
        // Interleave pushes to three lists, 0..100 items each.
        for i in 0..100u32 {
            for (k, list) in lists.iter_mut().enumerate() {
                if i < 40 * k as u32 + 20 {
                    chunks.push(list, i * 10 + k as u32);
                }
            }
        }
        assert_eq!(lists.map(|l| l.len()), [20, 60, 100]);
        let in_use = chunks.chunk_count();
        assert_eq!(in_use, 1 + 2 + 4);
        for (k, list) in lists.iter_mut().enumerate() {
            let expected: Vec<u32> = (0..40 * k as u32 + 20).map(|i| i * 10 + k as u32).collect();
            assert_eq!(collect(&mut chunks, list), expected);
            assert_eq!(*list, ChunkList::EMPTY);
        }
        assert_eq!(chunks.free_count(), in_use);
        // Refilling reuses the freed chunks.
        for i in 0..(in_use * CHUNK) as u32 {
            chunks.push(&mut lists[0], i);
        }
        assert_eq!(chunks.chunk_count(), in_use);
        assert_eq!(chunks.free_count(), 0);
    }

    #[test]
    fn items_can_move_to_other_lists_while_draining() {
        let mut chunks = Chunks::new();
        let mut from = ChunkList::EMPTY;
        let mut to = ChunkList::EMPTY;
        for i in 0..100u32 {
            chunks.push(&mut from, i);
        }
        let mut drain = Chunks::<u32>::drain(&mut from);
        while let Some(range) = chunks.next_items(&mut drain) {
            for i in range {
                let item = chunks.get(i);
                chunks.push(&mut to, item);
            }
        }
        assert_eq!(collect(&mut chunks, &mut to), (0..100).collect::<Vec<_>>());
        // The move needed at most one chunk more than the list itself.
        assert!(chunks.chunk_count() <= 100 / CHUNK + 2);
    }
}
