//! Linked Increases (RFC 6356), with and without its cap (docs/model.md 4.6, 12 `lia_variant`).

use super::coupled::{slow_start, to_bytes, AlphaTerms, CoupledCc, Coupling};
use crate::cc::{AckSample, CcState};
use crate::config::SlowStartIncrease;
use htsim_core::SimTime;

/// LIA: in congestion avoidance `cwnd_i += max(1, min(alpha MSS^2 / W, MSS^2 / cwnd_i))` per new
/// ACK (the code's `RTT_Compensator`, RFC 6356 3-4); with `capped = false` the min with the
/// TCP increase is dropped (`Linked_Increases`, not RFC compliant). Decreases are NewReno's.
///
/// Each subflow's alpha terms are kept until its cwnd or RTT changes: an ACK changes one
/// subflow's, so the others' divisions are not redone.
#[derive(Clone, Debug, PartialEq)]
pub struct Lia {
    slow_start: SlowStartIncrease,
    capped: bool,
    /// Alpha terms by position in the coupling (grown to the subflow count once).
    terms: Vec<AlphaTerms>,
}

impl Lia {
    /// RFC 6356 LIA (the default MPTCP controller, docs/model.md 4.6).
    pub fn new(slow_start: SlowStartIncrease) -> Self {
        Lia {
            slow_start,
            capped: true,
            terms: Vec::new(),
        }
    }

    /// LIA without the min with the TCP increase (`Linked_Increases`).
    pub fn uncapped(slow_start: SlowStartIncrease) -> Self {
        Lia {
            slow_start,
            capped: false,
            terms: Vec::new(),
        }
    }
}

impl CoupledCc for Lia {
    fn name(&self) -> &'static str {
        if self.capped {
            "lia"
        } else {
            "lia-uncapped"
        }
    }

    fn increase(&mut self, c: &Coupling<'_>, state: &mut CcState, ack: &AckSample) {
        if slow_start(self.slow_start, state, ack) {
            return;
        }
        let mss2 = (state.mss as f64) * (state.mss as f64);
        let n = c.subflows.len();
        if self.terms.len() < n {
            self.terms.resize(n, AlphaTerms::of(0, SimTime::ZERO));
        }
        let cache = &mut self.terms[..n];
        let (w, alpha) = c.window_and_alpha(|i, v| {
            let t = &mut cache[i];
            if !t.matches(v) {
                *t = v.alpha_terms();
            }
            *t
        });
        let w = (w as f64).max(1.0);
        let coupled = alpha * mss2 / w;
        let inc = if self.capped {
            coupled.min(mss2 / (state.cwnd as f64).max(1.0))
        } else {
            coupled
        };
        state.cwnd = state.cwnd.saturating_add(to_bytes(inc, state.mss));
    }
}
