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
//! And its own modules:
//!
//! - [`scenario`]: loading scenario files (TOML), with errors naming file, line, column and key;
//!   key paths for `[sweep]` and `--set`; sweep points.
//! - [`builder`]: assembling a scenario in code ([`builder::ScenarioBuilder`]), checked by the
//!   same loader, into the same [`scenario::Scenario`] a file gives.
//! - [`runner`], [`shard`], [`output`], [`identity`], [`lock`]: the run list (sweep points x
//!   seeds, stable ids), shards, parallel runs with atomic per-run files, each run's record of
//!   what it simulated, resuming interrupted sweeps (only runs with the same settings), and the
//!   output directory's lock against a second writer.
//! - [`simulate`]: one run of a scenario: building the world (topology, queues, transports, flow
//!   classes, events), the central flow generator, and flows.csv / links.csv / summary.json.
//! - [`report`]: metrics, cross-seed summaries (summary.csv / summary.json) and plots.
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

pub mod builder;
pub mod identity;
pub mod lock;
pub mod output;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod shard;
pub mod simulate;
