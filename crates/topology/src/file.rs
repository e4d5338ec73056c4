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
//!   rack defaults to its index and its pod to its rack; a rack must lie in one pod.
//! - A switch's layer defaults to `switch`; hosts are in layer `host`. Names are unique.
//! - `link` makes a cable: the directed links `a -> b` and `b -> a`, both with that rate,
//!   propagation delay and buffer limit. The queue discipline comes from the queue factory
//!   (told each link's egress layer, cable layer and rate); the file's buffer then sets its
//!   limit. The cable layer defaults to the layer of `b` (write the lower end first: `link
//!   host0 tor0 ...` is a `tor` cable, as in a FatTree).
//! - Hosts do not forward. Paths are all equal-hop shortest paths, found by BFS on demand,
//!   at most [`MAX_PATHS`](crate::paths::MAX_PATHS) per pair.
//! - Errors name the line.

use crate::assemble::Assembler;
use crate::cabling::{Cable, Cabling, QueueFactory};
use crate::error::{did_you_mean, Result, TopologyError};
use crate::topology::{NodeId, Topology};
use htsim_core::units::{parse_buffer, parse_duration, parse_rate, BufferSize};
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
                    let delay = parse_duration(rest[3]).map_err(unit)?;
                    let buffer = parse_buffer(rest[4]).map_err(unit)?;
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
        Ok(FileTopology { nodes, links })
    }

    /// Builds the topology into `world`, with queues from `queues` limited to each line's
    /// buffer, and installs its paths.
    pub fn build(&self, world: &mut World, queues: &mut QueueFactory<'_>) -> Result<Topology> {
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
