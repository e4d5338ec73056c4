//! Slow growth for the rings that every flow keeps (retransmission queue, data-level ranges).
//!
//! A large run holds tens of thousands of them; grown by doubling, a ring would leave up to
//! half its capacity unused, so a full ring grows by about an eighth instead.

use std::collections::VecDeque;

/// Makes room for one more element in `ring`: a full ring grows by an eighth of its length
/// (at least 4 elements).
#[inline]
pub(crate) fn reserve_one<T>(ring: &mut VecDeque<T>) {
    if ring.len() == ring.capacity() {
        ring.reserve_exact((ring.len() / 8).max(4));
    }
}

#[cfg(test)]
mod tests {
    use super::reserve_one;
    use std::collections::VecDeque;

    #[test]
    fn a_ring_grows_by_an_eighth() {
        let mut q = VecDeque::new();
        for i in 0..2000u64 {
            reserve_one(&mut q);
            let cap = q.capacity();
            q.push_back(i);
            assert_eq!(q.capacity(), cap, "room was made before the push");
            assert!(
                cap <= q.len() + q.len() / 8 + 4,
                "{} elements in a capacity of {cap}",
                q.len()
            );
        }
        assert!(q.iter().copied().eq(0..2000));
    }
}
