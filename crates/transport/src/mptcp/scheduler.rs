//! The MPTCP scheduler: round robin with a stall on non-established subflows (docs/model.md
//! 4.3; MMPTCP phase 2 in 6.4).

use crate::subflow::{SendRoom, Subflow, SubflowEnv, SubflowState};

/// What a multipath sender remembers of one of its subflows between calls, until the subflow
/// changes (see [`SubflowMemos`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SubflowMemo {
    /// The subflow's [`SubflowView`](super::coupled::SubflowView) is out of date.
    view_stale: bool,
    /// The subflow's state and send room, as last read.
    window: Option<(SubflowState, SendRoom)>,
}

impl SubflowMemo {
    /// Nothing remembered: a new subflow, or one that may have changed.
    const CHANGED: SubflowMemo = SubflowMemo {
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
            "subflow {} changed without SubflowMemos::changed",
            sf.index()
        );
        w
    }
}

/// What a multipath sender remembers of its subflows between calls, until each changes: the
/// owner calls [`SubflowMemos::changed`] whenever it calls a method that may change a subflow
/// (debug builds check that it did). With it, the round robin passes over a subflow with a
/// full window without reading the subflow, and over the subflows it already found passed
/// over without looking at them again; the connection refreshes only the coupled controller's
/// views of subflows that changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubflowMemos {
    memo: Vec<SubflowMemo>,
    /// Bit i (subflows 0 to 63): the round robin passes over subflow i (it neither stalls on
    /// it nor can send on it) until it changes, while at least `passed_tail` bytes are unsent.
    passed: u64,
    /// The largest MSS of a subflow in `passed` for want of a full segment of room
    /// ([`SendRoom::Tail`]): with fewer bytes unsent, it could send them.
    passed_tail: u64,
}

impl SubflowMemos {
    /// Nothing remembered of `n` new subflows.
    pub fn new(n: usize) -> Self {
        SubflowMemos {
            memo: vec![SubflowMemo::CHANGED; n],
            passed: 0,
            passed_tail: 0,
        }
    }

    /// A new subflow, the next index.
    pub fn push(&mut self) {
        self.memo.push(SubflowMemo::CHANGED);
    }

    /// Subflow `i` may have changed: forget what was remembered of it.
    #[inline]
    pub fn changed(&mut self, i: usize) {
        self.memo[i] = SubflowMemo::CHANGED;
        if i < 64 {
            self.passed &= !(1u64 << i);
        }
    }

    /// Whether subflow `i`'s view is stale; it counts as refreshed from now on.
    #[inline]
    pub fn take_stale_view(&mut self, i: usize) -> bool {
        std::mem::replace(&mut self.memo[i].view_stale, false)
    }

    #[inline]
    fn is_passed(&self, i: usize) -> bool {
        i < 64 && self.passed & (1u64 << i) != 0
    }

    /// Records that the round robin passed over subflow `i` with `unsent` bytes unsent; it
    /// could send (`sendable`: usable and established) but for `room`.
    #[inline]
    fn pass(&mut self, i: usize, sendable: bool, room: SendRoom, unsent: u64) {
        if i >= 64 {
            return;
        }
        let passed = match room {
            _ if !sendable => true,
            SendRoom::Closed => true,
            SendRoom::Tail { mss } if unsent >= mss => {
                self.passed_tail = self.passed_tail.max(mss);
                true
            }
            SendRoom::Tail { .. } | SendRoom::Open { .. } => false,
        };
        if passed {
            self.passed |= 1u64 << i;
        }
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
    /// ([`Subflow::send_one`]). `memos` holds what is remembered of the subflows; a subflow
    /// that sends is marked changed. Returns the subflow it stalled on, if it did.
    pub fn run(
        &mut self,
        subs: &mut [Subflow],
        memos: &mut SubflowMemos,
        eligible: impl Fn(usize) -> bool,
        env: &mut SubflowEnv<'_, '_>,
    ) -> Option<usize> {
        let n = subs.len();
        debug_assert_eq!(memos.memo.len(), n);
        if n == 0 {
            return None;
        }
        let skip = self.skip_unestablished;
        loop {
            let unsent = env.source.unsent_bytes();
            if unsent == 0 {
                return None;
            }
            if unsent < memos.passed_tail {
                // A subflow passed over for want of room could send the last bytes now.
                memos.passed = 0;
                memos.passed_tail = 0;
            }
            let start = if self.rr < n { self.rr } else { self.rr % n };
            // The subflows known to be passed over are left out of the round (all are looked
            // at in debug builds, to check that they are).
            let known = if cfg!(debug_assertions) {
                0
            } else {
                memos.passed
            };
            // One subflow of the round: the stall, a segment sent, or passed over.
            let mut visit = |i: usize| -> Visit {
                let passed = memos.is_passed(i);
                let (state, room) = memos.memo[i].window(&subs[i]);
                let usable = eligible(i) && state != SubflowState::Failed;
                let established = state == SubflowState::Established;
                if usable && !established && !skip {
                    debug_assert!(!passed, "subflow {i} passed over but a stall");
                    return Visit::Stall;
                }
                let sendable = usable && established;
                if sendable && room.admits(unsent) {
                    debug_assert!(!passed, "subflow {i} passed over but could send");
                    if subs[i].send_one(env) {
                        memos.changed(i);
                        return Visit::Sent;
                    }
                }
                memos.pass(i, sendable, room, unsent);
                Visit::Passed
            };
            // The round from `start`.
            let outcome = if n <= 64 {
                let todo = !known & (u64::MAX >> (64 - n));
                let from_start = todo & (u64::MAX << start);
                bits(from_start)
                    .chain(bits(todo & !(u64::MAX << start)))
                    .map(|i| (i, visit(i)))
                    .find(|&(_, v)| v != Visit::Passed)
            } else {
                (0..n)
                    .map(|k| {
                        if start + k < n {
                            start + k
                        } else {
                            start + k - n
                        }
                    })
                    .filter(|&i| i >= 64 || known & (1u64 << i) == 0)
                    .map(|i| (i, visit(i)))
                    .find(|&(_, v)| v != Visit::Passed)
            };
            match outcome {
                Some((i, Visit::Stall)) => {
                    self.rr = i;
                    return Some(i); // the stall of 4.3: rr is not advanced
                }
                Some((i, _)) => self.rr = if i + 1 == n { 0 } else { i + 1 },
                None => {
                    // A whole round without a segment: the pointer is back where it started.
                    self.rr = start;
                    return None;
                }
            }
        }
    }
}

/// What the round robin did at one subflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Visit {
    /// Stalled on it (not established).
    Stall,
    /// Sent a segment on it.
    Sent,
    /// Passed over it.
    Passed,
}

/// The positions of the set bits of `mask`, in increasing order.
#[inline]
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}
