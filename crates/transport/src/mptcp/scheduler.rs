//! The MPTCP scheduler: round robin with a stall on non-established subflows (docs/model.md
//! 4.3; MMPTCP phase 2 in 6.4).

use crate::subflow::{SendRoom, Subflow, SubflowEnv, SubflowState};

/// What a multipath sender remembers of one of its subflows between calls, until the subflow
/// changes: the owner sets it to [`SubflowMemo::CHANGED`] whenever it calls a method that may
/// change the subflow (debug builds check that it did). With it, the scheduler passes over a
/// subflow with a full window without reading the subflow, and the connection refreshes only
/// the coupled controller's views of subflows that changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubflowMemo {
    /// The subflow's [`SubflowView`](super::coupled::SubflowView) is out of date.
    pub view_stale: bool,
    /// The subflow's state and send room, as last read.
    window: Option<(SubflowState, SendRoom)>,
}

impl SubflowMemo {
    /// Nothing remembered: a new subflow, or one that may have changed.
    pub const CHANGED: SubflowMemo = SubflowMemo {
        view_stale: true,
        window: None,
    };

    /// The state and send room of `sf`, the subflow this memo is for.
    #[inline]
    fn window(&mut self, sf: &Subflow) -> (SubflowState, SendRoom) {
        let w = *self
            .window
            .get_or_insert_with(|| (sf.state(), sf.send_room()));
        debug_assert_eq!(
            w,
            (sf.state(), sf.send_room()),
            "subflow {} changed without SubflowMemo::CHANGED",
            sf.index()
        );
        w
    }
}

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
    /// ([`Subflow::send_one`]). `memo` holds one [`SubflowMemo`] per subflow; a subflow that
    /// sends is marked changed. Returns the subflow it stalled on, if it did.
    pub fn run(
        &mut self,
        subs: &mut [Subflow],
        memo: &mut [SubflowMemo],
        eligible: impl Fn(usize) -> bool,
        env: &mut SubflowEnv<'_, '_>,
    ) -> Option<usize> {
        let n = subs.len();
        debug_assert_eq!(memo.len(), n);
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
                let i = if self.rr < n { self.rr } else { self.rr % n };
                let (state, room) = memo[i].window(&subs[i]);
                let usable = eligible(i) && state != SubflowState::Failed;
                let established = state == SubflowState::Established;
                if usable && !established && !self.skip_unestablished {
                    return Some(i); // the stall of 4.3: rr is not advanced
                }
                self.rr = if i + 1 == n { 0 } else { i + 1 };
                if usable && established && room.admits(unsent) && subs[i].send_one(env) {
                    memo[i] = SubflowMemo::CHANGED;
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
