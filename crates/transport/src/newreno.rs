//! NewReno window growth (docs/model.md 2.7), the "Uncoupled" increase of 4.6, and its
//! RFC 3168 ECN response (2.14).

use crate::cc::{AckSample, CcState, CongestionControl};
use crate::config::SlowStartIncrease;

/// TCP NewReno: slow start below ssthresh, then + max(1, MSS^2 / cwnd) bytes per new ACK
/// (integer-truncated, docs/model.md 2.7; never more than one MSS per ACK). The decreases are the engine's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewReno {
    slow_start: SlowStartIncrease,
}

impl NewReno {
    /// A NewReno controller with the given slow-start rule (docs/model.md 12 `ss_increase`).
    pub fn new(slow_start: SlowStartIncrease) -> Self {
        NewReno { slow_start }
    }

    /// The NewReno increase, shared with controllers that fall back to it (DCTCP).
    #[inline]
    pub fn grow(slow_start: SlowStartIncrease, state: &mut CcState, ack: &AckSample) {
        if state.cwnd < state.ssthresh {
            state.cwnd += match slow_start {
                SlowStartIncrease::PerAck => state.mss,
                SlowStartIncrease::Abc { limit } => ack.newly_acked.min(limit as u64 * state.mss),
            };
        } else {
            // At most one MSS per ACK (RFC 5681), which binds only below a one-MSS window.
            let mss = state.mss.max(1);
            state.cwnd += (mss * mss / state.cwnd.max(1)).clamp(1, mss);
        }
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn increase(&mut self, state: &mut CcState, ack: &AckSample) {
        NewReno::grow(self.slow_start, state, ack);
    }
}

/// NewReno with the RFC 3168 response to an ECN echo (docs/model.md 2.14): at most once per
/// window of data and not in loss recovery, ssthresh = max(2 MSS, flight / 2) and cwnd =
/// ssthresh, as for a loss but with nothing to retransmit; echoes on the ACKs of data sent
/// before the reduction are ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewRenoEcn {
    slow_start: SlowStartIncrease,
    /// `snd_nxt` at the last reduction: echoes are ignored until `snd_una` reaches it.
    ecn_recover: u64,
}

impl NewRenoEcn {
    /// A NewReno controller that also halves its window on ECN echoes.
    pub fn new(slow_start: SlowStartIncrease) -> Self {
        NewRenoEcn {
            slow_start,
            ecn_recover: 0,
        }
    }
}

impl CongestionControl for NewRenoEcn {
    fn name(&self) -> &'static str {
        "newreno-ecn"
    }

    /// Returns `true` when it reduced the window (the sender then sets CWR).
    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample) -> bool {
        if ack.ece && !state.in_recovery && state.snd_una >= self.ecn_recover {
            state.ssthresh = state.half_flight();
            state.cwnd = state.ssthresh;
            self.ecn_recover = state.snd_nxt;
            return true;
        }
        false
    }

    fn increase(&mut self, state: &mut CcState, ack: &AckSample) {
        NewReno::grow(self.slow_start, state, ack);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use htsim_core::SimTime;

    fn st(cwnd: u64, ssthresh: u64) -> CcState {
        CcState {
            cwnd,
            ssthresh,
            mss: 1400,
            snd_una: 1,
            snd_nxt: 1,
            snd_max: 1,
            in_recovery: false,
            srtt: SimTime::ZERO,
            subflow: 0,
        }
    }

    fn ack(newly: u64) -> AckSample {
        AckSample {
            ack: 1 + newly,
            snd_una_before: 1,
            newly_acked: newly,
            duplicate: false,
            ece: false,
            cwr: false,
        }
    }

    #[test]
    fn slow_start_per_ack_and_abc() {
        let mut s = st(1400, 65_535);
        NewReno::new(SlowStartIncrease::PerAck).increase(&mut s, &ack(5 * 1400));
        assert_eq!(s.cwnd, 2800, "one MSS per ACK whatever it covers");
        let mut s = st(1400, 65_535);
        NewReno::new(SlowStartIncrease::Abc { limit: 2 }).increase(&mut s, &ack(5 * 1400));
        assert_eq!(s.cwnd, 1400 + 2800, "ABC caps at L = 2 segments");
    }

    #[test]
    fn congestion_avoidance_truncates() {
        let mut s = st(65_535, 65_535);
        NewReno::new(SlowStartIncrease::PerAck).increase(&mut s, &ack(1400));
        assert_eq!(s.cwnd, 65_535 + 1_960_000 / 65_535);
        let mut s = st(3_000_000, 10);
        NewReno::new(SlowStartIncrease::PerAck).increase(&mut s, &ack(1400));
        assert_eq!(s.cwnd, 3_000_001, "at least one byte");
    }

    #[test]
    fn an_ecn_echo_halves_the_flight_once_per_window_and_not_in_recovery() {
        let mut cc = NewRenoEcn::new(SlowStartIncrease::PerAck);
        // 20 segments in flight, 10 more sent but not acknowledged beyond snd_una.
        let mut s = CcState {
            snd_una: 1 + 14_000,
            snd_nxt: 1 + 42_000,
            snd_max: 1 + 42_000,
            ..st(28_000, 65_535)
        };
        let echo = AckSample {
            ece: true,
            ..ack(1400)
        };
        assert!(!cc.on_ack(&mut s, &ack(1400)), "no echo, no reduction");
        assert!(cc.on_ack(&mut s, &echo));
        // Flight 28 000 B: ssthresh = cwnd = 14 000.
        assert_eq!((s.cwnd, s.ssthresh), (14_000, 14_000));
        // Echoes for data sent before the reduction (snd_una below 42 001) are ignored ...
        s.snd_una = 1 + 41_000;
        assert!(!cc.on_ack(&mut s, &echo));
        assert_eq!(s.cwnd, 14_000);
        // ... then the next window's first echo halves again, never below 2 MSS.
        s.snd_una = 1 + 42_000;
        s.snd_max = 1 + 43_400;
        s.snd_nxt = s.snd_max;
        assert!(cc.on_ack(&mut s, &echo));
        assert_eq!((s.cwnd, s.ssthresh), (2800, 2800));
        // In loss recovery an echo does nothing.
        s.snd_una = 1 + 50_000;
        s.in_recovery = true;
        assert!(!cc.on_ack(&mut s, &echo));
        assert_eq!(s.cwnd, 2800);
    }
}
