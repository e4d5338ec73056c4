//! Links: an egress queue, serialisation at line rate, and a propagation stage.
//!
//! A link holds at most two pending events (htsim's first speed trick, architecture.md): its
//! queue schedules only the end of the packet being serialised, and its propagation stage keeps
//! the packets in flight in a FIFO (they leave in the order they entered, since the delay is the
//! same for all) and schedules only the arrival of the head. The event queue thus holds
//! O(links + timers) events, not O(packets in flight).
//!
//! Link changes at a given time ([`LinkChange`]):
//! - `Rate`: the packet in service keeps the completion time it was given; the new rate applies
//!   from the next packet served.
//! - `Limit`: the buffer limit changes for new arrivals; packets already waiting stay.
//! - `Down`: every packet waiting, in service or propagating on the link is lost (counted in
//!   [`QueueCounters::packets_lost_link_down`](crate::queue::QueueCounters)), and packets
//!   arriving while the link is down are dropped (counted as drops). Routes are not recomputed:
//!   as in htsim, transports see the losses and recover (or not) by themselves.
//! - `Up`: the link carries packets again from that instant.

use crate::packet::PacketId;
use crate::queue::{Queue, Transit};
use crate::time::{Rate, SimTime};
use crate::units::BufferSize;
use std::collections::VecDeque;

/// A change applied to a link at a scheduled time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkChange {
    /// New line rate (from the next packet served).
    Rate(Rate),
    /// New buffer limit (for new arrivals).
    Limit(BufferSize),
    /// The link fails: everything on it is lost; arrivals are dropped until `Up`.
    Down,
    /// The link recovers.
    Up,
}

/// A directed link: queue, rate, propagation delay and the packets in flight.
#[derive(Debug)]
pub struct Link {
    /// The egress queue feeding the link.
    pub queue: Queue,
    rate: Rate,
    delay: SimTime,
    /// Packets in propagation, with their arrival time at the far end, oldest first.
    in_flight: VecDeque<(SimTime, Transit)>,
    up: bool,
    /// Incremented when the link goes down, so events scheduled before are recognised as stale.
    pub(crate) epoch: u32,
}

impl Link {
    /// A link of `rate` and one-way propagation `delay` fed by `queue`.
    pub fn new(rate: Rate, delay: SimTime, queue: Queue) -> Self {
        Link {
            queue,
            rate,
            delay,
            in_flight: VecDeque::new(),
            up: true,
            epoch: 0,
        }
    }

    /// Line rate.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// One-way propagation delay.
    pub fn delay(&self) -> SimTime {
        self.delay
    }

    /// Whether the link is up.
    pub fn is_up(&self) -> bool {
        self.up
    }

    /// Packets currently propagating on the link.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    pub(crate) fn set_rate(&mut self, rate: Rate) {
        self.rate = rate;
    }

    /// Puts a packet that finished serialisation at `now` into propagation. Returns whether it is
    /// now the head (so the caller must schedule its arrival).
    #[inline]
    pub(crate) fn launch(&mut self, now: SimTime, t: Transit) -> Option<SimTime> {
        let at = now + self.delay;
        self.in_flight.push_back((at, t));
        (self.in_flight.len() == 1).then_some(at)
    }

    /// Takes the head packet, which arrives at `now`; returns it and the arrival time of the
    /// next one, if any.
    #[inline]
    pub(crate) fn land(&mut self) -> Option<(Transit, Option<SimTime>)> {
        let (_, t) = self.in_flight.pop_front()?;
        Some((t, self.in_flight.front().map(|&(at, _)| at)))
    }

    /// Takes the link down; returns every packet on it (waiting, in service, propagating).
    pub(crate) fn go_down(&mut self) -> Vec<PacketId> {
        self.up = false;
        self.epoch = self.epoch.wrapping_add(1);
        let mut lost: Vec<PacketId> = self.queue.flush().collect();
        lost.extend(self.in_flight.drain(..).map(|(_, t)| t.id));
        lost
    }

    pub(crate) fn go_up(&mut self) {
        self.up = true;
    }
}
