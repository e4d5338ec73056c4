//! TCP parameters (docs/model.md 11) and the two compatibility profiles (docs/model.md 12).
//!
//! [`TcpConfig`] holds every parameter of section 11 that applies to a single-path TCP
//! connection (and to each subflow of the multipath transports built on the same engine). Its
//! defaults are the [`Profile::Rfc`] profile; [`TcpConfig::ns3_mmptcp`] gives the faithful
//! ns-3 behaviour of the MMPTCP paper. Every field is public and can be changed after choosing a
//! profile; [`TcpConfig::validate`] checks the combination before a connection is opened.
//!
//! [`keys`] are the scenario keys of these parameters that every transport takes, and
//! [`TcpConfig::from_params`] reads them.

use crate::error::{ParamError, TransportError};
use crate::reorder::ReorderHold;
use htsim_core::params::{ParamValue, Params};
use htsim_core::units::BufferSize;
use htsim_core::SimTime;

/// Maximum segment size of the MMPTCP paper, in payload bytes (docs/model.md 0, 2.1).
pub const DEFAULT_MSS: u32 = 1400;
/// Initial slow-start threshold in bytes (docs/model.md 2.1: 65 535 B).
pub const DEFAULT_INITIAL_SSTHRESH: u64 = 65_535;
/// The ns-3 fixed receive window in bytes (docs/model.md 2.1, 10 #6).
pub const NS3_RWND: u64 = 65_535;

/// A set of compatibility switches (docs/model.md 12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Profile {
    /// RFC-like ("clean") behaviour, the default: RFC 6298 estimator with a 1 s initial RTO,
    /// 200 ms minimum RTO, no receive-window cap, 1 s SYN timeout, RFC 3465 ABC (L = 2) in slow
    /// start, fast-recovery inflation of dupthresh x MSS, RFC 6582's careful fast-retransmit
    /// entry ([`TcpConfig::careful_recovery`]) and full-ACK deflation to the data still
    /// outstanding ([`FullAckWindow::Outstanding`]).
    #[default]
    Rfc,
    /// The faithful quirks of the authors' ns-3 model (docs/model.md 2 and 12): 1.5 s RTO before
    /// the first sample, ns-3 mean-deviation estimator (gain 0.1, rttvar0 = sample, ms
    /// truncation), 65 535 B receive-window cap, SYN timeout 3 s doubling with 6 tries, +1 MSS per
    /// ACK in slow start, +3 MSS fast-recovery inflation whatever the dupthresh, `recover` not
    /// updated on an RTO and full-ACK deflation with the pre-ACK flight (docs/model.md 2.8).
    Ns3Mmptcp,
}

impl Profile {
    /// The profile's name as scenario files spell it (`rfc`, `ns3-mmptcp`).
    pub fn name(self) -> &'static str {
        match self {
            Profile::Rfc => "rfc",
            Profile::Ns3Mmptcp => "ns3-mmptcp",
        }
    }

    /// Parses a profile name (`rfc` or `ns3-mmptcp`).
    pub fn from_name(name: &str) -> Result<Profile, TransportError> {
        match name {
            "rfc" => Ok(Profile::Rfc),
            "ns3-mmptcp" => Ok(Profile::Ns3Mmptcp),
            other => Err(TransportError::UnknownProfile(other.to_string())),
        }
    }
}

/// Sizes on the wire of every packet type, in bytes, headers and the 2-byte PPP header
/// included (docs/model.md 1). All transports take their packet sizes from here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketSizes {
    /// Bytes added to a data segment's payload: 40 TCP (20 + 20 DSN option) + 20 IP + 2 PPP = 62.
    pub data_overhead: u32,
    /// A pure ACK: 20 TCP + 20 IP + 2 PPP = 42.
    pub ack: u32,
    /// A SYN or SYN-ACK with MP_CAPABLE / MP_JOIN: 28 TCP + 20 IP + 2 PPP = 50.
    pub syn: u32,
    /// A FIN, FIN+ACK or RST: 42.
    pub fin: u32,
}

impl PacketSizes {
    /// The ns-3 MPTCP wire model of docs/model.md 1 (a full 1400 B segment is 1462 B).
    pub const MPTCP_DSN: PacketSizes = PacketSizes {
        data_overhead: 62,
        ack: 42,
        syn: 50,
        fin: 42,
    };

    /// No header overhead: a data packet is exactly its payload (the MSS is then the packet size,
    /// e.g. 4000 B in the htsim-compare scenario) and every control packet is `control_bytes`
    /// (e.g. 40).
    pub const fn no_overhead(control_bytes: u32) -> PacketSizes {
        PacketSizes {
            data_overhead: 0,
            ack: control_bytes,
            syn: control_bytes,
            fin: control_bytes,
        }
    }

    /// Wire size of a data segment carrying `payload` bytes.
    #[inline]
    pub fn data(&self, payload: u32) -> u32 {
        payload + self.data_overhead
    }
}

impl Default for PacketSizes {
    /// [`PacketSizes::MPTCP_DSN`].
    fn default() -> Self {
        PacketSizes::MPTCP_DSN
    }
}

/// Which RTT estimator computes the RTO (docs/model.md 2.9, 12 `rtt_estimator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RttEstimatorKind {
    /// RFC 6298: rttvar0 = m/2, RTO = srtt + 4 rttvar (the profile sets gains 1/8 and 1/4).
    Rfc6298,
    /// ns-3 `RttMeanDeviation` as used by the MMPTCP model: rttvar0 = m, RTO = trunc_ms(srtt) +
    /// 4 trunc_ms(rttvar) (the profile sets gains 0.1 and 0.1).
    Ns3MeanDeviation,
}

/// The slow-start increase per new ACK (docs/model.md 2.7, 12 `ss_increase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlowStartIncrease {
    /// +1 MSS per new ACK whatever it covers (ns-3, no ABC).
    PerAck,
    /// RFC 3465 appropriate byte counting: + min(bytes acked, `limit` x MSS).
    Abc {
        /// L, in segments (RFC 3465 recommends 2).
        limit: u32,
    },
}

/// Window inflation on entering fast recovery (docs/model.md 2.8, 12 `fr_inflation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrInflation {
    /// cwnd = ssthresh + 3 MSS whatever the dupthresh (ns-3).
    ThreeMss,
    /// cwnd = ssthresh + dupthresh x MSS (RFC 5681 with a general dupthresh).
    Dupthresh,
}

/// The congestion window set by the full ACK that ends fast recovery (docs/model.md 2.8;
/// RFC 6582 3.2 step 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FullAckWindow {
    /// `min(ssthresh, snd_max - snd_una + MSS)` with `snd_una` from *before* the ACK, as the ns-3
    /// code does (2.8: "≈ ssthresh"). When the ACK covers most of that flight (a recovery whose
    /// flight the receiver already held) the window exceeds what is left in flight by up to
    /// ssthresh, and that much goes out back to back.
    PreAckFlight,
    /// RFC 6582's option (1): `min(ssthresh, max(FlightSize, MSS) + MSS)` with FlightSize "the
    /// amount of data presently outstanding", `snd_max - ack` after the ACK; the window then
    /// exceeds the data in flight by one segment (two with nothing outstanding), plus the
    /// increase the engine applies on the same ACK (docs/model.md 2.8), and slow start
    /// (ssthresh is kept) climbs back, ACK-clocked. The RFC's option (2) (cwnd = ssthresh)
    /// needs burst avoidance the engine does not model (no pacing, 2.4).
    Outstanding,
}

/// Limited transmit on duplicate ACKs below dupthresh (docs/model.md 6.6, 12 `lt_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LimitedTransmit {
    /// None (TCP, MPTCP, MMPTCP phase 2).
    Off,
    /// MMPTCP's variant: one new segment per dup ACK, up to dupthresh - 1, ignoring cwnd.
    Mmptcp,
    /// RFC 3042: on the first two dup ACKs, one new segment if flight stays <= cwnd + 2 MSS.
    Rfc3042,
}

/// Delayed acknowledgements (docs/model.md 2.5, 8, 12 `delayed_ack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DelayedAck {
    /// m: ACK every m in-order segments (m >= 1).
    pub segments: u32,
    /// The delayed-ACK timer (e.g. 40 ms, Linux's minimum).
    pub timeout: SimTime,
}

/// ECN marking of a sender's data segments (docs/model.md 7.4, 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EcnMode {
    /// Data segments are ECN-capable (ECT(0)).
    pub ect_data: bool,
    /// Retransmitted data segments are ECN-capable too (Linux practice; RFC 3168 6.1.5 says no).
    pub ect_retransmits: bool,
    /// RFC 3168's sender (docs/model.md 2.14): an echo is answered as a loss without a
    /// retransmission, at most one window reduction per window of data (losses included), and
    /// the next new data segment after each reduction carries CWR, which tells an
    /// [`CeEcho::Rfc3168`] receiver to stop echoing (6.1.2, 6.1.3).
    pub cwr: bool,
}

/// How a receiver echoes the CE marks of arriving data in its ACKs (docs/model.md 7.2, 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CeEcho {
    /// DCTCP's one-bit state machine: every ACK carries ECE = the CE state (docs/model.md 8;
    /// without delayed ACK, the CE bit of the segment answered). The default.
    #[default]
    Dctcp,
    /// XMP's 2-bit count (BOS rule 2, docs/model.md 7.2): the receiver counts CE segments in
    /// `cnt_ce`; every ACK carries `e = min(cnt_ce, 3)` as ECE (bit 0) and CWR (bit 1), then
    /// `cnt_ce -= e`.
    XmpCount,
    /// RFC 3168 6.1.3: from a CE segment on, every ACK carries ECE, until a data segment
    /// carrying CWR arrives (the sender reduced its window); a segment with both CWR and CE
    /// starts the echo again.
    Rfc3168,
}

/// Every parameter of one TCP connection or subflow (docs/model.md 2.1, 11).
///
/// Defaults are [`Profile::Rfc`]'s; units are in the field names or docs.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// The profile these values started from (informational; the fields are authoritative).
    pub profile: Profile,
    /// Maximum segment size in payload bytes (1400).
    pub mss: u32,
    /// Sizes on the wire (docs/model.md 1).
    pub sizes: PacketSizes,
    /// Initial congestion window in segments (1; `--iw`).
    pub initial_cwnd_segments: u32,
    /// Initial slow-start threshold in bytes (65 535).
    pub initial_ssthresh: u64,
    /// Receive-window cap in bytes: the sender's usable window is min(cwnd, rwnd). `None` =
    /// unlimited (rfc); `Some(65_535)` in ns3-mmptcp (docs/model.md 2.1, 10 #6).
    pub rwnd_cap: Option<u64>,
    /// Data the application has written but not yet sent when it stops a long flow; it still
    /// drains before the FIN (ns-3 `SndBufSize`, 131 072 B; docs/model.md 2.1, 2.11). The
    /// application's 140 000 B write chunks are not modelled: data is always available.
    pub send_buffer_bytes: u64,
    /// Duplicate ACKs that trigger fast retransmit (3).
    pub dupthresh: u32,
    /// Window inflation on entering fast recovery.
    pub fr_inflation: FrInflation,
    /// RFC 6582's "careful" NewReno (section 3.2 steps 2 and 4, section 4): an RTO records
    /// the highest sequence number sent in `recover`, and the dupthresh-th duplicate ACK enters
    /// fast retransmit only if the cumulative ACK covers more than `recover` (`recover`
    /// starts at the SYN's sequence number). Duplicate ACKs that the go-back-N resends of an
    /// RTO draw from data the receiver already holds then cannot start a fast recovery, whose
    /// ssthresh = flight / 2 (a flight inflated by the recovery that timed out) would release
    /// a window of resends at line rate. The price, as in the RFC (and FreeBSD's NewReno): a
    /// loss of exactly the first segment sent after a recovery began (its duplicate ACKs carry
    /// `ack == recover`, not more) and a retransmission lost after an RTO are repaired by an
    /// RTO. No section 4.1 / 4.2 heuristic (they are MAY; 4.2 needs timestamps). `true` in
    /// `rfc`; `false` in `ns3-mmptcp`, whose code has neither rule (docs/model.md 2.8:
    /// "`recover` is not updated on RTO ... three dupacks for old data can therefore start a
    /// new fast recovery"). Section 12 has no row for it: 2.8 states the ns-3 behaviour and
    /// RFC 6582 the clean one, so it is a profile setting like the rows of 12.
    pub careful_recovery: bool,
    /// The window after the full ACK that ends fast recovery: [`FullAckWindow::Outstanding`]
    /// in `rfc` (RFC 6582 3.2 step 3 option (1)), [`FullAckWindow::PreAckFlight`] in
    /// `ns3-mmptcp` (2.8). Like `careful_recovery`, not a row of 12.
    pub full_ack_window: FullAckWindow,
    /// The receiver answers a FIN that arrives ahead of missing data with a duplicate ACK, as
    /// any out-of-order segment (RFC 5681 4.2). `true` in `rfc`; `false` in `ns3-mmptcp`,
    /// whose receiver answers a FIN only once it is in sequence (docs/model.md 2.11) and
    /// otherwise just remembers it. Like `careful_recovery`, not a row of 12.
    pub ack_early_fin: bool,
    /// New data may go out on the duplicate ACK that starts fast recovery, when the inflated
    /// window has room (RFC 5681 3.2: send whenever cwnd allows). `true` in `rfc`; `false` in
    /// `ns3-mmptcp`, which sends on a duplicate ACK only once in fast recovery (docs/model.md
    /// 2.4, 2.8), so that room waits for the next duplicate or new ACK. Not a row of 12.
    pub send_at_fast_retransmit: bool,
    /// An RTO keeps the duplicate-ACK count; only a new ACK resets it. `false` in `rfc` (the
    /// RTO clears it, docs/model.md 2.10); `true` in `ns3-mmptcp`, whose socket bases set
    /// `m_dupAckCount = 0` only in `ReceivedAck` on a new ACK. After an RTO in the middle of
    /// a fast recovery the count is then past dupthresh, so duplicate ACKs that arrive before
    /// the next new ACK start no fast retransmit, and MMPTCP's limited transmit, which in the
    /// ns-3 model answers every duplicate ACK outside fast recovery but the dupthresh-th
    /// (docs/model.md 6.6), goes on past dupthresh.
    pub rto_keeps_dupacks: bool,
    /// Slow-start increase rule.
    pub ss_increase: SlowStartIncrease,
    /// Limited transmit (off for TCP).
    pub limited_transmit: LimitedTransmit,
    /// RTT estimator.
    pub rtt_estimator: RttEstimatorKind,
    /// Gain of the smoothed RTT (RFC 6298: 1/8; ns-3: 0.1).
    pub srtt_gain: f64,
    /// Gain of the RTT variation (RFC 6298: 1/4; ns-3: 0.1).
    pub rttvar_gain: f64,
    /// RTO before the first RTT sample (1 s rfc, 1.5 s ns3-mmptcp).
    pub initial_rto: SimTime,
    /// Minimum RTO (200 ms).
    pub min_rto: SimTime,
    /// Largest RTO backoff multiplier (64).
    pub max_rto_backoff: u32,
    /// First SYN / SYN-ACK retransmission timeout; doubles on each retry (1 s rfc, 3 s ns-3).
    pub syn_timeout: SimTime,
    /// SYN / SYN-ACK transmissions before the connection fails (6; ns-3 `ConnCount`). FIN and
    /// the receiver's FIN+ACK are also given up after this many transmissions (**\[PROPOSED\]**).
    pub syn_max_transmissions: u32,
    /// Delayed ACK at the receiver; `None` = ACK every segment at once (docs/model.md 2.5).
    pub delayed_ack: Option<DelayedAck>,
    /// ECN capability of data segments (off for TCP unless `ecn = true`, on for DCTCP).
    pub ecn: EcnMode,
    /// How the receiver echoes CE marks (DCTCP's one bit by default; XMP's 2-bit count).
    pub ce_echo: CeEcho,
    /// The reorder-resilient receiver option ([`crate::reorder`]); `None` (the default) = a
    /// plain receiver that answers every out-of-order segment at once (docs/model.md 2.5).
    pub reorder_hold: Option<ReorderHold>,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig::rfc()
    }
}

impl TcpConfig {
    /// The [`Profile::Rfc`] configuration (the default).
    pub fn rfc() -> Self {
        TcpConfig {
            profile: Profile::Rfc,
            mss: DEFAULT_MSS,
            sizes: PacketSizes::MPTCP_DSN,
            initial_cwnd_segments: 1,
            initial_ssthresh: DEFAULT_INITIAL_SSTHRESH,
            rwnd_cap: None,
            send_buffer_bytes: 131_072,
            dupthresh: 3,
            fr_inflation: FrInflation::Dupthresh,
            careful_recovery: true,
            full_ack_window: FullAckWindow::Outstanding,
            ack_early_fin: true,
            send_at_fast_retransmit: true,
            rto_keeps_dupacks: false,
            ss_increase: SlowStartIncrease::Abc { limit: 2 },
            limited_transmit: LimitedTransmit::Off,
            rtt_estimator: RttEstimatorKind::Rfc6298,
            srtt_gain: 0.125,
            rttvar_gain: 0.25,
            initial_rto: SimTime::from_secs(1),
            min_rto: SimTime::from_ms(200),
            max_rto_backoff: 64,
            syn_timeout: SimTime::from_secs(1),
            syn_max_transmissions: 6,
            delayed_ack: None,
            ecn: EcnMode::default(),
            ce_echo: CeEcho::Dctcp,
            reorder_hold: None,
        }
    }

    /// The [`Profile::Ns3Mmptcp`] configuration (docs/model.md 2, 12 faithful column).
    pub fn ns3_mmptcp() -> Self {
        TcpConfig {
            profile: Profile::Ns3Mmptcp,
            rwnd_cap: Some(NS3_RWND),
            fr_inflation: FrInflation::ThreeMss,
            careful_recovery: false,
            full_ack_window: FullAckWindow::PreAckFlight,
            ack_early_fin: false,
            send_at_fast_retransmit: false,
            rto_keeps_dupacks: true,
            ss_increase: SlowStartIncrease::PerAck,
            rtt_estimator: RttEstimatorKind::Ns3MeanDeviation,
            srtt_gain: 0.1,
            rttvar_gain: 0.1,
            initial_rto: SimTime::from_ms(1500),
            syn_timeout: SimTime::from_secs(3),
            ..TcpConfig::rfc()
        }
    }

    /// The configuration of `profile`.
    pub fn for_profile(profile: Profile) -> Self {
        match profile {
            Profile::Rfc => TcpConfig::rfc(),
            Profile::Ns3Mmptcp => TcpConfig::ns3_mmptcp(),
        }
    }

    /// The same configuration without header overhead: data packets of exactly `packet_bytes`
    /// (the MSS) and control packets of `control_bytes` (the htsim-compare scenario: 4000 and 40).
    pub fn without_header_overhead(mut self, packet_bytes: u32, control_bytes: u32) -> Self {
        self.mss = packet_bytes;
        self.sizes = PacketSizes::no_overhead(control_bytes);
        self
    }

    /// The MSS in bytes as a `u64`, for window arithmetic.
    #[inline]
    pub fn mss_bytes(&self) -> u64 {
        self.mss as u64
    }

    /// Checks that the values make sense together.
    pub fn validate(&self) -> Result<(), TransportError> {
        let bad = |what: &str| Err(TransportError::InvalidConfig(what.to_string()));
        if self.mss == 0 {
            return bad("mss must be positive");
        }
        if self.initial_cwnd_segments == 0 {
            return bad("initial cwnd must be at least 1 segment");
        }
        if self.dupthresh == 0 {
            return bad("dupthresh must be at least 1");
        }
        let gain_ok = |g: f64| g > 0.0 && g <= 1.0;
        if !gain_ok(self.srtt_gain) || !gain_ok(self.rttvar_gain) {
            return bad("RTT gains must be in (0, 1]");
        }
        if self.max_rto_backoff == 0 {
            return bad("the RTO backoff cap must be at least 1");
        }
        if self.syn_max_transmissions == 0 {
            return bad("at least one SYN transmission is needed");
        }
        if self.syn_timeout == SimTime::ZERO || self.initial_rto == SimTime::ZERO {
            return bad("SYN timeout and initial RTO must be positive");
        }
        if let Some(d) = self.delayed_ack {
            if d.segments == 0 || d.timeout == SimTime::ZERO {
                return bad("delayed ACK needs m >= 1 and a positive timeout");
            }
        }
        if let SlowStartIncrease::Abc { limit: 0 } = self.ss_increase {
            return bad("the ABC limit must be at least 1 segment");
        }
        if self.rwnd_cap.is_some_and(|r| r < self.mss as u64) {
            return bad("the receive window must hold at least one MSS");
        }
        if let Some(h) = &self.reorder_hold {
            h.validate()?;
        }
        Ok(())
    }
}

/// The parameter list of a transport kind that takes every TCP key of [`keys`] (in the order
/// `htsim list` shows them: `profile` to `reorder_hold_segments`), then `extra`.
macro_rules! tcp_keys_and {
    ($($extra:expr),* $(,)?) => {
        &[
            $crate::config::keys::PROFILE,
            $crate::config::keys::MSS,
            $crate::config::keys::HEADER_SIZE,
            $crate::config::keys::ACK_SIZE,
            $crate::config::keys::INITIAL_CWND,
            $crate::config::keys::INITIAL_SSTHRESH,
            $crate::config::keys::RWND,
            $crate::config::keys::DELAYED_ACK,
            $crate::config::keys::MIN_RTO,
            $crate::config::keys::REORDER_HOLD,
            $crate::config::keys::REORDER_HOLD_SEGMENTS,
            $($extra),*
        ]
    };
}
pub(crate) use tcp_keys_and;

/// The scenario keys of [`TcpConfig`] (docs/model.md 11); each transport lists those it takes
/// in its [`TransportKind`](crate::transport::TransportKind) (most take all of them, before their own).
pub mod keys {
    use htsim_core::params::{ParamKind, ParamSpec};

    /// `profile`.
    pub const PROFILE: ParamSpec = ParamSpec::new(
        "profile",
        ParamKind::Choice(&["rfc", "ns3-mmptcp"]),
        Some("rfc"),
        "compatibility profile (docs/model.md 12)",
    );
    /// `mss`.
    pub const MSS: ParamSpec = ParamSpec::new(
        "mss",
        ParamKind::PositiveSize,
        Some("1400B"),
        "maximum segment size (payload per packet)",
    );
    /// `header_size`.
    pub const HEADER_SIZE: ParamSpec = ParamSpec::new(
        "header_size",
        ParamKind::Size,
        Some("62B"),
        "header bytes added to each data packet on the wire",
    );
    /// `ack_size`.
    pub const ACK_SIZE: ParamSpec = ParamSpec::new(
        "ack_size",
        ParamKind::Size,
        Some("42B"),
        "size of an ACK and a FIN on the wire, above 0 (a SYN adds 8 B of options when \
         header_size > 0)",
    );
    /// `initial_cwnd`.
    pub const INITIAL_CWND: ParamSpec = ParamSpec::new(
        "initial_cwnd",
        ParamKind::Int {
            min: 1,
            max: 1_000_000,
        },
        Some("1"),
        "initial congestion window, in segments",
    );
    /// `initial_ssthresh`.
    pub const INITIAL_SSTHRESH: ParamSpec = ParamSpec::new(
        "initial_ssthresh",
        ParamKind::Buffer,
        Some("65535B"),
        "initial slow-start threshold, above 0 (bytes, or packets of mss bytes)",
    );
    /// `rwnd`: unlimited under `rfc`, the ns-3 model's 65 535 B under `ns3-mmptcp`.
    pub const RWND: ParamSpec = ParamSpec {
        profile_defaults: &[("ns3-mmptcp", "65535B")],
        ..ParamSpec::new(
            "rwnd",
            ParamKind::SizeOrUnlimited,
            Some("unlimited"),
            "receiver window cap (\"unlimited\": no cap, the rfc default; 65535B: the ns-3 model's \
             fixed window, the ns3-mmptcp default)",
        )
    };
    /// `delayed_ack`.
    pub const DELAYED_ACK: ParamSpec = ParamSpec::new(
        "delayed_ack",
        ParamKind::Bool,
        Some("false"),
        "ACK every second segment (40 ms timer)",
    );
    /// `min_rto`.
    pub const MIN_RTO: ParamSpec = ParamSpec::new(
        "min_rto",
        ParamKind::Duration,
        Some("200ms"),
        "lower bound of the retransmission timeout, above 0s",
    );
    /// `dupthresh`, a number (the transports without an automatic dupthresh).
    pub const DUPTHRESH: ParamSpec = ParamSpec::new(
        "dupthresh",
        ParamKind::Int { min: 1, max: 1000 },
        Some("3"),
        "duplicate ACKs that trigger fast retransmit",
    );
    /// `ecn` (`tcp` only).
    pub const ECN: ParamSpec = ParamSpec::new(
        "ecn",
        ParamKind::Bool,
        Some("false"),
        "RFC 3168 ECN: new data ECN-capable (not retransmissions), an ECN echo taken as a loss, \
         at most one window reduction per window of data, CWR to end the receiver's echo \
         (docs/model.md 2.14)",
    );
    /// `reorder_hold`.
    pub const REORDER_HOLD: ParamSpec = ParamSpec::new(
        "reorder_hold",
        ParamKind::Duration,
        Some("0s"),
        "reorder-resilient receiver: hold the duplicate ACKs of out-of-order segments up to this \
         long before taking the hole for a loss (0s = off; above the paths' delay spread, e.g. \
         \"300us\"; every subflow of the multipath receivers too)",
    );
    /// `reorder_hold_segments`.
    pub const REORDER_HOLD_SEGMENTS: ParamSpec = ParamSpec::new(
        "reorder_hold_segments",
        ParamKind::Int {
            min: 1,
            max: 1_000_000,
        },
        Some("32"),
        "with reorder_hold: at most this many duplicate ACKs held per hole, then all are sent \
         (at most the expected window in segments)",
    );
}

impl TcpConfig {
    /// The configuration of a transport's resolved scenario parameters, starting from its
    /// `profile`'s: `mss`; `header_size` -> the data-packet overhead; `ack_size` -> ACK and FIN
    /// size (SYN = `ack_size` + 8 B of MPTCP options when headers are modelled, else
    /// `ack_size`); `initial_cwnd` -> `initial_cwnd_segments`; `initial_ssthresh` -> bytes
    /// (packets x MSS); `rwnd` -> `rwnd_cap` (`unlimited` = none); `delayed_ack` -> ACK every
    /// 2nd segment with a 40 ms timer; `min_rto`; `dupthresh` (a number; `"auto"` is left to
    /// the transport); `reorder_hold` (a positive duration) and `reorder_hold_segments` ->
    /// `reorder_hold` (the reorder-resilient receiver, off at `0s`). A key not set keeps the
    /// profile's value. Fails if the result does not [`validate`](TcpConfig::validate).
    pub fn from_params(params: &Params) -> Result<TcpConfig, ParamError> {
        let bad = |what: String| ParamError::new("", what);
        let profile = match params.text("profile") {
            Some(p) => Profile::from_name(p).map_err(|e| bad(e.to_string()))?,
            None => Profile::Rfc,
        };
        let mut c = TcpConfig::for_profile(profile);
        // Packet sizes on the wire are u32 bytes (4 GiB - 1): a data packet is mss +
        // header_size, a SYN ack_size + 8.
        let too_large = |key: &'static str, what: String, most: u32| {
            ParamError::new(key, format!("{what}: at most {most} B"))
        };
        if let Some(mss) = params.size("mss") {
            c.mss = u32::try_from(mss).map_err(|_| {
                too_large(
                    "mss",
                    format!("a segment of {mss} B is too large"),
                    u32::MAX,
                )
            })?;
        }
        // A data packet too large for its u32 is an error at the larger of the two sizes,
        // whichever of them is written (the other may be the profile's).
        let header_too_large = |h: u64, mss: u32| {
            too_large(
                "header_size",
                format!("a header of {h} B makes data packets of {mss} B (mss) too large"),
                u32::MAX - mss,
            )
        };
        let header = match params.size("header_size") {
            Some(h) => u32::try_from(h).map_err(|_| header_too_large(h, c.mss))?,
            None => c.sizes.data_overhead,
        };
        if c.mss.checked_add(header).is_none() {
            return Err(if c.mss >= header {
                too_large(
                    "mss",
                    format!(
                        "a segment of {} B makes data packets with a header of {header} B \
                         (header_size) too large",
                        c.mss
                    ),
                    u32::MAX - header,
                )
            } else {
                header_too_large(header.into(), c.mss)
            });
        }
        let ack = match params.size("ack_size") {
            None => c.sizes.ack,
            Some(0) => {
                return Err(ParamError::new(
                    "ack_size",
                    "an ACK of 0 B cannot work: ACKs, SYNs and FINs take time and room on the \
                     wire (42B with the ns-3 headers, 40B in htsim)",
                ))
            }
            Some(a) => u32::try_from(a)
                .ok()
                .filter(|a| a.checked_add(8).is_some())
                .ok_or_else(|| {
                    too_large(
                        "ack_size",
                        format!("an ACK of {a} B (and a SYN 8 B more) is too large"),
                        u32::MAX - 8,
                    )
                })?,
        };
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
            Some(
                ParamValue::Buffer(BufferSize::Bytes(0) | BufferSize::Packets(0))
                | ParamValue::Size(0),
            ) => {
                return Err(ParamError::new(
                    "initial_ssthresh",
                    "a slow-start threshold of 0 cannot work: expected at least 1 B (below one \
                     segment, the connection starts in congestion avoidance)",
                ))
            }
            Some(ParamValue::Buffer(BufferSize::Bytes(b))) => c.initial_ssthresh = *b,
            Some(ParamValue::Buffer(BufferSize::Packets(p))) => {
                c.initial_ssthresh = p.saturating_mul(c.mss_bytes())
            }
            Some(ParamValue::Size(b)) => c.initial_ssthresh = *b,
            _ => {}
        }
        match params.get("rwnd") {
            Some(ParamValue::Unlimited) => c.rwnd_cap = None,
            Some(ParamValue::Size(b)) if *b < u64::from(c.mss) => {
                return Err(ParamError::new(
                    "rwnd",
                    format!("{b} B cannot hold one segment of {} B (mss)", c.mss),
                ));
            }
            Some(ParamValue::Size(b)) => c.rwnd_cap = Some(*b),
            _ => {}
        }
        if let Some(on) = params.bool("delayed_ack") {
            c.delayed_ack = on.then_some(DelayedAck {
                segments: 2,
                timeout: SimTime::from_ms(40),
            });
        }
        if let Some(t) = params.duration("min_rto") {
            if t == SimTime::ZERO {
                return Err(ParamError::new(
                    "min_rto",
                    "an RTO floor of 0s lets the retransmission timer fire as soon as the RTT \
                     estimate allows, resending data still in flight: expected a duration \
                     above 0s (200ms in Linux and the MMPTCP paper)",
                ));
            }
            c.min_rto = t;
        }
        if let Some(t) = params
            .duration("reorder_hold")
            .filter(|t| *t > SimTime::ZERO)
        {
            let segments = params.int("reorder_hold_segments").unwrap_or(32);
            c.reorder_hold = Some(ReorderHold {
                max_delay: t,
                max_segments: u32::try_from(segments).map_err(|_| {
                    bad(format!("reorder_hold_segments {segments} is out of range"))
                })?,
            });
        }
        if let Some(d) = params.int("dupthresh") {
            c.dupthresh =
                u32::try_from(d).map_err(|_| bad(format!("dupthresh {d} is out of range")))?;
        }
        c.validate().map_err(|e| bad(format!("transport: {e}")))?;
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_differ_exactly_in_the_switches_of_section_12() {
        let r = TcpConfig::rfc();
        let n = TcpConfig::ns3_mmptcp();
        assert_eq!(r.rwnd_cap, None);
        assert_eq!(n.rwnd_cap, Some(65_535));
        assert_eq!(r.initial_rto, SimTime::from_secs(1));
        assert_eq!(n.initial_rto, SimTime::from_ms(1500));
        assert_eq!(n.syn_timeout, SimTime::from_secs(3));
        assert!(r.careful_recovery && !n.careful_recovery);
        assert_eq!(r.full_ack_window, FullAckWindow::Outstanding);
        assert_eq!(n.full_ack_window, FullAckWindow::PreAckFlight);
        assert!(r.ack_early_fin && !n.ack_early_fin);
        assert!(r.send_at_fast_retransmit && !n.send_at_fast_retransmit);
        assert!(!r.rto_keeps_dupacks && n.rto_keeps_dupacks);
        assert_eq!((r.mss, r.dupthresh, r.initial_ssthresh), (1400, 3, 65_535));
        assert_eq!(r.sizes.data(1400), 1462);
        assert_eq!(PacketSizes::no_overhead(40).data(4000), 4000);
        let bare = TcpConfig::rfc().without_header_overhead(4000, 40);
        assert_eq!(
            (bare.mss, bare.sizes.data(bare.mss), bare.sizes.ack),
            (4000, 4000, 40)
        );
        assert!(r.validate().is_ok() && n.validate().is_ok());
        assert_eq!(
            Profile::from_name("ns3-mmptcp").ok(),
            Some(Profile::Ns3Mmptcp)
        );
        assert!(Profile::from_name("bogus").is_err());
    }

    #[test]
    fn validate_rejects_nonsense() {
        let c = TcpConfig {
            mss: 0,
            ..TcpConfig::rfc()
        };
        assert!(c.validate().is_err());
        let c = TcpConfig {
            delayed_ack: Some(DelayedAck {
                segments: 0,
                timeout: SimTime::from_ms(40),
            }),
            ..TcpConfig::rfc()
        };
        assert!(c.validate().is_err());
    }

    #[test]
    fn a_receive_window_below_one_segment_is_an_error_at_rwnd() {
        let mut params = Params::default();
        params.set("rwnd", ParamValue::Size(1000));
        let e = TcpConfig::from_params(&params).unwrap_err();
        assert_eq!(e.key, "rwnd");
        assert_eq!(e.message, "1000 B cannot hold one segment of 1400 B (mss)");
        params.set("rwnd", ParamValue::Size(1400));
        assert_eq!(
            TcpConfig::from_params(&params).unwrap().rwnd_cap,
            Some(1400)
        );
    }

    #[test]
    fn zero_sizes_and_timeouts_are_errors_at_their_key() {
        let refused = |key: &str, value: ParamValue| {
            let mut params = Params::default();
            params.set(key, value);
            TcpConfig::from_params(&params).unwrap_err()
        };
        let e = refused("ack_size", ParamValue::Size(0));
        assert_eq!(e.key, "ack_size");
        assert!(e.message.starts_with("an ACK of 0 B cannot work"), "{e:?}");
        let e = refused("min_rto", ParamValue::Duration(SimTime::ZERO));
        assert_eq!(e.key, "min_rto");
        assert!(e.message.starts_with("an RTO floor of 0s"), "{e:?}");
        for zero in [
            ParamValue::Buffer(BufferSize::Bytes(0)),
            ParamValue::Buffer(BufferSize::Packets(0)),
            ParamValue::Size(0),
        ] {
            let e = refused("initial_ssthresh", zero);
            assert_eq!(e.key, "initial_ssthresh");
            assert!(e.message.contains("threshold of 0 cannot work"), "{e:?}");
        }
        // The smallest values that mean something are taken as they are.
        let mut params = Params::default();
        params.set("ack_size", ParamValue::Size(1));
        params.set("min_rto", ParamValue::Duration(SimTime::from_ps(1)));
        params.set("initial_ssthresh", ParamValue::Buffer(BufferSize::Bytes(1)));
        let c = TcpConfig::from_params(&params).unwrap();
        assert_eq!((c.sizes.ack, c.sizes.syn, c.sizes.fin), (1, 9, 1));
        assert_eq!((c.min_rto, c.initial_ssthresh), (SimTime::from_ps(1), 1));
    }

    #[test]
    fn packet_sizes_beyond_u32_are_errors_at_their_key_not_overflows() {
        let refused = |values: &[(&str, u64)]| {
            let mut params = Params::default();
            for (k, v) in values {
                params.set(k, ParamValue::Size(*v));
            }
            TcpConfig::from_params(&params).unwrap_err()
        };
        let e = refused(&[("mss", 1 << 32)]);
        assert_eq!(e.key, "mss");
        let e = refused(&[("mss", 1400), ("header_size", u64::from(u32::MAX))]);
        assert_eq!(
            (e.key, e.message.as_str()),
            (
                "header_size",
                "a header of 4294967295 B makes data packets of 1400 B (mss) too large: at most \
                 4294965895 B"
            )
        );
        // The larger of the two is at fault, also with the other left at the profile's (this
        // was an error at `header_size`, "at most 0 B", or with no `header_size`, no error).
        for values in [
            &[("mss", u64::from(u32::MAX))][..],
            &[("mss", u64::from(u32::MAX)), ("header_size", 62)][..],
        ] {
            let e = refused(values);
            assert_eq!(
                (e.key, e.message.as_str()),
                (
                    "mss",
                    "a segment of 4294967295 B makes data packets with a header of 62 B \
                     (header_size) too large: at most 4294967233 B"
                ),
                "{values:?}"
            );
        }
        let e = refused(&[("mss", 1 << 31), ("header_size", 1 << 31)]);
        assert_eq!(e.key, "mss");
        let e = refused(&[("mss", (1 << 31) - 1), ("header_size", (1 << 31) + 1)]);
        assert_eq!(e.key, "header_size");
        let e = refused(&[("ack_size", u64::from(u32::MAX - 7))]);
        assert_eq!(e.key, "ack_size");
        let mut params = Params::default();
        params.set("mss", ParamValue::Size(1400));
        params.set("header_size", ParamValue::Size(u64::from(u32::MAX - 1400)));
        params.set("ack_size", ParamValue::Size(u64::from(u32::MAX - 8)));
        let c = TcpConfig::from_params(&params).unwrap();
        assert_eq!(c.sizes.data(c.mss), u32::MAX);
        assert_eq!(c.sizes.syn, u32::MAX);
    }
}
