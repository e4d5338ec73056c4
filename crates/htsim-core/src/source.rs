//! Simple traffic sources and a sink, for exercising the engine without a transport.
//!
//! - [`CbrSource`] sends fixed-size packets at a constant bit rate (open loop).
//! - [`WindowSource`] keeps a fixed number of packets outstanding: it sends a window at start
//!   and one new packet per acknowledgement (closed loop, no congestion control, no loss
//!   recovery).
//! - [`Sink`] counts what it receives and, if asked, answers every packet with an ACK.
//!
//! Both sources stop after a given number of packets and then record a [`FlowRecord`] whose
//! `end` is the arrival of the last ACK ([`WindowSource`]) or the last send ([`CbrSource`]).

use crate::endpoint::{Ctx, Endpoint};
use crate::flow::FlowRecord;
use crate::ids::{EndpointId, HostId, RouteId};
use crate::packet::{Packet, PacketKind};
use crate::time::{Rate, SimTime};
use crate::timer::{Timer, TimerFired};

/// Where a source sends and what its packets look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceSpec {
    /// Flow number for records and traces.
    pub flow_id: u64,
    /// Sending host (for the record).
    pub src: HostId,
    /// Receiving host (for the record).
    pub dst: HostId,
    /// The receiving endpoint.
    pub sink: EndpointId,
    /// The route its packets follow.
    pub route: RouteId,
    /// Wire size of each packet in bytes.
    pub packet_bytes: u32,
    /// Packets to send; `None` sends until stopped.
    pub packets: Option<u64>,
}

impl SourceSpec {
    fn packet(&self, seq: u64, now: SimTime) -> Packet {
        Packet {
            seq,
            sent_at: now,
            dst: self.sink,
            route: self.route,
            size_bytes: self.packet_bytes,
            payload_bytes: self.packet_bytes,
            flow: self.flow_id as u32,
            kind: PacketKind::Data,
            ..Packet::default()
        }
    }

    fn record(&self, start: SimTime, end: Option<SimTime>, sent: u64, acked: u64) -> FlowRecord {
        let bytes = |packets: u64| packets * self.packet_bytes as u64;
        FlowRecord {
            flow_id: self.flow_id,
            src: self.src,
            dst: self.dst,
            size_bytes: self.packets.map(|n| n * self.packet_bytes as u64),
            arrival: start,
            start: Some(start),
            end,
            bytes_sent: bytes(sent),
            bytes_acked: bytes(acked),
            // One path: both levels are the same.
            subflow_bytes_sent: bytes(sent),
            subflow_bytes_acked: bytes(acked),
            packets_sent: sent,
            subflows: 1,
            ..FlowRecord::default()
        }
    }

    fn done(&self, sent: u64) -> bool {
        self.packets.is_some_and(|n| sent >= n)
    }
}

/// Sends `packet_bytes` packets every `packet_bytes * 8 / rate`.
#[derive(Debug)]
pub struct CbrSource {
    spec: SourceSpec,
    interval: SimTime,
    timer: Timer,
    sent: u64,
    started: SimTime,
    stopped: bool,
}

impl CbrSource {
    /// A source sending at `rate`.
    pub fn new(spec: SourceSpec, rate: Rate) -> Self {
        CbrSource {
            interval: rate.serialisation_time(spec.packet_bytes as u64),
            spec,
            timer: Timer::new(0),
            sent: 0,
            started: SimTime::ZERO,
            stopped: false,
        }
    }

    /// Packets sent so far.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    fn send_one(&mut self, ctx: &mut Ctx<'_>) {
        ctx.send(self.spec.packet(self.sent, ctx.now()));
        self.sent += 1;
        if self.spec.done(self.sent) {
            let rec = self
                .spec
                .record(self.started, Some(ctx.now()), self.sent, 0);
            ctx.record_flow(rec);
            ctx.close();
        } else {
            let at = ctx.now() + self.interval;
            self.timer.set(ctx, at);
        }
    }
}

impl Endpoint for CbrSource {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.started = ctx.now();
        self.send_one(ctx);
    }
    fn on_packet(&mut self, _packet: &Packet, _ctx: &mut Ctx<'_>) {}
    fn on_timer(&mut self, fired: TimerFired, ctx: &mut Ctx<'_>) {
        if !self.stopped && self.timer.fire(ctx, fired) {
            self.send_one(ctx);
        }
    }
    fn stop(&mut self, _ctx: &mut Ctx<'_>) {
        self.stopped = true;
        self.timer.cancel();
    }
    fn flow_record(&self, _now: SimTime) -> Option<FlowRecord> {
        Some(self.spec.record(self.started, None, self.sent, 0))
    }
}

/// Keeps `window` packets outstanding; one new packet per ACK.
#[derive(Debug)]
pub struct WindowSource {
    spec: SourceSpec,
    window: u64,
    sent: u64,
    acked: u64,
    started: SimTime,
    stopped: bool,
}

impl WindowSource {
    /// A source with a fixed window of `window` packets.
    pub fn new(spec: SourceSpec, window: u64) -> Self {
        WindowSource {
            spec,
            window: window.max(1),
            sent: 0,
            acked: 0,
            started: SimTime::ZERO,
            stopped: false,
        }
    }

    /// Packets sent so far.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// ACKs received so far.
    pub fn acked(&self) -> u64 {
        self.acked
    }

    fn send_one(&mut self, ctx: &mut Ctx<'_>) {
        ctx.send(self.spec.packet(self.sent, ctx.now()));
        self.sent += 1;
    }
}

impl Endpoint for WindowSource {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.started = ctx.now();
        while self.sent < self.window && !self.spec.done(self.sent) {
            self.send_one(ctx);
        }
    }
    fn on_packet(&mut self, packet: &Packet, ctx: &mut Ctx<'_>) {
        if packet.kind != PacketKind::Ack {
            return;
        }
        self.acked += 1;
        if !self.stopped && !self.spec.done(self.sent) {
            self.send_one(ctx);
        } else if self.acked >= self.sent {
            let rec = self
                .spec
                .record(self.started, Some(ctx.now()), self.sent, self.acked);
            ctx.record_flow(rec);
            ctx.close();
        }
    }
    fn stop(&mut self, _ctx: &mut Ctx<'_>) {
        self.stopped = true;
    }
    fn flow_record(&self, _now: SimTime) -> Option<FlowRecord> {
        Some(self.spec.record(self.started, None, self.sent, self.acked))
    }
}

/// Counts received packets; optionally acknowledges each one.
#[derive(Debug)]
pub struct Sink {
    ack: Option<(EndpointId, RouteId, u32)>,
    received_packets: u64,
    received_bytes: u64,
    last_arrival: SimTime,
    total_delay: SimTime,
}

impl Sink {
    /// A sink that only counts.
    pub fn new() -> Self {
        Sink {
            ack: None,
            received_packets: 0,
            received_bytes: 0,
            last_arrival: SimTime::ZERO,
            total_delay: SimTime::ZERO,
        }
    }

    /// A sink that answers each packet with an `ack_bytes` ACK to `source` over `route`.
    pub fn acking(source: EndpointId, route: RouteId, ack_bytes: u32) -> Self {
        Sink {
            ack: Some((source, route, ack_bytes)),
            ..Sink::new()
        }
    }

    /// Packets received.
    pub fn received_packets(&self) -> u64 {
        self.received_packets
    }

    /// Wire bytes received.
    pub fn received_bytes(&self) -> u64 {
        self.received_bytes
    }

    /// Arrival time of the last packet.
    pub fn last_arrival(&self) -> SimTime {
        self.last_arrival
    }

    /// Sum of one-way delays (arrival minus `sent_at`) of the packets received.
    pub fn total_delay(&self) -> SimTime {
        self.total_delay
    }
}

impl Default for Sink {
    fn default() -> Self {
        Sink::new()
    }
}

impl Endpoint for Sink {
    fn on_packet(&mut self, packet: &Packet, ctx: &mut Ctx<'_>) {
        self.received_packets += 1;
        self.received_bytes += packet.size_bytes as u64;
        self.last_arrival = ctx.now();
        self.total_delay += ctx.now().saturating_sub(packet.sent_at);
        if let Some((source, route, ack_bytes)) = self.ack {
            ctx.send(Packet {
                ack: packet.seq + 1,
                sent_at: ctx.now(),
                dst: source,
                route,
                size_bytes: ack_bytes,
                flow: packet.flow,
                kind: PacketKind::Ack,
                ..Packet::default()
            });
        }
    }
}
