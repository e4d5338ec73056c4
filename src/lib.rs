//! htsim in Rust: a high-speed, packet-level, discrete-event simulator of datacenter networks.
//!
//! This root crate is the library users depend on. It re-exports the workspace's crates:
//!
//! - [`core`] (`htsim-core`): the engine — time, event queue, packets, queues, links, routes,
//!   endpoints, timers, random streams.
//! - [`topology`] (`htsim-topology`): FatTree, VL2, BCube, dual-homed FatTree, star, dumbbell,
//!   the XMP testbeds and file-defined topologies; equal-cost path sets; link events.
//! - [`transport`] (`htsim-transport`): TCP NewReno, DCTCP and, as they land, packet scatter,
//!   MPTCP, MMPTCP and XMP.
//! - [`workload`] (`htsim-workload`): traffic matrices, flow-size distributions, arrivals.
//!
//! Scenario loading, the run list, parallel runs and results will live here (see README.md for
//! the status of each part).
//!
//! ```
//! use htsim::core::{world::World, Rate, SimTime};
//! use htsim::core::queue::{Discipline, Queue};
//! use htsim::core::units::BufferSize;
//!
//! let mut world = World::new(42);
//! let link = world.add_link(
//!     Rate::gbps(10),
//!     SimTime::from_us(1),
//!     Queue::new(BufferSize::Packets(100), Discipline::DropTail),
//! );
//! assert_eq!(world.link(link).rate(), Rate::gbps(10));
//! ```

pub use htsim_core as core;
pub use htsim_topology as topology;
pub use htsim_transport as transport;
pub use htsim_workload as workload;

pub mod output;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod shard;
pub mod simulate;
