//! The htsim engine: a packet-level discrete-event simulator core.
//!
//! It holds simulated time ([`time`]), the pending-event queue ([`event_queue`]), unit-string
//! parsing for scenario files ([`units`]), and (in later modules) packets, queues, links, routes,
//! endpoints, timers and seeded random streams. See `architecture.md` for the design.

pub mod event_queue;
pub mod time;
pub mod units;

pub use time::{Rate, SimTime};
