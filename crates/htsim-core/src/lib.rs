//! The htsim engine: a packet-level discrete-event simulator core.
//!
//! - [`time`]: [`SimTime`] (integer picoseconds) and [`Rate`] (bit/s), exact serialisation times.
//! - [`units`]: parsing the unit strings of scenario files ("20us", "10Gbps", "70KB", "100pkt").
//! - [`event_queue`]: pending events ordered by (time, insertion sequence).
//! - [`packet`]: the 64-byte [`Packet`](packet::Packet) and the slab [`PacketPool`](packet::PacketPool).
//! - [`queue`], [`link`]: drop-tail and ECN egress queues with counters; links = queue +
//!   serialisation + propagation, with rate / buffer / down / up changes.
//! - [`routing`]: interned source routes, equal-cost path sets, ECMP / spray / single choice.
//! - [`endpoint`], [`timer`]: the object-safe [`Endpoint`](endpoint::Endpoint) trait transports
//!   implement, its [`Ctx`](endpoint::Ctx), and lazily cancelled timers.
//! - [`world`]: the [`World`](world::World) owning everything in typed arenas, and the event loop.
//! - [`crossing`]: per-flow counts of the data packets that arrive at chosen links.
//! - [`rng`]: named, independent random streams from one seed.
//! - [`flow`]: the per-flow result record; [`source`]: constant-rate and fixed-window sources
//!   and a sink that exercise the engine without a transport.
//! - [`params`]: the parameters of the kinds scenarios name (key, type, default, meaning) and
//!   their resolved values.
//! - [`suggest`]: the "did you mean" rule shared by every error that names an unknown name.
//!
//! See docs/model.md 15 for the design and `README.md` for figures.

mod blocks;
pub mod crossing;
pub mod endpoint;
pub mod event_queue;
pub mod flow;
pub mod ids;
pub mod link;
pub mod packet;
pub mod params;
mod prefetch;
pub mod queue;
pub mod rng;
pub mod routing;
pub mod source;
pub mod suggest;
pub mod time;
pub mod timer;
pub mod units;
mod wires;
pub mod world;

pub use time::{Rate, SimTime};
