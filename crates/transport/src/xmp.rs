//! XMP: BOS + TraSh (docs/model.md 7; Cao et al., CoNEXT 2013, Algorithm 1).
//!
//! XMP is an MPTCP congestion controller. Switches mark CE above K packets (7.1, the ECN queue
//! of htsim-core); the receiver echoes a 2-bit count of CE segments in ECE/CWR
//! ([`CeEcho::XmpCount`], 7.2, in `receiver.rs`); each subflow's sender cuts its window by
//! `max(cwnd / beta, 1)` at most once per round and grows by TraSh's `delta` packets per round
//! (7.3). [`Xmp`] is the per-connection controller: it keeps every subflow's round state,
//! indexed by [`CcState::subflow`], and the connection-wide sums TraSh reads (the sum of the
//! subflows' instant rates and their smallest smoothed RTT), so a connection lends it to the
//! engine for each call as the [`CongestionControl`] of the calling subflow. With one subflow
//! `delta = 1` and XMP is BOS ([`BosTransport`]).
//!
//! Algorithm 1 works in packets; the engine in bytes. `cwnd` in packets is `floor(cwnd_bytes /
//! MSS)` (at least 1) and XMP's changes are written back as whole packets (7.4: `cwnd_bytes =
//! cwnd * MSS`). Loss handling is the engine's NewReno (7.4): triple duplicate ACK sets
//! `ssthresh = max(flight / 2, 2 MSS)`, an RTO sets `cwnd = 1 MSS` and goes back N; echoes are
//! ignored while in loss recovery and no XMP increase happens during fast recovery (the engine
//! does not call the increase on partial ACKs).
//!
//! Choices (**\[PROPOSED\]** where 7 is silent):
//! - Echo before increase on the same ACK (7.3's proposed order); the ACK that ends the REDUCED
//!   state (`ack >= cwr_seq`) does not grow the window, as in Algorithm 1.
//! - The per-round congestion-avoidance test is `cwnd >= ssthresh` (7.3, RFC 5681 3.1); the echo
//!   cut keeps Algorithm 1's `cwnd > ssthresh`.
//! - A subflow's RTT enters `min_rtt` and its rate enters `total_rate` from its first round end
//!   (an ACK acknowledging new data; by then the engine has an RTT sample unless the first
//!   segment had to be retransmitted). Its RTT is refreshed on every new ACK.
//! - `delta` is 1 when the sums are degenerate (no rate or RTT yet).
//! - The round ends are tracked on partial ACKs in fast recovery too (the rate stays current);
//!   only the increase is skipped there.
//! - An RTO ends the REDUCED state ([`Xmp::timeout`]): its reduction replaces the echo's, and
//!   go-back-N slow-starts as after any RTO.

use crate::cc::{AckSample, CcState, CongestionControl};
use crate::config::keys::*;
use crate::config::{CeEcho, EcnMode, Profile, TcpConfig};
use crate::error::{ParamError, TransportError};
use crate::mptcp::keys::{CAP_SUBFLOWS, PATHS};
use crate::mptcp::{CoupledCc, Coupling, MptcpConfig, MptcpTransport};
use crate::subflow::FIRST_SEQ;
use crate::transport::{
    open_single_path, Configured, Connection, ConnectionSpec, Transport, TransportKind,
};
use htsim_core::endpoint::Spawn;
use htsim_core::params::{KindSpec, ParamKind, ParamSpec, Params};
use std::sync::Arc;

/// XMP's parameters (docs/model.md 7.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct XmpConfig {
    /// β (`mptcp_xmp_reducer`): an echo cuts `max(floor(cwnd / β), 1)` packets (4; >= 2).
    pub beta: u32,
    /// Smallest window after an echo cut, in packets (2, \[P1\] 3 footnote 5).
    pub min_cwnd_packets: u64,
}

impl Default for XmpConfig {
    fn default() -> Self {
        XmpConfig {
            beta: 4,
            min_cwnd_packets: 2,
        }
    }
}

impl XmpConfig {
    /// Checks β >= 2 (the sizing rule K >= BDP / (β - 1) of 7.5 needs it) and a minimum window
    /// of at least one packet.
    pub fn validate(&self) -> Result<(), TransportError> {
        if self.beta < 2 {
            return Err(TransportError::InvalidConfig(format!(
                "XMP beta must be at least 2, got {}",
                self.beta
            )));
        }
        if self.min_cwnd_packets == 0 {
            return Err(TransportError::InvalidConfig(
                "XMP minimum cwnd must be at least 1 packet".into(),
            ));
        }
        Ok(())
    }

    /// The TCP parameters of an XMP subflow under `profile` (7.4, 7.5): ECT(0) on data
    /// (retransmissions too, Linux practice; set `ecn.ect_retransmits = false` for RFC 3168
    /// 6.1.5), the 2-bit CE echo, no receive-window cap ("sufficiently large" buffers) and an
    /// infinite initial ssthresh (7.3). The rest follows the profile.
    pub fn tcp_config(profile: Profile) -> TcpConfig {
        TcpConfig {
            ecn: EcnMode {
                ect_data: true,
                ect_retransmits: true,
                cwr: false,
            },
            ce_echo: CeEcho::XmpCount,
            rwnd_cap: None,
            initial_ssthresh: u64::MAX,
            ..TcpConfig::for_profile(profile)
        }
    }
}

/// The round state of one subflow (docs/model.md 7.3, "Initial state").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XmpSubflow {
    /// REDUCED (true) or NORMAL (false).
    pub reduced: bool,
    /// `snd_nxt` when the window was last cut: the REDUCED state ends when the ACK passes it.
    pub cwr_seq: u64,
    /// The round ends when an ACK passes it (`snd_nxt` at the previous round end).
    pub beg_seq: u64,
    /// Fractional congestion-avoidance increase carried between rounds (packets).
    pub adder: f64,
    /// TraSh's increase per round, packets (1 initially).
    pub delta: f64,
    /// `cwnd / srtt` at the last round end, packets per microsecond (0 before).
    pub instant_rate: f64,
    /// Smoothed RTT in microseconds, known from the first round end.
    pub srtt_us: Option<f64>,
    /// This ACK ended a round (set by `on_ack`, used by `increase`).
    round_ended: bool,
    /// The subflow was NORMAL when this ACK arrived (it may grow).
    may_grow: bool,
}

impl Default for XmpSubflow {
    fn default() -> Self {
        XmpSubflow {
            reduced: false,
            cwr_seq: FIRST_SEQ,
            // snd_nxt at establishment: data starts at FIRST_SEQ.
            beg_seq: FIRST_SEQ,
            adder: 0.0,
            delta: 1.0,
            instant_rate: 0.0,
            srtt_us: None,
            round_ended: false,
            may_grow: false,
        }
    }
}

/// The XMP controller of one connection (all its subflows; docs/model.md 7.3).
#[derive(Clone, Debug, PartialEq)]
pub struct Xmp {
    config: XmpConfig,
    subflows: Vec<XmpSubflow>,
    cuts: u64,
}

/// `bytes` as whole packets of `mss` bytes, at least 1.
#[inline]
fn packets(bytes: u64, mss: u64) -> u64 {
    (bytes / mss.max(1)).max(1)
}

impl Xmp {
    /// A controller for a new connection.
    pub fn new(config: XmpConfig) -> Self {
        Xmp {
            config,
            subflows: Vec::new(),
            cuts: 0,
        }
    }

    /// The round state of subflow `r`, if it has seen an ACK.
    pub fn subflow(&self, r: u16) -> Option<&XmpSubflow> {
        self.subflows.get(r as usize)
    }

    /// Echo cuts so far (all subflows).
    pub fn cuts(&self) -> u64 {
        self.cuts
    }

    /// `sum_s instant_rate[s]`, packets per microsecond, over the subflows counted by
    /// `in_scope` (TraSh's total rate, 7.3).
    pub fn total_rate(&self, in_scope: &dyn Fn(usize) -> bool) -> f64 {
        (self.subflows.iter().enumerate())
            .filter(|(i, _)| in_scope(*i))
            .map(|(_, s)| s.instant_rate)
            .sum()
    }

    /// `min_s srtt_us[s]` over the subflows counted by `in_scope` that have an RTT.
    pub fn min_rtt_us(&self, in_scope: &dyn Fn(usize) -> bool) -> Option<f64> {
        (self.subflows.iter().enumerate())
            .filter(|(i, _)| in_scope(*i))
            .filter_map(|(_, s)| s.srtt_us)
            .reduce(f64::min)
    }

    fn sub(&mut self, r: u16) -> &mut XmpSubflow {
        let r = r as usize;
        if self.subflows.len() <= r {
            self.subflows.resize(r + 1, XmpSubflow::default());
        }
        &mut self.subflows[r]
    }

    /// Algorithm 1's ECN and round bookkeeping for an ACK on subflow `state.subflow`, with the
    /// subflows counted in TraSh's sums chosen by `in_scope` (the connection's; a subflow is
    /// always counted in its own). Never suppresses the increase: [`Xmp::grow`] checks the state.
    pub fn on_ack_scoped(
        &mut self,
        state: &mut CcState,
        ack: &AckSample,
        in_scope: &dyn Fn(usize) -> bool,
    ) {
        let beta = self.config.beta.max(1) as u64;
        let min_cwnd = self.config.min_cwnd_packets;
        let mss = state.mss.max(1);
        let r = state.subflow;
        let srtt_us = (state.srtt.as_ps() as f64 / 1e6).max(1e-6);
        let sf = self.sub(r);
        sf.round_ended = false;
        sf.may_grow = false;
        // The echo: e = ECE + 2 CWR (7.2); any nonzero count is congestion.
        if (ack.ece || ack.cwr) && !state.in_recovery && !sf.reduced {
            sf.reduced = true;
            sf.cwr_seq = state.snd_nxt;
            let mut w = packets(state.cwnd, mss);
            if state.cwnd > state.ssthresh {
                w -= (w / beta).max(1);
                w = w.max(min_cwnd);
                state.cwnd = w * mss;
            }
            state.ssthresh = w.saturating_sub(1) * mss;
            self.cuts += 1;
        }
        if ack.newly_acked == 0 {
            return;
        }
        let sf = self.sub(r);
        if sf.srtt_us.is_some() {
            sf.srtt_us = Some(srtt_us);
        }
        if ack.ack > sf.beg_seq {
            // The end of a round (7.3): TraSh's delta from the connection-wide sums.
            sf.srtt_us = Some(srtt_us);
            sf.instant_rate = packets(state.cwnd, mss) as f64 / srtt_us;
            sf.beg_seq = state.snd_nxt;
            sf.round_ended = true;
            let me = r as usize;
            let scope = |i: usize| i == me || in_scope(i);
            let total = self.total_rate(&scope);
            let delta = match self.min_rtt_us(&scope) {
                Some(min_rtt) if total > 0.0 => packets(state.cwnd, mss) as f64 / (total * min_rtt),
                _ => 1.0,
            };
            self.sub(r).delta = if delta.is_finite() { delta } else { 1.0 };
        }
        let sf = self.sub(r);
        sf.may_grow = !sf.reduced;
        if sf.reduced && ack.ack >= sf.cwr_seq {
            sf.reduced = false;
        }
    }

    /// The RTO response (7.4: the engine's, ssthresh = max(2 MSS, flight / 2) and cwnd = 1
    /// MSS), which also ends the REDUCED state: the timeout's reduction replaces the echo's, as
    /// Linux's loss state replaces its CWR state, so go-back-N slow-starts like any subflow
    /// after an RTO instead of waiting at 1 packet until the ACKs pass the old `cwr_seq`.
    pub fn timeout(&mut self, state: &mut CcState) {
        state.ssthresh = state.half_flight();
        state.cwnd = state.mss;
        self.sub(state.subflow).reduced = false;
    }

    /// Algorithm 1's increase for a new ACK outside fast recovery: `+delta` packets per round in
    /// congestion avoidance (`cwnd >= ssthresh`, carried in `adder`), `+1` packet per ACK in slow
    /// start, nothing if the subflow was REDUCED when the ACK arrived.
    pub fn grow(&mut self, state: &mut CcState) {
        let mss = state.mss.max(1);
        let sf = self.sub(state.subflow);
        if !sf.may_grow {
            return;
        }
        if sf.round_ended && state.cwnd >= state.ssthresh {
            sf.adder += sf.delta;
            let whole = sf.adder.floor();
            sf.adder -= whole;
            state.cwnd = state
                .cwnd
                .saturating_add((whole.min(1e12) as u64).saturating_mul(mss));
        }
        if state.cwnd < state.ssthresh {
            state.cwnd = state.cwnd.saturating_add(mss);
        }
        sf.round_ended = false;
    }
}

impl CongestionControl for Xmp {
    fn name(&self) -> &'static str {
        "xmp"
    }

    /// Every subflow the controller has seen counts in TraSh's sums.
    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample) -> bool {
        self.on_ack_scoped(state, ack, &|_| true);
        false
    }

    fn increase(&mut self, state: &mut CcState, _ack: &AckSample) {
        self.grow(state);
    }

    fn on_rto(&mut self, state: &mut CcState) {
        self.timeout(state);
    }
}

/// XMP as the coupled controller of an MPTCP connection (docs/model.md 7: "XMP is an MPTCP
/// congestion controller"): TraSh's sums count the subflows the connection puts in scope
/// ([`SubflowView::in_scope`](crate::mptcp::SubflowView)).
impl CoupledCc for Xmp {
    fn name(&self) -> &'static str {
        "xmp"
    }

    fn on_ack(&mut self, c: &Coupling<'_>, state: &mut CcState, ack: &AckSample) -> bool {
        let in_scope = |i: usize| c.subflows.get(i).is_some_and(|v| v.in_scope);
        self.on_ack_scoped(state, ack, &in_scope);
        false
    }

    fn increase(&mut self, _c: &Coupling<'_>, state: &mut CcState, _ack: &AckSample) {
        self.grow(state);
    }

    fn on_rto(&mut self, _c: &Coupling<'_>, state: &mut CcState) {
        self.timeout(state);
    }
}

impl XmpConfig {
    /// The `xmp` transport: MPTCP (docs/model.md 4: subflow setup, scheduler, per-subflow loss
    /// recovery) whose subflows are driven by one [`Xmp`] per connection with these parameters,
    /// and [`XmpConfig::tcp_config`] per subflow. Subflows: 2 (**\[PROPOSED\]**: one per path of
    /// \[P1\]'s two-path testbed; set `mptcp.max_subflows` for more). The MPTCP receiver ACKs every
    /// segment at once with ECE = the CE bit of the segment answered, which is 7.2's `e` without
    /// delayed ACKs. Fails if the parameters are invalid ([`XmpConfig::validate`]).
    pub fn mptcp_transport(self, profile: Profile) -> Result<MptcpTransport, TransportError> {
        self.validate()?;
        Ok(self.build(profile))
    }

    /// The registry's `xmp`: [`XmpConfig::mptcp_transport`] with the default parameters (valid
    /// by construction, so this cannot fail).
    pub fn default_transport(profile: Profile) -> MptcpTransport {
        XmpConfig::default().build(profile)
    }

    fn build(self, profile: Profile) -> MptcpTransport {
        let factory = Arc::new(move |_: &TcpConfig| Box::new(Xmp::new(self)) as Box<dyn CoupledCc>);
        let mut t = MptcpTransport::with_cc_factory(profile, "xmp", factory);
        t.config = XmpConfig::tcp_config(profile);
        t.mptcp.max_subflows = 2;
        t
    }
}

/// `xmp` in scenarios: TCP's keys but `initial_ssthresh` and `delayed_ack`
/// ([`TcpConfig::from_params`]; ECN-capable data, the 2-bit CE echo and the infinite initial
/// ssthresh stay XMP's own, 7.3, 7.4), MPTCP's `paths` and `cap_subflows`
/// ([`MptcpConfig::from_params`]), 2 subflows by default, `beta` and `min_cwnd`. K is the
/// `mark_threshold` of the queues.
pub const KIND: TransportKind = TransportKind {
    spec: KindSpec {
        name: "xmp",
        doc: "XMP: MPTCP with the BOS marking response and TraSh coupling (docs/model.md 7); \
              data is ECN-capable, queues of kind \"ecn\" with mark_threshold give K",
        params: &[
            PROFILE,
            MSS,
            HEADER_SIZE,
            ACK_SIZE,
            INITIAL_CWND,
            // "Sufficiently large" buffers (docs/model.md 7.5): no cap under either profile.
            ParamSpec::new(
                "rwnd",
                ParamKind::SizeOrUnlimited,
                Some("unlimited"),
                "receiver window cap (XMP's experiments use none, docs/model.md 7.5)",
            ),
            MIN_RTO,
            REORDER_HOLD,
            REORDER_HOLD_SEGMENTS,
            DUPTHRESH,
            ParamSpec::new(
                "subflows",
                ParamKind::Int { min: 1, max: 256 },
                Some("2"),
                "number of subflows (1 = BOS, single-path XMP)",
            ),
            PATHS,
            CAP_SUBFLOWS,
            ParamSpec::new(
                "beta",
                ParamKind::Int { min: 2, max: 64 },
                Some("4"),
                "an echo cuts the window by cwnd / beta, once per round (docs/model.md 7.3)",
            ),
            ParamSpec::new(
                "min_cwnd",
                ParamKind::Int { min: 1, max: 1000 },
                Some("2"),
                "smallest window after an echo cut, in segments",
            ),
        ],
    },
    new: |p| Box::new(XmpConfig::default_transport(p)),
    configure: configure_xmp,
};

/// [`KIND`]'s `configure`.
fn configure_xmp(params: &Params) -> Result<Configured, ParamError> {
    let tcp = TcpConfig::from_params(params)?;
    let mut xmp = XmpConfig::default();
    if let Some(b) = params.int("beta") {
        xmp.beta = u32::try_from(b)
            .map_err(|_| ParamError::new("beta", format!("{b} is out of range")))?;
    }
    if let Some(m) = params.int("min_cwnd") {
        xmp.min_cwnd_packets = u64::try_from(m)
            .map_err(|_| ParamError::new("min_cwnd", format!("{m} is out of range")))?;
    }
    let mut t = xmp
        .mptcp_transport(tcp.profile)
        .map_err(|e| ParamError::new("", format!("xmp: {e}")))?;
    // ECN-capable data, the 2-bit CE echo and an infinite initial ssthresh (7.3, 7.4) are
    // XMP's own; the other TCP keys apply as given.
    let own = XmpConfig::tcp_config(tcp.profile);
    t.config = TcpConfig {
        ecn: own.ecn,
        ce_echo: own.ce_echo,
        initial_ssthresh: own.initial_ssthresh,
        ..tcp
    };
    t.mptcp = MptcpConfig::from_params(params, t.config.profile)?;
    let tcp = t.config.clone();
    Ok(Configured {
        transport: Arc::new(t),
        tcp,
    })
}

/// Single-path XMP, i.e. BOS (docs/model.md 7: "with one subflow δ = 1, so XMP with one subflow
/// is BOS"): the TCP endpoint with the [`Xmp`] controller and [`XmpConfig::tcp_config`].
#[derive(Clone, Debug, PartialEq)]
pub struct BosTransport {
    /// Parameters of every connection.
    pub config: TcpConfig,
    /// XMP's own parameters.
    pub xmp: XmpConfig,
}

impl BosTransport {
    /// BOS with `profile`'s TCP parameters adjusted for XMP.
    pub fn new(profile: Profile) -> Self {
        BosTransport {
            config: XmpConfig::tcp_config(profile),
            xmp: XmpConfig::default(),
        }
    }
}

impl Transport for BosTransport {
    fn name(&self) -> &str {
        "bos"
    }
    fn open(
        &self,
        spawner: &mut dyn Spawn,
        conn: ConnectionSpec,
    ) -> Result<Connection, TransportError> {
        self.xmp.validate()?;
        open_single_path(spawner, conn, &self.config, Box::new(Xmp::new(self.xmp)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use htsim_core::SimTime;

    const MSS: u64 = 1000;

    fn st(r: u16, cwnd_pkts: u64, ssthresh_pkts: u64, una: u64, nxt: u64, srtt_us: u64) -> CcState {
        CcState {
            cwnd: cwnd_pkts * MSS,
            ssthresh: ssthresh_pkts.saturating_mul(MSS),
            mss: MSS,
            snd_una: una,
            snd_nxt: nxt,
            snd_max: nxt,
            in_recovery: false,
            srtt: SimTime::from_us(srtt_us),
            subflow: r,
        }
    }

    fn ack(before: u64, newly: u64, e: u32) -> AckSample {
        AckSample {
            ack: before + newly,
            snd_una_before: before,
            newly_acked: newly,
            duplicate: newly == 0,
            ece: e & 1 != 0,
            cwr: e & 2 != 0,
        }
    }

    /// One ACK through both hooks, as the engine calls them outside fast recovery.
    fn step(x: &mut Xmp, s: &mut CcState, a: &AckSample) {
        CongestionControl::on_ack(x, s, a);
        if a.newly_acked > 0 {
            CongestionControl::increase(x, s, a);
        }
    }

    #[test]
    fn echo_cuts_by_a_quarter_once_per_round_and_sets_ssthresh_one_below() {
        let mut x = Xmp::new(XmpConfig::default());
        // Congestion avoidance, cwnd 40 > ssthresh 30: cut by floor(40/4) = 10.
        let mut s = st(0, 40, 30, 1001, 40_001, 100);
        step(&mut x, &mut s, &ack(1, 1000, 1));
        assert_eq!((s.cwnd / MSS, s.ssthresh / MSS), (30, 29));
        assert!(x
            .subflow(0)
            .is_some_and(|f| f.reduced && f.cwr_seq == 40_001));
        // A second echo (count 3) in the same round: ignored, and no growth while REDUCED.
        let mut s2 = st(0, 30, 29, 2001, 41_001, 100);
        step(&mut x, &mut s2, &ack(1001, 1000, 3));
        assert_eq!((s2.cwnd / MSS, s2.ssthresh / MSS, x.cuts()), (30, 29, 1));
        // The ACK passing cwr_seq ends REDUCED (without growing); the next echo cuts again.
        let mut s3 = st(0, 30, 29, 40_001, 70_001, 100);
        step(&mut x, &mut s3, &ack(39_001, 1000, 0));
        assert!(x.subflow(0).is_some_and(|f| !f.reduced));
        assert_eq!(s3.cwnd / MSS, 30);
        let mut s4 = st(0, 30, 29, 41_001, 70_001, 100);
        step(&mut x, &mut s4, &ack(40_001, 1000, 2));
        assert_eq!((s4.cwnd / MSS, s4.ssthresh / MSS), (30 - 7, 22));
    }

    #[test]
    fn small_windows_cut_by_one_to_at_least_two_and_slow_start_is_only_left() {
        let mut x = Xmp::new(XmpConfig::default());
        // cwnd 3: floor(3/4) = 0, so cut by 1 to 2.
        let mut s = st(0, 3, 2, 101, 4001, 100);
        CongestionControl::on_ack(&mut x, &mut s, &ack(1, 100, 1));
        assert_eq!((s.cwnd / MSS, s.ssthresh / MSS), (2, 1));
        // cwnd 2 in CA: the cut would give 1; the minimum is 2.
        let mut y = Xmp::new(XmpConfig::default());
        let mut s = st(0, 2, 1, 101, 4001, 100);
        CongestionControl::on_ack(&mut y, &mut s, &ack(1, 100, 1));
        assert_eq!(s.cwnd / MSS, 2);
        // Slow start (ssthresh infinite): no cut, ssthresh = cwnd - 1.
        let mut z = Xmp::new(XmpConfig::default());
        let mut s = st(0, 16, u64::MAX / MSS, 101, 16_001, 100);
        CongestionControl::on_ack(&mut z, &mut s, &ack(1, 100, 1));
        assert_eq!((s.cwnd / MSS, s.ssthresh / MSS), (16, 15));
        // Echoes in loss recovery are ignored.
        let mut fresh = Xmp::new(XmpConfig::default());
        let mut s = st(0, 40, 30, 101, 40_001, 100);
        s.in_recovery = true;
        CongestionControl::on_ack(&mut fresh, &mut s, &ack(1, 100, 1));
        assert_eq!(fresh.cuts(), 0);
        assert_eq!(s.cwnd / MSS, 40);
    }

    #[test]
    fn an_rto_ends_the_reduced_state_so_go_back_n_slow_starts() {
        for coupled in [false, true] {
            let mut x = Xmp::new(XmpConfig::default());
            // An echo in congestion avoidance: REDUCED until the ACKs pass cwr_seq = 40 001.
            let mut s = st(0, 40, 30, 1001, 40_001, 100);
            step(&mut x, &mut s, &ack(1, 1000, 1));
            assert!(x.subflow(0).is_some_and(|f| f.reduced));
            // The RTO: ssthresh = flight / 2 = 19.5 packets, cwnd = 1 packet, NORMAL again.
            if coupled {
                let c = Coupling { subflows: &[] };
                CoupledCc::on_rto(&mut x, &c, &mut s);
            } else {
                CongestionControl::on_rto(&mut x, &mut s);
            }
            assert_eq!((s.cwnd, s.ssthresh), (MSS, 19_500));
            assert!(x.subflow(0).is_some_and(|f| !f.reduced));
            // The first go-back-N resend is acknowledged (still below cwr_seq): slow start
            // adds a packet (it stayed at 1 while REDUCED).
            s.snd_nxt = 2001;
            s.in_recovery = true;
            s.snd_una = 2001;
            step(&mut x, &mut s, &ack(1001, 1000, 0));
            assert_eq!(s.cwnd / MSS, 2, "coupled: {coupled}");
        }
    }

    #[test]
    fn slow_start_adds_a_packet_per_ack_and_avoidance_adds_delta_per_round() {
        let mut x = Xmp::new(XmpConfig::default());
        let mut s = st(0, 4, u64::MAX / MSS, 1, 4001, 100);
        // First ACK: ends round 0 (ack > beg_seq = 1), slow start +1.
        step(&mut x, &mut s, &ack(1, 1000, 0));
        assert_eq!(s.cwnd / MSS, 5);
        assert_eq!(x.subflow(0).map(|f| f.beg_seq), Some(4001));
        // Congestion avoidance at cwnd == ssthresh (the proposed >=): +delta = 1 at a round end.
        let mut s = st(0, 10, 10, 4001, 14_001, 100);
        step(&mut x, &mut s, &ack(3001, 1000, 0)); // ack 4001 is not > beg_seq 4001
        assert_eq!(s.cwnd / MSS, 10, "mid-round: no growth");
        let mut s = st(0, 10, 10, 5001, 14_001, 100);
        step(&mut x, &mut s, &ack(4001, 1000, 0));
        assert_eq!(
            s.cwnd / MSS,
            11,
            "round end: +1 (one subflow: delta = 1, BOS)"
        );
        let f = x.subflow(0).copied().unwrap_or_default();
        assert!((f.delta - 1.0).abs() < 1e-12);
        assert!((f.instant_rate - 10.0 / 100.0).abs() < 1e-12);
    }

    #[test]
    fn trash_delta_is_cwnd_over_total_rate_times_min_rtt() {
        let mut x = Xmp::new(XmpConfig::default());
        // Subflow 0: 20 packets over 100 us (0.2 pkt/us). Subflow 1: 30 packets over 300 us.
        let mut s0 = st(0, 20, 10, 1001, 20_001, 100);
        step(&mut x, &mut s0, &ack(1, 1000, 0));
        let mut s1 = st(1, 30, 10, 1001, 30_001, 300);
        step(&mut x, &mut s1, &ack(1, 1000, 0));
        // total = 0.2 + 0.1 = 0.3 pkt/us, min_rtt = 100 us: delta_1 = 30 / 30 = 1.
        let d1 = x.subflow(1).map_or(0.0, |f| f.delta);
        assert!((d1 - 1.0).abs() < 1e-12, "{d1}");
        assert!((x.total_rate(&|_| true) - 0.3).abs() < 1e-12);
        assert_eq!(x.min_rtt_us(&|_| true), Some(100.0));
        // Subflow 0's next round: its delta = 20 / (0.3 * 100) = 2/3; adder carries the rest.
        let mut s0 = st(0, 20, 10, 21_001, 40_001, 100);
        step(&mut x, &mut s0, &ack(20_001, 1000, 0));
        let f0 = x.subflow(0).copied().unwrap_or_default();
        assert!((f0.delta - 2.0 / 3.0).abs() < 1e-12, "{}", f0.delta);
        assert_eq!(s0.cwnd / MSS, 20, "adder 2/3 < 1: no whole packet yet");
        assert!((f0.adder - 2.0 / 3.0).abs() < 1e-12);
        let mut s0 = st(0, 20, 10, 41_001, 60_001, 100);
        step(&mut x, &mut s0, &ack(40_001, 1000, 0));
        assert_eq!(s0.cwnd / MSS, 21, "4/3 carried: +1, adder 1/3 left");
        // Out of scope subflows do not count (a connection may exclude failed subflows).
        assert!((x.total_rate(&|i| i == 1) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn config_is_validated_and_sets_up_ecn() {
        assert!(XmpConfig {
            beta: 1,
            ..XmpConfig::default()
        }
        .validate()
        .is_err());
        assert!(XmpConfig {
            min_cwnd_packets: 0,
            ..XmpConfig::default()
        }
        .validate()
        .is_err());
        let c = XmpConfig::tcp_config(Profile::Ns3Mmptcp);
        assert!(c.ecn.ect_data && c.rwnd_cap.is_none() && c.ce_echo == CeEcho::XmpCount);
        assert!(c.validate().is_ok());
    }
}
