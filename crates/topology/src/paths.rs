//! Equal-cost path sets: the [`PathSource`] every topology installs in its world.
//!
//! FatTree paths are derived arithmetically from (source, destination, index) and BCube's from
//! the BCube digit rules, so nothing is stored per host pair. Every other topology uses
//! [`ShortestPaths`]: all equal-hop shortest paths, found on demand by a breadth-first search
//! towards the destination and ranked in a fixed order, so path `i` is computed by a walk without
//! materialising the others. Hosts attached to the same switches share one search over the
//! switches, so the set-up costs a search per rack (or per star, per dual-homed ToR pair), not
//! per destination host.

use crate::bcube::BCubePaths;
use crate::fattree::FatTreePaths;
use crate::topology::{HostInfo, LinkInfo, Node};
use htsim_core::ids::{HostId, LinkId};
use htsim_core::routing::PathSource;
use std::collections::{HashMap, VecDeque};
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
    /// Index of each forwarding node among the forwarding nodes ([`NO_INDEX`] for the others).
    relay_index: Vec<u32>,
    /// Number of forwarding nodes.
    relays: usize,
    /// Attachment class of each node ([`NO_INDEX`]: none, searched per destination).
    attachment: Vec<u32>,
    /// Per attachment class, the tails of its nodes' in-links, sorted, with repeats.
    attachment_tails: Vec<Vec<u32>>,
}

/// Marks a node without a relay index or an attachment class.
const NO_INDEX: u32 = u32::MAX;

/// Entries (one distance and one count per forwarding node) of attachment trees a
/// [`ShortestPaths`] keeps: 64 MiB.
pub const ATTACHMENT_CACHE_ENTRIES: usize = 1 << 23;

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

/// The same for every destination of one attachment class, over the forwarding nodes only
/// (indexed by [`Graph::relay_index`]): a destination that does not forward is reached only
/// through the tails of its in-links, so every destination with the same tails (with repeats)
/// has the same distances and counts at every forwarding node.
#[derive(Debug)]
struct AttachmentTree {
    dist: Vec<u32>,
    count: Vec<u32>,
}

/// The search result that answers for one destination.
enum Tree {
    /// The destination's own tree, over every node.
    Dest(Arc<DestTree>),
    /// The tree of the destination's attachment class, over forwarding nodes.
    Attachment(Arc<AttachmentTree>),
}

/// Distances and path counts towards one destination node, whichever tree holds them.
struct Target<'a> {
    graph: &'a Graph,
    dst: u32,
    tree: Tree,
}

impl Target<'_> {
    /// Hops from `x` to the destination (`u32::MAX` if unreachable).
    fn dist(&self, x: u32) -> u32 {
        match &self.tree {
            Tree::Dest(t) => t.dist[x as usize],
            Tree::Attachment(t) => {
                if x == self.dst {
                    0
                } else if self.graph.forwards[x as usize] {
                    t.dist[self.graph.relay_index[x as usize] as usize]
                } else {
                    // A node that does not forward is never a hop: one more than its nearest
                    // neighbour the search went through.
                    self.out_edges(x)
                        .filter(|&(_, y)| self.relays_to_dst(y))
                        .map(|(_, y)| self.dist(y))
                        .min()
                        .map_or(u32::MAX, |d| d.saturating_add(1))
                }
            }
        }
    }

    /// Shortest paths from `x` to the destination, saturated at [`MAX_PATHS`].
    fn count(&self, x: u32) -> u32 {
        match &self.tree {
            Tree::Dest(t) => t.count[x as usize],
            Tree::Attachment(t) => {
                if x == self.dst {
                    1
                } else if self.graph.forwards[x as usize] {
                    t.count[self.graph.relay_index[x as usize] as usize]
                } else if self.dist(x) == u32::MAX {
                    0
                } else {
                    let total = self
                        .next_hops(x)
                        .map(|(_, y)| u64::from(self.count(y)))
                        .sum::<u64>();
                    total.min(u64::from(MAX_PATHS)) as u32
                }
            }
        }
    }

    /// Whether `y` is the destination or may relay towards it.
    fn relays_to_dst(&self, y: u32) -> bool {
        y == self.dst || self.graph.forwards[y as usize]
    }

    fn out_edges(&self, u: u32) -> impl Iterator<Item = (LinkId, u32)> + '_ {
        let g = self.graph;
        let range = g.out_start[u as usize] as usize..g.out_start[u as usize + 1] as usize;
        g.out[range].iter().copied()
    }

    /// The egress links of `u` one hop closer to the destination through a node that may relay.
    fn next_hops(&self, u: u32) -> impl Iterator<Item = (LinkId, u32)> + '_ {
        let want = self.dist(u).wrapping_sub(1);
        self.out_edges(u)
            .filter(move |&(_, x)| self.relays_to_dst(x) && self.dist(x) == want)
    }

    /// Appends path `index` from `src` to the destination (see [`PathSource::path`]).
    fn path(&self, src: u32, index: u32, out: &mut Vec<LinkId>) {
        let mut i = index;
        let mut u = src;
        while u != self.dst {
            let mut next = None;
            for (link, x) in self.next_hops(u) {
                let c = self.count(x);
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

/// The trees a [`ShortestPaths`] keeps.
#[derive(Debug, Default)]
struct Cache {
    /// Trees of destinations without an attachment class, most recently used first.
    dests: VecDeque<Arc<DestTree>>,
    /// Attachment trees by class.
    attachments: HashMap<u32, Arc<AttachmentTree>>,
    /// Classes in `attachments`, oldest first.
    attachment_order: VecDeque<u32>,
}

/// All equal-hop shortest paths between hosts, computed on demand.
///
/// Intermediate hops are switches and forwarding hosts only. Paths of a pair are ranked by the
/// order of each node's egress links (build order), and at most [`MAX_PATHS`] are offered.
/// A destination that does not forward and is reached only from forwarding nodes shares one
/// search over the forwarding nodes with every destination attached the same way (a rack's
/// hosts, a star's hosts); such searches are kept up to [`ATTACHMENT_CACHE_ENTRIES`] entries.
/// Any other destination is searched on its own over the whole graph, and the trees of the last
/// [`CACHED_DESTINATIONS`] of those are kept.
#[derive(Debug)]
pub struct ShortestPaths {
    graph: Arc<Graph>,
    cache: Mutex<Cache>,
}

impl Clone for ShortestPaths {
    /// Shares the graph; the clone starts with an empty cache.
    fn clone(&self) -> Self {
        ShortestPaths {
            graph: Arc::clone(&self.graph),
            cache: Mutex::new(Cache::default()),
        }
    }
}

impl ShortestPaths {
    /// Paths over the given nodes and links (`links[i].from`/`to` index `nodes`).
    pub(crate) fn new(nodes: &[Node], links: &[LinkInfo], hosts: &[HostInfo]) -> Self {
        let n = nodes.len();
        let (out_start, out) = csr(n, links.iter().map(|l| (l.from.0, (l.id, l.to.0))));
        let (in_start, ins) = csr(n, links.iter().map(|l| (l.to.0, l.from.0)));
        let forwards: Vec<bool> = nodes.iter().map(|x| x.forwards).collect();
        let mut relay_index = vec![NO_INDEX; n];
        let mut relays = 0;
        for (i, _) in forwards.iter().enumerate().filter(|(_, &f)| f) {
            relay_index[i] = relays as u32;
            relays += 1;
        }
        let host_nodes: Vec<u32> = hosts.iter().map(|h| h.node.0).collect();
        let mut attachment = vec![NO_INDEX; n];
        let mut attachment_tails = Vec::new();
        let mut ids: HashMap<Vec<u32>, u32> = HashMap::new();
        for &h in &host_nodes {
            let h = h as usize;
            let mut tails = ins[in_start[h] as usize..in_start[h + 1] as usize].to_vec();
            if forwards[h] || tails.is_empty() || tails.iter().any(|&t| !forwards[t as usize]) {
                continue;
            }
            tails.sort_unstable();
            let next = ids.len() as u32;
            let id = *ids.entry(tails.clone()).or_insert_with(|| {
                attachment_tails.push(tails);
                next
            });
            attachment[h] = id;
        }
        let graph = Graph {
            out_start,
            out,
            in_start,
            ins,
            forwards,
            host_nodes,
            relay_index,
            relays,
            attachment,
            attachment_tails,
        };
        ShortestPaths {
            graph: Arc::new(graph),
            cache: Mutex::new(Cache::default()),
        }
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        // A poisoned lock only means another thread panicked mid-update of a cache of
        // recomputable trees: start afresh.
        self.cache.lock().unwrap_or_else(|e| {
            let mut guard = e.into_inner();
            *guard = Cache::default();
            guard
        })
    }

    /// The distances and counts towards destination node `dst`.
    fn target(&self, dst: u32) -> Target<'_> {
        let class = self.graph.attachment[dst as usize];
        let tree = if class == NO_INDEX {
            Tree::Dest(self.tree(dst))
        } else {
            Tree::Attachment(self.attachment_tree(class))
        };
        Target {
            graph: &self.graph,
            dst,
            tree,
        }
    }

    /// The per-destination search of `dst`, ignoring attachment classes.
    #[cfg(test)]
    fn own_target(&self, dst: u32) -> Target<'_> {
        Target {
            graph: &self.graph,
            dst,
            tree: Tree::Dest(self.tree(dst)),
        }
    }

    fn attachment_tree(&self, class: u32) -> Arc<AttachmentTree> {
        let mut cache = self.lock_cache();
        if let Some(t) = cache.attachments.get(&class) {
            return Arc::clone(t);
        }
        let t = Arc::new(self.search_attachment(class));
        let capacity = (ATTACHMENT_CACHE_ENTRIES / self.graph.relays.max(1)).max(1);
        while cache.attachment_order.len() >= capacity {
            let Some(old) = cache.attachment_order.pop_front() else {
                break;
            };
            cache.attachments.remove(&old);
        }
        cache.attachments.insert(class, Arc::clone(&t));
        cache.attachment_order.push_back(class);
        t
    }

    /// Backward BFS over the forwarding nodes from the tails of an attachment class's in-links
    /// (one hop from the destination), then shortest-path counts in BFS order: the values
    /// [`ShortestPaths::search`] gives every forwarding node for any destination of the class.
    fn search_attachment(&self, class: u32) -> AttachmentTree {
        let g = &*self.graph;
        let tails = &g.attachment_tails[class as usize];
        let mut dist = vec![u32::MAX; g.relays];
        let mut count = vec![0u32; g.relays];
        let mut order = Vec::new();
        for &a in tails {
            let i = g.relay_index[a as usize] as usize;
            if dist[i] == u32::MAX {
                dist[i] = 1;
                order.push(a);
            }
            // One path per link from `a` into the destination.
            count[i] += 1;
        }
        for &a in &order {
            let i = g.relay_index[a as usize] as usize;
            count[i] = count[i].min(MAX_PATHS);
        }
        let mut head = 0;
        while head < order.len() {
            let u = order[head];
            head += 1;
            let du = dist[g.relay_index[u as usize] as usize];
            let range = g.in_start[u as usize] as usize..g.in_start[u as usize + 1] as usize;
            for &w in &g.ins[range] {
                let wi = g.relay_index[w as usize];
                if wi != NO_INDEX && dist[wi as usize] == u32::MAX {
                    dist[wi as usize] = du + 1;
                    order.push(w);
                }
            }
        }
        let first_beyond =
            order.partition_point(|&u| dist[g.relay_index[u as usize] as usize] == 1);
        for &u in &order[first_beyond..] {
            let range = g.out_start[u as usize] as usize..g.out_start[u as usize + 1] as usize;
            let want = dist[g.relay_index[u as usize] as usize] - 1;
            let total = g.out[range]
                .iter()
                .map(|&(_, x)| g.relay_index[x as usize])
                .filter(|&xi| xi != NO_INDEX && dist[xi as usize] == want)
                .map(|xi| u64::from(count[xi as usize]))
                .sum::<u64>();
            count[g.relay_index[u as usize] as usize] = total.min(u64::from(MAX_PATHS)) as u32;
        }
        AttachmentTree { dist, count }
    }

    fn tree(&self, dst: u32) -> Arc<DestTree> {
        let mut cache = self.lock_cache();
        let cache = &mut cache.dests;
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
            let range = g.out_start[u as usize] as usize..g.out_start[u as usize + 1] as usize;
            let want = dist[u as usize].wrapping_sub(1);
            let total = g.out[range]
                .iter()
                .filter(|&&(_, x)| dist[x as usize] == want && (x == dst || g.forwards[x as usize]))
                .map(|&(_, x)| u64::from(count[x as usize]))
                .sum::<u64>();
            count[u as usize] = total.min(u64::from(MAX_PATHS)) as u32;
        }
        DestTree { dst, dist, count }
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
            Some((s, d)) => self.target(d).count(s),
            None => 0,
        }
    }

    fn path(&self, src: HostId, dst: HostId, index: u32, out: &mut Vec<LinkId>) {
        if let Some((s, d)) = self.nodes_of(src, dst) {
            self.target(d).path(s, index, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bcube::BCube;
    use crate::cabling::{Cabling, QueueSite};
    use crate::dhft::Dhft;
    use crate::dumbbell::Dumbbell;
    use crate::fattree::FatTree;
    use crate::file::FileTopology;
    use crate::star::Star;
    use crate::topology::{NodeKind, Topology};
    use crate::vl2::Vl2;
    use crate::xmp::{XmpTorus, XmpTwoPath};
    use htsim_core::queue::{Discipline, Queue};
    use htsim_core::units::BufferSize;
    use htsim_core::world::World;
    use htsim_core::{Rate, SimTime};

    fn droptail(_: QueueSite<'_>) -> Queue {
        Queue::new(BufferSize::Packets(100), Discipline::DropTail)
    }

    /// Small instances of every builder, and topology files with a host-to-host cable and
    /// hosts cabled twice to one switch.
    fn topologies() -> Vec<(String, Topology)> {
        let c = Cabling::uniform(Rate::mbps(100), SimTime::from_us(20));
        let mut w = World::new(1);
        let mut out: Vec<(String, Topology)> = vec![
            (
                "star".into(),
                Star { hosts: 5 }.build(&mut w, &c, &mut droptail).unwrap(),
            ),
            (
                "dumbbell".into(),
                Dumbbell { pairs: 3 }
                    .build(&mut w, &c, &mut droptail)
                    .unwrap(),
            ),
            (
                "dhft".into(),
                Dhft { k: 6 }.build(&mut w, &c, &mut droptail).unwrap(),
            ),
            (
                "vl2".into(),
                Vl2 {
                    da: 4,
                    di: 4,
                    hosts_per_tor: 2,
                }
                .build(&mut w, &c, &mut droptail)
                .unwrap(),
            ),
            (
                "fattree".into(),
                FatTree {
                    k: 4,
                    oversubscription: 2,
                }
                .build(&mut w, &c, &mut droptail)
                .unwrap(),
            ),
            (
                "bcube".into(),
                BCube { n: 3, k: 1 }
                    .build(&mut w, &c, &mut droptail)
                    .unwrap(),
            ),
            (
                "xmp two-path".into(),
                XmpTwoPath {
                    multipath_pairs: 2,
                    single_path_pairs: [1, 1],
                }
                .build(&mut w, &c, &mut droptail)
                .unwrap(),
            ),
            (
                "xmp torus".into(),
                XmpTorus { bottlenecks: 4 }
                    .build(&mut w, &c, &mut droptail)
                    .unwrap(),
            ),
        ];
        for text in [
            "host host0\nhost host1\nhost host2\nswitch a\nswitch b\nlink host0 host1 1Gbps 1us 10pkt\n\
             link host0 a 1Gbps 1us 10pkt\nlink a b 1Gbps 1us 10pkt\nlink host1 b 1Gbps 1us 10pkt\n\
             link host2 b 1Gbps 1us 10pkt\n",
            "host host0\nhost host1\nhost host2\nswitch a\nswitch b\nswitch c\n\
             link host0 a 1Gbps 1us 10pkt\nlink host0 a 1Gbps 1us 10pkt\nlink host1 a 1Gbps 1us 10pkt\n\
             link host1 a 1Gbps 1us 10pkt\nlink a b 1Gbps 1us 10pkt\nlink a c 1Gbps 1us 10pkt\n\
             link b c 1Gbps 1us 10pkt\nlink host2 b 1Gbps 1us 10pkt\nlink host2 c 1Gbps 1us 10pkt\n",
        ] {
            let t = FileTopology::parse(text)
                .unwrap()
                .build(&mut w, &mut droptail)
                .unwrap();
            out.push((format!("file {}", out.len()), t));
        }
        out
    }

    /// Every pair's count and every path of `p` against the per-destination search.
    fn check_against_own_search(name: &str, p: &ShortestPaths) {
        let hosts = p.graph.host_nodes.clone();
        for &d in &hosts {
            let (shared, own) = (p.target(d), p.own_target(d));
            for &s in hosts.iter().filter(|&&s| s != d) {
                let n = own.count(s);
                assert_eq!(shared.count(s), n, "{name}: count {s}->{d}");
                for i in 0..=n {
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    shared.path(s, i, &mut a);
                    own.path(s, i, &mut b);
                    assert_eq!(a, b, "{name}: path {i} of {s}->{d}");
                }
            }
        }
    }

    #[test]
    fn a_topology_that_connects_every_pair_has_paths_for_every_pair() {
        for (name, t) in topologies() {
            let n = t.hosts().len() as u32;
            let every =
                (0..n).all(|s| (0..n).all(|d| s == d || t.path_count(HostId(s), HostId(d)) > 0));
            let claimed = t.connects_every_host_pair();
            eprintln!("{name}: claimed {claimed}, every pair {every}");
            assert!(!claimed || every, "{name}");
            // Every builder but the XMP testbeds (hosts on one path only, senders that reach
            // only receivers) connects every pair, and so do the files (a disconnected one is
            // refused when it is read).
            let expected = !matches!(name.as_str(), "xmp two-path" | "xmp torus");
            assert_eq!(claimed, expected, "{name}");
        }
    }

    #[test]
    fn attachment_searches_give_the_per_destination_paths_on_every_builder() {
        for (name, t) in topologies() {
            let p = ShortestPaths::new(&t.nodes, &t.links, &t.hosts);
            let shared = p.graph.attachment.iter().any(|&c| c != NO_INDEX);
            assert_eq!(
                shared,
                name != "bcube",
                "{name}: attachment classes are used"
            );
            check_against_own_search(&name, &p);
            // Hosts that relay beside hosts that do not: toggle every other host.
            let mut nodes = t.nodes.clone();
            for (i, n) in nodes.iter_mut().enumerate() {
                if n.kind == NodeKind::Host && i % 2 == 0 {
                    n.forwards = !n.forwards;
                }
            }
            let p = ShortestPaths::new(&nodes, &t.links, &t.hosts);
            check_against_own_search(&format!("{name}, every other host toggled"), &p);
        }
    }

    #[test]
    fn a_star_of_many_hosts_is_one_attachment_class() {
        let c = Cabling::uniform(Rate::mbps(100), SimTime::from_us(20));
        let t = Star { hosts: 50 }
            .build(&mut World::new(1), &c, &mut droptail)
            .unwrap();
        let p = ShortestPaths::new(&t.nodes, &t.links, &t.hosts);
        assert_eq!(p.graph.attachment_tails.len(), 1);
        assert!(t
            .hosts
            .iter()
            .all(|h| p.graph.attachment[h.node.0 as usize] == 0));
    }
}
