//! A pool of fixed-size blocks of values, for lists that grow at one end and shrink at the
//! other: the links' wires ([`crate::wires`]) and the event wheel's upper levels.
//!
//! Many lists share one pool: a list is a chain of blocks (each block knows the next one of its
//! list), and a block a list no longer needs goes back to the pool's free list for any list to
//! take. So the pool's memory follows the most values held at once across all lists, not the
//! sum of each list's own peak, and once that peak is reached taking and returning blocks
//! allocates nothing. What a list keeps of its ends, and how it walks its blocks, is up to it.

/// The block number meaning "none".
pub(crate) const NO_BLOCK: u32 = u32::MAX;

/// `N`-slot blocks of `T`. Block `b` holds the slots `b * N .. (b + 1) * N`; a slot outside
/// every list holds a stale value.
#[derive(Clone, Debug)]
pub(crate) struct Blocks<T, const N: usize> {
    slots: Vec<T>,
    /// Per block, the next block of its list (meaningless for a list's last block).
    next: Vec<u32>,
    /// Blocks in no list.
    free: Vec<u32>,
}

impl<T: Copy, const N: usize> Blocks<T, N> {
    /// An empty pool.
    pub(crate) const fn new() -> Self {
        Blocks {
            slots: Vec::new(),
            next: Vec::new(),
            free: Vec::new(),
        }
    }

    /// A block from the free list, or a new one (its slots filled with copies of `filler()`,
    /// called only then).
    #[inline(always)]
    pub(crate) fn take(&mut self, filler: impl FnOnce() -> T) -> u32 {
        match self.free.pop() {
            Some(block) => block,
            None => self.grow(filler()),
        }
    }

    /// Returns `block` to the free list.
    #[inline(always)]
    pub(crate) fn give_back(&mut self, block: u32) {
        self.free.push(block);
    }

    /// The block after `block` in its list.
    #[inline(always)]
    pub(crate) fn next(&self, block: u32) -> u32 {
        self.next[block as usize]
    }

    /// Makes `next` the block after `block` in its list.
    #[inline(always)]
    pub(crate) fn link(&mut self, block: u32, next: u32) {
        self.next[block as usize] = next;
    }

    /// The value in slot `i`.
    #[inline(always)]
    pub(crate) fn slot(&self, i: usize) -> &T {
        &self.slots[i]
    }

    /// The value in slot `i`, mutably.
    #[inline(always)]
    pub(crate) fn slot_mut(&mut self, i: usize) -> &mut T {
        &mut self.slots[i]
    }

    /// Where slot `i` is, or would be: an address for a prefetch hint, never read through.
    #[inline(always)]
    pub(crate) fn slot_address(&self, i: usize) -> *const T {
        self.slots.as_ptr().wrapping_add(i)
    }

    /// Blocks in the pool, in lists or free (its memory is `N` slots each).
    #[cfg(test)]
    pub(crate) fn block_count(&self) -> usize {
        self.next.len()
    }

    /// Blocks in no list.
    #[cfg(test)]
    pub(crate) fn free_count(&self) -> usize {
        self.free.len()
    }

    /// Adds a block to the pool. Slot numbers stay below 2^32.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, filler: T) -> u32 {
        let block = u32::try_from(self.next.len())
            .ok()
            .filter(|&b| (b as usize) < NO_BLOCK as usize / N)
            .expect("fewer than 2^32 slots in a block pool");
        self.next.push(NO_BLOCK);
        self.slots.resize(self.slots.len() + N, filler);
        block
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_given_back_are_taken_again_before_the_pool_grows() {
        let mut pool = Blocks::<u32, 4>::new();
        let (a, b) = (pool.take(|| 0), pool.take(|| 0));
        assert_eq!((a, b, pool.block_count()), (0, 1, 2));
        pool.link(a, b);
        *pool.slot_mut(4 * b as usize + 3) = 7;
        assert_eq!((pool.next(a), *pool.slot(7)), (b, 7));
        pool.give_back(a);
        assert_eq!(pool.free_count(), 1);
        assert_eq!(pool.take(|| unreachable!("a free block is taken")), a);
        assert_eq!(pool.take(|| 9), 2);
        assert_eq!((pool.block_count(), pool.free_count()), (3, 0));
        assert_eq!(*pool.slot(8), 9, "a new block's slots hold the filler");
    }
}
