//! NewReno window growth (docs/model.md 2.7), the "Uncoupled" increase of 4.6.

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
}
