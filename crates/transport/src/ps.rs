//! Packet scatter (docs/model.md 5): TCP NewReno on one subflow whose data packets each get a
//! fresh random source port, so ECMP sends every packet on an independent uniform path (or,
//! with [`ScatterOrder::RoundRobin`], take the paths in turn as htsim does); ACKs, SYN and FIN
//! keep the real ports. The only reordering defence is dupthresh = 3 + X (6.5).
//!
//! Token demultiplexing needs no model: the engine delivers every packet to its destination
//! endpoint whatever its path, and sprayed packets carry
//! [`flags::SCATTERED`](htsim_core::packet::flags::SCATTERED). Not modelled (all off in the
//! paper's runs, 5): `IsRTOmin`, `IsRTObackoff`, `IsThinStream`.

use crate::config::{Profile, TcpConfig};
use crate::error::TransportError;
use crate::newreno::NewReno;
use crate::path::PathPolicy;
use crate::transport::{open_single_path, Connection, ConnectionSpec, Transport};
use htsim_core::endpoint::Spawn;
use htsim_core::rng::SimRng;
use rand::{Rng, SeedableRng};

/// The PS transport.
#[derive(Clone, Debug, PartialEq)]
pub struct PsTransport {
    /// TCP parameters; `dupthresh` is the base (3) to which the automatic X is added, or the
    /// whole dupthresh when `auto_dupthresh` is off; `limited_transmit` applies (5, off by
    /// default).
    pub config: TcpConfig,
    /// dupthresh = `config.dupthresh` + X, X from the connection's
    /// [`Reach`](crate::reach::Reach) (6.5; on by default, FatTree.cc `autodupack` = 1). A
    /// connection without a reach gets X = 0.
    pub auto_dupthresh: bool,
    /// Spray data packets (5). Off = `ShortFlowTCP`: a TCP flow with PS's dupthresh (10 #23).
    pub spray: bool,
    /// How sprayed packets pick their paths (5): independently at random (the default), or
    /// each path in turn as htsim does.
    pub scatter: ScatterOrder,
}

/// How packet scatter spreads a connection's data packets over its paths (docs/model.md 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScatterOrder {
    /// A fresh random source port per packet, hashed by ECMP: an independent uniformly random
    /// path per packet (the ns-3 model's packet scatter).
    #[default]
    Random,
    /// The paths of the pair's equal-cost set in turn, from a random first one: htsim's
    /// `PACKET_SCATTER` (round robin unless built with `RANDOM_PATH`).
    RoundRobin,
}

impl ScatterOrder {
    /// The order named `name` in scenarios: `random` or `round-robin`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "random" => Some(ScatterOrder::Random),
            "round-robin" => Some(ScatterOrder::RoundRobin),
            _ => None,
        }
    }
}

impl PsTransport {
    /// PS with `profile`'s TCP parameters, auto dupthresh, spraying.
    pub fn new(profile: Profile) -> Self {
        PsTransport {
            config: TcpConfig::for_profile(profile),
            auto_dupthresh: true,
            spray: true,
            scatter: ScatterOrder::Random,
        }
    }

    /// The dupthresh of a connection to a destination with `extra` = X.
    pub fn dupthresh(&self, extra: u32) -> u32 {
        if self.auto_dupthresh {
            self.config.dupthresh.saturating_add(extra)
        } else {
            self.config.dupthresh
        }
    }
}

impl Transport for PsTransport {
    fn name(&self) -> &str {
        "ps"
    }
    fn open(
        &self,
        spawner: &mut dyn Spawn,
        mut conn: ConnectionSpec,
    ) -> Result<Connection, TransportError> {
        let mut config = self.config.clone();
        config.dupthresh = self.dupthresh(conn.reach.map_or(0, |r| r.dupthresh_extra()));
        if self.spray {
            let draw: u64 = conn.rng.random();
            conn.path = match self.scatter {
                ScatterOrder::Random => PathPolicy::Scatter(SimRng::seed_from_u64(draw)),
                ScatterOrder::RoundRobin => PathPolicy::Cycle(draw as u32),
            };
        }
        let cc = NewReno::new(config.ss_increase);
        open_single_path(spawner, conn, &config, Box::new(cc))
    }
}
