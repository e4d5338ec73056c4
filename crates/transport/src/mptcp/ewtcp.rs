//! EWTCP (docs/model.md 4.6 **\[PROPOSED\]**: a = 1/n^2; Honda et al. 2009, Wischik et al. 2011).

use super::coupled::{slow_start, to_bytes, CoupledCc, Coupling};
use crate::cc::{AckSample, CcState};
use crate::config::SlowStartIncrease;

/// EWTCP: `cwnd_i += a MSS^2 / cwnd_i` per new ACK in congestion avoidance with `a = 1/n^2`,
/// n = established subflows in scope, recomputed on every ACK (so it follows n as it changes);
/// NewReno halving per subflow.
///
/// Deviation: the increase is at least 1 byte (4.6 leaves EWTCP's without the `max(1, ..)` of
/// the other rows); without it integer truncation would stop growth for cwnd > a MSS^2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ewtcp {
    slow_start: SlowStartIncrease,
}

impl Ewtcp {
    /// EWTCP with the given slow-start rule.
    pub fn new(slow_start: SlowStartIncrease) -> Self {
        Ewtcp { slow_start }
    }
}

impl CoupledCc for Ewtcp {
    fn name(&self) -> &'static str {
        "ewtcp"
    }

    fn increase(&mut self, c: &Coupling<'_>, state: &mut CcState, ack: &AckSample) {
        if slow_start(self.slow_start, state, ack) {
            return;
        }
        let n = c.established_count().max(1) as f64;
        let mss2 = (state.mss as f64) * (state.mss as f64);
        let inc = mss2 / (n * n) / (state.cwnd as f64).max(1.0);
        state.cwnd = state.cwnd.saturating_add(to_bytes(inc, state.mss));
    }
}
