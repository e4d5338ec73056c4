//! BCube(n, k) (\[P2\], docs/model.md 16.1): servers with `k + 1` NICs that relay, and the
//! `k + 1` parallel paths of BCube's source routing that MPTCP uses in \[P2\].
//!
//! - `n^(k+1)` hosts `host<i>`; host `i` has address digits `a_l = (i / n^l) mod n`,
//!   `l = 0..=k`.
//! - `k + 1` levels of `n^k` switches with `n` ports, `sw<l>.<s>`, layer `level<l>`. Switch `s`
//!   of level `l` connects the `n` hosts whose addresses differ only in digit `l`
//!   (`s` = the address without digit `l`).
//! - Hosts forward (the relay function of a BCube server): a host's egress link towards its
//!   level-`l` switch (layer `host`) carries its own packets and those it relays.
//! - Cable layers `level<l>` (host–switch cables of level `l`).
//! - Counts: `n^(k+1)` hosts, `(k+1)·n^k` switches, `2·(k+1)·n^(k+1)` directed links.
//! - Racks: a host's rack is its level-0 switch, and each rack is its own pod, so hosts are
//!   `SameTor` when they share a level-0 switch and `OtherPod` otherwise.
//!
//! Paths (BCube's BuildPathSet): between distinct hosts there are always `k + 1` paths, and
//! path `i` leaves the source on its level-`i` NIC. If the hosts differ in digit `i`, path `i`
//! corrects the differing digits in the level order `i, i-1, …, 0, k, …, i+1`; otherwise it
//! first moves to the neighbour whose digit `i` is `(a_i + 1) mod n`, then corrects digits in
//! the order `i-1, …, 0, k, …, i`. Each correction is two links (host → switch → host). These
//! `k + 1` paths share no link. Path `i` has `2h` links when the hosts differ in digit `i`
//! (`h` = the number of differing digits) and `2h + 4` otherwise.
//!
//! Shortest paths only (routing modes `shortest` and `first`): the paths of the levels where
//! the hosts differ, highest level first (the order of htsim's list, whose single-path TCP
//! takes the first of them), so a pair `h` digits apart has `h` paths of `2h` links and
//! neighbours (one digit apart) the direct link through their shared switch.

use crate::assemble::{ensure_size, invalid, Assembler};
use crate::cabling::{Cabling, QueueFactory};
use crate::error::{Result, TopologyError};
use crate::hops::HopRule;
use crate::paths::Paths;
use crate::topology::{NodeId, Topology};
use htsim_core::ids::{HostId, LinkId};
use htsim_core::routing::PathSource;
use htsim_core::world::World;
use std::collections::HashMap;

/// Parameters of BCube(n, k).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BCube {
    /// Switch port count (hosts per level-0 switch); at least 2.
    pub n: u32,
    /// Highest level; hosts have `k + 1` NICs.
    pub k: u32,
}

const KIND: &str = "bcube";

impl BCube {
    /// Number of hosts, `n^(k+1)`, or `None` if it overflows.
    pub fn host_count(&self) -> Option<u64> {
        u64::from(self.n).checked_pow(self.k.checked_add(1)?)
    }

    /// The cable layer names `level0..=level<k>`.
    pub fn cable_layers(&self) -> Vec<String> {
        (0..=self.k).map(|l| format!("level{l}")).collect()
    }

    /// Builds BCube(n, k) into `world` and installs its parallel paths.
    pub fn build(
        &self,
        world: &mut World,
        cabling: &Cabling,
        queues: &mut QueueFactory<'_>,
    ) -> Result<Topology> {
        if self.n < 2 {
            return Err(invalid(
                KIND,
                format!("n must be at least 2, got {}", self.n),
            ));
        }
        let too_large = TopologyError::TooLarge {
            topology: KIND,
            what: "hosts",
            limit: u64::from(u32::MAX),
        };
        let hosts = self.host_count().ok_or(too_large.clone())?;
        let links = hosts
            .checked_mul(2 * (u64::from(self.k) + 1))
            .ok_or(too_large)?;
        ensure_size(world, KIND, hosts, links)?;
        let hosts = hosts as u32;
        let (n, k) = (self.n, self.k);
        let per_level = hosts / n;
        let names = self.cable_layers();
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut a = Assembler::new(KIND, &name_refs, world, cabling, queues)?;
        a.reserve(
            hosts as usize + ((k + 1) * per_level) as usize,
            links as usize,
        );
        for h in 0..hosts {
            a.host(h / n, h / n, true);
        }
        let mut first = None;
        let mut pow = 1u32; // n^l
        for (l, name) in names.iter().enumerate() {
            let layer = a.layer(name);
            let base = a.nodes_len();
            for s in 0..per_level {
                a.switch(format!("sw{l}.{s}"), layer);
            }
            for h in 0..hosts {
                let s = h / (pow * n) * pow + h % pow;
                let [up, _] = a.cable(NodeId(h), NodeId(base + s), layer);
                first.get_or_insert(up);
            }
            pow = pow.saturating_mul(n);
        }
        let first = first.map_or(0, |l| l.0);
        let paths = BCubePaths {
            n,
            k,
            hosts,
            first,
            shortest_only: false,
        };
        a.set_hop_rule(HopRule::Digits { n, k });
        Ok(a.finish(per_level, per_level, Some(Paths::BCube(paths))))
    }
}

/// BCube's parallel paths from the link-id layout of [`BCube::build`]: the cable of host `h`
/// at level `l` is links `first + 2(l·N + h)` (up) and the next one (down).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BCubePaths {
    n: u32,
    k: u32,
    hosts: u32,
    first: u32,
    /// Offer only the minimum-hop paths (module doc).
    pub(crate) shortest_only: bool,
}

impl BCubePaths {
    fn digit(&self, h: u32, l: u32) -> u32 {
        h / self.n.pow(l) % self.n
    }

    /// Appends the two links from `h` to the host whose digit `l` is `v`; returns that host.
    fn hop(&self, h: u32, l: u32, v: u32, out: &mut Vec<LinkId>) -> u32 {
        let next = h - self.digit(h, l) * self.n.pow(l) + v * self.n.pow(l);
        out.push(LinkId(self.first + 2 * (l * self.hosts + h)));
        out.push(LinkId(self.first + 2 * (l * self.hosts + next) + 1));
        next
    }

    /// The levels whose digits differ between hosts `s` and `d`, highest first (the order of
    /// htsim's BCube path list, from level k down).
    fn differing_levels(&self, s: u32, d: u32) -> impl Iterator<Item = u32> + '_ {
        (0..=self.k)
            .rev()
            .filter(move |&l| self.digit(s, l) != self.digit(d, l))
    }

    /// Corrects the digits of `h` towards `d` in the level order `start, start-1, …, 0, k, …,
    /// start+1`.
    fn correct(&self, mut h: u32, d: u32, start: u32, out: &mut Vec<LinkId>) {
        let levels = self.k + 1;
        for step in 0..levels {
            let l = (start + levels - step) % levels;
            let want = self.digit(d, l);
            if self.digit(h, l) != want {
                h = self.hop(h, l, want, out);
            }
        }
    }
}

impl BCubePaths {
    /// With shortest paths only: of each distinct (locality, path count) that an ordered pair
    /// of distinct hosts of `hosts` has (two hosts of one rack only if `rack_local`), the first
    /// such pair (source, destination) in the order destination by destination through
    /// `hosts`, then source by source; in that order.
    ///
    /// A pair's path count is the number of digits its hosts differ in, and it shares a rack
    /// when they differ in digit 0 alone, so the pairs of a destination `d` that agree with it
    /// exactly at a set of levels are counted from the hosts agreeing with it at least there
    /// (hosts grouped by those digits), by inclusion and exclusion over the larger sets: a
    /// pass over `hosts` per set of levels and per destination, not per pair.
    pub(crate) fn first_pair_per_reach(&self, hosts: &[u32], rack_local: bool) -> Vec<(u32, u32)> {
        let levels = self.k + 1;
        let sets = 1usize << levels;
        let same_rack = (sets - 1) & !1;
        let key = |h: u32, mask: usize| -> u32 {
            (0..levels)
                .filter(|l| mask & (1 << l) != 0)
                .map(|l| self.digit(h, l) * self.n.pow(l))
                .sum()
        };
        let groups: Vec<HashMap<u32, i64>> = (0..sets)
            .map(|mask| {
                let mut g = HashMap::new();
                for &h in hosts {
                    *g.entry(key(h, mask)).or_insert(0) += 1;
                }
                g
            })
            .collect();
        // A reach by the levels a pair agrees at: 0 for one rack, else 1 + its path count.
        let reach = |agree: usize| -> usize {
            if agree == same_rack {
                0
            } else {
                1 + levels as usize - agree.count_ones() as usize
            }
        };
        let agreement = |s: u32, d: u32| -> usize {
            (0..levels)
                .filter(|&l| self.digit(s, l) == self.digit(d, l))
                .fold(0, |m, l| m | 1 << l)
        };
        let mut first_destination: Vec<Option<usize>> = vec![None; levels as usize + 2];
        for (j, &d) in hosts.iter().enumerate() {
            let at_least: Vec<i64> = (0..sets).map(|b| groups[b][&key(d, b)] - 1).collect();
            for agree in 0..sets - 1 {
                let exact: i64 = (agree..sets)
                    .filter(|&b| b & agree == agree)
                    .map(|b| match (b ^ agree).count_ones() % 2 {
                        0 => at_least[b],
                        _ => -at_least[b],
                    })
                    .sum();
                let r = reach(agree);
                if exact > 0 && (rack_local || r != 0) && first_destination[r].is_none() {
                    first_destination[r] = Some(j);
                }
            }
        }
        let mut out: Vec<(usize, usize)> = first_destination
            .iter()
            .enumerate()
            .filter_map(|(r, &j)| {
                let j = j?;
                let d = hosts[j];
                let i = hosts
                    .iter()
                    .position(|&s| s != d && reach(agreement(s, d)) == r)?;
                Some((j, i))
            })
            .collect();
        out.sort_unstable();
        out.into_iter().map(|(j, i)| (hosts[i], hosts[j])).collect()
    }
}

impl PathSource for BCubePaths {
    fn path_count(&self, src: HostId, dst: HostId) -> u32 {
        if src == dst || src.0 >= self.hosts || dst.0 >= self.hosts {
            0
        } else if self.shortest_only {
            self.differing_levels(src.0, dst.0).count() as u32
        } else {
            self.k + 1
        }
    }

    fn path(&self, src: HostId, dst: HostId, index: u32, out: &mut Vec<LinkId>) {
        if index >= self.path_count(src, dst) {
            return;
        }
        let (s, d) = (src.0, dst.0);
        let i = if self.shortest_only {
            // In range: index < the number of differing levels.
            self.differing_levels(s, d)
                .nth(index as usize)
                .unwrap_or(index)
        } else {
            index
        };
        if self.digit(s, i) != self.digit(d, i) {
            self.correct(s, d, i, out);
        } else {
            let c = self.hop(s, i, (self.digit(s, i) + 1) % self.n, out);
            let levels = self.k + 1;
            self.correct(c, d, (i + levels - 1) % levels, out);
        }
    }
}
