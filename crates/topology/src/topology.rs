//! The description every builder returns: nodes, directed links with their layers, hosts with
//! their rack and pod, name lookup, and per host pair the path count and locality.

use crate::error::{did_you_mean, Result, TopologyError};
use crate::hops::HopRule;
use crate::paths::Paths;
use htsim_core::ids::{HostId, LinkId};
use htsim_core::routing::PathSource;
use htsim_core::world::World;
use std::collections::HashMap;
use std::sync::OnceLock;

/// A node of a topology, an index into [`Topology::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

/// A layer name interned in a topology ([`Topology::layer_name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LayerId(pub u16);

/// Whether a node is an end host or a switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// An end host (`host<i>`).
    Host,
    /// A switch.
    Switch,
}

/// One node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Unique name (`host3`, `tor1.2`, `core7`, ...).
    pub name: String,
    /// Host or switch.
    pub kind: NodeKind,
    /// The node's layer (`host`, `tor`, `agg`, `core`, or a name the topology documents).
    pub layer: LayerId,
    /// Whether the node forwards packets of others: every switch, and the hosts of a BCube.
    pub forwards: bool,
}

/// One directed link of the topology and its place in the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkInfo {
    /// The link in the world.
    pub id: LinkId,
    /// The transmitting node (whose egress queue the link's queue is).
    pub from: NodeId,
    /// The receiving node.
    pub to: NodeId,
    /// Egress layer: the layer of `from`.
    pub layer: LayerId,
    /// Cable layer (see [`crate::cabling`]).
    pub cable: LayerId,
}

/// A host's place in the topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostInfo {
    /// The host's node.
    pub node: NodeId,
    /// Its rack (ToR) index, `0..rack_count`.
    pub rack: u32,
    /// Its pod index, `0..pod_count`; racks never span pods.
    pub pod: u32,
}

/// How far apart two hosts are (docs/model.md 6.5 and 6.7: auto dupthresh, auto subflow).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Locality {
    /// The same host.
    SameHost,
    /// Different hosts in one rack (under the same ToR).
    SameTor,
    /// Different racks of one pod.
    SamePod,
    /// Different pods (traffic crosses the core).
    OtherPod,
}

/// A built topology. Its links live in the world it was built into; this is their map.
#[derive(Debug)]
pub struct Topology {
    pub(crate) kind: &'static str,
    pub(crate) nodes: Vec<Node>,
    pub(crate) links: Vec<LinkInfo>,
    pub(crate) hosts: Vec<HostInfo>,
    pub(crate) layers: Vec<String>,
    /// Egress links of node `n` are `links[out_order[out_start[n]..out_start[n + 1]]]`.
    pub(crate) out_start: Vec<u32>,
    pub(crate) out_order: Vec<u32>,
    pub(crate) by_name: HashMap<String, NodeId>,
    pub(crate) racks: u32,
    pub(crate) pods: u32,
    pub(crate) paths: Paths,
    pub(crate) hops: HopRule,
    /// [`Topology::connects_every_host_pair`], found when first asked (the graph is fixed).
    pub(crate) connected: OnceLock<bool>,
}

impl Topology {
    /// The topology kind (`fattree`, `vl2`, `bcube`, `dhft`, `star`, `dumbbell`,
    /// `xmp-two-path`, `xmp-torus`, `file`).
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// All nodes, indexed by [`NodeId`].
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The node `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The node called `name`, or an error with the closest name as a hint.
    pub fn node_by_name(&self, name: &str) -> Result<NodeId> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| TopologyError::UnknownName {
                what: "node",
                name: name.to_string(),
                hint: did_you_mean(name, self.nodes.iter().map(|n| n.name.as_str())),
            })
    }

    /// Number of switches.
    pub fn switch_count(&self) -> usize {
        self.nodes.len() - self.hosts.len()
    }

    /// All directed links of the topology, in world id order.
    pub fn links(&self) -> &[LinkInfo] {
        &self.links
    }

    /// The topology's description of world link `id`, if it is one of its links.
    pub fn link(&self, id: LinkId) -> Option<&LinkInfo> {
        let first = self.links.first()?.id.0;
        self.links.get(id.0.checked_sub(first)? as usize)
    }

    /// The name of a link: `"<from>-><to>"`, e.g. `core3->agg1.0`.
    pub fn link_name(&self, link: &LinkInfo) -> String {
        format!("{}->{}", self.node(link.from).name, self.node(link.to).name)
    }

    /// The egress links of `node` (the links whose queues are its ports), in build order.
    pub fn links_of_node(&self, node: NodeId) -> impl Iterator<Item = &LinkInfo> + '_ {
        let n = node.0 as usize;
        let range = self.out_start[n] as usize..self.out_start[n + 1] as usize;
        self.out_order[range]
            .iter()
            .map(move |&i| &self.links[i as usize])
    }

    /// The links from `from` to `to` (several if the topology has parallel cables).
    pub fn links_between(&self, from: NodeId, to: NodeId) -> impl Iterator<Item = &LinkInfo> + '_ {
        self.links_of_node(from).filter(move |l| l.to == to)
    }

    /// The layer names, indexed by [`LayerId`].
    pub fn layers(&self) -> &[String] {
        &self.layers
    }

    /// The name of layer `id`.
    pub fn layer_name(&self, id: LayerId) -> &str {
        &self.layers[id.0 as usize]
    }

    /// The layer called `name`, or an error with the closest name as a hint.
    pub fn layer_id(&self, name: &str) -> Result<LayerId> {
        self.layers
            .iter()
            .position(|l| l == name)
            .map(|i| LayerId(i as u16))
            .ok_or_else(|| TopologyError::UnknownName {
                what: "layer",
                name: name.to_string(),
                hint: did_you_mean(name, self.layers.iter().map(String::as_str)),
            })
    }

    /// Hosts in [`HostId`] order (`host<i>` is `HostId(i)`).
    pub fn hosts(&self) -> &[HostInfo] {
        &self.hosts
    }

    /// Number of hosts.
    pub fn host_count(&self) -> u32 {
        self.hosts.len() as u32
    }

    /// Where host `id` is, or `None` if there is no such host.
    pub fn host(&self, id: HostId) -> Option<&HostInfo> {
        self.hosts.get(id.0 as usize)
    }

    /// Number of racks (ToRs, or ToR pairs in a DHFT); hosts' `rack` indices are below it.
    pub fn rack_count(&self) -> u32 {
        self.racks
    }

    /// Number of pods; hosts' `pod` indices are below it.
    pub fn pod_count(&self) -> u32 {
        self.pods
    }

    /// How far apart hosts `src` and `dst` are, by their rack and pod.
    ///
    /// # Panics
    /// If either is not a host of this topology (a caller bug, not user input).
    pub fn locality(&self, src: HostId, dst: HostId) -> Locality {
        let (a, b) = (self.hosts[src.0 as usize], self.hosts[dst.0 as usize]);
        if src == dst {
            Locality::SameHost
        } else if a.rack == b.rack {
            Locality::SameTor
        } else if a.pod == b.pod {
            Locality::SamePod
        } else {
            Locality::OtherPod
        }
    }

    /// Restricts every host pair's path set to its minimum-hop paths and installs the result
    /// in `world` (routing mode `shortest`), before any connection opens. Only BCube's path sets change: its `k + 1`
    /// parallel paths differ in length, while every other topology's equal-cost paths are
    /// shortest paths already.
    pub fn keep_shortest_paths(&mut self, world: &mut World) {
        self.paths.keep_shortest();
        world.set_path_source(self.path_source());
    }

    /// Whether every host has a path to every other host, by a sufficient condition checked
    /// in time linear in the links: the forwarding nodes (switches, and BCube's hosts) that
    /// reach, and are reached from, the first one host 0 is cabled to form a set every host
    /// is in or has a link into and a link out of (a path then runs from any host into the
    /// set, through it, and out to any other). Every FatTree, VL2, BCube, DHFT (through the
    /// ToRs of one side), star and dumbbell meets it; the XMP testbeds do not (a host
    /// reaches only the hosts cabled to a switch of its bottlenecks), and then
    /// [`Topology::path_count`] tells which pairs have paths. (A topology file that leaves
    /// hosts apart is refused when it is read.)
    pub fn connects_every_host_pair(&self) -> bool {
        *self
            .connected
            .get_or_init(|| self.search_every_pair_connected())
    }

    /// [`Topology::connects_every_host_pair`], searched.
    fn search_every_pair_connected(&self) -> bool {
        let forwards = |n: u32| self.nodes[n as usize].forwards;
        let Some(first) = self.hosts.first() else {
            return true;
        };
        let root = if forwards(first.node.0) {
            Some(first.node.0)
        } else {
            self.links_of_node(first.node)
                .map(|l| l.to.0)
                .find(|&n| forwards(n))
        };
        let Some(root) = root else {
            return false;
        };
        // The links between forwarding nodes, forwards and backwards.
        let mut outs: Vec<Vec<u32>> = vec![Vec::new(); self.nodes.len()];
        let mut ins: Vec<Vec<u32>> = vec![Vec::new(); self.nodes.len()];
        for l in &self.links {
            if forwards(l.from.0) && forwards(l.to.0) {
                outs[l.from.0 as usize].push(l.to.0);
                ins[l.to.0 as usize].push(l.from.0);
            }
        }
        let reached = |next: &[Vec<u32>]| {
            let mut seen = vec![false; self.nodes.len()];
            let mut stack = vec![root];
            seen[root as usize] = true;
            while let Some(n) = stack.pop() {
                for &m in &next[n as usize] {
                    if !seen[m as usize] {
                        seen[m as usize] = true;
                        stack.push(m);
                    }
                }
            }
            seen
        };
        let (forward, backward) = (reached(&outs), reached(&ins));
        let in_set = |n: u32| forward[n as usize] && backward[n as usize];
        // Per node: whether it has a link into the set, and one out of it.
        let mut into = vec![false; self.nodes.len()];
        let mut out_of = vec![false; self.nodes.len()];
        for l in &self.links {
            into[l.from.0 as usize] |= in_set(l.to.0);
            out_of[l.to.0 as usize] |= in_set(l.from.0);
        }
        self.hosts.iter().all(|h| {
            let n = h.node.0;
            in_set(n) || (into[n as usize] && out_of[n as usize])
        })
    }

    /// A class per host, by [`HostId`]: two hosts of one class are in one rack and pod and
    /// have the same number of paths to and from every other host, so one pair per two classes
    /// (and one pair inside each class of two hosts or more) has every pair's path count and
    /// locality. A host that does not forward is classed by its rack, pod and neighbours (the
    /// nodes its links go to and come from, with repeats): its paths start and end on those
    /// links. A host that forwards (BCube's) has a class of its own, except on a BCube that
    /// offers every pair its `k + 1` parallel paths, where rack and pod decide.
    pub fn path_classes(&self) -> Vec<u32> {
        let uniform = matches!(&self.paths, Paths::BCube(p) if !p.shortest_only);
        let mut ins: Vec<Vec<u32>> = vec![Vec::new(); self.nodes.len()];
        for l in &self.links {
            ins[l.to.0 as usize].push(l.from.0);
        }
        let mut ids: HashMap<(u32, u32, Vec<u32>, Vec<u32>), u32> = HashMap::new();
        let mut classes = Vec::with_capacity(self.hosts.len());
        for (i, h) in self.hosts.iter().enumerate() {
            let (out, into) = if uniform {
                (Vec::new(), Vec::new())
            } else if self.node(h.node).forwards {
                (vec![u32::MAX], vec![i as u32])
            } else {
                let mut out: Vec<u32> = self.links_of_node(h.node).map(|l| l.to.0).collect();
                let mut into = std::mem::take(&mut ins[h.node.0 as usize]);
                out.sort_unstable();
                into.sort_unstable();
                (out, into)
            };
            let next = ids.len() as u32;
            classes.push(*ids.entry((h.rack, h.pod, out, into)).or_insert(next));
        }
        classes
    }

    /// How the switch hops between hosts are found ([`crate::hops`]).
    pub fn hop_rule(&self) -> HopRule {
        self.hops
    }

    /// On a BCube with shortest paths only, whose hosts are each a path class of their own
    /// while a pair's path count and locality depend only on the digits its hosts differ in:
    /// of each (locality, path count) that an ordered pair of distinct `hosts` has (two hosts
    /// of one rack only if `rack_local`), the first such pair (source, destination), in the
    /// order destination by destination through `hosts`, then source by source. `None` on
    /// every other topology, where one pair per two [`Topology::path_classes`] is few.
    pub fn first_pair_per_reach(&self, hosts: &[u32], rack_local: bool) -> Option<Vec<(u32, u32)>> {
        match &self.paths {
            Paths::BCube(p) if p.shortest_only => Some(p.first_pair_per_reach(hosts, rack_local)),
            _ => None,
        }
    }

    /// Number of equal-cost paths from `src` to `dst` (0 when `src == dst`).
    pub fn path_count(&self, src: HostId, dst: HostId) -> u32 {
        self.paths.path_count(src, dst)
    }

    /// Appends the links of path `index` (< `path_count`) from `src` to `dst` to `out`.
    pub fn path(&self, src: HostId, dst: HostId, index: u32, out: &mut Vec<LinkId>) {
        self.paths.path(src, dst, index, out)
    }

    /// A path source for a world: the builders install one with `World::set_path_source`; call
    /// this to install the topology's paths into another world built the same way.
    pub fn path_source(&self) -> Box<dyn PathSource> {
        Box::new(self.paths.clone())
    }
}
