//! htsim in Rust: a high-speed, packet-level, discrete-event simulator of datacenter networks.
//!
//! Build a scenario in code with [`builder::ScenarioBuilder`] (or load a TOML file with
//! [`scenario::load`]), run it with [`simulate::run`], and read its results: one typed record
//! per flow and per link ([`simulate::results`], the rows of flows.csv and links.csv) and the
//! per-class and per-layer summary ([`report::run_summary::RunSummary`]):
//!
//! ```
//! use htsim::builder::ScenarioBuilder;
//! use htsim::core::{Rate, SimTime};
//! use htsim::scenario::{FlowClass, Senders, SizeSpec, TopologyConfig, TransportConfig};
//! use htsim::simulate::{run, RunContext};
//!
//! // A FatTree k = 4 at 1 Gb/s: 4 long MPTCP flows, and a 50 KB TCP flow from each other host.
//! let scenario = ScenarioBuilder::new("demo")
//!     .duration(SimTime::from_ms(20))
//!     .drain(SimTime::from_ms(20))
//!     .topology(TopologyConfig::fattree(4).link_rate(Rate::gbps(1)))
//!     .transport("long", TransportConfig::mptcp(4))
//!     .flows(FlowClass::long("long", "long").senders(Senders::Count(4)))
//!     .flows(
//!         FlowClass::new("short", SizeSpec::Fixed(50_000), TransportConfig::tcp())
//!             .senders(Senders::Rest),
//!     )
//!     .build()?;
//! let out = run(&scenario, 1, &RunContext::default())?;
//! assert!(out.conservation.holds());
//!
//! // Per flow: times are `SimTime`, rates b/s. A TCP flow is never faster than alone.
//! let short: Vec<_> = out.results.flows_of("short").collect();
//! assert_eq!(short.len(), 12);
//! assert!(short.iter().all(|f| f.completed && f.fct.unwrap() >= f.ideal_fct.unwrap()));
//! let long: Vec<f64> = out.results.flows_of("long").filter_map(|f| f.goodput_bps).collect();
//! assert!(long.len() == 4 && long.iter().all(|&bps| bps < 1e9));
//! // Per link, over the measurement window: the busiest core port, and drops anywhere.
//! let core = out.results.links_of("core").filter_map(|l| l.utilisation_pct).fold(0.0, f64::max);
//! let drops: u64 = out.results.links.iter().map(|l| l.packets_dropped).sum();
//! println!("busiest core link {core:.1}% busy, {drops} packets dropped");
//! // Per class, as in the run's summary.json.
//! assert_eq!(out.summary().classes[0].long_flows, 4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A sweep is a loop over builders (the `sweep` example), or sweep axes and seeds on the builder
//! ([`builder::ScenarioBuilder::sweep`], [`builder::ScenarioBuilder::build_loaded`]) run by
//! [`runner::run_all`] into an output directory, as the `htsim` command does.
//!
//! The user guides live in the repository's `docs/` folder: the scenario reference
//! (`docs/scenarios.md`), the outputs and metric definitions (`docs/outputs.md`), the model
//! reference that code comments cite by section (`docs/model.md`), running on a cluster
//! (`docs/cluster.md`) and embedding (`docs/embedding.md`).
//!
//! # Modules
//!
//! Scenarios, runs and results:
//!
//! - [`builder`]: assembling a scenario in code ([`builder::ScenarioBuilder`]), checked by the
//!   same loader, into the same [`scenario::Scenario`] a file gives.
//! - [`scenario`]: loading scenario files (TOML), with errors naming file, line, column and key;
//!   key paths for `[sweep]` and `--set`; sweep points.
//! - [`simulate`]: one run of a scenario: the pre-flight check of every sweep point, building
//!   the world (topology, queues, transports, flow classes, events), the central flow
//!   generator, the typed per-flow and per-link results, and flows.csv / links.csv /
//!   summary.json.
//! - [`runner`], [`shard`], [`output`], [`identity`], [`lock`]: the run list (sweep points x
//!   seeds, stable ids), shards, parallel runs with atomic per-run files, each run's record of
//!   what it simulated, resuming interrupted sweeps (only runs with the same settings), and the
//!   output directory's lock against a second writer.
//! - [`report`]: metrics, cross-seed summaries (summary.csv / summary.json) and plots.
//!
//! The models, from the workspace's crates (re-exported, so one dependency is enough):
//!
//! - [`topology`] (`htsim-topology`): FatTree, VL2, BCube, dual-homed FatTree, star, dumbbell,
//!   the XMP testbeds and file-defined topologies; equal-cost path sets; link events.
//! - [`transport`] (`htsim-transport`): TCP NewReno, DCTCP, packet scatter, MPTCP (LIA,
//!   fully coupled, uncoupled, EWTCP), MMPTCP and XMP, with the `rfc` and `ns3-mmptcp`
//!   profiles, and per-flow event traces.
//! - [`workload`] (`htsim-workload`): traffic matrices, flow-size distributions, arrivals,
//!   partition/aggregate jobs.
//! - [`core`] (`htsim-core`): the engine — time, event queue, packets, queues, links, routes,
//!   endpoints, timers, random streams — for networks, queues and transports of your own.

// Inlined, so that the crate's documentation (even `cargo doc --no-deps`) carries the models'.
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
