//! Link events: which links a change applies to, and scheduling the change.
//!
//! A [`LinkSelector`] resolves to world links:
//! - [`LinkSelector::Names`]: each name is `"a->b"` (the links from node `a` to node `b`, e.g.
//!   `core3->agg1.0`, which is also a link's name), `"a<->b"` (both directions), or a node name
//!   `"a"` (all of `a`'s egress links). Names matching nothing are errors with a "did you mean".
//! - [`LinkSelector::Ids`]: an explicit list of world link ids of the topology.
//! - [`LinkSelector::Layer`]: all egress links of the layer's nodes, or of a random fraction of
//!   its switches: `floor(count × fraction)` distinct switches drawn uniformly with the given
//!   RNG (the hotspot experiment of docs/model.md 9.5 takes 30% of the 16 cores, i.e. 4, and
//!   shrinks all their core-to-aggregation egress queues).
//!
//! The result is sorted by link id and has no duplicates. [`schedule`] applies a
//! [`LinkChange`] to the selected links at a time.

use crate::error::{did_you_mean, Result, TopologyError};
use crate::topology::{NodeId, NodeKind, Topology};
use htsim_core::ids::LinkId;
use htsim_core::link::LinkChange;
use htsim_core::world::World;
use htsim_core::SimTime;
use rand::Rng;

/// Which links a link event applies to.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkSelector {
    /// Links by name: `"a->b"`, `"a<->b"` or a node name (its egress links).
    Names(Vec<String>),
    /// Links by world id.
    Ids(Vec<LinkId>),
    /// Egress links of the nodes of a layer.
    Layer {
        /// The layer name (`core`, `agg`, ...).
        layer: String,
        /// `None`: every node of the layer. `Some(f)`, `0 <= f <= 1`: `floor(count × f)`
        /// distinct switches of the layer chosen at random.
        switches: Option<f64>,
    },
}

/// Tolerance for `count × fraction` landing just below a whole number (`0.29 × 100`).
const FLOOR_EPSILON: f64 = 1e-9;

impl LinkSelector {
    /// The world links selected in `topology`; `rng` draws random switches (use a named
    /// stream of the run, e.g. `world.streams().stream("events")`, so the choice depends on
    /// the seed only).
    pub fn resolve<R: Rng + ?Sized>(
        &self,
        topology: &Topology,
        rng: &mut R,
    ) -> Result<Vec<LinkId>> {
        let mut links = match self {
            LinkSelector::Names(names) => {
                let mut out = Vec::new();
                for name in names {
                    out.extend(by_name(topology, name)?);
                }
                out
            }
            LinkSelector::Ids(ids) => {
                if let Some(bad) = ids.iter().find(|&&id| topology.link(id).is_none()) {
                    return Err(TopologyError::BadSelector(format!(
                        "link id {} is not a link of this topology",
                        bad.0
                    )));
                }
                ids.clone()
            }
            LinkSelector::Layer { layer, switches } => by_layer(topology, layer, *switches, rng)?,
        };
        links.sort_unstable();
        links.dedup();
        Ok(links)
    }
}

fn by_name(t: &Topology, name: &str) -> Result<Vec<LinkId>> {
    let node = |n: &str| t.node_by_name(n.trim());
    let between =
        |a: NodeId, b: NodeId| -> Vec<LinkId> { t.links_between(a, b).map(|l| l.id).collect() };
    let found = if let Some((a, b)) = name.split_once("<->") {
        let (a, b) = (node(a)?, node(b)?);
        let mut v = between(a, b);
        v.extend(between(b, a));
        v
    } else if let Some((a, b)) = name.split_once("->") {
        between(node(a)?, node(b)?)
    } else {
        t.links_of_node(node(name)?).map(|l| l.id).collect()
    };
    if found.is_empty() {
        let a = name
            .split("->")
            .next()
            .unwrap_or(name)
            .trim_end_matches('<');
        let hint = node(a)
            .map(|from| {
                did_you_mean(
                    name,
                    t.links_of_node(from)
                        .map(|l| t.link_name(l))
                        .collect::<Vec<_>>()
                        .iter()
                        .map(String::as_str),
                )
            })
            .unwrap_or_default();
        return Err(TopologyError::UnknownName {
            what: "link",
            name: name.to_string(),
            hint,
        });
    }
    Ok(found)
}

fn by_layer<R: Rng + ?Sized>(
    t: &Topology,
    layer: &str,
    switches: Option<f64>,
    rng: &mut R,
) -> Result<Vec<LinkId>> {
    let id = t.layer_id(layer)?;
    let mut nodes: Vec<NodeId> = (0..t.nodes().len() as u32)
        .map(NodeId)
        .filter(|&n| t.node(n).layer == id)
        .collect();
    if let Some(fraction) = switches {
        nodes = draw_switches(t, nodes, fraction, rng)?;
    }
    Ok(nodes
        .iter()
        .flat_map(|&n| t.links_of_node(n).map(|l| l.id))
        .collect())
}

/// `floor(count × fraction)` distinct switches of `nodes` (its hosts left out), drawn uniformly
/// at random with `rng`: how an event's `switches` share picks the switches it changes. An error
/// for a fraction outside 0 to 1.
pub fn draw_switches<R: Rng + ?Sized>(
    t: &Topology,
    mut nodes: Vec<NodeId>,
    fraction: f64,
    rng: &mut R,
) -> Result<Vec<NodeId>> {
    if !(0.0..=1.0).contains(&fraction) {
        return Err(TopologyError::BadSelector(format!(
            "the fraction of switches must be between 0 and 1, got {fraction}"
        )));
    }
    nodes.retain(|&n| t.node(n).kind == NodeKind::Switch);
    let take = (nodes.len() as f64 * fraction + FLOOR_EPSILON).floor() as usize;
    // Partial Fisher-Yates: the first `take` entries are a uniform random subset.
    for i in 0..take {
        let j = rng.random_range(i..nodes.len());
        nodes.swap(i, j);
    }
    nodes.truncate(take);
    Ok(nodes)
}

/// Applies `change` to each of `links` at time `at`.
pub fn schedule(world: &mut World, links: &[LinkId], at: SimTime, change: LinkChange) {
    for &link in links {
        world.schedule_link_change(at, link, change);
    }
}
