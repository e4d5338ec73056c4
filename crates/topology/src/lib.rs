//! Datacenter topologies for htsim: builders that add a network's links to a
//! [`World`](htsim_core::world::World), the map of what they built, its equal-cost path sets,
//! and link events.
//!
//! - [`topology`]: the [`Topology`](topology::Topology) every builder returns: nodes (name,
//!   host/switch, layer), directed links (world id, ends, egress layer, cable layer), hosts with
//!   rack and pod, name lookup, per host pair the path count and [`Locality`](topology::Locality).
//! - [`cabling`]: how links are made: rate and delay per cable layer, queues from a factory.
//! - Builders, one per module: [`fattree`], [`bcube`].
//! - [`paths`]: the [`PathSource`](htsim_core::routing::PathSource) each builder installs:
//!   arithmetic FatTree paths, BCube's parallel paths, or shortest paths by BFS on demand.
//!   Path *choice* (ECMP hash, spraying, single path) is the engine's (`htsim_core::routing`).
//! - [`error`]: the [`TopologyError`](error::TopologyError) enum; nothing here panics on
//!   user input.

mod assemble;
pub mod bcube;
pub mod cabling;
pub mod error;
pub mod fattree;
pub mod paths;
pub mod topology;
