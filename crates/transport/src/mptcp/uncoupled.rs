//! Uncoupled subflows (docs/model.md 4.6, the code's `Uncoupled_TCPs`): each subflow is TCP.

use super::coupled::{CoupledCc, Coupling};
use crate::cc::{AckSample, CcState};
use crate::config::SlowStartIncrease;
use crate::newreno::NewReno;

/// Uncoupled: NewReno on every subflow (`+ max(1, MSS^2 / cwnd_i)` in congestion avoidance).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uncoupled {
    slow_start: SlowStartIncrease,
}

impl Uncoupled {
    /// Uncoupled with the given slow-start rule.
    pub fn new(slow_start: SlowStartIncrease) -> Self {
        Uncoupled { slow_start }
    }
}

impl CoupledCc for Uncoupled {
    fn name(&self) -> &'static str {
        "uncoupled"
    }

    fn increase(&mut self, _c: &Coupling<'_>, state: &mut CcState, ack: &AckSample) {
        NewReno::grow(self.slow_start, state, ack);
    }
}
