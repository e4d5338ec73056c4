//! Timers with lazy cancellation.
//!
//! A [`Timer`] lives inside its endpoint. Arming it schedules an engine event only when no
//! pending event of this timer would fire early enough; re-arming to a *later* time (an RTO
//! restarted on every ACK) just moves the deadline, and when the earlier event fires it is
//! re-scheduled to the deadline. Cancelling only clears the deadline. Each event carries the
//! timer's generation, so an event made stale by re-arming earlier is recognised and ignored,
//! never searched for in the event queue (docs/model.md 15.7). With RTO-like use this costs about one
//! event per RTO period instead of one per ACK.

use crate::endpoint::Ctx;
use crate::time::SimTime;

/// What an endpoint receives in [`Endpoint::on_timer`](crate::endpoint::Endpoint::on_timer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerFired {
    /// The key the endpoint armed the timer with (which of its timers this is).
    pub key: u32,
    /// The generation of the event (checked by [`Timer::fire`]).
    pub generation: u32,
}

/// A restartable, cancellable one-shot timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timer {
    key: u32,
    deadline: SimTime,
    scheduled: SimTime,
    generation: u32,
}

impl Timer {
    /// An unarmed timer whose events carry `key`.
    pub const fn new(key: u32) -> Self {
        Timer {
            key,
            deadline: SimTime::MAX,
            scheduled: SimTime::MAX,
            generation: 0,
        }
    }

    /// The key this timer's events carry.
    pub fn key(&self) -> u32 {
        self.key
    }

    /// Whether the timer is armed.
    pub fn is_armed(&self) -> bool {
        self.deadline != SimTime::MAX
    }

    /// When the timer will expire, if armed.
    pub fn deadline(&self) -> Option<SimTime> {
        self.is_armed().then_some(self.deadline)
    }

    /// Arms (or re-arms) the timer to expire at `at`.
    pub fn set(&mut self, ctx: &mut Ctx<'_>, at: SimTime) {
        let at = at.max(ctx.now());
        self.deadline = at;
        if self.scheduled <= at {
            return; // the pending event fires first and re-schedules to the deadline
        }
        self.generation = self.generation.wrapping_add(1);
        self.scheduled = at;
        ctx.schedule_timer(self.key, self.generation, at);
    }

    /// Disarms the timer (its pending event, if any, will be ignored).
    pub fn cancel(&mut self) {
        self.deadline = SimTime::MAX;
    }

    /// Handles an event of this timer; returns `true` if the timer really expires now.
    ///
    /// Call it from `on_timer` for the timer whose key matches `fired.key`.
    pub fn fire(&mut self, ctx: &mut Ctx<'_>, fired: TimerFired) -> bool {
        if fired.generation != self.generation || fired.key != self.key {
            return false; // superseded by an earlier re-arm
        }
        self.scheduled = SimTime::MAX;
        if self.deadline == SimTime::MAX {
            return false; // cancelled
        }
        if self.deadline > ctx.now() {
            let at = self.deadline;
            self.scheduled = at;
            ctx.schedule_timer(self.key, self.generation, at);
            return false;
        }
        self.deadline = SimTime::MAX;
        true
    }
}
