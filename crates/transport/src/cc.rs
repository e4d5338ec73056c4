//! The congestion-control hook of the subflow engine (docs/model.md 2, "Later sections only
//! define the hooks").
//!
//! The engine (`subflow.rs`) owns the loss-recovery machinery (duplicate ACKs, NewReno fast
//! recovery, go-back-N on RTO); a [`CongestionControl`] decides how the window grows on a new
//! ACK, what ssthresh becomes on a fast retransmit and on an RTO, and how ECN echoes act. The
//! engine does not own its controller: every call that may need it borrows one, so a multipath
//! connection can hand each subflow a controller that sees connection-wide state (LIA's total
//! window and alpha) without the subflows borrowing each other.

use htsim_core::SimTime;

/// The window state of one subflow, as a controller sees and changes it. Only `cwnd` and
/// `ssthresh` are written back; the other fields are a read-only view. Bytes throughout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcState {
    /// Congestion window (bytes).
    pub cwnd: u64,
    /// Slow-start threshold (bytes).
    pub ssthresh: u64,
    /// Maximum segment size (bytes).
    pub mss: u64,
    /// First unacknowledged byte, after the ACK being processed if any.
    pub snd_una: u64,
    /// Next byte to send.
    pub snd_nxt: u64,
    /// Highest byte ever sent + 1.
    pub snd_max: u64,
    /// In NewReno fast recovery, or resending after an RTO (go-back-N not finished).
    pub in_recovery: bool,
    /// Smoothed RTT (the initial RTO before the first sample).
    pub srtt: SimTime,
    /// The subflow's index in its connection.
    pub subflow: u16,
}

impl CcState {
    /// `snd_max - snd_una`, what the code calls the flight (docs/model.md 0).
    #[inline]
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// The standard loss response, ssthresh = max(2 MSS, flight / 2) (docs/model.md 2.8, 2.10).
    #[inline]
    pub fn half_flight(&self) -> u64 {
        (self.flight() / 2).max(2 * self.mss)
    }
}

/// What an arriving ACK says, for the controller (docs/model.md 2.6, 7.2, 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckSample {
    /// The cumulative acknowledgement number.
    pub ack: u64,
    /// `snd_una` before this ACK.
    pub snd_una_before: u64,
    /// Bytes newly acknowledged (0 for a duplicate or ignored ACK).
    pub newly_acked: u64,
    /// The engine classified it as a duplicate ACK.
    pub duplicate: bool,
    /// The ACK carries ECN echo.
    pub ece: bool,
    /// The ACK carries CWR (XMP uses ECE and CWR as a 2-bit count, docs/model.md 7.2).
    pub cwr: bool,
}

/// A congestion controller for one subflow (docs/model.md 2.7, 2.8, 2.10, 4.6, 8).
pub trait CongestionControl: Send {
    /// A short name (`newreno`, `dctcp`); no output file shows it (flows.csv names the
    /// transport kind).
    fn name(&self) -> &'static str;

    /// Called on every ACK after the RTT sample and before the engine's classification, with
    /// `state.snd_una` already advanced past `ack.newly_acked`. The ECN reaction of DCTCP and
    /// XMP lives here (RFC 3168's, a loss response, is the subflow's: docs/model.md 2.14).
    /// Returns `true` to suppress this ACK's window increase (DCTCP's cut, docs/model.md 8).
    fn on_ack(&mut self, _state: &mut CcState, _ack: &AckSample) -> bool {
        false
    }

    /// The window increase for a new ACK that is not a partial ACK in fast recovery
    /// (docs/model.md 2.7; applied even right after a full ACK, 2.8).
    fn increase(&mut self, state: &mut CcState, ack: &AckSample);

    /// The ssthresh on entering fast recovery (the DECREASE of docs/model.md 2.8); the engine
    /// then inflates cwnd. Default: max(2 MSS, flight / 2).
    fn fast_retransmit_ssthresh(&mut self, state: &CcState) -> u64 {
        state.half_flight()
    }

    /// The response to an RTO (docs/model.md 2.10, 4.5): by default ssthresh = max(2 MSS,
    /// flight / 2) and cwnd = 1 MSS.
    fn on_rto(&mut self, state: &mut CcState) {
        state.ssthresh = state.half_flight();
        state.cwnd = state.mss;
    }
}
