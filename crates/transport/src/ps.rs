//! Packet scatter (docs/model.md 5): TCP NewReno on one subflow whose data packets each get a
//! fresh random source port, so ECMP sends every packet on an independent uniform path; ACKs,
//! SYN and FIN keep the real ports. The only reordering defence is dupthresh = 3 + X (6.5).
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
}

impl PsTransport {
    /// PS with `profile`'s TCP parameters, auto dupthresh, spraying.
    pub fn new(profile: Profile) -> Self {
        PsTransport {
            config: TcpConfig::for_profile(profile),
            auto_dupthresh: true,
            spray: true,
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
            conn.path = PathPolicy::Scatter(SimRng::seed_from_u64(conn.rng.random()));
        }
        let cc = NewReno::new(config.ss_increase);
        open_single_path(spawner, conn, &config, Box::new(cc))
    }
}
