//! Which hosts or connections a flow class uses: a scenario's `senders` key
//! (`"33%"`, `12`, `"all"`, `"rest"`), and the long/short split of docs/model.md 9.3.
//!
//! Classes are resolved in file order; each takes hosts (or connections) out of what earlier
//! classes left, so `"rest"` means "what no earlier class uses".

use rand::seq::index;
use rand::Rng;

use crate::matrix::Connection;

/// How many senders (hosts or connections) a flow class uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Senders {
    /// A fraction (0..=1) of all of them, rounded down: `"33%"` is `Share(0.33)`.
    Share(f64),
    /// Exactly this many.
    Count(usize),
    /// All of them.
    All,
    /// All that no earlier class uses.
    Rest,
}

/// Why senders cannot be chosen.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SendersError {
    /// A share below 0%, above 100% or not a number.
    #[error("a senders share must be between 0% and 100% (0 and 1 as a fraction), got {share}")]
    ShareOutOfRange {
        /// The share given, as a fraction.
        share: f64,
    },
    /// More asked for than are still free.
    #[error("{wanted} {what} asked for, but only {available} of {total} are not used by an earlier class")]
    NotEnough {
        /// Hosts or connections wanted.
        wanted: usize,
        /// Hosts or connections still free.
        available: usize,
        /// Hosts or connections in all.
        total: usize,
        /// `"senders"` or `"connections"`.
        what: &'static str,
    },
    /// `Rest` when earlier classes left nothing.
    #[error("\"rest\" asked for, but earlier classes use all {total} {what}")]
    NoneLeft {
        /// Hosts or connections in all.
        total: usize,
        /// `"senders"` or `"connections"`.
        what: &'static str,
    },
}

impl Senders {
    /// How many to choose out of `total`, of which `available` are still free.
    ///
    /// `Share(f)` is `floor(total x f)`, where a product within 1e-9 (relative) of a whole number
    /// counts as that number, so that 29% of 100 is 29 despite binary rounding of 0.29. `All` is
    /// `total` and needs all of them free; `Rest` is `available` and needs at least one.
    pub fn count(&self, total: usize, available: usize) -> Result<usize, SendersError> {
        self.count_of(total, available, "senders")
    }

    /// [`Senders::count`], naming `what` is counted in errors.
    fn count_of(
        &self,
        total: usize,
        available: usize,
        what: &'static str,
    ) -> Result<usize, SendersError> {
        let wanted = match *self {
            Senders::Share(share) => {
                if !(0.0..=1.0).contains(&share) {
                    return Err(SendersError::ShareOutOfRange { share });
                }
                let exact = total as f64 * share;
                let nearest = exact.round();
                let count = if (exact - nearest).abs() <= 1e-9 * nearest.max(1.0) {
                    nearest
                } else {
                    exact.floor()
                };
                // 0 <= count <= total, so the cast is exact.
                count as usize
            }
            Senders::Count(n) => n,
            Senders::All => total,
            Senders::Rest => {
                if available == 0 {
                    return Err(SendersError::NoneLeft { total, what });
                }
                available
            }
        };
        if wanted > available {
            return Err(SendersError::NotEnough {
                wanted,
                available,
                total,
                what,
            });
        }
        Ok(wanted)
    }
}

/// Chooses the sending hosts of a class and removes them from `free`.
///
/// `total_hosts` is the number of hosts in the network (what a share is a share of); `free` lists
/// the hosts no earlier class uses. `Share` and `Count` take a uniform sample without
/// replacement from `free`; `All` takes every host and needs all of them free; `Rest` takes all
/// of `free`. The result is in increasing host order.
pub fn pick_senders<R: Rng + ?Sized>(
    rng: &mut R,
    senders: &Senders,
    total_hosts: usize,
    free: &mut Vec<usize>,
) -> Result<Vec<usize>, SendersError> {
    let mut chosen = take(rng, senders, total_hosts, free, "senders")?;
    chosen.sort_unstable();
    Ok(chosen)
}

/// Chooses a class's connections from a traffic matrix and removes them from `pool`
/// (docs/model.md 9.3: the long flows are `floor(|CM| x share)` connections chosen uniformly
/// without replacement; what stays in the pool is the short-flow pool).
///
/// `matrix_len` is |CM|, the size of the whole matrix (what a share is a share of); `pool` holds
/// the connections no earlier class uses. Both the result and the pool keep the matrix order.
pub fn split_connections<R: Rng + ?Sized>(
    rng: &mut R,
    senders: &Senders,
    matrix_len: usize,
    pool: &mut Vec<Connection>,
) -> Result<Vec<Connection>, SendersError> {
    take(rng, senders, matrix_len, pool, "connections")
}

/// Removes the chosen items from `pool` and returns them; both keep their relative order.
///
/// Memory, for a pool of n items of s bytes (docs/model.md 9.3 splits matrices of millions of
/// connections): the sample's indices (4 B each, and `index::sample` may hold up to n of them)
/// are turned into one bit per item and dropped before anything else is allocated; then the
/// smaller of the two parts is copied out (at most n/2 items) and the larger one compacted
/// within the pool's own storage, so the peak above the pool is about max(4 n, s n / 2) + n / 8
/// bytes. Taking every item returns the pool's storage without a copy.
fn take<R: Rng + ?Sized, T: Copy>(
    rng: &mut R,
    senders: &Senders,
    total: usize,
    pool: &mut Vec<T>,
    what: &'static str,
) -> Result<Vec<T>, SendersError> {
    let count = senders.count_of(total, pool.len(), what)?;
    let len = pool.len();
    let mut picked = vec![0u64; len.div_ceil(64)];
    for k in index::sample(rng, len, count) {
        picked[k / 64] |= 1 << (k % 64);
    }
    if count == len {
        return Ok(std::mem::take(pool));
    }
    let is_picked = |i: usize| (picked[i / 64] >> (i % 64)) & 1 == 1;
    // The items of one part are moved to the front of the pool, in order; the other part's
    // are copied out.
    let compact_chosen = count > len - count;
    let mut other = Vec::with_capacity(if compact_chosen { len - count } else { count });
    let mut front = 0;
    for i in 0..len {
        let item = pool[i];
        if is_picked(i) == compact_chosen {
            pool[front] = item;
            front += 1;
        } else {
            other.push(item);
        }
    }
    pool.truncate(front);
    pool.shrink_to_fit();
    if compact_chosen {
        Ok(std::mem::replace(pool, other))
    } else {
        Ok(other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::permutation;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn counts() {
        assert_eq!(Senders::Share(0.33).count(512, 512), Ok(168));
        assert_eq!(Senders::Share(0.29).count(100, 100), Ok(29));
        assert_eq!(Senders::Share(0.53).count(256, 256), Ok(135));
        assert_eq!(Senders::Share(1.0).count(128, 128), Ok(128));
        assert_eq!(Senders::Share(0.0).count(128, 128), Ok(0));
        assert_eq!(Senders::Count(12).count(128, 20), Ok(12));
        assert_eq!(Senders::All.count(128, 128), Ok(128));
        assert_eq!(Senders::Rest.count(128, 40), Ok(40));
    }

    #[test]
    fn count_errors() {
        assert!(matches!(
            Senders::Share(1.01).count(10, 10),
            Err(SendersError::ShareOutOfRange { .. })
        ));
        assert!(matches!(
            Senders::Share(f64::NAN).count(10, 10),
            Err(SendersError::ShareOutOfRange { .. })
        ));
        let err = Senders::Count(30).count(128, 20).unwrap_err();
        assert_eq!(
            err.to_string(),
            "30 senders asked for, but only 20 of 128 are not used by an earlier class"
        );
        assert!(matches!(
            Senders::All.count(128, 127),
            Err(SendersError::NotEnough { .. })
        ));
        assert_eq!(
            Senders::Rest.count(128, 0),
            Err(SendersError::NoneLeft {
                total: 128,
                what: "senders"
            })
        );
        // A share of the total that exceeds what earlier classes left.
        assert!(matches!(
            Senders::Share(0.5).count(100, 40),
            Err(SendersError::NotEnough { wanted: 50, .. })
        ));
    }

    #[test]
    fn classes_take_disjoint_hosts() {
        let mut rng = Pcg64::seed_from_u64(4);
        let mut free: Vec<usize> = (0..512).collect();
        let long = pick_senders(&mut rng, &Senders::Share(0.33), 512, &mut free).unwrap();
        let short = pick_senders(&mut rng, &Senders::Rest, 512, &mut free).unwrap();
        assert_eq!(long.len(), 168);
        assert_eq!(short.len(), 344);
        assert!(free.is_empty());
        let mut all: Vec<usize> = long.iter().chain(&short).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..512).collect::<Vec<_>>());
        assert!(long.windows(2).all(|w| w[0] < w[1]));
        assert!(matches!(
            pick_senders(&mut rng, &Senders::Rest, 512, &mut free),
            Err(SendersError::NoneLeft { .. })
        ));
    }

    #[test]
    fn sampling_is_uniform() {
        // Each of 100 hosts is chosen with probability 0.1; over 2000 draws expect 200 each.
        let mut rng = Pcg64::seed_from_u64(8);
        let mut hits = [0u32; 100];
        for _ in 0..2000 {
            let mut free: Vec<usize> = (0..100).collect();
            for h in pick_senders(&mut rng, &Senders::Count(10), 100, &mut free).unwrap() {
                hits[h] += 1;
            }
        }
        // Binomial(2000, 0.1): sd 13.4; 200 +- 60 is beyond 4 sd.
        assert!(hits.iter().all(|&h| (140..260).contains(&h)), "{hits:?}");
    }

    /// The split as it was made before it was done in place: the same draws, both parts in
    /// order.
    fn take_by_copying(rng: &mut Pcg64, count: usize, pool: &mut Vec<u32>) -> Vec<u32> {
        let mut picked = vec![false; pool.len()];
        for k in index::sample(rng, pool.len(), count) {
            picked[k] = true;
        }
        let mut chosen = Vec::new();
        let mut kept = Vec::new();
        for (item, picked) in pool.iter().zip(picked) {
            if picked {
                chosen.push(*item);
            } else {
                kept.push(*item);
            }
        }
        *pool = kept;
        chosen
    }

    #[test]
    fn the_in_place_split_takes_what_a_copying_split_took() {
        for len in [0usize, 1, 2, 7, 64, 65, 1000, 5000] {
            for count in [
                0,
                1,
                len / 3,
                len / 2,
                len.div_ceil(2),
                2 * len / 3,
                len.saturating_sub(1),
                len,
            ] {
                let count = count.min(len);
                let mut a = Pcg64::seed_from_u64(len as u64 * 31 + count as u64);
                let mut b = a.clone();
                let mut pool: Vec<u32> = (0..len as u32).map(|x| x * 7 + 3).collect();
                let mut reference = pool.clone();
                let taken = take(&mut a, &Senders::Count(count), len, &mut pool, "x").unwrap();
                let expected = take_by_copying(&mut b, count, &mut reference);
                assert_eq!(taken, expected, "len {len} count {count}");
                assert_eq!(pool, reference, "len {len} count {count}");
                assert_eq!(pool.capacity(), pool.len(), "len {len} count {count}");
                // The streams are left in the same state.
                assert_eq!(a.random::<u64>(), b.random::<u64>());
            }
        }
    }

    #[test]
    fn long_short_split_of_a_permutation() {
        let mut rng = Pcg64::seed_from_u64(6);
        let matrix = permutation(&mut rng, 512).unwrap();
        let mut pool = matrix.clone();
        let long =
            split_connections(&mut rng, &Senders::Share(0.33), matrix.len(), &mut pool).unwrap();
        assert_eq!(long.len(), 168);
        assert_eq!(pool.len(), 344);
        // A host sends either long or short flows, never both, and receives only one kind.
        let long_src: Vec<usize> = long.iter().map(|c| c.src).collect();
        let long_dst: Vec<usize> = long.iter().map(|c| c.dst).collect();
        assert!(pool
            .iter()
            .all(|c| !long_src.contains(&c.src) && !long_dst.contains(&c.dst)));
        // Both parts keep the matrix order.
        assert!(long.windows(2).all(|w| w[0].src < w[1].src));
        assert!(pool.windows(2).all(|w| w[0].src < w[1].src));
        let err = split_connections(&mut rng, &Senders::All, matrix.len(), &mut pool).unwrap_err();
        assert!(err.to_string().contains("connections"), "{err}");
    }
}
