//! The reorder-resilient receiver option (issue 5; in the spirit of Juggler, Geng et al.,
//! CoNEXT 2016, and of the reorder-resilient hosts of \[P4\], docs/model.md 16.2).
//!
//! Packet spraying (routing mode spray, [`PathPolicy::Scatter`](crate::path::PathPolicy)) sends
//! consecutive segments over paths of different delays, so segments overtake each other and a
//! plain receiver answers each early segment with a duplicate ACK: after `dupthresh` of them the
//! sender retransmits spuriously and halves its window. With this option a subflow's receiver
//! *holds* the duplicate ACKs that out-of-order arrivals would send:
//!
//! - A segment that arrives beyond a hole is stored as usual, but its duplicate ACK is owed
//!   instead of sent; the first owed ACK starts a hold deadline `max_delay` later.
//! - If the hole fills (a segment at `rcv_nxt` arrives) before then, the owed duplicate ACKs are
//!   forgotten and one cumulative ACK acknowledges everything that became in order: reordering
//!   cost nothing.
//! - If the deadline passes, or `max_segments` duplicate ACKs are owed, the hole is taken for a
//!   loss: all owed duplicate ACKs go out back to back (so the sender's fast retransmit still
//!   works, `max_delay` later than without the option), and later out-of-order arrivals for the
//!   same hole are answered at once, as by a plain receiver, until the hole fills.
//!
//! Everything else (in-order data, delayed ACKs, old duplicates, FIN) is unchanged. The option
//! lives in each subflow's receive state, so it serves TCP, packet scatter and every subflow of
//! the multipath receivers alike. Choosing `max_delay` above the largest delay difference
//! between the paths (plus queueing) absorbs reordering; a real loss then costs `max_delay` more
//! before it is repaired. `max_segments` bounds the hold by count, so a long hole on a fast path
//! is released before the sender's window drains (set it at most the expected window in
//! segments).

use crate::error::TransportError;
use htsim_core::SimTime;

/// Parameters of the reorder-resilient receiver option (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReorderHold {
    /// Longest time a duplicate ACK is held, from the first out-of-order arrival of a hole.
    pub max_delay: SimTime,
    /// Most duplicate ACKs held for one hole; reaching it releases them at once (>= 1).
    pub max_segments: u32,
}

impl ReorderHold {
    /// Checks a positive delay and at least one held segment.
    pub fn validate(&self) -> Result<(), TransportError> {
        if self.max_delay == SimTime::ZERO {
            return Err(TransportError::InvalidConfig(
                "reorder hold: max_delay must be positive".into(),
            ));
        }
        if self.max_segments == 0 {
            return Err(TransportError::InvalidConfig(
                "reorder hold: max_segments must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// What the receiver does with the duplicate ACK of an out-of-order arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HoldDecision {
    /// Send it now (no hold configured, or the hole was already released).
    AckNow,
    /// Hold it; the hold deadline is [`HoldState::due`].
    Hold,
    /// Send this many duplicate ACKs now (the count limit was reached).
    Release(u32),
}

/// The hold state of one subflow's receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HoldState {
    /// Duplicate ACKs owed for the current hole.
    owed: u32,
    /// When the owed ACKs must go out.
    due: Option<SimTime>,
    /// `rcv_nxt` of a hole whose ACKs were released (later arrivals are ACKed at once).
    released_hole: Option<u64>,
    /// Holds released by deadline or count, over the subflow's life.
    releases: u64,
}

impl HoldState {
    /// The deadline of the owed duplicate ACKs, if any are owed.
    pub fn due(&self) -> Option<SimTime> {
        self.due
    }

    /// Duplicate ACKs owed now.
    pub fn owed(&self) -> u32 {
        self.owed
    }

    /// How many holds were released (taken for a loss) so far.
    pub fn releases(&self) -> u64 {
        self.releases
    }

    /// A segment arrived beyond the hole at `rcv_nxt` at time `now`.
    pub fn on_out_of_order(
        &mut self,
        hold: &ReorderHold,
        rcv_nxt: u64,
        now: SimTime,
    ) -> HoldDecision {
        if self.released_hole == Some(rcv_nxt) {
            return HoldDecision::AckNow;
        }
        self.owed += 1;
        if self.due.is_none() {
            self.due = Some(now.saturating_add(hold.max_delay));
        }
        if self.owed >= hold.max_segments {
            return HoldDecision::Release(self.release(rcv_nxt));
        }
        HoldDecision::Hold
    }

    /// `rcv_nxt` advanced: the owed duplicate ACKs are superseded by the cumulative ACK.
    pub fn on_progress(&mut self) {
        self.owed = 0;
        self.due = None;
        self.released_hole = None;
    }

    /// The hold timer fired at `now`: returns how many owed duplicate ACKs to send (0 if the
    /// deadline has not passed or nothing is owed).
    pub fn on_expiry(&mut self, rcv_nxt: u64, now: SimTime) -> u32 {
        match self.due {
            Some(due) if due <= now => self.release(rcv_nxt),
            _ => 0,
        }
    }

    fn release(&mut self, rcv_nxt: u64) -> u32 {
        let n = self.owed;
        self.owed = 0;
        self.due = None;
        self.released_hole = Some(rcv_nxt);
        self.releases += 1;
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOLD: ReorderHold = ReorderHold {
        max_delay: SimTime::from_us(100),
        max_segments: 3,
    };

    #[test]
    fn a_filled_hole_forgets_the_owed_acks() {
        let mut h = HoldState::default();
        let t0 = SimTime::from_us(5);
        assert_eq!(h.on_out_of_order(&HOLD, 1, t0), HoldDecision::Hold);
        assert_eq!(h.on_out_of_order(&HOLD, 1, t0), HoldDecision::Hold);
        assert_eq!((h.owed(), h.due()), (2, Some(SimTime::from_us(105))));
        h.on_progress();
        assert_eq!((h.owed(), h.due(), h.releases()), (0, None, 0));
    }

    #[test]
    fn count_or_deadline_releases_and_later_arrivals_are_acked_at_once() {
        let mut h = HoldState::default();
        let t0 = SimTime::ZERO;
        h.on_out_of_order(&HOLD, 1, t0);
        h.on_out_of_order(&HOLD, 1, t0);
        assert_eq!(h.on_out_of_order(&HOLD, 1, t0), HoldDecision::Release(3));
        assert_eq!(h.on_out_of_order(&HOLD, 1, t0), HoldDecision::AckNow);
        // A new hole holds again.
        h.on_progress();
        assert_eq!(h.on_out_of_order(&HOLD, 9, t0), HoldDecision::Hold);
        assert_eq!(h.on_expiry(9, SimTime::from_us(99)), 0, "not due yet");
        assert_eq!(h.on_expiry(9, SimTime::from_us(100)), 1);
        assert_eq!(h.releases(), 2);
        assert!(ReorderHold {
            max_segments: 0,
            ..HOLD
        }
        .validate()
        .is_err());
        assert!(HOLD.validate().is_ok());
    }
}
