//! New destinations for closed-loop senders (`arrivals = { closed_loop = true,
//! new_destination = true }`): each new flow of a sender goes to a destination drawn afresh
//! (docs/model.md 14.4), as in the XMP paper's random pattern and the closed-loop permutation
//! of the MPTCP datacenter paper, instead of to the sender's fixed partner.
//!
//! The destination is uniform among the class's hosts other than the sender, outside the
//! sender's rack with `exclude_rack_local`, and receiving fewer than `max_per_destination`
//! of the class's open flows when there is a limit. So a permutation's sender draws as a fresh
//! permutation would give it a partner (uniform over the other hosts), and a random matrix's
//! limits hold at every instant instead of only in the first draw.
//!
//! Each draw takes exactly one uniform number from the caller's stream, whatever the limits
//! exclude, so a sender's later draws do not shift when an earlier one met a different set of
//! open flows (a different transport): where no limit binds, the destinations are the same
//! whatever the transport.

use rand::Rng;

use crate::layout::HostLayout;
use crate::matrix::RandomLimits;

/// Draws the destination of each new flow of a closed-loop class (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct NewDestinations {
    /// The hosts a destination is drawn from (the class's hosts), in increasing order.
    hosts: Vec<usize>,
    /// The rack of every host of the network.
    layout: HostLayout,
    /// The limits: the most open flows a destination receives, and no rack-local flow.
    limits: RandomLimits,
}

impl NewDestinations {
    /// Destinations among `hosts` (host indices of `layout`, e.g. every host), under `limits`
    /// (`max_per_destination` counts the class's flows open at the time of the draw).
    pub fn new(mut hosts: Vec<usize>, layout: HostLayout, limits: RandomLimits) -> Self {
        hosts.sort_unstable();
        hosts.dedup();
        NewDestinations {
            hosts,
            layout,
            limits,
        }
    }

    /// Whether a new flow from `src` may go to `dst`, with `open[dst]` flows of the class open
    /// to `dst` now.
    fn allowed(&self, src: usize, dst: usize, open: &[u32]) -> bool {
        dst != src
            && !(self.limits.exclude_rack_local && self.layout.same_rack(src, dst))
            && self
                .limits
                .max_per_destination
                .is_none_or(|max| (open.get(dst).copied().unwrap_or(0) as usize) < max)
    }

    /// The destination of a new flow from `src`: uniform among the allowed hosts (the module
    /// doc), `open[h]` being the class's flows open to host `h` now (the ending flow no longer
    /// counted). One uniform number is drawn from `rng` per call. When no host is allowed
    /// (only possible if the open flows already break the limit), the flow goes to
    /// `previous`, the sender's last destination.
    pub fn draw<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        src: usize,
        open: &[u32],
        previous: usize,
    ) -> usize {
        let u: f64 = rng.random();
        let allowed = || {
            self.hosts
                .iter()
                .copied()
                .filter(|&h| self.allowed(src, h, open))
        };
        let count = allowed().count();
        // u < 1, so the index is below `count`; the `min` only guards the rounding of u x count.
        let index = ((u * count as f64) as usize).min(count.saturating_sub(1));
        allowed().nth(index).unwrap_or(previous)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// 2 pods of 2 racks of 4 hosts: racks 0-3, 4-7, 8-11, 12-15.
    fn layout() -> HostLayout {
        HostLayout::fat_tree(4, 2, 2).unwrap()
    }

    #[test]
    fn without_limits_the_destination_is_uniform_over_the_other_hosts() {
        let d = NewDestinations::new((0..16).collect(), layout(), RandomLimits::default());
        let mut rng = Pcg64::seed_from_u64(1);
        let open = vec![0u32; 16];
        let n = 150_000;
        let mut counts = [0u64; 16];
        for _ in 0..n {
            counts[d.draw(&mut rng, 5, &open, 0)] += 1;
        }
        assert_eq!(counts[5], 0, "never the sender itself");
        // 15 hosts, 10 000 expected each (sd 97): a chi-square with 14 degrees of freedom
        // stays below 36.1 with probability 0.999.
        let expected = n as f64 / 15.0;
        let chi2: f64 = counts
            .iter()
            .enumerate()
            .filter(|&(h, _)| h != 5)
            .map(|(_, &c)| (c as f64 - expected).powi(2) / expected)
            .sum();
        assert!(chi2 < 36.1, "chi-square {chi2}: {counts:?}");
    }

    #[test]
    fn limits_exclude_full_destinations_and_the_sender_s_rack() {
        let limits = RandomLimits {
            max_per_destination: Some(2),
            exclude_rack_local: true,
        };
        let d = NewDestinations::new((0..16).collect(), layout(), limits);
        // Hosts 8..12 hold 2 open flows each (full); host 12 holds 1.
        let mut open = vec![0u32; 16];
        open[8..12].fill(2);
        open[12] = 1;
        let mut rng = Pcg64::seed_from_u64(2);
        let n = 80_000;
        let mut counts = [0u64; 16];
        for _ in 0..n {
            counts[d.draw(&mut rng, 1, &open, 0)] += 1;
        }
        // Sender 1's rack is hosts 0-3; 8-11 are full: 4-7 and 12-15 remain, 10 000 each.
        for h in 0..16 {
            let ok = (4..8).contains(&h) || (12..16).contains(&h);
            if ok {
                assert!((9_500..10_500).contains(&counts[h]), "{h}: {counts:?}");
            } else {
                assert_eq!(counts[h], 0, "{h}: {counts:?}");
            }
        }
    }

    #[test]
    fn the_class_s_hosts_bound_the_draw_and_every_draw_takes_one_number() {
        let hosts = vec![3, 9, 12];
        let free = NewDestinations::new(hosts.clone(), layout(), RandomLimits::default());
        let limited = NewDestinations::new(
            hosts,
            layout(),
            RandomLimits {
                max_per_destination: Some(1),
                exclude_rack_local: false,
            },
        );
        let (mut a, mut b) = (Pcg64::seed_from_u64(3), Pcg64::seed_from_u64(3));
        let idle = vec![0u32; 16];
        let mut busy = idle.clone();
        busy[3] = 7;
        for _ in 0..1000 {
            let dst = free.draw(&mut a, 9, &idle, 3);
            assert!(dst == 3 || dst == 12, "{dst}");
            // Host 3 is full for `limited`: only 12 is left, and the draw still takes one number.
            assert_eq!(limited.draw(&mut b, 9, &busy, 3), 12);
        }
        assert_eq!(
            a.random::<u64>(),
            b.random::<u64>(),
            "the streams stay aligned"
        );
    }

    #[test]
    fn with_no_host_allowed_the_sender_keeps_its_destination() {
        let limits = RandomLimits {
            max_per_destination: Some(1),
            exclude_rack_local: false,
        };
        let d = NewDestinations::new((0..4).collect(), layout(), limits);
        let open = vec![1u32; 16];
        let mut rng = Pcg64::seed_from_u64(4);
        assert_eq!(d.draw(&mut rng, 0, &open, 2), 2);
    }
}
