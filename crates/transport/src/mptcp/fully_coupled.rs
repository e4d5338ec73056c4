//! Fully Coupled (Han et al.; docs/model.md 4.6, the code's `Fully_Coupled`).

use super::coupled::{slow_start, to_bytes, CoupledCc, Coupling};
use crate::cc::{AckSample, CcState};
use crate::config::SlowStartIncrease;

/// Fully Coupled: `cwnd_i += max(1, MSS^2 / W)` per new ACK in congestion avoidance, and on
/// a fast retransmit `ssthresh_i = max(2 MSS, cwnd_i - W / 2)` with W computed just before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FullyCoupled {
    slow_start: SlowStartIncrease,
}

impl FullyCoupled {
    /// Fully Coupled with the given slow-start rule.
    pub fn new(slow_start: SlowStartIncrease) -> Self {
        FullyCoupled { slow_start }
    }
}

impl CoupledCc for FullyCoupled {
    fn name(&self) -> &'static str {
        "fully-coupled"
    }

    fn increase(&mut self, c: &Coupling<'_>, state: &mut CcState, ack: &AckSample) {
        if slow_start(self.slow_start, state, ack) {
            return;
        }
        let mss2 = (state.mss as f64) * (state.mss as f64);
        let inc = mss2 / (c.total_window() as f64).max(1.0);
        state.cwnd = state.cwnd.saturating_add(to_bytes(inc, state.mss));
    }

    fn fast_retransmit_ssthresh(&mut self, c: &Coupling<'_>, state: &CcState) -> u64 {
        state
            .cwnd
            .saturating_sub(c.total_window() / 2)
            .max(2 * state.mss)
    }
}
