//! The shared construction step of every builder: nodes with names and layers, cables made of
//! two directed links with the cabling's rate and delay and the factory's queues, then the
//! finished [`Topology`] with its path source installed in the world.

use crate::cabling::{Cable, Cabling, QueueFactory, QueueSite};
use crate::error::{Result, TopologyError};
use crate::hops::HopRule;
use crate::paths::{csr, Paths, ShortestPaths};
use crate::topology::{HostInfo, LayerId, LinkInfo, Node, NodeId, NodeKind, Topology};
use htsim_core::ids::LinkId;
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use std::collections::HashMap;

/// Checks that `count` items fit in 32-bit ids (`limit` is what is still free).
pub(crate) fn ensure_fits(
    topology: &'static str,
    what: &'static str,
    count: u64,
    limit: u64,
) -> Result<()> {
    if count > limit {
        return Err(TopologyError::TooLarge {
            topology,
            what,
            limit,
        });
    }
    Ok(())
}

/// Checks the number of hosts and directed links of a topology before building it: the links
/// must fit in the world's budget ([`World::set_max_links`]), checked first so that a network
/// too large for both is refused with its size and memory, and ids in 32 bits.
pub(crate) fn ensure_size(
    world: &World,
    topology: &'static str,
    hosts: u64,
    links: u64,
) -> Result<()> {
    let used = world.links().len() as u64;
    let max_links = world.max_links().saturating_sub(used);
    if links > max_links {
        return Err(TopologyError::OverBudget {
            topology,
            hosts,
            links,
            max_links,
        });
    }
    ensure_fits(topology, "hosts", hosts, u64::from(u32::MAX))?;
    ensure_fits(topology, "links", links, u64::from(u32::MAX) - used)
}

/// An error for an out-of-range builder parameter.
pub(crate) fn invalid(topology: &'static str, message: impl Into<String>) -> TopologyError {
    TopologyError::InvalidParameter {
        topology,
        message: message.into(),
    }
}

/// Accumulates a topology while adding its links to the world.
pub(crate) struct Assembler<'w, 'q> {
    world: &'w mut World,
    cabling: &'w Cabling,
    queues: &'w mut QueueFactory<'q>,
    kind: &'static str,
    nodes: Vec<Node>,
    links: Vec<LinkInfo>,
    hosts: Vec<HostInfo>,
    layers: Vec<String>,
    hops: HopRule,
}

impl<'w, 'q> Assembler<'w, 'q> {
    /// Starts a topology of `kind` whose cables have the layers `cable_layers` (the cabling's
    /// overrides must name some of these).
    pub(crate) fn new(
        kind: &'static str,
        cable_layers: &[&str],
        world: &'w mut World,
        cabling: &'w Cabling,
        queues: &'w mut QueueFactory<'q>,
    ) -> Result<Self> {
        cabling.check(kind, cable_layers)?;
        Ok(Assembler {
            world,
            cabling,
            queues,
            kind,
            nodes: Vec::new(),
            links: Vec::new(),
            hosts: Vec::new(),
            layers: Vec::new(),
            hops: HopRule::Searched,
        })
    }

    /// Reserves room for `nodes` nodes and `links` directed links.
    pub(crate) fn reserve(&mut self, nodes: usize, links: usize) {
        self.nodes.reserve_exact(nodes);
        self.links.reserve_exact(links);
    }

    /// Number of nodes added so far (the id the next node gets).
    pub(crate) fn nodes_len(&self) -> u32 {
        self.nodes.len() as u32
    }

    /// The id of layer `name`, interned on first use.
    pub(crate) fn layer(&mut self, name: &str) -> LayerId {
        if let Some(i) = self.layers.iter().position(|l| l == name) {
            return LayerId(i as u16);
        }
        self.layers.push(name.to_string());
        LayerId((self.layers.len() - 1) as u16)
    }

    /// Adds the next host, `host<i>` with `i` its [`HostId`](htsim_core::ids::HostId), in
    /// layer `host`.
    pub(crate) fn host(&mut self, rack: u32, pod: u32, forwards: bool) -> NodeId {
        let layer = self.layer("host");
        let name = format!("host{}", self.hosts.len());
        let node = self.push_node(name, NodeKind::Host, layer, forwards);
        self.hosts.push(HostInfo { node, rack, pod });
        node
    }

    /// Adds a switch called `name` in layer `layer`.
    pub(crate) fn switch(&mut self, name: String, layer: LayerId) -> NodeId {
        self.push_node(name, NodeKind::Switch, layer, true)
    }

    fn push_node(
        &mut self,
        name: String,
        kind: NodeKind,
        layer: LayerId,
        forwards: bool,
    ) -> NodeId {
        self.nodes.push(Node {
            name,
            kind,
            layer,
            forwards,
        });
        NodeId((self.nodes.len() - 1) as u32)
    }

    /// Adds the directed link `from -> to`, part of a cable of layer `cable`, with the cabling's
    /// rate and delay for that layer and a queue from the factory.
    pub(crate) fn link(&mut self, from: NodeId, to: NodeId, cable: LayerId) -> LinkId {
        let spec = self.cabling.cable(&self.layers[cable.0 as usize]);
        self.link_with(from, to, cable, spec, None)
    }

    /// Adds the directed link `from -> to` with an explicit rate and delay, and a buffer limit
    /// replacing the factory queue's when given.
    pub(crate) fn link_with(
        &mut self,
        from: NodeId,
        to: NodeId,
        cable: LayerId,
        spec: Cable,
        limit: Option<BufferSize>,
    ) -> LinkId {
        let Cable { rate, delay } = spec;
        let layer = self.nodes[from.0 as usize].layer;
        let mut queue = (self.queues)(QueueSite {
            layer: &self.layers[layer.0 as usize],
            cable: &self.layers[cable.0 as usize],
            rate,
        });
        if let Some(limit) = limit {
            queue.set_limit(limit);
        }
        let id = self.world.add_link(rate, delay, queue);
        self.links.push(LinkInfo {
            id,
            from,
            to,
            layer,
            cable,
        });
        id
    }

    /// The layer of node `node`.
    pub(crate) fn node_layer(&self, node: NodeId) -> LayerId {
        self.nodes[node.0 as usize].layer
    }

    /// Adds a cable between `a` and `b`: the links `a -> b` and `b -> a`, in that order.
    pub(crate) fn cable(&mut self, a: NodeId, b: NodeId, cable: LayerId) -> [LinkId; 2] {
        [self.link(a, b, cable), self.link(b, a, cable)]
    }

    /// Sets how the switch hops between hosts are found (default: searched).
    pub(crate) fn set_hop_rule(&mut self, rule: HopRule) {
        self.hops = rule;
    }

    /// Finishes with equal-cost shortest paths computed on demand by BFS.
    pub(crate) fn finish_shortest(self, racks: u32, pods: u32) -> Topology {
        self.finish(racks, pods, None)
    }

    /// Finishes the topology with `paths` (`None`: shortest paths by BFS) and installs them in
    /// the world.
    pub(crate) fn finish(self, racks: u32, pods: u32, paths: Option<Paths>) -> Topology {
        let (out_start, out_order) = csr(
            self.nodes.len(),
            self.links
                .iter()
                .enumerate()
                .map(|(i, l)| (l.from.0, i as u32)),
        );
        let by_name: HashMap<String, NodeId> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), NodeId(i as u32)))
            .collect();
        let paths = paths.unwrap_or_else(|| {
            Paths::Shortest(ShortestPaths::new(&self.nodes, &self.links, &self.hosts))
        });
        let topology = Topology {
            kind: self.kind,
            nodes: self.nodes,
            links: self.links,
            hosts: self.hosts,
            layers: self.layers,
            out_start,
            out_order,
            by_name,
            racks,
            pods,
            paths,
            hops: self.hops,
            connected: Default::default(),
        };
        self.world.set_path_source(topology.path_source());
        topology
    }
}
