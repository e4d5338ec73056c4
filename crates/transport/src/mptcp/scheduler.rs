//! The MPTCP scheduler: round robin with a stall on non-established subflows (docs/model.md
//! 4.3; MMPTCP phase 2 in 6.4).

use crate::subflow::{Subflow, SubflowEnv, SubflowState};

/// Round robin over a connection's subflows, one segment per subflow in turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundRobin {
    rr: usize,
    skip_unestablished: bool,
}

impl RoundRobin {
    /// A scheduler starting at subflow 0; `skip_unestablished` is 12's `rr_skip_unestablished`
    /// (false = the faithful stall).
    pub fn new(skip_unestablished: bool) -> Self {
        RoundRobin {
            rr: 0,
            skip_unestablished,
        }
    }

    /// The round-robin pointer.
    pub fn pointer(&self) -> usize {
        self.rr
    }

    /// Deals out segments while there is unsent data (4.3 `try_send`). Subflows for which
    /// `eligible` is false are passed over: a failed join, and for MMPTCP the joins before the
    /// switch and subflow 0 after it. If the subflow at the pointer is not established, the
    /// whole connection stalls with the pointer staying put, unless `skip_unestablished`. A
    /// subflow in go-back-N resends its stored segment instead of new data
    /// ([`Subflow::send_one`]). Returns the subflow it stalled on, if it did.
    pub fn run(
        &mut self,
        subs: &mut [Subflow],
        eligible: impl Fn(usize) -> bool,
        env: &mut SubflowEnv<'_, '_>,
    ) -> Option<usize> {
        let n = subs.len();
        if n == 0 {
            return None;
        }
        loop {
            let unsent = env.source.unsent_bytes();
            if unsent == 0 {
                return None;
            }
            let mut sent = false;
            for _ in 0..n {
                let i = self.rr % n;
                let sf = &mut subs[i];
                let usable = eligible(i) && sf.state() != SubflowState::Failed;
                if usable && !sf.is_established() && !self.skip_unestablished {
                    return Some(i); // the stall of 4.3: rr is not advanced
                }
                self.rr = (i + 1) % n;
                // can_send first: most calls find the window full, and it is cheaper.
                if usable && sf.is_established() && sf.can_send(unsent) && sf.send_one(env) {
                    sent = true;
                    break;
                }
            }
            if !sent {
                return None;
            }
        }
    }
}
