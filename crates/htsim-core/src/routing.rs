//! Source routing: interned routes, equal-cost path sets, and path choice (ECMP, spray, single).
//!
//! A route is a shared slice of links stored once in a [`RouteTable`]; packets carry its
//! [`RouteId`] and a hop index (htsim's source routing, docs/model.md 15.7). The topology supplies,
//! per host pair, the equal-cost shortest paths through a [`PathSource`]; the table asks for a
//! path only the first time a connection uses it, so the path sets of all host pairs are never
//! materialised (a k=32 FatTree has 8192 hosts and up to 256 paths per pair).
//!
//! Path choice follows docs/model.md 3: with [`RoutingMode::Ecmp`] the path index is a well-mixed
//! 64-bit hash of (source host, destination host, source port, destination port, protocol) and a
//! per-run salt, modulo the number of paths, so every packet of a 4-tuple follows one path and a
//! new source port gives an independent, uniformly random path; the two directions hash
//! independently. [`RoutingMode::Spray`] draws a uniformly random path per packet (switch-level
//! spraying, \[P4\], docs/model.md 16.2); [`RoutingMode::Single`] keeps one fixed path per host pair
//! whatever the ports, and [`RoutingMode::First`] the pair's first path.

use crate::ids::{HostId, LinkId, PathSetId, RouteId};
use std::collections::HashMap;

/// Supplies equal-cost paths between hosts. Implemented by topologies.
pub trait PathSource: Send {
    /// Number of equal-cost shortest paths from `src` to `dst` (at least 1 for `src != dst`).
    fn path_count(&self, src: HostId, dst: HostId) -> u32;
    /// Appends to `out` the links of path `index` (< `path_count`) from `src` to `dst`, in order,
    /// starting with `src`'s NIC link and ending with the link into `dst`.
    fn path(&self, src: HostId, dst: HostId, index: u32, out: &mut Vec<LinkId>);
}

/// How switches choose among equal-cost paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RoutingMode {
    /// Hash of the 5-tuple (per-flow ECMP).
    #[default]
    Ecmp,
    /// A uniformly random path per packet.
    Spray,
    /// One fixed path per host pair.
    Single,
    /// The first path of every pair's set (index 0, in the topology's path order), whatever the
    /// ports: htsim's single-path TCP on BCube (docs/model.md 3).
    First,
}

/// The fields of a packet's 5-tuple that ECMP hashes (hosts stand in for IP addresses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FlowKey {
    /// Source transport port.
    pub src_port: u16,
    /// Destination transport port.
    pub dst_port: u16,
    /// IP protocol number (6 for TCP).
    pub protocol: u8,
}

/// The 64-bit finaliser of SplitMix64: a fast, well-mixed bijection on u64.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// ECMP hash of a 5-tuple with a per-run salt.
#[inline]
pub fn ecmp_hash(src: HostId, dst: HostId, key: FlowKey, salt: u64) -> u64 {
    let hosts = ((src.0 as u64) << 32) | dst.0 as u64;
    let ports = ((key.src_port as u64) << 24) | ((key.dst_port as u64) << 8) | key.protocol as u64;
    mix64(mix64(hosts ^ salt) ^ ports.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// `hash mod n` without the modulo bias that matters (Lemire's multiply-shift).
#[inline]
pub fn reduce(hash: u64, n: u32) -> u32 {
    ((hash as u128 * n as u128) >> 64) as u64 as u32
}

const UNRESOLVED: RouteId = RouteId(u32::MAX);

/// A path set's routes are kept in blocks of this many paths, each allocated when one of its
/// paths is first used: a k=32 FatTree pair has 256 paths, of which an MPTCP connection with 8
/// subflows uses about 8, so a dense array per set would be mostly empty.
const BLOCK: u32 = 8;

/// A path set's block that holds no route yet.
const NO_BLOCK: u32 = u32::MAX;

#[derive(Debug)]
struct PathSet {
    src: HostId,
    dst: HostId,
    /// Number of paths.
    count: u32,
    /// Index in [`RouteTable::blocks`] of the pool slot of this set's first block; its
    /// `count.div_ceil(BLOCK)` blocks follow.
    first_block: u32,
}

impl PathSet {
    /// Where path `index` (< `count`) is kept: the index in [`RouteTable::blocks`] of its
    /// block's pool slot, and its place in that block.
    #[inline]
    fn place(&self, index: u32) -> (usize, usize) {
        (
            (self.first_block + index / BLOCK) as usize,
            (index % BLOCK) as usize,
        )
    }
}

/// Marks the end of a route in [`RouteTable`]'s flat array of links.
const END_OF_ROUTE: LinkId = LinkId(u32::MAX);

/// Interned routes and the path sets of the host pairs in use.
pub struct RouteTable {
    /// Every interned route's links, each route followed by [`END_OF_ROUTE`], so that walking a
    /// route needs only an index into this array.
    hops: Vec<LinkId>,
    spans: Vec<(u32, u32)>,
    by_links: HashMap<Box<[LinkId]>, RouteId>,
    sets: Vec<PathSet>,
    /// Per path set, the pool slot of each of its blocks ([`NO_BLOCK`] until first used).
    blocks: Vec<u32>,
    /// Blocks of routes of path sets, [`UNRESOLVED`] where a path was not used yet.
    pool: Vec<[RouteId; BLOCK as usize]>,
    set_by_pair: HashMap<(HostId, HostId), PathSetId>,
    source: Option<Box<dyn PathSource>>,
    scratch: Vec<LinkId>,
}

impl std::fmt::Debug for RouteTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RouteTable")
            .field("routes", &self.spans.len())
            .field("path_sets", &self.sets.len())
            .finish()
    }
}

impl Default for RouteTable {
    fn default() -> Self {
        Self::new()
    }
}

impl RouteTable {
    /// An empty table with no path source.
    pub fn new() -> Self {
        RouteTable {
            hops: Vec::new(),
            spans: Vec::new(),
            by_links: HashMap::new(),
            sets: Vec::new(),
            blocks: Vec::new(),
            pool: Vec::new(),
            set_by_pair: HashMap::new(),
            source: None,
            scratch: Vec::new(),
        }
    }

    /// Installs the topology's path source (replacing any previous one).
    pub fn set_source(&mut self, source: Box<dyn PathSource>) {
        self.source = Some(source);
    }

    /// Interns a route (the same links give the same id). An empty route is allowed: its
    /// packets are delivered at once (loopback).
    pub fn intern(&mut self, links: &[LinkId]) -> RouteId {
        if let Some(&id) = self.by_links.get(links) {
            return id;
        }
        let id = RouteId(self.spans.len() as u32);
        self.spans
            .push((self.hops.len() as u32, links.len() as u32));
        self.hops.extend_from_slice(links);
        self.hops.push(END_OF_ROUTE);
        self.by_links.insert(links.into(), id);
        id
    }

    /// The links of a route.
    #[inline]
    pub fn links(&self, route: RouteId) -> &[LinkId] {
        let (start, len) = self.spans[route.0 as usize];
        &self.hops[start as usize..(start + len) as usize]
    }

    /// The link at `hop` of `route`, or `None` past its end.
    #[inline]
    pub fn hop(&self, route: RouteId, hop: u16) -> Option<LinkId> {
        let (start, len) = self.spans[route.0 as usize];
        (u32::from(hop) < len).then(|| self.hops[(start + u32::from(hop)) as usize])
    }

    /// Where `route`'s first link sits in the table: a packet on the route carries this index,
    /// plus its hop count, and reads its next link with [`RouteTable::link_at`].
    #[inline]
    pub(crate) fn first_index(&self, route: RouteId) -> u32 {
        self.spans[route.0 as usize].0
    }

    /// The link at table index `at`, or `None` at the end of a route.
    #[inline]
    pub(crate) fn link_at(&self, at: u32) -> Option<LinkId> {
        let link = self.hops[at as usize];
        (link != END_OF_ROUTE).then_some(link)
    }

    /// The link after the one at table index `at`, `Some(None)` past the end of its route;
    /// `None` if `at` is not a link's index. For hints: never panics.
    #[inline]
    pub(crate) fn next(&self, at: u32) -> Option<Option<LinkId>> {
        let link = *self.hops.get(at as usize + 1)?;
        Some((link != END_OF_ROUTE).then_some(link))
    }

    /// Number of interned routes.
    pub fn route_count(&self) -> usize {
        self.spans.len()
    }

    /// The path set from `src` to `dst`, created on first use. Returns `None` without a path
    /// source or when the source reports no path.
    pub fn path_set(&mut self, src: HostId, dst: HostId) -> Option<PathSetId> {
        if let Some(&id) = self.set_by_pair.get(&(src, dst)) {
            return Some(id);
        }
        let n = self.source.as_ref()?.path_count(src, dst);
        if n == 0 {
            return None;
        }
        let id = PathSetId(self.sets.len() as u32);
        let first_block = self.blocks.len() as u32;
        self.blocks
            .resize(self.blocks.len() + n.div_ceil(BLOCK) as usize, NO_BLOCK);
        self.sets.push(PathSet {
            src,
            dst,
            count: n,
            first_block,
        });
        self.set_by_pair.insert((src, dst), id);
        Some(id)
    }

    /// Number of paths in a path set.
    #[inline]
    pub fn path_count(&self, set: PathSetId) -> u32 {
        self.sets[set.0 as usize].count
    }

    /// The (source, destination) hosts of a path set.
    pub fn endpoints(&self, set: PathSetId) -> (HostId, HostId) {
        let s = &self.sets[set.0 as usize];
        (s.src, s.dst)
    }

    /// The route of path `index` (taken modulo the path count) of `set`, materialised on first use.
    #[inline]
    pub fn route(&mut self, set: PathSetId, index: u32) -> RouteId {
        let s = &self.sets[set.0 as usize];
        let n = s.count;
        // Callers mostly pass an index already in range (ECMP's reduce): skip the division.
        let index = if index < n { index } else { index % n };
        let (slot, offset) = s.place(index);
        let block = self.blocks[slot];
        if block != NO_BLOCK {
            let r = self.pool[block as usize][offset];
            if r != UNRESOLVED {
                return r;
            }
        }
        self.resolve(set, index)
    }

    #[cold]
    fn resolve(&mut self, set: PathSetId, index: u32) -> RouteId {
        let (src, dst) = self.endpoints(set);
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        if let Some(source) = &self.source {
            source.path(src, dst, index, &mut scratch);
        }
        let id = self.intern(&scratch);
        self.scratch = scratch;
        let (slot, offset) = self.sets[set.0 as usize].place(index);
        if self.blocks[slot] == NO_BLOCK {
            self.blocks[slot] = self.pool.len() as u32;
            self.pool.push([UNRESOLVED; BLOCK as usize]);
        }
        self.pool[self.blocks[slot] as usize][offset] = id;
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct TwoPaths;
    impl PathSource for TwoPaths {
        fn path_count(&self, src: HostId, dst: HostId) -> u32 {
            if src == dst {
                0
            } else {
                2
            }
        }
        fn path(&self, _src: HostId, _dst: HostId, index: u32, out: &mut Vec<LinkId>) {
            out.extend([LinkId(0), LinkId(1 + index), LinkId(9)]);
        }
    }

    #[test]
    fn routes_are_interned_and_resolved_lazily() {
        let mut t = RouteTable::new();
        t.set_source(Box::new(TwoPaths));
        let ps = t.path_set(HostId(0), HostId(1)).unwrap();
        assert_eq!(t.path_set(HostId(0), HostId(1)), Some(ps));
        assert_eq!(t.path_set(HostId(1), HostId(1)), None);
        assert_eq!(t.path_count(ps), 2);
        assert_eq!(t.route_count(), 0, "nothing materialised before use");
        let r1 = t.route(ps, 1);
        assert_eq!(t.links(r1), &[LinkId(0), LinkId(2), LinkId(9)]);
        assert_eq!(t.route(ps, 3), r1, "index is taken modulo the path count");
        assert_eq!(t.intern(&[LinkId(0), LinkId(2), LinkId(9)]), r1);
        assert_eq!(t.hop(r1, 2), Some(LinkId(9)));
        assert_eq!(t.hop(r1, 3), None);
    }

    /// `n` paths per pair; path `i` is links (0, 100 + i, 9).
    struct ManyPaths(u32);
    impl PathSource for ManyPaths {
        fn path_count(&self, _src: HostId, _dst: HostId) -> u32 {
            self.0
        }
        fn path(&self, _src: HostId, _dst: HostId, index: u32, out: &mut Vec<LinkId>) {
            out.extend([LinkId(0), LinkId(100 + index), LinkId(9)]);
        }
    }

    #[test]
    fn routes_resolved_in_any_order_are_the_source_paths() {
        // 43 paths: five full blocks and a partial one.
        let n = 5 * BLOCK + 3;
        let mut t = RouteTable::new();
        t.set_source(Box::new(ManyPaths(n)));
        let ps = t.path_set(HostId(0), HostId(1)).unwrap();
        assert_eq!(t.path_count(ps), n);
        // Visit every index once, in a scrambled order (17 is coprime with 43).
        let order: Vec<u32> = (0..n).map(|i| (i * 17 + 5) % n).collect();
        let mut ids = vec![UNRESOLVED; n as usize];
        for (k, &i) in order.iter().enumerate() {
            let r = t.route(ps, i);
            assert_eq!(
                r,
                RouteId(k as u32),
                "routes are numbered in order of first use"
            );
            assert_eq!(t.links(r), &[LinkId(0), LinkId(100 + i), LinkId(9)]);
            ids[i as usize] = r;
        }
        for i in 0..n {
            assert_eq!(t.route(ps, i), ids[i as usize]);
            assert_eq!(t.route(ps, i + n), ids[i as usize]);
        }
        assert_eq!(t.route_count(), n as usize);
        assert_eq!(t.pool.len(), 6, "one block per {BLOCK} paths");
    }

    #[test]
    fn path_set_blocks_are_allocated_only_on_use() {
        let mut t = RouteTable::new();
        t.set_source(Box::new(ManyPaths(256)));
        let a = t.path_set(HostId(0), HostId(1)).unwrap();
        let b = t.path_set(HostId(1), HostId(0)).unwrap();
        assert_eq!(t.blocks.len(), 2 * 256 / BLOCK as usize);
        assert!(t.pool.is_empty(), "no block before a route is used");
        let r = t.route(a, 3);
        t.route(a, BLOCK - 1);
        assert_eq!(t.pool.len(), 1, "paths 3 and BLOCK-1 share the first block");
        t.route(a, 255);
        t.route(b, 3);
        assert_eq!(t.pool.len(), 3);
        assert_eq!(t.route(a, 3), r);
        assert_eq!(
            t.route_count(),
            3,
            "the two sets' paths 3 are the same links"
        );
        assert_eq!(t.route(b, 3), r);
    }

    #[test]
    fn ecmp_is_deterministic_and_port_sensitive() {
        let k = FlowKey {
            src_port: 1000,
            dst_port: 80,
            protocol: 6,
        };
        let h = ecmp_hash(HostId(3), HostId(9), k, 42);
        assert_eq!(h, ecmp_hash(HostId(3), HostId(9), k, 42));
        let k2 = FlowKey {
            src_port: 1001,
            ..k
        };
        assert_ne!(h, ecmp_hash(HostId(3), HostId(9), k2, 42));
        assert_ne!(h, ecmp_hash(HostId(9), HostId(3), k, 42));
        assert_ne!(h, ecmp_hash(HostId(3), HostId(9), k, 43));
    }

    #[test]
    fn reduce_covers_all_buckets_uniformly() {
        let n = 16u32;
        let mut counts = vec![0u32; n as usize];
        for p in 0..16_000u16 {
            let key = FlowKey {
                src_port: p,
                dst_port: 5001,
                protocol: 6,
            };
            counts[reduce(ecmp_hash(HostId(1), HostId(2), key, 7), n) as usize] += 1;
        }
        // Each bucket expects 1000; chi-square with 15 d.o.f. below 30.58 (1% level).
        let chi2: f64 = counts
            .iter()
            .map(|&c| (c as f64 - 1000.0).powi(2) / 1000.0)
            .sum();
        assert!(chi2 < 30.58, "chi2 = {chi2}, counts {counts:?}");
    }
}
