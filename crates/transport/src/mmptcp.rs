//! MMPTCP (docs/model.md 6): packet scatter on subflow 0 until more than `switch_threshold`
//! bytes were sent, then MPTCP on new subflows (6.3, 6.4). The machinery is the multipath
//! sender ([`crate::mptcp::connection`]); this module holds the parameters and turns them into
//! one connection's [`MmptcpSetup`].
//!
//! Only the default switching mode `FlowSize` with `SwitchingCondition` off is modelled (6.3:
//! the other modes are off in the paper), and none of 6.8's attributes.

use crate::config::tcp_keys_and;
use crate::config::{LimitedTransmit, Profile, TcpConfig};
use crate::error::{ParamError, TransportError};
use crate::mptcp::connection::{check_pinned_paths, open_multipath, MmptcpSetup};
use crate::mptcp::keys::{CAP_SUBFLOWS, CC, PATHS, SUBFLOWS};
use crate::mptcp::{MptcpConfig, MptcpTransport};
use crate::ps::{auto_dupthresh, limited_transmit, DUPTHRESH_AUTO, LIMITED_TRANSMIT};
use crate::reach::Reach;
use crate::transport::{Configured, Connection, ConnectionSpec, Transport, TransportKind};
use htsim_core::endpoint::Spawn;
use htsim_core::params::{KindSpec, ParamKind, ParamSpec};
use std::sync::Arc;

/// FlowSizeThresh default (bytes, 6.3).
pub const DEFAULT_SWITCH_THRESHOLD: u64 = 100_000;

/// MMPTCP's own parameters (6, 11, 12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmptcpConfig {
    /// Switch once more than this many new bytes were sent (strict `>`, checked at the start
    /// of every ACK; 100 000 B).
    pub switch_threshold: u64,
    /// Subflow 0's dupthresh is `TcpConfig::dupthresh` + X with X from the connection's reach
    /// (6.5, default on); off = `TcpConfig::dupthresh` alone.
    pub auto_dupthresh: bool,
    /// Subflow 0's limited transmit (6.6; off by default, `Mmptcp` = MMPTCP_LT).
    pub limited_transmit: LimitedTransmit,
    /// MaxSubflows from the destination's locality, 8 / 4 / 1 (6.7, MMPTCP_AS; off).
    pub auto_subflows: bool,
    /// MaxSubflows counts subflow 0, so the switch opens MaxSubflows - 1 subflows (12
    /// `mmptcp_max_subflows_includes_sf0`: true faithful, false clean).
    pub max_subflows_includes_sf0: bool,
}

impl MmptcpConfig {
    /// The parameters of `profile`.
    pub fn for_profile(profile: Profile) -> Self {
        MmptcpConfig {
            switch_threshold: DEFAULT_SWITCH_THRESHOLD,
            auto_dupthresh: true,
            limited_transmit: LimitedTransmit::Off,
            auto_subflows: false,
            max_subflows_includes_sf0: profile == Profile::Ns3Mmptcp,
        }
    }
}

/// The MMPTCP transport.
#[derive(Clone, Debug)]
pub struct MmptcpTransport {
    /// TCP parameters of every subflow (phase-2 subflows: dupthresh 3, no limited transmit).
    pub config: TcpConfig,
    /// MPTCP parameters of phase 2 (`max_subflows` = MaxSubflows, `cc`).
    pub mptcp: MptcpConfig,
    /// MMPTCP parameters.
    pub mmptcp: MmptcpConfig,
}

impl MmptcpTransport {
    /// MMPTCP with `profile`'s parameters.
    pub fn new(profile: Profile) -> Self {
        MmptcpTransport {
            config: TcpConfig::for_profile(profile),
            mptcp: MptcpConfig::for_profile(profile),
            mmptcp: MmptcpConfig::for_profile(profile),
        }
    }

    /// The setup of a connection whose [`Reach`] is `reach` (6.5, 6.7).
    pub fn setup(&self, reach: Option<crate::reach::Reach>) -> MmptcpSetup {
        let max = match (self.mmptcp.auto_subflows, reach) {
            (true, Some(r)) => r.auto_subflows(),
            _ => self.mptcp.max_subflows,
        };
        let new_subflows = match (max, self.mmptcp.max_subflows_includes_sf0) {
            (0 | 1, _) => 0, // 6.3: "and MaxSubflows > 1"; 6.7: 1 = never switch
            (m, true) => m - 1,
            (m, false) => m,
        };
        let extra = reach.map_or(0, |r| r.dupthresh_extra());
        MmptcpSetup {
            switch_threshold: self.mmptcp.switch_threshold,
            new_subflows,
            sf0_dupthresh: if self.mmptcp.auto_dupthresh {
                self.config.dupthresh.saturating_add(extra)
            } else {
                self.config.dupthresh
            },
            sf0_limited_transmit: self.mmptcp.limited_transmit,
        }
    }
}

impl Transport for MmptcpTransport {
    fn name(&self) -> &str {
        "mmptcp"
    }
    fn check_reaches(&self, reaches: &mut dyn Iterator<Item = Reach>) -> Result<(), ParamError> {
        check_pinned_paths(&self.mptcp, reaches, |r| Some(self.setup(Some(r))))
            .map_err(|e| ParamError::new("paths", e.to_string()))
    }
    fn open(
        &self,
        spawner: &mut dyn Spawn,
        conn: ConnectionSpec,
    ) -> Result<Connection, TransportError> {
        let setup = self.setup(conn.reach);
        let cc = MptcpTransport {
            config: self.config.clone(),
            mptcp: self.mptcp.clone(),
            cc_factory: None,
            name: "mmptcp",
        }
        .build_cc();
        let mut config = self.config.clone();
        config.limited_transmit = LimitedTransmit::Off;
        open_multipath(spawner, conn, &config, &self.mptcp, cc, Some(setup))
    }
}

/// `mmptcp` in scenarios: TCP's keys ([`TcpConfig::from_params`]), MPTCP's
/// ([`MptcpConfig::from_params`]; for the subflows opened at the switch), the scatter phase's
/// `dupthresh` and `limited_transmit` (as [`ps`](crate::ps)), `switch_threshold` and
/// `auto_subflows`.
pub const KIND: TransportKind = TransportKind {
    spec: KindSpec {
        name: "mmptcp",
        doc: "MMPTCP: packet scatter, then MPTCP after a switching threshold (docs/model.md 6)",
        params: tcp_keys_and![
            DUPTHRESH_AUTO,
            SUBFLOWS,
            CC,
            PATHS,
            CAP_SUBFLOWS,
            LIMITED_TRANSMIT,
            ParamSpec::new(
                "switch_threshold",
                ParamKind::Size,
                Some("100KB"),
                "bytes sent before switching to MPTCP",
            ),
            ParamSpec::new(
                "auto_subflows",
                ParamKind::Bool,
                Some("false"),
                "8/4/1 subflows by distance (docs/model.md 6.7)",
            ),
        ],
    },
    new: |p| Box::new(MmptcpTransport::new(p)),
    configure: |params| {
        let tcp = TcpConfig::from_params(params)?;
        let mut t = MmptcpTransport::new(tcp.profile);
        t.config = tcp.clone();
        t.mptcp = MptcpConfig::from_params(params, tcp.profile)?;
        t.mmptcp.auto_dupthresh = auto_dupthresh(params);
        t.mmptcp.limited_transmit = limited_transmit(params);
        if let Some(b) = params.size("switch_threshold") {
            t.mmptcp.switch_threshold = b;
        }
        if let Some(on) = params.bool("auto_subflows") {
            t.mmptcp.auto_subflows = on;
        }
        Ok(Configured {
            transport: Arc::new(t),
            tcp,
        })
    },
};
