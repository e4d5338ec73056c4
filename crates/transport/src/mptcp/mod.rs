//! MPTCP (docs/model.md 4): subflow setup with NdiffPorts (4.1), data-sequence mapping (4.2),
//! the round-robin scheduler (4.3), reassembly at the receiver (4.4), per-subflow loss recovery
//! (4.5), the coupled congestion controls (4.6) and completion (4.7).
//!
//! - [`coupled`]: the coupled-CC interface ([`CoupledCc`], [`Coupling`], [`SubflowView`]);
//!   [`lia`], [`fully_coupled`], [`uncoupled`], [`ewtcp`] implement it (XMP plugs in through
//!   [`MptcpTransport::with_cc_factory`]);
//! - [`scheduler`]: round robin with the stall on non-established subflows;
//! - [`connection`]: the sender endpoint (also MMPTCP's, docs/model.md 6);
//! - [`receiver`]: the receiver endpoint with both 4.4 semantics.
//!
//! Choices the papers and reference code leave open (also noted at the code):
//! - The base port `P` of the joins is drawn when the connection is opened, not at the
//!   SYN-ACK, so the receiver knows the joins' ports (packets carry no ports); the draw is the
//!   same uniform{0..64999}, P + 1 if it equals subflow 0's port.
//! - A join that completes after the FIN was sent gets its FIN at once; the sender closes when
//!   every subflow has had its FIN acknowledged or failed.
//! - Gaps and FIN delays are distinct while there are at most 50 subflows; beyond, they repeat.
//! - Every data segment is ACKed at once by the multipath receiver (2.5; `delayed_ack` is not
//!   applied), with ECE = the CE mark of the segment answered.
//!
//! A lost MP_JOIN SYN (issue 13). With the round robin's stall (4.3), a join whose SYN is lost
//! holds the whole connection until the join is established. Traced on `htsim-compare` with
//! MPTCP-8 (seeds 1-3, 0.21 s), each of the six connections that sent 11-16 packets and then
//! nothing had one join with a single `syn` and no `established`, and a `stall` on that join
//! from 0.08-0.47 ms until the end of the run; the join's SYN retry was due at 1 s. The profiles
//! differ here:
//! - `rfc`: `rr_skip_unestablished` (docs/model.md 12's clean setting): the scheduler passes
//!   over a join that is not established, so the connection sends on its established
//!   subflows; the lost join SYN is retried on the SYN timer (1 s, doubling).
//! - `ns3-mmptcp` keeps the stall and matches the MMPTCP authors' ns-3 code
//!   (mkheirkhah/mmptcp, `src/internet/model/mp-tcp-socket-base.cc`), which docs/model.md 2.2
//!   describes otherwise ("the same rule applies to MP_JOIN SYNs"):
//!   `InitiateSingleSubflows` (the `RAND_GAP` build of `InitiateMultipleSubflows`) hands the
//!   MP_JOIN SYN to `m_tcp->SendPacket` directly, so no `retxEvent` is scheduled; only
//!   `SendEmptyPacket` arms the SYN / SYN-ACK / FIN timers (`ConnTimeout` 3 s x 2^(n-1),
//!   `cnCount` tries), and it serves subflow 0's SYN and the server's SYN-ACKs (a lost join
//!   SYN-ACK is resent by the server at 3 s). `DoRetransmit` on a SYN_SENT subflow is a fatal
//!   error ("SYN has lost - We need to implement this"), and `SendPendingData` `continue`s
//!   without advancing `lastUsedsFlowIdx` while that subflow is not ESTABLISHED. So a lost
//!   join SYN stalls the connection for good: a short flow never reaches `IsLastAck`'s
//!   everything-acknowledged test and writes no result line (scratch/FatTree.cc's outputs
//!   count only flows that wrote one), and a long flow's line, written when its application
//!   stops, reports the bytes sent before the stall. Here such a flow's join SYN is sent once
//!   (`join_syn_retransmit` false), the flow never completes and counts as not completed in
//!   flows.csv and the metrics; the server side resends its SYN-ACK on the SYN timer as the
//!   code does.
//!
//!   On the MMPTCP paper's 3.2 setup (4:1 FatTree k=8, 100 Mb/s, lambda = 256, 70 KB MPTCP-8
//!   short flows, 3 s + 1 s drain, seed 1), traced: of 739 short flows 38 do not finish, 35 of
//!   them with a join never established and the scheduler stalled on it; 28 finish after 1 s:
//!   23 at about 3 s, every join established and none retried by the client, i.e. a lost join
//!   SYN-ACK resent by the server at 3 s (the code does this too), and 5 at about 1.5 s (the
//!   1.5 s first RTO of 2.9).

pub mod connection;
pub mod coupled;
pub mod ewtcp;
pub mod fully_coupled;
pub mod lia;
mod ranges;
pub mod receiver;
pub mod scheduler;
pub mod uncoupled;

pub use coupled::{CoupledAdapter, CoupledCc, Coupling, SubflowView};

use crate::config::keys::DUPTHRESH;
use crate::config::tcp_keys_and;
use crate::config::{Profile, SlowStartIncrease, TcpConfig};
use crate::error::{ParamError, TransportError};
use crate::reach::Reach;
use crate::transport::{Configured, Connection, ConnectionSpec, Transport, TransportKind};
use htsim_core::endpoint::Spawn;
use htsim_core::params::{KindSpec, Params};
use std::fmt;
use std::sync::Arc;

/// Largest number of subflows of one connection (ports are `P + index` within a u16).
pub const MAX_SUBFLOWS: u32 = 256;

/// The coupled congestion controls of docs/model.md 4.6.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CcKind {
    /// RFC 6356 LIA (`RTT_Compensator`), the default.
    #[default]
    Lia,
    /// LIA without the min with the TCP increase (`Linked_Increases`).
    LiaUncapped,
    /// Fully Coupled.
    FullyCoupled,
    /// Uncoupled NewReno subflows.
    Uncoupled,
    /// EWTCP with a = 1/n^2.
    Ewtcp,
}

impl CcKind {
    /// Every kind with its scenario name.
    pub const ALL: [(&'static str, CcKind); 5] = [
        ("lia", CcKind::Lia),
        ("lia-uncapped", CcKind::LiaUncapped),
        ("fully-coupled", CcKind::FullyCoupled),
        ("uncoupled", CcKind::Uncoupled),
        ("ewtcp", CcKind::Ewtcp),
    ];

    /// Parses a scenario name (`lia`, `lia-uncapped`, `fully-coupled`, `uncoupled`, `ewtcp`).
    pub fn from_name(name: &str) -> Option<CcKind> {
        CcKind::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| *k)
    }

    /// A controller of this kind.
    pub fn build(self, ss: SlowStartIncrease) -> Box<dyn CoupledCc> {
        match self {
            CcKind::Lia => Box::new(lia::Lia::new(ss)),
            CcKind::LiaUncapped => Box::new(lia::Lia::uncapped(ss)),
            CcKind::FullyCoupled => Box::new(fully_coupled::FullyCoupled::new(ss)),
            CcKind::Uncoupled => Box::new(uncoupled::Uncoupled::new(ss)),
            CcKind::Ewtcp => Box::new(ewtcp::Ewtcp::new(ss)),
        }
    }
}

/// Which subflows `W` and alpha sum over (docs/model.md 4.6, 12 `total_cwnd_scope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TotalCwndScope {
    /// Every subflow that has not failed, whatever its state (the code; faithful).
    AllSubflows,
    /// Established subflows only (**\[PROPOSED\]**; clean).
    Established,
}

/// How a subflow's `rcv_nxt` advances at the receiver (docs/model.md 4.4, 12 `rx_subflow_ack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RxSubflowAck {
    /// The code's `drain` semantics, with its artefacts (a) and (b) (faithful).
    CodeDrain,
    /// Over all contiguous received segments of the subflow (RFC 8684; clean).
    PerSubflow,
}

/// How the subflows of a multipath connection choose their paths (docs/model.md 4.1).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum SubflowPaths {
    /// Each subflow's packets follow the network's routing mode with the subflow's own ports
    /// (per-flow ECMP): two subflows of one connection may hash onto one path.
    #[default]
    Ecmp,
    /// Each subflow is pinned to its own path of the pair's equal-cost path set, drawn at
    /// random without replacement from the connection's random stream. With more subflows than
    /// paths the assignment wraps: pinned subflow `i` (counting from 0) takes the path of pinned
    /// subflow `i mod paths`, so each path carries `floor` or `ceil(subflows / paths)`.
    Distinct,
    /// Pinned subflow `i` (counting from 0) takes path `list[i mod list.len()]` of the pair's
    /// equal-cost path set (indices in the topology's path order, docs/model.md 4.1). A
    /// connection whose pair lacks a path its pinned subflows use is refused
    /// ([`TransportError::PinnedPathOutOfRange`]). The list is not empty and has at most
    /// `max_subflows` entries.
    Pinned(Arc<[u32]>),
}

impl SubflowPaths {
    /// Every choice with its scenario name.
    pub const ALL: [(&'static str, SubflowPaths); 2] = [
        ("ecmp", SubflowPaths::Ecmp),
        ("distinct", SubflowPaths::Distinct),
    ];

    /// Parses a scenario name (`ecmp`, `distinct`).
    pub fn from_name(name: &str) -> Option<SubflowPaths> {
        SubflowPaths::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| k.clone())
    }

    /// Checks a pinned list against the subflow count: at least one entry and at most
    /// `max_subflows` (more could never be used).
    pub fn validate(&self, max_subflows: u32) -> Result<(), TransportError> {
        match self {
            SubflowPaths::Pinned(list) if list.is_empty() => Err(TransportError::InvalidConfig(
                "pinned paths need at least one path index".into(),
            )),
            SubflowPaths::Pinned(list) if list.len() > max_subflows as usize => {
                Err(TransportError::InvalidConfig(format!(
                    "{} pinned paths for {max_subflows} subflow{}: at most one per subflow",
                    list.len(),
                    if max_subflows == 1 { "" } else { "s" }
                )))
            }
            _ => Ok(()),
        }
    }
}

/// MPTCP's parameters (docs/model.md 4, 11, 12).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MptcpConfig {
    /// MaxSubflows: subflows of a connection, subflow 0 included (8).
    pub max_subflows: u32,
    /// The coupled congestion control (LIA).
    pub cc: CcKind,
    /// Round robin skips non-established subflows instead of stalling (rfc: true; ns3-mmptcp:
    /// false, the code's stall).
    pub rr_skip_unestablished: bool,
    /// MP_JOIN SYNs are retransmitted on the SYN timer (rfc: true). The ns-3 code sends each
    /// once, with no timer (ns3-mmptcp: false; see the module doc).
    pub join_syn_retransmit: bool,
    /// Receiver `rcv_nxt` semantics (rfc: per subflow; ns3-mmptcp: code drain).
    pub rx_subflow_ack: RxSubflowAck,
    /// Scope of W and alpha (rfc: established; ns3-mmptcp: all subflows).
    pub total_cwnd_scope: TotalCwndScope,
    /// Joins open after distinct integer gaps in [0, `random_gap_us`) microseconds (50); FINs
    /// of subflows other than 0 are staggered the same way.
    pub random_gap_us: u32,
    /// How subflows choose their paths (ECMP on their own ports by default).
    pub paths: SubflowPaths,
    /// Open at most as many subflows as the pair has equal-cost paths (htsim's rule; off by
    /// default). MMPTCP caps the subflows it opens at the switch.
    pub cap_subflows: bool,
}

impl MptcpConfig {
    /// The parameters of `profile` (docs/model.md 12).
    pub fn for_profile(profile: Profile) -> Self {
        let faithful = profile == Profile::Ns3Mmptcp;
        MptcpConfig {
            max_subflows: 8,
            cc: CcKind::Lia,
            rr_skip_unestablished: !faithful,
            join_syn_retransmit: !faithful,
            rx_subflow_ack: if faithful {
                RxSubflowAck::CodeDrain
            } else {
                RxSubflowAck::PerSubflow
            },
            total_cwnd_scope: if faithful {
                TotalCwndScope::AllSubflows
            } else {
                TotalCwndScope::Established
            },
            random_gap_us: 50,
            paths: SubflowPaths::Ecmp,
            cap_subflows: false,
        }
    }

    /// Checks the values.
    pub fn validate(&self) -> Result<(), TransportError> {
        if self.max_subflows == 0 || self.max_subflows > MAX_SUBFLOWS {
            return Err(TransportError::InvalidConfig(format!(
                "subflows must be in 1..={MAX_SUBFLOWS}"
            )));
        }
        if self.random_gap_us == 0 {
            return Err(TransportError::InvalidConfig(
                "random_gap_us must be positive".into(),
            ));
        }
        self.paths.validate(self.max_subflows)
    }
}

/// The scenario keys of [`MptcpConfig`] that the multipath transports share.
pub mod keys {
    use htsim_core::params::{ParamKind, ParamSpec};

    /// The key of `paths = { pinned = [...] }` ([`SubflowPaths::Pinned`](super::SubflowPaths)).
    pub const PINNED: &str = "pinned";

    /// `paths` ([`SubflowPaths`](super::SubflowPaths)).
    pub const PATHS: ParamSpec = ParamSpec::new(
        "paths",
        ParamKind::ChoiceOrList {
            names: &["ecmp", "distinct"],
            key: PINNED,
            min: 0,
            max: 65_535,
        },
        Some("ecmp"),
        "subflow paths: \"ecmp\" hashes each subflow's ports (subflows may share a path); \
         \"distinct\" pins each subflow to its own random path of the pair's equal-cost set, \
         wrapping round when there are more subflows than paths; { pinned = [i, j, ...] } puts \
         subflow n on path index list[n mod length] of the set, at most one entry per subflow \
         (docs/model.md 4.1)",
    );
    /// `cap_subflows`.
    pub const CAP_SUBFLOWS: ParamSpec = ParamSpec::new(
        "cap_subflows",
        ParamKind::Bool,
        Some("false"),
        "open at most as many subflows as the pair has equal-cost paths (htsim's rule; mmptcp: \
         at the switch)",
    );
    /// `subflows` of MPTCP and MMPTCP.
    pub const SUBFLOWS: ParamSpec = ParamSpec::new(
        "subflows",
        ParamKind::Int { min: 1, max: 256 },
        Some("8"),
        "number of subflows",
    );
    /// `cc` ([`CcKind`](super::CcKind)).
    pub const CC: ParamSpec = ParamSpec::new(
        "cc",
        ParamKind::Choice(&["lia", "lia-uncapped", "fully-coupled", "uncoupled", "ewtcp"]),
        Some("lia"),
        "coupled congestion control (docs/model.md 4.6)",
    );
}

impl MptcpConfig {
    /// `profile`'s parameters with the scenario keys set: `subflows` -> `max_subflows`, `cc`,
    /// `paths`, `cap_subflows` (the other fields are the profile's, docs/model.md 12). Fails
    /// if the result does not [`validate`](MptcpConfig::validate).
    pub fn from_params(params: &Params, profile: Profile) -> Result<MptcpConfig, ParamError> {
        let mut m = MptcpConfig::for_profile(profile);
        if let Some(n) = params.int("subflows") {
            m.max_subflows = u32::try_from(n)
                .map_err(|_| ParamError::new("subflows", format!("{n} is out of range")))?;
        }
        if let Some(name) = params.text("cc") {
            m.cc = CcKind::from_name(name)
                .ok_or_else(|| ParamError::new("cc", format!("unknown cc `{name}`")))?;
        }
        if let Some(name) = params.text("paths") {
            m.paths = SubflowPaths::from_name(name)
                .ok_or_else(|| ParamError::new("paths", format!("unknown paths `{name}`")))?;
        }
        if let Some(list) = params.list("paths") {
            let pinned: Result<Arc<[u32]>, _> = list.iter().map(|&i| u32::try_from(i)).collect();
            m.paths = SubflowPaths::Pinned(pinned.map_err(|_| {
                ParamError::new("paths", "a pinned path index is out of range".to_string())
            })?);
            m.paths
                .validate(m.max_subflows)
                .map_err(|e| ParamError::new("paths", e.to_string()))?;
        }
        if let Some(on) = params.bool("cap_subflows") {
            m.cap_subflows = on;
        }
        m.validate()
            .map_err(|e| ParamError::new("", e.to_string()))?;
        Ok(m)
    }
}

/// `mptcp` in scenarios: TCP's keys ([`TcpConfig::from_params`]) and MPTCP's
/// ([`MptcpConfig::from_params`]).
pub const KIND: TransportKind = TransportKind {
    spec: KindSpec {
        name: "mptcp",
        doc: "MPTCP with coupled congestion control (docs/model.md 4)",
        params: tcp_keys_and![
            DUPTHRESH,
            keys::SUBFLOWS,
            keys::CC,
            keys::PATHS,
            keys::CAP_SUBFLOWS,
        ],
    },
    new: |p| Box::new(MptcpTransport::new(p)),
    configure: |params| {
        let tcp = TcpConfig::from_params(params)?;
        let mut t = MptcpTransport::new(tcp.profile);
        t.config = tcp.clone();
        t.mptcp = MptcpConfig::from_params(params, tcp.profile)?;
        Ok(Configured {
            transport: Arc::new(t),
            tcp,
        })
    },
};

/// Builds a connection's coupled controller (a custom one such as XMP).
pub type CcFactory = Arc<dyn Fn(&TcpConfig) -> Box<dyn CoupledCc> + Send + Sync>;

/// The MPTCP transport (docs/model.md 4).
#[derive(Clone)]
pub struct MptcpTransport {
    /// Per-subflow TCP parameters (dupthresh 3, no limited transmit: 4.5).
    pub config: TcpConfig,
    /// Multipath parameters.
    pub mptcp: MptcpConfig,
    /// Overrides `mptcp.cc` when set.
    pub cc_factory: Option<CcFactory>,
    /// The name scenario files use (`mptcp`; another for a plugged-in controller, e.g. `xmp`).
    pub name: &'static str,
}

impl fmt::Debug for MptcpTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MptcpTransport")
            .field("config", &self.config)
            .field("mptcp", &self.mptcp)
            .field("custom_cc", &self.cc_factory.is_some())
            .field("name", &self.name)
            .finish()
    }
}

impl MptcpTransport {
    /// MPTCP with `profile`'s parameters.
    pub fn new(profile: Profile) -> Self {
        MptcpTransport {
            config: TcpConfig::for_profile(profile),
            mptcp: MptcpConfig::for_profile(profile),
            cc_factory: None,
            name: "mptcp",
        }
    }

    /// MPTCP whose subflows are driven by the controllers `factory` builds (one per
    /// connection), registered as `name` (XMP, docs/model.md 7).
    pub fn with_cc_factory(profile: Profile, name: &'static str, factory: CcFactory) -> Self {
        MptcpTransport {
            cc_factory: Some(factory),
            name,
            ..MptcpTransport::new(profile)
        }
    }

    /// The controller of a new connection.
    pub(crate) fn build_cc(&self) -> Box<dyn CoupledCc> {
        match &self.cc_factory {
            Some(f) => f(&self.config),
            None => self.mptcp.cc.build(self.config.ss_increase),
        }
    }
}

impl Transport for MptcpTransport {
    fn name(&self) -> &str {
        self.name
    }
    fn check_reaches(&self, reaches: &mut dyn Iterator<Item = Reach>) -> Result<(), ParamError> {
        connection::check_pinned_paths(&self.mptcp, reaches, |_| None)
            .map_err(|e| ParamError::new("paths", e.to_string()))
    }
    fn subflows_from_start(&self) -> u32 {
        if self.mptcp.cap_subflows {
            1
        } else {
            self.mptcp.max_subflows
        }
    }
    fn open(
        &self,
        spawner: &mut dyn Spawn,
        conn: ConnectionSpec,
    ) -> Result<Connection, TransportError> {
        self.mptcp.validate()?;
        connection::open_multipath(
            spawner,
            conn,
            &self.config,
            &self.mptcp,
            self.build_cc(),
            None,
        )
    }
}
