//! A scenario transport (`[transports.<name>]` or inline) as a configured
//! [`Transport`].
//!
//! Scenario keys map onto [`TcpConfig`] fields, starting from the `profile`'s configuration:
//! `mss` -> `mss`; `header_size` -> the data-packet overhead; `ack_size` -> ACK and FIN size
//! (SYN = `ack_size` + 8 B of MPTCP options when headers are modelled, else `ack_size`);
//! `initial_cwnd` -> `initial_cwnd_segments`; `initial_ssthresh` -> bytes (packets x MSS);
//! `rwnd` -> `rwnd_cap` (`unlimited` = none); `delayed_ack` -> ACK every 2nd segment with a
//! 40 ms timer; `min_rto`; `dupthresh`; DCTCP's `g`; PS's `scatter` (random or round-robin);
//! `reorder_hold` (a positive duration) and `reorder_hold_segments` -> `reorder_hold` (the
//! reorder-resilient receiver, off at `0s`).
//!
//! Multipath kinds add `subflows`, `paths` (ECMP or distinct random paths per subflow),
//! `cap_subflows` and (mptcp, mmptcp) `cc`; `xmp` is MPTCP with the XMP
//! controller ([`XmpConfig::mptcp_transport`]): `beta`, `min_cwnd`, and XMP's own ECN-capable
//! data, 2-bit CE echo and infinite initial ssthresh whatever the TCP keys say. K is the
//! `mark_threshold` of queues of kind `ecn`.

use std::sync::Arc;

use htsim_core::ids::HostId;
use htsim_core::units::BufferSize;
use htsim_core::SimTime;
use htsim_topology::topology::{Locality as TopoLocality, Topology};
use htsim_transport::config::LimitedTransmit;
use htsim_transport::config::{DelayedAck, PacketSizes};
use htsim_transport::dctcp::DctcpConfig;
use htsim_transport::mptcp::{CcKind, MptcpConfig, SubflowPaths};
use htsim_transport::ps::ScatterOrder;
use htsim_transport::reorder::ReorderHold;
use htsim_transport::xmp::XmpConfig;
use htsim_transport::{
    DctcpTransport, Locality, MmptcpTransport, MptcpTransport, Profile, PsTransport, Reach,
    TcpConfig, TcpTransport, Transport,
};

use super::setup_error::SetupError;
use crate::scenario::params::{ParamValue, Params};
use crate::scenario::TransportConfig;

/// Transport kinds the scenario format names that are not implemented yet.
const LATER: &[&str] = &[];

/// A configured transport and what flows.csv and the ideal FCT need to know about it.
#[derive(Clone)]
pub struct Configured {
    /// The transport.
    pub transport: Arc<dyn Transport>,
    /// Its kind (`tcp`, `dctcp`): the flows.csv `transport` column.
    pub kind: String,
    /// Its TCP parameters (segment and packet sizes for the ideal FCT).
    pub tcp: TcpConfig,
}

/// The transport `config` describes.
pub fn configure(config: &TransportConfig) -> Result<Configured, SetupError> {
    let kind = config.kind.as_str();
    if LATER.contains(&kind) {
        return Err(SetupError::unsupported(
            "kind",
            format!("transport `{kind}` is not implemented yet (available: tcp, dctcp, ps, mptcp, mmptcp, xmp)"),
        ));
    }
    let tcp = tcp_config(&config.params)?;
    let transport: Arc<dyn Transport> = match kind {
        "tcp" => Arc::new(TcpTransport {
            config: tcp.clone(),
        }),
        "dctcp" => {
            let mut t = DctcpTransport::new(tcp.profile);
            let ecn = t.config.ecn;
            t.config = TcpConfig { ecn, ..tcp.clone() };
            t.dctcp = DctcpConfig {
                g: float(&config.params, "g").unwrap_or(t.dctcp.g),
                ..t.dctcp
            };
            t.dctcp
                .validate()
                .map_err(|e| SetupError::new("", format!("dctcp: {e}")))?;
            Arc::new(t)
        }
        "ps" => {
            let mut t = PsTransport::new(tcp.profile);
            t.config = tcp.clone();
            t.auto_dupthresh = auto_dupthresh(&config.params);
            t.config.limited_transmit = limited_transmit(&config.params);
            if let Some(name) = config.params.text("scatter") {
                t.scatter = ScatterOrder::from_name(name)
                    .ok_or_else(|| SetupError::new("scatter", format!("unknown scatter `{name}`")))?;
            }
            Arc::new(t)
        }
        "mptcp" => {
            let mut t = MptcpTransport::new(tcp.profile);
            t.config = tcp.clone();
            t.mptcp = mptcp_config(&config.params, tcp.profile)?;
            Arc::new(t)
        }
        "mmptcp" => {
            let mut t = MmptcpTransport::new(tcp.profile);
            t.config = tcp.clone();
            t.mptcp = mptcp_config(&config.params, tcp.profile)?;
            t.mmptcp.auto_dupthresh = auto_dupthresh(&config.params);
            t.mmptcp.limited_transmit = limited_transmit(&config.params);
            if let Some(b) = config.params.size("switch_threshold") {
                t.mmptcp.switch_threshold = b;
            }
            if let Some(ParamValue::Bool(on)) = config.params.get("auto_subflows") {
                t.mmptcp.auto_subflows = *on;
            }
            Arc::new(t)
        }
        "xmp" => {
            let mut xmp = XmpConfig::default();
            if let Some(b) = config.params.int("beta") {
                xmp.beta = u32::try_from(b)
                    .map_err(|_| SetupError::new("beta", format!("{b} is out of range")))?;
            }
            if let Some(m) = config.params.int("min_cwnd") {
                xmp.min_cwnd_packets = u64::try_from(m)
                    .map_err(|_| SetupError::new("min_cwnd", format!("{m} is out of range")))?;
            }
            let mut t = xmp
                .mptcp_transport(tcp.profile)
                .map_err(|e| SetupError::new("", format!("xmp: {e}")))?;
            // ECN-capable data, the 2-bit CE echo and an infinite initial ssthresh (7.3, 7.4)
            // are XMP's own; the other TCP keys apply as given.
            let own = XmpConfig::tcp_config(tcp.profile);
            t.config = TcpConfig {
                ecn: own.ecn,
                ce_echo: own.ce_echo,
                initial_ssthresh: own.initial_ssthresh,
                ..tcp.clone()
            };
            t.mptcp = mptcp_config(&config.params, tcp.profile)?;
            let tcp = t.config.clone();
            return Ok(Configured {
                transport: Arc::new(t),
                kind: kind.to_string(),
                tcp,
            });
        }
        other => {
            return Err(SetupError::unsupported(
                "kind",
                format!("transport `{other}` is not implemented yet (available: tcp, dctcp, ps, mptcp, mmptcp, xmp)"),
            ))
        }
    };
    Ok(Configured {
        transport,
        kind: kind.to_string(),
        tcp,
    })
}

/// `dupthresh = "auto"` (or absent): 3 + X from the destination (docs/model.md 6.5); a number
/// is the whole dupthresh (set by [`tcp_config`]).
fn auto_dupthresh(params: &Params) -> bool {
    !matches!(params.get("dupthresh"), Some(ParamValue::Int(_)))
}

/// `limited_transmit = true`: MMPTCP's variant (docs/model.md 6.6).
fn limited_transmit(params: &Params) -> LimitedTransmit {
    match params.get("limited_transmit") {
        Some(ParamValue::Bool(true)) => LimitedTransmit::Mmptcp,
        _ => LimitedTransmit::Off,
    }
}

/// The MPTCP keys: `subflows` -> MaxSubflows, `cc`, `paths`, `cap_subflows`; the 12 switches
/// come from the profile.
fn mptcp_config(params: &Params, profile: Profile) -> Result<MptcpConfig, SetupError> {
    let mut m = MptcpConfig::for_profile(profile);
    if let Some(n) = params.int("subflows") {
        m.max_subflows = u32::try_from(n)
            .map_err(|_| SetupError::new("subflows", format!("{n} is out of range")))?;
    }
    if let Some(name) = params.text("cc") {
        m.cc = CcKind::from_name(name)
            .ok_or_else(|| SetupError::new("cc", format!("unknown cc `{name}`")))?;
    }
    if let Some(name) = params.text("paths") {
        m.paths = SubflowPaths::from_name(name)
            .ok_or_else(|| SetupError::new("paths", format!("unknown paths `{name}`")))?;
    }
    if let Some(ParamValue::Bool(on)) = params.get("cap_subflows") {
        m.cap_subflows = *on;
    }
    m.validate()
        .map_err(|e| SetupError::new("", e.to_string()))?;
    Ok(m)
}

/// The [`Reach`] of `dst` from `src`: locality and equal-cost path count from the topology
/// (docs/model.md 6.5; the ECMP fan-out cap is not applied: every path is hashed over).
pub fn reach(topology: &Topology, src: u32, dst: u32) -> Reach {
    let (s, d) = (HostId(src), HostId(dst));
    let locality = match topology.locality(s, d) {
        TopoLocality::SameHost => Locality::SameHost,
        TopoLocality::SameTor => Locality::SameTor,
        TopoLocality::SamePod => Locality::SamePod,
        TopoLocality::OtherPod => Locality::OtherPod,
    };
    Reach {
        locality,
        paths: topology.path_count(s, d),
    }
}

fn float(params: &Params, key: &str) -> Option<f64> {
    match params.get(key) {
        Some(ParamValue::Float(x)) => Some(*x),
        Some(ParamValue::Int(i)) => Some(*i as f64),
        _ => None,
    }
}

/// The [`TcpConfig`] of a transport's parameters (module doc).
pub fn tcp_config(params: &Params) -> Result<TcpConfig, SetupError> {
    let bad = |what: String| SetupError::new("", what);
    let profile = match params.text("profile") {
        Some(p) => Profile::from_name(p).map_err(|e| bad(e.to_string()))?,
        None => Profile::Rfc,
    };
    let mut c = TcpConfig::for_profile(profile);
    if let Some(mss) = params.size("mss") {
        c.mss = u32::try_from(mss).map_err(|_| bad(format!("mss {mss} B is too large")))?;
    }
    let header = params
        .size("header_size")
        .map_or(Ok(c.sizes.data_overhead), u32::try_from)
        .map_err(|_| bad("header_size is too large".into()))?;
    let ack = params
        .size("ack_size")
        .map_or(Ok(c.sizes.ack), u32::try_from)
        .map_err(|_| bad("ack_size is too large".into()))?;
    c.sizes = PacketSizes {
        data_overhead: header,
        ack,
        syn: if header > 0 { ack + 8 } else { ack },
        fin: ack,
    };
    if let Some(iw) = params.int("initial_cwnd") {
        c.initial_cwnd_segments =
            u32::try_from(iw).map_err(|_| bad(format!("initial_cwnd {iw} is out of range")))?;
    }
    match params.get("initial_ssthresh") {
        Some(ParamValue::Buffer(BufferSize::Bytes(b))) => c.initial_ssthresh = *b,
        Some(ParamValue::Buffer(BufferSize::Packets(p))) => {
            c.initial_ssthresh = p.saturating_mul(c.mss_bytes())
        }
        Some(ParamValue::Size(b)) => c.initial_ssthresh = *b,
        _ => {}
    }
    match params.get("rwnd") {
        Some(ParamValue::Unlimited) => c.rwnd_cap = None,
        Some(ParamValue::Size(b)) => c.rwnd_cap = Some(*b),
        _ => {}
    }
    if let Some(ParamValue::Bool(on)) = params.get("delayed_ack") {
        c.delayed_ack = on.then_some(DelayedAck {
            segments: 2,
            timeout: SimTime::from_ms(40),
        });
    }
    if let Some(t) = params.duration("min_rto") {
        c.min_rto = t;
    }
    if let Some(t) = params
        .duration("reorder_hold")
        .filter(|t| *t > SimTime::ZERO)
    {
        let segments = params.int("reorder_hold_segments").unwrap_or(32);
        c.reorder_hold = Some(ReorderHold {
            max_delay: t,
            max_segments: u32::try_from(segments)
                .map_err(|_| bad(format!("reorder_hold_segments {segments} is out of range")))?,
        });
    }
    if let Some(d) = params.int("dupthresh") {
        c.dupthresh =
            u32::try_from(d).map_err(|_| bad(format!("dupthresh {d} is out of range")))?;
    }
    c.validate().map_err(|e| bad(format!("transport: {e}")))?;
    Ok(c)
}
