//! Packet scatter (docs/model.md 5): TCP NewReno on one subflow whose data packets each get a
//! fresh random source port, so ECMP sends every packet on an independent uniform path (or,
//! with [`ScatterOrder::RoundRobin`], take the paths in turn as htsim does); ACKs, SYN and FIN
//! keep the real ports. The only reordering defence is dupthresh = 3 + X (6.5).
//!
//! Token demultiplexing needs no model: the engine delivers every packet to its destination
//! endpoint whatever its path, and sprayed packets carry
//! [`flags::SCATTERED`](htsim_core::packet::flags::SCATTERED). Not modelled (all off in the
//! paper's runs, 5): `IsRTOmin`, `IsRTObackoff`, `IsThinStream`.

use crate::config::tcp_keys_and;
use crate::config::{LimitedTransmit, Profile, TcpConfig};
use crate::error::{ParamError, TransportError};
use crate::newreno::NewReno;
use crate::path::PathPolicy;
use crate::transport::{
    open_single_path, Configured, Connection, ConnectionSpec, Transport, TransportKind,
};
use htsim_core::endpoint::Spawn;
use htsim_core::params::{KindSpec, ParamKind, ParamSpec, ParamValue, Params};
use htsim_core::rng::SimRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;

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
                ScatterOrder::Random => PathPolicy::Scatter(Box::new(SimRng::seed_from_u64(draw))),
                ScatterOrder::RoundRobin => PathPolicy::Cycle(draw as u32),
            };
        }
        let cc = NewReno::new(config.ss_increase);
        open_single_path(spawner, conn, &config, Box::new(cc))
    }
}

/// `dupthresh` of the transports with a scattering phase (PS, MMPTCP): `"auto"` (the default)
/// or a number ([`auto_dupthresh`]).
pub const DUPTHRESH_AUTO: ParamSpec = ParamSpec::new(
    "dupthresh",
    ParamKind::IntOrAuto { min: 1, max: 1000 },
    Some("auto"),
    "duplicate ACKs that trigger fast retransmit; auto = topology-aware (docs/model.md 6.5)",
);

/// `limited_transmit` of the transports with a scattering phase ([`limited_transmit`]).
pub const LIMITED_TRANSMIT: ParamSpec = ParamSpec::new(
    "limited_transmit",
    ParamKind::Bool,
    Some("false"),
    "limited transmit in the scatter phase (docs/model.md 6.6)",
);

/// `dupthresh = "auto"` (or absent): 3 + X from the destination (docs/model.md 6.5); a number
/// is the whole dupthresh (set by [`TcpConfig::from_params`]).
pub fn auto_dupthresh(params: &Params) -> bool {
    !matches!(params.get("dupthresh"), Some(ParamValue::Int(_)))
}

/// `limited_transmit = true`: MMPTCP's variant (docs/model.md 6.6).
pub fn limited_transmit(params: &Params) -> LimitedTransmit {
    match params.bool("limited_transmit") {
        Some(true) => LimitedTransmit::Mmptcp,
        _ => LimitedTransmit::Off,
    }
}

/// `ps` in scenarios: TCP's keys ([`TcpConfig::from_params`]) with an automatic `dupthresh`,
/// `limited_transmit` and `scatter`.
pub const KIND: TransportKind = TransportKind {
    spec: KindSpec {
        name: "ps",
        doc: "packet scatter: one window, a random source port per packet (docs/model.md 5)",
        params: tcp_keys_and![
            DUPTHRESH_AUTO,
            LIMITED_TRANSMIT,
            ParamSpec::new(
                "scatter",
                ParamKind::Choice(&["random", "round-robin"]),
                Some("random"),
                "how data packets pick their paths: \"random\" = an independent random path each \
                 (a random source port hashed by ECMP); \"round-robin\" = the pair's paths in \
                 turn, as htsim's packet scatter (docs/model.md 5)",
            ),
        ],
    },
    new: |p| Box::new(PsTransport::new(p)),
    configure: |params| {
        let tcp = TcpConfig::from_params(params)?;
        let mut t = PsTransport::new(tcp.profile);
        t.config = tcp.clone();
        t.auto_dupthresh = auto_dupthresh(params);
        t.config.limited_transmit = limited_transmit(params);
        if let Some(name) = params.text("scatter") {
            t.scatter = ScatterOrder::from_name(name)
                .ok_or_else(|| ParamError::new("scatter", format!("unknown scatter `{name}`")))?;
        }
        Ok(Configured {
            transport: Arc::new(t),
            tcp,
        })
    },
};
