//! Switch hops between hosts, for the `neighbours` traffic matrix: the fewest switches on a path
//! between two hosts that crosses only forwarding nodes (switches, and a BCube's hosts).
//!
//! [`switch_hops_from`] is the direct answer, a breadth-first search from one host. Searching
//! from every host takes quadratic time (a FatTree with k = 48 took 15 s), so [`HopPairs`]
//! counts and lists the pairs at a distance by groups of hosts that have the same answers:
//! - FatTree, DHFT and VL2 ([`HopRule::ByLocality`]): 1 switch within a rack, 3 within a pod, 5
//!   across pods, so racks are the groups;
//! - BCube ([`HopRule::Digits`]): hosts differing in `d` address digits are `d` hops apart;
//! - every other topology ([`HopRule::Searched`]): one search per [`Topology::path_classes`]
//!   class (hosts with the same neighbours have the same distances to every other host).

use crate::topology::{NodeId, NodeKind, Topology};
use htsim_core::ids::HostId;
use std::collections::{HashMap, VecDeque};

/// How a topology's switch hops are found (set by its builder).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HopRule {
    /// 1 hop within a rack, 3 within a pod, 5 across pods.
    ByLocality,
    /// BCube(n, k): the number of differing base-`n` digits of the two host indices.
    Digits {
        /// Switch port count.
        n: u32,
        /// Highest level (`k + 1` digits).
        k: u32,
    },
    /// A search per class of hosts.
    Searched,
}

/// Switch hops from host `src` to every node, by [`NodeId`] (`u32::MAX`: no path): a 0-1
/// breadth-first search in which entering a switch costs 1 and entering a host 0, through
/// forwarding nodes only.
pub fn switch_hops_from(topology: &Topology, src: HostId) -> Vec<u32> {
    let nodes = topology.nodes();
    let start = topology.hosts()[src.0 as usize].node.0 as usize;
    let mut dist = vec![u32::MAX; nodes.len()];
    let mut queue = VecDeque::from([start]);
    dist[start] = 0;
    while let Some(n) = queue.pop_front() {
        if n != start && !nodes[n].forwards {
            continue;
        }
        for link in topology.links_of_node(NodeId(n as u32)) {
            let next = link.to.0 as usize;
            let switch = nodes[next].kind == NodeKind::Switch;
            let d = dist[n] + u32::from(switch);
            if d < dist[next] {
                dist[next] = d;
                if switch {
                    queue.push_back(next);
                } else {
                    queue.push_front(next);
                }
            }
        }
    }
    dist
}

/// How many ordered pairs of hosts are at a distance, and the largest distance of any pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HopTally {
    /// Ordered pairs of distinct hosts exactly at the distance asked for.
    pub pairs: u64,
    /// The largest distance between two of the hosts (`None`: no two hosts reach each other).
    pub farthest: Option<u32>,
}

/// The ordered pairs of a list of distinct hosts that are a given number of switch hops apart.
pub struct HopPairs<'a> {
    topology: &'a Topology,
    hosts: &'a [u32],
    distance: u32,
}

impl<'a> HopPairs<'a> {
    /// The pairs of `hosts` (distinct host ids of `topology`) `distance` switch hops apart.
    pub fn new(topology: &'a Topology, hosts: &'a [u32], distance: u32) -> Self {
        HopPairs {
            topology,
            hosts,
            distance,
        }
    }

    /// Counts the pairs without listing them.
    pub fn tally(&self) -> HopTally {
        match self.topology.hop_rule() {
            HopRule::Digits { n, k } => Digits::new(n, k).tally(self.hosts, self.distance),
            _ => Classes::new(self.topology, self.hosts).tally(self.distance),
        }
    }

    /// Calls `pair` with each pair, as indices into `hosts` (source, destination), by source,
    /// then destination.
    pub fn for_each(&self, pair: impl FnMut(u32, u32)) {
        match self.topology.hop_rule() {
            HopRule::Digits { n, k } => Digits::new(n, k).for_each(self.hosts, self.distance, pair),
            _ => Classes::new(self.topology, self.hosts).for_each(self.distance, pair),
        }
    }
}

/// Hosts grouped by a class of equal distances, for [`HopRule::ByLocality`] (racks) and
/// [`HopRule::Searched`] (path classes).
struct Classes<'a> {
    topology: &'a Topology,
    hosts: &'a [u32],
    /// The class of each host of the topology.
    class_of: Vec<u32>,
    /// The first host of each class and a second one, if it has one.
    firsts: Vec<(u32, Option<u32>)>,
    /// The indices into `hosts` of each class's hosts, ascending.
    members: Vec<Vec<u32>>,
}

impl<'a> Classes<'a> {
    fn new(topology: &'a Topology, hosts: &'a [u32]) -> Self {
        let class_of: Vec<u32> = match topology.hop_rule() {
            HopRule::ByLocality => topology.hosts().iter().map(|h| h.rack).collect(),
            _ => topology.path_classes(),
        };
        let count = class_of.iter().max().map_or(0, |&c| c as usize + 1);
        let mut firsts: Vec<(u32, Option<u32>)> = vec![(u32::MAX, None); count];
        for (h, &c) in class_of.iter().enumerate() {
            let slot = &mut firsts[c as usize];
            if slot.0 == u32::MAX {
                slot.0 = h as u32;
            } else if slot.1.is_none() {
                slot.1 = Some(h as u32);
            }
        }
        let mut members = vec![Vec::new(); count];
        for (i, &h) in hosts.iter().enumerate() {
            members[class_of[h as usize] as usize].push(i as u32);
        }
        Classes {
            topology,
            hosts,
            class_of,
            firsts,
            members,
        }
    }

    /// Hops from a host of class `c` to a host of each class (another one in `c` itself);
    /// `u32::MAX` where there is none or no path.
    fn row(&self, c: u32) -> Vec<u32> {
        let t = self.topology;
        let host = |h: u32| t.hosts()[h as usize];
        match t.hop_rule() {
            HopRule::ByLocality => {
                let pod = host(self.firsts[c as usize].0).pod;
                (0..self.firsts.len() as u32)
                    .map(|other| match self.firsts[other as usize].0 {
                        _ if other == c => 1,
                        u32::MAX => u32::MAX,
                        f if host(f).pod == pod => 3,
                        _ => 5,
                    })
                    .collect()
            }
            _ => {
                let (first, second) = self.firsts[c as usize];
                let dist = switch_hops_from(t, HostId(first));
                let at = |h: u32| dist[host(h).node.0 as usize];
                self.firsts
                    .iter()
                    .enumerate()
                    .map(|(other, &(f, _))| match other as u32 == c {
                        true => second.map_or(u32::MAX, at),
                        false if f == u32::MAX => u32::MAX,
                        false => at(f),
                    })
                    .collect()
            }
        }
    }

    /// The classes with at least one of the hosts, in order of first appearance.
    fn present(&self) -> Vec<u32> {
        let mut seen = vec![false; self.members.len()];
        let mut out = Vec::new();
        for &h in self.hosts {
            let c = self.class_of[h as usize];
            if !std::mem::replace(&mut seen[c as usize], true) {
                out.push(c);
            }
        }
        out
    }

    fn tally(&self, distance: u32) -> HopTally {
        let present = self.present();
        let mut pairs = 0u64;
        let mut farthest = None;
        for &c in &present {
            let row = self.row(c);
            let sources = self.members[c as usize].len() as u64;
            for &other in &present {
                let mut targets = self.members[other as usize].len() as u64;
                if other == c {
                    targets -= 1;
                }
                let hops = row[other as usize];
                if targets == 0 || hops == u32::MAX {
                    continue;
                }
                farthest = farthest.max(Some(hops));
                if hops == distance {
                    pairs = pairs.saturating_add(sources.saturating_mul(targets));
                }
            }
        }
        HopTally { pairs, farthest }
    }

    fn for_each(&self, distance: u32, mut pair: impl FnMut(u32, u32)) {
        let present = self.present();
        // The classes at `distance` from each present class, one row (one search) per class
        // however the classes interleave in `hosts`: each entry stands for at least one pair,
        // so the lists are no larger than the pairs listed.
        let mut near: Vec<Vec<u32>> = vec![Vec::new(); self.members.len()];
        for &c in &present {
            let row = self.row(c);
            near[c as usize] = present
                .iter()
                .copied()
                .filter(|&other| row[other as usize] == distance)
                .collect();
        }
        let mut targets: Vec<u32> = Vec::new();
        let mut last = None;
        for (i, &h) in self.hosts.iter().enumerate() {
            let c = self.class_of[h as usize];
            if last != Some(c) {
                targets.clear();
                for &other in &near[c as usize] {
                    targets.extend(&self.members[other as usize]);
                }
                targets.sort_unstable();
                last = Some(c);
            }
            for &j in &targets {
                if j != i as u32 {
                    pair(i as u32, j);
                }
            }
        }
    }
}

/// BCube(n, k) addresses: `k + 1` base-`n` digits.
struct Digits {
    n: u32,
    levels: u32,
}

impl Digits {
    fn new(n: u32, k: u32) -> Self {
        Digits { n, levels: k + 1 }
    }

    fn digit(&self, h: u32, l: u32) -> u32 {
        h / self.n.pow(l) % self.n
    }

    fn apart(&self, a: u32, b: u32) -> u32 {
        (0..self.levels)
            .filter(|&l| self.digit(a, l) != self.digit(b, l))
            .count() as u32
    }

    /// For every set of levels (a bit mask), the ordered pairs of distinct hosts whose digits
    /// are equal exactly at those levels: the pairs equal at least there (hosts grouped by
    /// those digits) by inclusion and exclusion over the larger sets.
    fn equal_exactly(&self, hosts: &[u32]) -> Vec<u64> {
        let sets = 1usize << self.levels;
        let at_least: Vec<i128> = (0..sets)
            .map(|mask| {
                let mut groups: HashMap<u32, u64> = HashMap::new();
                for &h in hosts {
                    let key = (0..self.levels)
                        .filter(|l| mask & (1 << l) != 0)
                        .map(|l| self.digit(h, l) * self.n.pow(l))
                        .sum::<u32>();
                    *groups.entry(key).or_insert(0) += 1;
                }
                groups.values().map(|&g| i128::from(g * g)).sum::<i128>() - hosts.len() as i128
            })
            .collect();
        (0..sets)
            .map(|mask| {
                let exact: i128 = (mask..sets)
                    .filter(|&larger| larger & mask == mask)
                    .map(|larger| {
                        let extra = (larger ^ mask).count_ones();
                        if extra % 2 == 0 {
                            at_least[larger]
                        } else {
                            -at_least[larger]
                        }
                    })
                    .sum();
                exact as u64
            })
            .collect()
    }

    fn tally(&self, hosts: &[u32], distance: u32) -> HopTally {
        let mut pairs = 0;
        let mut farthest = None;
        for (mask, &count) in self.equal_exactly(hosts).iter().enumerate() {
            let hops = self.levels - (mask as u32).count_ones();
            if count > 0 {
                farthest = farthest.max(Some(hops));
                if hops == distance {
                    pairs += count;
                }
            }
        }
        HopTally { pairs, farthest }
    }

    /// The hosts whose digits differ from `h`'s at exactly `distance` levels, in any order.
    fn at_distance(&self, h: u32, distance: u32, out: &mut Vec<u32>) {
        for mask in 0u32..1 << self.levels {
            if mask.count_ones() != distance {
                continue;
            }
            let levels: Vec<u32> = (0..self.levels).filter(|l| mask & (1 << l) != 0).collect();
            // Each chosen level takes one of the n - 1 other digits: count through them.
            let others = (self.n - 1).pow(distance);
            for mut choice in 0..others {
                let mut x = h;
                for &l in &levels {
                    let step = choice % (self.n - 1) + 1;
                    choice /= self.n - 1;
                    let d = self.digit(h, l);
                    x = x - d * self.n.pow(l) + (d + step) % self.n * self.n.pow(l);
                }
                out.push(x);
            }
        }
    }

    fn for_each(&self, hosts: &[u32], distance: u32, mut pair: impl FnMut(u32, u32)) {
        if distance == 0 || distance > self.levels {
            return;
        }
        let total = self.n.pow(self.levels);
        let mut index = vec![u32::MAX; total as usize];
        for (i, &h) in hosts.iter().enumerate() {
            index[h as usize] = i as u32;
        }
        let choose = (0u32..1 << self.levels)
            .filter(|m| m.count_ones() == distance)
            .count() as u64;
        let candidates = choose * u64::from(self.n - 1).pow(distance);
        let mut near = Vec::new();
        for (i, &h) in hosts.iter().enumerate() {
            near.clear();
            if candidates < hosts.len() as u64 {
                self.at_distance(h, distance, &mut near);
                near.retain_mut(|x| {
                    *x = index[*x as usize];
                    *x != u32::MAX
                });
                near.sort_unstable();
            } else {
                near.extend(
                    (0..hosts.len() as u32)
                        .filter(|&j| self.apart(h, hosts[j as usize]) == distance),
                );
            }
            for &j in &near {
                pair(i as u32, j);
            }
        }
    }
}
