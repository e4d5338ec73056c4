//! Workloads for htsim: who sends to whom, how much, and when.
//!
//! This crate turns the `[[flows]]` part of a scenario (docs/scenarios.md) into concrete,
//! seeded choices; it simulates nothing itself. It holds:
//!
//! - [`layout`]: the rack (ToR) and pod of every host ([`HostLayout`]).
//! - [`matrix`]: traffic matrices, permutation, stride, random (with a per-destination limit,
//!   without rack-local pairs, one connection from every host), incast, many-to-one,
//!   rack-locality and hosts at a distance (docs/model.md 9.2; docs/model.md 14.1).
//! - [`pairs`]: explicit (source, destination) pairs, inline or from a pairs file.
//! - [`senders`]: which hosts or matrix connections a flow class takes (`"33%"`, `12`, `"all"`,
//!   `"rest"`), and the long/short split of docs/model.md 9.3.
//! - [`size`]: flow-size distributions (fixed, infinite, uniform, capped Pareto, empirical CDF)
//!   with their means in bytes.
//! - [`cdf`]: empirical CDF files in both dialects, and the built-in production workloads
//!   (`websearch`, `datamining`, `fb_hadoop`, `benson_imc10`) embedded in the crate.
//! - [`destinations`]: a new destination for each new flow of a closed-loop sender, within the
//!   matrix's limits.
//! - [`arrivals`]: Poisson arrivals from a central scheduler, synchronised rounds, closed loop
//!   and once (docs/model.md 9.3, 9.5), in [`htsim_core::SimTime`].
//! - [`jobs`]: partition/aggregate jobs (docs/model.md 7.6).
//!
//! Hosts are `usize` indices `0..N`, as `host<i>` in outputs. Every random choice takes a
//! caller-supplied `&mut R` with `R: rand::Rng + ?Sized`, so the caller decides which named
//! seeded stream each draw comes from. Invalid requests are errors, never panics.

#![warn(missing_docs)]

pub mod arrivals;
pub mod cdf;
pub mod destinations;
pub mod jobs;
pub mod layout;
pub mod matrix;
pub mod pairs;
pub mod senders;
pub mod size;

pub use arrivals::{rate_for_load, round_times, ArrivalError, Arrivals, PoissonArrivals, Rounds};
pub use cdf::{CdfError, EmpiricalCdf, BUILTIN_NAMES};
pub use destinations::NewDestinations;
pub use jobs::{Job, JobError, PartitionAggregate};
pub use layout::{HostLayout, LayoutError};
pub use matrix::{
    Connection, LocalityBase, MatrixError, RandomLimits, RandomSources, TrafficMatrix,
};
pub use pairs::{parse_pairs, PairsError};
pub use senders::{pick_senders, split_connections, Senders, SendersError};
pub use size::{FlowSize, Pareto, SizeDist, SizeError, UniformSize};
