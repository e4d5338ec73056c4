//! htsim in Rust: a high-speed, packet-level, discrete-event simulator of datacenter networks.
//!
//! Build a scenario in code (or load a TOML file), run it, and read its results:
//!
//! ```
//! use htsim::builder::ScenarioBuilder;
//! use htsim::core::{Rate, SimTime};
//! use htsim::scenario::{FlowClass, Senders, TopologyConfig, TransportConfig};
//! use htsim::simulate::{run, RunContext};
//!
//! let scenario = ScenarioBuilder::new("demo")
//!     .duration(SimTime::from_ms(20))
//!     .topology(TopologyConfig::fattree(4).link_rate(Rate::gbps(1)))
//!     .transport("long", TransportConfig::mptcp(4))
//!     .flows(FlowClass::long("long", "long").senders(Senders::Count(4)))
//!     .build()?;
//! let out = run(&scenario, 1, &RunContext::default())?;
//! assert!(out.conservation.holds());
//! assert_eq!(out.summary.classes[0].long_flows, 4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The user guides live in the repository's `docs/` folder: the scenario reference
//! (`docs/scenarios.md`), the outputs and metric definitions (`docs/outputs.md`), the model
//! reference that code comments cite by section (`docs/model.md`), running on a cluster
//! (`docs/cluster.md`) and embedding (`docs/embedding.md`).
//!
//! This root crate is the library users depend on. It re-exports the workspace's crates:
//!
//! - [`core`] (`htsim-core`): the engine — time, event queue, packets, queues, links, routes,
//!   endpoints, timers, random streams.
//! - [`topology`] (`htsim-topology`): FatTree, VL2, BCube, dual-homed FatTree, star, dumbbell,
//!   the XMP testbeds and file-defined topologies; equal-cost path sets; link events.
//! - [`transport`] (`htsim-transport`): TCP NewReno, DCTCP, packet scatter, MPTCP (LIA,
//!   fully coupled, uncoupled, EWTCP), MMPTCP and XMP, with the `rfc` and `ns3-mmptcp`
//!   profiles, and per-flow event traces.
//! - [`workload`] (`htsim-workload`): traffic matrices, flow-size distributions, arrivals,
//!   partition/aggregate jobs.
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
//! - [`simulate`]: one run of a scenario: the pre-flight check of every sweep point, building
//!   the world (topology, queues, transports, flow classes, events), the central flow
//!   generator, and flows.csv / links.csv / summary.json.
//! - [`report`]: metrics, cross-seed summaries (summary.csv / summary.json) and plots.

#[doc(inline)]
pub use htsim_core as core;
#[doc(inline)]
pub use htsim_topology as topology;
#[doc(inline)]
pub use htsim_transport as transport;
#[doc(inline)]
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
