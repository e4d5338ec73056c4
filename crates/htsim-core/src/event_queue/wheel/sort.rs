//! Sorting one bucket of events by time, stably.
//!
//! A bucket arrives in scheduling order and holds about
//! [`EVENTS_PER_BUCKET`](super::EVENTS_PER_BUCKET) events. How disordered it is depends on the
//! workload: the engine's buckets are nearly sorted (events are mostly scheduled in time
//! order), the hold benchmark's are random permutations. An insertion sort is cheapest on the
//! former, but on the latter every insertion ends its inner loop at an unpredictable point:
//! about one mispredicted branch per event, which was 30% of the wheel's time at 1e5 pending.
//! So a bucket with few descents (adjacent pairs out of order) is insertion-sorted, and a
//! disordered one of up to 16 events goes through a branch-free sorting network instead.

use super::Entry;

/// Largest bucket sorted by the network.
const NETWORK_MAX: usize = 16;

/// Sorts `events` (all in the bucket of width `2^shift` ps that starts at `base` ps, in
/// scheduling order) by time, keeping scheduling order among equal times. `scratch` is
/// working storage.
#[inline(always)]
pub(super) fn sort_bucket<E: Copy>(
    events: &mut Vec<Entry<E>>,
    scratch: &mut Vec<Entry<E>>,
    base: u64,
    shift: u32,
) {
    let n = events.len();
    // Counted without branching on each pair.
    let descents: usize = events
        .windows(2)
        .map(|w| usize::from(w[1].time < w[0].time))
        .sum();
    if descents == 0 {
        return;
    }
    // Keys hold the offset in the bucket (< 2^shift) above a 6-bit position.
    let keys_fit = shift <= 64 - 6;
    if n <= NETWORK_MAX && keys_fit && 3 * descents >= n {
        sort_by_network(events, scratch, base);
    } else {
        // Stable; linear on nearly sorted input.
        events.sort_by_key(|e| e.time);
    }
}

/// Sorts up to 16 events with a sorting network on keys `(time - base) << 6 | position`. The
/// keys are distinct, so sorting them is stable by construction, and the network's
/// compare-exchanges compile to conditional moves: no branch depends on the data.
fn sort_by_network<E: Copy>(events: &mut Vec<Entry<E>>, scratch: &mut Vec<Entry<E>>, base: u64) {
    let n = events.len();
    debug_assert!(n <= NETWORK_MAX);
    // Padding keys sort last.
    let mut keys = [u64::MAX; NETWORK_MAX];
    for (position, (key, e)) in keys.iter_mut().zip(events.iter()).enumerate() {
        debug_assert!(e.time >= base && (e.time - base) >> (64 - 6) == 0);
        *key = ((e.time - base) << 6) | position as u64;
    }
    if n <= 4 {
        network::<4>(&mut keys);
    } else if n <= 8 {
        network::<8>(&mut keys);
    } else {
        network::<16>(&mut keys);
    }
    scratch.clear();
    scratch.extend(keys[..n].iter().map(|&key| events[(key & 63) as usize]));
    std::mem::swap(events, scratch);
}

/// Compare-exchange: afterwards `keys[i] <= keys[j]`.
#[inline(always)]
fn cx(keys: &mut [u64; NETWORK_MAX], i: usize, j: usize) {
    let (a, b) = (keys[i], keys[j]);
    keys[i] = a.min(b);
    keys[j] = a.max(b);
}

/// Batcher's odd-even merge sort of `keys[..N]`, N = 4, 8 or 16 (5, 19 and 63
/// compare-exchanges). Written out so that every index is a constant.
#[inline(always)]
#[rustfmt::skip]
fn network<const N: usize>(k: &mut [u64; NETWORK_MAX]) {
    // Sort 0..4.
    cx(k, 0, 1); cx(k, 2, 3); cx(k, 0, 2); cx(k, 1, 3); cx(k, 1, 2);
    if N == 4 {
        return;
    }
    // Sort 4..8, merge with 0..4.
    cx(k, 4, 5); cx(k, 6, 7); cx(k, 4, 6); cx(k, 5, 7); cx(k, 5, 6);
    cx(k, 0, 4); cx(k, 2, 6); cx(k, 2, 4); cx(k, 1, 5); cx(k, 3, 7); cx(k, 3, 5);
    cx(k, 1, 2); cx(k, 3, 4); cx(k, 5, 6);
    if N == 8 {
        return;
    }
    // Sort 8..16 likewise, merge with 0..8.
    cx(k, 8, 9); cx(k, 10, 11); cx(k, 8, 10); cx(k, 9, 11); cx(k, 9, 10);
    cx(k, 12, 13); cx(k, 14, 15); cx(k, 12, 14); cx(k, 13, 15); cx(k, 13, 14);
    cx(k, 8, 12); cx(k, 10, 14); cx(k, 10, 12); cx(k, 9, 13); cx(k, 11, 15); cx(k, 11, 13);
    cx(k, 9, 10); cx(k, 11, 12); cx(k, 13, 14);
    cx(k, 0, 8); cx(k, 4, 12); cx(k, 4, 8); cx(k, 2, 10); cx(k, 6, 14); cx(k, 6, 10);
    cx(k, 2, 4); cx(k, 6, 8); cx(k, 10, 12); cx(k, 1, 9); cx(k, 5, 13); cx(k, 5, 9);
    cx(k, 3, 11); cx(k, 7, 15); cx(k, 7, 11); cx(k, 3, 5); cx(k, 7, 9); cx(k, 11, 13);
    cx(k, 1, 2); cx(k, 3, 4); cx(k, 5, 6); cx(k, 7, 8); cx(k, 9, 10); cx(k, 11, 12);
    cx(k, 13, 14);
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn the_networks_sort_every_zero_one_input() {
        // The 0-1 principle: a network that sorts every 0/1 sequence sorts everything.
        for n in [4usize, 8, 16] {
            for bits in 0u32..1 << n {
                let mut keys = [u64::MAX; NETWORK_MAX];
                for (i, key) in keys.iter_mut().take(n).enumerate() {
                    *key = u64::from(bits >> i & 1);
                }
                match n {
                    4 => network::<4>(&mut keys),
                    8 => network::<8>(&mut keys),
                    _ => network::<16>(&mut keys),
                }
                assert!(
                    keys[..n].windows(2).all(|w| w[0] <= w[1]),
                    "n {n} bits {bits:b}"
                );
            }
        }
    }

    #[test]
    fn buckets_sort_stably_like_the_standard_sort() {
        let mut rng = Lcg(11);
        let mut scratch = Vec::new();
        for round in 0..20_000u32 {
            let n = rng.below(40) as usize;
            let shift: u32 = [0, 3, 10, 20, 58, 63][round as usize % 6];
            let base = (rng.below(1 << 20) << shift) >> shift << shift;
            // Few distinct offsets, so that ties are common; some nearly sorted buckets.
            let spread = 1 + rng.below(8);
            let mut events: Vec<Entry<u32>> = (0..n as u32)
                .map(|id| Entry {
                    time: base
                        + (rng.below(spread) << shift.saturating_sub(3)).min(!(!0u64 << shift)),
                    event: id,
                })
                .collect();
            if round % 3 == 0 {
                events.sort_by_key(|e| e.time);
                if n > 1 {
                    let i = rng.below(n as u64 - 1) as usize;
                    events.swap(i, i + 1);
                }
            }
            let mut expected = events.clone();
            expected.sort_by_key(|e| e.time);
            sort_bucket(&mut events, &mut scratch, base, shift);
            let key = |e: &Entry<u32>| (e.time, e.event);
            assert_eq!(
                events.iter().map(key).collect::<Vec<_>>(),
                expected.iter().map(key).collect::<Vec<_>>(),
                "round {round}"
            );
        }
    }
}
