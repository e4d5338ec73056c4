//! The coupled congestion-control interface of a multipath connection (docs/model.md 4.6).
//!
//! The subflow engine asks a [`CongestionControl`] for one subflow's window changes. A coupled
//! algorithm (LIA, Fully Coupled, EWTCP, XMP) also needs every other subflow's state, so a
//! multipath connection keeps a [`SubflowView`] per subflow and lends the engine a
//! [`CoupledAdapter`] per call: it refreshes the calling subflow's view from the engine's
//! [`CcState`] and forwards to the connection's [`CoupledCc`] with a [`Coupling`] of all views.
//!
//! Arithmetic that may overflow or divide by zero (alpha, W, the increase) is done in `f64`
//! with guards ([`to_bytes`], [`RTT_FLOOR_S`]): htsim's integer LIA crashes with SIGFPE on long
//! big-window runs; this one cannot.

use crate::cc::{AckSample, CcState, CongestionControl};
use crate::config::SlowStartIncrease;
use crate::newreno::NewReno;
use htsim_core::SimTime;

/// The smallest RTT (seconds) used in alpha, so a zero estimate cannot divide by zero.
pub const RTT_FLOOR_S: f64 = 1e-9;

/// `srtt` in seconds, at least [`RTT_FLOOR_S`].
#[inline]
fn rtt_secs(srtt: SimTime) -> f64 {
    srtt.as_secs_f64().max(RTT_FLOOR_S)
}

/// What a coupled controller sees of one subflow (bytes; docs/model.md 2.3, 4.6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubflowView {
    /// The subflow's index in its connection.
    pub index: u16,
    /// The handshake completed.
    pub established: bool,
    /// Counted in the connection-wide sums (`W`, alpha, n): decided by the connection from
    /// `total_cwnd_scope` (4.6) and, for MMPTCP, the phase (6.2, 6.4).
    pub in_scope: bool,
    /// Congestion window (bytes).
    pub cwnd: u64,
    /// Slow-start threshold (bytes).
    pub ssthresh: u64,
    /// In NewReno fast recovery (then `W` counts `ssthresh`, 4.6).
    pub in_fast_recovery: bool,
    /// Smoothed RTT (the initial RTO before the first sample, 4.6: 1.5 s in ns3-mmptcp).
    pub srtt: SimTime,
    /// First unacknowledged subflow byte.
    pub snd_una: u64,
    /// Next subflow byte to send (XMP's round state compares it with its `beg_seq`).
    pub snd_nxt: u64,
    /// Highest subflow byte sent + 1.
    pub snd_max: u64,
}

impl SubflowView {
    /// `w_i` of 4.6: ssthresh in fast recovery, else cwnd.
    #[inline]
    pub fn w(&self) -> u64 {
        if self.in_fast_recovery {
            self.ssthresh
        } else {
            self.cwnd
        }
    }

    /// The smoothed RTT in seconds, at least [`RTT_FLOOR_S`].
    #[inline]
    pub fn rtt_s(&self) -> f64 {
        rtt_secs(self.srtt)
    }

    /// This subflow's terms of alpha (4.6): `(cwnd / rtt^2, cwnd / rtt)`, RTT in seconds.
    #[inline]
    pub fn alpha_terms(&self) -> AlphaTerms {
        AlphaTerms::of(self.cwnd, self.srtt)
    }
}

/// One subflow's terms of alpha (4.6), a function of its cwnd and smoothed RTT alone: a
/// controller may keep them until either changes ([`Coupling::window_and_alpha`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AlphaTerms {
    /// The congestion window the terms were computed from (bytes).
    pub cwnd: u64,
    /// The smoothed RTT they were computed from.
    pub srtt: SimTime,
    /// `cwnd / rtt^2` (bytes per s^2).
    pub per_rtt2: f64,
    /// `cwnd / rtt` (bytes per s).
    pub per_rtt: f64,
}

impl AlphaTerms {
    /// The terms for `cwnd` bytes and smoothed RTT `srtt` (at least [`RTT_FLOOR_S`]).
    #[inline]
    pub fn of(cwnd: u64, srtt: SimTime) -> Self {
        let (c, r) = (cwnd as f64, rtt_secs(srtt));
        AlphaTerms {
            cwnd,
            srtt,
            per_rtt2: c / (r * r),
            per_rtt: c / r,
        }
    }

    /// Whether these are the terms of `v` (same cwnd and smoothed RTT).
    #[inline]
    pub fn matches(&self, v: &SubflowView) -> bool {
        self.cwnd == v.cwnd && self.srtt == v.srtt
    }
}

/// The connection-wide state a coupled controller reads: every subflow's view.
#[derive(Clone, Copy, Debug)]
pub struct Coupling<'a> {
    /// One view per subflow, by index.
    pub subflows: &'a [SubflowView],
}

impl Coupling<'_> {
    /// The subflows counted in the sums.
    pub fn in_scope(&self) -> impl Iterator<Item = &SubflowView> {
        self.subflows.iter().filter(|v| v.in_scope)
    }

    /// `W = sum_i w_i` over the subflows in scope, bytes (4.6), saturating.
    pub fn total_window(&self) -> u64 {
        self.in_scope().fold(0u64, |s, v| s.saturating_add(v.w()))
    }

    /// Number of established subflows in scope (EWTCP's n, 4.6).
    pub fn established_count(&self) -> usize {
        self.in_scope().filter(|v| v.established).count()
    }

    /// `alpha = W * max_i(cwnd_i / rtt_i^2) / (sum_i cwnd_i / rtt_i)^2` (4.6; RFC 6356 3),
    /// in `f64` over the subflows in scope. 1.0 when nothing is in scope or the result is not
    /// finite (it cannot be with [`RTT_FLOOR_S`], but the guard costs nothing).
    pub fn alpha(&self) -> f64 {
        self.window_and_alpha(|_, v| v.alpha_terms()).1
    }

    /// `(W, alpha)` in one pass over the subflows in scope, each one's alpha terms from
    /// `terms(position, view)` (e.g. kept from an earlier call while its cwnd and RTT are
    /// unchanged); the same values as [`Coupling::total_window`] and [`Coupling::alpha`].
    #[inline]
    pub fn window_and_alpha(
        &self,
        mut terms: impl FnMut(usize, &SubflowView) -> AlphaTerms,
    ) -> (u64, f64) {
        let (mut w, mut best, mut sum) = (0u64, 0.0f64, 0.0f64);
        for (i, v) in self.subflows.iter().enumerate() {
            if !v.in_scope {
                continue;
            }
            w = w.saturating_add(v.w());
            let t = terms(i, v);
            // max(best, x) for the terms, never NaN nor -0 (cwnd >= 0, rtt > 0).
            if t.per_rtt2 > best {
                best = t.per_rtt2;
            }
            sum += t.per_rtt;
        }
        let a = w as f64 * best / (sum * sum);
        let alpha = if a.is_finite() && sum > 0.0 { a } else { 1.0 };
        (w, alpha)
    }
}

/// Truncates a per-ACK congestion-avoidance increase computed in `f64` to whole bytes, at least
/// 1 and at most one `mss` (docs/model.md 4.6: "bytes, truncated", "max(1, ..)"; the cap is RFC
/// 5681's at most one segment per ACK, and binds only for a window below one MSS, which the
/// engine never produces); NaN and infinities give 1.
#[inline]
pub fn to_bytes(x: f64, mss: u64) -> u64 {
    let cap = mss.max(1);
    if x.is_finite() && x >= 1.0 {
        (x.min(cap as f64) as u64).clamp(1, cap)
    } else {
        1
    }
}

/// A multipath congestion controller (docs/model.md 4.6; XMP in 7.3 plugs in here too).
///
/// Each method gets the calling subflow's [`CcState`] (its `subflow` field is the index) and
/// the [`Coupling`] of all subflows, the caller's view already refreshed. Per-subflow state of
/// the algorithm itself (XMP's round state) is kept by the implementation, indexed by
/// `state.subflow`.
pub trait CoupledCc: Send {
    /// A short name (`lia`, `fully-coupled`, ...); no output file shows it (flows.csv names
    /// the transport kind).
    fn name(&self) -> &'static str;

    /// Every ACK, before classification (the ECN reaction; XMP). Returns `true` to suppress
    /// this ACK's increase. Default: nothing.
    fn on_ack(&mut self, _c: &Coupling<'_>, _state: &mut CcState, _ack: &AckSample) -> bool {
        false
    }

    /// The increase on a new ACK (slow start and congestion avoidance, 4.6).
    fn increase(&mut self, c: &Coupling<'_>, state: &mut CcState, ack: &AckSample);

    /// ssthresh on entering fast recovery. Default: max(2 MSS, flight / 2) (4.6).
    fn fast_retransmit_ssthresh(&mut self, _c: &Coupling<'_>, state: &CcState) -> u64 {
        state.half_flight()
    }

    /// The RTO response. Default: ssthresh = max(2 MSS, flight / 2), cwnd = 1 MSS (4.5).
    fn on_rto(&mut self, _c: &Coupling<'_>, state: &mut CcState) {
        state.ssthresh = state.half_flight();
        state.cwnd = state.mss;
    }
}

/// Slow start shared by every algorithm of 4.6 (uncoupled, per subflow): applies it and
/// returns `true` when `cwnd < ssthresh`.
#[inline]
pub fn slow_start(ss: SlowStartIncrease, state: &mut CcState, ack: &AckSample) -> bool {
    if state.cwnd < state.ssthresh {
        NewReno::grow(ss, state, ack);
        true
    } else {
        false
    }
}

/// A [`CongestionControl`] for one engine call: the connection's [`CoupledCc`] with the views
/// of all subflows. The calling subflow's view is refreshed from the engine's state first.
pub struct CoupledAdapter<'a> {
    /// The connection's algorithm.
    pub cc: &'a mut dyn CoupledCc,
    /// One view per subflow (the connection's scratch copy).
    pub views: &'a mut [SubflowView],
}

impl CoupledAdapter<'_> {
    /// Refreshes the caller's view. `in_fr` is known for the hooks the engine calls outside
    /// fast recovery (increase, fast-retransmit entry, RTO: 2.8, 2.10).
    fn refresh(&mut self, state: &CcState, in_fr: Option<bool>) {
        if let Some(v) = self.views.get_mut(state.subflow as usize) {
            v.cwnd = state.cwnd;
            v.ssthresh = state.ssthresh;
            v.snd_una = state.snd_una;
            v.snd_nxt = state.snd_nxt;
            v.snd_max = state.snd_max;
            v.srtt = state.srtt;
            if let Some(f) = in_fr {
                v.in_fast_recovery = f;
            }
        }
    }
}

impl CongestionControl for CoupledAdapter<'_> {
    fn name(&self) -> &'static str {
        self.cc.name()
    }
    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample) -> bool {
        self.refresh(state, None);
        let c = Coupling {
            subflows: self.views,
        };
        self.cc.on_ack(&c, state, ack)
    }
    fn increase(&mut self, state: &mut CcState, ack: &AckSample) {
        self.refresh(state, Some(false));
        let c = Coupling {
            subflows: self.views,
        };
        self.cc.increase(&c, state, ack);
    }
    fn fast_retransmit_ssthresh(&mut self, state: &CcState) -> u64 {
        self.refresh(state, Some(false));
        let c = Coupling {
            subflows: self.views,
        };
        self.cc.fast_retransmit_ssthresh(&c, state)
    }
    fn on_rto(&mut self, state: &mut CcState) {
        self.refresh(state, Some(false));
        let c = Coupling {
            subflows: self.views,
        };
        self.cc.on_rto(&c, state);
    }
}
