//! A topology read from a plain text file.
//!
//! One statement per line; `#` starts a comment; blank lines are ignored; fields are separated
//! by whitespace, values use the scenario units (`"10Gbps"`, `"20us"`, `"100pkt"`, `"64KiB"`):
//!
//! ```text
//! host   host<i>  [rack=<r>] [pod=<p>]
//! switch <name>   [layer=<layer>]
//! link   <a> <b>  <rate> <delay> <buffer> [layer=<cable layer>]
//! ```
//!
//! - Hosts must be named `host0`, `host1`, ... in order (`host<i>` is `HostId(i)`). A host's
//!   rack defaults to its index and its pod to its rack; a rack must lie in one pod. Rack and
//!   pod indices are below the number of hosts.
//! - A switch's layer defaults to `switch`; hosts are in layer `host`. Names are unique and
//!   hold no `->` (which joins the ends of a link name).
//! - `link` makes a cable: the directed links `a -> b` and `b -> a`, both with that rate,
//!   propagation delay and buffer limit. The queue discipline comes from the queue factory
//!   (told each link's egress layer, cable layer and rate); the file's buffer then sets its
//!   limit. The cable layer defaults to the layer of `b` (write the lower end first: `link
//!   host0 tor0 ...` is a `tor` cable, as in a FatTree). The rate is above 0, the delay at
//!   most [`MAX_SCENARIO_DURATION`](htsim_core::units::MAX_SCENARIO_DURATION), as in a
//!   scenario.
//! - Hosts do not forward. Paths are all equal-hop shortest paths, found by BFS on demand,
//!   at most [`MAX_PATHS`](crate::paths::MAX_PATHS) per pair. Every host must reach every
//!   other (a cable between them, or a path through switches only).
//! - Errors name the line.

use crate::assemble::{ensure_size, Assembler};
use crate::cabling::{Cable, Cabling, QueueFactory};
use crate::error::{did_you_mean, Result, TopologyError};
use crate::topology::{NodeId, Topology};
use htsim_core::units::{parse_buffer, parse_rate, parse_scenario_duration, BufferSize};
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use std::collections::HashMap;

/// A parsed topology file, ready to build.
#[derive(Clone, Debug, PartialEq)]
pub struct FileTopology {
    nodes: Vec<FileNode>,
    links: Vec<FileLink>,
}

#[derive(Clone, Debug, PartialEq)]
enum FileNode {
    Host { rack: u32, pod: u32 },
    Switch { name: String, layer: String },
}

#[derive(Clone, Debug, PartialEq)]
struct FileLink {
    a: usize,
    b: usize,
    rate: Rate,
    delay: SimTime,
    buffer: BufferSize,
    cable: Option<String>,
}

const KIND: &str = "file";

/// Above this many hosts, connectivity is only accepted through one switch network that
/// reaches every host (checking every pair would take quadratic time).
const MAX_PAIRWISE_HOSTS: usize = 4096;

fn line_error(line: usize, message: impl Into<String>) -> TopologyError {
    TopologyError::File {
        line,
        message: message.into(),
    }
}

/// Splits `key=value` options; `allowed` are the keys the statement takes.
fn options<'a>(
    line: usize,
    fields: &[&'a str],
    allowed: &[&str],
) -> Result<HashMap<&'a str, &'a str>> {
    let mut out = HashMap::new();
    for f in fields {
        let (key, value) = f
            .split_once('=')
            .ok_or_else(|| line_error(line, format!("expected key=value, got \"{f}\"")))?;
        if !allowed.contains(&key) {
            let hint = did_you_mean(key, allowed.iter().copied());
            return Err(line_error(line, format!("unknown option \"{key}\"{hint}")));
        }
        if out.insert(key, value).is_some() {
            return Err(line_error(line, format!("option \"{key}\" given twice")));
        }
    }
    Ok(out)
}

fn number(line: usize, key: &str, value: &str) -> Result<u32> {
    value.parse().map_err(|_| {
        line_error(
            line,
            format!("{key} must be a whole number, got \"{value}\""),
        )
    })
}

impl FileTopology {
    /// Parses the text of a topology file.
    pub fn parse(text: &str) -> Result<Self> {
        let mut nodes = Vec::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        let mut links = Vec::new();
        let mut rack_pod: HashMap<u32, u32> = HashMap::new();
        let mut hosts = 0u32;
        // The line of each node's statement, for errors found after reading the file.
        let mut node_lines = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw.split('#').next().unwrap_or("");
            let fields: Vec<&str> = content.split_whitespace().collect();
            let Some((&statement, rest)) = fields.split_first() else {
                continue;
            };
            match statement {
                "host" | "switch" => {
                    let (&name, rest) = rest
                        .split_first()
                        .ok_or_else(|| line_error(line, format!("{statement} needs a name")))?;
                    if by_name.contains_key(name) {
                        return Err(line_error(line, format!("node \"{name}\" defined twice")));
                    }
                    // Link names are `a->b` (and `a<->b` names both directions): a node whose
                    // name holds `->` would make `s->t` name a node and a link at once.
                    if name.contains("->") {
                        return Err(line_error(
                            line,
                            format!(
                                "node name \"{name}\" holds `->`, which joins the two ends of \
                                 a link name (`a->b`): name the node without it"
                            ),
                        ));
                    }
                    let node = if statement == "host" {
                        if name != format!("host{hosts}") {
                            return Err(line_error(
                                line,
                                format!("hosts are named host0, host1, ... in order: expected host{hosts}, got \"{name}\""),
                            ));
                        }
                        let opts = options(line, rest, &["rack", "pod"])?;
                        let rack = opts
                            .get("rack")
                            .map_or(Ok(hosts), |v| number(line, "rack", v))?;
                        let pod = opts
                            .get("pod")
                            .map_or(Ok(rack), |v| number(line, "pod", v))?;
                        if *rack_pod.entry(rack).or_insert(pod) != pod {
                            return Err(line_error(
                                line,
                                format!("rack {rack} is already in pod {}", rack_pod[&rack]),
                            ));
                        }
                        hosts += 1;
                        FileNode::Host { rack, pod }
                    } else {
                        let opts = options(line, rest, &["layer"])?;
                        let layer = opts.get("layer").copied().unwrap_or("switch");
                        if layer == "host" {
                            return Err(line_error(line, "layer \"host\" is for hosts"));
                        }
                        FileNode::Switch {
                            name: name.to_string(),
                            layer: layer.to_string(),
                        }
                    };
                    by_name.insert(name.to_string(), nodes.len());
                    nodes.push(node);
                    node_lines.push(line);
                }
                "link" => {
                    if rest.len() < 5 {
                        return Err(line_error(
                            line,
                            "link needs: <a> <b> <rate> <delay> <buffer> [layer=<layer>]",
                        ));
                    }
                    let node = |name: &str| {
                        by_name.get(name).copied().ok_or_else(|| {
                            let hint = did_you_mean(name, by_name.keys().map(String::as_str));
                            line_error(line, format!("no node \"{name}\" defined above{hint}"))
                        })
                    };
                    let (a, b) = (node(rest[0])?, node(rest[1])?);
                    if a == b {
                        return Err(line_error(line, "a link joins two different nodes"));
                    }
                    let unit = |e: htsim_core::units::UnitError| line_error(line, e.to_string());
                    let rate = parse_rate(rest[2]).map_err(unit)?;
                    if rate.as_bps() == 0 {
                        return Err(line_error(line, "a link's rate must be positive"));
                    }
                    let delay = parse_scenario_duration(rest[3]).map_err(unit)?;
                    let buffer = parse_buffer(rest[4]).map_err(unit)?;
                    if matches!(buffer, BufferSize::Packets(0) | BufferSize::Bytes(0)) {
                        return Err(line_error(
                            line,
                            "a link's buffer must hold at least one packet",
                        ));
                    }
                    let opts = options(line, &rest[5..], &["layer"])?;
                    links.push(FileLink {
                        a,
                        b,
                        rate,
                        delay,
                        buffer,
                        cable: opts.get("layer").map(|s| s.to_string()),
                    });
                }
                other => {
                    let hint = did_you_mean(other, ["host", "switch", "link"]);
                    return Err(line_error(
                        line,
                        format!("unknown statement \"{other}\"{hint}"),
                    ));
                }
            }
        }
        if hosts == 0 {
            return Err(line_error(
                text.lines().count().max(1),
                "the file defines no host",
            ));
        }
        // The host layout keeps a slot per rack and pod index up to the largest, so an index
        // is below the host count (every rack holds a host, so that numbers any layout).
        for (node, &line) in nodes.iter().zip(&node_lines) {
            if let FileNode::Host { rack, pod } = *node {
                for (key, index) in [("rack", rack), ("pod", pod)] {
                    if index >= hosts {
                        return Err(line_error(
                            line,
                            format!(
                                "{key}={index} is out of range: with {hosts} host(s), racks and \
                                 pods are numbered from 0 to {}",
                                hosts - 1
                            ),
                        ));
                    }
                }
            }
        }
        let topology = FileTopology { nodes, links };
        topology.check_connected(&node_lines)?;
        Ok(topology)
    }

    /// Number of hosts.
    pub fn host_count(&self) -> u64 {
        self.nodes
            .iter()
            .filter(|n| matches!(n, FileNode::Host { .. }))
            .count() as u64
    }

    /// Number of directed links (two per `link` line).
    pub fn link_count(&self) -> u64 {
        2 * self.links.len() as u64
    }

    /// Checks that every host can reach every other: hosts do not forward, so two hosts need a
    /// cable between them or a path through switches only. `node_lines` are the nodes' lines.
    fn check_connected(&self, node_lines: &[usize]) -> Result<()> {
        // Switches joined by switch-to-switch cables, as union-find roots.
        let mut parent: Vec<usize> = (0..self.nodes.len()).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let is_host = |i: usize| matches!(self.nodes[i], FileNode::Host { .. });
        for l in &self.links {
            if !is_host(l.a) && !is_host(l.b) {
                let (x, y) = (root(&mut parent, l.a), root(&mut parent, l.b));
                parent[x] = y;
            }
        }
        // Per host (in host order): the switch networks it is cabled to and its host neighbours.
        let host_nodes: Vec<usize> = (0..self.nodes.len()).filter(|&i| is_host(i)).collect();
        let mut index = vec![usize::MAX; self.nodes.len()];
        for (h, &n) in host_nodes.iter().enumerate() {
            index[n] = h;
        }
        let mut nets: Vec<Vec<usize>> = vec![Vec::new(); host_nodes.len()];
        let mut direct: Vec<Vec<usize>> = vec![Vec::new(); host_nodes.len()];
        for l in &self.links {
            for (me, other) in [(l.a, l.b), (l.b, l.a)] {
                if !is_host(me) {
                    continue;
                }
                if is_host(other) {
                    direct[index[me]].push(index[other]);
                } else {
                    let r = root(&mut parent, other);
                    nets[index[me]].push(r);
                }
            }
        }
        for v in nets.iter_mut().chain(direct.iter_mut()) {
            v.sort_unstable();
            v.dedup();
        }
        let line_of = |h: usize| node_lines[host_nodes[h]];
        if let Some(h) = nets.iter().position(|n| n.is_empty()) {
            if host_nodes.len() > 1 && direct[h].len() + 1 < host_nodes.len() {
                return Err(line_error(
                    line_of(h),
                    format!("host{h} has no link to a switch: it cannot reach every other host (hosts do not forward)"),
                ));
            }
        }
        // Usually one switch network reaches every host.
        if nets[0]
            .iter()
            .any(|r| nets.iter().all(|n| n.binary_search(r).is_ok()))
        {
            return Ok(());
        }
        if host_nodes.len() > MAX_PAIRWISE_HOSTS {
            return Err(line_error(
                line_of(0),
                format!("no switch network reaches every host: with more than {MAX_PAIRWISE_HOSTS} hosts every host must be cabled to one connected network of switches (hosts do not forward)"),
            ));
        }
        for a in 0..host_nodes.len() {
            for b in a + 1..host_nodes.len() {
                let shared = nets[a].iter().any(|r| nets[b].binary_search(r).is_ok());
                if !shared && direct[a].binary_search(&b).is_err() {
                    return Err(line_error(
                        line_of(b),
                        format!("host{b} cannot reach host{a}: the topology is not connected (hosts do not forward, so they need a path through switches)"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Builds the topology into `world`, with queues from `queues` limited to each line's
    /// buffer, and installs its paths.
    pub fn build(&self, world: &mut World, queues: &mut QueueFactory<'_>) -> Result<Topology> {
        ensure_size(world, KIND, self.host_count(), self.link_count())?;
        let cabling = Cabling::uniform(Rate::bps(0), SimTime::ZERO);
        let mut a = Assembler::new(KIND, &[], world, &cabling, queues)?;
        let mut ids = Vec::with_capacity(self.nodes.len());
        let (mut racks, mut pods) = (0, 0);
        for node in &self.nodes {
            ids.push(match node {
                FileNode::Host { rack, pod } => {
                    racks = racks.max(rack + 1);
                    pods = pods.max(pod + 1);
                    a.host(*rack, *pod, false)
                }
                FileNode::Switch { name, layer } => {
                    let layer = a.layer(layer);
                    a.switch(name.clone(), layer)
                }
            });
        }
        for l in &self.links {
            let (from, to): (NodeId, NodeId) = (ids[l.a], ids[l.b]);
            let cable = match &l.cable {
                Some(name) => a.layer(name),
                None => a.node_layer(to),
            };
            let spec = Cable {
                rate: l.rate,
                delay: l.delay,
            };
            a.link_with(from, to, cable, spec, Some(l.buffer));
            a.link_with(to, from, cable, spec, Some(l.buffer));
        }
        Ok(a.finish_shortest(racks, pods))
    }
}
