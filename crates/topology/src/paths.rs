//! Equal-cost path sets: the [`PathSource`] every topology installs in its world.
//!
//! FatTree paths are derived arithmetically from (source, destination, index) and BCube's from
//! the BCube digit rules, so nothing is stored per host pair. Every other topology uses
//! [`ShortestPaths`]: all equal-hop shortest paths, found on demand by a breadth-first search
//! towards the destination and ranked in a fixed order, so path `i` is computed by a walk without
//! materialising the others.

use crate::bcube::BCubePaths;
use crate::fattree::FatTreePaths;
use crate::topology::{HostInfo, LinkInfo, Node};
use htsim_core::ids::{HostId, LinkId};
use htsim_core::routing::PathSource;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// The most equal-cost paths a [`ShortestPaths`] pair offers: pairs with more shortest paths
/// use the first `MAX_PATHS` in rank order. 256 is the largest FatTree set used (k = 32).
pub const MAX_PATHS: u32 = 256;

/// Destinations whose BFS trees a [`ShortestPaths`] keeps (least recently used evicted first).
pub const CACHED_DESTINATIONS: usize = 64;

/// The paths of one topology.
#[derive(Clone, Debug)]
pub(crate) enum Paths {
    /// Arithmetic FatTree paths.
    FatTree(FatTreePaths),
    /// The k + 1 parallel BCube paths.
    BCube(BCubePaths),
    /// All shortest paths, by BFS.
    Shortest(ShortestPaths),
}

impl Paths {
    /// Keeps only each pair's minimum-hop paths. BCube's parallel paths differ in length;
    /// FatTree's and the BFS sets are equal-hop shortest paths already.
    pub(crate) fn keep_shortest(&mut self) {
        match self {
            Paths::BCube(p) => p.shortest_only = true,
            Paths::FatTree(_) | Paths::Shortest(_) => {}
        }
    }
}

impl PathSource for Paths {
    fn path_count(&self, src: HostId, dst: HostId) -> u32 {
        match self {
            Paths::FatTree(p) => p.path_count(src, dst),
            Paths::BCube(p) => p.path_count(src, dst),
            Paths::Shortest(p) => p.path_count(src, dst),
        }
    }

    fn path(&self, src: HostId, dst: HostId, index: u32, out: &mut Vec<LinkId>) {
        match self {
            Paths::FatTree(p) => p.path(src, dst, index, out),
            Paths::BCube(p) => p.path(src, dst, index, out),
            Paths::Shortest(p) => p.path(src, dst, index, out),
        }
    }
}

/// The graph a [`ShortestPaths`] searches: forward and backward adjacency in CSR form.
#[derive(Debug)]
struct Graph {
    /// Out-edges of node `n`: `out[out_start[n]..out_start[n + 1]]`, as (link, head node).
    out_start: Vec<u32>,
    out: Vec<(LinkId, u32)>,
    /// In-edges of node `n` (tail nodes), same layout.
    in_start: Vec<u32>,
    ins: Vec<u32>,
    /// Whether a node may be an intermediate hop.
    forwards: Vec<bool>,
    /// Node of each host, by host id.
    host_nodes: Vec<u32>,
}

/// A CSR adjacency of `n` nodes from `(tail, item)` pairs, items kept in input order per tail.
pub(crate) fn csr<T: Copy>(
    n: usize,
    edges: impl Iterator<Item = (u32, T)> + Clone,
) -> (Vec<u32>, Vec<T>) {
    let mut start = vec![0u32; n + 1];
    for (t, _) in edges.clone() {
        start[t as usize + 1] += 1;
    }
    for i in 1..=n {
        start[i] += start[i - 1];
    }
    let mut fill = start.clone();
    let mut slots: Vec<Option<T>> = vec![None; start[n] as usize];
    for (t, x) in edges {
        slots[fill[t as usize] as usize] = Some(x);
        fill[t as usize] += 1;
    }
    // Every slot is filled: the counts above sized them from the same edges.
    (start, slots.into_iter().flatten().collect())
}

/// Distances to one destination node and the number of shortest paths from every node to it.
#[derive(Debug)]
struct DestTree {
    dst: u32,
    /// Hops to `dst`, `u32::MAX` if unreachable.
    dist: Vec<u32>,
    /// Shortest paths to `dst`, saturated at [`MAX_PATHS`].
    count: Vec<u32>,
}

/// All equal-hop shortest paths between hosts, computed on demand.
///
/// Intermediate hops are switches and forwarding hosts only. Paths of a pair are ranked by the
/// order of each node's egress links (build order), and at most [`MAX_PATHS`] are offered. BFS
/// trees of the last [`CACHED_DESTINATIONS`] destinations are kept, so asking for every path of
/// a pair costs one search.
#[derive(Debug)]
pub struct ShortestPaths {
    graph: Arc<Graph>,
    cache: Mutex<VecDeque<Arc<DestTree>>>,
}

impl Clone for ShortestPaths {
    /// Shares the graph; the clone starts with an empty cache.
    fn clone(&self) -> Self {
        ShortestPaths {
            graph: Arc::clone(&self.graph),
            cache: Mutex::new(VecDeque::new()),
        }
    }
}

impl ShortestPaths {
    /// Paths over the given nodes and links (`links[i].from`/`to` index `nodes`).
    pub(crate) fn new(nodes: &[Node], links: &[LinkInfo], hosts: &[HostInfo]) -> Self {
        let n = nodes.len();
        let (out_start, out) = csr(n, links.iter().map(|l| (l.from.0, (l.id, l.to.0))));
        let (in_start, ins) = csr(n, links.iter().map(|l| (l.to.0, l.from.0)));
        let graph = Graph {
            out_start,
            out,
            in_start,
            ins,
            forwards: nodes.iter().map(|x| x.forwards).collect(),
            host_nodes: hosts.iter().map(|h| h.node.0).collect(),
        };
        ShortestPaths {
            graph: Arc::new(graph),
            cache: Mutex::new(VecDeque::new()),
        }
    }

    fn tree(&self, dst: u32) -> Arc<DestTree> {
        // A poisoned lock only means another thread panicked mid-update of a cache of
        // recomputable trees: start afresh.
        let mut cache = self.cache.lock().unwrap_or_else(|e| {
            let mut guard = e.into_inner();
            guard.clear();
            guard
        });
        if let Some(pos) = cache.iter().position(|t| t.dst == dst) {
            let t = cache.remove(pos).expect("position is in range");
            cache.push_front(Arc::clone(&t));
            return t;
        }
        let t = Arc::new(self.search(dst));
        if cache.len() == CACHED_DESTINATIONS {
            cache.pop_back();
        }
        cache.push_front(Arc::clone(&t));
        t
    }

    /// Backward BFS from `dst`, then shortest-path counts in BFS order.
    fn search(&self, dst: u32) -> DestTree {
        let g = &*self.graph;
        let n = g.forwards.len();
        let mut dist = vec![u32::MAX; n];
        let mut order = Vec::with_capacity(n);
        dist[dst as usize] = 0;
        order.push(dst);
        let mut head = 0;
        while head < order.len() {
            let u = order[head];
            head += 1;
            if u != dst && !g.forwards[u as usize] {
                continue;
            }
            let range = g.in_start[u as usize] as usize..g.in_start[u as usize + 1] as usize;
            for &w in &g.ins[range] {
                if dist[w as usize] == u32::MAX {
                    dist[w as usize] = dist[u as usize] + 1;
                    order.push(w);
                }
            }
        }
        let mut count = vec![0u32; n];
        count[dst as usize] = 1;
        for &u in &order[1..] {
            let total = self
                .next_hops(&dist, dst, u)
                .map(|(_, x)| u64::from(count[x as usize]))
                .sum::<u64>();
            count[u as usize] = total.min(u64::from(MAX_PATHS)) as u32;
        }
        DestTree { dst, dist, count }
    }

    /// The egress links of `u` one hop closer to `dst` through a node that may relay.
    fn next_hops<'a>(
        &'a self,
        dist: &'a [u32],
        dst: u32,
        u: u32,
    ) -> impl Iterator<Item = (LinkId, u32)> + 'a {
        let g = &*self.graph;
        let range = g.out_start[u as usize] as usize..g.out_start[u as usize + 1] as usize;
        let want = dist[u as usize].wrapping_sub(1);
        g.out[range]
            .iter()
            .copied()
            .filter(move |&(_, x)| dist[x as usize] == want && (x == dst || g.forwards[x as usize]))
    }

    fn nodes_of(&self, src: HostId, dst: HostId) -> Option<(u32, u32)> {
        let g = &*self.graph;
        let s = *g.host_nodes.get(src.0 as usize)?;
        let d = *g.host_nodes.get(dst.0 as usize)?;
        (s != d).then_some((s, d))
    }
}

impl PathSource for ShortestPaths {
    fn path_count(&self, src: HostId, dst: HostId) -> u32 {
        match self.nodes_of(src, dst) {
            Some((s, d)) => self.tree(d).count[s as usize],
            None => 0,
        }
    }

    fn path(&self, src: HostId, dst: HostId, index: u32, out: &mut Vec<LinkId>) {
        let Some((s, d)) = self.nodes_of(src, dst) else {
            return;
        };
        let tree = self.tree(d);
        let mut i = index;
        let mut u = s;
        while u != d {
            let mut next = None;
            for (link, x) in self.next_hops(&tree.dist, d, u) {
                let c = tree.count[x as usize];
                if i < c {
                    next = Some((link, x));
                    break;
                }
                i -= c;
            }
            // An index at or past the count (a caller bug) or no path: leave the path short.
            let Some((link, x)) = next else { return };
            out.push(link);
            u = x;
        }
    }
}
