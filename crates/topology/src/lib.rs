//! Datacenter topologies for htsim: builders that add a network's links to a
//! [`World`](htsim_core::world::World), the map of what they built, its equal-cost path sets,
//! and link events.
//!
//! - [`topology`]: the [`Topology`](topology::Topology) every builder returns: nodes (name,
//!   host/switch, layer), directed links (world id, ends, egress layer, cable layer), hosts with
//!   rack and pod, name lookup, per host pair the path count and [`Locality`](topology::Locality).
//! - [`cabling`]: how links are made: rate and delay per cable layer, queues from a factory.
//! - Builders, one per module, each documenting its node names, layers and counts:
//!   [`fattree`], [`dhft`], [`vl2`], [`bcube`], [`star`], [`dumbbell`], [`xmp`] (two-path
//!   testbed and torus), [`file`](mod@file) (a plain text description).
//! - [`paths`]: the [`PathSource`](htsim_core::routing::PathSource) each builder installs in
//!   the world: arithmetic FatTree paths, BCube's parallel paths, or all shortest paths by BFS on
//!   demand. Path *choice* (ECMP hash of the 5-tuple, per-packet spraying, one fixed path) is
//!   the engine's (`htsim_core::routing`).
//! - [`hops`]: switch hops between hosts, and the host pairs at a given number of them.
//! - [`events`]: selecting links (by name, id, or a random fraction of a layer's switches) and
//!   scheduling rate, buffer, down and up changes on them.
//! - [`error`]: the [`TopologyError`](error::TopologyError) enum; nothing here panics on
//!   user input.

mod assemble;
pub mod bcube;
pub mod cabling;
pub mod dhft;
pub mod dumbbell;
pub mod error;
pub mod events;
pub mod fattree;
pub mod file;
pub mod hops;
pub mod paths;
pub mod star;
pub mod topology;
pub mod vl2;
pub mod xmp;
